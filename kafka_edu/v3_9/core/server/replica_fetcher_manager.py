"""Port of core/src/main/scala/kafka/server/ReplicaFetcherManager.scala (Kafka 3.9): the follower's fetcher threads,
each a ReplicaFetcherThread over its own connection and fetch session to one leader."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka_edu.v3_9.clients.clients.fetch_session_handler import FetchSessionHandler
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import AbstractFetcherManager
from kafka_edu.v3_9.core.server.broker_blocking_sender import BrokerBlockingSender
from kafka_edu.v3_9.core.server.remote_leader_end_point import RemoteLeaderEndPoint, ReplicaQuota
from kafka_edu.v3_9.core.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion


class ReplicaFetcherManager(AbstractFetcherManager[ReplicaFetcherThread]):
    def __init__(self, broker_config: Any, replica_manager: Any, metrics: Any, time: Time,
                 thread_name_prefix: str | None = None, *, quota_manager: ReplicaQuota,
                 metadata_version_supplier: Callable[[], MetadataVersion],
                 broker_epoch_supplier: Callable[[], int]) -> None:
        super().__init__(name=f"ReplicaFetcherManager on broker {broker_config.broker_id}", client_id="Replica",
                         num_fetchers=broker_config.num_replica_fetchers())
        self.broker_config = broker_config
        self.replica_manager = replica_manager
        self.metrics = metrics
        self.time = time
        self.thread_name_prefix = thread_name_prefix
        self.quota_manager = quota_manager
        self.metadata_version_supplier = metadata_version_supplier
        self.broker_epoch_supplier = broker_epoch_supplier

    def create_fetcher_thread(self, fetcher_id: int, source_broker: BrokerEndPoint) -> ReplicaFetcherThread:
        prefix = f"{self.thread_name_prefix}:" if self.thread_name_prefix is not None else ""
        thread_name = f"{prefix}ReplicaFetcherThread-{fetcher_id}-{source_broker.id}"
        log_prefix = (f"[ReplicaFetcher replicaId={self.broker_config.broker_id}, leaderId={source_broker.id}, "
                      f"fetcherId={fetcher_id}] ")
        endpoint = BrokerBlockingSender(source_broker, self.broker_config, self.metrics, self.time, fetcher_id,
                                        f"broker-{self.broker_config.broker_id}-fetcher-{fetcher_id}", log_prefix)
        fetch_session_handler = FetchSessionHandler(log_prefix, source_broker.id)
        leader = RemoteLeaderEndPoint(log_prefix, endpoint, fetch_session_handler, self.broker_config,
                                      self.replica_manager, self.quota_manager, self.metadata_version_supplier,
                                      self.broker_epoch_supplier)
        return ReplicaFetcherThread(thread_name, leader, self.broker_config, self.failed_partitions,
                                    self.replica_manager, self.quota_manager, log_prefix,
                                    self.metadata_version_supplier)

    def shutdown(self) -> None:
        self.log.info("shutting down")
        self.close_all_fetchers()
        self.log.info("shutdown completed")
