"""Port of clients/src/main/java/org/apache/kafka/common/security/scram/ScramMechanism.java (Kafka 1.0.2)."""

from __future__ import annotations

import enum


class ScramMechanism(enum.Enum):
    """SCRAM with SHA-256 or SHA-512; a credential stored with fewer iterations than `min_iterations` is refused."""

    SCRAM_SHA_256 = ("SHA-256", "sha256", 4096)
    SCRAM_SHA_512 = ("SHA-512", "sha512", 4096)

    def __init__(self, hash_algorithm: str, hashlib_name: str, min_iterations: int) -> None:
        self.mechanism_name = "SCRAM-" + hash_algorithm
        self.hash_algorithm = hash_algorithm
        self.hashlib_name = hashlib_name  # Java's "HmacSHA256" is hmac over hashlib's sha256
        self.min_iterations = min_iterations

    def __str__(self) -> str:
        return self.name

    @classmethod
    def for_mechanism_name(cls, mechanism_name: str) -> ScramMechanism | None:
        return next((m for m in cls if m.mechanism_name == mechanism_name), None)

    @classmethod
    def mechanism_names(cls) -> list[str]:
        return [m.mechanism_name for m in cls]

    @classmethod
    def is_scram(cls, mechanism_name: str) -> bool:
        return cls.for_mechanism_name(mechanism_name) is not None
