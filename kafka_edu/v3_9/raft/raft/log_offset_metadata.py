"""Port of raft/src/main/java/org/apache/kafka/raft/LogOffsetMetadata.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LogOffsetMetadata:
    """An offset in the replicated log, with the log's own position metadata (segment, bytes) when it has it."""

    offset: int
    metadata: Any = None
