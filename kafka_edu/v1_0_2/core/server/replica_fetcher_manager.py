"""Port of core/src/main/scala/kafka/server/ReplicaFetcherManager.scala (Kafka 1.0.2): the follower's fetchers,
`ReplicaFetcherThread-<fetcherId>-<leaderId>`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.core.server.abstract_fetcher_manager import AbstractFetcherManager
from kafka_edu.v1_0_2.core.server.abstract_fetcher_thread import AbstractFetcherThread, BrokerEndPoint
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.replica_fetcher_thread import ReplicaFetcherThread

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.replica_manager import ReplicaManager

log = logging.getLogger("kafka.server.ReplicaFetcherManager")


class ReplicaFetcherManager(AbstractFetcherManager):
    def __init__(self, broker_config: KafkaConfig, replica_manager: ReplicaManager,
                 thread_name_prefix: str | None = None) -> None:
        super().__init__(f"ReplicaFetcherManager on broker {broker_config.broker_id}", "Replica",
                         broker_config.num_replica_fetchers)
        self.broker_config = broker_config
        self.replica_manager = replica_manager
        self.thread_name_prefix = thread_name_prefix

    def create_fetcher_thread(self, fetcher_id: int, source_broker: BrokerEndPoint) -> AbstractFetcherThread:
        prefix = f"{self.thread_name_prefix}:" if self.thread_name_prefix else ""
        thread_name = f"{prefix}ReplicaFetcherThread-{fetcher_id}-{source_broker.id}"
        return ReplicaFetcherThread(thread_name, fetcher_id, source_broker, self.broker_config, self.replica_manager)

    def shutdown(self) -> None:
        log.info("[%s] shutting down", self.name)
        self.close_all_fetchers()
        log.info("[%s] shutdown completed", self.name)
