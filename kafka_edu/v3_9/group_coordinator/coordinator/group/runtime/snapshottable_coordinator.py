"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/SnapshottableCoordinator.java
(Kafka 3.9).

Wraps a coordinator shard with the offsets the runtime tracks for it: each written offset gets a snapshot of the
shard's timeline structures, a failed write reverts to the snapshot of the last good offset, and a committed offset
drops the snapshots before it. One thread uses it at a time, but loading hands it from thread to thread, so every
method holds its lock (Java's synchronized).
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_playback import CoordinatorPlayback
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard import CoordinatorShard
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry

S = TypeVar("S", bound=CoordinatorShard)
U = TypeVar("U")


class SnapshottableCoordinator(CoordinatorPlayback[U], Generic[S, U]):
    """`log_context` is LogContext's prefix, as elsewhere in the port."""

    def __init__(self, log_context: str, snapshot_registry: SnapshotRegistry, coordinator: S,
                 tp: TopicPartition) -> None:
        self._log = Logging("org.apache.kafka.coordinator.group.runtime.SnapshottableCoordinator", log_context)
        self._lock = threading.RLock()
        self._coordinator = coordinator
        self._snapshot_registry = snapshot_registry
        self._tp = tp
        self._last_written_offset = 0
        # the partition's high watermark
        self._last_committed_offset = 0
        snapshot_registry.get_or_create_snapshot(0)

    def revert_last_written_offset(self, offset: int) -> None:
        """Back to `offset`: whatever was applied after it is undone."""
        with self._lock:
            if offset > self._last_written_offset:
                raise IllegalStateException(f"New offset {offset} of {self._tp} must be smaller than "
                                            f"{self._last_written_offset}.")
            self._log.debug("Revert last written offset of %s to %s.", self._tp, offset)
            self._last_written_offset = offset
            self._snapshot_registry.revert_to_snapshot(offset)

    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: U) -> None:
        with self._lock:
            self._coordinator.replay(offset, producer_id, producer_epoch, record)

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        with self._lock:
            self._coordinator.replay_end_transaction_marker(producer_id, producer_epoch, result)

    def update_last_written_offset(self, offset: int) -> None:
        """Moves the written offset forward and snapshots the state at it."""
        with self._lock:
            if offset <= self._last_written_offset:
                raise IllegalStateException(f"New last written offset {offset} of {self._tp} must be greater than "
                                            f"{self._last_written_offset}.")
            self._last_written_offset = offset
            self._snapshot_registry.get_or_create_snapshot(offset)
            self._log.debug("Updated last written offset of %s to %s.", self._tp, offset)

    def update_last_committed_offset(self, offset: int) -> None:
        """Moves the high watermark; the snapshots before it can no longer be reverted to, so they go."""
        with self._lock:
            if offset < self._last_committed_offset:
                raise IllegalStateException(f"New committed offset {offset} of {self._tp} must be greater than or "
                                            f"equal to {self._last_committed_offset}.")
            if offset > self._last_written_offset:
                raise IllegalStateException(f"New committed offset {offset} of {self._tp} must be less than or "
                                            f"equal to {self._last_written_offset}.")
            self._last_committed_offset = offset
            self._snapshot_registry.delete_snapshots_up_to(offset)
            self._log.debug("Updated committed offset of %s to %s.", self._tp, offset)

    def on_loaded(self, new_image: MetadataImage) -> None:
        with self._lock:
            self._coordinator.on_loaded(new_image)

    def on_unloaded(self) -> None:
        with self._lock:
            if self._coordinator is not None:
                self._coordinator.on_unloaded()

    def last_written_offset(self) -> int:
        with self._lock:
            return self._last_written_offset

    def on_new_metadata_image(self, new_image: MetadataImage, delta: MetadataDelta) -> None:
        """Only called after `on_loaded`."""
        with self._lock:
            self._coordinator.on_new_metadata_image(new_image, delta)

    def last_committed_offset(self) -> int:
        with self._lock:
            return self._last_committed_offset

    def coordinator(self) -> S:
        with self._lock:
            return self._coordinator

    def snapshot_registry(self) -> SnapshotRegistry:
        """For tests."""
        with self._lock:
            return self._snapshot_registry
