"""Port of core/src/main/scala/kafka/server/LeaderEndPoint.scala (Kafka 3.9): what a fetcher thread needs of the broker
it follows (fetch, OffsetsForLeaderEpoch, earliest/latest offsets, building the fetch request)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kio.schema.fetch.v17.response import PartitionData as FetchData
from kio.schema.offset_for_leader_epoch.v4.request import OffsetForLeaderPartition as EpochData
from kio.schema.offset_for_leader_epoch.v4.response import EpochEndOffset

from kafka_edu.v3_9.clients.common.requests.fetch_request import Builder as FetchRequestBuilder
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.server.abstract_fetcher_thread import (
        PartitionFetchState,
        ReplicaFetch,
        ResultWithPartitions,
    )

__all__ = ["EpochData", "EpochEndOffset", "FetchData", "LeaderEndPoint"]


class LeaderEndPoint(ABC):
    """FetchData is FetchResponseData.PartitionData, EpochData OffsetForLeaderEpochRequestData.OffsetForLeaderPartition
    (kio's classes of the newest version, which have every field)."""

    @property
    @abstractmethod
    def is_truncation_on_fetch_supported(self) -> bool:
        """Whether the leader answers a diverging epoch in the fetch response (Fetch v12+)."""

    @abstractmethod
    def initiate_close(self) -> None: ...

    @abstractmethod
    def close(self) -> None:
        """`initiate_close` comes first."""

    @abstractmethod
    def broker_end_point(self) -> BrokerEndPoint: ...

    @abstractmethod
    def fetch(self, fetch_request: FetchRequestBuilder) -> Mapping[TopicPartition, FetchData]:
        """Send the fetch; the leader's answer per partition."""

    @abstractmethod
    def fetch_earliest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        """The leader's log start offset and its epoch."""

    @abstractmethod
    def fetch_latest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        """The leader's log end offset and its epoch."""

    @abstractmethod
    def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, EpochData]
                                ) -> Mapping[TopicPartition, EpochEndOffset]:
        """OffsetsForLeaderEpoch: the leader's end offset of each requested epoch."""

    @abstractmethod
    def fetch_earliest_local_offset(self, topic_partition: TopicPartition,
                                    current_leader_epoch: int) -> OffsetAndEpoch:
        """The leader's local log start offset and its epoch (differs from the log start with tiered storage)."""

    @abstractmethod
    def build_fetch(self, partitions: Mapping[TopicPartition, PartitionFetchState]
                    ) -> ResultWithPartitions[ReplicaFetch | None]:
        """The fetch request for the partitions ready to fetch, if any, and the partitions that could not go in it."""
