"""Port of the Subscription and Assignment classes of
clients/src/main/java/org/apache/kafka/clients/consumer/ConsumerPartitionAssignor.java (Kafka 3.9).

Only the two value classes ConsumerProtocol (de)serializes are here; the assignor interface itself is not ported.
Java's ByteBuffer user data is `bytes | None`; Optional fields are `X | None`.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

DEFAULT_GENERATION = -1


class Subscription:
    """What a consumer sends in its JoinGroup metadata: its topics, what it owns now, its generation and rack."""

    def __init__(self, topics: Sequence[str], user_data: bytes | None = None,
                 owned_partitions: Sequence[TopicPartition] = (), generation_id: int = DEFAULT_GENERATION,
                 rack_id: str | None = None) -> None:
        self._topics = list(topics)
        self._user_data = user_data
        self._owned_partitions = list(owned_partitions)
        self._group_instance_id: str | None = None
        # a negative generation means the consumer has none
        self._generation_id = None if generation_id < 0 else generation_id
        self._rack_id = rack_id

    def topics(self) -> list[str]:
        return self._topics

    def user_data(self) -> bytes | None:
        return self._user_data

    def owned_partitions(self) -> list[TopicPartition]:
        return self._owned_partitions

    def rack_id(self) -> str | None:
        return self._rack_id

    def set_group_instance_id(self, group_instance_id: str | None) -> None:
        self._group_instance_id = group_instance_id

    def group_instance_id(self) -> str | None:
        return self._group_instance_id

    def generation_id(self) -> int | None:
        return self._generation_id

    def __repr__(self) -> str:
        user_data = "" if self._user_data is None else f", userDataSize={len(self._user_data)}"
        return (f"Subscription(topics={self._topics}{user_data}, ownedPartitions={self._owned_partitions}, "
                f"groupInstanceId={self._group_instance_id}, "
                f"generationId={-1 if self._generation_id is None else self._generation_id}, "
                f"rackId={self._rack_id})")


class Assignment:
    """What the leader hands each consumer in SyncGroup: its partitions and the assignor's user data."""

    def __init__(self, partitions: Sequence[TopicPartition], user_data: bytes | None = None) -> None:
        self._partitions = list(partitions)
        self._user_data = user_data

    def partitions(self) -> list[TopicPartition]:
        return self._partitions

    def user_data(self) -> bytes | None:
        return self._user_data

    def __repr__(self) -> str:
        user_data = "" if self._user_data is None else f", userDataSize={len(self._user_data)}"
        return f"Assignment(partitions={self._partitions}{user_data})"
