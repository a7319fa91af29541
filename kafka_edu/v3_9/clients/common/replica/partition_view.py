"""Port of clients/src/main/java/org/apache/kafka/common/replica/PartitionView.java (Kafka 3.9): a partition's
replicas and leader as a replica selector sees them."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.replica.replica_view import ReplicaView


class PartitionView:
    def replicas(self) -> frozenset[ReplicaView]:
        raise NotImplementedError

    def leader(self) -> ReplicaView:
        raise NotImplementedError


@dataclass(frozen=True)
class DefaultPartitionView(PartitionView):
    _replicas: frozenset[ReplicaView]
    _leader: ReplicaView

    def replicas(self) -> frozenset[ReplicaView]:
        return self._replicas

    def leader(self) -> ReplicaView:
        return self._leader
