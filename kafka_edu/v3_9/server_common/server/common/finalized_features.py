"""Port of server-common/src/main/java/org/apache/kafka/server/common/FinalizedFeatures.java (Kafka 3.9).

What a broker's metadata cache reports as the cluster's finalized feature levels (`MetadataCache.features()`).
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion


class FinalizedFeatures:
    """The metadata.version, every other finalized feature by name, and the epoch (offset) they were read at."""

    def __init__(self, metadata_version: MetadataVersion, finalized_features: Mapping[str, int],
                 finalized_features_epoch: int, kraft_mode: bool) -> None:
        self._metadata_version = metadata_version
        self._finalized_features = dict(finalized_features)
        self._finalized_features_epoch = finalized_features_epoch
        # a KRaft cluster finalizes metadata.version like any feature; a ZooKeeper one never lists it
        if kraft_mode:
            self._finalized_features[FEATURE_NAME] = metadata_version.feature_level()
        else:
            self._finalized_features.pop(FEATURE_NAME, None)

    @staticmethod
    def from_kraft_version(version: MetadataVersion) -> FinalizedFeatures:
        return FinalizedFeatures(version, {}, -1, True)

    def metadata_version(self) -> MetadataVersion:
        return self._metadata_version

    def finalized_features(self) -> dict[str, int]:
        return self._finalized_features

    def finalized_features_epoch(self) -> int:
        return self._finalized_features_epoch

    def __eq__(self, other: object) -> bool:
        return (type(other) is FinalizedFeatures and self._metadata_version == other._metadata_version
                and self._finalized_features == other._finalized_features
                and self._finalized_features_epoch == other._finalized_features_epoch)

    def __hash__(self) -> int:
        return hash((self._metadata_version, tuple(sorted(self._finalized_features.items())),
                     self._finalized_features_epoch))

    def __str__(self) -> str:
        return (f"Features(metadataVersion={self._metadata_version}, finalizedFeatures={self._finalized_features}, "
                f"finalizedFeaturesEpoch={self._finalized_features_epoch})")
