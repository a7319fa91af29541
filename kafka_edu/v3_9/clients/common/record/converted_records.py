"""Port of clients/src/main/java/org/apache/kafka/common/record/ConvertedRecords.java (Kafka 3.9): records after a
format conversion, with what the conversion cost."""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats

T = TypeVar("T")


class ConvertedRecords(Generic[T]):
    def __init__(self, records: T, record_validation_stats: RecordValidationStats) -> None:
        self._records = records
        self._record_validation_stats = record_validation_stats

    def records(self) -> T:
        return self._records

    def record_conversion_stats(self) -> RecordValidationStats:
        return self._record_validation_stats
