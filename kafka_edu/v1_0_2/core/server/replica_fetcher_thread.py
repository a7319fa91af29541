"""Port of core/src/main/scala/kafka/server/ReplicaFetcherThread.scala and ReplicaFetcherBlockingSend.scala
(Kafka 1.0.2): a follower's fetcher, sending Fetch requests with its broker id as replica id to one leader."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import event, step
from kafka_edu.v1_0_2.clients.common.errors import KafkaStorageException
from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH_OFFSET, EpochEndOffset
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import unclean_leader_election_enable
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.server.abstract_fetcher_thread import (
    AbstractFetcherThread,
    BrokerEndPoint,
    FatalExitError,
    PartitionFetchState,
    ResultWithPartitions,
)
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig, api_version_at_least
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.cluster.partition import Replica
    from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import LeaderEpochFileCache
    from kafka_edu.v1_0_2.core.server.replica_manager import ReplicaManager

FETCH_REQUEST_VERSION = 6
"""What a 1.0 broker sends at inter.broker.protocol.version 1.0 (log start offsets, no fetch sessions)."""
LIST_OFFSETS_REQUEST_VERSION = 1
OFFSET_FOR_LEADER_EPOCH_REQUEST_VERSION = 0
"""The only version 1.0.2 has (end offsets, no epochs in the answer)."""
EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1


class FetchRequest:
    """ReplicaFetcherThread.FetchRequest: the partitions to fetch and from which offsets."""

    def __init__(self, fetch_data: dict[TopicPartition, tuple[int, int, int]]) -> None:
        self.fetch_data = fetch_data  # fetch offset, log start offset, max bytes

    def is_empty(self) -> bool:
        return not self.fetch_data

    def offset(self, topic_partition: TopicPartition) -> int:
        return self.fetch_data[topic_partition][0]

    def __repr__(self) -> str:
        return "FetchRequest(" + ", ".join(f"{tp}@{v[0]}" for tp, v in self.fetch_data.items()) + ")"


@dataclass
class PartitionData:
    """ReplicaFetcherThread.PartitionData: one partition of a fetch response."""

    error: Errors
    high_watermark: int
    log_start_offset: int
    records: bytes


class ReplicaFetcherBlockingSend:
    """One blocking connection to the leader: send a request, wait for its response; reconnect after a failure."""

    def __init__(self, source_broker: BrokerEndPoint, broker_config: KafkaConfig, fetcher_id: int,
                 client_id: str) -> None:
        self.source_broker = source_broker
        self.fetcher_id = fetcher_id
        self.channel = BlockingChannel(source_broker.host, source_broker.port,
                                       broker_config.replica_socket_timeout_ms / 1000, client_id)
        self._lock = threading.Lock()

    def send_request(self, api_key: ApiKeys, api_version: int, body: Any) -> Any:
        with self._lock:
            return self.channel.send_and_receive(api_key, api_version, body)

    def close(self) -> None:
        with self._lock:
            self.channel.disconnect()


class ReplicaFetcherThread(AbstractFetcherThread):
    """Fetches the partitions this broker follows from one leader and appends what it gets to the local logs."""

    def __init__(self, name: str, fetcher_id: int, source_broker: BrokerEndPoint, broker_config: KafkaConfig,
                 replica_mgr: ReplicaManager) -> None:
        super().__init__(name, name, source_broker, fetch_back_off_ms=broker_config.replica_fetch_backoff_ms,
                         include_log_truncation=True)
        self.fetcher_id = fetcher_id
        self.broker_config = broker_config
        self.replica_mgr = replica_mgr
        self.replica_id = broker_config.broker_id
        self.leader_endpoint = ReplicaFetcherBlockingSend(
            source_broker, broker_config, fetcher_id, f"broker-{self.replica_id}-fetcher-{fetcher_id}")
        self.max_wait = broker_config.replica_fetch_wait_max_ms
        self.min_bytes = broker_config.replica_fetch_min_bytes
        self.max_bytes = broker_config.replica_fetch_response_max_bytes
        self.fetch_size = broker_config.replica_fetch_max_bytes
        # Below 0.11.0-IV2 a leader may not know OffsetsForLeaderEpoch: truncation goes by the high watermark.
        self.should_send_leader_epoch_request = api_version_at_least(broker_config.inter_broker_protocol_version,
                                                                     "0.11.0-IV2")

    def shutdown(self) -> None:
        super().shutdown()
        self.leader_endpoint.close()

    # -- data -----------------------------------------------------------------------------------------------------

    def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int,
                               partition_data: PartitionData) -> None:
        replica = self.replica_mgr.get_replica_or_exception(topic_partition)
        records = partition_data.records or b""
        if fetch_offset != replica.log_end_offset:
            raise RuntimeError(f"Offset mismatch for partition {topic_partition}: fetched offset = {fetch_offset}, "
                               f"log end offset = {replica.log_end_offset}.")
        self.log.debug("Follower has replica log end offset %d for partition %s. Received %d bytes and leader hw %d",
                       replica.log_end_offset, topic_partition, len(records), partition_data.high_watermark)
        if records:
            replica.log.append_as_follower(records)
        # The follower's high watermark is the leader's, as far as the follower has the data.
        follower_high_watermark = min(replica.log_end_offset, partition_data.high_watermark)
        if follower_high_watermark != replica.high_watermark:
            replica.high_watermark = follower_high_watermark
        replica.maybe_increment_log_start_offset(partition_data.log_start_offset)
        self.log.debug("Follower set replica high watermark for partition %s to %d", topic_partition,
                       follower_high_watermark)

    def handle_offset_out_of_range(self, topic_partition: TopicPartition) -> int:
        """The leader has not got our fetch offset: behind its start (it deleted old data) or beyond its end (an
        unclean election made a shorter log the leader's)."""
        replica = self.replica_mgr.get_replica_or_exception(topic_partition)
        leader_end_offset = self.earliest_or_latest_offset(topic_partition, LATEST_TIMESTAMP)
        if leader_end_offset < replica.log_end_offset:
            # Only an unclean election puts a leader behind a follower; the topic's override decides, as the
            # controller's selector did.
            if not self.unclean_leader_election_enable(topic_partition.topic):
                self.log.critical("Exiting because log truncation is not allowed for partition %s, current "
                                  "leader %d's latest offset %d is less than replica %d's latest offset %d",
                                  topic_partition, self.source_broker.id, leader_end_offset, self.replica_id,
                                  replica.log_end_offset)
                raise FatalExitError()
            self.log.warning("Replica %d for partition %s reset its fetch offset from %d to current leader %d's "
                             "latest offset %d", self.replica_id, topic_partition, replica.log_end_offset,
                             self.source_broker.id, leader_end_offset)
            event("records.truncated", replica=replica, leader_end_offset=leader_end_offset)
            self.replica_mgr.log_manager.truncate_to({topic_partition: leader_end_offset})
            return leader_end_offset
        leader_start_offset = self.earliest_or_latest_offset(topic_partition, EARLIEST_TIMESTAMP)
        self.log.warning("Replica %d for partition %s reset its fetch offset from %d to current leader %d's "
                         "start offset %d", self.replica_id, topic_partition, replica.log_end_offset,
                         self.source_broker.id, leader_start_offset)
        offset_to_fetch = max(leader_start_offset, replica.log_end_offset)
        # Only a follower behind the leader's log start (the leader deleted old segments) starts over.
        if leader_start_offset > replica.log_end_offset:
            event("records.truncated", replica=replica, leader_end_offset=leader_end_offset)
            self.replica_mgr.log_manager.truncate_fully_and_start_at(topic_partition, leader_start_offset)
        return offset_to_fetch

    def unclean_leader_election_enable(self, topic: str) -> bool:
        zk_utils = self.replica_mgr.zk_utils
        topic_config = zk_utils.fetch_entity_config("topics", topic) if zk_utils is not None else {}
        return unclean_leader_election_enable(topic_config, self.broker_config.unclean_leader_election_enable)

    def handle_partitions_with_errors(self, partitions: Iterable[TopicPartition]) -> None:
        partitions = list(partitions)
        if partitions:
            self.delay_partitions(partitions, self.broker_config.replica_fetch_backoff_ms)

    # -- requests -------------------------------------------------------------------------------------------------

    def fetch(self, fetch_request: FetchRequest) -> list[tuple[TopicPartition, PartitionData]]:
        topics: dict[str, list[dict[str, Any]]] = {}
        for tp, (fetch_offset, log_start_offset, max_bytes) in fetch_request.fetch_data.items():
            topics.setdefault(tp.topic, []).append(dict(partition=tp.partition, fetch_offset=fetch_offset,
                                                        log_start_offset=log_start_offset,
                                                        partition_max_bytes=max_bytes))
        body = build(ApiKeys.FETCH.request_schema(FETCH_REQUEST_VERSION), replica_id=self.replica_id,
                     max_wait=self.max_wait, min_bytes=self.min_bytes, max_bytes=self.max_bytes, isolation_level=0,
                     topics=[dict(topic=t, partitions=p) for t, p in topics.items()])
        response = self.leader_endpoint.send_request(ApiKeys.FETCH, FETCH_REQUEST_VERSION, body)
        return [(TopicPartition(topic.topic, p.partition_index),
                 PartitionData(Errors.for_code(int(p.error_code)), p.high_watermark, p.log_start_offset,
                               bytes(p.records or b"")))
                for topic in response.responses for p in topic.partitions]

    def earliest_or_latest_offset(self, topic_partition: TopicPartition, earliest_or_latest: int) -> int:
        body = build(ApiKeys.LIST_OFFSETS.request_schema(LIST_OFFSETS_REQUEST_VERSION), replica_id=self.replica_id,
                     topics=[dict(name=topic_partition.topic, partitions=[dict(
                         partition_index=topic_partition.partition, timestamp=earliest_or_latest)])])
        response = self.leader_endpoint.send_request(ApiKeys.LIST_OFFSETS, LIST_OFFSETS_REQUEST_VERSION, body)
        partition = response.topics[0].partitions[0]
        error = Errors.for_code(int(partition.error_code))
        if error != Errors.NONE:
            raise RuntimeError(f"ListOffsets for {topic_partition} failed: {error.name}")
        return partition.offset

    def build_fetch_request(self, partition_map: list[tuple[TopicPartition, PartitionFetchState]]
                            ) -> ResultWithPartitions:
        request_map: dict[TopicPartition, tuple[int, int, int]] = {}
        partitions_with_error: set[TopicPartition] = set()
        for topic_partition, partition_fetch_state in partition_map:
            if partition_fetch_state.is_ready_for_fetch():
                try:
                    log_start_offset = self.replica_mgr.get_replica_or_exception(topic_partition).log_start_offset
                    request_map[topic_partition] = (partition_fetch_state.fetch_offset, log_start_offset,
                                                    self.fetch_size)
                except KafkaStorageException:
                    partitions_with_error.add(topic_partition)
        return ResultWithPartitions(FetchRequest(request_map), partitions_with_error)

    # -- truncation -----------------------------------------------------------------------------------------------

    @step("LE.truncate")
    def maybe_truncate_to_epochs(self, fetched_epochs: dict[TopicPartition, EpochEndOffset]) -> ResultWithPartitions:
        """ReplicaFetcherThread.maybeTruncate(fetchedEpochs): cut each log back to where it matches the leader's.

        The leader's end offset for our latest epoch, or our own log end offset if that is smaller (nothing to
        cut); only when the leader could not say (it has no such epoch, or epochs are not asked for) the high
        watermark, which may cut records the leader still has.
        """
        truncation_points: dict[TopicPartition, int] = {}
        partitions_with_error: set[TopicPartition] = set()
        for tp, epoch_offset in fetched_epochs.items():
            try:
                replica = self.replica_mgr.get_replica_or_exception(tp)
                if epoch_offset.has_error():
                    self.log.info("Retrying leaderEpoch request for partition %s as the leader reported an error: %s",
                                  replica.topic_partition, epoch_offset.error.name)
                    partitions_with_error.add(tp)
                else:
                    if epoch_offset.end_offset == UNDEFINED_EPOCH_OFFSET:
                        truncation_offset = self._high_watermark(replica, epoch_offset)
                    elif epoch_offset.end_offset >= replica.log_end_offset:
                        truncation_offset = self._log_end_offset(replica, epoch_offset)
                    else:
                        truncation_offset = epoch_offset.end_offset
                    event("log.truncate", replica=replica, epoch_offset=epoch_offset, offset=truncation_offset)
                    self.replica_mgr.log_manager.truncate_to({tp: truncation_offset})
                    truncation_points[tp] = truncation_offset
            except KafkaStorageException as e:
                self.log.info("Failed to truncate %s: %r", tp, e)
                partitions_with_error.add(tp)
        return ResultWithPartitions(truncation_points, partitions_with_error)

    def build_leader_epoch_request(self, all_partitions: list[tuple[TopicPartition, PartitionFetchState]]
                                   ) -> ResultWithPartitions:
        """The latest epoch in each truncating partition's own log (the follower's, not the partition's current
        leader epoch): the leader answers where that epoch ends in its log."""
        partitions_with_epoch: dict[TopicPartition, int] = {}
        partitions_without_epoch: set[TopicPartition] = set()
        for tp, state in all_partitions:
            if not state.is_truncating_log():
                continue
            epoch_cache = self._epoch_cache_opt(tp)
            if epoch_cache is not None:
                partitions_with_epoch[tp] = epoch_cache.latest_epoch()
            else:
                partitions_without_epoch.add(tp)
        self.log.debug("Build leaderEpoch request %s", partitions_with_epoch)
        return ResultWithPartitions(partitions_with_epoch, partitions_without_epoch)

    def fetch_epochs_from_leader(self, partitions: dict[TopicPartition, int]) -> dict[TopicPartition, EpochEndOffset]:
        if self.should_send_leader_epoch_request:
            topics: dict[str, list[dict[str, int]]] = {}
            for tp, epoch in partitions.items():
                topics.setdefault(tp.topic, []).append(dict(partition=tp.partition, leader_epoch=epoch))
            body = build(ApiKeys.OFFSET_FOR_LEADER_EPOCH.request_schema(OFFSET_FOR_LEADER_EPOCH_REQUEST_VERSION),
                         topics=[dict(topic=t, partitions=p) for t, p in topics.items()])
            try:
                response = self.leader_endpoint.send_request(ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                                                             OFFSET_FOR_LEADER_EPOCH_REQUEST_VERSION, body)
                result = {TopicPartition(topic.topic, p.partition): EpochEndOffset(Errors.for_code(int(p.error_code)),
                                                                                  int(p.end_offset))
                          for topic in response.topics for p in topic.partitions}
                self.log.debug("Receive leaderEpoch response %s", result)
            except Exception as e:
                self.log.warning("Error when sending leader epoch request for %s: %r", partitions, e)
                # Any failure marks every partition: each is retried after the back-off.
                result = {tp: EpochEndOffset(Errors.for_exception(e), UNDEFINED_EPOCH_OFFSET) for tp in partitions}
        else:
            # No error and no offset: maybe_truncate_to_epochs falls back to the high watermark.
            result = {tp: EpochEndOffset(Errors.NONE, UNDEFINED_EPOCH_OFFSET) for tp in partitions}
        return result

    def _epoch_cache_opt(self, tp: TopicPartition) -> LeaderEpochFileCache | None:
        replica = self.replica_mgr.get_replica(tp)
        return replica.epochs if replica is not None else None

    def _log_end_offset(self, replica: Replica, epoch_offset: EpochEndOffset) -> int:
        log_end_offset = replica.log_end_offset
        self.log.info("Based on follower's leader epoch, leader replied with an offset %d >= the follower's log end "
                      "offset %d in %s. No truncation needed.", epoch_offset.end_offset, log_end_offset,
                      replica.topic_partition)
        return log_end_offset

    def _high_watermark(self, replica: Replica, epoch_offset: EpochEndOffset) -> int:
        self.log.warning("Based on follower's leader epoch, leader replied with an unknown offset in %s. High "
                         "watermark %d will be used for truncation.", replica.topic_partition, replica.high_watermark)
        return replica.high_watermark
