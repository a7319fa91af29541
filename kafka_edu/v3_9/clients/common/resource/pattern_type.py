"""Port of clients/src/main/java/org/apache/kafka/common/resource/PatternType.java (Kafka 3.9): how an ACL's resource
name matches."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.utils.wire_code_enum import WireCodeEnum


class PatternType(WireCodeEnum):
    """LITERAL: the name itself (or `*`, every name); PREFIXED: every name that starts with it. ANY and MATCH only
    appear in filters: ANY matches any pattern type by exact name, MATCH the patterns that would apply to the name."""

    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4

    def is_specific(self) -> bool:
        return self in (PatternType.LITERAL, PatternType.PREFIXED)
