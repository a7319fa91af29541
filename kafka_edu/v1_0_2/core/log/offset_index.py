"""Port of core/src/main/scala/kafka/log/OffsetIndex.scala and its base AbstractIndex.scala (Kafka 1.0.2)."""

from __future__ import annotations

import enum
import mmap
import os
import struct
import threading
from pathlib import Path
from typing import NamedTuple

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidOffsetException


def require(condition: bool, message: str) -> None:
    """Scala's `require`; Log catches the IllegalArgumentException of a failed sanity check and rebuilds."""
    if not condition:
        raise IllegalArgumentException(message)


class IndexSearchType(enum.Enum):
    KEY = "key"
    VALUE = "value"


# An index entry is a 2-tuple: field 0 is what the index is searched by (indexKey), field 1 what it maps to.
IndexEntry = tuple[int, int]


class AbstractIndex:
    """A file of fixed-size entries, pre-allocated to `max_index_size` and memory-mapped.

    `_entries` counts the valid entries; the mapping beyond them is unused space until the index is trimmed.
    """

    entry_size: int = 0

    def __init__(self, file: str | os.PathLike[str], base_offset: int, max_index_size: int = -1,
                 writable: bool = True) -> None:
        self.file = Path(file)
        self.base_offset = base_offset
        self.max_index_size = max_index_size
        self.writable = writable
        self._lock = threading.RLock()
        newly_created = not self.file.exists()
        if newly_created:
            self.file.touch()
        with open(self.file, "r+b" if writable else "rb") as raf:
            if newly_created:
                # A fresh index is pre-allocated so appends never grow the file.
                if max_index_size < self.entry_size:
                    raise IllegalArgumentException(f"Invalid max index size: {max_index_size}")
                raf.truncate(self._round_down_to_exact_multiple(max_index_size, self.entry_size))
            length = os.fstat(raf.fileno()).st_size
            self._mmap = self._map(raf, length)
        # An existing file is assumed full of valid entries; sanity_check() is what catches a crash's zeros.
        self._position = 0 if newly_created else self._round_down_to_exact_multiple(length, self.entry_size)
        self._max_entries = length // self.entry_size
        self._entries = self._position // self.entry_size

    def _map(self, raf, length: int) -> mmap.mmap | None:
        if length == 0:
            return None  # Python cannot map an empty file; an empty index simply has no mapping
        access = mmap.ACCESS_WRITE if self.writable else mmap.ACCESS_READ
        return mmap.mmap(raf.fileno(), length, access=access)

    def is_full(self) -> bool:
        return self._entries >= self._max_entries

    @property
    def max_entries(self) -> int:
        return self._max_entries

    @property
    def entries(self) -> int:
        return self._entries

    def length(self) -> int:
        return self._max_entries * self.entry_size

    def resize(self, new_size: int) -> None:
        """Change the file and mapping size, keeping the entries: trim on roll/close, re-grow when active again."""
        with self._lock:
            rounded_new_size = self._round_down_to_exact_multiple(new_size, self.entry_size)
            if self._mmap is not None:
                self._mmap.close()
            with open(self.file, "r+b") as raf:
                raf.truncate(rounded_new_size)
                self._mmap = self._map(raf, rounded_new_size)
            self._max_entries = rounded_new_size // self.entry_size

    def rename_to(self, f: Path) -> None:
        try:
            os.replace(self.file, f)
        finally:
            self.file = f

    def flush(self) -> None:
        with self._lock:
            if self._mmap is not None:
                self._mmap.flush()  # msync, the MappedByteBuffer.force() of Python

    def delete(self) -> bool:
        with self._lock:
            self.close_handler()
        try:
            self.file.unlink()
            return True
        except FileNotFoundError:
            return False

    def trim_to_valid_size(self) -> None:
        with self._lock:
            self.resize(self.entry_size * self._entries)

    def size_in_bytes(self) -> int:
        return self.entry_size * self._entries

    def close(self) -> None:
        self.trim_to_valid_size()
        self.close_handler()

    def close_handler(self) -> None:
        if self._mmap is not None:
            self._mmap.close()
            self._mmap = None

    def sanity_check(self) -> None:
        raise NotImplementedError

    def truncate(self) -> None:
        raise NotImplementedError

    def truncate_to(self, offset: int) -> None:
        raise NotImplementedError

    def parse_entry(self, n: int) -> IndexEntry:
        raise NotImplementedError

    def _read(self, fmt: str, position: int) -> int:
        return struct.unpack_from(fmt, self._mmap, position)[0]

    def _write_entry(self, fmt: str, *values: int) -> None:
        struct.pack_into(fmt, self._mmap, self._position, *values)
        self._position += self.entry_size

    def largest_lower_bound_slot_for(self, target: int, search_entity: IndexSearchType) -> int:
        """The slot of the largest entry <= target, or -1."""
        return self._index_slot_range_for(target, search_entity)[0]

    def smallest_upper_bound_slot_for(self, target: int, search_entity: IndexSearchType) -> int:
        """The slot of the smallest entry >= target, or -1."""
        return self._index_slot_range_for(target, search_entity)[1]

    def _index_slot_range_for(self, target: int, search_entity: IndexSearchType) -> tuple[int, int]:
        if self._entries == 0:
            return -1, -1
        if self._compare_index_entry(self.parse_entry(0), target, search_entity) > 0:
            return -1, 0
        # Binary search for the last entry not above target; mid rounds up so lo always advances.
        lo, hi = 0, self._entries - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            compare_result = self._compare_index_entry(self.parse_entry(mid), target, search_entity)
            if compare_result > 0:
                hi = mid - 1
            elif compare_result < 0:
                lo = mid
            else:
                return mid, mid
        return lo, (-1 if lo == self._entries - 1 else lo + 1)

    @staticmethod
    def _compare_index_entry(entry: IndexEntry, target: int, search_entity: IndexSearchType) -> int:
        value = entry[0] if search_entity is IndexSearchType.KEY else entry[1]
        return (value > target) - (value < target)

    @staticmethod
    def _round_down_to_exact_multiple(number: int, factor: int) -> int:
        return factor * (number // factor)


class OffsetPosition(NamedTuple):
    """An offset index entry: the batch starting at or containing `offset` begins at byte `position`."""

    offset: int
    position: int


class OffsetIndex(AbstractIndex):
    """Sparse map offset -> file position; each 8-byte entry is (offset - base_offset: int32, position: int32)."""

    entry_size = 8

    def __init__(self, file: str | os.PathLike[str], base_offset: int, max_index_size: int = -1,
                 writable: bool = True) -> None:
        super().__init__(file, base_offset, max_index_size, writable)
        self._last_offset = self._last_entry().offset

    def _last_entry(self) -> OffsetPosition:
        with self._lock:
            if self._entries == 0:
                return OffsetPosition(self.base_offset, 0)
            return self.parse_entry(self._entries - 1)

    @property
    def last_offset(self) -> int:
        return self._last_offset

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The entry with the largest offset <= target, or (base_offset, 0) if there is none."""
        slot = self.largest_lower_bound_slot_for(target_offset, IndexSearchType.KEY)
        if slot == -1:
            return OffsetPosition(self.base_offset, 0)
        return self.parse_entry(slot)

    def fetch_upper_bound_offset(self, fetch_offset: OffsetPosition, fetch_size: int) -> OffsetPosition | None:
        slot = self.smallest_upper_bound_slot_for(fetch_offset.position + fetch_size, IndexSearchType.VALUE)
        return None if slot == -1 else self.parse_entry(slot)

    def _relative_offset(self, n: int) -> int:
        return self._read(">i", n * self.entry_size)

    def _physical(self, n: int) -> int:
        return self._read(">i", n * self.entry_size + 4)

    def parse_entry(self, n: int) -> OffsetPosition:
        return OffsetPosition(self.base_offset + self._relative_offset(n), self._physical(n))

    def entry(self, n: int) -> OffsetPosition:
        """The n-th entry with its offset still relative, as Kafka's entry(n) returns it."""
        if n >= self._entries:
            raise IllegalArgumentException(f"Attempt to fetch the {n}th entry from an index of size {self._entries}.")
        return OffsetPosition(self._relative_offset(n), self._physical(n))

    def append(self, offset: int, position: int) -> None:
        with self._lock:
            require(not self.is_full(), f"Attempt to append to a full index (size = {self._entries}).")
            if self._entries == 0 or offset > self._last_offset:
                self._write_entry(">ii", offset - self.base_offset, position)
                self._entries += 1
                self._last_offset = offset
                require(self._entries * self.entry_size == self._position,
                        f"{self._entries} entries but file position in index is {self._position}.")
            else:
                raise InvalidOffsetException(
                    f"Attempt to append offset {offset} at slot {self._entries}, not above the last offset "
                    f"{self._last_offset} in {self.file}"
                )

    def truncate(self) -> None:
        self._truncate_to_entries(0)

    def truncate_to(self, offset: int) -> None:
        """Drop every entry for an offset >= `offset`."""
        with self._lock:
            slot = self.largest_lower_bound_slot_for(offset, IndexSearchType.KEY)
            if slot < 0:
                new_entries = 0  # every entry is at or above the offset
            elif self._relative_offset(slot) == offset - self.base_offset:
                new_entries = slot  # an exact hit goes too
            else:
                new_entries = slot + 1
            self._truncate_to_entries(new_entries)

    def _truncate_to_entries(self, entries: int) -> None:
        with self._lock:
            self._entries = entries
            self._position = entries * self.entry_size
            self._last_offset = self._last_entry().offset

    def sanity_check(self) -> None:
        require(self._entries == 0 or self._last_offset > self.base_offset,
                f"Corrupt index found, index file ({self.file}) has {self._entries} entries but its last offset "
                f"{self._last_offset} is not above the base offset {self.base_offset}.")
        length = self.file.stat().st_size
        require(length % self.entry_size == 0,
                f"Index file {self.file} is corrupt: {length} bytes is not a multiple of {self.entry_size}.")
