"""Port of clients/src/main/java/org/apache/kafka/common/security/scram/ScramFormatter.java (Kafka 1.0.2): the
salt, hash and HMAC functions of RFC 5802, over Python's hashlib and hmac."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.security.scram.scram_credential import ScramCredential
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.clients.common.security.scram.scram_messages import (
        ClientFinalMessage,
        ClientFirstMessage,
        ServerFirstMessage,
    )

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


class ScramFormatter:
    def __init__(self, mechanism: ScramMechanism) -> None:
        self.mechanism = mechanism

    def hmac(self, key: bytes, data: bytes) -> bytes:
        return hmac.new(key, data, self.mechanism.hashlib_name).digest()

    def hash(self, data: bytes) -> bytes:
        return hashlib.new(self.mechanism.hashlib_name, data).digest()

    @staticmethod
    def xor(first: bytes, second: bytes) -> bytes:
        if len(first) != len(second):
            raise IllegalArgumentException("Argument arrays must be of the same length")
        return bytes(a ^ b for a, b in zip(first, second, strict=True))

    def hi(self, data: bytes, salt: bytes, iterations: int) -> bytes:
        """RFC 5802's Hi: U1 = HMAC(str, salt + INT(1)), Ui = HMAC(str, Ui-1), the XOR of all. That is PBKDF2 with
        one block of the hash's length, which hashlib computes in C."""
        return hashlib.pbkdf2_hmac(self.mechanism.hashlib_name, data, salt, iterations)

    @staticmethod
    def normalize(string: str) -> bytes:
        return string.encode("utf-8")  # Kafka does no SASLprep either

    def salted_password(self, password: str, salt: bytes, iterations: int) -> bytes:
        return self.hi(self.normalize(password), salt, iterations)

    def client_key(self, salted_password: bytes) -> bytes:
        return self.hmac(salted_password, b"Client Key")

    def stored_key(self, client_key: bytes) -> bytes:
        return self.hash(client_key)

    @staticmethod
    def sasl_name(username: str) -> str:
        return username.replace("=", "=3D").replace(",", "=2C")

    @staticmethod
    def username(sasl_name: str) -> str:
        username = sasl_name.replace("=2C", ",")
        if "=" in username.replace("=3D", ""):
            raise IllegalArgumentException(f"Invalid username: {sasl_name}")
        return username.replace("=3D", "=")

    @staticmethod
    def auth_message(client_first_message_bare: str, server_first_message: str,
                     client_final_message_without_proof: str) -> str:
        return f"{client_first_message_bare},{server_first_message},{client_final_message_without_proof}"

    def _auth_message(self, client_first: ClientFirstMessage, server_first: ServerFirstMessage,
                      client_final: ClientFinalMessage) -> bytes:
        return self.auth_message(client_first.client_first_message_bare(), server_first.to_message(),
                                 client_final.client_final_message_without_proof()).encode("utf-8")

    def client_signature(self, stored_key: bytes, client_first: ClientFirstMessage, server_first: ServerFirstMessage,
                         client_final: ClientFinalMessage) -> bytes:
        return self.hmac(stored_key, self._auth_message(client_first, server_first, client_final))

    def client_proof(self, salted_password: bytes, client_first: ClientFirstMessage,
                     server_first: ServerFirstMessage, client_final: ClientFinalMessage) -> bytes:
        client_key = self.client_key(salted_password)
        stored_key = self.hash(client_key)
        client_signature = self.hmac(stored_key, self._auth_message(client_first, server_first, client_final))
        return self.xor(client_key, client_signature)

    def stored_key_from_proof(self, client_signature: bytes, client_proof: bytes) -> bytes:
        """storedKey(clientSignature, clientProof): the StoredKey a proof implies, H(ClientSignature XOR proof)."""
        return self.hash(self.xor(client_signature, client_proof))

    def server_key(self, salted_password: bytes) -> bytes:
        return self.hmac(salted_password, b"Server Key")

    def server_signature(self, server_key: bytes, client_first: ClientFirstMessage, server_first: ServerFirstMessage,
                         client_final: ClientFinalMessage) -> bytes:
        return self.hmac(server_key, self._auth_message(client_first, server_first, client_final))

    @staticmethod
    def secure_random_string() -> str:
        """130 random bits in base 36, as Java's BigInteger(130, random).toString(36)."""
        value = secrets.randbits(130)
        digits = ""
        while True:
            value, digit = divmod(value, 36)
            digits = _BASE36[digit] + digits
            if value == 0:
                return digits

    def secure_random_bytes(self) -> bytes:
        return self.secure_random_string().encode("utf-8")

    def generate_credential(self, password: str, iterations: int) -> ScramCredential:
        salt = self.secure_random_bytes()
        salted_password = self.salted_password(password, salt, iterations)
        client_key = self.client_key(salted_password)
        return ScramCredential(salt, self.stored_key(client_key), self.server_key(salted_password), iterations)
