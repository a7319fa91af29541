"""Port of metadata/src/main/java/org/apache/kafka/image/FeaturesImage.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from kafka_edu.v3_9.metadata.common.metadata import FeatureLevelRecord
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    FEATURE_NAME,
    MINIMUM_BOOTSTRAP_VERSION,
    MINIMUM_KRAFT_VERSION,
    MetadataVersion,
)


@dataclass(frozen=True)
class FeaturesImage:
    """The finalized feature levels: metadata.version on its own, the other features by name.

    3.9 also keeps the ZooKeeper migration state here (ZkMigrationStateRecord); ZK migration is not ported.
    """

    EMPTY: ClassVar[FeaturesImage]

    finalized_versions: Mapping[str, int] = field(default_factory=dict)
    metadata_version: MetadataVersion = MINIMUM_KRAFT_VERSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "finalized_versions", MappingProxyType(dict(self.finalized_versions)))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, FeaturesImage) and dict(self.finalized_versions) == dict(other.finalized_versions)
                and self.metadata_version == other.metadata_version)

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.finalized_versions.items())), self.metadata_version))

    def is_empty(self) -> bool:
        return not self.finalized_versions and self.metadata_version == MINIMUM_KRAFT_VERSION

    def finalized_version(self, feature: str) -> int | None:
        return self.finalized_versions.get(feature)

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        if options.metadata_version().is_less_than(MINIMUM_BOOTSTRAP_VERSION):
            self._handle_feature_level_not_supported(options)
        else:
            self._write_feature_levels(writer, options)

    def _handle_feature_level_not_supported(self, options: ImageWriterOptions) -> None:
        # before 3.3-IV0 there is no FeatureLevelRecord to carry them
        if self.finalized_versions:
            options.handle_loss("feature flag(s): " + ", ".join(sorted(self.finalized_versions)))

    def _write_feature_levels(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        # metadata.version first, at record version 0: it decides how every record after it is read, and any
        # reader can read version 0
        writer.write(0, FeatureLevelRecord(name=FEATURE_NAME,
                                           feature_level=options.metadata_version().feature_level()))
        for name, level in self.finalized_versions.items():
            if name != FEATURE_NAME:
                writer.write(0, FeatureLevelRecord(name=name, feature_level=level))

    def __str__(self) -> str:
        return (f"FeaturesImage(finalizedVersions={dict(self.finalized_versions)}, "
                f"metadataVersion={self.metadata_version})")


FeaturesImage.EMPTY = FeaturesImage({}, MINIMUM_KRAFT_VERSION)
