"""Port of clients/.../record/MemoryRecordsBuilder.java (Kafka 1.0.2, with MemoryRecords.withEndTransactionMarker;
the raft control batches, MemoryRecords.with* of 3.9)."""

from __future__ import annotations

import io
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kio.serial import entity_writer

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import NO_SEQUENCE, DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    ATTRIBUTES_OFFSET,
    CONTROL_FLAG_MASK,
    CRC_OFFSET,
    LOG_OVERHEAD,
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_TIMESTAMP,
    RECORD_BATCH_OVERHEAD,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_FLAG_MASK,
    MemoryRecords,
    TimestampType,
    checksum_crc32c,
)
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils

# baseOffset, batchLength, partitionLeaderEpoch, magic, crc, attributes, lastOffsetDelta, firstTimestamp,
# maxTimestamp, producerId, producerEpoch, baseSequence, recordCount.
_HEADER = struct.Struct(">qiibIhiqqqhii")


class MemoryRecordsBuilder:
    """Builds a batch when the leader cannot reuse the producer's bytes (other codec, or inner offsets to fix)."""

    def __init__(self, compression_type: CompressionType, timestamp_type: TimestampType, base_offset: int,
                 log_append_time: int, producer_id: int, producer_epoch: int, base_sequence: int,
                 is_transactional: bool, partition_leader_epoch: int, is_control_batch: bool = False) -> None:
        self.compression_type = compression_type
        self.timestamp_type = timestamp_type
        self.base_offset = base_offset
        self.log_append_time = log_append_time
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.base_sequence = base_sequence
        self.is_transactional = is_transactional
        self.partition_leader_epoch = partition_leader_epoch
        self.is_control_batch = is_control_batch
        self._records = bytearray()
        self._first_timestamp: int | None = None
        self.max_timestamp = NO_TIMESTAMP
        self.offset_of_max_timestamp = -1
        self.last_offset: int | None = None
        self.num_records = 0
        self.uncompressed_bytes_written = 0
        self._built = False

    def append_with_offset(self, offset: int, record: DefaultRecord) -> None:
        self._append_with_offset(offset, False, record.timestamp, record.key, record.value, record.headers)

    def _append_with_offset(self, offset: int, is_control_record: bool, timestamp: int, key: bytes | None,
                            value: bytes | None, headers: list[tuple[str, bytes | None]]) -> None:
        if is_control_record != self.is_control_batch:
            raise IllegalArgumentException("Control records can only be appended to control batches")
        if self.last_offset is not None and offset <= self.last_offset:
            raise ValueError(f"Illegal offset {offset} following previous offset {self.last_offset} "
                             "(Offsets must increase monotonically).")
        if self._first_timestamp is None:
            self._first_timestamp = timestamp
        self.uncompressed_bytes_written += DefaultRecord.write_to(
            self._records, offset - self.base_offset, timestamp - self._first_timestamp, key, value, headers)
        if timestamp > self.max_timestamp:
            self.max_timestamp = timestamp
            self.offset_of_max_timestamp = offset
        self.last_offset = offset
        self.num_records += 1

    def append(self, timestamp: int, key: bytes | None, value: bytes | None,
               headers: list[tuple[str, bytes | None]] | None = None) -> None:
        """A data record at the next offset."""
        self._append_with_offset(self.next_sequential_offset(), False, timestamp, key, value, headers or [])

    def next_sequential_offset(self) -> int:
        return self.base_offset if self.last_offset is None else self.last_offset + 1

    def override_last_offset(self, last_offset: int) -> None:
        """Give the batch a last offset past its last record (the cleaner keeps a batch's last sequence so)."""
        if self._built:
            raise IllegalStateException("Cannot override the last offset after the records have been built")
        self.last_offset = last_offset

    def info(self) -> tuple[int, int]:
        """RecordsInfo (v2): (max timestamp, shallow offset of it), the shallow offset being the last offset."""
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            return self.log_append_time, self.last_offset if self.last_offset is not None else -1
        return self.max_timestamp, self.last_offset if self.last_offset is not None else -1

    def append_control_record(self, timestamp: int, type: ControlRecordType, value: bytes) -> None:
        """A control record: key (version 0, type), value the message's bytes."""
        self._append_with_offset(self.next_sequential_offset(), True, timestamp, type.record_key(), value, [])

    def append_end_txn_marker(self, timestamp: int, marker: EndTransactionMarker) -> None:
        """The COMMIT or ABORT record ending a producer's transaction: only in a transactional control batch."""
        if self.producer_id == NO_PRODUCER_ID:
            raise IllegalArgumentException("End transaction marker requires a valid producerId")
        if not self.is_transactional:
            raise IllegalArgumentException("End transaction marker depends on batch transactional flag being enabled")
        self.append_control_record(timestamp, marker.control_type, marker.serialize_value())

    def append_leader_change_message(self, timestamp: int, leader_change_message: Any) -> None:
        if self.partition_leader_epoch == NO_PARTITION_LEADER_EPOCH:
            raise IllegalArgumentException(
                f"Partition leader epoch must be valid, but get {self.partition_leader_epoch}")
        self._append_control_message(timestamp, ControlRecordType.LEADER_CHANGE, leader_change_message,
                                     ControlRecordUtils.LEADER_CHANGE_CURRENT_VERSION)

    def append_snapshot_header_message(self, timestamp: int, snapshot_header_record: Any) -> None:
        self._append_control_message(timestamp, ControlRecordType.SNAPSHOT_HEADER, snapshot_header_record,
                                     ControlRecordUtils.SNAPSHOT_HEADER_CURRENT_VERSION)

    def append_snapshot_footer_message(self, timestamp: int, snapshot_footer_record: Any) -> None:
        self._append_control_message(timestamp, ControlRecordType.SNAPSHOT_FOOTER, snapshot_footer_record,
                                     ControlRecordUtils.SNAPSHOT_FOOTER_CURRENT_VERSION)

    def append_kraft_version_message(self, timestamp: int, kraft_version_record: Any) -> None:
        self._append_control_message(timestamp, ControlRecordType.KRAFT_VERSION, kraft_version_record,
                                     ControlRecordUtils.KRAFT_VERSION_CURRENT_VERSION)

    def append_voters_message(self, timestamp: int, voters_record: Any) -> None:
        self._append_control_message(timestamp, ControlRecordType.KRAFT_VOTERS, voters_record,
                                     ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION)

    def _append_control_message(self, timestamp: int, type: ControlRecordType, message: Any, version: int) -> None:
        # MessageUtil.toByteBuffer(message, version): the bare body, which readers decode at that same version.
        expected = ControlRecordUtils.MESSAGE_CLASSES[type]
        if not isinstance(message, expected) or _type_version(message) != version:
            raise IllegalArgumentException(f"A {type.name} control record holds a {expected.__name__} at version "
                                           f"{version}, not {message!r}")
        out = io.BytesIO()
        entity_writer(expected)(out, message)
        self.append_control_record(timestamp, type, out.getvalue())

    def build(self) -> MemoryRecords:
        """Write the header in front of the (compressed) records and fill in the CRC."""
        if self.last_offset is None:
            return MemoryRecords(b"")
        self._built = True
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            self.max_timestamp = self.log_append_time
            self.offset_of_max_timestamp = self.last_offset
        attributes = self.compression_type.id
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            attributes |= TIMESTAMP_TYPE_MASK
        if self.is_transactional:
            attributes |= TRANSACTIONAL_FLAG_MASK
        if self.is_control_batch:
            attributes |= CONTROL_FLAG_MASK
        payload = self.compression_type.wrap_for_output(bytes(self._records))
        size = RECORD_BATCH_OVERHEAD + len(payload)
        buffer = bytearray(size)
        _HEADER.pack_into(buffer, 0, self.base_offset, size - LOG_OVERHEAD, self.partition_leader_epoch,
                          MAGIC_VALUE_V2, 0, attributes, self.last_offset - self.base_offset,
                          self._first_timestamp if self._first_timestamp is not None else NO_TIMESTAMP,
                          self.max_timestamp, self.producer_id, self.producer_epoch, self.base_sequence,
                          self.num_records)
        buffer[RECORD_BATCH_OVERHEAD:] = payload
        struct.pack_into(">I", buffer, CRC_OFFSET, checksum_crc32c(memoryview(buffer)[ATTRIBUTES_OFFSET:]))
        return MemoryRecords(buffer)


def _type_version(message: Any) -> int:
    """The schema version a kio class was generated for."""
    return int(type(message).__version__)


# --- SimpleRecord and MemoryRecords.withRecords / withTransactionalRecords (Kafka 1.0.2), magic v2 only. ---

@dataclass(frozen=True)
class SimpleRecord:
    """SimpleRecord.java: a record before it has an offset; `SimpleRecord(value)` has no timestamp."""

    value: bytes | None
    key: bytes | None = None
    timestamp: int = NO_TIMESTAMP
    headers: tuple[tuple[str, bytes | None], ...] = field(default=())


def with_simple_records(records: Sequence[SimpleRecord], initial_offset: int = 0,
                        compression_type: CompressionType = CompressionType.NONE,
                        timestamp_type: TimestampType = TimestampType.CREATE_TIME,
                        producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH,
                        base_sequence: int = NO_SEQUENCE, partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
                        is_transactional: bool = False, magic: int = MAGIC_VALUE_V2) -> MemoryRecords:
    """MemoryRecords.withRecords(magic, initialOffset, compressionType, timestampType, producerId, producerEpoch,
    baseSequence, partitionLeaderEpoch, isTransactional, records...): one batch of `records` from `initial_offset`.

    Java's shorter overloads are these keyword defaults. This port writes record batches v2 only (the log stores no
    other format), so any other `magic` is refused.
    """
    if magic != MAGIC_VALUE_V2:
        raise IllegalArgumentException(f"Magic v{magic} is not supported: this port builds record batches v2 only")
    if not records:
        return MemoryRecords(b"")
    log_append_time = int(time.time() * 1000) if timestamp_type is TimestampType.LOG_APPEND_TIME else NO_TIMESTAMP
    builder = MemoryRecordsBuilder(compression_type, timestamp_type, initial_offset, log_append_time, producer_id,
                                   producer_epoch, base_sequence, is_transactional, partition_leader_epoch)
    for record in records:
        builder.append(record.timestamp, record.key, record.value, list(record.headers))
    return builder.build()


def with_transactional_records(records: Sequence[SimpleRecord], producer_id: int, producer_epoch: int,
                               base_sequence: int, initial_offset: int = 0,
                               compression_type: CompressionType = CompressionType.NONE,
                               partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
    """MemoryRecords.withTransactionalRecords: a transactional CreateTime batch of `records`."""
    return with_simple_records(records, initial_offset, compression_type, TimestampType.CREATE_TIME, producer_id,
                               producer_epoch, base_sequence, partition_leader_epoch, is_transactional=True)


# --- MemoryRecords.withEndTransactionMarker (Kafka 1.0.2): what a partition leader appends for WriteTxnMarkers. ---

def with_end_transaction_marker(producer_id: int, producer_epoch: int, marker: EndTransactionMarker,
                                initial_offset: int = 0, timestamp: int | None = None,
                                partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
    """One transactional control batch of one record, uncompressed, CreateTime `timestamp` (now by default).

    The leader gives it its offset and leader epoch on append, as it does a producer's batch.
    """
    if timestamp is None:
        timestamp = int(time.time() * 1000)
    builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, initial_offset, timestamp,
                                   producer_id, producer_epoch, NO_SEQUENCE, True, partition_leader_epoch,
                                   is_control_batch=True)
    builder.append_end_txn_marker(timestamp, marker)
    return builder.build()


# --- MemoryRecords' static builders for the raft log (MemoryRecords.java, 3.9). ---

def _create_kraft_control_record_builder(initial_offset: int, timestamp: int,
                                         leader_epoch: int) -> MemoryRecordsBuilder:
    return MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, initial_offset, timestamp,
                                NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False, leader_epoch,
                                is_control_batch=True)


def with_leader_change_message(initial_offset: int, timestamp: int, leader_epoch: int,
                               leader_change_message: Any) -> MemoryRecords:
    """The control batch a new raft leader appends first in its epoch (kio LeaderChangeMessage v0)."""
    builder = _create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch)
    builder.append_leader_change_message(timestamp, leader_change_message)
    return builder.build()


def with_snapshot_header_record(initial_offset: int, timestamp: int, leader_epoch: int,
                                snapshot_header_record: Any) -> MemoryRecords:
    builder = _create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch)
    builder.append_snapshot_header_message(timestamp, snapshot_header_record)
    return builder.build()


def with_snapshot_footer_record(initial_offset: int, timestamp: int, leader_epoch: int,
                                snapshot_footer_record: Any) -> MemoryRecords:
    builder = _create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch)
    builder.append_snapshot_footer_message(timestamp, snapshot_footer_record)
    return builder.build()


def with_kraft_version_record(initial_offset: int, timestamp: int, leader_epoch: int,
                              kraft_version_record: Any) -> MemoryRecords:
    builder = _create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch)
    builder.append_kraft_version_message(timestamp, kraft_version_record)
    return builder.build()


def with_voters_record(initial_offset: int, timestamp: int, leader_epoch: int, voters_record: Any) -> MemoryRecords:
    builder = _create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch)
    builder.append_voters_message(timestamp, voters_record)
    return builder.build()


def with_records(initial_offset: int, timestamp: int, partition_leader_epoch: int, values: list[bytes],
                 compression_type: CompressionType = CompressionType.NONE) -> MemoryRecords:
    """A data batch of record values already serialized (a RecordSerde's output), as the raft leader writes them.

    Like raft/internals/BatchBuilder: offsets from `initial_offset` up, null keys, no headers, every record stamped
    `timestamp` (CreateTime), no producer id, and partitionLeaderEpoch = the raft epoch.
    """
    if not values:
        raise IllegalArgumentException("A batch needs at least one record")
    builder = MemoryRecordsBuilder(compression_type, TimestampType.CREATE_TIME, initial_offset, timestamp,
                                   NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False, partition_leader_epoch)
    for value in values:
        builder.append(timestamp, None, bytes(value))
    return builder.build()
