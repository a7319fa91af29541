"""Port of core/src/test/scala/unit/kafka/server/epoch/util/MockBlockingSender.scala (Kafka 3.9): a BlockingSend that
answers the replica fetcher's requests from maps the test sets, counting them.

OffsetForLeaderEpoch is answered with `current_offsets` (the map passed in, so a test may change it in place),
Fetch with the partition data set for the next response, ListOffsets with the offsets set for it. Kafka's MockClient
(which only turns the response into a ClientResponse) is left out: the ClientResponse is made here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from kio.schema.list_offsets.v9.response import ListOffsetsResponse, ListOffsetsTopicResponse
from kio.schema.offset_for_leader_epoch.v4.response import (
    EpochEndOffset,
    OffsetForLeaderEpochResponse,
    OffsetForLeaderTopicResult,
)

from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import INVALID_SESSION_ID
from kafka_edu.v3_9.clients.common.requests.fetch_request import ZERO_UUID
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.broker_blocking_sender import BlockingSend


class MockBlockingSender(BlockingSend):
    def __init__(self, offsets: dict[TopicPartition, EpochEndOffset], source_broker: BrokerEndPoint,
                 time: Time) -> None:
        self.source_broker = source_broker
        self.time = time
        self.fetch_count = 0
        self.epoch_fetch_count = 0
        self.list_offsets_count = 0
        self.last_used_offset_for_leader_epoch_version = -1
        self.callback: Callable[[], None] | None = None
        self.current_offsets = offsets
        self.fetch_partition_data: Mapping[TopicPartition, Any] = {}
        self.list_offsets: Mapping[TopicPartition, Any] = {}
        self.topic_ids: Mapping[str, uuid.UUID] = {}
        self._correlation_id = 0

    def set_epoch_request_callback(self, post_epoch_function: Callable[[], None]) -> None:
        self.callback = post_epoch_function

    def set_offsets_for_next_response(self, new_offsets: dict[TopicPartition, EpochEndOffset]) -> None:
        self.current_offsets = new_offsets

    def set_fetch_partition_data_for_next_response(self, partition_data: Mapping[TopicPartition, Any]) -> None:
        self.fetch_partition_data = partition_data

    def set_ids_for_next_response(self, topic_ids: Mapping[str, uuid.UUID]) -> None:
        self.topic_ids = topic_ids

    def set_list_offsets_data_for_next_response(self, list_offsets: Mapping[TopicPartition, Any]) -> None:
        self.list_offsets = list_offsets

    def broker_end_point(self) -> BrokerEndPoint:
        return self.source_broker

    def send_request(self, request_builder: Any) -> ClientResponse:
        api_key = request_builder.api_key
        version = request_builder.latest_allowed_version
        created_time_ms = self.time.milliseconds()
        if api_key is ApiKeys.OFFSET_FOR_LEADER_EPOCH:
            if self.callback is not None:
                self.callback()
            self.epoch_fetch_count += 1
            self.last_used_offset_for_leader_epoch_version = version
            topics: dict[str, list[EpochEndOffset]] = {}
            for tp, offset_for_leader_partition in self.current_offsets.items():
                topics.setdefault(tp.topic, []).append(offset_for_leader_partition)
            response: Any = OffsetForLeaderEpochResponse(
                throttle_time=timedelta(0),
                topics=tuple(OffsetForLeaderTopicResult(topic=topic, partitions=tuple(partitions))
                             for topic, partitions in topics.items()))
        elif api_key is ApiKeys.FETCH:
            self.fetch_count += 1
            partition_data = {TopicIdPartition(self.topic_ids.get(tp.topic, ZERO_UUID), tp): data
                              for tp, data in self.fetch_partition_data.items()}
            self.fetch_partition_data = {}
            self.topic_ids = {}
            response = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID if not partition_data else 1,
                                        partition_data)
        elif api_key is ApiKeys.LIST_OFFSETS:
            self.list_offsets_count += 1
            list_topics: dict[str, list[Any]] = {}
            for tp, partition_response in self.list_offsets.items():
                list_topics.setdefault(tp.topic, []).append(partition_response)
            response = ListOffsetsResponse(
                throttle_time=timedelta(0),
                topics=tuple(ListOffsetsTopicResponse(name=name, partitions=tuple(partitions))
                             for name, partitions in list_topics.items()))
        else:
            raise NotImplementedError(api_key)

        self._correlation_id += 1
        header = RequestHeader(api_key, version, "", self._correlation_id)
        return ClientResponse(header, str(self.source_broker.id), created_time_ms, self.time.milliseconds(),
                              disconnected=False, version_mismatch=None, authentication_exception=None,
                              response_body=response)

    def initiate_close(self) -> None:
        pass

    def close(self) -> None:
        pass

