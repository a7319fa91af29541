"""Port of metadata/src/main/java/org/apache/kafka/metadata/storage/FormatterException.java (Kafka 3.9)."""

from __future__ import annotations


class FormatterException(RuntimeError):
    """A formatting request that cannot be carried out; the storage tool prints its message alone and exits 1."""
