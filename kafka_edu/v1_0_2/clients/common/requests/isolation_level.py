"""Port of clients/src/main/java/org/apache/kafka/common/requests/IsolationLevel.java (Kafka 1.0.2)."""

from __future__ import annotations

import enum

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException


class IsolationLevel(enum.IntEnum):
    """What a Fetch or ListOffsets may see: everything below the high watermark, or only decided data (below the
    last stable offset)."""

    READ_UNCOMMITTED = 0
    READ_COMMITTED = 1

    @property
    def id(self) -> int:
        return int(self)

    @staticmethod
    def for_id(id: int) -> IsolationLevel:
        """The level a request's int8 names; parsing a request with any other value fails."""
        try:
            return IsolationLevel(id)
        except ValueError:
            raise IllegalArgumentException(f"Unknown isolation level {id}") from None
