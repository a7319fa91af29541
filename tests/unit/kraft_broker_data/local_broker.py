"""One KRaft broker's data plane in-process, built as BrokerServer builds it (Kafka 3.9): real log dirs under 3.9's
LogManager, the KRaft metadata cache, 3.9's ReplicaManager with its ReplicaFetcherManager, the
DefaultAlterPartitionManager, 3.9's group coordinator (GroupCoordinatorService), and the
BrokerMetadataPublisher. AlterPartition goes to whatever sender the test gives instead of the controller channel."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig as NodeConfig
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.log import log_manager as log_manager_module
from kafka_edu.v3_9.core.server import kafka_config as kafka_config_39
from kafka_edu.v3_9.core.server.alter_partition_manager import DefaultAlterPartitionManager
from kafka_edu.v3_9.core.server.broker_server import create_group_coordinator
from kafka_edu.v3_9.core.server.metadata.broker_metadata_publisher import BrokerMetadataPublisher
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA
from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.metadata.image.loader.snapshot_manifest import SnapshotManifest
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel


def broker_props(node_id: int, log_dir: Path, **overrides: str) -> dict[str, str]:
    """A broker-only KRaft node's server.properties; `retention_ms="1"` overrides `retention.ms`."""
    props = {
        "process.roles": "broker", "node.id": str(node_id), "controller.quorum.voters": "0@127.0.0.1:1",
        "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs": str(log_dir), "offsets.topic.num.partitions": "3", "offsets.topic.replication.factor": "1",
        "replica.fetch.backoff.ms": "100",
    }
    props.update({k.replace("_", "."): v for k, v in overrides.items()})
    return props


class RecordingSender:
    """An AlterPartition channel that keeps each request (the wire object) and its callback for the test to answer.
    """

    def __init__(self) -> None:
        self.sent: list[tuple[Any, Callable[[Any], None]]] = []

    def __call__(self, request: Any, on_complete: Callable[[Any], None]) -> None:
        self.sent.append((request, on_complete))


class SenderChannel:
    """The channel to the controller the AlterPartitionManager takes, over a `sender(request, on_complete)`: the
    request goes as its wire object, and `on_complete` takes the decoded answer, or an exception (a version the
    controller does not speak, to the manager)."""

    def __init__(self, sender: Callable[[Any, Callable[[Any], None]], None]) -> None:
        self.sender = sender

    def start(self) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def send_request(self, request: Any, callback: Any) -> None:
        def on_complete(answer: Any) -> None:
            if isinstance(answer, BaseException):
                callback.on_complete(ClientResponse(ApiKeys.ALTER_PARTITION, None, version_mismatch=answer))
            else:
                callback.on_complete(ClientResponse(ApiKeys.ALTER_PARTITION, None, response_body=answer))
        self.sender(request.data, on_complete)


class LocalBroker:
    """BrokerServer's data plane without its sockets and quorum: what `startup` builds between the scheduler and
    the BrokerMetadataPublisher, in its order. `time` is SYSTEM as in BrokerServer, or a MockTime the test moves."""

    def __init__(self, tmp_path: Path, node_id: int = 1, sender: Callable[[Any, Callable[[Any], None]], None]
                 | None = None, broker_epoch: int = 100, time: Time = SYSTEM, **config_overrides: str) -> None:
        self.log_dir = tmp_path / f"broker-{node_id}-logs"
        # the node's config (1.0.2's KafkaConfig: the group coordinator reads it) and 3.9's from the same props
        self.node_config = NodeConfig.from_props(broker_props(node_id, self.log_dir, **config_overrides),
                                                 do_log=False)
        self.config = kafka_config_39.from_props(self.node_config.originals(), do_log=False)
        self.time = time
        self.scheduler = KafkaScheduler(self.config.background_threads(),
                                        thread_name_prefix=f"broker-{node_id}-scheduler-")
        self.scheduler.startup()
        self.log_dir_failure_channel = LogDirFailureChannel(len(self.config.log_dirs))
        self.metadata_cache = KRaftMetadataCache(node_id, cluster_id="test-cluster")
        # built now, started at the first publish
        self.log_manager = log_manager_module.apply(self.config, [], self.metadata_cache, self.scheduler, time, None,
                                                    self.log_dir_failure_channel, keep_partition_metadata_file=True)
        self.sender = sender if sender is not None else RecordingSender()
        self.broker_epoch = broker_epoch
        self.alter_partition_manager = DefaultAlterPartitionManager(
            SenderChannel(self.sender), self.scheduler, time, node_id, lambda: self.broker_epoch,
            self.metadata_cache.metadata_version)
        self.alter_partition_manager.start()
        self.is_shutting_down = threading.Event()
        self.replica_manager = ReplicaManager(
            config=self.config, time=time, scheduler=self.scheduler, log_manager=self.log_manager,
            metadata_cache=self.metadata_cache, log_dir_failure_channel=self.log_dir_failure_channel,
            alter_partition_manager=self.alter_partition_manager, is_shutting_down=self.is_shutting_down,
            broker_epoch_supplier=lambda: self.broker_epoch)
        self.replica_manager.replica_fetcher_manager = self.replica_manager.create_replica_fetcher_manager(
            None, time, None, UNBOUNDED_QUOTA)
        self.group_coordinator = create_group_coordinator(self.config, self.replica_manager)
        self.publisher = BrokerMetadataPublisher(self.config, self.metadata_cache, self.log_manager,
                                                 self.replica_manager, self.group_coordinator)
        self.image = MetadataImage.EMPTY
        self.offset = -1

    def publish(self, *records: Any) -> MetadataDelta:
        """Replay these records (ApiMessageAndVersion) on the broker's last image and publish the result, as the
        MetadataLoader does on its thread."""
        delta = MetadataDelta.Builder().set_image(self.image).build()
        for record in records:
            delta.replay(record.message)
        self.offset += max(1, len(records))
        new_image = delta.apply(MetadataProvenance(self.offset, 1, 1_000 + self.offset))
        self.publisher.on_metadata_update(delta, new_image, SnapshotManifest(new_image.provenance, 0))
        self.image = new_image
        return delta

    def close(self) -> None:
        """BrokerServer.shutdown's order for these components."""
        self.publisher.close()
        self.scheduler.shutdown()
        if self.group_coordinator._is_active:
            self.group_coordinator.shutdown()
        else:  # never started (no first publish): 3.9's shutdown would leave its runtime's threads running
            self.group_coordinator._runtime.close()
        self.replica_manager.shutdown()
        self.alter_partition_manager.shutdown()
        self.log_manager.shutdown(self.broker_epoch)


def follower_fetch(broker: LocalBroker, tp: TopicPartition, topic_id: uuid.UUID, offset: int, replica_id: int,
                   broker_epoch: int, leader_epoch: int = 0) -> Any:
    """A follower's Fetch of one partition (FetchPartitionData back), as KafkaApis hands it to the ReplicaManager:
    from `replica_id` in its incarnation `broker_epoch`, at `offset`, answered at once."""
    answered: Future[Any] = Future()
    params = FetchParams(17, replica_id, broker_epoch, 0, 1, 1024 * 1024, FetchIsolation.LOG_END, None)
    broker.replica_manager.fetch_messages(
        params, [(TopicIdPartition(topic_id, tp), PartitionData(topic_id, offset, 0, 1024 * 1024, leader_epoch))],
        None, lambda responses: answered.set_result(responses[0][1]))
    return answered.result(0)
