"""Port of core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorAdapterTest.scala (Kafka 3.9).

Kafka mocks the old coordinator (3.9's Scala GroupCoordinator); here the adapter sits on Kafka 1.0.2's, so the mock
is an autospec of 1.0.2's GroupCoordinator and each case checks the call the adapter makes in 1.0.2's signature,
then completes 1.0.2's callback and checks the response. Requests are built as Kafka's tests build them, as data
objects carrying every field (`_data`), which the adapter reads by attribute as it reads kio's bodies.

Where 1.0.2's coordinator cannot carry what Kafka's test hands back, the case checks what the adapter answers
instead (the module docstring of group_coordinator_adapter.py lists these): no group instance ids, no skipped
assignment and no protocol type in a failed JoinGroup's answer, no committed leader epochs, an expiry for every
offset. A SyncGroup with a group instance id (Kafka's test sets one, read from v3 on) is a deliberate difference:
static membership fails with UNSUPPORTED_VERSION. testDeleteOffsetsWithGroupLevelError reaches its group-level
error through the adapter's own handleDeleteOffsets (an empty group id) rather than through a mock's answer.
testLeaveGroup and testDeleteOffsets carry no @Test in Kafka's class, so JUnit does not run them: not listed.

The port's ApiKeys (the APIs this broker serves) has no ConsumerGroupHeartbeat, ShareGroupHeartbeat,
ConsumerGroupDescribe, ShareGroupDescribe or OffsetDelete: those cases pass no request context, which the adapter
does not read for them.
"""

from __future__ import annotations

from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import EMPTY_GROUP, GroupCoordinator, JoinGroupResult
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import GroupOverview, GroupSummary
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import PartitionData
from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberSummary
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_config import OffsetConfig
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.coordinator.group.group_coordinator_adapter import GroupCoordinatorAdapter
from kafka_edu.v3_9.core.server.kraft_coordinator_bridge import VerifyingGroupCoordinator
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from tests.kafka_tests.referee import differs, kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorAdapterTest.scala",
    cases=[
        "testJoinConsumerGroup",
        "testJoinShareGroup",
        "testJoinGroup",
        "testSyncGroup",
        "testHeartbeat",
        "testListGroups",
        "testDescribeGroup",
        "testDeleteGroups",
        "testFetchAllOffsets",
        "testFetchOffsets",
        "testCommitOffsets",
        "testCommitTransactionalOffsets",
        "testDeleteOffsetsWithGroupLevelError",
        "testConsumerGroupDescribe",
        "testShareGroupDescribe",
    ],
)

CLIENT_ADDRESS = "127.0.0.1"
RETENTION_MS = OffsetConfig().offsets_retention_ms


def make_context(api_key: ApiKeys, api_version: int) -> RequestContext:
    return RequestContext(RequestHeader(api_key, api_version, "client", 0), "1", CLIENT_ADDRESS, 0, ANONYMOUS,
                          ListenerName.for_security_protocol(SecurityProtocol.PLAINTEXT), SecurityProtocol.PLAINTEXT,
                          ClientInformation.EMPTY, False)


def _data(**fields: Any) -> SimpleNamespace:
    """A request's data object, as Kafka's XxxRequestData with its setters called."""
    return SimpleNamespace(**fields)


def _versions(api_key: ApiKeys) -> list[int]:
    """@ApiKeyVersionsSource: every version of the API."""
    return list(range(api_key.oldest_version, api_key.latest_version + 1))


class FakeGroup:
    def __init__(self, state: str, protocol_type: str = "consumer", protocol: str | None = "range") -> None:
        self.current_state = SimpleNamespace(name=state)
        self.protocol_type = protocol_type
        self.protocol_or_null = protocol


def mock_coordinator(groups: dict[str, FakeGroup] | None = None) -> Any:
    """mock(classOf[GroupCoordinator]) over 1.0.2's class, with the two fields the adapter reads besides its
    methods: the group cache (states, protocols) and the offsets' default retention."""
    coordinator = mock.create_autospec(GroupCoordinator, instance=True)
    # the broker's coordinator takes 3.9's transactional id, api version and request local here (the bridge's
    # VerifyingGroupCoordinator, which verifies the transaction first)
    coordinator.handle_txn_commit_offsets = mock.create_autospec(
        VerifyingGroupCoordinator(None).handle_txn_commit_offsets)
    known = dict(groups or {})
    coordinator.group_manager = SimpleNamespace(get_group=known.get)
    coordinator.offset_config = OffsetConfig()
    return coordinator


def assert_future_throws(future: Future[Any], exception_class: type[BaseException] | str) -> BaseException:
    """TestUtils.assertFutureThrows; a class the port has not got is named (its error code decides)."""
    assert future.done()
    exception = future.exception()
    assert exception is not None
    if isinstance(exception_class, str):
        assert type(exception).__name__ == exception_class
    else:
        assert isinstance(exception, exception_class)
    return exception


def test_join_consumer_group() -> None:
    adapter = GroupCoordinatorAdapter(mock_coordinator(), SYSTEM)
    request = _data(group_id="group")

    future = adapter.consumer_group_heartbeat(None, request)

    assert future.done()
    assert future.exception() is not None
    assert_future_throws(future, UnsupportedVersionException)


def test_join_share_group() -> None:
    adapter = GroupCoordinatorAdapter(mock_coordinator(), SYSTEM)
    request = _data(group_id="group")

    future = adapter.share_group_heartbeat(None, request)

    assert future.done()
    assert future.exception() is not None
    assert_future_throws(future, UnsupportedVersionException)


@pytest.mark.parametrize("version", _versions(ApiKeys.JOIN_GROUP))
def test_join_group(version: int) -> None:
    group_coordinator = mock_coordinator()
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    ctx = make_context(ApiKeys.JOIN_GROUP, version)
    request = _data(group_id="group", member_id="member", group_instance_id=None, protocol_type="consumer",
                    rebalance_timeout=1000, session_timeout=2000, reason="reason",
                    protocols=[_data(name="first", metadata=b"first"), _data(name="second", metadata=b"second")])

    future = adapter.join_group(ctx, request, None)
    assert not future.done()

    # 1.0.2 takes no instance id, no require-known-member-id (v4+), no skip-assignment (v9+) and no reason
    group_coordinator.handle_join_group.assert_called_once()
    args = group_coordinator.handle_join_group.call_args.args
    assert args[:7] == (request.group_id, request.member_id, ctx.client_id(), f"/{CLIENT_ADDRESS}",
                        request.rebalance_timeout, request.session_timeout, request.protocol_type)
    captured_protocols, captured_callback = args[7], args[8]
    assert [(name, metadata.decode()) for name, metadata in captured_protocols] == [
        ("first", "first"), ("second", "second")]

    captured_callback(JoinGroupResult(
        members={"member": b"member"},
        member_id="member",
        generation_id=10,
        sub_protocol="range",
        leader_id="leader",
        error=Errors.UNKNOWN_MEMBER_ID))

    # 1.0.2's result carries no instance ids, no skip-assignment and no protocol type (None with an error)
    expected_data = dict(
        members=[dict(member_id="member", group_instance_id=None, metadata=b"member")],
        member_id="member",
        generation_id=10,
        protocol_type=None,
        protocol_name="range",
        leader="leader",
        skip_assignment=False,
        error_code=Errors.UNKNOWN_MEMBER_ID)

    assert future.done()
    assert future.result() == expected_data


_STATIC_SYNC = differs("static membership: 1.0.2's coordinator has none, so a SyncGroup with a group instance id "
                       "(read from v3 on) fails with UNSUPPORTED_VERSION instead of reaching the coordinator")


@pytest.mark.parametrize("version", [pytest.param(v, marks=_STATIC_SYNC) if v >= 3 else v
                                     for v in _versions(ApiKeys.SYNC_GROUP)])
def test_sync_group(version: int) -> None:
    group_coordinator = mock_coordinator({"group": FakeGroup("AwaitingSync", "consumer", "range")})
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    ctx = make_context(ApiKeys.SYNC_GROUP, version)
    # the group instance id exists from v3 on (an older body has none to carry)
    data = _data(group_id="group", member_id="member1", group_instance_id="instance" if version >= 3 else None,
                 protocol_type="consumer", protocol_name="range", generation_id=10,
                 assignments=[_data(member_id="member1", assignment=b"member1"),
                              _data(member_id="member2", assignment=b"member2")])

    future = adapter.sync_group(ctx, data, None)
    assert not future.done()

    group_coordinator.handle_sync_group.assert_called_once()
    args = group_coordinator.handle_sync_group.call_args.args
    assert args[:3] == (data.group_id, data.generation_id, data.member_id)
    captured_assignment, captured_callback = args[3], args[4]
    assert {member: metadata.decode() for member, metadata in captured_assignment.items()} == {
        "member1": "member1", "member2": "member2"}

    captured_callback(b"member1", Errors.NONE)

    expected_response_data = dict(error_code=Errors.NONE, protocol_type="consumer", protocol_name="range",
                                  assignment=b"member1")

    assert future.done()
    assert future.result() == expected_response_data


def test_heartbeat() -> None:
    group_coordinator = mock_coordinator()
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    ctx = make_context(ApiKeys.HEARTBEAT, ApiKeys.HEARTBEAT.latest_version)
    data = _data(group_id="group", member_id="member1", group_instance_id=None, generation_id=0)

    future = adapter.heartbeat(ctx, data)

    group_coordinator.handle_heartbeat.assert_called_once()
    args = group_coordinator.handle_heartbeat.call_args.args
    assert args[:3] == (data.group_id, data.member_id, data.generation_id)
    captured_callback = args[3]

    assert not future.done()

    captured_callback(Errors.NONE)

    assert future.done()
    assert future.result() == dict(error_code=Errors.NONE)


def _test_list_groups(states_filter: list[str] | None, types_filter: list[str] | None,
                      expected_groups: list[str]) -> None:
    group_coordinator = mock_coordinator({"group1": FakeGroup("Stable"), "group2": FakeGroup("Empty")})
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    ctx = make_context(ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.latest_version)
    data = _data(states_filter=states_filter, types_filter=types_filter)

    group_coordinator.handle_list_groups.return_value = (Errors.NOT_COORDINATOR, [
        GroupOverview("group1", "protocol1"),
        GroupOverview("group2", "qwerty"),
    ])

    future = adapter.list_groups(ctx, data)
    assert future.done()

    listed = {
        "group1": dict(group_id="group1", protocol_type="protocol1", group_state="Stable", group_type="classic"),
        "group2": dict(group_id="group2", protocol_type="qwerty", group_state="Empty", group_type="classic"),
    }
    expected_data = dict(error_code=Errors.NOT_COORDINATOR, groups=[listed[g] for g in expected_groups])

    assert future.done()
    assert future.result() == expected_data


def test_list_groups() -> None:
    # 1.0.2 takes no filters: the adapter applies them as 3.9's coordinator does (states case-insensitively, every
    # group classic), so the one state "Stable, Empty" matches neither group
    _test_list_groups(None, None, ["group1", "group2"])
    _test_list_groups([], [], ["group1", "group2"])
    _test_list_groups(["Stable, Empty"], [], [])
    _test_list_groups([], ["classic"], ["group1", "group2"])


def test_describe_group() -> None:
    group_coordinator = mock_coordinator()
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    group_id1 = "group-1"
    group_id2 = "group-2"

    group_summary1 = GroupSummary(
        "Stable",
        "consumer",
        "roundrobin",
        [MemberSummary("memberid", "clientid", "clienthost", b"metadata", b"assignment")])

    group_coordinator.handle_describe_group.side_effect = lambda group_id: {
        group_id1: (Errors.NONE, group_summary1),
        group_id2: (Errors.NOT_COORDINATOR, EMPTY_GROUP),
    }[group_id]

    ctx = make_context(ApiKeys.DESCRIBE_GROUPS, ApiKeys.DESCRIBE_GROUPS.latest_version)
    future = adapter.describe_groups(ctx, [group_id1, group_id2])
    assert future.done()

    member = group_summary1.members[0]
    expected_described_groups = [
        dict(group_id=group_id1, error_code=Errors.NONE, protocol_type=group_summary1.protocol_type,
             protocol_data=group_summary1.protocol, group_state=group_summary1.state,
             # 1.0.2's members have no instance id
             members=[dict(member_id=member.member_id, group_instance_id=None, client_id=member.client_id,
                           client_host=member.client_host, member_metadata=member.metadata,
                           member_assignment=member.assignment)]),
        dict(group_id=group_id2, error_code=Errors.NOT_COORDINATOR, protocol_type="", protocol_data="",
             group_state="", members=[]),
    ]

    assert future.result() == expected_described_groups


def test_delete_groups() -> None:
    group_coordinator = mock_coordinator()
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    ctx = make_context(ApiKeys.DELETE_GROUPS, ApiKeys.DELETE_GROUPS.latest_version)
    group_ids = ["group-1", "group-2", "group-3"]

    group_coordinator.handle_delete_groups.return_value = {
        "group-1": Errors.NONE,
        "group-2": Errors.NOT_COORDINATOR,
        "group-3": Errors.INVALID_GROUP_ID,
    }

    future = adapter.delete_groups(ctx, group_ids, None)
    assert future.done()
    group_coordinator.handle_delete_groups.assert_called_once_with(set(group_ids))

    expected_results = [
        dict(group_id="group-1", error_code=Errors.NONE),
        dict(group_id="group-2", error_code=Errors.NOT_COORDINATOR),
        dict(group_id="group-3", error_code=Errors.INVALID_GROUP_ID),
    ]

    assert future.result() == expected_results


def _expected_offsets() -> list[dict[str, Any]]:
    # 1.0.2 stores no leader epoch: foo-0's, 1 in Kafka's case, reads -1
    return [
        dict(name="foo", partitions=[
            dict(partition_index=0, committed_offset=100, committed_leader_epoch=-1, metadata="foo",
                 error_code=Errors.NONE),
            dict(partition_index=1, committed_offset=200, committed_leader_epoch=-1, metadata="",
                 error_code=Errors.NONE)]),
        dict(name="bar", partitions=[
            dict(partition_index=1, committed_offset=-1, committed_leader_epoch=-1, metadata="",
                 error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION)]),
    ]


def _sorted_topics(topics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(({**t, "partitions": sorted(t["partitions"], key=lambda p: p["partition_index"])} for t in topics),
                  key=lambda t: t["name"], reverse=True)


def _fetched_offsets() -> dict[TopicPartition, PartitionData]:
    return {
        TopicPartition("foo", 0): PartitionData(100, "foo", Errors.NONE),
        TopicPartition("bar", 1): PartitionData(-1, "", Errors.UNKNOWN_TOPIC_OR_PARTITION),
        TopicPartition("foo", 1): PartitionData(200, "", Errors.NONE),
    }


def test_fetch_all_offsets() -> None:
    group_coordinator = mock_coordinator()
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    group_coordinator.handle_fetch_offsets.return_value = (Errors.NONE, _fetched_offsets())

    ctx = make_context(ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_FETCH.latest_version)
    future = adapter.fetch_all_offsets(ctx, _data(group_id="group", topics=None), require_stable=True)

    assert future.done()
    # 1.0.2 takes no require_stable
    group_coordinator.handle_fetch_offsets.assert_called_once_with("group", None)

    assert future.result()["group_id"] == "group"
    assert _sorted_topics(future.result()["topics"]) == _sorted_topics(_expected_offsets())


def test_fetch_offsets() -> None:
    foo0, foo1, bar1 = TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 1)

    group_coordinator = mock_coordinator()
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    group_coordinator.handle_fetch_offsets.return_value = (Errors.NONE, _fetched_offsets())

    ctx = make_context(ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_FETCH.latest_version)
    future = adapter.fetch_offsets(
        ctx,
        _data(group_id="group", topics=[_data(name=foo0.topic, partition_indexes=[foo0.partition, foo1.partition]),
                                        _data(name=bar1.topic, partition_indexes=[bar1.partition])]),
        require_stable=True)

    assert future.done()
    group_coordinator.handle_fetch_offsets.assert_called_once_with("group", [foo0, foo1, bar1])

    assert future.result()["group_id"] == "group"
    assert _sorted_topics(future.result()["topics"]) == _sorted_topics(_expected_offsets())


@pytest.mark.parametrize("version", _versions(ApiKeys.OFFSET_COMMIT))
def test_commit_offsets(version: int) -> None:
    group_coordinator = mock_coordinator()
    time = MockTime()
    adapter = GroupCoordinatorAdapter(group_coordinator, time)
    now = time.milliseconds()

    ctx = make_context(ApiKeys.OFFSET_COMMIT, version)
    data = _data(group_id="group", member_id="member", group_instance_id=None, generation_id_or_member_epoch=10,
                 retention_time=1000,
                 topics=[_data(name="foo", partitions=[
                     _data(partition_index=0, committed_offset=100, commit_timestamp=now, committed_leader_epoch=1,
                           committed_metadata=None)])])

    future = adapter.commit_offsets(ctx, data, None)
    assert not future.done()

    group_coordinator.handle_commit_offsets.assert_called_once()
    args = group_coordinator.handle_commit_offsets.call_args.args
    # 1.0.2 stores no leader epoch
    assert args[:4] == (data.group_id, data.member_id, data.generation_id_or_member_epoch, {
        TopicPartition("foo", 0): OffsetAndMetadata(offset=100, metadata="", commit_timestamp=now,
                                                    expire_timestamp=now + 1000)})
    captured_callback = args[4]

    captured_callback({TopicPartition("foo", 0): Errors.NONE})

    expected_response_data = dict(topics=[
        dict(name="foo", partitions=[dict(partition_index=0, error_code=Errors.NONE)])])

    assert future.done()
    assert future.result() == expected_response_data


def test_commit_transactional_offsets() -> None:
    group_coordinator = mock_coordinator()
    time = MockTime()
    adapter = GroupCoordinatorAdapter(group_coordinator, time)
    now = time.milliseconds()

    ctx = make_context(ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.TXN_OFFSET_COMMIT.latest_version)
    data = _data(group_id="group", member_id="member", group_instance_id=None, generation_id=10, producer_epoch=1,
                 producer_id=2, transactional_id="transaction-id",
                 topics=[_data(name="foo", partitions=[
                     _data(partition_index=0, committed_offset=100, committed_leader_epoch=1,
                           committed_metadata=None)])])

    future = adapter.commit_transactional_offsets(ctx, data, None)
    assert not future.done()

    group_coordinator.handle_txn_commit_offsets.assert_called_once()
    args = group_coordinator.handle_txn_commit_offsets.call_args.args
    # 1.0.2 takes no transactional id, member, generation or api version, and needs the expiry now
    assert args[:4] == (data.group_id, data.producer_id, data.producer_epoch, {
        TopicPartition("foo", 0): OffsetAndMetadata(offset=100, metadata="", commit_timestamp=now,
                                                    expire_timestamp=now + RETENTION_MS)})
    captured_callback = args[4]
    kwargs = group_coordinator.handle_txn_commit_offsets.call_args.kwargs
    assert (kwargs["transactional_id"], kwargs["api_version"]) == ("transaction-id",
                                                                   ApiKeys.TXN_OFFSET_COMMIT.latest_version)

    captured_callback({TopicPartition("foo", 0): Errors.NONE})

    expected_data = dict(topics=[dict(name="foo", partitions=[dict(partition_index=0, error_code=Errors.NONE)])])

    assert future.done()
    assert future.result() == expected_data


def test_delete_offsets_with_group_level_error() -> None:
    group_coordinator = mock_coordinator()
    adapter = GroupCoordinatorAdapter(group_coordinator, SYSTEM)

    ctx = None  # the port's ApiKeys has no OffsetDelete (see the module docstring)
    # Kafka's mock answers INVALID_GROUP_ID for "group"; the adapter's own handleDeleteOffsets answers it for ""
    data = _data(group_id="", topics=[_data(name="foo", partitions=[_data(partition_index=0),
                                                                     _data(partition_index=1)])])

    future = adapter.delete_offsets(ctx, data, None)
    assert future.done()
    assert future.exception() is not None
    exception = assert_future_throws(future, "InvalidGroupIdException")
    assert Errors.for_exception(exception) == Errors.INVALID_GROUP_ID


def test_consumer_group_describe() -> None:
    adapter = GroupCoordinatorAdapter(mock_coordinator(), SYSTEM)
    group_ids = ["group-id-1", "group-id-2"]

    future = adapter.consumer_group_describe(None, group_ids)
    assert future.done()
    assert future.exception() is not None
    assert_future_throws(future, UnsupportedVersionException)


def test_share_group_describe() -> None:
    adapter = GroupCoordinatorAdapter(mock_coordinator(), SYSTEM)
    group_ids = ["group-id-1", "group-id-2"]

    future = adapter.share_group_describe(None, group_ids)
    assert future.done()
    assert future.exception() is not None
    assert_future_throws(future, UnsupportedVersionException)
