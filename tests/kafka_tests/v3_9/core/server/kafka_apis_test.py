"""Port of core/src/test/scala/unit/kafka/server/KafkaApisTest.scala (Kafka 3.9).

Kafka's test builds KafkaApis over Mockito mocks (request channel, replica manager, group and transaction
coordinators, forwarding and auto topic creation managers, fetch manager) and, for most cases, a ZooKeeper-mode
metadata cache. The port is KRaft only: every case here runs on a KRaftMetadataCache filled through metadata records,
as 3.9's `raftSupport = true` cases do; a case whose behaviour is the same on both kinds of broker is ported on KRaft.
unittest.mock stands for Mockito; the group coordinator mock answers with futures of response dicts, as the contract
of the port's GroupCoordinator (kafka_edu/v3_9/group_coordinator/coordinator/group/group_coordinator.py) says. Responses
are read back from the wire (encoded and decoded at the request's version), as verifyNoThrottling does.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from kio.serial._introspect import EntityTupleField, PrimitiveTupleField, classify_field

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.compress.compression import NONE as COMPRESSION_NONE
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response, encode_request, encode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.file_records import TimestampAndOffset
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import FetchMetadata
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData as FetchPartitionDataRequest
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse, partition_data
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.core.network.request_channel import Request
from kafka_edu.v3_9.core.server.api_version_manager import broker_listener_api_version_manager
from kafka_edu.v3_9.core.server.controller_apis import AuthorizationResult
from kafka_edu.v3_9.core.server.fetch_session import FetchSessionCacheShard, FullFetchContext
from kafka_edu.v3_9.core.server.kafka_apis import (
    KafkaApis,
    should_always_forward,
    should_never_receive,
    size_of_throttled_partitions,
)
from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.core.server.remote_leader_end_point import error_exception
from kafka_edu.v3_9.metadata.common.metadata import (
    BrokerEndpoint,
    PartitionRecord,
    RegisterBrokerRecord,
    TopicRecord,
)
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.server_common.server.storage.log.fetch_partition_data import FetchPartitionData
from tests.kafka_tests.referee import kafka_test_class

_ZK = "ZooKeeper-mode KafkaApis (ZkSupport): the port's 3.9 broker is KRaft only (ZooKeeper mode is the 1.0.2 tree)"
_KRAFT_MV = ("metadata.version below {}: a KRaft cluster's metadata.version is at least 3.0-IV1, so the check cannot "
             "fail (the port keeps it)")
_NOT_PORTED = "API not ported yet (issue 24)"
_QUOTAS = "quota managers (ClientQuotaManager, ReplicationQuotaManager) are not ported: nothing is throttled"
_METRICS = "JMX/Yammer metrics: the port has no metrics registry"

CASES = [
    "testDescribeConfigsWithAuthorizer", "testEnvelopeRequestHandlingAsController",
    "testEnvelopeRequestWithAlterConfigUnhandledError", "testInvalidEnvelopeRequestWithNonForwardableAPI",
    "testEnvelopeRequestWithNotFromPrivilegedListener", "testEnvelopeRequestNotAuthorized",
    "testEnvelopeRequestNotControllerHandling", "testAlterConfigsWithAuthorizer", "testElectLeadersForwarding",
    "testAlterConfigsClientMetrics", "testIncrementalClientMetricAlterConfigs", "testDescribeConfigsClientMetrics",
    "testDescribeQuorumNotAllowedForZkClusters", "testDescribeQuorumForwardedForKRaftClusters",
    "testIncrementalAlterConfigsWithAuthorizer", "testAlterClientQuotasWithAuthorizer",
    "testAlterClientQuotasWithForwarding", "testCreateTopicsWithAuthorizer", "testCreateTopicsWithForwarding",
    "testKRaftControllerThrottleTimeEnforced", "testCreatePartitionsAuthorization", "testCreateAclWithForwarding",
    "testDeleteAclWithForwarding", "testCreateDelegationTokenWithForwarding",
    "testRenewDelegationTokenWithForwarding", "testExpireDelegationTokenWithForwarding",
    "testAlterPartitionReassignmentsWithForwarding", "testCreatePartitionsWithForwarding",
    "testUpdateFeaturesWithForwarding", "testDeleteTopicsWithForwarding", "testAlterScramWithForwarding",
    "testFindCoordinatorAutoTopicCreationForOffsetTopic", "testFindCoordinatorAutoTopicCreationForTxnTopic",
    "testFindCoordinatorNotEnoughBrokersForOffsetTopic", "testFindCoordinatorNotEnoughBrokersForTxnTopic",
    "testOldFindCoordinatorAutoTopicCreationForOffsetTopic", "testOldFindCoordinatorAutoTopicCreationForTxnTopic",
    "testOldFindCoordinatorNotEnoughBrokersForOffsetTopic", "testOldFindCoordinatorNotEnoughBrokersForTxnTopic",
    "testFindCoordinatorTooOldForShareStateTopic", "testFindCoordinatorNoShareCoordinatorForShareStateTopic",
    "testMetadataAutoTopicCreationForOffsetTopic", "testMetadataAutoTopicCreationForTxnTopic",
    "testMetadataAutoTopicCreationForNonInternalTopic", "testMetadataAutoTopicCreationDisabledForOffsetTopic",
    "testMetadataAutoTopicCreationDisabledForTxnTopic", "testMetadataAutoTopicCreationDisabledForNonInternalTopic",
    "testMetadataAutoCreationDisabledForNonInternal", "testInvalidMetadataRequestReturnsError",
    "testHandleOffsetCommitRequest", "testHandleOffsetCommitRequestFutureFailed",
    "testHandleOffsetCommitRequestTopicsAndPartitionsValidation", "testOffsetCommitWithInvalidPartition",
    "testTxnOffsetCommitWithInvalidPartition", "testHandleTxnOffsetCommitRequest",
    "testHandleTxnOffsetCommitRequestFutureFailed", "testHandleTxnOffsetCommitRequestTopicsAndPartitionsValidation",
    "shouldReplaceCoordinatorNotAvailableWithLoadInProcessInTxnOffsetCommitWithOlderClient",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInInitProducerIdWithOlderClient",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInAddOffsetToTxnWithOlderClient",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInAddPartitionToTxnWithOlderClient",
    "testBatchedAddPartitionsToTxnRequest", "testHandleAddPartitionsToTxnAuthorizationFailedAndMetrics",
    "testAddPartitionsToTxnOperationNotAttempted",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInEndTxnWithOlderClient",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInProduceResponse",
    "testProduceResponseContainsNewLeaderOnNotLeaderOrFollower",
    "testProduceResponseReplicaManagerLookupErrorOnNotLeaderOrFollower",
    "testProduceResponseMetadataLookupErrorOnNotLeaderOrFollower", "testTransactionalParametersSetCorrectly",
    "testAddPartitionsToTxnWithInvalidPartition",
    "shouldThrowUnsupportedVersionExceptionOnHandleAddOffsetToTxnRequestWhenInterBrokerProtocolNotSupported",
    "shouldThrowUnsupportedVersionExceptionOnHandleAddPartitionsToTxnRequestWhenInterBrokerProtocolNotSupported",
    "shouldThrowUnsupportedVersionExceptionOnHandleTxnOffsetCommitRequestWhenInterBrokerProtocolNotSupported",
    "shouldThrowUnsupportedVersionExceptionOnHandleEndTxnRequestWhenInterBrokerProtocolNotSupported",
    "shouldThrowUnsupportedVersionExceptionOnHandleWriteTxnMarkersRequestWhenInterBrokerProtocolNotSupported",
    "requiredAclsNotPresentWriteTxnMarkersThrowsAuthorizationException",
    "shouldRespondWithUnsupportedForMessageFormatOnHandleWriteTxnMarkersWhenMagicLowerThanRequired",
    "shouldRespondWithUnknownTopicWhenPartitionIsNotHosted",
    "shouldRespondWithUnsupportedMessageFormatForBadPartitionAndNoErrorsForGoodPartition",
    "shouldResignCoordinatorsIfStopReplicaReceivedWithDeleteFlagAndLeaderEpoch",
    "shouldResignCoordinatorsIfStopReplicaReceivedWithDeleteFlagAndDeleteSentinel",
    "shouldResignCoordinatorsIfStopReplicaReceivedWithDeleteFlagAndNoEpochSentinel",
    "shouldNotResignCoordinatorsIfStopReplicaReceivedWithoutDeleteFlag",
    "shouldRespondWithUnknownTopicOrPartitionForBadPartitionAndNoErrorsForGoodPartition",
    "shouldAppendToLogOnWriteTxnMarkersWhenCorrectMagicVersion",
    "testHandleWriteTxnMarkersRequestWithNewGroupCoordinator",
    "testHandleWriteTxnMarkersRequestWithNewGroupCoordinatorErrorTranslation",
    "testLeaderReplicaIfLocalRaisesFencedLeaderEpoch", "testLeaderReplicaIfLocalRaisesUnknownLeaderEpoch",
    "testLeaderReplicaIfLocalRaisesNotLeaderOrFollower", "testLeaderReplicaIfLocalRaisesUnknownTopicOrPartition",
    "testHandleDeleteGroups", "testHandleDeleteGroupsFutureFailed", "testHandleDeleteGroupsAuthenticationFailed",
    "testHandleDescribeGroups", "testHandleDescribeGroupsFutureFailed", "testHandleDescribeGroupsAuthenticationFailed",
    "testOffsetDelete", "testOffsetDeleteTopicsAndPartitionsValidation", "testOffsetDeleteWithInvalidPartition",
    "testOffsetDeleteWithInvalidGroup", "testOffsetDeleteWithInvalidGroupWithTopLevelError",
    "testReadUncommittedConsumerListOffsetLatest", "testReadCommittedConsumerListOffsetLatest",
    "testListOffsetMaxTimestampWithUnsupportedVersion", "testListOffsetEarliestLocalTimestampWithUnsupportedVersion",
    "testListOffsetLatestTieredTimestampWithUnsupportedVersion", "testListOffsetNegativeTimestampWithZeroVersion",
    "testListOffsetNegativeTimestampWithOneOrAboveVersion",
    "testMetadataRequestOnSharedListenerWithInconsistentListenersAcrossBrokers",
    "testMetadataRequestOnDistinctListenerWithInconsistentListenersAcrossBrokers",
    "testGetAllTopicMetadataShouldNotCreateTopicOrReturnUnknownTopicPartition", "testUnauthorizedTopicMetadataRequest",
    "testFetchRequestV9WithNoLogConfig", "testFetchRequestErroneousPartitions",
    "testFetchResponseContainsNewLeaderOnNotLeaderOrFollower", "testHandleJoinGroupRequest",
    "testJoinGroupProtocolNameBackwardCompatibility", "testHandleJoinGroupRequestFutureFailed",
    "testHandleJoinGroupRequestAuthorizationFailed", "testHandleJoinGroupRequestUnexpectedException",
    "testHandleSyncGroupRequest", "testHandleSyncGroupRequestFutureFailed",
    "testHandleSyncGroupRequestAuthenticationFailed",
    "testSyncGroupProtocolTypeAndNameAreMandatorySinceV5", "testHandleHeartbeatRequest",
    "testHandleHeartbeatRequestFutureFailed", "testHandleHeartbeatRequestAuthenticationFailed",
    "rejectJoinGroupRequestWhenStaticMembershipNotSupported", "rejectSyncGroupRequestWhenStaticMembershipNotSupported",
    "rejectHeartbeatRequestWhenStaticMembershipNotSupported",
    "rejectOffsetCommitRequestWhenStaticMembershipNotSupported",
    "testHandleLeaveGroupWithMultipleMembers", "testHandleLeaveGroupWithSingleMember",
    "testHandleLeaveGroupFutureFailed", "testHandleLeaveGroupAuthenticationFailed",
    "testHandleOffsetFetchWithMultipleGroups", "testHandleOffsetFetchWithSingleGroup",
    "testHandleOffsetFetchAllOffsetsWithSingleGroup", "testHandleOffsetFetchAuthorization",
    "testHandleOffsetFetchWithUnauthorizedTopicAndTopLevelError",
    "testReassignmentAndReplicationBytesOutRateWhenReassigning",
    "testReassignmentAndReplicationBytesOutRateWhenNotReassigning", "rejectInitProducerIdWhenIdButNotEpochProvided",
    "rejectInitProducerIdWhenEpochButNotIdProvided", "testUpdateMetadataRequestWithCurrentBrokerEpoch",
    "testUpdateMetadataRequestWithNewerBrokerEpochIsValid", "testUpdateMetadataRequestWithStaleBrokerEpochIsRejected",
    "testLeaderAndIsrRequestWithCurrentBrokerEpoch", "testLeaderAndIsrRequestWithNewerBrokerEpochIsValid",
    "testLeaderAndIsrRequestWithStaleBrokerEpochIsRejected", "testStopReplicaRequestWithCurrentBrokerEpoch",
    "testStopReplicaRequestWithNewerBrokerEpochIsValid", "testStopReplicaRequestWithStaleBrokerEpochIsRejected",
    "testListGroupsRequest", "testListGroupsRequestFutureFailed",
    "testListGroupsRequestFiltersUnauthorizedGroupsWithDescribeCluster",
    "testListGroupsRequestFiltersUnauthorizedGroupsWithDescribeGroups", "testDescribeClusterRequest",
    "testAlterReplicaLogDirs", "testSizeOfThrottledPartitions", "testDescribeProducers", "testDescribeTransactions",
    "testDescribeTransactionsFiltersUnauthorizedTopics", "testListTransactionsErrorResponse",
    "testListTransactionsAuthorization", "testDeleteTopicsByIdAuthorization", "testDeleteTopicsByNameAuthorization",
    "testRaftShouldNeverHandleLeaderAndIsrRequest", "testRaftShouldNeverHandleStopReplicaRequest",
    "testRaftShouldNeverHandleUpdateMetadataRequest", "testRaftShouldNeverHandleControlledShutdownRequest",
    "testRaftShouldNeverHandleAlterPartitionRequest", "testRaftShouldNeverHandleEnvelope",
    "testRaftShouldAlwaysForwardCreateTopicsRequest", "testRaftShouldAlwaysForwardCreatePartitionsRequest",
    "testRaftShouldAlwaysForwardDeleteTopicsRequest", "testRaftShouldAlwaysForwardCreateAcls",
    "testRaftShouldAlwaysForwardDeleteAcls", "testEmptyLegacyAlterConfigsRequestWithKRaft",
    "testInvalidLegacyAlterConfigsRequestWithKRaft", "testRaftShouldAlwaysForwardAlterPartitionReassignmentsRequest",
    "testEmptyIncrementalAlterConfigsRequestWithKRaft", "testLog4jIncrementalAlterConfigsRequestWithKRaft",
    "testRaftShouldAlwaysForwardCreateTokenRequest", "testRaftShouldAlwaysForwardRenewTokenRequest",
    "testRaftShouldAlwaysForwardExpireTokenRequest", "testRaftShouldAlwaysForwardAlterClientQuotasRequest",
    "testRaftShouldAlwaysForwardAlterUserScramCredentialsRequest", "testRaftShouldAlwaysForwardUpdateFeatures",
    "testRaftShouldAlwaysForwardElectLeaders", "testRaftShouldAlwaysForwardListPartitionReassignments",
    "testConsumerGroupHeartbeatReturnsUnsupportedVersion", "testConsumerGroupHeartbeatRequest",
    "testConsumerGroupHeartbeatRequestFutureFailed", "testConsumerGroupHeartbeatRequestAuthorizationFailed",
    "testConsumerGroupDescribe", "testConsumerGroupDescribeReturnsUnsupportedVersion",
    "testConsumerGroupDescribeAuthorizationFailed", "testConsumerGroupDescribeFutureFailed",
    "testGetTelemetrySubscriptionsNotAllowedForZkClusters", "testGetTelemetrySubscriptions",
    "testGetTelemetrySubscriptionsWithException", "testPushTelemetryNotAllowedForZkClusters", "testPushTelemetry",
    "testPushTelemetryWithException", "testListClientMetricsResourcesNotAllowedForZkClusters",
    "testListClientMetricsResources", "testListClientMetricsResourcesEmptyResponse",
    "testListClientMetricsResourcesWithException", "testShareGroupHeartbeatReturnsUnsupportedVersion",
    "testShareGroupHeartbeatRequest", "testShareGroupHeartbeatRequestAuthorizationFailed",
    "testShareGroupHeartbeatRequestFutureFailed", "testShareGroupDescribeSuccess",
    "testShareGroupDescribeReturnsUnsupportedVersion", "testShareGroupDescribeRequestAuthorizationFailed",
    "testShareGroupDescribeRequestAuthorizationFailedForOneGroup",
]

NOT_APPLICABLE = {
    **{case: _ZK for case in [
        "testEnvelopeRequestHandlingAsController", "testEnvelopeRequestWithAlterConfigUnhandledError",
        "testInvalidEnvelopeRequestWithNonForwardableAPI", "testEnvelopeRequestWithNotFromPrivilegedListener",
        "testEnvelopeRequestNotAuthorized", "testEnvelopeRequestNotControllerHandling",
        "testDescribeQuorumNotAllowedForZkClusters", "testCreateTopicsWithAuthorizer",
        "testCreatePartitionsAuthorization",
        "shouldResignCoordinatorsIfStopReplicaReceivedWithDeleteFlagAndLeaderEpoch",
        "shouldResignCoordinatorsIfStopReplicaReceivedWithDeleteFlagAndDeleteSentinel",
        "shouldResignCoordinatorsIfStopReplicaReceivedWithDeleteFlagAndNoEpochSentinel",
        "shouldNotResignCoordinatorsIfStopReplicaReceivedWithoutDeleteFlag",
        "testUpdateMetadataRequestWithCurrentBrokerEpoch", "testUpdateMetadataRequestWithNewerBrokerEpochIsValid",
        "testUpdateMetadataRequestWithStaleBrokerEpochIsRejected", "testLeaderAndIsrRequestWithCurrentBrokerEpoch",
        "testLeaderAndIsrRequestWithNewerBrokerEpochIsValid", "testLeaderAndIsrRequestWithStaleBrokerEpochIsRejected",
        "testStopReplicaRequestWithCurrentBrokerEpoch", "testStopReplicaRequestWithNewerBrokerEpochIsValid",
        "testStopReplicaRequestWithStaleBrokerEpochIsRejected", "testDeleteTopicsByIdAuthorization",
        "testDeleteTopicsByNameAuthorization", "testGetTelemetrySubscriptionsNotAllowedForZkClusters",
        "testPushTelemetryNotAllowedForZkClusters", "testListClientMetricsResourcesNotAllowedForZkClusters",
    ]},
    "testKRaftControllerThrottleTimeEnforced": _QUOTAS,
    # part A (issue 24): these run ZooKeeper mode's adminManager (a KRaft broker forwards, the controller authorizes)
    **{case: _ZK for case in ["testAlterConfigsWithAuthorizer", "testIncrementalAlterConfigsWithAuthorizer",
                              "testAlterConfigsClientMetrics", "testIncrementalClientMetricAlterConfigs",
                              "testAlterClientQuotasWithAuthorizer"]},
    "testReassignmentAndReplicationBytesOutRateWhenReassigning": _METRICS,
    "testReassignmentAndReplicationBytesOutRateWhenNotReassigning": _METRICS,
    **{case: _KRAFT_MV.format("0.11.0-IV0") for case in [
        "shouldThrowUnsupportedVersionExceptionOnHandleWriteTxnMarkersRequestWhenInterBrokerProtocolNotSupported",
        "shouldThrowUnsupportedVersionExceptionOnHandleAddOffsetToTxnRequestWhenInterBrokerProtocolNotSupported",
        "shouldThrowUnsupportedVersionExceptionOnHandleAddPartitionsToTxnRequestWhenInterBrokerProtocolNotSupported",
        "shouldThrowUnsupportedVersionExceptionOnHandleTxnOffsetCommitRequestWhenInterBrokerProtocolNotSupported",
        "shouldThrowUnsupportedVersionExceptionOnHandleEndTxnRequestWhenInterBrokerProtocolNotSupported",
    ]},
    "rejectJoinGroupRequestWhenStaticMembershipNotSupported": _KRAFT_MV.format("2.3-IV0"),
    "rejectSyncGroupRequestWhenStaticMembershipNotSupported": _KRAFT_MV.format("2.3-IV0"),
    "rejectHeartbeatRequestWhenStaticMembershipNotSupported": _KRAFT_MV.format("2.3-IV0"),
    "rejectOffsetCommitRequestWhenStaticMembershipNotSupported": _KRAFT_MV.format("2.3-IV0"),
}

PORTED = {
    "testAlterReplicaLogDirs", "testDescribeQuorumForwardedForKRaftClusters",
    "testDescribeConfigsWithAuthorizer", "testDescribeConfigsClientMetrics",
    "testCreateTopicsWithForwarding", "testCreatePartitionsWithForwarding", "testDeleteTopicsWithForwarding",
    "testFindCoordinatorAutoTopicCreationForOffsetTopic", "testFindCoordinatorAutoTopicCreationForTxnTopic",
    "testFindCoordinatorNotEnoughBrokersForOffsetTopic", "testFindCoordinatorNotEnoughBrokersForTxnTopic",
    "testOldFindCoordinatorAutoTopicCreationForOffsetTopic", "testOldFindCoordinatorAutoTopicCreationForTxnTopic",
    "testOldFindCoordinatorNotEnoughBrokersForOffsetTopic", "testOldFindCoordinatorNotEnoughBrokersForTxnTopic",
    "testFindCoordinatorTooOldForShareStateTopic", "testFindCoordinatorNoShareCoordinatorForShareStateTopic",
    "testMetadataAutoTopicCreationForOffsetTopic", "testMetadataAutoTopicCreationForTxnTopic",
    "testMetadataAutoTopicCreationForNonInternalTopic", "testMetadataAutoTopicCreationDisabledForOffsetTopic",
    "testMetadataAutoTopicCreationDisabledForTxnTopic", "testMetadataAutoTopicCreationDisabledForNonInternalTopic",
    "testMetadataAutoCreationDisabledForNonInternal", "testInvalidMetadataRequestReturnsError",
    "testHandleOffsetCommitRequest", "testHandleOffsetCommitRequestFutureFailed",
    "testHandleOffsetCommitRequestTopicsAndPartitionsValidation", "testOffsetCommitWithInvalidPartition",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInInitProducerIdWithOlderClient",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInProduceResponse",
    "testProduceResponseContainsNewLeaderOnNotLeaderOrFollower",
    "testProduceResponseReplicaManagerLookupErrorOnNotLeaderOrFollower",
    "testProduceResponseMetadataLookupErrorOnNotLeaderOrFollower", "testTransactionalParametersSetCorrectly",
    "requiredAclsNotPresentWriteTxnMarkersThrowsAuthorizationException",
    "shouldRespondWithUnsupportedForMessageFormatOnHandleWriteTxnMarkersWhenMagicLowerThanRequired",
    "shouldRespondWithUnknownTopicWhenPartitionIsNotHosted",
    "shouldRespondWithUnsupportedMessageFormatForBadPartitionAndNoErrorsForGoodPartition",
    "shouldRespondWithUnknownTopicOrPartitionForBadPartitionAndNoErrorsForGoodPartition",
    "shouldAppendToLogOnWriteTxnMarkersWhenCorrectMagicVersion",
    "testHandleWriteTxnMarkersRequestWithNewGroupCoordinator",
    "testHandleWriteTxnMarkersRequestWithNewGroupCoordinatorErrorTranslation",
    "testLeaderReplicaIfLocalRaisesFencedLeaderEpoch", "testLeaderReplicaIfLocalRaisesUnknownLeaderEpoch",
    "testLeaderReplicaIfLocalRaisesNotLeaderOrFollower", "testLeaderReplicaIfLocalRaisesUnknownTopicOrPartition",
    "testHandleDeleteGroups", "testHandleDeleteGroupsFutureFailed", "testHandleDeleteGroupsAuthenticationFailed",
    "testHandleDescribeGroups", "testHandleDescribeGroupsFutureFailed", "testHandleDescribeGroupsAuthenticationFailed",
    "testReadUncommittedConsumerListOffsetLatest", "testReadCommittedConsumerListOffsetLatest",
    "testListOffsetMaxTimestampWithUnsupportedVersion", "testListOffsetEarliestLocalTimestampWithUnsupportedVersion",
    "testListOffsetLatestTieredTimestampWithUnsupportedVersion", "testListOffsetNegativeTimestampWithZeroVersion",
    "testListOffsetNegativeTimestampWithOneOrAboveVersion",
    "testMetadataRequestOnSharedListenerWithInconsistentListenersAcrossBrokers",
    "testMetadataRequestOnDistinctListenerWithInconsistentListenersAcrossBrokers",
    "testGetAllTopicMetadataShouldNotCreateTopicOrReturnUnknownTopicPartition", "testUnauthorizedTopicMetadataRequest",
    "testFetchRequestV9WithNoLogConfig", "testFetchRequestErroneousPartitions",
    "testFetchResponseContainsNewLeaderOnNotLeaderOrFollower", "testHandleJoinGroupRequest",
    "testJoinGroupProtocolNameBackwardCompatibility", "testHandleJoinGroupRequestFutureFailed",
    "testHandleJoinGroupRequestAuthorizationFailed", "testHandleJoinGroupRequestUnexpectedException",
    "testHandleSyncGroupRequest", "testHandleSyncGroupRequestFutureFailed",
    "testHandleSyncGroupRequestAuthenticationFailed",
    "testSyncGroupProtocolTypeAndNameAreMandatorySinceV5", "testHandleHeartbeatRequest",
    "testHandleHeartbeatRequestFutureFailed", "testHandleHeartbeatRequestAuthenticationFailed",
    "testHandleLeaveGroupWithMultipleMembers", "testHandleLeaveGroupWithSingleMember",
    "testHandleLeaveGroupFutureFailed", "testHandleLeaveGroupAuthenticationFailed",
    "testHandleOffsetFetchWithMultipleGroups", "testHandleOffsetFetchWithSingleGroup",
    "testHandleOffsetFetchAllOffsetsWithSingleGroup", "testHandleOffsetFetchAuthorization",
    "testHandleOffsetFetchWithUnauthorizedTopicAndTopLevelError", "rejectInitProducerIdWhenIdButNotEpochProvided",
    "rejectInitProducerIdWhenEpochButNotIdProvided", "testListGroupsRequest", "testListGroupsRequestFutureFailed",
    "testListGroupsRequestFiltersUnauthorizedGroupsWithDescribeCluster",
    "testListGroupsRequestFiltersUnauthorizedGroupsWithDescribeGroups", "testDescribeClusterRequest",
    "testSizeOfThrottledPartitions", "testRaftShouldNeverHandleLeaderAndIsrRequest",
    "testRaftShouldNeverHandleStopReplicaRequest", "testRaftShouldNeverHandleUpdateMetadataRequest",
    "testRaftShouldNeverHandleControlledShutdownRequest", "testRaftShouldNeverHandleAlterPartitionRequest",
    "testRaftShouldNeverHandleEnvelope", "testRaftShouldAlwaysForwardCreateTopicsRequest",
    "testRaftShouldAlwaysForwardCreatePartitionsRequest", "testRaftShouldAlwaysForwardDeleteTopicsRequest",
    # part B (issue 24)
    "testCreateAclWithForwarding", "testDeleteAclWithForwarding", "testRaftShouldAlwaysForwardCreateAcls",
    "testRaftShouldAlwaysForwardDeleteAcls",
    # part C (issue 24)
    "testElectLeadersForwarding", "testAlterPartitionReassignmentsWithForwarding", "testDescribeProducers",
    "testRaftShouldAlwaysForwardAlterPartitionReassignmentsRequest", "testRaftShouldAlwaysForwardElectLeaders",
    "testRaftShouldAlwaysForwardListPartitionReassignments",
    # part A (issue 24)
    "testEmptyLegacyAlterConfigsRequestWithKRaft", "testInvalidLegacyAlterConfigsRequestWithKRaft",
    "testEmptyIncrementalAlterConfigsRequestWithKRaft", "testLog4jIncrementalAlterConfigsRequestWithKRaft",
    "testAlterClientQuotasWithForwarding", "testRaftShouldAlwaysForwardAlterClientQuotasRequest",
    "testAlterScramWithForwarding", "testRaftShouldAlwaysForwardAlterUserScramCredentialsRequest",
    "testUpdateFeaturesWithForwarding", "testRaftShouldAlwaysForwardUpdateFeatures",
    # transactions and OffsetDelete (issue 24)
    "testTxnOffsetCommitWithInvalidPartition", "testHandleTxnOffsetCommitRequest",
    "testHandleTxnOffsetCommitRequestFutureFailed", "testHandleTxnOffsetCommitRequestTopicsAndPartitionsValidation",
    "shouldReplaceCoordinatorNotAvailableWithLoadInProcessInTxnOffsetCommitWithOlderClient",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInAddOffsetToTxnWithOlderClient",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInAddPartitionToTxnWithOlderClient",
    "testBatchedAddPartitionsToTxnRequest", "testHandleAddPartitionsToTxnAuthorizationFailedAndMetrics",
    "testAddPartitionsToTxnOperationNotAttempted",
    "shouldReplaceProducerFencedWithInvalidProducerEpochInEndTxnWithOlderClient",
    "testAddPartitionsToTxnWithInvalidPartition", "testOffsetDelete", "testOffsetDeleteTopicsAndPartitionsValidation",
    "testOffsetDeleteWithInvalidPartition", "testOffsetDeleteWithInvalidGroup",
    "testOffsetDeleteWithInvalidGroupWithTopLevelError", "testDescribeTransactions",
    "testDescribeTransactionsFiltersUnauthorizedTopics", "testListTransactionsErrorResponse",
    "testListTransactionsAuthorization",
}

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/KafkaApisTest.scala",
    cases=CASES,
    not_applicable=NOT_APPLICABLE,
    not_ported={case: _NOT_PORTED for case in CASES if case not in NOT_APPLICABLE and case not in PORTED},
)

BROKER_ID = 1
CLUSTER_ID = "clusterId"
CLIENT_ID = ""
PLAINTEXT = "PLAINTEXT"
ZERO_UUID = uuid.UUID(int=0)
DENIED, ALLOWED = AuthorizationResult.DENIED, AuthorizationResult.ALLOWED


# -- the world a case builds (KafkaApisTest's fields and createKafkaApis) ---------------------------------------------


class RecordingRequestChannel:
    """The mocked RequestChannel: what was sent, closed, or answered with nothing. `fail_next_sends` makes that
    many send_response calls raise first (Mockito's thenAnswer { throw ... })."""

    def __init__(self) -> None:
        self.sent: list[tuple[Request, Any]] = []
        self.closed: list[Request] = []
        self.no_op: list[Request] = []
        self.fail_next_sends = 0

    def send_response(self, request: Request, body: Any = None, on_complete: Any = None) -> None:
        if self.fail_next_sends:
            self.fail_next_sends -= 1
            raise Exception("Something went wrong")
        self.sent.append((request, body))

    def close_connection(self, request: Request, error_counts: Any = None) -> None:
        self.closed.append(request)

    def send_no_op_response(self, request: Request) -> None:
        self.no_op.append(request)


class Authorizer:
    """authorizeResource(authorizer, ...): an answer per (operation, resource type, name); `default` for the rest
    (Kafka's `any[util.List[Action]]` stubs)."""

    def __init__(self, default: AuthorizationResult | None = None) -> None:
        self.rules: dict[tuple[str, str, str], AuthorizationResult] = {}
        self.default = default
        self.calls: list[Any] = []

    def allow(self, operation: str, resource_type: str, name: str,
              result: AuthorizationResult = ALLOWED) -> Authorizer:
        self.rules[(operation, resource_type, name)] = result
        return self

    def authorize(self, context: Any, actions: list[Any]) -> list[AuthorizationResult]:
        self.calls.extend(actions)
        results = []
        for action in actions:
            result = self.rules.get((action.operation, action.resource_type, action.resource_name), self.default)
            if result is None:
                raise AssertionError(f"unexpected authorization of {action}")
            results.append(result)
        return results


class TxnCoordinator:
    """3.9's TransactionCoordinator methods the handlers call (a Mockito mock in Kafka's test)."""

    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int,
                                producer_id_and_epoch: Any, response_callback: Callable[[Any], None],
                                request_local: Any = None) -> None: ...

    def handle_add_partitions_to_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                             partitions: Any, response_callback: Callable[[Any], None],
                                             request_local: Any = None) -> None: ...

    def handle_verify_partitions_in_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                                partitions: Any, response_callback: Callable[[Any], None]) -> None: ...

    def handle_end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                               txn_marker_result: Any, response_callback: Callable[[Any], None],
                               request_local: Any = None) -> None: ...

    def handle_list_transactions(self, filtered_producer_ids: Any, filtered_states: Any,
                                 filtered_duration: int = -1) -> Any: ...

    def handle_describe_transactions(self, transactional_id: str) -> Any: ...

    def partition_for(self, transactional_id: str) -> int: ...


class Env:
    def __init__(self) -> None:
        self.request_channel = RecordingRequestChannel()
        self.replica_manager = mock.MagicMock(name="replicaManager")
        self.group_coordinator = mock.MagicMock(name="groupCoordinator")
        self.txn_coordinator = mock.create_autospec(TxnCoordinator, instance=True)
        self.forwarding_manager = mock.MagicMock(name="forwardingManager")
        self.auto_topic_creation_manager = mock.MagicMock(name="autoTopicCreationManager")
        self.fetch_manager = mock.MagicMock(name="fetchManager")
        self.metadata_cache: Any = KRaftMetadataCache(BROKER_ID)
        self.time = MockTime()

    def create_kafka_apis(self, authorizer: Any = None, overrides: dict[str, Any] | None = None,
                          config_repository: Any = None) -> KafkaApis:
        props: dict[str, Any] = {"process.roles": "broker", "node.id": BROKER_ID,
                                 "controller.quorum.voters": f"{BROKER_ID + 1}@localhost:9093",
                                 "controller.listener.names": "SSL", "listeners": "PLAINTEXT://localhost:9092",
                                 "log.dirs": "/tmp/kafka-apis-test"}
        props.update(overrides or {})
        config = KafkaConfig(props, do_log=False)
        return KafkaApis(self.request_channel, self.forwarding_manager, self.replica_manager, self.group_coordinator,
                         self.txn_coordinator, self.auto_topic_creation_manager, BROKER_ID, config,
                         self.metadata_cache, authorizer, self.fetch_manager, CLUSTER_ID,
                         broker_listener_api_version_manager(), self.time, config_repository=config_repository)

    # addTopicToMetadataCache / createBasicMetadataRequest: brokers 0..n-1 on PLAINTEXT ("broker<id>":9092), every
    # partition led by broker 0 at leader epoch 1
    def add_topic_to_metadata_cache(self, topic: str, num_partitions: int, num_brokers: int = 1,
                                    topic_id: uuid.UUID | None = None) -> uuid.UUID:
        topic_id = topic_id or uuid.uuid4()
        self.replay([register_broker(b, [(PLAINTEXT, f"broker{b}", 9092)]) for b in range(num_brokers)]
                    + [TopicRecord(name=topic, topic_id=topic_id)]
                    + [PartitionRecord(partition_id=p, topic_id=topic_id, replicas=(0,), isr=(0,), removing_replicas=(),
                                       adding_replicas=(), leader=0, leader_epoch=1, partition_epoch=0)
                       for p in range(num_partitions)])
        return topic_id

    def replay(self, records: Iterable[Any]) -> None:
        delta = MetadataDelta.Builder().set_image(self.metadata_cache.current_image()).build()
        for record in records:
            delta.replay(record)
        self.metadata_cache.set_image(delta.apply(MetadataProvenance(100, 10, 1000)))


def register_broker(broker_id: int, endpoints: list[tuple[str, str, int]]) -> RegisterBrokerRecord:
    return RegisterBrokerRecord(broker_id=broker_id, incarnation_id=uuid.uuid4(), broker_epoch=0,
                                end_points=tuple(BrokerEndpoint(name=n, host=h, port=p, security_protocol=0)
                                                 for n, h, p in endpoints),
                                features=(), rack="rack", fenced=False, in_controlled_shutdown=False, log_dirs=())


@pytest.fixture
def env() -> Env:
    return Env()


def build_request(api_key: ApiKeys, version: int, listener_name: str = PLAINTEXT, **fields: Any) -> Request:
    """buildRequest: the request serialized with its header and read back as the network thread reads it."""
    body = build_body(api_key.request_schema(version), **fields)
    buffer = encode_request(api_key, version, 0, CLIENT_ID, body)
    context = RequestContext(RequestHeader.parse(buffer), "1", "127.0.0.1", None, KafkaPrincipal("User", "Alice"),
                             ListenerName(listener_name), SecurityProtocol.SSL, ClientInformation.EMPTY, False)
    return Request(1, context, 0, memory_pools.NONE, buffer, None)


def build_body(schema: type[Any], **fields: Any) -> Any:
    """build(schema, **fields) with the message's defaults for the top-level fields a case does not set."""
    for f in dataclasses.fields(schema):
        if f.name not in fields and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            fields[f.name] = _default_of(f)
    return build(schema, **fields)


def _default_of(f: dataclasses.Field[Any]) -> Any:
    kind = classify_field(f)
    if isinstance(kind, (EntityTupleField, PrimitiveTupleField)):
        return []
    type_ = getattr(kind, "type_", None)
    if isinstance(type_, type) and issubclass(type_, bool):
        return False
    if isinstance(type_, type) and issubclass(type_, str):
        return ""
    if isinstance(type_, type) and issubclass(type_, bytes):
        return b""
    if isinstance(type_, type) and issubclass(type_, uuid.UUID):
        return ZERO_UUID
    return 0


def latest(api_key: ApiKeys) -> int:
    return api_key.latest_version


def verify_no_throttling(env: Env, request: Request) -> Any:
    """The one response sent for `request`, as the client reads it off the wire."""
    bodies = [body for req, body in env.request_channel.sent if req is request]
    assert len(bodies) == 1, f"expected one response, got {len(bodies)}"
    return wire(request, bodies[0])


def wire(request: Request, body: Any) -> Any:
    """A response body as it reads back off the wire at the request's version."""
    version = request.context.api_version()
    frame = encode_response(request.header.api_key, version, 0, body)
    return decode_response(request.header.api_key, version, frame).body


def completed(value: Any) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_result(value)
    return future


def records(*values: bytes, timestamp: int | None = None) -> bytes:
    simple = [SimpleRecord(v, timestamp=timestamp) if timestamp is not None else SimpleRecord(v) for v in values]
    return bytes(MemoryRecords.with_records(COMPRESSION_NONE, *simple).buffer())


# -- DescribeConfigs --------------------------------------------------------------------------------------------------

TOPIC_RESOURCE, CLIENT_METRICS_RESOURCE = 2, 16  # ConfigResource.Type ids


def test_describe_configs_with_authorizer(env: Env) -> None:
    resource_name = "topic-1"
    # the one action authorized, and only once: anything else fails the authorizer
    authorizer = Authorizer().allow("DESCRIBE_CONFIGS", "TOPIC", resource_name)
    prop_name, prop_value = "min.insync.replicas", "3"
    config_repository = mock.MagicMock(name="configRepository")
    config_repository.topic_config.side_effect = lambda topic: {prop_name: prop_value} if topic == resource_name else {}
    env.add_topic_to_metadata_cache(resource_name, 1)  # metadataCache.contains(resourceName)

    request = build_request(ApiKeys.DESCRIBE_CONFIGS, latest(ApiKeys.DESCRIBE_CONFIGS), include_synonyms=True,
                            resources=[dict(resource_name=resource_name, resource_type=TOPIC_RESOURCE,
                                            configuration_keys=None)])
    env.create_kafka_apis(authorizer=authorizer, config_repository=config_repository) \
        .handle_describe_configs_request(request)

    assert [(a.operation, a.resource_type, a.resource_name, a.resource_reference_count, a.log_if_allowed,
             a.log_if_denied) for a in authorizer.calls] == [("DESCRIBE_CONFIGS", "TOPIC", resource_name, 1, True,
                                                              True)]
    response = verify_no_throttling(env, request)
    results = response.results
    assert len(results) == 1
    describe_configs_result = results[0]
    assert describe_configs_result.resource_type == TOPIC_RESOURCE
    assert describe_configs_result.resource_name == resource_name
    configs = [c for c in describe_configs_result.configs if c.name == prop_name]
    assert len(configs) == 1
    describe_configs_response_data = configs[0]
    assert describe_configs_response_data.name == prop_name
    assert describe_configs_response_data.value == prop_value


def test_describe_configs_client_metrics(env: Env) -> None:
    subscription_name = "client_metric_subscription_1"
    authorizer = Authorizer().allow("DESCRIBE_CONFIGS", "CLUSTER", "kafka-cluster")
    # ClientMetricsTestUtils.defaultProperties
    cm_configs = {"metrics": "org.apache.kafka.client.producer.partition.queue.,"
                             "org.apache.kafka.client.producer.partition.latency",
                  "interval.ms": "30000",
                  "match": "client_instance_id=b69cc35a-7a54-4790-aa69-cc2bd4ee4538,client_id=1,"
                           "client_software_name=apache-kafka-java,client_software_version=2.8.0-SNAPSHOT,"
                           "client_source_address=127.0.0.1,client_source_port=1234"}
    config_repository = mock.MagicMock(name="configRepository")
    config_repository.config.side_effect = lambda resource: (
        cm_configs if resource == (CLIENT_METRICS_RESOURCE, subscription_name) else {})

    request = build_request(ApiKeys.DESCRIBE_CONFIGS, latest(ApiKeys.DESCRIBE_CONFIGS), include_synonyms=True,
                            resources=[dict(resource_name=subscription_name, resource_type=CLIENT_METRICS_RESOURCE,
                                            configuration_keys=None)])
    env.create_kafka_apis(authorizer=authorizer, config_repository=config_repository) \
        .handle_describe_configs_request(request)

    response = verify_no_throttling(env, request)
    assert len(authorizer.calls) == 1  # authorize is called once
    results = response.results
    assert len(results) == 1
    describe_configs_result = results[0]
    assert describe_configs_result.resource_type == CLIENT_METRICS_RESOURCE
    assert describe_configs_result.resource_name == subscription_name
    assert len(describe_configs_result.configs) == len(cm_configs)


# -- forwarding and the handlers a KRaft broker never runs --------------------------------------------------------


def _test_forwardable_api(env: Env, api_key: ApiKeys, **fields: Any) -> None:
    kafka_apis = env.create_kafka_apis()
    request = build_request(api_key, latest(api_key), **fields)
    kafka_apis.handle(request, None)
    env.forwarding_manager.forward_request.assert_called_once()
    forwarded, forward_callback = env.forwarding_manager.forward_request.call_args.args
    assert forwarded is request
    from kafka_edu.v3_9.core.server.kafka_apis import get_error_response
    expected_response = get_error_response(request, 0, error_exception(Errors.NOT_CONTROLLER))
    forward_callback(expected_response, Errors.NONE)
    assert verify_no_throttling(env, request) == wire(request, expected_response)


def test_create_topics_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.CREATE_TOPICS, topics=[dict(name="topic", num_partitions=1,
                                                                   replication_factor=1, assignments=[],
                                                                   configs=[])], timeout=1000)


def test_describe_quorum_forwarded_for_k_raft_clusters(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.DESCRIBE_QUORUM, topics=[dict(topic_name="__cluster_metadata", partitions=[
        dict(partition_index=0)])])


def test_create_partitions_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.CREATE_PARTITIONS, topics=[dict(name="topic", count=2, assignments=None)],
                          timeout=1000, validate_only=False)


def test_delete_topics_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.DELETE_TOPICS, topics=[dict(name="topic", topic_id=ZERO_UUID)],
                          timeout=1000)


def _verify_should_never_handle_error_message(env: Env, handler: Callable[[Request], None]) -> None:
    request = build_request(ApiKeys.METADATA, latest(ApiKeys.METADATA), topics=None)
    with pytest.raises(UnsupportedVersionException) as e:
        handler(request)
    assert str(e.value) == str(should_never_receive(request))


def _verify_should_always_forward_error_message(env: Env, handler: Callable[[Request], None]) -> None:
    request = build_request(ApiKeys.METADATA, latest(ApiKeys.METADATA), topics=None)
    with pytest.raises(UnsupportedVersionException) as e:
        handler(request)
    assert str(e.value) == str(should_always_forward(request))


def test_raft_should_never_handle_leader_and_isr_request(env: Env) -> None:
    _verify_should_never_handle_error_message(env, env.create_kafka_apis().handle_leader_and_isr_request)


def test_raft_should_never_handle_stop_replica_request(env: Env) -> None:
    _verify_should_never_handle_error_message(env, env.create_kafka_apis().handle_stop_replica_request)


def test_raft_should_never_handle_update_metadata_request(env: Env) -> None:
    kafka_apis = env.create_kafka_apis()
    _verify_should_never_handle_error_message(env, lambda r: kafka_apis.handle_update_metadata_request(r, None))


def test_raft_should_never_handle_controlled_shutdown_request(env: Env) -> None:
    _verify_should_never_handle_error_message(env, env.create_kafka_apis().handle_controlled_shutdown_request)


def test_raft_should_never_handle_alter_partition_request(env: Env) -> None:
    _verify_should_never_handle_error_message(env, env.create_kafka_apis().handle_alter_partition_request)


def test_raft_should_never_handle_envelope(env: Env) -> None:
    kafka_apis = env.create_kafka_apis()
    _verify_should_never_handle_error_message(env, lambda r: kafka_apis.handle_envelope(r, None))


def test_raft_should_always_forward_create_topics_request(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_create_topics_request)


def test_raft_should_always_forward_create_partitions_request(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_create_partitions_request)


def test_raft_should_always_forward_delete_topics_request(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_delete_topics_request)


# -- part B (issue 24): ACLs ------------------------------------------------------------------------------------------

def test_create_acl_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.CREATE_ACLS, creations=[dict(
        resource_type=2, resource_name="topic", resource_pattern_type=3, principal="User:bob", host="*",
        operation=3, permission_type=3)])


def test_delete_acl_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.DELETE_ACLS, filters=[dict(
        resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
        host_filter=None, operation=1, permission_type=1)])


def test_raft_should_always_forward_create_acls(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_create_acls)


def test_raft_should_always_forward_delete_acls(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_delete_acls)


# -- part C (issue 24): elections, reassignments, producers --------------------------------------------------------


def test_elect_leaders_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.ELECT_LEADERS, election_type=0, topic_partitions=None, timeout=30000)


def test_alter_partition_reassignments_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, timeout=60000, topics=[])


def test_raft_should_always_forward_alter_partition_reassignments_request(env: Env) -> None:
    _verify_should_always_forward_error_message(
        env, env.create_kafka_apis().handle_alter_partition_reassignments_request)


def test_raft_should_always_forward_elect_leaders(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_elect_leaders)


def test_raft_should_always_forward_list_partition_reassignments(env: Env) -> None:
    _verify_should_always_forward_error_message(
        env, env.create_kafka_apis().handle_list_partition_reassignments_request)


def test_describe_producers(env: Env) -> None:
    from kio.schema.describe_producers.v0 import response as describe_producers_response
    tp1, tp2, tp3, tp4 = (TopicPartition("foo", 0), TopicPartition("bar", 3), TopicPartition("baz", 1),
                          TopicPartition("invalid;topic", 1))
    authorizer = Authorizer()
    # foo: authorized and in the metadata; bar: not authorized; baz: authorized, not in the metadata
    env.add_topic_to_metadata_cache(tp1.topic, 4)
    authorizer.allow("READ", "TOPIC", tp1.topic)
    authorizer.allow("READ", "TOPIC", tp2.topic, AuthorizationResult.DENIED)
    authorizer.allow("READ", "TOPIC", tp3.topic)
    now = env.time.milliseconds()
    env.replica_manager.active_producer_state.side_effect = lambda tp: build(
        describe_producers_response.PartitionResponse, error_code=Errors.NONE, partition_index=tp.partition,
        error_message=None, active_producers=[dict(producer_id=12345, producer_epoch=15, last_sequence=100,
                                                   last_timestamp=now, current_txn_start_offset=-1,
                                                   coordinator_epoch=200)]) if tp == tp1 else None
    request = build_request(ApiKeys.DESCRIBE_PRODUCERS, latest(ApiKeys.DESCRIBE_PRODUCERS), topics=[
        dict(name=tp.topic, partition_indexes=[tp.partition]) for tp in (tp1, tp2, tp3, tp4)])
    env.create_kafka_apis(authorizer=authorizer).handle_describe_producers_request(request)

    response = verify_no_throttling(env, request)
    assert {t.name for t in response.topics} == {"foo", "bar", "baz", "invalid;topic"}

    def assert_partition_error(tp: TopicPartition, error: Errors) -> Any:
        topic_data = next(t for t in response.topics if t.name == tp.topic)
        partition_data = next(p for p in topic_data.partitions if p.partition_index == tp.partition)
        assert Errors.for_code(partition_data.error_code) == error
        return partition_data

    foo_partition = assert_partition_error(tp1, Errors.NONE)
    assert len(foo_partition.active_producers) == 1
    foo_producer = foo_partition.active_producers[0]
    assert foo_producer.producer_id == 12345
    assert foo_producer.producer_epoch == 15
    assert foo_producer.last_sequence == 100
    assert foo_producer.last_timestamp == now
    assert foo_producer.current_txn_start_offset == -1
    assert foo_producer.coordinator_epoch == 200
    assert_partition_error(tp2, Errors.TOPIC_AUTHORIZATION_FAILED)
    assert_partition_error(tp3, Errors.UNKNOWN_TOPIC_OR_PARTITION)
    assert_partition_error(tp4, Errors.INVALID_TOPIC_EXCEPTION)


# -- FindCoordinator ----------------------------------------------------------------------------------------------

GROUP, TRANSACTION, SHARE = 0, 1, 2


def _test_find_coordinator_with_topic_creation(env: Env, coordinator_type: int, has_enough_live_brokers: bool = True,
                                               check_auto_create_topic: bool = True,
                                               version: int = latest(ApiKeys.FIND_COORDINATOR)) -> None:
    authorizer = Authorizer()
    num_brokers_needed = 3
    env.add_topic_to_metadata_cache("some-topic", 1,
                                    num_brokers_needed if has_enough_live_brokers else num_brokers_needed - 1)
    group_id = "group"
    overrides: dict[str, Any] = {"request.timeout.ms": "10"}
    if coordinator_type == GROUP:
        overrides.update({"offsets.topic.num.partitions": str(num_brokers_needed),
                          "offsets.topic.replication.factor": str(num_brokers_needed)})
        authorizer.allow("DESCRIBE", "GROUP", group_id)
        topic_name = Topic.GROUP_METADATA_TOPIC_NAME
        env.group_coordinator.partition_for.return_value = 0
    elif coordinator_type == TRANSACTION:
        overrides.update({"transaction.state.log.num.partitions": str(num_brokers_needed),
                          "transaction.state.log.replication.factor": str(num_brokers_needed)})
        authorizer.allow("DESCRIBE", "TRANSACTIONAL_ID", group_id)
        topic_name = Topic.TRANSACTION_STATE_TOPIC_NAME
        env.txn_coordinator.partition_for.return_value = 0
    else:
        authorizer.allow("CLUSTER_ACTION", "CLUSTER", "kafka-cluster")
        topic_name = Topic.SHARE_GROUP_STATE_TOPIC_NAME

    if version >= 4:
        request = build_request(ApiKeys.FIND_COORDINATOR, version, key_type=coordinator_type,
                                coordinator_keys=(group_id,))
    else:
        request = build_request(ApiKeys.FIND_COORDINATOR, version, key_type=coordinator_type, key=group_id)
    env.auto_topic_creation_manager.create_topics.return_value = {topic_name: Errors.UNKNOWN_TOPIC_OR_PARTITION}
    kafka_apis = env.create_kafka_apis(authorizer=authorizer, overrides=overrides)
    kafka_apis.handle_find_coordinator_request(request)

    response = verify_no_throttling(env, request)
    if coordinator_type == SHARE and version < 6:
        assert response.coordinators[0].error_code == Errors.INVALID_REQUEST
    elif version >= 4:
        assert response.coordinators[0].error_code == Errors.COORDINATOR_NOT_AVAILABLE
        assert response.coordinators[0].key == group_id
    else:
        assert response.error_code == Errors.COORDINATOR_NOT_AVAILABLE
    if check_auto_create_topic:
        # (3.9 also checks the manager got no request context: this port's manager takes the topic names only)
        env.auto_topic_creation_manager.create_topics.assert_called_once_with({topic_name})


def test_find_coordinator_auto_topic_creation_for_offset_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, GROUP)


def test_find_coordinator_auto_topic_creation_for_txn_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, TRANSACTION)


def test_find_coordinator_not_enough_brokers_for_offset_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, GROUP, has_enough_live_brokers=False)


def test_find_coordinator_not_enough_brokers_for_txn_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, TRANSACTION, has_enough_live_brokers=False)


def test_old_find_coordinator_auto_topic_creation_for_offset_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, GROUP, version=3)


def test_old_find_coordinator_auto_topic_creation_for_txn_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, TRANSACTION, version=3)


def test_old_find_coordinator_not_enough_brokers_for_offset_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, GROUP, has_enough_live_brokers=False, version=3)


def test_old_find_coordinator_not_enough_brokers_for_txn_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, TRANSACTION, has_enough_live_brokers=False, version=3)


def test_find_coordinator_too_old_for_share_state_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, SHARE, check_auto_create_topic=False, version=5)


def test_find_coordinator_no_share_coordinator_for_share_state_topic(env: Env) -> None:
    _test_find_coordinator_with_topic_creation(env, SHARE, check_auto_create_topic=False)


# -- Metadata -----------------------------------------------------------------------------------------------------


def _test_metadata_auto_topic_creation(env: Env, topic_name: str, enable_auto_topic_creation: bool,
                                       expected_error: Errors) -> None:
    authorizer = Authorizer()
    num_brokers_needed = 3
    env.add_topic_to_metadata_cache("some-topic", 1, 3)
    authorizer.allow("DESCRIBE", "TOPIC", topic_name)
    if enable_auto_topic_creation:
        authorizer.allow("CREATE", "CLUSTER", "kafka-cluster")
    overrides: dict[str, Any] = {}
    is_internal = topic_name in (Topic.GROUP_METADATA_TOPIC_NAME, Topic.TRANSACTION_STATE_TOPIC_NAME)
    if topic_name == Topic.GROUP_METADATA_TOPIC_NAME:
        overrides.update({"offsets.topic.num.partitions": str(num_brokers_needed),
                          "offsets.topic.replication.factor": str(num_brokers_needed)})
    elif topic_name == Topic.TRANSACTION_STATE_TOPIC_NAME:
        overrides.update({"transaction.state.log.num.partitions": str(num_brokers_needed),
                          "transaction.state.log.replication.factor": str(num_brokers_needed)})
    else:
        overrides.update({"num.partitions": str(num_brokers_needed),
                          "default.replication.factor": str(num_brokers_needed)})
    request = build_request(ApiKeys.METADATA, latest(ApiKeys.METADATA),
                            topics=[dict(name=topic_name, topic_id=ZERO_UUID)],
                            allow_auto_topic_creation=enable_auto_topic_creation,
                            include_topic_authorized_operations=False)
    if enable_auto_topic_creation:
        env.auto_topic_creation_manager.create_topics.return_value = {topic_name: Errors.UNKNOWN_TOPIC_OR_PARTITION}
    kafka_apis = env.create_kafka_apis(authorizer=authorizer, overrides=overrides)
    kafka_apis.handle_topic_metadata_request(request)

    response = verify_no_throttling(env, request)
    assert [(t.error_code, t.name, t.is_internal, t.partitions) for t in response.topics] == [
        (expected_error, topic_name, is_internal, ())]
    if enable_auto_topic_creation:
        # (3.9 also checks the request context handed over: this port's manager takes the topic names only)
        env.auto_topic_creation_manager.create_topics.assert_called_once_with({topic_name})


def test_metadata_auto_topic_creation_for_offset_topic(env: Env) -> None:
    _test_metadata_auto_topic_creation(env, Topic.GROUP_METADATA_TOPIC_NAME, True, Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_metadata_auto_topic_creation_for_txn_topic(env: Env) -> None:
    _test_metadata_auto_topic_creation(env, Topic.TRANSACTION_STATE_TOPIC_NAME, True,
                                       Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_metadata_auto_topic_creation_for_non_internal_topic(env: Env) -> None:
    _test_metadata_auto_topic_creation(env, "topic", True, Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_metadata_auto_topic_creation_disabled_for_offset_topic(env: Env) -> None:
    _test_metadata_auto_topic_creation(env, Topic.GROUP_METADATA_TOPIC_NAME, False,
                                       Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_metadata_auto_topic_creation_disabled_for_txn_topic(env: Env) -> None:
    _test_metadata_auto_topic_creation(env, Topic.TRANSACTION_STATE_TOPIC_NAME, False,
                                       Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_metadata_auto_topic_creation_disabled_for_non_internal_topic(env: Env) -> None:
    _test_metadata_auto_topic_creation(env, "topic", False, Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_metadata_auto_creation_disabled_for_non_internal(env: Env) -> None:
    _test_metadata_auto_topic_creation(env, "topic", True, Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_invalid_metadata_request_returns_error(env: Env) -> None:
    # each invalid MetadataRequestTopic on its own; versions 10 and 11 cannot name a topic by id or leave it nameless
    topics = [dict(name=None, topic_id=uuid.uuid4()), dict(name=None, topic_id=ZERO_UUID),
              dict(name=None, topic_id=uuid.uuid4()), dict(name="topic1", topic_id=uuid.uuid4())]
    for version in (10, 11):
        for topic in topics:
            env.request_channel.sent.clear()
            request = build_request(ApiKeys.METADATA, version, topics=[topic], allow_auto_topic_creation=True,
                                    include_cluster_authorized_operations=False,
                                    include_topic_authorized_operations=False)
            kafka_apis = env.create_kafka_apis()
            kafka_apis.handle(request, None)
            response = verify_no_throttling(env, request)
            assert len(response.topics) == 1
            assert [t.error_code for t in response.topics].count(Errors.INVALID_REQUEST) == 1
            assert all(t.name is not None for t in response.topics)
            kafka_apis.close()


def _update_metadata_cache_with_inconsistent_listeners(env: Env) -> tuple[str, str]:
    another_listener = "LISTENER2"
    env.replay([register_broker(0, [(PLAINTEXT, "broker0", 9092), (another_listener, "broker0", 9093)]),
                register_broker(1, [(PLAINTEXT, "broker1", 9092)])])
    return PLAINTEXT, another_listener


def _send_metadata_request_with_inconsistent_listeners(env: Env, listener: str) -> Any:
    request = build_request(ApiKeys.METADATA, latest(ApiKeys.METADATA), listener_name=listener, topics=None,
                            allow_auto_topic_creation=True, include_topic_authorized_operations=False)
    env.create_kafka_apis().handle_topic_metadata_request(request)
    return verify_no_throttling(env, request)


def test_metadata_request_on_shared_listener_with_inconsistent_listeners_across_brokers(env: Env) -> None:
    plaintext_listener, _ = _update_metadata_cache_with_inconsistent_listeners(env)
    response = _send_metadata_request_with_inconsistent_listeners(env, plaintext_listener)
    assert {b.node_id for b in response.brokers} == {0, 1}


def test_metadata_request_on_distinct_listener_with_inconsistent_listeners_across_brokers(env: Env) -> None:
    _, another_listener = _update_metadata_cache_with_inconsistent_listeners(env)
    response = _send_metadata_request_with_inconsistent_listeners(env, another_listener)
    assert {b.node_id for b in response.brokers} == {0}


def test_get_all_topic_metadata_should_not_create_topic_or_return_unknown_topic_partition(env: Env) -> None:
    # two topics are returned for authorization, but one is deleted before the partitions are looked up
    class _Cache(KRaftMetadataCache):
        def get_all_topics(self) -> set[str]:
            return {"remaining-topic", "later-deleted-topic"}

    env.metadata_cache = _Cache(BROKER_ID)
    env.add_topic_to_metadata_cache("remaining-topic", 1)
    request_listener, _ = _update_metadata_cache_with_inconsistent_listeners(env)
    response = _send_metadata_request_with_inconsistent_listeners(env, request_listener)
    env.auto_topic_creation_manager.create_topics.assert_not_called()
    assert [t.name for t in response.topics] == ["remaining-topic"]
    assert not [t for t in response.topics if t.error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION]


def test_unauthorized_topic_metadata_request(env: Env) -> None:
    # 1. a topic the client may describe and one it may not, both known by id
    authorized_topic, unauthorized_topic = "authorized-topic", "unauthorized-topic"
    authorized_topic_id = env.add_topic_to_metadata_cache(authorized_topic, 1)
    unauthorized_topic_id = env.add_topic_to_metadata_cache(unauthorized_topic, 1)
    authorizer = Authorizer()
    authorizer.allow("DESCRIBE", "TOPIC", authorized_topic).allow("DESCRIBE", "TOPIC", unauthorized_topic, DENIED)

    # 2. by topic id: the unauthorized topic's id is answered TOPIC_AUTHORIZATION_FAILED, without its name
    request_by_id = build_request(ApiKeys.METADATA, latest(ApiKeys.METADATA), topics=[
        dict(name=None, topic_id=authorized_topic_id), dict(name=None, topic_id=unauthorized_topic_id)],
        allow_auto_topic_creation=True, include_topic_authorized_operations=False)
    env.create_kafka_apis(authorizer=authorizer).handle_topic_metadata_request(request_by_id)
    by_topic_id = {t.topic_id: t for t in verify_no_throttling(env, request_by_id).topics}
    assert by_topic_id[unauthorized_topic_id].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    assert by_topic_id[unauthorized_topic_id].name is None
    assert by_topic_id[authorized_topic_id].error_code == Errors.NONE
    assert by_topic_id[authorized_topic_id].name == authorized_topic

    # 3. by name: no topic id for the unauthorized one
    request_by_name = build_request(ApiKeys.METADATA, latest(ApiKeys.METADATA), topics=[
        dict(name=authorized_topic, topic_id=ZERO_UUID), dict(name=unauthorized_topic, topic_id=ZERO_UUID)],
        allow_auto_topic_creation=False, include_topic_authorized_operations=False)
    env.create_kafka_apis(authorizer=authorizer).handle_topic_metadata_request(request_by_name)
    by_name = {t.name: t for t in verify_no_throttling(env, request_by_name).topics}
    assert by_name[unauthorized_topic].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    assert (by_name[unauthorized_topic].topic_id or ZERO_UUID) == ZERO_UUID  # the zero id reads back as None
    assert by_name[authorized_topic].error_code == Errors.NONE
    assert by_name[authorized_topic].topic_id == authorized_topic_id


# -- OffsetCommit -------------------------------------------------------------------------------------------------


def _offset_commit_request(topics: list[tuple[str, list[tuple[int, int]]]], group_id: str = "group",
                           member_id: str = "member", version: int = latest(ApiKeys.OFFSET_COMMIT)) -> Request:
    return build_request(ApiKeys.OFFSET_COMMIT, version, group_id=group_id, member_id=member_id,
                         generation_id_or_member_epoch=-1, retention_time=-1, group_instance_id=None, topics=[
                             dict(name=name, partitions=[dict(partition_index=p, committed_offset=o,
                                                              committed_leader_epoch=-1, committed_metadata=None)
                                                         for p, o in partitions]) for name, partitions in topics])


def _commit_response(topics: list[tuple[str, list[tuple[int, Errors]]]]) -> dict[str, Any]:
    return dict(topics=[dict(name=name, partitions=[dict(partition_index=p, error_code=e) for p, e in partitions])
                        for name, partitions in topics])


def _as_pairs(response: Any) -> list[tuple[str, list[tuple[int, int]]]]:
    return [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in response.topics]


def test_handle_offset_commit_request(env: Env) -> None:
    env.add_topic_to_metadata_cache("foo", num_partitions=1)
    request = _offset_commit_request([("foo", [(0, 10)])])
    future: Future[Any] = Future()
    env.group_coordinator.commit_offsets.return_value = future
    env.create_kafka_apis().handle(request, None)
    context, sent, _ = env.group_coordinator.commit_offsets.call_args.args
    assert context is request.context
    assert [(t.name, [(p.partition_index, p.committed_offset) for p in t.partitions]) for t in sent.topics] == [
        ("foo", [(0, 10)])]
    future.set_result(_commit_response([("foo", [(0, Errors.NONE)])]))
    assert _as_pairs(verify_no_throttling(env, request)) == [("foo", [(0, Errors.NONE)])]


def test_handle_offset_commit_request_future_failed(env: Env) -> None:
    env.add_topic_to_metadata_cache("foo", num_partitions=1)
    request = _offset_commit_request([("foo", [(0, 10)])])
    future: Future[Any] = Future()
    env.group_coordinator.commit_offsets.return_value = future
    env.create_kafka_apis().handle(request, None)
    future.set_exception(error_exception(Errors.NOT_COORDINATOR))
    assert _as_pairs(verify_no_throttling(env, request)) == [("foo", [(0, Errors.NOT_COORDINATOR)])]


def test_handle_offset_commit_request_topics_and_partitions_validation(env: Env) -> None:
    env.add_topic_to_metadata_cache("foo", num_partitions=2)
    env.add_topic_to_metadata_cache("bar", num_partitions=2)
    request = _offset_commit_request([("foo", [(0, 10), (1, 20), (2, 30)]), ("bar", [(0, 40), (1, 50)]),
                                      ("zar", [(0, 60), (1, 70)])])
    future: Future[Any] = Future()
    env.group_coordinator.commit_offsets.return_value = future
    env.create_kafka_apis().handle(request, None)
    _, sent, _ = env.group_coordinator.commit_offsets.call_args.args
    # the coordinator is asked for the partitions that exist only
    assert [(t.name, [(p.partition_index, p.committed_offset) for p in t.partitions]) for t in sent.topics] == [
        ("foo", [(0, 10), (1, 20)]), ("bar", [(0, 40), (1, 50)])]
    future.set_result(_commit_response([("foo", [(0, Errors.NONE), (1, Errors.NONE)]),
                                        ("bar", [(0, Errors.NONE), (1, Errors.NONE)])]))
    # the partitions failing validation come first
    assert _as_pairs(verify_no_throttling(env, request)) == [
        ("foo", [(2, Errors.UNKNOWN_TOPIC_OR_PARTITION), (0, Errors.NONE), (1, Errors.NONE)]),
        ("zar", [(0, Errors.UNKNOWN_TOPIC_OR_PARTITION), (1, Errors.UNKNOWN_TOPIC_OR_PARTITION)]),
        ("bar", [(0, Errors.NONE), (1, Errors.NONE)])]


def test_offset_commit_with_invalid_partition(env: Env) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=1)
    for invalid_partition_id in (-1, 1):
        env.request_channel.sent.clear()
        request = _offset_commit_request([(topic, [(invalid_partition_id, 15)])], group_id="groupId", member_id="")
        env.create_kafka_apis().handle_offset_commit_request(request, None)
        assert _as_pairs(verify_no_throttling(env, request)) == [
            (topic, [(invalid_partition_id, Errors.UNKNOWN_TOPIC_OR_PARTITION)])]


# -- Produce ------------------------------------------------------------------------------------------------------


def _produce_request(version: int, tp: TopicPartition, partition_records: bytes, acks: int = 1,
                     transactional_id: str | None = None) -> Request:
    return build_request(ApiKeys.PRODUCE, version, transactional_id=transactional_id, acks=acks, timeout=5000,
                         topic_data=[dict(name=tp.topic, partition_data=[dict(index=tp.partition,
                                                                              records=partition_records)])])


def _answer_produce(env: Env, responses: dict[TopicPartition, PartitionResponse]) -> None:
    def handle_produce_append(**kwargs: Any) -> None:
        kwargs["response_callback"](responses)

    env.replica_manager.handle_produce_append.side_effect = handle_produce_append


def _only_partition_response(response: Any) -> Any:
    assert len(response.responses) == 1
    topic_produce_response = response.responses[0]
    assert len(topic_produce_response.partition_responses) == 1
    return topic_produce_response.partition_responses[0]


def test_should_replace_producer_fenced_with_invalid_producer_epoch_in_produce_response(env: Env) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=2)
    tp = TopicPartition("topic", 0)
    for version in range(ApiKeys.PRODUCE.oldest_version, ApiKeys.PRODUCE.latest_version + 1):
        env.replica_manager.reset_mock()
        request = _produce_request(version, tp, records(b"test"))
        _answer_produce(env, {tp: PartitionResponse(Errors.INVALID_PRODUCER_EPOCH)})
        kafka_apis = env.create_kafka_apis()
        kafka_apis.handle_produce_request(request, None)
        partition_produce_response = _only_partition_response(verify_no_throttling(env, request))
        assert partition_produce_response.error_code == Errors.INVALID_PRODUCER_EPOCH
        kafka_apis.close()


def test_produce_response_contains_new_leader_on_not_leader_or_follower(env: Env) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=2, num_brokers=3)
    tp = TopicPartition(topic, 0)
    new_leader_id, new_leader_epoch = 2, 5
    for version in range(10, ApiKeys.PRODUCE.latest_version + 1):
        env.replica_manager.reset_mock()
        request = _produce_request(version, tp, records(b"test"))
        _answer_produce(env, {tp: PartitionResponse(Errors.NOT_LEADER_OR_FOLLOWER)})
        partition = mock.MagicMock(name="partition")
        partition.leader_replica_id_opt = new_leader_id
        partition.get_leader_epoch.return_value = new_leader_epoch
        env.replica_manager.get_partition_or_error.side_effect = lambda t, p=partition: p
        env.create_kafka_apis().handle_produce_request(request, None)
        response = verify_no_throttling(env, request)
        partition_produce_response = _only_partition_response(response)
        assert partition_produce_response.error_code == Errors.NOT_LEADER_OR_FOLLOWER
        assert partition_produce_response.current_leader.leader_id == new_leader_id
        assert partition_produce_response.current_leader.leader_epoch == new_leader_epoch
        assert len(response.node_endpoints) == 1
        assert (response.node_endpoints[0].node_id, response.node_endpoints[0].host) == (2, "broker2")


def test_produce_response_replica_manager_lookup_error_on_not_leader_or_follower(env: Env) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=2, num_brokers=3)
    tp = TopicPartition(topic, 0)
    for version in range(10, ApiKeys.PRODUCE.latest_version + 1):
        env.replica_manager.reset_mock()
        request = _produce_request(version, tp, records(b"test"))
        _answer_produce(env, {tp: PartitionResponse(Errors.NOT_LEADER_OR_FOLLOWER)})
        env.replica_manager.get_partition_or_error.side_effect = lambda t: Errors.UNKNOWN_TOPIC_OR_PARTITION
        env.create_kafka_apis().handle_produce_request(request, None)
        response = verify_no_throttling(env, request)
        partition_produce_response = _only_partition_response(response)
        assert partition_produce_response.error_code == Errors.NOT_LEADER_OR_FOLLOWER
        # the leader and epoch the metadata cache has
        assert partition_produce_response.current_leader.leader_id == 0
        assert partition_produce_response.current_leader.leader_epoch == 1
        assert len(response.node_endpoints) == 1
        assert (response.node_endpoints[0].node_id, response.node_endpoints[0].host) == (0, "broker0")


def test_produce_response_metadata_lookup_error_on_not_leader_or_follower(env: Env) -> None:
    topic = "topic"
    tp = TopicPartition(topic, 0)
    env.metadata_cache = mock.create_autospec(KRaftMetadataCache, instance=True)
    env.metadata_cache.contains.side_effect = lambda t: True
    env.metadata_cache.get_partition_info.return_value = None
    env.metadata_cache.get_alive_broker_node.return_value = None
    env.metadata_cache.describe_topic_response = None
    for version in range(10, ApiKeys.PRODUCE.latest_version + 1):
        env.replica_manager.reset_mock()
        request = _produce_request(version, tp, records(b"test"))
        _answer_produce(env, {tp: PartitionResponse(Errors.NOT_LEADER_OR_FOLLOWER)})
        env.replica_manager.get_partition_or_error.side_effect = lambda t: Errors.UNKNOWN_TOPIC_OR_PARTITION
        env.create_kafka_apis().handle_produce_request(request, None)
        response = verify_no_throttling(env, request)
        partition_produce_response = _only_partition_response(response)
        assert partition_produce_response.error_code == Errors.NOT_LEADER_OR_FOLLOWER
        assert partition_produce_response.current_leader.leader_id == -1
        assert partition_produce_response.current_leader.leader_epoch == -1
        assert len(response.node_endpoints) == 0


def test_transactional_parameters_set_correctly(env: Env) -> None:
    topic, transactional_id = "topic", "txn1"
    env.add_topic_to_metadata_cache(topic, num_partitions=2)
    tp = TopicPartition("topic", 0)
    txn_records = bytes(MemoryRecords.with_transactional_records(COMPRESSION_NONE, 0, 0, 0,
                                                                 SimpleRecord(b"test")).buffer())
    for version in range(3, ApiKeys.PRODUCE.latest_version + 1):
        env.replica_manager.reset_mock()
        request = _produce_request(version, tp, txn_records, transactional_id=transactional_id)
        kafka_apis = env.create_kafka_apis()
        kafka_apis.handle_produce_request(request, None)
        kwargs = env.replica_manager.handle_produce_append.call_args.kwargs
        assert kwargs["internal_topics_allowed"] is False
        assert kwargs["transactional_id"] == transactional_id
        kafka_apis.close()


# -- InitProducerId -----------------------------------------------------------------------------------------------


def test_should_replace_producer_fenced_with_invalid_producer_epoch_in_init_producer_id_with_older_client(
        env: Env) -> None:
    env.add_topic_to_metadata_cache("topic", num_partitions=2)
    for version in range(ApiKeys.INIT_PRODUCER_ID.oldest_version, ApiKeys.INIT_PRODUCER_ID.latest_version + 1):
        env.txn_coordinator.reset_mock()
        env.request_channel.sent.clear()
        transactional_id = "txnId"
        producer_id = -1 if version < 3 else 15
        epoch = -1 if version < 3 else 0
        txn_timeout_ms = 15 * 60 * 1000
        request = build_request(ApiKeys.INIT_PRODUCER_ID, version, transactional_id=transactional_id,
                                transaction_timeout=txn_timeout_ms, producer_id=producer_id, producer_epoch=epoch)
        expected_producer_id_and_epoch = None if version < 3 else (producer_id, epoch)
        request_local = object()

        def handle_init_producer_id(tid: str, timeout: int, producer_id_and_epoch: Any, callback: Any,
                                    local: Any, producer_id: int = producer_id, epoch: int = epoch) -> None:
            callback(SimpleNamespace(producer_id=producer_id, producer_epoch=epoch, error=Errors.PRODUCER_FENCED))

        env.txn_coordinator.handle_init_producer_id.side_effect = handle_init_producer_id
        env.create_kafka_apis().handle_init_producer_id_request(request, request_local)
        args = env.txn_coordinator.handle_init_producer_id.call_args.args
        assert (args[0], args[1], args[2], args[4]) == (transactional_id, txn_timeout_ms,
                                                        expected_producer_id_and_epoch, request_local)
        response = verify_no_throttling(env, request)
        expected = Errors.INVALID_PRODUCER_EPOCH if version < 4 else Errors.PRODUCER_FENCED
        assert response.error_code == expected


def test_reject_init_producer_id_when_id_but_not_epoch_provided(env: Env) -> None:
    request = build_request(ApiKeys.INIT_PRODUCER_ID, latest(ApiKeys.INIT_PRODUCER_ID), transactional_id="known",
                            transaction_timeout=15 * 60 * 1000, producer_id=10, producer_epoch=-1)
    env.create_kafka_apis().handle_init_producer_id_request(request, None)
    assert verify_no_throttling(env, request).error_code == Errors.INVALID_REQUEST


def test_reject_init_producer_id_when_epoch_but_not_id_provided(env: Env) -> None:
    request = build_request(ApiKeys.INIT_PRODUCER_ID, latest(ApiKeys.INIT_PRODUCER_ID), transactional_id="known",
                            transaction_timeout=15 * 60 * 1000, producer_id=-1, producer_epoch=2)
    env.create_kafka_apis().handle_init_producer_id_request(request, None)
    assert verify_no_throttling(env, request).error_code == Errors.INVALID_REQUEST


# -- WriteTxnMarkers ----------------------------------------------------------------------------------------------


def _create_write_txn_markers_request(partitions: list[TopicPartition]) -> Request:
    return _write_txn_markers_request([(1, 1, 0, True, partitions)])


def _write_txn_markers_request(markers: list[tuple[int, int, int, bool, list[TopicPartition]]]) -> Request:
    def topics(partitions: list[TopicPartition]) -> list[dict[str, Any]]:
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        return [dict(name=name, partition_indexes=tuple(indexes)) for name, indexes in by_topic.items()]

    return build_request(ApiKeys.WRITE_TXN_MARKERS, latest(ApiKeys.WRITE_TXN_MARKERS), markers=[
        dict(producer_id=pid, producer_epoch=epoch, coordinator_epoch=coordinator_epoch, transaction_result=commit,
             topics=topics(partitions)) for pid, epoch, coordinator_epoch, commit, partitions in markers])


def _magics(env: Env, magics: dict[TopicPartition, int | None]) -> None:
    """replicaManager.getMagic: the port reads the record format from the partition's log config."""
    env.replica_manager.get_log_config.side_effect = lambda tp: (
        None if magics.get(tp) is None else SimpleNamespace(record_version=RecordVersion(magics[tp])))


def _errors_by_producer_id(response: Any) -> dict[int, dict[TopicPartition, int]]:
    return {m.producer_id: {TopicPartition(t.name, p.partition_index): p.error_code
                            for t in m.topics for p in t.partitions} for m in response.markers}


def _answer_appends(env: Env, answer: Callable[[dict[TopicPartition, Any]], dict[TopicPartition, Any]]) -> None:
    def append_records(**kwargs: Any) -> None:
        kwargs["response_callback"](answer(kwargs["entries_per_partition"]))

    env.replica_manager.append_records.side_effect = append_records


def test_required_acls_not_present_write_txn_markers_throws_authorization_exception(env: Env) -> None:
    request = _create_write_txn_markers_request([TopicPartition("t", 0)])
    authorizer = Authorizer().allow("ALTER", "CLUSTER", "kafka-cluster", DENIED).allow(
        "CLUSTER_ACTION", "CLUSTER", "kafka-cluster", DENIED)
    kafka_apis = env.create_kafka_apis(authorizer=authorizer)
    from kafka_edu.v1_0_2.clients.common.errors import ClusterAuthorizationException
    with pytest.raises(ClusterAuthorizationException):
        kafka_apis.handle_write_txn_markers_request(request, None)
    alter, cluster_action = authorizer.calls
    assert (alter.operation, alter.log_if_allowed, alter.log_if_denied) == ("ALTER", True, False)
    assert (cluster_action.operation, cluster_action.log_if_denied) == ("CLUSTER_ACTION", True)


def test_should_respond_with_unsupported_for_message_format_on_handle_write_txn_markers_when_magic_lower_than_required(
        env: Env) -> None:
    tp = TopicPartition("t", 0)
    request = _create_write_txn_markers_request([tp])
    _magics(env, {tp: 1})
    env.create_kafka_apis().handle_write_txn_markers_request(request, None)
    assert _errors_by_producer_id(verify_no_throttling(env, request))[1] == {
        tp: Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT}


def test_should_respond_with_unknown_topic_when_partition_is_not_hosted(env: Env) -> None:
    tp = TopicPartition("t", 0)
    request = _create_write_txn_markers_request([tp])
    _magics(env, {tp: None})
    env.create_kafka_apis().handle_write_txn_markers_request(request, None)
    assert _errors_by_producer_id(verify_no_throttling(env, request))[1] == {tp: Errors.UNKNOWN_TOPIC_OR_PARTITION}


def test_should_respond_with_unsupported_message_format_for_bad_partition_and_no_errors_for_good_partition(
        env: Env) -> None:
    tp1, tp2 = TopicPartition("t", 0), TopicPartition("t1", 0)
    request = _create_write_txn_markers_request([tp1, tp2])
    _magics(env, {tp1: 1, tp2: 2})
    _answer_appends(env, lambda entries: {tp2: PartitionResponse(Errors.NONE)})
    request_local = object()
    env.create_kafka_apis().handle_write_txn_markers_request(request, request_local)
    kwargs = env.replica_manager.append_records.call_args.kwargs
    assert (kwargs["internal_topics_allowed"], kwargs["origin"].name, kwargs["request_local"]) == (
        True, "COORDINATOR", request_local)
    assert _errors_by_producer_id(verify_no_throttling(env, request))[1] == {
        tp1: Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT, tp2: Errors.NONE}


def test_should_respond_with_unknown_topic_or_partition_for_bad_partition_and_no_errors_for_good_partition(
        env: Env) -> None:
    tp1, tp2 = TopicPartition("t", 0), TopicPartition("t1", 0)
    request = _create_write_txn_markers_request([tp1, tp2])
    _magics(env, {tp1: None, tp2: 2})
    _answer_appends(env, lambda entries: {tp2: PartitionResponse(Errors.NONE)})
    env.create_kafka_apis().handle_write_txn_markers_request(request, None)
    assert _errors_by_producer_id(verify_no_throttling(env, request))[1] == {
        tp1: Errors.UNKNOWN_TOPIC_OR_PARTITION, tp2: Errors.NONE}


@pytest.mark.parametrize("allowed_acl_operation", ["ALTER", "CLUSTER_ACTION"])
def test_should_append_to_log_on_write_txn_markers_when_correct_magic_version(env: Env,
                                                                              allowed_acl_operation: str) -> None:
    tp = TopicPartition("t", 0)
    request = _create_write_txn_markers_request([tp])
    _magics(env, {tp: 2})
    # the one allowed action; every other is denied
    authorizer = Authorizer(default=DENIED).allow(allowed_acl_operation, "CLUSTER", "kafka-cluster")
    request_local = object()
    env.create_kafka_apis(authorizer=authorizer).handle_write_txn_markers_request(request, request_local)
    kwargs = env.replica_manager.append_records.call_args.kwargs
    assert (kwargs["internal_topics_allowed"], kwargs["origin"].name, kwargs["request_local"]) == (
        True, "COORDINATOR", request_local)


def test_handle_write_txn_markers_request_with_new_group_coordinator(env: Env) -> None:
    offset0, offset1 = TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, 0), TopicPartition(
        Topic.GROUP_METADATA_TOPIC_NAME, 1)
    foo0, foo1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
    request = _write_txn_markers_request([(1, 1, 0, True, [offset0, foo0]), (2, 1, 0, False, [offset1, foo1])])
    _magics(env, {tp: 2 for tp in (offset0, offset1, foo0, foo1)})
    env.group_coordinator.complete_transaction.side_effect = lambda *args: completed(None)
    _answer_appends(env, lambda entries: {tp: PartitionResponse(Errors.NONE) for tp in entries})
    env.create_kafka_apis(overrides={"group.coordinator.new.enable": "true"}).handle_write_txn_markers_request(
        request, None)
    calls = [c.args for c in env.group_coordinator.complete_transaction.call_args_list]
    import datetime
    timeout = datetime.timedelta(milliseconds=30000)  # ServerConfigs.REQUEST_TIMEOUT_MS_DEFAULT
    from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
    assert calls == [(offset0, 1, 1, 0, TransactionResult.COMMIT, timeout),
                     (offset1, 2, 1, 0, TransactionResult.ABORT, timeout)]
    for c in env.replica_manager.append_records.call_args_list:
        assert c.kwargs["timeout"] == 30000 and c.kwargs["required_acks"] == -1
    assert _errors_by_producer_id(verify_no_throttling(env, request)) == {
        1: {offset0: Errors.NONE, foo0: Errors.NONE}, 2: {offset1: Errors.NONE, foo1: Errors.NONE}}


@pytest.mark.parametrize("error", [Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                                   Errors.NOT_COORDINATOR, Errors.REQUEST_TIMED_OUT])
def test_handle_write_txn_markers_request_with_new_group_coordinator_error_translation(env: Env,
                                                                                       error: Errors) -> None:
    offset0 = TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, 0)
    request = _write_txn_markers_request([(1, 1, 0, True, [offset0])])
    _magics(env, {offset0: 2})

    def failed(*args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_exception(error_exception(error))
        return future

    env.group_coordinator.complete_transaction.side_effect = failed
    _answer_appends(env, lambda entries: {tp: PartitionResponse(Errors.NONE) for tp in entries})
    env.create_kafka_apis(overrides={"group.coordinator.new.enable": "true"}).handle_write_txn_markers_request(
        request, None)
    expected_error = (Errors.NOT_LEADER_OR_FOLLOWER if error in (
        Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR) else error)
    assert _errors_by_producer_id(verify_no_throttling(env, request)) == {1: {offset0: expected_error}}


# -- ListOffsets --------------------------------------------------------------------------------------------------


def _list_offsets_request(version: int, tp: TopicPartition, timestamp: int, current_leader_epoch: int = -1,
                          isolation_level: int = 0) -> Request:
    return build_request(ApiKeys.LIST_OFFSETS, version, replica_id=-1, isolation_level=isolation_level, topics=[
        dict(name=tp.topic, partitions=[dict(partition_index=tp.partition, timestamp=timestamp,
                                             current_leader_epoch=current_leader_epoch, max_num_offsets=1)])])


def _list_offsets_partition(env: Env, request: Request, tp: TopicPartition) -> Any:
    response = verify_no_throttling(env, request)
    topic = next(t for t in response.topics if t.name == tp.topic)
    return next(p for p in topic.partitions if p.partition_index == tp.partition)


def _test_list_offset_failed_get_leader_replica(env: Env, error: Errors) -> None:
    tp = TopicPartition("foo", 0)
    isolation_level = 0  # READ_UNCOMMITTED
    current_leader_epoch = 15
    env.replica_manager.fetch_offset_for_timestamp.side_effect = error_exception(error)
    request = _list_offsets_request(latest(ApiKeys.LIST_OFFSETS), tp, -2, current_leader_epoch, isolation_level)
    env.create_kafka_apis().handle_list_offset_request(request)
    env.replica_manager.fetch_offset_for_timestamp.assert_called_once_with(tp, -2, isolation_level,
                                                                          current_leader_epoch, True)
    partition_data = _list_offsets_partition(env, request, tp)
    assert partition_data.error_code == error
    assert partition_data.offset == -1
    assert partition_data.timestamp == -1


def test_leader_replica_if_local_raises_fenced_leader_epoch(env: Env) -> None:
    _test_list_offset_failed_get_leader_replica(env, Errors.FENCED_LEADER_EPOCH)


def test_leader_replica_if_local_raises_unknown_leader_epoch(env: Env) -> None:
    _test_list_offset_failed_get_leader_replica(env, Errors.UNKNOWN_LEADER_EPOCH)


def test_leader_replica_if_local_raises_not_leader_or_follower(env: Env) -> None:
    _test_list_offset_failed_get_leader_replica(env, Errors.NOT_LEADER_OR_FOLLOWER)


def test_leader_replica_if_local_raises_unknown_topic_or_partition(env: Env) -> None:
    _test_list_offset_failed_get_leader_replica(env, Errors.UNKNOWN_TOPIC_OR_PARTITION)


def _test_consumer_list_offset_latest(env: Env, isolation_level: int) -> None:
    tp = TopicPartition("foo", 0)
    latest_offset = 15
    env.replica_manager.fetch_offset_for_timestamp.return_value = TimestampAndOffset(-1, latest_offset, None)
    request = _list_offsets_request(latest(ApiKeys.LIST_OFFSETS), tp, -1, isolation_level=isolation_level)
    env.create_kafka_apis().handle_list_offset_request(request)
    env.replica_manager.fetch_offset_for_timestamp.assert_called_once_with(tp, -1, isolation_level, None, True)
    partition_data = _list_offsets_partition(env, request, tp)
    assert partition_data.error_code == Errors.NONE
    assert partition_data.offset == latest_offset
    assert partition_data.timestamp == -1


def test_read_uncommitted_consumer_list_offset_latest(env: Env) -> None:
    _test_consumer_list_offset_latest(env, 0)


def test_read_committed_consumer_list_offset_latest(env: Env) -> None:
    _test_consumer_list_offset_latest(env, 1)


def _test_consumer_list_offset_with_unsupported_version(env: Env, timestamp: int, version: int) -> None:
    tp = TopicPartition("foo", 0)
    request = _list_offsets_request(version, tp, timestamp)
    env.create_kafka_apis().handle_list_offset_request(request)
    assert _list_offsets_partition(env, request, tp).error_code == Errors.UNSUPPORTED_VERSION


def test_list_offset_max_timestamp_with_unsupported_version(env: Env) -> None:
    _test_consumer_list_offset_with_unsupported_version(env, -3, 6)


def test_list_offset_earliest_local_timestamp_with_unsupported_version(env: Env) -> None:
    _test_consumer_list_offset_with_unsupported_version(env, -4, 7)


def test_list_offset_latest_tiered_timestamp_with_unsupported_version(env: Env) -> None:
    _test_consumer_list_offset_with_unsupported_version(env, -5, 8)


def test_list_offset_negative_timestamp_with_zero_version(env: Env) -> None:
    _test_consumer_list_offset_with_unsupported_version(env, -3, 0)


def test_list_offset_negative_timestamp_with_one_or_above_version(env: Env) -> None:
    _test_consumer_list_offset_with_unsupported_version(env, -6, 1)


# -- Fetch --------------------------------------------------------------------------------------------------------


def _fetch_request(version: int, replica_id: int, fetch_data: dict[TopicPartition, FetchPartitionDataRequest],
                   metadata: FetchMetadata | None = None) -> Request:
    from kafka_edu.v3_9.clients.common.requests.fetch_request import Builder
    replica_epoch = -1 if replica_id < 0 else 1
    builder = Builder(version, version, replica_id, replica_epoch, 100, 0, fetch_data)
    if metadata is not None:
        builder.metadata(metadata)
    body = builder.build(version).to_kio()
    buffer = encode_request(ApiKeys.FETCH, version, 0, CLIENT_ID, body)
    context = RequestContext(RequestHeader.parse(buffer), "1", "127.0.0.1", None, KafkaPrincipal("User", "Alice"),
                             ListenerName(PLAINTEXT), SecurityProtocol.SSL, ClientInformation.EMPTY, False)
    return Request(1, context, 0, memory_pools.NONE, buffer, None)


def _fetch_partition(response: Any, topic: str | None, topic_id: uuid.UUID, partition: int) -> Any:
    for topic_response in response.responses:
        if getattr(topic_response, "topic", None) == topic or getattr(topic_response, "topic_id", None) == topic_id:
            for p in topic_response.partitions:
                if p.partition_index == partition:
                    return p
    raise AssertionError(f"no partition {topic}-{partition} in {response}")


def _answer_fetch(env: Env, data: list[tuple[TopicIdPartition, FetchPartitionData]]) -> None:
    def fetch_messages(params: Any, fetch_infos: Any, quota: Any, response_callback: Any) -> None:
        response_callback(data)

    env.replica_manager.fetch_messages.side_effect = fetch_messages


def test_fetch_request_v9_with_no_log_config(env: Env) -> None:
    tidp = TopicIdPartition(ZERO_UUID, TopicPartition("foo", 0))
    tp = tidp.topic_partition
    env.add_topic_to_metadata_cache(tp.topic, num_partitions=1)
    hw, timestamp = 3, 1000
    env.replica_manager.get_log_config.return_value = None
    fetched = MemoryRecords.with_records(COMPRESSION_NONE, SimpleRecord(b"foo", timestamp=timestamp))
    _answer_fetch(env, [(tidp, FetchPartitionData(Errors.NONE, hw, 0, fetched, None, None, None, None, False))])
    fetch_data = {tidp: FetchPartitionDataRequest(ZERO_UUID, 0, 0, 1000, None)}
    env.fetch_manager.new_context.return_value = FullFetchContext(
        env.time, FetchSessionCacheShard(1000, 100), FetchMetadata(0, 0), fetch_data, False, False)
    request = _fetch_request(9, -1, {tp: FetchPartitionDataRequest(ZERO_UUID, 0, 0, 1000, None)})
    env.create_kafka_apis().handle_fetch_request(request)
    partition = _fetch_partition(verify_no_throttling(env, request), tp.topic, ZERO_UUID, tp.partition)
    assert partition.error_code == Errors.NONE
    assert partition.high_watermark == hw
    assert partition.last_stable_offset == -1
    assert partition.log_start_offset == 0
    batch = next(iter(FetchResponse.records_or_fail(partition).batches()))
    assert batch.max_timestamp() == timestamp
    assert not partition.aborted_transactions  # null on the wire


@pytest.mark.parametrize("replica_id", [-1, 0])
def test_fetch_request_erroneous_partitions(env: Env, replica_id: int) -> None:
    foo = TopicIdPartition(uuid.uuid4(), TopicPartition("foo", 0))
    unresolved_foo = TopicIdPartition(foo.topic_id, TopicPartition(None, foo.topic_partition.partition))
    env.add_topic_to_metadata_cache(foo.topic_partition.topic, 1, topic_id=foo.topic_id)
    env.replica_manager.get_log_config.return_value = None
    # an unknown topic id in the context
    fetch_data = {unresolved_foo: FetchPartitionDataRequest(foo.topic_id, 0, 0, 1000, None)}
    fetch_metadata = FetchMetadata(0, 0)
    env.fetch_manager.new_context.return_value = FullFetchContext(
        env.time, FetchSessionCacheShard(1000, 100), fetch_metadata, fetch_data, True, replica_id >= 0)
    request = _fetch_request(latest(ApiKeys.FETCH), replica_id,
                             {foo.topic_partition: FetchPartitionDataRequest(foo.topic_id, 0, 0, 1000, None)},
                             fetch_metadata)
    env.create_kafka_apis().handle_fetch_request(request)
    args = env.fetch_manager.new_context.call_args.args
    assert (args[0], args[1], args[2], args[4], args[5]) == (latest(ApiKeys.FETCH), fetch_metadata, replica_id >= 0,
                                                             [], env.metadata_cache.topic_ids_to_names())
    assert args[3] == {foo: FetchPartitionDataRequest(foo.topic_id, 0, 0, 1000, None)}
    partition = _fetch_partition(verify_no_throttling(env, request), None, foo.topic_id, 0)
    assert partition.error_code == Errors.UNKNOWN_TOPIC_ID
    assert partition.high_watermark == -1
    assert partition.last_stable_offset == -1
    assert partition.log_start_offset == -1
    assert FetchResponse.records_or_fail(partition) == MemoryRecords.EMPTY


def test_fetch_response_contains_new_leader_on_not_leader_or_follower(env: Env) -> None:
    topic_id = uuid.uuid4()
    tidp = TopicIdPartition(topic_id, TopicPartition("foo", 0))
    tp = tidp.topic_partition
    env.add_topic_to_metadata_cache(tp.topic, num_partitions=1, num_brokers=3, topic_id=topic_id)
    env.replica_manager.get_log_config.return_value = SimpleNamespace(compression_type="producer",
                                                                      record_version=RecordVersion.V2)
    partition = mock.MagicMock(name="partition")
    partition.leader_replica_id_opt = 2
    partition.get_leader_epoch.return_value = 5
    env.replica_manager.get_partition_or_error.side_effect = lambda t: partition
    _answer_fetch(env, [(tidp, FetchPartitionData(Errors.NOT_LEADER_OR_FOLLOWER, -1, -1, MemoryRecords.EMPTY, None,
                                                  None, None, None, False))])
    fetch_data = {tidp: FetchPartitionDataRequest(topic_id, 0, 0, 1000, None)}
    env.fetch_manager.new_context.return_value = FullFetchContext(
        env.time, FetchSessionCacheShard(1000, 100), FetchMetadata(0, 0), fetch_data, True, False)
    request = _fetch_request(16, -1, {tp: FetchPartitionDataRequest(topic_id, 0, 0, 1000, None)})
    env.create_kafka_apis().handle_fetch_request(request)
    response = verify_no_throttling(env, request)
    partition_data = _fetch_partition(response, None, topic_id, 0)
    assert partition_data.error_code == Errors.NOT_LEADER_OR_FOLLOWER
    assert partition_data.current_leader.leader_id == 2
    assert partition_data.current_leader.leader_epoch == 5
    node = response.node_endpoints[0]
    assert (node.node_id, node.host) == (2, "broker2")


def test_size_of_throttled_partitions() -> None:
    def fetch_response(data: dict[TopicIdPartition, str]) -> FetchResponse:
        return FetchResponse.of(Errors.NONE, 100, 100, {
            tp: partition_data(partition_index=tp.topic_partition.partition, high_watermark=105,
                               last_stable_offset=105, log_start_offset=0,
                               records=MemoryRecords.with_records(COMPRESSION_NONE,
                                                                  SimpleRecord(raw.encode(), timestamp=100)))
            for tp, raw in data.items()})

    throttled_partition = TopicIdPartition(uuid.uuid4(), TopicPartition("throttledData", 0))
    throttled_data = {throttled_partition: "throttledData"}
    version = latest(ApiKeys.FETCH)
    throttled_only = fetch_response(throttled_data)
    expected_size = FetchResponse.size_of(version, iter(
        (TopicIdPartition(ZERO_UUID, TopicPartition(t.topic, p.partition_index)), p)
        for t in throttled_only.data().responses for p in t.partitions))
    response = fetch_response({**throttled_data, TopicIdPartition(uuid.uuid4(), TopicPartition(
        "nonThrottledData", 0)): "nonThrottledData"})
    quota = mock.MagicMock(name="quota")
    quota.is_throttled.side_effect = lambda tp: tp == throttled_partition.topic_partition
    assert size_of_throttled_partitions(version, response, quota) == expected_size


# -- JoinGroup, SyncGroup, Heartbeat, LeaveGroup ------------------------------------------------------------------


def _join_group_request(version: int) -> Request:
    return build_request(ApiKeys.JOIN_GROUP, version, group_id="group", member_id="member", protocol_type="consumer",
                         rebalance_timeout=1000, session_timeout=2000, group_instance_id=None, protocols=[],
                         reason=None)


def _join_group_response(**fields: Any) -> dict[str, Any]:
    return {**dict(error_code=Errors.NONE, generation_id=-1, protocol_type=None, protocol_name=None, leader="",
                   skip_assignment=False, member_id="", members=[]), **fields}


def _denying_authorizer() -> Authorizer:
    return Authorizer(default=DENIED)


@pytest.mark.parametrize("version", range(ApiKeys.JOIN_GROUP.oldest_version, ApiKeys.JOIN_GROUP.latest_version + 1))
def test_handle_join_group_request(env: Env, version: int) -> None:
    request = _join_group_request(version)
    future: Future[Any] = Future()
    env.group_coordinator.join_group.return_value = future
    env.create_kafka_apis().handle_join_group_request(request, None)
    context, sent, buffer_supplier = env.group_coordinator.join_group.call_args.args
    assert context is request.context and buffer_supplier is None
    assert (sent.group_id, sent.member_id, sent.protocol_type, sent.session_timeout.total_seconds() * 1000,
            sent.rebalance_timeout.total_seconds() * 1000) == (
        "group", "member", "consumer", 2000, 1000 if version >= 1 else 2000)
    expected = _join_group_response(member_id="member", generation_id=0, leader="leader",
                                    protocol_type="consumer" if version >= 7 else None, protocol_name="range")
    future.set_result(expected)
    response = verify_no_throttling(env, request)
    assert (response.member_id, response.generation_id, response.leader, response.protocol_name) == (
        "member", 0, "leader", "range")
    assert getattr(response, "protocol_type", None) == (expected["protocol_type"] if version >= 7 else None)


@pytest.mark.parametrize("version", range(ApiKeys.JOIN_GROUP.oldest_version, ApiKeys.JOIN_GROUP.latest_version + 1))
def test_join_group_protocol_name_backward_compatibility(env: Env, version: int) -> None:
    request = _join_group_request(version)
    future: Future[Any] = Future()
    env.group_coordinator.join_group.return_value = future
    env.create_kafka_apis().handle_join_group_request(request, None)
    future.set_result(_join_group_response(error_code=Errors.INCONSISTENT_GROUP_PROTOCOL, member_id="member",
                                           protocol_name=None))
    response = verify_no_throttling(env, request)
    assert response.error_code == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert response.member_id == "member"
    # GroupCoordinator.NoProtocol ("") before v7, where the protocol name is not nullable
    assert response.protocol_name == (None if version >= 7 else "")


def test_handle_join_group_request_future_failed(env: Env) -> None:
    request = _join_group_request(latest(ApiKeys.JOIN_GROUP))
    future: Future[Any] = Future()
    env.group_coordinator.join_group.return_value = future
    env.create_kafka_apis().handle_join_group_request(request, None)
    future.set_exception(error_exception(Errors.REQUEST_TIMED_OUT))
    assert verify_no_throttling(env, request).error_code == Errors.REQUEST_TIMED_OUT


def test_handle_join_group_request_authorization_failed(env: Env) -> None:
    request = _join_group_request(latest(ApiKeys.JOIN_GROUP))
    env.create_kafka_apis(authorizer=_denying_authorizer()).handle_join_group_request(request, None)
    assert verify_no_throttling(env, request).error_code == Errors.GROUP_AUTHORIZATION_FAILED


def test_handle_join_group_request_unexpected_exception(env: Env) -> None:
    request = _join_group_request(latest(ApiKeys.JOIN_GROUP))
    future: Future[Any] = Future()
    env.group_coordinator.join_group.return_value = future
    env.request_channel.fail_next_sends = 1  # the first send throws, the second is recorded
    env.create_kafka_apis().handle(request, None)
    future.set_exception(error_exception(Errors.NOT_COORDINATOR))
    # the exception thrown by send_response is not a Kafka error: UNKNOWN_SERVER_ERROR
    assert verify_no_throttling(env, request).error_code == Errors.UNKNOWN_SERVER_ERROR


def _sync_group_request(version: int, protocol_type: str | None = "consumer",
                        protocol_name: str | None = "range") -> Request:
    return build_request(ApiKeys.SYNC_GROUP, version, group_id="group", member_id="member", generation_id=0,
                         group_instance_id=None, protocol_type=protocol_type, protocol_name=protocol_name,
                         assignments=[])


@pytest.mark.parametrize("version", range(ApiKeys.SYNC_GROUP.oldest_version, ApiKeys.SYNC_GROUP.latest_version + 1))
def test_handle_sync_group_request(env: Env, version: int) -> None:
    request = _sync_group_request(version)
    future: Future[Any] = Future()
    env.group_coordinator.sync_group.return_value = future
    env.create_kafka_apis().handle_sync_group_request(request, None)
    context, sent, _ = env.group_coordinator.sync_group.call_args.args
    assert context is request.context
    assert (sent.group_id, sent.member_id, getattr(sent, "protocol_type", None),
            getattr(sent, "protocol_name", None)) == ("group", "member", "consumer" if version >= 5 else None,
                                                      "range" if version >= 5 else None)
    expected = dict(error_code=Errors.NONE, assignment=b"", protocol_type="consumer" if version >= 5 else None,
                    protocol_name="range" if version >= 5 else None)
    future.set_result(expected)
    response = verify_no_throttling(env, request)
    assert (response.error_code, getattr(response, "protocol_type", None), getattr(response, "protocol_name", None)) \
        == (Errors.NONE, expected["protocol_type"], expected["protocol_name"])


def test_handle_sync_group_request_future_failed(env: Env) -> None:
    request = _sync_group_request(latest(ApiKeys.SYNC_GROUP))
    future: Future[Any] = Future()
    env.group_coordinator.sync_group.return_value = future
    env.create_kafka_apis().handle_sync_group_request(request, None)
    future.set_exception(error_exception(Errors.UNKNOWN_SERVER_ERROR))
    assert verify_no_throttling(env, request).error_code == Errors.UNKNOWN_SERVER_ERROR


def test_handle_sync_group_request_authentication_failed(env: Env) -> None:
    request = _sync_group_request(latest(ApiKeys.SYNC_GROUP))
    env.create_kafka_apis(authorizer=_denying_authorizer()).handle_sync_group_request(request, None)
    assert verify_no_throttling(env, request).error_code == Errors.GROUP_AUTHORIZATION_FAILED


@pytest.mark.parametrize("version", range(ApiKeys.SYNC_GROUP.oldest_version, ApiKeys.SYNC_GROUP.latest_version + 1))
def test_sync_group_protocol_type_and_name_are_mandatory_since_v5(env: Env, version: int) -> None:
    request = _sync_group_request(version, protocol_type=None, protocol_name=None)
    future: Future[Any] = Future()
    env.group_coordinator.sync_group.return_value = future
    env.create_kafka_apis().handle_sync_group_request(request, None)
    if version < 5:
        future.set_result(dict(error_code=Errors.NONE, assignment=b"", protocol_type="consumer",
                               protocol_name="range"))
    response = verify_no_throttling(env, request)
    assert response.error_code == (Errors.NONE if version < 5 else Errors.INCONSISTENT_GROUP_PROTOCOL)


def _heartbeat_request(version: int) -> Request:
    return build_request(ApiKeys.HEARTBEAT, version, group_id="group", member_id="member", generation_id=0,
                         group_instance_id=None)


@pytest.mark.parametrize("version", range(ApiKeys.HEARTBEAT.oldest_version, ApiKeys.HEARTBEAT.latest_version + 1))
def test_handle_heartbeat_request(env: Env, version: int) -> None:
    request = _heartbeat_request(version)
    future: Future[Any] = Future()
    env.group_coordinator.heartbeat.return_value = future
    env.create_kafka_apis().handle_heartbeat_request(request)
    context, sent = env.group_coordinator.heartbeat.call_args.args
    assert context is request.context
    assert (sent.group_id, sent.member_id, sent.generation_id) == ("group", "member", 0)
    future.set_result(dict(error_code=Errors.NONE))
    assert verify_no_throttling(env, request).error_code == Errors.NONE


def test_handle_heartbeat_request_future_failed(env: Env) -> None:
    request = _heartbeat_request(latest(ApiKeys.HEARTBEAT))
    future: Future[Any] = Future()
    env.group_coordinator.heartbeat.return_value = future
    env.create_kafka_apis().handle_heartbeat_request(request)
    future.set_exception(error_exception(Errors.UNKNOWN_SERVER_ERROR))
    assert verify_no_throttling(env, request).error_code == Errors.UNKNOWN_SERVER_ERROR


def test_handle_heartbeat_request_authentication_failed(env: Env) -> None:
    request = _heartbeat_request(latest(ApiKeys.HEARTBEAT))
    env.create_kafka_apis(authorizer=_denying_authorizer()).handle_heartbeat_request(request)
    assert verify_no_throttling(env, request).error_code == Errors.GROUP_AUTHORIZATION_FAILED


def _leave_group_request(version: int, members: list[tuple[str, str | None]]) -> Request:
    """LeaveGroupRequest.Builder: before v3 one member only, and without its instance id."""
    if version < 3:
        if len(members) > 1:
            raise UnsupportedVersionException("Versions older than 3 cannot support multiple members")
        return build_request(ApiKeys.LEAVE_GROUP, version, group_id="group", member_id=members[0][0])
    return build_request(ApiKeys.LEAVE_GROUP, version, group_id="group", members=[
        dict(member_id=m, group_instance_id=i, reason=None) for m, i in members])


def _leave_group_response(members: list[tuple[str, str | None]]) -> dict[str, Any]:
    return dict(error_code=Errors.NONE, members=[dict(member_id=m, group_instance_id=i, error_code=Errors.NONE)
                                                 for m, i in members])


@pytest.mark.parametrize("version", range(ApiKeys.LEAVE_GROUP.oldest_version, ApiKeys.LEAVE_GROUP.latest_version + 1))
def test_handle_leave_group_with_multiple_members(env: Env, version: int) -> None:
    members = [("member-1", "instance-1"), ("member-2", "instance-2")]
    if version < 3:
        # versions before 3 cannot batch members
        with pytest.raises(UnsupportedVersionException):
            _leave_group_request(version, members)
        return
    request = _leave_group_request(version, members)
    future: Future[Any] = Future()
    env.group_coordinator.leave_group.return_value = future
    env.create_kafka_apis().handle_leave_group_request(request)
    context, sent = env.group_coordinator.leave_group.call_args.args
    assert context is request.context
    assert (sent.group_id, [(m.member_id, m.group_instance_id) for m in sent.members]) == ("group", members)
    future.set_result(_leave_group_response(members))
    response = verify_no_throttling(env, request)
    assert response.error_code == Errors.NONE
    assert [(m.member_id, m.group_instance_id) for m in response.members] == members


@pytest.mark.parametrize("version", range(ApiKeys.LEAVE_GROUP.oldest_version, ApiKeys.LEAVE_GROUP.latest_version + 1))
def test_handle_leave_group_with_single_member(env: Env, version: int) -> None:
    request = _leave_group_request(version, [("member-1", "instance-1")])
    future: Future[Any] = Future()
    env.group_coordinator.leave_group.return_value = future
    env.create_kafka_apis().handle_leave_group_request(request)
    _, sent = env.group_coordinator.leave_group.call_args.args
    assert (sent.group_id, [(m.member_id, m.group_instance_id) for m in sent.members]) == (
        "group", [("member-1", "instance-1" if version >= 3 else None)])
    future.set_result(_leave_group_response([("member-1", "instance-1")]))
    response = verify_no_throttling(env, request)
    assert response.error_code == Errors.NONE
    if version >= 3:
        assert [(m.member_id, m.group_instance_id) for m in response.members] == [("member-1", "instance-1")]
    else:
        assert not hasattr(response, "members")


def test_handle_leave_group_future_failed(env: Env) -> None:
    request = _leave_group_request(latest(ApiKeys.LEAVE_GROUP), [("member-1", "instance-1")])
    future: Future[Any] = Future()
    env.group_coordinator.leave_group.return_value = future
    env.create_kafka_apis().handle_leave_group_request(request)
    future.set_exception(error_exception(Errors.UNKNOWN_SERVER_ERROR))
    assert verify_no_throttling(env, request).error_code == Errors.UNKNOWN_SERVER_ERROR


def test_handle_leave_group_authentication_failed(env: Env) -> None:
    request = _leave_group_request(latest(ApiKeys.LEAVE_GROUP), [("member-1", "instance-1")])
    env.create_kafka_apis(authorizer=_denying_authorizer()).handle_leave_group_request(request)
    assert verify_no_throttling(env, request).error_code == Errors.GROUP_AUTHORIZATION_FAILED


# -- OffsetFetch --------------------------------------------------------------------------------------------------


def _offset_fetch_request(version: int, groups: dict[str, list[TopicPartition] | None]) -> Request:
    """OffsetFetchRequest.Builder: several groups from v8; before, one group (UnsupportedVersionException else)."""
    def topics(partitions: list[TopicPartition] | None) -> list[dict[str, Any]] | None:
        if partitions is None:
            return None
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        return [dict(name=name, partition_indexes=tuple(p)) for name, p in by_topic.items()]

    if version >= 8:
        return build_request(ApiKeys.OFFSET_FETCH, version, require_stable=False, groups=[
            dict(group_id=g, member_id=None, member_epoch=-1, topics=topics(p)) for g, p in groups.items()])
    if len(groups) > 1:
        raise UnsupportedVersionException("Broker does not support batching groups in OffsetFetchRequest")
    (group_id, partitions), = groups.items()
    return build_request(ApiKeys.OFFSET_FETCH, version, group_id=group_id, topics=topics(partitions),
                         require_stable=False)


def _group_response(group_id: str, topics: list[tuple[str, list[tuple[int, int, int]]]] | None = None,
                    error: Errors = Errors.NONE) -> dict[str, Any]:
    return dict(group_id=group_id, error_code=error, topics=[
        dict(name=name, partitions=[dict(partition_index=p, committed_offset=o, committed_leader_epoch=e,
                                         metadata="", error_code=Errors.NONE) for p, o, e in partitions])
        for name, partitions in (topics or [])])


def _groups_of(response: Any) -> list[tuple[str, int, list[tuple[str, list[tuple[int, int, int, int]]]]]]:
    return [(g.group_id, g.error_code, [(t.name, [(p.partition_index, p.committed_offset, p.committed_leader_epoch,
                                                    p.error_code) for p in t.partitions]) for t in g.topics])
            for g in response.groups]


def _offset_fetch_calls(mocked: Any) -> dict[str, Any]:
    return {c.args[1].group_id: c.args[1] for c in mocked.call_args_list}


def _topics_of(group: Any) -> list[tuple[str, tuple[int, ...]]] | None:
    return None if group.topics is None else [(t.name, tuple(t.partition_indexes)) for t in group.topics]


@pytest.mark.parametrize("version", range(ApiKeys.OFFSET_FETCH.oldest_version,
                                          ApiKeys.OFFSET_FETCH.latest_version + 1))
def test_handle_offset_fetch_with_multiple_groups(env: Env, version: int) -> None:
    if version == 0:
        return  # v0 reads offsets from ZooKeeper: not tested here
    groups: dict[str, list[TopicPartition] | None] = {
        "group-1": [TopicPartition("foo", 0), TopicPartition("foo", 1)], "group-2": None, "group-3": None,
        "group-4": None}
    if version < 8:
        # versions before 8 cannot batch groups
        with pytest.raises(UnsupportedVersionException):
            _offset_fetch_request(version, groups)
        return
    request = _offset_fetch_request(version, groups)
    futures = {g: Future() for g in groups}
    env.group_coordinator.fetch_offsets.side_effect = lambda ctx, group, stable: futures[group.group_id]
    env.group_coordinator.fetch_all_offsets.side_effect = lambda ctx, group, stable: futures[group.group_id]
    env.create_kafka_apis().handle_offset_fetch_request(request)
    assert {g: _topics_of(r) for g, r in _offset_fetch_calls(env.group_coordinator.fetch_offsets).items()} == {
        "group-1": [("foo", (0, 1))]}
    assert {g: _topics_of(r) for g, r in _offset_fetch_calls(env.group_coordinator.fetch_all_offsets).items()} == {
        "group-2": None, "group-3": None, "group-4": None}
    group1 = _group_response("group-1", [("foo", [(0, 100, 1), (1, 200, 2)])])
    group2 = _group_response("group-2", [("bar", [(0, 100, 1), (1, 200, 2), (2, 300, 3)])])
    group4 = _group_response("group-4", error=Errors.INVALID_GROUP_ID)
    futures["group-1"].set_result(group1)
    futures["group-2"].set_result(group2)
    futures["group-3"].set_exception(error_exception(Errors.INVALID_GROUP_ID))
    futures["group-4"].set_result(group4)
    assert sorted(_groups_of(verify_no_throttling(env, request))) == sorted([
        ("group-1", Errors.NONE, [("foo", [(0, 100, 1, 0), (1, 200, 2, 0)])]),
        ("group-2", Errors.NONE, [("bar", [(0, 100, 1, 0), (1, 200, 2, 0), (2, 300, 3, 0)])]),
        ("group-3", Errors.INVALID_GROUP_ID, []), ("group-4", Errors.INVALID_GROUP_ID, [])])


def _single_group_expectation(env: Env, request: Request, version: int) -> None:
    response = verify_no_throttling(env, request)
    if version >= 8:
        assert _groups_of(response) == [("group-1", Errors.NONE, [("foo", [(0, 100, 1, 0), (1, 200, 2, 0)])])]
    else:
        assert [(t.name, [(p.partition_index, p.committed_offset, getattr(p, "committed_leader_epoch", -1))
                          for p in t.partitions]) for t in response.topics] == [
            ("foo", [(0, 100, 1 if version >= 5 else -1), (1, 200, 2 if version >= 5 else -1)])]


@pytest.mark.parametrize("version", range(ApiKeys.OFFSET_FETCH.oldest_version,
                                          ApiKeys.OFFSET_FETCH.latest_version + 1))
def test_handle_offset_fetch_with_single_group(env: Env, version: int) -> None:
    if version == 0:
        return  # v0 reads offsets from ZooKeeper: not tested here
    request = _offset_fetch_request(version, {"group-1": [TopicPartition("foo", 0), TopicPartition("foo", 1)]})
    future: Future[Any] = Future()
    env.group_coordinator.fetch_offsets.return_value = future
    env.create_kafka_apis().handle_offset_fetch_request(request)
    context, sent, require_stable = env.group_coordinator.fetch_offsets.call_args.args
    assert (context, sent.group_id, _topics_of(sent), require_stable) == (
        request.context, "group-1", [("foo", (0, 1))], False)
    future.set_result(_group_response("group-1", [("foo", [(0, 100, 1), (1, 200, 2)])]))
    _single_group_expectation(env, request, version)


@pytest.mark.parametrize("version", range(ApiKeys.OFFSET_FETCH.oldest_version,
                                          ApiKeys.OFFSET_FETCH.latest_version + 1))
def test_handle_offset_fetch_all_offsets_with_single_group(env: Env, version: int) -> None:
    if version < 2:
        return  # v0 reads from ZooKeeper, v1 cannot ask for all offsets: not tested here
    request = _offset_fetch_request(version, {"group-1": None})
    future: Future[Any] = Future()
    env.group_coordinator.fetch_all_offsets.return_value = future
    env.create_kafka_apis().handle_offset_fetch_request(request)
    context, sent, require_stable = env.group_coordinator.fetch_all_offsets.call_args.args
    assert (context, sent.group_id, _topics_of(sent), require_stable) == (request.context, "group-1", None, False)
    future.set_result(_group_response("group-1", [("foo", [(0, 100, 1), (1, 200, 2)])]))
    _single_group_expectation(env, request, version)


class _AclAuthorizer(Authorizer):
    """Kafka's `thenAnswer` authorizer: an answer per resource name, DENIED for any other."""

    def __init__(self, acls: dict[str, AuthorizationResult]) -> None:
        super().__init__()
        self.acls = acls

    def authorize(self, context: Any, actions: list[Any]) -> list[AuthorizationResult]:
        return [self.acls.get(action.resource_name, DENIED) for action in actions]


def test_handle_offset_fetch_authorization(env: Env) -> None:
    foo_bar = [TopicPartition("foo", 0), TopicPartition("bar", 0)]
    request = _offset_fetch_request(latest(ApiKeys.OFFSET_FETCH), {
        "group-1": foo_bar, "group-2": foo_bar, "group-3": None, "group-4": None})
    authorizer = _AclAuthorizer({"group-1": ALLOWED, "group-2": DENIED, "group-3": ALLOWED, "group-4": DENIED,
                                 "foo": DENIED, "bar": ALLOWED})
    group1_future: Future[Any] = Future()
    group3_future: Future[Any] = Future()
    env.group_coordinator.fetch_offsets.return_value = group1_future
    env.group_coordinator.fetch_all_offsets.return_value = group3_future
    env.create_kafka_apis(authorizer=authorizer).handle(request, None)
    # group-1 asks for bar only; group-3 for all
    assert {g: _topics_of(r) for g, r in _offset_fetch_calls(env.group_coordinator.fetch_offsets).items()} == {
        "group-1": [("bar", (0,))]}
    assert {g: _topics_of(r) for g, r in _offset_fetch_calls(env.group_coordinator.fetch_all_offsets).items()} == {
        "group-3": None}
    group1_future.set_result(_group_response("group-1", [("bar", [(0, 100, 1)])]))
    group3_future.set_result(_group_response("group-3", [("foo", [(0, 100, 1)]), ("bar", [(0, 100, 1)])]))
    assert _groups_of(verify_no_throttling(env, request)) == [
        ("group-1", Errors.NONE, [("bar", [(0, 100, 1, 0)]),
                                  ("foo", [(0, -1, -1, Errors.TOPIC_AUTHORIZATION_FAILED)])]),
        ("group-2", Errors.GROUP_AUTHORIZATION_FAILED, []),
        ("group-3", Errors.NONE, [("bar", [(0, 100, 1, 0)])]),  # foo is filtered out
        ("group-4", Errors.GROUP_AUTHORIZATION_FAILED, [])]


def test_handle_offset_fetch_with_unauthorized_topic_and_top_level_error(env: Env) -> None:
    foo_bar = [TopicPartition("foo", 0), TopicPartition("bar", 0)]
    request = _offset_fetch_request(latest(ApiKeys.OFFSET_FETCH), {"group-1": foo_bar, "group-2": foo_bar})
    authorizer = _AclAuthorizer({"group-1": ALLOWED, "group-2": ALLOWED, "foo": DENIED, "bar": ALLOWED})
    group1_future: Future[Any] = Future()
    group2_future: Future[Any] = Future()
    env.group_coordinator.fetch_offsets.side_effect = lambda ctx, group, stable: (
        group1_future if group.group_id == "group-1" else group2_future)
    env.create_kafka_apis(authorizer=authorizer).handle(request, None)
    # a top-level error (the coordinator is not active) is answered as it is, the unauthorized topic left out
    group2_response = _group_response("group-2", error=Errors.COORDINATOR_NOT_AVAILABLE)
    group1_future.set_exception(error_exception(Errors.COORDINATOR_NOT_AVAILABLE))
    group2_future.set_result(group2_response)
    assert _groups_of(verify_no_throttling(env, request)) == [
        ("group-1", Errors.COORDINATOR_NOT_AVAILABLE, []), ("group-2", Errors.COORDINATOR_NOT_AVAILABLE, [])]


# -- DescribeGroups, DeleteGroups, ListGroups ---------------------------------------------------------------------


def _described_group(group_id: str, error: Errors = Errors.NONE, **fields: Any) -> dict[str, Any]:
    return {**dict(error_code=error, group_id=group_id, group_state="", protocol_type="", protocol_data="",
                   members=[], authorized_operations=-2147483648), **fields}


def _described(response: Any) -> list[tuple[str, int, str, str, str, list[str]]]:
    return [(g.group_id, g.error_code, g.group_state, g.protocol_type, g.protocol_data,
             [m.member_id for m in g.members]) for g in response.groups]


def _describe_groups_request() -> Request:
    return build_request(ApiKeys.DESCRIBE_GROUPS, latest(ApiKeys.DESCRIBE_GROUPS),
                         groups=("group-1", "group-2", "group-3"), include_authorized_operations=False)


def test_handle_describe_groups(env: Env) -> None:
    request = _describe_groups_request()
    future: Future[Any] = Future()
    env.group_coordinator.describe_groups.return_value = future
    env.create_kafka_apis().handle_describe_groups_request(request)
    assert env.group_coordinator.describe_groups.call_args.args == (request.context, ["group-1", "group-2",
                                                                                      "group-3"])
    future.set_result([
        _described_group("group-1", protocol_type="consumer", protocol_data="range", group_state="Stable",
                         members=[dict(member_id="member-1", group_instance_id=None, client_id="", client_host="",
                                       member_metadata=b"", member_assignment=b"")]),
        _described_group("group-2", Errors.NOT_COORDINATOR), _described_group("group-3", Errors.REQUEST_TIMED_OUT)])
    assert _described(verify_no_throttling(env, request)) == [
        ("group-1", Errors.NONE, "Stable", "consumer", "range", ["member-1"]),
        ("group-2", Errors.NOT_COORDINATOR, "", "", "", []), ("group-3", Errors.REQUEST_TIMED_OUT, "", "", "", [])]


def test_handle_describe_groups_future_failed(env: Env) -> None:
    request = _describe_groups_request()
    future: Future[Any] = Future()
    env.group_coordinator.describe_groups.return_value = future
    env.create_kafka_apis().handle_describe_groups_request(request)
    future.set_exception(error_exception(Errors.UNKNOWN_SERVER_ERROR))
    assert _described(verify_no_throttling(env, request)) == [
        (g, Errors.UNKNOWN_SERVER_ERROR, "", "", "", []) for g in ("group-1", "group-2", "group-3")]


def test_handle_describe_groups_authentication_failed(env: Env) -> None:
    request = _describe_groups_request()
    authorizer = _AclAuthorizer({"group-1": DENIED, "group-2": ALLOWED, "group-3": DENIED})
    future: Future[Any] = Future()
    env.group_coordinator.describe_groups.return_value = future
    env.create_kafka_apis(authorizer=authorizer).handle_describe_groups_request(request)
    assert env.group_coordinator.describe_groups.call_args.args == (request.context, ["group-2"])
    future.set_result([_described_group("group-2", Errors.NOT_COORDINATOR)])
    # the unauthorized groups come first
    assert _described(verify_no_throttling(env, request)) == [
        ("group-1", Errors.GROUP_AUTHORIZATION_FAILED, "", "", "", []),
        ("group-3", Errors.GROUP_AUTHORIZATION_FAILED, "", "", "", []),
        ("group-2", Errors.NOT_COORDINATOR, "", "", "", [])]


def _delete_groups_request() -> Request:
    return build_request(ApiKeys.DELETE_GROUPS, latest(ApiKeys.DELETE_GROUPS),
                         groups_names=("group-1", "group-2", "group-3"))


def _results(response: Any) -> list[tuple[str, int]]:
    return [(r.group_id, r.error_code) for r in response.results]


def test_handle_delete_groups(env: Env) -> None:
    request = _delete_groups_request()
    future: Future[Any] = Future()
    env.group_coordinator.delete_groups.return_value = future
    env.create_kafka_apis().handle_delete_groups_request(request, None)
    assert env.group_coordinator.delete_groups.call_args.args == (request.context, ["group-1", "group-2", "group-3"],
                                                                  None)
    results = [("group-1", Errors.NONE), ("group-2", Errors.NOT_CONTROLLER), ("group-3", Errors.UNKNOWN_SERVER_ERROR)]
    future.set_result([dict(group_id=g, error_code=e) for g, e in results])
    assert _results(verify_no_throttling(env, request)) == results


def test_handle_delete_groups_future_failed(env: Env) -> None:
    request = _delete_groups_request()
    future: Future[Any] = Future()
    env.group_coordinator.delete_groups.return_value = future
    env.create_kafka_apis().handle_delete_groups_request(request, None)
    future.set_exception(error_exception(Errors.NOT_CONTROLLER))
    assert _results(verify_no_throttling(env, request)) == [
        (g, Errors.NOT_CONTROLLER) for g in ("group-1", "group-2", "group-3")]


def test_handle_delete_groups_authentication_failed(env: Env) -> None:
    request = _delete_groups_request()
    authorizer = _AclAuthorizer({"group-1": DENIED, "group-2": ALLOWED, "group-3": ALLOWED})
    future: Future[Any] = Future()
    env.group_coordinator.delete_groups.return_value = future
    env.create_kafka_apis(authorizer=authorizer).handle_delete_groups_request(request, None)
    assert env.group_coordinator.delete_groups.call_args.args == (request.context, ["group-2", "group-3"], None)
    future.set_result([dict(group_id="group-2", error_code=Errors.NONE), dict(group_id="group-3",
                                                                             error_code=Errors.NONE)])
    assert _results(verify_no_throttling(env, request)) == [
        ("group-2", Errors.NONE), ("group-3", Errors.NONE), ("group-1", Errors.GROUP_AUTHORIZATION_FAILED)]


def _listed(response: Any) -> list[tuple[str, str, str, str]]:
    return [(g.group_id, g.protocol_type, getattr(g, "group_state", ""), getattr(g, "group_type", ""))
            for g in response.groups]


@pytest.mark.parametrize("version", range(ApiKeys.LIST_GROUPS.oldest_version, ApiKeys.LIST_GROUPS.latest_version + 1))
def test_list_groups_request(env: Env, version: int) -> None:
    states = ("Stable", "Empty") if version >= 4 else ()
    types = ("classic", "consumer") if version >= 5 else ()
    request = build_request(ApiKeys.LIST_GROUPS, version, states_filter=states, types_filter=types)
    future: Future[Any] = Future()
    env.group_coordinator.list_groups.return_value = future
    env.create_kafka_apis().handle_list_groups_request(request)
    context, sent = env.group_coordinator.list_groups.call_args.args
    assert context is request.context
    assert (tuple(getattr(sent, "states_filter", ())), tuple(getattr(sent, "types_filter", ()))) == (states, types)
    expected = [("group1", "protocol1", "Stable" if version >= 4 else "", "consumer" if version >= 5 else ""),
                ("group2", "protocol2", "Empty" if version >= 4 else "", "classic" if version >= 5 else ""),
                ("group3", "protocol3", "Stable" if version >= 4 else "", "classic" if version >= 5 else "")]
    future.set_result(dict(error_code=Errors.NONE, groups=[
        dict(group_id=g, protocol_type=p, group_state=s, group_type=t) for g, p, s, t in expected]))
    assert _listed(verify_no_throttling(env, request)) == expected


def test_list_groups_request_future_failed(env: Env) -> None:
    request = build_request(ApiKeys.LIST_GROUPS, latest(ApiKeys.LIST_GROUPS), states_filter=("Stable", "Empty"),
                            types_filter=("classic", "consumer"))
    future: Future[Any] = Future()
    env.group_coordinator.list_groups.return_value = future
    env.create_kafka_apis().handle_list_groups_request(request)
    future.set_exception(error_exception(Errors.UNKNOWN_SERVER_ERROR))
    assert verify_no_throttling(env, request).error_code == Errors.UNKNOWN_SERVER_ERROR


def _test_list_groups_request_filters_unauthorized_groups(env: Env, authorizer: Authorizer, groups: list[str],
                                                          expected_groups: list[str]) -> None:
    request = build_request(ApiKeys.LIST_GROUPS, latest(ApiKeys.LIST_GROUPS))
    future: Future[Any] = Future()
    env.group_coordinator.list_groups.return_value = future
    env.create_kafka_apis(authorizer=authorizer).handle_list_groups_request(request)
    future.set_result(dict(error_code=Errors.NONE, groups=[
        dict(group_id=g, protocol_type="", group_state="", group_type="") for g in groups]))
    assert [g.group_id for g in verify_no_throttling(env, request).groups] == expected_groups


def test_list_groups_request_filters_unauthorized_groups_with_describe_cluster(env: Env) -> None:
    authorizer = Authorizer().allow("DESCRIBE", "GROUP", "group1", DENIED).allow(
        "DESCRIBE", "GROUP", "group2", DENIED).allow("DESCRIBE", "CLUSTER", "kafka-cluster", ALLOWED)
    _test_list_groups_request_filters_unauthorized_groups(env, authorizer, ["group1", "group2"],
                                                          ["group1", "group2"])
    assert all(not a.log_if_denied for a in authorizer.calls)


def test_list_groups_request_filters_unauthorized_groups_with_describe_groups(env: Env) -> None:
    authorizer = Authorizer().allow("DESCRIBE", "GROUP", "group1", DENIED).allow(
        "DESCRIBE", "GROUP", "group2", ALLOWED).allow("DESCRIBE", "CLUSTER", "kafka-cluster", DENIED)
    _test_list_groups_request_filters_unauthorized_groups(env, authorizer, ["group1", "group2"], ["group2"])
    assert all(not a.log_if_denied for a in authorizer.calls)


# -- DescribeCluster ----------------------------------------------------------------------------------------------


def test_describe_cluster_request(env: Env) -> None:
    env.replay([register_broker(0, [(PLAINTEXT, "broker0", 9092)]), register_broker(1, [(PLAINTEXT, "broker1", 9092)])])
    request = build_request(ApiKeys.DESCRIBE_CLUSTER, latest(ApiKeys.DESCRIBE_CLUSTER),
                            include_cluster_authorized_operations=True, endpoint_type=1)
    env.create_kafka_apis().handle_describe_cluster(request)
    response = verify_no_throttling(env, request)
    # KRaft: a random alive broker stands for the controller (KRaftCachedControllerId)
    assert response.controller_id in {0, 1}
    assert response.cluster_id == CLUSTER_ID
    assert response.cluster_authorized_operations == 8096
    assert {(b.broker_id, b.host, b.port, b.rack) for b in response.brokers} == {
        (n.id, n.host, n.port, n.rack) for n in env.metadata_cache.get_alive_broker_nodes(PLAINTEXT)}


# -- part A (issue 24): AlterConfigs and IncrementalAlterConfigs on a KRaft broker ------------------------------------

BROKER_RESOURCE, BROKER_LOGGER_RESOURCE = 4, 8  # ConfigResource.Type ids


def test_empty_legacy_alter_configs_request_with_k_raft(env: Env) -> None:
    request = build_request(ApiKeys.ALTER_CONFIGS, 1, resources=[], validate_only=False)
    env.create_kafka_apis().handle_alter_configs_request(request)
    response = verify_no_throttling(env, request)
    assert response.responses == ()
    env.forwarding_manager.forward_request.assert_not_called()


def test_invalid_legacy_alter_configs_request_with_k_raft(env: Env) -> None:
    request = build_request(ApiKeys.ALTER_CONFIGS, 1, validate_only=True, resources=[
        dict(resource_name=str(BROKER_ID), resource_type=BROKER_RESOURCE, configs=[dict(name="foo", value=None)])])
    env.create_kafka_apis().handle_alter_configs_request(request)
    response = verify_no_throttling(env, request)
    assert [(r.error_code, r.error_message, r.resource_name, r.resource_type) for r in response.responses] == [
        (Errors.INVALID_REQUEST, "Null value not supported for : foo", str(BROKER_ID), BROKER_RESOURCE)]


def test_empty_incremental_alter_configs_request_with_k_raft(env: Env) -> None:
    request = build_request(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, resources=[], validate_only=False)
    env.create_kafka_apis().handle_incremental_alter_configs_request(request)
    response = verify_no_throttling(env, request)
    assert response.responses == ()


def test_log4j_incremental_alter_configs_request_with_k_raft(env: Env) -> None:
    request = build_request(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, validate_only=True, resources=[
        dict(resource_name=str(BROKER_ID), resource_type=BROKER_LOGGER_RESOURCE,
             configs=[dict(name="root", config_operation=0, value="TRACE")])])  # Log4jController.ROOT_LOGGER
    env.create_kafka_apis().handle_incremental_alter_configs_request(request)
    response = verify_no_throttling(env, request)
    assert [(r.error_code, r.error_message, r.resource_name, r.resource_type) for r in response.responses] == [
        (Errors.NONE, None, str(BROKER_ID), BROKER_LOGGER_RESOURCE)]
    env.forwarding_manager.forward_request.assert_not_called()


# -- part A (issue 24): client quotas --------------------------------------------------------------------------------


def test_alter_client_quotas_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.ALTER_CLIENT_QUOTAS, entries=[], validate_only=False)


def test_raft_should_always_forward_alter_client_quotas_request(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_alter_client_quotas_request)


# -- part A (issue 24): SCRAM credentials ----------------------------------------------------------------------------


def test_alter_scram_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, deletions=[], upsertions=[])


def test_raft_should_always_forward_alter_user_scram_credentials_request(env: Env) -> None:
    _verify_should_always_forward_error_message(
        env, env.create_kafka_apis().handle_alter_user_scram_credentials_request)


# -- part A (issue 24): UpdateFeatures -------------------------------------------------------------------------------


def test_update_features_with_forwarding(env: Env) -> None:
    _test_forwardable_api(env, ApiKeys.UPDATE_FEATURES, feature_updates=[], validate_only=False, timeout=60000)


def test_raft_should_always_forward_update_features(env: Env) -> None:
    _verify_should_always_forward_error_message(env, env.create_kafka_apis().handle_update_features)


# -- transactions: AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit -----------------------------------

V3_AND_BELOW_TXN_ID = ""  # AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID


def _add_partitions_to_txn_for_client(version: int, transactional_id: str, producer_id: int, epoch: int,
                                      partitions: list[TopicPartition]) -> Request:
    """AddPartitionsToTxnRequest.Builder.forClient(...).build(version): one transaction, v0-v3."""
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return build_request(ApiKeys.ADD_PARTITIONS_TO_TXN, version, v3_and_below_transactional_id=transactional_id,
                         v3_and_below_producer_id=producer_id, v3_and_below_producer_epoch=epoch,
                         v3_and_below_topics=[dict(name=name, partitions=p) for name, p in by_topic.items()])


def _add_partitions_to_txn_for_broker(version: int, transactions: list[tuple[str, int, int, bool,
                                                                             list[TopicPartition]]]) -> Request:
    """AddPartitionsToTxnRequest.Builder.forBroker(...).build(version): a batch of transactions, v4+."""
    txns = []
    for transactional_id, producer_id, epoch, verify_only, partitions in transactions:
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        txns.append(dict(transactional_id=transactional_id, producer_id=producer_id, producer_epoch=epoch,
                         verify_only=verify_only,
                         topics=[dict(name=name, partitions=p) for name, p in by_topic.items()]))
    return build_request(ApiKeys.ADD_PARTITIONS_TO_TXN, version, transactions=txns)


def _add_partitions_errors(response: Any) -> dict[str, dict[TopicPartition, int]]:
    """AddPartitionsToTxnResponse.errors(): by transactional id ("" for v0-v3), each partition's error."""
    def for_transaction(topic_results: Any) -> dict[TopicPartition, int]:
        return {TopicPartition(t.name, p.partition_index): p.partition_error_code
                for t in topic_results for p in t.results_by_partition}

    errors = {}
    if getattr(response, "results_by_topic_v3_and_below", ()):
        errors[V3_AND_BELOW_TXN_ID] = for_transaction(response.results_by_topic_v3_and_below)
    for result in getattr(response, "results_by_transaction", ()):
        errors[result.transactional_id] = for_transaction(result.topic_results)
    return errors


def test_should_replace_producer_fenced_with_invalid_producer_epoch_in_add_offset_to_txn_with_older_client(
        env: Env) -> None:
    env.add_topic_to_metadata_cache("topic", num_partitions=2)
    for version in range(ApiKeys.ADD_OFFSETS_TO_TXN.oldest_version, ApiKeys.ADD_OFFSETS_TO_TXN.latest_version + 1):
        env.txn_coordinator.reset_mock()
        env.group_coordinator.reset_mock()
        env.request_channel.sent.clear()
        group_id, transactional_id, producer_id, epoch = "groupId", "txnId", 15, 0
        request = build_request(ApiKeys.ADD_OFFSETS_TO_TXN, version, group_id=group_id,
                                transactional_id=transactional_id, producer_id=producer_id, producer_epoch=epoch)
        partition = 1
        env.group_coordinator.partition_for.return_value = partition
        request_local = object()
        env.txn_coordinator.handle_add_partitions_to_transaction.side_effect = (
            lambda tid, pid, e, partitions, callback, local: callback(Errors.PRODUCER_FENCED))
        env.create_kafka_apis().handle_add_offsets_to_txn_request(request, request_local)

        env.group_coordinator.partition_for.assert_called_once_with(group_id)
        env.txn_coordinator.handle_add_partitions_to_transaction.assert_called_once_with(
            transactional_id, producer_id, epoch, {TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, partition)},
            mock.ANY, request_local)
        response = verify_no_throttling(env, request)
        assert response.error_code == (Errors.INVALID_PRODUCER_EPOCH if version < 2 else Errors.PRODUCER_FENCED)


def test_should_replace_producer_fenced_with_invalid_producer_epoch_in_add_partition_to_txn_with_older_client(
        env: Env) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=2)
    for version in range(ApiKeys.ADD_PARTITIONS_TO_TXN.oldest_version, 4):
        env.txn_coordinator.reset_mock()
        env.request_channel.sent.clear()
        transactional_id, producer_id, epoch = "txnId", 15, 0
        topic_partition = TopicPartition(topic, 1)
        request = _add_partitions_to_txn_for_client(version, transactional_id, producer_id, epoch, [topic_partition])
        request_local = object()
        env.txn_coordinator.handle_add_partitions_to_transaction.side_effect = (
            lambda tid, pid, e, partitions, callback, local: callback(Errors.PRODUCER_FENCED))
        env.create_kafka_apis().handle_add_partitions_to_txn_request(request, request_local)

        env.txn_coordinator.handle_add_partitions_to_transaction.assert_called_once_with(
            transactional_id, producer_id, epoch, {topic_partition}, mock.ANY, request_local)
        response = verify_no_throttling(env, request)
        expected = Errors.INVALID_PRODUCER_EPOCH if version < 2 else Errors.PRODUCER_FENCED
        assert _add_partitions_errors(response)[V3_AND_BELOW_TXN_ID] == {topic_partition: expected}


def test_batched_add_partitions_to_txn_request(env: Env) -> None:
    from kafka_edu.v3_9.core.server.kafka_apis import result_for_transaction
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=2)
    transactional_id1, transactional_id2, producer_id, epoch = "txnId1", "txnId2", 15, 0
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    request = _add_partitions_to_txn_for_broker(4, [(transactional_id1, producer_id, epoch, False, [tp0]),
                                                    (transactional_id2, producer_id, epoch, True, [tp1])])
    request_local = object()
    env.txn_coordinator.handle_add_partitions_to_transaction.side_effect = (
        lambda tid, pid, e, partitions, callback, local: callback(Errors.NONE))
    env.txn_coordinator.handle_verify_partitions_in_transaction.side_effect = (
        lambda tid, pid, e, partitions, callback: callback(
            result_for_transaction(transactional_id2, {tp1: Errors.PRODUCER_FENCED})))
    env.create_kafka_apis().handle_add_partitions_to_txn_request(request, request_local)

    env.txn_coordinator.handle_add_partitions_to_transaction.assert_called_once_with(
        transactional_id1, producer_id, epoch, {tp0}, mock.ANY, request_local)
    env.txn_coordinator.handle_verify_partitions_in_transaction.assert_called_once_with(
        transactional_id2, producer_id, epoch, {tp1}, mock.ANY)
    response = verify_no_throttling(env, request)
    assert _add_partitions_errors(response) == {transactional_id1: {tp0: Errors.NONE},
                                                transactional_id2: {tp1: Errors.PRODUCER_FENCED}}


@pytest.mark.parametrize("version", range(ApiKeys.ADD_PARTITIONS_TO_TXN.oldest_version,
                                          ApiKeys.ADD_PARTITIONS_TO_TXN.latest_version + 1))
def test_handle_add_partitions_to_txn_authorization_failed_and_metrics(env: Env, version: int) -> None:
    # (3.9 also counts the request's meters: the port has no metrics registry)
    transactional_id, producer_id, epoch = "txnId1", 15, 0
    tp = TopicPartition("topic", 0)
    if version < 4:
        request = _add_partitions_to_txn_for_client(version, transactional_id, producer_id, epoch, [tp])
    else:
        request = _add_partitions_to_txn_for_broker(version, [(transactional_id, producer_id, epoch, True, [tp])])
    env.create_kafka_apis(authorizer=Authorizer(default=DENIED)).handle(request, None)

    response = verify_no_throttling(env, request)
    if version < 4:
        error = _add_partitions_errors(response)[V3_AND_BELOW_TXN_ID][tp]
    else:
        error = response.error_code
    assert error == (Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED if version < 4
                     else Errors.CLUSTER_AUTHORIZATION_FAILED)


@pytest.mark.parametrize("version", range(ApiKeys.ADD_PARTITIONS_TO_TXN.oldest_version,
                                          ApiKeys.ADD_PARTITIONS_TO_TXN.latest_version + 1))
def test_add_partitions_to_txn_operation_not_attempted(env: Env, version: int) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=1)
    transactional_id, producer_id, epoch = "txnId1", 15, 0
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    if version < 4:
        request = _add_partitions_to_txn_for_client(version, transactional_id, producer_id, epoch, [tp0, tp1])
    else:
        request = _add_partitions_to_txn_for_broker(version, [(transactional_id, producer_id, epoch, True,
                                                               [tp0, tp1])])
    env.create_kafka_apis().handle_add_partitions_to_txn_request(request, None)

    errors = _add_partitions_errors(verify_no_throttling(env, request))[
        V3_AND_BELOW_TXN_ID if version < 4 else transactional_id]
    assert errors[tp0] == Errors.OPERATION_NOT_ATTEMPTED
    assert errors[tp1] == Errors.UNKNOWN_TOPIC_OR_PARTITION


def test_should_replace_producer_fenced_with_invalid_producer_epoch_in_end_txn_with_older_client(env: Env) -> None:
    from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
    env.add_topic_to_metadata_cache("topic", num_partitions=2)
    for version in range(ApiKeys.END_TXN.oldest_version, ApiKeys.END_TXN.latest_version + 1):
        env.txn_coordinator.reset_mock()
        env.request_channel.sent.clear()
        transactional_id, producer_id, epoch = "txnId", 15, 0
        request = build_request(ApiKeys.END_TXN, version, transactional_id=transactional_id, producer_id=producer_id,
                                producer_epoch=epoch, committed=True)
        request_local = object()
        env.txn_coordinator.handle_end_transaction.side_effect = (
            lambda tid, pid, e, result, callback, local: callback(Errors.PRODUCER_FENCED))
        env.create_kafka_apis().handle_end_txn_request(request, request_local)

        env.txn_coordinator.handle_end_transaction.assert_called_once_with(
            transactional_id, producer_id, epoch, TransactionResult.COMMIT, mock.ANY, request_local)
        response = verify_no_throttling(env, request)
        assert response.error_code == (Errors.INVALID_PRODUCER_EPOCH if version < 2 else Errors.PRODUCER_FENCED)


def test_add_partitions_to_txn_with_invalid_partition(env: Env) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=1)
    for invalid_partition_id in (-1, 1):  # the topic has one partition
        env.request_channel.sent.clear()
        invalid_topic_partition = TopicPartition(topic, invalid_partition_id)
        request = _add_partitions_to_txn_for_client(3, "txnlId", 15, 0, [invalid_topic_partition])
        env.create_kafka_apis().handle_add_partitions_to_txn_request(request, object())
        errors = _add_partitions_errors(verify_no_throttling(env, request))[V3_AND_BELOW_TXN_ID]
        assert errors[invalid_topic_partition] == Errors.UNKNOWN_TOPIC_OR_PARTITION


def _txn_offset_commit_request(topics: list[tuple[str, list[tuple[int, int]]]], version: int =
                               latest(ApiKeys.TXN_OFFSET_COMMIT), transactional_id: str = "",
                               group_id: str = "group", member_id: str = "member", generation_id: int = -1,
                               producer_id: int = -1, producer_epoch: int = -1,
                               group_instance_id: str | None = None) -> Request:
    return build_request(ApiKeys.TXN_OFFSET_COMMIT, version, transactional_id=transactional_id, group_id=group_id,
                         member_id=member_id, generation_id=generation_id, producer_id=producer_id,
                         producer_epoch=producer_epoch, group_instance_id=group_instance_id, topics=[
                             dict(name=name, partitions=[dict(partition_index=p, committed_offset=o,
                                                              committed_leader_epoch=-1, committed_metadata=None)
                                                         for p, o in partitions]) for name, partitions in topics])


def test_txn_offset_commit_with_invalid_partition(env: Env) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=1)
    for invalid_partition_id in (-1, 1):  # the topic has one partition
        env.request_channel.sent.clear()
        request = _txn_offset_commit_request([(topic, [(invalid_partition_id, 15)])], transactional_id="txnId",
                                             group_id="groupId", member_id="", producer_id=15, producer_epoch=0)
        env.create_kafka_apis().handle_txn_offset_commit_request(request, object())
        assert _as_pairs(verify_no_throttling(env, request)) == [
            (topic, [(invalid_partition_id, Errors.UNKNOWN_TOPIC_OR_PARTITION)])]


def test_handle_txn_offset_commit_request(env: Env) -> None:
    env.add_topic_to_metadata_cache("foo", num_partitions=1)
    request = _txn_offset_commit_request([("foo", [(0, 10)])], group_id="group", member_id="member",
                                         generation_id=10, producer_id=20, producer_epoch=30,
                                         group_instance_id="instance-id", transactional_id="transactional-id")
    future: Future[Any] = Future()
    env.txn_coordinator.partition_for.return_value = 0
    env.group_coordinator.commit_transactional_offsets.return_value = future
    env.create_kafka_apis().handle(request, None)

    # the coordinator is asked with the request as it came
    env.group_coordinator.commit_transactional_offsets.assert_called_once_with(request.context, request.body(), None)
    future.set_result(_commit_response([("foo", [(0, Errors.NONE)])]))
    assert _as_pairs(verify_no_throttling(env, request)) == [("foo", [(0, Errors.NONE)])]


def test_handle_txn_offset_commit_request_future_failed(env: Env) -> None:
    env.add_topic_to_metadata_cache("foo", num_partitions=1)
    request = _txn_offset_commit_request([("foo", [(0, 10)])])
    future: Future[Any] = Future()
    env.txn_coordinator.partition_for.return_value = 0
    env.group_coordinator.commit_transactional_offsets.return_value = future
    env.create_kafka_apis().handle(request, None)
    env.group_coordinator.commit_transactional_offsets.assert_called_once_with(request.context, request.body(), None)
    future.set_exception(error_exception(Errors.NOT_COORDINATOR))
    assert _as_pairs(verify_no_throttling(env, request)) == [("foo", [(0, Errors.NOT_COORDINATOR)])]


def test_handle_txn_offset_commit_request_topics_and_partitions_validation(env: Env) -> None:
    env.add_topic_to_metadata_cache("foo", num_partitions=2)
    env.add_topic_to_metadata_cache("bar", num_partitions=2)
    # foo has only 2 partitions; zar does not exist
    request = _txn_offset_commit_request([("foo", [(0, 10), (1, 20), (2, 30)]), ("bar", [(0, 40), (1, 50)]),
                                          ("zar", [(0, 60), (1, 70)])])
    expected_txn_offset_commit_request = _txn_offset_commit_request(
        [("foo", [(0, 10), (1, 20)]), ("bar", [(0, 40), (1, 50)])]).body()
    future: Future[Any] = Future()
    env.txn_coordinator.partition_for.return_value = 0
    env.group_coordinator.commit_transactional_offsets.return_value = future
    env.create_kafka_apis().handle(request, None)

    env.group_coordinator.commit_transactional_offsets.assert_called_once_with(
        request.context, expected_txn_offset_commit_request, None)
    future.set_result(_commit_response([("foo", [(0, Errors.NONE), (1, Errors.NONE)]),
                                        ("bar", [(0, Errors.NONE), (1, Errors.NONE)])]))
    # the partitions and topics failing validation come first
    assert _as_pairs(verify_no_throttling(env, request)) == [
        ("foo", [(2, Errors.UNKNOWN_TOPIC_OR_PARTITION), (0, Errors.NONE), (1, Errors.NONE)]),
        ("zar", [(0, Errors.UNKNOWN_TOPIC_OR_PARTITION), (1, Errors.UNKNOWN_TOPIC_OR_PARTITION)]),
        ("bar", [(0, Errors.NONE), (1, Errors.NONE)])]


@pytest.mark.parametrize("version", range(ApiKeys.TXN_OFFSET_COMMIT.oldest_version,
                                          ApiKeys.TXN_OFFSET_COMMIT.latest_version + 1))
def test_should_replace_coordinator_not_available_with_load_in_process_in_txn_offset_commit_with_older_client(
        env: Env, version: int) -> None:
    topic = "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=2)
    topic_partition = TopicPartition(topic, 1)
    request = _txn_offset_commit_request([(topic, [(topic_partition.partition, 15)])], version=version,
                                         transactional_id="txnId", group_id="groupId", member_id="",
                                         producer_id=15, producer_epoch=0)
    request_local = SimpleNamespace(buffer_supplier=object())
    env.txn_coordinator.partition_for.return_value = 0
    env.group_coordinator.commit_transactional_offsets.return_value = completed(
        _commit_response([(topic, [(topic_partition.partition, Errors.COORDINATOR_LOAD_IN_PROGRESS)])]))
    env.create_kafka_apis().handle_txn_offset_commit_request(request, request_local)

    context, _, buffer_supplier = env.group_coordinator.commit_transactional_offsets.call_args.args
    assert (context, buffer_supplier) == (request.context, request_local.buffer_supplier)
    expected = Errors.COORDINATOR_NOT_AVAILABLE if version < 2 else Errors.COORDINATOR_LOAD_IN_PROGRESS
    assert _as_pairs(verify_no_throttling(env, request)) == [(topic, [(topic_partition.partition, expected)])]


# -- OffsetDelete -------------------------------------------------------------------------------------------------


def _offset_delete_request(group_id: str, topics: list[tuple[str, list[int]]]) -> Request:
    return build_request(ApiKeys.OFFSET_DELETE, latest(ApiKeys.OFFSET_DELETE), group_id=group_id, topics=[
        dict(name=name, partitions=[dict(partition_index=p) for p in partitions]) for name, partitions in topics])


def _offset_delete_response(topics: list[tuple[str, list[tuple[int, Errors]]]],
                            error: Errors = Errors.NONE) -> dict[str, Any]:
    return dict(error_code=error, topics=[dict(name=name, partitions=[dict(partition_index=p, error_code=e)
                                                                      for p, e in partitions])
                                          for name, partitions in topics])


def test_offset_delete(env: Env) -> None:
    group = "groupId"
    env.add_topic_to_metadata_cache("topic-1", num_partitions=2)
    env.add_topic_to_metadata_cache("topic-2", num_partitions=2)
    request = _offset_delete_request(group, [("topic-1", [0, 1]), ("topic-2", [0, 1])])
    request_local = SimpleNamespace(buffer_supplier=object())
    future: Future[Any] = Future()
    env.group_coordinator.delete_offsets.return_value = future
    env.create_kafka_apis().handle_offset_delete_request(request, request_local)

    env.group_coordinator.delete_offsets.assert_called_once_with(request.context, request.body(),
                                                                 request_local.buffer_supplier)
    offset_delete_response_data = _offset_delete_response([("topic-1", [(0, Errors.NONE), (1, Errors.NONE)]),
                                                           ("topic-2", [(0, Errors.NONE), (1, Errors.NONE)])])
    future.set_result(offset_delete_response_data)
    response = verify_no_throttling(env, request)
    assert response.error_code == Errors.NONE
    assert _as_pairs(response) == [("topic-1", [(0, Errors.NONE), (1, Errors.NONE)]),
                                   ("topic-2", [(0, Errors.NONE), (1, Errors.NONE)])]


def test_offset_delete_topics_and_partitions_validation(env: Env) -> None:
    group = "groupId"
    env.add_topic_to_metadata_cache("foo", num_partitions=2)
    env.add_topic_to_metadata_cache("bar", num_partitions=2)
    # foo has only 2 partitions; zar does not exist
    request = _offset_delete_request(group, [("foo", [0, 1, 2]), ("bar", [0, 1]), ("zar", [0, 1])])
    # the coordinator is asked for the partitions that exist only
    expected_offset_delete_request = _offset_delete_request(group, [("foo", [0, 1]), ("bar", [0, 1])]).body()
    future: Future[Any] = Future()
    env.group_coordinator.delete_offsets.return_value = future
    env.create_kafka_apis().handle(request, None)

    env.group_coordinator.delete_offsets.assert_called_once_with(request.context, expected_offset_delete_request,
                                                                 None)
    future.set_result(_offset_delete_response([("foo", [(0, Errors.NONE), (1, Errors.NONE)]),
                                               ("bar", [(0, Errors.NONE), (1, Errors.NONE)])]))
    # the partitions and topics failing validation come first
    response = verify_no_throttling(env, request)
    assert response.error_code == Errors.NONE
    assert _as_pairs(response) == [
        ("foo", [(2, Errors.UNKNOWN_TOPIC_OR_PARTITION), (0, Errors.NONE), (1, Errors.NONE)]),
        ("zar", [(0, Errors.UNKNOWN_TOPIC_OR_PARTITION), (1, Errors.UNKNOWN_TOPIC_OR_PARTITION)]),
        ("bar", [(0, Errors.NONE), (1, Errors.NONE)])]


def test_offset_delete_with_invalid_partition(env: Env) -> None:
    group, topic = "groupId", "topic"
    env.add_topic_to_metadata_cache(topic, num_partitions=1)
    for invalid_partition_id in (-1, 1):  # the topic has one partition
        env.group_coordinator.reset_mock()
        env.request_channel.sent.clear()
        request = _offset_delete_request(group, [(topic, [invalid_partition_id])])
        # the group coordinator is asked even with no partition left after the validation
        env.group_coordinator.delete_offsets.return_value = completed(dict(error_code=Errors.NONE, topics=[]))
        env.create_kafka_apis().handle_offset_delete_request(request, None)

        env.group_coordinator.delete_offsets.assert_called_once_with(
            request.context, _offset_delete_request(group, []).body(), None)
        response = verify_no_throttling(env, request)
        assert _as_pairs(response) == [(topic, [(invalid_partition_id, Errors.UNKNOWN_TOPIC_OR_PARTITION)])]


def test_offset_delete_with_invalid_group(env: Env) -> None:
    group = "groupId"
    env.add_topic_to_metadata_cache("topic", num_partitions=1)
    request = _offset_delete_request(group, [])
    future: Future[Any] = Future()
    env.group_coordinator.delete_offsets.return_value = future
    env.create_kafka_apis().handle_offset_delete_request(request, None)
    env.group_coordinator.delete_offsets.assert_called_once_with(request.context, request.body(), None)

    future.set_exception(error_exception(Errors.GROUP_ID_NOT_FOUND))
    assert verify_no_throttling(env, request).error_code == Errors.GROUP_ID_NOT_FOUND


def test_offset_delete_with_invalid_group_with_top_level_error(env: Env) -> None:
    group = "groupId"
    env.add_topic_to_metadata_cache("topic", num_partitions=1)
    request = _offset_delete_request(group, [("topic-unknown", [0])])
    future: Future[Any] = Future()
    env.group_coordinator.delete_offsets.return_value = future
    env.create_kafka_apis().handle_offset_delete_request(request, None)
    # an unknown topic is not handed to the coordinator
    env.group_coordinator.delete_offsets.assert_called_once_with(
        request.context, _offset_delete_request(group, []).body(), None)

    future.set_result(dict(error_code=Errors.GROUP_ID_NOT_FOUND, topics=[]))
    assert verify_no_throttling(env, request).error_code == Errors.GROUP_ID_NOT_FOUND


# -- DescribeTransactions, ListTransactions -----------------------------------------------------------------------


def _ms_datetime(ms: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)


def _sent_start_time_ms(env: Env, request: Request, transactional_id: str) -> int:
    """A transaction's start time as the handler sent it: kio reads an int64 time back off the wire truncated to the
    second (TZAware.truncate), so the milliseconds are checked before encoding."""
    (body,) = [body for req, body in env.request_channel.sent if req is request]
    state = next(s for s in body.transaction_states if s.transactional_id == transactional_id)
    return round(state.transaction_start_time.timestamp() * 1000)


def _describe(authorizer: Authorizer) -> list[tuple[str, str, str, int, bool, bool]]:
    """The actions the authorizer was asked about, as buildExpectedActions spells them."""
    return [(a.operation, a.resource_type, a.resource_name, a.resource_reference_count, a.log_if_allowed,
             a.log_if_denied) for a in authorizer.calls]


def test_describe_transactions(env: Env) -> None:
    authorizer = Authorizer().allow("DESCRIBE", "TRANSACTIONAL_ID", "foo").allow("DESCRIBE", "TRANSACTIONAL_ID",
                                                                                  "bar", DENIED)
    request = build_request(ApiKeys.DESCRIBE_TRANSACTIONS, latest(ApiKeys.DESCRIBE_TRANSACTIONS),
                            transactional_ids=["foo", "bar"])
    now = env.time.milliseconds()
    env.txn_coordinator.handle_describe_transactions.side_effect = lambda tid: dict(
        error_code=Errors.NONE, transactional_id="foo", producer_id=12345, producer_epoch=15,
        transaction_start_time=_ms_datetime(now), transaction_state="CompleteCommit", transaction_timeout=10000,
        topics=[]) if tid == "foo" else pytest.fail(f"unexpected describe of {tid}")
    env.create_kafka_apis(authorizer=authorizer).handle_describe_transactions_request(request)

    assert _describe(authorizer) == [("DESCRIBE", "TRANSACTIONAL_ID", "foo", 1, True, True),
                                     ("DESCRIBE", "TRANSACTIONAL_ID", "bar", 1, True, True)]
    response = verify_no_throttling(env, request)
    assert len(response.transaction_states) == 2
    foo_state = next(s for s in response.transaction_states if s.transactional_id == "foo")
    assert foo_state.error_code == Errors.NONE
    assert foo_state.producer_id == 12345
    assert foo_state.producer_epoch == 15
    assert _sent_start_time_ms(env, request, "foo") == now
    assert foo_state.transaction_state == "CompleteCommit"
    assert foo_state.transaction_timeout == datetime.timedelta(milliseconds=10000)
    assert foo_state.topics == ()
    bar_state = next(s for s in response.transaction_states if s.transactional_id == "bar")
    assert bar_state.error_code == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


def test_describe_transactions_filters_unauthorized_topics(env: Env) -> None:
    transactional_id = "foo"
    # the principal may describe one of the two topics: the other is left out of the result
    authorizer = (Authorizer().allow("DESCRIBE", "TRANSACTIONAL_ID", transactional_id)
                  .allow("DESCRIBE", "TOPIC", "foo").allow("DESCRIBE", "TOPIC", "bar", DENIED))
    request = build_request(ApiKeys.DESCRIBE_TRANSACTIONS, latest(ApiKeys.DESCRIBE_TRANSACTIONS),
                            transactional_ids=[transactional_id])
    now = env.time.milliseconds()
    env.txn_coordinator.handle_describe_transactions.return_value = dict(
        error_code=Errors.NONE, transactional_id=transactional_id, producer_id=12345, producer_epoch=15,
        transaction_start_time=_ms_datetime(now), transaction_state="Ongoing", transaction_timeout=10000,
        topics=[dict(topic="foo", partitions=[1, 2]), dict(topic="bar", partitions=[3, 4])])
    env.create_kafka_apis(authorizer=authorizer).handle_describe_transactions_request(request)

    env.txn_coordinator.handle_describe_transactions.assert_called_once_with("foo")
    assert all(call[3:] == (1, True, True) for call in _describe(authorizer))
    response = verify_no_throttling(env, request)
    assert len(response.transaction_states) == 1
    foo_state = response.transaction_states[0]
    assert (foo_state.transactional_id, foo_state.error_code) == ("foo", Errors.NONE)
    assert (foo_state.producer_id, foo_state.producer_epoch) == (12345, 15)
    assert _sent_start_time_ms(env, request, "foo") == now
    assert foo_state.transaction_state == "Ongoing"
    assert foo_state.transaction_timeout == datetime.timedelta(milliseconds=10000)
    assert [(t.topic, t.partitions) for t in foo_state.topics] == [("foo", (1, 2))]


def test_list_transactions_error_response(env: Env) -> None:
    request = build_request(ApiKeys.LIST_TRANSACTIONS, latest(ApiKeys.LIST_TRANSACTIONS))
    env.txn_coordinator.handle_list_transactions.return_value = dict(error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS)
    env.create_kafka_apis().handle_list_transactions_request(request)

    env.txn_coordinator.handle_list_transactions.assert_called_once_with(set(), set(), -1)
    response = verify_no_throttling(env, request)
    assert len(response.transaction_states) == 0
    assert response.error_code == Errors.COORDINATOR_LOAD_IN_PROGRESS


def test_list_transactions_authorization(env: Env) -> None:
    authorizer = Authorizer().allow("DESCRIBE", "TRANSACTIONAL_ID", "foo").allow("DESCRIBE", "TRANSACTIONAL_ID",
                                                                                  "bar", DENIED)
    request = build_request(ApiKeys.LIST_TRANSACTIONS, latest(ApiKeys.LIST_TRANSACTIONS))
    env.txn_coordinator.handle_list_transactions.return_value = dict(error_code=Errors.NONE, transaction_states=[
        dict(transactional_id="foo", producer_id=12345, transaction_state="Ongoing"),
        dict(transactional_id="bar", producer_id=98765, transaction_state="PrepareAbort")])
    env.create_kafka_apis(authorizer=authorizer).handle_list_transactions_request(request)

    env.txn_coordinator.handle_list_transactions.assert_called_once_with(set(), set(), -1)
    assert _describe(authorizer) == [("DESCRIBE", "TRANSACTIONAL_ID", "foo", 1, True, True),
                                     ("DESCRIBE", "TRANSACTIONAL_ID", "bar", 1, True, True)]
    response = verify_no_throttling(env, request)
    assert len(response.transaction_states) == 1
    transaction_state = response.transaction_states[0]
    assert (transaction_state.transactional_id, transaction_state.producer_id,
            transaction_state.transaction_state) == ("foo", 12345, "Ongoing")


def test_alter_replica_log_dirs(env: Env) -> None:
    t0p0, t0p1, t0p2 = (TopicPartition("t0", p) for p in range(3))
    request = build_request(ApiKeys.ALTER_REPLICA_LOG_DIRS, latest(ApiKeys.ALTER_REPLICA_LOG_DIRS), dirs=[
        dict(path="/foo", topics=[dict(name="t0", partitions=[0, 1, 2])])])
    partition_results = {t0p0: Errors.NONE, t0p1: Errors.LOG_DIR_NOT_FOUND, t0p2: Errors.INVALID_TOPIC_EXCEPTION}
    env.replica_manager.alter_replica_log_dirs.return_value = partition_results
    env.create_kafka_apis().handle_alter_replica_log_dirs_request(request)

    env.replica_manager.alter_replica_log_dirs.assert_called_once_with({t0p0: "/foo", t0p1: "/foo", t0p2: "/foo"})
    response = verify_no_throttling(env, request)
    assert {TopicPartition(t.topic_name, p.partition_index): Errors.for_code(p.error_code)
            for t in response.results for p in t.partitions} == partition_results
    counts: dict[Errors, int] = {}
    for t in response.results:
        for p in t.partitions:
            counts[Errors.for_code(p.error_code)] = counts.get(Errors.for_code(p.error_code), 0) + 1
    assert counts == {Errors.NONE: 1, Errors.LOG_DIR_NOT_FOUND: 1, Errors.INVALID_TOPIC_EXCEPTION: 1}
