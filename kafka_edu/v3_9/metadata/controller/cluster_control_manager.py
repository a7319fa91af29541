"""Port of metadata/src/main/java/org/apache/kafka/controller/ClusterControlManager.java (Kafka 3.9).

Left out: controller registrations (KIP-919), ZooKeeper-migration brokers, the unclean-shutdown handling for ELR
(KIP-966) and JBOD directory reassignment; the port has one log dir per broker.
"""

from __future__ import annotations

import logging
import time as _time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    BrokerFeature,
    RegisterBrokerRecord,
)
from kafka_edu.v3_9.metadata.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from kafka_edu.v3_9.metadata.controller.controller_exceptions import (
    DuplicateBrokerRegistrationException,
    InconsistentClusterIdException,
    StaleBrokerEpochException,
)
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    METADATA_VERSION_FEATURE,
    FeatureControlManager,
    register_broker_record_version,
)
from kafka_edu.v3_9.metadata.metadata.broker_registration import (
    BrokerRegistration,
    BrokerRegistrationFencingChange,
    BrokerRegistrationInControlledShutdownChange,
    BrokerRegistrationReply,
    Endpoint,
)
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import ClusterDescriber, ReplicaPlacer, UsableBroker
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap

log = logging.getLogger(__name__)

DEFAULT_SESSION_TIMEOUT_NS = 9_000_000_000  # broker.session.timeout.ms = 9000
UNASSIGNED_DIR = uuid.UUID(int=0)  # DirectoryId.UNASSIGNED
MIGRATING_DIR = uuid.UUID(int=1)  # DirectoryId.MIGRATING


class ClusterControlManager(ClusterDescriber):
    """The registered brokers: their registrations (timeline state, from the log) and, on the active controller
    only, their heartbeats (soft state, in the BrokerHeartbeatManager)."""

    def __init__(self, snapshot_registry: SnapshotRegistry, cluster_id: str, feature_control: FeatureControlManager,
                 replica_placer: ReplicaPlacer, session_timeout_ns: int = DEFAULT_SESSION_TIMEOUT_NS,
                 nanoseconds: Callable[[], int] = _time.monotonic_ns, log_context: str = "") -> None:
        self._log_prefix = log_context
        self._cluster_id = cluster_id
        self._nanoseconds = nanoseconds
        self._session_timeout_ns = session_timeout_ns
        self._replica_placer = replica_placer
        self._feature_control = feature_control
        self._broker_registrations: TimelineHashMap[int, BrokerRegistration] = TimelineHashMap(snapshot_registry)
        self._register_broker_record_offsets: TimelineHashMap[int, int] = TimelineHashMap(snapshot_registry)
        # None unless this controller is active: a new active controller starts every broker's session afresh.
        self._heartbeat_manager: BrokerHeartbeatManager | None = None

    def replica_placer(self) -> ReplicaPlacer:
        return self._replica_placer

    def activate(self) -> None:
        heartbeat_manager = BrokerHeartbeatManager(self._log_prefix, self._session_timeout_ns, self._nanoseconds)
        for broker_id, registration in self._broker_registrations.entry_set():
            heartbeat_manager.register(broker_id, registration.fenced)
        self._heartbeat_manager = heartbeat_manager

    def deactivate(self) -> None:
        self._heartbeat_manager = None

    def heartbeat_manager(self) -> BrokerHeartbeatManager:
        if self._heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        return self._heartbeat_manager

    def broker_registrations(self) -> TimelineHashMap[int, BrokerRegistration]:
        return self._broker_registrations

    def register_broker_record_offset(self, broker_id: int) -> int | None:
        return self._register_broker_record_offsets.get(broker_id)

    def register_broker(self, request: Any, new_broker_epoch: int,
                        finalized_features: dict[str, int]) -> ControllerResult[BrokerRegistrationReply]:
        """A BrokerRegistrationRequest: a RegisterBrokerRecord, fenced, whose offset becomes the broker epoch."""

        if self._heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        if request.cluster_id != self._cluster_id:
            raise InconsistentClusterIdException(f"Expected cluster ID {self._cluster_id}, but got cluster ID "
                                                 f"{request.cluster_id}")
        broker_id = request.broker_id
        existing = self._broker_registrations.get(broker_id)
        if existing is not None:
            # A new incarnation may take over only once the old one's session is gone.
            if self._heartbeat_manager.has_valid_session(broker_id):
                if existing.incarnation_id != request.incarnation_id:
                    raise DuplicateBrokerRegistrationException("Another broker is registered with that broker id.")
            elif existing.incarnation_id != request.incarnation_id:
                self._heartbeat_manager.remove(broker_id)  # the old incarnation's session goes
        supported = {f.name: (f.min_supported_version, f.max_supported_version) for f in request.features}
        for feature, level in finalized_features.items():
            self._process_registration_feature(broker_id, feature, level, supported)
        metadata_version = self._feature_control.metadata_version()
        record = RegisterBrokerRecord(
            broker_id=broker_id,
            is_migrating_zk_broker=request.is_migrating_zk_broker,
            incarnation_id=request.incarnation_id,
            broker_epoch=new_broker_epoch,
            end_points=tuple(BrokerEndpoint(name=listener.name, host=listener.host, port=listener.port,
                                            security_protocol=listener.security_protocol)
                             for listener in request.listeners),
            features=tuple(BrokerFeature(name=f.name, min_supported_version=f.min_supported_version,
                                         max_supported_version=f.max_supported_version)
                           for f in request.features),
            rack=request.rack,
            fenced=True,
            in_controlled_shutdown=False,
            log_dirs=tuple(request.log_dirs),
        )
        self._heartbeat_manager.register(broker_id, record.fenced)
        records = [ApiMessageAndVersion(record, register_broker_record_version(metadata_version))]
        return ControllerResult.atomic_of(records, BrokerRegistrationReply(new_broker_epoch))

    def _process_registration_feature(self, broker_id: int, feature: str, level: int,
                                      supported: dict[str, tuple[int, int]]) -> None:
        low, high = supported.get(feature, (0, 0))
        if not low <= level <= high:
            raise UnsupportedVersionException(
                f"Unable to register because the broker does not support {'finalized' if level else ''} version "
                f"{level} of {feature}. The broker wants a version between {low} and {high}, inclusive.")
        if feature == METADATA_VERSION_FEATURE:
            log.debug("%sBroker %d supports metadata.version %d to %d", self._log_prefix, broker_id, low, high)

    def replay_register_broker(self, record: Any, offset: int) -> None:
        broker_id = record.broker_id
        listeners = {e.name: Endpoint(e.name, e.security_protocol, e.host, e.port) for e in record.end_points}
        features = {f.name: (f.min_supported_version, f.max_supported_version) for f in record.features}
        self._register_broker_record_offsets.put(broker_id, offset)
        prev = self._broker_registrations.put(broker_id, BrokerRegistration(
            id=broker_id, epoch=record.broker_epoch, incarnation_id=record.incarnation_id, listeners=listeners,
            supported_features=features, rack=record.rack, fenced=record.fenced,
            in_controlled_shutdown=record.in_controlled_shutdown, is_migrating_zk_broker=record.is_migrating_zk_broker,
            directories=tuple(record.log_dirs)))
        if self._heartbeat_manager is not None:
            if prev is not None:
                self._heartbeat_manager.remove(broker_id)
            self._heartbeat_manager.register(broker_id, record.fenced)
        if prev is None:
            log.info("%sReplayed initial RegisterBrokerRecord for broker %d: %s", self._log_prefix, broker_id, record)
        elif prev.incarnation_id != record.incarnation_id:
            log.info("%sReplayed RegisterBrokerRecord establishing a new incarnation of broker %d: %s",
                     self._log_prefix, broker_id, record)
        else:
            log.info("%sReplayed RegisterBrokerRecord modifying the registration for broker %d: %s",
                     self._log_prefix, broker_id, record)

    def replay_unregister_broker(self, record: Any) -> None:
        broker_id = record.broker_id
        registration = self._broker_registrations.get(broker_id)
        if registration is None:
            raise RuntimeError(f"Unable to replay {record}: no broker registration found for that id")
        if registration.epoch != record.broker_epoch:
            raise RuntimeError(f"Unable to replay {record}: no broker registration with that epoch found")
        if self._heartbeat_manager is not None:
            self._heartbeat_manager.remove(broker_id)
        self._broker_registrations.remove(broker_id)
        self._register_broker_record_offsets.remove(broker_id)
        log.info("%sReplayed %s", self._log_prefix, record)

    def replay_fence_broker(self, record: Any) -> None:
        """FenceBrokerRecord: written before MV 3.3-IV2 only."""
        self._replay_registration_change(record, record.id, record.epoch, BrokerRegistrationFencingChange.FENCE,
                                         BrokerRegistrationInControlledShutdownChange.NONE, None)

    def replay_unfence_broker(self, record: Any) -> None:
        self._replay_registration_change(record, record.id, record.epoch, BrokerRegistrationFencingChange.UNFENCE,
                                         BrokerRegistrationInControlledShutdownChange.NONE, None)

    def replay_broker_registration_change(self, record: Any) -> None:
        fencing_change = BrokerRegistrationFencingChange(record.fenced)
        in_controlled_shutdown_change = BrokerRegistrationInControlledShutdownChange(record.in_controlled_shutdown)
        log_dirs = tuple(record.log_dirs) if getattr(record, "log_dirs", ()) else None
        self._replay_registration_change(record, record.broker_id, record.broker_epoch, fencing_change,
                                         in_controlled_shutdown_change, log_dirs)

    def _replay_registration_change(self, record: Any, broker_id: int, broker_epoch: int,
                                    fencing_change: BrokerRegistrationFencingChange,
                                    in_controlled_shutdown_change: BrokerRegistrationInControlledShutdownChange,
                                    directories_change: tuple[uuid.UUID, ...] | None) -> None:
        cur = self._broker_registrations.get(broker_id)
        if cur is None:
            raise RuntimeError(f"Unable to replay {record}: no broker registration found for that id")
        if cur.epoch != broker_epoch:
            raise RuntimeError(f"Unable to replay {record}: no broker registration with that epoch found")
        nxt = cur.cloned_with(fencing_change.as_boolean(), in_controlled_shutdown_change.as_boolean(),
                              directories_change)
        if cur != nxt:
            log.info("%sReplayed %s modifying the registration for broker %d: %s", self._log_prefix,
                     type(record).__name__, broker_id, record)
            self._broker_registrations.put(broker_id, nxt)
        else:
            log.info("%sIgnoring no-op registration change for %s", self._log_prefix, nxt)
        if self._heartbeat_manager is not None:
            self._heartbeat_manager.register(broker_id, nxt.fenced)

    def usable_brokers(self) -> Iterator[UsableBroker]:
        if self._heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        return self._heartbeat_manager.usable_brokers(
            lambda broker_id: self._broker_registrations[broker_id].rack
            if broker_id in self._broker_registrations else None)

    def default_dir(self, broker_id: int) -> uuid.UUID:
        registration = self._broker_registrations.get(broker_id)
        if registration is None:
            return UNASSIGNED_DIR  # a broker that is not registered yet
        if len(registration.directories) == 0:
            return MIGRATING_DIR
        if len(registration.directories) == 1:
            return registration.directories[0]
        return UNASSIGNED_DIR  # several dirs: the broker picks and says so (AssignReplicasToDirs)

    def is_unfenced(self, broker_id: int) -> bool:
        registration = self._broker_registrations.get(broker_id)
        return registration is not None and not registration.fenced

    def is_active(self, broker_id: int) -> bool:
        """Unfenced and not in controlled shutdown: a broker that may join an ISR or lead."""
        registration = self._broker_registrations.get(broker_id)
        return registration is not None and not registration.fenced and not registration.in_controlled_shutdown

    def check_broker_epoch(self, broker_id: int, broker_epoch: int) -> None:
        registration = self._broker_registrations.get(broker_id)
        if registration is None:
            raise StaleBrokerEpochException(f"No broker registration found for broker {broker_id}")
        if registration.epoch != broker_epoch:
            raise StaleBrokerEpochException(f"Expected broker epoch {registration.epoch}, but got broker epoch "
                                            f"{broker_epoch}")
