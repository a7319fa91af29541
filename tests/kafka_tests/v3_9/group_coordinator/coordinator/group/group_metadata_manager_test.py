"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java
(Kafka 3.9).

Requests are kio messages built through the test context's helpers; Kafka's mutable request objects changed
between sends are changed copies here. Kafka's client host "localhost/127.0.0.1" (InetAddress.toString) is
DEFAULT_CLIENT_ADDRESS, the address the port's request context carries. Topic ids are uuid.UUID.
"""

from __future__ import annotations

import uuid

import pytest

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException, UnknownServerException
from kafka_edu.v3_9.clients.common.errors.fenced_instance_id_exception import FencedInstanceIdException
from kafka_edu.v3_9.clients.common.errors.fenced_member_epoch_exception import FencedMemberEpochException
from kafka_edu.v3_9.clients.common.errors.group_id_not_found_exception import GroupIdNotFoundException
from kafka_edu.v3_9.clients.common.errors.group_max_size_reached_exception import GroupMaxSizeReachedException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.errors.unreleased_instance_id_exception import UnreleasedInstanceIdException
from kafka_edu.v3_9.clients.common.errors.unsupported_assignor_exception import UnsupportedAssignorException
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers as helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import (
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    consumer_group_rebalance_timeout_key,
    group_session_timeout_key,
    heartbeat_response,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group import ConsumerGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_assignment_impl import MemberAssignmentImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor_exception import (
    PartitionAssignorException,
)
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assertions import (
    assert_records_equals,
    assert_response_equals,
    assert_unordered_list_equals,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    mk_assignment,
    mk_map_of_partition_racks,
    mk_topic_assignment,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
    DEFAULT_CLIENT_ADDRESS,
    DEFAULT_CLIENT_ID,
    GroupMetadataManagerTestContext,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
    consumer_group_heartbeat_request as hb,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.metadata_image_builder import MetadataImageBuilder
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_partition_assignor import (
    MockPartitionAssignor,
    NoOpPartitionAssignor,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_builder import (
    ConsumerGroupBuilder,
)

# --- KAFKA declaration: begin ---
KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java",
    cases=[
        "testConsumerHeartbeatRequestValidation",
        "testMemberIdGeneration",
        "testUnknownGroupId",
        "testUnknownMemberIdJoinsConsumerGroup",
        "testConsumerGroupMemberEpochValidation",
        "testMemberJoinsEmptyConsumerGroup",
        "testUpdatingSubscriptionTriggersNewTargetAssignment",
        "testNewJoiningMemberTriggersNewTargetAssignment",
        "testLeavingMemberBumpsGroupEpoch",
        "testGroupEpochBumpWhenNewStaticMemberJoins",
        "testStaticMemberGetsBackAssignmentUponRejoin",
        "testStaticMemberRejoinsWithNewSubscribedTopics",
        "testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves",
        "testLeavingStaticMemberBumpsGroupEpoch",
        "testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId",
        "testShouldThrownUnknownMemberIdExceptionWhenUnknownStaticMemberJoins",
        "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins",
        "testConsumerGroupMemberEpochValidationForStaticMember",
        "testShouldThrowUnknownMemberIdExceptionWhenUnknownStaticMemberLeaves",
        "testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdLeaves",
        "testConsumerGroupHeartbeatFullResponse",
        "testReconciliationProcess",
        "testNewMemberIsRejectedWithMaximumMembersIsReached",
        "testConsumerGroupStates",
        "testPartitionAssignorExceptionOnRegularHeartbeat",
        "testSubscriptionMetadataRefreshedAfterGroupIsLoaded",
        "testSubscriptionMetadataRefreshedAgainAfterWriteFailure",
        "testGroupIdsByTopics",
        "testOnNewMetadataImageWithEmptyDelta",
        "testOnNewMetadataImage",
        "testSessionTimeoutLifecycle",
        "testSessionTimeoutExpiration",
        "testSessionTimeoutExpirationStaticMember",
        "testRebalanceTimeoutLifecycle",
        "testRebalanceTimeoutExpiration",
        "testOnLoaded",
        "testGenerateRecordsOnNewClassicGroup",
        "testGenerateRecordsOnNewClassicGroupFailureTransformsError",
        "testReplayGroupMetadataRecords",
        "testOnLoadedExceedGroupMaxSizeTriggersRebalance",
        "testOnLoadedSchedulesClassicGroupMemberHeartbeats",
        "testJoinGroupShouldReceiveErrorIfGroupOverMaxSize",
        "testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember",
        "testDynamicMembersJoinGroupWithMaxSizeAndNotRequiredKnownMember",
        "testStaticMembersJoinGroupWithMaxSize",
        "testDynamicMembersCanRejoinGroupWithMaxSizeWhileRebalancing",
        "testLastJoiningMembersAreKickedOutWhenRejoiningGroupWithMaxSize",
        "testJoinGroupUnknownMemberNewGroup",
        "testClassicGroupJoinInconsistentProtocolType",
        "testJoinGroupWithEmptyProtocolType",
        "testJoinGroupWithEmptyGroupProtocol",
        "testNewMemberJoinExpiration",
        "testJoinGroupInconsistentGroupProtocol",
        "testJoinGroupSecondJoinInconsistentProtocol",
        "testStaticMemberJoinAsFirstMember",
        "testStaticMemberRejoinWithExplicitUnknownMemberId",
        "testJoinGroupUnknownConsumerExistingGroup",
        "testJoinGroupUnknownConsumerNewDeadGroup",
        "testJoinGroupProtocolTypeIsNotProvidedWhenAnErrorOccurs",
        "testJoinGroupReturnsTheProtocolType",
        "testDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup",
        "testResetRebalanceDelayWhenNewMemberJoinsGroupDuringInitialRebalance",
        "testDelayRebalanceUptoRebalanceTimeout",
        "testJoinGroupReplaceStaticMember",
        "testHeartbeatExpirationShouldRemovePendingMember",
        "testHeartbeatExpirationShouldRemoveMember",
        "testExistingMemberJoinDeadGroup",
        "testJoinGroupExistingPendingMemberWithGroupInstanceIdThrowsException",
        "testJoinGroupExistingMemberUpdatedMetadataTriggersRebalance",
        "testJoinGroupAsExistingLeaderTriggersRebalanceInStableState",
        "testJoinGroupAsExistingMemberWithUpdatedMetadataTriggersRebalanceInStableState",
        "testJoinGroupExistingMemberDoesNotTriggerRebalanceInStableState",
        "testJoinGroupExistingMemberInEmptyState",
        "testCompleteJoinRemoveNotYetRejoinedDynamicMembers",
        "testCompleteJoinPhaseInEmptyStateSkipsRebalance",
        "testCompleteJoinPhaseNoMembersRejoinedExtendsJoinPhase",
        "testReplaceStaticMemberInStableStateNoError",
        "testReplaceStaticMemberInStableStateWithUpdatedProtocolTriggersRebalance",
        "testReplaceStaticMemberInStableStateErrors",
        "testReplaceStaticMemberInStableStateSucceeds",
        "testReplaceStaticMemberInCompletingRebalanceStateTriggersRebalance",
        "testJoinGroupAppendErrorConversion",
        "testNewMemberTimeoutCompletion",
        "testNewMemberFailureAfterJoinGroupCompletion",
        "testStaticMemberFenceDuplicateRejoinedFollower",
        "testStaticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged",
        "testStaticMemberFenceDuplicateRejoiningFollowerAfterMemberIdChanged",
        "testStaticMemberRejoinWithKnownMemberId",
        "testStaticMemberRejoinWithLeaderIdAndUnknownMemberId",
        "testStaticMemberRejoinWithLeaderIdAndKnownMemberId",
        "testStaticMemberRejoinWithLeaderIdAndUnexpectedDeadGroup",
        "testStaticMemberRejoinWithLeaderIdAndUnexpectedEmptyGroup",
        "testStaticMemberRejoinWithFollowerIdAndChangeOfProtocol",
        "testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged",
        "testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchangedPersistenceFailure",
        "testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged",
        "testStaticMemberRejoinWithKnownLeaderIdToTriggerRebalanceAndFollowerWithChangeofProtocol",
        "testStaticMemberRejoinAsFollowerWithUnknownMemberId",
        "testStaticMemberRejoinAsFollowerWithKnownMemberIdAndNoProtocolChange",
        "testStaticMemberRejoinAsFollowerWithMismatchedInstanceId",
        "testStaticMemberRejoinAsLeaderWithMismatchedInstanceId",
        "testStaticMemberSyncAsLeaderWithInvalidMemberId",
        "testGetDifferentStaticMemberIdAfterEachRejoin",
        "testStaticMemberJoinWithUnknownInstanceIdAndKnownMemberId",
        "testStaticMemberReJoinWithIllegalStateAsUnknownMember",
        "testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout",
        "testStaticMemberLeaderFailToRejoinBeforeRebalanceTimeout",
        "testSyncGroupReturnsAnErrorWhenProtocolTypeIsInconsistent",
        "testSyncGroupReturnsAnErrorWhenProtocolNameIsInconsistent",
        "testSyncGroupSucceedWhenProtocolTypeAndNameAreNotProvided",
        "testSyncGroupSucceedWhenProtocolTypeAndNameAreConsistent",
        "testSyncGroupFromUnknownGroup",
        "testSyncGroupFromUnknownMember",
        "testSyncGroupFromIllegalGeneration",
        "testSyncGroupAsLeaderAppendFailureTransformsError",
        "testJoinGroupFromUnchangedFollowerDoesNotRebalance",
        "testLeaderFailureInSyncGroup",
        "testSyncGroupFollowerAfterLeader",
        "testSyncGroupLeaderAfterFollower",
        "testJoinGroupFromUnchangedLeaderShouldRebalance",
        "testJoinGroupCompletionWhenPendingMemberJoins",
        "testJoinGroupCompletionWhenPendingMemberTimesOut",
        "testGenerationIdIncrementsOnRebalance",
        "testStaticMemberHeartbeatLeaderWithInvalidMemberId",
        "testHeartbeatUnknownGroup",
        "testHeartbeatDeadGroup",
        "testHeartbeatEmptyGroup",
        "testHeartbeatUnknownMemberExistingGroup",
        "testHeartbeatDuringPreparingRebalance",
        "testHeartbeatDuringCompletingRebalance",
        "testHeartbeatIllegalGeneration",
        "testValidHeartbeat",
        "testClassicGroupMemberSessionTimeout",
        "testClassicGroupMemberHeartbeatMaintainsSession",
        "testClassicGroupMemberSessionTimeoutDuringRebalance",
        "testRebalanceCompletesBeforeMemberJoins",
        "testSyncGroupEmptyAssignment",
        "testSecondMemberPartiallyJoinAndTimeout",
        "testRebalanceTimesOutWhenSyncRequestIsNotReceived",
        "testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers",
        "testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders",
        "testRebalanceDoesNotTimeOutWhenAllSyncAreReceived",
        "testHeartbeatDuringRebalanceCausesRebalanceInProgress",
        "testListGroups",
        "testConsumerGroupDescribeNoErrors",
        "testConsumerGroupDescribeWithErrors",
        "testConsumerGroupDescribeBeforeAndAfterCommittingOffset",
        "testDescribeGroupStable",
        "testDescribeGroupRebalancing",
        "testDescribeGroupsGroupIdNotFoundException",
        "testGroupStuckInRebalanceTimeoutDueToNonjoinedStaticMember",
        "testPendingMembersLeaveGroup",
        "testLeaveGroupInvalidGroup",
        "testLeaveGroupUnknownGroup",
        "testLeaveGroupUnknownMemberIdExistingGroup",
        "testLeaveDeadGroup",
        "testValidLeaveGroup",
        "testLeaveGroupWithFencedInstanceId",
        "testLeaveGroupStaticMemberWithUnknownMemberId",
        "testStaticMembersValidBatchLeaveGroup",
        "testStaticMembersLeaveUnknownGroup",
        "testStaticMembersFencedInstanceBatchLeaveGroup",
        "testStaticMembersUnknownInstanceBatchLeaveGroup",
        "testPendingMemberBatchLeaveGroup",
        "testJoinedMemberPendingMemberBatchLeaveGroup",
        "testJoinedMemberPendingMemberBatchLeaveGroupWithUnknownMember",
        "testClassicGroupDelete",
        "testClassicGroupMaybeDelete",
        "testConsumerGroupDelete",
        "testConsumerGroupMaybeDelete",
        "testClassicGroupCompletedRebalanceSensor",
        "testConsumerGroupRebalanceSensor",
        "testOnClassicGroupStateTransition",
        "testOnClassicGroupStateTransitionOnLoading",
        "testOnConsumerGroupStateTransition",
        "testOnConsumerGroupStateTransitionOnLoading",
        "testConsumerGroupHeartbeatWithNonEmptyClassicGroup",
        "testConsumerGroupHeartbeatWithEmptyClassicGroup",
        "testClassicGroupJoinWithEmptyConsumerGroup",
        "testConsumerGroupHeartbeatWithStableClassicGroup",
        "testConsumerGroupHeartbeatWithPreparingRebalanceClassicGroup",
        "testConsumerGroupHeartbeatWithCompletingRebalanceClassicGroup",
        "testClassicGroupOnUnloadedEmptyAndPreparingRebalance",
        "testClassicGroupOnUnloadedCompletingRebalance",
        "testLastConsumerProtocolMemberLeavingConsumerGroup",
        "testLastConsumerProtocolMemberSessionTimeoutInConsumerGroup",
        "testLastConsumerProtocolMemberRebalanceTimeoutInConsumerGroup",
        "testJoiningConsumerGroupThrowsExceptionIfGroupOverMaxSize",
        "testJoiningConsumerGroupThrowsExceptionIfProtocolIsNotSupported",
        "testJoiningConsumerGroupWithNewDynamicMember",
        "testJoiningConsumerGroupFailingToPersistRecords",
        "testJoiningConsumerGroupWithNewStaticMember",
        "testJoiningConsumerGroupReplacingExistingStaticMember",
        "testJoiningConsumerGroupWithExistingStaticMemberAndNewSubscription",
        "testStaticMemberJoiningConsumerGroupWithUnknownInstanceId",
        "testStaticMemberJoiningConsumerGroupWithUnmatchedMemberId",
        "testReconciliationInJoiningConsumerGroupWithEagerProtocol",
        "testReconciliationInJoiningConsumerGroupWithCooperativeProtocol",
        "testClassicGroupSyncToConsumerGroupWithAllConsumerProtocolVersions",
        "testClassicGroupSyncToConsumerGroupWithUnknownMemberId",
        "testClassicGroupSyncToConsumerGroupWithFencedInstanceId",
        "testClassicGroupSyncToConsumerGroupWithInconsistentGroupProtocol",
        "testClassicGroupSyncToConsumerGroupWithIllegalGeneration",
        "testClassicGroupSyncToConsumerGroupRebalanceInProgress",
        "testClassicGroupHeartbeatToConsumerGroupMaintainsSession",
        "testClassicGroupHeartbeatToConsumerGroupRebalanceInProgress",
        "testClassicGroupHeartbeatToConsumerWithUnknownMember",
        "testClassicGroupHeartbeatToConsumerWithFencedInstanceId",
        "testClassicGroupHeartbeatToConsumerWithIllegalGenerationId",
        "testClassicGroupHeartbeatToConsumerWithMemberNotUsingClassicProtocol",
        "testConsumerGroupMemberUsingClassicProtocolFencedWhenSessionTimeout",
        "testConsumerGroupMemberUsingClassicProtocolFencedWhenJoinTimeout",
        "testConsumerGroupMemberUsingClassicProtocolBatchLeaveGroup",
        "testConsumerGroupMemberUsingClassicProtocolBatchLeaveGroupUpdatingSubscriptionMetadata",
        "testClassicGroupLeaveToConsumerGroupWithoutValidLeaveGroupMember",
        "testNoConversionWhenSizeExceedsClassicMaxGroupSize",
        "testShareGroupHeartbeatRequestValidation",
        "testShareGroupMemberIdGeneration",
        "testShareGroupUnknownGroupId",
        "testShareGroupUnknownMemberIdJoins",
        "testShareGroupMemberRejoinAfterFailover",
        "testShareGroupMemberJoinsEmptyGroupWithAssignments",
        "testShareGroupLeavingMemberBumpsGroupEpoch",
        "testShareGroupNewMemberIsRejectedWithMaximumMembersIsReached",
        "testShareGroupDelete",
        "testShareGroupStates",
    ],
    not_applicable={
        "testShareGroupHeartbeatRequestValidation": "share groups (KIP-932, early access in 3.9) are not ported",
        "testShareGroupMemberIdGeneration": "share groups (KIP-932, early access in 3.9) are not ported",
        "testShareGroupUnknownGroupId": "share groups (KIP-932, early access in 3.9) are not ported",
        "testShareGroupUnknownMemberIdJoins": "share groups (KIP-932, early access in 3.9) are not ported",
        "testShareGroupMemberRejoinAfterFailover": "share groups (KIP-932, early access in 3.9) are not ported",
        "testShareGroupMemberJoinsEmptyGroupWithAssignments": "share groups (KIP-932, early access in 3.9) are not ported",  # noqa: E501
        "testShareGroupLeavingMemberBumpsGroupEpoch": "share groups (KIP-932, early access in 3.9) are not ported",
        "testShareGroupNewMemberIsRejectedWithMaximumMembersIsReached": "share groups (KIP-932, early access in 3.9) are not ported",  # noqa: E501
        "testShareGroupDelete": "share groups (KIP-932, early access in 3.9) are not ported",
        "testShareGroupStates": "share groups (KIP-932, early access in 3.9) are not ported",
        "testClassicGroupCompletedRebalanceSensor": "metrics: the port has no metrics registry (the manager records no sensors)",  # noqa: E501
        "testConsumerGroupRebalanceSensor": "metrics: the port has no metrics registry (the manager records no sensors)",  # noqa: E501
        "testOnClassicGroupStateTransition": "metrics: the port has no metrics registry (the manager records no sensors)",  # noqa: E501
        "testOnClassicGroupStateTransitionOnLoading": "metrics: the port has no metrics registry (the manager records no sensors)",  # noqa: E501
        "testOnConsumerGroupStateTransition": "metrics: the port has no metrics registry (the manager records no sensors)",  # noqa: E501
        "testOnConsumerGroupStateTransitionOnLoading": "metrics: the port has no metrics registry (the manager records no sensors)",  # noqa: E501
        "testListGroups": "lists a share group (KIP-932) with the others; share groups are not ported",
    },
    not_ported={
    },
)
# --- KAFKA declaration: end ---


def _member_id() -> str:
    return str(Uuid.random_uuid())


def _response_assignment(*topic_partitions: tuple[uuid.UUID, list[int]]) -> object:
    from kio.schema.consumer_group_heartbeat.v0.response import Assignment, TopicPartitions
    return Assignment(topic_partitions=tuple(TopicPartitions(topic_id=t, partitions=tuple(p))
                                             for t, p in topic_partitions))


def _context(assignor: object, image: MetadataImage | None = None, *groups: ConsumerGroupBuilder,
             **options: object) -> GroupMetadataManagerTestContext:
    builder = GroupMetadataManagerTestContext.Builder().with_consumer_group_assignors([assignor])
    if image is not None:
        builder.with_metadata_image(image)
    for group in groups:
        builder.with_consumer_group(group)
    for name, value in options.items():
        getattr(builder, f"with_{name}")(value)
    return builder.build()


def _member(member_id: str, **fields: object) -> ConsumerGroupMember:
    """new ConsumerGroupMember.Builder(memberId).setX(...)...build(), fields by their setter names."""
    builder = ConsumerGroupMember.Builder(member_id)
    for name, value in fields.items():
        getattr(builder, f"set_{name}")(value)
    return builder.build()


def test_consumer_heartbeat_request_validation():
    assignor = MockPartitionAssignor("range")
    context = _context(assignor)

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb())
    assert str(ex.value) == "GroupId can't be empty."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="   "))
    assert str(ex.value) == "GroupId can't be empty."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_epoch=0))
    assert str(ex.value) == "RebalanceTimeoutMs must be provided in first request."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_epoch=0, rebalance_timeout_ms=5000))
    assert str(ex.value) == "TopicPartitions must be empty when (re-)joining."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_epoch=0, rebalance_timeout_ms=5000,
                                            topic_partitions=[]))
    assert str(ex.value) == "SubscribedTopicNames must be set in first request."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_epoch=1))
    assert str(ex.value) == "MemberId can't be empty."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_id=_member_id(), member_epoch=1,
                                            instance_id=""))
    assert str(ex.value) == "InstanceId can't be empty."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_id=_member_id(), member_epoch=1, rack_id=""))
    assert str(ex.value) == "RackId can't be empty."

    with pytest.raises(UnsupportedAssignorException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_id=_member_id(), member_epoch=1,
                                            server_assignor="bar"))
    assert str(ex.value) == "ServerAssignor bar is not supported. Supported assignors: range."

    with pytest.raises(InvalidRequestException) as ex:
        context.consumer_group_heartbeat(hb(group_id="foo", member_id=_member_id(),
                                            member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH, rebalance_timeout_ms=5000,
                                            subscribed_topic_names=["foo", "bar"], topic_partitions=[]))
    assert str(ex.value) == "InstanceId can't be null."


def test_member_id_generation():
    assignor = MockPartitionAssignor("range")
    context = _context(assignor, MetadataImage.EMPTY)
    assignor.prepare_group_assignment(GroupAssignment({}))

    result = context.consumer_group_heartbeat(hb(group_id="group-foo", member_epoch=0, server_assignor="range",
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 topic_partitions=[]))

    # a member id was generated
    member_id = result.response().member_id
    assert member_id is not None
    assert member_id != ""

    # a bumped epoch, no partitions since no topic is known
    assert result.response() == heartbeat_response(member_id=member_id, member_epoch=1, heartbeat_interval_ms=5000,
                                                   assignment=_response_assignment())


def test_unknown_group_id():
    group_id = "fooup"
    member_id = _member_id()
    context = _context(MockPartitionAssignor("range"))

    with pytest.raises(GroupIdNotFoundException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=100,
                                            rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                            topic_partitions=[]))


def test_unknown_member_id_joins_consumer_group():
    group_id = "fooup"
    member_id = _member_id()
    context = _context(NoOpPartitionAssignor())

    # the first member creates the group
    context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=0,
                                        server_assignor=NoOpPartitionAssignor.NAME, rebalance_timeout_ms=5000,
                                        subscribed_topic_names=["foo", "bar"], topic_partitions=[]))

    # an unknown member id with a non-zero epoch is rejected
    with pytest.raises(UnknownMemberIdException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=_member_id(), member_epoch=1,
                                            rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                            topic_partitions=[]))


def test_consumer_group_member_epoch_validation():
    group_id = "fooup"
    member_id = _member_id()
    foo_topic_id = uuid.uuid4()
    context = _context(MockPartitionAssignor("range"))

    member = _member(member_id, state=MemberState.STABLE, member_epoch=100, previous_member_epoch=99,
                     rebalance_timeout_ms=5000, client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                     subscribed_topic_names=["foo", "bar"], server_assignor_name="range",
                     assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 1, 2, 3)))

    context.replay(helpers.new_member_subscription_record(group_id, member))
    context.replay(helpers.new_group_epoch_record(group_id, 100))
    context.replay(helpers.new_target_assignment_record(group_id, member_id, mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3))))
    context.replay(helpers.new_target_assignment_epoch_record(group_id, 100))
    context.replay(helpers.new_current_assignment_record(group_id, member))

    # an epoch ahead of the coordinator's
    with pytest.raises(FencedMemberEpochException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=200,
                                            rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"]))

    # an epoch behind it
    with pytest.raises(FencedMemberEpochException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=50,
                                            rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"]))

    # the previous epoch without owned partitions
    with pytest.raises(FencedMemberEpochException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=99,
                                            rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"]))

    # the previous epoch owning a subset: the response with the new epoch may have been lost
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=99,
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 topic_partitions=[(foo_topic_id, [1, 2])]))
    assert result.response().member_epoch == 100


def test_member_joins_empty_consumer_group():
    group_id = "fooup"
    member_id = _member_id()
    foo_topic_id, foo_topic_name = uuid.uuid4(), "foo"
    bar_topic_id, bar_topic_name = uuid.uuid4(), "bar"

    assignor = MockPartitionAssignor("range")
    context = _context(assignor, MetadataImageBuilder().add_topic(foo_topic_id, foo_topic_name, 6)
                       .add_topic(bar_topic_id, bar_topic_name, 3).add_racks().build())

    assignor.prepare_group_assignment(GroupAssignment({member_id: MemberAssignmentImpl(mk_assignment(
        mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5), mk_topic_assignment(bar_topic_id, 0, 1, 2)))}))

    with pytest.raises(GroupIdNotFoundException):
        context.group_metadata_manager.consumer_group(group_id)

    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=0,
                                                 server_assignor="range", rebalance_timeout_ms=5000,
                                                 subscribed_topic_names=["foo", "bar"], topic_partitions=[]))

    assert_response_equals(heartbeat_response(
        member_id=member_id, member_epoch=1, heartbeat_interval_ms=5000,
        assignment=_response_assignment((foo_topic_id, [0, 1, 2, 3, 4, 5]), (bar_topic_id, [0, 1, 2]))),
        result.response())

    expected_member = _member(member_id, state=MemberState.STABLE, member_epoch=1, previous_member_epoch=0,
                              client_id="client", client_host=DEFAULT_CLIENT_ADDRESS, rebalance_timeout_ms=5000,
                              subscribed_topic_names=["foo", "bar"], server_assignor_name="range",
                              assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5),
                                                                mk_topic_assignment(bar_topic_id, 0, 1, 2)))

    expected_records = [
        helpers.new_member_subscription_record(group_id, expected_member),
        helpers.new_group_subscription_metadata_record(group_id, {
            foo_topic_name: TopicMetadata(foo_topic_id, foo_topic_name, 6, mk_map_of_partition_racks(6)),
            bar_topic_name: TopicMetadata(bar_topic_id, bar_topic_name, 3, mk_map_of_partition_racks(3)),
        }),
        helpers.new_group_epoch_record(group_id, 1),
        helpers.new_target_assignment_record(group_id, member_id, mk_assignment(
            mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5), mk_topic_assignment(bar_topic_id, 0, 1, 2))),
        helpers.new_target_assignment_epoch_record(group_id, 1),
        helpers.new_current_assignment_record(group_id, expected_member),
    ]
    assert_records_equals(expected_records, result.records())


def _image(*topics: tuple[uuid.UUID, str, int]) -> MetadataImage:
    builder = MetadataImageBuilder()
    for topic_id, name, partitions in topics:
        builder.add_topic(topic_id, name, partitions)
    return builder.add_racks().build()


def _subscription_metadata(*topics: tuple[uuid.UUID, str, int]) -> dict[str, TopicMetadata]:
    return {name: TopicMetadata(topic_id, name, n, mk_map_of_partition_racks(n)) for topic_id, name, n in topics}


def _stable(member_id: str, epoch: int, topics: list[str], assigned: object, **fields: object) -> ConsumerGroupMember:
    """The stable member most cases start from."""
    return _member(member_id, state=MemberState.STABLE, member_epoch=epoch, previous_member_epoch=epoch - 1,
                   client_id=DEFAULT_CLIENT_ID, client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=topics,
                   server_assignor_name="range", assigned_partitions=assigned, **fields)


def test_updating_subscription_triggers_new_target_assignment():
    group_id = "fooup"
    member_id = _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)
    foo_topic_id, bar_topic_id = foo[0], bar[0]

    assignor = MockPartitionAssignor("range")
    context = _context(assignor, _image(foo, bar), ConsumerGroupBuilder(group_id, 10)
                       .with_member(_stable(member_id, 10, ["foo"], mk_assignment(
                           mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5))))
                       .with_assignment(member_id, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5)))
                       .with_assignment_epoch(10))

    assignor.prepare_group_assignment(GroupAssignment({member_id: MemberAssignmentImpl(mk_assignment(
        mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5), mk_topic_assignment(bar_topic_id, 0, 1, 2)))}))

    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=10,
                                                 subscribed_topic_names=["foo", "bar"]))

    assert_response_equals(heartbeat_response(
        member_id=member_id, member_epoch=11, heartbeat_interval_ms=5000,
        assignment=_response_assignment((foo_topic_id, [0, 1, 2, 3, 4, 5]), (bar_topic_id, [0, 1, 2]))),
        result.response())

    expected_member = _stable(member_id, 11, ["foo", "bar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5), mk_topic_assignment(bar_topic_id, 0, 1, 2)))

    assert_records_equals([
        helpers.new_member_subscription_record(group_id, expected_member),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)),
        helpers.new_group_epoch_record(group_id, 11),
        helpers.new_target_assignment_record(group_id, member_id, mk_assignment(
            mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5), mk_topic_assignment(bar_topic_id, 0, 1, 2))),
        helpers.new_target_assignment_epoch_record(group_id, 11),
        helpers.new_current_assignment_record(group_id, expected_member),
    ], result.records())


def _two_members_group(group_id: str, member_id1: str, member_id2: str, foo_topic_id: uuid.UUID,
                       bar_topic_id: uuid.UUID, static: bool = False, member2_topics: list[str] | None = None,
                       rebalance_timeout_ms: int | None = None) -> ConsumerGroupBuilder:
    """Members 1 (foo 0-2, bar 0-1) and 2 (foo 3-5, bar 2) at epoch 10, as several cases start."""
    extra1: dict[str, object] = {}
    extra2: dict[str, object] = {}
    if static:
        extra1["instance_id"] = member_id1
        extra2["instance_id"] = member_id2
    if rebalance_timeout_ms is not None:
        extra1["rebalance_timeout_ms"] = extra2["rebalance_timeout_ms"] = rebalance_timeout_ms
    assignment1 = mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2), mk_topic_assignment(bar_topic_id, 0, 1))
    assignment2 = mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5), mk_topic_assignment(bar_topic_id, 2))
    return (ConsumerGroupBuilder(group_id, 10)
            .with_member(_stable(member_id1, 10, ["foo", "bar"], assignment1, **extra1))
            .with_member(_stable(member_id2, 10, member2_topics or ["foo", "bar"], assignment2, **extra2))
            .with_assignment(member_id1, assignment1)
            .with_assignment(member_id2, assignment2)
            .with_assignment_epoch(10))


def _three_way_assignment(member_id1: str, member_id2: str, member_id3: str, foo_topic_id: uuid.UUID,
                          bar_topic_id: uuid.UUID) -> GroupAssignment:
    return GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1),
                                                       mk_topic_assignment(bar_topic_id, 0))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 2, 3),
                                                       mk_topic_assignment(bar_topic_id, 1))),
        member_id3: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 4, 5),
                                                       mk_topic_assignment(bar_topic_id, 2))),
    })


def _assert_three_way_join_records(result: CoordinatorResult, group_id: str, member_ids: tuple[str, str, str],
                                   expected_member3: ConsumerGroupMember, foo: tuple, bar: tuple) -> None:
    member_id1, member_id2, member_id3 = member_ids
    foo_topic_id, bar_topic_id = foo[0], bar[0]
    expected_records = [
        helpers.new_member_subscription_record(group_id, expected_member3),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)),
        helpers.new_group_epoch_record(group_id, 11),
        helpers.new_target_assignment_record(group_id, member_id1, mk_assignment(
            mk_topic_assignment(foo_topic_id, 0, 1), mk_topic_assignment(bar_topic_id, 0))),
        helpers.new_target_assignment_record(group_id, member_id2, mk_assignment(
            mk_topic_assignment(foo_topic_id, 2, 3), mk_topic_assignment(bar_topic_id, 1))),
        helpers.new_target_assignment_record(group_id, member_id3, mk_assignment(
            mk_topic_assignment(foo_topic_id, 4, 5), mk_topic_assignment(bar_topic_id, 2))),
        helpers.new_target_assignment_epoch_record(group_id, 11),
        helpers.new_current_assignment_record(group_id, expected_member3),
    ]
    records = result.records()
    assert_records_equals(expected_records[0:3], records[0:3])
    assert_unordered_list_equals(expected_records[3:6], records[3:6])
    assert_records_equals(expected_records[6:8], records[6:8])


def test_new_joining_member_triggers_new_target_assignment():
    group_id = "fooup"
    member_id1, member_id2, member_id3 = _member_id(), _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)

    assignor = MockPartitionAssignor("range")
    context = _context(assignor, _image(foo, bar),
                       _two_members_group(group_id, member_id1, member_id2, foo[0], bar[0], rebalance_timeout_ms=5000))
    assignor.prepare_group_assignment(_three_way_assignment(member_id1, member_id2, member_id3, foo[0], bar[0]))

    # member 3 joins
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id3, member_epoch=0,
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 server_assignor="range", topic_partitions=[]))

    assert_response_equals(heartbeat_response(member_id=member_id3, member_epoch=11, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment()), result.response())

    expected_member3 = _member(member_id3, state=MemberState.UNRELEASED_PARTITIONS, member_epoch=11,
                               previous_member_epoch=0, client_id=DEFAULT_CLIENT_ID,
                               client_host=DEFAULT_CLIENT_ADDRESS, rebalance_timeout_ms=5000,
                               subscribed_topic_names=["foo", "bar"], server_assignor_name="range")
    _assert_three_way_join_records(result, group_id, (member_id1, member_id2, member_id3), expected_member3, foo, bar)


def test_leaving_member_bumps_group_epoch():
    group_id = "fooup"
    member_id1, member_id2 = _member_id(), _member_id()
    foo, bar, zar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3), (uuid.uuid4(), "zar", 1)

    assignor = MockPartitionAssignor("range")
    # only member 2 subscribes to zar: its leave changes the subscription metadata
    context = _context(assignor, _image(foo, bar, zar),
                       _two_members_group(group_id, member_id1, member_id2, foo[0], bar[0],
                                          member2_topics=["foo", "bar", "zar"]))

    # member 2 leaves
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2,
                                                 member_epoch=LEAVE_GROUP_MEMBER_EPOCH, rebalance_timeout_ms=5000,
                                                 subscribed_topic_names=["foo", "bar"], topic_partitions=[]))

    assert_response_equals(heartbeat_response(member_id=member_id2, member_epoch=LEAVE_GROUP_MEMBER_EPOCH),
                           result.response())

    assert_records_equals([
        helpers.new_current_assignment_tombstone_record(group_id, member_id2),
        helpers.new_target_assignment_tombstone_record(group_id, member_id2),
        helpers.new_member_subscription_tombstone_record(group_id, member_id2),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)),
        helpers.new_group_epoch_record(group_id, 11),
    ], result.records())


def test_group_epoch_bump_when_new_static_member_joins():
    group_id = "fooup"
    member_id1, member_id2, member_id3 = _member_id(), _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)

    assignor = MockPartitionAssignor("range")
    context = _context(assignor, _image(foo, bar),
                       _two_members_group(group_id, member_id1, member_id2, foo[0], bar[0], static=True,
                                          member2_topics=["foo", "bar", "zar"]))
    assignor.prepare_group_assignment(_three_way_assignment(member_id1, member_id2, member_id3, foo[0], bar[0]))

    # static member 3 joins
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id3, instance_id=member_id3,
                                                 member_epoch=0, rebalance_timeout_ms=5000, server_assignor="range",
                                                 subscribed_topic_names=["foo", "bar"], topic_partitions=[]))

    assert_response_equals(heartbeat_response(member_id=member_id3, member_epoch=11, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment()), result.response())

    expected_member3 = _member(member_id3, member_epoch=11, state=MemberState.UNRELEASED_PARTITIONS,
                               instance_id=member_id3, previous_member_epoch=0, client_id=DEFAULT_CLIENT_ID,
                               client_host=DEFAULT_CLIENT_ADDRESS, rebalance_timeout_ms=5000,
                               subscribed_topic_names=["foo", "bar"], server_assignor_name="range")
    _assert_three_way_join_records(result, group_id, (member_id1, member_id2, member_id3), expected_member3, foo, bar)


def _one_static_member_context(group_id: str, member_id1: str, foo_topic_id: uuid.UUID,
                               racks: bool = False) -> GroupMetadataManagerTestContext:
    """A group with one static member owning foo 0-2 at epoch 10."""
    builder = MetadataImageBuilder().add_topic(foo_topic_id, "foo", 6)
    if racks:
        builder.add_racks()
    return _context(MockPartitionAssignor("range"), builder.build(), ConsumerGroupBuilder(group_id, 10)
                    .with_member(_stable(member_id1, 10, ["foo", "bar"],
                                         mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2)),
                                         instance_id=member_id1))
                    .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2)))
                    .with_assignment_epoch(10))


def test_should_thrown_unreleased_instance_id_exception_when_new_member_joins_with_in_use_instance_id():
    group_id = "fooup"
    member_id1, member_id2 = _member_id(), _member_id()
    context = _one_static_member_context(group_id, member_id1, uuid.uuid4(), racks=True)

    # member 2 joins with the instance id of member 1
    with pytest.raises(UnreleasedInstanceIdException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, instance_id=member_id1,
                                            member_epoch=0, rebalance_timeout_ms=5000, server_assignor="range",
                                            subscribed_topic_names=["foo", "bar"], topic_partitions=[]))


def test_should_thrown_unknown_member_id_exception_when_unknown_static_member_joins():
    group_id = "fooup"
    member_id1, member_id2 = _member_id(), _member_id()
    context = _one_static_member_context(group_id, member_id1, uuid.uuid4())

    # member 2 joins with a non-zero epoch
    with pytest.raises(UnknownMemberIdException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, instance_id=member_id2,
                                            member_epoch=10, rebalance_timeout_ms=5000, server_assignor="range",
                                            subscribed_topic_names=["foo", "bar"], topic_partitions=[]))


def test_should_throw_fenced_instance_id_exception_when_static_member_with_different_member_id_joins():
    group_id = "fooup"
    member_id1 = _member_id()
    context = _one_static_member_context(group_id, member_id1, uuid.uuid4())

    with pytest.raises(FencedInstanceIdException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id="unknown-" + member_id1,
                                            instance_id=member_id1, member_epoch=11, rebalance_timeout_ms=5000,
                                            subscribed_topic_names=["foo", "bar"], topic_partitions=[]))


def test_consumer_group_member_epoch_validation_for_static_member():
    group_id = "fooup"
    member_id = _member_id()
    foo_topic_id = uuid.uuid4()
    context = _context(MockPartitionAssignor("range"))

    member = _member(member_id, state=MemberState.STABLE, instance_id=member_id, member_epoch=100,
                     previous_member_epoch=99, rebalance_timeout_ms=5000, client_id="client",
                     client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=["foo", "bar"],
                     server_assignor_name="range",
                     assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 1, 2, 3)))

    context.replay(helpers.new_member_subscription_record(group_id, member))
    context.replay(helpers.new_group_epoch_record(group_id, 100))
    context.replay(helpers.new_target_assignment_record(group_id, member_id, mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3))))
    context.replay(helpers.new_target_assignment_epoch_record(group_id, 100))
    context.replay(helpers.new_current_assignment_record(group_id, member))

    for epoch in (200, 50, 99):
        with pytest.raises(FencedMemberEpochException):
            context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, instance_id=member_id,
                                                member_epoch=epoch, rebalance_timeout_ms=5000,
                                                subscribed_topic_names=["foo", "bar"]))

    # the previous epoch owning a subset is accepted
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, instance_id=member_id,
                                                 member_epoch=99, rebalance_timeout_ms=5000,
                                                 subscribed_topic_names=["foo", "bar"],
                                                 topic_partitions=[(foo_topic_id, [1, 2])]))
    assert result.response().member_epoch == 100


def test_should_throw_unknown_member_id_exception_when_unknown_static_member_leaves():
    group_id = "fooup"
    member_id1 = _member_id()
    context = _one_static_member_context(group_id, member_id1, uuid.uuid4())

    with pytest.raises(UnknownMemberIdException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id1,
                                            instance_id="unknown-" + member_id1,
                                            member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH, rebalance_timeout_ms=5000,
                                            subscribed_topic_names=["foo", "bar"], topic_partitions=[]))


def test_should_throw_fenced_instance_id_exception_when_static_member_with_different_member_id_leaves():
    group_id = "fooup"
    member_id1 = _member_id()
    context = _one_static_member_context(group_id, member_id1, uuid.uuid4())

    with pytest.raises(FencedInstanceIdException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id="unknown-" + member_id1,
                                            instance_id=member_id1, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH,
                                            rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                            topic_partitions=[]))


def test_no_group_epoch_bump_when_static_member_temporarily_leaves():
    group_id = "fooup"
    member_id1, member_id2 = _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)
    builder = _two_members_group(group_id, member_id1, member_id2, foo[0], bar[0], static=True)
    member2 = builder._members[member_id2]
    context = _context(MockPartitionAssignor("range"), _image(foo, bar), builder)

    # static member 2 leaves for a while
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, instance_id=member_id2,
                                                 member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH,
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 topic_partitions=[]))

    # the response's epoch is -2
    assert_response_equals(heartbeat_response(member_id=member_id2, member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH),
                           result.response())

    member2_updated_epoch = ConsumerGroupMember.Builder(member2).set_member_epoch(
        LEAVE_GROUP_STATIC_MEMBER_EPOCH).build()
    assert len(result.records()) == 1
    assert_records_equals([result.records()[0]],
                          [helpers.new_current_assignment_record(group_id, member2_updated_epoch)])


def test_leaving_static_member_bumps_group_epoch():
    group_id = "fooup"
    member_id1, member_id2 = _member_id(), _member_id()
    foo, bar, zar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3), (uuid.uuid4(), "zar", 1)
    context = _context(MockPartitionAssignor("range"), _image(foo, bar, zar),
                       _two_members_group(group_id, member_id1, member_id2, foo[0], bar[0], static=True,
                                          member2_topics=["foo", "bar", "zar"]))

    # static member 2 leaves for good
    result = context.consumer_group_heartbeat(hb(group_id=group_id, instance_id=member_id2, member_id=member_id2,
                                                 member_epoch=LEAVE_GROUP_MEMBER_EPOCH, rebalance_timeout_ms=5000,
                                                 subscribed_topic_names=["foo", "bar"], topic_partitions=[]))

    assert_response_equals(heartbeat_response(member_id=member_id2, member_epoch=LEAVE_GROUP_MEMBER_EPOCH),
                           result.response())
    assert_records_equals([
        helpers.new_current_assignment_tombstone_record(group_id, member_id2),
        helpers.new_target_assignment_tombstone_record(group_id, member_id2),
        helpers.new_member_subscription_tombstone_record(group_id, member_id2),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)),
        helpers.new_group_epoch_record(group_id, 11),
    ], result.records())


def test_consumer_group_heartbeat_full_response():
    group_id = "fooup"
    member_id = _member_id()
    foo_topic_id = uuid.uuid4()

    assignor = MockPartitionAssignor("range")
    context = _context(assignor, MetadataImageBuilder().add_topic(foo_topic_id, "foo", 2).add_racks().build())
    assignor.prepare_group_assignment(GroupAssignment({member_id: MemberAssignmentImpl(mk_assignment(
        mk_topic_assignment(foo_topic_id, 0, 1)))}))

    # joining: a full response
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=0,
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 server_assignor="range", topic_partitions=[]))
    assert_response_equals(heartbeat_response(member_id=member_id, member_epoch=1, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment((foo_topic_id, [0, 1]))),
                           result.response())

    # otherwise a partial one
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id,
                                                 member_epoch=result.response().member_epoch))
    assert_response_equals(heartbeat_response(member_id=member_id, member_epoch=1, heartbeat_interval_ms=5000),
                           result.response())

    # a full request again: a full response again
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id,
                                                 member_epoch=result.response().member_epoch,
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 server_assignor="range", topic_partitions=[]))
    assert_response_equals(heartbeat_response(member_id=member_id, member_epoch=1, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment((foo_topic_id, [0, 1]))),
                           result.response())


def test_new_member_is_rejected_with_maximum_members_is_reached():
    group_id = "fooup"
    member_id1, member_id2, member_id3 = _member_id(), _member_id(), _member_id()
    foo_topic_id, bar_topic_id = uuid.uuid4(), uuid.uuid4()
    context = _context(MockPartitionAssignor("range"), MetadataImageBuilder().add_topic(foo_topic_id, "foo", 6)
                       .add_topic(bar_topic_id, "bar", 3).build(),
                       _two_members_group(group_id, member_id1, member_id2, foo_topic_id, bar_topic_id,
                                          rebalance_timeout_ms=5000),
                       consumer_group_max_size=2)

    with pytest.raises(GroupMaxSizeReachedException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id3, member_epoch=0,
                                            server_assignor="range", rebalance_timeout_ms=5000,
                                            subscribed_topic_names=["foo", "bar"], topic_partitions=[]))


def test_consumer_group_states():
    group_id = "fooup"
    member_id1 = _member_id()
    foo_topic_id = uuid.uuid4()
    context = _context(MockPartitionAssignor("range"), None, ConsumerGroupBuilder(group_id, 10))

    assert context.consumer_group_state(group_id) == ConsumerGroup.ConsumerGroupState.EMPTY

    context.replay(helpers.new_member_subscription_record(group_id, _member(
        member_id1, state=MemberState.STABLE, subscribed_topic_names=["foo"])))
    context.replay(helpers.new_group_epoch_record(group_id, 11))
    assert context.consumer_group_state(group_id) == ConsumerGroup.ConsumerGroupState.ASSIGNING

    context.replay(helpers.new_target_assignment_record(group_id, member_id1, mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3))))
    context.replay(helpers.new_target_assignment_epoch_record(group_id, 11))
    assert context.consumer_group_state(group_id) == ConsumerGroup.ConsumerGroupState.RECONCILING

    context.replay(helpers.new_current_assignment_record(group_id, _member(
        member_id1, state=MemberState.UNREVOKED_PARTITIONS, member_epoch=11, previous_member_epoch=10,
        assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 1, 2, 3)))))
    assert context.consumer_group_state(group_id) == ConsumerGroup.ConsumerGroupState.RECONCILING

    context.replay(helpers.new_current_assignment_record(group_id, _member(
        member_id1, state=MemberState.STABLE, member_epoch=11, previous_member_epoch=10,
        assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 1, 2, 3)))))
    assert context.consumer_group_state(group_id) == ConsumerGroup.ConsumerGroupState.STABLE


def test_partition_assignor_exception_on_regular_heartbeat():
    group_id = "fooup"
    member_id1 = _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)

    class FailingAssignor(MockPartitionAssignor):
        def assign(self, group_spec: object, subscribed_topic_describer: object) -> GroupAssignment:
            raise PartitionAssignorException("Assignment failed.")

    context = _context(FailingAssignor("range"), _image(foo, bar))

    # the join fails since the target assignment cannot be computed
    with pytest.raises(UnknownServerException):
        context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id1, member_epoch=0,
                                            rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                            server_assignor="range", topic_partitions=[]))


def test_group_ids_by_topics():
    group_id1, group_id2 = "group1", "group2"
    context = _context(MockPartitionAssignor("range"))
    gmm = context.group_metadata_manager

    def subscribe(group_id: str, member_id: str, topics: list[str]) -> None:
        context.replay(helpers.new_member_subscription_record(group_id, _member(
            member_id, subscribed_topic_names=topics)))

    def check(foo: set[str], bar: set[str], zar: set[str]) -> None:
        assert gmm.groups_subscribed_to_topic("foo") == foo
        assert gmm.groups_subscribed_to_topic("bar") == bar
        assert gmm.groups_subscribed_to_topic("zar") == zar

    check(set(), set(), set())
    subscribe(group_id1, "group1-m1", ["foo", "bar"])
    check({group_id1}, {group_id1}, set())
    subscribe(group_id2, "group2-m1", ["foo", "bar", "zar"])
    check({group_id1, group_id2}, {group_id1, group_id2}, {group_id2})
    subscribe(group_id1, "group1-m2", ["bar", "zar"])
    check({group_id1, group_id2}, {group_id1, group_id2}, {group_id1, group_id2})
    subscribe(group_id2, "group2-m2", ["foo", "bar"])
    check({group_id1, group_id2}, {group_id1, group_id2}, {group_id1, group_id2})

    # M1 of group 1 is removed
    context.replay(helpers.new_current_assignment_tombstone_record(group_id1, "group1-m1"))
    context.replay(helpers.new_member_subscription_tombstone_record(group_id1, "group1-m1"))
    check({group_id2}, {group_id1, group_id2}, {group_id1, group_id2})

    subscribe(group_id2, "group2-m1", [])
    check({group_id2}, {group_id1, group_id2}, {group_id1})
    subscribe(group_id2, "group2-m2", ["foo"])
    check({group_id2}, {group_id1}, {group_id1})
    subscribe(group_id2, "group2-m2", [])
    check(set(), {group_id1}, {group_id1})
    subscribe(group_id1, "group1-m2", [])
    check(set(), set(), set())


def test_on_new_metadata_image_with_empty_delta():
    from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance

    context = _context(MockPartitionAssignor("range"))
    delta = MetadataDelta(MetadataImage.EMPTY)
    image = delta.apply(MetadataProvenance.EMPTY)
    context.group_metadata_manager.on_new_metadata_image(image, delta)
    assert context.group_metadata_manager.image() == image


def test_on_new_metadata_image():
    from kafka_edu.v3_9.metadata.common.metadata import PartitionRecord, TopicRecord
    from kafka_edu.v3_9.metadata.common.metadata.remove_topic_record import RemoveTopicRecord
    from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance

    context = _context(MockPartitionAssignor("range"))
    for group_id, topics in (("group1", ["a", "b"]), ("group2", ["b", "c"]), ("group3", ["d"]), ("group4", ["e"]),
                             ("group5", ["f"])):
        context.replay(helpers.new_member_subscription_record(group_id, _member(
            f"{group_id}-m1", subscribed_topic_names=topics)))

    # every refresh deadline in the future
    for group_id in ("group1", "group2", "group3", "group4", "group5"):
        group = context.group_metadata_manager.consumer_group(group_id)
        group.set_metadata_refresh_deadline(context.time.milliseconds() + 5000, 0)
        assert not group.has_metadata_expired(context.time.milliseconds())

    topic_a, topic_b, topic_c, topic_d, topic_e = (uuid.uuid4() for _ in range(5))

    def partition(topic_id: uuid.UUID, partition_id: int) -> PartitionRecord:
        return PartitionRecord(topic_id=topic_id, partition_id=partition_id, replicas=(), isr=())

    # a base image with topics a, b, c and d
    delta = MetadataDelta(MetadataImage.EMPTY)
    for topic_id, name in ((topic_a, "a"), (topic_b, "b"), (topic_c, "c"), (topic_d, "d")):
        delta.replay(TopicRecord(topic_id=topic_id, name=name))
        delta.replay(partition(topic_id, 0))
    image = delta.apply(MetadataProvenance.EMPTY)

    # b changes, d is deleted, e is created
    delta = MetadataDelta(image)
    delta.replay(partition(topic_b, 2))
    delta.replay(RemoveTopicRecord(topic_id=topic_d))
    delta.replay(TopicRecord(topic_id=topic_e, name="e"))
    delta.replay(partition(topic_e, 1))
    image = delta.apply(MetadataProvenance.EMPTY)

    context.group_metadata_manager.on_new_metadata_image(image, delta)

    for group_id in ("group1", "group2", "group3", "group4"):
        assert context.group_metadata_manager.consumer_group(group_id).has_metadata_expired(
            context.time.milliseconds())
    assert not context.group_metadata_manager.consumer_group("group5").has_metadata_expired(
        context.time.milliseconds())
    assert context.group_metadata_manager.image() == image


def _single_member_context(member_id: str) -> tuple[GroupMetadataManagerTestContext, uuid.UUID]:
    foo_topic_id = uuid.uuid4()
    assignor = MockPartitionAssignor("range")
    context = _context(assignor, MetadataImageBuilder().add_topic(foo_topic_id, "foo", 6).add_racks().build())
    assignor.prepare_group_assignment(GroupAssignment({member_id: MemberAssignmentImpl(mk_assignment(
        mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5)))}))
    return context, foo_topic_id


def test_session_timeout_lifecycle():
    group_id = "fooup"
    member_id = _member_id()
    context, _ = _single_member_context(member_id)

    # the first heartbeat schedules the session timeout
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=0,
                                                 rebalance_timeout_ms=90000, subscribed_topic_names=["foo"],
                                                 topic_partitions=[]))
    assert result.response().member_epoch == 1
    context.assert_session_timeout(group_id, member_id, 45000)
    assert context.sleep(5000) == []

    # the next one reschedules it
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id,
                                                 member_epoch=result.response().member_epoch))
    assert result.response().member_epoch == 1
    context.assert_session_timeout(group_id, member_id, 45000)
    assert context.sleep(5000) == []

    # a leave cancels it
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id,
                                                 member_epoch=LEAVE_GROUP_MEMBER_EPOCH))
    assert result.response().member_epoch == LEAVE_GROUP_MEMBER_EPOCH
    context.assert_no_session_timeout(group_id, member_id)
    context.assert_no_rebalance_timeout(group_id, member_id)


def _expired_session_records(group_id: str, member_id: str) -> list:
    return [
        helpers.new_current_assignment_tombstone_record(group_id, member_id),
        helpers.new_target_assignment_tombstone_record(group_id, member_id),
        helpers.new_member_subscription_tombstone_record(group_id, member_id),
        helpers.new_group_subscription_metadata_record(group_id, {}),
        helpers.new_group_epoch_record(group_id, 2),
    ]


def test_session_timeout_expiration():
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_coordinator_timer import ExpiredTimeout

    group_id = "fooup"
    member_id = _member_id()
    context, _ = _single_member_context(member_id)

    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=0,
                                                 rebalance_timeout_ms=90000, subscribed_topic_names=["foo"],
                                                 topic_partitions=[]))
    assert result.response().member_epoch == 1
    context.assert_session_timeout(group_id, member_id, 45000)

    # past the session timeout
    timeouts = context.sleep(45000 + 1)
    assert timeouts == [ExpiredTimeout(group_session_timeout_key(group_id, member_id),
                                       CoordinatorResult(_expired_session_records(group_id, member_id)))]
    context.assert_no_session_timeout(group_id, member_id)
    context.assert_no_rebalance_timeout(group_id, member_id)


def test_session_timeout_expiration_static_member():
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_coordinator_timer import ExpiredTimeout

    group_id = "fooup"
    member_id = _member_id()
    context, _ = _single_member_context(member_id)

    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, instance_id=member_id,
                                                 member_epoch=0, rebalance_timeout_ms=90000,
                                                 subscribed_topic_names=["foo"], topic_partitions=[]))
    assert result.response().member_epoch == 1
    context.assert_session_timeout(group_id, member_id, 45000)

    # a temporary leave keeps the session timeout
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, instance_id=member_id,
                                                 member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH,
                                                 rebalance_timeout_ms=90000, subscribed_topic_names=["foo"],
                                                 topic_partitions=[]))
    assert result.response().member_epoch == -2
    context.assert_session_timeout(group_id, member_id, 45000)

    # no replacement joined in time
    timeouts = context.sleep(45000 + 1)
    assert timeouts == [ExpiredTimeout(group_session_timeout_key(group_id, member_id),
                                       CoordinatorResult(_expired_session_records(group_id, member_id)))]
    context.assert_no_session_timeout(group_id, member_id)
    context.assert_no_rebalance_timeout(group_id, member_id)


def _two_step_rebalance(rebalance_timeout_ms1: int, rebalance_timeout_ms2: int) -> tuple:
    """Member 1 owns foo 0-2; member 2 joins and the target gives it foo 2: member 1 must revoke it."""
    group_id = "fooup"
    member_id1, member_id2 = _member_id(), _member_id()
    foo_topic_id = uuid.uuid4()
    assignor = MockPartitionAssignor("range")
    context = _context(assignor, MetadataImageBuilder().add_topic(foo_topic_id, "foo", 3).add_racks().build())

    assignor.prepare_group_assignment(GroupAssignment({member_id1: MemberAssignmentImpl(mk_assignment(
        mk_topic_assignment(foo_topic_id, 0, 1, 2)))}))

    # member 1 joins
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id1, member_epoch=0,
                                                 rebalance_timeout_ms=rebalance_timeout_ms1,
                                                 subscribed_topic_names=["foo"], topic_partitions=[]))
    assert_response_equals(heartbeat_response(member_id=member_id1, member_epoch=1, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment((foo_topic_id, [0, 1, 2]))),
                           result.response())
    assert context.sleep(5000) == []

    # member 2 joins: the target moves foo 2 to it
    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 2))),
    }))
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, member_epoch=0,
                                                 rebalance_timeout_ms=rebalance_timeout_ms2,
                                                 subscribed_topic_names=["foo"], topic_partitions=[]))
    assert_response_equals(heartbeat_response(member_id=member_id2, member_epoch=2, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment()), result.response())
    assert context.sleep(5000) == []
    return context, group_id, member_id1, member_id2, foo_topic_id


def test_rebalance_timeout_lifecycle():
    context, group_id, member_id1, member_id2, foo_topic_id = _two_step_rebalance(180000, 90000)

    # member 1 heartbeats with a new rebalance timeout and is asked to revoke foo 2
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id1, member_epoch=1,
                                                 rebalance_timeout_ms=12000, subscribed_topic_names=["foo"]))
    assert_response_equals(heartbeat_response(member_id=member_id1, member_epoch=1, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment((foo_topic_id, [0, 1]))),
                           result.response())

    # the rebalance timeout is the member's new one
    scheduled_timeout = context.assert_rebalance_timeout(group_id, member_id1, 12000)
    assert context.sleep(5000) == []

    # member 1 revoked it: the timeout is cancelled
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id1, member_epoch=1,
                                                 topic_partitions=[(foo_topic_id, [0, 1])]))
    assert_response_equals(heartbeat_response(member_id=member_id1, member_epoch=2, heartbeat_interval_ms=5000),
                           result.response())
    context.assert_no_rebalance_timeout(group_id, member_id1)

    # a timeout that fires anyway finds the member moved on
    assert scheduled_timeout.operation().records() == []


def test_rebalance_timeout_expiration():
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_coordinator_timer import ExpiredTimeout

    # rebalance timeouts smaller than the session timeout
    context, group_id, member_id1, member_id2, foo_topic_id = _two_step_rebalance(10000, 10000)

    # member 1 is asked to revoke foo 2
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id1, member_epoch=1))
    assert_response_equals(heartbeat_response(member_id=member_id1, member_epoch=1, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment((foo_topic_id, [0, 1]))),
                           result.response())

    # it does not in time
    timeouts = context.sleep(10000 + 1)
    assert timeouts == [ExpiredTimeout(consumer_group_rebalance_timeout_key(group_id, member_id1), CoordinatorResult([
        helpers.new_current_assignment_tombstone_record(group_id, member_id1),
        helpers.new_target_assignment_tombstone_record(group_id, member_id1),
        helpers.new_member_subscription_tombstone_record(group_id, member_id1),
        helpers.new_group_epoch_record(group_id, 3),
    ]))]
    context.assert_no_session_timeout(group_id, member_id1)
    context.assert_no_rebalance_timeout(group_id, member_id1)


def test_on_loaded():
    foo_topic_id, bar_topic_id = uuid.uuid4(), uuid.uuid4()
    context = _context(MockPartitionAssignor("range"), MetadataImageBuilder().add_topic(foo_topic_id, "foo", 6)
                       .add_topic(bar_topic_id, "bar", 3).build(), ConsumerGroupBuilder("foo", 10)
                       .with_member(_member("foo-1", state=MemberState.UNREVOKED_PARTITIONS, member_epoch=9,
                                            previous_member_epoch=9, client_id="client",
                                            client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=["foo"],
                                            server_assignor_name="range",
                                            assigned_partitions=mk_assignment(
                                                mk_topic_assignment(foo_topic_id, 0, 1, 2)),
                                            partitions_pending_revocation=mk_assignment(
                                                mk_topic_assignment(foo_topic_id, 3, 4, 5))))
                       .with_member(_member("foo-2", state=MemberState.STABLE, member_epoch=10,
                                            previous_member_epoch=10, client_id="client",
                                            client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=["foo"],
                                            server_assignor_name="range"))
                       .with_assignment("foo-1", mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5)))
                       .with_assignment_epoch(10))

    context.group_metadata_manager.on_loaded()

    assert context.timer.timeout(group_session_timeout_key("foo", "foo-1")) is not None
    assert context.timer.timeout(group_session_timeout_key("foo", "foo-2")) is not None
    assert context.timer.timeout(consumer_group_rebalance_timeout_key("foo", "foo-1")) is not None


# --- classic groups ---

def _classic_context(**options: object) -> GroupMetadataManagerTestContext:
    builder = GroupMetadataManagerTestContext.Builder()
    for name, value in options.items():
        getattr(builder, f"with_{name}")(value)
    return builder.build()


def _join_request(group_id: str = "group-id", member_id: str = "", **fields: object) -> object:
    """new JoinGroupRequestBuilder().withGroupId(..).withMemberId(..)..., options by their builder names; a True
    value calls a builder method without argument."""
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        JoinGroupRequestBuilder,
    )
    builder = JoinGroupRequestBuilder().with_group_id(group_id).with_member_id(member_id)
    for name, value in fields.items():
        method = getattr(builder, f"with_{name}")
        method() if value is True else method(value)
    return builder.build()


def _verify_classic_group_join_responses(join_results: list, expected_success_count: int,
                                         expected_failure: object) -> list[str]:
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors

    success_count = 0
    member_ids = []
    for join_result in join_results:
        assert join_result.join_future.done(), "All responseFutures should be completed."
        join_response = join_result.join_future.result()
        if join_response.error_code == Errors.NONE:
            success_count += 1
        else:
            assert join_response.error_code == expected_failure
        member_ids.append(join_response.member_id)
    assert success_count == expected_success_count
    return member_ids


def _group_metadata_members(subscription: bytes, rebalance_timeout: int = 9000) -> tuple:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import MemberMetadata
    return tuple(MemberMetadata(member_id=f"member-{i}", group_instance_id=f"group-instance-id-{i}",
                                subscription=subscription, assignment=bytes([2]), client_id=f"client-{i}",
                                client_host=f"host-{i}", session_timeout=4000, rebalance_timeout=rebalance_timeout)
                 for i in range(2))


def _foo_subscription() -> bytes:
    from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Subscription
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    return bytes(consumer_protocol.serialize_subscription(Subscription(["foo"])).array())


def _replay_two_member_group(context: GroupMetadataManagerTestContext, rebalance_timeout: int = 9000) -> None:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import GroupMetadataValue
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        new_group_metadata_record,
    )
    context.replay(new_group_metadata_record("group-id", GroupMetadataValue(
        members=_group_metadata_members(_foo_subscription(), rebalance_timeout), generation=1, leader="member-0",
        protocol_type="consumer", protocol="range", current_state_timestamp=context.time.milliseconds()),
        MetadataVersion.latest_testing()))


def test_generate_records_on_new_classic_group():
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

    context = _classic_context()
    join_result = context.send_classic_group_join(_join_request(default_protocol_type_and_protocols=True), True)
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.MEMBER_ID_REQUIRED

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    assert join_result.records == [helpers.new_empty_group_metadata_record(group, MetadataVersion.latest_testing())]


def test_generate_records_on_new_classic_group_failure_transforms_error():
    from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors

    context = _classic_context()
    join_result = context.send_classic_group_join(_join_request(group_instance_id="group-instance-id",
                                                                default_protocol_type_and_protocols=True), True)
    assert not join_result.join_future.done()
    join_result.append_future.complete_exceptionally(NotLeaderOrFollowerException())
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.NOT_COORDINATOR


@pytest.mark.parametrize("use_default_rebalance_timeout", [True, False])
def test_replay_group_metadata_records(use_default_rebalance_timeout: bool):
    from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState

    context = _classic_context()
    subscription = _foo_subscription()
    expected_protocols = [JoinGroupRequestProtocol(name="range", metadata=subscription)]
    expected_members = [ClassicGroupMember(f"member-{i}", f"group-instance-id-{i}", f"client-{i}", f"host-{i}",
                                           4000 if use_default_rebalance_timeout else 9000, 4000, "consumer",
                                           expected_protocols, bytes([2])) for i in range(2)]

    _replay_two_member_group(context, -1 if use_default_rebalance_timeout else 9000)

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    expected_group = ClassicGroup("", "group-id", ClassicGroupState.STABLE, context.time, 1, "consumer", "range",
                                  "member-0", context.time.milliseconds())
    for member in expected_members:
        expected_group.add(member)

    assert group.group_id() == expected_group.group_id()
    assert group.generation_id() == expected_group.generation_id()
    assert group.protocol_type() == expected_group.protocol_type()
    assert group.protocol_name() == expected_group.protocol_name()
    assert group.leader_or_null() == expected_group.leader_or_null()
    assert group.current_state() == expected_group.current_state()
    assert group.current_state_timestamp_or_default() == expected_group.current_state_timestamp_or_default()
    assert group.current_classic_group_members() == expected_group.current_classic_group_members()


def test_on_loaded_exceed_group_max_size_triggers_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState

    context = _classic_context(classic_group_max_size=1)
    _replay_two_member_group(context)
    context.group_metadata_manager.on_loaded()

    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)
    assert group.num_members() == 2


def test_on_loaded_schedules_classic_group_member_heartbeats():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import classic_group_heartbeat_key

    context = _classic_context()
    _replay_two_member_group(context)
    context.group_metadata_manager.on_loaded()

    for _ in range(2):
        timeout = context.timer.timeout(classic_group_heartbeat_key("group-id", "member-1"))
        assert timeout is not None
        assert timeout.deadline_ms == context.time.milliseconds() + 4000


def test_join_group_should_receive_error_if_group_over_max_size():
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors

    context = _classic_context(classic_group_max_size=10)
    context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True, reason="exceed max group size")

    for _ in range(10):
        join_result = context.send_classic_group_join(request)
        assert not join_result.join_future.done()
        assert join_result.records == []

    join_result = context.send_classic_group_join(request)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.GROUP_MAX_SIZE_REACHED


def test_dynamic_members_join_group_with_max_size_and_required_known_member():
    import dataclasses

    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        assert_no_or_empty_result,
    )

    group_max_size = 10
    context = _classic_context(classic_group_max_size=group_max_size, classic_group_initial_rebalance_delay_ms=50)
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    # the first round: every member gets its id
    first_round = [context.send_classic_group_join(request, True) for _ in range(group_max_size + 1)]
    member_ids = _verify_classic_group_join_responses(first_round, 0, Errors.MEMBER_ID_REQUIRED)
    assert len(member_ids) == group_max_size + 1
    assert group.num_members() == 0
    assert group.is_in_state(ClassicGroupState.EMPTY)
    assert group.num_pending_join_members() == group_max_size + 1

    # the second round: the last one finds the group full
    second_round = [context.send_classic_group_join(dataclasses.replace(request, member_id=m), True)
                    for m in member_ids]
    assert_no_or_empty_result(context.sleep(50))
    assert_no_or_empty_result(context.sleep(50))
    _verify_classic_group_join_responses(second_round, group_max_size, Errors.GROUP_MAX_SIZE_REACHED)
    assert group.num_members() == group_max_size
    assert group.num_pending_join_members() == 0
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    # members rejoining in CompletingRebalance get their response again, the extra one is refused again
    third_round = [context.send_classic_group_join(dataclasses.replace(request, member_id=m), True)
                   for m in member_ids]
    _verify_classic_group_join_responses(third_round, group_max_size, Errors.GROUP_MAX_SIZE_REACHED)


def test_dynamic_members_join_group_with_max_size_and_not_required_known_member():
    import dataclasses

    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        assert_no_or_empty_result,
    )

    group_max_size = 10
    context = _classic_context(classic_group_max_size=group_max_size, classic_group_initial_rebalance_delay_ms=50)
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    first_round = [context.send_classic_group_join(request, False) for _ in range(group_max_size + 1)]
    assert group.num_members() == group_max_size
    assert group.num_awaiting_join_response() == group_max_size
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    assert_no_or_empty_result(context.sleep(50))
    assert_no_or_empty_result(context.sleep(50))

    member_ids = _verify_classic_group_join_responses(first_round, group_max_size, Errors.GROUP_MAX_SIZE_REACHED)
    second_round = [context.send_classic_group_join(dataclasses.replace(request, member_id=m), False)
                    for m in member_ids]
    _verify_classic_group_join_responses(second_round, 10, Errors.GROUP_MAX_SIZE_REACHED)
    assert group.num_members() == group_max_size
    assert group.num_awaiting_join_response() == 0
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)


def test_static_members_join_group_with_max_size():
    import dataclasses

    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        assert_no_or_empty_result,
    )

    group_max_size = 10
    group_instance_ids = [f"instance-id-{i}" for i in range(group_max_size + 1)]
    context = _classic_context(classic_group_max_size=group_max_size, classic_group_initial_rebalance_delay_ms=50)
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    first_round = [context.send_classic_group_join(dataclasses.replace(request, group_instance_id=i))
                   for i in group_instance_ids]
    assert group.num_members() == group_max_size
    assert group.num_awaiting_join_response() == group_max_size
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    assert_no_or_empty_result(context.sleep(50))
    assert_no_or_empty_result(context.sleep(50))

    member_ids = _verify_classic_group_join_responses(first_round, group_max_size, Errors.GROUP_MAX_SIZE_REACHED)
    second_round = [context.send_classic_group_join(dataclasses.replace(
        request, member_id=member_ids[i], group_instance_id=group_instance_ids[i]))
        for i in range(group_max_size + 1)]
    _verify_classic_group_join_responses(second_round, group_max_size, Errors.GROUP_MAX_SIZE_REACHED)
    assert group.num_members() == group_max_size
    assert group.num_awaiting_join_response() == 0
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)


def test_dynamic_members_can_rejoin_group_with_max_size_while_rebalancing():
    import dataclasses

    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        assert_no_or_empty_result,
    )

    group_max_size = 10
    context = _classic_context(classic_group_max_size=group_max_size, classic_group_initial_rebalance_delay_ms=50)
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    first_round = [context.send_classic_group_join(request, True) for _ in range(group_max_size + 1)]
    assert group.num_members() == 0
    assert group.num_pending_join_members() == group_max_size + 1
    assert group.is_in_state(ClassicGroupState.EMPTY)

    member_ids = _verify_classic_group_join_responses(first_round, 0, Errors.MEMBER_ID_REQUIRED)
    assert len(member_ids) == group_max_size + 1

    for member_id in member_ids:
        join_result = context.send_classic_group_join(dataclasses.replace(request, member_id=member_id), True)
        assert join_result.records == []

    assert group.num_members() == group_max_size
    assert group.num_awaiting_join_response() == group_max_size
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # members rejoining while the group rebalances
    third_round = [context.send_classic_group_join(dataclasses.replace(request, member_id=m), True)
                   for m in member_ids]
    assert_no_or_empty_result(context.sleep(50))
    assert_no_or_empty_result(context.sleep(50))
    _verify_classic_group_join_responses(third_round, group_max_size, Errors.GROUP_MAX_SIZE_REACHED)
    assert group.num_members() == group_max_size
    assert group.num_awaiting_join_response() == 0
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)


def test_last_joining_members_are_kicked_out_when_rejoining_group_with_max_size():
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        assert_no_or_empty_result,
        to_protocols,
    )

    group_max_size = 10
    context = _classic_context(classic_group_max_size=group_max_size, classic_group_initial_rebalance_delay_ms=50)
    group = context.create_classic_group("group-id")

    member_ids = [group.generate_member_id("client-id", None) for _ in range(group_max_size + 2)]
    for member_id in member_ids:
        group.add(ClassicGroupMember(member_id, None, "client-id", "client-host", 10000, 5000, "consumer",
                                     list(to_protocols("range"))))

    context.group_metadata_manager.prepare_rebalance(group, "test")

    join_results = [context.send_classic_group_join(_join_request(member_id=m, default_protocol_type_and_protocols=True,
                                                                  rebalance_timeout_ms=10000))
                    for m in member_ids]

    assert group.num_members() == group_max_size
    assert group.num_awaiting_join_response() == group_max_size
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # the rebalance timeout removes the members that did not rejoin
    assert_no_or_empty_result(context.sleep(10000))

    _verify_classic_group_join_responses(join_results, group_max_size, Errors.GROUP_MAX_SIZE_REACHED)
    assert group.num_members() == group_max_size
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    for member_id in member_ids[group_max_size:]:
        assert not group.has_member(member_id)
    for member_id in member_ids[:group_max_size]:
        assert group.has_member(member_id)


def test_join_group_unknown_member_new_group():
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors

    context = _classic_context()
    join_result = context.send_classic_group_join(_join_request(member_id="member-id"))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.UNKNOWN_MEMBER_ID

    join_result = context.send_classic_group_join(_join_request(member_id="member-id",
                                                                group_instance_id="group-instance-id"))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.UNKNOWN_MEMBER_ID


def test_classic_group_join_inconsistent_protocol_type():
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )

    context = _classic_context()
    context.create_classic_group("group-id")
    context.join_classic_group_as_dynamic_member_and_complete_join(
        _join_request(default_protocol_type_and_protocols=True))

    join_result = context.send_classic_group_join(_join_request(protocol_type="connect",
                                                                protocols=to_protocols("range")))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_group_with_empty_protocol_type():
    import dataclasses

    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )

    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(protocol_type="", protocols=to_protocols("range"))

    join_result = context.send_classic_group_join(request)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.INCONSISTENT_GROUP_PROTOCOL

    join_result = context.send_classic_group_join(dataclasses.replace(request, group_instance_id="group-instance-id"),
                                                  True, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_group_with_empty_group_protocol():
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors

    context = _classic_context()
    context.create_classic_group("group-id")
    join_result = context.send_classic_group_join(_join_request(protocol_type="consumer", protocols=()))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == Errors.INCONSISTENT_GROUP_PROTOCOL


def _errors() -> object:
    from kafka_edu.v3_9.clients.common.protocol.errors import Errors
    return Errors


def _no_or_empty(timeouts: list) -> None:
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        assert_no_or_empty_result,
    )
    assert_no_or_empty_result(timeouts)


def _replace(request: object, session_timeout_ms: int | None = None, rebalance_timeout_ms: int | None = None,
             **fields: object) -> object:
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        with_timeouts,
    )
    return with_timeouts(request, session_timeout_ms, rebalance_timeout_ms, **fields)


def test_new_member_join_expiration():
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True,
                            session_timeout_ms=5000 + context.classic_group_new_member_join_timeout_ms,
                            rebalance_timeout_ms=2 * context.classic_group_new_member_join_timeout_ms)

    first_response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    first_member_id = first_response.member_id
    assert first_response.leader == first_member_id
    assert first_response.error_code == errors.NONE
    assert group is not None
    assert sum(1 for m in group.all_members() if m.is_new()) == 0

    # a new member joins and is parked
    second_join_result = context.send_classic_group_join(_replace(request, 5000, 5000))
    assert second_join_result.records == []
    assert not second_join_result.join_future.done()
    assert len(group.all_members()) == 2
    new_members = [m for m in group.all_members() if m.is_new()]
    assert len(new_members) == 1
    assert new_members[0].member_id() != first_member_id

    # it expires after the new-member join timeout
    _no_or_empty(context.sleep(context.classic_group_new_member_join_timeout_ms))
    assert second_join_result.join_future.done()
    assert second_join_result.join_future.result().error_code == errors.UNKNOWN_MEMBER_ID
    assert len(group.all_members()) == 1
    assert sum(1 for m in group.all_members() if m.is_new()) == 0
    assert next(iter(group.all_members())).member_id() == first_member_id


def test_join_group_inconsistent_group_protocol():
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(protocol_type="consumer", protocols=to_protocols("range"))

    join_result = context.send_classic_group_join(request)
    assert join_result.records == []
    assert not join_result.join_future.done()

    other_join_result = context.send_classic_group_join(_replace(request, protocols=to_protocols("roundrobin")))
    assert join_result.records == []
    assert other_join_result.join_future.done()

    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms))
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert other_join_result.join_future.result().error_code == errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_group_second_join_inconsistent_protocol():
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    join_result = context.send_classic_group_join(request, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.MEMBER_ID_REQUIRED
    member_id = join_result.join_future.result().member_id

    # the known member with no protocols
    request = _replace(request, member_id=member_id, protocols=())
    join_result = context.send_classic_group_join(request, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.INCONSISTENT_GROUP_PROTOCOL

    # with a protocol it succeeds
    join_result = context.send_classic_group_join(_replace(request, protocols=to_protocols("range")), True)
    assert join_result.records == []
    assert not join_result.join_future.done()
    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms))
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE


def test_static_member_join_as_first_member():
    context = _classic_context()
    context.create_classic_group("group-id")
    context.join_classic_group_and_complete_join(_join_request(group_instance_id="group-instance-id",
                                                               default_protocol_type_and_protocols=True),
                                                 False, True)


def test_static_member_rejoin_with_explicit_unknown_member_id():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(group_instance_id="group-instance-id", default_protocol_type_and_protocols=True,
                            session_timeout_ms=5000, rebalance_timeout_ms=5000)

    response = context.join_classic_group_and_complete_join(request, False, True)
    assert response.error_code == errors.NONE

    join_result = context.send_classic_group_join(_replace(request, member_id="unknown-member-id"))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.FENCED_INSTANCE_ID


def test_join_group_unknown_consumer_existing_group():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True, session_timeout_ms=5000,
                            rebalance_timeout_ms=5000)

    response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert response.error_code == errors.NONE

    join_result = context.send_classic_group_join(_replace(request, member_id="other-member-id"))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.UNKNOWN_MEMBER_ID


def test_join_group_unknown_consumer_new_dead_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    group.transition_to(ClassicGroupState.DEAD)

    join_result = context.send_classic_group_join(_join_request(default_protocol_type_and_protocols=True))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.COORDINATOR_NOT_AVAILABLE


def test_join_group_protocol_type_is_not_provided_when_an_error_occurs():
    errors = _errors()
    context = _classic_context()
    join_result = context.send_classic_group_join(_join_request(member_id="member-id",
                                                                default_protocol_type_and_protocols=True))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.UNKNOWN_MEMBER_ID
    assert join_result.join_future.result().protocol_type is None


def test_join_group_returns_the_protocol_type():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    leader_join_result = context.send_classic_group_join(request)
    assert leader_join_result.records == []
    assert not leader_join_result.join_future.done()

    member_join_result = context.send_classic_group_join(request)
    assert member_join_result.records == []
    assert not member_join_result.join_future.done()

    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms))
    for result in (leader_join_result, member_join_result):
        assert result.join_future.done()
        assert result.join_future.result().error_code == errors.NONE
        assert result.join_future.result().protocol_type == "consumer"


def test_delay_initial_rebalance_by_group_initial_rebalance_delay_on_empty_group():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")

    join_result = context.send_classic_group_join(_join_request(default_protocol_type_and_protocols=True))
    assert join_result.records == []
    assert not join_result.join_future.done()

    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms // 2))
    assert not join_result.join_future.done()

    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms // 2 + 1))
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE


def test_reset_rebalance_delay_when_new_member_joins_group_during_initial_rebalance():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    delay = context.classic_group_initial_rebalance_delay_ms
    request = _join_request(default_protocol_type_and_protocols=True, rebalance_timeout_ms=delay * 3)

    first = context.send_classic_group_join(request)
    assert first.records == []
    assert not first.join_future.done()

    _no_or_empty(context.sleep(delay - 1))
    second = context.send_classic_group_join(request)
    assert second.records == []
    assert not second.join_future.done()

    # the delay restarts with the second member
    _no_or_empty(context.sleep(2))
    _no_or_empty(context.sleep(delay // 2 + 1))
    assert not first.join_future.done()
    assert not second.join_future.done()

    _no_or_empty(context.sleep(delay // 2))
    for result in (first, second):
        assert result.join_future.done()
        assert result.join_future.result().error_code == errors.NONE


def test_delay_rebalance_upto_rebalance_timeout():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    delay = context.classic_group_initial_rebalance_delay_ms
    request = _join_request(default_protocol_type_and_protocols=True, rebalance_timeout_ms=delay * 2)

    first = context.send_classic_group_join(request)
    assert first.records == []
    assert not first.join_future.done()
    second = context.send_classic_group_join(request)
    assert second.records == []
    assert not second.join_future.done()

    _no_or_empty(context.sleep(delay + 1))

    third = context.send_classic_group_join(request)
    assert third.records == []
    assert not third.join_future.done()

    _no_or_empty(context.sleep(delay - 1))
    for result in (first, second, third):
        assert not result.join_future.done()

    # the rebalance timeout caps the delays
    _no_or_empty(context.sleep(1))
    for result in (first, second, third):
        assert result.join_future.done()
        assert result.join_future.result().error_code == errors.NONE


def test_join_group_replace_static_member():
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(group_instance_id="group-instance-id", default_protocol_type_and_protocols=True,
                            session_timeout_ms=5000)

    old_member_join_result = context.send_classic_group_join(request)
    assert old_member_join_result.records == []
    assert not old_member_join_result.join_future.done()
    assert group.num_awaiting_join_response() == 1
    assert group.num_members() == 1

    # the same instance id again: the old member is fenced
    new_member_join_result = context.send_classic_group_join(request)
    assert new_member_join_result.records == []
    assert not new_member_join_result.join_future.done()
    assert old_member_join_result.join_future.done()
    assert old_member_join_result.join_future.result().error_code == errors.FENCED_INSTANCE_ID
    assert group.num_awaiting_join_response() == 1
    assert group.num_members() == 1

    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms))
    assert new_member_join_result.join_future.done()
    assert new_member_join_result.join_future.result().error_code == errors.NONE
    assert group.num_awaiting_join_response() == 0
    assert group.num_members() == 1


def test_heartbeat_expiration_should_remove_pending_member():
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")

    join_result = context.send_classic_group_join(_join_request(default_protocol_type_and_protocols=True,
                                                                session_timeout_ms=1000), True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.MEMBER_ID_REQUIRED
    assert group.num_members() == 0
    assert group.num_pending_join_members() == 1

    _no_or_empty(context.sleep(1000))
    assert group.num_pending_join_members() == 0


def test_heartbeat_expiration_should_remove_member():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import classic_group_heartbeat_key
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    errors = _errors()
    context = _classic_context(classic_group_initial_rebalance_delay_ms=10 * 60 * 1000)
    group = context.create_classic_group("group-id")

    join_result = context.send_classic_group_join(_join_request(default_protocol_type_and_protocols=True))
    assert join_result.records == []
    assert not join_result.join_future.done()
    assert group.num_members() == 1

    member_id = group.leader_or_null()
    # the new-member join timeout expires before the initial rebalance delay
    timeouts = context.sleep(context.classic_group_new_member_join_timeout_ms)
    assert len(timeouts) == 1
    for timeout in timeouts:
        assert timeout.key == classic_group_heartbeat_key("group-id", member_id)
        assert timeout.result.records() == [helpers.new_group_metadata_record(
            group, group.group_assignment(), MetadataVersion.latest_testing())]

    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.UNKNOWN_MEMBER_ID
    assert group.num_members() == 0


def test_existing_member_join_dead_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert response.error_code == errors.NONE
    assert group.has_member(response.member_id)

    group.transition_to(ClassicGroupState.DEAD)

    join_result = context.send_classic_group_join(request)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.COORDINATOR_NOT_AVAILABLE


def test_join_group_existing_pending_member_with_group_instance_id_throws_exception():
    from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    join_result = context.send_classic_group_join(request, True)
    assert join_result.records == []
    assert join_result.join_future.result().error_code == errors.MEMBER_ID_REQUIRED
    assert join_result.join_future.done()
    member_id = join_result.join_future.result().member_id

    with pytest.raises(IllegalStateException):
        context.send_classic_group_join(_replace(request, member_id=member_id, group_instance_id="group-instance-id"))


def test_join_group_existing_member_updated_metadata_triggers_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    protocols = to_protocols("range")
    request = _join_request(protocol_type="consumer", protocols=protocols)

    response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert response.error_code == errors.NONE
    member_id = response.member_id
    member = group.member(member_id)
    assert list(member.supported_protocols()) == list(protocols)
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.generation_id() == 1

    # new metadata during CompletingRebalance: a new generation
    protocols = to_protocols("range", "roundrobin")
    join_result = context.send_classic_group_join(_replace(request, member_id=member_id, protocols=protocols))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert response.error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.generation_id() == 2
    assert list(member.supported_protocols()) == list(protocols)


def test_join_group_as_existing_leader_triggers_rebalance_in_stable_state():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert response.error_code == errors.NONE
    member_id = response.member_id
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.is_leader(member_id)
    assert group.generation_id() == 1

    group.transition_to(ClassicGroupState.STABLE)

    join_result = context.send_classic_group_join(_replace(request, member_id=member_id))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.generation_id() == 2


def test_join_group_as_existing_member_with_updated_metadata_triggers_rebalance_in_stable_state():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(protocol_type="consumer", protocols=to_protocols("range"))

    leader_response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert leader_response.error_code == errors.NONE
    leader_id = leader_response.leader
    assert group.generation_id() == 1

    # a second member joins, the leader rejoins
    member_join_result = context.send_classic_group_join(request)
    assert member_join_result.records == []
    assert not member_join_result.join_future.done()

    request = _replace(request, member_id=leader_id)
    leader_join_result = context.send_classic_group_join(request)
    assert leader_join_result.records == []
    assert leader_join_result.join_future.done()
    assert member_join_result.join_future.done()
    assert leader_join_result.join_future.result().error_code == errors.NONE
    assert member_join_result.join_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.num_members() == 2
    assert group.generation_id() == 2

    group.transition_to(ClassicGroupState.STABLE)

    # the member rejoins with new protocols
    member_id = member_join_result.join_future.result().member_id
    request = _replace(request, member_id=member_id, protocols=to_protocols("range", "roundrobin"))
    member_join_result = context.send_classic_group_join(request)
    assert member_join_result.records == []
    assert not member_join_result.join_future.done()

    request = _replace(request, member_id=leader_id)
    leader_join_result = context.send_classic_group_join(request)
    assert leader_join_result.records == []
    assert leader_join_result.join_future.done()
    assert member_join_result.join_future.done()
    assert member_join_result.join_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.generation_id() == 3
    assert group.num_members() == 2


def test_join_group_existing_member_does_not_trigger_rebalance_in_stable_state():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    leader_response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert leader_response.error_code == errors.NONE
    leader_id = leader_response.leader
    assert group.generation_id() == 1

    member_join_result = context.send_classic_group_join(request)
    assert member_join_result.records == []
    assert not member_join_result.join_future.done()

    leader_join_result = context.send_classic_group_join(_replace(request, member_id=leader_id))
    assert leader_join_result.records == []
    assert leader_join_result.join_future.done()
    assert member_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.num_members() == 2
    assert group.generation_id() == 2

    member_id = member_join_result.join_future.result().member_id
    group.transition_to(ClassicGroupState.STABLE)

    # a follower with the same metadata: no rebalance
    member_join_result = context.send_classic_group_join(_replace(request, member_id=member_id))
    assert member_join_result.records == []
    assert member_join_result.join_future.done()
    assert member_join_result.join_future.result().error_code == errors.NONE
    assert member_join_result.join_future.result().generation_id == 2
    assert group.is_in_state(ClassicGroupState.STABLE)


def test_join_group_existing_member_in_empty_state():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True)

    response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert response.error_code == errors.NONE
    member_id = response.member_id
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.transition_to(ClassicGroupState.EMPTY)

    join_result = context.send_classic_group_join(_replace(request, member_id=member_id))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.UNKNOWN_MEMBER_ID
    assert join_result.join_future.result().generation_id == -1


def test_complete_join_remove_not_yet_rejoined_dynamic_members():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(default_protocol_type_and_protocols=True, session_timeout_ms=1000,
                            rebalance_timeout_ms=1000)

    leader_response = context.join_classic_group_as_dynamic_member_and_complete_join(request)
    assert leader_response.error_code == errors.NONE
    assert group.generation_id() == 1

    member_join_result = context.send_classic_group_join(request)
    assert member_join_result.records == []
    assert not member_join_result.join_future.done()
    assert group.num_members() == 2
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # the leader does not rejoin within the rebalance timeout
    _no_or_empty(context.sleep(1000))
    assert member_join_result.join_future.done()
    assert member_join_result.join_future.result().error_code == errors.NONE
    assert group.num_members() == 1
    assert group.has_member(member_join_result.join_future.result().member_id)
    assert group.generation_id() == 2


def test_complete_join_phase_in_empty_state_skips_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    context = _classic_context()
    group = context.create_classic_group("group-id")

    join_result = context.send_classic_group_join(_join_request(default_protocol_type_and_protocols=True,
                                                                session_timeout_ms=1000, rebalance_timeout_ms=1000))
    assert join_result.records == []
    assert not join_result.join_future.done()
    assert group.generation_id() == 0
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    group.transition_to(ClassicGroupState.DEAD)

    # no new generation for a dead group
    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms))
    assert group.generation_id() == 0


def test_complete_join_phase_no_members_rejoined_extends_join_phase():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(group_instance_id="first-instance-id", default_protocol_type_and_protocols=True,
                            session_timeout_ms=30000, rebalance_timeout_ms=10000)

    first_member_response = context.join_classic_group_and_complete_join(request, True, True)
    assert first_member_response.error_code == errors.NONE
    first_member_id = first_member_response.member_id

    # a second static member joins, then the first rejoins
    request = _replace(request, group_instance_id="second-instance-id")
    second_member_join_result = context.send_classic_group_join(request)
    assert second_member_join_result.records == []
    assert not second_member_join_result.join_future.done()

    request = _replace(request, member_id=first_member_id, group_instance_id="first-instance-id")
    first_member_join_result = context.send_classic_group_join(request)
    assert first_member_join_result.records == []
    assert first_member_join_result.join_future.done()
    assert second_member_join_result.join_future.done()
    assert first_member_join_result.join_future.result().error_code == errors.NONE
    assert second_member_join_result.join_future.result().error_code == errors.NONE
    assert group.num_members() == 2
    assert group.generation_id() == 2

    second_member_id = second_member_join_result.join_future.result().member_id

    context.group_metadata_manager.prepare_rebalance(group, "trigger rebalance")
    assert group.num_members() == 2
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)
    assert group.num_awaiting_join_response() == 0

    # static members that do not rejoin stay: the join phase is extended, twice
    _no_or_empty(context.sleep(10000))
    assert context.timer.timeout("join-group-id").deadline_ms - context.time.milliseconds() == 10000
    _no_or_empty(context.sleep(10000))
    assert context.timer.timeout("join-group-id").deadline_ms - context.time.milliseconds() == 10000

    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)
    assert group.num_members() == 2
    assert group.generation_id() == 2

    first_member_join_result = context.send_classic_group_join(
        _replace(request, member_id=first_member_id, group_instance_id="first-instance-id"))
    assert first_member_join_result.records == []
    assert not first_member_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)
    assert group.num_members() == 2
    assert group.generation_id() == 2

    second_member_join_result = context.send_classic_group_join(
        _replace(request, member_id=second_member_id, group_instance_id="second-instance-id"))
    assert second_member_join_result.records == []
    assert first_member_join_result.join_future.done()
    assert second_member_join_result.join_future.done()
    assert first_member_join_result.join_future.result().error_code == errors.NONE
    assert second_member_join_result.join_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.num_members() == 2
    assert group.generation_id() == 3


def _static_join_then_stable(context: GroupMetadataManagerTestContext, request: object,
                             require_known_member_id: bool, support_skipping_assignment: bool) -> tuple:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    response = context.join_classic_group_and_complete_join(request, require_known_member_id,
                                                            support_skipping_assignment)
    assert response.error_code == errors.NONE
    assert group.num_members() == 1
    assert group.generation_id() == 1
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    return group, response.member_id


@pytest.mark.parametrize("support_skipping_assignment", [True, False])
def test_replace_static_member_in_stable_state_no_error(support_skipping_assignment: bool):
    from kio.schema.join_group.v9.response import JoinGroupResponseMember

    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(group_instance_id="group-instance-id", protocol_type="consumer",
                            protocols=to_protocols("range"))
    group, old_member_id = _static_join_then_stable(context, request, True, support_skipping_assignment)
    group.transition_to(ClassicGroupState.STABLE)

    # the static member rejoins unknown, with a protocol that keeps the selected one
    protocols = to_protocols("range", "roundrobin")
    join_result = context.send_classic_group_join(_replace(request, 4500, 7000, protocols=protocols), True,
                                                  support_skipping_assignment)
    assert join_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                     MetadataVersion.latest_testing())]
    assert not join_result.join_future.done()
    join_result.append_future.complete(None)
    assert join_result.join_future.done()

    new_member_id = group.static_member_id("group-instance-id")
    expected_response = join_group_response(members=(), leader=old_member_id, member_id=new_member_id,
                                            generation_id=1, protocol_type="consumer", protocol_name="range",
                                            skip_assignment=support_skipping_assignment, error_code=errors.NONE)
    if support_skipping_assignment:
        expected_response = _replace(expected_response, members=(JoinGroupResponseMember(
            member_id=new_member_id, group_instance_id="group-instance-id", metadata=protocols[0].metadata),),
            leader=new_member_id)

    updated_member = group.member(group.static_member_id("group-instance-id"))
    assert join_result.join_future.result() == expected_response
    assert updated_member.member_id() == new_member_id
    assert updated_member.group_instance_id() == "group-instance-id"
    assert updated_member.rebalance_timeout_ms() == 7000
    assert updated_member.session_timeout_ms() == 4500
    assert list(updated_member.supported_protocols()) == list(protocols)
    assert group.num_members() == 1
    assert group.generation_id() == 1
    assert group.is_in_state(ClassicGroupState.STABLE)


def test_replace_static_member_in_stable_state_with_updated_protocol_triggers_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(group_instance_id="group-instance-id", protocol_type="consumer",
                            protocols=to_protocols("range", "roundrobin"))
    group, _ = _static_join_then_stable(context, request, True, True)
    group.transition_to(ClassicGroupState.STABLE)

    # the selected protocol changes: a rebalance
    join_result = context.send_classic_group_join(_replace(request, protocols=to_protocols("roundrobin")))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert group.num_members() == 1
    assert group.generation_id() == 2
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)


def test_replace_static_member_in_stable_state_errors():
    from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

    from kafka_edu.v1_0_2.clients.common.errors import UnknownTopicOrPartitionException
    from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Subscription
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    protocols = to_protocols("range")
    request = _join_request(group_instance_id="group-instance-id", protocol_type="consumer", protocols=protocols,
                            rebalance_timeout_ms=4000, session_timeout_ms=3000)
    group, old_member_id = _static_join_then_stable(context, request, False, False)
    group.transition_to(ClassicGroupState.STABLE)

    # Kafka adds to the very collection the member holds, so its reverted member compares equal to the new
    # protocols; kio's tuples are immutable and the reverted member keeps its own (range only)
    old_protocols = protocols
    protocols = protocols + (JoinGroupRequestProtocol(name="roundrobin", metadata=bytes(
        consumer_protocol.serialize_subscription(Subscription(["bar"])).array())),)
    join_result = context.send_classic_group_join(_replace(request, 6000, 7000, protocols=protocols), False, False)
    assert join_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                     MetadataVersion.latest_testing())]
    assert not join_result.join_future.done()

    # the write fails: the replacement is undone
    join_result.append_future.complete_exceptionally(UnknownTopicOrPartitionException())
    assert join_result.join_future.done()
    assert join_result.join_future.result() == join_group_response(
        members=(), leader=old_member_id, member_id="", generation_id=1, protocol_type="consumer",
        protocol_name="range", skip_assignment=False, error_code=errors.COORDINATOR_NOT_AVAILABLE)

    reverted_member = group.member(group.static_member_id("group-instance-id"))
    assert reverted_member.member_id() == old_member_id
    assert reverted_member.group_instance_id() == "group-instance-id"
    assert reverted_member.rebalance_timeout_ms() == 4000
    assert reverted_member.session_timeout_ms() == 3000
    assert list(reverted_member.supported_protocols()) == list(old_protocols)
    assert group.num_members() == 1
    assert group.generation_id() == 1
    assert group.is_in_state(ClassicGroupState.STABLE)


@pytest.mark.parametrize("support_skipping_assignment", [True, False])
def test_replace_static_member_in_stable_state_succeeds(support_skipping_assignment: bool):
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(group_instance_id="group-instance-id", protocol_type="consumer",
                            protocols=to_protocols("range"))
    group, old_member_id = _static_join_then_stable(context, request, True, support_skipping_assignment)
    group.transition_to(ClassicGroupState.STABLE)

    join_result = context.send_classic_group_join(
        _replace(request, 6000, 7000, protocols=to_protocols("range", "roundrobin")), True,
        support_skipping_assignment)
    assert join_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                     MetadataVersion.latest_testing())]
    assert not join_result.join_future.done()
    join_result.append_future.complete(None)
    assert join_result.join_future.done()

    new_member_id = join_result.join_future.result().member_id
    expected_response = join_group_response(
        members=tuple(group.current_classic_group_members()) if support_skipping_assignment else (),
        leader=new_member_id if support_skipping_assignment else old_member_id, member_id=new_member_id,
        generation_id=1, protocol_type="consumer", protocol_name="range",
        skip_assignment=support_skipping_assignment, error_code=errors.NONE)
    assert join_result.join_future.result() == expected_response

    new_member = group.member(group.static_member_id("group-instance-id"))
    assert new_member.member_id() != old_member_id
    assert new_member.group_instance_id() == "group-instance-id"
    assert new_member.rebalance_timeout_ms() == 7000
    assert new_member.session_timeout_ms() == 6000
    assert list(new_member.supported_protocols()) == list(to_protocols("range", "roundrobin"))
    assert group.num_members() == 1
    assert group.generation_id() == 1
    assert group.is_in_state(ClassicGroupState.STABLE)


def test_replace_static_member_in_completing_rebalance_state_triggers_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    request = _join_request(group_instance_id="group-instance-id", default_protocol_type_and_protocols=True)
    group, _ = _static_join_then_stable(context, request, True, True)

    # still CompletingRebalance: the leader's assignment would be stale
    join_result = context.send_classic_group_join(request)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert group.num_members() == 1
    assert group.generation_id() == 2
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)


def test_join_group_append_error_conversion():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import (
        append_group_metadata_error_to_response_error as convert,
    )
    errors = _errors()
    assert convert(errors.UNKNOWN_TOPIC_OR_PARTITION) == errors.COORDINATOR_NOT_AVAILABLE
    assert convert(errors.NOT_ENOUGH_REPLICAS) == errors.COORDINATOR_NOT_AVAILABLE
    assert convert(errors.REQUEST_TIMED_OUT) == errors.COORDINATOR_NOT_AVAILABLE
    assert convert(errors.NOT_LEADER_OR_FOLLOWER) == errors.NOT_COORDINATOR
    assert convert(errors.KAFKA_STORAGE_ERROR) == errors.NOT_COORDINATOR
    assert convert(errors.MESSAGE_TOO_LARGE) == errors.UNKNOWN_SERVER_ERROR
    assert convert(errors.RECORD_LIST_TOO_LARGE) == errors.UNKNOWN_SERVER_ERROR
    assert convert(errors.INVALID_FETCH_SIZE) == errors.UNKNOWN_SERVER_ERROR
    assert errors.LEADER_NOT_AVAILABLE == errors.LEADER_NOT_AVAILABLE


def _sync_request(group_id: str = "group-id", member_id: str | None = None, generation_id: int = 0,
                  **fields: object) -> object:
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        SyncGroupRequestBuilder,
    )
    builder = SyncGroupRequestBuilder().with_group_id(group_id).with_member_id(member_id) \
        .with_generation_id(generation_id)
    for name, value in fields.items():
        getattr(builder, f"with_{name}")(value)
    return builder.build()


def test_new_member_timeout_completion():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import GroupMetadataValue
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import classic_group_heartbeat_key
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        new_group_metadata_record,
    )
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")

    join_result = context.send_classic_group_join(_join_request(
        default_protocol_type_and_protocols=True,
        session_timeout_ms=context.classic_group_new_member_join_timeout_ms + 5000))
    assert join_result.records == []
    assert not join_result.join_future.done()

    _no_or_empty(context.sleep(context.classic_group_initial_rebalance_delay_ms))
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert group.generation_id() == 1
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert sum(1 for m in group.all_members() if m.is_new()) == 0

    sync_result = context.send_classic_group_sync(_sync_request(
        member_id=join_result.join_future.result().member_id,
        generation_id=join_result.join_future.result().generation_id))
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert group.num_members() == 1

    # the member is no longer new: the new-member timeout does not apply
    _no_or_empty(context.sleep(context.classic_group_new_member_join_timeout_ms))
    assert group.num_members() == 1

    # its session timeout does
    timeouts = context.sleep(5000)
    expected_records = [new_group_metadata_record(group.group_id(), GroupMetadataValue(
        members=(), generation=2, leader=None, protocol_type="consumer", protocol=None,
        current_state_timestamp=context.time.milliseconds()), MetadataVersion.latest_testing())]
    assert len(timeouts) == 1
    member_id = join_result.join_future.result().member_id
    for timeout in timeouts:
        assert timeout.key == classic_group_heartbeat_key("group-id", member_id)
        assert timeout.result.records() == expected_records
    assert group.num_members() == 0
    assert group.is_in_state(ClassicGroupState.EMPTY)


def test_new_member_failure_after_join_group_completion():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    join_request = _join_request(default_protocol_type_and_protocols=True, session_timeout_ms=5000,
                                 rebalance_timeout_ms=10000)

    join_response = context.join_classic_group_and_complete_join(join_request, False, False)
    assert join_response.error_code == errors.NONE
    member_id = join_response.member_id
    assert join_response.leader == member_id
    assert join_response.generation_id == 1

    sync_result = context.send_classic_group_sync(_sync_request(member_id=member_id, generation_id=1))
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.STABLE)
    assert group.generation_id() == 1

    other_join_result = context.send_classic_group_join(_replace(join_request, member_id=""))
    join_result = context.send_classic_group_join(_replace(join_request, member_id=member_id))
    assert other_join_result.records == []
    assert join_result.records == []
    assert join_result.join_future.done()
    assert other_join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert other_join_result.join_future.result().error_code == errors.NONE

    context.verify_session_expiration(group, 5000)


def _check_join_group_response(expected: object, actual: object, group: object, expected_state: object,
                               expected_group_instance_ids: set[str]) -> None:
    assert actual == expected
    assert group.is_in_state(expected_state)
    assert {m.group_instance_id for m in actual.members} == expected_group_instance_ids


def _to_join_response_members(group: object) -> tuple:
    from kio.schema.join_group.v9.response import JoinGroupResponseMember
    protocol_name = group.protocol_name()
    return tuple(JoinGroupResponseMember(member_id=m.member_id(), group_instance_id=m.group_instance_id() or "",
                                         metadata=m.metadata(protocol_name)) for m in group.all_members())


def test_static_member_fence_duplicate_rejoined_follower():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # a new member joins: a rebalance
    request = _join_request(default_protocol_type_and_protocols=True)
    context.send_classic_group_join(request)
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    request = _replace(request, member_id=rebalance_result.follower_id, group_instance_id="follower-instance-id")
    old_follower_join_result = context.send_classic_group_join(request)
    assert old_follower_join_result.records == []
    assert not old_follower_join_result.join_future.done()

    # a duplicate of the follower fences the old one
    context.send_classic_group_join(_replace(request, member_id="", group_instance_id="follower-instance-id"))
    assert old_follower_join_result.records == []
    assert old_follower_join_result.join_future.done()

    expected_response = join_group_response(error_code=errors.FENCED_INSTANCE_ID, protocol_name=None,
                                            protocol_type=None, leader="", member_id=rebalance_result.follower_id,
                                            generation_id=-1)
    _check_join_group_response(expected_response, old_follower_join_result.join_future.result(), group,
                               ClassicGroupState.PREPARING_REBALANCE, set())


def test_static_member_fence_duplicate_syncing_follower_after_member_id_changed():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import EMPTY_RESULT as EMPTY
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # the leader rejoins: a rebalance
    request = _join_request(group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id,
                            protocol_superset=True, rebalance_timeout_ms=10000)
    leader_join_result = context.send_classic_group_join(request)
    assert leader_join_result.records == []
    assert not leader_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # the follower rejoins: the join phase completes
    request = _replace(request, member_id=rebalance_result.follower_id, group_instance_id="follower-instance-id")
    old_follower_join_result = context.send_classic_group_join(request)
    assert old_follower_join_result.records == []
    assert old_follower_join_result.join_future.done()
    assert leader_join_result.join_future.done()

    expected_leader_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=rebalance_result.leader_id, leader=rebalance_result.leader_id, protocol_name="range",
        protocol_type="consumer", members=_to_join_response_members(group))
    _check_join_group_response(expected_leader_response, leader_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, {"leader-instance-id", "follower-instance-id"})
    assert leader_join_result.join_future.result().member_id == rebalance_result.leader_id
    assert leader_join_result.join_future.result().leader == rebalance_result.leader_id

    expected_follower_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=old_follower_join_result.join_future.result().member_id, leader=rebalance_result.leader_id,
        protocol_name="range", protocol_type="consumer")
    _check_join_group_response(expected_follower_response, old_follower_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, set())
    assert old_follower_join_result.join_future.result().member_id == rebalance_result.follower_id
    assert old_follower_join_result.join_future.result().leader == rebalance_result.leader_id

    # the old follower syncs, and is parked
    old_follower_sync_result = context.send_classic_group_sync(_sync_request(
        group_instance_id="follower-instance-id",
        generation_id=old_follower_join_result.join_future.result().generation_id,
        member_id=old_follower_join_result.join_future.result().member_id))
    assert old_follower_sync_result.records == []
    assert not old_follower_sync_result.sync_future.done()

    # a duplicate follower joins: the parked sync is fenced
    duplicate_follower_join_result = context.send_classic_group_join(
        _replace(request, member_id="", group_instance_id="follower-instance-id"))
    assert duplicate_follower_join_result.records == []
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)
    assert not duplicate_follower_join_result.join_future.done()
    assert old_follower_sync_result.sync_future.done()
    assert old_follower_sync_result.sync_future.result().error_code == errors.FENCED_INSTANCE_ID

    # the leader does not rejoin in time: it is removed
    timeouts = context.sleep(10000)
    assert len(timeouts) == 2
    for timeout in timeouts:
        assert timeout.result == EMPTY

    assert duplicate_follower_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.generation_id() == 3
    assert group.num_members() == 1
    assert group.has_member(duplicate_follower_join_result.join_future.result().member_id)
    assert duplicate_follower_join_result.join_future.result().member_id == \
        duplicate_follower_join_result.join_future.result().leader


def test_static_member_fence_duplicate_rejoining_follower_after_member_id_changed():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    request = _join_request(group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id,
                            default_protocol_type_and_protocols=True, rebalance_timeout_ms=10000)
    leader_join_result = context.send_classic_group_join(request)
    assert leader_join_result.records == []
    assert not leader_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # a duplicate follower joins with an unknown member id
    request = _replace(request, member_id="", group_instance_id="follower-instance-id")
    duplicate_follower_join_result = context.send_classic_group_join(request)
    assert duplicate_follower_join_result.records == []
    assert duplicate_follower_join_result.join_future.done()

    # the old follower is fenced
    old_follower_join_result = context.send_classic_group_join(_replace(request,
                                                                        member_id=rebalance_result.follower_id))
    assert old_follower_join_result.records == []
    assert old_follower_join_result.join_future.done()
    assert leader_join_result.join_future.done()

    expected_leader_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=rebalance_result.leader_id, leader=rebalance_result.leader_id, protocol_name="range",
        protocol_type="consumer", members=_to_join_response_members(group))
    _check_join_group_response(expected_leader_response, leader_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, {"leader-instance-id", "follower-instance-id"})

    expected_duplicate_follower_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=duplicate_follower_join_result.join_future.result().member_id, leader=rebalance_result.leader_id,
        protocol_name="range", protocol_type="consumer", members=())
    _check_join_group_response(expected_duplicate_follower_response,
                               duplicate_follower_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, set())

    expected_old_follower_response = join_group_response(
        error_code=errors.FENCED_INSTANCE_ID, generation_id=-1, member_id=rebalance_result.follower_id, leader="",
        protocol_name=None, protocol_type=None, members=())
    _check_join_group_response(expected_old_follower_response, old_follower_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, set())


def test_static_member_gets_back_assignment_upon_rejoin():
    group_id = "fooup"
    member_id1, member_id2, member2_rejoin_id = _member_id(), _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)
    foo_topic_id, bar_topic_id = foo[0], bar[0]

    builder = _two_members_group(group_id, member_id1, member_id2, foo_topic_id, bar_topic_id, static=True,
                                 rebalance_timeout_ms=5000).with_subscription_metadata(
        _subscription_metadata(foo, bar))
    member2 = builder._members[member_id2]
    context = _context(MockPartitionAssignor("range"), _image(foo, bar), builder)

    # member 2 leaves for a while
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, instance_id=member_id2,
                                                 member_epoch=-2, subscribed_topic_names=["foo", "bar"],
                                                 topic_partitions=[]))
    assert_response_equals(heartbeat_response(member_id=member_id2, member_epoch=-2), result.response())
    member2_updated_epoch = ConsumerGroupMember.Builder(member2).set_member_epoch(-2).build()
    assert len(result.records()) == 1
    assert_records_equals([result.records()[0]],
                          [helpers.new_current_assignment_record(group_id, member2_updated_epoch)])

    # it rejoins under a new member id and gets its assignment back, at the same epoch
    rejoin_result = context.consumer_group_heartbeat(hb(member_id=member2_rejoin_id, group_id=group_id,
                                                        instance_id=member_id2, member_epoch=0,
                                                        rebalance_timeout_ms=5000, server_assignor="range",
                                                        subscribed_topic_names=["foo", "bar"], topic_partitions=[]))
    assert_response_equals(heartbeat_response(
        member_id=member2_rejoin_id, member_epoch=10, heartbeat_interval_ms=5000,
        assignment=_response_assignment((foo_topic_id, [3, 4, 5]), (bar_topic_id, [2]))), rejoin_result.response())

    assignment = mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5), mk_topic_assignment(bar_topic_id, 2))
    common = dict(state=MemberState.STABLE, instance_id=member_id2, client_id="client",
                  client_host=DEFAULT_CLIENT_ADDRESS, rebalance_timeout_ms=5000,
                  subscribed_topic_names=["foo", "bar"], server_assignor_name="range",
                  assigned_partitions=assignment)
    expected_copied_member = _member(member2_rejoin_id, member_epoch=0, previous_member_epoch=0, **common)
    expected_rejoined_member = _member(member2_rejoin_id, member_epoch=10, previous_member_epoch=0, **common)

    assert_records_equals([
        helpers.new_current_assignment_tombstone_record(group_id, member_id2),
        helpers.new_target_assignment_tombstone_record(group_id, member_id2),
        helpers.new_member_subscription_tombstone_record(group_id, member_id2),
        helpers.new_member_subscription_record(group_id, expected_copied_member),
        helpers.new_target_assignment_record(group_id, member2_rejoin_id, assignment),
        helpers.new_current_assignment_record(group_id, expected_copied_member),
        helpers.new_current_assignment_record(group_id, expected_rejoined_member),
    ], rejoin_result.records())

    context.assert_no_session_timeout(group_id, member_id2)
    context.assert_no_rebalance_timeout(group_id, member_id2)


def test_static_member_rejoins_with_new_subscribed_topics():
    group_id = "fooup"
    member_id1, member_id2, member2_rejoin_id = _member_id(), _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)
    foo_topic_id, bar_topic_id = foo[0], bar[0]

    assignor = MockPartitionAssignor("range")
    member1 = _stable(member_id1, 10, ["foo"], mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2)),
                      instance_id="instance-id-1", rebalance_timeout_ms=5000)
    member2 = _stable(member_id2, 10, ["foo"], mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5)),
                      instance_id="instance-id-2", rebalance_timeout_ms=5000)
    context = _context(assignor, _image(foo, bar), ConsumerGroupBuilder(group_id, 10)
                       .with_member(member1).with_member(member2)
                       .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2)))
                       .with_assignment(member_id2, mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5)))
                       .with_assignment_epoch(10)
                       .with_subscription_metadata(_subscription_metadata(foo)))

    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2))),
        member2_rejoin_id: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5),
                                                              mk_topic_assignment(bar_topic_id, 0, 1, 2))),
    }))

    # member 2 leaves for a while
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2,
                                                 instance_id="instance-id-2", member_epoch=-2))
    assert_response_equals(heartbeat_response(member_id=member_id2, member_epoch=-2), result.response())
    member2_updated_epoch = ConsumerGroupMember.Builder(member2).set_member_epoch(-2).build()
    assert len(result.records()) == 1
    assert_records_equals([result.records()[0]],
                          [helpers.new_current_assignment_record(group_id, member2_updated_epoch)])

    # it rejoins subscribing to bar too
    rejoin_result = context.consumer_group_heartbeat(hb(member_id=member2_rejoin_id, group_id=group_id,
                                                        instance_id="instance-id-2", member_epoch=0,
                                                        rebalance_timeout_ms=5000, server_assignor="range",
                                                        subscribed_topic_names=["foo", "bar"], topic_partitions=[]))
    assert_response_equals(heartbeat_response(
        member_id=member2_rejoin_id, member_epoch=11, heartbeat_interval_ms=5000,
        assignment=_response_assignment((foo_topic_id, [3, 4, 5]), (bar_topic_id, [0, 1, 2]))),
        rejoin_result.response())

    common = dict(state=MemberState.STABLE, previous_member_epoch=0, instance_id="instance-id-2",
                  client_id="client", client_host=DEFAULT_CLIENT_ADDRESS, rebalance_timeout_ms=5000,
                  server_assignor_name="range")
    expected_copied_member = _member(member2_rejoin_id, member_epoch=0, subscribed_topic_names=["foo"],
                                     assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5)),
                                     **common)
    expected_rejoined_member = _member(member2_rejoin_id, member_epoch=11, subscribed_topic_names=["foo", "bar"],
                                       assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5),
                                                                         mk_topic_assignment(bar_topic_id, 0, 1, 2)),
                                       **common)

    assert_records_equals([
        helpers.new_current_assignment_tombstone_record(group_id, member_id2),
        helpers.new_target_assignment_tombstone_record(group_id, member_id2),
        helpers.new_member_subscription_tombstone_record(group_id, member_id2),
        helpers.new_member_subscription_record(group_id, expected_copied_member),
        helpers.new_target_assignment_record(group_id, member2_rejoin_id, mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4, 5))),
        helpers.new_current_assignment_record(group_id, expected_copied_member),
        helpers.new_member_subscription_record(group_id, expected_rejoined_member),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)),
        helpers.new_group_epoch_record(group_id, 11),
        helpers.new_target_assignment_record(group_id, member2_rejoin_id, mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4, 5), mk_topic_assignment(bar_topic_id, 0, 1, 2))),
        helpers.new_target_assignment_epoch_record(group_id, 11),
        helpers.new_current_assignment_record(group_id, expected_rejoined_member),
    ], rejoin_result.records())

    context.assert_no_session_timeout(group_id, member_id2)
    context.assert_no_rebalance_timeout(group_id, member_id2)


def test_reconciliation_process():
    group_id = "fooup"
    member_id1, member_id2, member_id3 = _member_id(), _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)
    foo_topic_id, bar_topic_id = foo[0], bar[0]

    assignor = MockPartitionAssignor("range")
    context = _context(assignor, _image(foo, bar),
                       _two_members_group(group_id, member_id1, member_id2, foo_topic_id, bar_topic_id,
                                          rebalance_timeout_ms=5000))
    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1),
                                                       mk_topic_assignment(bar_topic_id, 0))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 2, 3),
                                                       mk_topic_assignment(bar_topic_id, 2))),
        member_id3: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 4, 5),
                                                       mk_topic_assignment(bar_topic_id, 1))),
    }))
    reconciling = ConsumerGroup.ConsumerGroupState.RECONCILING

    def step(member_id: str, member_epoch: int, expected_epoch: int, expected_assignment: object,
             expected_record_member: ConsumerGroupMember | None, member_state: MemberState, group_state: object,
             owned: list | None = None) -> None:
        """One heartbeat, its response and record (None: no record), and the states after it."""
        result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id,
                                                     member_epoch=member_epoch, topic_partitions=owned))
        assert_response_equals(heartbeat_response(member_id=member_id, member_epoch=expected_epoch,
                                                  heartbeat_interval_ms=5000, assignment=expected_assignment),
                               result.response())
        if expected_record_member is None:
            assert result.records() == []
        else:
            assert_records_equals([helpers.new_current_assignment_record(group_id, expected_record_member)],
                                  result.records())
        assert context.consumer_group_member_state(group_id, member_id) == member_state
        assert context.consumer_group_state(group_id) == group_state

    assert context.consumer_group_member_state(group_id, member_id1) == MemberState.STABLE
    assert context.consumer_group_member_state(group_id, member_id2) == MemberState.STABLE
    assert context.consumer_group_state(group_id) == ConsumerGroup.ConsumerGroupState.STABLE

    # member 3 joins: the group epoch moves to 11, its partitions are still owned
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id3, member_epoch=0,
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 server_assignor="range", topic_partitions=[]))
    assert_response_equals(heartbeat_response(member_id=member_id3, member_epoch=11, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment()), result.response())
    assert_records_equals([helpers.new_current_assignment_record(group_id, _member(
        member_id3, state=MemberState.UNRELEASED_PARTITIONS, member_epoch=11, previous_member_epoch=0))],
        [result.records()[-1]])
    assert context.consumer_group_member_state(group_id, member_id3) == MemberState.UNRELEASED_PARTITIONS
    assert context.consumer_group_state(group_id) == reconciling

    # member 1 must revoke foo 2 and bar 1
    step(member_id1, 10, 10, _response_assignment((foo_topic_id, [0, 1]), (bar_topic_id, [0])),
         _member(member_id1, state=MemberState.UNREVOKED_PARTITIONS, member_epoch=10, previous_member_epoch=10,
                 assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1),
                                                   mk_topic_assignment(bar_topic_id, 0)),
                 partitions_pending_revocation=mk_assignment(mk_topic_assignment(foo_topic_id, 2),
                                                             mk_topic_assignment(bar_topic_id, 1))),
         MemberState.UNREVOKED_PARTITIONS, reconciling)

    # member 2 must revoke foo 4 and 5
    step(member_id2, 10, 10, _response_assignment((foo_topic_id, [3]), (bar_topic_id, [2])),
         _member(member_id2, state=MemberState.UNREVOKED_PARTITIONS, member_epoch=10, previous_member_epoch=10,
                 assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 3),
                                                   mk_topic_assignment(bar_topic_id, 2)),
                 partitions_pending_revocation=mk_assignment(mk_topic_assignment(foo_topic_id, 4, 5))),
         MemberState.UNREVOKED_PARTITIONS, reconciling)

    # member 3 still waits
    step(member_id3, 11, 11, None,
         _member(member_id3, state=MemberState.UNRELEASED_PARTITIONS, member_epoch=11, previous_member_epoch=11),
         MemberState.UNRELEASED_PARTITIONS, reconciling)

    # member 1 revoked: it moves to epoch 11
    step(member_id1, 10, 11, None,
         _member(member_id1, state=MemberState.STABLE, member_epoch=11, previous_member_epoch=10,
                 assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1),
                                                   mk_topic_assignment(bar_topic_id, 0))),
         MemberState.STABLE, reconciling, owned=[(foo_topic_id, [0, 1]), (bar_topic_id, [0])])

    # member 2 has not revoked yet
    step(member_id2, 10, 10, None, None, MemberState.UNREVOKED_PARTITIONS, reconciling)

    # member 3 gets bar 1, released by member 1
    step(member_id3, 11, 11, _response_assignment((bar_topic_id, [1])),
         _member(member_id3, state=MemberState.UNRELEASED_PARTITIONS, member_epoch=11, previous_member_epoch=11,
                 assigned_partitions=mk_assignment(mk_topic_assignment(bar_topic_id, 1))),
         MemberState.UNRELEASED_PARTITIONS, reconciling)

    # nothing new for member 3
    step(member_id3, 11, 11, None, None, MemberState.UNRELEASED_PARTITIONS, reconciling)

    # member 2 revoked: it gets foo 2 and moves to epoch 11
    step(member_id2, 10, 11, _response_assignment((foo_topic_id, [2, 3]), (bar_topic_id, [2])),
         _member(member_id2, state=MemberState.STABLE, member_epoch=11, previous_member_epoch=10,
                 assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 2, 3),
                                                   mk_topic_assignment(bar_topic_id, 2))),
         MemberState.STABLE, reconciling, owned=[(foo_topic_id, [3]), (bar_topic_id, [2])])

    # member 3 gets foo 4 and 5: the group is stable
    step(member_id3, 11, 11, _response_assignment((foo_topic_id, [4, 5]), (bar_topic_id, [1])),
         _member(member_id3, state=MemberState.STABLE, member_epoch=11, previous_member_epoch=11,
                 assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 4, 5),
                                                   mk_topic_assignment(bar_topic_id, 1))),
         MemberState.STABLE, ConsumerGroup.ConsumerGroupState.STABLE, owned=[(bar_topic_id, [1])])


def _refresh_context(group_id: str, member_id: str) -> tuple:
    foo = (uuid.uuid4(), "foo", 6)
    foo_topic_id = foo[0]
    assignor = MockPartitionAssignor("range")
    member = _member(member_id, state=MemberState.STABLE, member_epoch=10, previous_member_epoch=10,
                     client_id="client", client_host=DEFAULT_CLIENT_ADDRESS, rebalance_timeout_ms=5000,
                     subscribed_topic_names=["foo", "bar"], server_assignor_name="range",
                     assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2)))
    # the stored metadata says foo has 3 partitions, the image says 6
    context = _context(assignor, _image(foo), ConsumerGroupBuilder(group_id, 10).with_member(member)
                       .with_assignment(member_id, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2)))
                       .with_assignment_epoch(10)
                       .with_subscription_metadata(_subscription_metadata((foo_topic_id, "foo", 3))),
                       consumer_group_metadata_refresh_interval_ms=5 * 60 * 1000)
    assignor.prepare_group_assignment(GroupAssignment({member_id: MemberAssignmentImpl(mk_assignment(
        mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5)))}))
    return context, foo


def _assert_refreshed(context: GroupMetadataManagerTestContext, result: CoordinatorResult, group_id: str,
                      member_id: str, foo: tuple, consumer_group: ConsumerGroup) -> None:
    foo_topic_id = foo[0]
    assert_response_equals(heartbeat_response(member_id=member_id, member_epoch=11, heartbeat_interval_ms=5000,
                                              assignment=_response_assignment((foo_topic_id, [0, 1, 2, 3, 4, 5]))),
                           result.response())
    expected_member = _member(member_id, state=MemberState.STABLE, member_epoch=11, previous_member_epoch=10,
                              client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                              subscribed_topic_names=["foo", "bar"], server_assignor_name="range",
                              assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5)))
    assert_records_equals([
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo)),
        helpers.new_group_epoch_record(group_id, 11),
        helpers.new_target_assignment_record(group_id, member_id, mk_assignment(
            mk_topic_assignment(foo_topic_id, 0, 1, 2, 3, 4, 5))),
        helpers.new_target_assignment_epoch_record(group_id, 11),
        helpers.new_current_assignment_record(group_id, expected_member),
    ], result.records())
    _assert_refresh_deadline(context, consumer_group)


def _assert_refresh_deadline(context: GroupMetadataManagerTestContext, consumer_group: ConsumerGroup) -> None:
    assert not consumer_group.has_metadata_expired(context.time.milliseconds())
    assert consumer_group.metadata_refresh_deadline().deadline_ms == context.time.milliseconds() + 5 * 60 * 1000
    assert consumer_group.metadata_refresh_deadline().epoch == 11


def test_subscription_metadata_refreshed_after_group_is_loaded():
    group_id = "fooup"
    member_id = _member_id()
    context, foo = _refresh_context(group_id, member_id)

    # a loaded group's metadata is due for a refresh
    consumer_group = context.group_metadata_manager.consumer_group(group_id)
    assert consumer_group.has_metadata_expired(context.time.milliseconds())

    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=10))
    _assert_refreshed(context, result, group_id, member_id, foo, consumer_group)


def test_subscription_metadata_refreshed_again_after_write_failure():
    group_id = "fooup"
    member_id = _member_id()
    context, foo = _refresh_context(group_id, member_id)

    consumer_group = context.group_metadata_manager.consumer_group(group_id)
    assert consumer_group.has_metadata_expired(context.time.milliseconds())

    context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=10))
    _assert_refresh_deadline(context, consumer_group)

    # the write fails: the records are rolled back, the deadline (soft state) stays but names epoch 11
    context.rollback()

    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id, member_epoch=10))
    _assert_refreshed(context, result, group_id, member_id, foo, consumer_group)


def _test_sync_group_protocol_type_and_name_with(protocol_type: str | None, protocol_name: str | None,
                                                 expected_error: object, expected_protocol_type: str | None,
                                                 expected_protocol_name: str | None) -> None:
    from kio.schema.sync_group.v5.request import SyncGroupRequestAssignment
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    join_request = _join_request(group_instance_id="leader-instance-id", protocol_superset=True)

    leader_join_result = context.send_classic_group_join(join_request)
    assert leader_join_result.records == []
    assert not leader_join_result.join_future.done()
    follower_join_result = context.send_classic_group_join(_replace(join_request,
                                                                    group_instance_id="follower-instance-id"))
    assert follower_join_result.records == []
    assert not follower_join_result.join_future.done()

    _no_or_empty(context.sleep(10000))
    assert leader_join_result.join_future.done()
    assert follower_join_result.join_future.done()
    assert leader_join_result.join_future.result().error_code == errors.NONE
    assert follower_join_result.join_future.result().error_code == errors.NONE

    leader_id = leader_join_result.join_future.result().member_id
    follower_id = follower_join_result.join_future.result().member_id
    generation_id = leader_join_result.join_future.result().generation_id

    sync_request = _sync_request(member_id=leader_id, protocol_type=protocol_type, protocol_name=protocol_name,
                                 generation_id=generation_id,
                                 assignment=[SyncGroupRequestAssignment(member_id=leader_id, assignment=b"")])
    leader_sync_result = context.send_classic_group_sync(sync_request)
    leader_sync_result.append_future.complete(None)
    assert leader_sync_result.sync_future.done()
    assert leader_sync_result.sync_future.result().error_code == expected_error
    assert leader_sync_result.sync_future.result().protocol_type == expected_protocol_type
    assert leader_sync_result.sync_future.result().protocol_name == expected_protocol_name

    follower_sync_result = context.send_classic_group_sync(_replace(sync_request, member_id=follower_id))
    assert follower_sync_result.records == []
    assert follower_sync_result.sync_future.done()
    assert follower_sync_result.sync_future.result().error_code == expected_error
    assert follower_sync_result.sync_future.result().protocol_type == expected_protocol_type
    assert follower_sync_result.sync_future.result().protocol_name == expected_protocol_name


def test_sync_group_returns_an_error_when_protocol_type_is_inconsistent():
    _test_sync_group_protocol_type_and_name_with("protocolType", None, _errors().INCONSISTENT_GROUP_PROTOCOL,
                                                 None, None)


def test_sync_group_returns_an_error_when_protocol_name_is_inconsistent():
    _test_sync_group_protocol_type_and_name_with(None, "protocolName", _errors().INCONSISTENT_GROUP_PROTOCOL,
                                                 None, None)


def test_sync_group_succeed_when_protocol_type_and_name_are_not_provided():
    _test_sync_group_protocol_type_and_name_with(None, None, _errors().NONE, "consumer", "range")


def test_sync_group_succeed_when_protocol_type_and_name_are_consistent():
    _test_sync_group_protocol_type_and_name_with("consumer", "range", _errors().NONE, "consumer", "range")


def test_sync_group_from_unknown_group():
    errors = _errors()
    context = _classic_context()
    sync_result = context.send_classic_group_sync(_sync_request(member_id="member-id", generation_id=1))
    assert sync_result.records == []
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.UNKNOWN_MEMBER_ID


def test_sync_group_from_unknown_member():
    from kio.schema.sync_group.v5.request import SyncGroupRequestAssignment

    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    join_response = context.join_classic_group_and_complete_join(
        _join_request(group_instance_id="leader-instance-id", default_protocol_type_and_protocols=True), True, True)
    member_id = join_response.member_id
    generation_id = join_response.generation_id

    assignment = [SyncGroupRequestAssignment(member_id=member_id, assignment=b"")]
    sync_request = _sync_request(member_id=member_id, generation_id=generation_id, assignment=assignment)
    sync_result = context.send_classic_group_sync(sync_request)
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert sync_result.sync_future.result().assignment == assignment[0].assignment

    sync_result = context.send_classic_group_sync(_replace(sync_request, member_id="unknown-member-id"))
    assert sync_result.records == []
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.UNKNOWN_MEMBER_ID
    assert sync_result.sync_future.result().assignment == ClassicGroupMember.EMPTY_ASSIGNMENT


def test_sync_group_from_illegal_generation():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    join_response = context.join_classic_group_and_complete_join(
        _join_request(group_instance_id="leader-instance-id", default_protocol_type_and_protocols=True), True, True)

    sync_result = context.send_classic_group_sync(_sync_request(member_id=join_response.member_id,
                                                                generation_id=join_response.generation_id + 1))
    assert sync_result.records == []
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.ILLEGAL_GENERATION


def test_sync_group_as_leader_append_failure_transforms_error():
    from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    join_response = context.join_classic_group_and_complete_join(
        _join_request(group_instance_id="leader-instance-id", default_protocol_type_and_protocols=True), True, True)

    sync_result = context.send_classic_group_sync(_sync_request(member_id=join_response.member_id, generation_id=1))
    assert not sync_result.sync_future.done()
    sync_result.append_future.complete_exceptionally(NotLeaderOrFollowerException())
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NOT_COORDINATOR


def test_join_group_from_unchanged_follower_does_not_rebalance():
    errors = _errors()
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    join_request = _join_request(default_protocol_type_and_protocols=True)

    # a new member joins, the leader rejoins: a new generation
    follower_join_result = context.send_classic_group_join(join_request)
    assert follower_join_result.records == []
    assert not follower_join_result.join_future.done()

    join_request = _replace(join_request, member_id=leader_join_response.member_id)
    leader_join_result = context.send_classic_group_join(join_request)
    assert leader_join_result.records == []
    assert leader_join_result.join_future.done()
    assert follower_join_result.join_future.done()
    assert leader_join_result.join_future.result().error_code == errors.NONE
    assert follower_join_result.join_future.result().error_code == errors.NONE
    assert leader_join_result.join_future.result().generation_id == \
        follower_join_result.join_future.result().generation_id
    assert leader_join_result.join_future.result().leader == leader_join_response.member_id
    assert follower_join_result.join_future.result().leader == leader_join_response.member_id

    next_generation_id = leader_join_result.join_future.result().generation_id
    follower_id = follower_join_result.join_future.result().member_id

    # the follower rejoins unchanged during CompletingRebalance: its response again, no rebalance
    follower_join_result = context.send_classic_group_join(_replace(join_request, member_id=follower_id))
    assert follower_join_result.records == []
    assert follower_join_result.join_future.done()
    assert follower_join_result.join_future.result().error_code == errors.NONE
    assert follower_join_result.join_future.result().generation_id == next_generation_id


def _heartbeat_request(group_id: str = "group-id", member_id: str = "member-id", generation_id: int = -1,
                       group_instance_id: str | None = None) -> object:
    from kio.schema.heartbeat.v4.request import HeartbeatRequest
    return HeartbeatRequest(group_id=group_id, member_id=member_id, generation_id=generation_id,
                            group_instance_id=group_instance_id)


def _leader_and_follower_rejoined(context: GroupMetadataManagerTestContext) -> tuple:
    """After a first rebalance of the leader alone, a follower joins and the leader rejoins."""
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    join_request = _join_request(default_protocol_type_and_protocols=True, rebalance_timeout_ms=10000,
                                 session_timeout_ms=5000)

    follower_join_result = context.send_classic_group_join(join_request)
    assert follower_join_result.records == []
    assert not follower_join_result.join_future.done()

    leader_join_result = context.send_classic_group_join(_replace(join_request,
                                                                  member_id=leader_join_response.member_id))
    assert leader_join_result.records == []
    assert leader_join_result.join_future.done()
    assert follower_join_result.join_future.done()
    assert leader_join_result.join_future.result().error_code == errors.NONE
    assert follower_join_result.join_future.result().error_code == errors.NONE
    assert leader_join_result.join_future.result().generation_id == \
        follower_join_result.join_future.result().generation_id
    assert leader_join_result.join_future.result().leader == leader_join_response.member_id
    assert follower_join_result.join_future.result().leader == leader_join_response.member_id
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    next_generation_id = leader_join_result.join_future.result().generation_id
    follower_id = follower_join_result.join_future.result().member_id
    return group, leader_join_response, next_generation_id, follower_id


def test_leader_failure_in_sync_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group, _, next_generation_id, follower_id = _leader_and_follower_rejoined(context)

    # the follower syncs and waits for the leader
    follower_sync_result = context.send_classic_group_sync(_sync_request(member_id=follower_id,
                                                                         generation_id=next_generation_id))
    assert follower_sync_result.records == []
    assert not follower_sync_result.sync_future.done()

    # the leader never syncs: it is removed and the group rebalances
    timeouts = context.sleep(10000)
    assert len(timeouts) <= 2
    for timeout in timeouts:
        assert timeout.result.records() == []

    assert follower_sync_result.sync_future.done()
    assert follower_sync_result.sync_future.result().error_code == errors.REBALANCE_IN_PROGRESS
    assert group.num_members() == 1
    assert group.has_member(follower_id)
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)


def test_sync_group_follower_after_leader():
    from kio.schema.sync_group.v5.request import SyncGroupRequestAssignment

    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group, leader_join_response, next_generation_id, follower_id = _leader_and_follower_rejoined(context)

    leader_assignment, follower_assignment = bytes([0]), bytes([1])
    sync_request = _sync_request(member_id=leader_join_response.member_id,
                                 generation_id=leader_join_response.generation_id, assignment=[
                                     SyncGroupRequestAssignment(member_id=leader_join_response.member_id,
                                                                assignment=leader_assignment),
                                     SyncGroupRequestAssignment(member_id=follower_id,
                                                                assignment=follower_assignment)])

    sync_result = context.send_classic_group_sync(_replace(sync_request, generation_id=next_generation_id))
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert sync_result.sync_future.result().assignment == leader_assignment

    # the follower gets its assignment at once
    follower_sync_result = context.send_classic_group_sync(_replace(sync_request, member_id=follower_id,
                                                                    generation_id=next_generation_id))
    assert follower_sync_result.records == []
    assert follower_sync_result.sync_future.done()
    assert follower_sync_result.sync_future.result().error_code == errors.NONE
    assert follower_sync_result.sync_future.result().assignment == follower_assignment
    assert group.is_in_state(ClassicGroupState.STABLE)


def test_sync_group_leader_after_follower():
    from kio.schema.sync_group.v5.request import SyncGroupRequestAssignment

    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    errors = _errors()
    context = _classic_context()
    group, leader_join_response, next_generation_id, follower_id = _leader_and_follower_rejoined(context)

    leader_assignment, follower_assignment = bytes([0]), bytes([1])
    sync_request = _sync_request(member_id=leader_join_response.member_id,
                                 generation_id=leader_join_response.generation_id)

    # the follower syncs first and waits
    follower_sync_result = context.send_classic_group_sync(_replace(sync_request, member_id=follower_id,
                                                                    generation_id=next_generation_id))
    assert follower_sync_result.records == []
    assert not follower_sync_result.sync_future.done()

    assignment = (SyncGroupRequestAssignment(member_id=leader_join_response.member_id, assignment=leader_assignment),
                  SyncGroupRequestAssignment(member_id=follower_id, assignment=follower_assignment))
    sync_result = context.send_classic_group_sync(_replace(sync_request, member_id=leader_join_response.member_id,
                                                           generation_id=next_generation_id, assignments=assignment))
    sync_result.append_future.complete(None)

    updated_assignment = {a.member_id: a.assignment for a in assignment}
    assert sync_result.records == [helpers.new_group_metadata_record(group, updated_assignment,
                                                                     MetadataVersion.latest_testing())]
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert sync_result.sync_future.result().assignment == leader_assignment
    assert follower_sync_result.sync_future.result().error_code == errors.NONE
    assert follower_sync_result.sync_future.result().assignment == follower_assignment
    assert group.is_in_state(ClassicGroupState.STABLE)


def test_join_group_from_unchanged_leader_should_rebalance():
    errors = _errors()
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")

    # the leader rejoins in Stable: a new generation
    leader_rejoin_result = context.send_classic_group_join(_join_request(
        member_id=leader_join_response.member_id, default_protocol_type_and_protocols=True))
    assert leader_rejoin_result.records == []
    assert leader_rejoin_result.join_future.done()
    assert leader_rejoin_result.join_future.result().error_code == errors.NONE
    assert leader_rejoin_result.join_future.result().generation_id == leader_join_response.generation_id + 1


def test_join_group_completion_when_pending_member_joins():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    pending_member_response = context.setup_group_with_pending_member(group).pending_member_response

    # the pending member joins: the join phase completes
    join_result = context.send_classic_group_join(_join_request(member_id=pending_member_response.member_id,
                                                                default_protocol_type_and_protocols=True))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert len(group.all_members()) == 3
    assert group.num_pending_join_members() == 0


def test_join_group_completion_when_pending_member_times_out():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    context = _classic_context()
    group = context.create_classic_group("group-id")
    context.setup_group_with_pending_member(group)

    # the pending member's session expires: the join phase completes without it
    _no_or_empty(context.sleep(3000))
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert len(group.all_members()) == 2
    assert group.num_pending_join_members() == 0


def test_generation_id_increments_on_rebalance():
    errors = _errors()
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")

    join_result = context.send_classic_group_join(_join_request(member_id=leader_join_response.member_id,
                                                                default_protocol_type_and_protocols=True))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().generation_id == 2
    assert join_result.join_future.result().error_code == errors.NONE


def test_static_member_heartbeat_leader_with_invalid_member_id():
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")

    sync_result = context.send_classic_group_sync(_sync_request(group_instance_id="leader-instance-id",
                                                                member_id=rebalance_result.leader_id,
                                                                generation_id=rebalance_result.generation_id))
    assert sync_result.records == []
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE

    heartbeat_request = _heartbeat_request(member_id=rebalance_result.leader_id,
                                           generation_id=rebalance_result.generation_id)
    assert context.send_classic_group_heartbeat(heartbeat_request).response().error_code == errors.NONE

    with pytest.raises(FencedInstanceIdException):
        context.send_classic_group_heartbeat(_replace(heartbeat_request, group_instance_id="leader-instance-id",
                                                      member_id="invalid-member-id"))


def test_heartbeat_unknown_group():
    context = _classic_context()
    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_heartbeat(_heartbeat_request())


def test_heartbeat_dead_group():
    from kafka_edu.v1_0_2.clients.common.errors import CoordinatorNotAvailableException
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    context = _classic_context()
    group = context.create_classic_group("group-id")
    group.transition_to(ClassicGroupState.DEAD)

    with pytest.raises(CoordinatorNotAvailableException):
        context.send_classic_group_heartbeat(_heartbeat_request())


def test_heartbeat_empty_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    group.add(ClassicGroupMember("member-id", None, "client-id", "client-host", 10000, 5000, "consumer",
                                 list(to_protocols("range"))))

    heartbeat_response = context.send_classic_group_heartbeat(_heartbeat_request(generation_id=0)).response()
    assert heartbeat_response.error_code == errors.UNKNOWN_MEMBER_ID


def test_heartbeat_unknown_member_existing_group():
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_heartbeat(_heartbeat_request(member_id="unknown-member-id",
                                                                generation_id=leader_join_response.generation_id))


def test_heartbeat_during_preparing_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    join_request = _join_request(default_protocol_type_and_protocols=True)

    join_result = context.send_classic_group_join(join_request, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.MEMBER_ID_REQUIRED
    member_id = join_result.join_future.result().member_id

    context.send_classic_group_join(_replace(join_request, member_id=member_id))
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    heartbeat_response = context.send_classic_group_heartbeat(_heartbeat_request(
        member_id=member_id, generation_id=0)).response()
    assert heartbeat_response.error_code == errors.REBALANCE_IN_PROGRESS


def test_heartbeat_during_completing_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import classic_heartbeat_response
    context = _classic_context()
    group = context.create_classic_group("group-id")
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_join(
        _join_request(default_protocol_type_and_protocols=True))
    assert leader_join_response.generation_id == 1
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    heartbeat_response = context.send_classic_group_heartbeat(_heartbeat_request(
        member_id=leader_join_response.member_id, generation_id=leader_join_response.generation_id)).response()
    assert heartbeat_response == classic_heartbeat_response()


def test_heartbeat_illegal_generation():
    from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    with pytest.raises(IllegalGenerationException):
        context.send_classic_group_heartbeat(_heartbeat_request(member_id=leader_join_response.member_id,
                                                                generation_id=leader_join_response.generation_id + 1))


def test_valid_heartbeat():
    errors = _errors()
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    heartbeat_response = context.send_classic_group_heartbeat(_heartbeat_request(
        member_id=leader_join_response.member_id, generation_id=leader_join_response.generation_id)).response()
    assert heartbeat_response.error_code == errors.NONE


def test_classic_group_member_session_timeout():
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    context.verify_session_expiration(group, 5000)
    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_heartbeat(_heartbeat_request(member_id=leader_join_response.member_id,
                                                                generation_id=leader_join_response.generation_id))


def test_classic_group_member_heartbeat_maintains_session():
    errors = _errors()
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")

    # within the session timeout, twice
    _no_or_empty(context.sleep(2500))
    heartbeat_request = _heartbeat_request(member_id=leader_join_response.member_id,
                                           generation_id=leader_join_response.generation_id)
    assert context.send_classic_group_heartbeat(heartbeat_request).response().error_code == errors.NONE

    _no_or_empty(context.sleep(2500))
    assert context.send_classic_group_heartbeat(heartbeat_request).response().error_code == errors.NONE


def test_classic_group_member_session_timeout_during_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # a new member joins: a rebalance
    other_join_result = context.send_classic_group_join(_join_request(
        default_protocol_type_and_protocols=True, rebalance_timeout_ms=10000, session_timeout_ms=5000))
    assert other_join_result.records == []
    assert not other_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # the leader heartbeats but does not rejoin
    _no_or_empty(context.sleep(2500))
    heartbeat_request = _heartbeat_request(member_id=leader_join_response.member_id,
                                           generation_id=leader_join_response.generation_id)
    assert context.send_classic_group_heartbeat(heartbeat_request).response().error_code == \
        errors.REBALANCE_IN_PROGRESS

    # its session expires
    _no_or_empty(context.sleep(5000))
    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_heartbeat(heartbeat_request)

    # the rebalance completes without it
    _no_or_empty(context.sleep(2500))
    assert other_join_result.join_future.done()
    assert other_join_result.join_future.result().error_code == errors.NONE
    assert group.num_members() == 1
    assert group.generation_id() == 2
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)


def _leave(group_id: str, *members: tuple) -> object:
    """A LeaveGroup request; each member is (member id, group instance id)."""
    from kio.schema.leave_group.v5.request import LeaveGroupRequest, MemberIdentity
    return LeaveGroupRequest(group_id=group_id, members=tuple(
        MemberIdentity(member_id=member_id, group_instance_id=instance_id) for member_id, instance_id in members))


def _leave_response(*members: tuple, error: object = None) -> object:
    """The expected LeaveGroup response; each member is (member id, group instance id[, error])."""
    from kio.schema.errors import ErrorCode
    from kio.schema.leave_group.v5.response import MemberResponse

    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import leave_group_response
    responses = tuple(MemberResponse(member_id=m[0], group_instance_id=m[1],
                                     error_code=ErrorCode(m[2].code) if len(m) > 2 else ErrorCode.none)
                      for m in members)
    if error is not None:
        return leave_group_response(error_code=ErrorCode(error.code), members=responses)
    return leave_group_response(members=responses)


def test_pending_members_leave_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    context = _classic_context()
    group = context.create_classic_group("group-id")
    pending_join_response = context.setup_group_with_pending_member(group).pending_member_response

    leave_result = context.send_classic_group_leave(_leave("group-id", (pending_join_response.member_id, None)))

    assert leave_result.response() == _leave_response((pending_join_response.member_id, None))
    assert leave_result.records() == []
    # the pending member was the last awaited: the join phase completed
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert len(group.all_members()) == 2
    assert len(group.all_dynamic_member_ids()) == 2
    assert group.num_pending_join_members() == 0


def test_leave_group_invalid_group():
    context = _classic_context()
    context.create_classic_group("group-id")
    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_leave(_leave("invalid-group-id"))


def test_leave_group_unknown_group():
    context = _classic_context()
    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_leave(_leave("unknown-group-id", ("member-id", None)))


def test_leave_group_unknown_member_id_existing_group():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    context.join_classic_group_as_dynamic_member_and_complete_join(
        _join_request(default_protocol_type_and_protocols=True))

    leave_result = context.send_classic_group_leave(_leave("group-id", ("unknown-member-id", None)))
    assert leave_result.response() == _leave_response(("unknown-member-id", None, errors.UNKNOWN_MEMBER_ID))
    assert leave_result.records() == []


def test_leave_dead_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    group.transition_to(ClassicGroupState.DEAD)

    leave_result = context.send_classic_group_leave(_leave("group-id", ("member-id", None)))
    assert leave_result.response() == _leave_response(error=errors.COORDINATOR_NOT_AVAILABLE)
    assert leave_result.records() == []


def test_valid_leave_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    context = _classic_context()
    group = context.create_classic_group("group-id")
    join_response = context.join_classic_group_as_dynamic_member_and_complete_join(
        _join_request(default_protocol_type_and_protocols=True))

    # the only member leaves: a new, empty generation is written
    leave_result = context.send_classic_group_leave(_leave("group-id", (join_response.member_id, None)))
    assert leave_result.records() == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                        MetadataVersion.latest_testing())]
    leave_result.append_future().complete(None)

    assert leave_result.response() == _leave_response((join_response.member_id, None))
    assert group.is_in_state(ClassicGroupState.EMPTY)
    assert group.generation_id() == 2


def test_leave_group_with_fenced_instance_id():
    errors = _errors()
    context = _classic_context()
    context.create_classic_group("group-id")
    context.join_classic_group_and_complete_join(_join_request(
        group_instance_id="group-instance-id", default_protocol_type_and_protocols=True), True, True)

    leave_result = context.send_classic_group_leave(_leave("group-id", ("other-member-id", "group-instance-id")))
    assert leave_result.response() == _leave_response(("other-member-id", "group-instance-id",
                                                       errors.FENCED_INSTANCE_ID))
    assert leave_result.records() == []


def test_leave_group_static_member_with_unknown_member_id():
    context = _classic_context()
    context.create_classic_group("group-id")
    context.join_classic_group_and_complete_join(_join_request(
        group_instance_id="group-instance-id", default_protocol_type_and_protocols=True), True, True)

    # an admin's leave names the instance id only
    leave_result = context.send_classic_group_leave(_leave("group-id", ("", "group-instance-id")))
    assert leave_result.response() == _leave_response(("", "group-instance-id"))


def test_static_members_valid_batch_leave_group():
    context = _classic_context()
    context.static_members_join_and_rebalance("group-id", "leader-instance-id", "follower-instance-id")

    leave_result = context.send_classic_group_leave(_leave("group-id", ("", "leader-instance-id"),
                                                           ("", "follower-instance-id")))
    assert leave_result.response() == _leave_response(("", "leader-instance-id"), ("", "follower-instance-id"))


def test_static_members_leave_unknown_group():
    context = _classic_context()
    context.static_members_join_and_rebalance("group-id", "leader-instance-id", "follower-instance-id")

    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_leave(_leave("invalid-group-id", ("", "leader-instance-id"),
                                                ("", "follower-instance-id")))


def test_static_members_fenced_instance_batch_leave_group():
    errors = _errors()
    context = _classic_context()
    context.static_members_join_and_rebalance("group-id", "leader-instance-id", "follower-instance-id")

    leave_result = context.send_classic_group_leave(_leave("group-id", ("", "leader-instance-id"),
                                                           ("invalid-member-id", "follower-instance-id")))
    assert leave_result.response() == _leave_response(
        ("", "leader-instance-id"), ("invalid-member-id", "follower-instance-id", errors.FENCED_INSTANCE_ID))


def test_static_members_unknown_instance_batch_leave_group():
    errors = _errors()
    context = _classic_context()
    context.static_members_join_and_rebalance("group-id", "leader-instance-id", "follower-instance-id")

    leave_result = context.send_classic_group_leave(_leave("group-id", ("", "unknown-instance-id"),
                                                           ("", "follower-instance-id")))
    assert leave_result.response() == _leave_response(("", "unknown-instance-id", errors.UNKNOWN_MEMBER_ID),
                                                      ("", "follower-instance-id"))
    assert leave_result.records() == []


def test_pending_member_batch_leave_group():
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    pending_join_response = context.setup_group_with_pending_member(group).pending_member_response

    leave_result = context.send_classic_group_leave(_leave("group-id", ("", "unknown-instance-id"),
                                                           (pending_join_response.member_id, None)))
    assert leave_result.response() == _leave_response(("", "unknown-instance-id", errors.UNKNOWN_MEMBER_ID),
                                                      (pending_join_response.member_id, None))


def test_joined_member_pending_member_batch_leave_group():
    context = _classic_context()
    group = context.create_classic_group("group-id")
    result = context.setup_group_with_pending_member(group)

    leave_result = context.send_classic_group_leave(_leave(
        "group-id", (result.leader_id, None), (result.follower_id, None),
        (result.pending_member_response.member_id, None)))
    assert leave_result.response() == _leave_response(
        (result.leader_id, None), (result.follower_id, None), (result.pending_member_response.member_id, None))


def test_joined_member_pending_member_batch_leave_group_with_unknown_member():
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    result = context.setup_group_with_pending_member(group)

    leave_result = context.send_classic_group_leave(_leave(
        "group-id", (result.leader_id, None), (result.follower_id, None),
        (result.pending_member_response.member_id, None), ("unknown-member-id", None)))
    assert leave_result.response() == _leave_response(
        (result.leader_id, None), (result.follower_id, None), (result.pending_member_response.member_id, None),
        ("unknown-member-id", None, errors.UNKNOWN_MEMBER_ID))


def test_classic_group_delete():
    context = _classic_context()
    context.create_classic_group("group-id")
    records: list = []
    context.group_metadata_manager.create_group_tombstone_records("group-id", records)
    assert records == [helpers.new_group_metadata_tombstone_record("group-id")]


def test_classic_group_maybe_delete():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    context = _classic_context()
    group = context.create_classic_group("group-id")

    records: list = []
    context.group_metadata_manager.maybe_delete_group("group-id", records)
    assert records == [helpers.new_group_metadata_tombstone_record("group-id")]

    # a group in use is not deleted
    records = []
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    context.group_metadata_manager.maybe_delete_group("group-id", records)
    assert records == []

    records = []
    context.group_metadata_manager.maybe_delete_group("invalid-group-id", records)
    assert records == []


def _consumer_group_tombstones(group_id: str) -> list:
    return [helpers.new_target_assignment_epoch_tombstone_record(group_id),
            helpers.new_group_subscription_metadata_tombstone_record(group_id),
            helpers.new_group_epoch_tombstone_record(group_id)]


def test_consumer_group_delete():
    group_id = "group-id"
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(ConsumerGroupBuilder(group_id, 10)).build()
    records: list = []
    context.group_metadata_manager.create_group_tombstone_records("group-id", records)
    assert records == _consumer_group_tombstones(group_id)


def test_consumer_group_maybe_delete():
    group_id = "group-id"
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(ConsumerGroupBuilder(group_id, 10)).build()
    records: list = []
    context.group_metadata_manager.maybe_delete_group(group_id, records)
    assert records == _consumer_group_tombstones(group_id)

    # a group with a member is not deleted
    records = []
    context.replay(helpers.new_member_subscription_record(group_id, _member(
        "member", member_epoch=10, previous_member_epoch=10)))
    context.group_metadata_manager.maybe_delete_group(group_id, records)
    assert records == []


def test_sync_group_empty_assignment():
    errors = _errors()
    context = _classic_context()
    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_rebalance("group-id")
    heartbeat_response = context.send_classic_group_heartbeat(_heartbeat_request(
        member_id=leader_join_response.member_id, generation_id=leader_join_response.generation_id)).response()
    assert heartbeat_response.error_code == errors.NONE


def test_second_member_partially_join_and_timeout():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    join_request = _join_request(group_instance_id="leader-instance-id", default_protocol_type_and_protocols=True,
                                 rebalance_timeout_ms=10000, session_timeout_ms=5000)

    leader_join_response = context.join_classic_group_and_complete_join(join_request, True, True)
    first_member_id = leader_join_response.member_id
    first_generation_id = leader_join_response.generation_id
    assert first_generation_id == 1
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    sync_result = context.send_classic_group_sync(_sync_request(member_id=first_member_id,
                                                                generation_id=first_generation_id))
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.STABLE)

    # a dynamic member gets its id but never joins with it
    join_result = context.send_classic_group_join(_replace(join_request, 5000, member_id="",
                                                           group_instance_id=None), True, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.MEMBER_ID_REQUIRED
    assert group.num_pending_join_members() == 1
    assert group.is_in_state(ClassicGroupState.STABLE)

    heartbeat_request = _heartbeat_request(member_id=first_member_id, generation_id=first_generation_id)
    for _ in range(2):
        _no_or_empty(context.sleep(2500))
        assert context.send_classic_group_heartbeat(heartbeat_request).response().error_code == errors.NONE

    assert group.num_members() == 1
    assert group.has_member(first_member_id)
    assert group.generation_id() == 1
    assert group.is_in_state(ClassicGroupState.STABLE)


def test_rebalance_times_out_when_sync_request_is_not_received():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import classic_group_sync_key
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    errors = _errors()
    context = _classic_context()
    rebalance_timeout_ms = session_timeout_ms = 5000
    join_responses = context.join_with_n_members("group-id", 3, rebalance_timeout_ms, session_timeout_ms)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    _no_or_empty(context.sleep(rebalance_timeout_ms // 2))
    for response in join_responses:
        context.verify_heartbeat(group.group_id(), response, errors.NONE)

    # nobody syncs: all are removed
    timeouts = context.sleep(rebalance_timeout_ms // 2)
    assert len(timeouts) == 1
    timeout = timeouts[0]
    assert timeout.key == classic_group_sync_key("group-id")
    assert timeout.result.records() == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                          MetadataVersion.latest_testing())]
    timeout.result.append_future().complete(None)

    for response in join_responses:
        context.verify_heartbeat(group.group_id(), response, errors.UNKNOWN_MEMBER_ID)
    assert group.is_in_state(ClassicGroupState.EMPTY)


def test_rebalance_times_out_when_sync_request_is_not_received_from_followers():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import classic_group_sync_key
    errors = _errors()
    context = _classic_context()
    rebalance_timeout_ms = session_timeout_ms = 5000
    join_responses = context.join_with_n_members("group-id", 3, rebalance_timeout_ms, session_timeout_ms)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    _no_or_empty(context.sleep(rebalance_timeout_ms // 2))
    for response in join_responses:
        context.verify_heartbeat(group.group_id(), response, errors.NONE)

    # only the leader syncs
    sync_result = context.send_classic_group_sync(_sync_request(generation_id=1,
                                                                member_id=join_responses[0].member_id))
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.STABLE)
    context.verify_heartbeat(group.group_id(), join_responses[0], errors.NONE)

    timeouts = context.sleep(rebalance_timeout_ms // 2)
    assert len(timeouts) == 1
    timeout = timeouts[0]
    assert timeout.key == classic_group_sync_key("group-id")
    assert timeout.result.records() == []

    for response in join_responses[:1]:
        context.verify_heartbeat(group.group_id(), response, errors.REBALANCE_IN_PROGRESS)
    for response in join_responses[1:3]:
        context.verify_heartbeat(group.group_id(), response, errors.UNKNOWN_MEMBER_ID)
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)


def test_rebalance_times_out_when_sync_request_is_not_received_from_leaders():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import classic_group_sync_key
    errors = _errors()
    context = _classic_context()
    rebalance_timeout_ms = session_timeout_ms = 5000
    join_responses = context.join_with_n_members("group-id", 3, rebalance_timeout_ms, session_timeout_ms)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    _no_or_empty(context.sleep(rebalance_timeout_ms // 2))
    for response in join_responses:
        context.verify_heartbeat(group.group_id(), response, errors.NONE)

    # only the followers sync
    follower_sync_futures = []
    for response in join_responses[1:3]:
        sync_result = context.send_classic_group_sync(_sync_request(generation_id=1, member_id=response.member_id))
        assert sync_result.records == []
        assert not sync_result.sync_future.done()
        follower_sync_futures.append(sync_result.sync_future)

    timeouts = context.sleep(rebalance_timeout_ms // 2)
    assert len(timeouts) == 1
    timeout = timeouts[0]
    assert timeout.key == classic_group_sync_key("group-id")
    assert timeout.result.records() == []

    for future in follower_sync_futures:
        assert future.done()
        assert future.result().error_code == errors.REBALANCE_IN_PROGRESS

    for response in join_responses[:1]:
        context.verify_heartbeat(group.group_id(), response, errors.UNKNOWN_MEMBER_ID)
    for response in join_responses[1:3]:
        context.verify_heartbeat(group.group_id(), response, errors.REBALANCE_IN_PROGRESS)
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)


def test_rebalance_does_not_time_out_when_all_sync_are_received():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    errors = _errors()
    context = _classic_context()
    rebalance_timeout_ms = session_timeout_ms = 5000
    join_responses = context.join_with_n_members("group-id", 3, rebalance_timeout_ms, session_timeout_ms)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    leader_id = join_responses[0].member_id

    _no_or_empty(context.sleep(rebalance_timeout_ms // 2))
    for response in join_responses:
        context.verify_heartbeat(group.group_id(), response, errors.NONE)

    sync_futures = []
    for response in join_responses:
        sync_result = context.send_classic_group_sync(_sync_request(generation_id=1, member_id=response.member_id))
        if response.member_id == leader_id:
            assert sync_result.records == [helpers.new_group_metadata_record(
                group, group.group_assignment(), MetadataVersion.latest_testing())]
            sync_result.append_future.complete(None)
        else:
            assert sync_result.records == []
        assert sync_result.sync_future.done()
        sync_futures.append(sync_result.sync_future)

    for sync_future in sync_futures:
        assert sync_future.result().error_code == errors.NONE

    for _ in range(2):
        _no_or_empty(context.sleep(rebalance_timeout_ms // 2))
        for response in join_responses:
            context.verify_heartbeat(group.group_id(), response, errors.NONE)
    assert group.is_in_state(ClassicGroupState.STABLE)


def test_heartbeat_during_rebalance_causes_rebalance_in_progress():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    join_request = _join_request(default_protocol_type_and_protocols=True, rebalance_timeout_ms=10000,
                                 session_timeout_ms=5000)

    leader_join_response = context.join_classic_group_as_dynamic_member_and_complete_join(join_request)
    assert leader_join_response.generation_id == 1
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    # a new member joins: a rebalance
    join_result = context.send_classic_group_join(join_request)
    assert join_result.records == []
    assert not join_result.join_future.done()

    heartbeat_response = context.send_classic_group_heartbeat(_heartbeat_request(
        member_id=leader_join_response.member_id, generation_id=leader_join_response.generation_id)).response()
    assert heartbeat_response.error_code == errors.REBALANCE_IN_PROGRESS


def _cg_described(**fields: object) -> object:
    """new ConsumerGroupDescribeResponseData.DescribedGroup() with the fields given (Java's defaults else)."""
    from kio.schema.consumer_group_describe.v0.response import DescribedGroup
    from kio.schema.errors import ErrorCode
    defaults: dict = dict(error_code=ErrorCode.none, error_message=None, group_id="", group_state="",
                          group_epoch=0, assignment_epoch=0, assignor_name="", members=())
    return DescribedGroup(**{**defaults, **fields})


def test_consumer_group_describe_no_errors():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
    consumer_group_ids = ["group-id-1", "group-id-2"]
    epoch = 10
    member_id = "member-id"
    topic_name = "topicName"

    def member() -> ConsumerGroupMember:
        return _member(member_id, subscribed_topic_names=[topic_name], server_assignor_name="assignorName")

    context = (GroupMetadataManagerTestContext.Builder().with_consumer_group_assignors([MockPartitionAssignor("range")])
               .with_consumer_group(ConsumerGroupBuilder(consumer_group_ids[0], epoch))
               .with_consumer_group(ConsumerGroupBuilder(consumer_group_ids[1], epoch).with_member(member()))
               .build())

    expected = [
        _cg_described(group_epoch=epoch, group_id=consumer_group_ids[0],
                      group_state=str(ConsumerGroup.ConsumerGroupState.EMPTY), assignor_name="range"),
        _cg_described(group_epoch=epoch, group_id=consumer_group_ids[1], members=(
            member().as_consumer_group_describe_member(Assignment({}), MetadataImageBuilder().build().topics),),
            group_state=str(ConsumerGroup.ConsumerGroupState.ASSIGNING), assignor_name="assignorName"),
    ]
    assert context.send_consumer_group_describe(consumer_group_ids) == expected


def test_consumer_group_describe_with_errors():
    from kio.schema.errors import ErrorCode
    group_id = "groupId"
    context = _context(MockPartitionAssignor("range"))
    actual = context.send_consumer_group_describe([group_id])
    assert actual == [_cg_described(group_id=group_id, error_code=ErrorCode.group_id_not_found)]


def test_consumer_group_describe_before_and_after_committing_offset():
    from kio.schema.errors import ErrorCode

    from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
    consumer_group_id = "consumerGroupId"
    epoch = 10
    member_id1, member_id2 = "memberId1", "memberId2"
    topic_name = "topicName"
    topic_id = uuid.uuid4()
    metadata_image = MetadataImageBuilder().add_topic(topic_id, topic_name, 3).build()
    context = _context(MockPartitionAssignor("range"), metadata_image)

    member1 = _member(member_id1, subscribed_topic_names=[topic_name])
    context.replay(helpers.new_member_subscription_record(consumer_group_id, member1))
    context.replay(helpers.new_group_epoch_record(consumer_group_id, epoch + 1))

    assignment_map = {topic_id: frozenset()}
    member2 = _member(member_id2)
    context.replay(helpers.new_member_subscription_record(consumer_group_id, member2))
    context.replay(helpers.new_target_assignment_record(consumer_group_id, member_id2, assignment_map))
    context.replay(helpers.new_current_assignment_record(consumer_group_id, member2))
    context.replay(helpers.new_group_epoch_record(consumer_group_id, epoch + 2))

    # not committed yet: the group does not exist as of the last committed offset
    actual = context.group_metadata_manager.consumer_group_describe([consumer_group_id], context.last_committed_offset)
    assert actual == [_cg_described(group_id=consumer_group_id, error_code=ErrorCode.group_id_not_found)]

    context.commit()

    actual = context.group_metadata_manager.consumer_group_describe([consumer_group_id], context.last_committed_offset)
    assert actual == [_cg_described(
        group_id=consumer_group_id, members=(
            member1.as_consumer_group_describe_member(Assignment({}), metadata_image.topics),
            member2.as_consumer_group_describe_member(Assignment(assignment_map), metadata_image.topics)),
        group_state=str(ConsumerGroup.ConsumerGroupState.ASSIGNING), assignor_name="range", group_epoch=epoch + 2)]


def _replay_one_member_classic_group(context: GroupMetadataManagerTestContext) -> tuple:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import (
        GroupMetadataValue,
        MemberMetadata,
    )
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        new_group_metadata_record,
    )
    member_metadata = MemberMetadata(member_id="member-id", group_instance_id="group-instance-id",
                                     client_host="client-host", client_id="client-id", assignment=bytes([0]),
                                     subscription=bytes([0, 1, 2]))
    group_metadata_value = GroupMetadataValue(members=(member_metadata,), protocol_type="consumer",
                                              protocol="range", current_state_timestamp=context.time.milliseconds())
    context.replay(new_group_metadata_record("group-id", group_metadata_value, MetadataVersion.latest_testing()))
    return member_metadata, group_metadata_value


def _verify_describe_groups_returns_dead_group(context: GroupMetadataManagerTestContext, group_id: str) -> None:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import _described_group
    assert context.describe_groups([group_id]) == [_described_group(group_id=group_id, group_state="Dead")]


def test_describe_group_stable():
    from kio.schema.describe_groups.v5.response import DescribedGroupMember

    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import _described_group
    context = _classic_context()
    member_metadata, group_metadata_value = _replay_one_member_classic_group(context)

    # not committed yet
    _verify_describe_groups_returns_dead_group(context, "group-id")
    context.commit()

    assert context.describe_groups(["group-id"]) == [_described_group(
        group_id="group-id", group_state="Stable", protocol_type=group_metadata_value.protocol_type,
        protocol_data=group_metadata_value.protocol, members=(DescribedGroupMember(
            member_id=member_metadata.member_id, group_instance_id=member_metadata.group_instance_id,
            client_id=member_metadata.client_id, client_host=member_metadata.client_host,
            member_metadata=member_metadata.subscription, member_assignment=member_metadata.assignment),))]


def test_describe_group_rebalancing():
    from kio.schema.describe_groups.v5.response import DescribedGroupMember

    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import _described_group
    context = _classic_context()
    member_metadata, group_metadata_value = _replay_one_member_classic_group(context)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    context.group_metadata_manager.prepare_rebalance(group, "trigger rebalance")

    _verify_describe_groups_returns_dead_group(context, "group-id")
    context.commit()

    # rebalancing: no protocol, no member metadata
    assert context.describe_groups(["group-id"]) == [_described_group(
        group_id="group-id", group_state="PreparingRebalance", protocol_type=group_metadata_value.protocol_type,
        protocol_data="", members=(DescribedGroupMember(
            member_id=member_metadata.member_id, group_instance_id=member_metadata.group_instance_id,
            client_id=member_metadata.client_id, client_host=member_metadata.client_host, member_metadata=b"",
            member_assignment=member_metadata.assignment),))]


def test_describe_groups_group_id_not_found_exception():
    context = _classic_context()
    _verify_describe_groups_returns_dead_group(context, "group-id")


def test_group_stuck_in_rebalance_timeout_due_to_nonjoined_static_member():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    long_session_timeout_ms = 10000
    rebalance_timeout_ms = 5000
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id", rebalance_timeout_ms,
                                                                 long_session_timeout_ms)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # a dynamic member joins; the static members do not rejoin but stay
    join_result = context.send_classic_group_join(_join_request(protocol_superset=True,
                                                                session_timeout_ms=long_session_timeout_ms))
    _no_or_empty(context.sleep(rebalance_timeout_ms))

    assert join_result.join_future.done()
    response = join_result.join_future.result()
    assert response.error_code == errors.NONE
    assert response.leader == response.member_id
    assert len(response.members) == 3
    assert response.generation_id == 2
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert set(group.all_member_ids()) == {rebalance_result.leader_id, rebalance_result.follower_id,
                                           response.member_id}
    assert set(group.all_static_member_ids()) == {rebalance_result.leader_id, rebalance_result.follower_id}
    assert set(group.all_dynamic_member_ids()) == {response.member_id}

    # the follower leaves: a rebalance
    leave_result = context.send_classic_group_leave(_leave("group-id", (rebalance_result.follower_id,
                                                                        "follower-instance-id")))
    assert leave_result.response() == _leave_response((rebalance_result.follower_id, "follower-instance-id"))
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # the dynamic member does not rejoin: it is removed; the leader stays, the group waits for it
    context.sleep(rebalance_timeout_ms)
    assert not group.all_dynamic_member_ids()
    assert set(group.all_member_ids()) == {rebalance_result.leader_id}
    assert group.generation_id() == 2
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)


# --- online upgrade/downgrade and classic members of consumer groups ---

def _replay_empty_classic_group(context: GroupMetadataManagerTestContext, group_id: str) -> None:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    classic_group = ClassicGroup("", group_id, ClassicGroupState.EMPTY, context.time)
    context.replay(helpers.new_group_metadata_record(classic_group, classic_group.group_assignment(),
                                                     MetadataVersion.latest_testing()))


def test_consumer_group_heartbeat_with_non_empty_classic_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    classic_group_id = "classic-group-id"
    member_id = _member_id()
    context = _context(NoOpPartitionAssignor())
    _replay_empty_classic_group(context, classic_group_id)
    context.group_metadata_manager.get_or_maybe_create_classic_group(classic_group_id, False).transition_to(
        ClassicGroupState.PREPARING_REBALANCE)

    # the migration policy is disabled: a classic group in use is not a consumer group
    with pytest.raises(GroupIdNotFoundException):
        context.consumer_group_heartbeat(hb(group_id=classic_group_id, member_id=member_id, member_epoch=0,
                                            server_assignor=NoOpPartitionAssignor.NAME, rebalance_timeout_ms=5000,
                                            subscribed_topic_names=["foo", "bar"], topic_partitions=[]))


def test_consumer_group_heartbeat_with_empty_classic_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
    errors = _errors()
    classic_group_id = "classic-group-id"
    member_id = _member_id()
    context = _context(NoOpPartitionAssignor())
    _replay_empty_classic_group(context, classic_group_id)

    # an empty classic group is deleted and replaced
    result = context.consumer_group_heartbeat(hb(group_id=classic_group_id, member_id=member_id, member_epoch=0,
                                                 server_assignor=NoOpPartitionAssignor.NAME,
                                                 rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                                                 topic_partitions=[]))

    expected_member = _member(member_id, state=MemberState.STABLE, member_epoch=1, previous_member_epoch=0,
                              rebalance_timeout_ms=5000, client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                              subscribed_topic_names=["foo", "bar"], server_assignor_name=NoOpPartitionAssignor.NAME,
                              assigned_partitions={})
    assert result.response().error_code == errors.NONE
    assert result.records() == [
        helpers.new_group_metadata_tombstone_record(classic_group_id),
        helpers.new_member_subscription_record(classic_group_id, expected_member),
        helpers.new_group_epoch_record(classic_group_id, 1),
        helpers.new_target_assignment_record(classic_group_id, member_id, {}),
        helpers.new_target_assignment_epoch_record(classic_group_id, 1),
        helpers.new_current_assignment_record(classic_group_id, expected_member),
    ]
    assert context.group_metadata_manager.consumer_group(classic_group_id).type() == Group.GroupType.CONSUMER


def test_classic_group_join_with_empty_consumer_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
    errors = _errors()
    consumer_group_id = "consumer-group-id"
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(
        ConsumerGroupBuilder(consumer_group_id, 10)).build()

    join_result = context.send_classic_group_join(_join_request(group_id=consumer_group_id,
                                                                default_protocol_type_and_protocols=True), True)
    expected_records = _consumer_group_tombstones(consumer_group_id)
    assert join_result.join_future.result().error_code == errors.MEMBER_ID_REQUIRED
    assert join_result.records[:len(expected_records)] == expected_records
    assert context.group_metadata_manager.get_or_maybe_create_classic_group(
        consumer_group_id, False).type() == Group.GroupType.CLASSIC


def test_classic_group_on_unloaded_empty_and_preparing_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    empty_group = context.create_classic_group("empty-group")
    assert empty_group.is_in_state(ClassicGroupState.EMPTY)

    preparing_group = context.create_classic_group("preparing-group")
    request = _join_request(group_id="preparing-group", default_protocol_type_and_protocols=True)
    join_result1 = context.send_classic_group_join(request)
    join_result2 = context.send_classic_group_join(request)
    assert not join_result1.join_future.done()
    assert not join_result2.join_future.done()
    assert preparing_group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)
    assert preparing_group.num_members() == 2

    context.on_unloaded()

    assert empty_group.is_in_state(ClassicGroupState.DEAD)
    assert preparing_group.is_in_state(ClassicGroupState.DEAD)
    for join_result in (join_result1, join_result2):
        assert join_result.join_future.done()
        assert join_result.join_future.result() == join_group_response(
            member_id=join_result.join_future.result().member_id, members=(), error_code=errors.NOT_COORDINATOR)


def test_classic_group_on_unloaded_completing_rebalance():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import sync_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    pending_group_result = context.setup_group_with_pending_member(group)
    pending_member_id = pending_group_result.pending_member_response.member_id

    # the pending member joins: the join phase completes
    join_result = context.send_classic_group_join(_join_request(member_id=pending_member_id,
                                                                default_protocol_type_and_protocols=True))
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert len(group.all_members()) == 3
    assert group.num_pending_join_members() == 0

    generation_id = join_result.join_future.result().generation_id
    follower_sync_result = context.send_classic_group_sync(_sync_request(member_id=pending_group_result.follower_id,
                                                                         generation_id=generation_id))
    pending_member_sync_result = context.send_classic_group_sync(_sync_request(member_id=pending_member_id,
                                                                               generation_id=generation_id))
    assert not follower_sync_result.sync_future.done()
    assert not pending_member_sync_result.sync_future.done()
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    context.on_unloaded()

    assert group.is_in_state(ClassicGroupState.DEAD)
    for sync_result in (follower_sync_result, pending_member_sync_result):
        assert sync_result.sync_future.done()
        assert sync_result.sync_future.result() == sync_group_response(
            assignment=ClassicGroupMember.EMPTY_ASSIGNMENT, error_code=errors.NOT_COORDINATOR)


def _classic_member_protocols(*topics_and_owned: object) -> tuple:
    """A "range" protocol subscribing to the topics, owning the partitions (Java's toArray of the serialized
    subscription)."""
    from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

    from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Subscription
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    topics, owned = topics_and_owned
    return (JoinGroupRequestProtocol(name="range", metadata=bytes(consumer_protocol.serialize_subscription(
        Subscription(list(topics), None, list(owned))).array())),)


def _consumer_assignment_bytes(partitions: list, version: int | None = None) -> bytes:
    from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Assignment as ClientAssignment
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    if version is None:
        return bytes(consumer_protocol.serialize_assignment(ClientAssignment(partitions)).array())
    return bytes(consumer_protocol.serialize_assignment(ClientAssignment(partitions), version).array())


def test_consumer_group_heartbeat_with_stable_classic_group():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
        ConsumerGroupMigrationPolicy,
    )
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
    )
    group_id = "group-id"
    member_id1, member_id2 = "member-id-1", "member-id-2"
    foo_topic_id, foo_topic_name = uuid.uuid4(), "foo"
    bar_topic_id, bar_topic_name = uuid.uuid4(), "bar"

    assignor = MockPartitionAssignor("range")
    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(bar_topic_id, 0))),
    }))
    metadata_image = MetadataImageBuilder().add_topic(foo_topic_id, foo_topic_name, 1) \
        .add_topic(bar_topic_id, bar_topic_name, 1).add_racks().build()
    context = _context(assignor, metadata_image, consumer_group_migration_policy=ConsumerGroupMigrationPolicy.UPGRADE)

    protocols = _classic_member_protocols([foo_topic_name, bar_topic_name],
                                          [TopicPartition(foo_topic_name, 0), TopicPartition(bar_topic_name, 0)])
    assignments = {member_id1: _consumer_assignment_bytes([TopicPartition(foo_topic_name, 0),
                                                           TopicPartition(bar_topic_name, 0)])}

    # a stable classic group of one member, written and committed
    group = context.create_classic_group(group_id)
    group.set_protocol_name("range")
    group.add(ClassicGroupMember(member_id1, None, "client-id", "client-host", 10000, 5000, "consumer",
                                 list(protocols), assignments[member_id1]))
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.transition_to(ClassicGroupState.COMPLETING_REBALANCE)
    group.transition_to(ClassicGroupState.STABLE)
    context.replay(helpers.new_group_metadata_record(group, assignments, metadata_image.features.metadata_version))
    context.commit()
    group = context.group_metadata_manager.get_or_maybe_create_classic_group(group_id, False)

    # a consumer-protocol member joins: the group is upgraded
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, rebalance_timeout_ms=5000,
                                                 server_assignor="range",
                                                 subscribed_topic_names=[foo_topic_name, bar_topic_name],
                                                 topic_partitions=[]))

    expected_member1 = _member(
        member_id1, member_epoch=0, previous_member_epoch=0, client_id="client-id", client_host="client-host",
        subscribed_topic_names=[foo_topic_name, bar_topic_name], rebalance_timeout_ms=10000,
        classic_member_metadata=ClassicMemberMetadata(
            session_timeout_ms=5000,
            supported_protocols=ConsumerGroupMember.classic_protocol_list_from_join_request_protocol_collection(
                protocols)),
        assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0), mk_topic_assignment(bar_topic_id, 0)))
    expected_member2 = _member(member_id2, member_epoch=1, previous_member_epoch=0,
                               state=MemberState.UNRELEASED_PARTITIONS, client_id="client",
                               client_host=DEFAULT_CLIENT_ADDRESS, server_assignor_name="range",
                               subscribed_topic_names=[foo_topic_name, bar_topic_name], rebalance_timeout_ms=5000,
                               assigned_partitions={})

    racks = {0: {"rack0", "rack1"}}
    expected_records = [
        helpers.new_group_metadata_tombstone_record(group_id),
        helpers.new_member_subscription_record(group_id, expected_member1),
        helpers.new_group_epoch_record(group_id, 0),
        helpers.new_target_assignment_record(group_id, member_id1, expected_member1.assigned_partitions()),
        helpers.new_target_assignment_epoch_record(group_id, 0),
        helpers.new_current_assignment_record(group_id, expected_member1),
        helpers.new_member_subscription_record(group_id, expected_member2),
        helpers.new_group_subscription_metadata_record(group_id, {
            foo_topic_name: TopicMetadata(foo_topic_id, foo_topic_name, 1, racks),
            bar_topic_name: TopicMetadata(bar_topic_id, bar_topic_name, 1, racks)}),
        helpers.new_group_epoch_record(group_id, 1),
        helpers.new_target_assignment_record(group_id, member_id2, assignor.target_partitions(member_id2)),
        helpers.new_target_assignment_record(group_id, member_id1, assignor.target_partitions(member_id1)),
        helpers.new_target_assignment_epoch_record(group_id, 1),
        helpers.new_current_assignment_record(group_id, expected_member2),
    ]
    # Kafka lists the two target assignment records in java.util.HashMap order of the member ids; the port's
    # TargetAssignmentBuilder writes them in member order. Their order means nothing: compared unordered.
    records = result.records()
    assert_records_equals(expected_records[:9], records[:9])
    assert_unordered_list_equals(expected_records[9:11], records[9:11])
    assert_records_equals(expected_records[11:], records[11:])

    context.assert_session_timeout(group_id, member_id1, expected_member1.classic_protocol_session_timeout())
    context.assert_session_timeout(group_id, member_id2, 45000)

    # the write fails: the classic group is back
    context.rollback()
    assert context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False) is group


def test_consumer_group_heartbeat_with_preparing_rebalance_classic_group():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
        ConsumerGroupMigrationPolicy,
    )
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
    )
    errors = _errors()
    group_id = "group-id"
    member_id1, member_id2, member_id3 = "member-id-1", "member-id-2", "member-id-3"
    foo_topic_id, foo_topic_name = uuid.uuid4(), "foo"
    bar_topic_id, bar_topic_name = uuid.uuid4(), "bar"

    assignor = MockPartitionAssignor("range")
    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(bar_topic_id, 0))),
        member_id3: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 1))),
    }))
    metadata_image = MetadataImageBuilder().add_topic(foo_topic_id, foo_topic_name, 2) \
        .add_topic(bar_topic_id, bar_topic_name, 1).add_racks().build()
    context = _context(assignor, metadata_image, consumer_group_migration_policy=ConsumerGroupMigrationPolicy.UPGRADE)

    topics = [foo_topic_name, bar_topic_name]
    protocols1 = _classic_member_protocols(topics, [TopicPartition(foo_topic_name, 0),
                                                    TopicPartition(foo_topic_name, 1)])
    protocols2 = _classic_member_protocols(topics, [TopicPartition(bar_topic_name, 0)])
    assignments = {
        member_id1: _consumer_assignment_bytes([TopicPartition(foo_topic_name, 0), TopicPartition(foo_topic_name, 1)]),
        member_id2: _consumer_assignment_bytes([TopicPartition(bar_topic_name, 0)]),
    }

    group = context.create_classic_group(group_id)
    group.set_protocol_name("range")
    group.add(ClassicGroupMember(member_id1, None, "client-id", "client-host", 10000, 5000, "consumer",
                                 list(protocols1), assignments[member_id1]))
    group.add(ClassicGroupMember(member_id2, None, "client-id", "client-host", 10000, 5000, "consumer",
                                 list(protocols2), assignments[member_id2]))
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.transition_to(ClassicGroupState.COMPLETING_REBALANCE)
    group.transition_to(ClassicGroupState.STABLE)
    context.replay(helpers.new_group_metadata_record(group, assignments, metadata_image.features.metadata_version))
    context.commit()
    group = context.group_metadata_manager.get_or_maybe_create_classic_group(group_id, False)

    # member 1 rejoins: a rebalance
    join_result = context.send_classic_group_join(_join_request(member_id=member_id1, protocols=protocols1,
                                                                session_timeout_ms=5000, rebalance_timeout_ms=10000))
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # a consumer-protocol member joins: the group is upgraded, member 1's join answered REBALANCE_IN_PROGRESS
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id3, rebalance_timeout_ms=5000,
                                                 server_assignor="range", subscribed_topic_names=topics,
                                                 topic_partitions=[]))

    def classic_member(member_id: str, protocols: tuple, assigned: object) -> ConsumerGroupMember:
        return _member(member_id, member_epoch=0, previous_member_epoch=0, client_id="client-id",
                       client_host="client-host", subscribed_topic_names=topics, rebalance_timeout_ms=10000,
                       classic_member_metadata=ClassicMemberMetadata(
                           session_timeout_ms=5000,
                           supported_protocols=ConsumerGroupMember
                           .classic_protocol_list_from_join_request_protocol_collection(protocols)),
                       assigned_partitions=assigned)

    expected_member1 = classic_member(member_id1, protocols1, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1)))
    expected_member2 = classic_member(member_id2, protocols2, mk_assignment(mk_topic_assignment(bar_topic_id, 0)))
    expected_member3 = _member(member_id3, member_epoch=1, previous_member_epoch=0,
                               state=MemberState.UNRELEASED_PARTITIONS, client_id="client",
                               client_host=DEFAULT_CLIENT_ADDRESS, server_assignor_name="range",
                               subscribed_topic_names=topics, rebalance_timeout_ms=5000, assigned_partitions={})

    assert_records_equals([
        helpers.new_group_metadata_tombstone_record(group_id),
        helpers.new_member_subscription_record(group_id, expected_member1),
        helpers.new_member_subscription_record(group_id, expected_member2),
        helpers.new_group_epoch_record(group_id, 0),
        helpers.new_target_assignment_record(group_id, member_id1, expected_member1.assigned_partitions()),
        helpers.new_target_assignment_record(group_id, member_id2, expected_member2.assigned_partitions()),
        helpers.new_target_assignment_epoch_record(group_id, 0),
        helpers.new_current_assignment_record(group_id, expected_member1),
        helpers.new_current_assignment_record(group_id, expected_member2),
        helpers.new_member_subscription_record(group_id, expected_member3),
        helpers.new_group_subscription_metadata_record(group_id, {
            foo_topic_name: TopicMetadata(foo_topic_id, foo_topic_name, 2, {0: {"rack0", "rack1"},
                                                                            1: {"rack1", "rack2"}}),
            bar_topic_name: TopicMetadata(bar_topic_id, bar_topic_name, 1, {0: {"rack0", "rack1"}})}),
        helpers.new_group_epoch_record(group_id, 1),
        helpers.new_target_assignment_record(group_id, member_id1, assignor.target_partitions(member_id1)),
        helpers.new_target_assignment_record(group_id, member_id3, assignor.target_partitions(member_id3)),
        helpers.new_target_assignment_epoch_record(group_id, 1),
        helpers.new_current_assignment_record(group_id, expected_member3),
    ], result.records())

    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.REBALANCE_IN_PROGRESS

    context.assert_session_timeout(group_id, member_id1, expected_member1.classic_protocol_session_timeout())
    context.assert_session_timeout(group_id, member_id2, expected_member2.classic_protocol_session_timeout())
    context.assert_session_timeout(group_id, member_id3, 45000)

    context.rollback()
    assert context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False) is group


def test_consumer_group_heartbeat_with_completing_rebalance_classic_group():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
        ConsumerGroupMigrationPolicy,
    )
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
    )
    errors = _errors()
    group_id = "group-id"
    member_id1, member_id2, member_id3 = "member-id-1", "member-id-2", "member-id-3"
    foo_topic_id, foo_topic_name = uuid.uuid4(), "foo"
    bar_topic_id, bar_topic_name = uuid.uuid4(), "bar"

    assignor = MockPartitionAssignor("range")
    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(bar_topic_id, 0))),
        member_id3: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 1))),
    }))
    metadata_image = MetadataImageBuilder().add_topic(foo_topic_id, foo_topic_name, 2) \
        .add_topic(bar_topic_id, bar_topic_name, 1).add_racks().build()
    context = _context(assignor, metadata_image, consumer_group_migration_policy=ConsumerGroupMigrationPolicy.UPGRADE)

    topics = [foo_topic_name, bar_topic_name]
    protocols1 = _classic_member_protocols(topics, [TopicPartition(foo_topic_name, 0),
                                                    TopicPartition(foo_topic_name, 1)])
    protocols2 = _classic_member_protocols(topics, [TopicPartition(bar_topic_name, 0)])
    assignments = {
        member_id1: _consumer_assignment_bytes([TopicPartition(foo_topic_name, 0), TopicPartition(foo_topic_name, 1)]),
        member_id2: _consumer_assignment_bytes([TopicPartition(bar_topic_name, 0)]),
    }

    group = context.create_classic_group(group_id)
    group.set_protocol_name("range")
    group.add(ClassicGroupMember(member_id1, None, "client-id", "client-host", 10000, 5000, "consumer",
                                 list(protocols1), assignments[member_id1]))
    group.add(ClassicGroupMember(member_id2, None, "client-id", "client-host", 10000, 5000, "consumer",
                                 list(protocols2), assignments[member_id2]))
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.transition_to(ClassicGroupState.COMPLETING_REBALANCE)
    group.transition_to(ClassicGroupState.STABLE)
    context.replay(helpers.new_group_metadata_record(group, assignments, metadata_image.features.metadata_version))
    context.commit()
    group = context.group_metadata_manager.get_or_maybe_create_classic_group(group_id, False)

    # both members rejoin: generation 1, waiting for the leader's assignment; member 2 syncs
    context.send_classic_group_join(_join_request(member_id=member_id1, protocols=protocols1,
                                                  session_timeout_ms=5000, rebalance_timeout_ms=10000))
    context.send_classic_group_join(_join_request(member_id=member_id2, protocols=protocols2,
                                                  session_timeout_ms=5000, rebalance_timeout_ms=10000))
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    sync_result = context.send_classic_group_sync(_sync_request(member_id=member_id2, generation_id=1))

    # a consumer-protocol member joins: the group is upgraded, member 2's sync answered REBALANCE_IN_PROGRESS
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id3, rebalance_timeout_ms=5000,
                                                 server_assignor="range", subscribed_topic_names=topics,
                                                 topic_partitions=[]))

    def classic_member(member_id: str, protocols: tuple, assigned: object) -> ConsumerGroupMember:
        return _member(member_id, member_epoch=1, previous_member_epoch=1, client_id="client-id",
                       client_host="client-host", subscribed_topic_names=topics, rebalance_timeout_ms=10000,
                       classic_member_metadata=ClassicMemberMetadata(
                           session_timeout_ms=5000,
                           supported_protocols=ConsumerGroupMember
                           .classic_protocol_list_from_join_request_protocol_collection(protocols)),
                       assigned_partitions=assigned)

    expected_member1 = classic_member(member_id1, protocols1, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1)))
    expected_member2 = classic_member(member_id2, protocols2, mk_assignment(mk_topic_assignment(bar_topic_id, 0)))
    expected_member3 = _member(member_id3, member_epoch=2, previous_member_epoch=0,
                               state=MemberState.UNRELEASED_PARTITIONS, client_id="client",
                               client_host=DEFAULT_CLIENT_ADDRESS, server_assignor_name="range",
                               subscribed_topic_names=topics, rebalance_timeout_ms=5000, assigned_partitions={})

    assert_records_equals([
        helpers.new_group_metadata_tombstone_record(group_id),
        helpers.new_member_subscription_record(group_id, expected_member1),
        helpers.new_member_subscription_record(group_id, expected_member2),
        helpers.new_group_epoch_record(group_id, 1),
        helpers.new_target_assignment_record(group_id, member_id1, expected_member1.assigned_partitions()),
        helpers.new_target_assignment_record(group_id, member_id2, expected_member2.assigned_partitions()),
        helpers.new_target_assignment_epoch_record(group_id, 1),
        helpers.new_current_assignment_record(group_id, expected_member1),
        helpers.new_current_assignment_record(group_id, expected_member2),
        helpers.new_member_subscription_record(group_id, expected_member3),
        helpers.new_group_subscription_metadata_record(group_id, {
            foo_topic_name: TopicMetadata(foo_topic_id, foo_topic_name, 2, {0: {"rack0", "rack1"},
                                                                            1: {"rack1", "rack2"}}),
            bar_topic_name: TopicMetadata(bar_topic_id, bar_topic_name, 1, {0: {"rack0", "rack1"}})}),
        helpers.new_group_epoch_record(group_id, 2),
        helpers.new_target_assignment_record(group_id, member_id1, assignor.target_partitions(member_id1)),
        helpers.new_target_assignment_record(group_id, member_id3, assignor.target_partitions(member_id3)),
        helpers.new_target_assignment_epoch_record(group_id, 2),
        helpers.new_current_assignment_record(group_id, expected_member3),
    ], result.records())

    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.REBALANCE_IN_PROGRESS

    context.assert_session_timeout(group_id, member_id1, expected_member1.classic_protocol_session_timeout())
    context.assert_session_timeout(group_id, member_id2, expected_member2.classic_protocol_session_timeout())
    context.assert_session_timeout(group_id, member_id3, 45000)

    context.rollback()
    assert context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False) is group


def _downgrade_setup(group_id: str, member_id1: str, member_id2: str, rebalance_timeout_ms: int = 45000,
                     with_zar: bool = False) -> tuple:
    """Member 1 on the classic protocol, member 2 (the last on the consumer protocol) about to go; the downgrade
    policy allows the group back to classic."""
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
        ConsumerGroupMigrationPolicy,
    )
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
        ClassicProtocol,
    )
    foo, bar, zar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3), (uuid.uuid4(), "zar", 1)
    topics = (foo, bar, zar) if with_zar else (foo, bar)
    foo_topic_id, bar_topic_id = foo[0], bar[0]
    owned = [TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("foo", 2), TopicPartition("bar", 0),
             TopicPartition("bar", 1)]
    protocols = [ClassicProtocol(name="range", metadata=_classic_member_protocols(["foo", "bar"], owned)[0].metadata)]
    member1 = _member(member_id1, state=MemberState.STABLE, member_epoch=10, previous_member_epoch=9,
                      client_id="client", client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=["foo", "bar"],
                      server_assignor_name="range", rebalance_timeout_ms=rebalance_timeout_ms,
                      classic_member_metadata=ClassicMemberMetadata(session_timeout_ms=5000,
                                                                    supported_protocols=protocols),
                      assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2),
                                                        mk_topic_assignment(bar_topic_id, 0, 1)))
    member2 = _member(member_id2, state=MemberState.STABLE, member_epoch=10, previous_member_epoch=9,
                      client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                      subscribed_topic_names=["foo", "bar", "zar"] if with_zar else ["foo", "bar"],
                      server_assignor_name="range", rebalance_timeout_ms=rebalance_timeout_ms,
                      assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5),
                                                        mk_topic_assignment(bar_topic_id, 2)))
    assignor = MockPartitionAssignor("range")
    context = _context(assignor, _image(*topics), ConsumerGroupBuilder(group_id, 10)
                       .with_member(member1).with_member(member2)
                       .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2),
                                                                  mk_topic_assignment(bar_topic_id, 0, 1)))
                       .with_assignment(member_id2, mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5),
                                                                  mk_topic_assignment(bar_topic_id, 2)))
                       .with_assignment_epoch(10),
                       consumer_group_migration_policy=ConsumerGroupMigrationPolicy.DOWNGRADE)
    context.replay(helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(*topics)))
    context.commit()
    return context, member1, owned, assignor, foo_topic_id, bar_topic_id


def _assert_downgraded(context: GroupMetadataManagerTestContext, result: CoordinatorResult, group_id: str,
                       member_id1: str, member_id2: str, member1: ConsumerGroupMember, owned: list,
                       generation_id: int = 10) -> None:
    """The records of the downgrade: every consumer group record deleted, the classic group written; the classic
    group rebalances with the member's heartbeat timer set."""
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import (
        classic_group_heartbeat_key,
        classic_group_join_key,
    )
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    assignment = _consumer_assignment_bytes(owned)
    expected_classic_group = ClassicGroup("", group_id, ClassicGroupState.STABLE, context.time, generation_id,
                                          consumer_protocol.PROTOCOL_TYPE, "range", member_id1,
                                          context.time.milliseconds())
    expected_classic_group.add(ClassicGroupMember(
        member_id1, member1.instance_id(), member1.client_id(), member1.client_host(), member1.rebalance_timeout_ms(),
        member1.classic_protocol_session_timeout(), consumer_protocol.PROTOCOL_TYPE,
        member1.supported_join_group_request_protocols(), assignment))

    expected_records = [
        helpers.new_current_assignment_tombstone_record(group_id, member_id1),
        helpers.new_current_assignment_tombstone_record(group_id, member_id2),
        helpers.new_target_assignment_tombstone_record(group_id, member_id1),
        helpers.new_target_assignment_tombstone_record(group_id, member_id2),
        helpers.new_target_assignment_epoch_tombstone_record(group_id),
        helpers.new_member_subscription_tombstone_record(group_id, member_id1),
        helpers.new_member_subscription_tombstone_record(group_id, member_id2),
        helpers.new_group_subscription_metadata_tombstone_record(group_id),
        helpers.new_group_epoch_tombstone_record(group_id),
        helpers.new_group_metadata_record(expected_classic_group, {member_id1: assignment},
                                          MetadataVersion.latest_testing()),
    ]
    records = result.records()
    assert_unordered_list_equals(expected_records[0:2], records[0:2])
    assert_unordered_list_equals(expected_records[2:4], records[2:4])
    assert_records_equals([expected_records[4]], [records[4]])
    assert_unordered_list_equals(expected_records[5:7], records[5:7])
    assert_records_equals(expected_records[7:10], records[7:10])
    # Kafka also checks the state transitions the metrics shard is told of: the port has no metrics

    assert context.timer.timeout(classic_group_heartbeat_key(group_id, member_id1)) is not None
    assert context.timer.timeout(classic_group_join_key(group_id)) is not None
    classic_group = context.group_metadata_manager.get_or_maybe_create_classic_group(group_id, False)
    assert classic_group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)


def test_last_consumer_protocol_member_leaving_consumer_group():
    from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
    group_id = "group-id"
    member_id1, member_id2 = _member_id(), _member_id()
    context, member1, owned, _, _, _ = _downgrade_setup(group_id, member_id1, member_id2)
    consumer_group = context.group_metadata_manager.consumer_group(group_id)

    # member 2 leaves: only a classic member remains, the group becomes classic
    result = context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2,
                                                 member_epoch=LEAVE_GROUP_MEMBER_EPOCH, rebalance_timeout_ms=5000,
                                                 subscribed_topic_names=["foo", "bar"], topic_partitions=[]))
    _assert_downgraded(context, result, group_id, member_id1, member_id2, member1, owned)

    # the write fails: the consumer group is back
    result.append_future().complete_exceptionally(NotLeaderOrFollowerException())
    context.rollback()
    assert context.group_metadata_manager.consumer_group(group_id) is consumer_group


def test_last_consumer_protocol_member_session_timeout_in_consumer_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import group_session_timeout_key
    group_id = "group-id"
    member_id1, member_id2 = _member_id(), _member_id()
    context, member1, owned, _, _, _ = _downgrade_setup(group_id, member_id1, member_id2)

    # the heartbeat schedules member 2's session timeout
    context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, member_epoch=10,
                                        subscribed_topic_names=["foo", "bar"], topic_partitions=[]))
    context.assert_session_timeout(group_id, member_id2, 45000)

    # member 2 is fenced: the group becomes classic
    timeout = context.sleep(45000 + 1)[0]
    assert timeout.key == group_session_timeout_key(group_id, member_id2)
    _assert_downgraded(context, timeout.result, group_id, member_id1, member_id2, member1, owned)


def test_last_consumer_protocol_member_rebalance_timeout_in_consumer_group():
    group_id = "group-id"
    member_id1, member_id2 = _member_id(), _member_id()
    context, member1, owned, assignor, foo_topic_id, bar_topic_id = _downgrade_setup(
        group_id, member_id1, member_id2, rebalance_timeout_ms=30000, with_zar=True)

    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2),
                                                       mk_topic_assignment(bar_topic_id, 0, 1))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5))),
    }))

    # member 2 drops zar: the new target makes it revoke bar 2
    context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, member_epoch=10,
                                        subscribed_topic_names=["foo", "bar"],
                                        topic_partitions=[(foo_topic_id, [3, 4, 5]), (bar_topic_id, [2])]))
    context.assert_rebalance_timeout(group_id, member_id2, 30000)

    # it does not revoke in time: fenced, and the group becomes classic
    timeout = context.sleep(30000 + 1)[0]
    assert timeout.key == consumer_group_rebalance_timeout_key(group_id, member_id2)
    _assert_downgraded(context, timeout.result, group_id, member_id1, member_id2, member1, owned, generation_id=11)


def test_joining_consumer_group_throws_exception_if_group_over_max_size():
    group_id = "group-id"
    member_id = _member_id()
    context = (GroupMetadataManagerTestContext.Builder()
               .with_consumer_group(ConsumerGroupBuilder(group_id, 10).with_member(_member(
                   member_id, state=MemberState.STABLE, member_epoch=10, previous_member_epoch=10)))
               .with_consumer_group_max_size(1).build())

    with pytest.raises(GroupMaxSizeReachedException) as ex:
        context.send_classic_group_join(_join_request(group_id=group_id, default_protocol_type_and_protocols=True))
    assert str(ex.value) == "The consumer group has reached its maximum capacity of 1 members."


def test_joining_consumer_group_throws_exception_if_protocol_is_not_supported():
    from kafka_edu.v3_9.clients.common.errors.inconsistent_group_protocol_exception import (
        InconsistentGroupProtocolException,
    )
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
    )
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    group_id = "group-id"
    member_id = _member_id()
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(
        ConsumerGroupBuilder(group_id, 10).with_member(_member(
            member_id, state=MemberState.STABLE, member_epoch=10, previous_member_epoch=10,
            classic_member_metadata=ClassicMemberMetadata(
                session_timeout_ms=5000,
                supported_protocols=ConsumerGroupMember.classic_protocol_list_from_join_request_protocol_collection(
                    to_protocols("roundrobin")))))).build()

    with pytest.raises(InconsistentGroupProtocolException):
        context.send_classic_group_join(_join_request(group_id=group_id, protocol_type="consumer",
                                                      default_protocol_type_and_protocols=True))
    with pytest.raises(InconsistentGroupProtocolException):
        context.send_classic_group_join(_join_request(group_id=group_id, protocol_type="connect",
                                                      default_protocol_type_and_protocols=True))


def test_joining_consumer_group_with_new_dynamic_member():
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
    )
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    errors = _errors()
    group_id = "group-id"
    foo, bar = (uuid.uuid4(), "foo", 2), (uuid.uuid4(), "bar", 1)
    foo_topic_id, bar_topic_id = foo[0], bar[0]

    for version in range(consumer_protocol.SUBSCRIPTION_LOWEST_SUPPORTED_VERSION,
                         consumer_protocol.SUBSCRIPTION_HIGHEST_SUPPORTED_VERSION + 1):
        member_id = _member_id()
        assignor = MockPartitionAssignor("range")
        context = _context(assignor, _image(foo, bar), ConsumerGroupBuilder(group_id, 10)
                           .with_subscription_metadata(_subscription_metadata(foo))
                           .with_member(_member(member_id, state=MemberState.STABLE, member_epoch=10,
                                                previous_member_epoch=10, assigned_partitions=mk_assignment(
                                                    mk_topic_assignment(foo_topic_id, 0, 1))))
                           .with_assignment(member_id, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1)))
                           .with_assignment_epoch(10))

        request = _join_request(group_id=group_id, protocols=to_consumer_protocol(["foo", "bar"], [], version))

        # the first join gets a member id
        first_join_result = context.send_classic_group_join(request, True)
        assert first_join_result.records == []
        first_join_result.append_future.complete(None)
        assert first_join_result.join_future.done()
        assert first_join_result.join_future.result().error_code == errors.MEMBER_ID_REQUIRED
        new_member_id = first_join_result.join_future.result().member_id
        assert new_member_id != ""

        assignor.prepare_group_assignment(GroupAssignment({
            member_id: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0))),
            new_member_id: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(bar_topic_id, 0))),
        }))

        second_join_result = context.send_classic_group_join(_replace(request, member_id=new_member_id), True)

        expected_member = _member(
            new_member_id, member_epoch=11, previous_member_epoch=0, state=MemberState.STABLE, client_id="client",
            client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=["foo", "bar"], rebalance_timeout_ms=500,
            assigned_partitions=assignor.target_partitions(new_member_id),
            classic_member_metadata=ClassicMemberMetadata(
                session_timeout_ms=500,
                supported_protocols=ConsumerGroupMember.classic_protocol_list_from_join_request_protocol_collection(
                    request.protocols)))
        expected_records = [
            helpers.new_member_subscription_record(group_id, expected_member),
            helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)),
            helpers.new_group_epoch_record(group_id, 11),
            helpers.new_target_assignment_record(group_id, member_id, assignor.target_partitions(member_id)),
            helpers.new_target_assignment_record(group_id, new_member_id, assignor.target_partitions(new_member_id)),
            helpers.new_target_assignment_epoch_record(group_id, 11),
            helpers.new_current_assignment_record(group_id, expected_member),
        ]
        assert_records_equals(expected_records[0:3], second_join_result.records[0:3])
        assert_unordered_list_equals(expected_records[3:5], second_join_result.records[3:5])
        assert_records_equals(expected_records[5:7], second_join_result.records[5:7])

        # the response once written
        second_join_result.append_future.complete(None)
        assert second_join_result.join_future.done()
        assert second_join_result.join_future.result() == join_group_response(
            member_id=new_member_id, generation_id=11, protocol_type="consumer", protocol_name="range")

        context.assert_session_timeout(group_id, new_member_id, 500)
        context.assert_sync_timeout(group_id, new_member_id, 500)


def test_joining_consumer_group_failing_to_persist_records():
    from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    group_id = "group-id"
    foo = (uuid.uuid4(), "foo", 2)
    foo_topic_id = foo[0]
    member_id, new_member_id = _member_id(), _member_id()

    assignor = MockPartitionAssignor("range")
    assignor.prepare_group_assignment(GroupAssignment({
        member_id: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0))),
        new_member_id: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 1))),
    }))
    context = _context(assignor, _image(foo), ConsumerGroupBuilder(group_id, 10)
                       .with_subscription_metadata(_subscription_metadata(foo))
                       .with_member(_member(member_id, state=MemberState.STABLE, member_epoch=10,
                                            previous_member_epoch=10, assigned_partitions=mk_assignment(
                                                mk_topic_assignment(foo_topic_id, 0, 1))))
                       .with_assignment(member_id, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1)))
                       .with_assignment_epoch(10))
    context.commit()

    join_result = context.send_classic_group_join(_join_request(group_id=group_id, member_id=new_member_id,
                                                                protocols=to_consumer_protocol(["foo"], [])))

    # the write fails: no timers, no member
    join_result.append_future.complete_exceptionally(NotLeaderOrFollowerException())
    context.rollback()

    context.assert_no_session_timeout(group_id, new_member_id)
    context.assert_no_sync_timeout(group_id, new_member_id)
    assert not context.group_metadata_manager.consumer_group(group_id).has_member(new_member_id)


def _classic_metadata(session_timeout_ms: int, protocols: tuple) -> object:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
    )
    return ClassicMemberMetadata(
        session_timeout_ms=session_timeout_ms,
        supported_protocols=ConsumerGroupMember.classic_protocol_list_from_join_request_protocol_collection(
            protocols))


def test_joining_consumer_group_with_new_static_member():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    group_id = "group-id"
    foo, bar = (uuid.uuid4(), "foo", 2), (uuid.uuid4(), "bar", 1)
    foo_topic_id = foo[0]
    member_id = _member_id()
    instance_id = "instance-id"
    context = _context(NoOpPartitionAssignor(), _image(foo, bar), ConsumerGroupBuilder(group_id, 10)
                       .with_subscription_metadata(_subscription_metadata(foo))
                       .with_member(_member(member_id, state=MemberState.STABLE, member_epoch=10,
                                            previous_member_epoch=10, assigned_partitions=mk_assignment(
                                                mk_topic_assignment(foo_topic_id, 0, 1))))
                       .with_assignment(member_id, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1)))
                       .with_assignment_epoch(10))

    request = _join_request(group_id=group_id, group_instance_id=instance_id,
                            protocols=to_consumer_protocol(["foo", "bar"], []))
    join_result = context.send_classic_group_join(request)
    join_result.append_future.complete(None)
    new_member_id = join_result.join_future.result().member_id
    assert new_member_id != ""

    expected_member = _member(new_member_id, member_epoch=11, previous_member_epoch=0, instance_id=instance_id,
                              state=MemberState.STABLE, client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                              subscribed_topic_names=["foo", "bar"], rebalance_timeout_ms=500,
                              classic_member_metadata=_classic_metadata(500, request.protocols))
    assert_records_equals([
        helpers.new_member_subscription_record(group_id, expected_member),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)),
        helpers.new_group_epoch_record(group_id, 11),
        helpers.new_target_assignment_record(group_id, new_member_id, {}),
        helpers.new_target_assignment_epoch_record(group_id, 11),
        helpers.new_current_assignment_record(group_id, expected_member),
    ], join_result.records)

    assert join_result.join_future.done()
    assert join_result.join_future.result() == join_group_response(
        member_id=new_member_id, generation_id=11, protocol_type="consumer", protocol_name="range")
    context.assert_session_timeout(group_id, new_member_id, 500)
    context.assert_sync_timeout(group_id, new_member_id, 500)


def test_joining_consumer_group_replacing_existing_static_member():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    group_id = "group-id"
    foo = (uuid.uuid4(), "foo", 2)
    foo_topic_id = foo[0]
    member_id = _member_id()
    instance_id = "instance-id"
    context = _context(NoOpPartitionAssignor(), _image(foo), ConsumerGroupBuilder(group_id, 10)
                       .with_subscription_metadata(_subscription_metadata(foo))
                       .with_member(_member(member_id, instance_id=instance_id, state=MemberState.STABLE,
                                            member_epoch=10, previous_member_epoch=10,
                                            subscribed_topic_names=["foo"], rebalance_timeout_ms=500,
                                            assigned_partitions=mk_assignment(
                                                mk_topic_assignment(foo_topic_id, 0, 1))))
                       .with_assignment(member_id, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1)))
                       .with_assignment_epoch(10))
    context.group_metadata_manager.consumer_group(group_id).set_metadata_refresh_deadline(2**63 - 1, 10)

    request = _join_request(group_id=group_id, group_instance_id=instance_id,
                            protocols=to_consumer_protocol(["foo"], []))
    join_result = context.send_classic_group_join(request, True)
    join_result.append_future.complete(None)
    new_member_id = join_result.join_future.result().member_id
    assert new_member_id != ""

    assignment = mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1))
    expected_copied_member = _member(new_member_id, member_epoch=0, previous_member_epoch=0,
                                     instance_id=instance_id, state=MemberState.STABLE,
                                     subscribed_topic_names=["foo"], assigned_partitions=assignment,
                                     rebalance_timeout_ms=500)
    expected_member = _member(new_member_id, member_epoch=10, previous_member_epoch=0, instance_id=instance_id,
                              state=MemberState.STABLE, client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                              subscribed_topic_names=["foo"], assigned_partitions=assignment,
                              rebalance_timeout_ms=500,
                              classic_member_metadata=_classic_metadata(500, request.protocols))
    assert_records_equals([
        helpers.new_current_assignment_tombstone_record(group_id, member_id),
        helpers.new_target_assignment_tombstone_record(group_id, member_id),
        helpers.new_member_subscription_tombstone_record(group_id, member_id),
        helpers.new_member_subscription_record(group_id, expected_copied_member),
        helpers.new_target_assignment_record(group_id, new_member_id, assignment),
        helpers.new_current_assignment_record(group_id, expected_copied_member),
        helpers.new_member_subscription_record(group_id, expected_member),
        helpers.new_current_assignment_record(group_id, expected_member),
    ], join_result.records)

    assert join_result.join_future.result() == join_group_response(
        member_id=new_member_id, generation_id=10, protocol_type="consumer", protocol_name="range")
    context.assert_session_timeout(group_id, new_member_id, 500)
    context.assert_sync_timeout(group_id, new_member_id, 500)


def test_joining_consumer_group_with_existing_static_member_and_new_subscription():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    group_id = "group-id"
    foo, bar, zar = (uuid.uuid4(), "foo", 2), (uuid.uuid4(), "bar", 1), (uuid.uuid4(), "zar", 1)
    foo_topic_id, bar_topic_id, zar_topic_id = foo[0], bar[0], zar[0]
    member_id1, member_id2 = _member_id(), _member_id()
    instance_id = "instance-id"

    assignor = MockPartitionAssignor("range")
    common = dict(state=MemberState.STABLE, member_epoch=10, previous_member_epoch=10, rebalance_timeout_ms=500,
                  client_id="client", client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=["foo", "bar"])
    context = _context(assignor, _image(foo, bar, zar), ConsumerGroupBuilder(group_id, 10)
                       .with_subscription_metadata(_subscription_metadata(foo, bar, zar))
                       .with_member(_member(member_id1, instance_id=instance_id, assigned_partitions=mk_assignment(
                           mk_topic_assignment(foo_topic_id, 0), mk_topic_assignment(bar_topic_id, 0)),
                           classic_member_metadata=_classic_metadata(5000, to_consumer_protocol(
                               ["foo", "bar"], [TopicPartition("foo", 0), TopicPartition("foo", 1)])), **common))
                       .with_member(_member(member_id2, assigned_partitions=mk_assignment(
                           mk_topic_assignment(foo_topic_id, 1)), **common))
                       .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0),
                                                                  mk_topic_assignment(bar_topic_id, 0)))
                       .with_assignment(member_id2, mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
                       .with_assignment_epoch(10))
    context.group_metadata_manager.consumer_group(group_id).set_metadata_refresh_deadline(2**63 - 1, 11)

    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0),
                                                       mk_topic_assignment(zar_topic_id, 0))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(bar_topic_id, 0),
                                                       mk_topic_assignment(foo_topic_id, 1))),
    }))

    # member 1 rejoins subscribing to zar too
    request = _join_request(group_id=group_id, member_id=member_id1,
                            protocols=to_consumer_protocol(["foo", "bar", "zar"], []))
    join_result = context.send_classic_group_join(request)

    expected_member = _member(member_id1, instance_id=instance_id, member_epoch=11, previous_member_epoch=10,
                              rebalance_timeout_ms=500, client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                              state=MemberState.STABLE, subscribed_topic_names=["foo", "bar", "zar"],
                              assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0),
                                                                mk_topic_assignment(zar_topic_id, 0)),
                              classic_member_metadata=_classic_metadata(500, to_consumer_protocol(
                                  ["foo", "bar", "zar"], [])))
    expected_records = [
        helpers.new_member_subscription_record(group_id, expected_member),
        helpers.new_group_epoch_record(group_id, 11),
        helpers.new_target_assignment_record(group_id, member_id1, mk_assignment(
            mk_topic_assignment(foo_topic_id, 0), mk_topic_assignment(zar_topic_id, 0))),
        helpers.new_target_assignment_record(group_id, member_id2, mk_assignment(
            mk_topic_assignment(bar_topic_id, 0), mk_topic_assignment(foo_topic_id, 1))),
        helpers.new_target_assignment_epoch_record(group_id, 11),
        helpers.new_current_assignment_record(group_id, expected_member),
    ]
    assert_records_equals(expected_records[0:2], join_result.records[0:2])
    assert_unordered_list_equals(expected_records[2:4], join_result.records[2:4])
    assert_records_equals(expected_records[4:6], join_result.records[4:6])

    join_result.append_future.complete(None)
    assert join_result.join_future.result() == join_group_response(
        member_id=member_id1, generation_id=11, protocol_type="consumer", protocol_name="range")
    context.assert_session_timeout(group_id, member_id1, 500)
    context.assert_sync_timeout(group_id, member_id1, 500)


def _two_member_consumer_group_with_classic_member(group_id: str, member_id1: str, member_id2: str,
                                                   instance_id: str | None) -> tuple:
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    protocols = to_consumer_protocol(["foo", "bar"], [TopicPartition("foo", 0), TopicPartition("foo", 1)])
    extra = {} if instance_id is None else {"instance_id": instance_id}
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(
        ConsumerGroupBuilder(group_id, 10)
        .with_member(_member(member_id1, classic_member_metadata=_classic_metadata(5000, protocols), **extra))
        .with_member(_member(member_id2))).build()
    return context, protocols


def test_static_member_joining_consumer_group_with_unknown_instance_id():
    group_id = "group-id"
    member_id1, member_id2 = _member_id(), _member_id()
    context, protocols = _two_member_consumer_group_with_classic_member(group_id, member_id1, member_id2, None)

    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_join(_join_request(group_id=group_id, member_id=member_id1,
                                                      group_instance_id="instance-id", protocols=protocols))


def test_static_member_joining_consumer_group_with_unmatched_member_id():
    group_id = "group-id"
    member_id1, member_id2 = _member_id(), _member_id()
    context, protocols = _two_member_consumer_group_with_classic_member(group_id, member_id1, member_id2,
                                                                        "instance-id")

    with pytest.raises(FencedInstanceIdException):
        context.send_classic_group_join(_join_request(group_id=group_id, member_id=_member_id(),
                                                      group_instance_id="instance-id", protocols=protocols))


def _foo_classic_protocols(version: int | None = None, topics: list | None = None, owned: list | None = None) -> list:
    """[ClassicProtocol("range", subscription)], the subscription to foo alone unless told otherwise."""
    from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Subscription
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicProtocol,
    )
    subscription = Subscription(topics or ["foo"], None, owned or [])
    buffer = consumer_protocol.serialize_subscription(subscription) if version is None else \
        consumer_protocol.serialize_subscription(subscription, version)
    return [ClassicProtocol(name="range", metadata=bytes(buffer.array()))]


def _classic_metadata_of(protocols: list, session_timeout_ms: int = 5000) -> object:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
    )
    return ClassicMemberMetadata(session_timeout_ms=session_timeout_ms, supported_protocols=protocols)


def _downgrade_policy_context(*groups: ConsumerGroupBuilder, image: MetadataImage | None = None,
                              policy: object = "DOWNGRADE") -> GroupMetadataManagerTestContext:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
        ConsumerGroupMigrationPolicy,
    )
    options: dict = {}
    if policy is not None:
        options["consumer_group_migration_policy"] = ConsumerGroupMigrationPolicy[policy]
    return _context(MockPartitionAssignor("range"), image, *groups, **options)


def test_classic_group_sync_to_consumer_group_with_all_consumer_protocol_versions():
    from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    group_id = "group-id"
    member_id1, member_id2 = _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 6), (uuid.uuid4(), "bar", 3)
    foo_topic_id, bar_topic_id = foo[0], bar[0]

    for version in range(consumer_protocol.ASSIGNMENT_LOWEST_SUPPORTED_VERSION,
                         consumer_protocol.ASSIGNMENT_HIGHEST_SUPPORTED_VERSION + 1):
        topic_partitions = [TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("foo", 2),
                            TopicPartition("bar", 0), TopicPartition("bar", 1)]
        protocols = _foo_classic_protocols(version, ["foo", "bar"], topic_partitions)
        member1 = _member(member_id1, state=MemberState.STABLE, member_epoch=10, previous_member_epoch=9,
                          subscribed_topic_names=["foo", "bar"],
                          classic_member_metadata=_classic_metadata_of(protocols),
                          assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2),
                                                            mk_topic_assignment(bar_topic_id, 0, 1)))
        member2 = _member(member_id2, state=MemberState.STABLE, member_epoch=10, previous_member_epoch=9,
                          subscribed_topic_names=["foo", "bar"],
                          assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5),
                                                            mk_topic_assignment(bar_topic_id, 2)))
        context = _downgrade_policy_context(
            ConsumerGroupBuilder(group_id, 10).with_member(member1).with_member(member2)
            .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1, 2),
                                                       mk_topic_assignment(bar_topic_id, 0, 1)))
            .with_assignment(member_id2, mk_assignment(mk_topic_assignment(foo_topic_id, 3, 4, 5),
                                                       mk_topic_assignment(bar_topic_id, 2)))
            .with_assignment_epoch(10), image=_image(foo, bar))

        context.verify_classic_group_sync_to_consumer_group(group_id, member_id1, 10, "range", "consumer",
                                                            topic_partitions, version)


def test_classic_group_sync_to_consumer_group_with_unknown_member_id():
    group_id = "group-id"
    member_id = _member_id()
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(_member(member_id)))

    for request in (_sync_request(group_id=group_id, member_id=_member_id(), generation_id=10, protocol_name="range",
                                  protocol_type="consumer"),
                    _sync_request(group_id=group_id, member_id=member_id, group_instance_id="unknown-instance-id",
                                  generation_id=10, protocol_name="range", protocol_type="consumer"),
                    # a member on the consumer protocol cannot sync
                    _sync_request(group_id=group_id, member_id=member_id, generation_id=10, protocol_name="range",
                                  protocol_type="consumer")):
        with pytest.raises(UnknownMemberIdException):
            context.send_classic_group_sync(request)


def test_classic_group_sync_to_consumer_group_with_fenced_instance_id():
    group_id = "group-id"
    member_id = _member_id()
    instance_id = "instance-id"
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(
        _member(member_id, instance_id=instance_id)))

    with pytest.raises(FencedInstanceIdException):
        context.send_classic_group_sync(_sync_request(group_id=group_id, member_id=_member_id(),
                                                      group_instance_id=instance_id, generation_id=10,
                                                      protocol_name="range", protocol_type="consumer"))


def test_classic_group_sync_to_consumer_group_with_inconsistent_group_protocol():
    from kafka_edu.v3_9.clients.common.errors.inconsistent_group_protocol_exception import (
        InconsistentGroupProtocolException,
    )
    group_id = "group-id"
    member_id = _member_id()
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(_member(
        member_id, classic_member_metadata=_classic_metadata_of(_foo_classic_protocols()), member_epoch=10)))

    with pytest.raises(InconsistentGroupProtocolException):
        context.send_classic_group_sync(_sync_request(group_id=group_id, member_id=member_id, generation_id=10,
                                                      protocol_name="roundrobin", protocol_type="consumer"))
    with pytest.raises(InconsistentGroupProtocolException):
        context.send_classic_group_sync(_sync_request(group_id=group_id, member_id=member_id, generation_id=10,
                                                      protocol_name="range", protocol_type="connect"))

    # without a protocol type or name, the sync succeeds
    context.verify_classic_group_sync_to_consumer_group(group_id, member_id, 10, None, None, [])


def test_classic_group_sync_to_consumer_group_with_illegal_generation():
    from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
    group_id = "group-id"
    member_id = _member_id()
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(_member(
        member_id, classic_member_metadata=_classic_metadata_of(_foo_classic_protocols()), member_epoch=10)))

    with pytest.raises(IllegalGenerationException):
        context.send_classic_group_sync(_sync_request(group_id=group_id, member_id=member_id, generation_id=9,
                                                      protocol_type="consumer", protocol_name="range"))


def test_classic_group_sync_to_consumer_group_rebalance_in_progress():
    from kafka_edu.v3_9.clients.common.errors.rebalance_in_progress_exception import RebalanceInProgressException
    group_id = "group-id"
    member_id = _member_id()
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 11).with_member(_member(
        member_id, rebalance_timeout_ms=10000, classic_member_metadata=_classic_metadata_of(_foo_classic_protocols()),
        member_epoch=10)))

    # the group moved to epoch 11: the member must rejoin, within its rebalance timeout
    with pytest.raises(RebalanceInProgressException):
        context.send_classic_group_sync(_sync_request(group_id=group_id, member_id=member_id, generation_id=10,
                                                      protocol_type="consumer", protocol_name="range"))
    context.assert_join_timeout(group_id, member_id, 10000)


def test_classic_group_heartbeat_to_consumer_group_maintains_session():
    errors = _errors()
    group_id = "group-id"
    member_id = _member_id()
    session_timeout = 5000
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(_member(
        member_id, classic_member_metadata=_classic_metadata_of(_foo_classic_protocols(), session_timeout),
        member_epoch=10)), policy=None)

    request = _heartbeat_request(group_id=group_id, member_id=member_id, generation_id=10)
    context.send_classic_group_heartbeat(request)
    context.assert_session_timeout(group_id, member_id, session_timeout)

    for _ in range(2):
        _no_or_empty(context.sleep(session_timeout // 2))
        assert context.send_classic_group_heartbeat(request).response().error_code == errors.NONE
        context.assert_session_timeout(group_id, member_id, session_timeout)


def test_classic_group_heartbeat_to_consumer_group_rebalance_in_progress():
    errors = _errors()
    group_id = "group-id"
    member_id1, member_id2, member_id3 = _member_id(), _member_id(), _member_id()
    foo_topic_id, bar_topic_id = uuid.uuid4(), uuid.uuid4()
    session_timeout, rebalance_timeout = 5000, 10000
    protocols = _foo_classic_protocols()
    metadata = _classic_metadata_of(protocols, session_timeout)

    # member 1 is behind the group epoch, member 2 has partitions to revoke, member 3 waits for partitions no one
    # holds any more
    member1 = _member(member_id1, rebalance_timeout_ms=rebalance_timeout, classic_member_metadata=metadata,
                      member_epoch=9)
    member2 = _member(member_id2, state=MemberState.UNREVOKED_PARTITIONS, rebalance_timeout_ms=rebalance_timeout,
                      partitions_pending_revocation=mk_assignment(mk_topic_assignment(foo_topic_id, 0)),
                      classic_member_metadata=metadata, member_epoch=10)
    member3 = _member(member_id3, state=MemberState.UNRELEASED_PARTITIONS, rebalance_timeout_ms=rebalance_timeout,
                      assigned_partitions=mk_assignment(mk_topic_assignment(bar_topic_id, 0)),
                      classic_member_metadata=metadata, member_epoch=10)
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(member1).with_member(member2)
                                        .with_member(member3)
                                        .with_assignment(member_id3, mk_assignment(
                                            mk_topic_assignment(bar_topic_id, 0, 1, 2))), policy=None)

    for member_id in (member_id1, member_id2, member_id3):
        heartbeat_result = context.send_classic_group_heartbeat(_heartbeat_request(
            group_id=group_id, member_id=member_id, generation_id=9 if member_id == member_id1 else 10))
        assert heartbeat_result.records() == []
        assert heartbeat_result.response().error_code == errors.REBALANCE_IN_PROGRESS
        context.assert_session_timeout(group_id, member_id, session_timeout)
        context.assert_join_timeout(group_id, member_id, rebalance_timeout)


def test_classic_group_heartbeat_to_consumer_with_unknown_member():
    group_id = "group-id"
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(ConsumerGroupBuilder(group_id, 10)).build()

    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_heartbeat(_heartbeat_request(group_id=group_id, member_id="unknown-member-id",
                                                                generation_id=10))
    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_heartbeat(_heartbeat_request(group_id=group_id, member_id="unknown-member-id",
                                                                group_instance_id="unknown-instance-id",
                                                                generation_id=10))


def test_classic_group_heartbeat_to_consumer_with_fenced_instance_id():
    group_id = "group-id"
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(ConsumerGroupBuilder(group_id, 10)
        .with_member(_member("member-id", instance_id="instance-id", member_epoch=10,
                             classic_member_metadata=_classic_metadata_of([])))).build()

    with pytest.raises(FencedInstanceIdException):
        context.send_classic_group_heartbeat(_heartbeat_request(group_id=group_id, member_id="unknown-member-id",
                                                                group_instance_id="instance-id", generation_id=10))


def test_classic_group_heartbeat_to_consumer_with_illegal_generation_id():
    from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
    group_id = "group-id"
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(ConsumerGroupBuilder(group_id, 10)
        .with_member(_member("member-id", member_epoch=10,
                             classic_member_metadata=_classic_metadata_of([])))).build()

    with pytest.raises(IllegalGenerationException):
        context.send_classic_group_heartbeat(_heartbeat_request(group_id=group_id, member_id="member-id",
                                                                generation_id=9))


def test_classic_group_heartbeat_to_consumer_with_member_not_using_classic_protocol():
    group_id = "group-id"
    context = GroupMetadataManagerTestContext.Builder().with_consumer_group(ConsumerGroupBuilder(group_id, 10)
        .with_member(_member("member-id", member_epoch=10))).build()

    with pytest.raises(UnknownMemberIdException):
        context.send_classic_group_heartbeat(_heartbeat_request(group_id=group_id, member_id="member-id",
                                                                generation_id=10))


def _fenced_records(group_id: str, member_id: str) -> list:
    return [helpers.new_current_assignment_tombstone_record(group_id, member_id),
            helpers.new_target_assignment_tombstone_record(group_id, member_id),
            helpers.new_member_subscription_tombstone_record(group_id, member_id),
            helpers.new_group_epoch_record(group_id, 11)]


def test_consumer_group_member_using_classic_protocol_fenced_when_session_timeout():
    group_id = "group-id"
    member_id = _member_id()
    session_timeout = 5000
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(_member(
        member_id, classic_member_metadata=_classic_metadata_of(_foo_classic_protocols(), session_timeout),
        member_epoch=10)), policy=None)

    request = _heartbeat_request(group_id=group_id, member_id=member_id, generation_id=10)
    context.send_classic_group_heartbeat(request)
    context.assert_session_timeout(group_id, member_id, session_timeout)

    timeouts = context.sleep(session_timeout + 1)
    assert len(timeouts) == 1
    timeout = timeouts[0]
    assert timeout.key == group_session_timeout_key(group_id, member_id)
    assert_records_equals(_fenced_records(group_id, member_id), timeout.result.records())


def test_consumer_group_member_using_classic_protocol_fenced_when_join_timeout():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import consumer_group_join_key
    errors = _errors()
    group_id = "group-id"
    member_id = _member_id()
    rebalance_timeout = 500
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(_member(
        member_id, rebalance_timeout_ms=rebalance_timeout,
        classic_member_metadata=_classic_metadata_of(_foo_classic_protocols()), member_epoch=9)), policy=None)

    # behind the group epoch: told to rejoin, and given the rebalance timeout to do so
    request = _heartbeat_request(group_id=group_id, member_id=member_id, generation_id=9)
    assert context.send_classic_group_heartbeat(request).response().error_code == errors.REBALANCE_IN_PROGRESS
    context.assert_session_timeout(group_id, member_id, 5000)
    context.assert_join_timeout(group_id, member_id, rebalance_timeout)

    timeouts = context.sleep(rebalance_timeout + 1)
    assert len(timeouts) == 1
    timeout = timeouts[0]
    assert timeout.key == consumer_group_join_key(group_id, member_id)
    assert_records_equals(_fenced_records(group_id, member_id), timeout.result.records())


def test_consumer_group_member_using_classic_protocol_batch_leave_group():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    errors = _errors()
    group_id = "group-id"
    member_id1, member_id2, member_id3 = _member_id(), _member_id(), _member_id()
    instance_id2, instance_id3 = "instance-id-2", "instance-id-3"
    foo, bar = (uuid.uuid4(), "foo", 2), (uuid.uuid4(), "bar", 1)
    foo_topic_id, bar_topic_id = foo[0], bar[0]
    protocol1 = _foo_classic_protocols(None, ["foo", "bar"], [TopicPartition("foo", 0)])
    protocol2 = _foo_classic_protocols(None, ["foo", "bar"], [TopicPartition("foo", 1)])
    common = dict(state=MemberState.STABLE, client_id="client", client_host=DEFAULT_CLIENT_ADDRESS,
                  subscribed_topic_names=["foo", "bar"], server_assignor_name="range", rebalance_timeout_ms=45000)
    member1 = _member(member_id1, member_epoch=10, previous_member_epoch=9,
                      classic_member_metadata=_classic_metadata_of(protocol1),
                      assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0)), **common)
    member2 = _member(member_id2, instance_id=instance_id2, member_epoch=9, previous_member_epoch=8,
                      classic_member_metadata=_classic_metadata_of(protocol2),
                      assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 1)), **common)
    member3 = _member(member_id3, instance_id=instance_id3, member_epoch=10, previous_member_epoch=9,
                      assigned_partitions=mk_assignment(mk_topic_assignment(bar_topic_id, 0)), **common)
    context = _downgrade_policy_context(
        ConsumerGroupBuilder(group_id, 10).with_member(member1).with_member(member2).with_member(member3)
        .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0)))
        .with_assignment(member_id2, mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
        .with_assignment(member_id3, mk_assignment(mk_topic_assignment(bar_topic_id, 0)))
        .with_assignment_epoch(10), image=_image(foo, bar), policy=None)
    context.group_metadata_manager.consumer_group(group_id).set_metadata_refresh_deadline(2**63 - 1, 10)
    context.replay(helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)))

    # member 1 joins (a sync timeout is set), member 2 heartbeats behind the epoch (a join timeout is set)
    context.send_classic_group_join(_join_request(
        group_id=group_id, member_id=member_id1, rebalance_timeout_ms=member1.rebalance_timeout_ms(),
        session_timeout_ms=member1.classic_member_metadata().session_timeout_ms,
        protocols=to_consumer_protocol(["foo", "bar"], [TopicPartition("foo", 0)]))).append_future.complete(None)
    context.assert_sync_timeout(group_id, member_id1, member1.rebalance_timeout_ms())
    context.assert_session_timeout(group_id, member_id1, member1.classic_member_metadata().session_timeout_ms)

    context.send_classic_group_heartbeat(_heartbeat_request(group_id=group_id, member_id=member_id2,
                                                            generation_id=9))
    context.assert_join_timeout(group_id, member_id2, member2.rebalance_timeout_ms())
    context.assert_session_timeout(group_id, member_id2, member2.classic_member_metadata().session_timeout_ms)

    leave_result = context.send_classic_group_leave(_leave(
        "group-id", (member_id1, None), ("", instance_id2), (member_id3, instance_id3), ("unknown-member-id", None),
        ("", "unknown-instance-id"), ("unknown-member-id", instance_id3)))

    assert leave_result.response() == _leave_response(
        (member_id1, None), (member_id2, instance_id2),
        # member 3 is on the consumer protocol: it cannot leave this way
        (member_id3, instance_id3, errors.UNKNOWN_MEMBER_ID), ("unknown-member-id", None, errors.UNKNOWN_MEMBER_ID),
        ("", "unknown-instance-id", errors.UNKNOWN_MEMBER_ID),
        ("unknown-member-id", instance_id3, errors.FENCED_INSTANCE_ID))

    assert leave_result.records() == [
        helpers.new_current_assignment_tombstone_record(group_id, member_id1),
        helpers.new_target_assignment_tombstone_record(group_id, member_id1),
        helpers.new_member_subscription_tombstone_record(group_id, member_id1),
        helpers.new_current_assignment_tombstone_record(group_id, member_id2),
        helpers.new_target_assignment_tombstone_record(group_id, member_id2),
        helpers.new_member_subscription_tombstone_record(group_id, member_id2),
        helpers.new_group_epoch_record(group_id, 11),
    ]
    context.assert_no_session_timeout(group_id, member_id1)
    context.assert_no_sync_timeout(group_id, member_id1)
    context.assert_no_session_timeout(group_id, member_id2)
    context.assert_no_join_timeout(group_id, member_id2)


def test_consumer_group_member_using_classic_protocol_batch_leave_group_updating_subscription_metadata():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    group_id = "group-id"
    member_id1, member_id2 = _member_id(), _member_id()
    foo, bar = (uuid.uuid4(), "foo", 2), (uuid.uuid4(), "bar", 1)
    foo_topic_id, bar_topic_id = foo[0], bar[0]
    protocol = _foo_classic_protocols(None, ["foo", "bar"], [TopicPartition("foo", 0)])
    common = dict(state=MemberState.STABLE, member_epoch=10, previous_member_epoch=9, client_id="client",
                  client_host=DEFAULT_CLIENT_ADDRESS, server_assignor_name="range", rebalance_timeout_ms=45000)
    member1 = _member(member_id1, subscribed_topic_names=["foo", "bar"],
                      classic_member_metadata=_classic_metadata_of(protocol),
                      assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0)), **common)
    member2 = _member(member_id2, subscribed_topic_names=["foo"],
                      assigned_partitions=mk_assignment(mk_topic_assignment(bar_topic_id, 0)), **common)
    context = _downgrade_policy_context(
        ConsumerGroupBuilder(group_id, 10).with_member(member1).with_member(member2)
        .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0)))
        .with_assignment(member_id2, mk_assignment(mk_topic_assignment(bar_topic_id, 0)))
        .with_assignment_epoch(10), image=_image(foo, bar), policy=None)
    context.group_metadata_manager.consumer_group(group_id).set_metadata_refresh_deadline(2**63 - 1, 10)
    context.replay(helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar)))

    # member 1 was the only one subscribed to bar
    leave_result = context.send_classic_group_leave(_leave("group-id", (member_id1, None)))
    assert leave_result.response() == _leave_response((member_id1, None))
    assert leave_result.records() == [
        helpers.new_current_assignment_tombstone_record(group_id, member_id1),
        helpers.new_target_assignment_tombstone_record(group_id, member_id1),
        helpers.new_member_subscription_tombstone_record(group_id, member_id1),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo)),
        helpers.new_group_epoch_record(group_id, 11),
    ]


def test_classic_group_leave_to_consumer_group_without_valid_leave_group_member():
    errors = _errors()
    group_id = "group-id"
    member_id = _member_id()
    context = _downgrade_policy_context(ConsumerGroupBuilder(group_id, 10).with_member(_member(member_id)),
                                        policy=None)

    leave_result = context.send_classic_group_leave(_leave("group-id", ("unknown-member-id", None),
                                                           (member_id, None)))
    assert leave_result.response() == _leave_response(("unknown-member-id", None, errors.UNKNOWN_MEMBER_ID),
                                                      (member_id, None, errors.UNKNOWN_MEMBER_ID))
    assert leave_result.records() == []


def test_no_conversion_when_size_exceeds_classic_max_group_size():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
        ConsumerGroupMigrationPolicy,
    )
    from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
        ClassicMemberMetadata,
        ClassicProtocol,
    )
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
    group_id = "group-id"
    non_classic_member_id = "1"
    protocols = [ClassicProtocol(name="range", metadata=b"")]
    context = (GroupMetadataManagerTestContext.Builder().with_classic_group_max_size(1)
               .with_consumer_group_migration_policy(ConsumerGroupMigrationPolicy.DOWNGRADE)
               .with_consumer_group(ConsumerGroupBuilder(group_id, 10)
                                    .with_member(_member(non_classic_member_id))
                                    .with_member(_member("2", classic_member_metadata=ClassicMemberMetadata(
                                        supported_protocols=protocols)))
                                    .with_member(_member("3", classic_member_metadata=ClassicMemberMetadata(
                                        supported_protocols=protocols))))
               .build())

    assert context.group_metadata_manager.group(group_id).type() == Group.GroupType.CONSUMER
    # two classic members would exceed the classic group's maximum size: no downgrade
    context.consumer_group_heartbeat(hb(group_id=group_id, member_id=non_classic_member_id,
                                        member_epoch=LEAVE_GROUP_MEMBER_EPOCH, rebalance_timeout_ms=5000))
    assert context.group_metadata_manager.group(group_id).type() == Group.GroupType.CONSUMER


def test_static_member_rejoin_with_known_member_id():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    request = _join_request(group_instance_id="group-instance-id", default_protocol_type_and_protocols=True)

    join_response = context.join_classic_group_and_complete_join(request, False, False)
    assert join_response.error_code == errors.NONE
    member_id = join_response.member_id

    # the member rejoins with its id during CompletingRebalance: its response again
    rejoin_result = context.send_classic_group_join(_replace(request, member_id=member_id))
    assert rejoin_result.records == []
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert rejoin_result.join_future.done()
    assert rejoin_result.join_future.result().error_code == errors.NONE

    sync_result = context.send_classic_group_sync(_sync_request(member_id=member_id,
                                                                generation_id=join_response.generation_id,
                                                                group_instance_id="group-instance-id"))
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.STABLE)


@pytest.mark.parametrize("support_skipping_assignment", [True, False])
def test_static_member_rejoin_with_leader_id_and_unknown_member_id(support_skipping_assignment: bool):
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # the leader rejoins unknown: it replaces itself, without a rebalance
    join_request = _join_request(group_instance_id="leader-instance-id", protocol_superset=True)
    join_result = context.send_classic_group_join(join_request, True, support_skipping_assignment)
    assert join_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                     MetadataVersion.latest_testing())]
    join_result.append_future.complete(None)
    assert join_result.join_future.done()

    new_member_id = join_result.join_future.result().member_id
    expected_join_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id, member_id=new_member_id,
        leader=new_member_id if support_skipping_assignment else rebalance_result.leader_id, protocol_name="range",
        protocol_type="consumer", skip_assignment=support_skipping_assignment,
        members=_to_join_response_members(group) if support_skipping_assignment else ())
    _check_join_group_response(expected_join_response, join_result.join_future.result(), group,
                               ClassicGroupState.STABLE,
                               {"leader-instance-id", "follower-instance-id"} if support_skipping_assignment
                               else set())

    # the old leader is fenced, in its join and its sync
    old_leader_join_result = context.send_classic_group_join(
        _replace(join_request, member_id=rebalance_result.leader_id), True, support_skipping_assignment)
    assert old_leader_join_result.records == []
    assert old_leader_join_result.join_future.done()
    assert old_leader_join_result.join_future.result().error_code == errors.FENCED_INSTANCE_ID

    old_leader_sync_request = _sync_request(group_instance_id="leader-instance-id",
                                            generation_id=rebalance_result.generation_id,
                                            member_id=rebalance_result.leader_id)
    old_leader_sync_result = context.send_classic_group_sync(old_leader_sync_request)
    assert old_leader_sync_result.records == []
    assert old_leader_sync_result.sync_future.done()
    assert old_leader_sync_result.sync_future.result().error_code == errors.FENCED_INSTANCE_ID

    # without the instance id, the old member id is unknown
    new_leader_sync_result = context.send_classic_group_sync(_replace(old_leader_sync_request,
                                                                      group_instance_id=None))
    assert new_leader_sync_result.records == []
    assert new_leader_sync_result.sync_future.done()
    assert new_leader_sync_result.sync_future.result().error_code == errors.UNKNOWN_MEMBER_ID


def test_static_member_rejoin_with_leader_id_and_known_member_id():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # the leader rejoins with its id: a rebalance; the follower does not rejoin, and its session (5s) expires
    # within the rebalance timeout (10s)
    request = _join_request(group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id,
                            default_protocol_type_and_protocols=True, rebalance_timeout_ms=10000)
    join_response = context.join_classic_group_and_complete_join(request, True, True, 10000)
    assert not group.has_member(rebalance_result.follower_id)

    expected_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=rebalance_result.leader_id, leader=rebalance_result.leader_id, protocol_name="range",
        protocol_type="consumer", members=_to_join_response_members(group))
    _check_join_group_response(expected_response, join_response, group, ClassicGroupState.COMPLETING_REBALANCE,
                               {"leader-instance-id"})


def test_static_member_rejoin_with_leader_id_and_unexpected_dead_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    group.transition_to(ClassicGroupState.DEAD)

    join_result = context.send_classic_group_join(_join_request(
        group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id,
        default_protocol_type_and_protocols=True), True, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.COORDINATOR_NOT_AVAILABLE


def test_static_member_rejoin_with_leader_id_and_unexpected_empty_group():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.transition_to(ClassicGroupState.EMPTY)

    join_result = context.send_classic_group_join(_join_request(
        group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id,
        default_protocol_type_and_protocols=True), True, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.UNKNOWN_MEMBER_ID


def test_static_member_rejoin_with_follower_id_and_change_of_protocol():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    rebalance_timeout_ms, session_timeout_ms = 10000, 15000
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id", rebalance_timeout_ms,
                                                                 session_timeout_ms)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # the follower rejoins with another protocol: a rebalance
    join_result = context.send_classic_group_join(_join_request(
        group_instance_id="follower-instance-id", member_id=rebalance_result.follower_id,
        protocols=to_protocols("roundrobin"), rebalance_timeout_ms=rebalance_timeout_ms,
        session_timeout_ms=session_timeout_ms))
    assert join_result.records == []
    assert not join_result.join_future.done()

    # the leader does not rejoin: the follower leads the next generation
    _no_or_empty(context.sleep(rebalance_timeout_ms))
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert group.has_static_member("leader-instance-id")
    assert group.is_leader(rebalance_result.follower_id)

    expected_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=rebalance_result.follower_id, leader=rebalance_result.follower_id, protocol_name="roundrobin",
        protocol_type="consumer", members=_to_join_response_members(group))
    _check_join_group_response(expected_response, join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, {"leader-instance-id", "follower-instance-id"})


def test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_with_selected_protocol_changed():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    rebalance_timeout_ms, session_timeout_ms = 10000, 15000
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id", rebalance_timeout_ms,
                                                                 session_timeout_ms)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    assert group.select_protocol() != "roundrobin"

    # the follower rejoins unknown with another protocol, which becomes the selected one: a rebalance
    join_result = context.send_classic_group_join(_join_request(
        group_instance_id="follower-instance-id", protocols=to_protocols("roundrobin"),
        rebalance_timeout_ms=rebalance_timeout_ms, session_timeout_ms=session_timeout_ms))
    assert join_result.records == []
    assert not join_result.join_future.done()
    assert group.select_protocol() == "roundrobin"

    _no_or_empty(context.sleep(rebalance_timeout_ms))
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.NONE
    assert group.has_static_member("leader-instance-id")
    new_member_id = join_result.join_future.result().member_id
    assert group.is_leader(new_member_id)
    assert rebalance_result.follower_id != new_member_id

    expected_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1, member_id=new_member_id,
        leader=new_member_id, protocol_name="roundrobin", protocol_type="consumer",
        members=_to_join_response_members(group))
    _check_join_group_response(expected_response, join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, {"leader-instance-id", "follower-instance-id"})


def test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_while_select_protocol_unchanged_persistence_failure():  # noqa: E501
    from kafka_edu.v1_0_2.clients.common.errors import RecordTooLargeException
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    request = _join_request(group_instance_id="follower-instance-id",
                            protocols=to_protocols(group.select_protocol()))
    follower_join_result = context.send_classic_group_join(request, True, True)
    assert follower_join_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                              MetadataVersion.latest_testing())]

    # the write fails (MESSAGE_TOO_LARGE): the replacement is undone, the error converted
    follower_join_result.append_future.complete_exceptionally(RecordTooLargeException())
    assert follower_join_result.join_future.done()
    expected_response = join_group_response(
        error_code=errors.UNKNOWN_SERVER_ERROR, generation_id=rebalance_result.generation_id,
        member_id=follower_join_result.join_future.result().member_id, leader=rebalance_result.leader_id,
        protocol_name="range", protocol_type="consumer", skip_assignment=False, members=())
    _check_join_group_response(expected_response, follower_join_result.join_future.result(), group,
                               ClassicGroupState.STABLE, set())
    assert follower_join_result.join_future.result().member_id != rebalance_result.follower_id

    # the old follower id still works: it rejoins, then the leader, and a new generation completes
    request = _replace(request, member_id=rebalance_result.follower_id)
    follower_join_result = context.send_classic_group_join(request)
    assert follower_join_result.records == []

    request = _replace(request, group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id)
    leader_join_result = context.send_classic_group_join(request)
    assert leader_join_result.records == []
    assert leader_join_result.join_future.done()
    assert follower_join_result.join_future.done()
    assert leader_join_result.join_future.result().error_code == errors.NONE
    assert follower_join_result.join_future.result().error_code == errors.NONE

    sync_request = _sync_request(group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id,
                                 generation_id=rebalance_result.generation_id + 1)
    leader_sync_result = context.send_classic_group_sync(sync_request)
    leader_sync_result.append_future.complete(None)
    assert leader_sync_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                            MetadataVersion.latest_testing())]
    assert leader_sync_result.sync_future.done()
    assert group.is_in_state(ClassicGroupState.STABLE)
    assert leader_sync_result.sync_future.result().error_code == errors.NONE

    old_member_sync_result = context.send_classic_group_sync(_replace(
        sync_request, group_instance_id="follower-instance-id", member_id=rebalance_result.follower_id))
    assert old_member_sync_result.records == []
    assert old_member_sync_result.sync_future.done()
    assert group.is_in_state(ClassicGroupState.STABLE)
    assert old_member_sync_result.sync_future.result().error_code == errors.NONE


def test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_while_select_protocol_unchanged():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    request = _join_request(group_instance_id="follower-instance-id",
                            protocols=to_protocols(group.select_protocol()))
    follower_join_result = context.send_classic_group_join(request, True, True)
    assert follower_join_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                              MetadataVersion.latest_testing())]
    follower_join_result.append_future.complete(None)
    assert follower_join_result.join_future.done()

    expected_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id,
        member_id=follower_join_result.join_future.result().member_id, leader=rebalance_result.leader_id,
        protocol_name="range", protocol_type="consumer", skip_assignment=False, members=())
    _check_join_group_response(expected_response, follower_join_result.join_future.result(), group,
                               ClassicGroupState.STABLE, set())

    new_follower_id = follower_join_result.join_future.result().member_id
    assert rebalance_result.follower_id != new_follower_id

    # the old follower is fenced, in its join and its sync
    follower_join_result = context.send_classic_group_join(_replace(request, member_id=rebalance_result.follower_id))
    assert follower_join_result.records == []
    assert follower_join_result.join_future.result().error_code == errors.FENCED_INSTANCE_ID

    sync_request = _sync_request(group_instance_id="follower-instance-id",
                                 generation_id=rebalance_result.generation_id,
                                 member_id=rebalance_result.follower_id, assignment=[])
    sync_result = context.send_classic_group_sync(sync_request)
    assert sync_result.records == []
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.FENCED_INSTANCE_ID

    # the new follower gets the old one's assignment
    sync_result = context.send_classic_group_sync(_replace(sync_request, member_id=new_follower_id))
    assert sync_result.records == []
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert sync_result.sync_future.result().assignment == rebalance_result.follower_assignment


def test_static_member_rejoin_with_known_leader_id_to_trigger_rebalance_and_follower_with_changeof_protocol():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_protocols,
    )
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    # the leader rejoins with its id: a rebalance, completed when the follower rejoins
    request = _join_request(group_instance_id="leader-instance-id", member_id=rebalance_result.leader_id,
                            protocol_superset=True, rebalance_timeout_ms=10000, session_timeout_ms=5000)
    leader_join_result = context.send_classic_group_join(request, True, True)
    assert leader_join_result.records == []
    assert not leader_join_result.join_future.done()

    request = _replace(request, group_instance_id="follower-instance-id", member_id=rebalance_result.follower_id)
    follower_join_result = context.send_classic_group_join(request, True, True)
    assert follower_join_result.records == []
    assert leader_join_result.join_future.done()
    assert follower_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)
    assert group.generation_id() == 2

    expected_leader_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=leader_join_result.join_future.result().member_id, leader=rebalance_result.leader_id,
        protocol_name="range", protocol_type="consumer", skip_assignment=False,
        members=_to_join_response_members(group))
    _check_join_group_response(expected_leader_response, leader_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, {"leader-instance-id", "follower-instance-id"})

    expected_follower_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=follower_join_result.join_future.result().member_id, leader=rebalance_result.leader_id,
        protocol_name="range", protocol_type="consumer", skip_assignment=False, members=())
    _check_join_group_response(expected_follower_response, follower_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, set())

    # the follower rejoins with other protocols: another rebalance, which the leader misses
    follower_join_result = context.send_classic_group_join(_replace(
        request, group_instance_id="follower-instance-id", member_id=rebalance_result.follower_id,
        protocols=to_protocols("range")), True, True)
    assert follower_join_result.records == []
    assert not follower_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    timeouts = context.sleep(5000)
    assert len(timeouts) <= 2
    assert follower_join_result.join_future.done()

    new_follower_id = follower_join_result.join_future.result().member_id
    expected_follower_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 2, member_id=new_follower_id,
        leader=new_follower_id, protocol_name="range", protocol_type="consumer", skip_assignment=False,
        members=_to_join_response_members(group))
    _check_join_group_response(expected_follower_response, follower_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, {"follower-instance-id"})


def test_static_member_rejoin_as_follower_with_unknown_member_id():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    follower_join_result = context.send_classic_group_join(_join_request(
        group_instance_id="follower-instance-id", protocol_superset=True), True, True)
    assert follower_join_result.records == [helpers.new_group_metadata_record(group, group.group_assignment(),
                                                                              MetadataVersion.latest_testing())]
    follower_join_result.append_future.complete(None)
    assert follower_join_result.join_future.done()
    assert group.has_static_member("leader-instance-id")

    # the group has not changed
    expected_follower_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id,
        member_id=follower_join_result.join_future.result().member_id, leader=rebalance_result.leader_id,
        protocol_name="range", protocol_type="consumer", skip_assignment=False, members=())
    _check_join_group_response(expected_follower_response, follower_join_result.join_future.result(), group,
                               ClassicGroupState.STABLE, set())
    assert follower_join_result.join_future.result().member_id != rebalance_result.follower_id

    sync_result = context.send_classic_group_sync(_sync_request(
        group_instance_id="follower-instance-id", generation_id=rebalance_result.generation_id,
        member_id=follower_join_result.join_future.result().member_id))
    assert sync_result.records == []
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert sync_result.sync_future.result().assignment == rebalance_result.follower_assignment


def test_static_member_rejoin_as_follower_with_known_member_id_and_no_protocol_change():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    follower_join_result = context.send_classic_group_join(_join_request(
        group_instance_id="follower-instance-id", member_id=rebalance_result.follower_id, protocol_superset=True),
        True, True)
    assert follower_join_result.records == []
    assert follower_join_result.join_future.done()
    assert group.has_static_member("leader-instance-id")

    # the group has not changed
    expected_follower_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id, member_id=rebalance_result.follower_id,
        leader=rebalance_result.leader_id, protocol_name="range", protocol_type="consumer", skip_assignment=False,
        members=())
    _check_join_group_response(expected_follower_response, follower_join_result.join_future.result(), group,
                               ClassicGroupState.STABLE, set())


def test_static_member_rejoin_as_follower_with_mismatched_instance_id():
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    follower_join_result = context.send_classic_group_join(_join_request(
        group_instance_id="leader-instance-id", member_id=rebalance_result.follower_id, protocol_superset=True),
        True, True)
    assert follower_join_result.records == []
    assert follower_join_result.join_future.done()
    assert follower_join_result.join_future.result().error_code == errors.FENCED_INSTANCE_ID


def test_static_member_rejoin_as_leader_with_mismatched_instance_id():
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    leader_join_result = context.send_classic_group_join(_join_request(
        group_instance_id="follower-instance-id", member_id=rebalance_result.leader_id, protocol_superset=True),
        True, True)
    assert leader_join_result.records == []
    assert leader_join_result.join_future.done()
    assert leader_join_result.join_future.result().error_code == errors.FENCED_INSTANCE_ID


def test_static_member_sync_as_leader_with_invalid_member_id():
    errors = _errors()
    context = _classic_context()
    context.static_members_join_and_rebalance("group-id", "leader-instance-id", "follower-instance-id")

    leader_sync_result = context.send_classic_group_sync(_sync_request(group_instance_id="follower-instance-id",
                                                                        member_id="invalid-member-id"))
    assert leader_sync_result.records == []
    assert leader_sync_result.sync_future.done()
    assert leader_sync_result.sync_future.result().error_code == errors.FENCED_INSTANCE_ID


def test_get_different_static_member_id_after_each_rejoin():
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)

    last_member_id = rebalance_result.leader_id
    for _ in range(5):
        leader_join_result = context.send_classic_group_join(_join_request(
            group_instance_id="leader-instance-id", protocol_superset=True), True, True)
        assert leader_join_result.records == [helpers.new_group_metadata_record(
            group, group.group_assignment(), MetadataVersion.latest_testing())]
        leader_join_result.append_future.complete(None)
        assert leader_join_result.join_future.done()
        assert leader_join_result.join_future.result().member_id == group.static_member_id("leader-instance-id")
        assert leader_join_result.join_future.result().error_code == errors.NONE
        assert leader_join_result.join_future.result().member_id != last_member_id
        last_member_id = leader_join_result.join_future.result().member_id


def test_static_member_join_with_unknown_instance_id_and_known_member_id():
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id")
    join_result = context.send_classic_group_join(_join_request(
        group_instance_id="unknown-instance-id", member_id=rebalance_result.leader_id, protocol_superset=True),
        True, True)
    assert join_result.records == []
    assert join_result.join_future.done()
    assert join_result.join_future.result().error_code == errors.UNKNOWN_MEMBER_ID


def test_static_member_re_join_with_illegal_state_as_unknown_member():
    from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    context = _classic_context()
    context.static_members_join_and_rebalance("group-id", "leader-instance-id", "follower-instance-id")
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.transition_to(ClassicGroupState.EMPTY)

    with pytest.raises(IllegalStateException) as exception:
        context.send_classic_group_join(_join_request(group_instance_id="follower-instance-id",
                                                      protocol_superset=True), True, True)
    assert group.group_id() in str(exception.value)
    assert "follower-instance-id" in str(exception.value)


def _new_static_member_joins(context: GroupMetadataManagerTestContext, group: object, new_member_instance_id: str,
                             ) -> tuple:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    request = _join_request(group_instance_id=new_member_instance_id, protocol_superset=True)
    new_member_join_result = context.send_classic_group_join(request, True, True)
    assert new_member_join_result.records == []
    assert not new_member_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)
    return request, new_member_join_result


def test_static_member_follower_fail_to_rejoin_before_rebalance_timeout():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id", 10000, 15000)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    new_member_instance_id = "new-member-instance-id"
    leader_id = rebalance_result.leader_id

    # a new static member joins, the leader rejoins, the follower never does
    request, new_member_join_result = _new_static_member_joins(context, group, new_member_instance_id)
    leader_join_result = context.send_classic_group_join(_replace(request, group_instance_id="leader-instance-id",
                                                                  member_id=leader_id), True, True)
    assert leader_join_result.records == []
    assert not leader_join_result.join_future.done()

    # the static follower is kept: the join completes at the rebalance timeout with the three members
    _no_or_empty(context.sleep(10000))
    assert leader_join_result.join_future.done()
    assert new_member_join_result.join_future.done()

    expected_leader_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1, member_id=leader_id,
        leader=leader_id, protocol_name="range", protocol_type="consumer", skip_assignment=False,
        members=_to_join_response_members(group))
    _check_join_group_response(expected_leader_response, leader_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE,
                               {"leader-instance-id", "follower-instance-id", new_member_instance_id})

    expected_new_member_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=new_member_join_result.join_future.result().member_id, leader=leader_id, protocol_name="range",
        protocol_type="consumer", skip_assignment=False, members=())
    _check_join_group_response(expected_new_member_response, new_member_join_result.join_future.result(), group,
                               ClassicGroupState.COMPLETING_REBALANCE, set())


def test_static_member_leader_fail_to_rejoin_before_rebalance_timeout():
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    rebalance_result = context.static_members_join_and_rebalance("group-id", "leader-instance-id",
                                                                 "follower-instance-id", 10000, 15000)
    group = context.group_metadata_manager.get_or_maybe_create_classic_group("group-id", False)
    new_member_instance_id = "new-member-instance-id"

    # a new static member joins, the follower rejoins, the leader never does
    request, new_member_join_result = _new_static_member_joins(context, group, new_member_instance_id)
    old_follower_join_result = context.send_classic_group_join(_replace(
        request, group_instance_id="follower-instance-id", member_id=rebalance_result.follower_id), True, True)
    assert old_follower_join_result.records == []
    assert not old_follower_join_result.join_future.done()

    _no_or_empty(context.sleep(10000))
    assert old_follower_join_result.join_future.done()
    assert new_member_join_result.join_future.done()

    # one of the rejoined members leads
    old_follower_join_response = old_follower_join_result.join_future.result()
    new_member_join_response = new_member_join_result.join_future.result()
    follower_leads = old_follower_join_response.leader == old_follower_join_response.member_id
    new_leader_response = old_follower_join_response if follower_leads else new_member_join_response
    new_follower_response = new_member_join_response if follower_leads else old_follower_join_response

    expected_leader_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=new_leader_response.member_id, leader=new_leader_response.member_id, protocol_name="range",
        protocol_type="consumer", skip_assignment=False, members=_to_join_response_members(group))
    _check_join_group_response(expected_leader_response, new_leader_response, group,
                               ClassicGroupState.COMPLETING_REBALANCE,
                               {"leader-instance-id", "follower-instance-id", new_member_instance_id})

    expected_new_member_response = join_group_response(
        error_code=errors.NONE, generation_id=rebalance_result.generation_id + 1,
        member_id=new_follower_response.member_id, leader=new_leader_response.member_id, protocol_name="range",
        protocol_type="consumer", skip_assignment=False, members=())
    _check_join_group_response(expected_new_member_response, new_follower_response, group,
                               ClassicGroupState.COMPLETING_REBALANCE, set())


def test_rebalance_completes_before_member_joins():
    from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
    errors = _errors()
    context = _classic_context()
    group = context.create_classic_group("group-id")
    join_request = _join_request(group_instance_id="leader-instance-id", default_protocol_type_and_protocols=True,
                                 rebalance_timeout_ms=10000, session_timeout_ms=5000)

    leader_join_response = context.join_classic_group_and_complete_join(join_request, True, True)
    first_member_id = leader_join_response.member_id
    first_generation_id = leader_join_response.generation_id
    assert first_generation_id == 1
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    sync_request = _sync_request(member_id=first_member_id, generation_id=first_generation_id)
    sync_result = context.send_classic_group_sync(sync_request)
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.STABLE)

    # a dynamic member joins: a rebalance
    join_request = _replace(join_request, 2500, member_id="", group_instance_id=None)
    second_member_join_result = context.send_classic_group_join(join_request)
    assert second_member_join_result.records == []
    assert not second_member_join_result.join_future.done()
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    # the static first member keeps heartbeating but does not rejoin
    first_member_heartbeat_request = _heartbeat_request(member_id=first_member_id,
                                                        generation_id=first_generation_id)
    for _ in range(2):
        _no_or_empty(context.sleep(2500))
        assert context.send_classic_group_heartbeat(first_member_heartbeat_request).response().error_code == \
            errors.REBALANCE_IN_PROGRESS

    # the join phase ends at the rebalance timeout; the new member keeps its session by being parked
    _no_or_empty(context.sleep(8000))
    assert second_member_join_result.join_future.done()
    assert second_member_join_result.join_future.result().error_code == errors.NONE
    assert group.num_members() == 2
    assert group.generation_id() == 2
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    other_member_id = second_member_join_result.join_future.result().member_id
    sync_request = _replace(sync_request, group_instance_id=None, member_id=other_member_id, generation_id=2)
    sync_result = context.send_classic_group_sync(sync_request)
    sync_result.append_future.complete(None)
    assert sync_result.sync_future.done()
    assert sync_result.sync_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.STABLE)

    # the first member is of the old generation
    with pytest.raises(IllegalGenerationException):
        context.send_classic_group_heartbeat(first_member_heartbeat_request)

    # the first member's session expires: a rebalance, which the other member learns of
    heartbeat_request = _replace(first_member_heartbeat_request, member_id=other_member_id, generation_id=2)
    for expected_error in (errors.NONE, errors.NONE, errors.REBALANCE_IN_PROGRESS):
        _no_or_empty(context.sleep(2000))
        assert context.send_classic_group_heartbeat(heartbeat_request).response().error_code == expected_error

    assert group.num_members() == 1
    assert group.is_in_state(ClassicGroupState.PREPARING_REBALANCE)

    other_member_rejoin_result = context.send_classic_group_join(_replace(join_request, 2500,
                                                                          member_id=other_member_id,
                                                                          group_instance_id=None))
    assert other_member_rejoin_result.records == []
    assert other_member_rejoin_result.join_future.done()
    assert other_member_rejoin_result.join_future.result().error_code == errors.NONE
    assert other_member_rejoin_result.join_future.result().generation_id == 3
    assert group.is_in_state(ClassicGroupState.COMPLETING_REBALANCE)

    other_member_resync_result = context.send_classic_group_sync(_replace(
        sync_request, group_instance_id=None, member_id=other_member_id, generation_id=3))
    other_member_resync_result.append_future.complete(None)
    assert other_member_resync_result.sync_future.done()
    assert other_member_resync_result.sync_future.result().error_code == errors.NONE
    assert group.is_in_state(ClassicGroupState.STABLE)

    # the group stays stable as long as the member heartbeats
    heartbeat_request = _replace(heartbeat_request, member_id=other_member_id, generation_id=3)
    for _ in range(20):
        _no_or_empty(context.sleep(2000))
        assert context.send_classic_group_heartbeat(heartbeat_request).response().error_code == errors.NONE


def _reconciliation_group(group_id: str, member_id1: str, member_id2: str, member1_owned: list,
                          foo: tuple, bar: tuple, zar: tuple) -> tuple:
    """Classic member 1 (foo 0, bar 0) and consumer member 2 (foo 1) at epoch 10; the new target moves foo 1 to
    member 1, bar 0 to member 2 and gives zar 0 to member 1."""
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    foo_topic_id, bar_topic_id, zar_topic_id = foo[0], bar[0], zar[0]
    assignor = MockPartitionAssignor("range")
    common = dict(state=MemberState.STABLE, member_epoch=10, previous_member_epoch=10, rebalance_timeout_ms=500,
                  client_id="client", client_host=DEFAULT_CLIENT_ADDRESS, subscribed_topic_names=["foo", "bar"])
    context = _context(assignor, _image(foo, bar, zar), ConsumerGroupBuilder(group_id, 10)
                       .with_subscription_metadata(_subscription_metadata(foo, bar))
                       .with_member(_member(member_id1, assigned_partitions=mk_assignment(
                           mk_topic_assignment(foo_topic_id, 0), mk_topic_assignment(bar_topic_id, 0)),
                           classic_member_metadata=_classic_metadata(5000, to_consumer_protocol(
                               ["foo", "bar"], member1_owned)), **common))
                       .with_member(_member(member_id2, assigned_partitions=mk_assignment(
                           mk_topic_assignment(foo_topic_id, 1)), **common))
                       .with_assignment(member_id1, mk_assignment(mk_topic_assignment(foo_topic_id, 0),
                                                                  mk_topic_assignment(bar_topic_id, 0)))
                       .with_assignment(member_id2, mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
                       .with_assignment_epoch(10))
    group = context.group_metadata_manager.consumer_group(group_id)
    group.set_metadata_refresh_deadline(2**63 - 1, 11)
    assignor.prepare_group_assignment(GroupAssignment({
        member_id1: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1),
                                                       mk_topic_assignment(zar_topic_id, 0))),
        member_id2: MemberAssignmentImpl(mk_assignment(mk_topic_assignment(bar_topic_id, 0))),
    }))
    return context, group


def _first_records(group_id: str, member_id1: str, member_id2: str, expected_member1: ConsumerGroupMember,
                   foo: tuple, bar: tuple, zar: tuple) -> list:
    foo_topic_id, bar_topic_id, zar_topic_id = foo[0], bar[0], zar[0]
    return [
        helpers.new_member_subscription_record(group_id, expected_member1),
        helpers.new_group_subscription_metadata_record(group_id, _subscription_metadata(foo, bar, zar)),
        helpers.new_group_epoch_record(group_id, 11),
        helpers.new_target_assignment_record(group_id, member_id1, mk_assignment(
            mk_topic_assignment(foo_topic_id, 0, 1), mk_topic_assignment(zar_topic_id, 0))),
        helpers.new_target_assignment_record(group_id, member_id2, mk_assignment(
            mk_topic_assignment(bar_topic_id, 0))),
        helpers.new_target_assignment_epoch_record(group_id, 11),
        helpers.new_current_assignment_record(group_id, expected_member1),
    ]


def _assert_join_records(expected: list, actual: list, split: tuple = (3, 5)) -> None:
    assert len(actual) == len(expected)
    assert_records_equals(expected[:split[0]], actual[:split[0]])
    assert_unordered_list_equals(expected[split[0]:split[1]], actual[split[0]:split[1]])
    assert_records_equals(expected[split[1]:], actual[split[1]:])


def test_reconciliation_in_joining_consumer_group_with_eager_protocol():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    errors = _errors()
    group_id = "group-id"
    foo, bar, zar = (uuid.uuid4(), "foo", 2), (uuid.uuid4(), "bar", 1), (uuid.uuid4(), "zar", 1)
    foo_topic_id, zar_topic_id = foo[0], zar[0]
    member_id1, member_id2 = _member_id(), _member_id()
    context, group = _reconciliation_group(group_id, member_id1, member_id2,
                                           [TopicPartition("foo", 0), TopicPartition("bar", 0)], foo, bar, zar)

    # member 1 rejoins (eager: owning nothing) subscribing to zar too: it gets foo 0 and zar 0, foo 1 is not free
    request = _join_request(group_id=group_id, member_id=member_id1, session_timeout_ms=5000,
                            protocols=to_consumer_protocol(["foo", "bar", "zar"], []))
    join_result1 = context.send_classic_group_join(request)

    expected_member1 = _member(
        member_id1, member_epoch=11, previous_member_epoch=10, rebalance_timeout_ms=500, client_id="client",
        client_host=DEFAULT_CLIENT_ADDRESS, state=MemberState.UNRELEASED_PARTITIONS,
        subscribed_topic_names=["foo", "bar", "zar"],
        assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0), mk_topic_assignment(zar_topic_id, 0)),
        classic_member_metadata=_classic_metadata(5000, to_consumer_protocol(["foo", "bar", "zar"], [])))
    _assert_join_records(_first_records(group_id, member_id1, member_id2, expected_member1, foo, bar, zar),
                         join_result1.records)
    assert group.get_or_maybe_create_member(member_id1, False).state() == expected_member1.state()

    join_result1.append_future.complete(None)
    join_response1 = join_result1.join_future.result()
    assert join_response1 == join_group_response(member_id=member_id1, generation_id=11, protocol_type="consumer",
                                                 protocol_name="range")
    context.assert_session_timeout(group_id, member_id1, 5000)
    context.assert_sync_timeout(group_id, member_id1, 500)
    context.verify_classic_group_sync_to_consumer_group(
        group_id, join_response1.member_id, join_response1.generation_id, join_response1.protocol_name,
        join_response1.protocol_type, [TopicPartition("foo", 0), TopicPartition("zar", 0)])

    # member 2 revokes foo 1
    context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, member_epoch=10,
                                        topic_partitions=[]))

    # member 1 heartbeats: it must rejoin to get foo 1
    assert context.send_classic_group_heartbeat(_heartbeat_request(
        group_id=group_id, member_id=member_id1, generation_id=join_response1.generation_id)).response().error_code \
        == errors.REBALANCE_IN_PROGRESS
    context.assert_join_timeout(group_id, member_id1, 500)

    join_result2 = context.send_classic_group_join(request)
    expected_member2 = (ConsumerGroupMember.Builder(expected_member1).set_state(MemberState.STABLE)
                        .set_previous_member_epoch(11)
                        .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1),
                                                               mk_topic_assignment(zar_topic_id, 0)))
                        .build())
    assert_records_equals([helpers.new_current_assignment_record(group_id, expected_member2)], join_result2.records)
    assert group.get_or_maybe_create_member(member_id1, False).state() == expected_member2.state()

    join_result2.append_future.complete(None)
    context.assert_no_join_timeout(group_id, member_id1)
    join_response2 = join_result2.join_future.result()
    assert join_response2 == join_group_response(member_id=member_id1, generation_id=11, protocol_type="consumer",
                                                 protocol_name="range")
    context.assert_session_timeout(group_id, member_id1, 5000)
    context.assert_sync_timeout(group_id, member_id1, 500)
    context.verify_classic_group_sync_to_consumer_group(
        group_id, join_response2.member_id, join_response2.generation_id, join_response2.protocol_name,
        join_response2.protocol_type, [TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("zar", 0)])


def test_reconciliation_in_joining_consumer_group_with_cooperative_protocol():
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import join_group_response
    from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
        to_consumer_protocol,
    )
    errors = _errors()
    group_id = "group-id"
    foo, bar, zar = (uuid.uuid4(), "foo", 2), (uuid.uuid4(), "bar", 1), (uuid.uuid4(), "zar", 1)
    foo_topic_id, bar_topic_id, zar_topic_id = foo[0], bar[0], zar[0]
    member_id1, member_id2 = _member_id(), _member_id()
    context, group = _reconciliation_group(group_id, member_id1, member_id2,
                                           [TopicPartition("foo", 0), TopicPartition("bar", 0)], foo, bar, zar)
    topics = ["foo", "bar", "zar"]

    def join(owned: list) -> object:
        return context.send_classic_group_join(_join_request(group_id=group_id, member_id=member_id1,
                                                             session_timeout_ms=5000,
                                                             protocols=to_consumer_protocol(topics, owned)))

    def expect_response(join_result: object, generation_id: int, assigned: list) -> None:
        join_result.append_future.complete(None)
        response = join_result.join_future.result()
        assert response == join_group_response(member_id=member_id1, generation_id=generation_id,
                                               protocol_type="consumer", protocol_name="range")
        context.assert_session_timeout(group_id, member_id1, 5000)
        context.assert_sync_timeout(group_id, member_id1, 500)
        context.verify_classic_group_sync_to_consumer_group(group_id, response.member_id, response.generation_id,
                                                            response.protocol_name, response.protocol_type,
                                                            assigned)

    # member 1 rejoins (cooperative: still owning foo 0 and bar 0) subscribing to zar too: it must revoke bar 0
    owned1 = [TopicPartition("foo", 0), TopicPartition("bar", 0)]
    join_result1 = join(owned1)
    expected_member1 = _member(
        member_id1, member_epoch=10, previous_member_epoch=10, rebalance_timeout_ms=500, client_id="client",
        client_host=DEFAULT_CLIENT_ADDRESS, state=MemberState.UNREVOKED_PARTITIONS, subscribed_topic_names=topics,
        assigned_partitions=mk_assignment(mk_topic_assignment(foo_topic_id, 0)),
        partitions_pending_revocation=mk_assignment(mk_topic_assignment(bar_topic_id, 0)),
        classic_member_metadata=_classic_metadata(5000, to_consumer_protocol(topics, owned1)))
    _assert_join_records(_first_records(group_id, member_id1, member_id2, expected_member1, foo, bar, zar),
                         join_result1.records)
    assert group.get_or_maybe_create_member(member_id1, False).state() == expected_member1.state()
    expect_response(join_result1, 10, [TopicPartition("foo", 0)])

    # it still has bar 0 to revoke: rejoin
    assert context.send_classic_group_heartbeat(_heartbeat_request(
        group_id=group_id, member_id=member_id1, generation_id=10)).response().error_code == \
        errors.REBALANCE_IN_PROGRESS
    context.assert_join_timeout(group_id, member_id1, 500)

    # it rejoins without bar 0: epoch 11, zar 0 added, foo 1 not free yet
    owned2 = [TopicPartition("foo", 0)]
    join_result2 = join(owned2)
    expected_member2 = (ConsumerGroupMember.Builder(expected_member1).set_member_epoch(11)
                        .set_state(MemberState.UNRELEASED_PARTITIONS).set_partitions_pending_revocation({})
                        .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 0),
                                                               mk_topic_assignment(zar_topic_id, 0)))
                        .set_classic_member_metadata(_classic_metadata(5000, to_consumer_protocol(topics, owned2)))
                        .build())
    assert_records_equals([helpers.new_member_subscription_record(group_id, expected_member2),
                           helpers.new_current_assignment_record(group_id, expected_member2)], join_result2.records)
    assert group.get_or_maybe_create_member(member_id1, False).state() == expected_member2.state()
    join_result2.append_future.complete(None)
    context.assert_no_join_timeout(group_id, member_id1)
    expect_response(join_result2, 11, [TopicPartition("foo", 0), TopicPartition("zar", 0)])

    # member 2 revokes foo 1; member 1 must rejoin to get it
    context.consumer_group_heartbeat(hb(group_id=group_id, member_id=member_id2, member_epoch=10,
                                        topic_partitions=[]))
    assert context.send_classic_group_heartbeat(_heartbeat_request(
        group_id=group_id, member_id=member_id1, generation_id=11)).response().error_code == \
        errors.REBALANCE_IN_PROGRESS
    context.assert_join_timeout(group_id, member_id1, 500)

    owned3 = [TopicPartition("foo", 0), TopicPartition("zar", 0)]
    join_result3 = join(owned3)
    expected_member3 = (ConsumerGroupMember.Builder(expected_member2).set_state(MemberState.STABLE)
                        .set_previous_member_epoch(11)
                        .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 0, 1),
                                                               mk_topic_assignment(zar_topic_id, 0)))
                        .set_classic_member_metadata(_classic_metadata(5000, to_consumer_protocol(topics, owned3)))
                        .build())
    assert_records_equals([helpers.new_member_subscription_record(group_id, expected_member3),
                           helpers.new_current_assignment_record(group_id, expected_member3)], join_result3.records)
    assert group.get_or_maybe_create_member(member_id1, False).state() == expected_member3.state()
    join_result3.append_future.complete(None)
    context.assert_no_join_timeout(group_id, member_id1)
    expect_response(join_result3, 11, [TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("zar", 0)])
