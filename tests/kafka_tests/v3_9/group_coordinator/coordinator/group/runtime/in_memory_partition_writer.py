"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/InMemoryPartitionWriter.java
(Kafka 3.9).

A PartitionWriter for the runtime's tests: each partition is a list of the appended batches, an end offset counting
records and a committed offset that moves on `commit` (or on every append with `auto_commit`), telling the listeners.
"""

from __future__ import annotations

import threading

from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.partition_writer import Listener, PartitionWriter
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard


class _PartitionState:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.listeners: list[Listener] = []
        self.entries: list[MemoryRecords] = []
        self.end_offset = 0
        self.committed_offset = 0


class InMemoryPartitionWriter(PartitionWriter):

    def __init__(self, auto_commit: bool) -> None:
        self._auto_commit = auto_commit
        self._partitions: dict[TopicPartition, _PartitionState] = {}
        self._partitions_lock = threading.Lock()  # Java's ConcurrentHashMap.computeIfAbsent

    def _partition_state(self, tp: TopicPartition) -> _PartitionState:
        with self._partitions_lock:
            state = self._partitions.get(tp)
            if state is None:
                state = _PartitionState()
                self._partitions[tp] = state
            return state

    def register_listener(self, tp: TopicPartition, listener: Listener) -> None:
        state = self._partition_state(tp)
        with state.lock:
            state.listeners.append(listener)

    def deregister_listener(self, tp: TopicPartition, listener: Listener) -> None:
        state = self._partition_state(tp)
        with state.lock:
            if listener in state.listeners:
                state.listeners.remove(listener)

    def config(self, tp: TopicPartition) -> LogConfig:
        return LogConfig({})

    def append(self, tp: TopicPartition, verification_guard: VerificationGuard, batch: MemoryRecords) -> int:
        state = self._partition_state(tp)
        with state.lock:
            # a copy: the runtime reuses its buffer for the next batch
            buffer = bytearray()
            first_batch = batch.first_batch()
            if first_batch is not None:
                first_batch.write_to(buffer)
            state.entries.append(MemoryRecords.readable_records(buffer))
            state.end_offset += sum(1 for _ in batch.records())
            if self._auto_commit:
                self.commit(tp, state.end_offset)
            return state.end_offset

    def maybe_start_transaction_verification(self, tp: TopicPartition, transactional_id: str, producer_id: int,
                                             producer_epoch: int,
                                             api_version: int) -> CompletableFuture[VerificationGuard]:
        return CompletableFuture.completed_future(VerificationGuard())

    def commit(self, tp: TopicPartition, offset: int | None = None) -> None:
        """Moves the committed offset to `offset`, or to the end offset (Java's commit(tp))."""
        state = self._partition_state(tp)
        with state.lock:
            state.committed_offset = state.end_offset if offset is None else offset
            for listener in state.listeners:
                listener.on_high_watermark_updated(tp, state.committed_offset)

    def entries(self, tp: TopicPartition) -> list[MemoryRecords]:
        state = self._partition_state(tp)
        with state.lock:
            return list(state.entries)
