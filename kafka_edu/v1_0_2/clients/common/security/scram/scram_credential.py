"""Port of clients/src/main/java/org/apache/kafka/common/security/scram/ScramCredential.java (Kafka 1.0.2)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScramCredential:
    """What the broker keeps of a SCRAM password: never the password, only the salt, the keys derived from it and
    the iteration count (RFC 5802's StoredKey and ServerKey)."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int
