"""Port of core/src/test/scala/unit/kafka/server/MockFetcherThread.scala (Kafka 3.9): a fetcher whose local log is a
PartitionState (a list of batches) per partition. Kafka's anonymous subclasses in the tests are local subclasses
there."""

from __future__ import annotations

from collections.abc import Mapping, Set

from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.record_batch import NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions, InitialFetchState
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import (
    AbstractFetcherThread,
    Fetching,
    OffsetTruncationState,
)
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, FetchData
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from tests.kafka_tests.v3_9.core.server.mock_leader_end_point import (
    UNDEFINED_EPOCH_OFFSET,
    MockLeaderEndPoint,
    PartitionState,
)
from tests.kafka_tests.v3_9.core.server.mock_tier_state_machine import MockTierStateMachine


class MockFetcherThread(AbstractFetcherThread):
    def __init__(self, mock_leader: MockLeaderEndPoint, mock_tier_state_machine: MockTierStateMachine,
                 replica_id: int = 0, leader_id: int = 1, fetch_back_off_ms: int = 0,
                 failed_partitions: FailedPartitions | None = None) -> None:
        super().__init__("mock-fetcher", client_id="mock-fetcher", leader=mock_leader,
                         failed_partitions=failed_partitions if failed_partitions is not None else FailedPartitions(),
                         fetch_tier_state_machine=mock_tier_state_machine, fetch_back_off_ms=fetch_back_off_ms,
                         broker_topic_stats=None)
        self.mock_leader = mock_leader
        self.mock_tier_state_machine = mock_tier_state_machine
        self.replica_id = replica_id
        self.leader_id = leader_id
        self._replica_partition_states: dict[TopicPartition, PartitionState] = {}
        self._latest_epoch_default: int | None = 0
        mock_tier_state_machine.set_fetcher(self)

    def set_replica_state(self, topic_partition: TopicPartition, state: PartitionState) -> None:
        self._replica_partition_states[topic_partition] = state

    def replica_partition_state(self, topic_partition: TopicPartition) -> PartitionState:
        state = self._replica_partition_states.get(topic_partition)
        if state is None:
            raise ValueError(f"Unknown partition {topic_partition}")
        return state

    def add_partitions(self, initial_fetch_states: Mapping[TopicPartition, InitialFetchState],
                       force_truncation: bool = False) -> Set[TopicPartition]:
        self._latest_epoch_default = None if force_truncation else 0
        partitions = super().add_partitions(initial_fetch_states)
        self._latest_epoch_default = 0
        return partitions

    def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int,
                               partition_data: FetchData) -> LogAppendInfo | None:
        state = self.replica_partition_state(topic_partition)

        if self.leader.is_truncation_on_fetch_supported and FetchResponse.is_diverging_epoch(partition_data):
            raise RuntimeError("processPartitionData should not be called for a partition with a diverging epoch.")

        # the fetch offset must match the replica's log end
        if fetch_offset != state.log_end_offset:
            raise RuntimeError(f"Offset mismatch for partition {topic_partition}: fetched offset = {fetch_offset}, "
                               f"log end offset = {state.log_end_offset}.")

        # check each batch's crc
        batches = list(FetchResponse.records_or_fail(partition_data).batches())
        max_timestamp = NO_TIMESTAMP
        shallow_offset_of_max_timestamp = -1
        last_offset = state.log_end_offset
        last_epoch: int | None = None

        for batch in batches:
            batch.ensure_valid()
            if batch.max_timestamp() > max_timestamp:
                max_timestamp = batch.max_timestamp()
                shallow_offset_of_max_timestamp = batch.base_offset()
            state.log.append(batch)
            state.log_end_offset = batch.next_offset()
            last_offset = batch.last_offset()
            last_epoch = batch.partition_leader_epoch()

        state.log_start_offset = partition_data.log_start_offset
        state.high_watermark = partition_data.high_watermark

        return LogAppendInfo(fetch_offset, last_offset, last_epoch, max_timestamp, shallow_offset_of_max_timestamp,
                             SYSTEM.milliseconds(), state.log_start_offset, RecordValidationStats.EMPTY,
                             CompressionType.NONE, FetchResponse.records_size(partition_data),
                             batches[0].last_offset() if batches else -1)

    def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
        state = self.replica_partition_state(topic_partition)
        kept = []
        for batch in state.log:  # takeWhile
            if batch.last_offset() >= truncation_state.offset:
                break
            kept.append(batch)
        state.log = kept
        state.log_end_offset = state.log[-1].last_offset() + 1 if state.log else state.log_start_offset
        state.high_watermark = min(state.high_watermark, state.log_end_offset)

    def truncate_fully_and_start_at(self, topic_partition: TopicPartition, offset: int) -> None:
        state = self.replica_partition_state(topic_partition)
        state.log.clear()
        if state.rlm_enabled:
            state.local_log_start_offset = offset
        else:
            state.log_start_offset = offset
        state.log_end_offset = offset
        state.high_watermark = offset

    def latest_epoch(self, topic_partition: TopicPartition) -> int | None:
        state = self.replica_partition_state(topic_partition)
        return state.log[-1].partition_leader_epoch() if state.log else self._latest_epoch_default

    def log_start_offset(self, topic_partition: TopicPartition) -> int:
        return self.replica_partition_state(topic_partition).log_start_offset

    def log_end_offset(self, topic_partition: TopicPartition) -> int:
        return self.replica_partition_state(topic_partition).log_end_offset

    def end_offset_for_epoch(self, topic_partition: TopicPartition, epoch: int) -> OffsetAndEpoch | None:
        epoch_data = EpochData(partition=topic_partition.partition, leader_epoch=epoch)
        result = self.mock_leader.lookup_end_offset_for_epoch(topic_partition, epoch_data,
                                                              self.replica_partition_state(topic_partition))
        if result.end_offset == UNDEFINED_EPOCH_OFFSET:
            return None
        return OffsetAndEpoch(result.end_offset, result.leader_epoch)

    def verify_last_fetched_epoch(self, partition: TopicPartition, expected_epoch: int | None) -> None:
        if self.leader.is_truncation_on_fetch_supported:
            state = self.fetch_state(partition)
            assert (state.state if state else None) == Fetching
            assert (state.last_fetched_epoch if state else None) == expected_epoch

    @property
    def is_offset_for_leader_epoch_supported(self) -> bool:
        return True
