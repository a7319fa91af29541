"""Port of metadata/src/main/java/org/apache/kafka/metadata/storage/ScramParser.java (Kafka 3.9): the
`kafka-storage format --add-scram` arguments, e.g. `SCRAM-SHA-256=[name=alice,password=alice-secret]`, turned into
the UserScramCredentialRecords the bootstrap metadata starts with.

The 3.9 internal ScramMechanism's type and maximum iteration count come from the admin ScramMechanism and from
ScramControlManager, where the port already keeps them.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.clients.clients.admin.scram_mechanism import ScramMechanism as AdminScramMechanism
from kafka_edu.v3_9.metadata.common.metadata.user_scram_credential_record import UserScramCredentialRecord
from kafka_edu.v3_9.metadata.controller.scram_control_manager import MAX_ITERATIONS
from kafka_edu.v3_9.metadata.metadata.storage.formatter_exception import FormatterException
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.common.checkpoint_file import parse_integer

DEFAULT_ITERATIONS = 4096
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _decode_base64(text: str) -> bytes:
    """java.util.Base64.getDecoder().decode: the basic alphabet, padding optional; ValueError otherwise."""
    body = text.rstrip("=")
    if not _BASE64.fullmatch(text) or len(body) % 4 == 1 or (body != text and len(text) % 4 != 0):
        raise ValueError(f"Illegal base64 input: {text}")
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except binascii.Error as e:
        raise ValueError(str(e)) from e


def _mechanism_type(mechanism: ScramMechanism) -> int:
    return AdminScramMechanism.from_mechanism_name(mechanism.mechanism_name).type()


def parse(arguments: list[str]) -> list[ApiMessageAndVersion]:
    records = []
    for argument in arguments:
        mechanism, config_string = parse_per_mechanism_argument(argument)
        data = PerMechanismData.from_config_string(mechanism, config_string)
        records.append(ApiMessageAndVersion(data.to_record(), 0))
    return records


def parse_per_mechanism_argument(input: str) -> tuple[ScramMechanism, str]:
    """`MECHANISM=[config]` -> (mechanism, the config inside the brackets)."""
    input = input.strip()
    equals_index = input.find("=")
    if equals_index < 0:
        raise FormatterException(f"Failed to find equals sign in SCRAM argument '{input}'")
    mechanism_string = input[:equals_index]
    config_string = input[equals_index + 1:]
    mechanism = ScramMechanism.for_mechanism_name(mechanism_string)
    if mechanism is None:
        raise FormatterException(f"The add-scram mechanism {mechanism_string} is not supported.")
    if not config_string.startswith("["):
        raise FormatterException("Expected configuration string to start with [")
    if not config_string.endswith("]"):
        raise FormatterException("Expected configuration string to end with ]")
    return mechanism, config_string[1:-1]


@dataclass(frozen=True)
class PerMechanismData:
    """One user's credential for one mechanism, as configured: a password, or a salt with a salted password; the
    salt and the iteration count are optional otherwise."""

    mechanism: ScramMechanism
    configured_name: str
    configured_salt: bytes | None
    configured_iterations: int | None
    configured_password_string: str | None
    configured_salted_password: bytes | None

    @staticmethod
    def from_config_string(mechanism: ScramMechanism, config_string: str) -> PerMechanismData:
        """Kafka's second constructor: `name=alice,password=secret,...`; a value may be double-quoted."""
        config_components = config_string.split(",")
        if len(config_components) > 1:  # String.split drops trailing empty strings
            while config_components and config_components[-1] == "":
                config_components.pop()
        components: dict[str, str] = {}
        for config_component in config_components:
            key, value = split_trimmed_config_string_component(config_component)
            components[key] = value
        configured_name = components.pop("name", None)
        if configured_name is None:
            raise FormatterException("You must supply 'name' to add-scram")
        salt_string = components.pop("salt", None)
        configured_salt = None
        if salt_string is not None:
            try:
                configured_salt = _decode_base64(salt_string)
            except ValueError as e:
                raise FormatterException(f"Failed to decode given salt: {salt_string}") from e
        iterations_string = components.pop("iterations", None)
        configured_iterations = None
        if iterations_string is not None:
            try:
                configured_iterations = parse_integer(iterations_string)
            except IllegalArgumentException as e:
                raise FormatterException(f"Failed to parse iterations count: {iterations_string}") from e
        password_string = components.pop("password", None)
        salted_password_string = components.pop("saltedpassword", None)
        configured_salted_password = None
        if password_string is None:
            if salted_password_string is None:
                raise FormatterException("You must supply one of 'password' or 'saltedpassword' to add-scram")
            if configured_salt is None:
                raise FormatterException("You must supply 'salt' with 'saltedpassword' to add-scram")
            try:
                configured_salted_password = _decode_base64(salted_password_string)
            except ValueError as e:
                raise FormatterException(f"Failed to decode given saltedPassword: {salted_password_string}") from e
        if components:
            raise FormatterException(f"Unknown SCRAM configurations: {', '.join(sorted(components))}")
        return PerMechanismData(mechanism, configured_name, configured_salt, configured_iterations, password_string,
                                configured_salted_password)

    def salt(self) -> bytes:
        if self.configured_salt is not None:
            return self.configured_salt
        return ScramFormatter(self.mechanism).secure_random_bytes()

    def iterations(self) -> int:
        if self.configured_iterations is not None:
            return self.configured_iterations
        return DEFAULT_ITERATIONS

    def salted_password(self, salt: bytes, iterations: int) -> bytes:
        if self.configured_salted_password is not None:
            return self.configured_salted_password
        assert self.configured_password_string is not None
        return ScramFormatter(self.mechanism).salted_password(self.configured_password_string, salt, iterations)

    def to_record(self) -> UserScramCredentialRecord:
        """The stored and server keys, derived from the salted password, which is itself never stored."""
        formatter = ScramFormatter(self.mechanism)
        salt = self.salt()
        iterations = self.iterations()
        if iterations < self.mechanism.min_iterations:
            raise FormatterException(f"The 'iterations' value must be >= {self.mechanism.min_iterations} for "
                                     f"add-scram using {self.mechanism}")
        if iterations > MAX_ITERATIONS:
            raise FormatterException(f"The 'iterations' value must be <= {MAX_ITERATIONS} for add-scram using "
                                     f"{self.mechanism}")
        salted_password = self.salted_password(salt, iterations)
        return UserScramCredentialRecord(
            name=self.configured_name, mechanism=_mechanism_type(self.mechanism), salt=salt,
            stored_key=formatter.stored_key(formatter.client_key(salted_password)),
            server_key=formatter.server_key(salted_password), iterations=iterations)


def split_trimmed_config_string_component(input: str) -> tuple[str, str]:
    """`key=value` at the first equals sign; a value of two or more characters loses its enclosing double quotes."""
    i = input.find("=")
    if i < 0:
        raise FormatterException(f"No equals sign found in SCRAM component: {input}")
    value = input[i + 1:]
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    return input[:i], value
