"""Port of clients/src/main/java/org/apache/kafka/clients/admin/ScramMechanism.java (Kafka 3.9): the SCRAM mechanisms
as the Admin API and the metadata records number them."""

from __future__ import annotations

import enum


class ScramMechanism(enum.IntEnum):
    UNKNOWN = 0
    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2

    @classmethod
    def from_type(cls, type_: int) -> ScramMechanism:
        try:
            return cls(type_)
        except ValueError:
            return cls.UNKNOWN

    @classmethod
    def from_mechanism_name(cls, mechanism_name: str) -> ScramMechanism:
        return next((m for m in cls if m.mechanism_name() == mechanism_name), cls.UNKNOWN)

    def mechanism_name(self) -> str:
        return self.name.replace("_", "-")

    def type(self) -> int:
        return int(self)
