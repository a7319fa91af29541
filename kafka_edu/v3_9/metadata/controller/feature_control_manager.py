"""Port of metadata/src/main/java/org/apache/kafka/controller/FeatureControlManager.java (Kafka 3.9), the part
this port uses: metadata.version and the finalized feature levels, replayed from FeatureLevelRecords.

The module functions are the MetadataVersion predicates the controller asks (Kafka has them on MetadataVersion).
"""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    FEATURE_NAME,
    MINIMUM_KRAFT_VERSION,
    MetadataVersion,
)
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


class FeatureControlManager:
    """The cluster's finalized features; metadata.version decides which records and versions the controller
    writes."""

    def __init__(self, snapshot_registry: SnapshotRegistry, metadata_version: MetadataVersion = MINIMUM_KRAFT_VERSION,
                 log_context: str = "") -> None:
        self._log_prefix = log_context
        self._finalized_versions: TimelineHashMap[str, int] = TimelineHashMap(snapshot_registry)
        # Until the log says otherwise, a log without a metadata.version is treated as the oldest KRaft one.
        self._metadata_version = TimelineObject(snapshot_registry, metadata_version)

    def metadata_version(self) -> MetadataVersion:
        return self._metadata_version.get()

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
