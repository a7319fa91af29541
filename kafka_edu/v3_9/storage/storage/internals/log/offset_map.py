"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetMap.java (Kafka 3.9): the log
cleaner's map of key -> the latest offset of that key."""

from __future__ import annotations

from abc import ABC, abstractmethod


class OffsetMap(ABC):
    @abstractmethod
    def slots(self) -> int: ...

    @abstractmethod
    def put(self, key: bytes, offset: int) -> None: ...

    @abstractmethod
    def get(self, key: bytes) -> int: ...

    @abstractmethod
    def update_latest_offset(self, offset: int) -> None: ...

    @abstractmethod
    def clear(self) -> None: ...

    @abstractmethod
    def size(self) -> int: ...

    @abstractmethod
    def latest_offset(self) -> int: ...

    def utilization(self) -> float:
        return self.size() / self.slots()
