"""Port of clients/src/main/java/org/apache/kafka/common/requests/FetchRequest.java (Kafka 3.9): a Fetch request, its
per-partition data and its builder.

Kafka's generated FetchRequestData holds every field of every version in memory and writes only those a version
has; kio has one class per version. So the request keeps Kafka's in-memory shape here: FetchRequestData below holds
topic name and topic id both (v13 put ids on the wire in place of names), its partitions are kio's FetchPartition of
the latest version (a superset of every version's fields), and `from_kio` / `to_kio` cross to and from the wire
classes. Topic ids are uuid.UUID as kio carries them, ZERO_UUID standing for Kafka's Uuid.ZERO_UUID (kio reads a
zero id as None).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kio.schema.fetch.v17.request import FetchPartition, ReplicaState

from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build, values
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PARTITION_LEADER_EPOCH
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import FetchMetadata
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

ZERO_UUID = uuid.UUID(int=0)

CONSUMER_REPLICA_ID = -1
DEFAULT_RESPONSE_MAX_BYTES = 2**31 - 1  # for versions before 3, which had no request-level limit
INVALID_LOG_START_OFFSET = -1

ORDINARY_CONSUMER_ID = -1
DEBUGGING_CONSUMER_ID = -2
FUTURE_LOCAL_REPLICA_ID = -3

TOPIC_IDS_VERSION = 13  # the first version that names topics by id
REPLICA_STATE_VERSION = 15  # the first version that sends the replica id (and epoch) in ReplicaState


@dataclass(frozen=True)
class PartitionData:
    """FetchRequest.PartitionData: what a fetcher asks of one partition. Kafka's Optional<Integer> epochs are
    int | None."""

    topic_id: uuid.UUID
    fetch_offset: int
    log_start_offset: int
    max_bytes: int
    current_leader_epoch: int | None
    last_fetched_epoch: int | None = None


def _optional_epoch(raw_epoch_value: int) -> int | None:
    return None if raw_epoch_value < 0 else raw_epoch_value


def _topic_id(value: uuid.UUID | None) -> uuid.UUID:
    return ZERO_UUID if value is None else value


@dataclass
class FetchTopic:
    """FetchRequestData.FetchTopic: the name goes on the wire before v13, the id from v13."""

    topic: str | None
    topic_id: uuid.UUID
    partitions: list[FetchPartition] = field(default_factory=list)


@dataclass
class ForgottenTopic:
    """FetchRequestData.ForgottenTopic: partitions an incremental request removes from its session."""

    topic: str | None
    topic_id: uuid.UUID
    partitions: list[int] = field(default_factory=list)


@dataclass
class FetchRequestData:
    """FetchRequestData as Kafka holds it in memory (see the module docstring)."""

    cluster_id: str | None = None
    replica_id: int = -1  # before v15
    replica_state: ReplicaState = ReplicaState()  # from v15
    max_wait_ms: int = 0
    min_bytes: int = 0
    max_bytes: int = DEFAULT_RESPONSE_MAX_BYTES
    isolation_level: int = 0
    session_id: int = 0
    session_epoch: int = -1
    topics: list[FetchTopic] = field(default_factory=list)
    forgotten_topics_data: list[ForgottenTopic] = field(default_factory=list)
    rack_id: str = ""

    @staticmethod
    def from_kio(body: Any) -> FetchRequestData:
        """A decoded request of any version; fields the version lacks keep their defaults."""
        raw = values(body)
        data = FetchRequestData(
            cluster_id=raw.get("cluster_id"), replica_id=raw.get("replica_id", -1),
            replica_state=build(ReplicaState, **raw["replica_state"]) if "replica_state" in raw else ReplicaState(),
            max_wait_ms=raw["max_wait"], min_bytes=raw["min_bytes"],
            max_bytes=raw.get("max_bytes", DEFAULT_RESPONSE_MAX_BYTES), isolation_level=raw.get("isolation_level", 0),
            session_id=raw.get("session_id", 0), session_epoch=raw.get("session_epoch", -1),
            rack_id=raw.get("rack_id", ""))
        for topic in raw["topics"]:
            data.topics.append(FetchTopic(topic.get("topic"), _topic_id(topic.get("topic_id")),
                                          [build(FetchPartition, **p) for p in topic["partitions"]]))
        for forgotten in raw.get("forgotten_topics_data", ()):
            data.forgotten_topics_data.append(ForgottenTopic(forgotten.get("topic"),
                                                             _topic_id(forgotten.get("topic_id")),
                                                             list(forgotten["partitions"])))
        return data

    def to_kio(self, version: int) -> Any:
        """The wire object of `version`: what that version has of the fields."""
        return build(
            ApiKeys.FETCH.request_schema(version), cluster_id=self.cluster_id, replica_id=self.replica_id,
            replica_state=values(self.replica_state), max_wait=self.max_wait_ms, min_bytes=self.min_bytes,
            max_bytes=self.max_bytes, isolation_level=self.isolation_level, session_id=self.session_id,
            session_epoch=self.session_epoch, rack_id=self.rack_id,
            topics=[{"topic": t.topic, "topic_id": t.topic_id, "partitions": [values(p) for p in t.partitions]}
                    for t in self.topics],
            forgotten_topics_data=[{"topic": f.topic, "topic_id": f.topic_id, "partitions": tuple(f.partitions)}
                                   for f in self.forgotten_topics_data])


class Builder:
    """FetchRequest.Builder: the fetcher's side, from the partitions to fetch (by TopicPartition, in order)."""

    def __init__(self, min_version: int, max_version: int, replica_id: int, replica_epoch: int, max_wait: int,
                 min_bytes: int, fetch_data: Mapping[TopicPartition, PartitionData]) -> None:
        self.api_key = ApiKeys.FETCH
        self.oldest_allowed_version = min_version
        self.latest_allowed_version = max_version
        self._replica_id = replica_id
        self._replica_epoch = replica_epoch
        self._max_wait = max_wait
        self._min_bytes = min_bytes
        self._to_fetch = fetch_data
        self._isolation_level = IsolationLevel.READ_UNCOMMITTED
        self._max_bytes = DEFAULT_RESPONSE_MAX_BYTES
        self._metadata = FetchMetadata.LEGACY
        self._removed: list[TopicIdPartition] = []
        self._replaced: list[TopicIdPartition] = []
        self._rack_id = ""

    @staticmethod
    def for_consumer(max_version: int, max_wait: int, min_bytes: int,
                     fetch_data: Mapping[TopicPartition, PartitionData]) -> Builder:
        return Builder(ApiKeys.FETCH.oldest_version, max_version, CONSUMER_REPLICA_ID, -1, max_wait, min_bytes,
                       fetch_data)

    @staticmethod
    def for_replica(allowed_version: int, replica_id: int, replica_epoch: int, max_wait: int, min_bytes: int,
                    fetch_data: Mapping[TopicPartition, PartitionData]) -> Builder:
        return Builder(allowed_version, allowed_version, replica_id, replica_epoch, max_wait, min_bytes, fetch_data)

    def isolation_level(self, isolation_level: IsolationLevel) -> Builder:
        self._isolation_level = isolation_level
        return self

    def metadata(self, metadata: FetchMetadata | None = None) -> Any:
        """metadata() reads it; metadata(m) sets it and returns the builder."""
        if metadata is None:
            return self._metadata
        self._metadata = metadata
        return self

    def rack_id(self, rack_id: str) -> Builder:
        self._rack_id = rack_id
        return self

    def fetch_data(self) -> Mapping[TopicPartition, PartitionData]:
        return self._to_fetch

    def set_max_bytes(self, max_bytes: int) -> Builder:
        self._max_bytes = max_bytes
        return self

    def removed(self, removed: list[TopicIdPartition] | None = None) -> Any:
        if removed is None:
            return self._removed
        self._removed = removed
        return self

    def replaced(self, replaced: list[TopicIdPartition] | None = None) -> Any:
        if replaced is None:
            return self._replaced
        self._replaced = replaced
        return self

    @staticmethod
    def _add_to_forgotten_topic_map(to_forget: list[TopicIdPartition],
                                    forgotten_topic_map: dict[str | None, ForgottenTopic]) -> None:
        for topic_id_partition in to_forget:
            forgotten_topic = forgotten_topic_map.get(topic_id_partition.topic)
            if forgotten_topic is None:
                forgotten_topic = ForgottenTopic(topic_id_partition.topic, topic_id_partition.topic_id)
                forgotten_topic_map[topic_id_partition.topic] = forgotten_topic
            forgotten_topic.partitions.append(topic_id_partition.partition)

    def build(self, version: int | None = None) -> FetchRequest:
        """The request at `version` (default: the newest this builder allows)."""
        version = self.latest_allowed_version if version is None else version
        if version < 3:
            self._max_bytes = DEFAULT_RESPONSE_MAX_BYTES

        data = FetchRequestData(max_wait_ms=self._max_wait, min_bytes=self._min_bytes, max_bytes=self._max_bytes,
                                isolation_level=self._isolation_level.id)
        if version < REPLICA_STATE_VERSION:
            data.replica_id = self._replica_id
        else:
            data.replica_state = ReplicaState(replica_id=self._replica_id, replica_epoch=self._replica_epoch)

        forgotten_topic_map: dict[str | None, ForgottenTopic] = {}
        self._add_to_forgotten_topic_map(self._removed, forgotten_topic_map)
        # Before v13 a partition replaced by a same-named one with a new id is not forgotten: forgetting it by name
        # would drop the new one from the fetch set too.
        if version >= TOPIC_IDS_VERSION:
            self._add_to_forgotten_topic_map(self._replaced, forgotten_topic_map)
        data.forgotten_topics_data.extend(forgotten_topic_map.values())

        # Partitions share a FetchTopic only when they come one after another in the fetch data.
        fetch_topic: FetchTopic | None = None
        for topic_partition, partition_data in self._to_fetch.items():
            if fetch_topic is None or topic_partition.topic != fetch_topic.topic:
                fetch_topic = FetchTopic(topic_partition.topic, partition_data.topic_id)
                data.topics.append(fetch_topic)
            fetch_topic.partitions.append(FetchPartition(
                partition=topic_partition.partition,
                current_leader_epoch=_or_else(partition_data.current_leader_epoch, NO_PARTITION_LEADER_EPOCH),
                last_fetched_epoch=_or_else(partition_data.last_fetched_epoch, NO_PARTITION_LEADER_EPOCH),
                fetch_offset=partition_data.fetch_offset, log_start_offset=partition_data.log_start_offset,
                partition_max_bytes=partition_data.max_bytes))

        if self._metadata is not None:
            data.session_epoch = self._metadata.epoch
            data.session_id = self._metadata.session_id
        data.rack_id = self._rack_id
        return FetchRequest(data, version)

    def __str__(self) -> str:
        return (f"(type=FetchRequest, replicaId={self._replica_id}, maxWait={self._max_wait}, "
                f"minBytes={self._min_bytes}, maxBytes={self._max_bytes}, fetchData={dict(self._to_fetch)}, "
                f"isolationLevel={self._isolation_level.name}, removed={', '.join(map(str, self._removed))}, "
                f"replaced={', '.join(map(str, self._replaced))}, metadata={self._metadata}, "
                f"rackId={self._rack_id})")


def _or_else(value: int | None, default: int) -> int:
    return default if value is None else value


def replica_id_of(fetch_request_data: FetchRequestData) -> int:
    """FetchRequest.replicaId(FetchRequestData): the v15+ place if the old one is unset."""
    if fetch_request_data.replica_id != -1:
        return fetch_request_data.replica_id
    return fetch_request_data.replica_state.replica_id


class FetchRequest:
    """A Fetch request of one version over its in-memory data."""

    PartitionData = PartitionData
    Builder = Builder

    def __init__(self, fetch_request_data: FetchRequestData, version: int) -> None:
        self.api_key = ApiKeys.FETCH
        self.version = version
        self._data = fetch_request_data
        self._fetch_data: dict[TopicIdPartition, PartitionData] | None = None
        self._fetch_data_lock = threading.Lock()
        self._metadata = FetchMetadata(fetch_request_data.session_id, fetch_request_data.session_epoch)

    @staticmethod
    def from_kio(body: Any) -> FetchRequest:
        """A request decoded off the wire (kio's object of its version)."""
        return FetchRequest(FetchRequestData.from_kio(body), body.__version__)

    def get_error_response(self, throttle_time_ms: int, e: BaseException) -> Any:
        """Every partition gets the error too before v13, whose clients read no top-level error code; from v13 the
        top-level code alone says it (an incremental response may list no partitions at all)."""
        from kafka_edu.v3_9.clients.common.requests.fetch_response import (  # the two modules refer to each other
            FetchableTopicResponse,
            FetchResponse,
            FetchResponseData,
        )

        error = Errors.for_exception(e)
        topic_response_list = []
        if self.version < TOPIC_IDS_VERSION:
            for topic in self._data.topics:
                topic_response_list.append(FetchableTopicResponse(
                    topic.topic, topic.topic_id,
                    [FetchResponse.partition_response(p.partition, error) for p in topic.partitions]))
        return FetchResponse(FetchResponseData(throttle_time_ms=throttle_time_ms, error_code=error,
                                               session_id=self._data.session_id, responses=topic_response_list))

    def replica_id(self) -> int:
        if self.version < REPLICA_STATE_VERSION:
            return self._data.replica_id
        return self._data.replica_state.replica_id

    def replica_epoch(self) -> int:
        return self._data.replica_state.replica_epoch

    def max_wait(self) -> int:
        return self._data.max_wait_ms

    def min_bytes(self) -> int:
        return self._data.min_bytes

    def max_bytes(self) -> int:
        return self._data.max_bytes

    def fetch_data(self, topic_names: Mapping[uuid.UUID, str]) -> dict[TopicIdPartition, PartitionData]:
        """The partitions to fetch, in request order. Before v13 topics come by name; from v13 by id, named from
        `topic_names`: an id the broker does not know gives a TopicPartition whose topic is None. Built once."""
        if self._fetch_data is None:
            with self._fetch_data_lock:
                if self._fetch_data is None:
                    fetch_data: dict[TopicIdPartition, PartitionData] = {}
                    for fetch_topic in self._data.topics:
                        name = (fetch_topic.topic if self.version < TOPIC_IDS_VERSION
                                else topic_names.get(fetch_topic.topic_id))
                        for fetch_partition in fetch_topic.partitions:
                            fetch_data[TopicIdPartition(fetch_topic.topic_id,
                                                        TopicPartition(name, fetch_partition.partition))] = \
                                PartitionData(fetch_topic.topic_id, fetch_partition.fetch_offset,
                                              fetch_partition.log_start_offset, fetch_partition.partition_max_bytes,
                                              _optional_epoch(fetch_partition.current_leader_epoch),
                                              _optional_epoch(fetch_partition.last_fetched_epoch))
                    self._fetch_data = fetch_data  # published whole, never half-built
        return self._fetch_data

    def forgotten_topics(self, topic_names: Mapping[uuid.UUID, str]) -> list[TopicIdPartition]:
        """The partitions an incremental request drops from its session, named as in `fetch_data`."""
        to_forget = []
        for forgotten_topic in self._data.forgotten_topics_data:
            name = (forgotten_topic.topic if self.version < TOPIC_IDS_VERSION
                    else topic_names.get(forgotten_topic.topic_id))
            for partition_id in forgotten_topic.partitions:
                to_forget.append(TopicIdPartition(forgotten_topic.topic_id, TopicPartition(name, partition_id)))
        return to_forget

    def is_from_follower(self) -> bool:
        return self.replica_id() >= 0

    def isolation_level(self) -> IsolationLevel:
        return IsolationLevel.for_id(self._data.isolation_level)

    def metadata(self) -> FetchMetadata:
        return self._metadata

    def rack_id(self) -> str:
        return self._data.rack_id

    @staticmethod
    def is_valid_broker_id(broker_id: int) -> bool:
        return broker_id >= 0

    @staticmethod
    def is_consumer(replica_id: int) -> bool:
        return replica_id < 0 and replica_id != FUTURE_LOCAL_REPLICA_ID

    @staticmethod
    def describe_replica_id(replica_id: int) -> str:
        if replica_id == ORDINARY_CONSUMER_ID:
            return "consumer"
        if replica_id == DEBUGGING_CONSUMER_ID:
            return "debug consumer"
        if replica_id == FUTURE_LOCAL_REPLICA_ID:
            return "future local replica"
        if FetchRequest.is_valid_broker_id(replica_id):
            return f"replica [{replica_id}]"
        return f"invalid replica [{replica_id}]"

    def data(self) -> FetchRequestData:
        return self._data

    def to_kio(self) -> Any:
        return self._data.to_kio(self.version)
