"""Port of metadata/src/main/java/org/apache/kafka/image/publisher/SnapshotGenerator.java (Kafka 3.9)."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import Any

from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.metadata.controller.quorum_controller import FaultHandler
from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest, LoaderManifestType
from kafka_edu.v3_9.metadata.image.loader.log_delta_manifest import LogDeltaManifest
from kafka_edu.v3_9.metadata.image.loader.snapshot_manifest import SnapshotManifest
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.publisher.metadata_publisher import MetadataPublisher
from kafka_edu.v3_9.server_common.queue.event_queue import Event
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import SYSTEM_TIME, KafkaEventQueue, Time


class DisabledReason:
    """Java's AtomicReference<String>: why snapshots are off (None: they are on); SharedServer's fault handlers
    set it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value: str | None = None

    def get(self) -> str | None:
        with self._lock:
            return self._value

    def compare_and_set(self, expected: str | None, new: str | None) -> bool:
        with self._lock:
            if self._value != expected:
                return False
            self._value = new
            return True


class SnapshotGenerator(MetadataPublisher):
    """A publisher that asks its Emitter for a snapshot of the image once enough log bytes or time have gone by
    since the last one. Snapshots are written on its own event queue, one at a time: while one is queued or being
    written, the next thresholds crossed are ignored."""

    class Emitter(ABC):
        @abstractmethod
        def maybe_emit(self, image: MetadataImage) -> None:
            """Write `image` as a snapshot, unless one with its offset and epoch already exists."""

    class Builder:
        def __init__(self, emitter: SnapshotGenerator.Emitter) -> None:
            self.emitter = emitter
            self.node_id = 0
            self.time: Time = SYSTEM_TIME
            self.fault_handler: Any = FaultHandler("snapshot generation")
            self.max_bytes_since_last_snapshot = 100 * 1024 * 1024
            self.max_time_since_last_snapshot_ns = 24 * 60 * 60 * 1_000_000_000
            self.disabled_reason: DisabledReason | None = None
            self.thread_name_prefix = ""

        def set_node_id(self, node_id: int) -> SnapshotGenerator.Builder:
            self.node_id = node_id
            return self

        def set_time(self, time: Time) -> SnapshotGenerator.Builder:
            self.time = time
            return self

        def set_fault_handler(self, fault_handler: Any) -> SnapshotGenerator.Builder:
            self.fault_handler = fault_handler
            return self

        def set_max_bytes_since_last_snapshot(self, max_bytes: int) -> SnapshotGenerator.Builder:
            self.max_bytes_since_last_snapshot = max_bytes
            return self

        def set_max_time_since_last_snapshot_ns(self, max_time_ns: int) -> SnapshotGenerator.Builder:
            self.max_time_since_last_snapshot_ns = max_time_ns
            return self

        def set_disabled_reason(self, disabled_reason: DisabledReason) -> SnapshotGenerator.Builder:
            self.disabled_reason = disabled_reason
            return self

        def set_thread_name_prefix(self, thread_name_prefix: str) -> SnapshotGenerator.Builder:
            self.thread_name_prefix = thread_name_prefix
            return self

        def build(self) -> SnapshotGenerator:
            if self.disabled_reason is None:
                self.disabled_reason = DisabledReason()
            return SnapshotGenerator(self.node_id, self.time, self.emitter, self.fault_handler,
                                     self.max_bytes_since_last_snapshot, self.max_time_since_last_snapshot_ns,
                                     self.disabled_reason, self.thread_name_prefix)

    def __init__(self, node_id: int, time: Time, emitter: SnapshotGenerator.Emitter, fault_handler: Any,
                 max_bytes_since_last_snapshot: int, max_time_since_last_snapshot_ns: int,
                 disabled_reason: DisabledReason, thread_name_prefix: str) -> None:
        self.node_id = node_id
        self.time = time
        self.emitter = emitter
        self.fault_handler = fault_handler
        # metadata.log.max.record.bytes.between.snapshots
        self.max_bytes_since_last_snapshot = max_bytes_since_last_snapshot
        # metadata.log.max.snapshot.interval.ms in ns; 0: no time-based snapshots
        self.max_time_since_last_snapshot_ns = max_time_since_last_snapshot_ns
        self.disabled_reason = disabled_reason
        log_context = f"[SnapshotGenerator id={node_id}] "
        self.log = Logging("org.apache.kafka.image.publisher.SnapshotGenerator", log_context)
        self.event_queue = KafkaEventQueue(time, log_context, thread_name_prefix + "snapshot-generator-")
        self.bytes_since_last_snapshot = 0
        self.last_snapshot_time_ns = 0
        self.reset_snapshot_counters()
        self.log.debug("Starting SnapshotGenerator.")

    def name(self) -> str:
        return "SnapshotGenerator"

    def reset_snapshot_counters(self) -> None:
        self.bytes_since_last_snapshot = 0
        self.last_snapshot_time_ns = self.time.nanoseconds()

    def on_metadata_update(self, delta: MetadataDelta, new_image: MetadataImage, manifest: LoaderManifest) -> None:
        if manifest.type() is LoaderManifestType.LOG_DELTA:
            self.publish_log_delta(delta, new_image, manifest)  # type: ignore[arg-type]
        elif manifest.type() is LoaderManifestType.SNAPSHOT:
            self.publish_snapshot(delta, new_image, manifest)  # type: ignore[arg-type]

    def publish_snapshot(self, delta: MetadataDelta, new_image: MetadataImage, manifest: SnapshotManifest) -> None:
        # a snapshot was just loaded (or this publisher was just installed): counting starts again from it
        self.log.debug("Resetting the snapshot counters because we just read %s.",
                       new_image.provenance.snapshot_name())
        self.reset_snapshot_counters()

    def publish_log_delta(self, delta: MetadataDelta, new_image: MetadataImage, manifest: LogDeltaManifest) -> None:
        self.bytes_since_last_snapshot += manifest.num_bytes
        if self.bytes_since_last_snapshot >= self.max_bytes_since_last_snapshot:
            if self.event_queue.is_empty():
                self.schedule_emit(f"we have replayed at least {self.max_bytes_since_last_snapshot} bytes", new_image)
            else:
                self.log.debug("Not scheduling bytes-based snapshot because event queue is not empty yet.")
        elif (self.max_time_since_last_snapshot_ns != 0
              and self.time.nanoseconds() - self.last_snapshot_time_ns >= self.max_time_since_last_snapshot_ns):
            if self.event_queue.is_empty():
                minutes = self.max_time_since_last_snapshot_ns // 60_000_000_000
                self.schedule_emit(f"we have waited at least {minutes} minute(s)", new_image)
            else:
                self.log.debug("Not scheduling time-based snapshot because event queue is not empty yet.")
        else:
            self.log.debug("Neither time-based nor bytes-based criteria are met; not scheduling snapshot.")

    def schedule_emit(self, reason: str, image: MetadataImage) -> None:
        self.reset_snapshot_counters()

        def emit() -> None:
            current_disabled_reason = self.disabled_reason.get()
            if current_disabled_reason is not None:
                self.log.error("Not emitting %s despite the fact that %s because snapshots are disabled; %s",
                               image.provenance.snapshot_name(), reason, current_disabled_reason)
            else:
                self.log.info("Creating new KRaft snapshot file %s because %s.", image.provenance.snapshot_name(),
                              reason)
                try:
                    self.emitter.maybe_emit(image)
                except Exception as e:
                    self.fault_handler.handle_fault("KRaft snapshot file generation error", e)

        self.event_queue.append(_EmitEvent(emit))

    def begin_shutdown(self) -> None:
        self.log.debug("Beginning shutdown of SnapshotGenerator.")
        self.disabled_reason.compare_and_set(None, "we are shutting down")
        self.event_queue.begin_shutdown("beginShutdown")

    def close(self) -> None:
        self.event_queue.begin_shutdown("close")
        self.log.debug("Closing SnapshotGenerator.")
        self.event_queue.close()


class _EmitEvent(Event):
    """scheduleEmit's lambda: the snapshot written on the generator's own thread."""

    name = "emitSnapshot"

    def __init__(self, emit: Any) -> None:
        self._emit = emit

    def run(self) -> None:
        self._emit()
