"""Port of clients/src/main/java/org/apache/kafka/common/requests/FetchResponse.java (Kafka 3.9): a Fetch response and
the helpers the broker's fetch sessions read partition data with.

As for the request (fetch_request.py), the response keeps Kafka's in-memory shape: FetchResponseData holds topic name
and id both, whichever the version will write, because `of` builds a response before anyone knows the version.
Partition data is kio's PartitionData of the latest version (every version's fields); `partition_data` makes one
with Kafka's defaults, as `new FetchResponseData.PartitionData()` and its setters do. Its records are bytes or a
records object with `size_in_bytes()`.
"""

from __future__ import annotations

import dataclasses
import io
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kio.schema.fetch.v17.response import (
    AbortedTransaction,
    EpochEndOffset,
    LeaderIdAndEpoch,
    NodeEndpoint,
    PartitionData,
    SnapshotId,
)
from kio.serial import entity_writer

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build, values
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import INVALID_SESSION_ID
from kafka_edu.v3_9.clients.common.requests.fetch_request import TOPIC_IDS_VERSION, ZERO_UUID
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

__all__ = ["AbortedTransaction", "EpochEndOffset", "FetchResponse", "FetchResponseData", "FetchableTopicResponse",
           "LeaderIdAndEpoch", "PartitionData", "SnapshotId", "partition_data"]

INVALID_HIGH_WATERMARK = -1
INVALID_LAST_STABLE_OFFSET = -1
INVALID_LOG_START_OFFSET = -1
INVALID_PREFERRED_REPLICA_ID = -1


def partition_data(partition_index: int = 0, error_code: int = Errors.NONE, high_watermark: int = 0,
                   last_stable_offset: int = -1, log_start_offset: int = -1,
                   diverging_epoch: EpochEndOffset | None = None, current_leader: LeaderIdAndEpoch | None = None,
                   snapshot_id: SnapshotId | None = None, aborted_transactions: tuple[AbortedTransaction, ...] = (),
                   preferred_read_replica: int = INVALID_PREFERRED_REPLICA_ID, records: Any = None) -> PartitionData:
    """FetchResponseData.PartitionData with Kafka's defaults for the fields not given."""
    return PartitionData(
        partition_index=partition_index, error_code=Errors.for_code(int(error_code)), high_watermark=high_watermark,
        last_stable_offset=last_stable_offset, log_start_offset=log_start_offset,
        diverging_epoch=EpochEndOffset() if diverging_epoch is None else diverging_epoch,
        current_leader=LeaderIdAndEpoch() if current_leader is None else current_leader,
        snapshot_id=SnapshotId() if snapshot_id is None else snapshot_id,
        aborted_transactions=aborted_transactions, preferred_read_replica=preferred_read_replica, records=records)


@dataclass
class FetchableTopicResponse:
    """FetchResponseData.FetchableTopicResponse: the name goes on the wire before v13, the id from v13."""

    topic: str | None
    topic_id: uuid.UUID
    partitions: list[PartitionData] = field(default_factory=list)


@dataclass
class FetchResponseData:
    """FetchResponseData as Kafka holds it in memory (see the module docstring)."""

    throttle_time_ms: int = 0
    error_code: int = Errors.NONE
    session_id: int = 0
    responses: list[FetchableTopicResponse] = field(default_factory=list)
    node_endpoints: list[NodeEndpoint] = field(default_factory=list)

    def to_kio(self, version: int, without_records: bool = False) -> Any:
        """The wire object of `version`; records go as they are (bytes), or as null with `without_records`."""
        def partition(p: PartitionData) -> dict[str, Any]:
            fields = values(p)
            fields["error_code"] = Errors.for_code(int(p.error_code))
            fields["records"] = None if without_records else p.records
            return fields

        return build(
            ApiKeys.FETCH.response_schema(version), throttle_time=self.throttle_time_ms,
            error_code=Errors.for_code(int(self.error_code)), session_id=self.session_id,
            responses=[{"topic": t.topic, "topic_id": t.topic_id, "partitions": [partition(p) for p in t.partitions]}
                       for t in self.responses],
            node_endpoints=[values(e) for e in self.node_endpoints])

    def size(self, version: int) -> int:
        """The body's size on the wire at `version`. Records count by their size and are never read, so a slice of a
        log file stays on disk, as in Kafka."""
        out = io.BytesIO()
        body = self.to_kio(version, without_records=True)
        entity_writer(type(body))(out, body)
        size = len(out.getvalue())
        flexible = ApiKeys.FETCH.is_flexible(version)
        for topic in self.responses:
            for p in topic.partitions:
                if p.records is not None:
                    n = _size_in_bytes(p.records)
                    # null was written as a 1-byte varint (flexible) or an int32 -1; the records need their length
                    size += n + (_varint_size(n + 1) - 1 if flexible else 0)
        return size


def _size_in_bytes(records: Any) -> int:
    size_in_bytes = getattr(records, "size_in_bytes", None)
    return size_in_bytes() if size_in_bytes is not None else len(records)


def _varint_size(value: int) -> int:
    return max(1, (value.bit_length() + 6) // 7)


class FetchResponse:
    """A Fetch response over its in-memory data; `to_kio(version)` is what goes on the wire."""

    def __init__(self, fetch_response_data: FetchResponseData) -> None:
        self.api_key = ApiKeys.FETCH
        self._data = fetch_response_data

    def data(self) -> FetchResponseData:
        return self._data

    def error(self) -> Errors:
        return Errors.for_code(int(self._data.error_code))

    def response_data(self, topic_names: Mapping[uuid.UUID, str], version: int) -> dict[TopicPartition, PartitionData]:
        """The partitions by TopicPartition. From v13 topics are named from `topic_names` by id, and a topic the map
        cannot name is left out."""
        response_data: dict[TopicPartition, PartitionData] = {}
        for topic_response in self._data.responses:
            name = topic_response.topic if version < TOPIC_IDS_VERSION else topic_names.get(topic_response.topic_id)
            if name is not None:
                for partition in topic_response.partitions:
                    response_data[TopicPartition(name, partition.partition_index)] = partition
        return response_data

    def throttle_time_ms(self) -> int:
        return self._data.throttle_time_ms

    def maybe_set_throttle_time_ms(self, throttle_time_ms: int) -> None:
        self._data.throttle_time_ms = throttle_time_ms

    def session_id(self) -> int:
        return self._data.session_id

    def error_counts(self) -> dict[Errors, int]:
        error_counts: dict[Errors, int] = {}
        for error in [self.error()] + [Errors.for_code(int(p.error_code))
                                       for t in self._data.responses for p in t.partitions]:
            error_counts[error] = error_counts.get(error, 0) + 1
        return error_counts

    def topic_ids(self) -> set[uuid.UUID]:
        """The topic ids in the response: none before v13."""
        return {t.topic_id for t in self._data.responses if t.topic_id != ZERO_UUID}

    @staticmethod
    def size_of(version: int, part_iterator: Iterator[tuple[TopicIdPartition, PartitionData]]) -> int:
        """The size of a response of these partitions; throttle time and session fields have fixed sizes, so
        their values do not matter."""
        data = FetchResponse._to_message(Errors.NONE, 0, INVALID_SESSION_ID, part_iterator, [])
        return 4 + data.size(version)

    @staticmethod
    def should_client_throttle(version: int) -> bool:
        return version >= 8

    @staticmethod
    def diverging_epoch(partition_response: PartitionData) -> EpochEndOffset | None:
        return None if partition_response.diverging_epoch.epoch < 0 else partition_response.diverging_epoch

    @staticmethod
    def is_diverging_epoch(partition_response: PartitionData) -> bool:
        return partition_response.diverging_epoch.epoch >= 0

    @staticmethod
    def preferred_read_replica(partition_response: PartitionData) -> int | None:
        replica = partition_response.preferred_read_replica
        return None if replica == INVALID_PREFERRED_REPLICA_ID else replica

    @staticmethod
    def is_preferred_replica(partition_response: PartitionData) -> bool:
        return partition_response.preferred_read_replica != INVALID_PREFERRED_REPLICA_ID

    @staticmethod
    def partition_response(partition: int | TopicIdPartition, error: Errors) -> PartitionData:
        """A partition that answers only with an error (by partition number or TopicIdPartition)."""
        if isinstance(partition, TopicIdPartition):
            partition = partition.topic_partition.partition
        return partition_data(partition_index=partition, error_code=error, high_watermark=INVALID_HIGH_WATERMARK)

    @staticmethod
    def records_or_fail(partition: PartitionData) -> Any:
        """The partition's records as a Records object: EMPTY for none; bytes (records as decoded off the wire) are
        read as MemoryRecords, which is what Kafka's deserialization gives."""
        from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords  # the record layer is heavier

        if partition.records is None:
            return MemoryRecords.EMPTY
        if hasattr(partition.records, "batches"):
            return partition.records
        if isinstance(partition.records, (bytes, bytearray, memoryview)):
            return MemoryRecords.readable_records(partition.records)
        raise TypeError(f"The record type is {type(partition.records).__name__}, which is not a subtype of Records.")

    @staticmethod
    def records_size(partition: PartitionData) -> int:
        """The size of the partition's records, 0 for none."""
        return 0 if partition.records is None else _size_in_bytes(partition.records)

    @staticmethod
    def of(error: Errors, throttle_time_ms: int, session_id: int,
           response_data: Mapping[TopicIdPartition, PartitionData],
           node_endpoints: list[NodeEndpoint] | None = None) -> FetchResponse:
        """A response of these partitions, in their order."""
        return FetchResponse(FetchResponse._to_message(error, throttle_time_ms, session_id,
                                                       iter(response_data.items()), node_endpoints or []))

    @staticmethod
    def _matching_topic(previous_topic: FetchableTopicResponse | None, current_topic: TopicIdPartition) -> bool:
        if previous_topic is None:
            return False
        if previous_topic.topic_id != ZERO_UUID:
            return previous_topic.topic_id == current_topic.topic_id
        return previous_topic.topic == current_topic.topic_partition.topic

    @staticmethod
    def _to_message(error: Errors, throttle_time_ms: int, session_id: int,
                    part_iterator: Iterator[tuple[TopicIdPartition, PartitionData]],
                    node_endpoints: list[NodeEndpoint]) -> FetchResponseData:
        topic_response_list: list[FetchableTopicResponse] = []
        for topic_id_partition, data in part_iterator:
            # the partition data does not know its own partition: it is set here (kio's objects are frozen, so on a
            # copy, where Kafka sets it on the caller's object)
            if data.partition_index != topic_id_partition.topic_partition.partition:
                data = dataclasses.replace(data, partition_index=topic_id_partition.topic_partition.partition)
            # a topic's partitions share an entry only while they come one after another, so the order is kept
            previous_topic = topic_response_list[-1] if topic_response_list else None
            if FetchResponse._matching_topic(previous_topic, topic_id_partition):
                previous_topic.partitions.append(data)
            else:
                topic_response_list.append(FetchableTopicResponse(topic_id_partition.topic_partition.topic,
                                                                  topic_id_partition.topic_id, [data]))
        # KafkaApis passes node endpoints only with errors that name a new leader
        return FetchResponseData(throttle_time_ms=throttle_time_ms, error_code=error, session_id=session_id,
                                 responses=topic_response_list, node_endpoints=list(node_endpoints))

    def to_kio(self, version: int) -> Any:
        return self._data.to_kio(version)
