"""Port of metadata/src/main/java/org/apache/kafka/image/FeaturesDelta.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.metadata.image.features_image import FeaturesImage
from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion


class FeaturesDelta:
    """Feature levels set or removed since `image`; metadata.version is tracked apart from the others."""

    def __init__(self, image: FeaturesImage) -> None:
        self.image = image
        self._changes: dict[str, int | None] = {}  # None: the feature was removed
        self._metadata_version_change: MetadataVersion | None = None

    def changes(self) -> dict[str, int | None]:
        return self._changes

    def metadata_version_change(self) -> MetadataVersion | None:
        return self._metadata_version_change

    def finish_snapshot(self) -> None:
        # a feature the snapshot did not mention is gone; metadata.version is always in a snapshot
        for feature_name in self.image.finalized_versions:
            if feature_name not in self._changes:
                self._changes[feature_name] = None

    def replay(self, record: Any) -> None:
        if record.name == FEATURE_NAME:
            self._metadata_version_change = MetadataVersion.from_feature_level(record.feature_level)
        elif record.feature_level == 0:
            self._changes[record.name] = None
        else:
            self._changes[record.name] = record.feature_level

    def apply(self) -> FeaturesImage:
        new_finalized_versions: dict[str, int] = {}
        for name, level in self.image.finalized_versions.items():
            if name not in self._changes:
                new_finalized_versions[name] = level
            elif self._changes[name] is not None:
                new_finalized_versions[name] = self._changes[name]  # type: ignore[assignment]
        for name, change in self._changes.items():
            if name not in new_finalized_versions and change is not None:
                new_finalized_versions[name] = change
        metadata_version = (self.image.metadata_version if self._metadata_version_change is None
                            else self._metadata_version_change)
        return FeaturesImage(new_finalized_versions, metadata_version)

    def __str__(self) -> str:
        return f"FeaturesDelta(changes={self._changes}, metadataVersionChange={self._metadata_version_change})"
