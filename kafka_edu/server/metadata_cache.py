"""Port of core/src/main/scala/kafka/server/MetadataCache.scala (Kafka 1.0.2)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class PartitionState:
    """UpdateMetadataRequest.PartitionState: who leads a partition and who is in sync."""

    controller_epoch: int
    leader: int
    leader_epoch: int
    isr: list[int]
    zk_version: int
    replicas: list[int]
    offline_replicas: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Broker:
    """A live broker as the metadata cache knows it: id, rack and its endpoints by listener name."""

    id: int
    endpoints: dict[str, tuple[str, int]]
    rack: str | None = None


class MetadataCache:
    """This broker's view of the cluster: live brokers, the controller, and partition leadership.

    It starts empty; the controller fills it with UpdateMetadata requests (the request path and controller issues).
    """

    def __init__(self, broker_id: int) -> None:
        self.broker_id = broker_id
        self.cache: dict[str, dict[int, PartitionState]] = {}
        self.controller_id: int | None = None
        self.alive_brokers: dict[int, Broker] = {}
        self.partition_metadata_lock = threading.RLock()

    def get_alive_brokers(self) -> list[Broker]:
        with self.partition_metadata_lock:
            return list(self.alive_brokers.values())

    def get_controller_id(self) -> int | None:
        return self.controller_id

    def get_all_topics(self) -> set[str]:
        with self.partition_metadata_lock:
            return set(self.cache)

    def contains(self, topic: str) -> bool:
        with self.partition_metadata_lock:
            return topic in self.cache
