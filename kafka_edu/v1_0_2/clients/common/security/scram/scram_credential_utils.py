"""Port of clients/src/main/java/org/apache/kafka/common/security/scram/ScramCredentialUtils.java (Kafka 1.0.2): a
credential as `kafka-edu configs` stores it in /config/users/<user>,
"salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>"."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.security.authenticator.credential_cache import CredentialCache
from kafka_edu.v1_0_2.clients.common.security.scram.scram_credential import ScramCredential
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism

SALT = "salt"
STORED_KEY = "stored_key"
SERVER_KEY = "server_key"
ITERATIONS = "iterations"


def credential_to_string(credential: ScramCredential) -> str:
    def b64(value: bytes) -> str:
        return base64.b64encode(value).decode("ascii")
    return (f"{SALT}={b64(credential.salt)},{STORED_KEY}={b64(credential.stored_key)},"
            f"{SERVER_KEY}={b64(credential.server_key)},{ITERATIONS}={credential.iterations}")


def credential_from_string(string: str) -> ScramCredential:
    props = _to_props(string)
    if len(props) != 4 or not {SALT, STORED_KEY, SERVER_KEY, ITERATIONS} <= props.keys():
        raise IllegalArgumentException(f"Credentials not valid: {string}")
    try:
        return ScramCredential(base64.b64decode(props[SALT], validate=True),
                               base64.b64decode(props[STORED_KEY], validate=True),
                               base64.b64decode(props[SERVER_KEY], validate=True), int(props[ITERATIONS]))
    except (binascii.Error, ValueError) as e:
        raise IllegalArgumentException(f"Credentials not valid: {string}") from e


def _to_props(string: str) -> dict[str, str]:
    props = {}
    for token in string.split(","):
        index = token.find("=")
        if index <= 0:
            raise IllegalArgumentException(f"Credentials not valid: {string}")
        props[token[:index]] = token[index + 1:]
    return props


def create_cache(cache: CredentialCache, enabled_mechanisms: Iterable[str]) -> None:
    """A credential cache for each SCRAM mechanism the listeners enable."""
    enabled = set(enabled_mechanisms)
    for mechanism in ScramMechanism.mechanism_names():
        if mechanism in enabled:
            cache.create_cache(mechanism)
