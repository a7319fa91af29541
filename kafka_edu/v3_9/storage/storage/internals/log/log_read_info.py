"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogReadInfo.java (Kafka 3.9): what a read of
a partition returned, with the log's offsets taken before the read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo


@dataclass(frozen=True)
class LogReadInfo:
    fetched_data: FetchDataInfo
    diverging_epoch: Any | None  # Optional<FetchResponseData.EpochEndOffset>
    high_watermark: int
    log_start_offset: int
    log_end_offset: int
    last_stable_offset: int
