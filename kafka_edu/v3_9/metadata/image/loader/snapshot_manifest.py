"""Port of metadata/src/main/java/org/apache/kafka/image/loader/SnapshotManifest.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest, LoaderManifestType
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance


@dataclass(frozen=True, eq=True)
class SnapshotManifest(LoaderManifest):
    """A snapshot that was loaded (or an image handed whole to a new publisher)."""

    _provenance: MetadataProvenance
    elapsed_ns: int

    def type(self) -> LoaderManifestType:
        return LoaderManifestType.SNAPSHOT

    def provenance(self) -> MetadataProvenance:
        return self._provenance

    def __str__(self) -> str:
        return f"SnapshotManifest(provenance={self._provenance}, elapsedNs={self.elapsed_ns})"
