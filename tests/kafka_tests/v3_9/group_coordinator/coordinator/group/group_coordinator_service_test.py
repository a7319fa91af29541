"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupCoordinatorServiceTest.java
(Kafka 3.9).

The runtime is a `create_autospec` of the port's CoordinatorRuntime; Mockito's `when(runtime.x(eq(a), any()))
.thenReturn(f)` is `_stub(runtime.x, a, ANY, returns=f)` (the latest matching stub answers, as in Mockito; a
method without stubs answers as Mockito's default would: an empty list where a list is returned). Request data
objects are SimpleNamespaces with kio's field names and Java's defaults; response data are the dicts the service's
`*_data` functions give (Java's `new XResponseData().setY(...)`). Java's Duration is milliseconds, OptionalInt
`int | None`. The port's futures carry an exception as it was raised (no CompletionException around it), so
testCommitTransactionalOffsetsWithWrappedError fails its future with the error's exception itself. The share group
cases are ported: they test only the service's scheduling of ShareGroupHeartbeat, which the port has as Kafka's,
against a mocked runtime (the shard has no share groups behind it).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    CoordinatorLoadInProgressException,
    CoordinatorNotAvailableException,
    IllegalStateException,
    InvalidRequestException,
    KafkaStorageException,
    NotCoordinatorException,
    NotEnoughReplicasException,
    RecordBatchTooLargeException,
    RecordTooLargeException,
    TimeoutException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import java_string_hash_code, utils_abs
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.errors.rebalance_in_progress_exception import RebalanceInProgressException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.remote_leader_end_point import error_exception
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_service import (
    GroupCoordinatorService,
    consumer_group_describe_described_group,
    consumer_group_heartbeat_response_data,
    deletable_group_result,
    describe_groups_described_group,
    heartbeat_response_data,
    join_group_response_data,
    leave_group_member_response,
    leave_group_response_data,
    list_groups_response_data,
    offset_delete_response_data,
    offset_fetch_response_group,
    share_group_heartbeat_response_data,
    sync_group_response_data,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_runtime import CoordinatorRuntime
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_coordinator_test_util import (
    create_group_coordinator_config,
    request_context,
)

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupCoordinatorServiceTest.java",
    cases=[
        "testStartupShutdown",
        "testConsumerGroupHeartbeatWhenNotStarted",
        "testConsumerGroupHeartbeat",
        "testConsumerGroupHeartbeatWithException",
        "testPartitionFor",
        "testGroupMetadataTopicConfigs",
        "testOnElection",
        "testOnResignation",
        "testOnResignationWithEmptyLeaderEpoch",
        "testJoinGroup",
        "testJoinGroupWithException",
        "testJoinGroupInvalidGroupId",
        "testJoinGroupWhenNotStarted",
        "testJoinGroupInvalidSessionTimeout",
        "testSyncGroup",
        "testSyncGroupWithException",
        "testSyncGroupInvalidGroupId",
        "testSyncGroupWhenNotStarted",
        "testHeartbeat",
        "testHeartbeatCoordinatorNotAvailableException",
        "testHeartbeatCoordinatorException",
        "testHeartbeatWhenNotStarted",
        "testListGroups",
        "testListGroupsFailedWithNotCoordinatorException",
        "testListGroupsWithFailure",
        "testListGroupsWithEmptyTopicPartitions",
        "testListGroupsWhenNotStarted",
        "testDescribeGroups",
        "testDescribeGroupsInvalidGroupId",
        "testDescribeGroupCoordinatorLoadInProgress",
        "testDescribeGroupsWhenNotStarted",
        "testFetchOffsets",
        "testFetchOffsetsWhenNotStarted",
        "testFetchAllOffsets",
        "testFetchAllOffsetsWhenNotStarted",
        "testLeaveGroup",
        "testLeaveGroupThrowsUnknownMemberIdException",
        "testLeaveGroupWhenNotStarted",
        "testConsumerGroupDescribe",
        "testConsumerGroupDescribeInvalidGroupId",
        "testConsumerGroupDescribeCoordinatorLoadInProgress",
        "testConsumerGroupDescribeCoordinatorNotActive",
        "testDeleteOffsets",
        "testDeleteOffsetsInvalidGroupId",
        "testDeleteOffsetsWithException",
        "testDeleteOffsetsWhenNotStarted",
        "testDeleteGroups",
        "testDeleteGroupsWithException",
        "testDeleteGroupsWhenNotStarted",
        "testCommitTransactionalOffsetsWhenNotStarted",
        "testCommitTransactionalOffsetsWithInvalidGroupId",
        "testCommitTransactionalOffsets",
        "testCommitTransactionalOffsetsWithWrappedError",
        "testCompleteTransaction",
        "testCompleteTransactionWhenNotCoordinatorServiceStarted",
        "testCompleteTransactionWithUnexpectedPartition",
        "testOnPartitionsDeleted",
        "testOnPartitionsDeletedWhenServiceIsNotStarted",
        "testShareGroupHeartbeatWhenNotStarted",
        "testShareGroupHeartbeat",
        "testShareGroupHeartbeatWithException",
    ],
)

ANY = mock.ANY
UNKNOWN_MEMBER_ID = ""
WAIT_S = 5  # future.get(5, TimeUnit.SECONDS)


def __tp(partition: int) -> TopicPartition:
    return TopicPartition("__consumer_offsets", partition)


def mock_runtime() -> Any:
    runtime = mock.create_autospec(CoordinatorRuntime, instance=True)
    # Mockito answers an empty list for a method returning a List
    runtime.schedule_read_all_operation.return_value = []
    runtime.schedule_write_all_operation.return_value = []
    return runtime


def create_config() -> Any:
    return create_group_coordinator_config(4096, 600000, 24)


def new_service(runtime: Any, metrics: Any = None) -> GroupCoordinatorService:
    return GroupCoordinatorService("", create_config(), runtime, metrics if metrics is not None else mock.Mock())


def _stub(method: Any, *matchers: Any, returns: Any) -> None:
    """when(method(matchers...)).thenReturn(returns)."""
    stubs = getattr(method, "_h16_stubs", None)
    if stubs is None:
        stubs = []
        method._h16_stubs = stubs

        def answer(*args: Any) -> Any:
            for expected, value in reversed(stubs):
                if len(expected) == len(args) and all(e == a for e, a in zip(expected, args, strict=True)):
                    return value
            return None

        method.side_effect = answer
    stubs.append((matchers, returns))


def completed(value: Any) -> CompletableFuture[Any]:
    return CompletableFuture.completed_future(value)


def failed(exception: BaseException) -> CompletableFuture[Any]:
    future: CompletableFuture[Any] = CompletableFuture()
    future.complete_exceptionally(exception)
    return future


def data(**fields: Any) -> SimpleNamespace:
    return SimpleNamespace(**fields)


def join_group_request_data(**fields: Any) -> SimpleNamespace:
    """new JoinGroupRequestData(): its defaults, then the setters."""
    return data(**dict(dict(group_id="", session_timeout=0, rebalance_timeout=-1, member_id="",
                            group_instance_id=None, protocol_type="", protocols=[], reason=None), **fields))


def group_heartbeat_with_exception_source() -> list[tuple[BaseException, Errors, str | None]]:
    return [
        (UnknownTopicOrPartitionException(), Errors.COORDINATOR_NOT_AVAILABLE, None),
        (NotEnoughReplicasException(), Errors.COORDINATOR_NOT_AVAILABLE, None),
        (TimeoutException(), Errors.COORDINATOR_NOT_AVAILABLE, None),
        (NotLeaderOrFollowerException(), Errors.NOT_COORDINATOR, None),
        (KafkaStorageException(), Errors.NOT_COORDINATOR, None),
        (RecordTooLargeException(), Errors.UNKNOWN_SERVER_ERROR, None),
        (RecordBatchTooLargeException(), Errors.UNKNOWN_SERVER_ERROR, None),
        (error_exception(Errors.INVALID_FETCH_SIZE), Errors.UNKNOWN_SERVER_ERROR, None),  # InvalidFetchSizeException
        (InvalidRequestException("Invalid"), Errors.INVALID_REQUEST, "Invalid"),
    ]


EXCEPTIONS = pytest.mark.parametrize("exception,expected_error_code,expected_error_message",
                                     group_heartbeat_with_exception_source(),
                                     ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v))


def test_startup_shutdown() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)

    service.startup(lambda: 1)
    service.shutdown()

    runtime.close.assert_called_once_with()


def test_consumer_group_heartbeat_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = data(group_id="foo")

    future = service.consumer_group_heartbeat(request_context(None), request)

    assert future.result() == consumer_group_heartbeat_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


def test_consumer_group_heartbeat() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo")
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "consumer-group-heartbeat", __tp(0), 5000, ANY,
          returns=completed(consumer_group_heartbeat_response_data()))

    future = service.consumer_group_heartbeat(request_context(None), request)

    assert future.result(WAIT_S) == consumer_group_heartbeat_response_data()


@EXCEPTIONS
def test_consumer_group_heartbeat_with_exception(exception: BaseException, expected_error_code: Errors,
                                                 expected_error_message: str | None) -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo")
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "consumer-group-heartbeat", __tp(0), 5000, ANY,
          returns=failed(exception))

    future = service.consumer_group_heartbeat(request_context(None), request)

    assert future.result(WAIT_S) == consumer_group_heartbeat_response_data(
        error_code=expected_error_code, error_message=expected_error_message)


def test_partition_for() -> None:
    service = new_service(mock_runtime())

    with pytest.raises(CoordinatorNotAvailableException):
        service.partition_for("foo")

    service.startup(lambda: 10)

    assert service.partition_for("foo") == utils_abs(java_string_hash_code("foo")) % 10


def test_group_metadata_topic_configs() -> None:
    service = new_service(mock_runtime())

    expected_properties = {"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "1000"}

    assert service.group_metadata_topic_configs() == expected_properties


def test_on_election() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)

    with pytest.raises(CoordinatorNotAvailableException):
        service.on_election(5, 10)

    service.startup(lambda: 1)
    service.on_election(5, 10)

    runtime.schedule_load_operation.assert_called_once_with(__tp(5), 10)


def test_on_resignation() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)

    with pytest.raises(CoordinatorNotAvailableException):
        service.on_resignation(5, 10)

    service.startup(lambda: 1)
    service.on_resignation(5, 10)

    runtime.schedule_unload_operation.assert_called_once_with(__tp(5), 10)


def test_on_resignation_with_empty_leader_epoch() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)

    service.startup(lambda: 1)
    service.on_resignation(5, None)

    runtime.schedule_unload_operation.assert_called_once_with(__tp(5), None)


def test_join_group() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = join_group_request_data(group_id="foo", session_timeout=1000)
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "classic-group-join", __tp(0), 5000, ANY,
          returns=completed(join_group_response_data()))

    response_future = service.join_group(request_context(ApiKeys.JOIN_GROUP), request)

    # the shard completes it, not the write
    assert not response_future.done()


def test_join_group_with_exception() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = join_group_request_data(group_id="foo", session_timeout=1000)
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "classic-group-join", __tp(0), 5000, ANY,
          returns=failed(IllegalStateException()))

    future = service.join_group(request_context(ApiKeys.JOIN_GROUP), request)

    assert future.result(WAIT_S) == join_group_response_data(error_code=Errors.UNKNOWN_SERVER_ERROR)


def test_join_group_invalid_group_id() -> None:
    service = new_service(mock_runtime())
    service.startup(lambda: 1)
    request = join_group_request_data(group_id=None, member_id=UNKNOWN_MEMBER_ID)

    response = service.join_group(request_context(ApiKeys.JOIN_GROUP), request)

    assert response.done()
    assert response.result() == join_group_response_data(error_code=Errors.INVALID_GROUP_ID,
                                                          member_id=UNKNOWN_MEMBER_ID)


def test_join_group_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = join_group_request_data(group_id="foo")

    future = service.join_group(request_context(ApiKeys.JOIN_GROUP), request)

    assert future.result() == join_group_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


@pytest.mark.parametrize("session_timeout_ms", [120 - 1, 10 * 5 * 1000 + 1])
def test_join_group_invalid_session_timeout(session_timeout_ms: int) -> None:
    service = new_service(mock_runtime())
    service.startup(lambda: 1)
    # GroupMetadataManagerTestContext.JoinGroupRequestBuilder's request
    request = join_group_request_data(group_id="group-id", member_id=UNKNOWN_MEMBER_ID,
                                      session_timeout=session_timeout_ms)

    future = service.join_group(request_context(ApiKeys.JOIN_GROUP), request)

    assert future.result() == join_group_response_data(error_code=Errors.INVALID_SESSION_TIMEOUT)


def test_sync_group() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo")
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "classic-group-sync", __tp(0), 5000, ANY,
          returns=completed(sync_group_response_data()))

    response_future = service.sync_group(request_context(ApiKeys.SYNC_GROUP), request)

    assert not response_future.done()


def test_sync_group_with_exception() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo")
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "classic-group-sync", __tp(0), 5000, ANY,
          returns=failed(IllegalStateException()))

    future = service.sync_group(request_context(ApiKeys.SYNC_GROUP), request)

    assert future.done()
    assert future.result() == sync_group_response_data(error_code=Errors.UNKNOWN_SERVER_ERROR)


def test_sync_group_invalid_group_id() -> None:
    service = new_service(mock_runtime())
    service.startup(lambda: 1)
    request = data(group_id=None, member_id=UNKNOWN_MEMBER_ID)

    response = service.sync_group(request_context(ApiKeys.SYNC_GROUP), request)

    assert response.done()
    assert response.result() == sync_group_response_data(error_code=Errors.INVALID_GROUP_ID)


def test_sync_group_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = data(group_id="foo")

    future = service.sync_group(request_context(ApiKeys.SYNC_GROUP), request)

    assert future.result() == sync_group_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


def _heartbeat_with(runtime_answer: CompletableFuture[Any]) -> CompletableFuture[Any]:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo")
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "classic-group-heartbeat", __tp(0), 5000, ANY, returns=runtime_answer)
    return service.heartbeat(request_context(ApiKeys.HEARTBEAT), request)


def test_heartbeat() -> None:
    future = _heartbeat_with(completed(heartbeat_response_data()))

    assert future.done()
    assert future.result() == heartbeat_response_data()


def test_heartbeat_coordinator_not_available_exception() -> None:
    future = _heartbeat_with(failed(CoordinatorLoadInProgressException(None)))

    assert future.done()
    assert future.result() == heartbeat_response_data()


def test_heartbeat_coordinator_exception() -> None:
    future = _heartbeat_with(failed(RebalanceInProgressException()))

    assert future.done()
    assert future.result() == heartbeat_response_data(error_code=Errors.REBALANCE_IN_PROGRESS)


def test_heartbeat_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = data(group_id="foo")

    future = service.heartbeat(request_context(None), request)

    assert future.result() == heartbeat_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


def _listed_group(group_id: str, protocol_type: str, group_state: str, group_type: str) -> dict[str, Any]:
    return dict(group_id=group_id, protocol_type=protocol_type, group_state=group_state, group_type=group_type)


def test_list_groups() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 3)
    expected_results = [
        _listed_group("group0", "protocol1", "Stable", "classic"),
        _listed_group("group1", "consumer", "Empty", "consumer"),  # ConsumerProtocol.PROTOCOL_TYPE
        _listed_group("group2", "consumer", "Dead", "consumer"),
    ]
    _stub(runtime.schedule_read_all_operation, "list-groups", ANY, returns=[
        completed([expected_results[0]]), completed([expected_results[1]]), completed([expected_results[2]])])

    response_future = service.list_groups(request_context(ApiKeys.LIST_GROUPS), data())

    assert response_future.result(WAIT_S)["groups"] == expected_results


def test_list_groups_failed_with_not_coordinator_exception() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 3)
    expected_results = [
        _listed_group("group0", "protocol1", "Stable", "classic"),
        _listed_group("group1", "consumer", "Empty", "consumer"),
    ]
    _stub(runtime.schedule_read_all_operation, "list-groups", ANY, returns=[
        completed([expected_results[0]]), completed([expected_results[1]]), failed(NotCoordinatorException(""))])

    response_future = service.list_groups(request_context(ApiKeys.LIST_GROUPS), data())

    assert response_future.result(WAIT_S)["groups"] == expected_results


def test_list_groups_with_failure() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 3)
    _stub(runtime.schedule_read_all_operation, "list-groups", ANY, returns=[
        completed([]), completed([]), failed(CoordinatorLoadInProgressException(""))])

    response_future = service.list_groups(request_context(ApiKeys.LIST_GROUPS), data())

    assert response_future.result(WAIT_S) == list_groups_response_data(
        error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS)


def test_list_groups_with_empty_topic_partitions() -> None:
    service = new_service(mock_runtime())
    partition_count = 0
    service.startup(lambda: partition_count)

    future = service.list_groups(request_context(ApiKeys.LIST_GROUPS), data())

    assert future.result() == list_groups_response_data()


def test_list_groups_when_not_started() -> None:
    service = new_service(mock_runtime())

    future = service.list_groups(request_context(ApiKeys.LIST_GROUPS), data())

    assert future.result() == list_groups_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


def test_describe_groups() -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 2)
    described_group1 = describe_groups_described_group(group_id="group-id-1")
    described_group2 = describe_groups_described_group(group_id="group-id-2")
    expected_described_groups = [described_group1, described_group2]
    _stub(runtime.schedule_read_operation, "describe-groups", __tp(0), ANY, returns=completed([described_group1]))
    described_group_future: CompletableFuture[Any] = CompletableFuture()
    _stub(runtime.schedule_read_operation, "describe-groups", __tp(1), ANY, returns=described_group_future)

    future = service.describe_groups(request_context(ApiKeys.DESCRIBE_GROUPS), ["group-id-1", "group-id-2"])

    assert not future.done()
    described_group_future.complete([described_group2])
    assert future.result() == expected_described_groups


def test_describe_groups_invalid_group_id() -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 1)
    described_group = describe_groups_described_group(group_id="")
    expected_described_groups = [
        describe_groups_described_group(group_id=None, error_code=Errors.INVALID_GROUP_ID),
        described_group,
    ]
    _stub(runtime.schedule_read_operation, "describe-groups", __tp(0), ANY, returns=completed([described_group]))

    future = service.describe_groups(request_context(ApiKeys.DESCRIBE_GROUPS), ["", None])

    assert future.result() == expected_described_groups


def test_describe_group_coordinator_load_in_progress() -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 1)
    _stub(runtime.schedule_read_operation, "describe-groups", __tp(0), ANY,
          returns=failed(CoordinatorLoadInProgressException(None)))

    future = service.describe_groups(request_context(ApiKeys.DESCRIBE_GROUPS), ["group-id"])

    assert future.result() == [describe_groups_described_group(group_id="group-id",
                                                               error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS)]


def test_describe_groups_when_not_started() -> None:
    service = new_service(mock_runtime())

    future = service.describe_groups(request_context(ApiKeys.DESCRIBE_GROUPS), ["group-id"])

    assert future.result() == [describe_groups_described_group(group_id="group-id",
                                                               error_code=Errors.COORDINATOR_NOT_AVAILABLE)]


def _offset_fetch_response() -> dict[str, Any]:
    return offset_fetch_response_group(group_id="group", topics=[dict(name="foo", partitions=[
        dict(partition_index=0, committed_offset=100, committed_leader_epoch=-1, metadata="",
             error_code=Errors.NONE)])])


def _check_fetch(name: str, request: Any, require_stable: bool, fetch_all: bool) -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 1)
    response = _offset_fetch_response()
    if require_stable:
        _stub(runtime.schedule_write_operation, name, __tp(0), 5000, ANY, returns=completed(response))
    else:
        _stub(runtime.schedule_read_operation, name, __tp(0), ANY, returns=completed(response))

    fetch = service.fetch_all_offsets if fetch_all else service.fetch_offsets
    future = fetch(request_context(ApiKeys.OFFSET_FETCH), request, require_stable)

    assert future.result(WAIT_S) == response


def _check_fetch_when_not_started(request: Any, require_stable: bool, fetch_all: bool) -> None:
    service = new_service(mock_runtime())

    fetch = service.fetch_all_offsets if fetch_all else service.fetch_offsets
    future = fetch(request_context(ApiKeys.OFFSET_FETCH), request, require_stable)

    assert future.result() == offset_fetch_response_group(group_id="group",
                                                          error_code=Errors.COORDINATOR_NOT_AVAILABLE)


@pytest.mark.parametrize("require_stable", [True, False])
def test_fetch_offsets(require_stable: bool) -> None:
    request = data(group_id="group", topics=[data(name="foo", partition_indexes=[0])])
    _check_fetch("fetch-offsets", request, require_stable, fetch_all=False)


@pytest.mark.parametrize("require_stable", [True, False])
def test_fetch_offsets_when_not_started(require_stable: bool) -> None:
    request = data(group_id="group", topics=[data(name="foo", partition_indexes=[0])])
    _check_fetch_when_not_started(request, require_stable, fetch_all=False)


@pytest.mark.parametrize("require_stable", [True, False])
def test_fetch_all_offsets(require_stable: bool) -> None:
    _check_fetch("fetch-all-offsets", data(group_id="group", topics=None), require_stable, fetch_all=True)


@pytest.mark.parametrize("require_stable", [True, False])
def test_fetch_all_offsets_when_not_started(require_stable: bool) -> None:
    _check_fetch_when_not_started(data(group_id="group", topics=None), require_stable, fetch_all=True)


def test_leave_group() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo", members=[])
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "classic-group-leave", __tp(0), 5000, ANY,
          returns=completed(leave_group_response_data()))

    future = service.leave_group(request_context(ApiKeys.LEAVE_GROUP), request)

    assert future.done()
    assert future.result() == leave_group_response_data()


def test_leave_group_throws_unknown_member_id_exception() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo", members=[
        data(member_id="member-1", group_instance_id="instance-1", reason=None),
        data(member_id="member-2", group_instance_id="instance-2", reason=None),
    ])
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "classic-group-leave", __tp(0), 5000, ANY,
          returns=failed(UnknownMemberIdException()))

    future = service.leave_group(request_context(ApiKeys.LEAVE_GROUP), request)

    assert future.done()
    expected_response = leave_group_response_data(error_code=Errors.NONE, members=[
        leave_group_member_response(member_id="member-1", group_instance_id="instance-1",
                                    error_code=Errors.UNKNOWN_MEMBER_ID),
        leave_group_member_response(member_id="member-2", group_instance_id="instance-2",
                                    error_code=Errors.UNKNOWN_MEMBER_ID),
    ])
    assert future.result() == expected_response


def test_leave_group_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = data(group_id="foo", members=[])

    future = service.leave_group(request_context(ApiKeys.LEAVE_GROUP), request)

    assert future.result() == leave_group_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


def test_consumer_group_describe() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 2)
    described_group1 = consumer_group_describe_described_group(group_id="group-id-1")
    described_group2 = consumer_group_describe_described_group(group_id="group-id-2")
    expected_described_groups = [described_group1, described_group2]
    _stub(runtime.schedule_read_operation, "consumer-group-describe", __tp(0), ANY,
          returns=completed([described_group1]))
    described_group_future: CompletableFuture[Any] = CompletableFuture()
    _stub(runtime.schedule_read_operation, "consumer-group-describe", __tp(1), ANY, returns=described_group_future)

    future = service.consumer_group_describe(request_context(None), ["group-id-1", "group-id-2"])

    assert not future.done()
    described_group_future.complete([described_group2])
    assert future.result() == expected_described_groups


def test_consumer_group_describe_invalid_group_id() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 1)
    described_group = consumer_group_describe_described_group(group_id=None, error_code=Errors.INVALID_GROUP_ID)
    expected_described_groups = [
        consumer_group_describe_described_group(group_id=None, error_code=Errors.INVALID_GROUP_ID),
        described_group,
    ]
    _stub(runtime.schedule_read_operation, "consumer-group-describe", __tp(0), ANY,
          returns=completed([described_group]))

    future = service.consumer_group_describe(request_context(None), ["", None])

    assert future.result() == expected_described_groups


def test_consumer_group_describe_coordinator_load_in_progress() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 1)
    _stub(runtime.schedule_read_operation, "consumer-group-describe", __tp(0), ANY,
          returns=failed(CoordinatorLoadInProgressException(None)))

    future = service.consumer_group_describe(request_context(None), ["group-id"])

    assert future.result() == [consumer_group_describe_described_group(
        group_id="group-id", error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS)]


def test_consumer_group_describe_coordinator_not_active() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    _stub(runtime.schedule_read_operation, "consumer-group-describe", __tp(0), ANY,
          returns=failed(error_exception(Errors.COORDINATOR_NOT_AVAILABLE)))

    future = service.consumer_group_describe(request_context(None), ["group-id"])

    assert future.result() == [consumer_group_describe_described_group(
        group_id="group-id", error_code=Errors.COORDINATOR_NOT_AVAILABLE)]


def _offset_delete_request(group_id: str) -> SimpleNamespace:
    return data(group_id=group_id, topics=[data(name="topic", partitions=[data(partition_index=0)])])


def test_delete_offsets() -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 1)
    request = _offset_delete_request("group")
    response = offset_delete_response_data(topics=[
        dict(name="", partitions=[dict(partition_index=0, error_code=Errors.NONE)])])
    _stub(runtime.schedule_write_operation, "delete-offsets", __tp(0), 5000, ANY, returns=completed(response))

    future = service.delete_offsets(request_context(ApiKeys.OFFSET_DELETE), request)

    assert future.done()
    assert future.result() == response


def test_delete_offsets_invalid_group_id() -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 1)
    request = _offset_delete_request("")
    response = offset_delete_response_data(error_code=Errors.INVALID_GROUP_ID)
    _stub(runtime.schedule_write_operation, "delete-offsets", __tp(0), 5000, ANY, returns=completed(response))

    future = service.delete_offsets(request_context(ApiKeys.OFFSET_DELETE), request)

    assert future.done()
    assert future.result() == response


@EXCEPTIONS
def test_delete_offsets_with_exception(exception: BaseException, expected_error_code: Errors,
                                       expected_error_message: str | None) -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 1)
    request = _offset_delete_request("group")
    response = offset_delete_response_data(error_code=expected_error_code)
    _stub(runtime.schedule_write_operation, "delete-offsets", __tp(0), 5000, ANY, returns=failed(exception))

    future = service.delete_offsets(request_context(ApiKeys.OFFSET_DELETE), request)

    assert future.done()
    assert future.result() == response


def test_delete_offsets_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = data(group_id="foo", topics=[])

    future = service.delete_offsets(request_context(ApiKeys.OFFSET_DELETE), request)

    assert future.result() == offset_delete_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


def test_delete_groups() -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 3)

    result1 = deletable_group_result(group_id="group-id-1")
    result_collection1 = [result1]
    result2 = deletable_group_result(group_id="group-id-2")
    result_collection2 = [result2]
    result3 = deletable_group_result(group_id="group-id-3", error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS)
    expected_result_collection = [
        deletable_group_result(group_id=None, error_code=Errors.INVALID_GROUP_ID),
        dict(result2),
        dict(result3),
        dict(result1),
    ]

    _stub(runtime.schedule_write_operation, "delete-groups", __tp(2), 5000, ANY,
          returns=completed(result_collection1))
    result_collection_future: CompletableFuture[Any] = CompletableFuture()
    _stub(runtime.schedule_write_operation, "delete-groups", __tp(0), 5000, ANY, returns=result_collection_future)
    _stub(runtime.schedule_write_operation, "delete-groups", __tp(1), 5000, ANY,
          returns=failed(error_exception(Errors.COORDINATOR_LOAD_IN_PROGRESS)))

    group_ids = ["group-id-1", "group-id-2", "group-id-3", None]
    future = service.delete_groups(request_context(ApiKeys.DELETE_GROUPS), group_ids)

    assert not future.done()
    result_collection_future.complete(result_collection2)
    assert future.done()
    assert future.result() == expected_result_collection


@EXCEPTIONS
def test_delete_groups_with_exception(exception: BaseException, expected_error_code: Errors,
                                      expected_error_message: str | None) -> None:
    runtime = mock_runtime()
    service = new_service(runtime, mock.Mock())
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "delete-groups", __tp(0), 5000, ANY, returns=failed(exception))

    future = service.delete_groups(request_context(ApiKeys.DELETE_GROUPS), ["group-id"])

    assert future.result() == [deletable_group_result(group_id="group-id", error_code=expected_error_code)]


def test_delete_groups_when_not_started() -> None:
    service = new_service(mock_runtime(), mock.Mock())

    future = service.delete_groups(request_context(ApiKeys.DELETE_GROUPS), ["foo"])

    assert future.result() == [deletable_group_result(group_id="foo", error_code=Errors.COORDINATOR_NOT_AVAILABLE)]


def _txn_offset_commit_request(group_id: str | None, producer_id: int = 0, producer_epoch: int = 0) -> Any:
    return data(group_id=group_id, transactional_id="transactional-id", producer_id=producer_id,
                producer_epoch=producer_epoch, member_id="member-id", generation_id=10, group_instance_id=None,
                topics=[data(name="topic", partitions=[data(partition_index=0, committed_offset=100,
                                                             committed_leader_epoch=-1, committed_metadata="")])])


def _txn_offset_commit_response(error: Errors) -> dict[str, Any]:
    return dict(throttle_time=0, topics=[dict(name="topic", partitions=[dict(partition_index=0, error_code=error)])])


def test_commit_transactional_offsets_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = _txn_offset_commit_request("foo")

    future = service.commit_transactional_offsets(request_context(ApiKeys.TXN_OFFSET_COMMIT), request)

    assert future.result() == _txn_offset_commit_response(Errors.COORDINATOR_NOT_AVAILABLE)


@pytest.mark.parametrize("group_id", [None, ""])
def test_commit_transactional_offsets_with_invalid_group_id(group_id: str | None) -> None:
    service = new_service(mock_runtime())
    service.startup(lambda: 1)
    request = _txn_offset_commit_request(group_id)

    future = service.commit_transactional_offsets(request_context(ApiKeys.TXN_OFFSET_COMMIT), request)

    assert future.result() == _txn_offset_commit_response(Errors.INVALID_GROUP_ID)


def test_commit_transactional_offsets() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 1)
    request = _txn_offset_commit_request("foo", producer_id=10, producer_epoch=5)
    response = _txn_offset_commit_response(Errors.NONE)
    _stub(runtime.schedule_transactional_write_operation, "txn-commit-offset", __tp(0), "transactional-id", 10, 5,
          5000, ANY, ANY, returns=completed(response))

    future = service.commit_transactional_offsets(request_context(ApiKeys.TXN_OFFSET_COMMIT), request)

    assert future.result() == response


@pytest.mark.parametrize("error,expected_error", [
    (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NETWORK_EXCEPTION, Errors.COORDINATOR_LOAD_IN_PROGRESS),
])
def test_commit_transactional_offsets_with_wrapped_error(error: Errors, expected_error: Errors) -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 1)
    request = _txn_offset_commit_request("foo", producer_id=10, producer_epoch=5)
    response = _txn_offset_commit_response(expected_error)
    # Kafka wraps it in a CompletionException, which the port's futures do not have (module docstring)
    _stub(runtime.schedule_transactional_write_operation, "txn-commit-offset", __tp(0), "transactional-id", 10, 5,
          5000, ANY, ANY, returns=failed(error_exception(error)))

    future = service.commit_transactional_offsets(request_context(ApiKeys.TXN_OFFSET_COMMIT), request)

    assert future.result() == response


def test_complete_transaction() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 1)
    _stub(runtime.schedule_transaction_completion, "write-txn-marker", __tp(0), 100, 5, 10,
          TransactionResult.COMMIT, 100, returns=completed(None))

    future = service.complete_transaction(__tp(0), 100, 5, 10, TransactionResult.COMMIT, 100)

    assert future.result() is None


def test_complete_transaction_when_not_coordinator_service_started() -> None:
    service = new_service(mock_runtime())

    future = service.complete_transaction(TopicPartition("foo", 0), 100, 5, 10, TransactionResult.COMMIT, 100)

    with pytest.raises(CoordinatorNotAvailableException):
        future.result(WAIT_S)


def test_complete_transaction_with_unexpected_partition() -> None:
    service = new_service(mock_runtime())
    service.startup(lambda: 1)

    future = service.complete_transaction(TopicPartition("foo", 0), 100, 5, 10, TransactionResult.COMMIT, 100)

    with pytest.raises(IllegalStateException):
        future.result(WAIT_S)


def test_on_partitions_deleted() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    service.startup(lambda: 3)
    _stub(runtime.schedule_write_all_operation, "on-partition-deleted", 5000, ANY, returns=[
        completed(None), completed(None), failed(error_exception(Errors.COORDINATOR_LOAD_IN_PROGRESS))])

    # the failure is logged, not raised
    service.on_partitions_deleted([TopicPartition("foo", 0)])


def test_on_partitions_deleted_when_service_is_not_started() -> None:
    service = new_service(mock_runtime())

    with pytest.raises(CoordinatorNotAvailableException):
        service.on_partitions_deleted([TopicPartition("foo", 0)])


def test_share_group_heartbeat_when_not_started() -> None:
    service = new_service(mock_runtime())
    request = data(group_id="foo")

    future = service.share_group_heartbeat(request_context(None), request)

    assert future.result() == share_group_heartbeat_response_data(error_code=Errors.COORDINATOR_NOT_AVAILABLE)


def test_share_group_heartbeat() -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo")
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "share-group-heartbeat", __tp(0), 5000, ANY,
          returns=completed(share_group_heartbeat_response_data()))

    future = service.share_group_heartbeat(request_context(None), request)

    assert future.result(WAIT_S) == share_group_heartbeat_response_data()


@EXCEPTIONS
def test_share_group_heartbeat_with_exception(exception: BaseException, expected_error_code: Errors,
                                              expected_error_message: str | None) -> None:
    runtime = mock_runtime()
    service = new_service(runtime)
    request = data(group_id="foo")
    service.startup(lambda: 1)
    _stub(runtime.schedule_write_operation, "share-group-heartbeat", __tp(0), 5000, ANY, returns=failed(exception))

    future = service.share_group_heartbeat(request_context(None), request)

    assert future.result(WAIT_S) == share_group_heartbeat_response_data(
        error_code=expected_error_code, error_message=expected_error_message)
