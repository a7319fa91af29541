"""Port of clients/src/main/java/org/apache/kafka/common/security/scram/ScramMessages.java (Kafka 1.0.2): the four
SCRAM messages of RFC 5802, parsed with Kafka's patterns."""

from __future__ import annotations

import base64
import binascii
import re

from kafka_edu.v1_0_2.clients.common.errors import SaslException

# Java's character-class intersections ([\x01-\x7F&&[^=,]]) spelled out as ranges without ',' (2C) and '=' (3D).
ALPHA = r"[A-Za-z]+"
VALUE_SAFE = r"[\x01-\x2B\x2D-\x3C\x3E-\x7F]+"
VALUE = r"[\x01-\x2B\x2D-\x7F]+"
PRINTABLE = r"[\x21-\x2B\x2D-\x7E]+"
SASLNAME = r"(?:[\x01-\x2B\x2D-\x3C\x3E-\x7F]|=2C|=3D)+"
BASE64_CHAR = r"[a-zA-Z0-9/+]"
BASE64 = f"(?:{BASE64_CHAR}{{4}})*(?:{BASE64_CHAR}{{3}}=|{BASE64_CHAR}{{2}}==)?"
RESERVED = f"(m={VALUE},)?"
EXTENSIONS = f"(,{ALPHA}={VALUE})*"


def _to_message(message_bytes: bytes) -> str:
    return message_bytes.decode("utf-8", "replace")


def _b64decode(value: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error as e:
        raise SaslException(f"Invalid base64 in SCRAM message: {e}") from e


def _b64encode(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


class ClientFirstMessage:
    """gs2-header [reserved-mext ","] username "," nonce ["," extensions]; only the gs2 header "n" (no channel
    binding) is accepted, extensions are ignored."""

    PATTERN = re.compile(f"n,(a=(?P<authzid>{SASLNAME}))?,{RESERVED}n=(?P<saslname>{SASLNAME}),"
                         f"r=(?P<nonce>{PRINTABLE}){EXTENSIONS}")

    def __init__(self, sasl_name: str, nonce: str, authorization_id: str = "") -> None:
        self.sasl_name = sasl_name
        self.nonce = nonce
        self.authorization_id = authorization_id

    @classmethod
    def parse(cls, message_bytes: bytes) -> ClientFirstMessage:
        message = _to_message(message_bytes)
        matcher = cls.PATTERN.fullmatch(message)
        if matcher is None:
            raise SaslException(f"Invalid SCRAM client first message format: {message}")
        return cls(matcher.group("saslname"), matcher.group("nonce"), matcher.group("authzid") or "")

    def gs2_header(self) -> str:
        return f"n,{self.authorization_id},"

    def client_first_message_bare(self) -> str:
        return f"n={self.sasl_name},r={self.nonce}"

    def to_message(self) -> str:
        return self.gs2_header() + self.client_first_message_bare()

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")


class ServerFirstMessage:
    """[reserved-mext ","] nonce "," salt "," iteration-count ["," extensions]"""

    PATTERN = re.compile(f"{RESERVED}r=(?P<nonce>{PRINTABLE}),s=(?P<salt>{BASE64}),i=(?P<iterations>[0-9]+)"
                         f"{EXTENSIONS}")

    def __init__(self, client_nonce: str, server_nonce: str, salt: bytes, iterations: int) -> None:
        self.nonce = client_nonce + server_nonce
        self.salt = salt
        self.iterations = iterations

    @classmethod
    def parse(cls, message_bytes: bytes) -> ServerFirstMessage:
        message = _to_message(message_bytes)
        matcher = cls.PATTERN.fullmatch(message)
        if matcher is None:
            raise SaslException(f"Invalid SCRAM server first message format: {message}")
        iterations = int(matcher.group("iterations"))
        if iterations <= 0:
            raise SaslException(f"Invalid SCRAM server first message format: invalid iterations {iterations}")
        return cls(matcher.group("nonce"), "", _b64decode(matcher.group("salt")), iterations)

    def to_message(self) -> str:
        return f"r={self.nonce},s={_b64encode(self.salt)},i={self.iterations}"

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")


class ClientFinalMessage:
    """channel-binding "," nonce ["," extensions] "," proof"""

    PATTERN = re.compile(f"c=(?P<channel>{BASE64}),r=(?P<nonce>{PRINTABLE}){EXTENSIONS},p=(?P<proof>{BASE64})")

    def __init__(self, channel_binding: bytes, nonce: str, proof: bytes | None = None) -> None:
        self.channel_binding = channel_binding
        self.nonce = nonce
        self.proof = proof

    @classmethod
    def parse(cls, message_bytes: bytes) -> ClientFinalMessage:
        message = _to_message(message_bytes)
        matcher = cls.PATTERN.fullmatch(message)
        if matcher is None:
            raise SaslException(f"Invalid SCRAM client final message format: {message}")
        return cls(_b64decode(matcher.group("channel")), matcher.group("nonce"), _b64decode(matcher.group("proof")))

    def client_final_message_without_proof(self) -> str:
        return f"c={_b64encode(self.channel_binding)},r={self.nonce}"

    def to_message(self) -> str:
        return f"{self.client_final_message_without_proof()},p={_b64encode(self.proof or b'')}"

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")


class ServerFinalMessage:
    """("e=" server-error-value | "v=" base64_server_signature) ["," extensions]"""

    PATTERN = re.compile(f"(?:e=(?P<error>{VALUE_SAFE}))|(?:v=(?P<signature>{BASE64})){EXTENSIONS}")

    def __init__(self, error: str | None, server_signature: bytes | None) -> None:
        self.error = error
        self.server_signature = server_signature

    @classmethod
    def parse(cls, message_bytes: bytes) -> ServerFinalMessage:
        message = _to_message(message_bytes)
        matcher = cls.PATTERN.fullmatch(message)
        if matcher is None:
            raise SaslException(f"Invalid SCRAM server final message format: {message}")
        if matcher.group("error") is not None:
            return cls(matcher.group("error"), None)
        return cls(None, _b64decode(matcher.group("signature")))

    def to_message(self) -> str:
        if self.error is not None:
            return "e=" + self.error
        return "v=" + _b64encode(self.server_signature or b"")

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")
