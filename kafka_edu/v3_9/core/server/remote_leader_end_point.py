"""Port of core/src/main/scala/kafka/server/RemoteLeaderEndPoint.scala (Kafka 3.9): the leader a replica fetcher
follows, reached over the network: Fetch within a fetch session, ListOffsets for its earliest and latest offsets, and
OffsetForLeaderEpoch for truncation.

The ListOffsets and OffsetForLeaderEpoch request and response classes are not ported: their builders here carry the
fields Kafka's `forReplica` / `forFollower` builders set and build kio's request of the chosen version, and the
responses are read as kio's messages.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from kafka_edu.v1_0_2.clients.common import errors as errors_1_0_2
from kafka_edu.v1_0_2.clients.common.errors import ApiException, KafkaStorageException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.clients.fetch_session_handler import FetchSessionHandler
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.inconsistent_topic_id_exception import InconsistentTopicIdException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.errors.offset_not_available_exception import OffsetNotAvailableException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build, values
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_request import ZERO_UUID
from kafka_edu.v3_9.clients.common.requests.fetch_request import Builder as FetchRequestBuilder
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData as FetchRequestPartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import PartitionFetchState, ReplicaFetch, ResultWithPartitions
from kafka_edu.v3_9.core.server.broker_blocking_sender import BlockingSend
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, EpochEndOffset, FetchData, LeaderEndPoint
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch

# ListOffsetsRequest's special timestamps
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
EARLIEST_LOCAL_TIMESTAMP = -4


class ReplicaQuota(Protocol):
    """kafka.server.ReplicaQuota: the replication throttle (ReplicationQuotaManager is not ported)."""

    def record(self, value: int) -> None: ...

    def is_throttled(self, topic_partition: TopicPartition) -> bool: ...

    def is_quota_exceeded(self) -> bool: ...


class UnboundedQuota:
    """QuotaFactory.UnboundedQuota: never throttles."""

    def record(self, value: int) -> None:
        pass

    def is_throttled(self, topic_partition: TopicPartition) -> bool:
        return False

    def is_quota_exceeded(self) -> bool:
        return False


UNBOUNDED_QUOTA = UnboundedQuota()


class _KioRequest:
    """A built request of an unported request class: its version and kio's message."""

    def __init__(self, api_key: ApiKeys, version: int, body: Any) -> None:
        self.api_key = api_key
        self.version = version
        self._body = body

    def to_kio(self) -> Any:
        return self._body


class ListOffsetsRequestBuilder:
    """ListOffsetsRequest.Builder.forReplica: one version, the replica's id, read-uncommitted, the target times."""

    def __init__(self, allowed_version: int, replica_id: int) -> None:
        self.api_key = ApiKeys.LIST_OFFSETS
        self.oldest_allowed_version = allowed_version
        self.latest_allowed_version = allowed_version
        self.replica_id = replica_id
        self.topics: list[dict[str, Any]] = []

    @staticmethod
    def for_replica(allowed_version: int, replica_id: int) -> ListOffsetsRequestBuilder:
        return ListOffsetsRequestBuilder(allowed_version, replica_id)

    def set_target_times(self, topics: list[dict[str, Any]]) -> ListOffsetsRequestBuilder:
        """`topics`: [{"name": ..., "partitions": [{"partition_index", "current_leader_epoch", "timestamp"}]}]."""
        self.topics = topics
        return self

    def build(self, version: int | None = None) -> _KioRequest:
        version = self.latest_allowed_version if version is None else version
        topics = [{"name": t["name"], "partitions": [{"max_num_offsets": 1, **p} for p in t["partitions"]]}
                  for t in self.topics]  # v0 asks for one offset, as Kafka's builder does
        return _KioRequest(self.api_key, version, build(ApiKeys.LIST_OFFSETS.request_schema(version),
                                                        replica_id=self.replica_id, isolation_level=0,
                                                        topics=topics))

    def __str__(self) -> str:
        return f"(type=ListOffsetsRequest, replicaId={self.replica_id}, topics={self.topics})"


class OffsetsForLeaderEpochRequestBuilder:
    """OffsetsForLeaderEpochRequest.Builder.forFollower: one version, the follower's id, the epochs asked for."""

    def __init__(self, version: int, topics: Mapping[str, list[EpochData]], replica_id: int) -> None:
        self.api_key = ApiKeys.OFFSET_FOR_LEADER_EPOCH
        self.oldest_allowed_version = version
        self.latest_allowed_version = version
        self.topics = topics
        self.replica_id = replica_id

    @staticmethod
    def for_follower(version: int, topics: Mapping[str, list[EpochData]],
                     replica_id: int) -> OffsetsForLeaderEpochRequestBuilder:
        return OffsetsForLeaderEpochRequestBuilder(version, topics, replica_id)

    def build(self, version: int | None = None) -> _KioRequest:
        version = self.latest_allowed_version if version is None else version
        topics = [{"topic": topic, "partitions": [values(p) for p in partitions]}
                  for topic, partitions in self.topics.items()]
        return _KioRequest(self.api_key, version,
                           build(ApiKeys.OFFSET_FOR_LEADER_EPOCH.request_schema(version),
                                 replica_id=self.replica_id, topics=topics))

    def __str__(self) -> str:
        return f"OffsetsForLeaderEpochRequest(replicaId={self.replica_id}, topics={dict(self.topics)})"


_EXCEPTIONS_3_9: dict[Errors, type[BaseException]] = {
    Errors.FENCED_LEADER_EPOCH: FencedLeaderEpochException,
    Errors.UNKNOWN_LEADER_EPOCH: UnknownLeaderEpochException,
    Errors.NOT_LEADER_OR_FOLLOWER: NotLeaderOrFollowerException,
    Errors.INCONSISTENT_TOPIC_ID: InconsistentTopicIdException,
    Errors.OFFSET_NOT_AVAILABLE: OffsetNotAvailableException,
}
_MADE: dict[Errors, type[BaseException]] = {}


def error_exception(error: Errors) -> BaseException:
    """Errors.exception(): the exception of the error's class (the 3.9 tree's, else 1.0.2's of the same name, else
    an ApiException named after it, so that Errors.forException maps it back to the same code)."""
    klass = _EXCEPTIONS_3_9.get(error) or getattr(errors_1_0_2, error.exception_name or "", None)
    if not isinstance(klass, type):
        klass = _MADE.get(error)
        if klass is None:
            klass = type(error.exception_name or "ApiException", (ApiException,), {"__module__": __name__})
            _MADE[error] = klass
    return klass(error.exception_name or error.name)


class RemoteLeaderEndPoint(LeaderEndPoint):
    """Facilitates fetches from a remote replica leader, through `blocking_sender`; `fetch_session_handler` tracks the
    partitions of the fetch session (visible for testing)."""

    def __init__(self, log_prefix: str, blocking_sender: BlockingSend, fetch_session_handler: FetchSessionHandler,
                 broker_config: Any, replica_manager: Any, quota: ReplicaQuota | None,
                 metadata_version_supplier: Callable[[], MetadataVersion],
                 broker_epoch_supplier: Callable[[], int]) -> None:
        self.log = Logging("kafka.server.RemoteLeaderEndPoint", log_prefix)
        self.blocking_sender = blocking_sender
        self.fetch_session_handler = fetch_session_handler
        self.broker_config = broker_config
        self.replica_manager = replica_manager
        self.quota = quota
        self.metadata_version_supplier = metadata_version_supplier
        self.broker_epoch_supplier = broker_epoch_supplier
        self._max_wait: int = broker_config.replica_fetch_wait_max_ms
        self._min_bytes: int = broker_config.replica_fetch_min_bytes
        self._max_bytes: int = broker_config.replica_fetch_response_max_bytes
        self._fetch_size: int = broker_config.replica_fetch_max_bytes

    @property
    def is_truncation_on_fetch_supported(self) -> bool:
        return self.metadata_version_supplier().is_truncation_on_fetch_supported()

    def initiate_close(self) -> None:
        self.blocking_sender.initiate_close()

    def close(self) -> None:
        self.blocking_sender.close()

    def broker_end_point(self) -> BrokerEndPoint:
        return self.blocking_sender.broker_end_point()

    def fetch(self, fetch_request: FetchRequestBuilder) -> Mapping[TopicPartition, FetchData]:
        try:
            client_response = self.blocking_sender.send_request(fetch_request)
        except BaseException as t:
            self.fetch_session_handler.handle_error(t)
            raise
        fetch_response: FetchResponse = client_response.response_body
        version = client_response.request_header().api_version
        if not self.fetch_session_handler.handle_response(fetch_response, version):
            # a session topic id error is raised; any other leaves nothing to process this round
            if fetch_response.error() == Errors.FETCH_SESSION_TOPIC_ID_ERROR:
                raise error_exception(fetch_response.error())
            return {}
        return fetch_response.response_data(self.fetch_session_handler.session_topic_names(), version)

    def fetch_earliest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        return self._fetch_offset(topic_partition, current_leader_epoch, EARLIEST_TIMESTAMP)

    def fetch_latest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        return self._fetch_offset(topic_partition, current_leader_epoch, LATEST_TIMESTAMP)

    def fetch_earliest_local_offset(self, topic_partition: TopicPartition,
                                    current_leader_epoch: int) -> OffsetAndEpoch:
        return self._fetch_offset(topic_partition, current_leader_epoch, EARLIEST_LOCAL_TIMESTAMP)

    def _fetch_offset(self, topic_partition: TopicPartition, current_leader_epoch: int,
                      timestamp: int) -> OffsetAndEpoch:
        topic = {"name": topic_partition.topic,
                 "partitions": [{"partition_index": topic_partition.partition,
                                 "current_leader_epoch": current_leader_epoch, "timestamp": timestamp}]}
        metadata_version = self.metadata_version_supplier()
        request_builder = ListOffsetsRequestBuilder.for_replica(metadata_version.list_offset_request_version(),
                                                                self.broker_config.broker_id) \
            .set_target_times([topic])

        client_response = self.blocking_sender.send_request(request_builder)
        response = client_response.response_body
        response_topic = next(t for t in response.topics if t.name == topic_partition.topic)
        response_partition = next(p for p in response_topic.partitions
                                  if p.partition_index == topic_partition.partition)

        error = Errors.for_code(int(response_partition.error_code))
        if error == Errors.NONE:
            leader_epoch = getattr(response_partition, "leader_epoch", -1)
            if metadata_version.is_at_least(MetadataVersion.IBP_0_10_1_IV2):
                return OffsetAndEpoch(response_partition.offset, leader_epoch)
            return OffsetAndEpoch(response_partition.old_style_offsets[0], leader_epoch)
        raise error_exception(error)

    def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, EpochData]
                                ) -> Mapping[TopicPartition, EpochEndOffset]:
        if not partitions:
            self.log.debug("Skipping leaderEpoch request since all partitions do not have an epoch")
            return {}

        topics: dict[str, list[EpochData]] = {}
        for topic_partition, epoch_data in partitions.items():
            topics.setdefault(topic_partition.topic, []).append(epoch_data)

        epoch_request = OffsetsForLeaderEpochRequestBuilder.for_follower(
            self.metadata_version_supplier().offset_for_leader_epoch_request_version(), topics,
            self.broker_config.broker_id)
        self.log.debug("Sending offset for leader epoch request %s", epoch_request)

        try:
            response = self.blocking_sender.send_request(epoch_request)
            response_body = response.response_body
            self.log.debug("Received leaderEpoch response %s", response)
            result: dict[TopicPartition, EpochEndOffset] = {}
            for topic_result in response_body.topics:
                for partition_result in topic_result.partitions:
                    tp = TopicPartition(topic_result.topic, partition_result.partition)
                    result[tp] = _epoch_end_offset(partition_result)
            return result
        except Exception as t:
            self.log.warning("Error when sending leader epoch request for %s", dict(partitions), exc_info=True)
            # any unexpected exception marks every partition with its error
            error = Errors.for_exception(t)
            return {tp: EpochEndOffset(partition=tp.partition, error_code=error) for tp in partitions}

    def build_fetch(self, partitions: Mapping[TopicPartition, PartitionFetchState]
                    ) -> ResultWithPartitions[ReplicaFetch | None]:
        partitions_with_error: set[TopicPartition] = set()

        builder = self.fetch_session_handler.new_builder(len(partitions), False)
        for topic_partition, fetch_state in partitions.items():
            # a throttled replica is left out of the request
            if fetch_state.is_ready_for_fetch and not self._should_follower_throttle(self.quota, fetch_state,
                                                                                   topic_partition):
                try:
                    log_start_offset = self.replica_manager.local_log_or_exception(topic_partition).log_start_offset
                    last_fetched_epoch = fetch_state.last_fetched_epoch if self.is_truncation_on_fetch_supported \
                        else None
                    builder.add(topic_partition, FetchRequestPartitionData(
                        _or_zero(fetch_state.topic_id), fetch_state.fetch_offset, log_start_offset, self._fetch_size,
                        fetch_state.current_leader_epoch, last_fetched_epoch))
                except KafkaStorageException:
                    # the replica is already offline (its log dir failed, logged there); ReplicaManager's
                    # handleLogDirFailure removes it from this fetcher soon
                    partitions_with_error.add(topic_partition)

        fetch_data = builder.build()
        if not fetch_data.session_partitions() and not fetch_data.to_forget():
            fetch_request_opt = None
        else:
            metadata_version = self.metadata_version_supplier()
            version = metadata_version.fetch_request_version()
            if version >= 13 and not fetch_data.can_use_topic_ids():
                version = 12
            request_builder = FetchRequestBuilder.for_replica(
                version, self.broker_config.broker_id, self.broker_epoch_supplier(), self._max_wait,
                self._min_bytes, fetch_data.to_send()) \
                .set_max_bytes(self._max_bytes) \
                .removed(fetch_data.to_forget()) \
                .replaced(fetch_data.to_replace()) \
                .metadata(fetch_data.metadata())
            fetch_request_opt = ReplicaFetch(fetch_data.session_partitions(), request_builder)

        return ResultWithPartitions(fetch_request_opt, partitions_with_error)

    @staticmethod
    def _should_follower_throttle(quota: ReplicaQuota, fetch_state: PartitionFetchState,
                                  topic_partition: TopicPartition) -> bool:
        """Only a replica out of sync, in the throttled list, over the quota is throttled (no ISR thrashing)."""
        return not fetch_state.is_replica_in_sync and quota.is_throttled(topic_partition) and \
            quota.is_quota_exceeded()

    def __str__(self) -> str:
        return f"RemoteLeaderEndPoint(blockingSender={self.blocking_sender})"


def _or_zero(topic_id: uuid.UUID | Uuid | None) -> uuid.UUID:
    """The fetch state's topic id as the wire carries it (Uuid.ZERO_UUID for none); a fetch state made from a log
    holds the log's Uuid."""
    if topic_id is None:
        return ZERO_UUID
    return uuid.UUID(bytes=topic_id.to_bytes()) if isinstance(topic_id, Uuid) else topic_id


def _epoch_end_offset(partition_result: Any) -> EpochEndOffset:
    """A partition result of any version as the newest version's EpochEndOffset (what LeaderEndPoint hands on)."""
    if isinstance(partition_result, EpochEndOffset):
        return partition_result
    return build(EpochEndOffset, **values(partition_result))
