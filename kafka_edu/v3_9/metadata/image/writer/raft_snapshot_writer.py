"""Port of metadata/src/main/java/org/apache/kafka/image/writer/RaftSnapshotWriter.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter, ImageWriterClosedException
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion


class RaftSnapshotWriter(ImageWriter):
    """Writes an image into a raft SnapshotWriter, `batch_size` records per append; completing it freezes the
    snapshot."""

    def __init__(self, snapshot_writer: Any, batch_size: int) -> None:
        self.snapshot_writer = snapshot_writer
        self.batch_size = batch_size
        self.records: list[ApiMessageAndVersion] | None = []
        self._frozen_size: int | None = None

    def write_record(self, record: ApiMessageAndVersion) -> None:
        if self.records is None:
            raise ImageWriterClosedException()
        self.records.append(record)
        if len(self.records) >= self.batch_size:
            self.snapshot_writer.append(self.records)
            self.records = []

    def close(self, complete: bool = False) -> None:
        if self.records is None:
            return
        try:
            if complete:
                if self.records:
                    self.snapshot_writer.append(self.records)
                self._frozen_size = self.snapshot_writer.freeze()
        finally:
            self.records = None
            self.snapshot_writer.close()

    def frozen_size(self) -> int | None:
        """The snapshot's size in bytes once frozen (what 3.9's emitter reports as the latest snapshot's bytes)."""
        return self._frozen_size
