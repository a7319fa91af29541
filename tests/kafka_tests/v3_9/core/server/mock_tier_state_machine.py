"""Port of core/src/test/scala/unit/kafka/server/MockTierStateMachine.scala (Kafka 3.9): restarts a partition at the
leader's local log start, where a real TierStateMachine would first rebuild the remote log's auxiliary state.
Tiered storage is not ported, so there is no TierStateMachine to extend: the fetcher calls `start` by name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import Fetching, PartitionFetchState
from kafka_edu.v3_9.core.server.leader_end_point import FetchData, LeaderEndPoint

if TYPE_CHECKING:
    from tests.kafka_tests.v3_9.core.server.mock_fetcher_thread import MockFetcherThread


class MockTierStateMachine:
    def __init__(self, leader: LeaderEndPoint) -> None:
        self.leader = leader
        self.fetcher: MockFetcherThread | None = None

    def start(self, topic_partition: TopicPartition, current_fetch_state: PartitionFetchState,
              fetch_partition_data: FetchData) -> PartitionFetchState:
        leader_end_offset = self.leader.fetch_latest_offset(topic_partition,
                                                            current_fetch_state.current_leader_epoch).offset
        offset_to_fetch = self.leader.fetch_earliest_local_offset(topic_partition,
                                                                  current_fetch_state.current_leader_epoch).offset
        initial_lag = leader_end_offset - offset_to_fetch
        assert self.fetcher is not None
        self.fetcher.truncate_fully_and_start_at(topic_partition, offset_to_fetch)
        return PartitionFetchState(current_fetch_state.topic_id, offset_to_fetch, initial_lag,
                                   current_fetch_state.current_leader_epoch, state=Fetching,
                                   last_fetched_epoch=current_fetch_state.current_leader_epoch)

    def set_fetcher(self, mock_fetcher_thread: MockFetcherThread) -> None:
        self.fetcher = mock_fetcher_thread
