"""Port of metadata/src/main/java/org/apache/kafka/image/writer/ImageWriter.java and ImageWriterClosedException.java
(Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion


class ImageWriterClosedException(RuntimeError):
    """A record written after the writer was completed or closed."""


class ImageWriter(ABC):
    """Where an image's records go: a snapshot, a list, or another image."""

    def write(self, record_or_version: ApiMessageAndVersion | int, message: Any = None) -> None:
        """`write(record)`, or Kafka's shorthand `write(version, message)`."""
        if isinstance(record_or_version, ApiMessageAndVersion):
            self.write_record(record_or_version)
        else:
            self.write_record(ApiMessageAndVersion(message, record_or_version))

    @abstractmethod
    def write_record(self, record: ApiMessageAndVersion) -> None:
        """Write one record; ImageWriterClosedException once the writer is closed."""

    @abstractmethod
    def close(self, complete: bool = False) -> None:
        """Finish (complete=True) or discard what was written; a second call does nothing."""

    def __enter__(self) -> ImageWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
