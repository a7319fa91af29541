"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/AbstractIndex.java (Kafka 3.9): a file of
fixed-size entries, pre-allocated and memory-mapped, searched with a binary search that stays in the index's warm end.
"""

from __future__ import annotations

import enum
import logging
import mmap as _mmap
import os
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.storage.storage.internals.log.index_entry import IndexEntry
from kafka_edu.v3_9.storage.storage.internals.log.index_offset_overflow_exception import (
    IndexOffsetOverflowException,
)
from kafka_edu.v3_9.storage.storage.internals.log.index_search_type import IndexSearchType

log = logging.getLogger("org.apache.kafka.storage.internals.log.AbstractIndex")

T = TypeVar("T")
INT_MAX = 2**31 - 1
# OperatingSystem.IS_WINDOWS || OperatingSystem.IS_ZOS: there a mapped file cannot change length
_LOCKS_READS = sys.platform in ("win32", "zos")
_INT, _LONG = struct.Struct(">i"), struct.Struct(">q")  # Java's big-endian int and long


class MappedByteBuffer:
    """java.nio.MappedByteBuffer over Python's mmap: big-endian absolute reads, and relative writes at `position`,
    where the next entry goes. Python cannot map an empty file, so a zero-length buffer has no map behind it."""

    def __init__(self, fileno: int, length: int, writable: bool) -> None:
        access = _mmap.ACCESS_WRITE if writable else _mmap.ACCESS_READ
        self._map: _mmap.mmap | None = _mmap.mmap(fileno, length, access=access) if length > 0 else None
        self._limit = length
        self._position = 0

    def limit(self) -> int:
        return self._limit

    def position(self, new_position: int | None = None) -> int:
        """position() reads it, position(p) moves it (Java's two overloads)."""
        if new_position is not None:
            if new_position < 0 or new_position > self._limit:
                raise IllegalArgumentException(f"newPosition > limit: ({new_position} > {self._limit})")
            self._position = new_position
        return self._position

    def duplicate(self) -> MappedByteBuffer:
        """A buffer over the same mapping with a position of its own (made directly: an index lookup makes one)."""
        duplicate = object.__new__(MappedByteBuffer)
        duplicate._map, duplicate._limit, duplicate._position = self._map, self._limit, self._position
        return duplicate

    def get_int(self, index: int) -> int:
        return self._get(_INT, index)

    def get_long(self, index: int) -> int:
        return self._get(_LONG, index)

    def get_fields(self, layout: struct.Struct, index: int) -> tuple[int, ...]:
        """The values of `layout` at `index` in one read: an index entry's getInt/getLong calls, which a lookup makes
        for every entry its binary search visits."""
        if index < 0 or index + layout.size > self._limit:
            raise IndexError(f"index {index} out of bounds for limit {self._limit}")
        return layout.unpack_from(self._map, index)

    def put_int(self, value: int) -> None:
        self._put(_INT, value)

    def put_long(self, value: int) -> None:
        self._put(_LONG, value)

    def force(self) -> None:
        if self._map is not None:
            self._map.flush()  # msync

    def unmap(self) -> None:
        """ByteBufferUnmapper.unmap: release the mapping now rather than when the buffer is collected."""
        if self._map is not None:
            self._map.close()
            self._map = None

    def _get(self, layout: struct.Struct, index: int) -> int:
        if index < 0 or index + layout.size > self._limit:
            raise IndexError(f"index {index} out of bounds for limit {self._limit}")
        return layout.unpack_from(self._map, index)[0]

    def _put(self, layout: struct.Struct, value: int) -> None:
        size = layout.size
        if self._position + size > self._limit:
            raise BufferError("BufferOverflowException")
        layout.pack_into(self._map, self._position, value)
        self._position += size


class _SearchResultType(enum.Enum):
    LARGEST_LOWER_BOUND = "LARGEST_LOWER_BOUND"
    SMALLEST_UPPER_BOUND = "SMALLEST_UPPER_BOUND"


class AbstractIndex:
    """The entry-format-agnostic part of OffsetIndex and TimeIndex.

    `_entries` slots of the mapping hold valid entries; `mmap().position()` is where the next one is written. The
    file is pre-allocated to `max_index_size` while the segment is active and trimmed to the valid entries on roll.
    """

    def __init__(self, file: str | os.PathLike[str], base_offset: int, max_index_size: int, writable: bool) -> None:
        if file is None:
            raise TypeError("file")
        self.lock = threading.RLock()  # ReentrantLock
        self._file = Path(file)
        self._base_offset = base_offset
        self._max_index_size = max_index_size
        self._writable = writable
        self._length = 0
        self._mmap: MappedByteBuffer | None = None

        self._create_and_assign_mmap()
        self._max_entries = self._mmap.limit() // self.entry_size()
        self._entries = self._mmap.position() // self.entry_size()

    def _create_and_assign_mmap(self) -> None:
        try:
            with open(self._file, "x"):
                newly_created = True
        except FileExistsError:
            newly_created = False
        raf = open(self._file, "r+b" if self._writable else "rb")  # closed in finally, as Kafka does
        try:
            # a new index is pre-allocated so that appends never grow the file
            if newly_created:
                if self._max_index_size < self.entry_size():
                    raise IllegalArgumentException(f"Invalid max index size: {self._max_index_size}")
                raf.truncate(_round_down_to_exact_multiple(self._max_index_size, self.entry_size()))

            length = os.fstat(raf.fileno()).st_size
            mmap = _create_mapped_buffer(raf, newly_created, length, self._writable, self.entry_size())

            self._length = length
            self._mmap = mmap
        finally:
            _close_quietly(raf, f"index {self._file.name}")

    def sanity_check(self) -> None:
        """Raise CorruptIndexException if the index has an obvious problem."""
        raise NotImplementedError

    def truncate_to(self, offset: int) -> None:
        """Remove every entry whose offset is >= `offset`; an offset past the last entry changes nothing."""
        raise NotImplementedError

    def truncate(self) -> None:
        """Remove all the entries."""
        raise NotImplementedError

    def entry_size(self) -> int:
        raise NotImplementedError

    def parse_entry(self, buffer: MappedByteBuffer, n: int) -> IndexEntry:
        """The entry stored in slot `n` of `buffer`."""
        raise NotImplementedError

    def is_full(self) -> bool:
        return self._entries >= self._max_entries

    def file(self) -> Path:
        return self._file

    def max_entries(self) -> int:
        return self._max_entries

    def entries(self) -> int:
        return self._entries

    def length(self) -> int:
        return self._length

    def max_index_size(self) -> int:
        return self._max_index_size

    def base_offset(self) -> int:
        return self._base_offset

    def update_parent_dir(self, parent_dir: Path) -> None:
        self._file = Path(parent_dir) / self._file.name

    def resize(self, new_size: int) -> bool:
        """Set the file and the mapping to `new_size` (rounded down to whole entries), keeping the entries: trimmed on
        roll or close, grown back to the max size when an old segment becomes the active one again. True if the size
        changed."""
        with self.lock:
            rounded_new_size = _round_down_to_exact_multiple(new_size, self.entry_size())

            if self._length == rounded_new_size:
                log.debug("Index %s was not resized because it already has size %s", self._file.absolute(),
                          rounded_new_size)
                return False
            # RandomAccessFile(file, "rw"): a missing file is created; closed in finally, as Kafka does
            raf = open(os.open(self._file, os.O_RDWR | os.O_CREAT, 0o644), "r+b")
            try:
                position = self._mmap.position()

                if _LOCKS_READS:
                    self.safe_force_unmap()
                raf.truncate(rounded_new_size)
                self._length = rounded_new_size
                # the old mapping is left to the garbage collector, as on the JVM: a reader may still hold it
                self._mmap = MappedByteBuffer(raf.fileno(), rounded_new_size, True)
                self._max_entries = self._mmap.limit() // self.entry_size()
                self._mmap.position(position)
                log.debug("Resized %s to %s, position is %s and limit is %s", self._file.absolute(),
                          rounded_new_size, self._mmap.position(), self._mmap.limit())
                return True
            finally:
                _close_quietly(raf, f"index file {self._file.name}")

    def rename_to(self, f: Path) -> None:
        try:
            atomic_move_with_fallback(self._file, Path(f), False)
        finally:
            self._file = Path(f)

    def flush(self) -> None:
        with self.lock:
            self._mmap.force()

    def delete_if_exists(self) -> bool:
        """Delete the file; False if it did not exist."""
        self.close_handler()
        try:
            self._file.unlink()
            return True
        except FileNotFoundError:
            return False

    def trim_to_valid_size(self) -> None:
        """Drop the unwritten bytes at the end of the file."""
        with self.lock:
            self.resize(self.entry_size() * self._entries)

    def size_in_bytes(self) -> int:
        return self.entry_size() * self._entries

    def close(self) -> None:
        self.trim_to_valid_size()
        self.close_handler()

    def close_handler(self) -> None:
        # unmap now rather than whenever the collector gets to it (KAFKA-4614: unmapping could stall a request)
        with self.lock:
            self.safe_force_unmap()

    def reset(self) -> None:
        """Remove all the entries and grow the file back to the max index size."""
        self.truncate()
        self.resize(self._max_index_size)

    def relative_offset(self, offset: int) -> int:
        relative_offset = self._to_relative(offset)
        if relative_offset is None:
            raise IndexOffsetOverflowException(f"Integer overflow for offset: {offset} ({self._file.absolute()})")
        return relative_offset

    def can_append_offset(self, offset: int) -> bool:
        return self._to_relative(offset) is not None

    def mmap(self) -> MappedByteBuffer:
        return self._mmap

    def warm_entries(self) -> int:
        """How many entries at the end of the index make its warm section: 8 KiB of entries, few enough pages that
        every lookup in it touches all of them (so they stay in the page cache), many enough that in-sync followers
        and consumers almost always look up there."""
        return 8192 // self.entry_size()

    def safe_force_unmap(self) -> None:
        if self._mmap is not None:
            try:
                self.force_unmap()
            except Exception:
                log.exception("Error unmapping index %s", self._file)

    def force_unmap(self) -> None:
        try:
            self._mmap.unmap()
        finally:
            self._mmap = None

    def increment_entries(self) -> None:
        # the caller holds `lock`
        self._entries += 1

    def truncate_to_entries0(self, entries: int) -> None:
        self._entries = entries
        self._mmap.position(entries * self.entry_size())

    def maybe_lock(self, lock: threading.RLock, action: Callable[[], T]) -> T:
        """Run `action` under `lock` only where a resize must unmap the file first (Windows, z/OS)."""
        if _LOCKS_READS:
            lock.acquire()
        try:
            return action()
        finally:
            if _LOCKS_READS:
                lock.release()

    def largest_lower_bound_slot_for(self, idx: MappedByteBuffer, target: int,
                                     search_entity: IndexSearchType) -> int:
        """The slot of the largest entry <= target, or -1 if the index is empty or every entry is larger."""
        return self._index_slot_range_for(idx, target, search_entity, _SearchResultType.LARGEST_LOWER_BOUND)

    def smallest_upper_bound_slot_for(self, idx: MappedByteBuffer, target: int,
                                      search_entity: IndexSearchType) -> int:
        """The slot of the smallest entry >= target, or -1 if there is none."""
        return self._index_slot_range_for(idx, target, search_entity, _SearchResultType.SMALLEST_UPPER_BOUND)

    def _index_slot_range_for(self, idx: MappedByteBuffer, target: int, search_entity: IndexSearchType,
                              search_result_type: _SearchResultType) -> int:
        if self._entries == 0:
            return -1

        first_hot_entry = max(0, self._entries - 1 - self.warm_entries())
        # the common case: the target is in the warm section, whose pages are in the page cache
        if self._compare_index_entry(self.parse_entry(idx, first_hot_entry), target, search_entity) < 0:
            return self._binary_search(idx, target, search_entity, search_result_type, first_hot_entry,
                                       self._entries - 1)

        if self._compare_index_entry(self.parse_entry(idx, 0), target, search_entity) > 0:
            if search_result_type is _SearchResultType.LARGEST_LOWER_BOUND:
                return -1
            if search_result_type is _SearchResultType.SMALLEST_UPPER_BOUND:
                return 0

        return self._binary_search(idx, target, search_entity, search_result_type, 0, first_hot_entry)

    def _binary_search(self, idx: MappedByteBuffer, target: int, search_entity: IndexSearchType,
                       search_result_type: _SearchResultType, begin: int, end: int) -> int:
        lo = begin
        hi = end
        while lo < hi:
            mid = (lo + hi + 1) >> 1
            found = self.parse_entry(idx, mid)
            compare_result = self._compare_index_entry(found, target, search_entity)
            if compare_result > 0:
                hi = mid - 1
            elif compare_result < 0:
                lo = mid
            else:
                return mid
        if search_result_type is _SearchResultType.LARGEST_LOWER_BOUND:
            return lo
        if search_result_type is _SearchResultType.SMALLEST_UPPER_BOUND:
            return -1 if lo == self._entries - 1 else lo + 1
        raise IllegalStateException(f"Unexpected searchResultType {search_result_type}")

    @staticmethod
    def _compare_index_entry(index_entry: IndexEntry, target: int, search_entity: IndexSearchType) -> int:
        if search_entity is IndexSearchType.KEY:
            value = index_entry.index_key()
        elif search_entity is IndexSearchType.VALUE:
            value = index_entry.index_value()
        else:
            raise IllegalStateException(f"Unexpected IndexSearchType: {search_entity}")
        return (value > target) - (value < target)

    def _to_relative(self, offset: int) -> int | None:
        relative_offset = offset - self._base_offset
        if relative_offset < 0 or relative_offset > INT_MAX:
            return None
        return relative_offset


def _round_down_to_exact_multiple(number: int, factor: int) -> int:
    """(67, 8) -> 64: `number` rounded to a multiple of `factor`, toward zero as Java's int division rounds."""
    quotient = abs(number) // factor
    return factor * (quotient if number >= 0 else -quotient)


def _create_mapped_buffer(raf: BinaryIO, newly_created: bool, length: int, writable: bool,
                          entry_size: int) -> MappedByteBuffer:
    idx = MappedByteBuffer(raf.fileno(), length, writable)
    if newly_created:
        idx.position(0)
    else:
        # an existing index is taken to be full of valid entries; sanity_check catches one that is not
        idx.position(_round_down_to_exact_multiple(idx.limit(), entry_size))
    return idx


def _close_quietly(closeable: BinaryIO, name: str) -> None:
    """Utils.closeQuietly."""
    try:
        closeable.close()
    except Exception:
        log.warning("Failed to close %s", name, exc_info=True)
