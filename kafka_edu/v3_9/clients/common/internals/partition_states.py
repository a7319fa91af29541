"""Port of clients/src/main/java/org/apache/kafka/common/internals/PartitionStates.java (Kafka 3.9): per-partition
state in an order that rotates, so that fetchers give every partition its turn."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, TypeVar

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

S = TypeVar("S")


class PartitionStates(Generic[S]):
    """Insertion-ordered like Kafka's LinkedHashMap: `update_and_move_to_end` sends a partition to the back."""

    def __init__(self) -> None:
        self._map: dict[TopicPartition, S] = {}
        self._size = 0  # read without the caller's lock, as Kafka's volatile field is

    def move_to_end(self, topic_partition: TopicPartition) -> None:
        state = self._map.pop(topic_partition, None)
        if state is not None:
            self._map[topic_partition] = state

    def update_and_move_to_end(self, topic_partition: TopicPartition, state: S) -> None:
        self._map.pop(topic_partition, None)
        self._map[topic_partition] = state
        self._update_size()

    def update(self, topic_partition: TopicPartition, state: S) -> None:
        self._map[topic_partition] = state
        self._update_size()

    def remove(self, topic_partition: TopicPartition) -> None:
        self._map.pop(topic_partition, None)
        self._update_size()

    def partition_set(self) -> frozenset[TopicPartition]:
        """A snapshot (Kafka returns an unmodifiable view; every caller copies it or holds the lock)."""
        return frozenset(self._map)

    def clear(self) -> None:
        self._map.clear()
        self._update_size()

    def contains(self, topic_partition: TopicPartition) -> bool:
        return topic_partition in self._map

    def state_iterator(self) -> Iterator[S]:
        return iter(self._map.values())

    def for_each(self, bi_consumer: Callable[[TopicPartition, S], None]) -> None:
        for topic_partition, state in self._map.items():
            bi_consumer(topic_partition, state)

    def partition_state_map(self) -> Mapping[TopicPartition, S]:
        return MappingProxyType(self._map)

    def partition_state_values(self) -> list[S]:
        return list(self._map.values())

    def state_value(self, topic_partition: TopicPartition) -> S | None:
        return self._map.get(topic_partition)

    def size(self) -> int:
        return self._size

    def set(self, partition_to_state: Mapping[TopicPartition, S]) -> None:
        self._map.clear()
        self._update(partition_to_state)
        self._update_size()

    def _update_size(self) -> None:
        self._size = len(self._map)

    def _update(self, partition_to_state: Mapping[TopicPartition, S]) -> None:
        # a topic's partitions are kept together, topics in the order they first appear
        topic_to_partitions: dict[str | None, list[TopicPartition]] = {}
        for tp in partition_to_state:
            topic_to_partitions.setdefault(tp.topic, []).append(tp)
        for partitions in topic_to_partitions.values():
            for tp in partitions:
                self._map[tp] = partition_to_state[tp]


@dataclass(frozen=True)
class PartitionState(Generic[S]):
    topic_partition: TopicPartition
    value: S

    def __str__(self) -> str:
        return f"PartitionState({self.topic_partition}={self.value})"
