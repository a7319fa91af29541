"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinatorShard.java (Kafka 3.9).

One __consumer_offsets partition's state machine, as the coordinator runtime drives it: requests go to the group
metadata manager (groups) or to the offset metadata manager (offsets), replayed records are dispatched to them by the
key's version, and a timer expires offsets and empty groups every offsets.retention.check.interval.ms.

Left out: share groups (KIP-932; the records of key versions 9 to 11 are unknown here, replaying them fails as any
unknown type does, and share_group_heartbeat is handed on as Kafka does to a manager that has no share groups) and
the metrics: the port has no metrics registry, so the coordinator metrics and their shard
are whatever the runtime hands over (used only where present).
"""

from __future__ import annotations

from typing import Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import ApiException, IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.range_assignor import RangeAssignor
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.uniform_assignor import UniformAssignor
from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
    ConsumerGroupMigrationPolicy,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard import CoordinatorShard
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard_builder import (
    CoordinatorShardBuilder,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_timer import CoordinatorTimer
from kafka_edu.v3_9.group_coordinator.coordinator.group.utils import message_or_null
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
)
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry

_LOGGER = "org.apache.kafka.coordinator.group.GroupCoordinatorShard"

# the timer key of the periodic offsets and groups expiration
GROUP_EXPIRATION_KEY = "expire-group-metadata"

# the assignors the port has, by the Java class names group.consumer.assignors lists
_ASSIGNOR_CLASSES: dict[str, type[ConsumerGroupPartitionAssignor]] = {
    "org.apache.kafka.coordinator.group.assignor.UniformAssignor": UniformAssignor,
    "org.apache.kafka.coordinator.group.assignor.RangeAssignor": RangeAssignor,
}


def _consumer_group_assignors(config: GroupCoordinatorConfig) -> list[ConsumerGroupPartitionAssignor]:
    """Kafka's config hands out assignor instances (Utils.newInstance of each class listed); the port's config keeps
    the class names, so they are instantiated here. An assignor already built is taken as it is."""
    assignors: list[ConsumerGroupPartitionAssignor] = []
    for assignor in config.consumer_group_assignors():
        if isinstance(assignor, str):
            klass = _ASSIGNOR_CLASSES.get(assignor)
            if klass is None:
                raise IllegalArgumentException(f"Unknown consumer group assignor class {assignor}")
            assignor = klass()
        assignors.append(assignor)
    return assignors


class GroupCoordinatorShard(CoordinatorShard[CoordinatorRecord]):

    class Builder(CoordinatorShardBuilder["GroupCoordinatorShard", CoordinatorRecord]):
        def __init__(self, config: GroupCoordinatorConfig) -> None:
            self._config = config
            self._log_context: str | None = None
            self._snapshot_registry: SnapshotRegistry | None = None
            self._time: Time | None = None
            self._timer: CoordinatorTimer[None, CoordinatorRecord] | None = None
            self._coordinator_metrics: Any = None
            self._topic_partition: TopicPartition | None = None

        def with_log_context(self, log_context: str) -> GroupCoordinatorShard.Builder:
            self._log_context = log_context
            return self

        def with_time(self, time: Time) -> GroupCoordinatorShard.Builder:
            self._time = time
            return self

        def with_timer(self, timer: CoordinatorTimer[None, CoordinatorRecord]) -> GroupCoordinatorShard.Builder:
            self._timer = timer
            return self

        def with_coordinator_metrics(self, coordinator_metrics: Any) -> GroupCoordinatorShard.Builder:
            self._coordinator_metrics = coordinator_metrics
            return self

        def with_topic_partition(self, topic_partition: TopicPartition) -> GroupCoordinatorShard.Builder:
            self._topic_partition = topic_partition
            return self

        def with_snapshot_registry(self, snapshot_registry: SnapshotRegistry) -> GroupCoordinatorShard.Builder:
            self._snapshot_registry = snapshot_registry
            return self

        def build(self) -> GroupCoordinatorShard:
            # the managers are imported here: they import the group model, which must not import this module back
            from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import (
                GroupMetadataManager,
            )
            from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_metadata_manager import (
                OffsetMetadataManager,
            )

            if self._log_context is None:
                self._log_context = ""
            if self._config is None:
                raise IllegalArgumentException("Config must be set.")
            if self._snapshot_registry is None:
                raise IllegalArgumentException("SnapshotRegistry must be set.")
            if self._time is None:
                raise IllegalArgumentException("Time must be set.")
            if self._timer is None:
                raise IllegalArgumentException("Timer must be set.")
            # Kafka also wants a GroupCoordinatorMetrics here; the port has none (module docstring)
            if self._coordinator_metrics is None:
                raise IllegalArgumentException(
                    "CoordinatorMetrics must be set and be of type GroupCoordinatorMetrics.")
            if self._topic_partition is None:
                raise IllegalArgumentException("TopicPartition must be set.")

            new_metrics_shard = getattr(self._coordinator_metrics, "new_metrics_shard", None)
            metrics_shard = (new_metrics_shard(self._snapshot_registry, self._topic_partition)
                             if new_metrics_shard is not None else None)

            config = self._config
            group_metadata_manager = (
                GroupMetadataManager.Builder()
                .with_log_context(self._log_context)
                .with_snapshot_registry(self._snapshot_registry)
                .with_time(self._time)
                .with_timer(self._timer)
                .with_consumer_group_assignors(_consumer_group_assignors(config))
                .with_consumer_group_max_size(config.consumer_group_max_size())
                .with_consumer_group_session_timeout(config.consumer_group_session_timeout_ms())
                .with_consumer_group_heartbeat_interval(config.consumer_group_heartbeat_interval_ms())
                .with_classic_group_max_size(config.classic_group_max_size())
                .with_classic_group_initial_rebalance_delay_ms(config.classic_group_initial_rebalance_delay_ms())
                .with_classic_group_new_member_join_timeout_ms(config.classic_group_new_member_join_timeout_ms())
                .with_classic_group_min_session_timeout_ms(config.classic_group_min_session_timeout_ms())
                .with_classic_group_max_session_timeout_ms(config.classic_group_max_session_timeout_ms())
                .with_consumer_group_migration_policy(
                    ConsumerGroupMigrationPolicy.parse(config.consumer_group_migration_policy()))
                .build())

            offset_metadata_manager = (
                OffsetMetadataManager.Builder()
                .with_log_context(self._log_context)
                .with_snapshot_registry(self._snapshot_registry)
                .with_time(self._time)
                .with_group_metadata_manager(group_metadata_manager)
                .with_group_coordinator_config(config)
                .build())

            return GroupCoordinatorShard(self._log_context, group_metadata_manager, offset_metadata_manager,
                                         self._time, self._timer, config, self._coordinator_metrics, metrics_shard)

    def __init__(self, log_context: str, group_metadata_manager: Any, offset_metadata_manager: Any, time: Time,
                 timer: CoordinatorTimer[None, CoordinatorRecord], config: GroupCoordinatorConfig,
                 coordinator_metrics: Any, metrics_shard: Any) -> None:
        self.log = Logging(_LOGGER, log_context)
        self._group_metadata_manager = group_metadata_manager
        self._offset_metadata_manager = offset_metadata_manager
        self._time = time
        self._timer = timer
        self._config = config
        self._coordinator_metrics = coordinator_metrics
        self._metrics_shard = metrics_shard

    # -- the APIs: each is one manager's ---------------------------------------------------------------------------

    def consumer_group_heartbeat(self, context: RequestContext, request: Any) -> CoordinatorResult[Any, Any]:
        return self._group_metadata_manager.consumer_group_heartbeat(context, request)

    def share_group_heartbeat(self, context: RequestContext, request: Any) -> CoordinatorResult[Any, Any]:
        return self._group_metadata_manager.share_group_heartbeat(context, request)

    def classic_group_join(self, context: RequestContext, request: Any,
                           response_future: CompletableFuture[Any]) -> CoordinatorResult[None, Any]:
        return self._group_metadata_manager.classic_group_join(context, request, response_future)

    def classic_group_sync(self, context: RequestContext, request: Any,
                           response_future: CompletableFuture[Any]) -> CoordinatorResult[None, Any]:
        return self._group_metadata_manager.classic_group_sync(context, request, response_future)

    def classic_group_heartbeat(self, context: RequestContext, request: Any) -> CoordinatorResult[Any, Any]:
        return self._group_metadata_manager.classic_group_heartbeat(context, request)

    def delete_groups(self, context: RequestContext,
                      group_ids: list[str]) -> CoordinatorResult[list[dict[str, Any]], CoordinatorRecord]:
        """Each group is validated and deleted on its own: one group's error does not stop the others."""
        result_collection: list[dict[str, Any]] = []
        records: list[CoordinatorRecord] = []
        num_deleted_offsets = 0
        deleted_groups: list[str] = []

        for group_id in group_ids:
            try:
                self._group_metadata_manager.validate_delete_group(group_id)
                num_deleted_offsets += self._offset_metadata_manager.delete_all_offsets(group_id, records) or 0
                self._group_metadata_manager.create_group_tombstone_records(group_id, records)
                deleted_groups.append(group_id)
                result_collection.append(dict(group_id=group_id, error_code=Errors.NONE))
            except ApiException as exception:
                result_collection.append(dict(group_id=group_id, error_code=Errors.for_exception(exception)))

        self.log.info("The following groups were deleted: %s. A total of %s offsets were removed.",
                      ", ".join(deleted_groups), num_deleted_offsets)
        return CoordinatorResult(records, result_collection)

    def fetch_offsets(self, request: Any, epoch: int) -> dict[str, Any]:
        return self._offset_metadata_manager.fetch_offsets(request, epoch)

    def fetch_all_offsets(self, request: Any, epoch: int) -> dict[str, Any]:
        return self._offset_metadata_manager.fetch_all_offsets(request, epoch)

    def commit_offset(self, context: RequestContext, request: Any) -> CoordinatorResult[Any, CoordinatorRecord]:
        return self._offset_metadata_manager.commit_offset(context, request)

    def commit_transactional_offset(self, context: RequestContext,
                                    request: Any) -> CoordinatorResult[Any, CoordinatorRecord]:
        return self._offset_metadata_manager.commit_transactional_offset(context, request)

    def list_groups(self, states_filter: list[str], types_filter: list[str],
                    committed_offset: int) -> list[dict[str, Any]]:
        """Empty filters list every group; the managers take them as sets."""
        return self._group_metadata_manager.list_groups(set(states_filter), set(types_filter), committed_offset)

    def consumer_group_describe(self, group_ids: list[str], committed_offset: int) -> list[dict[str, Any]]:
        return self._group_metadata_manager.consumer_group_describe(group_ids, committed_offset)

    def describe_groups(self, context: RequestContext, group_ids: list[str],
                        committed_offset: int) -> list[dict[str, Any]]:
        return self._group_metadata_manager.describe_groups(group_ids, committed_offset)

    def classic_group_leave(self, context: RequestContext, request: Any) -> CoordinatorResult[Any, CoordinatorRecord]:
        return self._group_metadata_manager.classic_group_leave(context, request)

    def delete_offsets(self, context: RequestContext, request: Any) -> CoordinatorResult[Any, CoordinatorRecord]:
        return self._offset_metadata_manager.delete_offsets(request)

    # -- expiration ----------------------------------------------------------------------------------------------

    @step("GC.expire")
    def cleanup_group_metadata(self) -> CoordinatorResult[None, CoordinatorRecord]:
        """Expired offsets go; a group all of whose offsets went is deleted when it may be. Schedules the next run."""
        start_ms = self._time.milliseconds()
        records: list[CoordinatorRecord] = []
        for group_id in self._group_metadata_manager.group_ids():
            all_offsets_expired = self._offset_metadata_manager.cleanup_expired_offsets(group_id, records)
            if all_offsets_expired:
                self._group_metadata_manager.maybe_delete_group(group_id, records)

        self.log.info("Generated %s tombstone records while cleaning up group metadata in %s milliseconds.",
                      len(records), self._time.milliseconds() - start_ms)
        self._schedule_group_metadata_expiration()
        return CoordinatorResult(records, is_atomic=False)

    def _schedule_group_metadata_expiration(self) -> None:
        # retried after the check interval when it fails
        interval_ms = self._config.offsets_retention_check_interval_ms()
        self._timer.schedule(GROUP_EXPIRATION_KEY, interval_ms, True, self.cleanup_group_metadata, interval_ms)

    def on_partitions_deleted(self, topic_partitions: list[TopicPartition]) -> CoordinatorResult[None, Any]:
        start_time_ms = self._time.milliseconds()
        records = self._offset_metadata_manager.on_partitions_deleted(topic_partitions)
        self.log.info("Generated %s tombstone records in %s milliseconds while deleting offsets for partitions %s.",
                      len(records), self._time.milliseconds() - start_time_ms, topic_partitions)
        return CoordinatorResult(records, is_atomic=False)

    # -- the CoordinatorShard hooks ------------------------------------------------------------------------------

    def on_loaded(self, new_image: MetadataImage) -> None:
        """The managers see the image as a delta from nothing; then the timers start."""
        empty_delta = MetadataDelta(new_image)
        self._group_metadata_manager.on_new_metadata_image(new_image, empty_delta)
        self._offset_metadata_manager.on_new_metadata_image(new_image, empty_delta)
        if self._coordinator_metrics is not None:
            self._coordinator_metrics.activate_metrics_shard(self._metrics_shard)

        self._group_metadata_manager.on_loaded()
        self._schedule_group_metadata_expiration()

    def on_unloaded(self) -> None:
        self._timer.cancel(GROUP_EXPIRATION_KEY)
        if self._coordinator_metrics is not None:
            self._coordinator_metrics.deactivate_metrics_shard(self._metrics_shard)
        self._group_metadata_manager.on_unloaded()

    def on_new_metadata_image(self, new_image: MetadataImage, delta: MetadataDelta) -> None:
        self._group_metadata_manager.on_new_metadata_image(new_image, delta)
        self._offset_metadata_manager.on_new_metadata_image(new_image, delta)

    @step("GC.replay")
    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: CoordinatorRecord) -> None:
        """The key's version names the record type: 0 and 1 are offsets, 2 a classic group, 3 to 8 a consumer
        group's parts. The group metadata manager's `replay` tells the types apart by the key's class."""
        key = record.key()
        value = record.value()
        version = key.version

        if version in (0, 1):
            self._offset_metadata_manager.replay(offset, producer_id, key.message, message_or_null(value))
        elif version in (2, 3, 4, 5, 6, 7, 8):
            self._group_metadata_manager.replay(key.message, message_or_null(value))
        else:
            # 10 and 11 are the share groups' (module docstring)
            raise IllegalStateException(f"Received an unknown record type {version} in {record}")

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        self._offset_metadata_manager.replay_end_transaction_marker(producer_id, result)
