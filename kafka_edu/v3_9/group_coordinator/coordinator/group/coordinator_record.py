"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/CoordinatorRecord.java (Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion


class CoordinatorRecord:
    """One record the group coordinator writes to __consumer_offsets: a key and a value, each with the version to
    write it at. A None value is a tombstone: compaction then drops the key. Immutable."""

    def __init__(self, key: ApiMessageAndVersion, value: ApiMessageAndVersion | None) -> None:
        if key is None:
            raise TypeError("key")  # Objects.requireNonNull
        self._key = key
        self._value = value

    def key(self) -> ApiMessageAndVersion:
        return self._key

    def value(self) -> ApiMessageAndVersion | None:
        return self._value

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return self._key == other._key and self._value == other._value

    def __hash__(self) -> int:
        return hash((self._key, self._value))

    def __repr__(self) -> str:
        return f"CoordinatorRecord(key={self._key}, value={self._value})"
