"""Port of core/src/main/scala/kafka/server/SharedServer.scala (Kafka 3.9): what a node's controller and broker share,
above all the Raft manager of the metadata log."""

from __future__ import annotations

import logging
import threading
from typing import Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.utils.core_utils import swallow
from kafka_edu.v3_9.core.raft.raft_manager import KafkaRaftManager
from kafka_edu.v3_9.metadata.controller.quorum_controller import FaultHandler
from kafka_edu.v3_9.metadata.image.loader.metadata_loader import MetadataLoader
from kafka_edu.v3_9.metadata.image.publisher.snapshot_emitter import SnapshotEmitter
from kafka_edu.v3_9.metadata.image.publisher.snapshot_generator import DisabledReason, SnapshotGenerator
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import MetaPropertiesEnsemble

log = logging.getLogger("kafka.server.SharedServer")


class SharedServer:
    """Started once, by whichever of the node's roles starts first, and stopped when the last one stops.

    It owns the Raft manager and the MetadataLoader that follows the metadata log, with the SnapshotGenerator as its
    first publisher: the node writes snapshots of the metadata image whether it is a controller or a broker. (The
    QuorumController registers with the Raft client itself, as in 3.9.)"""

    def __init__(self, config: KafkaConfig, meta_props_ensemble: MetaPropertiesEnsemble) -> None:
        self.shared_server_config = config
        self.meta_props_ensemble = meta_props_ensemble
        self.lock = threading.Lock()
        self.started = False
        self.stopped = False
        self.controller_started = False
        self.broker_started = False
        self.raft_manager: KafkaRaftManager | None = None
        self.loader: MetadataLoader | None = None
        self.snapshot_emitter: SnapshotEmitter | None = None
        self.snapshot_generator: SnapshotGenerator | None = None
        # why snapshots are off, if they are: set by the first fault that makes the metadata untrustworthy
        self.snapshots_disabled_reason = DisabledReason()

    def cluster_id(self) -> str:
        return self.meta_props_ensemble.cluster_id() or ""

    def node_id(self) -> int:
        return self.shared_server_config.node_id

    def metadata_loader_fault_handler(self) -> FaultHandler:
        """Loading the metadata log failed: the image may be wrong, so no snapshot may be made of it."""
        return FaultHandler("metadata loading", lambda message, cause: self.snapshots_disabled_reason
                            .compare_and_set(None, "metadata loading fault"))

    def metadata_publishing_fault_handler(self) -> FaultHandler:
        """A publisher failed: the image itself is still right, so snapshots go on."""
        return FaultHandler("metadata publishing")

    def start_for_controller(self, listener_endpoints: Any = None) -> None:
        """`listener_endpoints`: the controller's listeners (raft Endpoints), which a dynamic voter is known by."""
        with self.lock:
            if self.controller_started:
                return
            self.start(listener_endpoints)
            self.controller_started = True

    def stop_for_controller(self) -> None:
        with self.lock:
            if self.controller_started:
                self.controller_started = False
                if not self.broker_started:
                    self.stop()

    def start_for_broker(self) -> None:
        """On a broker-only node the Raft client is an observer: its node id is not among the voters, so it
        fetches the metadata log from the leader and never votes."""
        with self.lock:
            if self.broker_started:
                return
            self.start()
            self.broker_started = True

    def stop_for_broker(self) -> None:
        with self.lock:
            if self.broker_started:
                self.broker_started = False
                if not self.controller_started:
                    self.stop()

    @step("KR.shared")
    def start(self, listener_endpoints: Any = None) -> None:
        if self.started:
            return
        log.info("Starting SharedServer")
        try:
            metadata_log_dir = self.meta_props_ensemble.metadata_log_dir()
            metadata_dir_props = (self.meta_props_ensemble.log_dir_props().get(metadata_log_dir)
                                  if metadata_log_dir is not None else None)
            self.raft_manager = KafkaRaftManager(self.cluster_id(), self.shared_server_config,
                                                 MetadataRecordSerde.INSTANCE,
                                                 node_directory_id=(metadata_dir_props.directory_id
                                                                    if metadata_dir_props is not None else None),
                                                 thread_name_prefix=f"kafka-{self.node_id()}-raft",
                                                 local_listeners=listener_endpoints)
            self.raft_manager.startup()
            raft_manager = self.raft_manager
            self.loader = (MetadataLoader.Builder()
                           .set_node_id(self.node_id())
                           .set_thread_name_prefix(f"kafka-{self.node_id()}-")
                           .set_fault_handler(self.metadata_loader_fault_handler())
                           .set_high_water_mark_accessor(lambda: raft_manager.client.high_watermark())
                           .build())
            self.snapshot_emitter = (SnapshotEmitter.Builder()
                                     .set_node_id(self.node_id())
                                     .set_raft_client(raft_manager.client)
                                     .build())
            config = self.shared_server_config
            self.snapshot_generator = (SnapshotGenerator.Builder(self.snapshot_emitter)
                                       .set_node_id(self.node_id())
                                       .set_fault_handler(self.metadata_publishing_fault_handler())
                                       .set_max_bytes_since_last_snapshot(config.metadata_snapshot_max_new_record_bytes)
                                       .set_max_time_since_last_snapshot_ns(
                                           config.metadata_snapshot_max_interval_ms * 1_000_000)
                                       .set_disabled_reason(self.snapshots_disabled_reason)
                                       .set_thread_name_prefix(f"kafka-{self.node_id()}-")
                                       .build())
            try:
                self.loader.install_publishers([self.snapshot_generator]).result()
            except Exception as e:
                log.error("Unable to install metadata publishers", exc_info=e)
                raise RuntimeError("Unable to install metadata publishers.") from e
            raft_manager.register(self.loader)
            log.debug("Completed SharedServer startup.")
            self.started = True
        except BaseException:
            log.exception("Got exception while starting SharedServer")
            self.stop()
            raise

    def stop(self) -> None:
        if self.stopped:
            return
        log.info("Stopping SharedServer")
        if self.loader is not None:
            with swallow(log):
                self.loader.begin_shutdown()
        if self.snapshot_generator is not None:
            with swallow(log):
                self.snapshot_generator.begin_shutdown()
        if self.loader is not None:
            with swallow(log):
                self.loader.close()
            self.loader = None
        if self.snapshot_generator is not None:
            with swallow(log):
                self.snapshot_generator.close()
            self.snapshot_generator = None
        if self.raft_manager is not None:
            try:
                self.raft_manager.shutdown()
            except Exception:
                log.exception("Error shutting down the Raft manager")
        self.raft_manager = None
        self.stopped = True

    def ensure_not_raft_leader(self) -> None:
        """A leader about to stop resigns first, while its listener still answers: the voters hear EndQuorumEpoch
        and elect a successor in about one round trip instead of a fetch timeout."""
        with self.lock:
            if self.raft_manager is None:
                return
            leader_and_epoch = self.raft_manager.leader_and_epoch()
            if leader_and_epoch.leader_id == self.node_id():
                log.info("Resigning from leadership")
                self.raft_manager.client.resign(leader_and_epoch.epoch)

    def raft_client(self) -> Any:
        assert self.raft_manager is not None
        return self.raft_manager.client
