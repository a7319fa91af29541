"""Port of metadata/src/main/java/org/apache/kafka/controller/FeatureControlManager.java (Kafka 3.9), the part
this port uses: metadata.version and the finalized feature levels, replayed from FeatureLevelRecords.

metadata.version is kept as its feature level (server-common's MetadataVersion: 3.9-IV0 is level 21); the few
MetadataVersion predicates the controller asks are the module functions below.
"""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.timeline.timeline_object import TimelineObject

log = logging.getLogger(__name__)

METADATA_VERSION_FEATURE = "metadata.version"
# MetadataVersion feature levels (server-common/.../server/common/MetadataVersion.java, Kafka 3.9).
MINIMUM_KRAFT_VERSION = 1  # 3.0-IV1
IBP_3_3_IV0 = 4  # NoOpRecord
IBP_3_3_IV2 = 6  # BrokerRegistrationChangeRecord replaces Fence/UnfenceBrokerRecord
IBP_3_6_IV1 = 13  # metadata transactions (KIP-868)
IBP_3_7_IV2 = 17  # directory assignment (KIP-858): PartitionRecord v1, RegisterBrokerRecord v3
IBP_3_9_IV0 = 21
LATEST_PRODUCTION = IBP_3_9_IV0


def is_no_op_record_supported(level: int) -> bool:
    return level >= IBP_3_3_IV0


def is_broker_registration_change_record_supported(level: int) -> bool:
    return level >= IBP_3_3_IV2


def is_metadata_transaction_supported(level: int) -> bool:
    return level >= IBP_3_6_IV1


def is_directory_assignment_supported(level: int) -> bool:
    return level >= IBP_3_7_IV2


def partition_record_version(level: int) -> int:
    return 1 if is_directory_assignment_supported(level) else 0


def partition_change_record_version(level: int) -> int:
    return 1 if is_directory_assignment_supported(level) else 0


def register_broker_record_version(level: int) -> int:
    return 3 if is_directory_assignment_supported(level) else 2


def broker_registration_change_record_version(level: int) -> int:
    return 2 if is_directory_assignment_supported(level) else 0


def version_name(level: int) -> str:
    return {IBP_3_9_IV0: "3.9-IV0", 20: "3.8-IV0", IBP_3_6_IV1: "3.6-IV1", MINIMUM_KRAFT_VERSION: "3.0-IV1"}.get(
        level, f"level {level}")


class FeatureControlManager:
    """The cluster's finalized features; metadata.version decides which records and versions the controller
    writes."""

    def __init__(self, snapshot_registry: SnapshotRegistry, metadata_version: int = MINIMUM_KRAFT_VERSION,
                 log_context: str = "") -> None:
        self._log_prefix = log_context
        self._finalized_versions: TimelineHashMap[str, int] = TimelineHashMap(snapshot_registry)
        # Until the log says otherwise, a log without a metadata.version is treated as the oldest KRaft one.
        self._metadata_version = TimelineObject(snapshot_registry, metadata_version)

    def metadata_version(self) -> int:
        return self._metadata_version.get()

    def finalized_features(self, epoch: int = LATEST_EPOCH) -> dict[str, int]:
        features = {METADATA_VERSION_FEATURE: self._metadata_version.get(epoch)}
        features.update(self._finalized_versions.entry_set(epoch))
        return features

    def replay(self, record: Any) -> None:
        """FeatureLevelRecord: metadata.version or another feature finalized at a level (0: removed)."""
        if record.name == METADATA_VERSION_FEATURE:
            log.info("%sReplayed a FeatureLevelRecord setting metadata.version to %s", self._log_prefix,
                     version_name(record.feature_level))
            self._metadata_version.set(record.feature_level)
        elif record.feature_level == 0:
            self._finalized_versions.remove(record.name)
            log.info("%sReplayed a FeatureLevelRecord removing feature %s", self._log_prefix, record.name)
        else:
            self._finalized_versions.put(record.name, record.feature_level)
            log.info("%sReplayed a FeatureLevelRecord setting feature %s to %d", self._log_prefix, record.name,
                     record.feature_level)
