"""Port of the shard test doubles nested in
group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/CoordinatorRuntimeTest.java (Kafka 3.9):
MockCoordinatorShard (a shard keeping the records it replays in timeline sets), its builder and builder supplier.

SnapshottableCoordinatorTest uses the shard; the builders are for the runtime's tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard import CoordinatorShard
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard_builder import (
    CoordinatorShardBuilder,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard_builder_supplier import (
    CoordinatorShardBuilderSupplier,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_timer import CoordinatorTimer
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_hash_set import TimelineHashSet


@dataclass(frozen=True)
class RecordAndMetadata:
    """MockCoordinatorShard.RecordAndMetadata: RecordAndMetadata(offset, record) is outside any transaction."""

    offset: int
    producer_id: int
    producer_epoch: int
    record: str

    @staticmethod
    def of(offset: int, record: str) -> RecordAndMetadata:
        return RecordAndMetadata(offset, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, record)

    def __repr__(self) -> str:
        return (f"RecordAndMetadata(offset={self.offset}, producerId={self.producer_id}, "
                f"producerEpoch={self.producer_epoch}, record='{self.record[:10]}')")


class MockCoordinatorShard(CoordinatorShard[str]):
    """Replayed records land in `records`, or per producer in `pending_records` until the transaction ends."""

    RecordAndMetadata = RecordAndMetadata

    def __init__(self, snapshot_registry: SnapshotRegistry, timer: CoordinatorTimer[None, str]) -> None:
        self._snapshot_registry = snapshot_registry
        self._records: TimelineHashSet[RecordAndMetadata] = TimelineHashSet(snapshot_registry, 0)
        self._pending_records: TimelineHashMap[int, TimelineHashSet[RecordAndMetadata]] = TimelineHashMap(
            snapshot_registry, 0)
        self._timer = timer

    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: str) -> None:
        record_and_metadata = RecordAndMetadata(offset, producer_id, producer_epoch, record)
        if producer_id == NO_PRODUCER_ID:
            self._records.add(record_and_metadata)
        else:
            pending = self._pending_records.get(producer_id)
            if pending is None:
                pending = TimelineHashSet(self._snapshot_registry, 0)
                self._pending_records.put(producer_id, pending)
            pending.add(record_and_metadata)

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        if result == TransactionResult.COMMIT:
            pending = self._pending_records.remove(producer_id)
            if pending is None:
                return
            self._records.add_all(pending)
        else:
            self._pending_records.remove(producer_id)

    def pending_records(self, producer_id: int) -> frozenset[str]:
        pending = self._pending_records.get(producer_id)
        if pending is None:
            return frozenset()
        return frozenset(r.record for r in pending)

    def records(self) -> frozenset[str]:
        return frozenset(r.record for r in self._records)

    def full_records(self) -> list[RecordAndMetadata]:
        return sorted(self._records, key=lambda r: r.offset)

    def timer(self) -> CoordinatorTimer[None, str]:
        return self._timer


class MockCoordinatorShardBuilder(CoordinatorShardBuilder[MockCoordinatorShard, str]):
    """Keeps only what the mock shard needs: the registry and the timer."""

    def __init__(self) -> None:
        self._snapshot_registry: SnapshotRegistry | None = None
        self._timer: CoordinatorTimer[None, str] | None = None

    def with_snapshot_registry(self, snapshot_registry: SnapshotRegistry) -> MockCoordinatorShardBuilder:
        self._snapshot_registry = snapshot_registry
        return self

    def with_log_context(self, log_context: str) -> MockCoordinatorShardBuilder:
        return self

    def with_time(self, time: Time) -> MockCoordinatorShardBuilder:
        return self

    def with_timer(self, timer: CoordinatorTimer[None, str]) -> MockCoordinatorShardBuilder:
        self._timer = timer
        return self

    def with_coordinator_metrics(self, coordinator_metrics: Any) -> MockCoordinatorShardBuilder:
        return self

    def with_topic_partition(self, topic_partition: TopicPartition) -> MockCoordinatorShardBuilder:
        return self

    def build(self) -> MockCoordinatorShard:
        if self._snapshot_registry is None or self._timer is None:
            raise TypeError("snapshot registry and timer are required")  # Java's Objects.requireNonNull
        return MockCoordinatorShard(self._snapshot_registry, self._timer)


class MockCoordinatorShardBuilderSupplier(CoordinatorShardBuilderSupplier[MockCoordinatorShard, str]):
    def get(self) -> MockCoordinatorShardBuilder:
        return MockCoordinatorShardBuilder()
