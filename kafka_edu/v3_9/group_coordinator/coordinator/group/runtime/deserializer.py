"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/Deserializer.java (Kafka 3.9):
turns a partition's key and value bytes back into a coordinator record."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

T = TypeVar("T")

Buffer = bytes | bytearray | memoryview


class Deserializer(ABC, Generic[T]):

    @abstractmethod
    def deserialize(self, key: Buffer | None, value: Buffer | None) -> T:
        """Either may be None when the record has none; raises when the bytes are not a known record."""
