"""Port of clients/src/main/java/org/apache/kafka/common/record/RecordValidationStats.java (Kafka 3.9): what
validating or converting records cost (temporary memory, records converted, time)."""

from __future__ import annotations


class RecordValidationStats:
    def __init__(self, temporary_memory_bytes: int = 0, num_records_converted: int = 0,
                 conversion_time_nanos: int = 0) -> None:
        self._temporary_memory_bytes = temporary_memory_bytes
        self._num_records_converted = num_records_converted
        self._conversion_time_nanos = conversion_time_nanos

    def add(self, stats: RecordValidationStats) -> None:
        self._temporary_memory_bytes += stats._temporary_memory_bytes
        self._num_records_converted += stats._num_records_converted
        self._conversion_time_nanos += stats._conversion_time_nanos

    def temporary_memory_bytes(self) -> int:
        return self._temporary_memory_bytes

    def num_records_converted(self) -> int:
        return self._num_records_converted

    def conversion_time_nanos(self) -> int:
        return self._conversion_time_nanos

    def __repr__(self) -> str:
        return (f"RecordValidationStats(temporaryMemoryBytes={self._temporary_memory_bytes}, "
                f"numRecordsConverted={self._num_records_converted}, "
                f"conversionTimeNanos={self._conversion_time_nanos})")


RecordValidationStats.EMPTY = RecordValidationStats()  # type: ignore[attr-defined]
EMPTY = RecordValidationStats.EMPTY  # type: ignore[attr-defined]
