"""Port of core/src/main/scala/kafka/server/ReplicaManager.scala (Kafka 1.0.2), with DelayedProduce.scala and
DelayedFetch.scala: the broker's partitions, the local write and read paths, and the purgatories."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kafka_edu.cluster.partition import LeaderAndIsrPartitionState, Partition
from kafka_edu.common.errors import (
    InvalidTopicException,
    KafkaStorageException,
    NotLeaderForPartitionException,
    OffsetOutOfRangeException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.log.log import TopicPartition
from kafka_edu.log.log_manager import LogManager
from kafka_edu.protocol.errors import Errors
from kafka_edu.server.broker_topic_stats import BrokerTopicStats
from kafka_edu.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafka_edu.server.kafka_config import KafkaConfig
from kafka_edu.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.server.metadata_cache import MetadataCache
from kafka_edu.tracing import span
from kafka_edu.utils.concurrent import AtomicBoolean
from kafka_edu.utils.kafka_scheduler import KafkaScheduler

log = logging.getLogger("kafka.server.ReplicaManager")

HIGH_WATERMARK_FILENAME = "replication-offset-checkpoint"
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})
DEBUGGING_CONSUMER_ID = -2
FUTURE_LOCAL_REPLICA_ID = -3


def is_valid_broker_id(replica_id: int) -> bool:
    return replica_id >= 0


# -- the write path -----------------------------------------------------------------------------------------------


@dataclass
class PartitionResponse:
    """ProduceResponse.PartitionResponse."""

    error: Errors
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1


@dataclass
class ProducePartitionStatus:
    required_offset: int
    response_status: PartitionResponse
    acks_pending: bool = False


@dataclass
class LogAppendResult:
    first_offset: int
    last_offset: int
    log_append_time: int
    log_start_offset: int
    exception: Exception | None = None

    @property
    def error(self) -> Errors:
        return Errors.NONE if self.exception is None else Errors.for_exception(self.exception)


class DelayedProduce(DelayedOperation):
    """An acks=all produce waiting until every in-sync replica has the data, or until its timeout."""

    def __init__(self, delay_ms: int, required_acks: int, produce_status: dict[TopicPartition, ProducePartitionStatus],
                 replica_manager: ReplicaManager,
                 response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        super().__init__(delay_ms)
        self.required_acks = required_acks
        self.produce_status = produce_status
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        for status in produce_status.values():
            if status.response_status.error == Errors.NONE:
                status.acks_pending = True
                status.response_status.error = Errors.REQUEST_TIMED_OUT  # what the client gets if time runs out
            else:
                status.acks_pending = False

    def try_complete(self) -> bool:
        for topic_partition, status in self.produce_status.items():
            if not status.acks_pending:
                continue
            partition = self.replica_manager.get_partition(topic_partition)
            if partition is None:
                has_enough, error = False, Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                has_enough, error = partition.check_enough_replicas_reach_offset(status.required_offset)
            if error != Errors.NONE:
                status.acks_pending = False
                status.response_status.error = error
            elif has_enough:
                status.acks_pending = False
                status.response_status.error = Errors.NONE
        if not any(status.acks_pending for status in self.produce_status.values()):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self.response_callback({tp: status.response_status for tp, status in self.produce_status.items()})


# -- the read path ------------------------------------------------------------------------------------------------


@dataclass
class PartitionFetchInfo:
    fetch_offset: int
    max_bytes: int
    log_start_offset: int = -1


@dataclass
class LogReadResult:
    """What one partition's read produced, and the offsets the fetch response reports."""

    records: bytes = b""
    high_watermark: int = -1
    leader_log_start_offset: int = -1
    leader_log_end_offset: int = -1
    fetch_offset: int = -1
    error: Errors = Errors.NONE
    exception: Exception | None = None


@dataclass
class FetchMetadata:
    fetch_min_bytes: int
    fetch_max_bytes: int
    hard_max_bytes_limit: bool
    fetch_only_leader: bool
    fetch_only_committed: bool
    is_from_follower: bool
    replica_id: int
    fetch_partition_status: dict[TopicPartition, PartitionFetchInfo] = field(default_factory=dict)


class DelayedFetch(DelayedOperation):
    """A fetch waiting until `fetch.min.bytes` are readable, or `max.wait.ms` passes."""

    def __init__(self, delay_ms: int, fetch_metadata: FetchMetadata, replica_manager: ReplicaManager,
                 response_callback: Callable[[list[tuple[TopicPartition, LogReadResult]]], None]) -> None:
        super().__init__(delay_ms)
        self.fetch_metadata = fetch_metadata
        self.replica_manager = replica_manager
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        accumulated_size = 0
        for topic_partition, fetch_info in self.fetch_metadata.fetch_partition_status.items():
            partition = self.replica_manager.get_partition(topic_partition)
            replica = partition.leader_replica_if_local() if partition else None
            if replica is None:
                return self.force_complete()  # leadership moved or the partition is gone: answer now
            end_offset = partition.high_watermark if self.fetch_metadata.fetch_only_committed \
                else replica.log.log_end_offset
            if end_offset < fetch_info.fetch_offset:
                return self.force_complete()  # the log was truncated below the fetch offset
            if end_offset > fetch_info.fetch_offset:
                if self.fetch_metadata.fetch_min_bytes <= 1:
                    return self.force_complete()
                accumulated_size += len(replica.log.read(fetch_info.fetch_offset, fetch_info.max_bytes,
                                                         max_offset=end_offset))
        if accumulated_size >= self.fetch_metadata.fetch_min_bytes:
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        results = self.replica_manager.read_from_local_log(self.fetch_metadata)
        self.response_callback(results)


# -- the manager --------------------------------------------------------------------------------------------------


class ReplicaManager:
    """Every partition this broker hosts, and the local append and read that produce and fetch requests run."""

    def __init__(self, config: KafkaConfig, scheduler: KafkaScheduler, log_manager: LogManager,
                 is_shutting_down: AtomicBoolean, metadata_cache: MetadataCache,
                 log_dir_failure_channel: LogDirFailureChannel, broker_topic_stats: BrokerTopicStats) -> None:
        self.config = config
        self.local_broker_id = config.broker_id
        self.scheduler = scheduler
        self.log_manager = log_manager
        self.is_shutting_down = is_shutting_down
        self.metadata_cache = metadata_cache
        self.log_dir_failure_channel = log_dir_failure_channel
        self.broker_topic_stats = broker_topic_stats
        self.all_partitions: dict[TopicPartition, Partition] = {}
        self.replica_state_change_lock = threading.RLock()
        self.controller_epoch = 0
        self.high_watermark_checkpoints = {
            d: OffsetCheckpointFile(d / HIGH_WATERMARK_FILENAME, log_dir_failure_channel)
            for d in log_manager.live_log_dirs}
        self._checkpointed_hws: dict[TopicPartition, int] = {}
        for checkpoint in self.high_watermark_checkpoints.values():
            try:
                self._checkpointed_hws.update(checkpoint.read())
            except (OSError, ValueError) as e:
                log.warning("Unreadable high watermark checkpoint %s: %s", checkpoint.file, e)
        self.delayed_produce_purgatory = DelayedOperationPurgatory("Produce", config.broker_id)
        self.delayed_fetch_purgatory = DelayedOperationPurgatory("Fetch", config.broker_id)

    def startup(self) -> None:
        # ISR expiration and propagation join with followers (the controller issue); checkpoints start now.
        self.scheduler.schedule("highwatermark-checkpoint", self.checkpoint_high_watermarks,
                                period=self.config.replica_high_watermark_checkpoint_interval_ms)

    # -- partitions -----------------------------------------------------------------------------------------------

    def get_partition(self, topic_partition: TopicPartition) -> Partition | None:
        return self.all_partitions.get(topic_partition)

    def get_or_create_partition(self, topic_partition: TopicPartition) -> Partition:
        partition = self.all_partitions.get(topic_partition)
        if partition is None:
            partition = Partition(topic_partition.topic, topic_partition.partition, self)
            self.all_partitions[topic_partition] = partition
        return partition

    def checkpointed_high_watermark(self, topic_partition: TopicPartition) -> int:
        return self._checkpointed_hws.get(topic_partition, 0)

    def make_leaders(self, controller_id: int,
                     partition_states: dict[TopicPartition, LeaderAndIsrPartitionState]) -> set[Partition]:
        """This broker now leads these partitions: create their logs if needed and take leadership."""
        with self.replica_state_change_lock, span("ReplicaManager.makeLeaders",
                                                  {"kafka.partitions": [str(tp) for tp in partition_states]},
                                                  origin_file="core/src/main/scala/kafka/server/ReplicaManager.scala"):
            changed = set()
            for topic_partition, state in partition_states.items():
                partition = self.get_or_create_partition(topic_partition)
                if partition.make_leader(controller_id, state):
                    changed.add(partition)
            return changed

    def stop_replicas(self, topic_partitions: list[TopicPartition], delete_partitions: bool) -> None:
        with self.replica_state_change_lock:
            for topic_partition in topic_partitions:
                removed = self.all_partitions.pop(topic_partition, None)
                if delete_partitions and removed is not None:
                    self._checkpointed_hws.pop(topic_partition, None)
                    self.log_manager.async_delete(topic_partition)
                self.try_complete_delayed_fetch(topic_partition)
                self.try_complete_delayed_produce(topic_partition)

    # -- produce --------------------------------------------------------------------------------------------------

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[TopicPartition, bytes],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        if self.is_valid_required_acks(required_acks):
            local_produce_results = self.append_to_local_log(internal_topics_allowed, is_from_client,
                                                             entries_per_partition, required_acks)
            produce_status = {
                tp: ProducePartitionStatus(result.last_offset + 1, PartitionResponse(
                    result.error, result.first_offset, result.log_append_time, result.log_start_offset))
                for tp, result in local_produce_results.items()}
            if self.delayed_produce_required(required_acks, entries_per_partition, local_produce_results):
                delayed_produce = DelayedProduce(timeout, required_acks, produce_status, self, response_callback)
                self.delayed_produce_purgatory.try_complete_else_watch(delayed_produce,
                                                                       list(entries_per_partition))
            else:
                response_callback({tp: status.response_status for tp, status in produce_status.items()})
        else:
            # Kafka validates acks here rather than in the request parser, so every partition gets the error.
            response_callback({tp: PartitionResponse(Errors.INVALID_REQUIRED_ACKS)
                               for tp in entries_per_partition})

    @staticmethod
    def is_valid_required_acks(required_acks: int) -> bool:
        return required_acks in (-1, 0, 1)

    @staticmethod
    def delayed_produce_required(required_acks: int, entries_per_partition: dict[TopicPartition, bytes],
                                 local_produce_results: dict[TopicPartition, LogAppendResult]) -> bool:
        return (required_acks == -1 and len(entries_per_partition) > 0
                and sum(1 for r in local_produce_results.values() if r.exception is not None)
                < len(entries_per_partition))

    def append_to_local_log(self, internal_topics_allowed: bool, is_from_client: bool,
                            entries_per_partition: dict[TopicPartition, bytes],
                            required_acks: int) -> dict[TopicPartition, LogAppendResult]:
        results = {}
        for topic_partition, records in entries_per_partition.items():
            try:
                if topic_partition.topic in INTERNAL_TOPICS and not internal_topics_allowed:
                    raise InvalidTopicException(f"Cannot append to internal topic {topic_partition.topic}")
                partition = self.get_partition(topic_partition)
                if partition is None:
                    raise UnknownTopicOrPartitionException(
                        f"Partition {topic_partition} doesn't exist on {self.local_broker_id}")
                info = partition.append_records_to_leader(records, is_from_client, required_acks)
                self.broker_topic_stats.topic_stats(topic_partition.topic).mark("BytesInPerSec", len(records))
                self.broker_topic_stats.all_topics_stats.mark("BytesInPerSec", len(records))
                self.broker_topic_stats.topic_stats(topic_partition.topic).mark("MessagesInPerSec",
                                                                                 info.num_messages)
                self.broker_topic_stats.all_topics_stats.mark("MessagesInPerSec", info.num_messages)
                results[topic_partition] = LogAppendResult(info.first_offset, info.last_offset, info.log_append_time,
                                                           info.log_start_offset)
            except Exception as e:
                if not isinstance(e, KafkaStorageException | NotLeaderForPartitionException |
                                  UnknownTopicOrPartitionException | InvalidTopicException) \
                        and Errors.for_exception(e) == Errors.UNKNOWN_SERVER_ERROR:
                    log.exception("Error processing append operation on partition %s", topic_partition)
                self.broker_topic_stats.topic_stats(topic_partition.topic).mark("FailedProduceRequestsPerSec")
                results[topic_partition] = LogAppendResult(-1, -1, -1, -1, e)
        return results

    def try_complete_delayed_produce(self, topic_partition: TopicPartition) -> None:
        self.delayed_produce_purgatory.check_and_complete(topic_partition)

    def try_complete_delayed_fetch(self, topic_partition: TopicPartition) -> None:
        self.delayed_fetch_purgatory.check_and_complete(topic_partition)
        # A leader's high watermark may have moved: acks=all produces can complete too.
        self.delayed_produce_purgatory.check_and_complete(topic_partition)

    # -- fetch ----------------------------------------------------------------------------------------------------

    def fetch_messages(self, timeout: int, replica_id: int, fetch_min_bytes: int, fetch_max_bytes: int,
                       hard_max_bytes_limit: bool, fetch_infos: dict[TopicPartition, PartitionFetchInfo],
                       response_callback: Callable[[list[tuple[TopicPartition, LogReadResult]]], None]) -> None:
        is_from_follower = is_valid_broker_id(replica_id)
        fetch_metadata = FetchMetadata(
            fetch_min_bytes, fetch_max_bytes, hard_max_bytes_limit,
            fetch_only_leader=replica_id != DEBUGGING_CONSUMER_ID,
            fetch_only_committed=not is_valid_broker_id(replica_id), is_from_follower=is_from_follower,
            replica_id=replica_id, fetch_partition_status=fetch_infos)
        log_read_results = self.read_from_local_log(fetch_metadata)
        bytes_readable = sum(len(r.records) for _, r in log_read_results)
        error_reading_data = any(r.error != Errors.NONE for _, r in log_read_results)
        if timeout <= 0 or not fetch_infos or bytes_readable >= fetch_min_bytes or error_reading_data:
            response_callback(log_read_results)
        else:
            delayed_fetch = DelayedFetch(timeout, fetch_metadata, self, response_callback)
            self.delayed_fetch_purgatory.try_complete_else_watch(delayed_fetch, list(fetch_infos))

    def read_from_local_log(self, fetch_metadata: FetchMetadata) -> list[tuple[TopicPartition, LogReadResult]]:
        limit_bytes = fetch_metadata.fetch_max_bytes
        min_one_message = not fetch_metadata.hard_max_bytes_limit
        results = []
        for topic_partition, fetch_info in fetch_metadata.fetch_partition_status.items():
            result = self._read(topic_partition, fetch_info, fetch_metadata, limit_bytes, min_one_message)
            if result.records:
                min_one_message = False  # only the first partition with data may exceed the limits
            limit_bytes = max(0, limit_bytes - len(result.records))
            results.append((topic_partition, result))
        return results

    def _read(self, topic_partition: TopicPartition, fetch_info: PartitionFetchInfo, fetch_metadata: FetchMetadata,
              limit_bytes: int, min_one_message: bool) -> LogReadResult:
        try:
            partition = self.get_partition(topic_partition)
            if partition is None:
                raise UnknownTopicOrPartitionException(
                    f"Partition {topic_partition} doesn't exist on {self.local_broker_id}")
            replica = (partition.leader_replica_if_local() if fetch_metadata.fetch_only_leader
                       else partition.get_replica())
            if replica is None or replica.log is None:
                raise NotLeaderForPartitionException(
                    f"Leader not local for partition {topic_partition} on broker {self.local_broker_id}")
            partition_log = replica.log
            max_offset = partition.high_watermark if fetch_metadata.fetch_only_committed else None
            adjusted_max_bytes = min(fetch_info.max_bytes, limit_bytes)
            records = partition_log.read(fetch_info.fetch_offset, adjusted_max_bytes, max_offset=max_offset,
                                         min_one_message=min_one_message)
            self.broker_topic_stats.topic_stats(topic_partition.topic).mark("BytesOutPerSec", len(records))
            return LogReadResult(records, partition.high_watermark, partition_log.log_start_offset,
                                 partition_log.log_end_offset, fetch_info.fetch_offset)
        except (UnknownTopicOrPartitionException, NotLeaderForPartitionException, KafkaStorageException,
                OffsetOutOfRangeException) as e:
            return LogReadResult(error=Errors.for_exception(e), exception=e, fetch_offset=fetch_info.fetch_offset)
        except Exception as e:
            log.exception("Error processing fetch operation on partition %s, offset %d", topic_partition,
                          fetch_info.fetch_offset)
            return LogReadResult(error=Errors.for_exception(e), exception=e, fetch_offset=fetch_info.fetch_offset)

    # -- background tasks -----------------------------------------------------------------------------------------

    def checkpoint_high_watermarks(self) -> None:
        by_dir: dict[Path, dict[TopicPartition, int]] = {d: {} for d in self.high_watermark_checkpoints}
        for topic_partition, partition in list(self.all_partitions.items()):
            replica = partition.get_replica()
            if replica is not None and replica.log is not None:
                by_dir.setdefault(Path(replica.log.dir).parent.absolute(), {})[topic_partition] = \
                    partition.high_watermark
        for d, hws in by_dir.items():
            if d in self.high_watermark_checkpoints:
                self.high_watermark_checkpoints[d].write(hws)

    def shutdown(self, checkpoint_hw: bool = True) -> None:
        log.info("Shutting down")
        self.delayed_produce_purgatory.shutdown()
        self.delayed_fetch_purgatory.shutdown()
        if checkpoint_hw:
            self.checkpoint_high_watermarks()
        log.info("Shut down completely")
