"""A fake RaftClient for controller tests, in the manner of Kafka's LocalLogManager test harness: one in-memory
log shared by several controllers, leadership moved by the test, commits made by the test (or at once)."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.batch_reader import BatchReader
from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient


class ListBatchReader(BatchReader):
    def __init__(self, batches: list[Batch]) -> None:
        self._batches = list(batches)
        self._it = iter(self._batches)

    def __next__(self) -> Batch:
        return next(self._it)

    def base_offset(self) -> int:
        return self._batches[0].base_offset

    def last_offset(self) -> int | None:
        return self._batches[-1].last_offset

    def close(self) -> None:
        pass


class SharedLogData:
    """The one log: batches in order, the committed offset, the leader and epoch."""

    def __init__(self, auto_commit: bool = True) -> None:
        self.lock = threading.RLock()
        self.batches: list[Batch] = []
        self.next_offset = 0
        self.high_watermark = 0  # exclusive: offsets below it are committed
        self.leader = LeaderAndEpoch(None, 0)
        self.epoch_start_offset = 0  # where the current leader's epoch begins (its LeaderChange batch)
        self.auto_commit = auto_commit
        self.managers: list[LocalLogManager] = []

    def append(self, batch: Batch) -> None:
        with self.lock:
            self.batches.append(batch)
            self.next_offset = batch.last_offset + 1

    def commit_up_to(self, offset: int) -> None:
        """The high watermark passes `offset`: every listener sees the batches up to it."""
        with self.lock:
            self.high_watermark = max(self.high_watermark, offset + 1)
            for manager in self.managers:
                manager.deliver()

    def commit_all(self) -> None:
        self.commit_up_to(self.next_offset - 1)

    def elect(self, node_id: int) -> None:
        """A new epoch led by `node_id`: the uncommitted tail is lost (as a new Raft leader may truncate it), and
        the leader's epoch starts with a LeaderChange control batch."""
        with self.lock:
            self.batches = [b for b in self.batches if b.last_offset < self.high_watermark]
            self.next_offset = self.high_watermark
            self.leader = LeaderAndEpoch(node_id, self.leader.epoch + 1)
            self.epoch_start_offset = self.next_offset
            self.append(Batch.control(self.next_offset, self.leader.epoch, 0, 0, [("LEADER_CHANGE", node_id)]))
            if self.auto_commit:
                self.high_watermark = self.next_offset
            for manager in self.managers:
                manager.deliver()

    def data_records(self, up_to_exclusive: int | None = None) -> list[tuple[int, Any]]:
        """(offset, message) of every data record, committed or not (or below `up_to_exclusive`)."""
        with self.lock:
            out = []
            for batch in self.batches:
                for i, record in enumerate(batch.records):
                    offset = batch.base_offset + i
                    if up_to_exclusive is None or offset < up_to_exclusive:
                        out.append((offset, record.message))
            return out


class LocalLogManager(RaftClient):
    def __init__(self, node_id: int, shared: SharedLogData) -> None:
        self._node_id = node_id
        self.shared = shared
        self.listeners: list[Any] = []
        self.delivered: dict[int, int] = {}  # listener id -> next offset to hand it
        self.leader_seen: dict[int, LeaderAndEpoch] = {}
        self.resigned: list[int] = []
        with shared.lock:
            shared.managers.append(self)

    # -- delivery, as the raft thread would do it ---------------------------------------------------------------

    def deliver(self) -> None:
        with self.shared.lock:
            for listener in self.listeners:
                key = id(listener)
                start = self.delivered.get(key, 0)
                batches = [b for b in self.shared.batches
                           if b.base_offset >= start and b.last_offset < self.shared.high_watermark]
                # As KafkaRaftClient's listener contexts do: a listener hears of a new epoch before it sees any of
                # that epoch's batches, so a leader that loses its place renounces before the new one commits.
                before = [b for b in batches if b.last_offset < self.shared.epoch_start_offset]
                after = batches[len(before):]
                if before:
                    self.delivered[key] = before[-1].last_offset + 1
                    listener.handle_commit(ListBatchReader(before))
                if self.leader_seen.get(key) != self.shared.leader:
                    self.leader_seen[key] = self.shared.leader
                    listener.handle_leader_change(self.shared.leader)
                if after:
                    self.delivered[key] = after[-1].last_offset + 1
                    listener.handle_commit(ListBatchReader(after))

    # -- RaftClient ---------------------------------------------------------------------------------------------

    def register(self, listener: Any) -> None:
        with self.shared.lock:
            self.listeners.append(listener)
            self.deliver()

    def unregister(self, listener: Any) -> None:
        with self.shared.lock:
            self.listeners.remove(listener)

    def high_watermark(self) -> int | None:
        return self.shared.high_watermark

    def leader_and_epoch(self) -> LeaderAndEpoch:
        return self.shared.leader

    def node_id(self) -> int | None:
        return self._node_id

    def prepare_append(self, epoch: int, records: list[Any]) -> int:
        with self.shared.lock:
            leader = self.shared.leader
            if leader.epoch != epoch or leader.leader_id != self._node_id:
                raise NotLeaderException(f"Append failed because the given epoch {epoch} is stale or this node "
                                         f"is not the leader ({leader}).")
            batch = Batch.data(self.shared.next_offset, epoch, 0, 0, list(records))
            self.shared.append(batch)
            return batch.last_offset

    def schedule_prepared_append(self) -> None:
        if self.shared.auto_commit:
            self.shared.commit_all()

    def shutdown(self, timeout_ms: int) -> Future[None]:
        future: Future[None] = Future()
        future.set_result(None)
        return future

    def resign(self, epoch: int) -> None:
        self.resigned.append(epoch)
        with self.shared.lock:
            if self.shared.leader.epoch == epoch and self.shared.leader.leader_id == self._node_id:
                self.shared.leader = LeaderAndEpoch(None, epoch + 1)
                for manager in self.shared.managers:
                    manager.deliver()

    def create_snapshot(self, snapshot_id: Any, last_contained_log_timestamp: int) -> Any:
        return None

    def latest_snapshot_id(self) -> Any:
        return None

    def log_end_offset(self) -> int:
        return self.shared.next_offset

    def close(self) -> None:
        pass
