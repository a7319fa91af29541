"""Port of server-common/src/main/java/org/apache/kafka/server/storage/log/FetchPartitionData.java (Kafka 3.9): what a
fetch read from one partition, as the fetch response callback receives it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.errors import Errors


@dataclass(frozen=True)
class FetchPartitionData:
    """Kafka's Optional and OptionalLong fields are `| None`."""

    error: Errors
    high_watermark: int
    log_start_offset: int
    records: Any
    diverging_epoch: Any | None
    last_stable_offset: int | None
    aborted_transactions: Any | None
    preferred_read_replica: int | None
    is_reassignment_fetch: bool
