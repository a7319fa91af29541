"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/OffsetMetadataManager.java (Kafka 3.9).

Requests are kio's message objects (any version: a field an older or newer version lacks reads as Kafka's default).
Responses are the dicts the port's GroupCoordinator interface passes around (group_coordinator.py,
KafkaApis' response builders): kio's field names, Errors members for error codes, lists in Kafka's order.
The metrics shard is taken by the Builder for the callers' sake but never recorded to: the port has no registry.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.errors.group_id_not_found_exception import GroupIdNotFoundException
from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
from kafka_edu.v3_9.clients.common.errors.stale_member_epoch_exception import StaleMemberEpochException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils import time as _time
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_hash_set import TimelineHashSet

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
    from kafka_edu.v3_9.clients.common.utils.time import Time
    from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import GroupCoordinatorConfig

_LOGGER = "org.apache.kafka.coordinator.group.OffsetMetadataManager"

# OffsetFetchResponse.INVALID_OFFSET: what a partition without a committed offset reports
INVALID_OFFSET = -1
# OffsetCommitRequest.DEFAULT_RETENTION_TIME: the broker's offsets.retention.minutes applies
DEFAULT_RETENTION_TIME = -1
# a read at Long.MAX_VALUE is a read of the latest state: the one a require_stable fetch asks for
_LONG_MAX = 2**63 - 1

_ILLEGAL_GENERATION_MESSAGE = "Specified group generation id is not valid."

# group id -> topic -> partition -> offset, each level a timeline map
_GroupOffsets = TimelineHashMap[str, TimelineHashMap[str, TimelineHashMap[int, OffsetAndMetadata]]]


class OffsetMetadataManager:
    """Every group's committed offsets, and the transactional ones waiting for their transaction to end.

    Request handlers only validate and produce records plus a response; the state changes when the records are
    replayed (right after being written, or while loading the partition), so both paths share one code.
    """

    class Builder:
        def __init__(self) -> None:
            self._log_context: str | None = None
            self._snapshot_registry: SnapshotRegistry | None = None
            self._time: Time | None = None
            self._group_metadata_manager: Any = None
            self._metadata_image: MetadataImage | None = None
            self._config: GroupCoordinatorConfig | None = None
            self._metrics: Any = None

        def with_log_context(self, log_context: str) -> OffsetMetadataManager.Builder:
            self._log_context = log_context
            return self

        def with_snapshot_registry(self, snapshot_registry: SnapshotRegistry) -> OffsetMetadataManager.Builder:
            self._snapshot_registry = snapshot_registry
            return self

        def with_time(self, time: Time) -> OffsetMetadataManager.Builder:
            self._time = time
            return self

        def with_group_metadata_manager(self, group_metadata_manager: Any) -> OffsetMetadataManager.Builder:
            self._group_metadata_manager = group_metadata_manager
            return self

        def with_group_coordinator_config(self, config: GroupCoordinatorConfig) -> OffsetMetadataManager.Builder:
            self._config = config
            return self

        def with_metadata_image(self, metadata_image: MetadataImage) -> OffsetMetadataManager.Builder:
            self._metadata_image = metadata_image
            return self

        def with_group_coordinator_metrics_shard(self, metrics: Any) -> OffsetMetadataManager.Builder:
            self._metrics = metrics
            return self

        def build(self) -> OffsetMetadataManager:
            log_context = "" if self._log_context is None else self._log_context
            snapshot_registry = (SnapshotRegistry(log_context) if self._snapshot_registry is None
                                 else self._snapshot_registry)
            metadata_image = MetadataImage.EMPTY if self._metadata_image is None else self._metadata_image
            time = _time.SYSTEM if self._time is None else self._time

            if self._group_metadata_manager is None:
                raise ValueError("GroupMetadataManager cannot be null")
            # Kafka also insists on a metrics shard; the port records no metrics, so none is required

            return OffsetMetadataManager(snapshot_registry, log_context, time, metadata_image,
                                         self._group_metadata_manager, self._config, self._metrics)

    class _Offsets:
        """Offsets by group, topic and partition; emptied levels are dropped so that a group without offsets
        is absent."""

        def __init__(self, snapshot_registry: SnapshotRegistry) -> None:
            self._snapshot_registry = snapshot_registry
            self.offsets_by_group: _GroupOffsets = TimelineHashMap(snapshot_registry, 0)

        def get(self, group_id: str, topic: str, partition: int) -> OffsetAndMetadata | None:
            topic_offsets = self.offsets_by_group.get(group_id)
            if topic_offsets is None:
                return None
            partition_offsets = topic_offsets.get(topic)
            if partition_offsets is None:
                return None
            return partition_offsets.get(partition)

        def put(self, group_id: str, topic: str, partition: int,
                offset_and_metadata: OffsetAndMetadata) -> OffsetAndMetadata | None:
            topic_offsets = self.offsets_by_group.get(group_id)
            if topic_offsets is None:
                topic_offsets = TimelineHashMap(self._snapshot_registry, 0)
                self.offsets_by_group.put(group_id, topic_offsets)
            partition_offsets = topic_offsets.get(topic)
            if partition_offsets is None:
                partition_offsets = TimelineHashMap(self._snapshot_registry, 0)
                topic_offsets.put(topic, partition_offsets)
            return partition_offsets.put(partition, offset_and_metadata)

        def remove(self, group_id: str, topic: str, partition: int) -> OffsetAndMetadata | None:
            topic_offsets = self.offsets_by_group.get(group_id)
            if topic_offsets is None:
                return None
            partition_offsets = topic_offsets.get(topic)
            if partition_offsets is None:
                return None

            removed_value = partition_offsets.remove(partition)
            if partition_offsets.is_empty():
                topic_offsets.remove(topic)
            if topic_offsets.is_empty():
                self.offsets_by_group.remove(group_id)
            return removed_value

    def __init__(self, snapshot_registry: SnapshotRegistry, log_context: str, time: Time,
                 metadata_image: MetadataImage, group_metadata_manager: Any, config: GroupCoordinatorConfig | None,
                 metrics: Any) -> None:
        self._snapshot_registry = snapshot_registry
        self._log = Logging(_LOGGER, log_context)
        self._time = time
        self._metadata_image = metadata_image
        self._group_metadata_manager = group_metadata_manager
        self._config = config
        self._metrics = metrics
        self._offsets = OffsetMetadataManager._Offsets(snapshot_registry)
        # producer id -> the offsets its ongoing transaction committed: moved to _offsets on commit, dropped on abort
        self._pending_transactional_offsets: TimelineHashMap[int, OffsetMetadataManager._Offsets] = \
            TimelineHashMap(snapshot_registry, 0)
        # group id -> producer ids with an open transaction holding offsets of that group
        self._open_transactions_by_group: TimelineHashMap[str, TimelineHashSet[int]] = \
            TimelineHashMap(snapshot_registry, 0)

    # -- validation -------------------------------------------------------------------------------------------------

    def _validate_offset_commit(self, context: RequestContext, request: Any) -> Group:
        generation_id_or_member_epoch = getattr(request, "generation_id_or_member_epoch", -1)
        try:
            group = self._group_metadata_manager.group(request.group_id)
        except GroupIdNotFoundException:
            if generation_id_or_member_epoch < 0:
                # no generation: the admin client or a consumer committing without group management; such a
                # "simple" group is created on the fly
                group = self._group_metadata_manager.get_or_maybe_create_classic_group(request.group_id, True)
            elif context.header.api_version >= 9:
                # v9+ clients understand GROUP_ID_NOT_FOUND, whichever protocol they speak
                raise
            else:
                # older clients only know ILLEGAL_GENERATION here
                raise IllegalGenerationException(_ILLEGAL_GENERATION_MESSAGE) from None

        group.validate_offset_commit(
            getattr(request, "member_id", ""),
            getattr(request, "group_instance_id", None),
            generation_id_or_member_epoch,
            False,
            context.api_version(),
        )
        return group

    def _validate_transactional_offset_commit(self, context: RequestContext, request: Any) -> Group:
        generation_id = getattr(request, "generation_id", -1)
        try:
            group = self._group_metadata_manager.group(request.group_id)
        except GroupIdNotFoundException:
            if generation_id < 0:
                # as for OffsetCommit: a group-less commit creates a simple group
                group = self._group_metadata_manager.get_or_maybe_create_classic_group(request.group_id, True)
            else:
                raise IllegalGenerationException(_ILLEGAL_GENERATION_MESSAGE) from None

        try:
            group.validate_offset_commit(
                getattr(request, "member_id", ""),
                getattr(request, "group_instance_id", None),
                generation_id,
                True,
                context.api_version(),
            )
        except StaleMemberEpochException:
            # TxnOffsetCommit clients do not know STALE_MEMBER_EPOCH
            raise IllegalGenerationException(_ILLEGAL_GENERATION_MESSAGE) from None
        return group

    def _validate_offset_fetch(self, request: Any, last_committed_offset: int) -> None:
        group = self._group_metadata_manager.group(request.group_id, last_committed_offset)
        group.validate_offset_fetch(
            getattr(request, "member_id", None),
            getattr(request, "member_epoch", -1),
            last_committed_offset,
        )

    def _validate_offset_delete(self, request: Any) -> Group:
        group = self._group_metadata_manager.group(request.group_id)
        group.validate_offset_delete()
        return group

    def _is_metadata_invalid(self, metadata: str | None) -> bool:
        assert self._config is not None
        return metadata is not None and len(metadata) > self._config.offset_metadata_max_size()

    @staticmethod
    def _expire_timestamp_ms(retention_time_ms: int, current_time_ms: int) -> int | None:
        """None (no explicit expiry) unless the request (v2 to v4) overrode the broker's retention."""
        return None if retention_time_ms == DEFAULT_RETENTION_TIME else current_time_ms + retention_time_ms

    # -- OffsetCommit, TxnOffsetCommit, OffsetDelete ------------------------------------------------------------------

    @step("GC.commit")
    def commit_offset(self, context: RequestContext, request: Any) -> CoordinatorResult[dict[str, Any], Any]:
        group = self._validate_offset_commit(context, request)

        # with the classic protocol, a commit from a member of a stable or rebalancing group counts as a heartbeat
        if group.type() == Group.GroupType.CLASSIC:
            classic_group: Any = group
            if (classic_group.is_in_state(ClassicGroupState.STABLE)
                    or classic_group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)):
                self._group_metadata_manager.reschedule_classic_group_member_heartbeat(
                    classic_group, classic_group.member(request.member_id))

        response: dict[str, Any] = dict(topics=[])
        records: list[CoordinatorRecord] = []
        current_time_ms = self._time.milliseconds()
        expire_timestamp_ms = self._expire_timestamp_ms(_retention_time_ms(request), current_time_ms)

        for topic in request.topics:
            topic_response: dict[str, Any] = dict(name=topic.name, partitions=[])
            response["topics"].append(topic_response)

            for partition in topic.partitions:
                if self._is_metadata_invalid(partition.committed_metadata):
                    topic_response["partitions"].append(dict(partition_index=partition.partition_index,
                                                             error_code=Errors.OFFSET_METADATA_TOO_LARGE))
                else:
                    self._log.debug("[GroupId %s] Committing offsets %s for partition %s-%s from member %s with "
                                    "leader epoch %s.", request.group_id, partition.committed_offset, topic.name,
                                    partition.partition_index, getattr(request, "member_id", ""),
                                    getattr(partition, "committed_leader_epoch", -1))
                    topic_response["partitions"].append(dict(partition_index=partition.partition_index,
                                                             error_code=Errors.NONE))
                    offset_and_metadata = OffsetAndMetadata.from_request(partition, current_time_ms,
                                                                         expire_timestamp_ms)
                    records.append(coordinator_record_helpers.new_offset_commit_record(
                        request.group_id, topic.name, partition.partition_index, offset_and_metadata,
                        self._metadata_image.features.metadata_version))

        return CoordinatorResult(records, response)

    def commit_transactional_offset(self, context: RequestContext,
                                    request: Any) -> CoordinatorResult[dict[str, Any], Any]:
        self._validate_transactional_offset_commit(context, request)

        response: dict[str, Any] = dict(topics=[])
        records: list[CoordinatorRecord] = []
        current_time_ms = self._time.milliseconds()

        for topic in request.topics:
            topic_response: dict[str, Any] = dict(name=topic.name, partitions=[])
            response["topics"].append(topic_response)

            for partition in topic.partitions:
                if self._is_metadata_invalid(partition.committed_metadata):
                    topic_response["partitions"].append(dict(partition_index=partition.partition_index,
                                                             error_code=Errors.OFFSET_METADATA_TOO_LARGE))
                else:
                    self._log.debug("[GroupId %s] Committing transactional offsets %s for partition %s-%s from "
                                    "member %s with leader epoch %s.", request.group_id, partition.committed_offset,
                                    topic.name, partition.partition_index, getattr(request, "member_id", ""),
                                    getattr(partition, "committed_leader_epoch", -1))
                    topic_response["partitions"].append(dict(partition_index=partition.partition_index,
                                                             error_code=Errors.NONE))
                    offset_and_metadata = OffsetAndMetadata.from_request(partition, current_time_ms)
                    records.append(coordinator_record_helpers.new_offset_commit_record(
                        request.group_id, topic.name, partition.partition_index, offset_and_metadata,
                        self._metadata_image.features.metadata_version))

        return CoordinatorResult(records, response)

    def delete_offsets(self, request: Any) -> CoordinatorResult[dict[str, Any], Any]:
        group = self._validate_offset_delete(request)
        records: list[CoordinatorRecord] = []
        response_topics: list[dict[str, Any]] = []

        for topic in request.topics:
            response_partitions: list[dict[str, Any]] = []

            if group.is_subscribed_to_topic(topic.name):
                for partition in topic.partitions:
                    response_partitions.append(dict(partition_index=partition.partition_index,
                                                    error_code=Errors.GROUP_SUBSCRIBED_TO_TOPIC))
            else:
                for partition in topic.partitions:
                    # every partition is answered, with or without an offset to delete
                    response_partitions.append(dict(partition_index=partition.partition_index,
                                                    error_code=Errors.NONE))
                    # a tombstone also clears a pending transactional offset, so either one calls for it
                    if (self.has_committed_offset(request.group_id, topic.name, partition.partition_index)
                            or self.has_pending_transactional_offsets(request.group_id, topic.name,
                                                                      partition.partition_index)):
                        records.append(coordinator_record_helpers.new_offset_commit_tombstone_record(
                            request.group_id, topic.name, partition.partition_index))

            response_topics.append(dict(name=topic.name, partitions=response_partitions))

        return CoordinatorResult(records, dict(error_code=Errors.NONE, topics=response_topics))

    def delete_all_offsets(self, group_id: str, records: list[CoordinatorRecord]) -> int:
        """Tombstones for every offset of a group being deleted (DeleteGroups validated it); their number."""
        offsets_by_topic = self._offsets.offsets_by_group.get(group_id)
        num_deleted_offsets = 0

        if offsets_by_topic is not None:
            for topic, offsets_by_partition in offsets_by_topic.items():
                for partition in offsets_by_partition.key_set():
                    records.append(coordinator_record_helpers.new_offset_commit_tombstone_record(
                        group_id, topic, partition))
                    num_deleted_offsets += 1

        # pending transactional offsets too, unless the committed one above already got the tombstone
        open_transactions = self._open_transactions_by_group.get(group_id)
        if open_transactions is not None:
            for producer_id in open_transactions:
                pending_offsets = self._pending_transactional_offsets.get(producer_id)
                if pending_offsets is None:
                    continue
                pending_group_offsets = pending_offsets.offsets_by_group.get(group_id)
                if pending_group_offsets is None:
                    continue
                for topic, offsets_by_partition in pending_group_offsets.items():
                    for partition in offsets_by_partition.key_set():
                        if not self.has_committed_offset(group_id, topic, partition):
                            records.append(coordinator_record_helpers.new_offset_commit_tombstone_record(
                                group_id, topic, partition))
                            num_deleted_offsets += 1

        return num_deleted_offsets

    def has_pending_transactional_offsets(self, group_id: str, topic: str, partition: int) -> bool:
        open_transactions = self._open_transactions_by_group.get(group_id)
        if open_transactions is None:
            return False
        for producer_id in open_transactions:
            offsets = self._pending_transactional_offsets.get(producer_id)
            if offsets is not None and offsets.get(group_id, topic, partition) is not None:
                return True
        return False

    def has_committed_offset(self, group_id: str, topic: str, partition: int) -> bool:
        return self._offsets.get(group_id, topic, partition) is not None

    # -- OffsetFetch ---------------------------------------------------------------------------------------------------

    @step("GC.fetch")
    def fetch_offsets(self, request: Any, last_committed_offset: int) -> dict[str, Any]:
        """The group's offsets of the requested partitions as of last_committed_offset (Long.MAX_VALUE: the latest
        state, where a partition with a pending transactional offset is UNSTABLE_OFFSET_COMMIT)."""
        require_stable = last_committed_offset == _LONG_MAX

        fail_all_partitions = False
        try:
            self._validate_offset_fetch(request, last_committed_offset)
        except GroupIdNotFoundException:
            fail_all_partitions = True

        topic_responses: list[dict[str, Any]] = []
        group_offsets = (None if fail_all_partitions
                         else self._offsets.offsets_by_group.get(request.group_id, last_committed_offset))

        for topic in request.topics or ():
            topic_response: dict[str, Any] = dict(name=topic.name, partitions=[])
            topic_responses.append(topic_response)

            topic_offsets = None if group_offsets is None else group_offsets.get(topic.name, last_committed_offset)

            for partition_index in topic.partition_indexes:
                offset_and_metadata = (None if topic_offsets is None
                                       else topic_offsets.get(partition_index, last_committed_offset))

                if require_stable and self.has_pending_transactional_offsets(request.group_id, topic.name,
                                                                             partition_index):
                    topic_response["partitions"].append(_unstable_partition(partition_index))
                elif offset_and_metadata is None:
                    topic_response["partitions"].append(dict(
                        partition_index=partition_index, committed_offset=INVALID_OFFSET, committed_leader_epoch=-1,
                        metadata="", error_code=Errors.NONE))
                else:
                    topic_response["partitions"].append(_committed_partition(partition_index, offset_and_metadata))

        return dict(group_id=request.group_id, topics=topic_responses)

    def fetch_all_offsets(self, request: Any, last_committed_offset: int) -> dict[str, Any]:
        """Every offset of the group as of last_committed_offset; an unknown group has none."""
        require_stable = last_committed_offset == _LONG_MAX

        try:
            self._validate_offset_fetch(request, last_committed_offset)
        except GroupIdNotFoundException:
            return dict(group_id=request.group_id, topics=[])

        topic_responses: list[dict[str, Any]] = []
        group_offsets = self._offsets.offsets_by_group.get(request.group_id, last_committed_offset)

        if group_offsets is not None:
            for topic, topic_offsets in group_offsets.entry_set(last_committed_offset):
                topic_response: dict[str, Any] = dict(name=topic, partitions=[])
                topic_responses.append(topic_response)

                for partition, offset_and_metadata in topic_offsets.entry_set(last_committed_offset):
                    if require_stable and self.has_pending_transactional_offsets(request.group_id, topic, partition):
                        topic_response["partitions"].append(_unstable_partition(partition))
                    else:
                        topic_response["partitions"].append(_committed_partition(partition, offset_and_metadata))

        return dict(group_id=request.group_id, topics=topic_responses)

    # -- expiration, deleted partitions --------------------------------------------------------------------------------

    def cleanup_expired_offsets(self, group_id: str, records: list[CoordinatorRecord]) -> bool:
        """Tombstones for the group's expired offsets into records; True when the group has no offset left (and no
        open transaction), so that the group itself may go."""
        offsets_by_topic = self._offsets.offsets_by_group.get(group_id)
        if offsets_by_topic is None:
            return True

        # the group must exist here
        group = self._group_metadata_manager.group(group_id)
        expired_partitions: set[str] = set()
        current_timestamp_ms = self._time.milliseconds()
        condition = group.offset_expiration_condition()

        if condition is None:
            return False

        assert self._config is not None
        all_offsets_expired = True

        for topic, partitions in offsets_by_topic.items():
            if not group.is_subscribed_to_topic(topic):
                for partition, offset_and_metadata in partitions.items():
                    # an offset with a transaction still pending on its partition stays until the transaction ends
                    if (condition.is_offset_expired(offset_and_metadata, current_timestamp_ms,
                                                    self._config.offsets_retention_ms())
                            and not self.has_pending_transactional_offsets(group_id, topic, partition)):
                        expired_partitions.add(str(self._append_offset_commit_tombstone(group_id, topic, partition,
                                                                                        records)))
                        self._log.debug("[GroupId %s] Expired offset for partition=%s-%s", group_id, topic, partition)
                    else:
                        all_offsets_expired = False
            else:
                all_offsets_expired = False

        # a group with an open transaction is kept
        return all_offsets_expired and not self._open_transactions_by_group.contains_key(group_id)

    def on_partitions_deleted(self, topic_partitions: list[TopicPartition]) -> list[CoordinatorRecord]:
        """Tombstones for every committed or pending offset of the deleted partitions."""
        records: list[CoordinatorRecord] = []

        partitions_by_topic: dict[str, list[int]] = {}
        for tp in topic_partitions:
            partitions_by_topic.setdefault(tp.topic, []).append(tp.partition)

        def delete(offsets_to_clean: OffsetMetadataManager._Offsets) -> None:
            for group_id, topic_offsets in offsets_to_clean.offsets_by_group.items():
                for topic, partition_offsets in topic_offsets.items():
                    for partition in partitions_by_topic.get(topic, ()):
                        if partition_offsets.contains_key(partition):
                            self._append_offset_commit_tombstone(group_id, topic, partition, records)

        delete(self._offsets)
        for pending in self._pending_transactional_offsets.values():
            delete(pending)

        return records

    def _append_offset_commit_tombstone(self, group_id: str, topic: str, partition: int,
                                        records: list[CoordinatorRecord]) -> TopicPartition:
        records.append(coordinator_record_helpers.new_offset_commit_tombstone_record(group_id, topic, partition))
        tp = TopicPartition(topic, partition)
        self._log.debug("[GroupId %s] Removing expired offset and metadata for %s", group_id, tp)
        return tp

    # -- replay --------------------------------------------------------------------------------------------------------

    def replay(self, record_offset: int, producer_id: int, key: Any, value: Any | None) -> None:
        """An OffsetCommitKey/Value read at record_offset: a value stores an offset (pending if written by a
        transaction), a tombstone (None) removes it, pending ones included."""
        group_id = key.group
        topic = key.topic
        partition = key.partition

        if value is not None:
            # a consumer may commit without ever joining: its group is an empty classic group with no protocol
            try:
                self._group_metadata_manager.group(group_id)
            except GroupIdNotFoundException:
                self._group_metadata_manager.get_or_maybe_create_classic_group(group_id, True)

            if producer_id == NO_PRODUCER_ID:
                self._log.debug("Replaying offset commit with key %s, value %s", key, value)
                self._offsets.put(group_id, topic, partition, OffsetAndMetadata.from_record(record_offset, value))
            else:
                self._log.debug("Replaying transactional offset commit with producer id %s, key %s, value %s",
                                producer_id, key, value)
                # kept aside until the transaction's end marker moves it to the offsets or drops it
                pending = self._pending_transactional_offsets.get(producer_id)
                if pending is None:
                    pending = OffsetMetadataManager._Offsets(self._snapshot_registry)
                    self._pending_transactional_offsets.put(producer_id, pending)
                pending.put(group_id, topic, partition, OffsetAndMetadata.from_record(record_offset, value))
                open_transactions = self._open_transactions_by_group.get(group_id)
                if open_transactions is None:
                    open_transactions = TimelineHashSet(self._snapshot_registry, 1)
                    self._open_transactions_by_group.put(group_id, open_transactions)
                open_transactions.add(producer_id)
        else:
            self._offsets.remove(group_id, topic, partition)

            # the tombstone also wipes the partition's pending transactional offsets
            open_transactions = self._open_transactions_by_group.get(group_id)
            if open_transactions is not None:
                for open_producer_id in list(open_transactions):
                    pending_offsets = self._pending_transactional_offsets.get(open_producer_id)
                    if pending_offsets is not None:
                        pending_offsets.remove(group_id, topic, partition)

    def replay_end_transaction_marker(self, producer_id: int, result: TransactionResult) -> None:
        """A transaction of producer_id ended: its pending offsets become committed ones (COMMIT) or go (ABORT)."""
        pending_offsets = self._pending_transactional_offsets.remove(producer_id)

        if pending_offsets is None:
            self._log.debug("Replayed end transaction marker with result %s for producer id %s but no pending "
                            "offsets are present. Ignoring it.", result, producer_id)
            return

        for group_id in pending_offsets.offsets_by_group.key_set():
            open_transactions = self._open_transactions_by_group.get(group_id)
            if open_transactions is not None:
                open_transactions.remove(producer_id)
                if open_transactions.is_empty():
                    self._open_transactions_by_group.remove(group_id)

        if result == TransactionResult.COMMIT:
            self._log.debug("Committed transactional offset commits for producer id %s.", producer_id)

            for group_id, topic_offsets in pending_offsets.offsets_by_group.items():
                for topic_name, partition_offsets in topic_offsets.items():
                    for partition_id, offset_and_metadata in partition_offsets.items():
                        existing = self._offsets.get(group_id, topic_name, partition_id)

                        # with transactional and plain commits mixed, the one written last wins: compaction of
                        # __consumer_offsets would otherwise be able to bring back an older offset
                        if existing is None or offset_and_metadata.record_offset > existing.record_offset:
                            self._log.debug("Committed transactional offset commit %s for producer id %s in group %s "
                                            "with topic %s and partition %s.", offset_and_metadata, producer_id,
                                            group_id, topic_name, partition_id)
                            self._offsets.put(group_id, topic_name, partition_id, offset_and_metadata)
                        else:
                            self._log.info("Skipped the materialization of transactional offset commit %s for "
                                           "producer id %s in group %s with topic %s, partition %s since its record "
                                           "offset %s is smaller than the record offset %s of the last committed "
                                           "offset.", offset_and_metadata, producer_id, group_id, topic_name,
                                           partition_id, offset_and_metadata.record_offset, existing.record_offset)
        else:
            self._log.debug("Aborted transactional offset commits for producer id %s.", producer_id)

    def on_new_metadata_image(self, new_image: MetadataImage, delta: Any) -> None:
        self._metadata_image = new_image

    # -- for tests -----------------------------------------------------------------------------------------------------

    def offset(self, group_id: str, topic: str, partition: int) -> OffsetAndMetadata | None:
        return self._offsets.get(group_id, topic, partition)

    def pending_transactional_offset(self, producer_id: int, group_id: str, topic: str,
                                     partition: int) -> OffsetAndMetadata | None:
        offsets = self._pending_transactional_offsets.get(producer_id)
        if offsets is None:
            return None
        return offsets.get(group_id, topic, partition)


def _retention_time_ms(request: Any) -> int:
    """OffsetCommit v2-v4's retention (kio's `retention_time`, a timedelta); other versions have none."""
    retention = getattr(request, "retention_time_ms", None)
    if retention is None:
        retention = getattr(request, "retention_time", DEFAULT_RETENTION_TIME)
    if isinstance(retention, datetime.timedelta):
        return retention // datetime.timedelta(milliseconds=1)
    return int(retention)


def _unstable_partition(partition_index: int) -> dict[str, Any]:
    return dict(partition_index=partition_index, committed_offset=INVALID_OFFSET, committed_leader_epoch=-1,
                metadata="", error_code=Errors.UNSTABLE_OFFSET_COMMIT)


def _committed_partition(partition_index: int, offset_and_metadata: OffsetAndMetadata) -> dict[str, Any]:
    leader_epoch = offset_and_metadata.leader_epoch
    return dict(partition_index=partition_index, committed_offset=offset_and_metadata.committed_offset,
                committed_leader_epoch=-1 if leader_epoch is None else leader_epoch,
                metadata=offset_and_metadata.metadata, error_code=Errors.NONE)

