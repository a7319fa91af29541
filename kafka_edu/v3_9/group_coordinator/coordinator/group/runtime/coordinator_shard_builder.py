"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorShardBuilder.java
(Kafka 3.9): how the runtime hands a new shard its dependencies.

`with_coordinator_metrics` takes Kafka's CoordinatorMetrics, which the port has not got (no metrics registry): it is
typed Any until it has.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard import CoordinatorShard
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_timer import CoordinatorTimer
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry

S = TypeVar("S", bound=CoordinatorShard)
U = TypeVar("U")


class CoordinatorShardBuilder(ABC, Generic[S, U]):
    """Every `with_*` returns the builder, so calls chain."""

    @abstractmethod
    def with_snapshot_registry(self, snapshot_registry: SnapshotRegistry) -> CoordinatorShardBuilder[S, U]:
        """The registry behind every timeline structure of the shard."""

    @abstractmethod
    def with_log_context(self, log_context: str) -> CoordinatorShardBuilder[S, U]:
        """LogContext's prefix, as elsewhere in the port."""

    @abstractmethod
    def with_time(self, time: Time) -> CoordinatorShardBuilder[S, U]: ...

    @abstractmethod
    def with_timer(self, timer: CoordinatorTimer[None, U]) -> CoordinatorShardBuilder[S, U]: ...

    @abstractmethod
    def with_coordinator_metrics(self, coordinator_metrics: Any) -> CoordinatorShardBuilder[S, U]: ...

    @abstractmethod
    def with_topic_partition(self, topic_partition: TopicPartition) -> CoordinatorShardBuilder[S, U]: ...

    @abstractmethod
    def build(self) -> S: ...
