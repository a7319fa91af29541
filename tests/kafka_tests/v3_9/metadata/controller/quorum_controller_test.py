"""Port of metadata/src/test/java/org/apache/kafka/controller/QuorumControllerTest.java (Kafka 3.9).

The controllers run over LocalLogManagerTestEnv (tests/kafka_tests/v3_9/metadata/metalog) through
QuorumControllerTestEnv (beside this module), as Kafka's do.

Not applicable: the ZooKeeper-migration cases, eligible leader replicas (KIP-966), controller registrations
(KIP-919) and kraft.version (KIP-853); docs/kraft.md lists these features as not ported.

Parts of cases left out, and differences of form:

- testToImages replays the log through every image and delta the port has (cluster, configurations, features,
  producer ids, topics); ACLs, client quotas, SCRAM and delegation tokens have no image here.
- 3.9 writes a ZkMigrationStateRecord among the bootstrap records; the port, without ZooKeeper migration, does not,
  so every later offset is one lower: testUnregisterBroker's first broker epoch is 4 where Kafka's is 5.
- testFatalMetadataReplayErrorOnActive: Kafka's broken ConfigRecord (resource type 255, null names) fails with a
  NullPointerException; the port's replay fails on the unknown resource type first, with a ValueError.
- The port's MetadataRecordSerde writes RegisterBrokerRecord from version 2 and PartitionRecord from version 1 only
  (one layout per record class), so the snapshots of testFatalMetadataErrorDuringSnapshotLoading and
  testUpgradeFromPreProductionVersion hold those records at those versions where Kafka's hold version 0; the records
  say the same (a PartitionRecord of no topic; a broker registration with no features).
- A ResultOrError is the port's plain value or ApiError; a FinalizedControllerFeatures is a dict; a ConfigResource
  is a (ConfigResourceType, name) tuple.
"""

from __future__ import annotations

import math
import shutil
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import pytest
from kio.schema.alter_partition.v0 import request as ap0
from kio.schema.alter_partition_reassignments.v0 import request as apr
from kio.schema.create_partitions.v3 import request as cp
from kio.schema.create_topics.v7 import request as ct
from kio.schema.elect_leaders.v2 import request as el
from kio.schema.list_partition_reassignments.v0 import request as lpr
from kio.static.primitive import i16, i32, i64

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException, UnknownTopicOrPartitionException
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.metadata.common.metadata import (
    AbortTransactionRecord,
    ApiMessageAndVersion,
    BeginTransactionRecord,
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    EndTransactionRecord,
    FeatureLevelRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    TopicRecord,
    UnfenceBrokerRecord,
)
from kafka_edu.v3_9.metadata.controller import activation_records_generator
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType, OpType
from kafka_edu.v3_9.metadata.controller.controller_exceptions import BrokerIdNotRegisteredException
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT, ControllerRequestContext
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.feature_control_manager import FeatureControlManager
from kafka_edu.v3_9.metadata.controller.offset_control_manager import OffsetControlManager
from kafka_edu.v3_9.metadata.controller.quorum_controller import QuorumController
from kafka_edu.v3_9.metadata.image.cluster_delta import ClusterDelta
from kafka_edu.v3_9.metadata.image.cluster_image import ClusterImage
from kafka_edu.v3_9.metadata.image.configurations_delta import ConfigurationsDelta
from kafka_edu.v3_9.metadata.image.configurations_image import ConfigurationsImage
from kafka_edu.v3_9.metadata.image.features_delta import FeaturesDelta
from kafka_edu.v3_9.metadata.image.features_image import FeaturesImage
from kafka_edu.v3_9.metadata.image.producer_ids_delta import ProducerIdsDelta
from kafka_edu.v3_9.metadata.image.producer_ids_image import ProducerIdsImage
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapMetadata
from kafka_edu.v3_9.metadata.metadata.broker_registration import BrokerHeartbeatReply
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_writer import FileRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import temp_dir, wait_until_true
from tests.kafka_tests.v3_9.metadata.controller.quorum_controller_test_env import (
    TIMEOUT_S,
    QuorumControllerTestEnv,
    broker_features,
    heartbeat_request,
    pause,
    plaintext_listener,
    register_brokers_and_unfence,
    registration_request,
    send_broker_heartbeat_to_unfence_brokers,
    uuid_of,
)
from tests.kafka_tests.v3_9.metadata.metalog.local_log_manager_test_env import LocalLogManagerTestEnv

_ZK = "ZooKeeper-to-KRaft migration (ZkMigrationState, ZkRecordConsumer): not ported (docs/kraft.md)"

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/QuorumControllerTest.java",
    cases=[
        "testConfigurationOperations", "testDelayedConfigurationOperations", "testFenceMultipleBrokers",
        "testUncleanShutdownBroker", "testBalancePartitionLeaders", "testNoOpRecordWriteAfterTimeout",
        "testRegisterBrokerKRaftVersions", "testUnregisterBroker", "testSnapshotSaveAndLoad", "testTimeouts",
        "testEarlyControllerResults", "testConfigResourceExistenceChecker", "testFatalMetadataReplayErrorOnActive",
        "testFatalMetadataErrorDuringSnapshotLoading", "testFatalMetadataErrorDuringLogLoading",
        "testUpgradeFromPreProductionVersion", "testInsertBootstrapRecordsToEmptyLog", "testAppendRecords",
        "testAppendRecordsAtomically", "testBootstrapZkMigrationRecord", "testUpgradeMigrationStateFrom34",
        "testActivationRecords33", "testActivationRecords34", "testActivationRecordsNonEmptyLog",
        "testActivationRecordsPartialBootstrap", "testMigrationsEnabledForOldBootstrapMetadataVersion",
        "testActivationRecordsPartialTransaction", "testActivationRecordsPartialTransactionNoSupport",
        "testFailoverDuringMigrationTransaction", "testBrokerHeartbeatDuringMigration",
    ],
    not_applicable={
        "testUncleanShutdownBroker": "eligible leader replicas (KIP-966, ELR/lastKnownElr): not ported "
                                     "(docs/kraft.md)",
        "testRegisterBrokerKRaftVersions": "kraft.version as a finalized feature (KIP-853): not ported",
        "testSnapshotSaveAndLoad": "its log holds RegisterControllerRecords from registerController: controller "
                                   "registrations (KIP-919) are not ported (docs/kraft.md)",
        "testBootstrapZkMigrationRecord": _ZK,
        "testUpgradeMigrationStateFrom34": _ZK,
        "testActivationRecords33": _ZK,
        "testActivationRecords34": _ZK,
        "testActivationRecordsNonEmptyLog": _ZK,
        "testMigrationsEnabledForOldBootstrapMetadataVersion": _ZK,
        "testFailoverDuringMigrationTransaction": _ZK,
        "testBrokerHeartbeatDuringMigration": _ZK,
    },
)

SIMPLE_BOOTSTRAP = BootstrapMetadata.from_version(MetadataVersion.IBP_3_7_IV0, "test-provided bootstrap")
BROKER0 = (ConfigResourceType.BROKER, "0")  # ConfigurationControlManagerTest.BROKER0
BROKER = ConfigResourceType.BROKER
TOPIC = ConfigResourceType.TOPIC
SET = OpType.SET
ZERO_UUID = uuid.UUID(int=0)


def entry(op: OpType, value: str | None) -> tuple[OpType, str | None]:
    """ConfigurationControlManagerTest.entry."""
    return op, value


def result(future: Future) -> Any:
    return future.result(TIMEOUT_S)


def find(topics: Any, name: str) -> Any:
    """CreatableTopicResultCollection.find."""
    return next(t for t in topics if t.name == name)


def create_topics_request(*topics: ct.CreatableTopic, timeout_ms: int | None = None) -> ct.CreateTopicsRequest:
    import datetime

    if timeout_ms is None:
        return ct.CreateTopicsRequest(topics=tuple(topics))
    return ct.CreateTopicsRequest(topics=tuple(topics), timeout=datetime.timedelta(milliseconds=timeout_ms))


def creatable_topic(name: str, num_partitions: int = -1, replication_factor: int = -1,
                    assignments: dict[int, list[int]] | None = None) -> ct.CreatableTopic:
    return ct.CreatableTopic(
        name=name, num_partitions=i32(num_partitions), replication_factor=i16(replication_factor),
        assignments=tuple(ct.CreatableReplicaAssignment(partition_index=i32(p), broker_ids=tuple(i32(b) for b in bs))
                          for p, bs in (assignments or {}).items()), configs=())


# -- testToImages: RecordTestUtils.TestThroughAllIntermediateImagesLeadingToFinalImageHelper -------------------------

_DELTA_REPLAYS: dict[type, dict[str, str]] = {
    ClusterDelta: {"RegisterBrokerRecord": "replay_register_broker", "UnregisterBrokerRecord":
                   "replay_unregister_broker", "FenceBrokerRecord": "replay_fence_broker",
                   "UnfenceBrokerRecord": "replay_unfence_broker",
                   "BrokerRegistrationChangeRecord": "replay_broker_registration_change"},
    ConfigurationsDelta: {"ConfigRecord": "replay"},
    FeaturesDelta: {"FeatureLevelRecord": "replay"},
    ProducerIdsDelta: {"ProducerIdsRecord": "replay"},
    TopicsDelta: {"TopicRecord": "replay_topic", "PartitionRecord": "replay_partition",
                  "PartitionChangeRecord": "replay_partition_change", "RemoveTopicRecord": "replay_remove_topic"},
}


def _replay_all(delta: Any, records: list[ApiMessageAndVersion]) -> None:
    """RecordTestUtils.replayAll: each record to the delta's replay method for its type, if it has one."""
    methods = _DELTA_REPLAYS[type(delta)]
    for record in records:
        method = methods.get(type(record.message).__name__)
        if method is not None:
            getattr(delta, method)(record.message)


def _test_through_all_intermediate_images(empty_image: Any, delta_creator: Callable[[Any], Any],
                                          from_records: list[ApiMessageAndVersion]) -> None:
    delta = delta_creator(empty_image)
    _replay_all(delta, from_records)
    final_image = delta.apply()
    for num_records_for_first_image in range(1, len(from_records) + 1):
        delta = delta_creator(empty_image)
        _replay_all(delta, from_records[:num_records_for_first_image])
        first_image = delta.apply()
        remaining_records = len(from_records) - num_records_for_first_image
        if remaining_records == 0:
            assert first_image == final_image
            continue
        for max_records_for_successive_batches in range(1, remaining_records + 1):
            latest_intermediate_image = first_image
            num_additional_batches = math.ceil(remaining_records / max_records_for_successive_batches)
            for additional_batch_num in range(num_additional_batches):
                delta = delta_creator(latest_intermediate_image)
                apply_from_index = (num_records_for_first_image
                                    + additional_batch_num * max_records_for_successive_batches)
                apply_to_index = min(len(from_records), apply_from_index + max_records_for_successive_batches)
                _replay_all(delta, from_records[apply_from_index:apply_to_index])
                latest_intermediate_image = delta.apply()
            assert latest_intermediate_image == final_image


def check_to_images(from_records: list[ApiMessageAndVersion]) -> None:
    """QuorumControllerTest.testToImages: every intermediate image leads to the same final image."""
    for empty_image, delta_creator in ((ClusterImage.EMPTY, ClusterDelta),
                                       (ConfigurationsImage.EMPTY, ConfigurationsDelta),
                                       (FeaturesImage.EMPTY, FeaturesDelta),
                                       (ProducerIdsImage.EMPTY, ProducerIdsDelta),
                                       (TopicsImage.EMPTY, TopicsDelta)):
        _test_through_all_intermediate_images(empty_image, delta_creator, from_records)


# -- the cases ---------------------------------------------------------------------------------------------------


def test_configuration_operations() -> None:
    with (LocalLogManagerTestEnv.Builder(1).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).build() as control_env):
        result(control_env.active_controller().register_broker(ANONYMOUS_CONTEXT, registration_request(
            0, log_env.cluster_id(), broker_features(MetadataVersion.IBP_3_0_IV1, MetadataVersion.latest_testing()),
            log_dirs=(uuid_of("iiaQjkRPQcuMULNII0MUeA"),))))
        _check_configuration_operations(control_env.active_controller())
        check_to_images(log_env.all_records())


def _check_configuration_operations(controller: QuorumController) -> None:
    assert result(controller.incremental_alter_configs(
        ANONYMOUS_CONTEXT, {BROKER0: {"baz": entry(SET, "123")}}, True)) == {BROKER0: ApiError.NONE}
    assert result(controller.describe_configs(ANONYMOUS_CONTEXT, {BROKER0: []})) == {BROKER0: {}}
    assert result(controller.incremental_alter_configs(
        ANONYMOUS_CONTEXT, {BROKER0: {"baz": entry(SET, "123")}}, False)) == {BROKER0: ApiError.NONE}
    assert result(controller.describe_configs(ANONYMOUS_CONTEXT, {BROKER0: []})) == {BROKER0: {"baz": "123"}}


def test_delayed_configuration_operations() -> None:
    with (LocalLogManagerTestEnv.Builder(1).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).build() as control_env):
        result(control_env.active_controller().register_broker(ANONYMOUS_CONTEXT, registration_request(
            0, log_env.cluster_id(), broker_features(MetadataVersion.IBP_3_0_IV1, MetadataVersion.latest_testing()),
            log_dirs=(uuid_of("sTbzRAMnTpahIyIPNjiLhw"),))))
        _check_delayed_configuration_operations(log_env, control_env.active_controller())
        check_to_images(log_env.all_records())


def _check_delayed_configuration_operations(log_env: LocalLogManagerTestEnv, controller: QuorumController) -> None:
    for manager in log_env.log_managers():
        manager.set_max_read_offset(1)
    future1 = controller.incremental_alter_configs(ANONYMOUS_CONTEXT, {BROKER0: {"baz": entry(SET, "123")}}, False)
    assert not future1.done()
    assert result(controller.describe_configs(ANONYMOUS_CONTEXT, {BROKER0: []})) == {BROKER0: {}}
    for manager in log_env.log_managers():
        manager.set_max_read_offset(6)
    assert result(future1) == {BROKER0: ApiError.NONE}


def test_fence_multiple_brokers() -> None:
    all_brokers = [1, 2, 3, 4, 5]
    brokers_to_keep_unfenced = [1]
    brokers_to_fence = [2, 3, 4, 5]
    replication_factor = len(all_brokers)
    number_of_partitions = len(all_brokers)
    session_timeout_millis = 1000
    with (LocalLogManagerTestEnv.Builder(1).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).set_session_timeout_millis(session_timeout_millis)
          .set_bootstrap_metadata(SIMPLE_BOOTSTRAP).build() as control_env):
        listeners = (plaintext_listener(9092),)
        active = control_env.active_controller()
        broker_epochs = {}
        for broker_id in all_brokers:
            reply = result(active.register_broker(ANONYMOUS_CONTEXT, registration_request(
                broker_id, active.cluster_id(),
                broker_features(MetadataVersion.IBP_3_0_IV1, MetadataVersion.latest_testing()),
                uuid.uuid4(), listeners)))
            broker_epochs[broker_id] = reply.epoch

        for broker_id in all_brokers:  # only registered: still fenced
            assert not active.cluster_control.is_unfenced(broker_id), f"Broker {broker_id} should have been fenced"

        send_broker_heartbeat_to_unfence_brokers(active, all_brokers, broker_epochs)
        response = result(active.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
            creatable_topic("foo", number_of_partitions, replication_factor)), {"foo"}))
        assert find(response.topics, "foo").error_code == Errors.NONE
        topic_id_foo = find(response.topics, "foo").topic_id

        def fenced() -> bool:
            send_broker_heartbeat_to_unfence_brokers(active, brokers_to_keep_unfenced, broker_epochs)
            return not any(active.cluster_control.is_unfenced(b) for b in brokers_to_fence)

        wait_until_true(fenced, "Fencing of brokers did not process within expected time",
                        session_timeout_millis * 3)

        send_broker_heartbeat_to_unfence_brokers(active, brokers_to_keep_unfenced, broker_epochs)

        for broker_id in brokers_to_keep_unfenced:
            assert active.cluster_control.is_unfenced(broker_id), f"Broker {broker_id} should have been unfenced"
        for broker_id in brokers_to_fence:
            assert not active.cluster_control.is_unfenced(broker_id), f"Broker {broker_id} should have been fenced"

        expected_isr = [1]
        isr_foo = list(active.replication_control.get_partition(topic_id_foo, 0).isr)
        assert isr_foo == expected_isr, f"The ISR for topic foo was {isr_foo}. It is expected to be {expected_isr}"
        assert active.replication_control.get_partition(topic_id_foo, 0).leader == expected_isr[0]
        assert active.replication_control.are_partition_leaders_imbalanced()

        check_to_images(log_env.all_records())


def test_balance_partition_leaders() -> None:
    all_brokers = [1, 2, 3]
    brokers_to_keep_unfenced = [1, 2]
    brokers_to_fence = [3]
    replication_factor = len(all_brokers)
    number_of_partitions = len(all_brokers)
    session_timeout_millis = 2000
    leader_imbalance_check_interval_ns = 1_000_000_000
    with (LocalLogManagerTestEnv.Builder(1).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).set_session_timeout_millis(session_timeout_millis)
          .set_leader_imbalance_check_interval_ns(leader_imbalance_check_interval_ns)
          .set_bootstrap_metadata(SIMPLE_BOOTSTRAP).build() as control_env):
        listeners = (plaintext_listener(9092),)
        active = control_env.active_controller()
        broker_epochs = {}

        def register(broker_id: int) -> None:
            reply = result(active.register_broker(ANONYMOUS_CONTEXT, registration_request(
                broker_id, active.cluster_id(),
                broker_features(MetadataVersion.IBP_3_0_IV1, MetadataVersion.IBP_3_7_IV0), uuid.uuid4(), listeners)))
            broker_epochs[broker_id] = reply.epoch

        for broker_id in all_brokers:
            register(broker_id)
        for broker_id in all_brokers:  # only registered: still fenced
            assert not active.cluster_control.is_unfenced(broker_id), f"Broker {broker_id} should have been fenced"

        send_broker_heartbeat_to_unfence_brokers(active, all_brokers, broker_epochs)
        response = result(active.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
            creatable_topic("foo", number_of_partitions, replication_factor)), {"foo"}))
        assert find(response.topics, "foo").error_code == Errors.NONE
        topic_id_foo = find(response.topics, "foo").topic_id

        def fenced() -> bool:
            send_broker_heartbeat_to_unfence_brokers(active, brokers_to_keep_unfenced, broker_epochs)
            return not any(active.cluster_control.is_unfenced(b) for b in brokers_to_fence)

        wait_until_true(fenced, "Fencing of brokers did not process within expected time",
                        session_timeout_millis * 3)

        send_broker_heartbeat_to_unfence_brokers(active, brokers_to_keep_unfenced, broker_epochs)

        for broker_id in brokers_to_keep_unfenced:
            assert active.cluster_control.is_unfenced(broker_id), f"Broker {broker_id} should have been unfenced"
        for broker_id in brokers_to_fence:
            assert not active.cluster_control.is_unfenced(broker_id), f"Broker {broker_id} should have been fenced"

        assert active.replication_control.are_partition_leaders_imbalanced()

        for broker_id in brokers_to_fence:  # register again
            register(broker_id)

        send_broker_heartbeat_to_unfence_brokers(active, all_brokers, broker_epochs)

        # The unfenced broker 3 joins the ISR of the one imbalanced partition.
        imbalanced_partitions = set(active.replication_control.imbalanced_partitions())
        assert len(imbalanced_partitions) == 1
        imbalanced_partition_id = next(iter(imbalanced_partitions)).partition_id
        partition_registration = active.replication_control.get_partition(topic_id_foo, imbalanced_partition_id)
        alter_partition_request = ap0.AlterPartitionRequest(
            broker_id=i32(partition_registration.leader),
            broker_epoch=i64(broker_epochs[partition_registration.leader]),
            topics=(ap0.TopicData(topic_name="foo", partitions=(ap0.PartitionData(
                partition_index=i32(imbalanced_partition_id), leader_epoch=i32(partition_registration.leader_epoch),
                new_isr=(i32(1), i32(2), i32(3)), partition_epoch=i32(partition_registration.partition_epoch)),)),))
        result(active.alter_partition(ANONYMOUS_CONTEXT, alter_partition_request))

        last_heartbeat_ms = [_monotonic_ms(active)]
        send_broker_heartbeat_to_unfence_brokers(active, all_brokers, broker_epochs)

        def balanced() -> bool:
            current_monotonic_ms = _monotonic_ms(active)
            if current_monotonic_ms > last_heartbeat_ms[0] + session_timeout_millis // 2:
                last_heartbeat_ms[0] = current_monotonic_ms
                send_broker_heartbeat_to_unfence_brokers(active, all_brokers, broker_epochs)
            return not active.replication_control.are_partition_leaders_imbalanced()

        wait_until_true(balanced, "Leaders were not balanced after unfencing all of the brokers",
                        leader_imbalance_check_interval_ns * 10 // 1_000_000)

        check_to_images(log_env.all_records())


def _monotonic_ms(controller: QuorumController) -> int:
    return controller.time.nanoseconds() // 1_000_000


def test_no_op_record_write_after_timeout() -> None:
    max_idle_interval_ns = 1_000
    max_replication_delay_ms = 60_000
    with (LocalLogManagerTestEnv.Builder(3).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).set_controller_builder_initializer(
              lambda builder: builder.set_max_idle_interval_ns(max_idle_interval_ns)).build() as control_env):
        active = control_env.active_controller()
        local_log_manager = next(m for m in log_env.log_managers() if m.node_id() == active.node_id)
        wait_until_true(lambda: local_log_manager.high_watermark() is not None, "High watermark was not established",
                        max_replication_delay_ms)

        first_high_watermark = local_log_manager.high_watermark()
        wait_until_true(lambda: local_log_manager.high_watermark() > first_high_watermark,
                        "Active controller didn't write NoOpRecord the first time", max_replication_delay_ms)

        # Again: the first rise may have been the leader change.
        second_high_watermark = local_log_manager.high_watermark()
        wait_until_true(lambda: local_log_manager.high_watermark() > second_high_watermark,
                        "Active controller didn't write NoOpRecord the second time", max_replication_delay_ms)


def test_unregister_broker() -> None:
    with (LocalLogManagerTestEnv.Builder(1).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).build() as control_env):
        listeners = (plaintext_listener(9092),)
        active = control_env.active_controller()
        reply = active.register_broker(ANONYMOUS_CONTEXT, registration_request(
            0, active.cluster_id(), broker_features(MetadataVersion.IBP_3_0_IV1, MetadataVersion.latest_testing()),
            uuid_of("kxAT73dKQsitIedpiPtwBA"), listeners, (uuid_of("vBpaRsZVSaGsQT53wtYGtg"),)))
        broker_epoch = 5 - 1  # Kafka's 5: the port writes no ZkMigrationStateRecord (see the module docstring)
        assert result(reply).epoch == broker_epoch
        request = create_topics_request(creatable_topic("foo", 1, 1))
        assert find(result(active.create_topics(ANONYMOUS_CONTEXT, request, {"foo"})).topics, "foo").error_code \
            == Errors.INVALID_REPLICATION_FACTOR
        assert find(result(active.create_topics(ANONYMOUS_CONTEXT, request, {"foo"})).topics, "foo").error_message \
            == "Unable to replicate the partition 1 time(s): All brokers are currently fenced."
        assert result(active.process_broker_heartbeat(ANONYMOUS_CONTEXT, heartbeat_request(0, broker_epoch, 100000))) \
            == BrokerHeartbeatReply(True, False, False, False)
        assert find(result(active.create_topics(ANONYMOUS_CONTEXT, request, {"foo"})).topics, "foo").error_code \
            == Errors.NONE

        def first_partition_of_broker_0() -> Any:
            iterator = iter(active.replication_control.brokers_to_isrs().iterator(0, True))
            partition = next(iterator, None)
            assert partition is not None
            return partition

        assert result(active.append_read_event("debugGetPartition", None, first_partition_of_broker_0)) \
            .partition_id == 0
        result(active.unregister_broker(ANONYMOUS_CONTEXT, 0))

        def first_partition_with_no_leader() -> Any:
            partition = next(iter(active.replication_control.brokers_to_isrs().partitions_with_no_leader()), None)
            assert partition is not None
            return partition

        assert result(active.append_read_event("debugGetPartition", None, first_partition_with_no_leader)) \
            .partition_id == 0

        check_to_images(log_env.all_records())


def _assert_yields_timeout(future: Future) -> None:
    with pytest.raises(TimeoutException):
        future.result(TIMEOUT_S)


def test_timeouts() -> None:
    with (LocalLogManagerTestEnv.Builder(1).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).build() as control_env):
        controller = control_env.active_controller()
        count_down_latch = pause(controller)
        now = controller.time.nanoseconds()
        context0 = ControllerRequestContext(None, "User:ANONYMOUS", now)
        create_future = controller.create_topics(context0, create_topics_request(
            creatable_topic("foo"), timeout_ms=0), set())
        delete_future = controller.delete_topics(context0, [ZERO_UUID])
        find_topic_ids_future = controller.find_topic_ids(context0, ["foo"])
        find_topic_names_future = controller.find_topic_names(context0, [ZERO_UUID])
        create_partitions_future = controller.create_partitions(context0, [
            cp.CreatePartitionsTopic(name="", count=i32(0), assignments=None)], False)
        elect_leaders_future = controller.elect_leaders(context0, build(
            el.ElectLeadersRequest, election_type=0, topic_partitions=None, timeout=0))
        alter_reassignments_future = controller.alter_partition_reassignments(context0, build(
            apr.AlterPartitionReassignmentsRequest, timeout=0, topics=[dict(name="", partitions=[])]))
        list_reassignments_future = controller.list_partition_reassignments(context0, build(
            lpr.ListPartitionReassignmentsRequest, timeout=0, topics=None))
        while controller.time.nanoseconds() == now:
            pass  # the deadline must be in the past when the queue looks at the requests
        count_down_latch.set()
        _assert_yields_timeout(create_future)
        _assert_yields_timeout(delete_future)
        _assert_yields_timeout(find_topic_ids_future)
        _assert_yields_timeout(find_topic_names_future)
        _assert_yields_timeout(create_partitions_future)
        _assert_yields_timeout(elect_leaders_future)
        _assert_yields_timeout(alter_reassignments_future)
        _assert_yields_timeout(list_reassignments_future)

        check_to_images(log_env.all_records())


def test_early_controller_results() -> None:
    with (LocalLogManagerTestEnv.Builder(1).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).build() as control_env):
        controller = control_env.active_controller()
        count_down_latch = pause(controller)
        create_future = controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(timeout_ms=120000), set())
        delete_future = controller.delete_topics(ANONYMOUS_CONTEXT, [])
        find_topic_ids_future = controller.find_topic_ids(ANONYMOUS_CONTEXT, [])
        find_topic_names_future = controller.find_topic_names(ANONYMOUS_CONTEXT, [])
        create_partitions_future = controller.create_partitions(ANONYMOUS_CONTEXT, [], False)
        elect_leaders_future = controller.elect_leaders(ANONYMOUS_CONTEXT, build(
            el.ElectLeadersRequest, election_type=0, topic_partitions=[], timeout=0))
        alter_reassignments_future = controller.alter_partition_reassignments(ANONYMOUS_CONTEXT, build(
            apr.AlterPartitionReassignmentsRequest, timeout=0, topics=[]))
        # Answered at once: the controller's queue is paused.
        for future in (create_future, delete_future, find_topic_ids_future, find_topic_names_future,
                       create_partitions_future, elect_leaders_future, alter_reassignments_future):
            future.result(0)
        count_down_latch.set()

        check_to_images(log_env.all_records())


def test_config_resource_existence_checker() -> None:
    with (LocalLogManagerTestEnv.Builder(3).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).build() as control_env):
        active = control_env.active_controller()
        register_brokers_and_unfence(active, 5)
        result(active.create_topics(ANONYMOUS_CONTEXT, create_topics_request(creatable_topic("foo", 1, 3)),
                                    {"foo"}))
        checker = QuorumController.ConfigResourceExistenceChecker(active)
        checker.accept((BROKER, ""))  # the default broker resource: the cluster's configs
        checker.accept((BROKER, "3"))
        with pytest.raises(BrokerIdNotRegisteredException):
            checker.accept((BROKER, "10"))
        checker.accept((TOPIC, "foo"))
        with pytest.raises(UnknownTopicOrPartitionException):
            checker.accept((TOPIC, "bar"))

        check_to_images(log_env.all_records())


def test_fatal_metadata_replay_error_on_active() -> None:
    with (LocalLogManagerTestEnv.Builder(3).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).build() as control_env):
        active = control_env.active_controller()
        future = active.append_write_event("errorEvent", None, lambda: ControllerResult.of([ApiMessageAndVersion(
            ConfigRecord(name=None, resource_name=None, resource_type=255, value=None), 0)], None))
        with pytest.raises(Exception):  # noqa: B017 (Kafka asserts an ExecutionException, whatever its cause)
            future.result(TIMEOUT_S)
        assert type(control_env.fatal_fault_handler(active.node_id).first_exception().__cause__) is ValueError
        control_env.ignore_fatal_faults()


def test_fatal_metadata_error_during_log_loading() -> None:
    with LocalLogManagerTestEnv.Builder(3).build() as log_env:
        log_env.append_initial_records([ApiMessageAndVersion(
            PartitionRecord(topic_id=ZERO_UUID, replicas=(), isr=()), 0)])
        with QuorumControllerTestEnv.Builder(log_env).build() as control_env:
            wait_until_true(lambda: all(control_env.fatal_fault_handler(c.node_id).first_exception() is not None
                                        for c in control_env.controllers()),
                            "At least one controller failed to detect the fatal fault")
            control_env.ignore_fatal_faults()


class InitialSnapshot:
    """A snapshot file at offset 0, epoch 0 holding `records` (Kafka writes it with BatchFileWriter: header batch,
    the records, footer batch, as RecordsSnapshotWriter does here)."""

    def __init__(self, records: list[ApiMessageAndVersion]) -> None:
        self.temp_dir = temp_dir()
        writer = (RecordsSnapshotWriter.Builder().set_max_batch_size(8 * 1024 * 1024)
                  .set_raw_snapshot_writer(FileRawSnapshotWriter.create(self.temp_dir, OffsetAndEpoch(0, 0)))
                  .build(MetadataRecordSerde()))
        try:
            writer.append(records)
            writer.freeze()
        finally:
            writer.close()

    def close(self) -> None:
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __enter__(self) -> InitialSnapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def test_fatal_metadata_error_during_snapshot_loading() -> None:
    invalid_snapshot = InitialSnapshot([ApiMessageAndVersion(
        PartitionRecord(topic_id=ZERO_UUID, replicas=(), isr=()), 1)])  # Kafka's version 0: see the docstring
    log_env_builder = LocalLogManagerTestEnv.Builder(3).set_snapshot_reader(
        FileRawSnapshotReader.open(invalid_snapshot.temp_dir, OffsetAndEpoch(0, 0)))
    with log_env_builder.build() as log_env, QuorumControllerTestEnv.Builder(log_env).build() as control_env:
        wait_until_true(lambda: all(control_env.fatal_fault_handler(c.node_id).first_exception() is not None
                                    for c in control_env.controllers()),
                        "At least one controller failed to detect the fatal fault")
        control_env.ignore_fatal_faults()


PRE_PRODUCTION_RECORDS = [
    ApiMessageAndVersion(RegisterBrokerRecord(broker_epoch=42, broker_id=123,
                                              incarnation_id=uuid_of("v78Gbc6sQXK0y5qqRxiryw"), end_points=(),
                                              features=(), rack=None), 2),  # Kafka's 0: see the docstring
    ApiMessageAndVersion(UnfenceBrokerRecord(epoch=42, id=123), 0),
    ApiMessageAndVersion(TopicRecord(name="bar", topic_id=uuid_of("cxBT72dK4si8Ied1iP4wBA")), 0),
]


COMPLEX_BOOTSTRAP = BootstrapMetadata.from_records([
    ApiMessageAndVersion(FeatureLevelRecord(name=FEATURE_NAME,
                                            feature_level=MetadataVersion.IBP_3_3_IV1.feature_level()), 0),
    ApiMessageAndVersion(ConfigRecord(resource_type=int(BROKER), resource_name="", name="foo", value="bar"), 0),
], "test bootstrap")


def test_upgrade_from_pre_production_version() -> None:
    with (InitialSnapshot(PRE_PRODUCTION_RECORDS) as initial_snapshot,
          LocalLogManagerTestEnv.Builder(3).set_snapshot_reader(FileRawSnapshotReader.open(
              initial_snapshot.temp_dir, OffsetAndEpoch(0, 0))).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).set_bootstrap_metadata(COMPLEX_BOOTSTRAP).build() as control_env):
        active = control_env.active_controller()
        wait_until_true(lambda: active.feature_control.metadata_version() == MetadataVersion.IBP_3_0_IV1,
                        f"Failed to get a metadata.version of {MetadataVersion.IBP_3_0_IV1}")
        # The bootstrap's ConfigRecord is not applied: the log was not empty.
        assert active.configuration_control.get_configs((BROKER, "")) == {}

        check_to_images(log_env.all_records())


def test_insert_bootstrap_records_to_empty_log() -> None:
    with (LocalLogManagerTestEnv.Builder(3).build() as log_env,
          QuorumControllerTestEnv.Builder(log_env).set_bootstrap_metadata(COMPLEX_BOOTSTRAP).build() as control_env):
        active = control_env.active_controller()
        ctx = ControllerRequestContext(None, "User:ANONYMOUS", 2**63 - 1)

        wait_until_true(lambda: result(active.finalized_features(ctx)).get(FEATURE_NAME)
                        == MetadataVersion.IBP_3_3_IV1.feature_level(),
                        "Failed to see expected metadata.version from bootstrap metadata")

        default_broker_resource = (BROKER, "")

        def configs_seen() -> bool:
            results = result(active.describe_configs(ctx, {default_broker_resource: []}))
            result_or_error = results[default_broker_resource]
            return not isinstance(result_or_error, ApiError) and result_or_error == {"foo": "bar"}

        wait_until_true(configs_seen, "Failed to see expected config change from bootstrap metadata")

        check_to_images(log_env.all_records())


class _TestAppender:
    def __init__(self) -> None:
        self.offset = 0

    def __call__(self, records: list[ApiMessageAndVersion]) -> int:
        for record in records:
            assert record.message.broker_id == self.offset
            self.offset += 1
        return self.offset


def _rec(i: int) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(BrokerRegistrationChangeRecord(broker_id=i, broker_epoch=0), 0)


def test_append_records() -> None:
    import logging

    appender = _TestAppender()
    assert QuorumController.append_records(logging.getLogger(__name__), ControllerResult.of(
        [_rec(0), _rec(1), _rec(2), _rec(3), _rec(4)], None), 2, appender) == 5


def test_append_records_atomically() -> None:
    import logging

    from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException

    appender = _TestAppender()
    with pytest.raises(IllegalStateException) as e:
        QuorumController.append_records(logging.getLogger(__name__), ControllerResult.atomic_of(
            [_rec(0), _rec(1), _rec(2), _rec(3), _rec(4)], None), 2, appender)
    assert str(e.value) == "Attempted to atomically commit 5 records, but maxRecordsPerBatch is 2"


def _record_at_index_as(cls: type, records: list[ApiMessageAndVersion], index: int) -> Any:
    """RecordTestUtils.recordAtIndexAs: the message at `index` if it is a `cls`, else None."""
    if index < 0 or index >= len(records):
        return None
    message = records[index].message
    return message if isinstance(message, cls) else None


@pytest.mark.parametrize("zk_migration_enabled", [False])  # Kafka's `true` run is ZooKeeper migration: not ported
def test_activation_records_partial_bootstrap(zk_migration_enabled: bool) -> None:
    feature_control_manager = FeatureControlManager(SnapshotRegistry(), MetadataVersion.IBP_3_6_IV1)
    result_ = activation_records_generator.generate(
        lambda message: None, True, 0, BootstrapMetadata.from_version(MetadataVersion.IBP_3_6_IV1, "test"),
        feature_control_manager)
    assert not result_.is_atomic
    assert _record_at_index_as(AbortTransactionRecord, result_.records, 0) is not None
    assert _record_at_index_as(BeginTransactionRecord, result_.records, 1) is not None
    assert _record_at_index_as(EndTransactionRecord, result_.records, len(result_.records) - 1) is not None


def test_activation_records_partial_transaction() -> None:
    feature_control_manager = FeatureControlManager(SnapshotRegistry(), MetadataVersion.IBP_3_6_IV1)
    offset_control_manager = OffsetControlManager()
    offset_control_manager.replay_begin_transaction(BeginTransactionRecord(name=""), 10)
    offset_control_manager.handle_commit_batch(Batch.data(20, 1, 1, 0, [
        ApiMessageAndVersion(BeginTransactionRecord(name=""), 0)]))

    result_ = activation_records_generator.generate(
        lambda message: None, False, offset_control_manager.transaction_start_offset(),
        BootstrapMetadata.from_version(MetadataVersion.IBP_3_6_IV1, "test"), feature_control_manager)
    assert result_.is_atomic
    offset_control_manager.replay_abort_transaction(
        _record_at_index_as(AbortTransactionRecord, result_.records, 0), 21)
    assert offset_control_manager.transaction_start_offset() == -1


def test_activation_records_partial_transaction_no_support() -> None:
    feature_control_manager = FeatureControlManager(SnapshotRegistry(), MetadataVersion.IBP_3_6_IV0)
    offset_control_manager = OffsetControlManager()
    offset_control_manager.replay_begin_transaction(BeginTransactionRecord(name=""), 10)
    offset_control_manager.handle_commit_batch(Batch.data(20, 1, 1, 0, [
        ApiMessageAndVersion(BeginTransactionRecord(name=""), 0)]))

    with pytest.raises(RuntimeError):
        activation_records_generator.generate(
            lambda message: None, False, offset_control_manager.transaction_start_offset(),
            BootstrapMetadata.from_version(MetadataVersion.IBP_3_6_IV0, "test"), feature_control_manager)
