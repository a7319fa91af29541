"""Port of metadata/src/test/java/org/apache/kafka/controller/ReplicationControlManagerTest.java (Kafka 3.9).

Not applicable (see KAFKA below): the cases of features kafka-edu's KRaft controller has not built, namely eligible
leader replicas (KIP-966), controller mutation quotas, leader balancing and directory assignment (JBOD, KIP-858).
The other cases are Kafka's, with these differences of form:

- The test context is `_Context` below (Kafka's ReplicationControlTestContext). The port's managers have no
  Builders: their constructors get what the Builders set, and the managers' replay methods are named by record
  (`replay_all` dispatches as RecordTestUtils.replayAll does). The ClusterControlManager gets Kafka's test session
  timeout as Kafka computes it (`MILLISECONDS.convert(1000, NANOSECONDS)`, which is 0 ns), the MockTime's clock and
  a StripedReplicaPlacer over a MockRandom ported bit for bit, so the placer chooses the replicas Kafka's test sees.
- metadata.version: Kafka's context uses latestTesting (4.0-IV1, which writes the ELR record versions); the port,
  which has no ELR, uses 3.9-IV0, the newest version whose records it writes. Either way ELR is off.
- The port's ApiError leaves the message None where Kafka's `new ApiError(error)` fills in the error's default
  text (the port's Errors carry no texts); ResultOrError is the id or name itself, or an ApiError.
- BrokersToIsrs is answered by a scan in the port: `brokers_to_isrs().iterator(broker, leaders_only)` is Kafka's.
- Requests and responses are kio messages of the version the case names, so a response's fields are those of its
  version (an AlterPartition v0 or v1 answer has a topic name, v2 and v3 a topic id). A CreatePartitions result is
  a dict of CreatePartitionsTopicResult's fields.
- Left out of testCreateTopicsWithValidateOnlyFlag: its mutationQuotaExceeded=true run (controller mutation quotas
  are not built); the false run is ported.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from collections.abc import Iterable
from typing import Any

import pytest
from kio.schema.alter_partition import v0 as ap0
from kio.schema.alter_partition import v1 as ap1
from kio.schema.alter_partition import v2 as ap2
from kio.schema.alter_partition import v3 as ap3
from kio.schema.alter_partition_reassignments.v0 import request as apr
from kio.schema.alter_partition_reassignments.v0 import response as aprr
from kio.schema.broker_heartbeat.v1.request import BrokerHeartbeatRequest
from kio.schema.create_partitions.v3 import request as cp
from kio.schema.create_topics.v7 import request as ct
from kio.schema.create_topics.v7 import response as ctr
from kio.schema.elect_leaders.v2 import request as elr
from kio.schema.elect_leaders.v2 import response as elrr
from kio.schema.list_partition_reassignments.v0 import request as lrq
from kio.schema.list_partition_reassignments.v0 import response as lr
from kio.static.primitive import i8, i16, i32, i32Timedelta, i64

from kafka_edu.v1_0_2.clients.common.errors import InvalidReplicaAssignmentException, PolicyViolationException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.clients.server.policy.create_topic_policy import CreateTopicPolicy, RequestMetadata
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from kafka_edu.v3_9.metadata.controller import configuration_validator
from kafka_edu.v3_9.metadata.controller.cluster_control_manager import ClusterControlManager
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import (
    ConfigResourceType,
    ConfigurationControlManager,
    OpType,
)
from kafka_edu.v3_9.metadata.controller.controller_exceptions import StaleBrokerEpochException
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    FeatureControlManager,
    partition_change_record_version,
)
from kafka_edu.v3_9.metadata.controller.replication_control_manager import (
    ReplicationControlManager,
    TopicIdPartition,
    validate_new_topic_names,
)
from kafka_edu.v3_9.metadata.metadata.broker_registration import (
    BrokerHeartbeatReply,
    BrokerRegistrationInControlledShutdownChange,
)
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState, PartitionRegistration
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import PartitionAssignment, UsableBroker
from kafka_edu.v3_9.metadata.metadata.placement.striped_replica_placer import StripedReplicaPlacer
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.controller.replication_control_manager_test_helpers import (
    FAKE_KAFKA_CONFIG_SCHEMA,
    MockRandom,
    anonymous_context_for,
    replay_all,
)

_ELR = "eligible leader replicas (KIP-966) are not built (docs/kraft.md)"
_QUOTAS = "controller mutation quotas: quotas are not built (docs/kraft.md)"
_JBOD = "directory assignment (JBOD, KIP-858: AssignReplicasToDirs, offline log dirs) is not built"

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/ReplicationControlManagerTest.java",
    cases=[
        "testCreateTopics",
        "testCreateTopicsWithMutationQuotaExceeded",
        "testCreateTopicsISRInvariants",
        "testCreateTopicsWithConfigs",
        "testCreateTopicsWithValidateOnlyFlag",
        "testInvalidCreateTopicsWithValidateOnlyFlag",
        "testCreateTopicsWithPolicy",
        "testCreateTopicWithCollisionChars",
        "testValidateNewTopicNames",
        "testTopicNameCollision",
        "testRemoveLeaderships",
        "testShrinkAndExpandIsr",
        "testEligibleLeaderReplicas_ShrinkAndExpandIsr",
        "testEligibleLeaderReplicas_BrokerFence",
        "testEligibleLeaderReplicas_DeleteTopic",
        "testEligibleLeaderReplicas_EffectiveMinIsr",
        "testEligibleLeaderReplicas_CleanElection",
        "testEligibleLeaderReplicas_UncleanShutdown",
        "testAlterPartitionHandleUnknownTopicIdOrName",
        "testInvalidAlterPartitionRequests",
        "testDeleteTopics",
        "testDeleteTopicsWithMutationQuotaExceeded",
        "testCreatePartitions",
        "testCreatePartitionsWithMutationQuotaExceeded",
        "testCreatePartitionsFailsWhenAllBrokersAreFencedOrInControlledShutdown",
        "testCreatePartitionsISRInvariants",
        "testValidateGoodManualPartitionAssignments",
        "testValidateBadManualPartitionAssignments",
        "testReassignPartitions",
        "testAlterPartitionShouldRejectFencedBrokers",
        "testAlterPartitionShouldRejectBrokersWithStaleEpoch",
        "testAlterPartitionShouldRejectShuttingDownBrokers",
        "testCancelReassignPartitions",
        "testManualPartitionAssignmentOnAllFencedBrokers",
        "testCreatePartitionsFailsWithManualAssignmentWithAllFenced",
        "testElectUncleanLeaders_WithoutElr",
        "testPreferredElectionDoesNotTriggerUncleanElection",
        "testFenceMultipleBrokers",
        "testElectPreferredLeaders",
        "testBalancePartitionLeaders",
        "testMaybeTriggerUncleanLeaderElectionForLeaderlessPartitions",
        "testKRaftClusterDescriber",
        "testProcessBrokerHeartbeatInControlledShutdown",
        "testProcessExpiredBrokerHeartbeat",
        "testReassignPartitionsHandlesNewReassignmentThatRemovesPreviouslyAddingReplicas",
        "testDuplicateTopicIdReplay",
        "testHandleAssignReplicasToDirsFailsOnOlderMv",
        "testHandleAssignReplicasToDirs",
        "testHandleDirectoriesOffline",
    ],
    not_applicable={
        "testCreateTopicsWithMutationQuotaExceeded": _QUOTAS,
        "testEligibleLeaderReplicas_ShrinkAndExpandIsr": _ELR,
        "testEligibleLeaderReplicas_BrokerFence": _ELR,
        "testEligibleLeaderReplicas_DeleteTopic": _ELR,
        "testEligibleLeaderReplicas_EffectiveMinIsr": _ELR,
        "testEligibleLeaderReplicas_CleanElection": _ELR,
        "testEligibleLeaderReplicas_UncleanShutdown": _ELR,
        "testDeleteTopicsWithMutationQuotaExceeded": _QUOTAS,
        "testCreatePartitionsWithMutationQuotaExceeded": _QUOTAS,
        "testBalancePartitionLeaders": "automatic leader balancing (preferred-leader elections) is not built",
        "testHandleAssignReplicasToDirsFailsOnOlderMv": _JBOD,
        "testHandleAssignReplicasToDirs": _JBOD,
        "testHandleDirectoriesOffline": _JBOD,
    },
)

MV = MetadataVersion
BROKER_SESSION_TIMEOUT_MS = 1000
# Kafka's context passes TimeUnit.MILLISECONDS.convert(BROKER_SESSION_TIMEOUT_MS, TimeUnit.NANOSECONDS): 0.
SESSION_TIMEOUT_NS = BROKER_SESSION_TIMEOUT_MS // 1_000_000
CLUSTER_ID = "kYnFXIWbTfOonlFrmTejrw"
ZERO_UUID = uuid.UUID(int=0)
PLAINTEXT = 0  # SecurityProtocol.PLAINTEXT.id
# DirectoryId (Kafka 3.9)
MIGRATING = uuid.UUID(int=0)
UNASSIGNED = uuid.UUID(int=1)


def _uuid(text: str) -> uuid.UUID:
    """Uuid.fromString, as the uuid.UUID the port's records hold."""
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


def _test_broker_dir(broker_id: int) -> uuid.UUID:
    return _uuid("TESTBROKER" + str(100000 + broker_id)[1:] + "DIRAAAA")


def default_broker_epoch(broker_id: int) -> int:
    return broker_id + 100


def broker_state(broker_id: int, broker_epoch: int) -> Any:
    return ap3.request.BrokerState(broker_id=i32(broker_id), broker_epoch=i64(broker_epoch))


def isr_with_default_epoch(*isr: int) -> tuple[Any, ...]:
    return tuple(broker_state(b, default_broker_epoch(b)) for b in isr)


def _registration(replicas: list[int], directories: list[uuid.UUID], isr: list[int], leader: int,
                  leader_epoch: int = 0, partition_epoch: int = 0) -> PartitionRegistration:
    """PartitionRegistration.Builder, RECOVERED."""
    return PartitionRegistration(replicas=tuple(replicas), directories=tuple(directories), isr=tuple(isr),
                                 leader=leader, leader_recovery_state=LeaderRecoveryState.RECOVERED,
                                 leader_epoch=leader_epoch, partition_epoch=partition_epoch)


def _creatable_topic(name: str, num_partitions: int, replication_factor: int,
                     configs: dict[str, str | None] | None = None,
                     assignments: Iterable[Any] = ()) -> Any:
    return ct.CreatableTopic(
        name=name, num_partitions=i32(num_partitions), replication_factor=i16(replication_factor),
        assignments=tuple(assignments),
        configs=tuple(ct.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()))


def _create_topics_request(*topics: Any, validate_only: bool = False) -> Any:
    return ct.CreateTopicsRequest(topics=tuple(topics), validate_only=validate_only)


def _find(response: Any, name: str) -> Any:
    """CreatableTopicResultCollection.find."""
    return next((t for t in response.topics if t.name == name), None)


def _error_result(name: str, error: Errors, message: str | None) -> Any:
    """new CreatableTopicResult().setName(..).setErrorCode(..).setErrorMessage(..)."""
    return ctr.CreatableTopicResult(name=name, topic_id=ZERO_UUID, error_code=error, error_message=message, configs=())


def _response(*results: Any) -> Any:
    return ctr.CreateTopicsResponse(throttle_time=i32Timedelta.parse(datetime.timedelta(0)), topics=tuple(results))


def without_configs(data: Any) -> Any:
    return dataclasses.replace(data, topics=tuple(dataclasses.replace(t, configs=()) for t in data.topics))


class _MockCreateTopicPolicy(CreateTopicPolicy):
    def __init__(self, expecteds: list[RequestMetadata]) -> None:
        self.expecteds = expecteds
        self.index = 0

    def configure(self, configs: dict[str, Any]) -> None:
        pass

    def validate(self, request_metadata: RequestMetadata) -> None:
        cur_index = self.index
        self.index += 1
        if cur_index >= len(self.expecteds):
            raise PolicyViolationException(f"Unexpected topic creation: index out of range at {cur_index}")
        expected = self.expecteds[cur_index]
        if expected != request_metadata:
            raise PolicyViolationException(f"Expected: {expected}. Got: {request_metadata}")

    def close(self) -> None:
        pass


class _Context:
    """ReplicationControlTestContext."""

    def __init__(self, metadata_version: MetadataVersion = MV.IBP_3_9_IV0,
                 create_topic_policy: CreateTopicPolicy | None = None, mock_time: MockTime | None = None,
                 static_config: dict[str, Any] | None = None) -> None:
        self.snapshot_registry = SnapshotRegistry()
        self.time = mock_time if mock_time is not None else MockTime()
        self.random = MockRandom()
        self.configuration_control = ConfigurationControlManager(
            self.snapshot_registry, config_schema=FAKE_KAFKA_CONFIG_SCHEMA, validator=configuration_validator.NO_OP,
            static_config=static_config or {})
        self.feature_control = FeatureControlManager(self.snapshot_registry, metadata_version)
        self.cluster_control = ClusterControlManager(
            self.snapshot_registry, CLUSTER_ID, self.feature_control, StripedReplicaPlacer(self.random),
            session_timeout_ns=SESSION_TIMEOUT_NS, nanoseconds=self.time.nanoseconds)
        self.replication_control = ReplicationControlManager(
            self.snapshot_registry, self.cluster_control, self.configuration_control, self.feature_control,
            create_topic_policy=create_topic_policy)
        self.cluster_control.activate()

    def replay(self, records: list[Any]) -> None:
        replay_all(self.cluster_control, records)
        replay_all(self.configuration_control, records)
        replay_all(self.replication_control, records)

    def create_test_topic(self, name: str, num_partitions: int, replication_factor: int,
                          expected_error_code: Errors) -> Any:
        request = _create_topics_request(_creatable_topic(name, num_partitions, replication_factor))
        result = self.replication_control.create_topics(anonymous_context_for(ApiKeys.CREATE_TOPICS), request, {name})
        topic_result = _find(result.response, name)
        assert topic_result is not None
        assert topic_result.error_code == expected_error_code
        if expected_error_code == Errors.NONE:
            self.replay(result.records)
        return topic_result

    def create_test_topic_with_replicas(self, name: str, replicas: list[list[int]],
                                        configs: dict[str, str] | None = None,
                                        expected_error_code: Errors = Errors.NONE) -> Any:
        assert len(replicas) != 0
        assignments = [ct.CreatableReplicaAssignment(partition_index=i32(i), broker_ids=tuple(i32(b) for b in r))
                       for i, r in enumerate(replicas)]
        request = _create_topics_request(_creatable_topic(name, -1, -1, configs, assignments))
        result = self.replication_control.create_topics(anonymous_context_for(ApiKeys.CREATE_TOPICS), request, {name})
        topic_result = _find(result.response, name)
        assert topic_result is not None
        assert topic_result.error_code == expected_error_code
        if expected_error_code == Errors.NONE:
            assert topic_result.num_partitions == len(replicas)
            assert topic_result.replication_factor == len(replicas[0])
            self.replay(result.records)
        return topic_result

    def delete_topic(self, context: Any, topic_id: uuid.UUID) -> None:
        result = self.replication_control.delete_topics(context, [topic_id])
        assert set(result.response) == {topic_id}
        assert result.response[topic_id].error == Errors.NONE
        assert len(result.records) == 1
        remove_record = result.records[0].message
        assert isinstance(remove_record, RemoveTopicRecord)
        assert remove_record.topic_id == topic_id
        self.replay(result.records)

    def create_partitions(self, count: int, name: str, replicas: list[list[int]],
                          expected_error_code: Errors) -> None:
        assert len(replicas) != 0
        topic = cp.CreatePartitionsTopic(name=name, count=i32(count), assignments=tuple(
            cp.CreatePartitionsAssignment(broker_ids=tuple(i32(b) for b in r)) for r in replicas))
        result = self.replication_control.create_partitions(anonymous_context_for(ApiKeys.CREATE_PARTITIONS), [topic])
        assert len(result.response) == 1
        topic_result = result.response[0]
        assert topic_result["name"] == name
        assert topic_result["error_code"] == expected_error_code
        self.replay(result.records)

    def register_brokers(self, *broker_ids: int) -> None:
        brokers_and_dirs: list[Any] = []
        for broker_id in broker_ids:
            brokers_and_dirs += [broker_id, [_test_broker_dir(broker_id)]]
        self.register_brokers_with_dirs(*brokers_and_dirs)

    def register_brokers_with_dirs(self, *broker_ids_and_dirs: Any) -> None:
        if len(broker_ids_and_dirs) % 2 != 0:
            raise ValueError("uneven number of arguments")
        for broker_id, log_dirs in zip(broker_ids_and_dirs[::2], broker_ids_and_dirs[1::2], strict=True):
            broker_record = RegisterBrokerRecord(
                broker_epoch=i64(default_broker_epoch(broker_id)), broker_id=i32(broker_id), rack=None,
                log_dirs=tuple(log_dirs), incarnation_id=ZERO_UUID, features=(),
                end_points=(BrokerEndpoint(security_protocol=i16(PLAINTEXT), port=9092 + broker_id, name="PLAINTEXT",
                                           host="localhost"),))
            self.replay([ApiMessageAndVersion(broker_record, 3)])

    def alter_partition(self, topic_id_partition: TopicIdPartition, leader_id: int, isr_with_epoch: tuple[Any, ...],
                        leader_recovery_state: LeaderRecoveryState) -> None:
        registration = self.cluster_control.broker_registrations().get(leader_id)
        assert not registration.fenced
        partition = self.replication_control.get_partition(topic_id_partition.topic_id,
                                                           topic_id_partition.partition_id)
        assert partition is not None
        assert partition.leader == leader_id
        partition_data = ap3.request.PartitionData(
            partition_index=i32(topic_id_partition.partition_id), partition_epoch=i32(partition.partition_epoch),
            leader_epoch=i32(partition.leader_epoch), leader_recovery_state=i8(int(leader_recovery_state)),
            new_isr_with_epochs=isr_with_epoch)
        topic_data = ap3.request.TopicData(topic_id=topic_id_partition.topic_id, partitions=(partition_data,))
        result = self.replication_control.alter_partition(
            anonymous_context_for(ApiKeys.ALTER_PARTITION),
            ap3.request.AlterPartitionRequest(broker_id=i32(leader_id), broker_epoch=i64(registration.epoch),
                                              topics=(topic_data,)))
        self.replay(result.records)

    def unfence_brokers(self, *broker_ids: int) -> None:
        for broker_id in broker_ids:
            result = self.replication_control.process_broker_heartbeat(BrokerHeartbeatRequest(
                broker_id=i32(broker_id), broker_epoch=i64(default_broker_epoch(broker_id)),
                current_metadata_offset=i64(1), want_fence=False, want_shut_down=False), 0)
            assert result.response == BrokerHeartbeatReply(True, False, False, False)
            self.replay(result.records)

    def in_controlled_shutdown_brokers(self, *broker_ids: int) -> None:
        for broker_id in broker_ids:
            record = BrokerRegistrationChangeRecord(
                broker_id=i32(broker_id), broker_epoch=i64(default_broker_epoch(broker_id)),
                in_controlled_shutdown=i8(BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN.value))
            self.replay([ApiMessageAndVersion(record, 1)])

    def fence_brokers(self, broker_ids: set[int]) -> None:
        self.time.sleep(BROKER_SESSION_TIMEOUT_MS)
        unfenced_broker_ids = {b for b in self.cluster_control.broker_registrations().key_set()
                               if b not in broker_ids}
        self.unfence_brokers(*unfenced_broker_ids)
        stale_broker = self.cluster_control.heartbeat_manager().find_one_stale_broker()
        while stale_broker is not None:
            fence_result = self.replication_control.maybe_fence_one_stale_broker()
            self.replay(fence_result.records)
            stale_broker = self.cluster_control.heartbeat_manager().find_one_stale_broker()
        assert self.fenced_broker_ids() == broker_ids

    def fenced_broker_ids(self) -> set[int]:
        """ClusterControlManager.fencedBrokerIds."""
        return {b for b, r in self.cluster_control.broker_registrations().entry_set() if r.fenced}

    def current_broker_epoch(self, broker_id: int) -> int:
        registration = self.cluster_control.broker_registrations().get(broker_id)
        assert registration is not None, f"No current registration for broker {broker_id}"
        return registration.epoch

    def current_leader(self, topic_id_partition: TopicIdPartition) -> int | None:
        partition = self.replication_control.get_partition(topic_id_partition.topic_id,
                                                           topic_id_partition.partition_id)
        return None if partition.leader < 0 else partition.leader


def new_alter_partition(replication_control: ReplicationControlManager, topic_id_partition: TopicIdPartition,
                        new_isr_with_epoch: tuple[Any, ...], leader_recovery_state: LeaderRecoveryState) -> Any:
    partition_control = replication_control.get_partition(topic_id_partition.topic_id,
                                                          topic_id_partition.partition_id)
    return ap3.request.PartitionData(partition_index=i32(0), leader_epoch=i32(partition_control.leader_epoch),
                                     partition_epoch=i32(partition_control.partition_epoch),
                                     new_isr_with_epochs=new_isr_with_epoch,
                                     leader_recovery_state=i8(int(leader_recovery_state)))


def send_alter_partition(replication_control: ReplicationControlManager, broker_id: int, broker_epoch: int,
                         topic_id: uuid.UUID, partition_data: Any) -> Any:
    request = ap3.request.AlterPartitionRequest(
        broker_id=i32(broker_id), broker_epoch=i64(broker_epoch),
        topics=(ap3.request.TopicData(topic_id=topic_id, partitions=(partition_data,)),))
    result = replication_control.alter_partition(anonymous_context_for(ApiKeys.ALTER_PARTITION), request)
    replay_all(replication_control, result.records)
    return result


def assert_alter_partition_response(alter_partition_result: Any, topic_id_partition: TopicIdPartition,
                                    expected_error: Errors) -> Any:
    response = alter_partition_result.response
    assert len(response.topics) == 1
    topic_data = response.topics[0]
    assert topic_data.topic_id == topic_id_partition.topic_id
    assert len(topic_data.partitions) == 1
    partition_data = topic_data.partitions[0]
    assert partition_data.partition_index == topic_id_partition.partition_id
    assert Errors.for_code(partition_data.error_code) is expected_error
    return partition_data


def assert_consistent_alter_partition_response(replication_control: ReplicationControlManager,
                                               topic_id_partition: TopicIdPartition, partition_data: Any) -> None:
    partition_control = replication_control.get_partition(topic_id_partition.topic_id,
                                                          topic_id_partition.partition_id)
    assert partition_data.leader_id == partition_control.leader
    assert partition_data.leader_epoch == partition_control.leader_epoch
    assert partition_data.partition_epoch == partition_control.partition_epoch
    assert list(partition_data.isr) == list(partition_control.isr)


def assert_created_topic_configs(ctx: _Context, topic: str, request_configs: dict[str, str]) -> None:
    configs = ctx.configuration_control.get_configs((ConfigResourceType.TOPIC, topic))
    assert len(configs) == len(request_configs)
    for name, value in request_configs.items():
        assert configs.get(name) == value


def assert_empty_topic_configs(ctx: _Context, topic: str) -> None:
    assert ctx.configuration_control.get_configs((ConfigResourceType.TOPIC, topic)) == {}


def _alter_partition_request(version: int, broker_id: int, broker_epoch: int, topic_name: str,
                             topic_id: uuid.UUID, partitions: list[dict[str, Any]]) -> Any:
    """An AlterPartitionRequestData built at `version` (AlterPartitionRequest.Builder.build(version)): topics by
    name up to v1, by id from v2; the new ISR without epochs below v3."""
    module = {0: ap0, 1: ap1, 2: ap2, 3: ap3}[version].request
    topic = {"topic_name": topic_name, "topic_id": topic_id, "partitions": [
        dict(p, new_isr=[s.broker_id for s in p.get("new_isr_with_epochs", ())],
             new_isr_with_epochs=p.get("new_isr_with_epochs", ())) for p in partitions]}
    return build(module.AlterPartitionRequest, broker_id=broker_id, broker_epoch=broker_epoch, topics=[topic])


def _alter_partition_response(version: int, topic_name: str, topic_id: uuid.UUID,
                              partitions: list[dict[str, Any]]) -> Any:
    """AlterPartitionResponseData at `version`: the fields a case leaves unset keep their defaults (0, empty)."""
    module = {0: ap0, 1: ap1, 2: ap2, 3: ap3}[version].response
    defaults = {"leader_id": 0, "leader_epoch": 0, "isr": (), "leader_recovery_state": 0, "partition_epoch": 0}
    return build(module.AlterPartitionResponse, throttle_time=0, error_code=Errors.NONE, topics=[
        {"topic_name": topic_name, "topic_id": topic_id, "partitions": [dict(defaults, **p) for p in partitions]}])


ALTER_PARTITION_VERSIONS = [0, 1, 2, 3]  # @ApiKeyVersionsSource(apiKey = ApiKeys.ALTER_PARTITION)


# -- createTopics ---------------------------------------------------------------------------------------------------


def test_create_topics() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    request = _create_topics_request(_creatable_topic("foo", -1, -1))
    request_context = anonymous_context_for(ApiKeys.CREATE_TOPICS)
    result = replication_control.create_topics(request_context, request, {"foo"})
    assert result.response == _response(_error_result(
        "foo", Errors.INVALID_REPLICATION_FACTOR,
        "Unable to replicate the partition 3 time(s): All brokers are currently fenced."))

    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0)
    ctx.in_controlled_shutdown_brokers(0)
    result2 = replication_control.create_topics(request_context, request, {"foo"})
    assert result2.response == _response(_error_result(
        "foo", Errors.INVALID_REPLICATION_FACTOR,
        "Unable to replicate the partition 3 time(s): All brokers are currently fenced or in controlled shutdown."))

    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    result3 = replication_control.create_topics(request_context, request, {"foo"})
    expected_response3 = _response(ctr.CreatableTopicResult(
        name="foo", topic_id=_find(result3.response, "foo").topic_id, error_code=Errors.NONE, error_message=None,
        num_partitions=i32(1), replication_factor=i16(3), configs=()))
    assert without_configs(result3.response) == expected_response3
    ctx.replay(result3.records)
    assert replication_control.get_partition(result3.records[0].message.topic_id, 0) == _registration(
        [1, 2, 0], [_test_broker_dir(1), _test_broker_dir(2), _test_broker_dir(0)], [1, 2, 0], 1)
    result4 = replication_control.create_topics(request_context, request, {"foo"})
    assert result4.response == _response(_error_result("foo", Errors.TOPIC_ALREADY_EXISTS,
                                                       "Topic 'foo' already exists."))


def test_create_topics_isr_invariants() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    request = _create_topics_request(_creatable_topic("foo", -1, -1))
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1)
    ctx.in_controlled_shutdown_brokers(1)
    result = replication_control.create_topics(anonymous_context_for(ApiKeys.CREATE_TOPICS), request, {"foo"})
    expected_response = _response(ctr.CreatableTopicResult(
        name="foo", topic_id=_find(result.response, "foo").topic_id, error_code=Errors.NONE, error_message=None,
        num_partitions=i32(1), replication_factor=i16(3), configs=()))
    assert without_configs(result.response) == expected_response
    ctx.replay(result.records)
    # Broker 2 is fenced and broker 1 in controlled shutdown: neither may be in the ISR.
    assert replication_control.get_partition(result.records[0].message.topic_id, 0) == _registration(
        [1, 0, 2], [_test_broker_dir(1), _test_broker_dir(0), _test_broker_dir(2)], [0], 0)


def test_create_topics_with_configs() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    valid_configs = {"foo": "notNull"}
    request1 = _create_topics_request(_creatable_topic("foo", -1, -1, valid_configs))
    request_context = anonymous_context_for(ApiKeys.CREATE_TOPICS)
    result1 = replication_control.create_topics(request_context, request1, {"foo"})
    assert _find(result1.response, "foo").error_code == 0
    records1 = result1.records
    assert len(records1) == 3
    assert type(records1[0].message) is TopicRecord
    assert type(records1[1].message) is ConfigRecord
    assert type(records1[2].message) is PartitionRecord
    ctx.replay(result1.records)
    assert ctx.configuration_control.get_configs((ConfigResourceType.TOPIC, "foo")).get("foo") == "notNull"

    request2 = _create_topics_request(_creatable_topic("bar", -1, -1, {"foo": None}))
    result2 = replication_control.create_topics(request_context, request2, {"bar"})
    assert _find(result2.response, "bar").error_code == Errors.INVALID_CONFIG
    assert _find(result2.response, "bar").error_message == "Null value not supported for topic configs: foo"

    request3 = _create_topics_request(_creatable_topic("baz", -1, -2, valid_configs))
    result3 = replication_control.create_topics(request_context, request3, {"baz"})
    assert _find(result3.response, "baz").error_code == Errors.INVALID_REPLICATION_FACTOR
    assert result3.records == []

    # several topics in one request
    batched_topic1, batched_topic2 = "batched-topic-1", "batched-topic2"
    request4 = _create_topics_request(_creatable_topic(batched_topic1, -1, -1, valid_configs),
                                      _creatable_topic(batched_topic2, -1, -2, valid_configs))
    result4 = replication_control.create_topics(request_context, request4, {batched_topic1, batched_topic2})
    assert _find(result4.response, batched_topic1).error_code == Errors.NONE
    assert _find(result4.response, batched_topic2).error_code == Errors.INVALID_REPLICATION_FACTOR
    assert len(result4.records) == 3
    assert type(result4.records[0].message) is TopicRecord
    batched_topic1_record = result4.records[0].message
    assert batched_topic1_record.name == batched_topic1
    assert result4.records[1].message == ConfigRecord(resource_name=batched_topic1,
                                                      resource_type=int(ConfigResourceType.TOPIC), name="foo",
                                                      value="notNull")
    assert type(result4.records[2].message) is PartitionRecord
    assert result4.records[2].message.topic_id == batched_topic1_record.topic_id


@pytest.mark.parametrize("mutation_quota_exceeded", [False])  # true: quotas are not built (see the docstring)
def test_create_topics_with_validate_only_flag(mutation_quota_exceeded: bool) -> None:
    ctx = _Context()
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    request = _create_topics_request(_creatable_topic("foo", 1, 3), validate_only=True)
    result = ctx.replication_control.create_topics(anonymous_context_for(ApiKeys.CREATE_TOPICS), request, {"foo"})
    assert len(result.records) == 0
    assert _find(result.response, "foo").error_code == Errors.NONE


def test_invalid_create_topics_with_validate_only_flag() -> None:
    ctx = _Context()
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    request = _create_topics_request(_creatable_topic("foo", 1, 4), validate_only=True)
    result = ctx.replication_control.create_topics(anonymous_context_for(ApiKeys.CREATE_TOPICS), request, {"foo"})
    assert len(result.records) == 0
    assert result.response == _response(_error_result(
        "foo", Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition 4 time(s): The target "
        "replication factor of 4 cannot be reached because only 3 broker(s) are registered."))


def test_create_topics_with_policy() -> None:
    create_topic_policy = _MockCreateTopicPolicy([
        RequestMetadata("foo", 2, 2, None, {}),
        RequestMetadata("bar", 3, 2, None, {}),
        RequestMetadata("baz", None, None, {0: [2, 1, 0]}, {"segment.bytes": "12300000"}),
        RequestMetadata("quux", None, None, {0: [2, 1, 0]}, {}),
    ])
    ctx = _Context(create_topic_policy=create_topic_policy)
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    ctx.create_test_topic("foo", 2, 2, Errors.NONE)
    ctx.create_test_topic("bar", 3, 3, Errors.POLICY_VIOLATION)
    ctx.create_test_topic_with_replicas("baz", [[2, 1, 0]], {"segment.bytes": "12300000"}, Errors.NONE)
    ctx.create_test_topic_with_replicas("quux", [[1, 2, 0]], expected_error_code=Errors.POLICY_VIOLATION)


def test_create_topic_with_collision_chars() -> None:
    ctx = _Context()
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    initial_topic = ctx.create_test_topic("foo.bar", 2, 2, Errors.NONE)
    assert ctx.replication_control.get_topic(initial_topic.topic_id).num_partitions(LATEST_EPOCH) == 2
    ctx.delete_topic(anonymous_context_for(ApiKeys.DELETE_TOPICS), initial_topic.topic_id)

    recreated_topic = ctx.create_test_topic("foo.bar", 4, 2, Errors.NONE)
    assert initial_topic.topic_id != recreated_topic.topic_id
    assert ctx.replication_control.get_topic(recreated_topic.topic_id).num_partitions(LATEST_EPOCH) == 4


def test_validate_new_topic_names() -> None:
    topic_errors: dict[str, ApiError] = {}
    topics = [_creatable_topic("", 0, 0), _creatable_topic("woo", 0, 0), _creatable_topic(".", 0, 0)]
    validate_new_topic_names(topic_errors, topics, {})
    assert topic_errors == {
        "": ApiError(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: the empty string is not allowed"),
        ".": ApiError(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: '.' is not allowed"),
    }


def test_topic_name_collision() -> None:
    topic_errors: dict[str, ApiError] = {}
    topics = [_creatable_topic("foo.bar", 0, 0), _creatable_topic("woo.bar_foo", 0, 0)]
    collision_map = {"foo_bar": sorted(["foo_bar"]),  # TreeSets
                     "woo_bar_foo": sorted(["woo.bar.foo", "woo_bar.foo"])}
    validate_new_topic_names(topic_errors, topics, collision_map)
    assert topic_errors == {
        "foo.bar": ApiError(Errors.INVALID_TOPIC_EXCEPTION, "Topic 'foo.bar' collides with existing topic: foo_bar"),
        "woo.bar_foo": ApiError(Errors.INVALID_TOPIC_EXCEPTION,
                                "Topic 'woo.bar_foo' collides with existing topic: woo.bar.foo"),
    }


# -- leaders and ISRs -----------------------------------------------------------------------------------------------


def test_remove_leaderships() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3)
    ctx.unfence_brokers(0, 1, 2, 3)
    result = ctx.create_test_topic_with_replicas("foo", [[0, 1, 2], [1, 2, 3], [2, 3, 0], [0, 2, 1]])
    expected_partitions = {TopicIdPartition(result.topic_id, 0), TopicIdPartition(result.topic_id, 3)}
    assert set(replication_control.brokers_to_isrs().iterator(0, True)) == expected_partitions
    records: list[Any] = []
    replication_control.handle_broker_fenced(0, records)
    ctx.replay(records)
    assert set(replication_control.brokers_to_isrs().iterator(0, True)) == set()


def test_shrink_and_expand_isr() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    create_topic_result = ctx.create_test_topic_with_replicas("foo", [[0, 1, 2]])
    topic_id_partition = TopicIdPartition(create_topic_result.topic_id, 0)
    assert ctx.current_leader(topic_id_partition) == 0
    broker_epoch = ctx.current_broker_epoch(0)
    shrink_isr_request = new_alter_partition(replication_control, topic_id_partition, isr_with_default_epoch(0, 1),
                                             LeaderRecoveryState.RECOVERED)
    shrink_isr_result = send_alter_partition(replication_control, 0, broker_epoch, topic_id_partition.topic_id,
                                             shrink_isr_request)
    shrink_isr_response = assert_alter_partition_response(shrink_isr_result, topic_id_partition, Errors.NONE)
    assert_consistent_alter_partition_response(replication_control, topic_id_partition, shrink_isr_response)

    expand_isr_request = new_alter_partition(replication_control, topic_id_partition,
                                             isr_with_default_epoch(0, 1, 2), LeaderRecoveryState.RECOVERED)
    expand_isr_result = send_alter_partition(replication_control, 0, broker_epoch, topic_id_partition.topic_id,
                                             expand_isr_request)
    expand_isr_response = assert_alter_partition_response(expand_isr_result, topic_id_partition, Errors.NONE)
    assert_consistent_alter_partition_response(replication_control, topic_id_partition, expand_isr_response)


# -- alterPartition -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ALTER_PARTITION_VERSIONS)
def test_alter_partition_handle_unknown_topic_id_or_name(version: int) -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    topic_name = "foo"
    topic_id = uuid.uuid4()
    request = _alter_partition_request(version, 0, 100, topic_name if version <= 1 else "",
                                       topic_id if version > 1 else ZERO_UUID,
                                       [{"partition_index": 0, "leader_epoch": 0, "partition_epoch": 0}])
    result = replication_control.alter_partition(anonymous_context_for(ApiKeys.ALTER_PARTITION, version), request)
    expected_error = Errors.UNKNOWN_TOPIC_ID if version > 1 else Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert result.response == _alter_partition_response(
        version, topic_name if version <= 1 else "", topic_id if version > 1 else ZERO_UUID,
        [{"partition_index": 0, "error_code": expected_error}])


def test_invalid_alter_partition_requests() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    create_topic_result = ctx.create_test_topic_with_replicas("foo", [[0, 1, 2]])
    topic_id_partition = TopicIdPartition(create_topic_result.topic_id, 0)
    leader_id, not_leader_id = 0, 1
    assert ctx.current_leader(topic_id_partition) == leader_id
    broker_epoch = ctx.current_broker_epoch(0)
    topic_id = topic_id_partition.topic_id

    def request(isr: tuple[Any, ...], state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED) -> Any:
        return new_alter_partition(replication_control, topic_id_partition, isr, state)

    # Invalid leader
    result = send_alter_partition(replication_control, not_leader_id, ctx.current_broker_epoch(not_leader_id),
                                  topic_id, request(isr_with_default_epoch(0, 1)))
    assert_alter_partition_response(result, topic_id_partition, Errors.INVALID_REQUEST)

    # Stale broker epoch
    with pytest.raises(StaleBrokerEpochException):
        send_alter_partition(replication_control, leader_id, broker_epoch - 1, topic_id,
                             request(isr_with_default_epoch(0, 1)))

    # Invalid leader epoch
    invalid_leader_epoch_request = dataclasses.replace(request(isr_with_default_epoch(0, 1)), leader_epoch=i32(500))
    result = send_alter_partition(replication_control, leader_id, ctx.current_broker_epoch(leader_id), topic_id,
                                  invalid_leader_epoch_request)
    assert_alter_partition_response(result, topic_id_partition, Errors.NOT_CONTROLLER)

    # Invalid partition epoch
    invalid_partition_epoch_request = dataclasses.replace(request(isr_with_default_epoch(0, 1)),
                                                          partition_epoch=i32(500))
    result = send_alter_partition(replication_control, leader_id, ctx.current_broker_epoch(leader_id), topic_id,
                                  invalid_partition_epoch_request)
    assert_alter_partition_response(result, topic_id_partition, Errors.NOT_CONTROLLER)

    # Invalid ISR (3 is not a valid replica)
    result = send_alter_partition(replication_control, leader_id, ctx.current_broker_epoch(leader_id), topic_id,
                                  request(isr_with_default_epoch(0, 1, 3)))
    assert_alter_partition_response(result, topic_id_partition, Errors.INVALID_REQUEST)

    # Invalid ISR (does not include leader 0)
    result = send_alter_partition(replication_control, leader_id, ctx.current_broker_epoch(leader_id), topic_id,
                                  request(isr_with_default_epoch(1, 2)))
    assert_alter_partition_response(result, topic_id_partition, Errors.INVALID_REQUEST)

    # Invalid ISR length and recovery state
    result = send_alter_partition(replication_control, leader_id, ctx.current_broker_epoch(leader_id), topic_id,
                                  request(isr_with_default_epoch(0, 1), LeaderRecoveryState.RECOVERING))
    assert_alter_partition_response(result, topic_id_partition, Errors.INVALID_REQUEST)

    # Invalid recovery state transition from RECOVERED to RECOVERING
    result = send_alter_partition(replication_control, leader_id, ctx.current_broker_epoch(leader_id), topic_id,
                                  request(isr_with_default_epoch(0), LeaderRecoveryState.RECOVERING))
    assert_alter_partition_response(result, topic_id_partition, Errors.INVALID_REQUEST)


# -- deleteTopics ---------------------------------------------------------------------------------------------------


def test_delete_topics() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    request_configs = {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.1"}
    request = _create_topics_request(_creatable_topic("foo", 3, 2, request_configs))
    ctx.register_brokers(0, 1)
    ctx.unfence_brokers(0, 1)
    create_result = replication_control.create_topics(anonymous_context_for(ApiKeys.CREATE_TOPICS), request, {"foo"})
    topic_id = _find(create_result.response, "foo").topic_id
    expected_response = _response(ctr.CreatableTopicResult(
        name="foo", topic_id=topic_id, error_code=Errors.NONE, error_message=None, num_partitions=i32(3),
        replication_factor=i16(2), configs=()))
    assert without_configs(create_result.response) == expected_response
    # Until the records are replayed, nothing changes.
    assert replication_control.get_partition(topic_id, 0) is None
    assert_empty_topic_configs(ctx, "foo")
    ctx.replay(create_result.records)
    assert replication_control.get_partition(topic_id, 0) is not None
    assert replication_control.get_partition(topic_id, 1) is not None
    assert replication_control.get_partition(topic_id, 2) is not None
    assert replication_control.get_partition(topic_id, 3) is None
    assert_created_topic_configs(ctx, "foo", request_configs)

    assert replication_control.find_topic_names(LATEST_EPOCH, [topic_id]) == {topic_id: "foo"}
    assert replication_control.find_topic_ids(LATEST_EPOCH, ["foo"]) == {"foo": topic_id}
    invalid_id = uuid.UUID(int=(topic_id.int + (1 << 64)) % (1 << 128))  # most significant bits + 1
    assert replication_control.find_topic_names(LATEST_EPOCH, [invalid_id]) == \
        {invalid_id: ApiError(Errors.UNKNOWN_TOPIC_ID)}
    assert replication_control.find_topic_ids(LATEST_EPOCH, ["bar"]) == \
        {"bar": ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)}

    delete_topics_request_context = anonymous_context_for(ApiKeys.DELETE_TOPICS)
    invalid_delete_result = replication_control.delete_topics(delete_topics_request_context, [invalid_id])
    assert len(invalid_delete_result.records) == 0
    assert invalid_delete_result.response == {invalid_id: ApiError(Errors.UNKNOWN_TOPIC_ID, None)}
    delete_result = replication_control.delete_topics(delete_topics_request_context, [topic_id])
    assert delete_result.is_atomic
    assert delete_result.response == {topic_id: ApiError(Errors.NONE, None)}
    assert len(delete_result.records) == 1
    ctx.replay(delete_result.records)
    for partition_id in range(4):
        assert replication_control.get_partition(topic_id, partition_id) is None
    assert replication_control.find_topic_names(LATEST_EPOCH, [topic_id]) == \
        {topic_id: ApiError(Errors.UNKNOWN_TOPIC_ID)}
    assert replication_control.find_topic_ids(LATEST_EPOCH, ["foo"]) == \
        {"foo": ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)}
    assert_empty_topic_configs(ctx, "foo")


# -- createPartitions -----------------------------------------------------------------------------------------------


def _create_partitions_topic(name: str, count: int, assignments: list[list[int]] | None) -> Any:
    return cp.CreatePartitionsTopic(name=name, count=i32(count), assignments=None if assignments is None else tuple(
        cp.CreatePartitionsAssignment(broker_ids=tuple(i32(b) for b in a)) for a in assignments))


def _create_partitions_result(name: str, error: Errors, message: str | None = None) -> dict[str, Any]:
    return {"name": name, "error_code": error, "error_message": message}


def test_create_partitions() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    request = _create_topics_request(_creatable_topic("foo", 3, 2), _creatable_topic("bar", 4, 2),
                                     _creatable_topic("quux", 2, 2), _creatable_topic("foo2", 2, 2))
    ctx.register_brokers_with_dirs(
        0, [],
        1, [_uuid("QMzamNQVQ7GnJK9DwQHG7Q"), _uuid("loDxEBLETdedNnQGOKKENw")],
        3, [_uuid("dxCDSgNjQvS4WuyqEKoCwA")])
    ctx.unfence_brokers(0, 1, 3)
    request_context = anonymous_context_for(ApiKeys.CREATE_TOPICS)
    create_topic_result = replication_control.create_topics(request_context, request, {"foo", "bar", "quux", "foo2"})
    ctx.replay(create_topic_result.records)
    topics = [_create_partitions_topic("foo", 5, None), _create_partitions_topic("bar", 3, None),
              _create_partitions_topic("baz", 3, None), _create_partitions_topic("quux", 2, None)]
    create_partitions_result = replication_control.create_partitions(request_context, topics)
    assert create_partitions_result.response == [
        _create_partitions_result("foo", Errors.NONE),
        _create_partitions_result("bar", Errors.INVALID_PARTITIONS,
                                  "The topic bar currently has 4 partition(s); 3 would not be an increase."),
        _create_partitions_result("baz", Errors.UNKNOWN_TOPIC_OR_PARTITION),
        _create_partitions_result("quux", Errors.INVALID_PARTITIONS, "Topic already has 2 partition(s)."),
    ]
    ctx.replay(create_partitions_result.records)
    topics2 = [_create_partitions_topic("foo", 6, [[1, 3]]), _create_partitions_topic("bar", 5, [[1]]),
               _create_partitions_topic("quux", 4, [[1, 0]]), _create_partitions_topic("foo2", 3, [[2, 0]])]
    create_partitions_result2 = replication_control.create_partitions(request_context, topics2)
    assert create_partitions_result2.response == [
        _create_partitions_result("foo", Errors.NONE),
        _create_partitions_result("bar", Errors.INVALID_REPLICA_ASSIGNMENT,
                                  "The manual partition assignment includes a partition with 1 replica(s), but this "
                                  "is not consistent with previous partitions, which have 2 replica(s)."),
        _create_partitions_result("quux", Errors.INVALID_REPLICA_ASSIGNMENT,
                                  "Attempted to add 2 additional partition(s), but only 1 assignment(s) were "
                                  "specified."),
        _create_partitions_result("foo2", Errors.INVALID_REPLICA_ASSIGNMENT,
                                  "The manual partition assignment includes broker 2, but no such broker is "
                                  "registered."),
    ]
    ctx.replay(create_partitions_result2.records)
    assert replication_control.get_partition(replication_control.get_topic_id("foo"), 5).directories == \
        (UNASSIGNED, _uuid("dxCDSgNjQvS4WuyqEKoCwA"))


def test_create_partitions_fails_when_all_brokers_are_fenced_or_in_controlled_shutdown() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    request = _create_topics_request(_creatable_topic("foo", 1, 2))
    ctx.register_brokers(0, 1)
    ctx.unfence_brokers(0, 1)
    request_context = anonymous_context_for(ApiKeys.CREATE_TOPICS)
    create_topic_result = replication_control.create_topics(request_context, request, {"foo"})
    ctx.replay(create_topic_result.records)

    ctx.register_brokers(0, 1)
    ctx.unfence_brokers(0)
    ctx.in_controlled_shutdown_brokers(0)
    create_partitions_result = replication_control.create_partitions(
        request_context, [_create_partitions_topic("foo", 2, None)])
    assert create_partitions_result.response == [_create_partitions_result(
        "foo", Errors.INVALID_REPLICATION_FACTOR,
        "Unable to replicate the partition 2 time(s): All brokers are currently fenced or in controlled shutdown.")]


def test_create_partitions_isr_invariants() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    request = _create_topics_request(_creatable_topic("foo", 1, 3))
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1)
    ctx.in_controlled_shutdown_brokers(1)
    request_context = anonymous_context_for(ApiKeys.CREATE_TOPICS)
    result = replication_control.create_topics(request_context, request, {"foo"})
    ctx.replay(result.records)
    create_partitions_result = replication_control.create_partitions(
        request_context, [_create_partitions_topic("foo", 2, None)])
    ctx.replay(create_partitions_result.records)
    # Broker 2 is fenced and broker 1 in controlled shutdown: neither may be in the ISR.
    assert replication_control.get_partition(result.records[0].message.topic_id, 1) == _registration(
        [0, 1, 2], [_test_broker_dir(0), _test_broker_dir(1), _test_broker_dir(2)], [0], 0)


def _partition_assignment(replicas: list[int]) -> PartitionAssignment:
    """PartitionAssignmentTest.partitionAssignment: the replicas, each in an unassigned directory."""
    return PartitionAssignment(list(replicas), [UNASSIGNED] * len(replicas))


def test_validate_good_manual_partition_assignments() -> None:
    ctx = _Context()
    ctx.register_brokers(1, 2, 3)
    ctx.replication_control.validate_manual_partition_assignment(_partition_assignment([1]), 1)
    ctx.replication_control.validate_manual_partition_assignment(_partition_assignment([1]), None)
    ctx.replication_control.validate_manual_partition_assignment(_partition_assignment([1, 2, 3]), 3)
    ctx.replication_control.validate_manual_partition_assignment(_partition_assignment([1, 2, 3]), None)


def test_validate_bad_manual_partition_assignments() -> None:
    ctx = _Context()
    ctx.register_brokers(1, 2)
    validate = ctx.replication_control.validate_manual_partition_assignment
    with pytest.raises(InvalidReplicaAssignmentException) as e:
        validate(_partition_assignment([]), None)
    assert str(e.value) == "The manual partition assignment includes an empty replica list."
    with pytest.raises(InvalidReplicaAssignmentException) as e:
        validate(_partition_assignment([1, 2, 3]), None)
    assert str(e.value) == "The manual partition assignment includes broker 3, but no such broker is registered."
    with pytest.raises(InvalidReplicaAssignmentException) as e:
        validate(_partition_assignment([1, 2, 2]), None)
    assert str(e.value) == "The manual partition assignment includes the broker 2 more than once."
    with pytest.raises(InvalidReplicaAssignmentException) as e:
        validate(_partition_assignment([1, 2]), 3)
    assert str(e.value) == ("The manual partition assignment includes a partition with 2 replica(s), but this is not "
                            "consistent with previous partitions, which have 3 replica(s).")


# -- alterPartition and broker states -------------------------------------------------------------------------------


def _four_replica_registration(isr: list[int], partition_epoch: int) -> PartitionRegistration:
    return _registration([1, 2, 3, 4], [_test_broker_dir(b) for b in (1, 2, 3, 4)], isr, 1, 0, partition_epoch)


@pytest.mark.parametrize("version", ALTER_PARTITION_VERSIONS)
def test_alter_partition_should_reject_fenced_brokers(version: int) -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(0, 1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3, 4]]).topic_id

    fence_records: list[Any] = []
    replication.handle_broker_fenced(3, fence_records)
    ctx.replay(fence_records)
    assert replication.get_partition(foo_id, 0) == _four_replica_registration([1, 2, 4], 1)

    topic_name, topic_id = ("foo", ZERO_UUID) if version <= 1 else ("", foo_id)
    alter_isr_request = _alter_partition_request(version, 1, 101, topic_name, topic_id, [{
        "partition_index": 0, "partition_epoch": 1, "leader_epoch": 0,
        "new_isr_with_epochs": isr_with_default_epoch(1, 2, 3, 4)}])
    request_context = anonymous_context_for(ApiKeys.ALTER_PARTITION, version)
    alter_partition_result = replication.alter_partition(request_context, alter_isr_request)
    expected_error = Errors.OPERATION_NOT_ATTEMPTED if version <= 1 else Errors.INELIGIBLE_REPLICA
    assert alter_partition_result.response == _alter_partition_response(
        version, topic_name, topic_id, [{"partition_index": 0, "error_code": expected_error}])

    fence_records = []
    replication.handle_broker_unfenced(3, 103, fence_records)
    ctx.replay(fence_records)
    alter_partition_result = replication.alter_partition(request_context, alter_isr_request)
    assert alter_partition_result.response == _alter_partition_response(version, topic_name, topic_id, [{
        "partition_index": 0, "leader_id": 1, "leader_epoch": 0, "isr": (1, 2, 3, 4), "partition_epoch": 2,
        "error_code": Errors.NONE}])


@pytest.mark.parametrize("version", ALTER_PARTITION_VERSIONS)
def test_alter_partition_should_reject_brokers_with_stale_epoch(version: int) -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(0, 1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3, 4]]).topic_id
    ctx.alter_partition(TopicIdPartition(foo_id, 0), 1, isr_with_default_epoch(1, 2, 3), LeaderRecoveryState.RECOVERED)

    # The leader builds an AlterPartition request...
    topic_name, topic_id = ("foo", ZERO_UUID) if version <= 1 else ("", foo_id)
    alter_isr_request = _alter_partition_request(version, 1, 101, topic_name, topic_id, [{
        "partition_index": 0, "partition_epoch": 1, "leader_epoch": 0,
        "new_isr_with_epochs": isr_with_default_epoch(1, 2, 3, 4)}])

    # ...while broker 4 fails silently and registers again,
    new_epoch = default_broker_epoch(4) + 1000
    broker_record = RegisterBrokerRecord(
        broker_epoch=i64(new_epoch), broker_id=i32(4), rack=None, incarnation_id=ZERO_UUID, features=(),
        end_points=(BrokerEndpoint(security_protocol=i16(PLAINTEXT), port=9092 + 4, name="PLAINTEXT",
                                   host="localhost"),))
    ctx.replay([ApiMessageAndVersion(broker_record, 0)])

    # and is unfenced.
    result = ctx.replication_control.process_broker_heartbeat(BrokerHeartbeatRequest(
        broker_id=i32(4), broker_epoch=i64(new_epoch), current_metadata_offset=i64(1), want_fence=False,
        want_shut_down=False), 0)
    assert result.response == BrokerHeartbeatReply(True, False, False, False)
    ctx.replay(result.records)

    alter_partition_result = replication.alter_partition(anonymous_context_for(ApiKeys.ALTER_PARTITION, version),
                                                         alter_isr_request)
    # From version 3 on, the late request is refused.
    if version >= 3:
        assert alter_partition_result.response == _alter_partition_response(
            version, "", foo_id, [{"partition_index": 0, "error_code": Errors.INELIGIBLE_REPLICA}])
    else:
        assert alter_partition_result.response.error_code == Errors.NONE


@pytest.mark.parametrize("version", ALTER_PARTITION_VERSIONS)
def test_alter_partition_should_reject_shutting_down_brokers(version: int) -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(0, 1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3, 4]]).topic_id
    assert replication.get_partition(foo_id, 0) == _four_replica_registration([1, 2, 3, 4], 0)

    ctx.in_controlled_shutdown_brokers(3)
    topic_name, topic_id = ("foo", ZERO_UUID) if version <= 1 else ("", foo_id)
    alter_isr_request = _alter_partition_request(version, 1, 101, topic_name, topic_id, [{
        "partition_index": 0, "partition_epoch": 0, "leader_epoch": 0,
        "new_isr_with_epochs": isr_with_default_epoch(1, 2, 3, 4)}])
    alter_partition_result = replication.alter_partition(anonymous_context_for(ApiKeys.ALTER_PARTITION, version),
                                                         alter_isr_request)
    expected_error = Errors.OPERATION_NOT_ATTEMPTED if version <= 1 else Errors.INELIGIBLE_REPLICA
    assert alter_partition_result.response == _alter_partition_response(
        version, topic_name, topic_id, [{"partition_index": 0, "error_code": expected_error}])


def test_manual_partition_assignment_on_all_fenced_brokers() -> None:
    ctx = _Context()
    ctx.register_brokers(0, 1, 2, 3)
    ctx.create_test_topic_with_replicas("foo", [[0, 1, 2]], expected_error_code=Errors.INVALID_REPLICA_ASSIGNMENT)


def test_create_partitions_fails_with_manual_assignment_with_all_fenced() -> None:
    ctx = _Context()
    ctx.register_brokers(0, 1, 2, 3, 4, 5)
    ctx.unfence_brokers(0, 1, 2)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[0, 1, 2]]).topic_id
    ctx.create_partitions(2, "foo", [[3, 4, 5]], Errors.INVALID_REPLICA_ASSIGNMENT)
    ctx.create_partitions(2, "foo", [[2, 4, 5]], Errors.NONE)
    assert ctx.replication_control.get_partition(foo_id, 1) == _registration(
        [2, 4, 5], [_test_broker_dir(2), _test_broker_dir(4), _test_broker_dir(5)], [2], 2)


def test_fence_multiple_brokers() -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(0, 1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3], [2, 3, 4], [0, 2, 1]]).topic_id

    assert ctx.fenced_broker_ids() == set()
    ctx.fence_brokers({2, 3})

    partition0 = replication.get_partition(foo_id, 0)
    partition1 = replication.get_partition(foo_id, 1)
    partition2 = replication.get_partition(foo_id, 2)
    assert partition0.replicas == (1, 2, 3)
    assert partition0.isr == (1,)
    assert partition0.leader == 1
    assert partition1.replicas == (2, 3, 4)
    assert partition1.isr == (4,)
    assert partition1.leader == 4
    assert partition2.replicas == (0, 2, 1)
    assert partition2.isr == (0, 1)
    assert partition2.leader != 2


def test_k_raft_cluster_describer() -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers_with_dirs(
        0, [],
        1, [],
        2, [_uuid("ozwqsVMFSNiYQUPSJA3j0w")],
        3, [_uuid("SSDgCZ4BTyec5QojGT65qg"), _uuid("K8KwMrviRcOUvgI8FPOJWg")],
        4, [])
    ctx.unfence_brokers(2, 3, 4)
    ctx.create_test_topic_with_replicas("foo", [[1, 2, 3], [2, 3, 4], [0, 2, 1]])
    ctx.create_test_topic_with_replicas("bar", [[2, 3, 4], [3, 4, 2]])
    describer = replication.cluster_describer
    brokers = set(describer.usable_brokers())
    assert brokers == {UsableBroker(0, None, True), UsableBroker(1, None, True), UsableBroker(2, None, False),
                       UsableBroker(3, None, False), UsableBroker(4, None, False)}
    assert describer.default_dir(1) == MIGRATING
    assert describer.default_dir(2) == _uuid("ozwqsVMFSNiYQUPSJA3j0w")
    assert describer.default_dir(3) == UNASSIGNED


@pytest.mark.parametrize("metadata_version", [MV.IBP_3_3_IV2, MV.IBP_3_3_IV3])
def test_process_broker_heartbeat_in_controlled_shutdown(metadata_version: MetadataVersion) -> None:
    ctx = _Context(metadata_version=metadata_version)
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    topic_id = ctx.create_test_topic_with_replicas("foo", [[0, 1, 2]]).topic_id
    heartbeat_request = BrokerHeartbeatRequest(broker_id=i32(0), broker_epoch=i64(100),
                                               current_metadata_offset=i64(0), want_fence=False, want_shut_down=True)
    result = ctx.replication_control.process_broker_heartbeat(heartbeat_request, 0)
    expected_records = []
    if metadata_version.is_at_least(MV.IBP_3_3_IV3):  # isInControlledShutdownStateSupported
        expected_records.append(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
            broker_epoch=i64(100), broker_id=i32(0),
            in_controlled_shutdown=i8(BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN.value)), 1))
    expected_records.append(ApiMessageAndVersion(PartitionChangeRecord(
        partition_id=i32(0), topic_id=topic_id, isr=(1, 2), leader=1), 0))
    assert result.records == expected_records


def test_process_expired_broker_heartbeat() -> None:
    mock_time = MockTime(0, 0, 0)
    ctx = _Context(mock_time=mock_time)
    ctx.register_brokers(0, 1, 2)
    ctx.unfence_brokers(0, 1, 2)
    heartbeat_request = BrokerHeartbeatRequest(broker_id=i32(0), broker_epoch=i64(100),
                                               current_metadata_offset=i64(123), want_fence=False,
                                               want_shut_down=False)
    mock_time.sleep(100)
    ctx.replication_control.process_expired_broker_heartbeat(heartbeat_request)
    state = next((b for b in ctx.cluster_control.heartbeat_manager().brokers() if b.id == 0), None)
    assert state is not None
    assert state.id == 0
    assert state.last_contact_ns == 100_000_000
    assert state.metadata_offset == 123


def test_duplicate_topic_id_replay() -> None:
    ctx = _Context()
    replication_control = ctx.replication_control
    replication_control.replay_topic(TopicRecord(name="foo", topic_id=_uuid("Ktv3YkMQRe-MId4VkkrMyw")))
    with pytest.raises(RuntimeError) as e:
        replication_control.replay_topic(TopicRecord(name="foo", topic_id=_uuid("Ktv3YkMQRe-MId4VkkrMyw")))
    assert str(e.value) == "Found duplicate TopicRecord for foo with topic ID Ktv3YkMQRe-MId4VkkrMyw"
    with pytest.raises(RuntimeError) as e:
        replication_control.replay_topic(TopicRecord(name="foo", topic_id=_uuid("8auUWq8zQqe_99H_m2LAmw")))
    assert str(e.value) == ("Found duplicate TopicRecord for foo with a different ID than before. Previous ID was "
                            "Ktv3YkMQRe-MId4VkkrMyw and new ID is 8auUWq8zQqe_99H_m2LAmw")


# -- partition reassignments and leader elections (part C of issue 24) -----------------------------------------------

NONE_REASSIGNING = lr.ListPartitionReassignmentsResponse(
    throttle_time=i32Timedelta.parse(datetime.timedelta(0)), error_code=Errors.NONE, error_message=None, topics=())
LONG_MAX = 2**63 - 1
PREFERRED, UNCLEAN = 0, 1  # ElectionType


def _alter_reassignments_request(topics: dict[str, list[tuple[int, list[int] | None]]]) -> Any:
    return build(apr.AlterPartitionReassignmentsRequest, timeout=0, topics=[
        dict(name=name, partitions=[dict(partition_index=p, replicas=r) for p, r in partitions])
        for name, partitions in topics.items()])


def _alter_reassignments_response(responses: dict[str, list[tuple[int, Errors, str | None]]]) -> Any:
    return build(aprr.AlterPartitionReassignmentsResponse, throttle_time=0, error_code=Errors.NONE,
                 error_message=None, responses=[
                     dict(name=name, partitions=[dict(partition_index=p, error_code=e, error_message=m)
                                                 for p, e, m in partitions])
                     for name, partitions in responses.items()])


def _list_reassignments(topics: dict[str, list[int]] | None) -> Any:
    return None if topics is None else [lrq.ListPartitionReassignmentsTopics(
        name=name, partition_indexes=tuple(i32(p) for p in ps)) for name, ps in topics.items()]


def _ongoing(name: str, partition_index: int, removing: list[int], adding: list[int], replicas: list[int]) -> Any:
    return build(lr.ListPartitionReassignmentsResponse, throttle_time=0, error_code=Errors.NONE, error_message=None,
                 topics=[dict(name=name, partitions=[dict(partition_index=partition_index, replicas=replicas,
                                                          adding_replicas=adding, removing_replicas=removing)])])


def _change_record(ctx: _Context, topic_id: uuid.UUID, partition_id: int, **fields: Any) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(PartitionChangeRecord(topic_id=topic_id, partition_id=partition_id, **fields),
                                partition_change_record_version(ctx.feature_control.metadata_version()))


def _elect_leaders_request(election_type: int, partitions: dict[str, list[int]] | None) -> Any:
    return build(elr.ElectLeadersRequest, election_type=election_type, timeout=0, topic_partitions=None
                 if partitions is None else [dict(topic=t, partitions=ps) for t, ps in partitions.items()])


def _elect_leaders_response(elect_all_partitions: bool, errors: dict[tuple[str, int], ApiError]) -> Any:
    """buildElectLeadersResponse(NONE, electAllPartitions, errors)."""
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for (topic, partition), error in errors.items():
        results = by_topic.setdefault(topic, [])
        if not elect_all_partitions or error.error is not Errors.ELECTION_NOT_NEEDED:
            results.append(dict(partition_id=partition, error_code=error.error, error_message=error.message))
    return build(elrr.ElectLeadersResponse, throttle_time=0, error_code=Errors.NONE, replica_election_results=[
        dict(topic=t, partition_result=rs) for t, rs in by_topic.items()])


def _assert_elect_leaders_response(expected: Any, actual: Any) -> None:
    """assertElectLeadersResponse: the same top-level error and the same results, in any order."""
    def as_set(response: Any) -> set[tuple[Any, ...]]:
        return {(r.topic, p.partition_id, p.error_code, p.error_message)
                for r in response.replica_election_results for p in r.partition_result}
    assert expected.error_code == actual.error_code
    assert {r.topic for r in expected.replica_election_results} == {r.topic for r in actual.replica_election_results}
    assert as_set(expected) == as_set(actual)


def _assert_leader_and_isr(replication: ReplicationControlManager, tp: TopicIdPartition, leader: int,
                           isr: list[int]) -> None:
    registration = replication.get_partition(tp.topic_id, tp.partition_id)
    assert registration.leader == leader
    assert list(registration.isr) == isr


def _alter_topic_config(ctx: _Context, topic: str, key: str, value: str) -> None:
    ctx.replay([ApiMessageAndVersion(ConfigRecord(resource_type=i8(ConfigResourceType.TOPIC.value),
                                                  resource_name=topic, name=key, value=value), 0)])


@pytest.mark.parametrize("version", ALTER_PARTITION_VERSIONS)
def test_reassign_partitions(version: int) -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3)
    ctx.unfence_brokers(0, 1, 2, 3)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3], [3, 2, 1]]).topic_id
    ctx.create_test_topic_with_replicas("bar", [[1, 2, 3]])
    assert replication.list_partition_reassignments(None, LONG_MAX) == NONE_REASSIGNING
    alter_result = replication.alter_partition_reassignments(_alter_reassignments_request({
        "foo": [(0, [3, 2, 1]), (1, [0, 2, 1]), (2, [0, 2, 1])], "bar": []}))
    assert alter_result.response == _alter_reassignments_response({
        "foo": [(0, Errors.NONE, None), (1, Errors.NONE, None),
                (2, Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition foo:2.")],
        "bar": []})
    ctx.replay(alter_result.records)
    current_reassigning = _ongoing("foo", 1, [3], [0], [0, 2, 1, 3])
    assert replication.list_partition_reassignments(None, LONG_MAX) == current_reassigning
    assert replication.list_partition_reassignments(_list_reassignments({"bar": [0, 1, 2]}),
                                                    LONG_MAX) == NONE_REASSIGNING
    assert replication.list_partition_reassignments(_list_reassignments({"foo": [0, 1, 2]}),
                                                    LONG_MAX) == current_reassigning
    cancel_result = replication.alter_partition_reassignments(_alter_reassignments_request({
        "foo": [(0, None), (1, None), (2, None)], "bar": [(0, None)]}))
    assert cancel_result.is_atomic
    assert cancel_result.records == [_change_record(
        ctx, foo_id, 1, replicas=(2, 1, 3),
        directories=(_test_broker_dir(2), _test_broker_dir(1), _test_broker_dir(3)), leader=3,
        removing_replicas=(), adding_replicas=())]
    assert cancel_result.response == _alter_reassignments_response({
        "foo": [(0, Errors.NO_REASSIGNMENT_IN_PROGRESS, None), (1, Errors.NONE, None),
                (2, Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition foo:2.")],
        "bar": [(0, Errors.NO_REASSIGNMENT_IN_PROGRESS, None)]})
    # (Kafka runs the last AlterPartition on the state before the cancellation, which it does not replay)
    request = _alter_partition_request(version, 3, 103, "foo" if version <= 1 else "",
                                       foo_id if version > 1 else ZERO_UUID, [dict(
                                           partition_index=1, partition_epoch=1, leader_epoch=0,
                                           new_isr_with_epochs=isr_with_default_epoch(3, 0, 2, 1))])
    alter_partition_result = replication.alter_partition(anonymous_context_for(ApiKeys.ALTER_PARTITION, version),
                                                         request)
    expected_error = Errors.NEW_LEADER_ELECTED if version > 1 else Errors.FENCED_LEADER_EPOCH
    assert alter_partition_result.response == _alter_partition_response(
        version, "foo" if version <= 1 else "", foo_id if version > 1 else ZERO_UUID,
        [dict(partition_index=1, error_code=expected_error)])
    ctx.replay(alter_partition_result.records)
    assert replication.list_partition_reassignments(None, LONG_MAX) == NONE_REASSIGNING


def test_cancel_reassign_partitions() -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(0, 1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3, 4], [0, 1, 2, 3], [4, 3, 1, 0],
                                                         [2, 3, 4, 1]]).topic_id
    bar_id = ctx.create_test_topic_with_replicas("bar", [[4, 3, 2]]).topic_id
    assert replication.list_partition_reassignments(None, LONG_MAX) == NONE_REASSIGNING
    fence_records: list[Any] = []
    replication.handle_broker_fenced(3, fence_records)
    ctx.replay(fence_records)
    d = _test_broker_dir
    assert replication.get_partition(foo_id, 0) == _registration([1, 2, 3, 4], [d(1), d(2), d(3), d(4)],
                                                                 [1, 2, 4], 1, 0, 1)
    alter_result = replication.alter_partition_reassignments(_alter_reassignments_request({
        "foo": [(0, [1, 2, 4]), (1, [1, 2, 3, 0]), (2, [5, 6, 7]), (3, [])], "bar": [(0, [1, 2, 3, 4, 0])]}))
    assert alter_result.response == _alter_reassignments_response({
        "foo": [(0, Errors.NONE, None), (1, Errors.NONE, None),
                (2, Errors.INVALID_REPLICA_ASSIGNMENT,
                 "The manual partition assignment includes broker 5, but no such broker is registered."),
                (3, Errors.INVALID_REPLICA_ASSIGNMENT,
                 "The manual partition assignment includes an empty replica list.")],
        "bar": [(0, Errors.NONE, None)]})
    ctx.replay(alter_result.records)
    assert replication.get_partition(foo_id, 0) == _registration([1, 2, 4], [d(1), d(2), d(4)], [1, 2, 4], 1, 1, 2)
    assert replication.get_partition(foo_id, 1) == _registration([1, 2, 3, 0], [d(1), d(2), d(3), d(0)], [0, 1, 2],
                                                                 0, 0, 2)
    assert replication.get_partition(bar_id, 0) == dataclasses.replace(
        _registration([1, 2, 3, 4, 0], [d(1), d(2), d(3), d(4), d(0)], [4, 2], 4, 0, 2), adding_replicas=(0, 1))
    current_reassigning = _ongoing("bar", 0, [], [0, 1], [1, 2, 3, 4, 0])
    assert replication.list_partition_reassignments(None, LONG_MAX) == current_reassigning
    assert replication.list_partition_reassignments(_list_reassignments({"foo": [0, 1, 2]}),
                                                    LONG_MAX) == NONE_REASSIGNING
    assert replication.list_partition_reassignments(_list_reassignments({"bar": [0, 1, 2]}),
                                                    LONG_MAX) == current_reassigning
    alter_partition_result = replication.alter_partition(
        anonymous_context_for(ApiKeys.ALTER_PARTITION),
        ap3.request.AlterPartitionRequest(broker_id=i32(4), broker_epoch=i64(104), topics=(ap3.request.TopicData(
            topic_id=bar_id, partitions=(ap3.request.PartitionData(
                partition_index=i32(0), partition_epoch=i32(2), leader_epoch=i32(0), leader_recovery_state=i8(0),
                new_isr_with_epochs=isr_with_default_epoch(4, 1, 2, 0)),)),)))
    assert alter_partition_result.response == _alter_partition_response(3, "", bar_id, [dict(
        partition_index=0, leader_id=4, leader_epoch=0, isr=(4, 1, 2, 0), partition_epoch=3,
        error_code=Errors.NONE)])
    cancel_result = replication.alter_partition_reassignments(_alter_reassignments_request({
        "foo": [(0, None)], "bar": [(0, None)]}))
    assert cancel_result.is_atomic
    assert cancel_result.records == [_change_record(
        ctx, bar_id, 0, leader=4, replicas=(2, 3, 4), directories=(d(2), d(3), d(4)), adding_replicas=())]
    assert cancel_result.response == _alter_reassignments_response({
        "foo": [(0, Errors.NO_REASSIGNMENT_IN_PROGRESS, None)], "bar": [(0, Errors.NONE, None)]})
    ctx.replay(cancel_result.records)
    assert replication.list_partition_reassignments(None, LONG_MAX) == NONE_REASSIGNING
    assert replication.get_partition(bar_id, 0) == _registration([2, 3, 4], [d(2), d(3), d(4)], [4, 2], 4, 1, 3)


@pytest.mark.parametrize("elect_all_partitions", [True, False])
def test_elect_unclean_leaders_without_elr(elect_all_partitions: bool) -> None:
    ctx = _Context(MV.IBP_3_6_IV1)
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(0, 1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3], [2, 3, 4], [0, 2, 1]]).topic_id
    partition0, partition1, partition2 = (TopicIdPartition(foo_id, p) for p in range(3))
    ctx.fence_brokers({2, 3})
    ctx.fence_brokers({1, 2, 3})
    _assert_leader_and_isr(replication, partition0, -1, [1])
    _assert_leader_and_isr(replication, partition1, 4, [4])
    _assert_leader_and_isr(replication, partition2, 0, [0])
    request = _elect_leaders_request(UNCLEAN, None if elect_all_partitions else {"foo": [0, 1, 2]})
    # no replica of partition 0 can lead yet
    result1 = replication.elect_leaders(request)
    assert result1.records == []
    _assert_elect_leaders_response(_elect_leaders_response(elect_all_partitions, {
        ("foo", 0): ApiError(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE), ("foo", 1): ApiError(Errors.ELECTION_NOT_NEEDED),
        ("foo", 2): ApiError(Errors.ELECTION_NOT_NEEDED)}), result1.response)
    ctx.unfence_brokers(2)
    # 2 back in partition 1's ISR: the unclean election must not turn into a preferred one there
    ctx.alter_partition(partition1, 4, isr_with_default_epoch(2, 4), LeaderRecoveryState.RECOVERED)
    result = replication.elect_leaders(request)
    assert len(result.records) == 1
    record = result.records[0].message
    assert isinstance(record, PartitionChangeRecord)
    assert record.partition_id == 0
    assert record.leader == 2
    assert list(record.isr) == [2]
    ctx.replay(result.records)
    _assert_leader_and_isr(replication, partition0, 2, [2])
    _assert_leader_and_isr(replication, partition1, 4, [2, 4])
    _assert_leader_and_isr(replication, partition2, 0, [0])
    _assert_elect_leaders_response(_elect_leaders_response(elect_all_partitions, {
        ("foo", 0): ApiError.NONE, ("foo", 1): ApiError(Errors.ELECTION_NOT_NEEDED),
        ("foo", 2): ApiError(Errors.ELECTION_NOT_NEEDED)}), result.response)


def test_preferred_election_does_not_trigger_unclean_election() -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(1, 2, 3, 4)
    ctx.unfence_brokers(1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3]]).topic_id
    partition = TopicIdPartition(foo_id, 0)
    ctx.fence_brokers({2, 3})
    ctx.fence_brokers({1, 2, 3})
    ctx.unfence_brokers(2)
    _assert_leader_and_isr(replication, partition, -1, [1])
    _alter_topic_config(ctx, "foo", "unclean.leader.election.enable", "true")
    request = _elect_leaders_request(PREFERRED, {"foo": [0]})
    # no election, though an unclean one could be made
    result = replication.elect_leaders(request)
    assert result.records == []
    assert result.response == _elect_leaders_response(False, {
        ("foo", 0): ApiError(Errors.PREFERRED_LEADER_NOT_AVAILABLE)})


def test_elect_preferred_leaders() -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(1, 2, 3, 4)
    ctx.in_controlled_shutdown_brokers(1)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 3], [2, 3, 4], [0, 2, 1]]).topic_id
    request1 = _elect_leaders_request(PREFERRED, {"foo": [0, 1, 2], "bar": [0, 1]})
    election1_result = replication.elect_leaders(request1)
    no_bar = ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "No such topic as bar")
    _assert_elect_leaders_response(_elect_leaders_response(False, {
        ("foo", 0): ApiError(Errors.PREFERRED_LEADER_NOT_AVAILABLE), ("foo", 1): ApiError(Errors.ELECTION_NOT_NEEDED),
        ("foo", 2): ApiError(Errors.PREFERRED_LEADER_NOT_AVAILABLE), ("bar", 0): no_bar, ("bar", 1): no_bar}),
        election1_result.response)
    assert election1_result.records == []
    # broker 1 registers again to leave the controlled shutdown state
    ctx.register_brokers(1)
    ctx.unfence_brokers(0, 1)
    alter_partition_result = replication.alter_partition(
        anonymous_context_for(ApiKeys.ALTER_PARTITION),
        ap3.request.AlterPartitionRequest(broker_id=i32(2), broker_epoch=i64(102), topics=(ap3.request.TopicData(
            topic_id=foo_id, partitions=tuple(ap3.request.PartitionData(
                partition_index=i32(p), partition_epoch=i32(0), leader_epoch=i32(0), leader_recovery_state=i8(0),
                new_isr_with_epochs=isr_with_default_epoch(*isr)) for p, isr in ((0, (1, 2, 3)), (2, (0, 2, 1))))),)))
    assert alter_partition_result.response == _alter_partition_response(3, "", foo_id, [
        dict(partition_index=0, leader_id=2, leader_epoch=0, isr=(1, 2, 3), partition_epoch=1,
             error_code=Errors.NONE),
        dict(partition_index=2, leader_id=2, leader_epoch=0, isr=(0, 2, 1), partition_epoch=1,
             error_code=Errors.NONE)])
    ctx.replay(alter_partition_result.records)
    election2_result = replication.elect_leaders(request1)
    _assert_elect_leaders_response(_elect_leaders_response(False, {
        ("foo", 0): ApiError.NONE, ("foo", 1): ApiError(Errors.ELECTION_NOT_NEEDED), ("foo", 2): ApiError.NONE,
        ("bar", 0): no_bar, ("bar", 1): no_bar}), election2_result.response)
    assert election2_result.records == [_change_record(ctx, foo_id, 0, leader=1),
                                        _change_record(ctx, foo_id, 2, leader=0)]


def test_reassign_partitions_handles_new_reassignment_that_removes_previously_adding_replicas() -> None:
    ctx = _Context()
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4, 5)
    ctx.unfence_brokers(0, 1, 2, 3, 4, 5)
    topic = "topic-1"
    topic_id = ctx.create_test_topic_with_replicas(topic, [[0, 1]]).topic_id
    assert replication.list_partition_reassignments(None, LONG_MAX) == NONE_REASSIGNING
    # reassign to [2, 3]
    alter_result_one = replication.alter_partition_reassignments(_alter_reassignments_request({topic: [(0, [2, 3])]}))
    assert alter_result_one.response == _alter_reassignments_response({topic: [(0, Errors.NONE, None)]})
    ctx.replay(alter_result_one.records)
    assert replication.list_partition_reassignments(None, LONG_MAX) == _ongoing(topic, 0, [0, 1], [2, 3],
                                                                                [2, 3, 0, 1])
    partition = replication.get_partition(topic_id, 0)

    def alter_isr(isr: tuple[int, ...]) -> Any:
        return replication.alter_partition(
            anonymous_context_for(ApiKeys.ALTER_PARTITION),
            ap3.request.AlterPartitionRequest(
                broker_id=i32(partition.leader), broker_epoch=i64(ctx.current_broker_epoch(partition.leader)),
                topics=(ap3.request.TopicData(topic_id=topic_id, partitions=(ap3.request.PartitionData(
                    partition_index=i32(0), partition_epoch=i32(partition.partition_epoch),
                    leader_epoch=i32(partition.leader_epoch), leader_recovery_state=i8(0),
                    new_isr_with_epochs=isr_with_default_epoch(*isr)),)),)))

    # 2 joins the ISR
    alter_partition_result = alter_isr((0, 1, 2))
    assert alter_partition_result.response == _alter_partition_response(3, "", topic_id, [dict(
        partition_index=0, isr=(0, 1, 2), partition_epoch=partition.partition_epoch + 1, error_code=Errors.NONE)])
    ctx.replay(alter_partition_result.records)
    # 2, first in the replica list, becomes the leader by a preferred election
    elect_leader_two_result = replication.elect_leaders(_elect_leaders_request(PREFERRED, {topic: [0]}))
    assert elect_leader_two_result.response == _elect_leaders_response(False, {(topic, 0): ApiError.NONE})
    ctx.replay(elect_leader_two_result.records)
    partition = replication.get_partition(topic_id, 0)
    assert partition.leader == 2
    # reassign to [4, 5]
    alter_result_two = replication.alter_partition_reassignments(_alter_reassignments_request({topic: [(0, [4, 5])]}))
    assert alter_result_two.response == _alter_reassignments_response({topic: [(0, Errors.NONE, None)]})
    ctx.replay(alter_result_two.records)
    # every earlier replica is being removed, the new ones added
    assert replication.list_partition_reassignments(None, LONG_MAX) == _ongoing(topic, 0, [0, 1, 2, 3], [4, 5],
                                                                                [4, 5, 0, 1, 2, 3])
    partition = replication.get_partition(topic_id, 0)
    assert partition.leader == 2
    assert partition.leader in partition.replicas
    # 3, 4 and 5 join the ISR: the reassignment completes
    alter_partition_result_two = alter_isr((0, 1, 2, 3, 4, 5))
    assert alter_partition_result_two.response == _alter_partition_response(3, "", topic_id, [dict(
        partition_index=0, error_code=Errors.NEW_LEADER_ELECTED)])
    ctx.replay(alter_partition_result_two.records)
    partition = replication.get_partition(topic_id, 0)
    assert partition.leader == 4
    assert replication.list_partition_reassignments(None, LONG_MAX) == NONE_REASSIGNING


@pytest.mark.parametrize("unclean_config", ["none", "static", "dynamic_cluster", "dynamic_node", "dynamic_topic"])
def test_maybe_trigger_unclean_leader_election_for_leaderless_partitions(unclean_config: str) -> None:
    ctx = _Context(static_config={"unclean.leader.election.enable": "true"} if unclean_config == "static" else None)
    replication = ctx.replication_control
    ctx.register_brokers(0, 1, 2, 3, 4)
    ctx.unfence_brokers(0, 1, 2, 3, 4)
    foo_id = ctx.create_test_topic_with_replicas("foo", [[1, 2, 4], [1, 3, 4], [0, 2, 4]]).topic_id
    assert not replication.are_some_partitions_leaderless()
    ctx.fence_brokers({0, 1, 2, 3, 4})
    assert replication.are_some_partitions_leaderless()
    for partition_id in (0, 1, 2):
        assert list(replication.get_partition(foo_id, partition_id).isr) == [4]
        assert replication.get_partition(foo_id, partition_id).leader == -1
    # broker 2 may now lead partitions 0 and 2, after an unclean election
    ctx.unfence_brokers(2)
    if unclean_config == "static":
        # statically enabled: unfencing already elected it
        assert (list(replication.get_partition(foo_id, 0).isr), replication.get_partition(foo_id, 0).leader) == \
            ([2], 2)
        assert (list(replication.get_partition(foo_id, 1).isr), replication.get_partition(foo_id, 1).leader) == \
            ([4], -1)
        assert (list(replication.get_partition(foo_id, 2).isr), replication.get_partition(foo_id, 2).leader) == \
            ([2], 2)
    else:
        for partition_id in (0, 1, 2):
            assert list(replication.get_partition(foo_id, partition_id).isr) == [4]
            assert replication.get_partition(foo_id, partition_id).leader == -1
    resource = {"dynamic_cluster": (ConfigResourceType.BROKER, ""), "dynamic_node": (ConfigResourceType.BROKER, "0"),
                "dynamic_topic": (ConfigResourceType.TOPIC, "foo")}.get(unclean_config)
    if resource is not None:
        ctx.replay(ctx.configuration_control.incremental_alter_configs(
            {resource: {"unclean.leader.election.enable": (OpType.SET, "true")}}, True).records)
    balance_result = replication.maybe_elect_unclean_leaders()
    assert not balance_result.response
    if unclean_config in ("none", "static"):
        assert balance_result.records == [], f"Expected no records, but {len(balance_result.records)} were found."
    else:
        assert balance_result.records, "Expected some records, but none were found."
        ctx.replay(balance_result.records)
        assert (list(replication.get_partition(foo_id, 0).isr), replication.get_partition(foo_id, 0).leader) == \
            ([2], 2)
        assert (list(replication.get_partition(foo_id, 1).isr), replication.get_partition(foo_id, 1).leader) == \
            ([4], -1)
        assert (list(replication.get_partition(foo_id, 2).isr), replication.get_partition(foo_id, 2).leader) == \
            ([2], 2)
