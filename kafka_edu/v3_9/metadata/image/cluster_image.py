"""Port of metadata/src/main/java/org/apache/kafka/image/ClusterImage.java (Kafka 3.9), with
BrokerRegistration.toRecord(options) from metadata/src/main/java/org/apache/kafka/metadata/BrokerRegistration.java."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    BrokerFeature,
    RegisterBrokerRecord,
)
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    is_directory_assignment_supported,
    is_in_controlled_shutdown_state_supported,
    register_broker_record_version,
)
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.metadata.broker_registration import BrokerRegistration


@dataclass(frozen=True)
class ClusterImage:
    """The registered brokers by id. (3.9 also holds controller registrations, KIP-919, which are not ported.)"""

    EMPTY: ClassVar[ClusterImage]

    brokers: Mapping[int, BrokerRegistration] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "brokers", MappingProxyType(dict(self.brokers)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClusterImage) and dict(self.brokers) == dict(other.brokers)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.brokers)))

    def is_empty(self) -> bool:
        return not self.brokers

    def broker(self, node_id: int) -> BrokerRegistration | None:
        return self.brokers.get(node_id)

    def contains_broker(self, broker_id: int) -> bool:
        return broker_id in self.brokers

    def broker_epoch(self, broker_id: int) -> int:
        registration = self.broker(broker_id)
        return -1 if registration is None else registration.epoch

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        # by broker id, as Java's HashMap of small Integer keys iterates
        for broker_id in sorted(self.brokers):
            writer.write(broker_to_record(self.brokers[broker_id], options))

    def __str__(self) -> str:
        return f"ClusterImage(brokers={sorted(self.brokers)})"


ClusterImage.EMPTY = ClusterImage({})


def broker_to_record(broker: BrokerRegistration, options: ImageWriterOptions) -> ApiMessageAndVersion:
    """BrokerRegistration.toRecord: the RegisterBrokerRecord that recreates this registration, at the version the
    metadata.version writes; state that version cannot hold goes to the loss handler."""
    mv = options.metadata_version()
    in_controlled_shutdown = False
    if broker.in_controlled_shutdown:
        if is_in_controlled_shutdown_state_supported(mv):
            in_controlled_shutdown = True
        else:
            options.handle_loss("the inControlledShutdown state of one or more brokers")
    if broker.is_migrating_zk_broker:
        options.handle_loss("the isMigratingZkBroker state of one or more brokers")  # ZK migration is not ported
    log_dirs: tuple = ()
    if is_directory_assignment_supported(mv):
        log_dirs = tuple(broker.directories)
    elif broker.directories:
        options.handle_loss("the online log directories of one or more brokers")
    record = RegisterBrokerRecord(
        broker_id=broker.id, is_migrating_zk_broker=False, incarnation_id=broker.incarnation_id,
        broker_epoch=broker.epoch,
        end_points=tuple(BrokerEndpoint(name=name, host=endpoint.host, port=endpoint.port,
                                        security_protocol=endpoint.security_protocol)
                         for name, endpoint in broker.listeners.items()),
        features=tuple(BrokerFeature(name=name, min_supported_version=low, max_supported_version=high)
                       for name, (low, high) in broker.supported_features.items()),
        rack=broker.rack, fenced=broker.fenced, in_controlled_shutdown=in_controlled_shutdown, log_dirs=log_dirs)
    return ApiMessageAndVersion(record, register_broker_record_version(mv))
