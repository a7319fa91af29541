"""Port of metadata/src/main/java/org/apache/kafka/image/publisher/MetadataPublisher.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch

if TYPE_CHECKING:
    from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest
    from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
    from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage


class MetadataPublisher(ABC):
    """Told of every new metadata image the loader makes, on the loader's thread. It must not change what it is
    given: the same delta and image go to every publisher."""

    @abstractmethod
    def name(self) -> str:
        """Unique among a loader's publishers."""

    def on_controller_change(self, new_leader_and_epoch: LeaderAndEpoch) -> None:  # noqa: B027 (optional)
        """The raft leader changed."""

    @abstractmethod
    def on_metadata_update(self, delta: MetadataDelta, new_image: MetadataImage, manifest: LoaderManifest) -> None:
        """A new image: `delta` is what changed since the last one (for a snapshot, since the empty image or the
        image before it), `manifest` where it came from (a LogDeltaManifest or a SnapshotManifest)."""

    def close(self) -> None:  # noqa: B027 (optional)
        """The loader is shutting down, or removed this publisher."""
