"""Port of core/src/main/scala/kafka/server/AbstractFetcherThread.scala (Kafka 3.9): a thread that fetches many
partitions from one leader, truncating them first where their log may have diverged from it.

The log behind it is the subclass's (ReplicaFetcherThread: the replica's log); this class keeps only the fetch
state of each partition (PartitionFetchState: Truncating or Fetching, delayed after an error). Kafka's yammer
metrics (FetcherStats, FetcherLagStats) keep their values here without a registry. Tiered storage is not ported:
the OFFSET_MOVED_TO_TIERED_STORAGE branch hands over to a TierStateMachine only if one is given.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar
from uuid import UUID

from kio.schema.offset_for_leader_epoch.v4.response import EpochEndOffset

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalStateException,
    KafkaStorageException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.internals.partition_states import PartitionStates
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.requests.fetch_request import Builder as FetchRequestBuilder
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData as FetchRequestPartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, FetchData, LeaderEndPoint
from kafka_edu.v3_9.core.utils.delayed_item import DelayedItem
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions, InitialFetchState

R = TypeVar("R")


class ReplicaFetch(NamedTuple):
    """AbstractFetcherThread.ReplicaFetch: the partitions of a fetch request and the request."""

    partition_data: Mapping[TopicPartition, FetchRequestPartitionData]
    fetch_request: FetchRequestBuilder


class ResultWithPartitions(NamedTuple, Generic[R]):
    result: R
    partitions_with_error: Set[TopicPartition]


class AbstractFetcherThread(ShutdownableThread):
    """Subclasses say how the local log is read, appended to and truncated (the abstract methods)."""

    def __init__(self, name: str, client_id: str, leader: LeaderEndPoint, failed_partitions: FailedPartitions,
                 fetch_tier_state_machine: Any = None, fetch_back_off_ms: int = 0, is_interruptible: bool = True,
                 broker_topic_stats: Any = None) -> None:
        super().__init__(name, is_interruptible, log_prefix=f"[{name}]: ")
        self.leader = leader
        self.failed_partitions = failed_partitions
        self.fetch_tier_state_machine = fetch_tier_state_machine
        self.fetch_back_off_ms = fetch_back_off_ms
        self.broker_topic_stats = broker_topic_stats  # lifecycle managed by ReplicaManager
        self._partition_states: PartitionStates[PartitionFetchState] = PartitionStates()
        self.partition_map_lock = threading.RLock()
        self._partition_map_cond = threading.Condition(self.partition_map_lock)
        end_point = leader.broker_end_point()
        metric_id = ClientIdAndBroker(client_id, end_point.host, end_point.port)
        self.fetcher_stats = FetcherStats(metric_id)
        self.fetcher_lag_stats = FetcherLagStats(metric_id)

    # callbacks the subclass defines

    def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int,
                               partition_data: FetchData) -> LogAppendInfo | None:
        raise NotImplementedError

    def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
        raise NotImplementedError

    def truncate_fully_and_start_at(self, topic_partition: TopicPartition, offset: int) -> None:
        raise NotImplementedError

    def latest_epoch(self, topic_partition: TopicPartition) -> int | None:
        raise NotImplementedError

    def log_start_offset(self, topic_partition: TopicPartition) -> int:
        raise NotImplementedError

    def log_end_offset(self, topic_partition: TopicPartition) -> int:
        raise NotImplementedError

    def end_offset_for_epoch(self, topic_partition: TopicPartition, epoch: int) -> OffsetAndEpoch | None:
        raise NotImplementedError

    @property
    def is_offset_for_leader_epoch_supported(self) -> bool:
        raise NotImplementedError

    def shutdown(self) -> None:
        self.initiate_shutdown()
        with self.partition_map_lock:
            self._partition_map_cond.notify_all()
        self.await_shutdown()
        # the thread has stopped: no lock needed to drop the metrics
        self.fetcher_stats.unregister()
        self.fetcher_lag_stats.unregister()

    def interrupt(self) -> None:
        # Java's interrupt ends the back-off wait in maybe_fetch; here the condition is woken instead
        with self.partition_map_lock:
            self._partition_map_cond.notify_all()

    def do_work(self) -> None:
        self._maybe_truncate()
        self._maybe_fetch()

    def _maybe_fetch(self) -> None:
        with self.partition_map_lock:
            fetch_request_opt, partitions_with_error = self.leader.build_fetch(
                self._partition_states.partition_state_map())
            self._handle_partitions_with_errors(partitions_with_error, "maybeFetch")
            if fetch_request_opt is None:
                self.log.debug("There are no active partitions. Back off for %d ms before sending a fetch request",
                               self.fetch_back_off_ms)
                self._partition_map_cond.wait(self.fetch_back_off_ms / 1000)

        if fetch_request_opt is not None:
            self._process_fetch_request(fetch_request_opt.partition_data, fetch_request_opt.fetch_request)

    def _handle_partitions_with_errors(self, partitions: Iterable[TopicPartition], method_name: str) -> None:
        """Partitions with errors, often from a leadership change, wait `fetch_back_off_ms` before their next try."""
        partitions = list(partitions)
        if partitions:
            self.log.debug("Handling errors in %s for partitions %s", method_name, partitions)
            self._delay_partitions(partitions, self.fetch_back_off_ms)

    def _fetch_truncating_partitions(self) -> tuple[dict[TopicPartition, EpochData], set[TopicPartition]]:
        """The truncating partitions: those with a latest epoch go to OffsetsForLeaderEpoch, the others truncate to
        their high watermark."""
        with self.partition_map_lock:
            partitions_with_epochs: dict[TopicPartition, EpochData] = {}
            partitions_without_epochs: set[TopicPartition] = set()
            for tp, state in self._partition_states.partition_state_map().items():
                if state.is_truncating:
                    epoch = self.latest_epoch(tp)
                    if epoch is not None and self.is_offset_for_leader_epoch_supported:
                        partitions_with_epochs[tp] = EpochData(partition=tp.partition,
                                                               current_leader_epoch=state.current_leader_epoch,
                                                               leader_epoch=epoch)
                    else:
                        partitions_without_epochs.add(tp)
            return partitions_with_epochs, partitions_without_epochs

    def _maybe_truncate(self) -> None:
        partitions_with_epochs, partitions_without_epochs = self._fetch_truncating_partitions()
        if partitions_with_epochs:
            self._truncate_to_epoch_end_offsets(partitions_with_epochs)
        if partitions_without_epochs:
            self.truncate_to_high_watermark(partitions_without_epochs)

    def _do_truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> bool:
        try:
            self.truncate(topic_partition, truncation_state)
            return True
        except KafkaStorageException:
            self.log.error("Failed to truncate %s at offset %d", topic_partition, truncation_state.offset,
                           exc_info=True)
            self._mark_partition_failed(topic_partition)
            return False
        except Exception:
            self.log.error("Unexpected error occurred during truncation for %s at offset %d", topic_partition,
                           truncation_state.offset, exc_info=True)
            self._mark_partition_failed(topic_partition)
            return False

    def _truncate_to_epoch_end_offsets(self, latest_epochs_for_partitions: Mapping[TopicPartition, EpochData]) -> None:
        """OffsetsForLeaderEpoch for the truncating partitions, then truncation under the lock, so that no
        leadership change slips in between."""
        end_offsets = self.leader.fetch_epoch_end_offsets(latest_epochs_for_partitions)
        with self.partition_map_lock:
            # drop the answers for partitions whose leader epoch changed (or that left) while the request was out
            epoch_end_offsets: dict[TopicPartition, EpochEndOffset] = {}
            for tp, epoch_end_offset in end_offsets.items():
                cur_partition_state = self._partition_states.state_value(tp)
                partition_epoch_request = latest_epochs_for_partitions.get(tp)
                if partition_epoch_request is None:
                    raise IllegalStateException(
                        f"Leader replied with partition {tp} not requested in OffsetsForLeaderEpoch request")
                leader_epoch_in_request = partition_epoch_request.current_leader_epoch
                if cur_partition_state is not None and \
                        leader_epoch_in_request == cur_partition_state.current_leader_epoch:
                    epoch_end_offsets[tp] = epoch_end_offset

            fetch_offsets, partitions_with_error = self._maybe_truncate_to_epoch_end_offsets(
                epoch_end_offsets, latest_epochs_for_partitions)
            self._handle_partitions_with_errors(partitions_with_error, "truncateToEpochEndOffsets")
            self._update_fetch_offset_and_maybe_mark_truncation_complete(fetch_offsets)

    @step("RQ.follower.2")
    def truncate_on_fetch_response(self, epoch_end_offsets: Mapping[TopicPartition, EpochEndOffset]) -> None:
        with self.partition_map_lock:
            fetch_offsets, partitions_with_error = self._maybe_truncate_to_epoch_end_offsets(epoch_end_offsets, {})
            self._handle_partitions_with_errors(partitions_with_error, "truncateOnFetchResponse")
            self._update_fetch_offset_and_maybe_mark_truncation_complete(fetch_offsets)

    def truncate_to_high_watermark(self, partitions: Set[TopicPartition]) -> None:
        with self.partition_map_lock:
            fetch_offsets: dict[TopicPartition, OffsetTruncationState] = {}
            for tp in partitions:
                partition_state = self._partition_states.state_value(tp)
                if partition_state is not None:
                    high_watermark = partition_state.fetch_offset
                    truncation_state = OffsetTruncationState(high_watermark, truncation_completed=True)
                    self.log.info("Truncating partition %s with %s due to local high watermark %d", tp,
                                  truncation_state, high_watermark)
                    if self._do_truncate(tp, truncation_state):
                        fetch_offsets[tp] = truncation_state
            self._update_fetch_offset_and_maybe_mark_truncation_complete(fetch_offsets)

    def _maybe_truncate_to_epoch_end_offsets(
            self, fetched_epochs: Mapping[TopicPartition, EpochEndOffset],
            latest_epochs_for_partitions: Mapping[TopicPartition, EpochData]
    ) -> ResultWithPartitions[dict[TopicPartition, OffsetTruncationState]]:
        fetch_offsets: dict[TopicPartition, OffsetTruncationState] = {}
        partitions_with_error: set[TopicPartition] = set()

        for tp, leader_epoch_offset in fetched_epochs.items():
            if self._partition_states.contains(tp):
                error = Errors.for_code(int(leader_epoch_offset.error_code))
                if error == Errors.NONE:
                    offset_truncation_state = self._get_offset_truncation_state(tp, leader_epoch_offset)
                    self.log.info("Truncating partition %s with %s due to leader epoch and offset %s", tp,
                                  offset_truncation_state, leader_epoch_offset)
                    if self._do_truncate(tp, offset_truncation_state):
                        fetch_offsets[tp] = offset_truncation_state
                elif error == Errors.FENCED_LEADER_EPOCH:
                    epoch_data = latest_epochs_for_partitions.get(tp)
                    current_leader_epoch = None if epoch_data is None else epoch_data.current_leader_epoch
                    if self._on_partition_fenced(tp, current_leader_epoch):
                        partitions_with_error.add(tp)
                else:
                    self.log.info("Retrying leaderEpoch request for partition %s as the leader reported an error: %s",
                                  tp, error.name)
                    partitions_with_error.add(tp)
            else:
                # removed while the response was awaited: its state may belong to another thread by now
                self.log.debug("Ignoring epoch offsets for partition %s since it has been removed from this fetcher "
                               "thread.", tp)

        return ResultWithPartitions(fetch_offsets, partitions_with_error)

    def _on_partition_fenced(self, tp: TopicPartition, request_epoch: int | None) -> bool:
        """True if this thread has a newer epoch than the request's (retry later); otherwise the partition is marked
        failed until the new leadership arrives, and False."""
        with self.partition_map_lock:
            current_fetch_state = self._partition_states.state_value(tp)
            if current_fetch_state is None:
                return False
            current_leader_epoch = current_fetch_state.current_leader_epoch
            if request_epoch is not None and request_epoch == current_leader_epoch:
                self.log.info("Partition %s has an older epoch (%d) than the current leader. Will await the new "
                              "LeaderAndIsr state before resuming fetching.", tp, current_leader_epoch)
                self._mark_partition_failed(tp)
                return False
            self.log.info("Partition %s has a newer epoch (%d) than the current leader. Retry the partition later.",
                          tp, current_leader_epoch)
            return True

    @step("RQ.follower.1")
    def _process_fetch_request(self, session_partitions: Mapping[TopicPartition, FetchRequestPartitionData],
                               fetch_request: FetchRequestBuilder) -> None:
        partitions_with_error: set[TopicPartition] = set()
        diverging_end_offsets: dict[TopicPartition, EpochEndOffset] = {}
        response_data: Mapping[TopicPartition, FetchData] = {}

        try:
            self.log.debug("Sending fetch request %s", fetch_request)
            response_data = self.leader.fetch(fetch_request)
        except Exception:
            if self.is_running:
                self.log.warning("Error in response for fetch request %s", fetch_request, exc_info=True)
                with self.partition_map_lock:
                    partitions_with_error.update(self._partition_states.partition_set())
        self.fetcher_stats.request_rate.mark()

        if response_data:
            with self.partition_map_lock:
                for topic_partition, partition_data in response_data.items():
                    current_fetch_state = self._partition_states.state_value(topic_partition)
                    if current_fetch_state is None:
                        continue
                    # a partition removed and re-added, or truncated, while the fetch was out: only a response for
                    # the offset still wanted, in a state ready to fetch, is processed
                    fetch_partition_data = session_partitions.get(topic_partition)
                    if fetch_partition_data is None \
                            or fetch_partition_data.fetch_offset != current_fetch_state.fetch_offset \
                            or not current_fetch_state.is_ready_for_fetch:
                        continue
                    self._process_partition_response(topic_partition, partition_data, current_fetch_state,
                                                      fetch_partition_data, partitions_with_error,
                                                      diverging_end_offsets)

        if diverging_end_offsets:
            self.truncate_on_fetch_response(diverging_end_offsets)
        if partitions_with_error:
            self._handle_partitions_with_errors(partitions_with_error, "processFetchRequest")

    def _process_partition_response(self, topic_partition: TopicPartition, partition_data: FetchData,
                                    current_fetch_state: PartitionFetchState,
                                    fetch_partition_data: FetchRequestPartitionData,
                                    partitions_with_error: set[TopicPartition],
                                    diverging_end_offsets: dict[TopicPartition, EpochEndOffset]) -> None:
        """The body of processFetchRequest's match on one partition's error code (a method of its own for length)."""
        error = Errors.for_code(int(partition_data.error_code))
        if error == Errors.NONE:
            try:
                if self.leader.is_truncation_on_fetch_supported and FetchResponse.is_diverging_epoch(partition_data):
                    # truncate first; the data is not processed, so the watermarks wait for the next fetch
                    diverging_end_offsets[topic_partition] = EpochEndOffset(
                        partition=topic_partition.partition, error_code=Errors.NONE,
                        leader_epoch=partition_data.diverging_epoch.epoch,
                        end_offset=partition_data.diverging_epoch.end_offset)
                else:
                    # the subclass owns the partition data from here on
                    log_append_info = self.process_partition_data(topic_partition, current_fetch_state.fetch_offset,
                                                                  partition_data)
                    if log_append_info is not None:
                        valid_bytes = log_append_info.valid_bytes
                        next_offset = log_append_info.last_offset + 1 if valid_bytes > 0 \
                            else current_fetch_state.fetch_offset
                        lag = max(0, partition_data.high_watermark - next_offset)
                        self.fetcher_lag_stats.get_and_maybe_put(topic_partition).lag = lag

                        # the alter-log-dirs thread may have removed the partition while its data was processed
                        if (valid_bytes > 0 or current_fetch_state.lag is None) \
                                and self._partition_states.contains(topic_partition):
                            last_fetched_epoch = (log_append_info.last_leader_epoch
                                                  if log_append_info.last_leader_epoch is not None
                                                  else current_fetch_state.last_fetched_epoch)
                            new_fetch_state = PartitionFetchState(
                                current_fetch_state.topic_id, next_offset, lag,
                                current_fetch_state.current_leader_epoch, state=Fetching,
                                last_fetched_epoch=last_fetched_epoch)
                            self._partition_states.update_and_move_to_end(topic_partition, new_fetch_state)
                            if valid_bytes > 0:
                                self.fetcher_stats.byte_rate.mark(valid_bytes)
            except (CorruptRecordException, InvalidRecordException):
                # a corrupt batch must not stop the thread (and the other partitions); it may be transient
                # (truncation, partial write), so the partition is retried after the back-off
                self.log.error("Found invalid messages during fetch for partition %s offset %d", topic_partition,
                               current_fetch_state.fetch_offset, exc_info=True)
                partitions_with_error.add(topic_partition)
            except KafkaStorageException:
                self.log.error("Error while processing data for partition %s at offset %d", topic_partition,
                               current_fetch_state.fetch_offset, exc_info=True)
                self._mark_partition_failed(topic_partition)
            except Exception:
                self.log.error("Unexpected error occurred while processing data for partition %s at offset %d",
                               topic_partition, current_fetch_state.fetch_offset, exc_info=True)
                self._mark_partition_failed(topic_partition)
        elif error == Errors.OFFSET_OUT_OF_RANGE:
            if not self._handle_out_of_range_error(topic_partition, current_fetch_state,
                                                   fetch_partition_data.current_leader_epoch):
                partitions_with_error.add(topic_partition)
        elif error == Errors.UNKNOWN_LEADER_EPOCH:
            self.log.debug("Remote broker has a smaller leader epoch for partition %s than this replica's current "
                           "leader epoch of %d.", topic_partition, current_fetch_state.current_leader_epoch)
            partitions_with_error.add(topic_partition)
        elif error == Errors.FENCED_LEADER_EPOCH:
            if self._on_partition_fenced(topic_partition, fetch_partition_data.current_leader_epoch):
                partitions_with_error.add(topic_partition)
        elif error == Errors.OFFSET_MOVED_TO_TIERED_STORAGE:
            self.log.debug("Received error %s, at fetch offset: %d, topic-partition: %s", error.name,
                           current_fetch_state.fetch_offset, topic_partition)
            if not self._handle_offsets_moved_to_tiered_storage(topic_partition, current_fetch_state,
                                                                fetch_partition_data.current_leader_epoch,
                                                                partition_data):
                partitions_with_error.add(topic_partition)
        elif error == Errors.NOT_LEADER_OR_FOLLOWER:
            self.log.debug("Remote broker is not the leader for partition %s, which could indicate that the "
                           "partition is being moved", topic_partition)
            partitions_with_error.add(topic_partition)
        elif error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_ID, Errors.INCONSISTENT_TOPIC_ID):
            self.log.warning("Received %s from the leader for partition %s. This error may be returned transiently "
                             "when the partition is being created or deleted, but it is not expected to persist.",
                             error.name, topic_partition)
            partitions_with_error.add(topic_partition)
        else:
            self.log.error("Error for partition %s at offset %d: %s", topic_partition,
                           current_fetch_state.fetch_offset, error.name)
            partitions_with_error.add(topic_partition)

    def mark_partitions_for_truncation(self, topic_partition: TopicPartition, truncation_offset: int) -> None:
        """For ReplicaAlterLogDirsThread, once the leader's offsets are known."""
        with self.partition_map_lock:
            state = self._partition_states.state_value(topic_partition)
            if state is not None:
                new_state = PartitionFetchState(state.topic_id, min(truncation_offset, state.fetch_offset),
                                                state.lag, state.current_leader_epoch, state.delay,
                                                state=Truncating, last_fetched_epoch=None)
                self._partition_states.update_and_move_to_end(topic_partition, new_state)
                self._partition_map_cond.notify_all()

    def _mark_partition_failed(self, topic_partition: TopicPartition) -> None:
        with self.partition_map_lock:
            self.failed_partitions.add(topic_partition)
            self.remove_partitions({topic_partition})
        self.log.warning("Partition %s marked as failed", topic_partition)

    def _partition_fetch_state(self, tp: TopicPartition, initial_fetch_state: InitialFetchState,
                               current_state: PartitionFetchState | None) -> PartitionFetchState:
        """Same leader epoch: keep the current state. Otherwise, with truncation on fetch (IBP 2.7+), a partition with
        an epoch starts Fetching and relies on diverging epochs; one without (old message format) and any partition
        on older IBPs starts Truncating."""
        if current_state is not None and current_state.current_leader_epoch == initial_fetch_state.current_leader_epoch:
            return current_state
        if initial_fetch_state.init_offset < 0:
            return self._fetch_offset_and_truncate(tp, initial_fetch_state.topic_id,
                                                   initial_fetch_state.current_leader_epoch)
        if self.leader.is_truncation_on_fetch_supported:
            last_fetched_epoch = self.latest_epoch(tp)
            state = Fetching if last_fetched_epoch is not None else Truncating
            return PartitionFetchState(initial_fetch_state.topic_id, initial_fetch_state.init_offset, None,
                                       initial_fetch_state.current_leader_epoch, state=state,
                                       last_fetched_epoch=last_fetched_epoch)
        return PartitionFetchState(initial_fetch_state.topic_id, initial_fetch_state.init_offset, None,
                                   initial_fetch_state.current_leader_epoch, state=Truncating,
                                   last_fetched_epoch=None)

    def add_partitions(self, initial_fetch_states: Mapping[TopicPartition, InitialFetchState]) -> Set[TopicPartition]:
        with self.partition_map_lock:
            self.failed_partitions.remove_all(initial_fetch_states.keys())
            for tp, initial_fetch_state in initial_fetch_states.items():
                current_state = self._partition_states.state_value(tp)
                updated_state = self._partition_fetch_state(tp, initial_fetch_state, current_state)
                self._partition_states.update_and_move_to_end(tp, updated_state)
            self._partition_map_cond.notify_all()
            return set(initial_fetch_states.keys())

    def maybe_update_topic_ids(self, partitions: Set[TopicPartition],
                               topic_ids: Callable[[str], UUID | None]) -> None:
        with self.partition_map_lock:
            for tp in partitions:
                current_state = self._partition_states.state_value(tp)
                if current_state is not None:
                    updated_state = current_state.update_topic_id(topic_ids(tp.topic))
                    self._partition_states.update(tp, updated_state)
            self._partition_map_cond.notify_all()

    def _update_fetch_offset_and_maybe_mark_truncation_complete(
            self, fetch_offsets: Mapping[TopicPartition, OffsetTruncationState]) -> None:
        """New fetch offsets; Fetching where truncation is complete (or truncation on fetch handles the rest)."""
        new_states: dict[TopicPartition, PartitionFetchState] = {}
        for topic_partition, current_fetch_state in self._partition_states.partition_state_map().items():
            offset_truncation_state = fetch_offsets.get(topic_partition)
            if offset_truncation_state is not None:
                last_fetched_epoch = self.latest_epoch(topic_partition)
                state = Fetching if (self.leader.is_truncation_on_fetch_supported
                                     or offset_truncation_state.truncation_completed) else Truncating
                new_states[topic_partition] = PartitionFetchState(
                    current_fetch_state.topic_id, offset_truncation_state.offset, current_fetch_state.lag,
                    current_fetch_state.current_leader_epoch, current_fetch_state.delay, state, last_fetched_epoch)
            else:
                new_states[topic_partition] = current_fetch_state
        self._partition_states.set(new_states)

    def _get_offset_truncation_state(self, tp: TopicPartition,
                                     leader_epoch_offset: EpochEndOffset) -> OffsetTruncationState:
        """Where to truncate, from the leader's end offset for the epoch asked (KIP-101, KIP-279):
        - no offset from the leader (old message format, or an epoch older than the leader knows): the fetch
          offset, i.e. the high watermark (or, for a future replica, the offset the current replica truncated to);
        - an offset but no epoch (a peer on IBP < 2.0): min(leader's offset, LEO);
        - an epoch the follower does not know: the end of its largest smaller epoch, then ask again (not complete);
          if it tracks no smaller epoch, the leader's offset;
        - else min(leader's offset, follower's end offset of that epoch, LEO)."""
        with self.partition_map_lock:
            if leader_epoch_offset.end_offset == UNDEFINED_EPOCH_OFFSET:
                fetch_offset = self._partition_states.state_value(tp).fetch_offset  # type: ignore[union-attr]
                self.log.warning("Based on replica's leader epoch, leader replied with an unknown offset in %s. The "
                                 "initial fetch offset %d will be used for truncation.", tp, fetch_offset)
                return OffsetTruncationState(fetch_offset, truncation_completed=True)
            if leader_epoch_offset.leader_epoch == UNDEFINED_EPOCH:
                self.log.warning("Leader or replica is on protocol version where leader epoch is not considered in "
                                 "the OffsetsForLeaderEpoch response. The leader's offset %d will be used for "
                                 "truncation in %s.", leader_epoch_offset.end_offset, tp)
                return OffsetTruncationState(min(leader_epoch_offset.end_offset, self.log_end_offset(tp)),
                                             truncation_completed=True)
            replica_end_offset = self.log_end_offset(tp)
            # the largest epoch at most the leader's, with its end offset
            offset_and_epoch = self.end_offset_for_epoch(tp, leader_epoch_offset.leader_epoch)
            if offset_and_epoch is not None:
                follower_end_offset = offset_and_epoch.offset
                follower_epoch = offset_and_epoch.leader_epoch
                if follower_epoch != leader_epoch_offset.leader_epoch:
                    intermediate_offset_to_truncate_to = min(follower_end_offset, replica_end_offset)
                    self.log.info("Based on replica's leader epoch, leader replied with epoch %d unknown to the "
                                  "replica for %s. Will truncate to %d and send another leader epoch request to the "
                                  "leader.", leader_epoch_offset.leader_epoch, tp, intermediate_offset_to_truncate_to)
                    return OffsetTruncationState(intermediate_offset_to_truncate_to, truncation_completed=False)
                offset_to_truncate_to = min(follower_end_offset, leader_epoch_offset.end_offset)
                return OffsetTruncationState(min(offset_to_truncate_to, replica_end_offset), truncation_completed=True)
            # the follower tracked no epochs back then (before the upgrade, or a new broker): the leader's offset
            self.log.warning("Based on replica's leader epoch, leader replied with epoch %d below any replica's "
                             "tracked epochs for %s. The leader's offset only %d will be used for truncation.",
                             leader_epoch_offset.leader_epoch, tp, leader_epoch_offset.end_offset)
            return OffsetTruncationState(min(leader_epoch_offset.end_offset, replica_end_offset),
                                         truncation_completed=True)

    def _fetch_offset_and_truncate(self, topic_partition: TopicPartition, topic_id: UUID | None,
                                   current_leader_epoch: int) -> PartitionFetchState:
        """The new fetch state of a partition whose fetch offset was out of range."""
        replica_end_offset = self.log_end_offset(topic_partition)

        # Unclean leader election can leave the leader's end behind the follower's: truncate to it and go on (the
        # logs may differ; that is not fixed here).
        offset_and_epoch = self.leader.fetch_latest_offset(topic_partition, current_leader_epoch)
        leader_end_offset = offset_and_epoch.offset
        if leader_end_offset < replica_end_offset:
            self.log.warning("Reset fetch offset for partition %s from %d to current leader's latest offset %d",
                             topic_partition, replica_end_offset, leader_end_offset)
            self.truncate(topic_partition, OffsetTruncationState(leader_end_offset, truncation_completed=True))
            self.fetcher_lag_stats.get_and_maybe_put(topic_partition).lag = 0
            return PartitionFetchState(topic_id, leader_end_offset, 0, current_leader_epoch, state=Fetching,
                                       last_fetched_epoch=self.latest_epoch(topic_partition))

        # The leader is ahead: either it deleted what the follower still lacks (start from its log start, after
        # dropping the stale log), or, after an unclean election, it grew past the follower meanwhile (keep the log
        # and retry). Both: fetch from max(leader's log start, own LEO).
        offset_and_epoch = self.leader.fetch_earliest_offset(topic_partition, current_leader_epoch)
        leader_start_offset = offset_and_epoch.offset
        offset_to_fetch = max(leader_start_offset, replica_end_offset)
        if leader_start_offset > replica_end_offset:
            self.log.warning("Truncate fully and reset fetch offset for partition %s from %d to the current leader's "
                             "start offset %d because the local replica's end offset is smaller than the current "
                             "leader's start offsets.", topic_partition, replica_end_offset, leader_start_offset)
            self.truncate_fully_and_start_at(topic_partition, leader_start_offset)
        else:
            self.log.info("Reset fetch offset for partition %s from %d to the current local replica's end offset %d",
                          topic_partition, replica_end_offset, offset_to_fetch)

        initial_lag = leader_end_offset - offset_to_fetch
        self.fetcher_lag_stats.get_and_maybe_put(topic_partition).lag = initial_lag
        return PartitionFetchState(topic_id, offset_to_fetch, initial_lag, current_leader_epoch, state=Fetching,
                                   last_fetched_epoch=self.latest_epoch(topic_partition))

    def _handle_out_of_range_error(self, topic_partition: TopicPartition, fetch_state: PartitionFetchState,
                                   leader_epoch_in_request: int | None) -> bool:
        """True if the offset was reset, or the partition was fenced and marked failed (no back-off needed); False
        on a retriable error."""
        try:
            new_fetch_state = self._fetch_offset_and_truncate(topic_partition, fetch_state.topic_id,
                                                              fetch_state.current_leader_epoch)
            self._partition_states.update_and_move_to_end(topic_partition, new_fetch_state)
            self.log.info("Current offset %d for partition %s is out of range, which typically implies a leader "
                          "change. Reset fetch offset to %d", fetch_state.fetch_offset, topic_partition,
                          new_fetch_state.fetch_offset)
            return True
        except FencedLeaderEpochException:
            return self._on_partition_fenced(topic_partition, leader_epoch_in_request)
        except (UnknownTopicOrPartitionException, UnknownLeaderEpochException, NotLeaderOrFollowerException) as e:
            self.log.info("Could not fetch offset for %s due to error: %s", topic_partition, e)
            return False
        except Exception:
            self.log.error("Error getting offset for partition %s", topic_partition, exc_info=True)
            return False

    def _handle_offsets_moved_to_tiered_storage(self, topic_partition: TopicPartition,
                                                fetch_state: PartitionFetchState, leader_epoch_in_request: int | None,
                                                fetch_partition_data: FetchData) -> bool:
        """As `_handle_out_of_range_error`, through the TierStateMachine (tiered storage: not ported, so without a
        machine the partition is retried after the back-off)."""
        if self.fetch_tier_state_machine is None:
            self.log.error("Offset %d of partition %s moved to tiered storage, which this broker does not support",
                           fetch_state.fetch_offset, topic_partition)
            return False
        try:
            new_fetch_state = self.fetch_tier_state_machine.start(topic_partition, fetch_state, fetch_partition_data)
            self.fetcher_lag_stats.get_and_maybe_put(topic_partition).lag = \
                new_fetch_state.lag if new_fetch_state.lag is not None else 0
            self._partition_states.update_and_move_to_end(topic_partition, new_fetch_state)
            self.log.debug("Current offset %d for partition %s is out of range or moved to remote tier. Reset fetch "
                           "offset to %d", fetch_state.fetch_offset, topic_partition, new_fetch_state.fetch_offset)
            return True
        except FencedLeaderEpochException:
            return self._on_partition_fenced(topic_partition, leader_epoch_in_request)
        except (UnknownTopicOrPartitionException, UnknownLeaderEpochException, NotLeaderOrFollowerException) as e:
            self.log.info("Could not build remote log auxiliary state for %s due to error: %s", topic_partition, e)
            return False
        except Exception:
            self.log.error("Error building remote log auxiliary state for %s", topic_partition, exc_info=True)
            return False

    def _delay_partitions(self, partitions: Iterable[TopicPartition], delay: int) -> None:
        with self.partition_map_lock:
            for partition in partitions:
                current_fetch_state = self._partition_states.state_value(partition)
                if current_fetch_state is not None and not current_fetch_state.is_delayed:
                    self._partition_states.update_and_move_to_end(
                        partition, replace(current_fetch_state, delay=DelayedItem(delay)))
            self._partition_map_cond.notify_all()

    def remove_partitions(self, topic_partitions: Set[TopicPartition]) -> dict[TopicPartition, PartitionFetchState]:
        with self.partition_map_lock:
            removed: dict[TopicPartition, PartitionFetchState] = {}
            for topic_partition in topic_partitions:
                state = self._partition_states.state_value(topic_partition)
                self._partition_states.remove(topic_partition)
                self.fetcher_lag_stats.unregister(topic_partition)
                if state is not None:
                    removed[topic_partition] = state
            return removed

    def remove_all_partitions(self) -> dict[TopicPartition, PartitionFetchState]:
        with self.partition_map_lock:
            all_partition_state = dict(self._partition_states.partition_state_map())
            for tp in all_partition_state:
                self._partition_states.remove(tp)
                self.fetcher_lag_stats.unregister(tp)
            return all_partition_state

    @property
    def partition_count(self) -> int:
        with self.partition_map_lock:
            return self._partition_states.size()

    @property
    def partitions(self) -> set[TopicPartition]:
        with self.partition_map_lock:
            return set(self._partition_states.partition_set())

    def fetch_state(self, topic_partition: TopicPartition) -> PartitionFetchState | None:
        """Visible for testing."""
        with self.partition_map_lock:
            return self._partition_states.state_value(topic_partition)

    def to_memory_records(self, records: Any) -> MemoryRecords:
        if isinstance(records, MemoryRecords):
            return records
        if isinstance(records, FileRecords):
            buffer = bytearray(records.size_in_bytes())
            records.read_into(buffer, 0)
            return MemoryRecords.readable_records(buffer)
        raise TypeError(f"unexpected records {type(records).__name__}")


# FetcherMetrics' names
CONSUMER_LAG = "ConsumerLag"
REQUESTS_PER_SEC = "RequestsPerSec"
BYTES_PER_SEC = "BytesPerSec"


@dataclass(frozen=True)
class ClientIdAndBroker:
    """kafka.common.ClientIdAndBroker: the tags of a fetcher's metrics."""

    client_id: str
    broker_host: str
    broker_port: int

    def __str__(self) -> str:
        return f"{self.client_id}-{self.broker_host}-{self.broker_port}"


@dataclass(frozen=True)
class ClientIdTopicPartition:
    client_id: str
    topic_partition: TopicPartition

    def __str__(self) -> str:
        return f"{self.client_id}-{self.topic_partition}"


class FetcherLagMetrics:
    """The ConsumerLag gauge's value of one partition (-1 until known); no registry in the port."""

    def __init__(self, metric_id: ClientIdTopicPartition) -> None:
        self.metric_id = metric_id
        self._lag_val = -1

    @property
    def lag(self) -> int:
        return self._lag_val

    @lag.setter
    def lag(self, new_lag: int) -> None:
        self._lag_val = new_lag

    def unregister(self) -> None:
        pass


class FetcherLagStats:
    def __init__(self, metric_id: ClientIdAndBroker) -> None:
        self.metric_id = metric_id
        self.stats: dict[TopicPartition, FetcherLagMetrics] = {}
        self._lock = threading.Lock()  # Kafka's Pool is a ConcurrentHashMap

    def get_and_maybe_put(self, topic_partition: TopicPartition) -> FetcherLagMetrics:
        with self._lock:
            lag_metrics = self.stats.get(topic_partition)
            if lag_metrics is None:
                lag_metrics = FetcherLagMetrics(ClientIdTopicPartition(self.metric_id.client_id, topic_partition))
                self.stats[topic_partition] = lag_metrics
            return lag_metrics

    def unregister(self, topic_partition: TopicPartition | None = None) -> None:
        """One partition's lag, or with none given every partition's."""
        with self._lock:
            keys = list(self.stats) if topic_partition is None else [topic_partition]
            for key in keys:
                lag_metrics = self.stats.pop(key, None)
                if lag_metrics is not None:
                    lag_metrics.unregister()


class _Meter:
    """A yammer Meter reduced to its count (rates are metrics, left out)."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()

    def mark(self, n: int = 1) -> None:
        with self._lock:
            self._count += n

    @property
    def count(self) -> int:
        return self._count


class FetcherStats:
    def __init__(self, metric_id: ClientIdAndBroker) -> None:
        self.tags = {"clientId": metric_id.client_id, "brokerHost": metric_id.broker_host,
                     "brokerPort": str(metric_id.broker_port)}
        self.request_rate = _Meter()
        self.byte_rate = _Meter()

    def unregister(self) -> None:
        pass


class ReplicaState(enum.Enum):
    TRUNCATING = "Truncating"
    FETCHING = "Fetching"

    def __str__(self) -> str:
        return self.value


# Kafka's case objects
Truncating = ReplicaState.TRUNCATING
Fetching = ReplicaState.FETCHING


@dataclass(frozen=True)
class PartitionFetchState:
    """A partition is Truncating its log (e.g. just became a follower), delayed after an error (backing off), or
    ready for fetch: Fetching and not delayed."""

    topic_id: UUID | None
    fetch_offset: int
    lag: int | None
    current_leader_epoch: int
    delay: DelayedItem | None = None
    state: ReplicaState = Fetching
    last_fetched_epoch: int | None = None

    @property
    def is_ready_for_fetch(self) -> bool:
        return self.state == Fetching and not self.is_delayed

    @property
    def is_replica_in_sync(self) -> bool:
        return self.lag is not None and self.lag <= 0

    @property
    def is_truncating(self) -> bool:
        return self.state == Truncating and not self.is_delayed

    @property
    def is_delayed(self) -> bool:
        return self.delay is not None and self.delay.get_delay() > 0

    def __str__(self) -> str:
        return (f"FetchState(topicId={self.topic_id}, fetchOffset={self.fetch_offset}, "
                f"currentLeaderEpoch={self.current_leader_epoch}, lastFetchedEpoch={self.last_fetched_epoch}, "
                f"state={self.state}, lag={self.lag}, delay={self.delay.delay_ms if self.delay else 0}ms)")

    def update_topic_id(self, topic_id: UUID | None) -> PartitionFetchState:
        return replace(self, topic_id=topic_id)


@dataclass(frozen=True)
class OffsetTruncationState:
    offset: int
    truncation_completed: bool = True

    def __str__(self) -> str:
        return f"TruncationState(offset={self.offset}, completed={self.truncation_completed})"
