"""Port of raft/src/main/java/org/apache/kafka/snapshot/RecordsSnapshotWriter.java (Kafka 3.9)."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from kio.schema.k_raft_version_record.v0.data import KRaftVersionRecord
from kio.schema.snapshot_footer_record.v0.data import SnapshotFooterRecord
from kio.schema.snapshot_header_record.v0.data import SnapshotHeaderRecord
from kio.static.primitive import i16, i64

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, RecordBatchTooLargeException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import NO_SEQUENCE, size_of_varint
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    RECORD_BATCH_OVERHEAD,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder, with_records
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordUtils
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_writer import RawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshot_writer import SnapshotWriter
from kafka_edu.v3_9.server_common.server.common.serialization.record_serde import RecordSerde

T = TypeVar("T")


def _system_milliseconds() -> int:
    return time.time_ns() // 1_000_000


class RecordsSnapshotWriter(SnapshotWriter[T], Generic[T]):
    """Turns records into the batches of a snapshot file, through a RecordSerde.

    Offsets inside a snapshot start at 0 and every batch carries the snapshot's epoch as partitionLeaderEpoch.
    Kafka fills batches with the raft BatchAccumulator (linger = forever, so a batch is written when full or at
    freeze); this does the same bookkeeping here: a batch is written when the next record would take it past
    `max_batch_size`.
    """

    def __init__(self, snapshot: RawSnapshotWriter, max_batch_size: int, time_ms: Callable[[], int],
                 compression_type: CompressionType, serde: RecordSerde[T]) -> None:
        self.snapshot = snapshot
        self.max_batch_size = max_batch_size
        self.time_ms = time_ms
        self.compression_type = compression_type
        self.serde = serde
        self._next_offset = 0
        self._batch_values: list[bytes] = []  # serialized records of the batch being filled
        self._batch_size = 0
        self._batch_append_time = 0

    def _finalize_snapshot_with_footer(self) -> None:
        """The footer, in a control batch of its own after the last data batch; nothing may follow it."""
        self._complete_current_batch()
        footer_record = SnapshotFooterRecord(version=i16(ControlRecordUtils.SNAPSHOT_FOOTER_CURRENT_VERSION))
        now = self.time_ms()
        builder = self._control_batch_builder(now)
        builder.append_snapshot_footer_message(now, footer_record)
        self._append_control_batch(builder)

    def snapshot_id(self) -> OffsetAndEpoch:
        return self.snapshot.snapshot_id()

    def last_contained_log_offset(self) -> int:
        return self.snapshot.snapshot_id().offset - 1

    def last_contained_log_epoch(self) -> int:
        return self.snapshot.snapshot_id().epoch

    def is_frozen(self) -> bool:
        return self.snapshot.is_frozen()

    def append(self, records: list[T]) -> None:
        if self.snapshot.is_frozen():
            raise IllegalStateException(
                f"Append not supported. Snapshot is already frozen: id = '{self.snapshot.snapshot_id()}'.")
        cache: dict[Any, Any] = {}
        for record in records:
            self.serde.record_size(record, cache)
            out = io.BytesIO()
            self.serde.write(record, cache, out)
            value = out.getvalue()
            needed = _record_size(len(self._batch_values), value)
            if RECORD_BATCH_OVERHEAD + needed > self.max_batch_size:
                raise RecordBatchTooLargeException(f"The total record(s) size of {needed} exceeds the maximum "
                                                   f"allowed batch size of {self.max_batch_size}")
            if self._batch_values and RECORD_BATCH_OVERHEAD + self._batch_size + needed > self.max_batch_size:
                self._complete_current_batch()
                needed = _record_size(0, value)
            if not self._batch_values:
                self._batch_append_time = self.time_ms()
            self._batch_values.append(value)
            self._batch_size += needed

    def freeze(self) -> int:
        self._finalize_snapshot_with_footer()
        self.snapshot.freeze()
        return self.snapshot.size_in_bytes()

    def close(self) -> None:
        self.snapshot.close()
        self._batch_values = []

    def _complete_current_batch(self) -> None:
        if not self._batch_values:
            return
        batch = with_records(self._next_offset, self._batch_append_time, self.snapshot.snapshot_id().epoch,
                             self._batch_values, self.compression_type)
        self._next_offset += len(self._batch_values)
        self._batch_values, self._batch_size = [], 0
        self.snapshot.append(batch)

    def _control_batch_builder(self, now: int) -> MemoryRecordsBuilder:
        return MemoryRecordsBuilder(self.compression_type, TimestampType.CREATE_TIME, self._next_offset, now,
                                    NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False,
                                    self.snapshot.snapshot_id().epoch, is_control_batch=True)

    def _append_control_batch(self, builder: MemoryRecordsBuilder) -> None:
        self._next_offset = builder.next_sequential_offset()
        self.snapshot.append(builder.build())

    class Builder:
        """How a snapshot writer is made: header fields, batching, and the raw writer it writes to."""

        def __init__(self) -> None:
            self.last_contained_log_timestamp = 0
            self.compression_type = CompressionType.NONE
            self.time_ms: Callable[[], int] = _system_milliseconds
            self.max_batch_size = 1024
            # Kafka's Builder starts at kraft.version 1 and every 3.9 caller sets it; this port has static voters
            # only (kraft.version 0), where the header batch holds the SnapshotHeaderRecord alone.
            self.kraft_version = 0
            self.voter_set: Any = None  # VoterSet | None: the voters written after the KRaftVersionRecord (KIP-853)
            self.raw_snapshot_writer: RawSnapshotWriter | None = None

        def set_last_contained_log_timestamp(self, last_contained_log_timestamp: int) -> RecordsSnapshotWriter.Builder:
            self.last_contained_log_timestamp = last_contained_log_timestamp
            return self

        def set_compression_type(self, compression_type: CompressionType) -> RecordsSnapshotWriter.Builder:
            self.compression_type = compression_type
            return self

        def set_time(self, time_ms: Callable[[], int]) -> RecordsSnapshotWriter.Builder:
            """The clock the batches are stamped with: a callable returning milliseconds."""
            self.time_ms = time_ms
            return self

        def set_max_batch_size(self, max_batch_size: int) -> RecordsSnapshotWriter.Builder:
            self.max_batch_size = max_batch_size
            return self

        def set_raw_snapshot_writer(self, raw_snapshot_writer: RawSnapshotWriter) -> RecordsSnapshotWriter.Builder:
            self.raw_snapshot_writer = raw_snapshot_writer
            return self

        def set_kraft_version(self, kraft_version: int) -> RecordsSnapshotWriter.Builder:
            self.kraft_version = kraft_version
            return self

        def set_voter_set(self, voter_set: Any) -> RecordsSnapshotWriter.Builder:
            self.voter_set = voter_set
            return self

        def build(self, serde: RecordSerde[T]) -> RecordsSnapshotWriter[T]:
            """The writer, with the header control batch already written at offset 0."""
            if self.raw_snapshot_writer is None:
                raise IllegalStateException("Builder::build called without a RawSnapshotWriter")
            if self.raw_snapshot_writer.size_in_bytes() != 0:
                raise IllegalStateException(
                    f"Initializing writer with a non-empty snapshot: {self.raw_snapshot_writer.snapshot_id()}")
            if self.kraft_version == 0 and self.voter_set is not None:
                raise IllegalStateException(f"Voter set ({self.voter_set}) not expected when the kraft.version is 0")
            writer: RecordsSnapshotWriter[T] = RecordsSnapshotWriter(
                self.raw_snapshot_writer, self.max_batch_size, self.time_ms, self.compression_type, serde)
            now = self.time_ms()
            builder = writer._control_batch_builder(now)
            builder.append_snapshot_header_message(now, SnapshotHeaderRecord(
                version=i16(ControlRecordUtils.SNAPSHOT_HEADER_CURRENT_VERSION),
                last_contained_log_timestamp=i64(self.last_contained_log_timestamp)))
            if self.kraft_version > 0:
                builder.append_kraft_version_message(now, KRaftVersionRecord(
                    version=i16(ControlRecordUtils.KRAFT_VERSION_CURRENT_VERSION),
                    k_raft_version=i16(self.kraft_version)))
                if self.voter_set is not None:
                    builder.append_voters_message(
                        now, self.voter_set.to_voters_record(ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION))
            writer._append_control_batch(builder)
            return writer


def _record_size(offset_delta: int, value: bytes) -> int:
    """DefaultRecord.sizeInBytes for a raft record: no key, no headers, timestamp delta 0."""
    body = 1 + 1 + size_of_varint(offset_delta) + 1 + size_of_varint(len(value)) + len(value) + 1
    return size_of_varint(body) + body
