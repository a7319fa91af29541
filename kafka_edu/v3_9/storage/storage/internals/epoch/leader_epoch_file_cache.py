"""Port of storage/src/main/java/org/apache/kafka/storage/internals/epoch/LeaderEpochFileCache.java (Kafka 3.9): a
replica's leader epochs, each with the offset of its first record, kept in memory and in its leader-epoch-checkpoint.

An assignment is written to the checkpoint before it returns; a truncation is written in the background (by the
scheduler), so a checkpoint read right after a restart may still hold entries the log loading truncates again.
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections.abc import Callable, Iterable

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka_edu.v3_9.server_common.server.util.scheduler import Scheduler
from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import (
    LeaderEpochCheckpointFile,
)
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry

log = logging.getLogger("org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache")


class _EpochMap:
    """The TreeMap<Integer, EpochEntry> of the cache: entries by epoch, in epoch order."""

    def __init__(self, entries: Iterable[EpochEntry] = ()) -> None:
        self._keys: list[int] = []
        self._entries: dict[int, EpochEntry] = {}
        for entry in entries:
            self.put(entry.epoch, entry)

    def __len__(self) -> int:
        return len(self._keys)

    def put(self, epoch: int, entry: EpochEntry) -> None:
        if epoch not in self._entries:
            bisect.insort(self._keys, epoch)
        self._entries[epoch] = entry

    def get(self, epoch: int) -> EpochEntry | None:
        return self._entries.get(epoch)

    def remove(self, epoch: int) -> None:
        del self._entries[epoch]
        self._keys.remove(epoch)

    def clear(self) -> None:
        self._keys.clear()
        self._entries.clear()

    def values(self) -> list[EpochEntry]:
        return [self._entries[k] for k in self._keys]

    def descending_values(self) -> list[EpochEntry]:
        return [self._entries[k] for k in reversed(self._keys)]

    def first_entry(self) -> EpochEntry | None:
        return self._entries[self._keys[0]] if self._keys else None

    def last_entry(self) -> EpochEntry | None:
        return self._entries[self._keys[-1]] if self._keys else None

    def lower_key(self, epoch: int) -> int | None:
        i = bisect.bisect_left(self._keys, epoch)
        return self._keys[i - 1] if i > 0 else None

    def higher_key(self, epoch: int) -> int | None:
        i = bisect.bisect_right(self._keys, epoch)
        return self._keys[i] if i < len(self._keys) else None

    def floor_key(self, epoch: int) -> int | None:
        i = bisect.bisect_right(self._keys, epoch)
        return self._keys[i - 1] if i > 0 else None

    def lower_entry(self, epoch: int) -> EpochEntry | None:
        return self._value(self.lower_key(epoch))

    def higher_entry(self, epoch: int) -> EpochEntry | None:
        return self._value(self.higher_key(epoch))

    def floor_entry(self, epoch: int) -> EpochEntry | None:
        return self._value(self.floor_key(epoch))

    def _value(self, key: int | None) -> EpochEntry | None:
        return None if key is None else self._entries[key]


class LeaderEpochFileCache:
    """The (leader epoch => start offset) map of one replica."""

    def __init__(self, topic_partition: object, checkpoint: LeaderEpochCheckpointFile, scheduler: Scheduler,
                 epoch_entries: list[EpochEntry] | None = None) -> None:
        """`epoch_entries` is Kafka's private constructor (withCheckpoint): the entries are taken from it, not read
        from the checkpoint, and must be no older than the checkpoint's."""
        self._topic_partition = topic_partition
        self._checkpoint = checkpoint
        self._scheduler = scheduler
        self._log_prefix = f"[LeaderEpochCache {topic_partition}] "
        # Kafka's ReentrantReadWriteLock; the reads are short enough to share one reentrant lock
        self._lock = threading.RLock()
        self._epochs = _EpochMap()
        if epoch_entries is None:
            for entry in checkpoint.read():
                self._assign(entry)
        else:
            for entry in epoch_entries:
                self._epochs.put(entry.epoch, entry)

    def assign(self, epoch: int, start_offset: int) -> None:
        """Record that `epoch` starts at `start_offset`; an epoch once assigned keeps its offset, unless a smaller one
        comes. Written to the checkpoint before returning."""
        entry = EpochEntry(epoch, start_offset)
        if self._assign(entry):
            self._debug("Appended new epoch entry %s. Cache now contains %s entries.", entry, len(self._epochs))
            self._write_to_file()

    def assign_all(self, entries: list[EpochEntry]) -> None:
        """Kafka's assign(List<EpochEntry>) overload: several at once, one checkpoint write."""
        for entry in entries:
            if self._assign(entry):
                self._debug("Appended new epoch entry %s. Cache now contains %s entries.", entry, len(self._epochs))
        if entries:
            self._write_to_file()

    def _is_update_needed(self, entry: EpochEntry) -> bool:
        latest = self.latest_entry()
        if latest is None:
            return True
        return entry.epoch != latest.epoch or entry.start_offset < latest.start_offset

    def _assign(self, entry: EpochEntry) -> bool:
        if entry.epoch < 0 or entry.start_offset < 0:
            raise IllegalArgumentException(f"Received invalid partition leader epoch entry {entry}")

        # checked before taking the write lock too: most appends change nothing, and readers need not wait for them
        if not self._is_update_needed(entry):
            return False

        with self._lock:
            if self._is_update_needed(entry):
                self._maybe_truncate_non_monotonic_entries(entry)
                self._epochs.put(entry.epoch, entry)
                return True
            return False

    def _maybe_truncate_non_monotonic_entries(self, new_entry: EpochEntry) -> None:
        """Drop the entries that the new one would make non-monotonic (a later epoch or a later start offset)."""
        removed_epochs = _remove_while_matching(
            self._epochs, True,
            lambda entry: entry.epoch >= new_entry.epoch or entry.start_offset >= new_entry.start_offset)

        # removing only the entry at the same start offset is expected (nothing was written in it): no warning
        if len(removed_epochs) > 1 or (removed_epochs and removed_epochs[0].start_offset != new_entry.start_offset):
            log.warning("%sNew epoch entry %s caused truncation of conflicting entries %s. Cache now contains "
                             "%s entries.", self._log_prefix, new_entry, removed_epochs, len(self._epochs))

    def non_empty(self) -> bool:
        with self._lock:
            return len(self._epochs) > 0

    def latest_entry(self) -> EpochEntry | None:
        with self._lock:
            return self._epochs.last_entry()

    def latest_epoch(self) -> int | None:
        """The current leader epoch: the latest one with messages assigned to it, if any."""
        entry = self.latest_entry()
        return entry.epoch if entry is not None else None

    def previous_epoch(self, epoch: int | None = None) -> int | None:
        """previousEpoch(): the epoch before the latest one; previousEpoch(epoch): the epoch before `epoch`."""
        with self._lock:
            if epoch is not None:
                return self._epochs.lower_key(epoch)
            latest = self.latest_entry()
            return None if latest is None else self._epochs.lower_key(latest.epoch)

    def earliest_entry(self) -> EpochEntry | None:
        with self._lock:
            return self._epochs.first_entry()

    def previous_entry(self, epoch: int) -> EpochEntry | None:
        with self._lock:
            return self._epochs.lower_entry(epoch)

    def next_epoch(self, epoch: int) -> int | None:
        with self._lock:
            return self._epochs.higher_key(epoch)

    def epoch_entry(self, epoch: int) -> EpochEntry | None:
        with self._lock:
            return self._epochs.get(epoch)

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        """(epoch, end offset) for an OffsetsForLeaderEpoch request: the largest epoch <= `requested_epoch` and the
        start offset of the first epoch after it, or the log end offset if `requested_epoch` is the latest.
        (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) when nothing is known, so the follower falls back to its high
        watermark."""
        with self._lock:
            if requested_epoch == UNDEFINED_EPOCH:
                # a bootstrapping follower, or one on a message format without leader epochs
                epoch_and_offset = (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
            elif self.latest_epoch() is not None and self.latest_epoch() == requested_epoch:
                # the current epoch is still being written: its end is the log end (a consumer checking its committed
                # offset after a rebalance asks this; a follower has no reason to)
                epoch_and_offset = (requested_epoch, log_end_offset)
            else:
                higher_entry = self._epochs.higher_entry(requested_epoch)
                if higher_entry is None:
                    # larger than every known epoch: cannot happen, the latest epoch is the largest
                    epoch_and_offset = (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
                else:
                    floor_entry = self._epochs.floor_entry(requested_epoch)
                    if floor_entry is None:
                        # older than every known epoch: answer the first known start offset, where the log now starts,
                        # so the follower replicates from the leader's start
                        epoch_and_offset = (requested_epoch, higher_entry.start_offset)
                    else:
                        epoch_and_offset = (floor_entry.epoch, higher_entry.start_offset)

            log.debug("%sProcessed end offset request for epoch %s and returning epoch %s with end offset %s from "
                           "epoch cache of size %s", self._log_prefix, requested_epoch, epoch_and_offset[0],
                           epoch_and_offset[1], len(self._epochs))

            return epoch_and_offset

    def truncate_from_end_async_flush(self, end_offset: int) -> None:
        """Remove the entries whose start offset is >= `end_offset`; the checkpoint is written in the background."""
        with self._lock:
            removed_entries = _truncate_from_end(self._epochs, end_offset)
            if removed_entries:
                # fsync in the background: replica fetcher threads call this and must not wait on a slow disk; assign
                # still writes synchronously, so the checkpoint never misses an entry, and a stale one left by a crash
                # is truncated again while the log loads
                self._scheduler.schedule_once(f"leader-epoch-cache-flush-{self._topic_partition}",
                                              self._write_if_dir_exists)

                self._debug("Cleared entries %s from epoch cache after truncating to end offset %s, leaving %s "
                            "entries in the cache.", removed_entries, end_offset, len(self._epochs))

    def truncate_from_start_async_flush(self, start_offset: int) -> None:
        """Remove the entries before `start_offset`, keeping the last of them, moved to start at `start_offset`
        (exclusive: an entry at exactly `start_offset` stays). The checkpoint is written in the background."""
        with self._lock:
            removed_entries = _truncate_from_start(self._epochs, start_offset)
            if removed_entries:
                # in the background: deleteRecords calls this holding the log's lock, which produce requests wait on
                self._scheduler.schedule_once(f"leader-epoch-cache-flush-{self._topic_partition}",
                                              self._write_if_dir_exists)

                updated_first_entry = removed_entries[-1]
                self._debug("Cleared entries %s and rewrote first entry %s after truncating to start offset %s, "
                            "leaving %s in the cache.", removed_entries, updated_first_entry, start_offset,
                            len(self._epochs))

    def epoch_for_offset(self, offset: int) -> int | None:
        """The epoch the record at `offset` was written in, if the cache knows."""
        with self._lock:
            previous_epoch = None
            for epoch_entry in self._epochs.values():
                epoch = epoch_entry.epoch
                start_offset = epoch_entry.start_offset

                if start_offset == offset:
                    return epoch

                if start_offset > offset:
                    return previous_epoch

                previous_epoch = epoch

            return previous_epoch

    def with_checkpoint(self, leader_epoch_checkpoint: LeaderEpochCheckpointFile) -> LeaderEpochFileCache:
        """A cache with the same entries over another checkpoint file."""
        with self._lock:
            return LeaderEpochFileCache(self._topic_partition, leader_epoch_checkpoint, self._scheduler,
                                        self.epoch_entries())

    def epoch_entries_in_range(self, start_offset: int, end_offset: int) -> list[EpochEntry]:
        """The entries within [start_offset, end_offset), as the truncations to those offsets would leave them."""
        with self._lock:
            epochs_copy = _EpochMap(self._epochs.values())
            if start_offset >= 0:
                _truncate_from_start(epochs_copy, start_offset)
            _truncate_from_end(epochs_copy, end_offset)
            return epochs_copy.values()

    def clear_and_flush(self) -> None:
        with self._lock:
            self._epochs.clear()
            self._write_to_file()

    def clear(self) -> None:
        with self._lock:
            self._epochs.clear()

    def epoch_entries(self) -> list[EpochEntry]:
        with self._lock:
            return self._epochs.values()

    def epoch_with_offsets(self) -> dict[int, int]:
        """Epoch => start offset, in epoch order."""
        with self._lock:
            return {entry.epoch: entry.start_offset for entry in self._epochs.values()}

    def _write_to_file(self) -> None:
        with self._lock:
            self._checkpoint.write(self._epochs.values())

    def _write_if_dir_exists(self) -> None:
        with self._lock:
            # the entries are written under the lock: a snapshot written after it is released could overwrite a
            # newer checkpoint with older entries
            self._checkpoint.write_if_dir_exists(self._epochs.values())

    def _debug(self, msg: str, *args: object) -> None:
        log.debug("%s" + msg, self._log_prefix, *args)


def _remove_while_matching(epochs: _EpochMap, descending: bool,
                           predicate: Callable[[EpochEntry], bool]) -> list[EpochEntry]:
    """Remove entries from one end of `epochs` while they match; the removed ones, in the order visited."""
    removed_epochs: list[EpochEntry] = []
    for entry in (epochs.descending_values() if descending else epochs.values()):
        if not predicate(entry):
            return removed_epochs
        removed_epochs.append(entry)
        epochs.remove(entry.epoch)
    return removed_epochs


def _truncate_from_start(epochs: _EpochMap, start_offset: int) -> list[EpochEntry]:
    removed_entries = _remove_while_matching(epochs, False, lambda entry: entry.start_offset <= start_offset)

    if removed_entries:
        first_before_start_offset = removed_entries[-1]
        updated_first_entry = EpochEntry(first_before_start_offset.epoch, start_offset)
        epochs.put(updated_first_entry.epoch, updated_first_entry)

    return removed_entries


def _truncate_from_end(epochs: _EpochMap, end_offset: int) -> list[EpochEntry]:
    epoch_entry = epochs.last_entry()
    if end_offset >= 0 and epoch_entry is not None and epoch_entry.start_offset >= end_offset:
        return _remove_while_matching(epochs, True, lambda x: x.start_offset >= end_offset)
    return []
