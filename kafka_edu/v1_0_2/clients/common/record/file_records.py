"""Port of clients/.../record/FileRecords.java, FileLogInputStream.java, DefaultRecordBatch.java (Kafka 1.0.2)."""

from __future__ import annotations

import enum
import errno
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import crc32c

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalArgumentException,
    InvalidRecordException,
    KafkaException,
)
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import (
    DefaultRecord,
    RecordsSummary,
    increment_sequence,
    read_records_partially,
)

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.clients.common.record.memory_records import FilterResult, RecordFilter

# --- Wire layout of a record batch, magic v2 (Records.java and DefaultRecordBatch.java constants). ---

OFFSET_OFFSET = 0  # baseOffset: int64
SIZE_OFFSET = 8  # batchLength: int32, counts the bytes after this field
LOG_OVERHEAD = 12  # baseOffset + batchLength
PARTITION_LEADER_EPOCH_OFFSET = 12  # int32
MAGIC_OFFSET = 16  # int8
HEADER_SIZE_UP_TO_MAGIC = 17
CRC_OFFSET = 17  # uint32, crc32c over attributes .. end of batch
ATTRIBUTES_OFFSET = 21  # int16
LAST_OFFSET_DELTA_OFFSET = 23  # int32
FIRST_TIMESTAMP_OFFSET = 27  # int64
MAX_TIMESTAMP_OFFSET = 35  # int64
PRODUCER_ID_OFFSET = 43  # int64
PRODUCER_EPOCH_OFFSET = 51  # int16
BASE_SEQUENCE_OFFSET = 53  # int32
RECORDS_COUNT_OFFSET = 57  # int32
RECORD_BATCH_OVERHEAD = 61  # header size; the records follow

MAGIC_VALUE_V2 = 2
NO_TIMESTAMP = -1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1

# Attribute bits (DefaultRecordBatch.java).
COMPRESSION_CODEC_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
TRANSACTIONAL_FLAG_MASK = 0x10
CONTROL_FLAG_MASK = 0x20


def checksum_crc32c(data: bytes | bytearray | memoryview) -> int:
    """Crc32C.compute over a buffer in place, keeping the GIL.

    The crc32c package releases the GIL for buffers over 32 KiB. A request handler thread that lets go of the GIL
    gets it back only when the thread holding it next yields, up to sys.getswitchinterval() (5 ms) later while the
    network and span-export threads are busy; a 1 MB batch takes about 50 µs to checksum with the GIL held.
    """
    return crc32c.crc32c(data, gil_release_mode=0)


def write_fully(fd: int, buffer: bytes | bytearray | memoryview, position: int) -> int:
    """Utils.writeFully: write all of `buffer` at `position`, resuming a short write (normally one pwrite)."""
    view = memoryview(buffer)
    written = 0
    while written < len(view):
        written += os.pwrite(fd, view[written:], position + written)
    return written


class TimestampType(enum.Enum):
    """org.apache.kafka.common.record.TimestampType; `name_` is what message.timestamp.type takes."""

    NO_TIMESTAMP_TYPE = -1, "NoTimestampType"
    CREATE_TIME = 0, "CreateTime"
    LOG_APPEND_TIME = 1, "LogAppendTime"

    def __init__(self, id: int, name_: str) -> None:
        self.id = id
        self.name_ = name_

    @classmethod
    def for_name(cls, name: str) -> TimestampType:
        for t in cls:
            if t.name_ == name:
                return t
        raise ValueError(f"Invalid timestamp type {name}")
RECORD_OVERHEAD_V0 = 14  # smallest legal batchLength of any magic (LegacyRecord.RECORD_OVERHEAD_V0)


class DefaultRecordBatch:
    """A v2 batch seen through a buffer that starts at its baseOffset field.

    Over a bytearray/memoryview the setters write through, which is how the leader assigns offsets in place.
    """

    def __init__(self, buffer: bytes | bytearray | memoryview) -> None:
        self.buffer = buffer

    def _get(self, fmt: str, offset: int) -> int:
        return struct.unpack_from(fmt, self.buffer, offset)[0]

    @property
    def base_offset(self) -> int:
        return self._get(">q", OFFSET_OFFSET)

    @property
    def size_in_bytes(self) -> int:
        return LOG_OVERHEAD + self._get(">i", SIZE_OFFSET)

    @property
    def partition_leader_epoch(self) -> int:
        return self._get(">i", PARTITION_LEADER_EPOCH_OFFSET)

    @property
    def magic(self) -> int:
        return self._get(">b", MAGIC_OFFSET)

    @property
    def checksum(self) -> int:
        return self._get(">I", CRC_OFFSET)

    @property
    def attributes(self) -> int:
        return self._get(">h", ATTRIBUTES_OFFSET)

    @property
    def last_offset_delta(self) -> int:
        return self._get(">i", LAST_OFFSET_DELTA_OFFSET)

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def first_timestamp(self) -> int:
        return self._get(">q", FIRST_TIMESTAMP_OFFSET)

    @property
    def max_timestamp(self) -> int:
        return self._get(">q", MAX_TIMESTAMP_OFFSET)

    @property
    def producer_id(self) -> int:
        return self._get(">q", PRODUCER_ID_OFFSET)

    @property
    def producer_epoch(self) -> int:
        return self._get(">h", PRODUCER_EPOCH_OFFSET)

    @property
    def base_sequence(self) -> int:
        return self._get(">i", BASE_SEQUENCE_OFFSET)

    @property
    def record_count(self) -> int:
        return self._get(">i", RECORDS_COUNT_OFFSET)

    @property
    def compression_type(self) -> CompressionType:
        return CompressionType.for_id(self.attributes & COMPRESSION_CODEC_MASK)

    @property
    def is_compressed(self) -> bool:
        return self.attributes & COMPRESSION_CODEC_MASK != 0

    @property
    def timestamp_type(self) -> TimestampType:
        if self.attributes & TIMESTAMP_TYPE_MASK:
            return TimestampType.LOG_APPEND_TIME
        return TimestampType.CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return self.attributes & TRANSACTIONAL_FLAG_MASK != 0

    @property
    def is_control_batch(self) -> bool:
        return self.attributes & CONTROL_FLAG_MASK != 0

    @property
    def has_producer_id(self) -> bool:
        return self.producer_id > NO_PRODUCER_ID

    @property
    def last_sequence(self) -> int:
        base_sequence = self.base_sequence
        if base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        return increment_sequence(base_sequence, self.last_offset_delta)

    def records(self) -> Iterator[DefaultRecord]:
        """Decompress if needed and yield exactly `record_count` records, as the Java batch iterator does."""
        count = self.record_count
        if count < 0:
            raise InvalidRecordException(f"Found invalid record count {count} in magic v{self.magic} batch")
        data = self.compression_type.wrap_for_input(memoryview(self.buffer)[RECORD_BATCH_OVERHEAD : self.size_in_bytes])
        log_append_time = self.max_timestamp if self.timestamp_type is TimestampType.LOG_APPEND_TIME else None
        base_offset, first_timestamp, base_sequence = self.base_offset, self.first_timestamp, self.base_sequence
        position = 0
        for _ in range(count):
            if position >= len(data):
                raise InvalidRecordException("Incorrect declared batch size, premature EOF reached")
            record, position = DefaultRecord.read_from(data, position, base_offset, first_timestamp, base_sequence,
                                                       log_append_time)
            yield record
        if position != len(data):
            raise InvalidRecordException("Incorrect declared batch size, records still remaining in file")

    def records_summary(self) -> RecordsSummary | None:
        """Walk the records' framing without building them (read_records_partially); None if any is malformed.

        An uncompressed batch is walked where it lies; a compressed one is decompressed first, as records() does.
        """
        size = self.size_in_bytes
        if self.attributes & COMPRESSION_CODEC_MASK == 0:
            if len(self.buffer) < size:
                return None
            return read_records_partially(self.buffer, RECORD_BATCH_OVERHEAD, size, self.record_count)
        try:
            data = self.compression_type.wrap_for_input(memoryview(self.buffer)[RECORD_BATCH_OVERHEAD:size])
        except KafkaException:
            return None  # records() raises the codec's error
        return read_records_partially(data, 0, len(data), self.record_count)

    def compute_checksum(self) -> int:
        return checksum_crc32c(memoryview(self.buffer)[ATTRIBUTES_OFFSET : self.size_in_bytes])

    def is_valid(self) -> bool:
        return self.size_in_bytes >= RECORD_BATCH_OVERHEAD and self.checksum == self.compute_checksum()

    def ensure_valid(self) -> None:
        if self.size_in_bytes < RECORD_BATCH_OVERHEAD:
            raise InvalidRecordException(
                f"Record batch is corrupt: size {self.size_in_bytes} is below the header size {RECORD_BATCH_OVERHEAD}"
            )
        if self.magic != MAGIC_VALUE_V2:
            # Kafka would parse magic 0/1 as a legacy batch; this port only reads v2.
            raise InvalidRecordException(f"Record batch has unsupported magic {self.magic}")
        if not self.is_valid():
            raise InvalidRecordException(
                f"Record is corrupt (stored crc = {self.checksum}, computed crc = {self.compute_checksum()})"
            )

    def set_last_offset(self, offset: int) -> None:
        # Only baseOffset moves; the CRC starts at attributes, so it stays valid.
        struct.pack_into(">q", self.buffer, OFFSET_OFFSET, offset - self.last_offset_delta)

    def set_partition_leader_epoch(self, epoch: int) -> None:
        # partitionLeaderEpoch sits before the CRC'd range: no CRC update.
        struct.pack_into(">i", self.buffer, PARTITION_LEADER_EPOCH_OFFSET, epoch)

    def set_max_timestamp(self, timestamp_type: TimestampType, max_timestamp: int) -> None:
        """Rewrite the timestamp type bit and maxTimestamp; both are CRC'd, so the CRC is redone if either moved."""
        if self.timestamp_type is timestamp_type and self.max_timestamp == max_timestamp:
            return
        attributes = self.attributes & ~TIMESTAMP_TYPE_MASK
        if timestamp_type is TimestampType.LOG_APPEND_TIME:
            attributes |= TIMESTAMP_TYPE_MASK
        struct.pack_into(">h", self.buffer, ATTRIBUTES_OFFSET, attributes)
        struct.pack_into(">q", self.buffer, MAX_TIMESTAMP_OFFSET, max_timestamp)
        struct.pack_into(">I", self.buffer, CRC_OFFSET, self.compute_checksum())

    def __repr__(self) -> str:
        return f"RecordBatch(offsets=[{self.base_offset}, {self.last_offset}], size={self.size_in_bytes})"


class MemoryRecords:
    """Batches in memory, as they arrive in a ProduceRequest (MemoryRecords with ByteBufferLogInputStream)."""

    def __init__(self, buffer: bytes | bytearray) -> None:
        self.buffer = bytearray(buffer)

    def size_in_bytes(self) -> int:
        return len(self.buffer)

    def write_to(self, channel: Any, position: int, length: int) -> int:
        """MemoryRecords.writeTo: `length` bytes from `position` to a channel a Send writes to; what it took."""
        if position + length > len(self.buffer):
            raise IllegalArgumentException(f"position+length should not be greater than buffer.limit(), position: "
                                           f"{position}, length: {length}, buffer.limit(): {len(self.buffer)}")
        return int(channel.write((memoryview(self.buffer)[position:position + length],)))

    def valid_bytes(self) -> int:
        """The bytes of the whole batches at the front of the buffer (a partial batch at its end is not counted)."""
        return sum(batch.size_in_bytes for batch in self.batches())

    def filter_to(self, partition: object, filter: RecordFilter, destination_buffer_size: int,
                  max_record_batch_size: int) -> FilterResult:
        """MemoryRecords.filterTo: see memory_records.filter_to."""
        from kafka_edu.v1_0_2.clients.common.record.memory_records import filter_to

        return filter_to(self, partition, filter, destination_buffer_size, max_record_batch_size)

    def batches(self) -> Iterator[DefaultRecordBatch]:
        view = memoryview(self.buffer)
        position = 0
        while len(self.buffer) - position >= LOG_OVERHEAD:
            record_size = struct.unpack_from(">i", self.buffer, position + SIZE_OFFSET)[0]
            if record_size < RECORD_OVERHEAD_V0:
                raise CorruptRecordException(
                    f"Record size {record_size} is less than the minimum record overhead ({RECORD_OVERHEAD_V0})"
                )
            batch_size = record_size + LOG_OVERHEAD
            if len(self.buffer) - position < batch_size:
                return  # a partial batch at the end is not a batch
            yield DefaultRecordBatch(view[position : position + batch_size])
            position += batch_size


class LogOffsetPosition(NamedTuple):
    """FileRecords.LogOffsetPosition: where a batch containing `offset` starts, and its size."""

    offset: int
    position: int
    size: int


class TimestampAndOffset(NamedTuple):
    timestamp: int
    offset: int


class FileChannelRecordBatch:
    """A batch still on disk (FileLogInputStream.FileChannelRecordBatch): header fields are read only when asked."""

    def __init__(self, offset: int, magic: int, fd: int, position: int, batch_size: int,
                 batch_header: bytes | None = None) -> None:
        self.offset = offset
        self.magic = magic
        self.fd = fd
        self.position = position
        self.batch_size = batch_size
        self._full_batch: DefaultRecordBatch | None = None
        # The header as batches_from read it, when it read the whole of it.
        self._batch_header: DefaultRecordBatch | None = (
            DefaultRecordBatch(batch_header) if batch_header is not None else None)

    @property
    def size_in_bytes(self) -> int:
        return LOG_OVERHEAD + self.batch_size

    @property
    def base_offset(self) -> int:
        return self.offset

    @property
    def last_offset(self) -> int:
        return self.load_batch_header().last_offset

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def max_timestamp(self) -> int:
        return self.load_batch_header().max_timestamp

    @property
    def partition_leader_epoch(self) -> int:
        return self.load_batch_header().partition_leader_epoch

    def ensure_valid(self) -> None:
        self.load_full_batch().ensure_valid()

    def is_valid(self) -> bool:
        return self.load_full_batch().is_valid()

    def load_full_batch(self) -> DefaultRecordBatch:
        if self._full_batch is None:
            self._batch_header = None
            self._full_batch = self._load_batch_with_size(self.size_in_bytes, "full record batch")
        return self._full_batch

    def load_batch_header(self) -> DefaultRecordBatch:
        if self._full_batch is not None:
            return self._full_batch
        if self._batch_header is None:
            self._batch_header = self._load_batch_with_size(RECORD_BATCH_OVERHEAD, "record batch header")
        return self._batch_header

    def _load_batch_with_size(self, size: int, description: str) -> DefaultRecordBatch:
        data = os.pread(self.fd, size, self.position)
        if len(data) < size:
            raise KafkaException(f"Failed to read {description} at position {self.position}: end of file")
        return DefaultRecordBatch(data)

    def __repr__(self) -> str:
        return f"FileChannelRecordBatch(magic: {self.magic}, offset: {self.offset}, size: {self.batch_size})"


class FileRecords:
    """A segment's .log file, or a slice [start, end) of one that shares its file descriptor."""

    def __init__(self, file: Path, fd: int, start: int, end: int, is_slice: bool) -> None:
        self.file = file
        self.fd = fd
        self.start = start
        self.end = end
        self.is_slice = is_slice
        # shared with the slices cut from this file: a slice written to a socket later, by a network thread, must
        # not use a descriptor the segment closed (its number may name another file by then)
        self._channel_open = [True]
        if is_slice:
            self._size = end - start  # a view: trust the caller, do not stat the file
        else:
            self._size = min(os.fstat(fd).st_size, end) - start

    @classmethod
    def open(cls, file: str | os.PathLike[str], file_already_exists: bool = False, init_file_size: int = 0,
             preallocate: bool = False) -> FileRecords:
        """Open (creating if needed) a segment file for appends.

        A new file with `preallocate` is first sized to `init_file_size` (log.preallocate); its records end at 0
        until appended to, and close() trims the file back to them.
        """
        path = Path(file)
        fd = os.open(path, os.O_RDWR | os.O_CREAT)
        if not file_already_exists and preallocate:
            os.ftruncate(fd, init_file_size)  # RandomAccessFile.setLength
        end = 0 if (not file_already_exists and preallocate) else 2**31 - 1
        return cls(path, fd, 0, end, is_slice=False)

    def size_in_bytes(self) -> int:
        return self._size

    def read(self, position: int, size: int) -> FileRecords:
        """A slice view from `position`, at most `size` bytes, capped by the current size."""
        if position < 0:
            raise IllegalArgumentException(f"Invalid position: {position}")
        if size < 0:
            raise IllegalArgumentException(f"Invalid size: {size}")
        end = min(self.start + position + size, self.size_in_bytes())
        records = FileRecords(self.file, self.fd, self.start + position, end, is_slice=True)
        records._channel_open = self._channel_open
        return records

    def to_bytes(self) -> bytes:
        """The bytes this view covers, read into memory (a Fetch response sends them with write_to instead)."""
        return os.pread(self.fd, self.size_in_bytes(), self.start)

    def write_to(self, dest_channel: Any, offset: int, length: int) -> int:
        """FileRecords.writeTo: up to `length` bytes from `offset` of this view to a socket's transport layer by
        transfer_from (sendfile: the kernel copies them from the file), else read and written; what it took."""
        if not self._channel_open[0]:
            raise OSError(errno.EBADF, f"java.nio.channels.ClosedChannelException: {self.file}")
        new_size = min(os.fstat(self.fd).st_size, self.end) - self.start
        old_size = self.size_in_bytes()
        if new_size < old_size:
            raise KafkaException(f"Size of FileRecords {self.file.absolute()} has been truncated during write: old "
                                 f"size {old_size}, new size {new_size}")
        position = self.start + offset
        count = min(length, old_size)
        transfer_from = getattr(dest_channel, "transfer_from", None)
        if transfer_from is not None:
            return int(transfer_from(self.fd, position, count))
        return int(dest_channel.write((os.pread(self.fd, count, position),)))

    def append(self, records: MemoryRecords) -> int:
        written = write_fully(self.fd, records.buffer, self.start + self._size)
        self._size += written
        return written

    def flush(self) -> None:
        os.fsync(self.fd)

    def close(self) -> None:
        self.flush()
        self.trim()
        self._channel_open[0] = False
        os.close(self.fd)

    def close_handlers(self) -> None:
        self._channel_open[0] = False
        os.close(self.fd)

    def delete(self) -> bool:
        self._channel_open[0] = False
        try:
            os.close(self.fd)
        except OSError:
            pass
        try:
            self.file.unlink()
            return True
        except FileNotFoundError:
            return False

    def trim(self) -> None:
        self.truncate_to(self.size_in_bytes())

    def rename_to(self, f: Path) -> None:
        try:
            os.replace(self.file, f)
        finally:
            self.file = f

    def truncate_to(self, target_size: int) -> int:
        """Cut the file to `target_size` bytes (no check that it is a batch boundary); return the bytes removed."""
        original_size = self.size_in_bytes()
        if target_size > original_size or target_size < 0:
            raise KafkaException(
                f"Attempt to truncate log segment to {target_size} bytes failed, "
                f"size of this log segment is {original_size} bytes."
            )
        if target_size < os.fstat(self.fd).st_size:
            os.ftruncate(self.fd, target_size)
            self._size = target_size
        return original_size - target_size

    def search_for_offset_with_size(self, target_offset: int, starting_position: int) -> LogOffsetPosition | None:
        """The first batch at or after `starting_position` whose last offset is >= `target_offset`."""
        for batch in self.batches_from(starting_position):
            offset = batch.last_offset
            if offset >= target_offset:
                return LogOffsetPosition(offset, batch.position, batch.size_in_bytes)
        return None

    def largest_timestamp_after(self, starting_position: int) -> TimestampAndOffset:
        max_timestamp, offset_of_max_timestamp = NO_TIMESTAMP, -1
        for batch in self.batches_from(starting_position):
            if batch.max_timestamp > max_timestamp:
                max_timestamp, offset_of_max_timestamp = batch.max_timestamp, batch.last_offset
        return TimestampAndOffset(max_timestamp, offset_of_max_timestamp)

    def search_for_timestamp(self, target_timestamp: int, starting_position: int,
                             starting_offset: int) -> TimestampAndOffset | None:
        """The first record at or after `starting_position` with timestamp >= target and offset >= starting_offset.

        Batch headers are skipped by their max timestamp; only a batch that may hold the answer is decompressed.
        """
        for batch in self.batches_from(starting_position):
            if batch.max_timestamp >= target_timestamp:
                for record in batch.load_full_batch().records():
                    if record.timestamp >= target_timestamp and record.offset >= starting_offset:
                        return TimestampAndOffset(record.timestamp, record.offset)
        return None

    def batches(self) -> Iterator[FileChannelRecordBatch]:
        return self.batches_from(self.start)

    def batches_from(self, start: int) -> Iterator[FileChannelRecordBatch]:
        """FileLogInputStream: walk batch headers; stop quietly at a torn tail, raise on an impossible size.

        Kafka reads the 17 bytes up to the magic here and the rest of the header when a batch field is asked for;
        this reads the whole v2 header (61 bytes) in one pread where the batch has one, so that finding the batch
        holding an offset costs one system call per batch. Each call lets go of the GIL, and a handler thread waits
        up to sys.getswitchinterval() to get it back while other threads are busy.
        """
        end = self.end if self.is_slice else self.size_in_bytes()
        position = start
        while position < end - HEADER_SIZE_UP_TO_MAGIC:
            header = os.pread(self.fd, min(RECORD_BATCH_OVERHEAD, end - position), position)
            if len(header) < HEADER_SIZE_UP_TO_MAGIC:
                raise KafkaException(f"Failed to read log header at position {position} of {self.file}")
            offset, size = struct.unpack_from(">qi", header, OFFSET_OFFSET)
            if size < RECORD_OVERHEAD_V0:
                raise CorruptRecordException(
                    f"Found record size {size} smaller than minimum record overhead ({RECORD_OVERHEAD_V0}) "
                    f"in file {self.file}."
                )
            if position > end - LOG_OVERHEAD - size:
                return  # the last batch was only partly written
            whole_header = (header if header[MAGIC_OFFSET] == MAGIC_VALUE_V2 and len(header) == RECORD_BATCH_OVERHEAD
                            and size + LOG_OVERHEAD >= RECORD_BATCH_OVERHEAD else None)
            batch = FileChannelRecordBatch(offset, header[MAGIC_OFFSET], self.fd, position, size, whole_header)
            yield batch
            position += batch.size_in_bytes

    def __repr__(self) -> str:
        return f"FileRecords(file={self.file}, start={self.start}, end={self.end}, size={self.size_in_bytes()})"


def build_batch(
    values: list[bytes | None],
    base_offset: int = 0,
    timestamp_ms: int = 1_700_000_000_000,
    keys: list[bytes | None] | None = None,
) -> bytes:
    """Test helper: one uncompressed v2 batch as a producer would send it, built with kio's writer."""
    import datetime
    import io

    from kio.records.schema import NewRecordBatch, Record
    from kio.records.writers import write_new_batch
    from kio.static.primitive import TZAwareMicros, i8, i16, i32, i64

    stamp = TZAwareMicros.parse(datetime.datetime.fromtimestamp(timestamp_ms / 1000, datetime.UTC))
    records = tuple(
        Record(
            attributes=i8(0),
            timestamp=stamp,
            offset=i64(base_offset + i),
            key=keys[i] if keys else None,
            value=value,
            headers=(),
        )
        for i, value in enumerate(values)
    )
    batch = NewRecordBatch(
        producer_id=i64(-1),
        producer_epoch=i16(-1),
        partition_leader_epoch=i32(-1),
        base_sequence=i32(-1),
        records=records,
        attributes=i16(0),
    )
    buffer = io.BytesIO()
    write_new_batch(buffer, batch)
    return buffer.getvalue()
