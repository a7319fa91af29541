"""Port of raft/src/main/java/org/apache/kafka/raft/RaftClient.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from kafka_edu.v3_9.raft.raft.batch_reader import BatchReader
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch

if TYPE_CHECKING:  # the snapshot package is its own port (kafka_edu/v3_9/raft/snapshot)
    from kafka_edu.v3_9.raft.snapshot.snapshot_reader import SnapshotReader
    from kafka_edu.v3_9.raft.snapshot.snapshot_writer import SnapshotWriter

T = TypeVar("T")


class RaftClient(ABC, Generic[T]):
    """What a state machine (the QuorumController, the MetadataLoader) sees of the replicated log."""

    class Listener(ABC, Generic[T]):
        """Callbacks, all made on the raft client's own thread (KafkaRaftClientDriver)."""

        @abstractmethod
        def handle_commit(self, reader: BatchReader[T]) -> None:
            """Batches below the high watermark, in order; the listener must close `reader` when done with it.

            Batches of one atomic append are never split across readers; separate appends may share one.
            """

        @abstractmethod
        def handle_load_snapshot(self, reader: SnapshotReader[T]) -> None:
            """Load a snapshot: everything handed to `handle_commit` before is to be forgotten. Close `reader`."""

        def handle_leader_change(self, leader: LeaderAndEpoch) -> None:  # noqa: B027 (an optional callback)
            """A new epoch, or the leader of the current epoch learned.

            When this replica becomes leader, the call waits until the listener has read up to the epoch's start,
            so the state machine has seen everything committed before it writes. Epochs only go up, and at most
            two calls come per epoch (leader unknown, then known).
            """

        def begin_shutdown(self) -> None:  # noqa: B027 (an optional callback)
            """The raft client is shutting down."""

    @abstractmethod
    def register(self, listener: RaftClient.Listener[T]) -> None:
        """Add a listener; it is attached on the raft thread's next poll."""

    @abstractmethod
    def unregister(self, listener: RaftClient.Listener[T]) -> None:
        """Remove a listener on the raft thread's next poll (no wakeup)."""

    @abstractmethod
    def high_watermark(self) -> int | None:
        """The high watermark when known, else None."""

    @abstractmethod
    def leader_and_epoch(self) -> LeaderAndEpoch:
        """The current leader and epoch (LeaderAndEpoch.UNKNOWN before initialize)."""

    @abstractmethod
    def node_id(self) -> int | None:
        """This replica's id; None for an anonymous observer."""

    @abstractmethod
    def prepare_append(self, epoch: int, records: list[T]) -> int:
        """Put `records` in the accumulator as one atomic batch and return the offset its last record will get.

        They are not written until `schedule_prepared_append`. Raises NotLeaderException if this replica is not
        the leader of `epoch`, RecordBatchTooLargeException if they do not fit in one batch.
        """

    @abstractmethod
    def schedule_prepared_append(self) -> None:
        """Let the accumulator drain what `prepare_append` prepared (after linger.ms, or at once if full)."""

    def schedule_atomic_append(self, epoch: int, records: list[T]) -> int:
        """Kafka 3.8's one-call form, kept for callers written against it: prepare, then schedule."""
        offset = self.prepare_append(epoch, records)
        self.schedule_prepared_append()
        return offset

    @abstractmethod
    def shutdown(self, timeout_ms: int) -> Future[None]:
        """Begin a graceful shutdown: a leader resigns and tells the voters (EndQuorumEpoch) first.

        The future completes when done, or fails with TimeoutException after `timeout_ms`.
        """

    @abstractmethod
    def resign(self, epoch: int) -> None:
        """Give up the leadership of `epoch` (ignored if `epoch` is already over)."""

    @abstractmethod
    def create_snapshot(self, snapshot_id: OffsetAndEpoch, last_contained_log_timestamp: int
                        ) -> SnapshotWriter[T] | None:
        """A writer for a snapshot holding the records below `snapshot_id.offset`; None if it already exists."""

    @abstractmethod
    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        """The id of the latest snapshot, if any."""

    @abstractmethod
    def log_end_offset(self) -> int:
        """The offset the next record appended to the log would get."""

    def kraft_version(self) -> Any:
        """The kraft.version: always 0 here (static voters; KIP-853 is left out)."""
        return 0

    @abstractmethod
    def close(self) -> None:
        """Release the log and other resources (after shutdown)."""
