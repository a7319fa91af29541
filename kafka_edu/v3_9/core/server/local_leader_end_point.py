"""Port of core/src/main/scala/kafka/server/LocalLeaderEndPoint.scala (Kafka 3.9): the "leader" of a future replica is
the partition's current log on this same broker, so a fetch is a call into ReplicaManager.fetchMessages (no network)
and the offsets come straight from the local log.

A future replica copies one partition at a time: the partition in progress keeps being fetched until it is done or
unavailable, then the next ready partition (by topic, then partition) is taken.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaStorageException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_request import FUTURE_LOCAL_REPLICA_ID, ZERO_UUID
from kafka_edu.v3_9.clients.common.requests.fetch_request import Builder as FetchRequestBuilder
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData as FetchRequestPartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import INVALID_LAST_STABLE_OFFSET, partition_data
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import PartitionFetchState, ReplicaFetch, ResultWithPartitions
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, EpochEndOffset, FetchData, LeaderEndPoint
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA, ReplicaQuota
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.server_common.server.storage.log.fetch_partition_data import FetchPartitionData
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams

UNDEFINED_EPOCH = -1  # OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH
NO_PARTITION_LEADER_EPOCH = -1  # RecordBatch.NO_PARTITION_LEADER_EPOCH


class LocalLeaderEndPoint(LeaderEndPoint):
    """Facilitates fetches from a local replica leader: `source_broker` is this broker (port -1), `quota` the
    alter-log-dirs replication quota."""

    def __init__(self, source_broker: BrokerEndPoint, broker_config: Any, replica_manager: Any,
                 quota: ReplicaQuota | None) -> None:
        self.log = Logging("kafka.server.LocalLeaderEndPoint")
        self.source_broker = source_broker
        self.broker_config = broker_config
        self.replica_manager = replica_manager
        self.quota = quota
        self._replica_id: int = broker_config.broker_id
        self._max_bytes: int = broker_config.replica_fetch_response_max_bytes
        self._fetch_size: int = broker_config.replica_fetch_max_bytes
        # the partition being copied now: fetched until it is done, so that one move finishes before the next
        self._in_progress_partition: TopicPartition | None = None

    @property
    def is_truncation_on_fetch_supported(self) -> bool:
        return False

    def initiate_close(self) -> None:
        pass

    def close(self) -> None:
        pass

    def broker_end_point(self) -> BrokerEndPoint:
        return self.source_broker

    def fetch(self, fetch_request: FetchRequestBuilder) -> Mapping[TopicPartition, FetchData]:
        partition_data_result: dict[TopicPartition, FetchData] | None = None
        request = fetch_request.build()

        # The request carries both topic ids and names; a name has one id and an id one name.
        topic_names = {topic.topic_id: topic.topic for topic in request.data().topics}

        def process_response_callback(response_partition_data: Sequence[tuple[TopicIdPartition,
                                                                              FetchPartitionData]]) -> None:
            nonlocal partition_data_result
            partition_data_result = {}
            for tp, data in response_partition_data:
                aborted_transactions = data.aborted_transactions
                last_stable_offset = (INVALID_LAST_STABLE_OFFSET if data.last_stable_offset is None
                                      else data.last_stable_offset)
                partition_data_result[tp.topic_partition] = partition_data(
                    partition_index=tp.topic_partition.partition, error_code=data.error.code,
                    high_watermark=data.high_watermark, last_stable_offset=last_stable_offset,
                    log_start_offset=data.log_start_offset,
                    aborted_transactions=tuple(aborted_transactions) if aborted_transactions else (),
                    records=data.records)

        fetch_data = request.fetch_data(topic_names)

        fetch_params = FetchParams(
            request.version,
            FUTURE_LOCAL_REPLICA_ID,
            -1,
            0,  # no wait: the callback runs before fetch_messages returns
            request.min_bytes(),
            request.max_bytes(),
            FetchIsolation.LOG_END,
            None)

        self.replica_manager.fetch_messages(
            params=fetch_params,
            fetch_infos=list(fetch_data.items()),
            quota=UNBOUNDED_QUOTA,
            response_callback=process_response_callback)

        if partition_data_result is None:
            raise IllegalStateException(
                f"Failed to fetch data for partitions {','.join(str(tp) for tp in fetch_data)}")

        return partition_data_result

    def fetch_earliest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        partition = self.replica_manager.get_partition_or_exception(topic_partition)
        log_start_offset = partition.local_log_or_exception().log_start_offset
        epoch = partition.local_log_or_exception().leader_epoch_cache.epoch_for_offset(log_start_offset)
        return OffsetAndEpoch(log_start_offset, 0 if epoch is None else epoch)

    def fetch_latest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        partition = self.replica_manager.get_partition_or_exception(topic_partition)
        log_end_offset = partition.local_log_or_exception().log_end_offset()
        epoch = partition.local_log_or_exception().leader_epoch_cache.epoch_for_offset(log_end_offset)
        return OffsetAndEpoch(log_end_offset, 0 if epoch is None else epoch)

    def fetch_earliest_local_offset(self, topic_partition: TopicPartition,
                                    current_leader_epoch: int) -> OffsetAndEpoch:
        partition = self.replica_manager.get_partition_or_exception(topic_partition)
        local_log_start_offset = partition.local_log_or_exception().local_log_start_offset()
        epoch = partition.local_log_or_exception().leader_epoch_cache.epoch_for_offset(local_log_start_offset)
        return OffsetAndEpoch(local_log_start_offset, 0 if epoch is None else epoch)

    def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, EpochData]
                                ) -> Mapping[TopicPartition, EpochEndOffset]:
        result: dict[TopicPartition, EpochEndOffset] = {}
        for tp, epoch_data in partitions.items():
            try:
                if epoch_data.leader_epoch == UNDEFINED_EPOCH:
                    end_offset = EpochEndOffset(partition=tp.partition, error_code=Errors.NONE)
                else:
                    partition = self.replica_manager.get_partition_or_exception(tp)
                    end_offset = partition.last_offset_for_leader_epoch(
                        current_leader_epoch=_leader_epoch(epoch_data.current_leader_epoch),
                        leader_epoch=epoch_data.leader_epoch,
                        fetch_only_from_leader=False)
                result[tp] = end_offset
            except Exception as t:
                self.log.warning("Error when getting EpochEndOffset for %s", tp, exc_info=t)
                result[tp] = EpochEndOffset(partition=tp.partition, error_code=Errors.for_exception(t))
        return result

    def build_fetch(self, partitions: Mapping[TopicPartition, PartitionFetchState]
                    ) -> ResultWithPartitions[ReplicaFetch | None]:
        # a throttled move is left out of this round altogether
        if self.quota is not None and self.quota.is_quota_exceeded():
            return ResultWithPartitions(None, set())
        selected = self._select_partition_to_fetch(partitions)
        if selected is None:
            return ResultWithPartitions(None, set())
        tp, fetch_state = selected
        return self._build_fetch_for_partition(tp, fetch_state)

    def _select_partition_to_fetch(self, partitions: Mapping[TopicPartition, PartitionFetchState]
                                   ) -> tuple[TopicPartition, PartitionFetchState] | None:
        """One partition at a time, so that each move catches up fast and is done before the next starts: the one
        in progress while it stays ready, else the first ready one by topic, then partition."""
        if self._in_progress_partition is not None:
            fetch_state = partitions.get(self._in_progress_partition)
            if fetch_state is not None and fetch_state.is_ready_for_fetch:
                return self._in_progress_partition, fetch_state

        self._in_progress_partition = None

        next_partition_opt = self._next_ready_partition(partitions)
        if next_partition_opt is not None:
            tp, fetch_state = next_partition_opt
            self._in_progress_partition = tp
            self.log.info("Beginning/resuming copy of partition %s from offset %d. Including this partition, there "
                          "are %d remaining partitions to copy by this thread.", tp, fetch_state.fetch_offset,
                          len(partitions))
        return next_partition_opt

    def _build_fetch_for_partition(self, topic_partition: TopicPartition, fetch_state: PartitionFetchState
                                   ) -> ResultWithPartitions[ReplicaFetch | None]:
        request_map: dict[TopicPartition, FetchRequestPartitionData] = {}
        partitions_with_error: set[TopicPartition] = set()

        try:
            log_start_offset = self.replica_manager.future_local_log_or_exception(topic_partition).log_start_offset
            last_fetched_epoch = fetch_state.last_fetched_epoch if self.is_truncation_on_fetch_supported else None
            topic_id = _or_zero(fetch_state.topic_id)
            request_map[topic_partition] = FetchRequestPartitionData(
                topic_id, fetch_state.fetch_offset, log_start_offset, self._fetch_size,
                fetch_state.current_leader_epoch, last_fetched_epoch)
        except KafkaStorageException:
            self.log.debug("Failed to build fetch for %s", topic_partition, exc_info=True)
            partitions_with_error.add(topic_partition)

        if not request_map:
            fetch_request_opt = None
        else:
            version = 12 if fetch_state.topic_id is None else ApiKeys.FETCH.latest_version
            # no wait and no minimum: a future log that caught up gets its (empty) answer at once
            request_builder = FetchRequestBuilder.for_replica(version, self._replica_id, -1, 0, 0, request_map) \
                .set_max_bytes(self._max_bytes)
            fetch_request_opt = ReplicaFetch(request_map, request_builder)

        return ResultWithPartitions(fetch_request_opt, partitions_with_error)

    @staticmethod
    def _next_ready_partition(partitions: Mapping[TopicPartition, PartitionFetchState]
                              ) -> tuple[TopicPartition, PartitionFetchState] | None:
        ready = [(tp, state) for tp, state in partitions.items() if state.is_ready_for_fetch]
        if not ready:
            return None
        return min(ready, key=lambda entry: (entry[0].topic, entry[0].partition))

    def __str__(self) -> str:
        return "LocalLeaderEndPoint"


def _leader_epoch(leader_epoch: int) -> int | None:
    """RequestUtils.getLeaderEpoch: none for NO_PARTITION_LEADER_EPOCH."""
    return None if leader_epoch == NO_PARTITION_LEADER_EPOCH else leader_epoch


def _or_zero(topic_id: uuid.UUID | Uuid | None) -> uuid.UUID:
    """The fetch state's topic id as a request carries it (Uuid.ZERO_UUID for none)."""
    if topic_id is None:
        return ZERO_UUID
    return uuid.UUID(bytes=topic_id.to_bytes()) if isinstance(topic_id, Uuid) else topic_id
