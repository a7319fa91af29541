"""Port of core/src/main/scala/kafka/server/ReplicaAlterLogDirsThread.scala (Kafka 3.9): the thread that moves replicas
between the log dirs of one broker, fetching from the partition's current log (through LocalLeaderEndPoint) into its
future log, and swapping the future log in once it has caught up.

With a DirectoryEventHandler (KIP-858, JBOD on KRaft) the swap waits until the controller has accepted the new
directory assignment; without one (`None`, Kafka's DirectoryEventHandler.NOOP) the swap is immediate.

Left out: BrokerTopicStats' meters and the TierStateMachine (tiered storage is not ported: AbstractFetcherThread backs
such a partition off).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping, Set
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions, InitialFetchState
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import (
    AbstractFetcherThread,
    OffsetTruncationState,
    PartitionFetchState,
)
from kafka_edu.v3_9.core.server.leader_end_point import FetchData, LeaderEndPoint
from kafka_edu.v3_9.core.server.remote_leader_end_point import ReplicaQuota
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.server_common.server.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)

TRACE = logging.DEBUG - 5


class ReplicaAlterLogDirsThread(AbstractFetcherThread):
    """`directory_event_handler` None is Kafka's DirectoryEventHandler.NOOP."""

    def __init__(self, name: str, leader: LeaderEndPoint, failed_partitions: FailedPartitions, replica_mgr: Any,
                 quota: ReplicaQuota | None, broker_topic_stats: Any, fetch_back_off_ms: int,
                 directory_event_handler: Any = None) -> None:
        super().__init__(name=name, client_id=name, leader=leader, failed_partitions=failed_partitions,
                         fetch_tier_state_machine=None, fetch_back_off_ms=fetch_back_off_ms, is_interruptible=False,
                         broker_topic_stats=broker_topic_stats)
        self.replica_mgr = replica_mgr
        self.quota = quota
        self.directory_event_handler = directory_event_handler
        # each partition's move: where its directory assignment stands, and where to revert it (visible for testing)
        self.promotion_states: dict[TopicPartition, PromotionState] = {}

    def latest_epoch(self, topic_partition: TopicPartition) -> int | None:
        return self.replica_mgr.future_local_log_or_exception(topic_partition).latest_epoch()

    def log_start_offset(self, topic_partition: TopicPartition) -> int:
        return self.replica_mgr.future_local_log_or_exception(topic_partition).log_start_offset

    def log_end_offset(self, topic_partition: TopicPartition) -> int:
        return self.replica_mgr.future_local_log_or_exception(topic_partition).log_end_offset()

    def end_offset_for_epoch(self, topic_partition: TopicPartition, epoch: int) -> OffsetAndEpoch | None:
        return self.replica_mgr.future_local_log_or_exception(topic_partition).end_offset_for_epoch(epoch)

    def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int,
                               partition_data: FetchData) -> LogAppendInfo | None:
        partition = self.replica_mgr.get_partition_or_exception(topic_partition)
        future_log = partition.future_local_log_or_exception()
        records = self.to_memory_records(FetchResponse.records_or_fail(partition_data))

        if fetch_offset != future_log.log_end_offset():
            raise IllegalStateException(f"Offset mismatch for the future replica {topic_partition}: fetched offset = "
                                        f"{fetch_offset}, log end offset = {future_log.log_end_offset()}.")

        log_append_info = None
        if records.size_in_bytes() > 0:
            log_append_info = partition.append_records_to_follower_or_future_replica(records, is_future=True)

        future_log.update_high_watermark(partition_data.high_watermark)
        future_log.maybe_increment_log_start_offset(partition_data.log_start_offset,
                                                    LogStartOffsetIncrementReason.LeaderOffsetIncremented)

        if self.directory_event_handler is None:
            if partition.maybe_replace_current_with_future_replica():
                self.remove_partitions({topic_partition})
        else:
            self._maybe_promote_future_replica(topic_partition, partition)

        if self.quota is not None:
            self.quota.record(records.size_in_bytes())
        return log_append_info

    def remove_partitions(self, topic_partitions: Set[TopicPartition]) -> dict[TopicPartition, PartitionFetchState]:
        for topic_partition in topic_partitions:
            promotion_state = self.promotion_states.get(topic_partition)
            if promotion_state is not None:
                # a move stopped before its promotion: the assignment goes back to the original dir
                if (promotion_state.current_dir is not None and promotion_state.topic_id is not None
                        and promotion_state.reassignment_state.maybe_inconsistent_metadata
                        and self.directory_event_handler is not None):
                    self.directory_event_handler.handle_assignment(
                        TopicIdPartition(promotion_state.topic_id, topic_partition.partition),
                        promotion_state.current_dir, "Reverting reassignment for canceled future replica",
                        lambda: None)
                self.promotion_states.pop(topic_partition, None)

        return super().remove_partitions(topic_partitions)

    def _reassignment_state(self, topic_partition: TopicPartition) -> ReassignmentState:
        return self.promotion_states[topic_partition].reassignment_state

    def update_reassignment_state(self, topic_partition: TopicPartition, state: ReassignmentState) -> None:
        """Visible for testing."""
        self.log.debug("Updating future replica %s reassignment state to %s", topic_partition, state)
        self.promotion_states[topic_partition] = self.promotion_states[topic_partition].with_assignment(state)

    def _maybe_promote_future_replica(self, topic_partition: TopicPartition, partition: Any) -> None:
        topic_id = partition.topic_id()
        if topic_id is None:
            raise IllegalStateException(f"Topic {topic_partition.topic} does not have an ID.")

        reassignment_state = self._reassignment_state(topic_partition)
        if reassignment_state == ReassignmentState.NONE:
            # The new assignment goes to the controller first; the future log is promoted once it is accepted.
            def schedule_assignment(_: Any) -> None:
                target_dir = partition.future_replica_directory_id()
                topic_id_partition = TopicIdPartition(topic_id, topic_partition.partition)
                self.directory_event_handler.handle_assignment(
                    topic_id_partition, target_dir, "Future replica promotion",
                    lambda: self.update_reassignment_state(topic_partition, ReassignmentState.ACCEPTED))
                self.update_reassignment_state(topic_partition, ReassignmentState.QUEUED)

            partition.run_callback_if_future_replica_caught_up(schedule_assignment)
        elif reassignment_state == ReassignmentState.ACCEPTED:
            # accepted by the controller, and caught up with the current log: promote
            if partition.maybe_replace_current_with_future_replica():
                self.update_reassignment_state(topic_partition, ReassignmentState.EFFECTIVE)
                self.remove_partitions({topic_partition})
        elif reassignment_state == ReassignmentState.QUEUED:
            self.log.log(TRACE, "Waiting for AssignReplicasToDirsRequest to succeed before promoting the future "
                         "replica.")
        else:
            raise IllegalStateException("BUG: trying to promote a future replica twice")

    def add_partitions(self, initial_fetch_states: Mapping[TopicPartition, InitialFetchState]) -> Set[TopicPartition]:
        with self.partition_map_lock:
            # the move may have completed just before this call: only partitions that still have a future log
            filtered_fetch_states = {tp: state for tp, state in initial_fetch_states.items()
                                     if self.replica_mgr.future_log_exists(tp)}
            for topic_partition, state in filtered_fetch_states.items():
                current_directory_id = self.replica_mgr.get_partition_or_exception(topic_partition).log_directory_id()
                self.promotion_states[topic_partition] = PromotionState(ReassignmentState.NONE, state.topic_id,
                                                                        current_directory_id)
            return super().add_partitions(filtered_fetch_states)

    @property
    def is_offset_for_leader_epoch_supported(self) -> bool:
        return True

    def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
        """Truncate the future log as a follower would, from the current log's end offset for the future log's
        latest epoch. The initial fetch offset may be where the current log truncated to rather than the high
        watermark. The epoch exchange is needed because a future log offline while the current log truncated and
        re-replicated misses the mark for truncation: it must find the largest common prefix itself."""
        partition = self.replica_mgr.get_partition_or_exception(topic_partition)
        partition.truncate_to(truncation_state.offset, is_future=True)

    def truncate_fully_and_start_at(self, topic_partition: TopicPartition, offset: int) -> None:
        partition = self.replica_mgr.get_partition_or_exception(topic_partition)
        partition.truncate_fully_and_start_at(offset, is_future=True)


class ReassignmentState(enum.Enum):
    """Where the request to move the replica's directory assignment (current dir -> future dir) stands."""

    NONE = "None"  # not created yet
    QUEUED = "Queued"  # queued; it may or may not have gone to the controller yet
    ACCEPTED = "Accepted"  # the controller has persisted the new assignment
    EFFECTIVE = "Effective"  # the future replica has replaced the current one

    @property
    def maybe_inconsistent_metadata(self) -> bool:
        """Whether the metadata's assignment may differ from the dir the current replica really is in."""
        return self in (ReassignmentState.QUEUED, ReassignmentState.ACCEPTED)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class PromotionState:
    """The assignment request's state, the topic id (to revert the assignment) and the dir the move started from."""

    reassignment_state: ReassignmentState
    topic_id: UUID | Uuid | None
    current_dir: Uuid | None

    def with_assignment(self, new_dir_reassignment_state: ReassignmentState) -> PromotionState:
        return replace(self, reassignment_state=new_dir_reassignment_state)
