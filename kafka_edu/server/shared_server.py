"""Port of core/src/main/scala/kafka/server/SharedServer.scala (Kafka 3.9): what a node's controller and broker share,
above all the Raft manager of the metadata log."""

from __future__ import annotations

import logging
import threading
from typing import Any

from kafka_edu.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.metadata.properties.meta_properties import MetaPropertiesEnsemble
from kafka_edu.raft.raft_manager import KafkaRaftManager
from kafka_edu.server.kafka_config import KafkaConfig
from kafka_edu.tracing import step

log = logging.getLogger("kafka.server.SharedServer")


class SharedServer:
    """Started once, by whichever of the node's roles starts first, and stopped when the last one stops.

    3.9 also starts the MetadataLoader and the snapshot generator here; they feed brokers (KRaft part 2) and are not
    built yet, so the controller's QuorumController registers with the Raft client itself."""

    def __init__(self, config: KafkaConfig, meta_props_ensemble: MetaPropertiesEnsemble) -> None:
        self.shared_server_config = config
        self.meta_props_ensemble = meta_props_ensemble
        self.lock = threading.Lock()
        self.started = False
        self.stopped = False
        self.controller_started = False
        self.broker_started = False
        self.raft_manager: KafkaRaftManager | None = None

    def cluster_id(self) -> str:
        return self.meta_props_ensemble.cluster_id() or ""

    def node_id(self) -> int:
        return self.shared_server_config.node_id

    def start_for_controller(self) -> None:
        with self.lock:
            if self.controller_started:
                return
            self.start()
            self.controller_started = True

    def stop_for_controller(self) -> None:
        with self.lock:
            if self.controller_started:
                self.controller_started = False
                if not self.broker_started:
                    self.stop()

    @step("KR.shared")
    def start(self) -> None:
        if self.started:
            return
        log.info("Starting SharedServer")
        try:
            self.raft_manager = KafkaRaftManager(self.cluster_id(), self.shared_server_config,
                                                 MetadataRecordSerde.INSTANCE,
                                                 thread_name_prefix=f"kafka-{self.node_id()}-raft")
            self.raft_manager.startup()
            self.started = True
        except BaseException:
            log.exception("Got exception while starting SharedServer")
            self.stop()
            raise

    def stop(self) -> None:
        if self.stopped:
            return
        log.info("Stopping SharedServer")
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
