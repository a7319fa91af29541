"""Port of core/src/main/scala/kafka/server/ReplicaAlterLogDirsManager.scala (Kafka 3.9): the threads that move replicas
between this broker's log dirs (num.replica.alter.log.dirs.threads, by default one per log dir), each a
ReplicaAlterLogDirsThread fetching from the local log through a LocalLeaderEndPoint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import AbstractFetcherManager, InitialFetchState
from kafka_edu.v3_9.core.server.local_leader_end_point import LocalLeaderEndPoint
from kafka_edu.v3_9.core.server.remote_leader_end_point import ReplicaQuota
from kafka_edu.v3_9.core.server.replica_alter_log_dirs_thread import ReplicaAlterLogDirsThread


class ReplicaAlterLogDirsManager(AbstractFetcherManager[ReplicaAlterLogDirsThread]):
    """`quota_manager` is the alter-log-dirs replication quota; `directory_event_handler` None is Kafka's
    DirectoryEventHandler.NOOP."""

    def __init__(self, broker_config: Any, replica_manager: Any, quota_manager: ReplicaQuota | None,
                 broker_topic_stats: Any, directory_event_handler: Any = None) -> None:
        super().__init__(name=f"ReplicaAlterLogDirsManager on broker {broker_config.broker_id}",
                         client_id="ReplicaAlterLogDirs",
                         num_fetchers=broker_config.get_num_replica_alter_log_dirs_threads())
        self.broker_config = broker_config
        self.replica_manager = replica_manager
        self.quota_manager = quota_manager
        self.broker_topic_stats = broker_topic_stats
        self.directory_event_handler = directory_event_handler

    def create_fetcher_thread(self, fetcher_id: int, source_broker: BrokerEndPoint) -> ReplicaAlterLogDirsThread:
        thread_name = f"ReplicaAlterLogDirsThread-{fetcher_id}"
        leader = LocalLeaderEndPoint(source_broker, self.broker_config, self.replica_manager, self.quota_manager)
        return ReplicaAlterLogDirsThread(thread_name, leader, self.failed_partitions, self.replica_manager,
                                         self.quota_manager, self.broker_topic_stats,
                                         self.broker_config.replica_fetch_backoff_ms, self.directory_event_handler)

    def add_partitions_to_fetcher_thread(self, fetcher_thread: ReplicaAlterLogDirsThread,
                                         initial_offset_and_epochs: Mapping[TopicPartition, InitialFetchState]) -> None:
        added_partitions = fetcher_thread.add_partitions(initial_offset_and_epochs)
        added_initial_offsets = {tp: state for tp, state in initial_offset_and_epochs.items()
                                 if tp in added_partitions}
        not_added_initial_offsets = {tp: state for tp, state in initial_offset_and_epochs.items()
                                     if tp not in added_partitions}

        if added_initial_offsets:
            self.log.info("Added log dir fetcher for partitions with initial offsets %s", added_initial_offsets)

        if not_added_initial_offsets:
            self.log.info("Failed to add log dir fetch for partitions %s since the log dir reassignment has already "
                          "completed", set(not_added_initial_offsets))

    def shutdown(self) -> None:
        self.log.info("shutting down")
        self.close_all_fetchers()
        self.log.info("shutdown completed")
