"""Port of metadata/src/main/java/org/apache/kafka/image/publisher/SnapshotEmitter.java (Kafka 3.9)."""

from __future__ import annotations

import time as _time
from typing import Any

from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.publisher.snapshot_generator import SnapshotGenerator
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.image.writer.raft_snapshot_writer import RaftSnapshotWriter

# Records per snapshot batch. The raft layer limits batches in bytes (MAX_BATCH_SIZE_BYTES); counting records is
# simpler here, and this many stay well under it.
DEFAULT_BATCH_SIZE = 1024


class SnapshotEmitter(SnapshotGenerator.Emitter):
    """Writes a metadata image as a raft snapshot: createSnapshot, the image's records, freeze."""

    class Builder:
        def __init__(self) -> None:
            self.node_id = 0
            self.raft_client: Any = None
            self.batch_size = DEFAULT_BATCH_SIZE

        def set_node_id(self, node_id: int) -> SnapshotEmitter.Builder:
            self.node_id = node_id
            return self

        def set_raft_client(self, raft_client: Any) -> SnapshotEmitter.Builder:
            self.raft_client = raft_client
            return self

        def set_batch_size(self, batch_size: int) -> SnapshotEmitter.Builder:
            self.batch_size = batch_size
            return self

        def build(self) -> SnapshotEmitter:
            if self.raft_client is None:
                raise RuntimeError("You must set the raftClient.")
            return SnapshotEmitter(self.node_id, self.raft_client, self.batch_size)

    def __init__(self, node_id: int, raft_client: Any, batch_size: int) -> None:
        self.log = Logging("org.apache.kafka.image.publisher.SnapshotEmitter", f"[SnapshotEmitter id={node_id}] ")
        self.raft_client = raft_client
        self.batch_size = batch_size
        # SnapshotEmitterMetrics' two gauges
        self.latest_snapshot_generated_time_ms = -1
        self.latest_snapshot_generated_bytes = -1

    def maybe_emit(self, image: MetadataImage) -> None:
        provenance = image.provenance
        snapshot_writer = self.raft_client.create_snapshot(provenance.snapshot_id(),
                                                           provenance.last_contained_log_time_ms)
        if snapshot_writer is None:
            self.log.error("Not generating %s because it already exists.", provenance.snapshot_name())
            return
        writer = RaftSnapshotWriter(snapshot_writer, self.batch_size)
        try:
            image.write(writer, ImageWriterOptions.Builder()
                        .set_metadata_version(image.features.metadata_version).build())
            writer.close(True)
            self.latest_snapshot_generated_time_ms = _time.time_ns() // 1_000_000
            self.latest_snapshot_generated_bytes = writer.frozen_size()
            self.log.info("Successfully wrote %s", provenance.snapshot_name())
        except Exception:
            self.log.exception("Encountered error while writing %s", provenance.snapshot_name())
            raise
        finally:
            _close_quietly(writer, "RaftSnapshotWriter")
            _close_quietly(snapshot_writer, "SnapshotWriter")


def _close_quietly(closeable: Any, name: str) -> None:
    try:
        closeable.close()
    except Exception:
        Logging("org.apache.kafka.common.utils.Utils").exception("Failed to close %s", name)
