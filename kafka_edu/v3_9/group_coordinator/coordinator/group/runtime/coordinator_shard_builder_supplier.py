"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/
CoordinatorShardBuilderSupplier.java (Kafka 3.9): the runtime asks it for a fresh builder for each
partition it loads."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard import CoordinatorShard
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard_builder import (
    CoordinatorShardBuilder,
)

S = TypeVar("S", bound=CoordinatorShard)
U = TypeVar("U")


class CoordinatorShardBuilderSupplier(ABC, Generic[S, U]):

    @abstractmethod
    def get(self) -> CoordinatorShardBuilder[S, U]: ...
