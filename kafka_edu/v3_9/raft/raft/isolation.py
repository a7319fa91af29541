"""Port of raft/src/main/java/org/apache/kafka/raft/Isolation.java (Kafka 3.9)."""

from __future__ import annotations

import enum


class Isolation(enum.Enum):
    COMMITTED = "COMMITTED"  # up to the high watermark
    UNCOMMITTED = "UNCOMMITTED"  # up to the log end
