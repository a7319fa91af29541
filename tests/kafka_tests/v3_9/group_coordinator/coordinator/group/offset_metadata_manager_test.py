"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/OffsetMetadataManagerTest.java
(Kafka 3.9).

The test context (Kafka's nested OffsetMetadataManagerTestContext) is ported here with its Builder; it builds a real
GroupMetadataManager (group_metadata_manager.py) as Kafka's does.
GroupCoordinatorConfigTest.createGroupCoordinatorConfig is `create_group_coordinator_config` below.
Mockito's mocks of GroupMetadataManager, Group and the metrics shard are unittest.mock objects.

Requests are kio's messages: OffsetCommit at v9 (v4 where Kafka sets a retention time, the last version with one),
TxnOffsetCommit v4, OffsetFetch v9, OffsetDelete v0. Kafka also sets commitTimestamp (a v1-only field) on v9-shaped
partitions at the current time; v9 has no such field and the manager stamps the current time, the same value.
Responses are the dicts the port's group coordinator passes (offset_metadata_manager.py's docstring).

Kafka's expected orders for the topics of fetchAllOffsets and the tombstones of deleteAllOffsets are its
TimelineHashMap's hash order; the port's TimelineHashMap iterates in insertion order, so those two comparisons are
made order-free (`_unordered`); every other order is asserted as Kafka does.

The metric cases are not applicable: the port has no metrics registry (offset_metadata_manager.py records none).
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from collections import Counter
from typing import Any
from unittest import mock

import pytest
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol
from kio.schema.offset_commit.v4.request import OffsetCommitRequest as OffsetCommitRequestV4
from kio.schema.offset_commit.v4.request import OffsetCommitRequestPartition as OffsetCommitRequestPartitionV4
from kio.schema.offset_commit.v4.request import OffsetCommitRequestTopic as OffsetCommitRequestTopicV4
from kio.schema.offset_commit.v9.request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from kio.schema.offset_delete.v0.request import (
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
)
from kio.schema.offset_fetch.v9.request import OffsetFetchRequestGroup, OffsetFetchRequestTopics
from kio.schema.txn_offset_commit.v4.request import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)

from kafka_edu.v1_0_2.clients.common.errors import CoordinatorNotAvailableException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS
from kafka_edu.v3_9.clients.common.config.config_def import AbstractConfig, merge_configs
from kafka_edu.v3_9.clients.common.errors.group_id_not_found_exception import GroupIdNotFoundException
from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
from kafka_edu.v3_9.clients.common.errors.rebalance_in_progress_exception import RebalanceInProgressException
from kafka_edu.v3_9.clients.common.errors.stale_member_epoch_exception import StaleMemberEpochException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.group_coordinator.coordinator.group import group_coordinator_config as gcc
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.range_assignor import RangeAssignor
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_helpers import (
    new_offset_commit_record,
    new_offset_commit_tombstone_record,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition_impl import (
    OffsetExpirationConditionImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_metadata_manager import (
    INVALID_OFFSET,
    OffsetMetadataManager,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.metadata_image_builder import MetadataImageBuilder
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_coordinator_timer import (
    ExpiredTimeout,
    MockCoordinatorTimer,
)

_METRICS = "metrics: the port has no metrics registry, the manager records no sensor or gauge"

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/OffsetMetadataManagerTest.java",
    cases=[
        "testOffsetCommitWithUnknownGroup",
        "testGenericGroupOffsetCommitWithDeadGroup",
        "testGenericGroupOffsetCommitWithUnknownMemberId",
        "testGenericGroupOffsetCommitWithIllegalGeneration",
        "testGenericGroupOffsetCommitWithUnknownInstanceId",
        "testGenericGroupOffsetCommitWithFencedInstanceId",
        "testGenericGroupOffsetCommitWhileInCompletingRebalanceState",
        "testGenericGroupOffsetCommitWithoutMemberIdAndGeneration",
        "testGenericGroupOffsetCommitWithRetentionTime",
        "testGenericGroupOffsetCommitMaintainsSession",
        "testSimpleGroupOffsetCommit",
        "testSimpleGroupOffsetCommitWithInstanceId",
        "testConsumerGroupOffsetCommitWithUnknownMemberId",
        "testConsumerGroupOffsetCommitWithStaleMemberEpoch",
        "testConsumerGroupOffsetCommitWithIllegalGenerationId",
        "testConsumerGroupOffsetCommitFromAdminClient",
        "testConsumerGroupOffsetCommit",
        "testConsumerGroupOffsetCommitWithOffsetMetadataTooLarge",
        "testConsumerGroupTransactionalOffsetCommit",
        "testConsumerGroupTransactionalOffsetCommitWithUnknownGroupId",
        "testConsumerGroupTransactionalOffsetCommitWithUnknownMemberId",
        "testConsumerGroupTransactionalOffsetCommitWithStaleMemberEpoch",
        "testGenericGroupTransactionalOffsetCommit",
        "testGenericGroupTransactionalOffsetCommitWithUnknownGroupId",
        "testGenericGroupTransactionalOffsetCommitWithUnknownMemberId",
        "testGenericGroupTransactionalOffsetCommitWithIllegalGenerationId",
        "testGenericGroupFetchOffsetsWithDeadGroup",
        "testFetchOffsetsWithUnknownGroup",
        "testFetchOffsetsAtDifferentCommittedOffset",
        "testFetchOffsetsWithPendingTransactionalOffsets",
        "testGenericGroupFetchAllOffsetsWithDeadGroup",
        "testFetchAllOffsetsWithUnknownGroup",
        "testFetchAllOffsetsAtDifferentCommittedOffset",
        "testFetchAllOffsetsWithPendingTransactionalOffsets",
        "testConsumerGroupOffsetFetchWithMemberIdAndEpoch",
        "testConsumerGroupOffsetFetchFromAdminClient",
        "testConsumerGroupOffsetFetchWithUnknownMemberId",
        "testConsumerGroupOffsetFetchWithStaleMemberEpoch",
        "testConsumerGroupOffsetFetchWithIllegalGenerationId",
        "testGenericGroupOffsetDelete",
        "testGenericGroupOffsetDeleteWithErrors",
        "testGenericGroupOffsetDeleteWithPendingTransactionalOffsets",
        "testConsumerGroupOffsetDelete",
        "testConsumerGroupOffsetDeleteWithErrors",
        "testConsumerGroupOffsetDeleteWithPendingTransactionalOffsets",
        "testDeleteGroupAllOffsets",
        "testDeleteGroupAllOffsetsWithPendingTransactionalOffsets",
        "testCleanupExpiredOffsetsGroupHasNoOffsets",
        "testCleanupExpiredOffsetsGroupDoesNotExist",
        "testCleanupExpiredOffsetsEmptyOffsetExpirationCondition",
        "testCleanupExpiredOffsets",
        "testCleanupExpiredOffsetsWithPendingTransactionalOffsets",
        "testReplay",
        "testTransactionalReplay",
        "testReplayWithTombstoneAndPendingTransactionalOffsets",
        "testReplayTransactionEndMarkerWithCommit",
        "testReplayTransactionEndMarkerKeepsTheMostRecentCommittedOffset",
        "testOffsetCommitsNumberMetricWithTransactionalOffsets",
        "testOffsetCommitsSensor",
        "testOffsetsExpiredSensor",
        "testOffsetDeletionsSensor",
        "testOnPartitionsDeleted",
    ],
    not_applicable={
        "testOffsetCommitsNumberMetricWithTransactionalOffsets": _METRICS,
        "testOffsetCommitsSensor": _METRICS,
        "testOffsetsExpiredSensor": _METRICS,
        "testOffsetDeletionsSensor": _METRICS,
    },
)

LONG_MAX = 2**63 - 1
# OffsetCommitKey.HIGHEST_SUPPORTED_VERSION: the record type of an offset commit
_OFFSET_COMMIT_KEY_HIGHEST_SUPPORTED_VERSION = 1


def create_group_coordinator_config(offset_metadata_max_size: int, offsets_retention_check_interval_ms: int,
                                    offsets_retention_minutes: int) -> GroupCoordinatorConfig:
    """GroupCoordinatorConfigTest.createGroupCoordinatorConfig."""
    configs: dict[str, Any] = {
        gcc.GROUP_COORDINATOR_NUM_THREADS_CONFIG: 1,
        gcc.GROUP_COORDINATOR_APPEND_LINGER_MS_CONFIG: 10,
        gcc.CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.CONSUMER_GROUP_MAX_SIZE_CONFIG: gcc.INT_MAX,
        gcc.CONSUMER_GROUP_ASSIGNORS_CONFIG: [
            "org.apache.kafka.coordinator.group.assignor.RangeAssignor"],
        gcc.OFFSETS_TOPIC_SEGMENT_BYTES_CONFIG: 1000,
        gcc.OFFSET_METADATA_MAX_SIZE_CONFIG: offset_metadata_max_size,
        gcc.GROUP_MAX_SIZE_CONFIG: gcc.INT_MAX,
        gcc.GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG: 3000,
        gcc.GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG: 120,
        gcc.GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG: 10 * 5 * 1000,
        gcc.OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG: offsets_retention_check_interval_ms,
        gcc.OFFSETS_RETENTION_MINUTES_CONFIG: offsets_retention_minutes,
        gcc.OFFSET_COMMIT_TIMEOUT_MS_CONFIG: 5000,
        gcc.CONSUMER_GROUP_MIGRATION_POLICY_CONFIG: "DISABLED",
        gcc.OFFSETS_TOPIC_COMPRESSION_CODEC_CONFIG: 0,
        gcc.SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.SHARE_GROUP_MAX_SIZE_CONFIG: 1000,
    }
    definition = merge_configs([gcc.GROUP_COORDINATOR_CONFIG_DEF, gcc.NEW_GROUP_CONFIG_DEF,
                                gcc.OFFSET_MANAGEMENT_CONFIG_DEF, gcc.CONSUMER_GROUP_CONFIG_DEF,
                                gcc.SHARE_GROUP_CONFIG_DEF])
    return GroupCoordinatorConfig(AbstractConfig(definition, configs, False))


def _request_context(api_key: ApiKeys, version: int) -> RequestContext:
    return RequestContext(RequestHeader(api_key, version, "client", 0), "1", "127.0.0.1", 0, ANONYMOUS,
                          ListenerName.for_security_protocol(SecurityProtocol.PLAINTEXT), SecurityProtocol.PLAINTEXT,
                          ClientInformation.EMPTY, False)


class OffsetMetadataManagerTestContext:
    class Builder:
        def __init__(self) -> None:
            self._time = MockTime()
            self._timer: MockCoordinatorTimer[None, CoordinatorRecord] = MockCoordinatorTimer(self._time)
            self._log_context = ""
            self._snapshot_registry = SnapshotRegistry(self._log_context)
            self._group_metadata_manager: Any = None
            self._metadata_image: MetadataImage | None = None
            self._config: GroupCoordinatorConfig | None = None
            self._metrics = mock.Mock()

        def with_offset_metadata_max_size(self, offset_metadata_max_size: int
                                          ) -> OffsetMetadataManagerTestContext.Builder:
            self._config = create_group_coordinator_config(offset_metadata_max_size, 60000, 24 * 60)
            return self

        def with_offsets_retention_minutes(self, offsets_retention_minutes: int
                                           ) -> OffsetMetadataManagerTestContext.Builder:
            self._config = create_group_coordinator_config(4096, 60000, offsets_retention_minutes)
            return self

        def with_group_metadata_manager(self, group_metadata_manager: Any) -> OffsetMetadataManagerTestContext.Builder:
            self._group_metadata_manager = group_metadata_manager
            return self

        def build(self) -> OffsetMetadataManagerTestContext:
            if self._metadata_image is None:
                self._metadata_image = MetadataImage.EMPTY
            if self._config is None:
                self._config = create_group_coordinator_config(4096, 60000, 24)

            if self._group_metadata_manager is None:
                # imported here: the cases that mock it run without the real one
                from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import (
                    GroupMetadataManager,
                )
                self._group_metadata_manager = (
                    GroupMetadataManager.Builder()
                    .with_time(self._time)
                    .with_timer(self._timer)
                    .with_snapshot_registry(self._snapshot_registry)
                    .with_log_context(self._log_context)
                    .with_metadata_image(self._metadata_image)
                    .with_consumer_group_assignors([RangeAssignor()])
                    .with_group_coordinator_metrics_shard(self._metrics)
                    .build())

            offset_metadata_manager = (
                OffsetMetadataManager.Builder()
                .with_time(self._time)
                .with_log_context(self._log_context)
                .with_snapshot_registry(self._snapshot_registry)
                .with_metadata_image(self._metadata_image)
                .with_group_metadata_manager(self._group_metadata_manager)
                .with_group_coordinator_config(self._config)
                .with_group_coordinator_metrics_shard(self._metrics)
                .build())

            return OffsetMetadataManagerTestContext(self._time, self._timer, self._snapshot_registry, self._metrics,
                                                    self._group_metadata_manager, offset_metadata_manager)

    def __init__(self, time: MockTime, timer: MockCoordinatorTimer[None, CoordinatorRecord],
                 snapshot_registry: SnapshotRegistry, metrics: Any, group_metadata_manager: Any,
                 offset_metadata_manager: OffsetMetadataManager) -> None:
        self.time = time
        self.timer = timer
        self.snapshot_registry = snapshot_registry
        self.metrics = metrics
        self.group_metadata_manager = group_metadata_manager
        self.offset_metadata_manager = offset_metadata_manager
        self.last_committed_offset = 0
        self.last_written_offset = 0

    def get_or_maybe_create_group(self, group_type: Group.GroupType, group_id: str) -> Group:
        if group_type == Group.GroupType.CLASSIC:
            return self.group_metadata_manager.get_or_maybe_create_classic_group(group_id, True)
        if group_type == Group.GroupType.CONSUMER:
            return self.group_metadata_manager.get_or_maybe_create_persisted_consumer_group(group_id, True)
        raise ValueError(f"Invalid group type: {group_type}")

    def commit(self) -> None:
        last_committed_offset = self.last_committed_offset
        self.last_committed_offset = self.last_written_offset
        self.snapshot_registry.delete_snapshots_up_to(last_committed_offset)

    def commit_offset_request(self, request: Any, version: int | None = None
                              ) -> CoordinatorResult[dict[str, Any], CoordinatorRecord]:
        """Kafka's commitOffset(request) and commitOffset(version, request)."""
        context = _request_context(ApiKeys.OFFSET_COMMIT,
                                   ApiKeys.OFFSET_COMMIT.latest_version if version is None else version)
        result = self.offset_metadata_manager.commit_offset(context, request)
        for record in result.records():
            self.replay(record)
        return result

    def commit_transactional_offset(self, request: Any) -> CoordinatorResult[dict[str, Any], CoordinatorRecord]:
        context = _request_context(ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.TXN_OFFSET_COMMIT.latest_version)
        result = self.offset_metadata_manager.commit_transactional_offset(context, request)
        for record in result.records():
            self.replay(record, request.producer_id)
        return result

    def delete_partitions(self, topic_partitions: list[TopicPartition]) -> list[CoordinatorRecord]:
        records = self.offset_metadata_manager.on_partitions_deleted(topic_partitions)
        for record in records:
            self.replay(record)
        return records

    def delete_offsets(self, request: Any) -> CoordinatorResult[dict[str, Any], CoordinatorRecord]:
        result = self.offset_metadata_manager.delete_offsets(request)
        for record in result.records():
            self.replay(record)
        return result

    def delete_all_offsets(self, group_id: str, records: list[CoordinatorRecord]) -> int:
        added_records: list[CoordinatorRecord] = []
        num_deleted_offsets = self.offset_metadata_manager.delete_all_offsets(group_id, added_records)
        for record in added_records:
            self.replay(record)
        records.extend(added_records)
        return num_deleted_offsets

    def cleanup_expired_offsets(self, group_id: str, records: list[CoordinatorRecord]) -> bool:
        added_records: list[CoordinatorRecord] = []
        is_offsets_empty_for_group = self.offset_metadata_manager.cleanup_expired_offsets(group_id, added_records)
        for record in added_records:
            self.replay(record)
        records.extend(added_records)
        return is_offsets_empty_for_group

    def fetch_offsets(self, group_id: str, topics: list[Any], committed_offset: int, member_id: str | None = None,
                      member_epoch: int = -1) -> list[dict[str, Any]]:
        response = self.offset_metadata_manager.fetch_offsets(
            OffsetFetchRequestGroup(group_id=group_id, member_id=member_id, member_epoch=member_epoch,
                                    topics=tuple(topics)),
            committed_offset)
        assert response["group_id"] == group_id
        return response["topics"]

    def fetch_all_offsets(self, group_id: str, committed_offset: int, member_id: str | None = None,
                          member_epoch: int = -1) -> list[dict[str, Any]]:
        response = self.offset_metadata_manager.fetch_all_offsets(
            OffsetFetchRequestGroup(group_id=group_id, member_id=member_id, member_epoch=member_epoch, topics=None),
            committed_offset)
        assert response["group_id"] == group_id
        return response["topics"]

    def sleep(self, ms: int) -> list[ExpiredTimeout[None, CoordinatorRecord]]:
        self.time.sleep(ms)
        timeouts = self.timer.poll()
        for timeout in timeouts:
            if timeout.result.replay_records():
                for record in timeout.result.records():
                    self.replay(record)
        return timeouts

    def commit_offset(self, group_id: str, topic: str, partition: int, offset: int, leader_epoch: int,
                      commit_timestamp: int | None = None, producer_id: int = NO_PRODUCER_ID) -> None:
        """Kafka's commitOffset overloads that replay an offset commit record (producerId first in Java)."""
        if commit_timestamp is None:
            commit_timestamp = self.time.milliseconds()
        self.replay(new_offset_commit_record(
            group_id, topic, partition,
            OffsetAndMetadata(offset, leader_epoch, "metadata", commit_timestamp, None),
            MetadataVersion.latest_testing()), producer_id)

    def delete_offset(self, group_id: str, topic: str, partition: int) -> None:
        self.replay(new_offset_commit_tombstone_record(group_id, topic, partition))

    def replay(self, record: CoordinatorRecord, producer_id: int = NO_PRODUCER_ID) -> None:
        self.snapshot_registry.get_or_create_snapshot(self.last_written_offset)

        key = record.key()
        value = record.value()

        if key is None:
            raise RuntimeError(f"Received a null key in {record}")

        if key.version == _OFFSET_COMMIT_KEY_HIGHEST_SUPPORTED_VERSION:
            self.offset_metadata_manager.replay(self.last_written_offset, producer_id, key.message,
                                                None if value is None else value.message)
        else:
            raise RuntimeError(f"Received an unknown record type {key.version} in {record}")

        self.last_written_offset += 1

    def replay_end_transaction_marker(self, producer_id: int, result: TransactionResult) -> None:
        self.snapshot_registry.get_or_create_snapshot(self.last_written_offset)
        self.offset_metadata_manager.replay_end_transaction_marker(producer_id, result)
        self.last_written_offset += 1

    def test_offset_delete_with(self, group_id: str, topic: str, partition: int, expected_error: Errors) -> None:
        expected_records: list[CoordinatorRecord] = []
        if self.has_offset(group_id, topic, partition) and expected_error == Errors.NONE:
            expected_records = [new_offset_commit_tombstone_record(group_id, topic, partition)]

        coordinator_result = self.delete_offsets(OffsetDeleteRequest(
            group_id=group_id,
            topics=(OffsetDeleteRequestTopic(name=topic,
                                             partitions=(OffsetDeleteRequestPartition(partition_index=partition),)),)))

        assert coordinator_result.response() == dict(error_code=Errors.NONE, topics=[
            dict(name=topic, partitions=[dict(partition_index=partition, error_code=expected_error)])])
        assert coordinator_result.records() == expected_records

    def has_offset(self, group_id: str, topic: str, partition: int) -> bool:
        return (self.offset_metadata_manager.has_committed_offset(group_id, topic, partition)
                or self.offset_metadata_manager.has_pending_transactional_offsets(group_id, topic, partition))


# -- request and response helpers --------------------------------------------------------------------------------------

def _commit_request(group_id: str, partitions: list[OffsetCommitRequestPartition], topic: str = "bar",
                    member_id: str = "", generation_id_or_member_epoch: int = -1,
                    group_instance_id: str | None = None) -> OffsetCommitRequest:
    """An OffsetCommitRequestData with Kafka's defaults for what the case leaves unset."""
    return OffsetCommitRequest(
        group_id=group_id, generation_id_or_member_epoch=generation_id_or_member_epoch, member_id=member_id,
        group_instance_id=group_instance_id,
        topics=(OffsetCommitRequestTopic(name=topic, partitions=tuple(partitions)),))


def _commit_partition(partition_index: int, committed_offset: int, committed_leader_epoch: int = -1,
                      committed_metadata: str | None = "") -> OffsetCommitRequestPartition:
    return OffsetCommitRequestPartition(partition_index=partition_index, committed_offset=committed_offset,
                                        committed_leader_epoch=committed_leader_epoch,
                                        committed_metadata=committed_metadata)


def _commit_request_with_retention(group_id: str, member_id: str, generation_id: int, retention_time_ms: int,
                                   partitions: list[tuple[int, int]]) -> OffsetCommitRequestV4:
    """setRetentionTimeMs: the v4 request, the last version that carries a retention time."""
    return OffsetCommitRequestV4(
        group_id=group_id, generation_id_or_member_epoch=generation_id, member_id=member_id,
        retention_time=datetime.timedelta(milliseconds=retention_time_ms),
        topics=(OffsetCommitRequestTopicV4(name="bar", partitions=tuple(
            OffsetCommitRequestPartitionV4(partition_index=p, committed_offset=o, committed_metadata="")
            for p, o in partitions)),))


def _txn_commit_request(group_id: str, member_id: str, generation_id: int) -> TxnOffsetCommitRequest:
    """The TxnOffsetCommitRequestData every transactional case sends: bar-0 at 100, leader epoch 10."""
    return TxnOffsetCommitRequest(
        transactional_id="", group_id=group_id, producer_id=0, producer_epoch=0, generation_id=generation_id,
        member_id=member_id,
        topics=(TxnOffsetCommitRequestTopic(name="bar", partitions=(TxnOffsetCommitRequestPartition(
            partition_index=0, committed_offset=100, committed_leader_epoch=10, committed_metadata="metadata"),)),))


def _commit_response(partitions: list[tuple[int, Errors]], topic: str = "bar") -> dict[str, Any]:
    return dict(topics=[dict(name=topic, partitions=[dict(partition_index=p, error_code=e) for p, e in partitions])])


def _fetch_topics(name: str, partition_indexes: list[int]) -> OffsetFetchRequestTopics:
    return OffsetFetchRequestTopics(name=name, partition_indexes=tuple(partition_indexes))


def _fetch_response_topic(name: str, partitions: list[dict[str, Any]]) -> dict[str, Any]:
    return dict(name=name, partitions=partitions)


def mk_offset_partition_response(partition: int, offset: int, leader_epoch: int, metadata: str) -> dict[str, Any]:
    return dict(partition_index=partition, committed_offset=offset, committed_leader_epoch=leader_epoch,
                metadata=metadata, error_code=Errors.NONE)


def mk_invalid_offset_partition_response(partition: int) -> dict[str, Any]:
    return dict(partition_index=partition, committed_offset=INVALID_OFFSET, committed_leader_epoch=-1, metadata="",
                error_code=Errors.NONE)


def mk_offset_partition_error_response(partition: int, error: Errors) -> dict[str, Any]:
    """Kafka's mkOffsetPartitionResponse(partition, error)."""
    return dict(partition_index=partition, error_code=error, committed_offset=INVALID_OFFSET,
                committed_leader_epoch=-1, metadata="")


def _canonical(item: Any) -> str:
    """A text of the item that does not depend on the order of its dicts' keys."""
    if isinstance(item, dict):
        return "{" + ", ".join(f"{k!r}: {_canonical(v)}" for k, v in sorted(item.items())) + "}"
    if isinstance(item, list):
        return "[" + ", ".join(_canonical(v) for v in item) + "]"
    return repr(item)


def _unordered(items: list[Any]) -> Counter[str]:
    """A multiset of the items: for the lists whose order in Kafka is its hash order (module docstring)."""
    return Counter(_canonical(item) for item in items)


def mk_generic_member(member_id: str, group_instance_id: str | None) -> ClassicGroupMember:
    return ClassicGroupMember(member_id, group_instance_id, "client-id", "host", 5000, 5000, "consumer",
                              [JoinGroupRequestProtocol(name="range", metadata=b"")])


def _classic_group_in_generation_one(context: OffsetMetadataManagerTestContext, member: ClassicGroupMember,
                                     stable: bool) -> ClassicGroup:
    """The classic group "foo" with one member, moved to generation 1 (and to Stable if asked)."""
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)
    group.add(member)
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.init_next_generation()
    assert group.generation_id() == 1
    if stable:
        group.transition_to(ClassicGroupState.STABLE)
    return group


def _consumer_member(member_id: str, epoch: int | None = None, classic: bool = False) -> ConsumerGroupMember:
    builder = ConsumerGroupMember.Builder(member_id)
    if epoch is not None:
        builder.set_member_epoch(epoch).set_previous_member_epoch(epoch)
    if classic:
        builder.set_classic_member_metadata(ClassicMemberMetadata())
    return builder.build()


def _context() -> OffsetMetadataManagerTestContext:
    return OffsetMetadataManagerTestContext.Builder().build()


# -- OffsetCommit ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", range(ApiKeys.OFFSET_COMMIT.oldest_version,
                                          ApiKeys.OFFSET_COMMIT.latest_version + 1))
def test_offset_commit_with_unknown_group(version: int) -> None:
    context = _context()

    expected_type: type[Exception] = GroupIdNotFoundException if version >= 9 else IllegalGenerationException

    with pytest.raises(expected_type):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      generation_id_or_member_epoch=10), version)


def test_generic_group_offset_commit_with_dead_group() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)
    group.transition_to(ClassicGroupState.DEAD)

    with pytest.raises(CoordinatorNotAvailableException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      generation_id_or_member_epoch=10))


def test_generic_group_offset_commit_with_unknown_member_id() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)

    with pytest.raises(UnknownMemberIdException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      generation_id_or_member_epoch=10))


def test_generic_group_offset_commit_with_illegal_generation() -> None:
    context = _context()
    _classic_group_in_generation_one(context, mk_generic_member("member", "new-instance-id"), stable=False)

    with pytest.raises(IllegalGenerationException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      generation_id_or_member_epoch=10))


def test_generic_group_offset_commit_with_unknown_instance_id() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)
    group.add(mk_generic_member("member", None))

    with pytest.raises(UnknownMemberIdException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      group_instance_id="instanceid",
                                                      generation_id_or_member_epoch=10))


def test_generic_group_offset_commit_with_fenced_instance_id() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)
    group.add(mk_generic_member("member", "new-instance-id"))

    with pytest.raises(UnknownMemberIdException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      group_instance_id="old-instance-id",
                                                      generation_id_or_member_epoch=10))


def test_generic_group_offset_commit_while_in_completing_rebalance_state() -> None:
    context = _context()
    _classic_group_in_generation_one(context, mk_generic_member("member", "new-instance-id"), stable=False)

    with pytest.raises(RebalanceInProgressException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      generation_id_or_member_epoch=1))


def test_generic_group_offset_commit_without_member_id_and_generation() -> None:
    context = _context()
    _classic_group_in_generation_one(context, mk_generic_member("member", "new-instance-id"), stable=False)

    with pytest.raises(UnknownMemberIdException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)]))


def test_generic_group_offset_commit_with_retention_time() -> None:
    context = _context()
    _classic_group_in_generation_one(context, mk_generic_member("member", "new-instance-id"), stable=True)

    result = context.commit_offset_request(_commit_request_with_retention("foo", "member", 1, 1234, [(0, 100)]))

    assert result.response() == _commit_response([(0, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 0,
        OffsetAndMetadata(100, None, "", context.time.milliseconds(), context.time.milliseconds() + 1234),
        MetadataImage.EMPTY.features.metadata_version)]


def test_generic_group_offset_commit_maintains_session() -> None:
    context = _context()
    member = mk_generic_member("member", None)
    group = _classic_group_in_generation_one(context, member, stable=True)

    # the session timeout the group would have scheduled on becoming stable
    context.group_metadata_manager.reschedule_classic_group_member_heartbeat(group, member)

    assert context.sleep(5000 // 2) == []

    # the commit counts as a heartbeat
    context.commit_offset_request(_commit_request_with_retention("foo", "member", 1, 1234, [(0, 100)]))

    assert context.sleep(5000 // 2) == []

    # a whole session without a heartbeat: the member goes
    timeouts = context.sleep(5000 // 2)
    assert len(timeouts) == 1
    assert not group.has_member(member.member_id())


def test_simple_group_offset_commit() -> None:
    context = _context()

    result = context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)]))

    assert result.response() == _commit_response([(0, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 0, OffsetAndMetadata(100, None, "", context.time.milliseconds(), None),
        MetadataImage.EMPTY.features.metadata_version)]

    # the simple (classic) group now exists
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", False)
    assert group is not None
    assert group.group_id() == "foo"


def test_simple_group_offset_commit_with_instance_id() -> None:
    context = _context()

    # the instance id is ignored
    result = context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)],
                                                           group_instance_id="instance-id"))

    assert result.response() == _commit_response([(0, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 0, OffsetAndMetadata(100, None, "", context.time.milliseconds(), None),
        MetadataImage.EMPTY.features.metadata_version)]


def test_consumer_group_offset_commit_with_unknown_member_id() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)

    with pytest.raises(UnknownMemberIdException):
        context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                                                      generation_id_or_member_epoch=10))


def test_consumer_group_offset_commit_with_stale_member_epoch() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    group.update_member(_consumer_member("member", 10))

    request = _commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                              generation_id_or_member_epoch=9)

    # a smaller epoch, then a larger one
    with pytest.raises(StaleMemberEpochException):
        context.commit_offset_request(request)

    request = dataclasses.replace(request, generation_id_or_member_epoch=11)
    with pytest.raises(StaleMemberEpochException):
        context.commit_offset_request(request)


def test_consumer_group_offset_commit_with_illegal_generation_id() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    group.update_member(_consumer_member("member", 10, classic=True))

    request = _commit_request("foo", [_commit_partition(0, 100)], member_id="member",
                              generation_id_or_member_epoch=9)

    with pytest.raises(IllegalGenerationException):
        context.commit_offset_request(request)

    request = dataclasses.replace(request, generation_id_or_member_epoch=11)
    with pytest.raises(IllegalGenerationException):
        context.commit_offset_request(request)


def test_consumer_group_offset_commit_from_admin_client() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)

    result = context.commit_offset_request(_commit_request("foo", [_commit_partition(0, 100)]))

    assert result.response() == _commit_response([(0, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 0, OffsetAndMetadata(100, None, "", context.time.milliseconds(), None),
        MetadataImage.EMPTY.features.metadata_version)]


def test_consumer_group_offset_commit() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    group.update_member(_consumer_member("member", 10))

    result = context.commit_offset_request(_commit_request(
        "foo", [_commit_partition(0, 100, committed_leader_epoch=10, committed_metadata="metadata")],
        member_id="member", generation_id_or_member_epoch=10))

    assert result.response() == _commit_response([(0, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 0, OffsetAndMetadata(100, 10, "metadata", context.time.milliseconds(), None),
        MetadataImage.EMPTY.features.metadata_version)]


def test_consumer_group_offset_commit_with_offset_metadata_too_large() -> None:
    context = OffsetMetadataManagerTestContext.Builder().with_offset_metadata_max_size(5).build()

    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    group.update_member(_consumer_member("member", 10))

    result = context.commit_offset_request(_commit_request(
        "foo",
        [_commit_partition(0, 100, committed_leader_epoch=10, committed_metadata="toolarge"),
         _commit_partition(1, 100, committed_leader_epoch=10, committed_metadata="small")],
        member_id="member", generation_id_or_member_epoch=10))

    assert result.response() == _commit_response([(0, Errors.OFFSET_METADATA_TOO_LARGE), (1, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 1, OffsetAndMetadata(100, 10, "small", context.time.milliseconds(), None),
        MetadataImage.EMPTY.features.metadata_version)]


# -- TxnOffsetCommit ---------------------------------------------------------------------------------------------------

def test_consumer_group_transactional_offset_commit() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    group.update_member(_consumer_member("member", 10))

    result = context.commit_transactional_offset(_txn_commit_request("foo", "member", 10))

    assert result.response() == _commit_response([(0, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 0, OffsetAndMetadata(100, 10, "metadata", context.time.milliseconds(), None),
        MetadataImage.EMPTY.features.metadata_version)]


def test_consumer_group_transactional_offset_commit_with_unknown_group_id() -> None:
    context = _context()

    with pytest.raises(IllegalGenerationException):
        context.commit_transactional_offset(_txn_commit_request("foo", "member", 10))


def test_consumer_group_transactional_offset_commit_with_unknown_member_id() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)

    with pytest.raises(UnknownMemberIdException):
        context.commit_transactional_offset(_txn_commit_request("foo", "member", 10))


def test_consumer_group_transactional_offset_commit_with_stale_member_epoch() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    group.update_member(_consumer_member("member", 10))

    with pytest.raises(IllegalGenerationException):
        context.commit_transactional_offset(_txn_commit_request("foo", "member", 100))


def test_generic_group_transactional_offset_commit() -> None:
    context = _context()
    _classic_group_in_generation_one(context, mk_generic_member("member", None), stable=True)

    result = context.commit_transactional_offset(_txn_commit_request("foo", "member", 1))

    assert result.response() == _commit_response([(0, Errors.NONE)])
    assert result.records() == [new_offset_commit_record(
        "foo", "bar", 0, OffsetAndMetadata(100, 10, "metadata", context.time.milliseconds(), None),
        MetadataImage.EMPTY.features.metadata_version)]


def test_generic_group_transactional_offset_commit_with_unknown_group_id() -> None:
    context = _context()

    with pytest.raises(IllegalGenerationException):
        context.commit_transactional_offset(_txn_commit_request("foo", "member", 10))


def test_generic_group_transactional_offset_commit_with_unknown_member_id() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)

    with pytest.raises(UnknownMemberIdException):
        context.commit_transactional_offset(_txn_commit_request("foo", "member", 10))


def test_generic_group_transactional_offset_commit_with_illegal_generation_id() -> None:
    context = _context()
    _classic_group_in_generation_one(context, mk_generic_member("member", None), stable=True)

    with pytest.raises(IllegalGenerationException):
        context.commit_transactional_offset(_txn_commit_request("foo", "member", 100))


# -- OffsetFetch -------------------------------------------------------------------------------------------------------

_FOO_01_BAR_0 = [_fetch_topics("foo", [0, 1]), _fetch_topics("bar", [0])]
_FOO_01_BAR_01 = [_fetch_topics("foo", [0, 1]), _fetch_topics("bar", [0, 1])]


def test_generic_group_fetch_offsets_with_dead_group() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group", True)
    group.transition_to(ClassicGroupState.DEAD)

    expected_response = [
        _fetch_response_topic("foo", [mk_invalid_offset_partition_response(0),
                                      mk_invalid_offset_partition_response(1)]),
        _fetch_response_topic("bar", [mk_invalid_offset_partition_response(0)]),
    ]

    assert context.fetch_offsets("group", _FOO_01_BAR_0, LONG_MAX) == expected_response


def test_fetch_offsets_with_unknown_group() -> None:
    context = _context()

    expected_response = [
        _fetch_response_topic("foo", [mk_invalid_offset_partition_response(0),
                                      mk_invalid_offset_partition_response(1)]),
        _fetch_response_topic("bar", [mk_invalid_offset_partition_response(0)]),
    ]

    assert context.fetch_offsets("group", _FOO_01_BAR_0, LONG_MAX) == expected_response


def test_fetch_offsets_at_different_committed_offset() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)

    assert context.last_written_offset == 0
    context.commit_offset("group", "foo", 0, 100, 1)
    assert context.last_written_offset == 1
    context.commit_offset("group", "foo", 1, 110, 1)
    assert context.last_written_offset == 2
    context.commit_offset("group", "bar", 0, 200, 1)
    assert context.last_written_offset == 3
    context.commit_offset("group", "foo", 1, 111, 2)
    assert context.last_written_offset == 4
    context.commit_offset("group", "bar", 1, 210, 2)
    assert context.last_written_offset == 5

    invalid = mk_invalid_offset_partition_response
    valid = mk_offset_partition_response

    assert context.fetch_offsets("group", _FOO_01_BAR_01, 0) == [
        _fetch_response_topic("foo", [invalid(0), invalid(1)]),
        _fetch_response_topic("bar", [invalid(0), invalid(1)]),
    ]
    assert context.fetch_offsets("group", _FOO_01_BAR_01, 1) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), invalid(1)]),
        _fetch_response_topic("bar", [invalid(0), invalid(1)]),
    ]
    assert context.fetch_offsets("group", _FOO_01_BAR_01, 2) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 110, 1, "metadata")]),
        _fetch_response_topic("bar", [invalid(0), invalid(1)]),
    ]
    assert context.fetch_offsets("group", _FOO_01_BAR_01, 3) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 110, 1, "metadata")]),
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata"), invalid(1)]),
    ]
    assert context.fetch_offsets("group", _FOO_01_BAR_01, 4) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 111, 2, "metadata")]),
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata"), invalid(1)]),
    ]
    assert context.fetch_offsets("group", _FOO_01_BAR_01, 5) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 111, 2, "metadata")]),
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata"), valid(1, 210, 2, "metadata")]),
    ]
    assert context.fetch_offsets("group", _FOO_01_BAR_01, LONG_MAX) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 111, 2, "metadata")]),
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata"), valid(1, 210, 2, "metadata")]),
    ]


def test_fetch_offsets_with_pending_transactional_offsets() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)

    context.commit_offset("group", "foo", 0, 100, 1)
    context.commit_offset("group", "foo", 1, 110, 1)
    context.commit_offset("group", "bar", 0, 200, 1)

    context.commit()

    assert context.last_written_offset == 3
    assert context.last_committed_offset == 3

    now = context.time.milliseconds()
    context.commit_offset("group", "foo", 1, 111, 1, now, producer_id=10)
    context.commit_offset("group", "bar", 0, 201, 1, now, producer_id=10)
    # bar-1 has no committed offset yet: it is unstable all the same
    context.commit_offset("group", "bar", 1, 211, 1, now, producer_id=10)

    unstable = Errors.UNSTABLE_OFFSET_COMMIT
    valid = mk_offset_partition_response

    # require_stable (the latest state): foo-0's offset, the others unstable
    assert context.fetch_offsets("group", _FOO_01_BAR_01, LONG_MAX) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), mk_offset_partition_error_response(1, unstable)]),
        _fetch_response_topic("bar", [mk_offset_partition_error_response(0, unstable),
                                      mk_offset_partition_error_response(1, unstable)]),
    ]

    # at the committed offset: what was committed then, bar-1 has nothing
    assert context.fetch_offsets("group", _FOO_01_BAR_01, context.last_committed_offset) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 110, 1, "metadata")]),
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata"), mk_invalid_offset_partition_response(1)]),
    ]

    context.replay_end_transaction_marker(10, TransactionResult.COMMIT)

    assert context.fetch_offsets("group", _FOO_01_BAR_01, LONG_MAX) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 111, 1, "metadata")]),
        _fetch_response_topic("bar", [valid(0, 201, 1, "metadata"), valid(1, 211, 1, "metadata")]),
    ]


def test_generic_group_fetch_all_offsets_with_dead_group() -> None:
    context = _context()

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group", True)
    group.transition_to(ClassicGroupState.DEAD)

    assert context.fetch_all_offsets("group", LONG_MAX) == []


def test_fetch_all_offsets_with_unknown_group() -> None:
    context = _context()
    assert context.fetch_all_offsets("group", LONG_MAX) == []


def test_fetch_all_offsets_at_different_committed_offset() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)

    assert context.last_written_offset == 0
    context.commit_offset("group", "foo", 0, 100, 1)
    assert context.last_written_offset == 1
    context.commit_offset("group", "foo", 1, 110, 1)
    assert context.last_written_offset == 2
    context.commit_offset("group", "bar", 0, 200, 1)
    assert context.last_written_offset == 3
    context.commit_offset("group", "foo", 1, 111, 2)
    assert context.last_written_offset == 4
    context.commit_offset("group", "bar", 1, 210, 2)
    assert context.last_written_offset == 5

    valid = mk_offset_partition_response

    assert context.fetch_all_offsets("group", 0) == []

    assert context.fetch_all_offsets("group", 1) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata")]),
    ]
    assert context.fetch_all_offsets("group", 2) == [
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 110, 1, "metadata")]),
    ]
    assert _unordered(context.fetch_all_offsets("group", 3)) == _unordered([
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata")]),
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 110, 1, "metadata")]),
    ])
    assert _unordered(context.fetch_all_offsets("group", 4)) == _unordered([
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata")]),
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 111, 2, "metadata")]),
    ])
    assert _unordered(context.fetch_all_offsets("group", LONG_MAX)) == _unordered([
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata"), valid(1, 210, 2, "metadata")]),
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 111, 2, "metadata")]),
    ])


def test_fetch_all_offsets_with_pending_transactional_offsets() -> None:
    context = _context()

    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)

    context.commit_offset("group", "foo", 0, 100, 1)
    context.commit_offset("group", "foo", 1, 110, 1)
    context.commit_offset("group", "bar", 0, 200, 1)

    context.commit()

    assert context.last_written_offset == 3
    assert context.last_committed_offset == 3

    now = context.time.milliseconds()
    context.commit_offset("group", "foo", 1, 111, 1, now, producer_id=10)
    context.commit_offset("group", "bar", 0, 201, 1, now, producer_id=10)
    # bar-1 has no committed offset: it is not listed until the transaction commits
    context.commit_offset("group", "bar", 1, 211, 1, now, producer_id=10)

    unstable = Errors.UNSTABLE_OFFSET_COMMIT
    valid = mk_offset_partition_response

    assert _unordered(context.fetch_all_offsets("group", LONG_MAX)) == _unordered([
        _fetch_response_topic("bar", [mk_offset_partition_error_response(0, unstable)]),
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), mk_offset_partition_error_response(1, unstable)]),
    ])

    assert _unordered(context.fetch_all_offsets("group", context.last_committed_offset)) == _unordered([
        _fetch_response_topic("bar", [valid(0, 200, 1, "metadata")]),
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 110, 1, "metadata")]),
    ])

    context.replay_end_transaction_marker(10, TransactionResult.COMMIT)

    assert _unordered(context.fetch_all_offsets("group", LONG_MAX)) == _unordered([
        _fetch_response_topic("bar", [valid(0, 201, 1, "metadata"), valid(1, 211, 1, "metadata")]),
        _fetch_response_topic("foo", [valid(0, 100, 1, "metadata"), valid(1, 111, 1, "metadata")]),
    ])


_FOO_0 = [_fetch_topics("foo", [0])]


def test_consumer_group_offset_fetch_with_member_id_and_epoch() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)
    group.update_member(ConsumerGroupMember.Builder("member").build())
    context.commit_offset("group", "foo", 0, 100, 1)

    expected = [_fetch_response_topic("foo", [mk_offset_partition_response(0, 100, 1, "metadata")])]
    assert context.fetch_offsets("group", _FOO_0, LONG_MAX, "member", 0) == expected
    assert context.fetch_all_offsets("group", LONG_MAX, "member", 0) == expected


def test_consumer_group_offset_fetch_from_admin_client() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)
    group.get_or_maybe_create_member("member", True)
    context.commit_offset("group", "foo", 0, 100, 1)

    expected = [_fetch_response_topic("foo", [mk_offset_partition_response(0, 100, 1, "metadata")])]
    assert context.fetch_offsets("group", _FOO_0, LONG_MAX) == expected
    assert context.fetch_all_offsets("group", LONG_MAX) == expected


def test_consumer_group_offset_fetch_with_unknown_member_id() -> None:
    context = _context()
    context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)

    with pytest.raises(UnknownMemberIdException):
        context.fetch_offsets("group", _FOO_0, LONG_MAX, "", 0)
    with pytest.raises(UnknownMemberIdException):
        context.fetch_offsets("group", _FOO_0, LONG_MAX, "member", 0)

    with pytest.raises(UnknownMemberIdException):
        context.fetch_all_offsets("group", LONG_MAX, "", 0)
    with pytest.raises(UnknownMemberIdException):
        context.fetch_all_offsets("group", LONG_MAX, "member", 0)


def test_consumer_group_offset_fetch_with_stale_member_epoch() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)
    group.update_member(ConsumerGroupMember.Builder("member").build())

    with pytest.raises(StaleMemberEpochException):
        context.fetch_offsets("group", _FOO_0, LONG_MAX, "member", 10)
    with pytest.raises(StaleMemberEpochException):
        context.fetch_all_offsets("group", LONG_MAX, "member", 10)


def test_consumer_group_offset_fetch_with_illegal_generation_id() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("group", True)
    group.update_member(_consumer_member("member", classic=True))

    with pytest.raises(IllegalGenerationException):
        context.fetch_offsets("group", _FOO_0, LONG_MAX, "member", 10)
    with pytest.raises(IllegalGenerationException):
        context.fetch_all_offsets("group", LONG_MAX, "member", 10)


# -- OffsetDelete, DeleteGroups ----------------------------------------------------------------------------------------

def test_generic_group_offset_delete() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)
    context.commit_offset("foo", "bar", 0, 100, 0)
    group.set_subscribed_topics(set())
    context.test_offset_delete_with("foo", "bar", 0, Errors.NONE)
    assert not context.has_offset("foo", "bar", 0)


def test_generic_group_offset_delete_with_errors() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)
    group.set_subscribed_topics({"bar"})
    context.commit_offset("foo", "bar", 0, 100, 0)

    # a partition without an offset; then a topic the group subscribes to
    context.test_offset_delete_with("foo", "bar1", 0, Errors.NONE)
    context.test_offset_delete_with("foo", "bar", 0, Errors.GROUP_SUBSCRIBED_TO_TOPIC)


def test_generic_group_offset_delete_with_pending_transactional_offsets() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("foo", True)
    context.commit_offset("foo", "bar", 0, 100, 0, context.time.milliseconds(), producer_id=10)
    group.set_subscribed_topics(set())
    context.test_offset_delete_with("foo", "bar", 0, Errors.NONE)
    assert not context.has_offset("foo", "bar", 0)


def test_consumer_group_offset_delete() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    context.commit_offset("foo", "bar", 0, 100, 0)
    assert not group.is_subscribed_to_topic("bar")
    context.test_offset_delete_with("foo", "bar", 0, Errors.NONE)


def test_consumer_group_offset_delete_with_errors() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    image = MetadataImageBuilder().add_topic(uuid.uuid4(), "foo", 1).add_racks().build()
    member1 = ConsumerGroupMember.Builder("member1").set_subscribed_topic_names(["bar"]).build()
    group.compute_subscription_metadata(group.compute_subscribed_topic_names(None, member1), image.topics,
                                        image.cluster)
    group.update_member(member1)
    context.commit_offset("foo", "bar", 0, 100, 0)
    assert group.is_subscribed_to_topic("bar")

    context.test_offset_delete_with("foo", "bar1", 0, Errors.NONE)
    context.test_offset_delete_with("foo", "bar", 0, Errors.GROUP_SUBSCRIBED_TO_TOPIC)


def test_consumer_group_offset_delete_with_pending_transactional_offsets() -> None:
    context = _context()
    group = context.group_metadata_manager.get_or_maybe_create_persisted_consumer_group("foo", True)
    context.commit_offset("foo", "bar", 0, 100, 0, context.time.milliseconds(), producer_id=10)
    assert not group.is_subscribed_to_topic("bar")
    context.test_offset_delete_with("foo", "bar", 0, Errors.NONE)
    assert not context.has_offset("foo", "bar", 0)


@pytest.mark.parametrize("group_type", [Group.GroupType.CLASSIC, Group.GroupType.CONSUMER])
def test_delete_group_all_offsets(group_type: Group.GroupType) -> None:
    context = _context()
    context.get_or_maybe_create_group(group_type, "foo")

    context.commit_offset("foo", "bar-0", 0, 100, 0)
    context.commit_offset("foo", "bar-0", 1, 100, 0)
    context.commit_offset("foo", "bar-1", 0, 100, 0)

    expected_records = [
        new_offset_commit_tombstone_record("foo", "bar-1", 0),
        new_offset_commit_tombstone_record("foo", "bar-0", 0),
        new_offset_commit_tombstone_record("foo", "bar-0", 1),
    ]

    records: list[CoordinatorRecord] = []
    num_delete_offsets = context.delete_all_offsets("foo", records)

    assert _unordered(records) == _unordered(expected_records)
    assert num_delete_offsets == 3


@pytest.mark.parametrize("group_type", [Group.GroupType.CLASSIC, Group.GroupType.CONSUMER])
def test_delete_group_all_offsets_with_pending_transactional_offsets(group_type: Group.GroupType) -> None:
    context = _context()
    context.get_or_maybe_create_group(group_type, "foo")

    context.commit_offset("foo", "bar-0", 0, 100, 0)
    context.commit_offset("foo", "bar-0", 1, 100, 0)
    context.commit_offset("foo", "bar-1", 0, 100, 0)

    context.commit_offset("foo", "bar-1", 0, 101, 0, context.time.milliseconds(), producer_id=10)
    context.commit_offset("foo", "bar-2", 0, 100, 0, context.time.milliseconds(), producer_id=10)

    expected_records = [
        new_offset_commit_tombstone_record("foo", "bar-1", 0),
        new_offset_commit_tombstone_record("foo", "bar-0", 0),
        new_offset_commit_tombstone_record("foo", "bar-0", 1),
        new_offset_commit_tombstone_record("foo", "bar-2", 0),
    ]

    records: list[CoordinatorRecord] = []
    num_delete_offsets = context.delete_all_offsets("foo", records)

    # the committed offsets' tombstones come first (in Kafka's hash order), the pending-only one last
    assert _unordered(records[:3]) == _unordered(expected_records[:3])
    assert records[3:] == expected_records[3:]
    assert num_delete_offsets == 4

    assert not context.has_offset("foo", "bar-0", 0)
    assert not context.has_offset("foo", "bar-0", 1)
    assert not context.has_offset("foo", "bar-1", 0)
    assert not context.has_offset("foo", "bar-2", 0)


# -- expiration --------------------------------------------------------------------------------------------------------

def test_cleanup_expired_offsets_group_has_no_offsets() -> None:
    context = _context()

    records: list[CoordinatorRecord] = []
    assert context.cleanup_expired_offsets("unknown-group-id", records)
    assert records == []


def _raise_group_id_not_found(group_id: str, *args: Any) -> Any:
    raise GroupIdNotFoundException(f"Group {group_id} not found.")


def test_cleanup_expired_offsets_group_does_not_exist() -> None:
    group_metadata_manager = mock.Mock()
    context = OffsetMetadataManagerTestContext.Builder().with_group_metadata_manager(group_metadata_manager).build()

    group_metadata_manager.group.side_effect = _raise_group_id_not_found
    context.commit_offset("unknown-group-id", "topic", 0, 100, 0)
    with pytest.raises(GroupIdNotFoundException):
        context.cleanup_expired_offsets("unknown-group-id", [])


def _mocked_group(subscribed: dict[str, bool]) -> mock.Mock:
    """Mockito's mock(Group.class) with offsetExpirationCondition and isSubscribedToTopic stubbed."""
    group = mock.Mock()
    group.offset_expiration_condition.return_value = OffsetExpirationConditionImpl(
        lambda offset_and_metadata: offset_and_metadata.commit_timestamp_ms)
    group.is_subscribed_to_topic.side_effect = lambda topic: subscribed.get(topic, False)
    return group


def test_cleanup_expired_offsets_empty_offset_expiration_condition() -> None:
    group_metadata_manager = mock.Mock()
    group = mock.Mock()

    context = OffsetMetadataManagerTestContext.Builder().with_group_metadata_manager(group_metadata_manager).build()

    context.commit_offset("group-id", "topic", 0, 100, 0)

    group_metadata_manager.group.return_value = group
    group.offset_expiration_condition.return_value = None

    records: list[CoordinatorRecord] = []
    assert not context.cleanup_expired_offsets("group-id", records)
    assert records == []


def test_cleanup_expired_offsets() -> None:
    group_metadata_manager = mock.Mock()
    subscribed = {"firstTopic": True, "secondTopic": False}
    group = _mocked_group(subscribed)

    context = (OffsetMetadataManagerTestContext.Builder()
               .with_group_metadata_manager(group_metadata_manager)
               .with_offsets_retention_minutes(1)
               .build())

    commit_timestamp = context.time.milliseconds()

    context.commit_offset("group-id", "firstTopic", 0, 100, 0, commit_timestamp)
    context.commit_offset("group-id", "secondTopic", 0, 100, 0, commit_timestamp)
    context.commit_offset("group-id", "secondTopic", 1, 100, 0, commit_timestamp + 500)

    context.time.sleep(60 * 1000)

    # firstTopic-0 stays (subscribed), secondTopic-0 expires, secondTopic-1 is 500 ms short of the retention
    expected_records = [new_offset_commit_tombstone_record("group-id", "secondTopic", 0)]

    group_metadata_manager.group.return_value = group

    records: list[CoordinatorRecord] = []
    assert not context.cleanup_expired_offsets("group-id", records)
    assert records == expected_records

    context.time.sleep(500)
    expected_records = [new_offset_commit_tombstone_record("group-id", "secondTopic", 1)]

    records = []
    assert not context.cleanup_expired_offsets("group-id", records)
    assert records == expected_records

    # two more commits, then everything expires
    subscribed["firstTopic"] = False
    context.commit_offset("group-id", "firstTopic", 1, 100, 0, commit_timestamp + 500)
    context.commit_offset("group-id", "secondTopic", 0, 101, 0, commit_timestamp + 500)

    expected_records = [
        new_offset_commit_tombstone_record("group-id", "firstTopic", 0),
        new_offset_commit_tombstone_record("group-id", "firstTopic", 1),
        new_offset_commit_tombstone_record("group-id", "secondTopic", 0),
    ]

    records = []
    assert context.cleanup_expired_offsets("group-id", records)
    assert records == expected_records


def test_cleanup_expired_offsets_with_pending_transactional_offsets() -> None:
    group_metadata_manager = mock.Mock()
    group = _mocked_group({"foo": False})

    context = (OffsetMetadataManagerTestContext.Builder()
               .with_group_metadata_manager(group_metadata_manager)
               .with_offsets_retention_minutes(1)
               .build())

    commit_timestamp = context.time.milliseconds()

    context.commit_offset("group-id", "foo", 0, 100, 0, commit_timestamp)
    context.commit_offset("group-id", "foo", 0, 101, 0, commit_timestamp + 500, producer_id=10)

    context.time.sleep(60 * 1000)

    group_metadata_manager.group.return_value = group

    # foo-0 has a pending transactional offset: it does not expire
    records: list[CoordinatorRecord] = []
    assert not context.cleanup_expired_offsets("group-id", records)
    assert records == []


# -- replay ------------------------------------------------------------------------------------------------------------

def verify_replay(context: OffsetMetadataManagerTestContext, group_id: str, topic: str, partition: int,
                  offset_and_metadata: OffsetAndMetadata) -> None:
    context.replay(new_offset_commit_record(group_id, topic, partition, offset_and_metadata,
                                            MetadataImage.EMPTY.features.metadata_version))

    assert context.offset_metadata_manager.offset(group_id, topic, partition) == offset_and_metadata


def verify_transactional_replay(context: OffsetMetadataManagerTestContext, producer_id: int, group_id: str,
                                topic: str, partition: int, offset_and_metadata: OffsetAndMetadata) -> None:
    context.replay(new_offset_commit_record(group_id, topic, partition, offset_and_metadata,
                                            MetadataImage.EMPTY.features.metadata_version), producer_id)

    assert context.offset_metadata_manager.pending_transactional_offset(
        producer_id, group_id, topic, partition) == offset_and_metadata


def test_replay() -> None:
    context = _context()
    now = context.time.milliseconds()

    verify_replay(context, "foo", "bar", 0, OffsetAndMetadata(0, 100, None, "small", now, None))
    verify_replay(context, "foo", "bar", 0, OffsetAndMetadata(1, 200, 10, "small", now, None))
    verify_replay(context, "foo", "bar", 1, OffsetAndMetadata(2, 200, 10, "small", now, None))
    verify_replay(context, "foo", "bar", 1, OffsetAndMetadata(3, 300, 10, "small", now, 12345))


def test_transactional_replay() -> None:
    context = _context()
    now = context.time.milliseconds()

    verify_transactional_replay(context, 5, "foo", "bar", 0, OffsetAndMetadata(0, 100, None, "small", now, None))
    verify_transactional_replay(context, 5, "foo", "bar", 1, OffsetAndMetadata(1, 101, None, "small", now, None))
    verify_transactional_replay(context, 5, "bar", "zar", 0, OffsetAndMetadata(2, 100, None, "small", now, None))
    verify_transactional_replay(context, 5, "bar", "zar", 1, OffsetAndMetadata(3, 101, None, "small", now, None))
    verify_transactional_replay(context, 6, "foo", "bar", 2, OffsetAndMetadata(4, 102, None, "small", now, None))
    verify_transactional_replay(context, 6, "foo", "bar", 3, OffsetAndMetadata(5, 102, None, "small", now, None))


def test_replay_with_tombstone_and_pending_transactional_offsets() -> None:
    context = _context()
    now = context.time.milliseconds()

    verify_replay(context, "foo", "bar", 0, OffsetAndMetadata(0, 100, None, "small", now, None))
    verify_transactional_replay(context, 10, "foo", "bar", 0, OffsetAndMetadata(1, 100, None, "small", now, None))
    verify_transactional_replay(context, 10, "foo", "bar", 1, OffsetAndMetadata(2, 100, None, "small", now, None))

    context.replay(new_offset_commit_tombstone_record("foo", "bar", 0))
    context.replay(new_offset_commit_tombstone_record("foo", "bar", 1))

    assert not context.has_offset("foo", "bar", 0)
    assert not context.has_offset("foo", "bar", 1)


def test_replay_transaction_end_marker_with_commit() -> None:
    context = _context()
    now = context.time.milliseconds()

    verify_replay(context, "foo", "bar", 0, OffsetAndMetadata(0, 99, None, "small", now, None))
    verify_transactional_replay(context, 5, "foo", "bar", 0, OffsetAndMetadata(1, 100, None, "small", now, None))
    verify_transactional_replay(context, 6, "foo", "bar", 1, OffsetAndMetadata(2, 200, None, "small", now, None))

    # an unknown producer id is ignored
    context.replay_end_transaction_marker(1, TransactionResult.COMMIT)

    context.replay_end_transaction_marker(5, TransactionResult.COMMIT)

    # the pending offset moved to the main store
    assert context.offset_metadata_manager.pending_transactional_offset(5, "foo", "bar", 0) is None
    assert (context.offset_metadata_manager.offset("foo", "bar", 0)
            == OffsetAndMetadata(1, 100, None, "small", now, None))

    context.replay_end_transaction_marker(6, TransactionResult.ABORT)

    # an aborted one is gone from both
    assert context.offset_metadata_manager.pending_transactional_offset(6, "foo", "bar", 1) is None
    assert context.offset_metadata_manager.offset("foo", "bar", 1) is None


def test_replay_transaction_end_marker_keeps_the_most_recent_committed_offset() -> None:
    context = _context()
    now = context.time.milliseconds()

    verify_transactional_replay(context, 5, "foo", "bar", 0, OffsetAndMetadata(0, 100, None, "small", now, None))
    verify_replay(context, "foo", "bar", 0, OffsetAndMetadata(1, 101, None, "small", now, None))

    context.replay_end_transaction_marker(5, TransactionResult.COMMIT)

    # the plain commit was written after the transactional one: it stays
    assert context.offset_metadata_manager.pending_transactional_offset(5, "foo", "bar", 0) is None
    assert (context.offset_metadata_manager.offset("foo", "bar", 0)
            == OffsetAndMetadata(1, 101, None, "small", now, None))


def test_on_partitions_deleted() -> None:
    context = _context()
    now = context.time.milliseconds()

    context.commit_offset("grp-0", "foo", 1, 100, 1, now)
    context.commit_offset("grp-0", "foo", 2, 200, 1, now)
    context.commit_offset("grp-0", "foo", 3, 300, 1, now)

    context.commit_offset("grp-1", "bar", 1, 100, 1, now)
    context.commit_offset("grp-1", "bar", 2, 200, 1, now)
    context.commit_offset("grp-1", "bar", 3, 300, 1, now)

    context.commit_offset("grp-2", "foo", 1, 100, 1, now, producer_id=100)
    context.commit_offset("grp-2", "foo", 2, 200, 1, now, producer_id=100)
    context.commit_offset("grp-2", "foo", 3, 300, 1, now, producer_id=100)

    records = context.delete_partitions([
        TopicPartition("foo", 1),
        TopicPartition("foo", 2),
        TopicPartition("foo", 3),
        TopicPartition("bar", 1),
    ])

    expected_records = [
        new_offset_commit_tombstone_record("grp-0", "foo", 1),
        new_offset_commit_tombstone_record("grp-0", "foo", 2),
        new_offset_commit_tombstone_record("grp-0", "foo", 3),
        new_offset_commit_tombstone_record("grp-1", "bar", 1),
        new_offset_commit_tombstone_record("grp-2", "foo", 1),
        new_offset_commit_tombstone_record("grp-2", "foo", 2),
        new_offset_commit_tombstone_record("grp-2", "foo", 3),
    ]

    assert set(records) == set(expected_records)

    assert not context.has_offset("grp-0", "foo", 1)
    assert not context.has_offset("grp-0", "foo", 2)
    assert not context.has_offset("grp-0", "foo", 3)
    assert not context.has_offset("grp-1", "bar", 1)
    assert not context.has_offset("grp-2", "foo", 1)
    assert not context.has_offset("grp-2", "foo", 2)
    assert not context.has_offset("grp-2", "foo", 3)
