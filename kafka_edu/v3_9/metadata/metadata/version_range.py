"""Port of metadata/src/main/java/org/apache/kafka/metadata/VersionRange.java (Kafka 3.9): an inclusive range of
feature levels."""

from __future__ import annotations

from dataclasses import dataclass

SHORT_MAX = 2**15 - 1


@dataclass(frozen=True)
class VersionRange:
    min: int
    max: int

    @staticmethod
    def of(min_: int, max_: int) -> VersionRange:
        return VersionRange(min_, max_)

    def contains(self, version: int) -> bool:
        return self.min <= version <= self.max

    def __str__(self) -> str:
        if self.min == self.max:
            return str(self.min)
        if self.max == SHORT_MAX:
            return f"{self.min}+"
        return f"{self.min}-{self.max}"


ALL = VersionRange(0, SHORT_MAX)
