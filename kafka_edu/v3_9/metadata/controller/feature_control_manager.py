"""Port of metadata/src/main/java/org/apache/kafka/controller/FeatureControlManager.java (Kafka 3.9):
metadata.version and the finalized feature levels, replayed from FeatureLevelRecords, and UpdateFeatures' checks.

Port notes: no ZooKeeper migration state (a migration is never in progress). The port has no controller
registrations (KIP-919): where 3.9 checks each registered controller's supported range, the describer may say it
knows of none (`controller_supported()` returns None) and then only this controller's own range is checked, with the
note 3.9 logs before metadata.version 3.7 (the quorum runs one software). `replay` does not refuse a level outside
the local range (3.9 does), as the port's bootstrap records are not checked against QuorumFeatures yet.

The module functions are the MetadataVersion predicates the controller asks (Kafka has them on MetadataVersion).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, FeatureLevelRecord
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.quorum_features import DISABLED, QuorumFeatures, reason_not_supported
from kafka_edu.v3_9.metadata.metadata.version_range import VersionRange
from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    FEATURE_NAME,
    MINIMUM_BOOTSTRAP_VERSION,
    MINIMUM_KRAFT_VERSION,
    MetadataVersion,
    check_if_metadata_changed,
)
from kafka_edu.v3_9.server_common.server.mutable.bounded_list import BoundedList
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_object import TimelineObject

log = logging.getLogger(__name__)

METADATA_VERSION_FEATURE = FEATURE_NAME
MV = MetadataVersion


def is_no_op_record_supported(mv: MetadataVersion) -> bool:
    return mv.is_at_least(MV.IBP_3_3_IV1)


def is_broker_registration_change_record_supported(mv: MetadataVersion) -> bool:
    return mv.is_at_least(MV.IBP_3_3_IV2)


def is_in_controlled_shutdown_state_supported(mv: MetadataVersion) -> bool:
    return mv.is_at_least(MV.IBP_3_3_IV3)


def is_metadata_transaction_supported(mv: MetadataVersion) -> bool:
    return mv.is_at_least(MV.IBP_3_6_IV1)


def is_directory_assignment_supported(mv: MetadataVersion) -> bool:
    return mv.is_directory_assignment_supported()


def partition_record_version(mv: MetadataVersion) -> int:
    return 1 if is_directory_assignment_supported(mv) else 0


def partition_change_record_version(mv: MetadataVersion) -> int:
    return 1 if is_directory_assignment_supported(mv) else 0


def register_broker_record_version(mv: MetadataVersion) -> int:
    if is_directory_assignment_supported(mv):
        return 3
    return 2 if mv.is_at_least(MV.IBP_3_4_IV0) else 1


def broker_registration_change_record_version(mv: MetadataVersion) -> int:
    if is_directory_assignment_supported(mv):
        return 2
    return 1 if is_in_controlled_shutdown_state_supported(mv) else 0


MAX_RECORDS_PER_USER_OP = 10000  # QuorumController.MAX_RECORDS_PER_USER_OP


class UpgradeType(enum.IntEnum):
    """org.apache.kafka.clients.admin.FeatureUpdate.UpgradeType."""

    UNKNOWN = 0
    UPGRADE = 1
    SAFE_DOWNGRADE = 2
    UNSAFE_DOWNGRADE = 3

    @classmethod
    def from_code(cls, code: int) -> UpgradeType:
        try:
            return cls(code)
        except ValueError:
            return cls.UNKNOWN


class ClusterFeatureSupportDescriber(Protocol):
    """Which feature ranges each broker (and controller) of the cluster supports: (node id, {feature: range})."""

    def broker_supported(self) -> Iterable[tuple[int, Mapping[str, VersionRange]]]: ...

    def controller_supported(self) -> Iterable[tuple[int, Mapping[str, VersionRange]]] | None: ...


class _NoClusterSupport:
    def broker_supported(self) -> Iterable[tuple[int, Mapping[str, VersionRange]]]:
        return ()

    def controller_supported(self) -> Iterable[tuple[int, Mapping[str, VersionRange]]] | None:
        return ()


class FeatureControlManager:
    """The cluster's finalized features; metadata.version decides which records and versions the controller
    writes."""

    def __init__(self, snapshot_registry: SnapshotRegistry, metadata_version: MetadataVersion = MINIMUM_KRAFT_VERSION,
                 log_context: str = "", quorum_features: QuorumFeatures | None = None,
                 minimum_bootstrap_version: MetadataVersion = MINIMUM_BOOTSTRAP_VERSION,
                 cluster_support_describer: ClusterFeatureSupportDescriber | None = None) -> None:
        self._log_prefix = log_context
        # the Builder's default: this node (0) alone, supporting every production metadata.version
        self._quorum_features = quorum_features if quorum_features is not None else QuorumFeatures(
            0, {FEATURE_NAME: VersionRange.of(MINIMUM_KRAFT_VERSION.feature_level(),
                                             MetadataVersion.latest_production().feature_level())}, [0])
        self._minimum_bootstrap_version = minimum_bootstrap_version
        self._cluster_support_describer = cluster_support_describer or _NoClusterSupport()
        self._finalized_versions: TimelineHashMap[str, int] = TimelineHashMap(snapshot_registry)
        # Until the log says otherwise, a log without a metadata.version is treated as the oldest KRaft one.
        self._metadata_version = TimelineObject(snapshot_registry, metadata_version)

    def update_features(self, updates: Mapping[str, int], upgrade_types: Mapping[str, UpgradeType],
                        validate_only: bool) -> ControllerResult[dict[str, ApiError]]:
        """{feature: ApiError}, sorted by name, and the FeatureLevelRecords (none when validate_only)."""
        results: dict[str, ApiError] = {}
        records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        for feature_name, new_version in updates.items():
            results[feature_name] = self._update_feature(
                feature_name, new_version, upgrade_types.get(feature_name, UpgradeType.UPGRADE), records)
        results = dict(sorted(results.items()))  # a TreeMap
        if validate_only:
            return ControllerResult.of([], results)
        return ControllerResult.atomic_of(records, results)

    def metadata_version(self) -> MetadataVersion:
        return self._metadata_version.get()

    def _update_feature(self, feature_name: str, new_version: int, upgrade_type: UpgradeType,
                        records: list[Any]) -> ApiError:
        if upgrade_type is UpgradeType.UNKNOWN:
            return self._invalid_update_version(feature_name, new_version,
                                                "The controller does not support the given upgrade type.")
        if feature_name == FEATURE_NAME:
            current_version = self._metadata_version.get().feature_level()
        else:
            current_version = self._finalized_versions.get(feature_name) or 0
        if new_version < 0:
            return self._invalid_update_version(feature_name, new_version,
                                                "A feature version cannot be less than 0.")
        reason = self._reason_not_supported(feature_name, new_version)
        if reason is not None:
            return self._invalid_update_version(feature_name, new_version, reason)
        if new_version < current_version:
            if upgrade_type is UpgradeType.UPGRADE:
                return self._invalid_update_version(
                    feature_name, new_version, "Can't downgrade the version of this feature without setting the "
                                               "upgrade type to either safe or unsafe downgrade.")
        elif new_version > current_version:
            if upgrade_type is not UpgradeType.UPGRADE:
                return self._invalid_update_version(feature_name, new_version, "Can't downgrade to a newer version.")
        if feature_name == FEATURE_NAME:
            # metadata.version has checks of its own
            return self._update_metadata_version(new_version, upgrade_type is UpgradeType.UNSAFE_DOWNGRADE,
                                                 records.append)
        records.append(ApiMessageAndVersion(FeatureLevelRecord(name=feature_name, feature_level=new_version), 0))
        return ApiError.NONE

    def _reason_not_supported(self, feature_name: str, new_version: int) -> str | None:
        num_brokers_checked = 0
        num_controllers_checked = 0
        reason = self._quorum_features.reason_not_locally_supported(feature_name, new_version)
        if reason is not None:
            return reason
        num_controllers_checked += 1
        for broker_id, ranges in self._cluster_support_describer.broker_supported():
            reason = reason_not_supported(new_version, f"Broker {broker_id}", ranges.get(feature_name, DISABLED))
            if reason is not None:
                return reason
            num_brokers_checked += 1
        registration_suffix = ""
        controllers = self._cluster_support_describer.controller_supported()
        if self._metadata_version.get().is_at_least(MetadataVersion.IBP_3_7_IV0) and controllers is not None:
            found_controllers = {self._quorum_features.node_id()}
            for controller_id, ranges in controllers:
                if controller_id == self._quorum_features.node_id():
                    continue  # this controller was checked above
                reason = reason_not_supported(new_version, f"Controller {controller_id}",
                                              ranges.get(feature_name, DISABLED))
                if reason is not None:
                    return reason
                found_controllers.add(controller_id)
                num_controllers_checked += 1
            for node_id in self._quorum_features.quorum_node_ids():
                if node_id not in found_controllers:
                    return f"controller {node_id} has not registered, and may not support this feature"
        else:
            registration_suffix = " Note: unable to verify controller support in the current MetadataVersion."
        log.info("%sVerified that %d broker(s) and %d controller(s) supported changing %s to feature level %d.%s",
                 self._log_prefix, num_brokers_checked, num_controllers_checked, feature_name, new_version,
                 registration_suffix)
        return None

    def _invalid_update_version(self, feature: str, version: int, message: str) -> ApiError:
        error_message = f"Invalid update version {version} for feature {feature}. {message}"
        log.warning("%s%s", self._log_prefix, error_message)
        return ApiError(Errors.INVALID_UPDATE_VERSION, error_message)

    def _update_metadata_version(self, new_version_level: int, allow_unsafe_downgrade: bool,
                                 record_consumer: Any) -> ApiError:
        current_version = self.metadata_version()
        try:
            new_version = MetadataVersion.from_feature_level(new_version_level)
        except Exception:
            return self._invalid_metadata_version(new_version_level, "Unknown metadata.version.")
        # (3.9 refuses here while a ZooKeeper migration is in progress: the port has none)
        if new_version.is_less_than(self._minimum_bootstrap_version):
            # FeatureLevelRecord itself came with 3.3-IV0
            return self._invalid_metadata_version(
                new_version_level, f"Unable to set a metadata.version less than {self._minimum_bootstrap_version}")
        if new_version.is_less_than(current_version):
            metadata_changed = check_if_metadata_changed(current_version, new_version)
            if not metadata_changed:
                log.warning("%sDowngrading metadata.version from %s to %s.", self._log_prefix, current_version,
                            new_version)
            elif allow_unsafe_downgrade:
                return self._invalid_metadata_version(new_version_level,
                                                      "Unsafe metadata downgrade is not supported in this version.")
            else:
                # unsafe downgrades are not supported yet (KAFKA-13896), so 3.9 does not suggest one
                return self._invalid_metadata_version(new_version_level, "Refusing to perform the requested "
                                                                         "downgrade because it might delete "
                                                                         "metadata information.")
        else:
            log.warning("%sUpgrading metadata.version from %s to %s.", self._log_prefix, current_version, new_version)
        record_consumer(ApiMessageAndVersion(FeatureLevelRecord(name=FEATURE_NAME, feature_level=new_version_level),
                                             0))
        return ApiError.NONE

    def _invalid_metadata_version(self, version: int, message: str) -> ApiError:
        error_message = f"Invalid metadata.version {version}. {message}"
        log.warning("%s%s", self._log_prefix, error_message)
        return ApiError(Errors.INVALID_UPDATE_VERSION, error_message)

    def finalized_features(self, epoch: int = LATEST_EPOCH) -> dict[str, int]:
        features = {METADATA_VERSION_FEATURE: self._metadata_version.get(epoch).feature_level()}
        features.update(self._finalized_versions.entry_set(epoch))
        return features

    def replay(self, record: Any) -> None:
        """FeatureLevelRecord: metadata.version or another feature finalized at a level (0: removed)."""
        if record.name == METADATA_VERSION_FEATURE:
            mv = MetadataVersion.from_feature_level(record.feature_level)
            log.info("%sReplayed a FeatureLevelRecord setting metadata.version to %s", self._log_prefix, mv)
            self._metadata_version.set(mv)
        elif record.feature_level == 0:
            self._finalized_versions.remove(record.name)
            log.info("%sReplayed a FeatureLevelRecord removing feature %s", self._log_prefix, record.name)
        else:
            self._finalized_versions.put(record.name, record.feature_level)
            log.info("%sReplayed a FeatureLevelRecord setting feature %s to %d", self._log_prefix, record.name,
                     record.feature_level)
