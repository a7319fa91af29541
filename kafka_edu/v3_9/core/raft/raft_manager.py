"""Port of core/src/main/scala/kafka/raft/RaftManager.scala (Kafka 3.9): KafkaRaftManager, which builds and runs
a node's raft client for `__cluster_metadata-0`.

It makes the data directory `<metadata.log.dir>/__cluster_metadata-0` (locking `metadata.log.dir` when no log
manager does), the KafkaMetadataLog, the network channel to the voters, the KafkaRaftClient and its driver thread.
`startup` reads `quorum-state` and starts both threads; ControllerApis hands it the raft RPCs with `handle_request`.

The config is the server's KafkaConfig. It is read for: `node_id` (node.id), the `controller.quorum.*` keys
(QuorumConfig), `metadata_log_dir` (metadata.log.dir, else the first log dir), `log_dirs`, `process_roles` and
`controller_listener_names` (the first names the listener the voters talk on).

KIP-853: `node_directory_id` is the directory id in the metadata log dir's meta.properties (a dynamic voter is known
by id and directory id); `bootstrap_servers` (controller.quorum.bootstrap.servers) are where a replica with no static
voters looks for the leader. A controller passes its controller listeners as `local_listeners`.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_manager import LOCK_FILE, FileLock
from kafka_edu.v1_0_2.core.utils.core_utils import swallow
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.uuid import METADATA_TOPIC_ID, Uuid
from kafka_edu.v3_9.core.raft.kafka_metadata_log import METADATA_PARTITION, KafkaMetadataLog, MetadataLogConfig
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.expiration_service import TimingWheelExpirationService
from kafka_edu.v3_9.raft.raft.file_quorum_state_store import DEFAULT_FILE_NAME, FileQuorumStateStore
from kafka_edu.v3_9.raft.raft.kafka_network_channel import KafkaNetworkChannel
from kafka_edu.v3_9.raft.raft.kafka_raft_client import MAX_BATCH_SIZE_BYTES, MAX_FETCH_SIZE_BYTES, KafkaRaftClient
from kafka_edu.v3_9.raft.raft.kafka_raft_client_driver import KafkaRaftClientDriver
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient
from kafka_edu.v3_9.raft.raft.voter_set import Node

log = logging.getLogger("kafka.raft.KafkaRaftManager")


def _setting(config: Any, attribute: str, key: str, default: Any = None) -> Any:
    value = getattr(config, attribute, None)
    if value is not None:
        return value
    try:
        value = config.get(key)
    except (KeyError, AttributeError):
        value = None
    return default if value is None else value


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


class KafkaRaftManager:
    def __init__(self, cluster_id: str, config: Any, record_serde: Any,
                 node_directory_id: Uuid | None = None,
                 topic_partition: TopicPartition = METADATA_PARTITION, topic_id: Uuid = METADATA_TOPIC_ID,
                 thread_name_prefix: str | None = None,
                 controller_quorum_voters: dict[int, tuple[str, int]] | Future | None = None,
                 bootstrap_servers: list[tuple[str, int]] | None = None,
                 local_listeners: Endpoints | None = None,
                 fatal_fault_handler: Callable[[str, BaseException], BaseException] | None = None) -> None:
        self.cluster_id = cluster_id
        self.config = config
        self.record_serde = record_serde
        self.topic_partition = topic_partition
        self.topic_id = topic_id
        self.raft_config = config.quorum_config if hasattr(config, "quorum_config") else QuorumConfig(config)
        self.node_id = int(_setting(config, "node_id", "node.id"))
        self.thread_name_prefix = thread_name_prefix or "kafka-raft"
        self.log_ident = f"[RaftManager id={self.node_id}] "
        # the voters (from controller.quorum.voters): a future in 3.9, complete once the addresses are known
        self.controller_quorum_voters_future: Future = self._voters_future(controller_quorum_voters)
        self.node_directory_id = node_directory_id
        self.bootstrap_servers: list[tuple[str, int]] = (
            bootstrap_servers if bootstrap_servers is not None
            else QuorumConfig.parse_bootstrap_servers(self.raft_config.bootstrap_servers()))
        self.listener_name = _as_list(_setting(config, "controller_listener_names", "controller.listener.names",
                                               "CONTROLLER"))[0]
        self.scheduler = KafkaScheduler(1, self.thread_name_prefix + "-scheduler")
        self.scheduler.startup()
        self.data_dir = self._create_data_dir()
        self.data_dir_lock = self._maybe_lock_data_dir()
        self.replicated_log = self._build_metadata_log()
        self.net_channel = KafkaNetworkChannel(self.listener_name, self.raft_config.request_timeout_ms(),
                                               self.thread_name_prefix, client_id=f"raft-client-{self.node_id}")
        self.expiration_service = TimingWheelExpirationService(self.thread_name_prefix + "-expiration-reaper")
        self.local_listeners = local_listeners
        self.client: KafkaRaftClient = self._build_raft_client()
        kwargs = {"fatal_fault_handler": fatal_fault_handler} if fatal_fault_handler is not None else {}
        self.client_driver = KafkaRaftClientDriver(self.client, self.thread_name_prefix, **kwargs)

    def _voters_future(self, voters: dict[int, tuple[str, int]] | Future | None) -> Future:
        if isinstance(voters, Future):
            return voters
        future: Future = Future()
        future.set_result(voters if voters is not None
                          else QuorumConfig.parse_voter_connections(self.raft_config.voters()))
        return future

    def startup(self) -> None:
        voters = self.controller_quorum_voters_future.result()
        if self.node_id in voters and (self.local_listeners is None or self.local_listeners.is_empty()
                                       or self.local_listeners.address(self.listener_name) != voters[self.node_id]):
            # a static voter's own endpoint is the one the others know it by
            self.client.local_listeners = Endpoints({self.listener_name: voters[self.node_id]})
        self.client.initialize(voters, FileQuorumStateStore(self.data_dir / DEFAULT_FILE_NAME))
        self.net_channel.start()
        self.client_driver.start()

    def shutdown(self) -> None:
        with swallow(log):
            self.expiration_service.shutdown()
        with swallow(log):
            self.client_driver.shutdown()
        with swallow(log):
            self.scheduler.shutdown()
        with swallow(log):
            self.net_channel.close()
        with swallow(log):
            self.replicated_log.close()
        with swallow(log):
            if self.data_dir_lock is not None:
                self.data_dir_lock.destroy()

    def register(self, listener: RaftClient.Listener) -> None:
        self.client.register(listener)

    def leader_and_epoch(self) -> LeaderAndEpoch:
        return self.client.leader_and_epoch()

    def voter_node(self, voter_id: int, listener_name: str) -> Node | None:
        return self.client.voter_node(voter_id, listener_name)

    def handle_request(self, header: Any, request: Any, created_ms: int | None = None) -> Future:
        """A Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch, FetchSnapshot or DescribeQuorum request: the future
        completes with the response body, at the request's version.

        `header` has `correlation_id`, `api_version` and, when the sender traced its request, `traceparent`.
        Also callable as `handle_request(network_request, created_ms)` with the request whose `body` it is.
        """
        if created_ms is None:
            header, request, created_ms = header, header.body, request
        return self.client_driver.handle_request(header, request,
                                                 created_ms if created_ms is not None else time.time_ns() // 10**6)

    def _build_raft_client(self) -> KafkaRaftClient:
        return KafkaRaftClient(self.node_id, self.record_serde, self.net_channel, self.replicated_log,
                               self.expiration_service, self.cluster_id, self.local_listeners or Endpoints.empty(),
                               self.raft_config, node_directory_id=self.node_directory_id,
                               bootstrap_servers=self.bootstrap_servers or None)

    def _metadata_log_dir(self) -> Path:
        metadata_log_dir = _setting(self.config, "metadata_log_dir", "metadata.log.dir")
        if metadata_log_dir is None:
            log_dirs = _as_list(_setting(self.config, "log_dirs", "log.dirs"))
            if not log_dirs:
                raise KafkaException("No metadata.log.dir and no log.dirs to put the metadata log in")
            metadata_log_dir = log_dirs[0]
        return Path(metadata_log_dir)

    def _create_data_dir(self) -> Path:
        return KafkaRaftManager.create_log_directory(self._metadata_log_dir(), f"{self.topic_partition.topic}-"
                                                                                f"{self.topic_partition.partition}")

    def _maybe_lock_data_dir(self) -> FileLock | None:
        # the log manager locks the log dirs; the metadata dir is ours to lock when it is not one of them, or
        # when this node is only a controller (no log manager)
        metadata_log_dir = self._metadata_log_dir().absolute()
        log_dirs = [Path(d).absolute() for d in _as_list(_setting(self.config, "log_dirs", "log.dirs"))]
        roles = {getattr(role, "value", role)  # KafkaConfig gives ProcessRole members
                 for role in _as_list(_setting(self.config, "process_roles", "process.roles"))}
        if metadata_log_dir not in log_dirs or roles == {"controller"}:
            return KafkaRaftManager.lock_data_dir(metadata_log_dir)
        return None

    def _build_metadata_log(self) -> KafkaMetadataLog:
        return KafkaMetadataLog.apply(self.topic_partition, self.topic_id, self.data_dir, self.scheduler,
                                      MetadataLogConfig.from_config(self.config, MAX_BATCH_SIZE_BYTES,
                                                                    MAX_FETCH_SIZE_BYTES))

    @staticmethod
    def create_log_directory(log_dir: Path, log_dir_name: str) -> Path:
        directory = Path(log_dir).absolute() / log_dir_name
        os.makedirs(directory, exist_ok=True)
        return directory

    @staticmethod
    def lock_data_dir(data_dir: Path) -> FileLock:
        os.makedirs(data_dir, exist_ok=True)
        lock = FileLock(data_dir / LOCK_FILE)
        if not lock.try_lock():
            lock.destroy()
            raise KafkaException(f"Failed to acquire lock on file .lock in {data_dir}. A Kafka instance in another "
                                 "process or thread is using this directory.")
        return lock
