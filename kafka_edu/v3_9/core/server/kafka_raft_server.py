"""Port of core/src/main/scala/kafka/server/KafkaRaftServer.scala (Kafka 3.9): a node on the KRaft quorum."""

from __future__ import annotations

import logging
import os

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig, ProcessRole
from kafka_edu.v3_9.core.server.broker_server import BrokerServer
from kafka_edu.v3_9.core.server.controller_server import ControllerServer
from kafka_edu.v3_9.core.server.shared_server import SharedServer
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapDirectory, BootstrapMetadata
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    MetaProperties,
    MetaPropertiesEnsemble,
    VerificationFlag,
)

log = logging.getLogger("kafka.server.KafkaRaftServer")

METADATA_TOPIC = "__cluster_metadata"
METADATA_PARTITION_DIR = f"{METADATA_TOPIC}-0"


class KafkaRaftServer:
    """Builds the controller and/or the broker that `process.roles` asks for, around one SharedServer, and runs
    their lifecycle: the controller starts first (its endpoints are what the Raft client talks to) and stops last
    (a broker's controlled shutdown needs it)."""

    def __init__(self, config: KafkaConfig) -> None:
        self.config = config
        self.meta_props_ensemble, bootstrap_metadata = self.initialize_log_dirs(config)
        self.shared_server = SharedServer(config, self.meta_props_ensemble)
        self.broker = BrokerServer(self.shared_server) if ProcessRole.BROKER_ROLE in config.process_roles else None
        self.controller = ControllerServer(self.shared_server, bootstrap_metadata) \
            if ProcessRole.CONTROLLER_ROLE in config.process_roles else None

    @step("KR.server")
    def startup(self) -> None:
        try:
            if self.controller is not None:
                self.controller.startup()
            if self.broker is not None:
                self.broker.startup()
            log.info("Kafka Server started")
        except BaseException as e:
            # Kafka.main exits with 1, and the exit runs the shutdown hook: stop what did start.
            log.critical("Exiting Kafka due to fatal exception during startup. %s: %s", type(e).__name__, e)
            self.shutdown()
            raise SystemExit(1) from e

    def shutdown(self) -> None:
        if self.broker is not None:
            self.broker.shutdown()
        if self.controller is not None:
            self.controller.shutdown()

    def await_shutdown(self) -> None:
        if self.broker is not None:
            self.broker.await_shutdown()
        if self.controller is not None:
            self.controller.await_shutdown()

    @staticmethod
    def initialize_log_dirs(config: KafkaConfig) -> tuple[MetaPropertiesEnsemble, BootstrapMetadata]:
        """Every log dir formatted, for this node and one cluster; the metadata log only in its own dir; a
        directory.id written back where a dir lacks one; then the bootstrap metadata."""
        loader = MetaPropertiesEnsemble.Loader().add_metadata_log_dir(config.metadata_log_dir)
        initial = loader.add_log_dirs(config.log_dirs).load()
        if not initial.log_dir_props():
            # 3.9 stops at "No readable meta.properties files found."; a newcomer also needs the next step
            raise KafkaException("No readable meta.properties files found. Format the log dirs first: kafka-edu "
                                 "storage format --config FILE --cluster-id $(kafka-edu storage random-uuid)")
        initial.verify(None, config.node_id, [VerificationFlag.REQUIRE_AT_LEAST_ONE_VALID,
                                               VerificationFlag.REQUIRE_METADATA_LOG_DIR])
        for log_dir in initial.log_dir_props():
            if os.path.normpath(log_dir) != os.path.normpath(config.metadata_log_dir):
                cluster_metadata_topic = os.path.join(log_dir, METADATA_PARTITION_DIR)
                if os.path.exists(cluster_metadata_topic):
                    raise KafkaException(f"Found unexpected metadata location in data directory "
                                         f"`{cluster_metadata_topic}` (the configured metadata directory is "
                                         f"{config.metadata_log_dir}).")
        copier = MetaPropertiesEnsemble.Copier(initial)
        for log_dir, meta_props in initial.non_failed_directory_props():
            if meta_props is None:
                raise KafkaException(f"No `meta.properties` found in {log_dir} (have you run `kafka-edu storage "
                                     "format` to format the directory?)")
            if meta_props.node_id is None:
                raise KafkaException(f"Error: node ID not found in {log_dir}")
            if meta_props.cluster_id is None:
                raise KafkaException(f"Error: cluster ID not found in {log_dir}")
            builder = MetaProperties.Builder(meta_props)
            if builder.directory_id() is None:
                builder.set_directory_id(copier.generate_valid_directory_id())
            copier.set_log_dir_props(log_dir, builder.build())
            copier.set_pre_write_handler(lambda d, _new, _props: log.info("Rewriting %s/meta.properties", d))
        copier.write_log_dir_changes()
        bootstrap_metadata = BootstrapDirectory(config.metadata_log_dir, None).read()
        return copier.copy(), bootstrap_metadata
