"""Port of metadata/src/main/java/org/apache/kafka/image/writer/ImageWriterOptions.java and
UnwritableMetadataException.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Callable

from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    MINIMUM_BOOTSTRAP_VERSION,
    MINIMUM_KRAFT_VERSION,
    MetadataVersion,
)


class UnwritableMetadataException(RuntimeError):
    """Part of an image cannot be written at the metadata.version asked for (an older version lacks its records)."""

    def __init__(self, metadata_version: MetadataVersion | None, loss: str) -> None:
        super().__init__(f"Metadata has been lost because the following could not be represented in metadata "
                         f"version {metadata_version}: {loss}")
        self.metadata_version = metadata_version
        self.loss = loss


def _raise(e: UnwritableMetadataException) -> None:
    raise e


class ImageWriterOptions:
    """How an image is written: the metadata.version that picks each record's version, and what to do with state
    that version cannot hold (by default: fail)."""

    class Builder:
        def __init__(self) -> None:
            self.metadata_version = MetadataVersion.latest_production()
            self.requested_metadata_version: MetadataVersion | None = None
            self.is_eligible_leader_replicas_enabled = False
            self.loss_handler: Callable[[UnwritableMetadataException], None] = _raise

        def set_metadata_version(self, metadata_version: MetadataVersion) -> ImageWriterOptions.Builder:
            self.requested_metadata_version = metadata_version
            # versions before 3.3-IV0 have no FeatureLevelRecord: an image is written as 3.0-IV1 then
            if metadata_version.is_less_than(MINIMUM_BOOTSTRAP_VERSION):
                self.metadata_version = MINIMUM_KRAFT_VERSION
            else:
                self.metadata_version = metadata_version
            return self

        def set_eligible_leader_replicas_enabled(self, enabled: bool) -> ImageWriterOptions.Builder:
            self.is_eligible_leader_replicas_enabled = enabled
            return self

        def set_loss_handler(self, loss_handler: Callable[[UnwritableMetadataException], None]
                             ) -> ImageWriterOptions.Builder:
            self.loss_handler = loss_handler
            return self

        def build(self) -> ImageWriterOptions:
            return ImageWriterOptions(self.metadata_version, self.loss_handler, self.requested_metadata_version,
                                      self.is_eligible_leader_replicas_enabled)

    def __init__(self, metadata_version: MetadataVersion,
                 loss_handler: Callable[[UnwritableMetadataException], None],
                 requested_metadata_version: MetadataVersion | None,
                 is_eligible_leader_replicas_enabled: bool) -> None:
        self._metadata_version = metadata_version
        self._loss_handler = loss_handler
        self._requested_metadata_version = requested_metadata_version
        self._is_eligible_leader_replicas_enabled = is_eligible_leader_replicas_enabled

    def metadata_version(self) -> MetadataVersion:
        return self._metadata_version

    def is_eligible_leader_replicas_enabled(self) -> bool:
        return self._is_eligible_leader_replicas_enabled

    def handle_loss(self, loss: str) -> None:
        self._loss_handler(UnwritableMetadataException(self._requested_metadata_version, loss))
