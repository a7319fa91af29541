"""Port of clients/src/main/java/org/apache/kafka/common/resource/PatternType.java (Kafka 3.9): how an ACL's resource
name matches."""

from __future__ import annotations

import enum


class PatternType(enum.IntEnum):
    """LITERAL: the name itself (or `*`, every name); PREFIXED: every name that starts with it. ANY and MATCH only
    appear in filters: ANY matches any pattern type by exact name, MATCH the patterns that would apply to the name."""

    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4

    @classmethod
    def from_code(cls, code: int) -> PatternType:
        return cls._value2member_map_.get(code, cls.UNKNOWN)  # type: ignore[return-value]

    @classmethod
    def from_string(cls, text: str) -> PatternType:
        try:
            return cls[text.upper()]
        except KeyError:
            return cls.UNKNOWN

    def code(self) -> int:
        return self.value

    def is_unknown(self) -> bool:
        return self is PatternType.UNKNOWN

    def is_specific(self) -> bool:
        return self in (PatternType.LITERAL, PatternType.PREFIXED)

    def __str__(self) -> str:
        return self.name
