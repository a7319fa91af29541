"""Port of server-common/src/main/java/org/apache/kafka/timeline/SnapshotRegistry.java (Kafka 3.9)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from kafka_edu.v3_9.server_common.timeline.revertable import Revertable
from kafka_edu.v3_9.server_common.timeline.snapshot import Snapshot

log = logging.getLogger(__name__)

LATEST_EPOCH = 2**63 - 1  # Long.MAX_VALUE: "the current state", newer than any snapshot


class SnapshotRegistry:
    """The snapshots of every timeline structure of one owner (the controller), oldest first.

    Few snapshots live at once (the controller keeps one per uncommitted write), so plain lists and a ring do.
    """

    LATEST_EPOCH = LATEST_EPOCH

    class SnapshotIterator:
        """Oldest first; `remove()` deletes the snapshot `next()` returned last."""

        def __init__(self, registry: SnapshotRegistry, start: Snapshot) -> None:
            self._registry = registry
            self._cur = start
            self._result: Snapshot | None = None

        def has_next(self) -> bool:
            return self._cur is not self._registry._head

        def next(self) -> Snapshot:
            self._result = self._cur
            self._cur = self._cur.next()
            return self._result

        def remove(self) -> None:
            if self._result is None:
                raise RuntimeError("IllegalStateException: nothing to remove")
            self._registry.delete_snapshot(self._result)
            self._result = None

        def __iter__(self) -> Iterator[Snapshot]:
            while self.has_next():
                yield self.next()

    class ReverseSnapshotIterator:
        """Newest first."""

        def __init__(self, registry: SnapshotRegistry) -> None:
            self._head = registry._head
            self._cur = registry._head.prev()

        def has_next(self) -> bool:
            return self._cur is not self._head

        def next(self) -> Snapshot:
            result = self._cur
            self._cur = self._cur.prev()
            return result

    def __init__(self, log_context: str = "") -> None:
        self._log_prefix = log_context
        self._snapshots: dict[int, Snapshot] = {}
        self._head = Snapshot(-(2**63))  # the ring's sentinel, older than every snapshot
        self._revertables: list[Revertable] = []

    def iterator(self, start: int | Snapshot | None = None) -> SnapshotRegistry.SnapshotIterator:
        """From the oldest snapshot, or from the given epoch or snapshot, to the newest."""
        if start is None:
            return SnapshotRegistry.SnapshotIterator(self, self._head.next())
        if isinstance(start, int):
            start = self.get_snapshot(start)
        return SnapshotRegistry.SnapshotIterator(self, start)

    def reverse_iterator(self) -> SnapshotRegistry.ReverseSnapshotIterator:
        return SnapshotRegistry.ReverseSnapshotIterator(self)

    def epochs_list(self) -> list[int]:
        return [s.epoch() for s in self.iterator()]

    def has_snapshot(self, epoch: int) -> bool:
        return epoch in self._snapshots

    def _epochs_to_string(self) -> str:
        return ", ".join(str(e) for e in self.epochs_list())

    def get_snapshot(self, epoch: int) -> Snapshot:
        snapshot = self._snapshots.get(epoch)
        if snapshot is None:
            raise RuntimeError(f"No in-memory snapshot for epoch {epoch}. Snapshot epochs are: "
                               f"{self._epochs_to_string()}")
        return snapshot

    def get_or_create_snapshot(self, epoch: int) -> Snapshot:
        """A snapshot at `epoch`: the newest one if it already has that epoch; epochs only go forward."""
        last = self._head.prev()
        if last.epoch() > epoch:
            raise RuntimeError(f"Can't create a new in-memory snapshot at epoch {epoch} because there is already "
                               f"a snapshot with epoch {last.epoch()}. Snapshot epochs are "
                               f"{self._epochs_to_string()}")
        if last.epoch() == epoch:
            return last
        snapshot = Snapshot(epoch)
        last.append_next(snapshot)
        self._snapshots[epoch] = snapshot
        log.debug("%sCreating in-memory snapshot %d", self._log_prefix, epoch)
        return snapshot

    def revert_to_snapshot(self, target_epoch: int) -> None:
        """Every structure goes back to its state at `target_epoch`; the snapshots after it are dropped."""
        log.debug("%sReverting to in-memory snapshot %d", self._log_prefix, target_epoch)
        target = self.get_snapshot(target_epoch)
        iterator = self.iterator(target)
        iterator.next()
        while iterator.has_next():
            snapshot = iterator.next()
            log.debug("%sDeleting in-memory snapshot %d because we are reverting to %d", self._log_prefix,
                      snapshot.epoch(), target_epoch)
            iterator.remove()
        target.handle_revert()

    def delete_snapshot(self, target: int | Snapshot) -> None:
        """Drop one snapshot; its deltas fold into the snapshot before it, which still needs them to revert."""
        snapshot = self.get_snapshot(target) if isinstance(target, int) else target
        prev = snapshot.prev()
        if prev is not self._head:
            prev.merge_from(snapshot)
        else:
            snapshot.erase()
        log.debug("%sDeleting in-memory snapshot %d", self._log_prefix, snapshot.epoch())
        if self._snapshots.get(snapshot.epoch()) is snapshot:
            del self._snapshots[snapshot.epoch()]

    def delete_snapshots_up_to(self, target_epoch: int) -> None:
        """Drop every snapshot older than `target_epoch` (the committed past no longer needs reverting to)."""
        iterator = self.iterator()
        while iterator.has_next():
            snapshot = iterator.next()
            if snapshot.epoch() >= target_epoch:
                return
            iterator.remove()

    def latest_epoch(self) -> int:
        return self._head.prev().epoch()

    def register(self, revertable: Revertable) -> None:
        self._revertables.append(revertable)

    def reset(self) -> None:
        """Drop every snapshot and empty every registered structure."""
        self.delete_snapshots_up_to(LATEST_EPOCH)
        for revertable in self._revertables:
            revertable.reset()
