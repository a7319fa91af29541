"""Port of metadata/src/main/java/org/apache/kafka/controller/ClusterControlManager.java (Kafka 3.9).

Left out: controller registrations (KIP-919), ZooKeeper-migration brokers (a migrating broker is refused, as 3.9
refuses one when migration is off), the ready-brokers future, and JBOD directory reassignment. The unclean-shutdown
handler is kept (3.9's, ReplicationControlManager.handleBrokerUncleanShutdown, writes nothing below
metadata.version 4.0-IV0, the ELR one); by default it adds no record.
"""

from __future__ import annotations

import logging
import time as _time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, UnsupportedVersionException
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    BrokerFeature,
    RegisterBrokerRecord,
)
from kafka_edu.v3_9.metadata.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from kafka_edu.v3_9.metadata.controller.controller_exceptions import (
    BrokerIdNotRegisteredException,
    DuplicateBrokerRegistrationException,
    InconsistentClusterIdException,
    InvalidRegistrationException,
    StaleBrokerEpochException,
)
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    METADATA_VERSION_FEATURE,
    FeatureControlManager,
    is_directory_assignment_supported,
    register_broker_record_version,
)
from kafka_edu.v3_9.metadata.metadata.broker_registration import (
    MIGRATING_DIR,
    UNASSIGNED_DIR,
    BrokerRegistration,
    BrokerRegistrationFencingChange,
    BrokerRegistrationInControlledShutdownChange,
    BrokerRegistrationReply,
    Endpoint,
    directory_id_reserved,
)
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import ClusterDescriber, ReplicaPlacer, UsableBroker
from kafka_edu.v3_9.server_common.server.common.metadata_version import MINIMUM_KRAFT_VERSION
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap

log = logging.getLogger(__name__)

DEFAULT_SESSION_TIMEOUT_NS = 9_000_000_000  # broker.session.timeout.ms = 9000

BrokerUncleanShutdownHandler = Callable[[int, list[ApiMessageAndVersion]], None]


def _no_unclean_shutdown_records(broker_id: int, records: list[ApiMessageAndVersion]) -> None:
    pass


def _uuid_string(value: uuid.UUID) -> str:
    """Uuid.toString: the base64 form Kafka's messages print."""
    return str(Uuid.from_bytes(value.bytes))


class ClusterControlManager(ClusterDescriber):
    """The registered brokers: their registrations (timeline state, from the log) and, on the active controller
    only, their heartbeats (soft state, in the BrokerHeartbeatManager)."""

    def __init__(self, snapshot_registry: SnapshotRegistry, cluster_id: str, feature_control: FeatureControlManager,
                 replica_placer: ReplicaPlacer, session_timeout_ns: int = DEFAULT_SESSION_TIMEOUT_NS,
                 nanoseconds: Callable[[], int] = _time.monotonic_ns, log_context: str = "",
                 broker_unclean_shutdown_handler: BrokerUncleanShutdownHandler = _no_unclean_shutdown_records
                 ) -> None:
        self._log_prefix = log_context
        self._cluster_id = cluster_id
        self._nanoseconds = nanoseconds
        self._session_timeout_ns = session_timeout_ns
        self._replica_placer = replica_placer
        self._feature_control = feature_control
        self._broker_registrations: TimelineHashMap[int, BrokerRegistration] = TimelineHashMap(snapshot_registry)
        self._register_broker_record_offsets: TimelineHashMap[int, int] = TimelineHashMap(snapshot_registry)
        self._directory_to_broker: TimelineHashMap[uuid.UUID, int] = TimelineHashMap(snapshot_registry)
        self._broker_unclean_shutdown_handler = broker_unclean_shutdown_handler
        # None unless this controller is active: a new active controller starts every broker's session afresh.
        self._heartbeat_manager: BrokerHeartbeatManager | None = None

    def replica_placer(self) -> ReplicaPlacer:
        return self._replica_placer

    def cluster_id(self) -> str:
        return self._cluster_id

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
        """A BrokerRegistrationRequest: a RegisterBrokerRecord. A new incarnation is fenced and its record's offset
        becomes its broker epoch; the same incarnation registering again amends its registration, keeping its
        epoch and its fenced and controlled-shutdown state."""

        if self._heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        if request.cluster_id != self._cluster_id:
            raise InconsistentClusterIdException(f"Expected cluster ID {self._cluster_id}, but got cluster ID "
                                                 f"{request.cluster_id}")
        broker_id = request.broker_id
        records: list[ApiMessageAndVersion] = []
        existing = self._broker_registrations.get(broker_id)
        prev_incarnation_id = None
        if existing is not None:
            prev_incarnation_id = existing.incarnation_id
            # A new incarnation may take over only once the old one's session is gone.
            if self._heartbeat_manager.has_valid_session(broker_id):
                if request.incarnation_id != prev_incarnation_id:
                    raise DuplicateBrokerRegistrationException("Another broker is registered with that broker id.")

        if request.is_migrating_zk_broker:  # zkRegistrationAllowed() is always false: no ZooKeeper migration here
            raise BrokerIdNotRegisteredException("Controller does not support registering ZK brokers.")

        metadata_version = self._feature_control.metadata_version()
        if is_directory_assignment_supported(metadata_version):
            if not request.log_dirs:
                raise InvalidRegistrationException("No directories specified in request")
            if any(directory_id_reserved(directory) for directory in request.log_dirs):
                raise InvalidRegistrationException("Reserved directory ID in request")
            if len(set(request.log_dirs)) != len(request.log_dirs):
                raise InvalidRegistrationException("Duplicate directory ID in request")
            for directory in request.log_dirs:
                dir_broker_id = self._directory_to_broker.get(directory)
                if dir_broker_id is not None and dir_broker_id != broker_id:
                    raise InvalidRegistrationException(f"Broker {dir_broker_id} is already registered with directory "
                                                       f"{_uuid_string(directory)}")

        features: list[BrokerFeature] = []
        # The finalized features not yet seen to be supported by the broker.
        unverified_features = dict(finalized_features)
        for feature in request.features:
            features.append(self.process_registration_feature(broker_id, finalized_features, feature.name,
                                                              feature.min_supported_version,
                                                              feature.max_supported_version))
            unverified_features.pop(feature.name, None)
        # A broker that sends no metadata.version range supports only the first KRaft one.
        if not any(feature.name == METADATA_VERSION_FEATURE for feature in request.features):
            level = MINIMUM_KRAFT_VERSION.feature_level()
            features.append(self.process_registration_feature(broker_id, finalized_features,
                                                              METADATA_VERSION_FEATURE, level, level))
            unverified_features.pop(METADATA_VERSION_FEATURE, None)
        # Every other finalized feature must be supported too: one the broker does not name, at level 0 only.
        for feature_name, finalized_version in unverified_features.items():
            if finalized_version != 0 and not any(feature.name == feature_name for feature in request.features):
                self.process_registration_feature(broker_id, finalized_features, feature_name, 0, 0)

        if request.incarnation_id != prev_incarnation_id:
            prev_num_records = len(records)
            self._broker_unclean_shutdown_handler(broker_id, records)
            num_records_added = len(records) - prev_num_records
            if existing is None:
                log.info("%sNo previous registration found for broker %d. New incarnation ID is %s.  Generated %d "
                         "record(s) to clean up previous incarnations. New broker epoch is %d.", self._log_prefix,
                         broker_id, request.incarnation_id, num_records_added, new_broker_epoch)
            else:
                log.info("%sRegistering a new incarnation of broker %d. Previous incarnation ID was %s; new "
                         "incarnation ID is %s. Generated %d record(s) to clean up previous incarnations. Broker "
                         "epoch will become %d.", self._log_prefix, broker_id, existing.incarnation_id,
                         request.incarnation_id, num_records_added, new_broker_epoch)
            broker_epoch, fenced, in_controlled_shutdown = new_broker_epoch, True, False
        else:
            log.info("%sAmending registration of broker %d, incarnation ID %s. Broker epoch remains %d.",
                     self._log_prefix, broker_id, request.incarnation_id, existing.epoch)
            broker_epoch = existing.epoch
            fenced, in_controlled_shutdown = existing.fenced, existing.in_controlled_shutdown
        record = RegisterBrokerRecord(
            broker_id=broker_id,
            is_migrating_zk_broker=request.is_migrating_zk_broker,
            incarnation_id=request.incarnation_id,
            broker_epoch=broker_epoch,
            end_points=tuple(BrokerEndpoint(name=listener.name, host=listener.host, port=listener.port,
                                            security_protocol=listener.security_protocol)
                             for listener in request.listeners),
            features=tuple(features),
            rack=request.rack,
            fenced=fenced,
            in_controlled_shutdown=in_controlled_shutdown,
            log_dirs=tuple(request.log_dirs) if is_directory_assignment_supported(metadata_version) else (),
        )
        records.append(ApiMessageAndVersion(record, register_broker_record_version(metadata_version)))

        if request.incarnation_id != prev_incarnation_id:
            self._heartbeat_manager.remove(broker_id)  # the old incarnation's session goes
        self._heartbeat_manager.register(broker_id, record.fenced)
        return ControllerResult.atomic_of(records, BrokerRegistrationReply(record.broker_epoch))

    def process_registration_feature(self, broker_id: int, finalized_features: dict[str, int], name: str,
                                     min_supported_version: int, max_supported_version: int) -> BrokerFeature:
        """The broker's range of one feature, as its record holds it; UnsupportedVersionException unless the range
        holds the finalized level (metadata.version defaults to 1, any other feature to 0)."""
        default_version = 1 if name == METADATA_VERSION_FEATURE else 0
        finalized = finalized_features.get(name, default_version)
        if not min_supported_version <= finalized <= max_supported_version:
            raise UnsupportedVersionException(
                f"Unable to register because the broker does not support finalized version {finalized} of {name}. "
                f"The broker wants a version between {min_supported_version} and {max_supported_version}, "
                "inclusive.")
        # Not finalized: unknown to the controller, or finalized at 0 (not enabled).
        if name not in finalized_features:
            log.debug("%sBroker %d registered with version range (%d, %d] of feature %s which controller does not "
                      "know or has finalized version of 0.", self._log_prefix, broker_id, min_supported_version,
                      max_supported_version, name)
        return BrokerFeature(name=name, min_supported_version=min_supported_version,
                             max_supported_version=max_supported_version)

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
        self.update_directories(broker_id, None if prev is None else prev.directories, record.log_dirs)
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
        self._register_broker_record_offsets.remove(record.broker_id)
        broker_id = record.broker_id
        registration = self._broker_registrations.get(broker_id)
        if registration is None:
            raise RuntimeError(f"Unable to replay {record}: no broker registration found for that id")
        if registration.epoch != record.broker_epoch:
            raise RuntimeError(f"Unable to replay {record}: no broker registration with that epoch found")
        if self._heartbeat_manager is not None:
            self._heartbeat_manager.remove(broker_id)
        self.update_directories(broker_id, registration.directories, None)
        self._broker_registrations.remove(broker_id)
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
        self.update_directories(broker_id, cur.directories, nxt.directories)
        if self._heartbeat_manager is not None:
            self._heartbeat_manager.register(broker_id, nxt.fenced)

    def usable_brokers(self) -> Iterator[UsableBroker]:
        if self._heartbeat_manager is None:
            raise RuntimeError("ClusterControlManager is not active.")
        return self._heartbeat_manager.usable_brokers(
            lambda broker_id: self._broker_registrations[broker_id].rack
            if broker_id in self._broker_registrations else None)

    def has_online_dir(self, broker_id: int, directory_id: uuid.UUID) -> bool:
        """Whether the directory is online on the broker; False too when the broker is not registered."""
        registration = self._broker_registrations.get(broker_id)
        return registration is not None and registration.has_online_dir(directory_id)

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

    def registration(self, broker_id: int) -> BrokerRegistration | None:
        return self._broker_registrations.get(broker_id)

    def in_controlled_shutdown(self, broker_id: int) -> bool:
        registration = self._broker_registrations.get(broker_id)
        return registration is not None and registration.in_controlled_shutdown

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

    def update_directories(self, broker_id: int, dirs_to_remove: Iterable[uuid.UUID] | None,
                           dirs_to_add: Iterable[uuid.UUID] | None) -> None:
        """Keep the directory-to-broker map, which registration checks a broker's directories against."""
        if dirs_to_remove is not None:
            for directory in dirs_to_remove:
                if self._directory_to_broker.get(directory) != broker_id:
                    raise IllegalStateException(f"BUG: directory {_uuid_string(directory)} not assigned to broker "
                                                f"{broker_id}")
                self._directory_to_broker.remove(directory)
        if dirs_to_add is not None:
            for directory in dirs_to_add:
                existing_id = self._directory_to_broker.put_if_absent(directory, broker_id)
                if existing_id is not None and existing_id != broker_id:
                    raise IllegalStateException(f"BUG: directory {_uuid_string(directory)} already assigned to broker "
                                                f"{existing_id}")
