"""Port of metadata/src/main/java/org/apache/kafka/image/ClusterDelta.java (Kafka 3.9), with
BrokerRegistration.fromRecord from metadata/src/main/java/org/apache/kafka/metadata/BrokerRegistration.java."""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.metadata.image.cluster_image import ClusterImage
from kafka_edu.v3_9.metadata.metadata.broker_registration import (
    BrokerRegistration,
    BrokerRegistrationFencingChange,
    BrokerRegistrationInControlledShutdownChange,
    Endpoint,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion


class ClusterDelta:
    """Brokers registered, changed or unregistered since `image` (None: unregistered)."""

    def __init__(self, image: ClusterImage) -> None:
        self.image = image
        self._changed_brokers: dict[int, BrokerRegistration | None] = {}

    def changed_brokers(self) -> dict[int, BrokerRegistration | None]:
        return self._changed_brokers

    def broker(self, node_id: int) -> BrokerRegistration | None:
        if node_id in self._changed_brokers:
            return self._changed_brokers[node_id]
        return self.image.broker(node_id)

    def new_brokers(self) -> set[int]:
        return {broker_id for broker_id, registration in self._changed_brokers.items()
                if not self.image.contains_broker(broker_id) and registration is not None}

    def finish_snapshot(self) -> None:
        for broker_id in self.image.brokers:
            if broker_id not in self._changed_brokers:
                self._changed_brokers[broker_id] = None

    def handle_metadata_version_change(self, new_version: MetadataVersion) -> None:
        pass  # nothing in the cluster image depends on it

    def replay_register_broker(self, record: Any) -> None:
        broker = broker_from_record(record)
        self._changed_brokers[broker.id] = broker

    def replay_unregister_broker(self, record: Any) -> None:
        self._changed_brokers[record.broker_id] = None

    def _get_broker_or_throw(self, broker_id: int, epoch: int, action: str) -> BrokerRegistration:
        broker = self.broker(broker_id)
        if broker is None:
            raise IllegalStateException(f"Tried to {action} broker {broker_id}, but that broker was not registered.")
        if broker.epoch != epoch:
            raise IllegalStateException(f"Tried to {action} broker {broker_id}, but the given epoch, {epoch}, did not "
                                        f"match the current broker epoch, {broker.epoch}")
        return broker

    def replay_fence_broker(self, record: Any) -> None:
        cur_registration = self._get_broker_or_throw(record.id, record.epoch, "fence")
        self._changed_brokers[record.id] = cur_registration.cloned_with(
            BrokerRegistrationFencingChange.FENCE.as_boolean(), None, None)

    def replay_unfence_broker(self, record: Any) -> None:
        cur_registration = self._get_broker_or_throw(record.id, record.epoch, "unfence")
        self._changed_brokers[record.id] = cur_registration.cloned_with(
            BrokerRegistrationFencingChange.UNFENCE.as_boolean(), None, None)

    def replay_broker_registration_change(self, record: Any) -> None:
        cur_registration = self._get_broker_or_throw(record.broker_id, record.broker_epoch, "change")
        try:
            fencing_change = BrokerRegistrationFencingChange(record.fenced)
        except ValueError:
            raise IllegalStateException(f"Unable to replay {record}: unknown value for fenced field: "
                                        f"{record.fenced}") from None
        try:
            in_controlled_shutdown_change = BrokerRegistrationInControlledShutdownChange(record.in_controlled_shutdown)
        except ValueError:
            raise IllegalStateException(f"Unable to replay {record}: unknown value for inControlledShutdown field: "
                                        f"{record.in_controlled_shutdown}") from None
        directories_change = tuple(record.log_dirs) if record.log_dirs else None
        next_registration = cur_registration.cloned_with(fencing_change.as_boolean(),
                                                         in_controlled_shutdown_change.as_boolean(),
                                                         directories_change)
        if cur_registration != next_registration:
            self._changed_brokers[record.broker_id] = next_registration

    def apply(self) -> ClusterImage:
        new_brokers: dict[int, BrokerRegistration] = {}
        for node_id, registration in self.image.brokers.items():
            if node_id not in self._changed_brokers:
                new_brokers[node_id] = registration
            elif self._changed_brokers[node_id] is not None:
                new_brokers[node_id] = self._changed_brokers[node_id]  # type: ignore[assignment]
        for node_id, change in self._changed_brokers.items():
            if node_id not in new_brokers and change is not None:
                new_brokers[node_id] = change
        return ClusterImage(new_brokers)

    def __str__(self) -> str:
        return f"ClusterDelta(changedBrokers={self._changed_brokers})"


def broker_from_record(record: Any) -> BrokerRegistration:
    """BrokerRegistration.fromRecord: a RegisterBrokerRecord as the registration it creates."""
    return BrokerRegistration(
        id=record.broker_id, epoch=record.broker_epoch, incarnation_id=record.incarnation_id,
        listeners={e.name: Endpoint(e.name, e.security_protocol, e.host, e.port) for e in record.end_points},
        supported_features={f.name: (f.min_supported_version, f.max_supported_version) for f in record.features},
        rack=record.rack, fenced=record.fenced, in_controlled_shutdown=record.in_controlled_shutdown,
        is_migrating_zk_broker=record.is_migrating_zk_broker, directories=tuple(record.log_dirs))
