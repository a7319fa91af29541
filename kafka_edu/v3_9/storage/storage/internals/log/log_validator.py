"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogValidator.java (Kafka 3.9): the leader's
check of a produce request's records, which assigns their offsets and timestamps in place when it can and rebuilds
the batch (converting magic or codec) when it must."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    InvalidTimestampException,
    UnsupportedCompressionTypeException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record import abstract_records
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.default_record_batch import DefaultRecordBatch
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V0,
    MAGIC_VALUE_V1,
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    MutableRecordBatch,
    RecordBatch,
)
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.requests.produce_response import RecordError
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.primitive_ref import LongRef
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.record_validation_exception import RecordValidationException


class MetricsRecorder(Protocol):
    """LogValidator.MetricsRecorder: the caller's meters (UnifiedLog passes BrokerTopicStats' all-topics meters)."""

    def record_invalid_magic(self) -> None: ...

    def record_invalid_offset(self) -> None: ...

    def record_invalid_sequence(self) -> None: ...

    def record_invalid_checksums(self) -> None: ...

    def record_no_key_compacted_topic(self) -> None: ...


@dataclass(frozen=True)
class ValidationResult:
    """LogValidator.ValidationResult. The max timestamp's offset is kept per batch only (the shallow offset): the
    follower and recovery paths that also update the time index do not look inside batches."""

    log_append_time_ms: int
    validated_records: MemoryRecords
    max_timestamp_ms: int
    shallow_offset_of_max_timestamp: int
    message_size_maybe_changed: bool
    record_validation_stats: RecordValidationStats


@dataclass(frozen=True)
class _ValidBatch:
    count: int
    max_timestamp: int


@dataclass(frozen=True)
class _ApiRecordError:
    api_error: Errors
    record_error: RecordError


class LogValidator:
    MetricsRecorder = MetricsRecorder
    ValidationResult = ValidationResult

    def __init__(self, records: MemoryRecords, topic_partition: TopicPartition, time: Time,
                 source_compression_type: CompressionType, target_compression: Compression, compacted_topic: bool,
                 to_magic: int, timestamp_type: TimestampType, timestamp_before_max_ms: int,
                 timestamp_after_max_ms: int, partition_leader_epoch: int, origin: AppendOrigin,
                 inter_broker_protocol_version: MetadataVersion) -> None:
        self.records = records
        self.topic_partition = topic_partition
        self.time = time
        self.source_compression_type = source_compression_type
        self.target_compression = target_compression
        self.compacted_topic = compacted_topic
        self.to_magic = to_magic
        self.timestamp_type = timestamp_type
        self.timestamp_before_max_ms = timestamp_before_max_ms
        self.timestamp_after_max_ms = timestamp_after_max_ms
        self.partition_leader_epoch = partition_leader_epoch
        self.origin = origin
        self.inter_broker_protocol_version = inter_broker_protocol_version

    @step("RQ.produce.6")
    def validate_messages_and_assign_offsets(self, offset_counter: LongRef, metrics_recorder: MetricsRecorder,
                                             buffer_supplier: Any = None) -> ValidationResult:
        """Validate the records and give them offsets from `offset_counter` (advanced past them): keys on
        compacted topics, v1+ timestamps (overwritten for LogAppendTime), inner offsets of compressed v1 sets,
        declared record counts. Records are converted to `to_magic` and the target codec where needed; when
        neither conversion nor rewritten values are needed the batch headers are updated in place."""
        if self.source_compression_type is CompressionType.NONE \
                and self.target_compression.type() is CompressionType.NONE:
            if not self.records.has_matching_magic(self.to_magic):
                return self._convert_and_assign_offsets_non_compressed(offset_counter, metrics_recorder)
            # in place: offsets, and maybe timestamps, written into the batch headers
            return self.assign_offsets_non_compressed(offset_counter, metrics_recorder)
        return self.validate_messages_and_assign_offsets_compressed(offset_counter, metrics_recorder,
                                                                    buffer_supplier)

    @staticmethod
    def _get_first_batch_and_maybe_validate_no_more_batches(records: MemoryRecords,
                                                            source_compression: CompressionType
                                                            ) -> MutableRecordBatch:
        batch_iterator = iter(records.batches())
        batch = next(batch_iterator, None)
        if batch is None:
            raise InvalidRecordException("Record batch has no batches at all")
        # v2 batches and compressed sets come one per request; only uncompressed v0/v1 are one batch per record
        if batch.magic() >= MAGIC_VALUE_V2 or source_compression is not CompressionType.NONE:
            if next(batch_iterator, None) is not None:
                raise InvalidRecordException("Compressed outer record has more than one batch")
        return batch

    def _convert_and_assign_offsets_non_compressed(self, offset_counter: LongRef,
                                                   metrics_recorder: MetricsRecorder) -> ValidationResult:
        now = self.time.milliseconds()
        start_nanos = self.time.nanoseconds()
        size_in_bytes_after_conversion = abstract_records.estimate_size_in_bytes(
            self.to_magic, offset_counter.value, CompressionType.NONE, self.records.records())

        first_batch = self._get_first_batch_and_maybe_validate_no_more_batches(self.records, CompressionType.NONE)
        producer_id = first_batch.producer_id()
        producer_epoch = first_batch.producer_epoch()
        sequence = first_batch.base_sequence()
        is_transactional = first_batch.is_transactional()

        # a fresh buffer per conversion: the buffer supplier caches by size, which varies too much here
        builder = MemoryRecords.builder(size_in_bytes_after_conversion, self.to_magic, Compression.NONE,
                                        self.timestamp_type, offset_counter.value, now, producer_id, producer_epoch,
                                        sequence, is_transactional,
                                        partition_leader_epoch=self.partition_leader_epoch)

        for batch in self.records.batches():
            self._validate_batch(self.topic_partition, first_batch, batch, self.origin, self.to_magic,
                                 metrics_recorder)

            record_errors: list[_ApiRecordError] = []
            for record_index, record in enumerate(batch):
                record_error = self._validate_record(batch, self.topic_partition, record, record_index, now,
                                                     self.timestamp_type, self.timestamp_before_max_ms,
                                                     self.timestamp_after_max_ms, self.compacted_topic,
                                                     metrics_recorder)
                if record_error is not None:
                    record_errors.append(record_error)
                # the whole batch fails if one record does, so stop appending at the first error
                if not record_errors:
                    builder.append_with_offset(offset_counter.value, record)
                    offset_counter.value += 1

            self._process_record_errors(record_errors)

        converted_records = builder.build()

        info = builder.info()
        record_validation_stats = RecordValidationStats(builder.uncompressed_bytes_written(), builder.num_records(),
                                                        self.time.nanoseconds() - start_nanos)
        return ValidationResult(now, converted_records, info.max_timestamp, info.shallow_offset_of_max_timestamp,
                                True, record_validation_stats)

    def assign_offsets_non_compressed(self, offset_counter: LongRef,
                                      metrics_recorder: MetricsRecorder) -> ValidationResult:
        now = self.time.milliseconds()
        max_timestamp = NO_TIMESTAMP
        shallow_offset_of_max_timestamp = -1
        initial_offset = offset_counter.value

        first_batch = self._get_first_batch_and_maybe_validate_no_more_batches(self.records, CompressionType.NONE)

        for batch in self.records.batches():
            self._validate_batch(self.topic_partition, first_batch, batch, self.origin, self.to_magic,
                                 metrics_recorder)

            max_batch_timestamp = NO_TIMESTAMP

            all_valid = self._all_records_valid(batch, now)
            if all_valid is not None:
                # what the loop below finds for a batch whose records all pass _validate_record
                offset_counter.value += all_valid.count
                max_batch_timestamp = max(NO_TIMESTAMP, all_valid.max_timestamp)
            else:
                record_errors: list[_ApiRecordError] = []
                for record_index, record in enumerate(batch):
                    record_error = self._validate_record(batch, self.topic_partition, record, record_index, now,
                                                         self.timestamp_type, self.timestamp_before_max_ms,
                                                         self.timestamp_after_max_ms, self.compacted_topic,
                                                         metrics_recorder)
                    if record_error is not None:
                        record_errors.append(record_error)

                    offset_counter.value += 1
                    if batch.magic() > MAGIC_VALUE_V0 and record.timestamp() > max_batch_timestamp:
                        max_batch_timestamp = record.timestamp()

                self._process_record_errors(record_errors)

            if batch.magic() > MAGIC_VALUE_V0 and max_batch_timestamp > max_timestamp:
                max_timestamp = max_batch_timestamp
                shallow_offset_of_max_timestamp = offset_counter.value - 1

            batch.set_last_offset(offset_counter.value - 1)

            if batch.magic() >= MAGIC_VALUE_V2:
                batch.set_partition_leader_epoch(self.partition_leader_epoch)

            if batch.magic() > MAGIC_VALUE_V0:
                if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
                    batch.set_max_timestamp(TimestampType.LOG_APPEND_TIME, now)
                else:
                    batch.set_max_timestamp(self.timestamp_type, max_batch_timestamp)

        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            max_timestamp = now
            # the same answers as MemoryRecordsBuilder.info()
            if self.to_magic == MAGIC_VALUE_V0:
                max_timestamp = NO_TIMESTAMP
                shallow_offset_of_max_timestamp = -1
            elif self.to_magic == MAGIC_VALUE_V1:
                # one record per batch, all with the same timestamp: the first batch's offset
                shallow_offset_of_max_timestamp = initial_offset
            else:
                # a single v2 batch: its last offset
                shallow_offset_of_max_timestamp = offset_counter.value - 1

        return ValidationResult(now, self.records, max_timestamp, shallow_offset_of_max_timestamp, False,
                                RecordValidationStats.EMPTY)  # type: ignore[attr-defined]

    def validate_messages_and_assign_offsets_compressed(self, offset_counter: LongRef,
                                                        metrics_recorder: MetricsRecorder,
                                                        buffer_supplier: Any = None) -> ValidationResult:
        """In place unless the codec changes, the magic changes, or the target is v0 (absolute offsets)."""
        if self.target_compression.type() is CompressionType.ZSTD \
                and self.inter_broker_protocol_version.is_less_than(MetadataVersion.IBP_2_1_IV0):
            raise UnsupportedCompressionTypeException("Produce requests to inter.broker.protocol.version < 2.1 "
                                                      "broker are not allowed to use ZStandard compression")

        # not in place: the codec changes
        in_place_assignment = self.source_compression_type is self.target_compression.type()
        now = self.time.milliseconds()

        max_timestamp = NO_TIMESTAMP
        expected_inner_offset = 0
        validated_records: list[Record] = []

        uncompressed_size_in_bytes = 0

        # One batch, except uncompressed v0/v1 records (one batch per record) rebuilt into one compressed set
        first_batch = self._get_first_batch_and_maybe_validate_no_more_batches(self.records,
                                                                               self.source_compression_type)

        # not in place: the magic changes, or v0 needs absolute offsets; all batches share the first's magic
        if first_batch.magic() != self.to_magic or self.to_magic == MAGIC_VALUE_V0:
            in_place_assignment = False

        # control records stay uncompressed unless they came compressed
        if self.source_compression_type is CompressionType.NONE and first_batch.is_control_batch():
            in_place_assignment = True

        for batch in self.records.batches():
            self._validate_batch(self.topic_partition, first_batch, batch, self.origin, self.to_magic,
                                 metrics_recorder)
            uncompressed_size_in_bytes += abstract_records.record_batch_header_size_in_bytes(
                self.to_magic, batch.compression_type())

            # in place on v2 nothing reads keys, values or headers, so the iterator can skip them
            if in_place_assignment and first_batch.magic() >= MAGIC_VALUE_V2:
                records_iterator = batch.skip_key_value_iterator(buffer_supplier)
            else:
                records_iterator = batch.streaming_iterator(buffer_supplier)

            try:
                record_errors: list[_ApiRecordError] = []
                for record_index, record in enumerate(records_iterator):
                    expected_offset = expected_inner_offset
                    expected_inner_offset += 1

                    record_error = self._validate_record_compression(self.source_compression_type, record_index,
                                                                     record)
                    if record_error is None:
                        record_error = self._validate_record(batch, self.topic_partition, record, record_index,
                                                             now, self.timestamp_type,
                                                             self.timestamp_before_max_ms,
                                                             self.timestamp_after_max_ms, self.compacted_topic,
                                                             metrics_recorder)

                    if record_error is None and batch.magic() > MAGIC_VALUE_V0 and self.to_magic > MAGIC_VALUE_V0:
                        if record.timestamp() > max_timestamp:
                            max_timestamp = record.timestamp()

                        # Old clients got v1 inner offsets wrong; the broker has always rewritten such sets
                        # rather than refuse them.
                        if record.offset() != expected_offset:
                            in_place_assignment = False

                    if record_error is not None:
                        record_errors.append(record_error)
                    else:
                        uncompressed_size_in_bytes += record.size_in_bytes()
                        validated_records.append(record)

                self._process_record_errors(record_errors)
            finally:
                records_iterator.close()

        if not in_place_assignment:
            return self._build_records_and_assign_offsets(offset_counter, now, first_batch, validated_records,
                                                          uncompressed_size_in_bytes)
        # only the header changes; the compressed records are written as they came (one batch)
        offset_counter.value += len(validated_records)
        last_offset = offset_counter.value - 1
        first_batch.set_last_offset(last_offset)

        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            max_timestamp = now

        if self.to_magic >= MAGIC_VALUE_V1:
            first_batch.set_max_timestamp(self.timestamp_type, max_timestamp)

        if self.to_magic >= MAGIC_VALUE_V2:
            first_batch.set_partition_leader_epoch(self.partition_leader_epoch)

        record_validation_stats = RecordValidationStats(uncompressed_size_in_bytes, 0, 0)
        return ValidationResult(now, self.records, max_timestamp, last_offset, False, record_validation_stats)

    def _build_records_and_assign_offsets(self, offset_counter: LongRef, log_append_time: int,
                                          first_batch: RecordBatch, validated_records: list[Record],
                                          uncompressed_size_in_bytes: int) -> ValidationResult:
        start_nanos = self.time.nanoseconds()
        estimated_size = abstract_records.estimate_size_in_bytes(self.to_magic, offset_counter.value,
                                                                 self.target_compression.type(), validated_records)
        # a fresh buffer per conversion: the buffer supplier caches by size, which varies too much here
        builder = MemoryRecords.builder(estimated_size, self.to_magic, self.target_compression, self.timestamp_type,
                                        offset_counter.value, log_append_time, first_batch.producer_id(),
                                        first_batch.producer_epoch(), first_batch.base_sequence(),
                                        first_batch.is_transactional(),
                                        partition_leader_epoch=self.partition_leader_epoch)

        for record in validated_records:
            builder.append_with_offset(offset_counter.value, record)
            offset_counter.value += 1

        records = builder.build()

        info = builder.info()

        # Counts every record of a set that could not be assigned in place, converted or not (v0 to v0,
        # non-consecutive inner offsets): either way the set was rebuilt, and recompressed if compressed.
        conversion_count = builder.num_records()
        record_validation_stats = RecordValidationStats(
            uncompressed_size_in_bytes + builder.uncompressed_bytes_written(), conversion_count,
            self.time.nanoseconds() - start_nanos)

        return ValidationResult(log_append_time, records, info.max_timestamp, info.shallow_offset_of_max_timestamp,
                                True, record_validation_stats)

    @staticmethod
    def _validate_batch(topic_partition: TopicPartition, first_batch: RecordBatch, batch: RecordBatch,
                        origin: AppendOrigin, to_magic: int, metrics_recorder: MetricsRecorder) -> None:
        # every batch has the first batch's magic
        if first_batch.magic() != batch.magic():
            metrics_recorder.record_invalid_magic()
            raise InvalidRecordException(f"Batch magic {batch.magic()} is not the same as the first batch's magic "
                                         f"byte {first_batch.magic()} in topic partition {topic_partition}")

        if origin is AppendOrigin.CLIENT:
            if batch.magic() >= MAGIC_VALUE_V2:
                count_from_offsets = batch.last_offset() - batch.base_offset() + 1
                if count_from_offsets <= 0:
                    metrics_recorder.record_invalid_offset()
                    raise InvalidRecordException(f"Batch has an invalid offset range: [{batch.base_offset()}, "
                                                 f"{batch.last_offset()}] in topic partition {topic_partition}")

                # v2 batches always declare their count
                count = batch.count_or_null()
                assert count is not None
                if count <= 0:
                    metrics_recorder.record_invalid_offset()
                    raise InvalidRecordException(f"Invalid reported count for record batch: {count} in topic "
                                                 f"partition {topic_partition}")

                if count_from_offsets != count:
                    metrics_recorder.record_invalid_offset()
                    raise InvalidRecordException(f"Inconsistent batch offset range [{batch.base_offset()}, "
                                                 f"{batch.last_offset()}] and count of records {count} in topic "
                                                 f"partition {topic_partition}")

            if batch.is_control_batch():
                metrics_recorder.record_invalid_offset()
                raise InvalidRecordException("Clients are not allowed to write control records in topic partition "
                                             f"{topic_partition}")

            if batch.has_producer_id() and batch.base_sequence() < 0:
                metrics_recorder.record_invalid_sequence()
                raise InvalidRecordException(f"Invalid sequence number {batch.base_sequence()} in record batch with "
                                             f"producerId {batch.producer_id()} in topic partition {topic_partition}")

        if batch.is_transactional() and to_magic < MAGIC_VALUE_V2:
            raise UnsupportedForMessageFormatException(
                f"Transactional records cannot be used with magic version {to_magic}")

        if batch.has_producer_id() and to_magic < MAGIC_VALUE_V2:
            raise UnsupportedForMessageFormatException(
                f"Idempotent records cannot be used with magic version {to_magic}")

    def _all_records_valid(self, batch: RecordBatch, now: int) -> _ValidBatch | None:
        """A v2 batch from a client whose every record passes _validate_record, told from one walk of its records'
        framing (DefaultRecordBatch.skim_records) instead of a record object each: the key check needs only whether
        a key is null, and a timestamp window holds for every record when it holds for the smallest and the largest
        one. None when the walk finds anything off or any check might fail: the caller then validates the records
        one by one, as Kafka does, and reports each bad one."""
        if not isinstance(batch, DefaultRecordBatch) or batch.timestamp_type() is not TimestampType.CREATE_TIME:
            return None
        skim = batch.skim_records()
        if skim is None or (self.compacted_topic and skim.has_null_key):
            return None
        base_timestamp = batch.base_timestamp()
        smallest = base_timestamp + skim.min_timestamp_delta
        largest = base_timestamp + skim.max_timestamp_delta
        if self.timestamp_type is TimestampType.CREATE_TIME and any(
                now - timestamp > self.timestamp_before_max_ms or timestamp - now > self.timestamp_after_max_ms
                for timestamp in (smallest, largest)):
            return None
        return _ValidBatch(batch.count_or_null() or 0, largest)

    @staticmethod
    def _validate_record(batch: RecordBatch, topic_partition: TopicPartition, record: Record, record_index: int,
                         now: int, timestamp_type: TimestampType, timestamp_before_max_ms: int,
                         timestamp_after_max_ms: int, compacted_topic: bool,
                         metrics_recorder: MetricsRecorder) -> _ApiRecordError | None:
        if not record.has_magic(batch.magic()):
            metrics_recorder.record_invalid_magic()
            return _ApiRecordError(Errors.INVALID_RECORD, RecordError(
                record_index, f"Record {record}'s magic does not match outer magic {batch.magic()} in topic "
                              f"partition {topic_partition}"))

        # Only the inner records of a compressed v0/v1 set carry a CRC of their own to check here: uncompressed
        # v0/v1 batches are checked whole in analyzeAndValidateRecords, and v2 records have no CRC.
        if batch.magic() <= MAGIC_VALUE_V1 and batch.is_compressed():
            try:
                record.ensure_valid()
            except CorruptRecordException:
                metrics_recorder.record_invalid_checksums()
                raise
            except InvalidRecordException as e:
                metrics_recorder.record_invalid_checksums()
                raise CorruptRecordException(f"{e} in topic partition {topic_partition}") from e

        key_error = LogValidator._validate_key(record, record_index, topic_partition, compacted_topic,
                                               metrics_recorder)
        if key_error is not None:
            return key_error
        return LogValidator._validate_timestamp(batch, record, record_index, now, timestamp_type,
                                                timestamp_before_max_ms, timestamp_after_max_ms)

    @staticmethod
    def _validate_key(record: Record, record_index: int, topic_partition: TopicPartition, compacted_topic: bool,
                      metrics_recorder: MetricsRecorder) -> _ApiRecordError | None:
        if compacted_topic and not record.has_key():
            metrics_recorder.record_no_key_compacted_topic()
            return _ApiRecordError(Errors.INVALID_RECORD, RecordError(
                record_index, f"Compacted topic cannot accept message without key in topic partition "
                              f"{topic_partition}"))
        return None

    @staticmethod
    def _validate_timestamp(batch: RecordBatch, record: Record, record_index: int, now: int,
                            timestamp_type: TimestampType, timestamp_before_max_ms: int,
                            timestamp_after_max_ms: int) -> _ApiRecordError | None:
        if timestamp_type is TimestampType.CREATE_TIME and record.timestamp() != NO_TIMESTAMP:
            if LogValidator._record_has_invalid_timestamp(record, now, timestamp_before_max_ms,
                                                          timestamp_after_max_ms):
                return _ApiRecordError(Errors.INVALID_TIMESTAMP, RecordError(
                    record_index, f"Timestamp {record.timestamp()} of message with offset {record.offset()} is out "
                                  f"of range. The timestamp should be within [{now - timestamp_before_max_ms}, "
                                  f"{now + timestamp_after_max_ms}]"))
        elif batch.timestamp_type() is TimestampType.LOG_APPEND_TIME:
            return _ApiRecordError(Errors.INVALID_TIMESTAMP, RecordError(
                record_index, f"Invalid timestamp type in message {record}. Producer should not set timestamp type "
                              "to LogAppendTime."))
        return None

    @staticmethod
    def _record_has_invalid_timestamp(record: Record, now: int, timestamp_before_max_ms: int,
                                      timestamp_after_max_ms: int) -> bool:
        timestamp_diff = now - record.timestamp()
        return timestamp_diff > timestamp_before_max_ms or -1 * timestamp_diff > timestamp_after_max_ms

    @staticmethod
    def _validate_record_compression(source_compression: CompressionType, record_index: int,
                                     record: Record) -> _ApiRecordError | None:
        if source_compression is not CompressionType.NONE and record.is_compressed():
            return _ApiRecordError(Errors.INVALID_RECORD, RecordError(
                record_index, "Compressed outer record should not have an inner record with a compression attribute "
                              f"set: {record}"))
        return None

    @staticmethod
    def _process_record_errors(record_errors: Iterable[_ApiRecordError]) -> None:
        record_errors = list(record_errors)
        if record_errors:
            errors = [e.record_error for e in record_errors]
            if any(e.api_error is Errors.INVALID_TIMESTAMP for e in record_errors):
                raise RecordValidationException(InvalidTimestampException(
                    "One or more records have been rejected due to invalid timestamp"), errors)
            raise RecordValidationException(InvalidRecordException(
                f"One or more records have been rejected due to {len(errors)} record errors in total, and only "
                f"showing the first three errors at most: [{', '.join(str(e) for e in errors[:3])}]"), errors)
