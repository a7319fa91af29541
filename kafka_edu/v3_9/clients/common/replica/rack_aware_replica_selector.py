"""Port of clients/src/main/java/org/apache/kafka/common/replica/RackAwareReplicaSelector.java (Kafka 3.9): prefer
the leader, else the most caught-up replica in the client's rack."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.replica.client_metadata import ClientMetadata
from kafka_edu.v3_9.clients.common.replica.partition_view import PartitionView
from kafka_edu.v3_9.clients.common.replica.replica_selector import ReplicaSelector
from kafka_edu.v3_9.clients.common.replica.replica_view import ReplicaView
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition


class RackAwareReplicaSelector(ReplicaSelector):
    def select(self, topic_partition: TopicPartition, client_metadata: ClientMetadata,
               partition_view: PartitionView) -> ReplicaView | None:
        rack_id = client_metadata.rack_id()
        if rack_id:
            same_rack_replicas = {replica_info for replica_info in partition_view.replicas()
                                  if rack_id == replica_info.endpoint().rack}
            if not same_rack_replicas:
                return partition_view.leader()
            if partition_view.leader() in same_rack_replicas:
                # Use the leader if it's in this rack
                return partition_view.leader()
            # Otherwise, get the most caught-up replica
            return max(same_rack_replicas, key=ReplicaView.comparator_key)
        return partition_view.leader()
