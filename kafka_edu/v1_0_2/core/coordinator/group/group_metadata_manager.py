"""Port of core/src/main/scala/kafka/coordinator/group/GroupMetadataManager.scala (read: Kafka 1.1.0, luobowo repo).

startup(enableMetadataExpiration) is 1.0.x's. Transactional offset commits (KIP-98) wait per producer until its
transaction's marker reaches the offsets partition: a COMMIT makes them the group's offsets, an ABORT drops them.
"""

from __future__ import annotations

import dataclasses
import logging
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from kafka_edu.tracing import note, span
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalStateException,
    KafkaException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.v1_0_2.clients.common.protocol.types import TypeReader, TypeWriter
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    MemoryRecords,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import (
    CommitRecordMetadataAndOffset,
    Dead,
    Empty,
    GroupMetadata,
    Stable,
)
from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import (
    DEFAULT_TIMESTAMP,
    INVALID_OFFSET,
    OffsetAndMetadata,
)
from kafka_edu.v1_0_2.core.coordinator.group.offset_config import OffsetConfig
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_segment import system_time_ms
from kafka_edu.v1_0_2.core.server.kafka_config import api_version_at_least
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.replica_manager import PartitionResponse, ReplicaManager
    from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils

log = logging.getLogger("kafka.coordinator.group.GroupMetadataManager")

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"  # Topic.GROUP_METADATA_TOPIC_NAME


@dataclass(frozen=True)
class PartitionData:
    """OffsetFetchResponse.PartitionData: one partition's committed offset (INVALID_OFFSET = -1 when none)."""

    offset: int
    metadata: str
    error: Errors


class GroupMetadataManager:
    """The coordinator's memory and its log: a cache of the groups whose __consumer_offsets partitions this broker
    leads, filled by replaying those partitions, and kept durable by appending group and offset records to them."""

    def __init__(self, broker_id: int, config: OffsetConfig, replica_manager: ReplicaManager,
                 inter_broker_protocol_version: str | None = None, time_ms: Callable[[], int] = system_time_ms,
                 zk_utils: ZkUtils | None = None) -> None:
        self.broker_id = broker_id
        self.config = config
        self.replica_manager = replica_manager
        self.inter_broker_protocol_version = inter_broker_protocol_version
        self.time_ms = time_ms
        self.compression_type = CompressionType.for_id(config.offsets_topic_compression_codec)
        # group id -> group (Kafka's Pool, a ConcurrentHashMap); `_cache_lock` makes its compound updates atomic.
        self.group_metadata_cache: dict[str, GroupMetadata] = {}
        self._cache_lock = threading.Lock()
        # Guards the two partition sets; taken before any group lock, never after.
        self.partition_lock = threading.RLock()
        # Offsets-topic partitions whose groups are being loaded right now.
        self.loading_partitions: set[int] = set()
        # Offsets-topic partitions this broker leads and has loaded: the groups it coordinates.
        self.owned_partitions: set[int] = set()
        self.shutting_down = AtomicBoolean(False)
        # producer id -> the groups it has transactional offset commits pending in
        self.open_groups_for_producer: dict[int, set[str]] = {}
        self._open_groups_lock = threading.Lock()
        self.zk_utils = zk_utils
        self.group_metadata_topic_partition_count = self._get_group_metadata_topic_partition_count()
        # One thread, so loads and unloads of a partition run in the order leadership changed.
        self.scheduler = KafkaScheduler(threads=1, thread_name_prefix="group-metadata-manager-")

    def startup(self, enable_metadata_expiration: bool) -> None:
        self.scheduler.startup()
        if enable_metadata_expiration:
            self.scheduler.schedule("delete-expired-group-metadata", self.cleanup_group_metadata,
                                    period=self.config.offsets_retention_check_interval_ms)

    def current_groups(self) -> list[GroupMetadata]:
        return list(self.group_metadata_cache.values())

    def is_partition_owned(self, partition: int) -> bool:
        with self.partition_lock:
            return partition in self.owned_partitions

    def is_partition_loading(self, partition: int) -> bool:
        with self.partition_lock:
            return partition in self.loading_partitions

    def partition_for(self, group_id: str) -> int:
        return utils_abs(java_string_hash_code(group_id)) % self.group_metadata_topic_partition_count

    def is_group_local(self, group_id: str) -> bool:
        return self.is_partition_owned(self.partition_for(group_id))

    def is_group_loading(self, group_id: str) -> bool:
        return self.is_partition_loading(self.partition_for(group_id))

    def is_loading(self) -> bool:
        with self.partition_lock:
            return bool(self.loading_partitions)

    def group_not_exists(self, group_id: str) -> bool:
        """True iff this broker owns the group's partition and the group is unknown or Dead."""
        with self.partition_lock:
            if not self.is_group_local(group_id):
                return False
            group = self.get_group(group_id)
            if group is None:
                return True
            with group.in_lock():
                return group.is_(Dead)

    def get_group(self, group_id: str) -> GroupMetadata | None:
        return self.group_metadata_cache.get(group_id)

    def add_group(self, group: GroupMetadata) -> GroupMetadata:
        """Cache the group, or return the one already cached under its id."""
        with self._cache_lock:
            return self.group_metadata_cache.setdefault(group.group_id, group)

    def _remove_from_cache(self, group_id: str, group: GroupMetadata) -> bool:
        with self._cache_lock:
            if self.group_metadata_cache.get(group_id) is group:
                del self.group_metadata_cache[group_id]
                return True
            return False

    # -- writes ---------------------------------------------------------------------------------------------------

    def store_group(self, group: GroupMetadata, group_assignment: dict[str, bytes],
                    response_callback: Callable[[Errors], None]) -> None:
        """Append the group's new generation (members, protocol, assignment) to its offsets partition."""
        magic_value = self._get_magic(self.partition_for(group.group_id))
        if magic_value is None:
            response_callback(Errors.NOT_COORDINATOR)
            return
        if self.inter_broker_protocol_version is not None and \
                not api_version_at_least(self.inter_broker_protocol_version, "0.10.1-IV0"):
            group_metadata_value_version = 0
        else:
            group_metadata_value_version = CURRENT_GROUP_VALUE_SCHEMA_VERSION
        timestamp = self.time_ms()
        key = group_metadata_key(group.group_id)
        value = group_metadata_value(group, group_assignment, version=group_metadata_value_version)
        records = self._build_records([(timestamp, key, value)])
        group_metadata_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, self.partition_for(group.group_id))
        generation_id = group.generation_id

        def put_cache_callback(response_status: dict[TopicPartition, PartitionResponse]) -> None:
            if len(response_status) != 1 or group_metadata_partition not in response_status:
                raise IllegalStateException(f"Append status {response_status} should only have one partition "
                                            f"{group_metadata_partition}")
            status = response_status[group_metadata_partition]
            if status.error == Errors.NONE:
                response_error = Errors.NONE
            else:
                log.debug("Metadata from group %s with generation %d failed when appending to log due to %s",
                          group.group_id, generation_id, status.error.exception_name)
                response_error = _store_group_error(status.error)
                if response_error in (Errors.UNKNOWN_SERVER_ERROR, status.error):
                    log.error("Appending metadata message for group %s generation %d failed due to %s",
                              group.group_id, generation_id, status.error.exception_name)
            response_callback(response_error)

        self._append_for_group(group, {group_metadata_partition: records}, put_cache_callback)

    def _append_for_group(self, group: GroupMetadata, records: dict[TopicPartition, bytes],
                          callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        # Kafka also hands the group lock to the delayed produce (delayedProduceLock); this ReplicaManager has none.
        self.replica_manager.append_records(
            timeout=self.config.offset_commit_timeout_ms,
            required_acks=self.config.offset_commit_required_acks,
            internal_topics_allowed=True,
            is_from_client=False,
            entries_per_partition=records,
            response_callback=callback)

    def store_offsets(self, group: GroupMetadata, consumer_id: str,
                      offset_metadata: dict[TopicPartition, OffsetAndMetadata],
                      response_callback: Callable[[dict[TopicPartition, Errors]], None],
                      producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH) -> None:
        """Append the commits to the group's offsets partition, then cache them and answer per partition. With a
        producer id, they are a transaction's: one transactional batch, pending until the transaction's marker."""
        offset_metadata = {TopicPartition(*tp): offset for tp, offset in offset_metadata.items()}
        if not group.has_received_consistent_offset_commits():
            log.warning("group: %s with leader: %s has received offset commits from consumers as well as "
                        "transactional producers. Mixing both types of offset commits will generally result in "
                        "surprises and should be avoided.", group.group_id, group.leader_or_null)
        # First drop the partitions whose metadata exceeds the limit.
        filtered_offset_metadata = {tp: offset for tp, offset in offset_metadata.items()
                                    if self._validate_offset_metadata_length(offset.metadata)}
        if not filtered_offset_metadata:
            response_callback({tp: Errors.OFFSET_METADATA_TOO_LARGE for tp in offset_metadata})
            return
        magic_value = self._get_magic(self.partition_for(group.group_id))
        if magic_value is None:
            response_callback({tp: Errors.NOT_COORDINATOR for tp in offset_metadata})
            return
        is_txn_offset_commit = producer_id != NO_PRODUCER_ID
        if is_txn_offset_commit and magic_value < MAGIC_VALUE_V2:
            raise UnsupportedForMessageFormatException(
                f"Attempting to make a transaction offset commit with an invalid magic: {magic_value}")
        timestamp = self.time_ms()
        records = self._build_records([
            (timestamp, offset_commit_key(group.group_id, tp), offset_commit_value(offset))
            for tp, offset in filtered_offset_metadata.items()], producer_id, producer_epoch, is_txn_offset_commit)
        offset_topic_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, self.partition_for(group.group_id))

        def put_cache_callback(response_status: dict[TopicPartition, PartitionResponse]) -> None:
            if len(response_status) != 1 or offset_topic_partition not in response_status:
                raise IllegalStateException(f"Append status {response_status} should only have one partition "
                                            f"{offset_topic_partition}")
            status = response_status[offset_topic_partition]
            with group.in_lock():
                if status.error == Errors.NONE:
                    if not group.is_(Dead):
                        for topic_partition, offset_and_metadata in filtered_offset_metadata.items():
                            commit = CommitRecordMetadataAndOffset(status.base_offset, offset_and_metadata)
                            if is_txn_offset_commit:
                                group.on_txn_offset_commit_append(producer_id, topic_partition, commit)
                            else:
                                group.on_offset_commit_append(topic_partition, commit)
                    response_error = Errors.NONE
                else:
                    if not group.is_(Dead):
                        if not group.has_pending_offset_commits_from_producer(producer_id):
                            self._remove_producer_group(producer_id, group.group_id)
                        for topic_partition, offset_and_metadata in filtered_offset_metadata.items():
                            if is_txn_offset_commit:
                                group.fail_pending_txn_offset_commit(producer_id, topic_partition)
                            else:
                                group.fail_pending_offset_write(topic_partition, offset_and_metadata)
                    log.debug("Offset commit %s from group %s, consumer %s with generation %d failed when "
                              "appending to log due to %s", filtered_offset_metadata, group.group_id,
                              consumer_id, group.generation_id, status.error.exception_name)
                    response_error = _store_offsets_error(status.error)
            commit_status = {
                tp: response_error if self._validate_offset_metadata_length(offset.metadata)
                else Errors.OFFSET_METADATA_TOO_LARGE
                for tp, offset in offset_metadata.items()}
            response_callback(commit_status)

        with group.in_lock():
            if is_txn_offset_commit:
                self._add_producer_group(producer_id, group.group_id)
                group.prepare_txn_offset_commit(producer_id, offset_metadata)
            else:
                group.prepare_offset_commit(offset_metadata)
        self._append_for_group(group, {offset_topic_partition: records}, put_cache_callback)

    # -- reads ----------------------------------------------------------------------------------------------------

    def get_offsets(self, group_id: str, topic_partitions_opt: list[TopicPartition] | None
                    ) -> dict[TopicPartition, PartitionData]:
        """The group's committed offsets: never a stale one (the cache is the log's latest word)."""
        group = self.group_metadata_cache.get(group_id)
        requested = [TopicPartition(*tp) for tp in topic_partitions_opt or []]
        if group is None:
            return {tp: PartitionData(INVALID_OFFSET, "", Errors.NONE) for tp in requested}
        with group.in_lock():
            if group.is_(Dead):
                return {tp: PartitionData(INVALID_OFFSET, "", Errors.NONE) for tp in requested}
            if topic_partitions_opt is None:
                return {tp: PartitionData(offset.offset, offset.metadata, Errors.NONE)
                        for tp, offset in group.all_offsets().items()}
            result = {}
            for topic_partition in requested:
                offset = group.offset(topic_partition)
                result[topic_partition] = (PartitionData(INVALID_OFFSET, "", Errors.NONE) if offset is None
                                           else PartitionData(offset.offset, offset.metadata, Errors.NONE))
            return result

    # -- leadership of offsets-topic partitions -------------------------------------------------------------------

    def load_groups_for_partition(self, offsets_partition: int,
                                  on_group_loaded: Callable[[GroupMetadata], None]) -> None:
        """Read the partition's log in the background and fill the cache with its groups and offsets."""
        topic_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, offsets_partition)
        log.info("Scheduling loading of offsets and group metadata from %s", topic_partition)

        def do_load_groups_and_offsets() -> None:
            with span("GroupMetadataManager.loadGroupsForPartition", root=True, topic_partition=topic_partition):
                with self.partition_lock:
                    if offsets_partition in self.loading_partitions:
                        log.info("Offset load from %s already in progress.", topic_partition)
                        return
                    self.loading_partitions.add(offsets_partition)
                try:
                    start_ms = self.time_ms()
                    self.load_groups_and_offsets(topic_partition, on_group_loaded)
                    log.info("Finished loading offsets and group metadata from %s in %d milliseconds.",
                             topic_partition, self.time_ms() - start_ms)
                except Exception:
                    log.exception("Error loading offsets from %s", topic_partition)
                finally:
                    with self.partition_lock:
                        self.owned_partitions.add(offsets_partition)
                        self.loading_partitions.discard(offsets_partition)

        self.scheduler.schedule(str(topic_partition), do_load_groups_and_offsets)

    def load_groups_and_offsets(self, topic_partition: TopicPartition,
                                on_group_loaded: Callable[[GroupMetadata], None]) -> None:
        def high_water_mark() -> int:
            # The local leader's log end offset, -1 once leadership is gone.
            end_offset = self.replica_manager.get_log_end_offset(topic_partition)
            return -1 if end_offset is None else end_offset

        partition_log = self.replica_manager.get_log(topic_partition)
        if partition_log is None:
            log.warning("Attempted to load offsets and group metadata from %s, but found no log", topic_partition)
            return

        curr_offset = partition_log.log_start_offset
        loaded_offsets: dict[GroupTopicPartition, CommitRecordMetadataAndOffset] = {}
        pending_offsets: dict[int, dict[GroupTopicPartition, CommitRecordMetadataAndOffset]] = {}
        loaded_groups: dict[str, GroupMetadata] = {}
        removed_groups: set[str] = set()

        # The loop stops if leadership moves while loading: the high watermark reads -1 then.
        while curr_offset < high_water_mark() and not self.shutting_down.get():
            data = partition_log.read(curr_offset, self.config.load_buffer_size, max_offset=None,
                                      min_one_message=True)
            batches = list(MemoryRecords(data).batches())
            if not batches:
                break  # nothing at or above curr_offset is left in the log (it was deleted while we read)
            for batch in batches:
                is_txn_offset_commit = batch.is_transactional
                if batch.is_control_batch:
                    record = next(batch.records())
                    if _control_record_type(record.key) == CONTROL_TYPE_COMMIT:
                        for group_topic_partition, commit in pending_offsets.get(batch.producer_id, {}).items():
                            current = loaded_offsets.get(group_topic_partition)
                            if current is None or current.older_than(commit):
                                loaded_offsets[group_topic_partition] = commit
                    pending_offsets.pop(batch.producer_id, None)
                else:
                    batch_base_offset: int | None = None
                    for record in batch.records():
                        if record.key is None:
                            raise IllegalStateException("Group metadata/offset entry key should not be null")
                        if batch_base_offset is None:
                            batch_base_offset = record.offset
                        base_key = read_message_key(record.key)
                        if isinstance(base_key, OffsetKey):
                            if is_txn_offset_commit:
                                pending_offsets.setdefault(batch.producer_id, {})
                            group_topic_partition = base_key.key
                            if record.value is None:
                                if is_txn_offset_commit:
                                    pending_offsets[batch.producer_id].pop(group_topic_partition, None)
                                else:
                                    loaded_offsets.pop(group_topic_partition, None)
                            else:
                                commit = CommitRecordMetadataAndOffset(batch_base_offset,
                                                                       read_offset_message_value(record.value))
                                if is_txn_offset_commit:
                                    pending_offsets[batch.producer_id][group_topic_partition] = commit
                                else:
                                    loaded_offsets[group_topic_partition] = commit
                        else:
                            group_id = base_key.key
                            group_metadata = read_group_message_value(group_id, record.value)
                            if group_metadata is not None:
                                removed_groups.discard(group_id)
                                loaded_groups[group_id] = group_metadata
                            else:
                                loaded_groups.pop(group_id, None)
                                removed_groups.add(group_id)
                curr_offset = batch.next_offset

        group_offsets: dict[str, dict[TopicPartition, CommitRecordMetadataAndOffset]] = {}
        empty_group_offsets: dict[str, dict[TopicPartition, CommitRecordMetadataAndOffset]] = {}
        for group_topic_partition, commit in loaded_offsets.items():
            target = group_offsets if group_topic_partition.group in loaded_groups else empty_group_offsets
            target.setdefault(group_topic_partition.group, {})[group_topic_partition.topic_partition] = commit

        # Transactional commits whose marker is not in the log yet stay pending in their groups.
        pending_offsets_by_group: dict[str, dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]]] = {}
        for producer_id, producer_offsets in pending_offsets.items():
            for group_topic_partition, commit in producer_offsets.items():
                self._add_producer_group(producer_id, group_topic_partition.group)
                pending_offsets_by_group.setdefault(group_topic_partition.group, {}).setdefault(
                    producer_id, {})[group_topic_partition.topic_partition] = commit

        for group in loaded_groups.values():
            offsets = group_offsets.get(group.group_id, {})
            group_pending_offsets = pending_offsets_by_group.get(group.group_id, {})
            log.debug("Loaded group metadata %s with offsets %s and pending offsets %s", group, offsets,
                      group_pending_offsets)
            self._load_group(group, offsets, group_pending_offsets)
            on_group_loaded(group)

        # Groups that only store offsets here (no members, so no group record in the log).
        for group_id in sorted(set(empty_group_offsets) | (set(pending_offsets_by_group) - set(loaded_groups))):
            group = GroupMetadata(group_id, initial_state=Empty)
            offsets = empty_group_offsets.get(group_id, {})
            group_pending_offsets = pending_offsets_by_group.get(group_id, {})
            log.debug("Loaded group metadata %s with offsets %s and pending offsets %s", group, offsets,
                      group_pending_offsets)
            self._load_group(group, offsets, group_pending_offsets)
            on_group_loaded(group)

        for group_id in removed_groups:
            # A removed group may come back as an offsets-only group, but never as a cached active one.
            if group_id in self.group_metadata_cache and group_id not in empty_group_offsets \
                    and group_id not in pending_offsets_by_group:
                raise IllegalStateException(f"Unexpected unload of active group {group_id} while loading "
                                            f"partition {topic_partition}")

    def _load_group(self, group: GroupMetadata, offsets: dict[TopicPartition, CommitRecordMetadataAndOffset],
                    pending_txn_offsets: dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]] | None = None
                    ) -> None:
        # Offsets go in before the group is cached, so nobody sees the group without them.
        loaded_offsets = {}
        for topic_partition, commit in offsets.items():
            offset_and_metadata = commit.offset_and_metadata
            if offset_and_metadata.expire_timestamp == DEFAULT_TIMESTAMP:
                offset_and_metadata = dataclasses.replace(
                    offset_and_metadata,
                    expire_timestamp=offset_and_metadata.commit_timestamp + self.config.offsets_retention_ms)
            loaded_offsets[topic_partition] = CommitRecordMetadataAndOffset(commit.appended_batch_offset,
                                                                            offset_and_metadata)
        group.initialize_offsets(loaded_offsets, pending_txn_offsets)
        current_group = self.add_group(group)
        if group is not current_group:
            log.debug("Attempt to load group %s from log with generation %d failed because there is already a "
                      "cached group with generation %d", group.group_id, group.generation_id,
                      current_group.generation_id)

    def remove_groups_for_partition(self, offsets_partition: int,
                                    on_group_unloaded: Callable[[GroupMetadata], None]) -> None:
        """This broker no longer leads the partition: drop its groups from the cache, in the background."""
        topic_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, offsets_partition)
        log.info("Scheduling unloading of offsets and group metadata from %s", topic_partition)

        def remove_groups_and_offsets() -> None:
            with span("GroupMetadataManager.removeGroupsForPartition", root=True, topic_partition=topic_partition):
                num_offsets_removed = 0
                num_groups_removed = 0
                with self.partition_lock:
                    # Under the partition lock, so a request never sees an owned partition without its groups.
                    self.owned_partitions.discard(offsets_partition)
                    for group in list(self.group_metadata_cache.values()):
                        if self.partition_for(group.group_id) == offsets_partition:
                            on_group_unloaded(group)
                            self._remove_from_cache(group.group_id, group)
                            self._remove_group_from_all_producers(group.group_id)
                            num_groups_removed += 1
                            num_offsets_removed += group.num_offsets
                log.info("Finished unloading %s. Removed %d cached offsets and %d cached groups.", topic_partition,
                         num_offsets_removed, num_groups_removed)

        self.scheduler.schedule(str(topic_partition), remove_groups_and_offsets)

    # -- expiration -----------------------------------------------------------------------------------------------

    def cleanup_group_metadata(self, deleted_topic_partitions: list[TopicPartition] | None = None,
                               groups: Iterable[GroupMetadata] | None = None, start_ms: int | None = None) -> None:
        """Drop expired (or deleted-topic) offsets, turn Empty groups without offsets Dead, and write tombstones."""
        if groups is None:
            groups = self.current_groups()
        if start_ms is None:
            start_ms = self.time_ms()
        began_ms = self.time_ms()
        with span("GroupMetadataManager.cleanupGroupMetadata"):
            offsets_removed = 0
            for group in list(groups):
                group_id = group.group_id
                with group.in_lock():
                    if deleted_topic_partitions is not None:
                        removed_offsets = group.remove_offsets(deleted_topic_partitions)
                    else:
                        removed_offsets = group.remove_expired_offsets(start_ms)
                    if group.is_(Empty) and not group.has_offsets():
                        log.info("Group %s transitioned to Dead in generation %d", group_id, group.generation_id)
                        group.transition_to(Dead)
                    group_is_dead, generation = group.is_(Dead), group.generation_id

                offsets_partition = self.partition_for(group_id)
                append_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, offsets_partition)
                magic_value = self._get_magic(offsets_partition)
                if magic_value is None:
                    log.info("BrokerId %d is no longer a coordinator for the group %s. Proceeding cleanup for other "
                             "alive groups", self.broker_id, group_id)
                    continue
                partition = self.replica_manager.get_partition(append_partition)
                if partition is None:
                    continue
                timestamp = self.time_ms()
                tombstones: list[tuple[int, bytes, bytes | None]] = [
                    (timestamp, offset_commit_key(group_id, topic_partition), None)
                    for topic_partition in removed_offsets]
                # A group of generation 0 only ever stored offsets: it has no group record to delete.
                if group_is_dead and self._remove_from_cache(group_id, group) and generation > 0:
                    tombstones.append((timestamp, group_metadata_key(group_id), None))
                if tombstones:
                    try:
                        # No acks: a lost tombstone is written again by the next cleanup.
                        partition.append_records_to_leader(self._build_records(tombstones), is_from_client=False,
                                                           required_acks=0)
                        offsets_removed += len(removed_offsets)
                    except Exception:
                        log.exception("Failed to append %d tombstones to %s for expired/deleted offsets and/or "
                                      "metadata for group %s.", len(tombstones), append_partition, group_id)
            note(offsets_removed=offsets_removed)
            log.info("Removed %d expired offsets in %d milliseconds.", offsets_removed, self.time_ms() - began_ms)

    # -- transactional offset commits -------------------------------------------------------------------------------

    def schedule_handle_txn_completion(self, producer_id: int, completed_partitions: set[int],
                                       is_commit: bool) -> None:
        """A producer's marker is written to these offsets partitions: complete its pending commits there. On the
        scheduler, since the caller may hold a group's lock and this takes others."""
        self.scheduler.schedule(f"handleTxnCompletion-{producer_id}",
                                lambda: self.handle_txn_completion(producer_id, completed_partitions, is_commit))

    def handle_txn_completion(self, producer_id: int, completed_partitions: set[int], is_commit: bool) -> None:
        pending_groups = self._groups_belonging_to_partitions(producer_id, completed_partitions)
        for group_id in pending_groups:
            group = self.get_group(group_id)
            if group is None:
                log.info("Group %s has moved away from %d after transaction marker was written but before the cache "
                         "was updated. The cache on the new group owner will be updated instead.", group_id,
                         self.broker_id)
                continue
            with group.in_lock():
                if not group.is_(Dead):
                    group.complete_pending_txn_offset_commit(producer_id, is_commit)
                    self._remove_producer_group(producer_id, group_id)

    def _add_producer_group(self, producer_id: int, group_id: str) -> None:
        with self._open_groups_lock:
            self.open_groups_for_producer.setdefault(producer_id, set()).add(group_id)

    def _remove_producer_group(self, producer_id: int, group_id: str) -> None:
        with self._open_groups_lock:
            groups = self.open_groups_for_producer.get(producer_id)
            if groups is not None:
                groups.discard(group_id)
                if not groups:
                    del self.open_groups_for_producer[producer_id]

    def _groups_belonging_to_partitions(self, producer_id: int, partitions: set[int]) -> set[str]:
        with self._open_groups_lock:
            return {group_id for group_id in self.open_groups_for_producer.get(producer_id, ())
                    if self.partition_for(group_id) in partitions}

    def _remove_group_from_all_producers(self, group_id: str) -> None:
        with self._open_groups_lock:
            for groups in self.open_groups_for_producer.values():
                groups.discard(group_id)

    # -- helpers --------------------------------------------------------------------------------------------------

    def _validate_offset_metadata_length(self, metadata: str | None) -> bool:
        return metadata is None or len(metadata) <= self.config.max_metadata_size

    def shutdown(self) -> None:
        self.shutting_down.set(True)
        if self.scheduler.is_started:
            self.scheduler.shutdown()

    def _get_group_metadata_topic_partition_count(self) -> int:
        """The partition count of __consumer_offsets in ZooKeeper; the configured count if the topic is not there
        (or no ZooKeeper was given, as under KRaft)."""
        count = None
        if self.zk_utils is not None:
            count = self.zk_utils.get_topic_partition_count(GROUP_METADATA_TOPIC_NAME)
        return self.config.offsets_topic_num_partitions if count is None else count

    def _get_magic(self, partition: int) -> int | None:
        """The message format of the offsets partition if its replica is local, None otherwise."""
        return self.replica_manager.get_magic(TopicPartition(GROUP_METADATA_TOPIC_NAME, partition))

    def add_partition_ownership(self, partition: int) -> None:
        """For tests: own a partition without loading it."""
        with self.partition_lock:
            self.owned_partitions.add(partition)

    def _build_records(self, records: list[tuple[int, bytes, bytes | None]], producer_id: int = NO_PRODUCER_ID,
                       producer_epoch: int = NO_PRODUCER_EPOCH, is_transactional: bool = False) -> bytes:
        """One magic v2 batch, CREATE_TIME, in the offsets topic's codec (MemoryRecords.builder + append); a
        transaction's offsets go in a transactional batch of its producer id and epoch."""
        base_sequence = 0 if is_transactional else NO_SEQUENCE
        builder = MemoryRecordsBuilder(self.compression_type, TimestampType.CREATE_TIME, 0, NO_TIMESTAMP,
                                       producer_id, producer_epoch, base_sequence, is_transactional,
                                       NO_PARTITION_LEADER_EPOCH)
        for offset, (timestamp, key, value) in enumerate(records):
            builder.append_with_offset(offset, DefaultRecord(0, 0, offset, timestamp, NO_SEQUENCE, key, value, []))
        return bytes(builder.build().buffer)


def _store_group_error(error: Errors) -> Errors:
    """A failed group-metadata append, as the JoinGroup/SyncGroup client should see it."""
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if error == Errors.REQUEST_TIMED_OUT:
        return Errors.REBALANCE_IN_PROGRESS
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.UNKNOWN_SERVER_ERROR
    return error


def _store_offsets_error(error: Errors) -> Errors:
    """A failed offset-commit append, as the OffsetCommit client should see it."""
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.INVALID_COMMIT_OFFSET_SIZE
    return error


def java_string_hash_code(s: str) -> int:
    """java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in 32-bit arithmetic."""
    h = 0
    data = s.encode("utf-16-be", errors="surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h


def utils_abs(n: int) -> int:
    """org.apache.kafka.common.utils.Utils.abs: Math.abs, except Integer.MIN_VALUE maps to 0."""
    return 0 if n == -(2**31) else abs(n)


# -- the record formats of __consumer_offsets ---------------------------------------------------------------------
#
# key version 0 and 1: an offset commit, key (group: string, topic: string, partition: int32)
#     value version 0: (offset: int64, metadata: string, timestamp: int64)
#     value version 1: (offset: int64, metadata: string, commit_timestamp: int64, expire_timestamp: int64)
# key version 2: group metadata, key (group: string)
#     value version 0: (protocol_type: string, generation: int32, protocol: nullable string,
#                       leader: nullable string, members: [member_id, client_id, client_host, session_timeout: int32,
#                       subscription: bytes, assignment: bytes])
#     value version 1: as version 0, with rebalance_timeout: int32 before session_timeout in each member
# Every key and value starts with its int16 version. A null value is a tombstone.

CURRENT_OFFSET_KEY_SCHEMA_VERSION = 1
CURRENT_GROUP_KEY_SCHEMA_VERSION = 2
CURRENT_OFFSET_VALUE_SCHEMA_VERSION = 1
CURRENT_GROUP_VALUE_SCHEMA_VERSION = 1
CONTROL_TYPE_ABORT = 0
CONTROL_TYPE_COMMIT = 1


class GroupTopicPartition(NamedTuple):
    group: str
    topic_partition: TopicPartition

    def __str__(self) -> str:
        return f"[{self.group},{self.topic_partition.topic},{self.topic_partition.partition}]"


class OffsetKey(NamedTuple):
    version: int
    key: GroupTopicPartition


class GroupMetadataKey(NamedTuple):
    version: int
    key: str


def offset_commit_key(group: str, topic_partition: TopicPartition) -> bytes:
    w = TypeWriter().int16(CURRENT_OFFSET_KEY_SCHEMA_VERSION)
    return bytes(w.string(group).string(topic_partition[0]).int32(topic_partition[1]).out)


def group_metadata_key(group: str) -> bytes:
    return bytes(TypeWriter().int16(CURRENT_GROUP_KEY_SCHEMA_VERSION).string(group).out)


def offset_commit_value(offset_and_metadata: OffsetAndMetadata) -> bytes:
    w = TypeWriter().int16(CURRENT_OFFSET_VALUE_SCHEMA_VERSION).int64(offset_and_metadata.offset)
    w.string(offset_and_metadata.metadata or "")
    return bytes(w.int64(offset_and_metadata.commit_timestamp).int64(offset_and_metadata.expire_timestamp).out)


def group_metadata_value(group_metadata: GroupMetadata, assignment: dict[str, bytes], version: int = 0) -> bytes:
    w = TypeWriter().int16(version)
    w.string(group_metadata.protocol_type or "").int32(group_metadata.generation_id)
    w.nullable_string(group_metadata.protocol_or_null).nullable_string(group_metadata.leader_or_null)
    members = group_metadata.all_member_metadata()
    w.int32(len(members))
    for member in members:
        w.string(member.member_id).string(member.client_id).string(member.client_host)
        if version > 0:
            w.int32(member.rebalance_timeout_ms)
        w.int32(member.session_timeout_ms)
        # The group is not empty, so it has a protocol.
        protocol = group_metadata.protocol_or_null
        if protocol is None:
            raise IllegalStateException("Attempted to write non-empty group metadata with no defined protocol")
        w.bytes_(member.metadata(protocol))
        member_assignment = assignment[member.member_id]
        assert member_assignment is not None
        w.bytes_(member_assignment)
    return bytes(w.out)


def read_message_key(buffer: bytes) -> OffsetKey | GroupMetadataKey:
    r = TypeReader(buffer, "group metadata record")
    version = r.int16()
    if version <= CURRENT_OFFSET_KEY_SCHEMA_VERSION and version >= 0:
        group, topic, partition = r.string(), r.string(), r.int32()
        return OffsetKey(version, GroupTopicPartition(group, TopicPartition(topic, partition)))
    if version == CURRENT_GROUP_KEY_SCHEMA_VERSION:
        return GroupMetadataKey(version, r.string())
    raise IllegalStateException(f"Unknown version {version} for group metadata message")


def read_offset_message_value(buffer: bytes | None) -> OffsetAndMetadata | None:
    if buffer is None:  # tombstone
        return None
    r = TypeReader(buffer, "group metadata record")
    version = r.int16()
    if version == 0:
        offset, metadata, timestamp = r.int64(), r.string(), r.int64()
        return OffsetAndMetadata(offset, metadata, timestamp)
    if version == 1:
        offset, metadata, commit_timestamp, expire_timestamp = r.int64(), r.string(), r.int64(), r.int64()
        return OffsetAndMetadata(offset, metadata, commit_timestamp, expire_timestamp)
    raise KafkaException(f"Unknown offset schema version {version}")


def read_group_message_value(group_id: str, buffer: bytes | None) -> GroupMetadata | None:
    if buffer is None:  # tombstone
        return None
    r = TypeReader(buffer, "group metadata record")
    version = r.int16()
    if version not in (0, 1):
        raise KafkaException(f"Unknown group metadata version {version}")
    protocol_type = r.string()
    generation_id = r.int32()
    protocol = r.nullable_string()
    leader_id = r.nullable_string()
    members = []
    for _ in range(r.int32()):
        member_id, client_id, client_host = r.string(), r.string(), r.string()
        rebalance_timeout = r.int32() if version == 1 else None
        session_timeout = r.int32()
        subscription = r.bytes_()
        member = MemberMetadata(member_id, group_id, client_id, client_host,
                                session_timeout if rebalance_timeout is None else rebalance_timeout,
                                session_timeout, protocol_type, [(protocol, subscription)])
        member.assignment = r.bytes_()
        members.append(member)
    initial_state = Empty if not members else Stable
    return GroupMetadata.load_group(group_id, initial_state, generation_id, protocol_type, protocol, leader_id,
                                    members)


def _control_record_type(key: bytes | None) -> int:
    """ControlRecordType.parse: (version: int16, type: int16)."""
    if key is None or len(key) < 4:
        raise IllegalStateException("Invalid control record key")
    return struct.unpack_from(">h", key, 2)[0]
