"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/IndexEntry.java (Kafka 3.9): what an index
slot holds, seen as the key it is searched by and the value it maps to."""

from __future__ import annotations

from typing import Protocol


class IndexEntry(Protocol):
    def index_key(self) -> int: ...

    def index_value(self) -> int: ...
