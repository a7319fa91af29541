"""Port of clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java (Kafka 3.9): walks the
batches of a log file by reading only each one's log header; FileChannelRecordBatch loads a batch's header or
whole body from the file when asked."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException, KafkaException
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.legacy_record import RECORD_OVERHEAD_V0
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V2, AbstractRecordBatch, CloseableIterator
from kafka_edu.v3_9.clients.common.record.records import (
    HEADER_SIZE_UP_TO_MAGIC,
    LOG_OVERHEAD,
    MAGIC_OFFSET,
    OFFSET_OFFSET,
    SIZE_OFFSET,
)
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.record.file_records import FileRecords


def read_fully_or_fail(channel: Any, size: int, position: int, description: str) -> bytearray:
    """Utils.readFullyOrFail: `size` bytes at `position`, or EOFError naming what was being read."""
    data = channel.read(size, position)
    if len(data) < size:
        raise EOFError(f"Failed to read `{description}` from file channel `{channel}`. Expected to read {size} bytes, "
                       f"but reached end of file after reading {len(data)} bytes. Started read from position "
                       f"{position}.")
    return bytearray(data)


class FileLogInputStream:
    def __init__(self, records: FileRecords, start: int, end: int) -> None:
        self.file_records = records
        self.position = start
        self.end = end

    def next_batch(self) -> FileChannelRecordBatch | None:
        channel = self.file_records.channel()
        if self.position >= self.end - HEADER_SIZE_UP_TO_MAGIC:
            return None
        log_header_buffer = read_fully_or_fail(channel, HEADER_SIZE_UP_TO_MAGIC, self.position, "log header")
        offset = struct.unpack_from(">q", log_header_buffer, OFFSET_OFFSET)[0]
        size = struct.unpack_from(">i", log_header_buffer, SIZE_OFFSET)[0]
        # A batch below the smallest legacy record cannot be real: a corrupt or truncated file.
        if size < RECORD_OVERHEAD_V0:
            raise CorruptRecordException(f"Found record size {size} smaller than minimum record overhead "
                                         f"({RECORD_OVERHEAD_V0}) in file {self.file_records.file()}.")
        if self.position > self.end - LOG_OVERHEAD - size:
            return None
        magic = struct.unpack_from(">b", log_header_buffer, MAGIC_OFFSET)[0]
        batch: FileChannelRecordBatch
        if magic < MAGIC_VALUE_V2:
            from kafka_edu.v3_9.clients.common.record.abstract_legacy_record_batch import LegacyFileChannelRecordBatch
            batch = LegacyFileChannelRecordBatch(offset, magic, self.file_records, self.position, size)
        else:
            from kafka_edu.v3_9.clients.common.record.default_record_batch import DefaultFileChannelRecordBatch
            batch = DefaultFileChannelRecordBatch(offset, magic, self.file_records, self.position, size)
        self.position += batch.size_in_bytes()
        return batch


class FileChannelRecordBatch(AbstractRecordBatch):
    """A batch at `position` of a log file, `batch_size` bytes after its log overhead."""

    def __init__(self, offset: int, magic: int, file_records: FileRecords, position: int, batch_size: int) -> None:
        self.offset = offset
        self._magic = magic
        self.file_records = file_records
        self._position = position
        self.batch_size = batch_size
        self._full_batch: Any = None
        self._batch_header: Any = None

    def compression_type(self) -> CompressionType:
        return self._load_batch_header().compression_type()

    def timestamp_type(self) -> TimestampType:
        return self._load_batch_header().timestamp_type()

    def checksum(self) -> int:
        return self._load_batch_header().checksum()

    def max_timestamp(self) -> int:
        return self._load_batch_header().max_timestamp()

    def position(self) -> int:
        return self._position

    def magic(self) -> int:
        return self._magic

    def __iter__(self) -> Iterator[Record]:
        return iter(self._load_full_batch())

    def streaming_iterator(self, buffer_supplier: Any = None) -> CloseableIterator:
        return self._load_full_batch().streaming_iterator(buffer_supplier)

    def is_valid(self) -> bool:
        return self._load_full_batch().is_valid()

    def ensure_valid(self) -> None:
        self._load_full_batch().ensure_valid()

    def size_in_bytes(self) -> int:
        return LOG_OVERHEAD + self.batch_size

    def write_to(self, buffer: bytearray) -> None:
        channel = self.file_records.channel()
        try:
            buffer += read_fully_or_fail(channel, self.size_in_bytes(), self._position, "record batch")
        except (OSError, EOFError) as e:
            raise KafkaException(f"Failed to read record batch at position {self._position} from "
                                 f"{self.file_records}") from e

    def _to_memory_record_batch(self, buffer: bytearray) -> Any:
        raise NotImplementedError

    def _header_size(self) -> int:
        raise NotImplementedError

    def _load_full_batch(self) -> Any:
        if self._full_batch is None:
            self._batch_header = None
            self._full_batch = self._load_batch_with_size(self.size_in_bytes(), "full record batch")
        return self._full_batch

    def _load_batch_header(self) -> Any:
        if self._full_batch is not None:
            return self._full_batch
        if self._batch_header is None:
            self._batch_header = self._load_batch_with_size(self._header_size(), "record batch header")
        return self._batch_header

    def _load_batch_with_size(self, size: int, description: str) -> Any:
        channel = self.file_records.channel()
        try:
            return self._to_memory_record_batch(read_fully_or_fail(channel, size, self._position, description))
        except (OSError, EOFError) as e:
            raise KafkaException(f"Failed to load record batch at position {self._position} from "
                                 f"{self.file_records}") from e

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        assert isinstance(other, FileChannelRecordBatch)
        channel = None if self.file_records is None else self.file_records.channel()
        that_channel = None if other.file_records is None else other.file_records.channel()
        return (self.offset == other.offset and self._position == other._position
                and self.batch_size == other.batch_size and channel is that_channel)

    def __hash__(self) -> int:
        channel = None if self.file_records is None else self.file_records.channel()
        return hash((self.offset, id(channel), self._position, self.batch_size))

    def __repr__(self) -> str:
        return f"FileChannelRecordBatch(magic: {self._magic}, offset: {self.offset}, size: {self.batch_size})"
