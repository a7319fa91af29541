"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinatorService.java
(Kafka 3.9).

The new group coordinator as KafkaApis sees it: each API is scheduled as a read or write operation on the coordinator
runtime, against the __consumer_offsets partition the group hashes to (one GroupCoordinatorShard per partition), and
the errors the runtime or the partition's log raise are translated into those clients expect
(`_handle_operation_exception`).

As GroupCoordinatorAdapter does for the old coordinator, responses are dicts keyed by kio's field names. Java's
generated *ResponseData classes carry defaults for every field; the `*_data` functions below give the same dicts
(Java's `new XResponseData()`), so that an error response equals what a Java test builds with setters, and KafkaApis
can `build` any version from it. What the shards answer as kio messages (the group metadata manager's responses) is
turned into the same dict form on the way out (`_as_fields`), so KafkaApis sees one shape whichever answered.

Share groups (KIP-932) are not ported: share_group_heartbeat schedules as Kafka's does, but the shard has nothing
behind it. The port has no metrics registry: GroupCoordinatorMetrics is whatever
object the builder is given (closed on shutdown when it has `close`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from datetime import timedelta
from typing import Any, TypeVar

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    NotCoordinatorException,
)
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.compress.compression import NONE as COMPRESSION_NONE
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.internals.topic import GROUP_METADATA_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.builder import values
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.utils.utils import java_string_hash_code, utils_abs
from kafka_edu.v3_9.core.server.remote_leader_end_point import error_exception
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.java_hash_order import java_hash_map_order
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_serde import CoordinatorRecordSerde
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator import GroupCoordinator
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_shard import GroupCoordinatorShard
from kafka_edu.v3_9.group_coordinator.coordinator.group.metrics.coordinator_runtime_metrics import (
    CoordinatorRuntimeMetrics,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_loader import CoordinatorLoader
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_runtime import CoordinatorRuntime
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard_builder_supplier import (
    CoordinatorShardBuilderSupplier,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.multi_threaded_event_processor import (
    MultiThreadedEventProcessor,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.partition_writer import PartitionWriter
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.server.util.timer.timer import Timer

T = TypeVar("T")
A = TypeVar("A")

_LOGGER = "org.apache.kafka.coordinator.group.GroupCoordinatorService"

INT_MIN = -(2**31)  # AUTHORIZED_OPERATIONS_OMITTED

# -- Java's generated response data, as dicts with their defaults ---------------------------------------------------


def consumer_group_heartbeat_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(throttle_time=0, error_code=Errors.NONE, error_message=None, member_id=None, member_epoch=0,
                     heartbeat_interval=0, assignment=None), **fields)


def share_group_heartbeat_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(throttle_time=0, error_code=Errors.NONE, error_message=None, member_id=None, member_epoch=0,
                     heartbeat_interval=0, assignment=None), **fields)


def join_group_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(throttle_time=0, error_code=Errors.NONE, generation_id=-1, protocol_type=None,
                     protocol_name="", leader="", skip_assignment=False, member_id="", members=[]), **fields)


def sync_group_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(throttle_time=0, error_code=Errors.NONE, protocol_type=None, protocol_name=None,
                     assignment=b""), **fields)


def heartbeat_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(throttle_time=0, error_code=Errors.NONE), **fields)


def leave_group_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(throttle_time=0, error_code=Errors.NONE, members=[]), **fields)


def leave_group_member_response(**fields: Any) -> dict[str, Any]:
    return dict(dict(member_id="", group_instance_id=None, error_code=Errors.NONE), **fields)


def list_groups_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(throttle_time=0, error_code=Errors.NONE, groups=[]), **fields)


def offset_delete_response_data(**fields: Any) -> dict[str, Any]:
    return dict(dict(error_code=Errors.NONE, throttle_time=0, topics=[]), **fields)


def offset_fetch_response_group(**fields: Any) -> dict[str, Any]:
    return dict(dict(group_id="", topics=[], error_code=Errors.NONE), **fields)


def describe_groups_described_group(**fields: Any) -> dict[str, Any]:
    return dict(dict(error_code=Errors.NONE, group_id="", group_state="", protocol_type="", protocol_data="",
                     members=[], authorized_operations=INT_MIN), **fields)


def consumer_group_describe_described_group(**fields: Any) -> dict[str, Any]:
    return dict(dict(error_code=Errors.NONE, error_message=None, group_id="", group_state="", group_epoch=0,
                     assignment_epoch=0, assignor_name="", members=[], authorized_operations=INT_MIN), **fields)


def deletable_group_result(**fields: Any) -> dict[str, Any]:
    return dict(dict(group_id="", error_code=Errors.NONE), **fields)


# -- the requests' static error helpers (OffsetCommitRequest.getErrorResponse and the like) -------------------------


def offset_commit_error_response(request: Any, error: Errors) -> dict[str, Any]:
    """OffsetCommitRequest.getErrorResponse(request, error): the error for every partition of the request."""
    return dict(throttle_time=0, topics=[
        dict(name=topic.name, partitions=[dict(partition_index=partition.partition_index, error_code=error)
                                          for partition in topic.partitions])
        for topic in request.topics or ()])


def txn_offset_commit_error_response(request: Any, error: Errors) -> dict[str, Any]:
    """TxnOffsetCommitRequest.getErrorResponse(request, error)."""
    return offset_commit_error_response(request, error)


def describe_groups_error_described_group_list(group_ids: list[str | None], error: Errors) -> list[dict[str, Any]]:
    """DescribeGroupsRequest.getErrorDescribedGroupList."""
    return [describe_groups_described_group(group_id=group_id, error_code=error) for group_id in group_ids]


def consumer_group_describe_error_described_group_list(group_ids: list[str | None],
                                                       error: Errors) -> list[dict[str, Any]]:
    """ConsumerGroupDescribeRequest.getErrorDescribedGroupList."""
    return [consumer_group_describe_described_group(group_id=group_id, error_code=error) for group_id in group_ids]


def delete_groups_error_result_collection(group_ids: list[str | None], error: Errors) -> list[dict[str, Any]]:
    """DeleteGroupsRequest.getErrorResultCollection."""
    return [deletable_group_result(group_id=group_id, error_code=error) for group_id in group_ids]


# -- FutureUtils ----------------------------------------------------------------------------------------------------


def _completed(value: T) -> CompletableFuture[T]:
    return CompletableFuture.completed_future(value)


def _failed(exception: BaseException) -> CompletableFuture[Any]:
    future: CompletableFuture[Any] = CompletableFuture()
    future.complete_exceptionally(exception)
    return future


def _as_fields(response: Any) -> Any:
    """A response in the dict form KafkaApis takes (module docstring): kio messages become their fields."""
    if isinstance(response, (list, tuple)):
        return [_as_fields(item) for item in response]
    if dataclasses.is_dataclass(response) and not isinstance(response, type):
        return values(response)
    return response


def _fields_of(future: Future[Any]) -> CompletableFuture[Any]:
    """The future's value in its dict form, or its exception."""
    result: CompletableFuture[Any] = CompletableFuture()

    def done(f: Future[Any]) -> None:
        exception = f.exception()
        if exception is not None:
            result.complete_exceptionally(exception)
        else:
            result.complete(_as_fields(f.result()))

    future.add_done_callback(done)
    return result


def _exceptionally(future: Future[T], fn: Callable[[BaseException], T]) -> CompletableFuture[T]:
    """CompletableFuture.exceptionally: the value (in its dict form), or `fn` of the exception (which may raise in
    turn)."""
    result: CompletableFuture[T] = CompletableFuture()

    def done(f: Future[T]) -> None:
        exception = f.exception()
        try:
            result.complete(_as_fields(f.result()) if exception is None else fn(exception))
        except BaseException as e:  # noqa: BLE001 - the future carries it
            result.complete_exceptionally(e)

    future.add_done_callback(done)
    return result


def _combine_futures(futures: list[Future[Any]], init: Callable[[], A],
                     add: Callable[[A, Any], None]) -> CompletableFuture[A]:
    """FutureUtils.combineFutures: once all are done, their results folded into `init()`; the first failure in the
    list's order fails it."""
    result: CompletableFuture[A] = CompletableFuture()
    remaining = [len(futures)]
    lock = threading.Lock()

    def complete() -> None:
        for f in futures:
            if f.exception() is not None:
                result.complete_exceptionally(f.exception())  # type: ignore[arg-type]
                return
        accumulator = init()
        for f in futures:
            add(accumulator, f.result())
        result.complete(accumulator)

    def done(_: Future[Any]) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            complete()

    if not futures:
        complete()
    for f in futures:
        f.add_done_callback(done)
    return result


def _ms(value: int | timedelta) -> int:
    """kio carries *_ms fields as timedeltas."""
    return value // timedelta(milliseconds=1) if isinstance(value, timedelta) else int(value)


def _topic_partition_hash_code(tp: TopicPartition) -> int:
    """TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode(), a signed 32-bit int."""
    value = (31 * (31 + tp.partition) + java_string_hash_code(tp.topic)) & 0xFFFFFFFF
    return value - (1 << 32) if value >= (1 << 31) else value


def _in_hash_map_order(groups_by_topic_partition: dict[TopicPartition, list[str]]) -> list[TopicPartition]:
    """The order Kafka's HashMap<TopicPartition, List<String>> iterates its partitions in, which is the order of the
    results in the response."""
    by_hash: dict[int, list[TopicPartition]] = {}
    for tp in groups_by_topic_partition:
        by_hash.setdefault(_topic_partition_hash_code(tp), []).append(tp)
    return [tp for hash_code in java_hash_map_order(by_hash) for tp in by_hash[hash_code]]


def _is_group_id_not_empty(group_id: str | None) -> bool:
    return group_id is not None and group_id != ""


class GroupCoordinatorService(GroupCoordinator):

    class Builder:
        def __init__(self, node_id: int, config: GroupCoordinatorConfig) -> None:
            self._node_id = node_id
            self._config = config
            self._writer: PartitionWriter | None = None
            self._loader: CoordinatorLoader[Any] | None = None
            self._time: Time | None = None
            self._timer: Timer | None = None
            self._coordinator_runtime_metrics: CoordinatorRuntimeMetrics | None = None
            self._group_coordinator_metrics: Any = None

        def with_writer(self, writer: PartitionWriter) -> GroupCoordinatorService.Builder:
            self._writer = writer
            return self

        def with_loader(self, loader: CoordinatorLoader[Any]) -> GroupCoordinatorService.Builder:
            self._loader = loader
            return self

        def with_time(self, time: Time) -> GroupCoordinatorService.Builder:
            self._time = time
            return self

        def with_timer(self, timer: Timer) -> GroupCoordinatorService.Builder:
            self._timer = timer
            return self

        def with_coordinator_runtime_metrics(
                self, coordinator_runtime_metrics: CoordinatorRuntimeMetrics) -> GroupCoordinatorService.Builder:
            self._coordinator_runtime_metrics = coordinator_runtime_metrics
            return self

        def with_group_coordinator_metrics(self, group_coordinator_metrics: Any) -> GroupCoordinatorService.Builder:
            self._group_coordinator_metrics = group_coordinator_metrics
            return self

        def build(self) -> GroupCoordinatorService:
            if self._config is None:
                raise IllegalArgumentException("Config must be set.")
            if self._writer is None:
                raise IllegalArgumentException("Writer must be set.")
            if self._loader is None:
                raise IllegalArgumentException("Loader must be set.")
            if self._time is None:
                raise IllegalArgumentException("Time must be set.")
            if self._timer is None:
                raise IllegalArgumentException("Timer must be set.")
            if self._coordinator_runtime_metrics is None:
                raise IllegalArgumentException("CoordinatorRuntimeMetrics must be set.")
            if self._group_coordinator_metrics is None:
                raise IllegalArgumentException("GroupCoordinatorMetrics must be set.")

            config = self._config
            log_prefix = f"GroupCoordinator id={self._node_id}"
            log_context = f"[{log_prefix}] "

            class _Supplier(CoordinatorShardBuilderSupplier[GroupCoordinatorShard, Any]):
                def get(self) -> GroupCoordinatorShard.Builder:
                    return GroupCoordinatorShard.Builder(config)

            processor = MultiThreadedEventProcessor(log_context, "group-coordinator-event-processor-",
                                                    config.num_threads(), self._time,
                                                    self._coordinator_runtime_metrics)

            compression_type = config.offset_topic_compression_type()
            compression = (Compression.of(compression_type).build() if compression_type is not None
                           else COMPRESSION_NONE)
            runtime: CoordinatorRuntime[GroupCoordinatorShard, Any] = (
                CoordinatorRuntime.Builder()
                .with_time(self._time)
                .with_timer(self._timer)
                .with_log_prefix(log_prefix)
                .with_log_context(log_context)
                .with_event_processor(processor)
                .with_partition_writer(self._writer)
                .with_loader(self._loader)
                .with_coordinator_shard_builder_supplier(_Supplier())
                .with_default_write_time_out(config.offset_commit_timeout_ms())
                .with_coordinator_runtime_metrics(self._coordinator_runtime_metrics)
                .with_coordinator_metrics(self._group_coordinator_metrics)
                .with_serializer(CoordinatorRecordSerde())
                .with_compression(compression)
                .with_append_linger_ms(config.append_linger_ms())
                .build())

            return GroupCoordinatorService(log_context, config, runtime, self._group_coordinator_metrics)

    def __init__(self, log_context: str, config: GroupCoordinatorConfig,
                 runtime: CoordinatorRuntime[GroupCoordinatorShard, Any], group_coordinator_metrics: Any) -> None:
        self.log = Logging(_LOGGER, log_context)
        self._config = config
        self._runtime = runtime
        self._group_coordinator_metrics = group_coordinator_metrics
        # Java's AtomicBoolean: startup and shutdown each win once
        self._is_active = False
        self._is_active_lock = threading.Lock()
        self._num_partitions = -1

    def _compare_and_set_active(self, expected: bool, new_value: bool) -> bool:
        with self._is_active_lock:
            if self._is_active != expected:
                return False
            self._is_active = new_value
            return True

    def _throw_if_not_active(self) -> None:
        if not self._is_active:
            raise error_exception(Errors.COORDINATOR_NOT_AVAILABLE)

    def _topic_partition_for(self, group_id: str) -> TopicPartition:
        return TopicPartition(GROUP_METADATA_TOPIC_NAME, self.partition_for(group_id))

    def partition_for(self, group_id: str) -> int:
        self._throw_if_not_active()
        return utils_abs(java_string_hash_code(group_id)) % self._num_partitions

    def _write_timeout_ms(self) -> int:
        return self._config.offset_commit_timeout_ms()

    # -- the consumer group protocol (KIP-848) -------------------------------------------------------------------

    def consumer_group_heartbeat(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(consumer_group_heartbeat_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        return _exceptionally(self._runtime.schedule_write_operation(
            "consumer-group-heartbeat",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.consumer_group_heartbeat(context, request)),
            lambda exception: self._handle_operation_exception(
                "consumer-group-heartbeat", request, exception,
                lambda error, message: consumer_group_heartbeat_response_data(error_code=error,
                                                                              error_message=message)))

    def share_group_heartbeat(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(share_group_heartbeat_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        return _exceptionally(self._runtime.schedule_write_operation(
            "share-group-heartbeat",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.share_group_heartbeat(context, request)),
            lambda exception: self._handle_operation_exception(
                "share-group-heartbeat", request, exception,
                lambda error, message: share_group_heartbeat_response_data(error_code=error, error_message=message)))

    # -- the classic group protocol ------------------------------------------------------------------------------

    def join_group(self, context: RequestContext, request: Any,
                   buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(join_group_response_data(member_id=request.member_id,
                                                       error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        if not _is_group_id_not_empty(request.group_id):
            return _completed(join_group_response_data(member_id=request.member_id,
                                                       error_code=Errors.INVALID_GROUP_ID))

        session_timeout_ms = _ms(request.session_timeout)
        if (session_timeout_ms < self._config.classic_group_min_session_timeout_ms()
                or session_timeout_ms > self._config.classic_group_max_session_timeout_ms()):
            return _completed(join_group_response_data(member_id=request.member_id,
                                                       error_code=Errors.INVALID_SESSION_TIMEOUT))

        # the shard completes it, maybe much later (when the rebalance completes)
        response_future: CompletableFuture[dict[str, Any]] = CompletableFuture()

        def on_failure(exception: BaseException) -> None:
            if not response_future.done():
                response_future.complete(self._handle_operation_exception(
                    "classic-group-join", request, exception,
                    lambda error, _: join_group_response_data(error_code=error)))
            return None

        _exceptionally(self._runtime.schedule_write_operation(
            "classic-group-join",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.classic_group_join(context, request, response_future)), on_failure)

        return _fields_of(response_future)

    def sync_group(self, context: RequestContext, request: Any,
                   buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(sync_group_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        if not _is_group_id_not_empty(request.group_id):
            return _completed(sync_group_response_data(error_code=Errors.INVALID_GROUP_ID))

        response_future: CompletableFuture[dict[str, Any]] = CompletableFuture()

        def on_failure(exception: BaseException) -> None:
            if not response_future.done():
                response_future.complete(self._handle_operation_exception(
                    "classic-group-sync", request, exception,
                    lambda error, _: sync_group_response_data(error_code=error)))
            return None

        _exceptionally(self._runtime.schedule_write_operation(
            "classic-group-sync",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.classic_group_sync(context, request, response_future)), on_failure)

        return _fields_of(response_future)

    def heartbeat(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(heartbeat_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        if not _is_group_id_not_empty(request.group_id):
            return _completed(heartbeat_response_data(error_code=Errors.INVALID_GROUP_ID))

        def on_error(error: Errors, _: str | None) -> dict[str, Any]:
            if error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
                # a loading group cannot tell: the member is answered as if all were well
                return heartbeat_response_data(error_code=Errors.NONE)
            return heartbeat_response_data(error_code=error)

        return _exceptionally(self._runtime.schedule_write_operation(
            "classic-group-heartbeat",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.classic_group_heartbeat(context, request)),
            lambda exception: self._handle_operation_exception("classic-group-heartbeat", request, exception,
                                                               on_error))

    def leave_group(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(leave_group_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        if not _is_group_id_not_empty(request.group_id):
            return _completed(leave_group_response_data(error_code=Errors.INVALID_GROUP_ID))

        def on_error(error: Errors, _: str | None) -> dict[str, Any]:
            if error == Errors.UNKNOWN_MEMBER_ID:
                # no such group: every member is unknown
                return leave_group_response_data(members=[
                    leave_group_member_response(member_id=member.member_id,
                                                group_instance_id=member.group_instance_id,
                                                error_code=Errors.UNKNOWN_MEMBER_ID)
                    for member in request.members or ()])
            return leave_group_response_data(error_code=error)

        return _exceptionally(self._runtime.schedule_write_operation(
            "classic-group-leave",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.classic_group_leave(context, request)),
            lambda exception: self._handle_operation_exception("classic-group-leave", request, exception,
                                                               on_error))

    # -- group administration ------------------------------------------------------------------------------------

    def list_groups(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(list_groups_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        states_filter = list(getattr(request, "states_filter", None) or ())
        types_filter = list(getattr(request, "types_filter", None) or ())

        def on_failure(exception: BaseException) -> list[dict[str, Any]]:
            # a partition that moved away lists nothing; any other failure fails the listing
            if isinstance(exception, NotCoordinatorException):
                return []
            raise exception

        futures: list[Future[Any]] = [
            _exceptionally(future, on_failure)
            for future in self._runtime.schedule_read_all_operation(
                "list-groups",
                lambda coordinator, last_committed_offset: coordinator.list_groups(
                    states_filter, types_filter, last_committed_offset))]

        return _exceptionally(
            _combine_futures(futures, list, lambda accumulator, groups: accumulator.extend(groups))
            .then_apply(lambda groups: list_groups_response_data(groups=groups)),
            lambda exception: self._handle_operation_exception(
                "list-groups", request, exception,
                lambda error, _: list_groups_response_data(error_code=error)))

    @step("GC.describe")
    def consumer_group_describe(self, context: RequestContext,
                                group_ids: list[str | None]) -> CompletableFuture[list[dict[str, Any]]]:
        if not self._is_active:
            return _completed(consumer_group_describe_error_described_group_list(
                group_ids, Errors.COORDINATOR_NOT_AVAILABLE))

        futures: list[Future[Any]] = []
        groups_by_topic_partition: dict[TopicPartition, list[str]] = {}
        for group_id in group_ids:
            if _is_group_id_not_empty(group_id):
                assert group_id is not None
                groups_by_topic_partition.setdefault(self._topic_partition_for(group_id), []).append(group_id)
            else:
                futures.append(_completed([consumer_group_describe_described_group(
                    group_id=None, error_code=Errors.INVALID_GROUP_ID)]))

        for topic_partition in _in_hash_map_order(groups_by_topic_partition):
            group_list = groups_by_topic_partition[topic_partition]
            # Kafka 3.9 hands every shard all the requested ids (not only its own), kept as is
            futures.append(_exceptionally(
                self._runtime.schedule_read_operation(
                    "consumer-group-describe",
                    topic_partition,
                    lambda coordinator, last_committed_offset: coordinator.consumer_group_describe(
                        group_ids, last_committed_offset)),
                lambda exception, group_list=group_list: self._handle_operation_exception(  # type: ignore[misc]
                    "consumer-group-describe", group_list, exception,
                    lambda error, _: consumer_group_describe_error_described_group_list(group_list, error))))

        return _combine_futures(futures, list, lambda accumulator, groups: accumulator.extend(groups))

    def share_group_describe(self, context: RequestContext,
                             group_ids: list[str | None]) -> CompletableFuture[list[dict[str, Any]]]:
        # not implemented in Kafka 3.9 either (KIP-932)
        raise NotImplementedError("shareGroupDescribe")

    def describe_groups(self, context: RequestContext,
                        group_ids: list[str | None]) -> CompletableFuture[list[dict[str, Any]]]:
        if not self._is_active:
            return _completed(describe_groups_error_described_group_list(group_ids,
                                                                         Errors.COORDINATOR_NOT_AVAILABLE))

        futures: list[Future[Any]] = []
        groups_by_topic_partition: dict[TopicPartition, list[str]] = {}
        for group_id in group_ids:
            # the empty group id is accepted, for backwards compatibility
            if group_id is None:
                futures.append(_completed([describe_groups_described_group(group_id=None,
                                                                           error_code=Errors.INVALID_GROUP_ID)]))
            else:
                groups_by_topic_partition.setdefault(self._topic_partition_for(group_id), []).append(group_id)

        for topic_partition in _in_hash_map_order(groups_by_topic_partition):
            group_list = groups_by_topic_partition[topic_partition]
            futures.append(_exceptionally(
                self._runtime.schedule_read_operation(
                    "describe-groups",
                    topic_partition,
                    lambda coordinator, last_committed_offset, group_list=group_list: coordinator.describe_groups(
                        context, group_list, last_committed_offset)),
                lambda exception, group_list=group_list: self._handle_operation_exception(  # type: ignore[misc]
                    "describe-groups", group_list, exception,
                    lambda error, _: describe_groups_error_described_group_list(group_list, error))))

        return _combine_futures(futures, list, lambda accumulator, groups: accumulator.extend(groups))

    def delete_groups(self, context: RequestContext, group_ids: list[str | None],
                      buffer_supplier: Any = None) -> CompletableFuture[list[dict[str, Any]]]:
        if not self._is_active:
            return _completed(delete_groups_error_result_collection(group_ids, Errors.COORDINATOR_NOT_AVAILABLE))

        futures: list[Future[Any]] = []
        groups_by_topic_partition: dict[TopicPartition, list[str]] = {}
        for group_id in group_ids:
            # the empty group id is accepted, for backwards compatibility
            if group_id is None:
                futures.append(_completed(delete_groups_error_result_collection([None], Errors.INVALID_GROUP_ID)))
            else:
                groups_by_topic_partition.setdefault(self._topic_partition_for(group_id), []).append(group_id)

        for topic_partition in _in_hash_map_order(groups_by_topic_partition):
            group_list = groups_by_topic_partition[topic_partition]
            futures.append(_exceptionally(
                self._runtime.schedule_write_operation(
                    "delete-groups",
                    topic_partition,
                    self._write_timeout_ms(),
                    lambda coordinator, group_list=group_list: coordinator.delete_groups(context, group_list)),
                lambda exception, group_list=group_list: self._handle_operation_exception(  # type: ignore[misc]
                    "delete-groups", group_list, exception,
                    lambda error, _: delete_groups_error_result_collection(group_list, error))))

        # each result copied, as Kafka duplicates them into the new collection
        return _combine_futures(futures, list,
                                lambda accumulator, results: accumulator.extend(dict(r) for r in results))

    # -- offsets -------------------------------------------------------------------------------------------------

    def fetch_offsets(self, context: RequestContext, request: Any,
                      require_stable: bool) -> CompletableFuture[dict[str, Any]]:
        return self._fetch("fetch-offsets", request, require_stable,
                           lambda coordinator, epoch: coordinator.fetch_offsets(request, epoch))

    def fetch_all_offsets(self, context: RequestContext, request: Any,
                          require_stable: bool) -> CompletableFuture[dict[str, Any]]:
        return self._fetch("fetch-all-offsets", request, require_stable,
                           lambda coordinator, epoch: coordinator.fetch_all_offsets(request, epoch))

    def _fetch(self, name: str, request: Any, require_stable: bool,
               fetch: Callable[[Any, int], dict[str, Any]]) -> CompletableFuture[dict[str, Any]]:
        """Kafka's fetchOffsets and fetchAllOffsets, which differ only in the shard's method."""
        if not self._is_active:
            return _completed(offset_fetch_response_group(group_id=request.group_id,
                                                          error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        # the empty group id is accepted, for backwards compatibility
        if request.group_id is None:
            return _completed(offset_fetch_response_group(group_id=request.group_id,
                                                          error_code=Errors.INVALID_GROUP_ID))

        # Stable offsets: the timeline structures do not tell pending offsets apart, so a write operation (which
        # waits for everything before it to be committed) reads the latest state instead of failing with
        # UNSTABLE_OFFSET_COMMIT as the old coordinator did.
        if require_stable:
            return _fields_of(self._runtime.schedule_write_operation(
                name,
                self._topic_partition_for(request.group_id),
                self._write_timeout_ms(),
                lambda coordinator: CoordinatorResult([], fetch(coordinator, 2**63 - 1))))
        return _fields_of(self._runtime.schedule_read_operation(
            name,
            self._topic_partition_for(request.group_id),
            lambda coordinator, offset: fetch(coordinator, offset)))

    def commit_offsets(self, context: RequestContext, request: Any,
                       buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(offset_commit_error_response(request, Errors.COORDINATOR_NOT_AVAILABLE))

        # the empty group id is accepted, for backwards compatibility
        if request.group_id is None:
            return _completed(offset_commit_error_response(request, Errors.INVALID_GROUP_ID))

        return _exceptionally(self._runtime.schedule_write_operation(
            "commit-offset",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.commit_offset(context, request)),
            lambda exception: self._handle_operation_exception(
                "commit-offset", request, exception,
                lambda error, _: offset_commit_error_response(request, error)))

    @step("TX39.txoffsets")
    def commit_transactional_offsets(self, context: RequestContext, request: Any,
                                     buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(txn_offset_commit_error_response(request, Errors.COORDINATOR_NOT_AVAILABLE))

        if not _is_group_id_not_empty(request.group_id):
            return _completed(txn_offset_commit_error_response(request, Errors.INVALID_GROUP_ID))

        return _exceptionally(self._runtime.schedule_transactional_write_operation(
            "txn-commit-offset",
            self._topic_partition_for(request.group_id),
            request.transactional_id,
            request.producer_id,
            request.producer_epoch,
            self._write_timeout_ms(),
            lambda coordinator: coordinator.commit_transactional_offset(context, request),
            context.api_version()),
            lambda exception: self._handle_operation_exception(
                "txn-commit-offset", request, exception,
                lambda error, _: txn_offset_commit_error_response(request, error)))

    def delete_offsets(self, context: RequestContext, request: Any,
                       buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        if not self._is_active:
            return _completed(offset_delete_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE))

        if not _is_group_id_not_empty(request.group_id):
            return _completed(offset_delete_response_data(error_code=Errors.INVALID_GROUP_ID))

        return _exceptionally(self._runtime.schedule_write_operation(
            "delete-offsets",
            self._topic_partition_for(request.group_id),
            self._write_timeout_ms(),
            lambda coordinator: coordinator.delete_offsets(context, request)),
            lambda exception: self._handle_operation_exception(
                "delete-offsets", request, exception,
                lambda error, _: offset_delete_response_data(error_code=error)))

    # -- transactions --------------------------------------------------------------------------------------------

    def complete_transaction(self, tp: TopicPartition, producer_id: int, producer_epoch: int, coordinator_epoch: int,
                             result: TransactionResult, timeout_ms: int | timedelta) -> CompletableFuture[None]:
        if not self._is_active:
            return _failed(error_exception(Errors.COORDINATOR_NOT_AVAILABLE))

        if tp.topic != GROUP_METADATA_TOPIC_NAME:
            return _failed(IllegalStateException(f"Completing a transaction for {tp} is not expected"))

        return self._runtime.schedule_transaction_completion(
            "write-txn-marker", tp, producer_id, producer_epoch, coordinator_epoch, result, _ms(timeout_ms))

    def on_transaction_completed(self, producer_id: int, partitions: Iterable[TopicPartition],
                                 transaction_result: TransactionResult) -> None:
        # the new coordinator gets the markers through complete_transaction
        self._throw_if_not_active()
        raise IllegalStateException("onTransactionCompleted is not supported.")

    # -- partitions and metadata ---------------------------------------------------------------------------------

    def on_partitions_deleted(self, topic_partitions: list[TopicPartition], buffer_supplier: Any = None) -> None:
        self._throw_if_not_active()

        def on_failure(exception: BaseException) -> None:
            self.log.error("Could not delete offsets for deleted partitions %s due to: %s.", topic_partitions,
                           exception)
            return None

        futures = [_exceptionally(future, on_failure) for future in self._runtime.schedule_write_all_operation(
            "on-partition-deleted",
            self._write_timeout_ms(),
            lambda coordinator: coordinator.on_partitions_deleted(topic_partitions))]
        # CompletableFuture.allOf(...).get(): failures were turned into None above
        for future in futures:
            future.result()

    @step("GC.elect")
    def on_election(self, group_metadata_partition_index: int, group_metadata_partition_leader_epoch: int) -> None:
        self._throw_if_not_active()
        self._runtime.schedule_load_operation(
            TopicPartition(GROUP_METADATA_TOPIC_NAME, group_metadata_partition_index),
            group_metadata_partition_leader_epoch)

    @step("GC.resign")
    def on_resignation(self, group_metadata_partition_index: int,
                       group_metadata_partition_leader_epoch: int | None) -> None:
        self._throw_if_not_active()
        self._runtime.schedule_unload_operation(
            TopicPartition(GROUP_METADATA_TOPIC_NAME, group_metadata_partition_index),
            group_metadata_partition_leader_epoch)

    def on_new_metadata_image(self, new_image: MetadataImage, delta: MetadataDelta) -> None:
        self._throw_if_not_active()
        self._runtime.on_new_metadata_image(new_image, delta)

    def group_metadata_topic_configs(self) -> dict[str, str]:
        return {
            "cleanup.policy": "compact",  # TopicConfig.CLEANUP_POLICY_CONFIG, CLEANUP_POLICY_COMPACT
            "compression.type": "producer",  # TopicConfig.COMPRESSION_TYPE_CONFIG, BrokerCompressionType.PRODUCER
            "segment.bytes": str(self._config.offsets_topic_segment_bytes()),  # TopicConfig.SEGMENT_BYTES_CONFIG
        }

    # -- lifecycle -----------------------------------------------------------------------------------------------

    @step("GC.startup")
    def startup(self, group_metadata_topic_partition_count: Callable[[], int]) -> None:
        if not self._compare_and_set_active(False, True):
            self.log.warn("Group coordinator is already running.")
            return

        self.log.info("Starting up.")
        self._num_partitions = group_metadata_topic_partition_count()
        self._is_active = True
        self.log.info("Startup complete.")

    def shutdown(self) -> None:
        if not self._compare_and_set_active(True, False):
            self.log.warn("Group coordinator is already shutting down.")
            return

        self.log.info("Shutting down.")
        self._is_active = False
        self._close_quietly(self._runtime, "coordinator runtime")
        self._close_quietly(self._group_coordinator_metrics, "group coordinator metrics")
        self.log.info("Shutdown complete.")

    def _close_quietly(self, closeable: Any, name: str) -> None:
        """Utils.closeQuietly: a failure to close is logged, not raised."""
        close = getattr(closeable, "close", None)
        if close is None:
            return
        try:
            close()
        except Exception as e:  # noqa: BLE001
            self.log.error("Failed to close %s with type %s", name, type(closeable).__name__, exc_info=e)

    def _handle_operation_exception(self, operation_name: str, operation_input: Any, exception: BaseException,
                                    handler: Callable[[Errors, str | None], T]) -> T:
        """The errors of the log and of the runtime become the coordinator errors clients know how to handle."""
        api_error = ApiError.from_throwable(exception)
        error = api_error.error

        if error == Errors.UNKNOWN_SERVER_ERROR:
            self.log.error("Operation %s with %s hit an unexpected exception: %s.", operation_name, operation_input,
                           exception, exc_info=exception)
            return handler(Errors.UNKNOWN_SERVER_ERROR, None)
        if error == Errors.NETWORK_EXCEPTION:
            # transaction verification fails so; older clients do not retry it well, loading makes them retry
            # without looking the coordinator up again
            return handler(Errors.COORDINATOR_LOAD_IN_PROGRESS, None)
        if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS, Errors.REQUEST_TIMED_OUT):
            return handler(Errors.COORDINATOR_NOT_AVAILABLE, None)
        if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
            return handler(Errors.NOT_COORDINATOR, None)
        if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
            return handler(Errors.UNKNOWN_SERVER_ERROR, None)
        return handler(error, api_error.message)
