"""Port of clients/src/main/java/org/apache/kafka/common/record/FileRecords.java (Kafka 3.9): the record batches of
a log segment file (or a slice of one): append, flush (fsync), truncate, and the searches a segment's index and
fetch path need.

Kafka's FileChannel is FileChannel below: a file descriptor with a position for appends, read and written with
pread/pwrite.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v3_9.clients.common.record.abstract_records import AbstractRecords
from kafka_edu.v3_9.clients.common.record.converted_records import ConvertedRecords
from kafka_edu.v3_9.clients.common.record.file_log_input_stream import FileChannelRecordBatch, FileLogInputStream
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PARTITION_LEADER_EPOCH, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.record_batch_iterator import RecordBatchIterator
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback

INT_MAX = 2**31 - 1


class FileChannel:
    """java.nio.channels.FileChannel as FileRecords uses it."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd
        self._position = 0
        self._open = True

    @staticmethod
    def open(path: Path, mutable: bool = True) -> FileChannel:
        flags = os.O_RDWR | os.O_CREAT if mutable else os.O_RDONLY
        return FileChannel(path, os.open(path, flags, 0o644))

    def _ensure_open(self) -> None:
        # a closed descriptor number may already belong to another file: fail as Java's closed channel does
        if not self._open:
            raise OSError(errno.EBADF, "java.nio.channels.ClosedChannelException")

    def size(self) -> int:
        self._ensure_open()
        return os.fstat(self.fd).st_size

    def position(self, new_position: int | None = None) -> int:
        if new_position is not None:
            self._position = new_position
        return self._position

    def transfer_to(self, position: int, count: int, target: Any) -> int:
        """Up to `count` bytes from `position` to `target` (a socket channel) by sendfile(2), which copies them
        inside the kernel; 0 when the socket takes nothing now."""
        self._ensure_open()
        try:
            return os.sendfile(target.fileno(), self.fd, position, count)
        except (BlockingIOError, InterruptedError):
            return 0

    def read(self, size: int, position: int) -> bytes:
        """Up to `size` bytes at `position`, fewer only at the end of the file (Utils.readFully)."""
        self._ensure_open()
        chunks = []
        remaining = size
        while remaining > 0:
            chunk = os.pread(self.fd, remaining, position)
            if not chunk:
                break
            chunks.append(chunk)
            position += len(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Write at the channel's position and advance it."""
        self._ensure_open()
        written = os.pwrite(self.fd, data, self._position)
        self._position += written
        return written

    def truncate(self, size: int) -> None:
        self._ensure_open()
        os.ftruncate(self.fd, size)
        if self._position > size:
            self._position = size

    def force(self, meta_data: bool) -> None:
        self._ensure_open()
        os.fsync(self.fd) if meta_data else os.fdatasync(self.fd)

    def is_open(self) -> bool:
        return self._open

    def close(self) -> None:
        if self._open:
            self._open = False
            os.close(self.fd)

    def __repr__(self) -> str:
        return f"FileChannel({self.path})"


class LogOffsetPosition:
    """Where a batch holding an offset starts in the file, and its size."""

    def __init__(self, offset: int, position: int, size: int) -> None:
        self.offset = offset
        self.position = position
        self.size = size

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LogOffsetPosition):
            return False
        return self.offset == other.offset and self.position == other.position and self.size == other.size

    def __hash__(self) -> int:
        return hash((self.offset, self.position, self.size))

    def __repr__(self) -> str:
        return f"LogOffsetPosition(offset={self.offset}, position={self.position}, size={self.size})"


class TimestampAndOffset:
    """A timestamp, the offset it was found at, and that batch's leader epoch (None for unknown)."""

    def __init__(self, timestamp: int, offset: int, leader_epoch: int | None) -> None:
        self.timestamp = timestamp
        self.offset = offset
        self.leader_epoch = leader_epoch

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TimestampAndOffset):
            return False
        return (self.timestamp == other.timestamp and self.offset == other.offset
                and self.leader_epoch == other.leader_epoch)

    def __hash__(self) -> int:
        return hash((self.timestamp, self.offset, self.leader_epoch))

    def __repr__(self) -> str:
        return (f"TimestampAndOffset(timestamp={self.timestamp}, offset={self.offset}, "
                f"leaderEpoch={self.leader_epoch})")


class FileRecords(AbstractRecords):
    """Bytes [start, end) of `file`; a slice is a fixed view, the whole file grows with appends."""

    def __init__(self, file: Path, channel: Any, start: int, end: int, is_slice: bool) -> None:
        self._file = file if isinstance(file, Path) else Path(file)  # a slice shares its file's Path
        self._channel = channel
        self.start = start
        self.end = end
        self.is_slice = is_slice
        if is_slice:
            self._size = end - start
        else:
            if channel.size() > INT_MAX:
                raise KafkaException(f"The size of segment {file} ({channel.size()}) is larger than the maximum "
                                     f"allowed segment size of {INT_MAX}")
            limit = min(channel.size(), end)
            self._size = limit - start
            # Appends go after what the file already holds (or at 0 for a preallocated new file).
            channel.position(limit)

    def size_in_bytes(self) -> int:
        return self._size

    def file(self) -> Path:
        return self._file

    def channel(self) -> Any:
        return self._channel

    def read_into(self, buffer: bytearray, position: int) -> None:
        """Fill `buffer` from `position` of this view; at the end of the file it is cut to what was read."""
        data = self._channel.read(len(buffer), position + self.start)
        buffer[:] = data

    def slice(self, position: int, size: int) -> FileRecords:
        """A view of `size` bytes from `position` (fewer at the end of the file), sharing the channel."""
        available_bytes = self._available_bytes(position, size)
        start_position = self.start + position
        return FileRecords(self._file, self._channel, start_position, start_position + available_bytes, True)

    def _available_bytes(self, position: int, size: int) -> int:
        # Cache the size: appends may grow it while we compute.
        current_size_in_bytes = self.size_in_bytes()
        if position < 0:
            raise IllegalArgumentException(f"Invalid position: {position} in read from {self}")
        if position > current_size_in_bytes - self.start:
            raise IllegalArgumentException(f"Slice from position {position} exceeds end position of {self}")
        if size < 0:
            raise IllegalArgumentException(f"Invalid size: {size} in read from {self}")
        end = self.start + position + size
        # An end past the file (or beyond an int) is clipped to the file's end.
        if end < 0 or end > INT_MAX or end > self.start + current_size_in_bytes:
            end = self.start + current_size_in_bytes
        return end - (self.start + position)

    def append(self, records: MemoryRecords) -> int:
        if records.size_in_bytes() > INT_MAX - self._size:
            raise IllegalArgumentException(f"Append of size {records.size_in_bytes()} bytes is too large for segment "
                                           f"with current file position at {self._size}")
        written = records.write_fully_to(self._channel)
        self._size += written
        return written

    def flush(self) -> None:
        """Force the file's content and metadata to disk."""
        self._channel.force(True)

    def close(self) -> None:
        self.flush()
        self.trim()
        self._channel.close()

    def close_handlers(self) -> None:
        self._channel.close()

    def delete_if_exists(self) -> bool:
        try:
            self._channel.close()
        except OSError:
            pass
        try:
            self._file.unlink()
            return True
        except FileNotFoundError:
            return False

    def trim(self) -> None:
        """Cut a preallocated file back to what it holds."""
        self.truncate_to(self.size_in_bytes())

    def update_parent_dir(self, parent_dir: Path) -> None:
        self._file = Path(parent_dir) / self._file.name

    def rename_to(self, f: Path) -> None:
        try:
            atomic_move_with_fallback(self._file, Path(f), False)
        finally:
            self._file = Path(f)

    def truncate_to(self, target_size: int) -> int:
        """Cut the file to `target_size` bytes; returns how many bytes went."""
        original_size = self.size_in_bytes()
        if target_size > original_size or target_size < 0:
            raise KafkaException(f"Attempt to truncate log segment {self._file} to {target_size} bytes failed,  size "
                                 f"of this log segment is {original_size} bytes.")
        if target_size < self._channel.size():
            self._channel.truncate(target_size)
            self._size = target_size
        return original_size - target_size

    def down_convert(self, to_magic: int, first_offset: int, time: Any) -> ConvertedRecords[Any]:
        from kafka_edu.v3_9.clients.common.record.records_util import down_convert
        converted_records = down_convert(self.batches(), to_magic, first_offset, time)
        if converted_records.record_conversion_stats().num_records_converted() == 0:
            # Nothing needed converting: send the file itself (zero-copy) rather than the copy.
            return ConvertedRecords(self, RecordValidationStats.EMPTY)  # type: ignore[attr-defined]
        return converted_records

    def write_to(self, dest_channel: Any, offset: int, length: int) -> int:
        """Send up to `length` bytes from `offset` of this view with dest_channel.transfer_from(channel, pos, n)."""
        new_size = min(self._channel.size(), self.end) - self.start
        old_size = self.size_in_bytes()
        if new_size < old_size:
            raise KafkaException(f"Size of FileRecords {self._file.absolute()} has been truncated during write: old "
                                 f"size {old_size}, new size {new_size}")
        position = self.start + offset
        count = min(length, old_size - offset)
        return int(dest_channel.transfer_from(self._channel, position, count))

    def search_for_offset_with_size(self, target_offset: int, starting_position: int) -> LogOffsetPosition | None:
        """The first batch from `starting_position` whose last offset is >= `target_offset`."""
        for batch in self.batches_from(starting_position):
            offset = batch.last_offset()
            if offset >= target_offset:
                return LogOffsetPosition(offset, batch.position(), batch.size_in_bytes())
        return None

    def search_for_timestamp(self, target_timestamp: int, starting_position: int,
                             starting_offset: int) -> TimestampAndOffset | None:
        """The first record from `starting_position` at or after both the timestamp and `starting_offset`."""
        for batch in self.batches_from(starting_position):
            if batch.max_timestamp() >= target_timestamp:
                # Only a batch that may hold the timestamp is read whole.
                for record in batch:
                    timestamp = record.timestamp()
                    if timestamp >= target_timestamp and record.offset() >= starting_offset:
                        return TimestampAndOffset(timestamp, record.offset(),
                                                  self._maybe_leader_epoch(batch.partition_leader_epoch()))
        return None

    def largest_timestamp_after(self, starting_position: int) -> TimestampAndOffset:
        """The largest batch max timestamp from `starting_position`, with that batch's last offset."""
        max_timestamp = NO_TIMESTAMP
        shallow_offset_of_max_timestamp = -1
        leader_epoch_of_max_timestamp = NO_PARTITION_LEADER_EPOCH
        for batch in self.batches_from(starting_position):
            timestamp = batch.max_timestamp()
            if timestamp > max_timestamp:
                max_timestamp = timestamp
                shallow_offset_of_max_timestamp = batch.last_offset()
                leader_epoch_of_max_timestamp = batch.partition_leader_epoch()
        return TimestampAndOffset(max_timestamp, shallow_offset_of_max_timestamp,
                                  self._maybe_leader_epoch(leader_epoch_of_max_timestamp))

    @staticmethod
    def _maybe_leader_epoch(leader_epoch: int) -> int | None:
        return None if leader_epoch == NO_PARTITION_LEADER_EPOCH else leader_epoch

    def batches(self) -> Iterable[FileChannelRecordBatch]:
        return self.batches_from(self.start)

    def __repr__(self) -> str:
        return (f"FileRecords(size={self.size_in_bytes()}, file={self._file}, start={self.start}, "
                f"end={self.end})")

    def batches_from(self, start: int) -> Iterable[FileChannelRecordBatch]:
        """The batches from file position `start` (not relative to this view's start)."""
        return _BatchesFrom(self, start)

    def batch_iterator(self, start: int | None = None) -> RecordBatchIterator[FileChannelRecordBatch]:
        start = self.start if start is None else start
        end = self.end if self.is_slice else self.size_in_bytes()
        return RecordBatchIterator(FileLogInputStream(self, start, end))

    @staticmethod
    def open(file: Path, mutable: bool = True, *, file_already_exists: bool = False, init_file_size: int = 0,
             preallocate: bool = False) -> FileRecords:
        """Every FileRecords.open overload: open(file[, mutable]) positionally, the others by keyword (Java's
        open(file, fileAlreadyExists, initFileSize, preallocate) would otherwise read its first flag as `mutable`).
        A preallocated new file reads as empty until appended to."""
        channel = FileRecords._open_channel(Path(file), mutable, file_already_exists, init_file_size, preallocate)
        end = 0 if (not file_already_exists and preallocate) else INT_MAX
        return FileRecords(Path(file), channel, 0, end, False)

    @staticmethod
    def _open_channel(file: Path, mutable: bool, file_already_exists: bool, init_file_size: int,
                      preallocate: bool) -> FileChannel:
        if mutable:
            channel = FileChannel.open(file, True)
            if not file_already_exists and preallocate:
                os.ftruncate(channel.fd, init_file_size)
            return channel
        return FileChannel.open(file, False)


class _BatchesFrom:
    def __init__(self, records: FileRecords, start: int) -> None:
        self._records = records
        self._start = start

    def __iter__(self) -> RecordBatchIterator[FileChannelRecordBatch]:
        return self._records.batch_iterator(self._start)
