"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/Serializer.java (Kafka 3.9):
turns a coordinator record into the key and value bytes written to the partition."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

T = TypeVar("T")


class Serializer(ABC, Generic[T]):

    @abstractmethod
    def serialize_key(self, record: T) -> bytes | None: ...

    @abstractmethod
    def serialize_value(self, record: T) -> bytes | None:
        """None for a tombstone."""
