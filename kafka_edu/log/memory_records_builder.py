"""Port of clients/.../record/MemoryRecordsBuilder.java (Kafka 1.0.2), for one magic v2 batch."""

from __future__ import annotations

import struct

from kafka_edu.log.compression_type import CompressionType
from kafka_edu.log.default_record import DefaultRecord
from kafka_edu.log.file_records import (
    ATTRIBUTES_OFFSET,
    CRC_OFFSET,
    LOG_OVERHEAD,
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    RECORD_BATCH_OVERHEAD,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_FLAG_MASK,
    MemoryRecords,
    TimestampType,
    checksum_crc32c,
)

# baseOffset, batchLength, partitionLeaderEpoch, magic, crc, attributes, lastOffsetDelta, firstTimestamp,
# maxTimestamp, producerId, producerEpoch, baseSequence, recordCount.
_HEADER = struct.Struct(">qiibIhiqqqhii")


class MemoryRecordsBuilder:
    """Builds a batch when the leader cannot reuse the producer's bytes (other codec, or inner offsets to fix)."""

    def __init__(self, compression_type: CompressionType, timestamp_type: TimestampType, base_offset: int,
                 log_append_time: int, producer_id: int, producer_epoch: int, base_sequence: int,
                 is_transactional: bool, partition_leader_epoch: int) -> None:
        self.compression_type = compression_type
        self.timestamp_type = timestamp_type
        self.base_offset = base_offset
        self.log_append_time = log_append_time
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.base_sequence = base_sequence
        self.is_transactional = is_transactional
        self.partition_leader_epoch = partition_leader_epoch
        self._records = bytearray()
        self._first_timestamp: int | None = None
        self.max_timestamp = NO_TIMESTAMP
        self.offset_of_max_timestamp = -1
        self.last_offset: int | None = None
        self.num_records = 0
        self.uncompressed_bytes_written = 0

    def append_with_offset(self, offset: int, record: DefaultRecord) -> None:
        if self.last_offset is not None and offset <= self.last_offset:
            raise ValueError(f"Illegal offset {offset} following previous offset {self.last_offset} "
                             "(Offsets must increase monotonically).")
        if self._first_timestamp is None:
            self._first_timestamp = record.timestamp
        self.uncompressed_bytes_written += DefaultRecord.write_to(
            self._records, offset - self.base_offset, record.timestamp - self._first_timestamp, record.key,
            record.value, record.headers)
        if record.timestamp > self.max_timestamp:
            self.max_timestamp = record.timestamp
            self.offset_of_max_timestamp = offset
        self.last_offset = offset
        self.num_records += 1

    def build(self) -> MemoryRecords:
        """Write the header in front of the (compressed) records and fill in the CRC."""
        if self.last_offset is None:
            return MemoryRecords(b"")
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            self.max_timestamp = self.log_append_time
            self.offset_of_max_timestamp = self.last_offset
        attributes = self.compression_type.id
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            attributes |= TIMESTAMP_TYPE_MASK
        if self.is_transactional:
            attributes |= TRANSACTIONAL_FLAG_MASK
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
