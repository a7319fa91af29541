"""Port of metadata/src/main/java/org/apache/kafka/controller/QuorumFeatures.java (Kafka 3.9): the feature levels
this controller's software supports, and which nodes form the controller quorum."""

from __future__ import annotations

from collections.abc import Mapping

from kafka_edu.v3_9.metadata.metadata.version_range import VersionRange
from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    FEATURE_NAME,
    MINIMUM_KRAFT_VERSION,
    MetadataVersion,
)

DISABLED = VersionRange.of(0, 0)

# server-common's Features.PRODUCTION_FEATURES in 3.9: (name, minimumProduction, latestProduction, latestTesting)
# (kraft.version 1 needs metadata.version 3.9-IV0; transaction.version 1 and 2 need 4.0-IV0, unstable in 3.9)
PRODUCTION_FEATURES = (("kraft.version", 0, 1, 1), ("transaction.version", 0, 0, 2))


def reason_not_supported(new_version: int, what: str, range_: VersionRange) -> str | None:
    if not range_.contains(new_version):
        if range_.max == 0:
            return f"{what} does not support this feature."
        return f"{what} only supports versions {range_}"
    return None


def default_feature_map(enable_unstable: bool) -> dict[str, VersionRange]:
    features = {FEATURE_NAME: VersionRange.of(
        MINIMUM_KRAFT_VERSION.feature_level(),
        (MetadataVersion.latest_testing() if enable_unstable else MetadataVersion.latest_production()).feature_level())}
    for name, minimum_production, latest_production, latest_testing in PRODUCTION_FEATURES:
        max_version = latest_testing if enable_unstable else latest_production
        if max_version > 0:
            features[name] = VersionRange.of(minimum_production, max_version)
    return features


class QuorumFeatures:
    def __init__(self, node_id: int, local_supported_features: Mapping[str, VersionRange],
                 quorum_node_ids: list[int]) -> None:
        self._node_id = node_id
        self._local_supported_features = dict(local_supported_features)
        self._quorum_node_ids = list(quorum_node_ids)

    def node_id(self) -> int:
        return self._node_id

    def local_supported_features(self) -> dict[str, VersionRange]:
        return dict(self._local_supported_features)

    def quorum_node_ids(self) -> list[int]:
        return list(self._quorum_node_ids)

    def local_supported_feature(self, name: str) -> VersionRange:
        return self._local_supported_features.get(name, DISABLED)

    def is_controller_id(self, node_id: int) -> bool:
        return node_id in self._quorum_node_ids

    def reason_not_locally_supported(self, feature_name: str, new_version: int) -> str | None:
        return reason_not_supported(new_version, f"Local controller {self._node_id}",
                                    self.local_supported_feature(feature_name))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, QuorumFeatures) and self._node_id == other._node_id
                and self._local_supported_features == other._local_supported_features
                and self._quorum_node_ids == other._quorum_node_ids)

    def __hash__(self) -> int:
        return hash((self._node_id, tuple(self._quorum_node_ids)))

    def __repr__(self) -> str:
        features = sorted(f"{k}: {v}" for k, v in self._local_supported_features.items())
        return (f"QuorumFeatures(nodeId={self._node_id}, localSupportedFeatures={{{features}}}, "
                f"quorumNodeIds=[{sorted(str(i) for i in self._quorum_node_ids)}])")
