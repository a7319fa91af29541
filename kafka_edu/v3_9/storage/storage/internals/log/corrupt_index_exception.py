"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/CorruptIndexException.java (Kafka 3.9): a
sanity check found an index that cannot be right; the log rebuilds it."""

from __future__ import annotations


class CorruptIndexException(RuntimeError):
    pass
