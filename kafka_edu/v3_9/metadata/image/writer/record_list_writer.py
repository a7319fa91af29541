"""Port of metadata/src/main/java/org/apache/kafka/image/writer/RecordListWriter.java (Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter, ImageWriterClosedException
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion


class RecordListWriter(ImageWriter):
    """Collects an image's records in a list (the records a snapshot of it would hold, in order)."""

    def __init__(self) -> None:
        self._records: list[ApiMessageAndVersion] = []
        self._closed = False

    def write_record(self, record: ApiMessageAndVersion) -> None:
        if self._closed:
            raise ImageWriterClosedException()
        self._records.append(record)

    def records(self) -> list[ApiMessageAndVersion]:
        return self._records

    def close(self, complete: bool = False) -> None:
        if self._closed:
            return
        self._closed = True
        if not complete:
            self._records.clear()
