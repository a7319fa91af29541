"""Port of core/src/main/scala/kafka/log/TimeIndex.scala (Kafka 1.0.2)."""

from __future__ import annotations

import os
from typing import NamedTuple

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_TIMESTAMP
from kafka_edu.v1_0_2.core.log.offset_index import AbstractIndex, IndexSearchType, InvalidOffsetException, require


class TimestampOffset(NamedTuple):
    """A time index entry: no batch before `offset` has a timestamp above `timestamp`."""

    timestamp: int
    offset: int


class TimeIndex(AbstractIndex):
    """Sparse map timestamp -> offset; each 12-byte entry is (timestamp: int64, offset - base_offset: int32)."""

    entry_size = 12

    def __init__(self, file: str | os.PathLike[str], base_offset: int, max_index_size: int = -1,
                 writable: bool = True) -> None:
        super().__init__(file, base_offset, max_index_size, writable)
        self._last_entry = self._last_entry_from_index_file()

    def is_full(self) -> bool:
        # One slot stays free for the entry written when the segment is rolled or closed.
        return self._entries >= self._max_entries - 1

    def _timestamp(self, n: int) -> int:
        return self._read(">q", n * self.entry_size)

    def _relative_offset(self, n: int) -> int:
        return self._read(">i", n * self.entry_size + 8)

    @property
    def last_entry(self) -> TimestampOffset:
        return self._last_entry

    def _last_entry_from_index_file(self) -> TimestampOffset:
        with self._lock:
            if self._entries == 0:
                return TimestampOffset(NO_TIMESTAMP, self.base_offset)
            return self.parse_entry(self._entries - 1)

    def entry(self, n: int) -> TimestampOffset:
        """The n-th entry with its offset still relative."""
        if n >= self._entries:
            raise IllegalArgumentException(f"Attempt to fetch the {n}th entry from a time index of size "
                                           f"{self._entries}.")
        return TimestampOffset(self._timestamp(n), self._relative_offset(n))

    def parse_entry(self, n: int) -> TimestampOffset:
        return TimestampOffset(self._timestamp(n), self.base_offset + self._relative_offset(n))

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> None:
        """Add (timestamp, offset) if the timestamp is a new maximum; both columns must never go down."""
        with self._lock:
            if not skip_full_check:
                require(not self.is_full(), f"Attempt to append to a full time index (size = {self._entries}).")
            # Re-adding the last entry is allowed: close() and roll() both write the segment's max timestamp.
            if self._entries != 0 and offset < self._last_entry.offset:
                raise InvalidOffsetException(
                    f"Attempt to append offset {offset} at slot {self._entries}, below the last offset "
                    f"{self._last_entry.offset} in {self.file}"
                )
            if self._entries != 0 and timestamp < self._last_entry.timestamp:
                raise IllegalStateException(
                    f"Attempt to append timestamp {timestamp} at slot {self._entries}, below the last timestamp "
                    f"{self._last_entry.timestamp} in {self.file}"
                )
            # Batches without timestamps (NO_TIMESTAMP) never get an entry.
            if timestamp > self._last_entry.timestamp:
                self._write_entry(">qi", timestamp, offset - self.base_offset)
                self._entries += 1
                self._last_entry = TimestampOffset(timestamp, offset)
                require(self._entries * self.entry_size == self._position,
                        f"{self._entries} entries but file position in index is {self._position}.")

    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The entry with the largest timestamp <= target, or (NO_TIMESTAMP, base_offset)."""
        slot = self.largest_lower_bound_slot_for(target_timestamp, IndexSearchType.KEY)
        if slot == -1:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return self.parse_entry(slot)

    def truncate(self) -> None:
        self._truncate_to_entries(0)

    def truncate_to(self, offset: int) -> None:
        """Drop every entry for an offset >= `offset`; entries are searched by their offset column."""
        with self._lock:
            slot = self.largest_lower_bound_slot_for(offset, IndexSearchType.VALUE)
            if slot < 0:
                new_entries = 0
            elif self._relative_offset(slot) == offset - self.base_offset:
                new_entries = slot
            else:
                new_entries = slot + 1
            self._truncate_to_entries(new_entries)

    def resize(self, new_size: int) -> None:
        with self._lock:
            super().resize(new_size)
            self._last_entry = self._last_entry_from_index_file()

    def _truncate_to_entries(self, entries: int) -> None:
        with self._lock:
            self._entries = entries
            self._position = entries * self.entry_size
            self._last_entry = self._last_entry_from_index_file()

    def sanity_check(self) -> None:
        last_timestamp, last_offset = self._last_entry
        first_timestamp = self._timestamp(0) if self._entries else NO_TIMESTAMP
        require(self._entries == 0 or last_timestamp >= first_timestamp,
                f"Corrupt time index found, time index file ({self.file}) has {self._entries} entries but its last "
                f"timestamp {last_timestamp} is below its first timestamp {first_timestamp}")
        require(self._entries == 0 or last_offset >= self.base_offset,
                f"Corrupt time index found, time index file ({self.file}) has {self._entries} entries but its last "
                f"offset {last_offset} is below the base offset {self.base_offset}")
        length = self.file.stat().st_size
        require(length % self.entry_size == 0,
                f"Time index file {self.file} is corrupt: {length} bytes is not a multiple of {self.entry_size}.")
