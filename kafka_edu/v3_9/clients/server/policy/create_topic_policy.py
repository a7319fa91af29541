"""Port of clients/src/main/java/org/apache/kafka/server/policy/CreateTopicPolicy.java (Kafka 3.9): the plug-in the
controller asks about each topic it is about to create (`create.topic.policy.class.name`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RequestMetadata:
    """What a CreateTopics asks for one topic: a partition count and replication factor, or (both None) a manual
    assignment of replicas; and the configs it sets."""

    topic: str
    num_partitions: int | None
    replication_factor: int | None
    replicas_assignments: dict[int, list[int]] | None
    configs: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"CreateTopicPolicy.RequestMetadata(topic={self.topic}, numPartitions={self.num_partitions}, "
                f"replicationFactor={self.replication_factor}, replicasAssignments={self.replicas_assignments}, "
                f"configs={self.configs})")


class CreateTopicPolicy(ABC):
    @abstractmethod
    def configure(self, configs: dict[str, Any]) -> None:
        """Configurable.configure: the broker's configs, once, before the first validate."""

    @abstractmethod
    def validate(self, request_metadata: RequestMetadata) -> None:
        """PolicyViolationException (with a message for the client) when the topic may not be created."""

    @abstractmethod
    def close(self) -> None:
        """AutoCloseable.close."""
