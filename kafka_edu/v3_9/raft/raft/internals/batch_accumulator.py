"""Port of raft/src/main/java/org/apache/kafka/raft/internals/BatchAccumulator.java and BatchBuilder.java
(Kafka 3.9): the leader's buffer between `prepare_append` and the log.

Records appended by the state machine are serialized at once (so a record that cannot be written fails its caller),
gathered into batches of at most `max_batch_size` bytes, and handed to the raft thread by `drain` once
`controller.quorum.append.linger.ms` has passed since the first of them, or at once when a control batch is added.
Java's MemoryPool of 8 MiB buffers is left out: a batch is built when it is completed.
"""

from __future__ import annotations

import enum
import io
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import RecordBatchTooLargeException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_records, with_voters_record
from kafka_edu.v3_9.clients.common.utils.timer import LONG_MAX
from kafka_edu.v3_9.raft.raft.errors import NotLeaderException

T = TypeVar("T")

# DefaultRecordBatch.RECORD_BATCH_OVERHEAD, and an upper bound of a null-key record's framing around its value
_BATCH_HEADER_SIZE = 61
_RECORD_OVERHEAD_BOUND = 21


class DrainStatus(enum.Enum):
    STARTED = "STARTED"
    FINISHED = "FINISHED"
    NONE = "NONE"


class CompletedBatch(Generic[T]):
    """A batch ready for the log: its bytes, and the records themselves (the leader hands them to listeners)."""

    def __init__(self, base_offset: int, records: list[T] | None, num_records: int, data: MemoryRecords,
                 append_timestamp: int) -> None:
        self.base_offset = base_offset
        self.records = records
        self.num_records = num_records
        self.data = data
        self._append_timestamp = append_timestamp

    def size_in_bytes(self) -> int:
        return self.data.size_in_bytes()

    def append_timestamp(self) -> int:
        return self._append_timestamp

    def release(self) -> None:
        """Return the buffer to the memory pool: nothing to do without one."""

    def __repr__(self) -> str:
        return (f"CompletedBatch(baseOffset={self.base_offset}, numRecords={self.num_records}, "
                f"sizeInBytes={self.size_in_bytes()})")


class _BatchBuilder(Generic[T]):
    """The batch being filled: records and their serialized values, stamped with the time it was started."""

    def __init__(self, base_offset: int, append_time: int, epoch: int, max_bytes: int) -> None:
        self.base_offset = base_offset
        self.append_time = append_time
        self.epoch = epoch
        self.max_bytes = max_bytes
        self.records: list[T] = []
        self.values: list[bytes] = []
        self.size = _BATCH_HEADER_SIZE

    def bytes_needed(self, values: list[bytes]) -> int | None:
        """None if `values` fit in this batch, else the bytes this batch would need to hold them."""
        needed = self.size + sum(len(v) + _RECORD_OVERHEAD_BOUND for v in values)
        return None if needed <= self.max_bytes else needed

    def append_record(self, record: T, value: bytes) -> None:
        self.records.append(record)
        self.values.append(value)
        self.size += len(value) + _RECORD_OVERHEAD_BOUND

    def non_empty(self) -> bool:
        return bool(self.records)

    def build(self, compression: CompressionType) -> MemoryRecords:
        return with_records(self.base_offset, self.append_time, self.epoch, self.values, compression)


class BatchAccumulator(Generic[T]):
    def __init__(self, epoch: int, base_offset: int, linger_ms: int, max_batch_size: int, max_number_of_batches: int,
                 time_ms: Callable[[], int], compression: CompressionType, serde: Any) -> None:
        self._epoch = epoch
        self._linger_ms = linger_ms
        self._max_batch_size = max_batch_size
        self._max_number_of_batches = max_number_of_batches
        self._time_ms = time_ms
        self._compression = compression
        self._serde = serde
        self._append_lock = threading.Lock()
        self._next_offset = base_offset
        self._current_batch: _BatchBuilder[T] | None = None
        self._completed: list[CompletedBatch[T]] = []
        self._drain_status = DrainStatus.NONE
        self._linger_deadline = LONG_MAX  # LONG_MAX: the linger clock is not running (nothing pending)
        # set by an append that asked to delay the drain (prepareAppend) until allow_drain (schedulePreparedAppend)
        self._drain_offset: int | None = None

    def append(self, epoch: int, records: list[T], delay_drain: bool) -> int:
        """Add `records` as one unit (never split over batches); returns the offset the last one will get."""
        if epoch < self._epoch:
            raise NotLeaderException(f"Append failed because the given epoch {epoch} is stale. Current leader "
                                     f"epoch = {self._epoch}")
        if epoch > self._epoch:
            raise ValueError(f"Attempt to append from epoch {epoch} which is larger than the current epoch "
                             f"{self._epoch}")
        if len(self._completed) >= self._max_number_of_batches:
            raise RuntimeError(f"Attempting to append records when the number of completed batches "
                               f"({len(self._completed)}) in the accumulator exceeds the maximum "
                               f"({self._max_number_of_batches})")
        values = [self._serialize(record) for record in records]
        with self._append_lock:
            last_offset = self._next_offset + len(records) - 1
            self._maybe_complete_drain()
            if records:
                batch = self._maybe_allocate_batch(values)
                if delay_drain and self._drain_offset is None:
                    self._drain_offset = self._next_offset
                for record, value in zip(records, values, strict=True):
                    batch.append_record(record, value)
                if self._linger_deadline == LONG_MAX:
                    self._linger_deadline = self._time_ms() + self._linger_ms
            self._next_offset = last_offset + 1
            return last_offset

    def _serialize(self, record: T) -> bytes:
        cache: dict[Any, Any] = {}
        self._serde.record_size(record, cache)
        out = io.BytesIO()
        self._serde.write(record, cache, out)
        return out.getvalue()

    def _maybe_allocate_batch(self, values: list[bytes]) -> _BatchBuilder[T]:
        if self._current_batch is None:
            self._start_new_batch()
        needed = self._current_batch.bytes_needed(values)
        if needed is not None:
            if not self._current_batch.non_empty():
                raise RecordBatchTooLargeException(
                    f"The total record(s) size of {needed} exceeds the maximum allowed batch size of "
                    f"{self._max_batch_size}")
            self._complete_current_batch()
            self._start_new_batch()
            needed = self._current_batch.bytes_needed(values)
            if needed is not None:
                raise RecordBatchTooLargeException(
                    f"The total record(s) size of {needed} exceeds the maximum allowed batch size of "
                    f"{self._max_batch_size}")
        return self._current_batch

    def append_control_messages(self, value_creator: Callable[[int, int], MemoryRecords]) -> int:
        """Append a control batch built by `value_creator(base_offset, epoch)`; it drains at the next poll."""
        with self._append_lock:
            self._force_drain()
            memory_records = value_creator(self._next_offset, self._epoch)
            number_of_records = self._validate_memory_records_and_return_count(memory_records)
            self._completed.append(CompletedBatch(self._next_offset, None, number_of_records, memory_records,
                                                  self._time_ms()))
            self._next_offset += number_of_records
            return self._next_offset - 1

    def append_voters_record(self, voters_record: Any, current_time_ms: int) -> int:
        """A control batch with one VotersRecord (KIP-853); the offset it gets."""
        return self.append_control_messages(
            lambda base_offset, epoch: with_voters_record(base_offset, current_time_ms, epoch, voters_record))

    def _validate_memory_records_and_return_count(self, memory_records: MemoryRecords) -> int:
        batches = list(memory_records.batches())
        if len(batches) != 1:
            raise ValueError(f"Expected exactly one batch, found {len(batches)}")
        batch = batches[0]
        if batch.base_offset != self._next_offset:
            raise ValueError(f"Expected a base offset of {self._next_offset} but got {batch.base_offset}")
        if batch.partition_leader_epoch != self._epoch:
            raise ValueError(f"Expected a partition leader epoch of {self._epoch} but got "
                             f"{batch.partition_leader_epoch}")
        return batch.last_offset - batch.base_offset + 1

    def _start_new_batch(self) -> None:
        self._current_batch = _BatchBuilder(self._next_offset, self._time_ms(), self._epoch, self._max_batch_size)

    def _complete_current_batch(self) -> None:
        if self._current_batch is None:
            return
        batch = self._current_batch
        self._completed.append(CompletedBatch(batch.base_offset, batch.records, len(batch.records),
                                              batch.build(self._compression), batch.append_time))
        self._current_batch = None

    def allow_drain(self) -> None:
        """schedulePreparedAppend: what `prepare_append` held back may go to the log now."""
        self._drain_offset = None

    def _force_drain(self) -> None:
        self._drain_status = DrainStatus.STARTED
        self._maybe_complete_drain()

    def _maybe_complete_drain(self) -> None:
        if self._drain_status is DrainStatus.STARTED:
            if self._current_batch is not None and self._current_batch.non_empty():
                self._complete_current_batch()
            # the linger clock starts again with the next append
            self._linger_deadline = LONG_MAX
            self._drain_status = DrainStatus.FINISHED

    def needs_drain(self, current_time_ms: int) -> bool:
        return self.time_until_drain(current_time_ms) <= 0

    def time_until_drain(self, current_time_ms: int) -> int:
        """0 when there are batches to drain now; otherwise how long until the linger time has passed."""
        if self._drain_offset is not None:
            return LONG_MAX  # a prepared append not yet scheduled holds everything back
        if self._drain_status is DrainStatus.STARTED or self._drain_status is DrainStatus.FINISHED:
            return 0
        if self._linger_deadline == LONG_MAX:
            return LONG_MAX
        return max(0, self._linger_deadline - current_time_ms)

    def drain(self) -> list[CompletedBatch[T]]:
        """The completed batches, in offset order; called by the raft thread once `time_until_drain` is 0."""
        if self._drain_offset is not None:
            return []
        if self._drain_status is DrainStatus.NONE:
            self._drain_status = DrainStatus.STARTED
        if self._append_lock.acquire(blocking=False):  # else an append in progress completes the drain
            try:
                self._maybe_complete_drain()
            finally:
                self._append_lock.release()
        if self._drain_status is DrainStatus.FINISHED:
            self._drain_status = DrainStatus.NONE
            drained, self._completed = self._completed, []
            return drained
        return []

    def is_empty(self) -> bool:
        """Nothing pending: the linger clock runs only while something is."""
        return self._linger_deadline == LONG_MAX and not self._completed

    def epoch(self) -> int:
        return self._epoch

    def num_completed_batches(self) -> int:
        return len(self._completed)

    def close(self) -> None:
        with self._append_lock:
            self._completed = []
            self._current_batch = None
