"""Port of metadata/src/main/java/org/apache/kafka/controller/OffsetControlManager.java (Kafka 3.9)."""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry

log = logging.getLogger(__name__)


class OffsetControlManager:
    """The controller's offsets: what is committed, what is safe to read (not inside an open metadata
    transaction), where the active controller writes next, and the in-memory snapshots that go with them.

    The invariant the active controller relies on: there is always a timeline snapshot at the last stable offset,
    so losing the leadership can revert every manager to it.
    """

    def __init__(self, snapshot_registry: SnapshotRegistry | None = None, log_context: str = "") -> None:
        self._log_prefix = log_context
        self._snapshot_registry = snapshot_registry or SnapshotRegistry(log_context)
        self._current_snapshot_id: OffsetAndEpoch | None = None
        self._current_snapshot_name: str | None = None
        self._last_committed_offset = -1
        self._last_committed_epoch = -1
        self._last_stable_offset = -1
        self._transaction_start_offset = -1  # -1: no metadata transaction open
        self._next_write_offset = -1  # -1: not the active controller
        self._snapshot_registry.get_or_create_snapshot(-1)

    def snapshot_registry(self) -> SnapshotRegistry:
        return self._snapshot_registry

    def current_snapshot_id(self) -> OffsetAndEpoch | None:
        return self._current_snapshot_id

    def last_committed_offset(self) -> int:
        return self._last_committed_offset

    def last_committed_epoch(self) -> int:
        return self._last_committed_epoch

    def last_stable_offset(self) -> int:
        return self._last_stable_offset

    def transaction_start_offset(self) -> int:
        return self._transaction_start_offset

    def next_write_offset(self) -> int:
        return self._next_write_offset

    def active(self) -> bool:
        return self._next_write_offset != -1

    def activate(self, new_next_write_offset: int) -> None:
        if self.active():
            raise RuntimeError("Can't activate already active OffsetControlManager.")
        if new_next_write_offset < 0:
            raise RuntimeError(f"Invalid negative newNextWriteOffset {new_next_write_offset}.")
        # The active controller needs a snapshot at the last committed offset to be able to revert to it.
        self._snapshot_registry.get_or_create_snapshot(self._last_stable_offset)
        self._next_write_offset = new_next_write_offset

    def deactivate(self) -> None:
        if not self.active():
            raise RuntimeError("Can't deactivate inactive OffsetControlManager.")
        self._next_write_offset = -1
        if not self._snapshot_registry.has_snapshot(self._last_stable_offset):
            raise RuntimeError(f"Unable to reset to last stable offset {self._last_stable_offset}. No in-memory "
                               "snapshot found for this offset.")
        self._snapshot_registry.revert_to_snapshot(self._last_stable_offset)

    def handle_commit_batch(self, batch: Any) -> None:
        """The raft layer committed this batch."""
        self._last_committed_offset = batch.last_offset
        self._last_committed_epoch = batch.epoch
        self.maybe_advance_last_stable_offset()

    def handle_schedule_append(self, end_offset: int) -> None:
        """The active controller handed records ending at `end_offset` to the raft client: snapshot there, so a
        renounce can come back to any batch boundary."""
        self._next_write_offset = end_offset + 1
        self._snapshot_registry.get_or_create_snapshot(end_offset)

    def maybe_advance_last_stable_offset(self) -> None:
        if self._transaction_start_offset == -1:
            new_last_stable_offset = self._last_committed_offset
        else:
            new_last_stable_offset = min(self._transaction_start_offset - 1, self._last_committed_offset)
        if self._last_stable_offset < new_last_stable_offset:
            self._last_stable_offset = new_last_stable_offset
            # Nothing will revert past a stable offset: the snapshots before it can go.
            self._snapshot_registry.delete_snapshots_up_to(self._last_stable_offset)
            if not self.active():
                self._snapshot_registry.get_or_create_snapshot(self._last_stable_offset)

    def begin_load_snapshot(self, snapshot_id: OffsetAndEpoch) -> None:
        if self._current_snapshot_id is not None:
            raise RuntimeError(f"Can't begin reading snapshot for {snapshot_id}, because we are already reading "
                               f"{self._current_snapshot_id}")
        self._current_snapshot_id = snapshot_id
        self._current_snapshot_name = Snapshots.filename_from_snapshot_id(snapshot_id)
        log.info("%sStarting to load snapshot %s. Previous lastCommittedOffset was %d. Previous "
                 "transactionStartOffset was %d.", self._log_prefix, self._current_snapshot_name,
                 self._last_committed_offset, self._transaction_start_offset)
        self._snapshot_registry.reset()
        self._last_committed_offset = -1
        self._last_committed_epoch = -1
        self._last_stable_offset = -1
        self._transaction_start_offset = -1
        self._next_write_offset = -1

    def end_load_snapshot(self, timestamp: int) -> None:
        snapshot_id = self._current_snapshot_id
        if snapshot_id is None:
            raise RuntimeError("Can't end loading snapshot, because there is no current snapshot.")
        log.info("%sSuccessfully loaded snapshot %s.", self._log_prefix, self._current_snapshot_name)
        self._snapshot_registry.get_or_create_snapshot(snapshot_id.offset)
        self._last_committed_offset = snapshot_id.offset
        self._last_committed_epoch = snapshot_id.epoch
        self._last_stable_offset = snapshot_id.offset
        self._transaction_start_offset = -1
        self._next_write_offset = -1
        self._current_snapshot_id = None
        self._current_snapshot_name = None

    def replay_begin_transaction(self, message: Any, offset: int) -> None:
        if self._current_snapshot_id is not None:
            raise RuntimeError("BeginTransactionRecord cannot appear within a snapshot.")
        if self._transaction_start_offset != -1:
            raise RuntimeError(f"Can't replay a BeginTransactionRecord at {offset} because the transaction at "
                               f"{self._transaction_start_offset} was never closed.")
        # An abort reverts to just before the transaction.
        self._snapshot_registry.get_or_create_snapshot(offset - 1)
        self._transaction_start_offset = offset
        log.info("%sReplayed %s at offset %d.", self._log_prefix, message, offset)

    def replay_end_transaction(self, message: Any, offset: int) -> None:
        if self._current_snapshot_id is not None:
            raise RuntimeError("EndTransactionRecord cannot appear within a snapshot.")
        if self._transaction_start_offset == -1:
            raise RuntimeError(f"Can't replay an EndTransactionRecord at {offset} because there is no open "
                               "transaction.")
        self._transaction_start_offset = -1
        log.info("%sReplayed %s at offset %d.", self._log_prefix, message, offset)

    def replay_abort_transaction(self, message: Any, offset: int) -> None:
        if self._current_snapshot_id is not None:
            raise RuntimeError("AbortTransactionRecord cannot appear within a snapshot.")
        if self._transaction_start_offset == -1:
            raise RuntimeError(f"Can't replay an AbortTransactionRecord at {offset} because there is no open "
                               "transaction.")
        pre_transaction_offset = self._transaction_start_offset - 1
        self._snapshot_registry.revert_to_snapshot(pre_transaction_offset)
        self._transaction_start_offset = -1
        log.info("%sReplayed %s at offset %d. Reverted to offset %d.", self._log_prefix, message, offset,
                 pre_transaction_offset)
