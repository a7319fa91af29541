"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/IndexSearchType.java (Kafka 3.9): whether an
index lookup compares its target with the entries' keys or their values."""

from __future__ import annotations

import enum


class IndexSearchType(enum.Enum):
    KEY = "KEY"
    VALUE = "VALUE"
