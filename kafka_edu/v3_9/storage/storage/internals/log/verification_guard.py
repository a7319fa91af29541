"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/VerificationGuard.java (Kafka 3.9): a unique
token for one verification of an ongoing transaction, so an append can prove it is the append that was verified."""

from __future__ import annotations

import itertools
from typing import ClassVar

# Kafka's AtomicLong: next() on a count is atomic under the GIL
_INCREMENTING_ID = itertools.count(1)


class VerificationGuard:
    """Equal only to a guard with the same value; each new guard has a fresh value."""

    # the default when no guard is given: it never verifies anything, and its value is 0
    SENTINEL: ClassVar[VerificationGuard]

    __slots__ = ("_value",)

    def __init__(self, value: int | None = None) -> None:
        # Kafka's private VerificationGuard(long) is only used for SENTINEL
        self._value = next(_INCREMENTING_ID) if value is None else value

    def __str__(self) -> str:
        return f"VerificationGuard(value={self._value})"

    __repr__ = __str__

    def __eq__(self, obj: object) -> bool:
        if obj is None or type(obj) is not type(self):
            return False
        return self._value == obj._value

    def __hash__(self) -> int:
        return hash(self._value)

    def verify(self, verifying_guard: VerificationGuard) -> bool:
        return verifying_guard is not VerificationGuard.SENTINEL and verifying_guard == self


VerificationGuard.SENTINEL = VerificationGuard(0)
