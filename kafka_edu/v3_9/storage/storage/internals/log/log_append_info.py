"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogAppendInfo.java (Kafka 3.9): what an
append to a log wrote (offsets, last leader epoch, timestamps, valid bytes) and what it reported."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.record_batch import NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.storage.storage.internals.log.leader_hw_change import LeaderHwChange


class LogAppendInfo:
    """Kafka's OptionalInt lastLeaderEpoch is int | None; record errors are ProduceResponse.RecordError values."""

    UNKNOWN_LOG_APPEND_INFO: LogAppendInfo

    def __init__(self, first_offset: int, last_offset: int, last_leader_epoch: int | None, max_timestamp: int,
                 shallow_offset_of_max_timestamp: int, log_append_time: int, log_start_offset: int,
                 record_validation_stats: RecordValidationStats, source_compression: CompressionType,
                 valid_bytes: int, last_offset_of_first_batch: int, record_errors: list[Any] | None = None,
                 leader_hw_change: LeaderHwChange = LeaderHwChange.NONE) -> None:
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.last_leader_epoch = last_leader_epoch
        self.max_timestamp = max_timestamp
        self.shallow_offset_of_max_timestamp = shallow_offset_of_max_timestamp
        self.log_append_time = log_append_time
        self.log_start_offset = log_start_offset
        self.record_validation_stats = record_validation_stats
        self.source_compression = source_compression
        self.valid_bytes = valid_bytes
        self.last_offset_of_first_batch = last_offset_of_first_batch
        self.record_errors = [] if record_errors is None else record_errors
        self.leader_hw_change = leader_hw_change

    def first_or_last_offset_of_first_batch(self) -> int:
        return self.first_offset if self.first_offset >= 0 else self.last_offset_of_first_batch

    def num_messages(self) -> int:
        if self.first_offset >= 0 and self.last_offset >= 0:
            return self.last_offset - self.first_offset + 1
        return 0

    def copy(self, new_leader_hw_change: LeaderHwChange) -> LogAppendInfo:
        return LogAppendInfo(self.first_offset, self.last_offset, self.last_leader_epoch, self.max_timestamp,
                             self.shallow_offset_of_max_timestamp, self.log_append_time, self.log_start_offset,
                             self.record_validation_stats, self.source_compression, self.valid_bytes,
                             self.last_offset_of_first_batch, self.record_errors, new_leader_hw_change)

    @staticmethod
    def unknown_log_append_info_with_log_start_offset(log_start_offset: int) -> LogAppendInfo:
        return LogAppendInfo(-1, -1, None, NO_TIMESTAMP, -1, NO_TIMESTAMP, log_start_offset,
                             RecordValidationStats.EMPTY, CompressionType.NONE, -1, -1)

    @staticmethod
    def unknown_log_append_info_with_additional_info(log_start_offset: int, record_errors: list[Any]) -> LogAppendInfo:
        return LogAppendInfo(-1, -1, None, NO_TIMESTAMP, -1, NO_TIMESTAMP, log_start_offset,
                             RecordValidationStats.EMPTY, CompressionType.NONE, -1, -1, record_errors,
                             LeaderHwChange.NONE)

    def __repr__(self) -> str:
        return (f"LogAppendInfo(firstOffset={self.first_offset}, lastOffset={self.last_offset}, "
                f"lastLeaderEpoch={self.last_leader_epoch}, maxTimestamp={self.max_timestamp}, "
                f"shallowOffsetOfMaxTimestamp={self.shallow_offset_of_max_timestamp}, "
                f"logAppendTime={self.log_append_time}, logStartOffset={self.log_start_offset}, "
                f"recordConversionStats={self.record_validation_stats}, sourceCompression={self.source_compression}, "
                f"validBytes={self.valid_bytes}, lastOffsetOfFirstBatch={self.last_offset_of_first_batch}, "
                f"recordErrors={self.record_errors}, leaderHwChange={self.leader_hw_change})")


LogAppendInfo.UNKNOWN_LOG_APPEND_INFO = LogAppendInfo(-1, -1, None, NO_TIMESTAMP, -1, NO_TIMESTAMP, -1,
                                                      RecordValidationStats.EMPTY, CompressionType.NONE, -1, -1)
