"""Port of raft/src/main/java/org/apache/kafka/raft/ControlRecord.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType


@dataclass(frozen=True)
class ControlRecord:
    """A control record of a raft control batch: its type and the decoded message (LeaderChangeMessage, ...)."""

    type: ControlRecordType
    message: Any
