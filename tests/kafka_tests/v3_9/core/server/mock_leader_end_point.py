"""Port of core/src/test/scala/unit/kafka/server/MockLeaderEndPoint.scala (Kafka 3.9): a leader kept in memory, one
PartitionState (a list of batches and offsets) per partition; with PartitionState from the same file.

Scala's `error.exception()` is `EXCEPTIONS[error]` here (the two errors the mock raises); kio's frozen messages
replace Kafka's setter chains.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PARTITION_LEADER_EPOCH
from kafka_edu.v3_9.clients.common.requests.fetch_request import ZERO_UUID, Builder, PartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import EpochEndOffset as DivergingEpoch
from kafka_edu.v3_9.clients.common.requests.fetch_response import partition_data
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import (
    PartitionFetchState,
    ReplicaFetch,
    ResultWithPartitions,
)
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, EpochEndOffset, FetchData, LeaderEndPoint
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1
EXCEPTIONS: dict[Errors, type[Exception]] = {Errors.FENCED_LEADER_EPOCH: FencedLeaderEpochException,
                                              Errors.UNKNOWN_LEADER_EPOCH: UnknownLeaderEpochException}


class PartitionState:
    def __init__(self, log: list[Any], leader_epoch: int, log_start_offset: int, log_end_offset: int,
                 high_watermark: int, rlm_enabled: bool = False, local_log_start_offset: int = 0) -> None:
        self.log = log
        self.leader_epoch = leader_epoch
        self.log_start_offset = log_start_offset
        self.log_end_offset = log_end_offset
        self.high_watermark = high_watermark
        self.rlm_enabled = rlm_enabled
        self.local_log_start_offset = local_log_start_offset

    @staticmethod
    def of(log: Sequence[Any] = (), leader_epoch: int = 0, high_watermark: int = 0,
           rlm_enabled: bool = False) -> PartitionState:
        """PartitionState.apply (both overloads: `of(leader_epoch=n)` is the empty one)."""
        log_start_offset = log[0].base_offset() if log else 0
        log_end_offset = log[-1].next_offset() if log else 0
        return PartitionState(list(log), leader_epoch, log_start_offset, log_end_offset, high_watermark, rlm_enabled,
                              log_start_offset)


class MockLeaderEndPoint(LeaderEndPoint):
    def __init__(self, source_broker: BrokerEndPoint | None = None, truncate_on_fetch: bool = True,
                 version: int = ApiKeys.FETCH.latest_version) -> None:
        self._source_broker = source_broker if source_broker is not None else \
            BrokerEndPoint(1, host="localhost", port=random.randint(0, 2**31 - 1))
        self._truncate_on_fetch = truncate_on_fetch
        self.version = version
        self._leader_partition_states: dict[TopicPartition, PartitionState] = {}
        self.response_callback: Callable[[], None] = lambda: None
        self.replica_partition_state_callback: Callable[[TopicPartition], PartitionState | None] = lambda _: None
        self.replica_id = 0

    @property
    def is_truncation_on_fetch_supported(self) -> bool:
        return self._truncate_on_fetch

    def leader_partition_state(self, topic_partition: TopicPartition) -> PartitionState:
        state = self._leader_partition_states.get(topic_partition)
        if state is None:
            raise ValueError(f"Unknown partition {topic_partition}")
        return state

    def set_leader_state(self, topic_partition: TopicPartition, state: PartitionState) -> None:
        self._leader_partition_states[topic_partition] = state

    def set_response_callback(self, callback: Callable[[], None]) -> None:
        self.response_callback = callback

    def set_replica_partition_state_callback(self, callback: Callable[[TopicPartition], PartitionState]) -> None:
        self.replica_partition_state_callback = callback

    def set_replica_id(self, replica_id: int) -> None:
        self.replica_id = replica_id

    def initiate_close(self) -> None:
        pass

    def close(self) -> None:
        pass

    def broker_end_point(self) -> BrokerEndPoint:
        return self._source_broker

    def fetch(self, fetch_request: Builder) -> Mapping[TopicPartition, FetchData]:
        result: dict[TopicPartition, FetchData] = {}
        for partition, fetch_data in fetch_request.fetch_data().items():
            leader_state = self.leader_partition_state(partition)
            epoch_check_error = self._check_expected_leader_epoch(fetch_data.current_leader_epoch, leader_state)
            diverging_epoch = self._diverging_epoch_and_offset(partition, fetch_data.last_fetched_epoch,
                                                               fetch_data.fetch_offset, leader_state)
            if epoch_check_error is not None:
                error, records = epoch_check_error, MemoryRecords.EMPTY
            elif fetch_data.fetch_offset > leader_state.log_end_offset \
                    or fetch_data.fetch_offset < leader_state.log_start_offset:
                error, records = Errors.OFFSET_OUT_OF_RANGE, MemoryRecords.EMPTY
            elif diverging_epoch is not None:
                error, records = Errors.NONE, MemoryRecords.EMPTY
            elif leader_state.rlm_enabled and fetch_data.fetch_offset < leader_state.local_log_start_offset:
                error, records = Errors.OFFSET_MOVED_TO_TIERED_STORAGE, MemoryRecords.EMPTY
            else:
                # one batch at a time, for simplicity
                batch = next((b for b in leader_state.log if b.base_offset() >= fetch_data.fetch_offset), None)
                if batch is not None:
                    buffer = bytearray()
                    batch.write_to(buffer)
                    records = MemoryRecords.readable_records(buffer)
                else:
                    records = MemoryRecords.EMPTY
                error = Errors.NONE
            result[partition] = partition_data(
                partition_index=partition.partition, error_code=error, high_watermark=leader_state.high_watermark,
                last_stable_offset=leader_state.high_watermark, log_start_offset=leader_state.log_start_offset,
                records=records, diverging_epoch=diverging_epoch)
        return result

    def fetch_earliest_offset(self, topic_partition: TopicPartition, leader_epoch: int) -> OffsetAndEpoch:
        leader_state = self.leader_partition_state(topic_partition)
        self._check_leader_epoch_and_throw(leader_epoch, leader_state)
        return OffsetAndEpoch(leader_state.log_start_offset, leader_state.leader_epoch)

    def fetch_latest_offset(self, topic_partition: TopicPartition, leader_epoch: int) -> OffsetAndEpoch:
        leader_state = self.leader_partition_state(topic_partition)
        self._check_leader_epoch_and_throw(leader_epoch, leader_state)
        return OffsetAndEpoch(leader_state.log_end_offset, leader_state.leader_epoch)

    def fetch_earliest_local_offset(self, topic_partition: TopicPartition, leader_epoch: int) -> OffsetAndEpoch:
        leader_state = self.leader_partition_state(topic_partition)
        self._check_leader_epoch_and_throw(leader_epoch, leader_state)
        return OffsetAndEpoch(leader_state.local_log_start_offset, leader_state.leader_epoch)

    def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, EpochData]
                                ) -> dict[TopicPartition, EpochEndOffset]:
        end_offsets: dict[TopicPartition, EpochEndOffset] = {}
        for partition, epoch_data in partitions.items():
            assert partition.partition == epoch_data.partition, \
                "Partition must be consistent between TopicPartition and EpochData"
            leader_state = self.leader_partition_state(partition)
            end_offsets[partition] = self.lookup_end_offset_for_epoch(partition, epoch_data, leader_state)
        return end_offsets

    def build_fetch(self, partition_map: Mapping[TopicPartition, PartitionFetchState]
                    ) -> ResultWithPartitions[ReplicaFetch | None]:
        fetch_data: dict[TopicPartition, PartitionData] = {}
        for partition, state in partition_map.items():
            if state.is_ready_for_fetch:
                replica_state = self.replica_partition_state_callback(partition)
                if replica_state is None:
                    raise ValueError(f"Unknown partition {partition}")
                last_fetched_epoch = state.last_fetched_epoch if self.is_truncation_on_fetch_supported else None
                fetch_data[partition] = PartitionData(
                    state.topic_id if state.topic_id is not None else ZERO_UUID, state.fetch_offset,
                    replica_state.log_start_offset, 1024 * 1024, state.current_leader_epoch, last_fetched_epoch)
        fetch_request = Builder.for_replica(self.version, self.replica_id, 1, 0, 1, fetch_data)
        fetch_request_opt = ReplicaFetch(fetch_data, fetch_request) if fetch_data else None
        return ResultWithPartitions(fetch_request_opt, set())

    def _check_leader_epoch_and_throw(self, expected_epoch: int, partition_state: PartitionState) -> None:
        error = self._check_expected_leader_epoch(expected_epoch, partition_state)
        if error is not None:
            raise EXCEPTIONS[error]()

    @staticmethod
    def _check_expected_leader_epoch(expected_epoch: int | None, partition_state: PartitionState) -> Errors | None:
        if expected_epoch is None or expected_epoch == NO_PARTITION_LEADER_EPOCH:
            return None
        if expected_epoch < partition_state.leader_epoch:
            return Errors.FENCED_LEADER_EPOCH
        if expected_epoch > partition_state.leader_epoch:
            return Errors.UNKNOWN_LEADER_EPOCH
        return None

    def _diverging_epoch_and_offset(self, topic_partition: TopicPartition, last_fetched_epoch: int | None,
                                    fetch_offset: int, partition_state: PartitionState) -> DivergingEpoch | None:
        if last_fetched_epoch is None:
            return None
        epoch_end_offset = self.fetch_epoch_end_offsets(
            {topic_partition: EpochData(partition=topic_partition.partition,
                                        leader_epoch=last_fetched_epoch)})[topic_partition]
        if not partition_state.log or epoch_end_offset.end_offset == UNDEFINED_EPOCH_OFFSET \
                or epoch_end_offset.leader_epoch == UNDEFINED_EPOCH:
            return None
        if epoch_end_offset.leader_epoch < last_fetched_epoch or epoch_end_offset.end_offset < fetch_offset:
            return DivergingEpoch(epoch=epoch_end_offset.leader_epoch, end_offset=epoch_end_offset.end_offset)
        return None

    def lookup_end_offset_for_epoch(self, topic_partition: TopicPartition, epoch_data: EpochData,
                                    partition_state: PartitionState) -> EpochEndOffset:
        error = self._check_expected_leader_epoch(epoch_data.current_leader_epoch, partition_state)
        if error is not None:
            return EpochEndOffset(partition=topic_partition.partition, error_code=error)

        epoch_lower_bound = UNDEFINED_EPOCH
        for batch in partition_state.log:
            if batch.partition_leader_epoch() > epoch_data.leader_epoch:
                # without the requested epoch, the next higher entry
                if epoch_lower_bound == UNDEFINED_EPOCH:
                    return EpochEndOffset(partition=topic_partition.partition, error_code=Errors.NONE,
                                          leader_epoch=batch.partition_leader_epoch(),
                                          end_offset=batch.base_offset())
                return EpochEndOffset(partition=topic_partition.partition, error_code=Errors.NONE,
                                      leader_epoch=epoch_lower_bound, end_offset=batch.base_offset())
            epoch_lower_bound = batch.partition_leader_epoch()
        return EpochEndOffset(partition=topic_partition.partition, error_code=Errors.NONE)
