"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java (Kafka 3.9): the map from
timestamps to offsets of a segment; an entry (T, O), 8 bytes of timestamp and 4 of relative offset, says every message
with a timestamp above T comes at or after O. Timestamps only grow along the file."""

from __future__ import annotations

import logging
import os
import struct

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidOffsetException,
)
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_TIMESTAMP
from kafka_edu.v3_9.storage.storage.internals.log.abstract_index import AbstractIndex, MappedByteBuffer
from kafka_edu.v3_9.storage.storage.internals.log.corrupt_index_exception import CorruptIndexException
from kafka_edu.v3_9.storage.storage.internals.log.index_search_type import IndexSearchType
from kafka_edu.v3_9.storage.storage.internals.log.timestamp_offset import TimestampOffset

log = logging.getLogger("org.apache.kafka.storage.internals.log.TimeIndex")

ENTRY_SIZE = 12
_ENTRY = struct.Struct(">qi")  # timestamp, relative offset


class TimeIndex(AbstractIndex):
    """The last slot is kept free for the entry written when the segment rolls (see is_full)."""

    def __init__(self, file: str | os.PathLike[str], base_offset: int, max_index_size: int,
                 writable: bool = True) -> None:
        super().__init__(file, base_offset, max_index_size, writable)

        self._last_entry = self._last_entry_from_index_file()

        log.debug("Loaded index file %s with maxEntries = %s, maxIndexSize = %s, entries = %s, lastOffset = %s, "
                  "file position = %s", self.file().absolute(), self.max_entries(), max_index_size, self.entries(),
                  self._last_entry.offset, self.mmap().position())

    def sanity_check(self) -> None:
        entry = self.last_entry()
        last_timestamp = entry.timestamp
        last_offset = entry.offset
        if self.entries() != 0 and last_timestamp < self._timestamp(self.mmap(), 0):
            raise CorruptIndexException(
                f"Corrupt time index found, time index file ({self.file().absolute()}) has non-zero size but the "
                f"last timestamp is {last_timestamp} which is less than the first timestamp "
                f"{self._timestamp(self.mmap(), 0)}")
        if self.entries() != 0 and last_offset < self.base_offset():
            raise CorruptIndexException(
                f"Corrupt time index found, time index file ({self.file().absolute()}) has non-zero size but the "
                f"last offset is {last_offset} which is less than the first offset {self.base_offset()}")
        if self.length() % ENTRY_SIZE != 0:
            raise CorruptIndexException(
                f"Time index file {self.file().absolute()} is corrupt, found {self.length()} bytes which is "
                f"neither positive nor a multiple of {ENTRY_SIZE}")

    def truncate_to(self, offset: int) -> None:
        with self.lock:
            idx = self.mmap().duplicate()
            slot = self.largest_lower_bound_slot_for(idx, offset, IndexSearchType.VALUE)

            # no entry <= offset: drop everything; an entry at exactly offset: drop it and all after it;
            # otherwise drop everything after the largest entry below offset
            if slot < 0:
                new_entries = 0
            elif self._relative_offset(idx, slot) == offset - self.base_offset():
                new_entries = slot
            else:
                new_entries = slot + 1

            self._truncate_to_entries(new_entries)

    def is_full(self) -> bool:
        # one slot stays free for the entry maybe_append(skip_full_check=True) writes on roll
        return self.entries() >= self.max_entries() - 1

    def last_entry(self) -> TimestampOffset:
        return self._last_entry

    def entry(self, n: int) -> TimestampOffset:
        """The `n`th entry of the index."""
        def action() -> TimestampOffset:
            if n >= self.entries():
                raise IllegalArgumentException(f"Attempt to fetch the {n}th entry from time index "
                                               f"{self.file().absolute()} which has size {self.entries()}")
            return self.parse_entry(self.mmap(), n)
        return self.maybe_lock(self.lock, action)

    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The entry of the largest timestamp <= `target_timestamp`, or (NO_TIMESTAMP, base offset)."""
        def action() -> TimestampOffset:
            idx = self.mmap().duplicate()
            slot = self.largest_lower_bound_slot_for(idx, target_timestamp, IndexSearchType.KEY)
            if slot == -1:
                return TimestampOffset(NO_TIMESTAMP, self.base_offset())
            return self.parse_entry(idx, slot)
        return self.maybe_lock(self.lock, action)

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> None:
        """Append (timestamp, offset) if the timestamp is larger than the last one; `skip_full_check` only when the
        segment rolls or closes, which may use the reserved last slot."""
        with self.lock:
            if not skip_full_check and self.is_full():
                raise IllegalArgumentException(f"Attempt to append to a full time index (size = {self.entries()}).")

            # an offset equal to the last one is allowed: closing or rolling a segment appends its last entry again
            if self.entries() != 0 and offset < self._last_entry.offset:
                raise InvalidOffsetException(
                    f"Attempt to append an offset ({offset}) to slot {self.entries()} no larger than the last offset "
                    f"appended ({self._last_entry.offset}) to {self.file().absolute()}")
            if self.entries() != 0 and timestamp < self._last_entry.timestamp:
                raise IllegalStateException(
                    f"Attempt to append a timestamp ({timestamp}) to slot {self.entries()} no larger than the last "
                    f"timestamp appended ({self._last_entry.timestamp}) to {self.file().absolute()}")

            # only a larger timestamp is indexed (v0 messages, all NO_TIMESTAMP, leave the index empty)
            if timestamp > self._last_entry.timestamp:
                log.debug("Adding index entry %s => %s to %s.", timestamp, offset, self.file().absolute())
                mmap = self.mmap()
                mmap.put_long(timestamp)
                mmap.put_int(self.relative_offset(offset))
                self.increment_entries()
                self._last_entry = TimestampOffset(timestamp, offset)
                if self.entries() * ENTRY_SIZE != mmap.position():
                    raise IllegalStateException(
                        f"{self.entries()} entries but file position in index is {mmap.position()}")

    def resize(self, new_size: int) -> bool:
        with self.lock:
            if super().resize(new_size):
                self._last_entry = self._last_entry_from_index_file()
                return True
            return False

    def truncate(self) -> None:
        self._truncate_to_entries(0)

    def entry_size(self) -> int:
        return ENTRY_SIZE

    def parse_entry(self, buffer: MappedByteBuffer, n: int) -> TimestampOffset:
        timestamp, relative_offset = buffer.get_fields(_ENTRY, n * ENTRY_SIZE)  # timestamp and relativeOffset at once
        return TimestampOffset(timestamp, self._base_offset + relative_offset)

    @staticmethod
    def _timestamp(buffer: MappedByteBuffer, n: int) -> int:
        return buffer.get_long(n * ENTRY_SIZE)

    @staticmethod
    def _relative_offset(buffer: MappedByteBuffer, n: int) -> int:
        return buffer.get_int(n * ENTRY_SIZE + 8)

    def _last_entry_from_index_file(self) -> TimestampOffset:
        """Read the last entry from the file (through the mapping)."""
        with self.lock:
            entries = self.entries()
            if entries == 0:
                return TimestampOffset(NO_TIMESTAMP, self.base_offset())
            return self.parse_entry(self.mmap(), entries - 1)

    def _truncate_to_entries(self, entries: int) -> None:
        with self.lock:
            super().truncate_to_entries0(entries)
            self._last_entry = self._last_entry_from_index_file()
            log.debug("Truncated index %s to %s entries; position is now %s and last entry is now %s",
                      self.file().absolute(), entries, self.mmap().position(), self._last_entry.offset)
