"""Port of metadata/src/main/java/org/apache/kafka/image/writer/ImageReWriter.java (Kafka 3.9)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter, ImageWriterClosedException
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion

if TYPE_CHECKING:
    from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
    from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage


class ImageReWriter(ImageWriter):
    """Writes an image into a delta: the loader uses it to hand a new publisher everything as one delta."""

    def __init__(self, delta: MetadataDelta) -> None:
        self.delta = delta
        self._closed = False
        self._image: MetadataImage | None = None

    def write_record(self, record: ApiMessageAndVersion) -> None:
        if self._closed:
            raise ImageWriterClosedException()
        self.delta.replay(record.message)

    def close(self, complete: bool = False) -> None:
        if self._closed:
            return
        self._closed = True
        if complete:
            self.delta.finish_snapshot()
            self._image = self.delta.apply(self.delta.image().provenance)

    def image(self) -> MetadataImage | None:
        return self._image
