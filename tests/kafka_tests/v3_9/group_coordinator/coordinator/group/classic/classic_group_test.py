"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/classic/ClassicGroupTest.java (Kafka 3.9).

The port's ClassicGroup takes no GroupCoordinatorMetricsShard (it has no metrics registry), so Kafka's shard argument
(real or mock) is left out; LogContext is its prefix string. JoinGroupRequestProtocolCollection is a list of kio's
JoinGroup (v9) JoinGroupRequestProtocol; Java's Optional is `X | None`; CompletableFuture is the port's. Kafka's
mkSet is a set literal. @ApiKeyVersionsSource(OFFSET_COMMIT) is every OffsetCommit version, from ApiKeys.
"""

from __future__ import annotations

import pytest
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol
from kio.schema.join_group.v9.response import JoinGroupResponse
from kio.schema.sync_group.v5.response import SyncGroupResponse

from kafka_edu.v1_0_2.clients.common.errors import (
    CoordinatorNotAvailableException,
    IllegalArgumentException,
    IllegalStateException,
)
from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Subscription
from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.common.errors.fenced_instance_id_exception import FencedInstanceIdException
from kafka_edu.v3_9.clients.common.errors.group_id_not_found_exception import GroupIdNotFoundException
from kafka_edu.v3_9.clients.common.errors.group_not_empty_exception import GroupNotEmptyException
from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
from kafka_edu.v3_9.clients.common.errors.rebalance_in_progress_exception import RebalanceInProgressException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import (
    ClassicGroup,
    join_group_response,
    sync_group_response,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition_impl import (
    OffsetExpirationConditionImpl,
)
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/classic/ClassicGroupTest.java",
    cases=["testCanRebalanceWhenStable", "testCanRebalanceWhenCompletingRebalance",
           "testCannotRebalanceWhenPreparingRebalance", "testCannotRebalanceWhenDead",
           "testStableToPreparingRebalanceTransition", "testStableToDeadTransition",
           "testAwaitingRebalanceToPreparingRebalanceTransition", "testPreparingRebalanceToDeadTransition",
           "testPreparingRebalanceToEmptyTransition", "testEmptyToDeadTransition",
           "testAwaitingRebalanceToStableTransition", "testEmptyToStableIllegalTransition",
           "testStableToStableIllegalTransition", "testEmptyToAwaitingRebalanceIllegalTransition",
           "testPreparingRebalanceToPreparingRebalanceIllegalTransition",
           "testPreparingRebalanceToStableIllegalTransition",
           "testAwaitingRebalanceToAwaitingRebalanceIllegalTransition", "testDeadToDeadIllegalTransition",
           "testDeadToStableIllegalTransition", "testDeadToPreparingRebalanceIllegalTransition",
           "testDeadToAwaitingRebalanceIllegalTransition", "testSelectProtocol", "testSelectProtocolRaisesIfNoMembers",
           "testSelectProtocolChoosesCompatibleProtocol", "testSupportsProtocols", "testSubscribedTopics",
           "testSubscribedTopicsNonConsumerGroup", "testInitNextGeneration", "testInitNextGenerationEmptyGroup",
           "testUpdateMember", "testReplaceGroupInstanceWithNonExistingMember", "testReplaceGroupInstance",
           "testCompleteJoinFuture", "testNotCompleteJoinFuture", "testCompleteSyncFuture",
           "testNotCompleteSyncFuture", "testCannotAddPendingMemberIfStable",
           "testRemovalFromPendingAfterMemberIsStable", "testRemovalFromPendingWhenMemberIsRemoved",
           "testCannotAddStaticMemberIfAlreadyPresent", "testCannotAddPendingSyncOfUnknownMember",
           "testCannotRemovePendingSyncOfUnknownMember", "testCanAddAndRemovePendingSyncMember",
           "testRemovalFromPendingSyncWhenMemberIsRemoved", "testNewGenerationClearsPendingSyncMembers",
           "testElectNewJoinedLeader", "testMaybeElectNewJoinedLeaderChooseExisting", "testValidateOffsetCommit",
           "testValidateOffsetDelete", "testValidateDeleteGroup", "testOffsetExpirationCondition",
           "testIsSubscribedToTopic", "testStateTransitionMetrics", "testIsInStates", "testCompleteAllJoinFutures",
           "testCompleteAllSyncFutures"],
    not_applicable={
        "testStateTransitionMetrics": "metrics: the port has no metrics registry, so ClassicGroup reports its state "
                                      "transitions to no GroupCoordinatorMetricsShard",
    },
)

EMPTY = ClassicGroupState.EMPTY
PREPARING_REBALANCE = ClassicGroupState.PREPARING_REBALANCE
COMPLETING_REBALANCE = ClassicGroupState.COMPLETING_REBALANCE
STABLE = ClassicGroupState.STABLE
DEAD = ClassicGroupState.DEAD

OFFSET_COMMIT_VERSIONS = list(range(ApiKeys.OFFSET_COMMIT.oldest_version, ApiKeys.OFFSET_COMMIT.latest_version + 1))

PROTOCOL_TYPE = "consumer"
GROUP_INSTANCE_ID = "groupInstanceId"
MEMBER_ID = "memberId"
CLIENT_ID = "clientId"
CLIENT_HOST = "clientHost"
REBALANCE_TIMEOUT_MS = 60000
SESSION_TIMEOUT_MS = 10000
LOG_CONTEXT = ""


@pytest.fixture
def group() -> ClassicGroup:
    return ClassicGroup(LOG_CONTEXT, "groupId", EMPTY, SYSTEM)


def protocol(name: str, metadata: bytes = b"") -> JoinGroupRequestProtocol:
    return JoinGroupRequestProtocol(name=name, metadata=metadata)


def new_member(member_id: str, protocols: list[JoinGroupRequestProtocol], group_instance_id: str | None = None,
               protocol_type: str = PROTOCOL_TYPE) -> ClassicGroupMember:
    return ClassicGroupMember(member_id, group_instance_id, CLIENT_ID, CLIENT_HOST, REBALANCE_TIMEOUT_MS,
                              SESSION_TIMEOUT_MS, protocol_type, protocols)


def subscription_metadata(*topics: str) -> bytes:
    return bytes(consumer_protocol.serialize_subscription(Subscription(list(topics))).array())


def assert_state(group: ClassicGroup, target_state: ClassicGroupState) -> None:
    other_states = {STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, DEAD} - {target_state}
    for other_state in other_states:
        assert not group.is_in_state(other_state)
    assert group.is_in_state(target_state)


def test_can_rebalance_when_stable(group: ClassicGroup) -> None:
    assert group.can_rebalance()


def test_can_rebalance_when_completing_rebalance(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(COMPLETING_REBALANCE)
    assert group.can_rebalance()


def test_cannot_rebalance_when_preparing_rebalance(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    assert not group.can_rebalance()


def test_cannot_rebalance_when_dead(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(EMPTY)
    group.transition_to(DEAD)
    assert not group.can_rebalance()


def test_stable_to_preparing_rebalance_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    assert_state(group, PREPARING_REBALANCE)


def test_stable_to_dead_transition(group: ClassicGroup) -> None:
    group.transition_to(DEAD)
    assert_state(group, DEAD)


def test_awaiting_rebalance_to_preparing_rebalance_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(COMPLETING_REBALANCE)
    group.transition_to(PREPARING_REBALANCE)
    assert_state(group, PREPARING_REBALANCE)


def test_preparing_rebalance_to_dead_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(DEAD)
    assert_state(group, DEAD)


def test_preparing_rebalance_to_empty_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(EMPTY)
    assert_state(group, EMPTY)


def test_empty_to_dead_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(EMPTY)
    group.transition_to(DEAD)
    assert_state(group, DEAD)


def test_awaiting_rebalance_to_stable_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(COMPLETING_REBALANCE)
    group.transition_to(STABLE)
    assert_state(group, STABLE)


def test_empty_to_stable_illegal_transition(group: ClassicGroup) -> None:
    with pytest.raises(IllegalStateException):
        group.transition_to(STABLE)


def test_stable_to_stable_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(COMPLETING_REBALANCE)
    group.transition_to(STABLE)
    with pytest.raises(IllegalStateException):
        group.transition_to(STABLE)


def test_empty_to_awaiting_rebalance_illegal_transition(group: ClassicGroup) -> None:
    with pytest.raises(IllegalStateException):
        group.transition_to(COMPLETING_REBALANCE)


def test_preparing_rebalance_to_preparing_rebalance_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    with pytest.raises(IllegalStateException):
        group.transition_to(PREPARING_REBALANCE)


def test_preparing_rebalance_to_stable_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    with pytest.raises(IllegalStateException):
        group.transition_to(STABLE)


def test_awaiting_rebalance_to_awaiting_rebalance_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(COMPLETING_REBALANCE)
    with pytest.raises(IllegalStateException):
        group.transition_to(COMPLETING_REBALANCE)


def test_dead_to_dead_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(DEAD)
    group.transition_to(DEAD)
    assert_state(group, DEAD)


def test_dead_to_stable_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(DEAD)
    with pytest.raises(IllegalStateException):
        group.transition_to(STABLE)


def test_dead_to_preparing_rebalance_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(DEAD)
    with pytest.raises(IllegalStateException):
        group.transition_to(PREPARING_REBALANCE)


def test_dead_to_awaiting_rebalance_illegal_transition(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(DEAD)
    with pytest.raises(IllegalStateException):
        group.transition_to(COMPLETING_REBALANCE)


def test_select_protocol(group: ClassicGroup) -> None:
    group.add(new_member(MEMBER_ID, [protocol("range"), protocol("roundrobin")]))

    member2_protocols = [protocol("roundrobin"), protocol("range")]
    group.add(new_member("member2", member2_protocols))

    # one vote each: either may win
    assert group.select_protocol() in ("range", "roundrobin")

    group.add(new_member("member3", member2_protocols))

    # now roundrobin has the majority
    assert group.select_protocol() == "roundrobin"


def test_select_protocol_raises_if_no_members(group: ClassicGroup) -> None:
    with pytest.raises(IllegalStateException):
        group.select_protocol()


def test_select_protocol_chooses_compatible_protocol(group: ClassicGroup) -> None:
    group.add(new_member(MEMBER_ID, [protocol("range"), protocol("roundrobin")]))
    group.add(new_member("member2", [protocol("roundrobin"), protocol("foo")]))

    assert group.select_protocol() == "roundrobin"


def test_supports_protocols(group: ClassicGroup) -> None:
    member1 = new_member(MEMBER_ID, [protocol("range"), protocol("roundrobin")])

    # an empty group takes anything
    assert group.supports_protocols(PROTOCOL_TYPE, {"range", "roundrobin"})

    group.add(member1)
    group.transition_to(PREPARING_REBALANCE)

    assert group.supports_protocols(PROTOCOL_TYPE, {"roundrobin", "foo"})
    assert group.supports_protocols(PROTOCOL_TYPE, {"range", "bar"})
    assert not group.supports_protocols(PROTOCOL_TYPE, {"foo", "bar"})


def test_subscribed_topics(group: ClassicGroup) -> None:
    # a new group does not know its topics yet
    assert group.subscribed_topics() is None

    member = new_member(MEMBER_ID, [protocol("range", subscription_metadata("foo"))])

    group.transition_to(PREPARING_REBALANCE)
    group.add(member)

    group.init_next_generation()

    assert group.subscribed_topics() == {"foo"}

    group.transition_to(PREPARING_REBALANCE)
    group.remove(MEMBER_ID)

    group.init_next_generation()

    assert group.subscribed_topics() == set()

    member_with_faulty_protocol = new_member(MEMBER_ID, [protocol("range", b"")])

    group.transition_to(PREPARING_REBALANCE)
    group.add(member_with_faulty_protocol)

    group.init_next_generation()

    assert group.subscribed_topics() is None


def test_subscribed_topics_non_consumer_group(group: ClassicGroup) -> None:
    # a new group does not know its topics yet
    assert group.subscribed_topics() is None

    member_with_non_consumer_protocol = new_member(MEMBER_ID, [protocol("range", b"")], protocol_type="My Protocol")

    group.transition_to(PREPARING_REBALANCE)
    group.add(member_with_non_consumer_protocol)

    group.init_next_generation()

    assert group.subscribed_topics() is None


def test_init_next_generation(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")])

    group.transition_to(PREPARING_REBALANCE)
    group.add(member, CompletableFuture())

    assert group.generation_id() == 0
    assert group.protocol_name() is None

    group.init_next_generation()

    assert group.generation_id() == 1
    assert group.protocol_name() == "roundrobin"


def test_init_next_generation_empty_group(group: ClassicGroup) -> None:
    assert group.current_state() == EMPTY
    assert group.generation_id() == 0
    assert group.protocol_name() is None

    group.transition_to(PREPARING_REBALANCE)
    group.init_next_generation()

    assert group.generation_id() == 1
    assert group.protocol_name() is None


def test_update_member(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")])

    group.add(member)

    new_protocols = [protocol("range"), protocol("roundrobin")]
    new_rebalance_timeout_ms = 120000
    new_session_timeout_ms = 20000
    group.update_member(member, new_protocols, new_rebalance_timeout_ms, new_session_timeout_ms, None)

    assert group.rebalance_timeout_ms() == new_rebalance_timeout_ms
    assert member.session_timeout_ms() == new_session_timeout_ms
    assert member.supported_protocols() == new_protocols


def test_replace_group_instance_with_non_existing_member(group: ClassicGroup) -> None:
    new_member_id = "newMemberId"
    with pytest.raises(IllegalArgumentException):
        group.replace_static_member(GROUP_INSTANCE_ID, MEMBER_ID, new_member_id)


def test_replace_group_instance(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")], GROUP_INSTANCE_ID)

    join_group_future: CompletableFuture[JoinGroupResponse] = CompletableFuture()
    group.add(member, join_group_future)

    sync_group_future: CompletableFuture[SyncGroupResponse] = CompletableFuture()
    member.set_awaiting_sync_future(sync_group_future)

    assert group.is_leader(MEMBER_ID)
    assert group.static_member_id(GROUP_INSTANCE_ID) == MEMBER_ID

    new_member_id = "newMemberId"
    group.replace_static_member(GROUP_INSTANCE_ID, MEMBER_ID, new_member_id)

    assert group.is_leader(new_member_id)
    assert group.static_member_id(GROUP_INSTANCE_ID) == new_member_id
    assert join_group_future.result(timeout=0).error_code == Errors.FENCED_INSTANCE_ID.code
    assert sync_group_future.result(timeout=0).error_code == Errors.FENCED_INSTANCE_ID.code
    assert not member.is_awaiting_join()
    assert not member.is_awaiting_sync()


def test_complete_join_future(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")])

    join_group_future: CompletableFuture[JoinGroupResponse] = CompletableFuture()
    group.add(member, join_group_future)

    assert group.has_all_members_joined()
    assert group.complete_join_future(member, join_group_response(member_id=member.member_id(),
                                                                  error_code=Errors.NONE))

    assert join_group_future.result(timeout=0).error_code == Errors.NONE.code
    assert join_group_future.result(timeout=0).member_id == MEMBER_ID
    assert not member.is_awaiting_join()
    assert group.num_awaiting_join_response() == 0


def test_not_complete_join_future(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")])

    group.add(member)

    assert not member.is_awaiting_join()
    assert not group.complete_join_future(member, join_group_response(member_id=member.member_id(),
                                                                      error_code=Errors.NONE))

    assert not member.is_awaiting_join()


def test_complete_sync_future(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")])

    group.add(member)
    sync_group_future: CompletableFuture[SyncGroupResponse] = CompletableFuture()
    member.set_awaiting_sync_future(sync_group_future)

    assert group.complete_sync_future(member, sync_group_response(error_code=Errors.NONE))

    assert group.num_awaiting_join_response() == 0

    assert not member.is_awaiting_sync()
    assert sync_group_future.result(timeout=0).error_code == Errors.NONE.code


def test_not_complete_sync_future(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")])

    group.add(member)
    assert not member.is_awaiting_sync()

    assert not group.complete_sync_future(member, sync_group_response(error_code=Errors.NONE))

    assert not member.is_awaiting_sync()


def test_cannot_add_pending_member_if_stable(group: ClassicGroup) -> None:
    group.add(new_member(MEMBER_ID, [protocol("roundrobin")]))
    with pytest.raises(IllegalStateException):
        group.add_pending_member(MEMBER_ID)


def test_removal_from_pending_after_member_is_stable(group: ClassicGroup) -> None:
    protocols = [protocol("roundrobin")]

    group.add_pending_member(MEMBER_ID)
    assert not group.has_member(MEMBER_ID)
    assert group.is_pending_member(MEMBER_ID)

    group.add(new_member(MEMBER_ID, protocols))
    assert group.has_member(MEMBER_ID)
    assert not group.is_pending_member(MEMBER_ID)


def test_removal_from_pending_when_member_is_removed(group: ClassicGroup) -> None:
    group.add_pending_member(MEMBER_ID)
    assert not group.has_member(MEMBER_ID)
    assert group.is_pending_member(MEMBER_ID)

    group.remove(MEMBER_ID)
    assert not group.has_member(MEMBER_ID)
    assert not group.is_pending_member(MEMBER_ID)


def test_cannot_add_static_member_if_already_present(group: ClassicGroup) -> None:
    member = new_member(MEMBER_ID, [protocol("roundrobin")], GROUP_INSTANCE_ID)

    group.add(member)
    assert group.has_member(MEMBER_ID)
    assert group.has_static_member(GROUP_INSTANCE_ID)

    # the same static member cannot be added twice
    with pytest.raises(IllegalStateException):
        group.add(member)


def test_cannot_add_pending_sync_of_unknown_member(group: ClassicGroup) -> None:
    with pytest.raises(IllegalStateException):
        group.add_pending_sync_member(MEMBER_ID)


def test_cannot_remove_pending_sync_of_unknown_member(group: ClassicGroup) -> None:
    with pytest.raises(IllegalStateException):
        group.remove_pending_sync_member(MEMBER_ID)


def test_can_add_and_remove_pending_sync_member(group: ClassicGroup) -> None:
    group.add(new_member(MEMBER_ID, [protocol("roundrobin")]))
    assert group.add_pending_sync_member(MEMBER_ID)
    assert group.all_pending_sync_members() == {MEMBER_ID}
    group.remove_pending_sync_member(MEMBER_ID)
    assert group.all_pending_sync_members() == set()


def test_removal_from_pending_sync_when_member_is_removed(group: ClassicGroup) -> None:
    group.add(new_member(MEMBER_ID, [protocol("roundrobin")], GROUP_INSTANCE_ID))
    assert group.add_pending_sync_member(MEMBER_ID)
    assert group.all_pending_sync_members() == {MEMBER_ID}
    group.remove(MEMBER_ID)
    assert group.all_pending_sync_members() == set()


def test_new_generation_clears_pending_sync_members(group: ClassicGroup) -> None:
    group.add(new_member(MEMBER_ID, [protocol("roundrobin")]))
    group.transition_to(PREPARING_REBALANCE)
    assert group.add_pending_sync_member(MEMBER_ID)
    assert group.all_pending_sync_members() == {MEMBER_ID}
    group.init_next_generation()
    assert group.all_pending_sync_members() == set()


def test_elect_new_joined_leader(group: ClassicGroup) -> None:
    protocols = [protocol("roundrobin")]

    leader = new_member(MEMBER_ID, protocols)
    group.add(leader)
    assert group.is_leader(MEMBER_ID)
    assert not leader.is_awaiting_join()

    group.add(new_member("new-leader", protocols), CompletableFuture())
    group.add(new_member("new-member", protocols))

    assert group.maybe_elect_new_joined_leader()
    assert group.is_leader("new-leader")


def test_maybe_elect_new_joined_leader_choose_existing(group: ClassicGroup) -> None:
    protocols = [protocol("roundrobin")]

    leader = new_member(MEMBER_ID, protocols)
    group.add(leader, CompletableFuture())
    assert group.is_leader(MEMBER_ID)
    assert leader.is_awaiting_join()

    group.add(new_member("new-member", protocols))

    assert group.maybe_elect_new_joined_leader()
    assert group.is_leader(MEMBER_ID)


@pytest.mark.parametrize("version", OFFSET_COMMIT_VERSIONS)
def test_validate_offset_commit(group: ClassicGroup, version: int) -> None:
    # the admin client commits without member or generation
    group.validate_offset_commit("", "", -1, False, version)

    group.add(ClassicGroupMember("member-id", "instance-id", "", "", 100, 100, "consumer", [protocol("roundrobin")]))

    group.transition_to(PREPARING_REBALANCE)
    group.init_next_generation()

    # no member or generation, and the group is not empty
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_commit("", "", -1, False, version)

    # a transactional commit without them is accepted in a non-empty group
    group.validate_offset_commit("", None, -1, True, version)

    # unknown member id
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_commit("unknown", "unknown", -1, False, version)

    # unknown instance id
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_commit("member-id", "unknown", -1, False, version)

    # wrong generation
    with pytest.raises(IllegalGenerationException):
        group.validate_offset_commit("member-id", "instance-id", 0, False, version)

    # the group awaits its assignment
    with pytest.raises(RebalanceInProgressException):
        group.validate_offset_commit("member-id", "instance-id", 1, False, version)

    group.transition_to(STABLE)

    group.validate_offset_commit("member-id", "instance-id", 1, False, version)

    group.replace_static_member("instance-id", "member-id", "new-member-id")

    # the old member id of the instance is fenced
    with pytest.raises(FencedInstanceIdException):
        group.validate_offset_commit("member-id", "instance-id", 1, False, version)

    group.remove("new-instance-id")
    group.transition_to(DEAD)

    with pytest.raises(CoordinatorNotAvailableException):
        group.validate_offset_commit("member-id", "new-instance-id", 1, False, version)


def test_validate_offset_delete(group: ClassicGroup) -> None:
    assert not group.uses_consumer_group_protocol()
    group.transition_to(PREPARING_REBALANCE)
    with pytest.raises(GroupNotEmptyException):
        group.validate_offset_delete()
    group.transition_to(COMPLETING_REBALANCE)
    with pytest.raises(GroupNotEmptyException):
        group.validate_offset_delete()
    group.transition_to(STABLE)
    with pytest.raises(GroupNotEmptyException):
        group.validate_offset_delete()

    group.add(new_member(MEMBER_ID, [protocol("roundrobin")], GROUP_INSTANCE_ID))

    assert group.uses_consumer_group_protocol()
    group.transition_to(PREPARING_REBALANCE)
    group.validate_offset_delete()
    group.transition_to(COMPLETING_REBALANCE)
    group.validate_offset_delete()
    group.transition_to(STABLE)
    group.validate_offset_delete()

    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(EMPTY)
    group.validate_offset_delete()
    group.transition_to(DEAD)
    with pytest.raises(GroupIdNotFoundException):
        group.validate_offset_delete()


def test_validate_delete_group(group: ClassicGroup) -> None:
    group.transition_to(PREPARING_REBALANCE)
    with pytest.raises(GroupNotEmptyException):
        group.validate_delete_group()
    group.transition_to(COMPLETING_REBALANCE)
    with pytest.raises(GroupNotEmptyException):
        group.validate_delete_group()
    group.transition_to(STABLE)
    with pytest.raises(GroupNotEmptyException):
        group.validate_delete_group()
    group.transition_to(PREPARING_REBALANCE)
    group.transition_to(EMPTY)
    group.validate_delete_group()
    group.transition_to(DEAD)
    with pytest.raises(GroupIdNotFoundException):
        group.validate_delete_group()


def test_offset_expiration_condition() -> None:
    current_timestamp = 30000
    commit_timestamp = 20000
    offsets_retention_ms = 10000
    offset_and_metadata = OffsetAndMetadata(15000, None, "", commit_timestamp, None)
    time = MockTime()
    current_state_timestamp = time.milliseconds()
    group = ClassicGroup("", "groupId", EMPTY, time)

    # 1. no protocol type (a simple consumer): from the commit
    offset_expiration_condition = group.offset_expiration_condition()
    assert offset_expiration_condition is not None

    condition = offset_expiration_condition
    assert isinstance(condition, OffsetExpirationConditionImpl)
    assert condition.base_timestamp()(offset_and_metadata) == commit_timestamp
    assert condition.is_offset_expired(offset_and_metadata, current_timestamp, offsets_retention_ms)

    # 2. another protocol type, Empty: from when the group became empty
    protocols = [protocol("range", subscription_metadata("topic"))]

    member_with_non_consumer_protocol = new_member("memberWithNonConsumerProtocol", protocols,
                                                   protocol_type="My Protocol")

    group.add(member_with_non_consumer_protocol)
    assert group.protocol_type() == "My Protocol"

    offset_expiration_condition = group.offset_expiration_condition()
    assert offset_expiration_condition is not None

    condition = offset_expiration_condition
    assert isinstance(condition, OffsetExpirationConditionImpl)
    assert condition.base_timestamp()(offset_and_metadata) == current_state_timestamp
    assert condition.is_offset_expired(offset_and_metadata, current_state_timestamp + offsets_retention_ms,
                                       offsets_retention_ms)

    # 3. another protocol type, not Empty: nothing expires
    group.transition_to(PREPARING_REBALANCE)
    assert group.offset_expiration_condition() is None

    # 4. consumer protocol type, topics known, Stable: from the commit
    group.remove("memberWithNonConsumerProtocol")
    member_with_consumer_protocol = new_member("memberWithConsumerProtocol", protocols, protocol_type="consumer")
    group.add(member_with_consumer_protocol)
    group.init_next_generation()
    group.transition_to(STABLE)
    assert "topic" in group.subscribed_topics()

    offset_expiration_condition = group.offset_expiration_condition()
    assert offset_expiration_condition is not None

    condition = offset_expiration_condition
    assert isinstance(condition, OffsetExpirationConditionImpl)
    assert condition.base_timestamp()(offset_and_metadata) == commit_timestamp
    assert condition.is_offset_expired(offset_and_metadata, current_timestamp, offsets_retention_ms)

    # 5. consumer protocol type, topics known, not Stable: nothing expires
    group.transition_to(PREPARING_REBALANCE)
    assert group.offset_expiration_condition() is None


def test_is_subscribed_to_topic() -> None:
    group = ClassicGroup("", "groupId", EMPTY, SYSTEM)

    # 1. no protocol type: not subscribed
    assert not group.is_subscribed_to_topic("topic")

    # 2. not the consumer protocol type: not subscribed
    protocols = [protocol("range", subscription_metadata("topic"))]

    member_with_non_consumer_protocol = new_member("memberWithNonConsumerProtocol", protocols,
                                                   protocol_type="My Protocol")

    group.add(member_with_non_consumer_protocol)
    group.transition_to(PREPARING_REBALANCE)
    group.init_next_generation()
    assert group.is_in_state(COMPLETING_REBALANCE)
    assert group.compute_subscribed_topics() is None
    assert not group.is_subscribed_to_topic("topic")

    # 3. the consumer protocol type, no members: not subscribed
    group.remove("memberWithNonConsumerProtocol")
    member_with_consumer_protocol = new_member("memberWithConsumerProtocol", protocols, protocol_type="consumer")

    group.add(member_with_consumer_protocol)
    group.remove("memberWithConsumerProtocol")
    group.transition_to(PREPARING_REBALANCE)
    group.init_next_generation()
    assert group.is_in_state(EMPTY)
    assert group.compute_subscribed_topics() == set()
    assert group.uses_consumer_group_protocol()
    assert not group.is_subscribed_to_topic("topic")

    # 4. the consumer protocol type, a member subscribed: subscribed
    group.add(member_with_consumer_protocol)
    group.transition_to(PREPARING_REBALANCE)
    group.init_next_generation()
    assert group.is_in_state(COMPLETING_REBALANCE)
    assert group.compute_subscribed_topics() == {"topic"}
    assert group.uses_consumer_group_protocol()
    assert group.is_subscribed_to_topic("topic")


def test_is_in_states() -> None:
    group = ClassicGroup("", "groupId", EMPTY, SYSTEM)
    assert group.is_in_states({"empty"}, 0)

    group.transition_to(PREPARING_REBALANCE)
    assert group.is_in_states({"preparingrebalance"}, 0)
    assert not group.is_in_states({"PreparingRebalance"}, 0)

    group.transition_to(COMPLETING_REBALANCE)
    assert group.is_in_states({"completingrebalance"}, 0)

    group.transition_to(STABLE)
    assert group.is_in_states({"stable"}, 0)
    assert not group.is_in_states({"empty"}, 0)

    group.transition_to(DEAD)
    assert group.is_in_states({"dead", " "}, 0)


def test_complete_all_join_futures(group: ClassicGroup) -> None:
    protocols = [protocol("roundrobin")]

    member_list = [new_member(MEMBER_ID + str(i), protocols) for i in range(3)]

    join_group_future_list: list[CompletableFuture[JoinGroupResponse]] = []
    for i in range(3):
        future: CompletableFuture[JoinGroupResponse] = CompletableFuture()
        group.add(member_list[i], future)
        join_group_future_list.append(future)

    assert group.num_awaiting_join_response() == 3

    group.complete_all_join_futures(Errors.REBALANCE_IN_PROGRESS)

    for i in range(3):
        assert join_group_future_list[i].result(timeout=0).error_code == Errors.REBALANCE_IN_PROGRESS.code
        assert join_group_future_list[i].result(timeout=0).member_id == MEMBER_ID + str(i)
        assert not member_list[i].is_awaiting_join()
    assert group.num_awaiting_join_response() == 0


def test_complete_all_sync_futures(group: ClassicGroup) -> None:
    protocols = [protocol("roundrobin")]

    member_list: list[ClassicGroupMember] = []
    for i in range(3):
        member = new_member(MEMBER_ID + str(i), protocols)
        member_list.append(member)
        group.add(member)

    sync_group_future_list: list[CompletableFuture[SyncGroupResponse]] = []
    for i in range(3):
        sync_group_future: CompletableFuture[SyncGroupResponse] = CompletableFuture()
        sync_group_future_list.append(sync_group_future)
        member_list[i].set_awaiting_sync_future(sync_group_future)

    group.complete_all_sync_futures(Errors.REBALANCE_IN_PROGRESS)

    for i in range(3):
        assert not member_list[i].is_awaiting_sync()
        assert sync_group_future_list[i].result(timeout=0).error_code == Errors.REBALANCE_IN_PROGRESS.code
