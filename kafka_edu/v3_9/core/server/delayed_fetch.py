"""Port of core/src/main/scala/kafka/server/DelayedFetch.scala (Kafka 3.9): a fetch waiting in the Fetch purgatory
until enough bytes arrive, the partitions change, or maxWaitMs passes; then it reads again and answers."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import KafkaStorageException, UnknownTopicOrPartitionException
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.core.cluster.partition import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperation
from kafka_edu.v3_9.server_common.server.storage.log.fetch_partition_data import FetchPartitionData
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager

log = logging.getLogger("kafka.server.DelayedFetch")


@dataclass(frozen=True)
class FetchPartitionStatus:
    start_offset_metadata: LogOffsetMetadata
    fetch_info: PartitionData

    def __str__(self) -> str:
        return f"[startOffsetMetadata: {self.start_offset_metadata}, fetchInfo: {self.fetch_info}]"


class DelayedFetch(DelayedOperation):
    def __init__(self, params: FetchParams, fetch_partition_status: Sequence[tuple[TopicIdPartition,
                                                                                  FetchPartitionStatus]],
                 replica_manager: ReplicaManager, quota: Any,
                 response_callback: Callable[[list[tuple[TopicIdPartition, FetchPartitionData]]], None]) -> None:
        super().__init__(params.max_wait_ms)
        self.params = params
        self.fetch_partition_status = list(fetch_partition_status)
        self.replica_manager = replica_manager
        self.quota = quota
        self.response_callback = response_callback

    def __str__(self) -> str:
        return f"DelayedFetch(params={self.params}, numPartitions={len(self.fetch_partition_status)})"

    @step("RQ.fetch.5")
    def try_complete(self) -> bool:
        """Complete at once if a partition is no longer led or known here (cases A-C), its dir failed (D), the
        epoch is fenced (E), the fetch offset left the active segment, or truncation is needed; else when the bytes
        available reach minBytes."""
        accumulated_size = 0
        for topic_id_partition, fetch_status in self.fetch_partition_status:
            fetch_offset = fetch_status.start_offset_metadata
            fetch_leader_epoch = fetch_status.fetch_info.current_leader_epoch
            try:
                if fetch_offset != LogOffsetMetadata.UNKNOWN_OFFSET_METADATA:
                    partition = self.replica_manager.get_partition_or_exception(topic_id_partition.topic_partition)
                    offset_snapshot = partition.fetch_offset_snapshot(fetch_leader_epoch,
                                                                      self.params.fetch_only_leader())
                    if self.params.isolation == FetchIsolation.LOG_END:
                        end_offset = offset_snapshot.log_end_offset
                    elif self.params.isolation == FetchIsolation.HIGH_WATERMARK:
                        end_offset = offset_snapshot.high_watermark
                    else:
                        end_offset = offset_snapshot.last_stable_offset

                    # The end offset moved back (truncation) or the fetcher is ahead: let it find out now.
                    if fetch_offset.message_offset > end_offset.message_offset:
                        log.debug("Satisfying fetch %s since it is fetching later segments of partition %s.", self,
                                  topic_id_partition)
                        return self.force_complete()
                    elif fetch_offset.message_offset < end_offset.message_offset:
                        if fetch_offset.on_older_segment(end_offset):
                            # The segment rolled: the bytes there are not countable, answer now.
                            log.debug("Satisfying fetch %s immediately since it is fetching older segments.", self)
                            if not self.params.is_from_follower() or not self.replica_manager.should_leader_throttle(
                                    self.quota, partition, self.params.replica_id):
                                return self.force_complete()
                        elif fetch_offset.on_same_segment(end_offset):
                            bytes_available = min(end_offset.position_diff(fetch_offset),
                                                  fetch_status.fetch_info.max_bytes)
                            if not self.params.is_from_follower() or not self.replica_manager.should_leader_throttle(
                                    self.quota, partition, self.params.replica_id):
                                accumulated_size += bytes_available

                    fetch_epoch = fetch_status.fetch_info.last_fetched_epoch
                    if fetch_epoch is not None:
                        epoch_end_offset = partition.last_offset_for_leader_epoch(fetch_leader_epoch, fetch_epoch,
                                                                                  fetch_only_from_leader=False)
                        if (epoch_end_offset.error_code != Errors.NONE.code
                                or epoch_end_offset.end_offset == UNDEFINED_EPOCH_OFFSET
                                or epoch_end_offset.leader_epoch == UNDEFINED_EPOCH):
                            log.debug("Could not obtain last offset for leader epoch for partition %s, "
                                      "epochEndOffset=%s.", topic_id_partition, epoch_end_offset)
                            return self.force_complete()
                        elif (epoch_end_offset.leader_epoch < fetch_epoch
                              or epoch_end_offset.end_offset < fetch_status.fetch_info.fetch_offset):
                            log.debug("Satisfying fetch %s since it has diverging epoch requiring truncation for "
                                      "partition %s epochEndOffset=%s fetchEpoch=%s fetchOffset=%s.", self,
                                      topic_id_partition, epoch_end_offset, fetch_epoch,
                                      fetch_status.fetch_info.fetch_offset)
                            return self.force_complete()
            except NotLeaderOrFollowerException:  # Case A or Case B
                log.debug("Broker is no longer the leader or follower of %s, satisfy %s immediately",
                          topic_id_partition, self)
                return self.force_complete()
            except UnknownTopicOrPartitionException:  # Case C
                log.debug("Broker no longer knows of partition %s, satisfy %s immediately", topic_id_partition, self)
                return self.force_complete()
            except KafkaStorageException:  # Case D
                log.debug("Partition %s is in an offline log directory, satisfy %s immediately", topic_id_partition,
                          self)
                return self.force_complete()
            except FencedLeaderEpochException:  # Case E
                log.debug("Broker is the leader of partition %s, but the requested epoch %s is fenced by the latest "
                          "leader epoch, satisfy %s immediately", topic_id_partition, fetch_leader_epoch, self)
                return self.force_complete()

        if accumulated_size >= self.params.min_bytes:
            return self.force_complete()
        return False

    def on_expiration(self) -> None:
        pass  # Kafka counts follower and consumer expirations (metrics, not ported)

    def on_complete(self) -> None:
        """Read again, without touching the followers' fetch state (the first read did), and answer."""
        fetch_infos = [(tp, status.fetch_info) for tp, status in self.fetch_partition_status]
        log_read_results = self.replica_manager.read_from_log(self.params, fetch_infos, self.quota,
                                                              read_from_purgatory=True)
        fetch_partition_data = []
        for tp, result in log_read_results:
            is_reassignment_fetch = self.params.is_from_follower() and self.replica_manager.is_adding_replica(
                tp.topic_partition, self.params.replica_id)
            fetch_partition_data.append((tp, result.to_fetch_partition_data(is_reassignment_fetch)))
        self.response_callback(fetch_partition_data)
