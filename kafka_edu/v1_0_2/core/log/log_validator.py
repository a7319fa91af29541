"""Port of core/src/main/scala/kafka/log/LogValidator.scala (Kafka 1.0.2), for message format v2 only.

Kafka 1.0.2 also up- or down-converts magic v0/v1 batches to the topic's message.format.version. This port
stores v2 only: a batch of another magic is rejected with UnsupportedForMessageFormatException, before any
offset is assigned, so nothing of it reaches the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from kafka_edu.v1_0_2.clients.common.errors import (
    InvalidRecordException,
    InvalidTimestampException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    DefaultRecordBatch,
    MemoryRecords,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder


class LongRef:
    """kafka.common.LongRef: the offset counter the validator advances as it assigns offsets."""

    def __init__(self, value: int) -> None:
        self.value = value

    def get_and_increment(self) -> int:
        value = self.value
        self.value += 1
        return value

    def add_and_get(self, delta: int) -> int:
        self.value += delta
        return self.value


@dataclass
class ValidationAndOffsetAssignResult:
    """What validation produced: the records to write (the same buffer when assigned in place) and their stats."""

    validated_records: MemoryRecords
    max_timestamp: int
    shallow_offset_of_max_timestamp: int
    message_size_maybe_changed: bool
    num_messages: int


def validate_messages_and_assign_offsets(records: MemoryRecords, offset_counter: LongRef, now: int,
                                         source_codec: CompressionType, target_codec: CompressionType,
                                         compacted_topic: bool, magic: int, timestamp_type: TimestampType,
                                         timestamp_diff_max_ms: int, partition_leader_epoch: int,
                                         is_from_client: bool) -> ValidationAndOffsetAssignResult:
    """Check every record and give the batches offsets from `offset_counter`, rewriting headers in place if possible.

    Checks: keys on compacted topics, inner offsets 0..n-1 (else the batch is rebuilt), timestamps within
    message.timestamp.difference.max.ms for CreateTime, declared record count = records present.
    """
    for batch in records.batches():
        if batch.magic != MAGIC_VALUE_V2:
            raise UnsupportedForMessageFormatException(
                f"Record batch magic {batch.magic} is not supported; this broker stores message format v2 only")
    if source_codec is CompressionType.NONE and target_codec is CompressionType.NONE:
        return _assign_offsets_non_compressed(records, offset_counter, now, compacted_topic, timestamp_type,
                                              timestamp_diff_max_ms, partition_leader_epoch, is_from_client, magic)
    return validate_messages_and_assign_offsets_compressed(records, offset_counter, now, source_codec, target_codec,
                                                           compacted_topic, magic, timestamp_type,
                                                           timestamp_diff_max_ms, partition_leader_epoch,
                                                           is_from_client)


def _validate_batch(batch: DefaultRecordBatch, is_from_client: bool, to_magic: int) -> None:
    if is_from_client:
        count_from_offsets = batch.last_offset - batch.base_offset + 1
        if count_from_offsets <= 0:
            raise InvalidRecordException(
                f"Batch has an invalid offset range: [{batch.base_offset}, {batch.last_offset}]")
        count = batch.record_count
        if count <= 0:
            raise InvalidRecordException(f"Invalid reported count for record batch: {count}")
        if count_from_offsets != count:
            raise InvalidRecordException(f"Inconsistent batch offset range [{batch.base_offset}, "
                                         f"{batch.last_offset}] and count of records {count}")
        if batch.has_producer_id and batch.base_sequence < 0:
            raise InvalidRecordException(f"Invalid sequence number {batch.base_sequence} in record batch with "
                                         f"producerId {batch.producer_id}")
        if batch.is_control_batch:
            raise InvalidRecordException("Clients are not allowed to write control records")
    if batch.is_transactional and to_magic < MAGIC_VALUE_V2:
        raise UnsupportedForMessageFormatException(f"Transactional records cannot be used with magic version "
                                                   f"{to_magic}")
    if batch.has_producer_id and to_magic < MAGIC_VALUE_V2:
        raise UnsupportedForMessageFormatException(f"Idempotent records cannot be used with magic version {to_magic}")


def _validate_record(batch: DefaultRecordBatch, record: DefaultRecord, now: int, timestamp_type: TimestampType,
                     timestamp_diff_max_ms: int, compacted_topic: bool) -> None:
    # v2 has no record-level CRC: the batch CRC (checked in Log.analyze_and_validate_records) covers the records.
    _validate_key(record, compacted_topic)
    _validate_timestamp(batch, record, now, timestamp_type, timestamp_diff_max_ms)


class _ValidatedRecords(NamedTuple):
    """What validating a batch's records found: their count, largest timestamp, and whether offsets need fixing."""

    count: int
    max_timestamp: int  # NO_TIMESTAMP unless a record carries a larger one
    index_of_max_timestamp: int  # the first record carrying it, -1 if none
    inner_offsets_in_order: bool  # record offsets are exactly 0, 1, 2, ... (what in-place assignment needs)


def _validate_records(batch: DefaultRecordBatch, now: int, timestamp_type: TimestampType, timestamp_diff_max_ms: int,
                      compacted_topic: bool) -> _ValidatedRecords:
    """validateRecord for each record of the batch, in order, as LogValidator's loops over `batch.asScala` do.

    The walk reads every record's framing (DefaultRecordBatch.records_summary) and checks keys and timestamps on the
    batch's smallest and largest timestamps, which holds for each record iff it holds for those two. If anything is
    off, the batch is walked again record by record (DefaultRecord.read_from, then _validate_record), which raises
    the error Kafka raises for the first bad record.
    """
    # A producer's batch starts at base offset 0, so its record offsets are its offset deltas.
    summary = batch.records_summary() if batch.base_offset == 0 else None
    if summary is not None and batch.timestamp_type is not TimestampType.LOG_APPEND_TIME:
        first_timestamp = batch.first_timestamp
        min_timestamp = first_timestamp + summary.min_timestamp_delta
        max_timestamp = first_timestamp + summary.max_timestamp_delta
        keys_valid = not (compacted_topic and summary.has_null_key)
        timestamps_valid = (timestamp_type is not TimestampType.CREATE_TIME
                            or (abs(min_timestamp - now) <= timestamp_diff_max_ms
                                and abs(max_timestamp - now) <= timestamp_diff_max_ms))
        if keys_valid and timestamps_valid:
            in_order = summary.offset_deltas_in_order
            if max_timestamp > NO_TIMESTAMP:
                return _ValidatedRecords(batch.record_count, max_timestamp, summary.index_of_max_timestamp, in_order)
            return _ValidatedRecords(batch.record_count, NO_TIMESTAMP, -1, in_order)
    count = 0
    max_timestamp, index_of_max_timestamp, in_order = NO_TIMESTAMP, -1, True
    for record in batch.records():
        _validate_record(batch, record, now, timestamp_type, timestamp_diff_max_ms, compacted_topic)
        if record.offset != count:
            in_order = False
        if record.timestamp > max_timestamp:
            max_timestamp, index_of_max_timestamp = record.timestamp, count
        count += 1
    return _ValidatedRecords(count, max_timestamp, index_of_max_timestamp, in_order)


def _assign_offsets_non_compressed(records: MemoryRecords, offset_counter: LongRef, now: int, compacted_topic: bool,
                                   timestamp_type: TimestampType, timestamp_diff_max_ms: int,
                                   partition_leader_epoch: int, is_from_client: bool,
                                   magic: int) -> ValidationAndOffsetAssignResult:
    """In place: stamp base offset and leader epoch (outside the CRC), and maxTimestamp/type (CRC redone if changed).

    Each record takes the next offset of the counter; the batch's largest timestamp is that of its records.
    """
    max_timestamp = NO_TIMESTAMP
    offset_of_max_timestamp = -1
    initial_offset = offset_counter.value
    for batch in records.batches():
        _validate_batch(batch, is_from_client, magic)
        validated = _validate_records(batch, now, timestamp_type, timestamp_diff_max_ms, compacted_topic)
        first_offset_of_batch = offset_counter.value
        offset_counter.add_and_get(validated.count)
        max_batch_timestamp = validated.max_timestamp
        offset_of_max_batch_timestamp = (first_offset_of_batch + validated.index_of_max_timestamp
                                         if validated.index_of_max_timestamp >= 0 else -1)
        if max_batch_timestamp > max_timestamp:
            max_timestamp = max_batch_timestamp
            offset_of_max_timestamp = offset_of_max_batch_timestamp
        batch.set_last_offset(offset_counter.value - 1)
        batch.set_partition_leader_epoch(partition_leader_epoch)
        if timestamp_type is TimestampType.LOG_APPEND_TIME:
            batch.set_max_timestamp(TimestampType.LOG_APPEND_TIME, now)
        else:
            batch.set_max_timestamp(timestamp_type, max_batch_timestamp)
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        max_timestamp = now
        offset_of_max_timestamp = offset_counter.value - 1
    return ValidationAndOffsetAssignResult(records, max_timestamp, offset_of_max_timestamp,
                                           message_size_maybe_changed=False,
                                           num_messages=offset_counter.value - initial_offset)


def validate_messages_and_assign_offsets_compressed(records: MemoryRecords, offset_counter: LongRef, now: int,
                                                    source_codec: CompressionType, target_codec: CompressionType,
                                                    compacted_topic: bool, to_magic: int,
                                                    timestamp_type: TimestampType, timestamp_diff_max_ms: int,
                                                    partition_leader_epoch: int,
                                                    is_from_client: bool) -> ValidationAndOffsetAssignResult:
    """Decompress and check every record; keep the producer's compressed bytes unless a rebuild is unavoidable.

    A rebuild (new batch, recompressed) happens when the broker's compression.type differs from the producer's
    codec, or when the inner offset deltas are not 0, 1, 2, ...
    """
    in_place_assignment = source_codec is target_codec
    if sum(1 for _ in records.batches()) > 1:
        # ProduceRequest (v3+) already rejects this in Kafka; the in-place path below relies on it.
        raise InvalidRecordException("Compressed record sets must contain exactly one record batch")
    max_timestamp = NO_TIMESTAMP
    num_records = 0
    initial_offset = offset_counter.value
    for batch in records.batches():
        _validate_batch(batch, is_from_client, to_magic)
        # Control records written uncompressed stay as they are.
        if source_codec is CompressionType.NONE and batch.is_control_batch:
            in_place_assignment = True
        validated = _validate_records(batch, now, timestamp_type, timestamp_diff_max_ms, compacted_topic)
        if not validated.inner_offsets_in_order:
            in_place_assignment = False
        if validated.max_timestamp > max_timestamp:
            max_timestamp = validated.max_timestamp
        num_records += validated.count

    if not in_place_assignment:
        # Only one batch per request carries producer state in v2, so the first batch's fields are the ones.
        first = next(records.batches())
        builder = MemoryRecordsBuilder(target_codec, timestamp_type, offset_counter.value, now, first.producer_id,
                                       first.producer_epoch, first.base_sequence, first.is_transactional,
                                       partition_leader_epoch)
        # The records were validated above; the rebuild needs them whole (keys, values, headers).
        for batch in records.batches():
            for record in batch.records():
                builder.append_with_offset(offset_counter.get_and_increment(), record)
        rebuilt = builder.build()
        return ValidationAndOffsetAssignResult(rebuilt, builder.max_timestamp, builder.offset_of_max_timestamp,
                                               message_size_maybe_changed=True,
                                               num_messages=builder.num_records)

    # Reuse the compressed payload byte for byte; only header fields change.
    batch = next(records.batches())
    last_offset = offset_counter.add_and_get(num_records) - 1
    batch.set_last_offset(last_offset)
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        max_timestamp = now
    batch.set_max_timestamp(timestamp_type, max_timestamp)
    batch.set_partition_leader_epoch(partition_leader_epoch)
    return ValidationAndOffsetAssignResult(records, max_timestamp, last_offset, message_size_maybe_changed=False,
                                           num_messages=offset_counter.value - initial_offset)


def _validate_key(record: DefaultRecord, compacted_topic: bool) -> None:
    if compacted_topic and not record.has_key():
        raise InvalidRecordException("Compacted topic cannot accept message without key.")


def _validate_timestamp(batch: DefaultRecordBatch, record: DefaultRecord, now: int, timestamp_type: TimestampType,
                        timestamp_diff_max_ms: int) -> None:
    if (timestamp_type is TimestampType.CREATE_TIME and record.timestamp != NO_TIMESTAMP
            and abs(record.timestamp - now) > timestamp_diff_max_ms):
        raise InvalidTimestampException(
            f"Timestamp {record.timestamp} of message with offset {record.offset} is out of range. The timestamp "
            f"should be within [{now - timestamp_diff_max_ms}, {now + timestamp_diff_max_ms}]")
    if batch.timestamp_type is TimestampType.LOG_APPEND_TIME:
        raise InvalidTimestampException(f"Invalid timestamp type in message {record}. Producer should not set "
                                        "timestamp type to LogAppendTime.")
