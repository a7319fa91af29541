"""Port of clients/src/main/java/org/apache/kafka/common/record/TimestampType.java (Kafka 3.9): what a record's
timestamp means: the producer's create time or the broker's log append time."""

from __future__ import annotations

import enum


class TimestampType(enum.Enum):
    """`name_` is Kafka's `name`, the value message.timestamp.type takes (Enum already owns `name`)."""

    NO_TIMESTAMP_TYPE = -1, "NoTimestampType"
    CREATE_TIME = 0, "CreateTime"
    LOG_APPEND_TIME = 1, "LogAppendTime"

    def __init__(self, id: int, name_: str) -> None:
        self.id = id
        self.name_ = name_

    @staticmethod
    def for_name(name: str) -> TimestampType:
        for t in TimestampType:
            if t.name_ == name:
                return t
        raise KeyError(f"Invalid timestamp type {name}")  # Java's NoSuchElementException

    def __str__(self) -> str:
        return self.name_
