"""One KRaft broker's data plane in-process: real log dirs, the KRaft metadata cache, the KRaft ReplicaManager, a
real GroupCoordinator and the BrokerMetadataPublisher; AlterPartition goes to whatever sender the test gives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import LogManager
from kafka_edu.v1_0_2.core.server.broker_states import BrokerState
from kafka_edu.v1_0_2.core.server.broker_topic_stats import BrokerTopicStats
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.kafka_server import copy_kafka_config_to_log
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.core.server.alter_partition_manager import AlterPartitionManager
from kafka_edu.v3_9.core.server.kraft_replica_manager_bridge import KRaftReplicaManager
from kafka_edu.v3_9.core.server.metadata.broker_metadata_publisher import BrokerMetadataPublisher
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.metadata.image.loader.snapshot_manifest import SnapshotManifest
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance


def broker_config(node_id: int, log_dir: Path, **overrides: str) -> KafkaConfig:
    props = {
        "process.roles": "broker", "node.id": str(node_id), "controller.quorum.voters": "0@127.0.0.1:1",
        "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://127.0.0.1:0",
        "log.dirs": str(log_dir), "offsets.topic.num.partitions": "3", "offsets.topic.replication.factor": "1",
        "replica.fetch.backoff.ms": "100",
    }
    props.update({k.replace("_", "."): v for k, v in overrides.items()})
    return KafkaConfig.from_props(props, do_log=False)


class RecordingSender:
    """An AlterPartition channel that keeps each request and its callback for the test to answer."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, Callable[[Any], None]]] = []

    def __call__(self, request: Any, on_complete: Callable[[Any], None]) -> None:
        self.sent.append((request, on_complete))


class LocalBroker:
    def __init__(self, tmp_path: Path, node_id: int = 1, sender: Callable[[Any, Callable[[Any], None]], None]
                 | None = None, broker_epoch: int = 100, **config_overrides: str) -> None:
        self.log_dir = tmp_path / f"broker-{node_id}-logs"
        self.config = broker_config(node_id, self.log_dir, **config_overrides)
        self.scheduler = KafkaScheduler(2, thread_name_prefix=f"broker-{node_id}-scheduler-")
        self.scheduler.startup()
        self.log_dir_failure_channel = LogDirFailureChannel(1)
        self.log_manager = LogManager(
            log_dirs=[self.log_dir], initial_offline_dirs=[], topic_configs={},
            default_config=LogConfig.from_props(copy_kafka_config_to_log(self.config)), io_threads=1,
            flush_check_ms=60_000, flush_recovery_offset_checkpoint_ms=60_000,
            flush_start_offset_checkpoint_ms=60_000, retention_check_ms=300_000, scheduler=self.scheduler,
            broker_state=BrokerState(), log_dir_failure_channel=self.log_dir_failure_channel)
        self.metadata_cache = KRaftMetadataCache(node_id, cluster_id="test-cluster")
        self.sender = sender if sender is not None else RecordingSender()
        self.broker_epoch = broker_epoch
        self.alter_partition_manager = AlterPartitionManager(self.sender, self.scheduler, node_id,
                                                             lambda: self.broker_epoch)
        self.replica_manager = KRaftReplicaManager(
            self.config, self.scheduler, self.log_manager, AtomicBoolean(False), self.metadata_cache,
            self.log_dir_failure_channel, BrokerTopicStats(), self.alter_partition_manager)
        self.group_coordinator = GroupCoordinator.apply(self.config, self.replica_manager, self.scheduler)
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
        self.publisher.close()
        self.group_coordinator.shutdown()
        self.replica_manager.shutdown()
        self.scheduler.shutdown()
        self.log_manager.shutdown()
