"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java (Kafka 3.9): the sparse map
from a segment's offsets to byte positions in its log file; each 8-byte entry is a 4-byte offset relative to the
segment's base offset and a 4-byte position."""

from __future__ import annotations

import logging
import os
import struct

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidOffsetException,
)
from kafka_edu.v3_9.storage.storage.internals.log.abstract_index import AbstractIndex, MappedByteBuffer
from kafka_edu.v3_9.storage.storage.internals.log.corrupt_index_exception import CorruptIndexException
from kafka_edu.v3_9.storage.storage.internals.log.index_search_type import IndexSearchType
from kafka_edu.v3_9.storage.storage.internals.log.offset_position import OffsetPosition

log = logging.getLogger("org.apache.kafka.storage.internals.log.OffsetIndex")

ENTRY_SIZE = 8
_ENTRY = struct.Struct(">ii")  # relative offset, physical position


class OffsetIndex(AbstractIndex):
    """Lookups find the largest indexed offset <= the target; the log scans forward from its position."""

    def __init__(self, file: str | os.PathLike[str], base_offset: int, max_index_size: int = -1,
                 writable: bool = True) -> None:
        super().__init__(file, base_offset, max_index_size, writable)

        # the last offset in the index
        self._last_offset = self._last_entry().offset

        log.debug("Loaded index file %s with maxEntries = %s, maxIndexSize = %s, entries = %s, lastOffset = %s, "
                  "file position = %s", self.file().absolute(), self.max_entries(), max_index_size, self.entries(),
                  self._last_offset, self.mmap().position())

    def sanity_check(self) -> None:
        if self.entries() != 0 and self._last_offset < self.base_offset():
            raise CorruptIndexException(
                f"Corrupt index found, index file {self.file().absolute()} has non-zero size but the last offset is "
                f"{self._last_offset} which is less than the base offset {self.base_offset()}")
        if self.length() % self.entry_size() != 0:
            raise CorruptIndexException(
                f"Index file {self.file().absolute()} is corrupt, found {self.length()} bytes which is neither "
                f"positive nor a multiple of {ENTRY_SIZE}")

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The entry of the largest offset <= `target_offset`, or (base offset, 0) if there is none."""
        def action() -> OffsetPosition:
            idx = self.mmap().duplicate()
            slot = self.largest_lower_bound_slot_for(idx, target_offset, IndexSearchType.KEY)
            if slot == -1:
                return OffsetPosition(self.base_offset(), 0)
            return self.parse_entry(idx, slot)
        return self.maybe_lock(self.lock, action)

    def entry(self, n: int) -> OffsetPosition:
        """The `n`th entry of the index."""
        def action() -> OffsetPosition:
            if n >= self.entries():
                raise IllegalArgumentException(f"Attempt to fetch the {n}th entry from index "
                                               f"{self.file().absolute()}, which has size {self.entries()}")
            return self.parse_entry(self.mmap(), n)
        return self.maybe_lock(self.lock, action)

    def fetch_upper_bound_offset(self, fetch_offset: OffsetPosition, fetch_size: int) -> OffsetPosition | None:
        """An entry surely past a fetch of `fetch_size` bytes from `fetch_offset` (not the smallest such), or None."""
        def action() -> OffsetPosition | None:
            idx = self.mmap().duplicate()
            slot = self.smallest_upper_bound_slot_for(idx, fetch_offset.position + fetch_size,
                                                      IndexSearchType.VALUE)
            if slot == -1:
                return None
            return self.parse_entry(idx, slot)
        return self.maybe_lock(self.lock, action)

    def append(self, offset: int, position: int) -> None:
        """Add an entry; its offset must be larger than every offset in the index.

        Raises IndexOffsetOverflowException if the offset is too far from the base offset, InvalidOffsetException if
        it is not larger than the last one."""
        with self.lock:
            if self.is_full():
                raise IllegalArgumentException(f"Attempt to append to a full index (size = {self.entries()}).")

            if self.entries() == 0 or offset > self._last_offset:
                log.debug("Adding index entry %s => %s to %s", offset, position, self.file().absolute())
                self.mmap().put_int(self.relative_offset(offset))
                self.mmap().put_int(position)
                self.increment_entries()
                self._last_offset = offset
                if self.entries() * ENTRY_SIZE != self.mmap().position():
                    raise IllegalStateException(
                        f"{self.entries()} entries but file position in index is {self.mmap().position()}")
            else:
                raise InvalidOffsetException(
                    f"Attempt to append an offset {offset} to position {self.entries()} no larger than the last "
                    f"offset appended ({self._last_offset}) to {self.file().absolute()}")

    def truncate_to(self, offset: int) -> None:
        with self.lock:
            idx = self.mmap().duplicate()
            slot = self.largest_lower_bound_slot_for(idx, offset, IndexSearchType.KEY)

            # no entry <= offset: drop everything; an entry at exactly offset: drop it and all after it;
            # otherwise drop everything after the largest entry below offset
            if slot < 0:
                new_entries = 0
            elif self._relative_offset(idx, slot) == offset - self.base_offset():
                new_entries = slot
            else:
                new_entries = slot + 1
            self._truncate_to_entries(new_entries)

    def last_offset(self) -> int:
        return self._last_offset

    def truncate(self) -> None:
        self._truncate_to_entries(0)

    def entry_size(self) -> int:
        return ENTRY_SIZE

    def parse_entry(self, buffer: MappedByteBuffer, n: int) -> OffsetPosition:
        relative_offset, physical = buffer.get_fields(_ENTRY, n * ENTRY_SIZE)  # relativeOffset and physical at once
        return OffsetPosition(self._base_offset + relative_offset, physical)

    @staticmethod
    def _relative_offset(buffer: MappedByteBuffer, n: int) -> int:
        return buffer.get_int(n * ENTRY_SIZE)

    def _truncate_to_entries(self, entries: int) -> None:
        with self.lock:
            super().truncate_to_entries0(entries)
            self._last_offset = self._last_entry().offset
            log.debug("Truncated index %s to %s entries; position is now %s and last offset is now %s",
                      self.file().absolute(), entries, self.mmap().position(), self._last_offset)

    def _last_entry(self) -> OffsetPosition:
        with self.lock:
            entries = self.entries()
            if entries == 0:
                return OffsetPosition(self.base_offset(), 0)
            return self.parse_entry(self.mmap(), entries - 1)
