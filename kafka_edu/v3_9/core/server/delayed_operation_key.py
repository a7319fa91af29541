"""Port of core/src/main/scala/kafka/server/DelayedOperationKey.scala (Kafka 3.9): the keys a purgatory watches its
delayed operations under (a partition for produce and fetch, a member or a group for the group coordinator)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Protocol


class DelayedOperationKey(ABC):
    @property
    @abstractmethod
    def key_label(self) -> str: ...


class _HasTopicAndPartition(Protocol):
    @property
    def topic(self) -> str | None: ...

    @property
    def partition(self) -> int: ...


@dataclass(frozen=True)
class TopicPartitionOperationKey(DelayedOperationKey):
    """Used by delayed-produce and delayed-fetch operations."""

    topic: str
    partition: int

    @property
    def key_label(self) -> str:
        return f"{self.topic}-{self.partition}"

    @staticmethod
    def apply(topic_partition: _HasTopicAndPartition) -> TopicPartitionOperationKey:
        """The companion's apply(TopicPartition) and apply(TopicIdPartition)."""
        return TopicPartitionOperationKey(topic_partition.topic, topic_partition.partition)


@dataclass(frozen=True)
class MemberKey(DelayedOperationKey):
    """Used by delayed-join-group operations."""

    group_id: str
    consumer_id: str

    @property
    def key_label(self) -> str:
        return f"{self.group_id}-{self.consumer_id}"


@dataclass(frozen=True)
class GroupJoinKey(DelayedOperationKey):
    """Used by delayed-join operations."""

    group_id: str

    @property
    def key_label(self) -> str:
        return f"join-{self.group_id}"


@dataclass(frozen=True)
class GroupSyncKey(DelayedOperationKey):
    """Used by delayed-sync operations."""

    group_id: str

    @property
    def key_label(self) -> str:
        return f"sync-{self.group_id}"


@dataclass(frozen=True)
class TopicKey(DelayedOperationKey):
    """Used by delayed-topic operations."""

    topic: str

    @property
    def key_label(self) -> str:
        return self.topic
