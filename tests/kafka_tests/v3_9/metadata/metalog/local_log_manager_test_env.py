"""Port of metadata/src/test/java/org/apache/kafka/metalog/LocalLogManagerTestEnv.java and LocalLogManager.java
(Kafka 3.9): a RaftClient over one in-memory log shared by several nodes, each node reading it on its own event
queue thread. The shared log elects a leader at random when it has none; a batch counts as committed as soon as it
is appended (the high watermark is the last offset), and a node reads no further than its `max_read_offset`.

Differences of form: snapshots are RawSnapshotReaders handed in by the test (the snapshot writer, which only
snapshot-generating tests use, is not ported); `lastKRaftVersion` is kept and returned by kraft_version()."""

from __future__ import annotations

import bisect
import logging
import random
import shutil
import threading
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
from kafka_edu.v3_9.raft.raft.internals.memory_batch_reader import MemoryBatchReader
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.server_common.queue.event_queue import Event
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import SYSTEM_TIME, KafkaEventQueue
from tests.kafka_tests.test_utils import temp_dir

log = logging.getLogger("org.apache.kafka.metalog.LocalLogManager")

LONG_MAX = 2**63 - 1


class BufferAllocationException(Exception):
    """org.apache.kafka.server.common.serialization... BufferAllocationException: prepareAppend could not get a
    buffer (what throwOnNextAppend simulates)."""


@dataclass(frozen=True)
class LeaderChangeBatch:
    new_leader: LeaderAndEpoch

    def epoch(self) -> int:
        return self.new_leader.epoch

    def size(self) -> int:
        return 1


@dataclass(frozen=True)
class LocalRecordBatch:
    leader_epoch: int
    append_timestamp: int
    records: list[Any] = field(default_factory=list)

    def epoch(self) -> int:
        return self.leader_epoch

    def size(self) -> int:
        return len(self.records)


class _Runnable(Event):
    """A lambda event: like Java's, it ignores being refused by a queue that is shutting down, unless told."""

    def __init__(self, fn: Any, on_exception: Any = None) -> None:
        self.fn = fn
        self.on_exception = on_exception

    def run(self) -> None:
        self.fn()

    def handle_exception(self, e: BaseException) -> None:
        if self.on_exception is not None:
            self.on_exception(e)


def _message_size(record: Any) -> int:
    try:
        return MetadataRecordSerde().record_size(record)
    except Exception:  # a record the serde cannot write (a test's deliberately broken one)
        return 0


class SharedLogData:
    """The log every LocalLogManager of a test reads: batches by their last offset, the leader, the snapshots."""

    def __init__(self, snapshot: Any = None) -> None:
        self._lock = threading.Condition(threading.RLock())
        self.log_managers: dict[int, LocalLogManager] = {}
        self._offsets: list[int] = []  # the keys of `batches`, sorted
        self.batches: dict[int, Any] = {}
        self.snapshots: dict[int, Any] = {}
        self.leader = LeaderAndEpoch(None, 0)
        self.initial_max_read_offset = LONG_MAX
        if snapshot is not None:
            self.prev_offset = snapshot.snapshot_id().offset - 1
            self.snapshots[self.prev_offset] = snapshot
        else:
            self.prev_offset = -1

    def register_log_manager(self, log_manager: LocalLogManager) -> None:
        with self._lock:
            if log_manager.node_id() in self.log_managers:
                raise RuntimeError(f"Can't have multiple LocalLogManagers with id {log_manager.node_id()}")
            self.log_managers[log_manager.node_id()] = log_manager
            self.elect_leader_if_needed()

    def unregister_log_manager(self, log_manager: LocalLogManager) -> None:
        with self._lock:
            if self.log_managers.get(log_manager.node_id()) is not log_manager:
                raise RuntimeError(f"Log manager {log_manager.node_id()} was not found.")
            del self.log_managers[log_manager.node_id()]

    def try_append(self, node_id: int, epoch: int, batch: Any) -> int:
        with self._lock:
            if isinstance(batch, list):
                # No clock here: the base offset stands for the append time.
                batch = LocalRecordBatch(epoch, (self.prev_offset + 1) * 10, list(batch))
            if not self.leader.is_leader(node_id):
                raise NotLeaderException("Append failed because the replication is not the current leader")
            if epoch < self.leader.epoch:
                raise NotLeaderException(f"Append failed because the given epoch {epoch} is stale. Current leader "
                                         f"epoch = {self.leader.epoch}")
            if epoch > self.leader.epoch:
                raise ValueError(f"Attempt to append from epoch {epoch} which is larger than the current epoch "
                                 f"{self.leader.epoch}")
            offset = self.append(batch)
            self.elect_leader_if_needed()
            return offset

    def append(self, batch: Any) -> int:
        with self._lock:
            next_end_offset = self.prev_offset + batch.size()
            log.debug("append(batch=%s, nextEndOffset=%d)", batch, next_end_offset)
            if next_end_offset not in self.batches:
                bisect.insort(self._offsets, next_end_offset)
            self.batches[next_end_offset] = batch
            if isinstance(batch, LeaderChangeBatch):
                self.leader = batch.new_leader
            for log_manager in list(self.log_managers.values()):
                log_manager.schedule_log_check()
            self.prev_offset = next_end_offset
            return next_end_offset

    def elect_leader_if_needed(self) -> None:
        with self._lock:
            if self.leader.leader_id is not None or not self.log_managers:
                return
            next_leader_node = random.choice(list(self.log_managers))
            new_leader = LeaderAndEpoch(next_leader_node, self.leader.epoch + 1)
            log.info("Elected new leader: %s.", new_leader)
            self.append(LeaderChangeBatch(new_leader))

    def leader_and_epoch(self) -> LeaderAndEpoch:
        with self._lock:
            return self.leader

    def next_batch(self, offset: int) -> tuple[int, Any] | None:
        """The first batch whose last offset is above `offset` (TreeMap.higherEntry)."""
        with self._lock:
            index = bisect.bisect_right(self._offsets, offset)
            if index == len(self._offsets):
                return None
            key = self._offsets[index]
            return key, self.batches[key]

    def next_snapshot(self, offset: int) -> Any:
        """The latest snapshot, if `offset` is not past it."""
        with self._lock:
            if not self.snapshots:
                return None
            last = max(self.snapshots)
            return self.snapshots[last] if offset <= last else None

    def add_snapshot(self, new_snapshot: Any) -> None:
        with self._lock:
            if new_snapshot.snapshot_id().offset - 1 > self.prev_offset:
                log.error("Ignored attempt to add a snapshot %s that is greater than the latest offset %d",
                          new_snapshot, self.prev_offset)
            else:
                self.snapshots[new_snapshot.snapshot_id().offset - 1] = new_snapshot
                self._lock.notify_all()

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        with self._lock:
            return self.snapshots[max(self.snapshots)].snapshot_id() if self.snapshots else None

    def set_initial_max_read_offset(self, initial_max_read_offset: int) -> SharedLogData:
        self.initial_max_read_offset = initial_max_read_offset
        return self

    def all_records(self) -> list[Any]:
        with self._lock:
            records: list[Any] = []
            for key in self._offsets:
                batch = self.batches[key]
                if isinstance(batch, LocalRecordBatch):
                    records.extend(batch.records)
            return records


class _MetaLogListenerData:
    def __init__(self, listener: RaftClient.Listener) -> None:
        self.offset = -1
        self.notified_leader = LeaderAndEpoch(None, 0)
        self.listener = listener

    def handle_commit(self, reader: MemoryBatchReader) -> None:
        self.listener.handle_commit(reader)
        self.offset = reader.last_offset()

    def handle_load_snapshot(self, reader: Any) -> None:
        self.listener.handle_load_snapshot(reader)
        self.offset = reader.last_contained_log_offset()

    def handle_leader_change(self, offset: int, leader: LeaderAndEpoch) -> None:
        # As KRaft does: first the new epoch with no leader, then its leader.
        self.listener.handle_leader_change(LeaderAndEpoch(None, leader.epoch))
        self.listener.handle_leader_change(leader)
        self.notified_leader = leader
        self.offset = offset

    def begin_shutdown(self) -> None:
        self.listener.begin_shutdown()


class _NoOpCloseListener:
    def on_close(self, closeable: Any) -> None:
        pass


class LocalLogManager(RaftClient):
    def __init__(self, log_context: str, node_id: int, shared: SharedLogData, thread_name_prefix: str,
                 last_kraft_version: int = 0) -> None:
        self.log = logging.LoggerAdapter(log, {"log_context": log_context})
        self._node_id = node_id
        self.shared = shared
        self.max_read_offset = shared.initial_max_read_offset
        self._shutdown = False
        self.listeners: dict[int, _MetaLogListenerData] = {}
        self.leader = LeaderAndEpoch(None, 0)
        self._throw_on_next_append = False
        self.last_kraft_version = last_kraft_version
        self.event_queue = KafkaEventQueue(SYSTEM_TIME, log_context, thread_name_prefix,
                                           _Runnable(self._shutdown_event))
        shared.register_log_manager(self)

    def schedule_log_check(self) -> None:
        self.event_queue.append(_Runnable(self._log_check))

    def _log_check(self) -> None:
        try:
            for listener_data in list(self.listeners.values()):
                while True:
                    # A node that is not the leader first loads the snapshot it has not read.
                    if not listener_data.notified_leader.is_leader(self._node_id):
                        snapshot = self.shared.next_snapshot(listener_data.offset)
                        if snapshot is not None:
                            listener_data.handle_load_snapshot(RecordsSnapshotReader.of(snapshot,
                                                                                        MetadataRecordSerde()))
                    entry = self.shared.next_batch(listener_data.offset)
                    if entry is None:
                        break
                    entry_offset, batch = entry
                    if entry_offset > self.max_read_offset:
                        break
                    if isinstance(batch, LeaderChangeBatch):
                        shared_leader = self.shared.leader_and_epoch()
                        # Only a leader change that is still the current one is told to the listener.
                        if batch.new_leader == shared_leader:
                            if batch.new_leader.epoch > self.leader.epoch:
                                self.leader = batch.new_leader
                            listener_data.handle_leader_change(entry_offset, batch.new_leader)
                        else:
                            listener_data.offset = entry_offset
                    elif isinstance(batch, LocalRecordBatch):
                        listener_data.handle_commit(MemoryBatchReader.of([Batch.data(
                            entry_offset - len(batch.records) + 1, batch.leader_epoch, batch.append_timestamp,
                            sum(_message_size(r) for r in batch.records), batch.records)], _NoOpCloseListener()))
        except Exception as e:
            self.log.error("Exception while handling log check", exc_info=e)

    def begin_shutdown(self) -> None:
        self.event_queue.begin_shutdown("beginShutdown")

    def _shutdown_event(self) -> None:
        try:
            if not self._shutdown:
                self.resign(self.leader.epoch)
                for listener_data in self.listeners.values():
                    listener_data.begin_shutdown()
                self.shared.unregister_log_manager(self)
        except Exception as e:
            self.log.error("Unexpected exception while sending beginShutdown callbacks", exc_info=e)
        self._shutdown = True

    def close(self) -> None:
        self.begin_shutdown()
        self.event_queue.close()

    def shutdown(self, timeout_ms: int) -> Future[None]:
        future: Future[None] = Future()
        try:
            self.close()
            future.set_result(None)
        except BaseException as e:
            future.set_exception(e)
        return future

    def _run_and_wait(self, fn: Any) -> Any:
        future: Future = Future()

        def run() -> None:
            try:
                future.set_result(fn())
            except BaseException as e:
                future.set_exception(e)

        self.event_queue.append(_Runnable(run, lambda e: future.done() or future.set_exception(e)))
        return future.result()

    def register(self, listener: RaftClient.Listener) -> None:
        def run() -> None:
            if self._shutdown:
                self.log.info("Node %d: can't register because local log manager has already been shut down.",
                              self._node_id)
                return
            if id(listener) not in self.listeners:
                self.listeners[id(listener)] = _MetaLogListenerData(listener)
            self.shared.elect_leader_if_needed()
            self.schedule_log_check()

        self._run_and_wait(run)

    def unregister(self, listener: RaftClient.Listener) -> None:
        def run() -> None:
            if not self._shutdown:
                self.listeners.pop(id(listener), None)

        self.event_queue.append(_Runnable(run))

    def high_watermark(self) -> int | None:
        prev_offset = self.shared.prev_offset
        return prev_offset if prev_offset > 0 else None

    def prepare_append(self, epoch: int, records: list[Any]) -> int:
        if not records:
            raise ValueError("Batch cannot be empty")
        if self._throw_on_next_append:
            self._throw_on_next_append = False
            raise BufferAllocationException("Test asked to fail the next prepareAppend")
        return self.shared.try_append(self._node_id, epoch, list(records))

    def schedule_prepared_append(self) -> None:
        pass

    def resign(self, epoch: int) -> None:
        if epoch < 0:
            raise ValueError(f"Attempt to resign from an invalid negative epoch {epoch}")
        current_epoch = self.leader_and_epoch().epoch
        if epoch > current_epoch:
            raise ValueError(f"Attempt to resign from epoch {epoch} which is larger than the current epoch "
                             f"{current_epoch}")
        if epoch < current_epoch:
            return  # a leader change this node has not heard of yet: already done
        try:
            self.shared.try_append(self._node_id, current_epoch,
                                   LeaderChangeBatch(LeaderAndEpoch(None, current_epoch + 1)))
        except NotLeaderException:
            pass  # the epoch moved on already

    def create_snapshot(self, snapshot_id: OffsetAndEpoch, last_contained_log_timestamp: int) -> Any:
        raise NotImplementedError("the LocalLogManager's snapshot writer is not ported")

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return self.shared.latest_snapshot_id()

    def log_end_offset(self) -> int:
        return self.shared.prev_offset + 1

    def leader_and_epoch(self) -> LeaderAndEpoch:
        return self.leader

    def node_id(self) -> int | None:
        return self._node_id

    def listener_list(self) -> list[RaftClient.Listener]:
        return self._run_and_wait(lambda: [data.listener for data in self.listeners.values()])

    def set_max_read_offset(self, max_read_offset: int) -> None:
        def run() -> None:
            self.max_read_offset = max_read_offset
            self.schedule_log_check()

        self._run_and_wait(run)

    def throw_on_next_append(self) -> None:
        self._throw_on_next_append = True

    def kraft_version(self) -> int:
        return self.last_kraft_version


class LocalLogManagerTestEnv:
    """Several LocalLogManagers over one SharedLogData, with a random cluster id; a context manager."""

    class Builder:
        def __init__(self, num_managers: int) -> None:
            self.num_managers = num_managers
            self.snapshot_reader: Any = None
            self.shared_log_data_initializer: Any = lambda shared: None
            self.last_kraft_version = 0

        def set_snapshot_reader(self, snapshot_reader: Any) -> LocalLogManagerTestEnv.Builder:
            self.snapshot_reader = snapshot_reader
            return self

        def set_shared_log_data_initializer(self, initializer: Any) -> LocalLogManagerTestEnv.Builder:
            self.shared_log_data_initializer = initializer
            return self

        def set_last_kraft_version(self, kraft_version: int) -> LocalLogManagerTestEnv.Builder:
            self.last_kraft_version = kraft_version
            return self

        def build(self) -> LocalLogManagerTestEnv:
            return LocalLogManagerTestEnv(self.num_managers, self.snapshot_reader, self.shared_log_data_initializer,
                                          self.last_kraft_version)

    def __init__(self, num_managers: int, snapshot_reader: Any, shared_log_data_initializer: Any,
                 last_kraft_version: int) -> None:
        self._cluster_id = str(uuid.uuid4())
        self.dir = temp_dir()
        self.shared = SharedLogData(snapshot_reader)
        shared_log_data_initializer(self.shared)
        new_log_managers: list[LocalLogManager] = []
        try:
            for node_id in range(num_managers):
                new_log_managers.append(LocalLogManager(f"[LocalLogManager {node_id}] ", node_id, self.shared,
                                                        f"LocalLogManager-{node_id}_", last_kraft_version))
        except BaseException:
            for log_manager in new_log_managers:
                log_manager.close()
            raise
        self._log_managers = new_log_managers

    def all_records(self) -> list[Any]:
        return self.shared.all_records()

    def append_initial_records(self, records: list[Any]) -> None:
        """A log that existed before the controllers start: a leaderless epoch, one batch, then node 0's epoch."""
        initial_leader_epoch = 1
        self.shared.append(LeaderChangeBatch(LeaderAndEpoch(None, initial_leader_epoch + 1)))
        self.shared.append(LocalRecordBatch(initial_leader_epoch + 1, 0, list(records)))
        self.shared.append(LeaderChangeBatch(LeaderAndEpoch(0, initial_leader_epoch + 2)))

    def cluster_id(self) -> str:
        return self._cluster_id

    def log_managers(self) -> list[LocalLogManager]:
        return self._log_managers

    def active_log_manager(self) -> LocalLogManager | None:
        leader = self.shared.leader_and_epoch().leader_id
        return None if leader is None else self._log_managers[leader]

    def leader_and_epoch(self) -> LeaderAndEpoch:
        return self.shared.leader_and_epoch()

    def close(self) -> None:
        for log_manager in self._log_managers:
            log_manager.begin_shutdown()
        for log_manager in self._log_managers:
            log_manager.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LocalLogManagerTestEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
