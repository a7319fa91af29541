"""Port of core/src/test/scala/unit/kafka/server/ReplicaManagerTest.scala (Kafka 3.9).

A KRaft broker's ReplicaManager: Kafka's cases that set a leader up through a ZooKeeper LeaderAndIsr request
(becomeLeaderOrFollower) and test something else (fetch, listeners, transactions) make it leader here the way
applyDelta does (`become_leader`). The ReplicaFetcherManager is not ported yet: `FakeReplicaFetcherManager` stands in
for the real one and for Kafka's mocked one. The metadata cache is mocked as in Kafka.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from kio.schema.types import BrokerId, TopicName
from kio.static.primitive import i32

from kafka_edu.v3_9.clients.common.compress import compression
from kafka_edu.v3_9.clients.common.errors.invalid_pid_mapping_exception import InvalidPidMappingException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.replica.client_metadata import ClientMetadata, DefaultClientMetadata
from kafka_edu.v3_9.clients.common.replica.partition_view import PartitionView
from kafka_edu.v3_9.clients.common.replica.replica_selector import ReplicaSelector
from kafka_edu.v3_9.clients.common.replica.replica_view import DefaultReplicaView, ReplicaView
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import DirectoryId, Uuid
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.cluster.partition import LeaderAndIsrPartitionState, Partition, PartitionListener
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import InitialFetchState
from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import LazyOffsetCheckpoints
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.core.server.kafka_request_handler import set_bypass_thread_check
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA
from kafka_edu.v3_9.core.server.replica_manager import (
    HIGH_WATERMARK_FILENAME,
    ClassNotFoundException,
    HostedPartition,
    ReplicaManager,
)
from kafka_edu.v3_9.metadata.common.metadata.partition_change_record import PartitionChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_record import PartitionRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_topic_record import RemoveTopicRecord
from kafka_edu.v3_9.metadata.common.metadata.topic_record import TopicRecord
from kafka_edu.v3_9.metadata.image.cluster_image import ClusterImage
from kafka_edu.v3_9.metadata.image.configurations_image import ConfigurationsImage
from kafka_edu.v3_9.metadata.image.features_image import FeaturesImage
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.producer_ids_image import ProducerIdsImage
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.metadata.metadata.broker_registration import BrokerRegistration, Endpoint
from kafka_edu.v3_9.metadata.metadata.partition_registration import NO_LEADER
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    META_PROPERTIES_NAME,
    MetaProperties,
    MetaPropertiesVersion,
    write_properties_file,
)
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.common.topic_id_partition import TopicIdPartition as ServerTopicIdPartition
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.server_common.server.util.timer.mock_timer import MockTimer
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true
from tests.kafka_tests.v3_9.core.log.log_test_utils import create_log_manager, singleton_records

ZERO = uuid.UUID(int=0)

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/ReplicaManagerTest.scala",
    cases=[
        "testHighWaterMarkDirectoryMapping",
        "testHighwaterMarkRelativeDirectoryMapping",
        "testIllegalRequiredAcks",
        "testMaybeAddLogDirFetchersWithoutEpochCache",
        "testMaybeAddLogDirFetchersPausingCleaning",
        "testClearPurgatoryOnBecomingFollower",
        "testFencedErrorCausedByBecomeLeader",
        "testReceiveOutOfOrderSequenceExceptionWithLogStartOffset",
        "testProducerIdCountMetrics",
        "testPartitionsWithLateTransactionsCount",
        "testReadCommittedFetchLimitedAtLSO",
        "testDelayedFetchIncludesAbortedTransactions",
        "testFetchBeyondHighWatermark",
        "testFollowerStateNotUpdatedIfLogReadFails",
        "testFetchMessagesWithInconsistentTopicId",
        "testFetchMessagesWhenNotFollowerForOnePartition",
        "testBecomeFollowerWhenLeaderIsUnchangedButMissedLeaderUpdate",
        "testBecomeFollowerWhenLeaderIsUnchangedButMissedLeaderUpdateIbp26",
        "testReplicaSelector",
        "testPreferredReplicaAsFollower",
        "testPreferredReplicaAsLeader",
        "testPreferredReplicaAsLeaderWhenSameRackFollowerIsOutOfIsr",
        "testFetchFromFollowerShouldNotRunPreferLeaderSelect",
        "testFetchShouldReturnImmediatelyWhenPreferredReadReplicaIsDefined",
        "testFollowerFetchWithDefaultSelectorNoForcedHwPropagation",
        "testUnknownReplicaSelector",
        "testDefaultReplicaSelector",
        "testFetchFollowerNotAllowedForOlderClients",
        "testFetchRequestRateMetrics",
        "testBecomeFollowerWhileOldClientFetchInPurgatory",
        "testBecomeFollowerWhileNewClientFetchInPurgatory",
        "testFetchFromLeaderAlwaysAllowed",
        "testClearFetchPurgatoryOnStopReplica",
        "testClearProducePurgatoryOnStopReplica",
        "testVerificationForTransactionalPartitionsOnly",
        "testTransactionVerificationFlow",
        "testTransactionVerificationBlocksOutOfOrderSequence",
        "testTransactionVerificationGuardOnMultiplePartitions",
        "testExceptionWhenUnverifiedTransactionHasMultipleProducerIds",
        "testTransactionVerificationWhenNotLeader",
        "testDisabledTransactionVerification",
        "testTransactionVerificationDynamicDisablement",
        "testPreVerificationError",
        "testFullLeaderAndIsrStrayPartitions",
        "testUpdateStrayLogs",
        "testOldLeaderLosesMetricsWhenReassignPartitions",
        "testOldFollowerLosesMetricsWhenReassignPartitions",
        "testStopReplicaWithStaleControllerEpoch",
        "testStopReplicaWithOfflinePartition",
        "testStopReplicaWithInexistentPartition",
        "testStopReplicaWithInexistentPartitionAndPartitionsDelete",
        "testStopReplicaWithInexistentPartitionAndPartitionsDeleteAndIOException",
        "testStopReplicaWithExistingPartitionAndNewerLeaderEpoch",
        "testStopReplicaWithExistingPartitionAndOlderLeaderEpoch",
        "testStopReplicaWithExistingPartitionAndEqualLeaderEpoch",
        "testStopReplicaWithExistingPartitionAndDeleteSentinel",
        "testStopReplicaWithExistingPartitionAndLeaderEpochNotProvided",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndNewerLeaderEpoch",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndNewerLeaderEpochAndIOException",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndOlderLeaderEpoch",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndEqualLeaderEpoch",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndDeleteSentinel",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndLeaderEpochNotProvided",
        "testOffsetOutOfRangeExceptionWhenReadFromLog",
        "testOffsetOutOfRangeExceptionWhenFetchMessages",
        "testRemoteLogReaderMetrics",
        "testRemoteFetchExpiresPerSecMetric",
        "testSuccessfulBuildRemoteLogAuxStateMetrics",
        "testFailedBuildRemoteLogAuxStateMetrics",
        "testBuildRemoteLogAuxStateMetricsThrowsException",
        "testReplicaNotAvailable",
        "testPartitionMetadataFile",
        "testPartitionMetadataFileCreatedWithExistingLog",
        "testPartitionMetadataFileCreatedAfterPreviousRequestWithoutIds",
        "testInconsistentIdReturnsError",
        "testPartitionMetadataFileNotCreated",
        "testPartitionMarkedOfflineIfLogCantBeCreated",
        "testActiveProducerState",
        "testGetOrCreatePartition",
        "testGetOrCreatePartitionShouldNotCreateOfflinePartition",
        "testApplyDeltaShouldHandleReplicaAssignedToOnlineDirectory",
        "testApplyDeltaShouldHandleReplicaAssignedToUnassignedDirectory",
        "testApplyDeltaShouldHandleReplicaAssignedToLostDirectory",
        "testDeltaFromLeaderToFollower",
        "testDeltaFromFollowerToLeader",
        "testDeltaFollowerWithNoChange",
        "testDeltaFollowerToNotReplica",
        "testDeltaFollowerRemovedTopic",
        "testDeltaLeaderToNotReplica",
        "testDeltaLeaderToRemovedTopic",
        "testDeltaToFollowerCompletesProduce",
        "testDeltaToFollowerCompletesFetch",
        "testDeltaToLeaderOrFollowerMarksPartitionOfflineIfLogCantBeCreated",
        "testDeltaFollowerStopFetcherBeforeCreatingInitialFetchOffset",
        "testFetcherAreNotRestartedIfLeaderEpochIsNotBumpedWithZkPath",
        "testFetcherAreNotRestartedIfLeaderEpochIsNotBumpedWithKRaftPath",
        "testReplicasAreStoppedWhileInControlledShutdownWithKRaft",
        "testPartitionListener",
        "testPartitionFetchStateUpdatesWithTopicIdChanges",
        "testReplicaAlterLogDirsWithAndWithoutIds",
        "testDescribeLogDirs",
        "testDescribeLogDirsWithoutAnyPartitionTopic",
        "testCheckpointHwOnShutdown",
        "testNotCallStopPartitionsForNonTieredTopics",
        "testFullLairDuringKRaftMigration",
        "testFullLairDuringKRaftMigrationRemovesOld",
        "testFullLairDuringKRaftMigrationWithTopicRecreations",
        "testMetadataLogDirFailureInZkShouldNotHaltBroker",
        "testRemoteReadQuotaExceeded",
        "testRemoteReadQuotaNotExceeded",
    ],
    not_applicable={
        "testProducerIdCountMetrics":
            "metrics: the port has no metrics registry",
        "testPartitionsWithLateTransactionsCount":
            "metrics: the port has no metrics registry",
        "testBecomeFollowerWhenLeaderIsUnchangedButMissedLeaderUpdateIbp26":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testFetchRequestRateMetrics":
            "metrics: the port has no metrics registry",
        "testClearFetchPurgatoryOnStopReplica":
            "ZooKeeper mode: StopReplica from a ZooKeeper controller (the KRaft path is testDeltaToFollowerCompletes*)",
        "testClearProducePurgatoryOnStopReplica":
            "ZooKeeper mode: StopReplica from a ZooKeeper controller (the KRaft path is testDeltaToFollowerCompletes*)",
        "testFullLeaderAndIsrStrayPartitions":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testOldLeaderLosesMetricsWhenReassignPartitions":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testOldFollowerLosesMetricsWhenReassignPartitions":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithStaleControllerEpoch":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithOfflinePartition":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithInexistentPartition":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithInexistentPartitionAndPartitionsDelete":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithInexistentPartitionAndPartitionsDeleteAndIOException":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithExistingPartitionAndNewerLeaderEpoch":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithExistingPartitionAndOlderLeaderEpoch":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithExistingPartitionAndEqualLeaderEpoch":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithExistingPartitionAndDeleteSentinel":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithExistingPartitionAndLeaderEpochNotProvided":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndNewerLeaderEpoch":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndNewerLeaderEpochAndIOException":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndOlderLeaderEpoch":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndEqualLeaderEpoch":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndDeleteSentinel":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testStopReplicaWithDeletePartitionAndExistingPartitionAndLeaderEpochNotProvided":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testOffsetOutOfRangeExceptionWhenReadFromLog":
            "tiered storage / remote log: not ported (the case reads an offset moved to remote storage)",
        "testOffsetOutOfRangeExceptionWhenFetchMessages":
            "tiered storage / remote log: not ported (the case reads an offset moved to remote storage)",
        "testRemoteLogReaderMetrics":
            "tiered storage / remote log: not ported",
        "testRemoteFetchExpiresPerSecMetric":
            "tiered storage / remote log: not ported",
        "testSuccessfulBuildRemoteLogAuxStateMetrics":
            "tiered storage / remote log: not ported",
        "testFailedBuildRemoteLogAuxStateMetrics":
            "tiered storage / remote log: not ported",
        "testBuildRemoteLogAuxStateMetricsThrowsException":
            "tiered storage / remote log: not ported",
        "testFetcherAreNotRestartedIfLeaderEpochIsNotBumpedWithZkPath":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testFullLairDuringKRaftMigration":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testFullLairDuringKRaftMigrationRemovesOld":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testFullLairDuringKRaftMigrationWithTopicRecreations":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testMetadataLogDirFailureInZkShouldNotHaltBroker":
            "ZooKeeper mode: StopReplica / LeaderAndIsr from a ZooKeeper controller (a KRaft broker gets neither)",
        "testRemoteReadQuotaExceeded":
            "tiered storage / remote log: not ported",
        "testRemoteReadQuotaNotExceeded":
            "tiered storage / remote log: not ported",
        "testClearPurgatoryOnBecomingFollower":
            "ZooKeeper mode: LeaderAndIsr makeFollowers (the KRaft path is testDeltaToFollowerCompletesProduce)",
        "testBecomeFollowerWhileOldClientFetchInPurgatory":
            "ZooKeeper mode: LeaderAndIsr makeFollowers (the KRaft path is testDeltaToFollowerCompletesFetch)",
        "testBecomeFollowerWhileNewClientFetchInPurgatory":
            "ZooKeeper mode: LeaderAndIsr makeFollowers (the KRaft path is testDeltaToFollowerCompletesFetch)",
        "testPartitionMarkedOfflineIfLogCantBeCreated":
            "ZooKeeper mode: LeaderAndIsr (KRaft: testDeltaToLeaderOrFollowerMarksPartitionOfflineIfLogCantBeCreated)",
        "testNotCallStopPartitionsForNonTieredTopics":
            "tiered storage / remote log: not ported (and StopReplica is ZooKeeper mode)",
        "testBecomeFollowerWhenLeaderIsUnchangedButMissedLeaderUpdate":
            "ZooKeeper mode: LeaderAndIsr leader-epoch handling in makeFollowers",
        "testPartitionMetadataFile":
            "ZooKeeper mode: topic ids from LeaderAndIsr (on KRaft they come from the image: testDelta*)",
        "testPartitionMetadataFileCreatedWithExistingLog":
            "ZooKeeper mode: topic ids from LeaderAndIsr (on KRaft they come from the image)",
        "testPartitionMetadataFileCreatedAfterPreviousRequestWithoutIds":
            "ZooKeeper mode: LeaderAndIsr without topic ids (pre-2.8 controller)",
        "testInconsistentIdReturnsError":
            "ZooKeeper mode: the LeaderAndIsr response's INCONSISTENT_TOPIC_ID",
        "testPartitionMetadataFileNotCreated":
            "ZooKeeper mode: LeaderAndIsr without topic ids (pre-2.8 controller)",
        "testPartitionFetchStateUpdatesWithTopicIdChanges":
            "ZooKeeper mode: fetchers getting topic ids from a later LeaderAndIsr",
        "testUpdateStrayLogs":
            "ZooKeeper mode: stray logs found from a full LeaderAndIsr (updateStrayLogs is called from there only)",
    },
)


# -- the world the tests build (setupReplicaManagerWithMockedPurgatories and the delta helpers) --------------------

TOPIC = "test-topic"
TOPIC_ID = uuid.UUID("3b7a1a2e-6b8c-4d1e-9f0a-112233445566")
FOO_UUID = uuid.UUID("9f1c2d3e-4b5a-6c7d-8e9f-a0b1c2d3e4f5")
BAR_UUID = uuid.UUID("1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809")


def _cluster_image1() -> ClusterImage:
    """ClusterImageTest.IMAGE1: brokers 0, 1 and 2 on localhost:9092..9094."""
    def broker(node_id: int, epoch: int, port: int, fenced: bool) -> BrokerRegistration:
        return BrokerRegistration(id=node_id, epoch=epoch, incarnation_id=uuid.uuid4(),
                                  listeners={"PLAINTEXT": Endpoint("PLAINTEXT", 0, "localhost", port)}, fenced=fenced)
    return ClusterImage({0: broker(0, 1000, 9092, True), 1: broker(1, 1001, 9093, False),
                         2: broker(2, 123, 9094, False)})


IMAGE1 = _cluster_image1()


class FakeMetadataCache:
    """The mocked MetadataCache: `contains` answers for the partitions the test names, the rest as Kafka's mock."""

    def __init__(self, contained: set[TopicPartition], alive_broker_ids: tuple[int, ...] = (0, 1)) -> None:
        self.contained = contained
        self.alive_broker_ids = alive_broker_ids
        self.replica_endpoints: dict[tuple[TopicPartition, str], dict[int, Node]] = {}

    def has_alive_broker(self, broker_id: int) -> bool:
        return broker_id in self.alive_broker_ids

    def get_partition_replica_endpoints(self, tp: TopicPartition, listener_name: str) -> dict[int, Node]:
        return dict(self.replica_endpoints.get((tp, listener_name), {}))

    def contains(self, topic_partition: Any) -> bool:
        return topic_partition in self.contained

    def metadata_version(self) -> MetadataVersion:
        return MetadataVersion.latest_testing()

    def topic_config(self, topic_name: str) -> dict[str, Any]:
        return {}


class FakeReplicaFetcherManager:
    """The ReplicaFetcherManager is not ported: this stands in for it and for Kafka's mocked one, recording what
    ReplicaManager asks of it; `get_fetcher(tp)` is the fetch state added for tp (its `.leader`), else None."""

    def __init__(self) -> None:
        self.fetch_states: dict[TopicPartition, InitialFetchState] = {}
        self.removed: list[set[TopicPartition]] = []
        self.added: list[dict[TopicPartition, InitialFetchState]] = []
        self.failed: set[TopicPartition] = set()
        self.on_remove: Any = None  # Mockito's thenAnswer on removeFetcherForPartitions

    def get_fetcher(self, tp: TopicPartition) -> InitialFetchState | None:
        return self.fetch_states.get(tp)

    def add_fetcher_for_partitions(self, partition_and_offsets: dict[TopicPartition, InitialFetchState]) -> None:
        self.added.append(dict(partition_and_offsets))
        self.fetch_states.update(partition_and_offsets)

    def remove_fetcher_for_partitions(self, partitions: set[TopicPartition]) -> dict[TopicPartition, Any]:
        self.removed.append(set(partitions))
        if self.on_remove is not None:
            self.on_remove(partitions)
        return {tp: self.fetch_states.pop(tp) for tp in partitions if tp in self.fetch_states}

    def add_failed_partition(self, tp: TopicPartition) -> None:
        self.failed.add(tp)

    def shutdown_idle_fetcher_threads(self) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def reset(self) -> None:
        self.removed.clear()
        self.added.clear()


class FakeAlterPartitionManager:
    def __init__(self) -> None:
        self.submitted: list[Any] = []

    def submit(self, *args: Any) -> Future[Any]:
        self.submitted.append(args)
        return Future()


def broker_config(broker_id: int, log_dirs: list[Path], **overrides: Any) -> KafkaConfig:
    props = {"process.roles": "broker", "node.id": broker_id, "controller.quorum.voters": "3000@localhost:9093",
             "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://localhost:9092",
             "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
             "log.dirs": ",".join(str(d) for d in log_dirs)}
    props.update(overrides)
    return KafkaConfig(props, do_log=False)


@dataclass
class World:
    time: MockTime
    timer: MockTimer
    config: KafkaConfig
    replica_manager: ReplicaManager
    fetcher_manager: FakeReplicaFetcherManager
    metadata_cache: FakeMetadataCache


def setup_replica_manager(tmp_path: Path, broker_id: int = 0, props: dict[str, Any] | None = None,
                          log_dirs: list[Path] | None = None, setup_log_dir_meta_properties: bool = False,
                          directory_event_handler: Any = None,
                          mock_replica_alter_log_dirs_manager: Any = None) -> World:
    """setupReplicaManagerWithMockedPurgatories: a real LogManager over two log dirs, purgatories on a MockTimer
    without reapers, a mocked metadata cache that knows TOPIC-0, and a real ReplicaAlterLogDirsManager unless a mock
    is given."""
    time = MockTime()
    timer = MockTimer(time)
    log_dirs = log_dirs or [tmp_path / "data", tmp_path / "data2"]
    for d in log_dirs:
        d.mkdir(parents=True, exist_ok=True)
    config = broker_config(broker_id, log_dirs, **(props or {}))
    if setup_log_dir_meta_properties:
        # a meta.properties in each dir, each with its own directory id
        for d in log_dirs:
            meta_props = (MetaProperties.Builder().set_version(MetaPropertiesVersion.V0).set_cluster_id("clusterId")
                          .set_node_id(broker_id).set_directory_id(Uuid.random_uuid()).build())
            write_properties_file(meta_props.to_properties(), str((d / META_PROPERTIES_NAME).absolute()), False)
    log_manager = create_log_manager(log_dirs, time=time)
    metadata_cache = FakeMetadataCache({TopicPartition(TOPIC, 0)})
    fetcher_manager = FakeReplicaFetcherManager()

    def purgatory(name: str) -> DelayedOperationPurgatory[Any]:
        return DelayedOperationPurgatory(name, timer, reaper_enabled=False)

    replica_manager = ReplicaManager(
        config=config, time=time, scheduler=time.scheduler, log_manager=log_manager, metadata_cache=metadata_cache,
        log_dir_failure_channel=LogDirFailureChannel(len(log_dirs)),
        alter_partition_manager=FakeAlterPartitionManager(),
        delayed_produce_purgatory_param=purgatory("Produce"), delayed_fetch_purgatory_param=purgatory("Fetch"),
        delayed_delete_records_purgatory_param=purgatory("DeleteRecords"),
        delayed_elect_leader_purgatory_param=purgatory("DelayedElectLeader"),
        delayed_remote_fetch_purgatory_param=purgatory("DelayedRemoteFetch"),
        replica_fetcher_manager=fetcher_manager, directory_event_handler=directory_event_handler)
    replica_manager.replica_alter_log_dirs_manager = (
        mock_replica_alter_log_dirs_manager if mock_replica_alter_log_dirs_manager is not None
        else replica_manager.create_replica_alter_log_dirs_manager(UNBOUNDED_QUOTA, None))
    return World(time, timer, config, replica_manager, fetcher_manager, metadata_cache)



@pytest.fixture(autouse=True)
def bypass_thread_check() -> Iterator[None]:
    """As setUpReplicaManagerWithMockedAddPartitionsToTxnManager does: the tests complete a transaction verification
    on their own thread, where wrapAsyncCallback would otherwise refuse to run the append."""
    set_bypass_thread_check(True)
    try:
        yield
    finally:
        set_bypass_thread_check(False)

@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = setup_replica_manager(tmp_path)
    yield w
    w.replica_manager.shutdown(checkpoint_hw=False)


def partition_record(start_id: int, leader: int, partition: int = 0,
                     directory_ids: list[Uuid] | None = None) -> PartitionRecord:
    directories = tuple(uuid.UUID(bytes=d.to_bytes()) for d in directory_ids) if directory_ids else ()
    return PartitionRecord(partition_id=i32(partition), topic_id=FOO_UUID,
                           replicas=(BrokerId(start_id), BrokerId(start_id + 1)),
                           isr=(i32(start_id), i32(start_id + 1)), removing_replicas=(), adding_replicas=(),
                           leader=BrokerId(leader), leader_epoch=i32(0), partition_epoch=i32(0),
                           directories=directories)


def topics_create_delta(start_id: int, is_start_id_leader: bool, partition: int = 0,
                        directory_ids: list[Uuid] | None = None) -> TopicsDelta:
    leader = start_id if is_start_id_leader else start_id + 1
    delta = TopicsDelta(TopicsImage.EMPTY)
    delta.replay_topic(TopicRecord(name=TopicName("foo"), topic_id=FOO_UUID))
    delta.replay_partition(partition_record(start_id, leader, partition, directory_ids))
    return delta


def topics_change_delta(topics_image: TopicsImage, start_id: int, is_start_id_leader: bool) -> TopicsDelta:
    leader = start_id if is_start_id_leader else start_id + 1
    delta = TopicsDelta(topics_image)
    delta.replay_partition_change(PartitionChangeRecord(
        partition_id=i32(0), topic_id=FOO_UUID, replicas=(BrokerId(start_id), BrokerId(start_id + 1)),
        isr=(BrokerId(start_id), BrokerId(start_id + 1)), leader=BrokerId(leader)))
    return delta


def topics_delete_delta(topics_image: TopicsImage) -> TopicsDelta:
    delta = TopicsDelta(topics_image)
    delta.replay_remove_topic(RemoveTopicRecord(topic_id=FOO_UUID))
    return delta


def image_from_topics(topics_image: TopicsImage) -> MetadataImage:
    features_image_latest = FeaturesImage({}, MetadataVersion.latest_production())
    return MetadataImage(MetadataProvenance(100, 10, 1000), features_image_latest, IMAGE1, topics_image,
                         ConfigurationsImage.EMPTY, ProducerIdsImage.EMPTY)


def online(replica_manager: ReplicaManager, tp: TopicPartition) -> Partition:
    hosted = replica_manager.get_partition(tp)
    assert isinstance(hosted, HostedPartition.Online)
    return hosted.partition


def endpoint_of(broker_id: int) -> BrokerEndPoint:
    endpoint = IMAGE1.broker(broker_id).listeners["PLAINTEXT"]
    return BrokerEndPoint(broker_id, endpoint.host, endpoint.port)


def fetcher_leader(w: World, tp: TopicPartition) -> BrokerEndPoint | None:
    fetch_state = w.fetcher_manager.get_fetcher(tp)
    return fetch_state.leader if fetch_state is not None else None


class CallbackResult:
    """Kafka's CallbackResult: a value a callback fires once."""

    def __init__(self) -> None:
        self.value: Any = None
        self.has_fired = False

    def fire(self, value: Any) -> None:
        assert not self.has_fired
        self.value = value
        self.has_fired = True

    def assert_fired(self) -> Any:
        assert self.has_fired, "Callback has not been fired"
        return self.value


def send_producer_append(replica_manager: ReplicaManager, tp: TopicPartition, num_of_records: int) -> CallbackResult:
    result = CallbackResult()
    records = MemoryRecords.with_records(compression.NONE, *[SimpleRecord(str(i).encode())
                                                             for i in range(num_of_records)])
    replica_manager.append_records(timeout=10, required_acks=-1, internal_topics_allowed=False,
                                   origin=AppendOrigin.CLIENT, entries_per_partition={tp: records},
                                   response_callback=lambda responses: result.fire(responses[tp]))
    return result


def append_records(replica_manager: ReplicaManager, tp: TopicPartition, records: MemoryRecords,
                   required_acks: int = -1) -> CallbackResult:
    result = CallbackResult()
    replica_manager.append_records(timeout=1000, required_acks=required_acks, internal_topics_allowed=False,
                                   origin=AppendOrigin.CLIENT, entries_per_partition={tp: records},
                                   response_callback=lambda responses: result.fire(responses[tp]))
    return result


def fetch_partitions(replica_manager: ReplicaManager, replica_id: int,
                     fetch_infos: list[tuple[TopicIdPartition, PartitionData]], response_callback: Any,
                     max_wait_ms: int = 0, min_bytes: int = 1, max_bytes: int = 1024 * 1024,
                     isolation: FetchIsolation = FetchIsolation.LOG_END) -> None:
    params = FetchParams(17, replica_id, 1, max_wait_ms, min_bytes, max_bytes, isolation, None)
    replica_manager.fetch_messages(params, fetch_infos, None, response_callback)


def fetch_partition(replica_manager: ReplicaManager, replica_id: int, partition: TopicIdPartition,
                    partition_data: PartitionData, isolation: FetchIsolation, max_wait_ms: int = 0,
                    min_bytes: int = 1) -> CallbackResult:
    result = CallbackResult()

    def callback(response_status: list[tuple[TopicIdPartition, Any]]) -> None:
        assert len(response_status) == 1
        topic_partition, fetch_data = response_status[0]
        assert topic_partition == partition
        result.fire(fetch_data)

    fetch_partitions(replica_manager, replica_id, [(partition, partition_data)], callback, max_wait_ms=max_wait_ms,
                     min_bytes=min_bytes, isolation=isolation)
    return result


def fetch_partition_as_follower(replica_manager: ReplicaManager, partition: TopicIdPartition,
                                partition_data: PartitionData, replica_id: int, max_wait_ms: int = 0,
                                min_bytes: int = 1) -> CallbackResult:
    return fetch_partition(replica_manager, replica_id, partition, partition_data, FetchIsolation.LOG_END,
                           max_wait_ms, min_bytes)


def fetch_partition_as_consumer(replica_manager: ReplicaManager, partition: TopicIdPartition,
                                partition_data: PartitionData) -> CallbackResult:
    return fetch_partition(replica_manager, -1, partition, partition_data, FetchIsolation.HIGH_WATERMARK)


def become_leader(w: World, tp: TopicPartition, topic_id: uuid.UUID | None, leader_epoch: int,
                  replicas: list[int]) -> Partition:
    """The KRaft path's stand-in for Kafka's becomeLeaderOrFollower(LeaderAndIsr) setup: the partition is created
    and made leader as applyDelta does."""
    partition = w.replica_manager.create_partition(tp)
    state = LeaderAndIsrPartitionState(topic_name=tp.topic, partition_index=tp.partition, controller_epoch=0,
                                       leader=w.config.broker_id, leader_epoch=leader_epoch, isr=list(replicas),
                                       partition_epoch=0, replicas=list(replicas), is_new=True)
    partition.make_leader(state, LazyOffsetCheckpoints(w.replica_manager.high_watermark_checkpoints),
                          Uuid.from_bytes(topic_id.bytes) if topic_id is not None else None)
    return partition


# -- the cases ----------------------------------------------------------------------------------------------------


def test_high_water_mark_directory_mapping(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path, log_dirs=[tmp_path / "data"])
    rm = w.replica_manager
    try:
        partition = rm.create_partition(TopicPartition(TOPIC, 1))
        partition.create_log_if_not_exists(False, False, LazyOffsetCheckpoints(rm.high_watermark_checkpoints), None)
        rm.checkpoint_high_watermarks()
        for log_dir in w.config.log_dirs:
            checkpoint_file = Path(log_dir) / HIGH_WATERMARK_FILENAME
            assert checkpoint_file.exists(), f"checkpoint file does not exist at {checkpoint_file}"
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_highwater_mark_relative_directory_mapping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    w = setup_replica_manager(tmp_path, log_dirs=[Path("data")])
    rm = w.replica_manager
    try:
        partition = rm.create_partition(TopicPartition(TOPIC, 1))
        partition.create_log_if_not_exists(False, False, LazyOffsetCheckpoints(rm.high_watermark_checkpoints), None)
        rm.checkpoint_high_watermarks()
        for log_dir in w.config.log_dirs:
            checkpoint_file = Path(log_dir) / HIGH_WATERMARK_FILENAME
            assert checkpoint_file.exists(), f"checkpoint file does not exist at {checkpoint_file}"
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_illegal_required_acks(world: World) -> None:
    responses: list[Any] = []
    world.replica_manager.append_records(
        timeout=0, required_acks=3, internal_topics_allowed=False, origin=AppendOrigin.CLIENT,
        entries_per_partition={TopicPartition("test1", 0): MemoryRecords.with_records(
            compression.NONE, SimpleRecord(b"first message"))},
        response_callback=responses.append)
    assert list(responses[0].values())[0].error == Errors.INVALID_REQUIRED_ACKS


def test_maybe_add_log_dir_fetchers_without_epoch_cache(tmp_path: Path) -> None:
    dir1, dir2 = tmp_path / "data", tmp_path / "data2"
    w = setup_replica_manager(tmp_path, log_dirs=[dir1, dir2])
    rm = w.replica_manager
    tp = TopicPartition(TOPIC, 0)
    try:
        partition = become_leader(w, tp, uuid.uuid4(), leader_epoch=0, replicas=[0])
        append_records(rm, tp, MemoryRecords.with_records(compression.NONE, SimpleRecord(b"first message"),
                                                          SimpleRecord(b"second message")))
        rm.log_manager.maybe_update_preferred_log_dir(tp, str(dir2.absolute()))

        partition.create_log_if_not_exists(True, True, LazyOffsetCheckpoints(rm.high_watermark_checkpoints), None)
        # no epoch cache: no OffsetsForLeaderEpoch for the future log
        partition.future_log.leader_epoch_cache = None

        # the log dir fetcher starts at the future log's high watermark (else: offset mismatch)
        rm.maybe_add_log_dir_fetchers({partition}, LazyOffsetCheckpoints(rm.high_watermark_checkpoints),
                                      lambda _: None)
        for thread in list(rm.replica_alter_log_dirs_manager.fetcher_thread_map.values()):
            fetch_state = thread.fetch_state(tp)
            if fetch_state is not None:
                assert fetch_state.fetch_offset == 0
        # the alter-log-dirs thread has processed the data
        for thread in list(rm.replica_alter_log_dirs_manager.fetcher_thread_map.values()):
            thread.do_work()
        assert rm.replica_alter_log_dirs_manager.failed_partitions.partitions() == set()
        # the future log is the current log now: its fetch state is gone
        for thread in list(rm.replica_alter_log_dirs_manager.fetcher_thread_map.values()):
            assert thread.fetch_state(tp) is None
    finally:
        rm.shutdown(checkpoint_hw=False)


@pytest.mark.parametrize("future_log_created", [True, False])
def test_maybe_add_log_dir_fetchers_pausing_cleaning(tmp_path: Path, future_log_created: bool) -> None:
    dir1, dir2 = tmp_path / "data", tmp_path / "data2"
    w = setup_replica_manager(tmp_path, log_dirs=[dir1, dir2])
    rm = w.replica_manager
    log_manager = rm.log_manager
    tp0 = TopicPartition(TOPIC, 0)
    topic_uuid = uuid.uuid4()
    # Mockito's spy: the real log manager, its calls recorded (and getLog stubbed below when asked)
    abort_and_pause_cleaning = mock.patch.object(log_manager, "abort_and_pause_cleaning",
                                                 wraps=log_manager.abort_and_pause_cleaning)
    try:
        partition = become_leader(w, tp0, topic_uuid, leader_epoch=0, replicas=[0])
        assert partition.is_leader()
        log_manager.maybe_update_preferred_log_dir(tp0, str(dir2.absolute()))

        if future_log_created:
            # the future log exists before maybeAddLogDirFetchers
            partition.create_log_if_not_exists(False, True, LazyOffsetCheckpoints(rm.high_watermark_checkpoints),
                                               None)
        else:
            mock_log = mock.Mock()
            mock_log.topic_id.return_value = Uuid.from_bytes(topic_uuid.bytes)
            mock_log.parent_dir.return_value = str(dir2.absolute())
            mock_log.high_watermark.return_value = 0
            mock_log.log_start_offset = 0
            mock_log.log_end_offset.return_value = 0
            mock_log.latest_epoch.return_value = None
            real_get_log = log_manager.get_log
            mock.patch.object(log_manager, "get_log", side_effect=lambda tp, is_future=False: mock_log
                              if tp == tp0 and is_future else real_get_log(tp, is_future)).start()

        spy = abort_and_pause_cleaning.start()
        rm.maybe_add_log_dir_fetchers({partition}, LazyOffsetCheckpoints(rm.high_watermark_checkpoints),
                                      {TOPIC: Uuid.from_bytes(topic_uuid.bytes)}.get)
        if future_log_created:
            # the future log was there: cleaning is neither aborted nor paused
            spy.assert_not_called()
        else:
            spy.assert_called_once()
        for thread in list(rm.replica_alter_log_dirs_manager.fetcher_thread_map.values()):
            fetch_state = thread.fetch_state(tp0)
            if fetch_state is not None:
                assert fetch_state.fetch_offset == 0
    finally:
        rm.shutdown(checkpoint_hw=False)
        mock.patch.stopall()


def test_fenced_error_caused_by_become_leader(tmp_path: Path) -> None:
    for loop_epoch_change in (0, 1, 10):
        _fenced_error_caused_by_become_leader(tmp_path / str(loop_epoch_change), loop_epoch_change)


def _fenced_error_caused_by_become_leader(tmp_path: Path, loop_epoch_change: int) -> None:
    """The leader epoch changes (on KRaft: a topics delta makes this broker leader again, with epoch + 1) while the
    replica moves between log dirs: the alter-log-dirs thread is fenced, then re-added at the new epoch by
    applyDelta's maybeAddLogDirFetchers, and completes the move."""
    w = setup_replica_manager(tmp_path)
    rm = w.replica_manager
    w.metadata_cache.contained.add(TopicPartition("foo", 0))
    topic_partition = TopicPartition("foo", 0)
    try:
        delta = topics_create_delta(0, True)
        image = image_from_topics(delta.apply())
        rm.apply_delta(delta, image)
        partition = rm.get_partition_or_exception(topic_partition)
        live_log_dirs = [Path(d) for d in rm.log_manager.live_log_dirs()]
        assert len([d for d in live_log_dirs if d != partition.log.dir().parent]) == 1

        previous_replica_folder = partition.log.dir().parent
        # the other live dir
        new_replica_folder = next(d for d in live_log_dirs if d != partition.log.dir().parent)
        assert len(rm.replica_alter_log_dirs_manager.fetcher_thread_map) == 0
        rm.alter_replica_log_dirs({topic_partition: str(new_replica_folder.absolute())})
        # the future log exists
        rm.future_local_log_or_exception(topic_partition)
        assert len(rm.replica_alter_log_dirs_manager.fetcher_thread_map) == 1
        for _ in range(loop_epoch_change):
            delta = topics_change_delta(image.topics, 0, True)
            image = image_from_topics(delta.apply())
            rm.apply_delta(delta, image)

        # the ReplicaAlterLogDirsThread completes
        def thread_gone() -> bool:
            rm.replica_alter_log_dirs_manager.shutdown_idle_fetcher_threads()
            return not rm.replica_alter_log_dirs_manager.fetcher_thread_map
        wait_until_true(thread_gone, "ReplicaAlterLogDirsThread should be gone")

        # the fenced error is recoverable
        assert rm.replica_alter_log_dirs_manager.failed_partitions.size() == 0
        # the move completed after retrying
        assert partition.future_log is None
        assert partition.log.dir().parent == new_replica_folder.absolute()
        # move it back
        response = rm.alter_replica_log_dirs({topic_partition: str(previous_replica_folder.absolute())})
        assert len(response) != 0
        assert all(error == Errors.NONE for error in response.values())
        # a ReplicaAlterLogDirsThread again
        assert len(rm.replica_alter_log_dirs_manager.fetcher_thread_map) == 1
    finally:
        rm.shutdown(checkpoint_hw=False)


# usesTopicIds=false sends a LeaderAndIsr v4 (no topic ids): ZooKeeper mode only; on KRaft the image always has one.
@pytest.mark.parametrize("uses_topic_ids", [True])
def test_replica_alter_log_dirs_with_and_without_ids(tmp_path: Path, uses_topic_ids: bool) -> None:
    tp = TopicPartition("foo", 0)
    topic_id_opt = Uuid.from_bytes(FOO_UUID.bytes)

    mock_replica_alter_log_dirs_manager = mock.Mock()
    w = setup_replica_manager(tmp_path, mock_replica_alter_log_dirs_manager=mock_replica_alter_log_dirs_manager)
    rm = w.replica_manager
    w.metadata_cache.contained.add(tp)
    try:
        rm.create_partition(tp).create_log_if_not_exists(
            is_new=False, is_future_replica=False,
            offset_checkpoints=LazyOffsetCheckpoints(rm.high_watermark_checkpoints), topic_id=None)

        delta = topics_create_delta(0, True)
        rm.apply_delta(delta, image_from_topics(delta.apply()))

        # move the replica to the other log dir
        partition = rm.get_partition_or_exception(tp)
        new_replica_folder = next(Path(d) for d in rm.log_manager.live_log_dirs()
                                  if Path(d) != partition.log.dir().parent)
        rm.alter_replica_log_dirs({tp: str(new_replica_folder.absolute())})

        # the future log has the topic id
        future_log = rm.future_local_log_or_exception(tp)
        assert future_log.topic_id() == topic_id_opt

        # and so has the fetcher's initial state
        mock_replica_alter_log_dirs_manager.add_fetcher_for_partitions.assert_called_once_with({tp: InitialFetchState(
            topic_id=topic_id_opt, leader=BrokerEndPoint(0, "localhost", -1), current_leader_epoch=0,
            init_offset=0)})
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_fetch_beyond_high_watermark(world: World) -> None:
    rm = world.replica_manager
    tp = TopicPartition(TOPIC, 0)
    become_leader(world, tp, TOPIC_ID, leader_epoch=0, replicas=[0, 1, 2])
    rm.get_partition_or_exception(tp).local_log_or_exception()

    # Append a couple of messages.
    for i in range(1, 3):
        append_records(rm, tp, singleton_records(f"message {i}".encode()))

    # Followers are always allowed to fetch above the high watermark
    follower_fetch_data = fetch_partition_as_follower(
        rm, TopicIdPartition(TOPIC_ID, tp), PartitionData(ZERO, 1, 0, 100000, None), replica_id=1).assert_fired()
    assert follower_fetch_data.error == Errors.NONE, "Should not give an exception"
    assert next(iter(follower_fetch_data.records.batches()), None) is not None, "Should return some data"

    # Consumers are not allowed to consume above the high watermark: an empty record set, not an error.
    consumer_fetch_data = fetch_partition_as_consumer(rm, TopicIdPartition(TOPIC_ID, tp),
                                                      PartitionData(ZERO, 1, 0, 100000, None)).assert_fired()
    assert consumer_fetch_data.error == Errors.NONE, "Should not give an exception"
    assert consumer_fetch_data.records.size_in_bytes() == 0, "Should return empty response"


def test_fetch_messages_with_inconsistent_topic_id(world: World) -> None:
    rm = world.replica_manager
    leader_epoch = 5
    tp = TopicPartition(TOPIC, 0)
    tidp = TopicIdPartition(TOPIC_ID, tp)
    become_leader(world, tp, TOPIC_ID, leader_epoch, [0, 1])
    assert rm.get_partition_or_exception(tp).topic_id() == Uuid.from_bytes(TOPIC_ID.bytes)

    successful_fetch: list[Any] = []

    def callback(response: list[Any]) -> None:
        successful_fetch[:] = response

    valid_fetch_partition_data = PartitionData(ZERO, 0, 0, 1024 * 1024, leader_epoch)

    # Fetch messages simulating a different ID than the one in the log.
    inconsistent_tidp = TopicIdPartition(uuid.uuid4(), tp)
    fetch_partitions(rm, 1, [(inconsistent_tidp, valid_fetch_partition_data)], callback)
    assert successful_fetch[0][0] == inconsistent_tidp
    assert successful_fetch[0][1].error == Errors.INCONSISTENT_TOPIC_ID

    # A fetch without topic ids sees no topic id error.
    zero_tidp = TopicIdPartition(ZERO, tp)
    fetch_partitions(rm, 1, [(zero_tidp, valid_fetch_partition_data)], callback)
    assert successful_fetch[0][0] == zero_tidp
    assert successful_fetch[0][1].error == Errors.NONE

    # A topic without a topic id in its log.
    tp2 = TopicPartition("noIdTopic", 0)
    tidp2 = TopicIdPartition(uuid.uuid4(), tp2)
    become_leader(world, tp2, None, leader_epoch, [0, 1])
    assert rm.get_partition_or_exception(tp2).topic_id() is None

    # A request with a topic id: no error.
    fetch_partitions(rm, 1, [(tidp2, valid_fetch_partition_data)], callback)
    assert successful_fetch[0][0] == tidp2
    assert successful_fetch[0][1].error == Errors.NONE

    # A request without one: no error either.
    zero_tidp2 = TopicIdPartition(ZERO, tp2)
    fetch_partitions(rm, 1, [(zero_tidp2, valid_fetch_partition_data)], callback)
    assert successful_fetch[0][0] == zero_tidp2
    assert successful_fetch[0][1].error == Errors.NONE
    del tidp


def test_exception_when_unverified_transaction_has_multiple_producer_ids(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path)
    rm = w.replica_manager
    add_partitions_to_txn_manager = mock.Mock()
    rm.add_partitions_to_txn_manager = add_partitions_to_txn_manager
    try:
        tp0, tp1 = TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)
        producer_id, producer_epoch, sequence = 24, 0, 0
        become_leader(w, tp0, TOPIC_ID, 1, [0, 1])
        become_leader(w, tp1, TOPIC_ID, 1, [0, 1])

        # Transactional records with different producer ids
        transactional_records = {
            tp0: MemoryRecords.with_transactional_records(compression.NONE, producer_id, producer_epoch, sequence,
                                                          SimpleRecord(f"message {sequence}".encode())),
            tp1: MemoryRecords.with_transactional_records(compression.NONE, producer_id + 1, producer_epoch,
                                                          sequence, SimpleRecord(f"message {sequence}".encode())),
        }
        with pytest.raises(InvalidPidMappingException):
            rm.handle_produce_append(timeout=1000, required_acks=-1, internal_topics_allowed=False,
                                     transactional_id="txn1", entries_per_partition=transactional_records,
                                     response_callback=lambda _: None)
        # These partitions are not sent to the manager to verify.
        add_partitions_to_txn_manager.verify_transaction.assert_not_called()
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_disabled_transaction_verification(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path, props={"transaction.partition.verification.enable": "false"})
    rm = w.replica_manager
    add_partitions_to_txn_manager = mock.Mock()
    rm.add_partitions_to_txn_manager = add_partitions_to_txn_manager
    try:
        tp = TopicPartition(TOPIC, 0)
        producer_id, producer_epoch, sequence = 24, 0, 6
        become_leader(w, tp, TOPIC_ID, 1, [0, 1])

        transactional_records = MemoryRecords.with_transactional_records(
            compression.NONE, producer_id, producer_epoch, sequence, SimpleRecord(b"message"),
            SimpleRecord(b"message"))
        result = CallbackResult()
        rm.handle_produce_append(timeout=1000, required_acks=-1, internal_topics_allowed=False,
                                 transactional_id="txn1", entries_per_partition={tp: transactional_records},
                                 response_callback=lambda responses: result.fire(responses[tp]))
        # Verification is off: no guard, the manager is not asked, and the append fails on the sequence.
        add_partitions_to_txn_manager.verify_transaction.assert_not_called()
        assert rm.get_partition_or_exception(tp).log.verification_guard(producer_id) is VerificationGuard.SENTINEL
        # (Kafka does not assert on the produce outcome here.)
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_get_or_create_partition(world: World) -> None:
    rm = world.replica_manager
    foo0 = TopicPartition("foo", 0)
    empty_delta = TopicsDelta(TopicsImage.EMPTY)
    foo_part, foo_new = rm.get_or_create_partition(foo0, empty_delta, FOO_UUID)
    assert foo_new
    assert foo_part.topic_partition == foo0
    foo_part2, foo_new2 = rm.get_or_create_partition(foo0, empty_delta, FOO_UUID)
    assert not foo_new2
    assert foo_part is foo_part2
    bar1 = TopicPartition("bar", 1)
    rm.mark_partition_offline(bar1)
    bar_part, bar_new = rm.get_or_create_partition(bar1, empty_delta, BAR_UUID)
    assert bar_new
    assert bar_part.topic_partition == bar1

    # Kafka mocks the log manager's log of bar-1 with BAR_UUID as its topic id: here the partition gets a real one.
    bar_part.create_log_if_not_exists(True, False, LazyOffsetCheckpoints(rm.high_watermark_checkpoints),
                                      Uuid.from_bytes(BAR_UUID.bytes))
    rm.mark_partition_offline(bar1)

    assert rm.get_or_create_partition(bar1, empty_delta, BAR_UUID) is None


def test_get_or_create_partition_should_not_create_offline_partition(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path, broker_id=1)
    rm = w.replica_manager
    try:
        tp0 = TopicPartition("foo", 0)
        # (Kafka assigns the partition to one of two log dirs with ids, JBOD: one dir is enough for the case)
        leader_topics_delta = topics_create_delta(1, True)
        partition, is_new_when_created_for_first_time = rm.get_or_create_partition(tp0, leader_topics_delta,
                                                                                   FOO_UUID)
        partition.make_leader(LeaderAndIsrPartitionState(topic_name="foo", partition_index=0, leader=1,
                                                         leader_epoch=1, isr=[1, 2], replicas=[1, 2], is_new=True),
                              LazyOffsetCheckpoints(rm.high_watermark_checkpoints), None)
        assert is_new_when_created_for_first_time
        # mark topic partition as offline
        rm.mark_partition_offline(tp0)
        # recreating it does not create a new partition
        assert rm.get_or_create_partition(tp0, leader_topics_delta, FOO_UUID) is None
    finally:
        rm.shutdown(checkpoint_hw=False)


@pytest.fixture
def world1(tmp_path: Path) -> Iterator[World]:
    w = setup_replica_manager(tmp_path, broker_id=1)
    w.metadata_cache.contained.add(TopicPartition("foo", 0))
    yield w
    w.replica_manager.shutdown(checkpoint_hw=False)


# enableRemoteStorage=true needs a RemoteLogManager (tiered storage, not ported): only the false case runs.
REMOTE = pytest.mark.parametrize("enable_remote_storage", [False])


@REMOTE
def test_delta_from_leader_to_follower(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id, num_of_records = 1, 2, 3
    tp = TopicPartition("foo", 0)

    # Make the local replica the leader
    leader_topics_delta = topics_create_delta(local_id, True)
    leader_metadata_image = image_from_topics(leader_topics_delta.apply())
    topic_id = leader_metadata_image.topics.topics_by_name["foo"].id
    topic_id_partition = TopicIdPartition(topic_id, tp)
    rm.apply_delta(leader_topics_delta, leader_metadata_image)

    leader_partition = online(rm, tp)
    assert leader_partition.is_leader()
    assert leader_partition.in_sync_replica_ids() == {local_id, other_id}
    assert leader_partition.get_leader_epoch() == 0
    assert world1.fetcher_manager.get_fetcher(tp) is None

    # Send a produce request and advance the highwatermark
    leader_response = send_producer_append(rm, tp, num_of_records)
    fetch_partition_as_follower(rm, topic_id_partition, PartitionData(ZERO, num_of_records, 0, 2**31 - 1, None),
                                replica_id=other_id)
    assert leader_response.assert_fired().error == Errors.NONE

    # Change the local replica to follower
    follower_topics_delta = topics_change_delta(leader_metadata_image.topics, local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    # Append on a follower should fail
    follower_response = send_producer_append(rm, tp, num_of_records)
    assert follower_response.assert_fired().error == Errors.NOT_LEADER_OR_FOLLOWER

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 1
    assert fetcher_leader(world1, tp) == endpoint_of(other_id)


@REMOTE
def test_delta_from_follower_to_leader(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id, num_of_records = 1, 2, 3
    tp = TopicPartition("foo", 0)

    # Make the local replica the follower
    follower_topics_delta = topics_create_delta(local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 0
    assert fetcher_leader(world1, tp) == endpoint_of(other_id)

    # Append on a follower should fail
    follower_response = send_producer_append(rm, tp, num_of_records)
    assert follower_response.assert_fired().error == Errors.NOT_LEADER_OR_FOLLOWER

    # Change the local replica to leader
    leader_topics_delta = topics_change_delta(follower_metadata_image.topics, local_id, True)
    leader_metadata_image = image_from_topics(leader_topics_delta.apply())
    topic_id = leader_metadata_image.topics.topics_by_name["foo"].id
    topic_id_partition = TopicIdPartition(topic_id, tp)
    rm.apply_delta(leader_topics_delta, leader_metadata_image)

    # Send a produce request and advance the highwatermark
    leader_response = send_producer_append(rm, tp, num_of_records)
    fetch_partition_as_follower(rm, topic_id_partition, PartitionData(ZERO, num_of_records, 0, 2**31 - 1, None),
                                replica_id=other_id)
    assert leader_response.assert_fired().error == Errors.NONE

    leader_partition = online(rm, tp)
    assert leader_partition.is_leader()
    assert leader_partition.in_sync_replica_ids() == {local_id, other_id}
    assert leader_partition.get_leader_epoch() == 1
    assert world1.fetcher_manager.get_fetcher(tp) is None


@REMOTE
def test_delta_follower_with_no_change(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id = 1, 2
    tp = TopicPartition("foo", 0)

    follower_topics_delta = topics_create_delta(local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 0
    assert fetcher_leader(world1, tp) == endpoint_of(other_id)

    # Apply the same delta again
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    # Check that the state stays the same
    no_change_partition = online(rm, tp)
    assert not no_change_partition.is_leader()
    assert no_change_partition.get_leader_epoch() == 0
    assert fetcher_leader(world1, tp) == endpoint_of(other_id)


def _assert_removed(w: World, tp: TopicPartition) -> None:
    assert w.replica_manager.get_partition(tp) is HostedPartition.NONE
    assert w.fetcher_manager.get_fetcher(tp) is None
    assert w.replica_manager.log_manager.get_log(tp) is None


@REMOTE
def test_delta_follower_to_not_replica(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id = 1, 2
    tp = TopicPartition("foo", 0)

    follower_topics_delta = topics_create_delta(local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 0
    assert fetcher_leader(world1, tp) == endpoint_of(other_id)

    # Apply changes that remove replica
    not_replica_topics_delta = topics_change_delta(follower_metadata_image.topics, other_id, True)
    not_replica_metadata_image = image_from_topics(not_replica_topics_delta.apply())
    rm.apply_delta(not_replica_topics_delta, not_replica_metadata_image)

    _assert_removed(world1, tp)


@REMOTE
def test_delta_follower_removed_topic(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id = 1, 2
    tp = TopicPartition("foo", 0)

    follower_topics_delta = topics_create_delta(local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 0
    assert fetcher_leader(world1, tp) == endpoint_of(other_id)

    # Apply changes that remove topic and replica
    remove_topics_delta = topics_delete_delta(follower_metadata_image.topics)
    remove_metadata_image = image_from_topics(remove_topics_delta.apply())
    rm.apply_delta(remove_topics_delta, remove_metadata_image)

    _assert_removed(world1, tp)


@REMOTE
def test_delta_leader_to_not_replica(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id = 1, 2
    tp = TopicPartition("foo", 0)

    leader_topics_delta = topics_create_delta(local_id, True)
    leader_metadata_image = image_from_topics(leader_topics_delta.apply())
    rm.apply_delta(leader_topics_delta, leader_metadata_image)

    leader_partition = online(rm, tp)
    assert leader_partition.is_leader()
    assert leader_partition.in_sync_replica_ids() == {local_id, other_id}
    assert leader_partition.get_leader_epoch() == 0
    assert world1.fetcher_manager.get_fetcher(tp) is None

    # Apply changes that remove replica
    not_replica_topics_delta = topics_change_delta(leader_metadata_image.topics, other_id, True)
    not_replica_metadata_image = image_from_topics(not_replica_topics_delta.apply())
    rm.apply_delta(not_replica_topics_delta, not_replica_metadata_image)

    _assert_removed(world1, tp)


@REMOTE
def test_delta_leader_to_removed_topic(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id = 1, 2
    tp = TopicPartition("foo", 0)

    leader_topics_delta = topics_create_delta(local_id, True)
    leader_metadata_image = image_from_topics(leader_topics_delta.apply())
    rm.apply_delta(leader_topics_delta, leader_metadata_image)

    leader_partition = online(rm, tp)
    assert leader_partition.is_leader()
    assert leader_partition.in_sync_replica_ids() == {local_id, other_id}
    assert leader_partition.get_leader_epoch() == 0
    assert world1.fetcher_manager.get_fetcher(tp) is None

    # Apply changes that remove topic and replica
    remove_topics_delta = topics_delete_delta(leader_metadata_image.topics)
    remove_metadata_image = image_from_topics(remove_topics_delta.apply())
    rm.apply_delta(remove_topics_delta, remove_metadata_image)

    _assert_removed(world1, tp)


@REMOTE
def test_delta_to_follower_completes_produce(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id, num_of_records = 1, 2, 3
    tp = TopicPartition("foo", 0)

    leader_topics_delta = topics_create_delta(local_id, True)
    leader_metadata_image = image_from_topics(leader_topics_delta.apply())
    rm.apply_delta(leader_topics_delta, leader_metadata_image)

    leader_partition = online(rm, tp)
    assert leader_partition.is_leader()
    assert leader_partition.in_sync_replica_ids() == {local_id, other_id}
    assert leader_partition.get_leader_epoch() == 0
    assert world1.fetcher_manager.get_fetcher(tp) is None

    # Send a produce request
    leader_response = send_producer_append(rm, tp, num_of_records)

    # Change the local replica to follower
    follower_topics_delta = topics_change_delta(leader_metadata_image.topics, local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 1

    # The produce failed: the replica became follower before the records were replicated
    assert leader_response.assert_fired().error == Errors.NOT_LEADER_OR_FOLLOWER


@REMOTE
def test_delta_to_follower_completes_fetch(world1: World, enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id = 1, 2
    tp = TopicPartition("foo", 0)

    leader_topics_delta = topics_create_delta(local_id, True)
    leader_metadata_image = image_from_topics(leader_topics_delta.apply())
    topic_id = leader_metadata_image.topics.topics_by_name["foo"].id
    topic_id_partition = TopicIdPartition(topic_id, tp)
    rm.apply_delta(leader_topics_delta, leader_metadata_image)

    leader_partition = online(rm, tp)
    assert leader_partition.is_leader()
    assert leader_partition.in_sync_replica_ids() == {local_id, other_id}
    assert leader_partition.get_leader_epoch() == 0
    assert world1.fetcher_manager.get_fetcher(tp) is None

    # Send a fetch request
    fetch_callback = fetch_partition_as_follower(rm, topic_id_partition, PartitionData(ZERO, 0, 0, 2**31 - 1, None),
                                                 replica_id=other_id, min_bytes=2**31 - 1, max_wait_ms=1000)
    assert not fetch_callback.has_fired

    # Change the local replica to follower
    follower_topics_delta = topics_change_delta(leader_metadata_image.topics, local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 1

    assert fetch_callback.assert_fired().error == Errors.NOT_LEADER_OR_FOLLOWER


@REMOTE
def test_fetcher_are_not_restarted_if_leader_epoch_is_not_bumped_with_k_raft_path(
        tmp_path: Path, enable_remote_storage: bool) -> None:
    local_id = 0
    tp = TopicPartition("foo", 0)
    w = setup_replica_manager(tmp_path, broker_id=local_id)
    rm = w.replica_manager
    try:
        # Make the local replica the follower.
        follower_topics_delta = TopicsDelta(TopicsImage.EMPTY)
        follower_topics_delta.replay_topic(TopicRecord(name=TopicName("foo"), topic_id=FOO_UUID))
        follower_topics_delta.replay_partition(partition_record(local_id, local_id + 1))
        follower_metadata_image = image_from_topics(follower_topics_delta.apply())
        rm.apply_delta(follower_topics_delta, follower_metadata_image)

        follower_partition = online(rm, tp)
        assert not follower_partition.is_leader()
        assert follower_partition.get_leader_epoch() == 0
        assert follower_partition.get_partition_epoch() == 0

        # The partition's fetcher was removed and added back.
        assert {tp} in w.fetcher_manager.removed
        assert w.fetcher_manager.added == [{tp: InitialFetchState(
            topic_id=Uuid.from_bytes(FOO_UUID.bytes), leader=endpoint_of(local_id + 1), current_leader_epoch=0,
            init_offset=0)}]

        w.fetcher_manager.reset()

        # Apply changes that bump the partition epoch.
        follower_topics_delta = TopicsDelta(follower_metadata_image.topics)
        follower_topics_delta.replay_partition_change(PartitionChangeRecord(
            partition_id=i32(0), topic_id=FOO_UUID,
            replicas=(BrokerId(local_id), BrokerId(local_id + 1), BrokerId(local_id + 2)),
            isr=(BrokerId(local_id), BrokerId(local_id + 1))))
        follower_metadata_image = image_from_topics(follower_topics_delta.apply())
        rm.apply_delta(follower_topics_delta, follower_metadata_image)

        assert not follower_partition.is_leader()
        assert follower_partition.get_leader_epoch() == 0
        assert follower_partition.get_partition_epoch() == 1

        # The partition's fetcher was not impacted.
        assert all(tp not in removed for removed in w.fetcher_manager.removed)
        assert w.fetcher_manager.added == []

        w.fetcher_manager.reset()

        # Apply changes that bump the leader epoch.
        follower_topics_delta = TopicsDelta(follower_metadata_image.topics)
        follower_topics_delta.replay_partition_change(PartitionChangeRecord(
            partition_id=i32(0), topic_id=FOO_UUID,
            replicas=(BrokerId(local_id), BrokerId(local_id + 1), BrokerId(local_id + 2)),
            isr=(BrokerId(local_id), BrokerId(local_id + 1), BrokerId(local_id + 2)), leader=BrokerId(local_id + 2)))
        follower_metadata_image = image_from_topics(follower_topics_delta.apply())
        rm.apply_delta(follower_topics_delta, follower_metadata_image)

        assert not follower_partition.is_leader()
        assert follower_partition.get_leader_epoch() == 1
        assert follower_partition.get_partition_epoch() == 2

        # The partition's fetcher was removed and added back.
        assert {tp} in w.fetcher_manager.removed
        assert w.fetcher_manager.added == [{tp: InitialFetchState(
            topic_id=Uuid.from_bytes(FOO_UUID.bytes), leader=endpoint_of(local_id + 2), current_leader_epoch=1,
            init_offset=0)}]
    finally:
        rm.shutdown(checkpoint_hw=False)


@REMOTE
def test_replicas_are_stopped_while_in_controlled_shutdown_with_k_raft(tmp_path: Path,
                                                                       enable_remote_storage: bool) -> None:
    local_id = 0
    foo0, foo1, foo2 = TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("foo", 2)
    w = setup_replica_manager(tmp_path, broker_id=local_id)
    rm = w.replica_manager
    try:
        topics_delta = TopicsDelta(TopicsImage.EMPTY)
        topics_delta.replay_topic(TopicRecord(name=TopicName("foo"), topic_id=FOO_UUID))

        def record(partition: int, isr: tuple[int, ...], leader: int) -> PartitionRecord:
            return PartitionRecord(partition_id=i32(partition), topic_id=FOO_UUID,
                                   replicas=(BrokerId(local_id), BrokerId(local_id + 1)),
                                   isr=tuple(i32(r) for r in isr), removing_replicas=(), adding_replicas=(),
                                   leader=BrokerId(leader), leader_epoch=i32(0), partition_epoch=i32(0))

        # foo0 is a follower in the ISR; foo1 a leader alone in the ISR; foo2 a follower out of the ISR.
        topics_delta.replay_partition(record(0, (local_id, local_id + 1), local_id + 1))
        topics_delta.replay_partition(record(1, (local_id,), local_id))
        topics_delta.replay_partition(record(2, (local_id + 1,), local_id + 1))

        metadata_image = image_from_topics(topics_delta.apply())
        rm.apply_delta(topics_delta, metadata_image)

        foo_partition0 = online(rm, foo0)
        assert not foo_partition0.is_leader()
        assert (foo_partition0.get_leader_epoch(), foo_partition0.get_partition_epoch()) == (0, 0)
        foo_partition1 = online(rm, foo1)
        assert foo_partition1.is_leader()
        assert (foo_partition1.get_leader_epoch(), foo_partition1.get_partition_epoch()) == (0, 0)
        foo_partition2 = online(rm, foo2)
        assert not foo_partition2.is_leader()
        assert (foo_partition2.get_leader_epoch(), foo_partition2.get_partition_epoch()) == (0, 0)

        w.fetcher_manager.reset()

        # SHUTTING_DOWN has no effect in KRaft mode.
        rm.is_shutting_down.set()
        rm.begin_controlled_shutdown()

        # The controller shrinks foo0's ISR, leaves foo1 without a leader, and does nothing for foo2.
        topics_delta = TopicsDelta(metadata_image.topics)
        topics_delta.replay_partition_change(PartitionChangeRecord(
            partition_id=i32(0), topic_id=FOO_UUID, replicas=(BrokerId(local_id), BrokerId(local_id + 1)),
            isr=(BrokerId(local_id + 1),), leader=BrokerId(local_id + 1)))
        topics_delta.replay_partition_change(PartitionChangeRecord(
            partition_id=i32(1), topic_id=FOO_UUID, replicas=(BrokerId(local_id), BrokerId(local_id + 1)),
            isr=(BrokerId(local_id),), leader=BrokerId(NO_LEADER)))
        metadata_image = image_from_topics(topics_delta.apply())
        rm.apply_delta(topics_delta, metadata_image)

        # Partitions foo0 and foo1 are updated, foo2 is not.
        assert not foo_partition0.is_leader()
        assert (foo_partition0.get_leader_epoch(), foo_partition0.get_partition_epoch()) == (1, 1)
        assert not foo_partition1.is_leader()
        assert (foo_partition1.get_leader_epoch(), foo_partition1.get_partition_epoch()) == (1, 1)
        assert not foo_partition2.is_leader()
        assert (foo_partition2.get_leader_epoch(), foo_partition2.get_partition_epoch()) == (0, 0)

        # Fetchers for foo0 and foo1 are stopped.
        assert {foo0, foo1} in w.fetcher_manager.removed
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_partition_listener(world: World) -> None:
    rm = world.replica_manager
    leader_epoch = 5
    tp = TopicPartition(TOPIC, 0)
    tidp = TopicIdPartition(TOPIC_ID, tp)

    class MockPartitionListener(PartitionListener):
        def __init__(self) -> None:
            self.updates: list[int] = []

        def on_high_watermark_updated(self, partition: TopicPartition, offset: int) -> None:
            assert partition == tp
            self.updates.append(offset)

        def verify(self, expected_high_watermark: int | None = None) -> None:
            assert self.updates == ([] if expected_high_watermark is None else [expected_high_watermark])
            self.updates.clear()

    listener = MockPartitionListener()
    listener.verify()

    # Registering a listener fails: the partition does not exist yet.
    assert not rm.maybe_add_listener(tp, listener)

    become_leader(world, tp, TOPIC_ID, leader_epoch, [0, 1])

    # Registering it succeeds now.
    assert rm.maybe_add_listener(tp, listener)
    listener.verify()

    # Leader appends some data
    for i in range(1, 6):
        append_records(rm, tp, singleton_records(f"message {i}".encode()))

    # Follower fetches up to offset 2.
    fetch_partition_as_follower(rm, tidp, PartitionData(ZERO, 2, 0, 1024 * 1024, leader_epoch), replica_id=1)
    listener.verify(expected_high_watermark=2)

    # Listener is removed.
    rm.remove_listener(tp, listener)

    # Follower fetches up to offset 4: the listener hears nothing.
    fetch_partition_as_follower(rm, tidp, PartitionData(ZERO, 4, 0, 1024 * 1024, leader_epoch), replica_id=1)
    listener.verify()


def test_checkpoint_hw_on_shutdown(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path)
    with mock.patch.object(ReplicaManager, "checkpoint_high_watermarks") as checkpoint:
        w.replica_manager.shutdown(checkpoint_hw=True)
    checkpoint.assert_called_once_with()


TRANSACTIONAL_ID = "txn1"


def setup_with_mocked_add_partitions_to_txn_manager(tmp_path: Path,
                                                    transactional_topic_partitions: list[TopicPartition],
                                                    props: dict[str, Any] | None = None) -> tuple[World, mock.Mock]:
    """setUpReplicaManagerWithMockedAddPartitionsToTxnManager (the test class's config: broker 1)."""
    w = setup_replica_manager(tmp_path, broker_id=1, props=props)
    add_partitions_to_txn_manager = mock.Mock()
    w.replica_manager.add_partitions_to_txn_manager = add_partitions_to_txn_manager
    w.metadata_cache.contained.update(transactional_topic_partitions)
    return w, add_partitions_to_txn_manager


def handle_produce_append(replica_manager: ReplicaManager, partition: TopicPartition, records: MemoryRecords,
                          transactional_id: str | None, required_acks: int = -1) -> CallbackResult:
    result = CallbackResult()
    replica_manager.handle_produce_append(timeout=1000, required_acks=required_acks, internal_topics_allowed=False,
                                          transactional_id=transactional_id, entries_per_partition={partition: records},
                                          response_callback=lambda responses: result.fire(responses[partition]))
    return result


def handle_produce_append_to_multiple_topics(replica_manager: ReplicaManager,
                                             entries_to_append: dict[TopicPartition, MemoryRecords],
                                             transactional_id: str | None) -> CallbackResult:
    result = CallbackResult()
    replica_manager.handle_produce_append(timeout=1000, required_acks=-1, internal_topics_allowed=False,
                                          transactional_id=transactional_id, entries_per_partition=entries_to_append,
                                          response_callback=result.fire)
    return result


def get_verification_guard(replica_manager: ReplicaManager, tp: TopicPartition, producer_id: int) -> Any:
    return replica_manager.get_partition_or_exception(tp).log.verification_guard(producer_id)


def verify_transaction_calls(add_partitions_to_txn_manager: mock.Mock) -> list[Any]:
    return add_partitions_to_txn_manager.verify_transaction.call_args_list


def test_verification_for_transactional_partitions_only(tmp_path: Path) -> None:
    tp0, tp1 = TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)
    producer_id, producer_epoch, sequence = 24, 0, 0
    w, add_partitions_to_txn_manager = setup_with_mocked_add_partitions_to_txn_manager(tmp_path, [tp0, tp1])
    rm = w.replica_manager
    try:
        become_leader(w, tp0, TOPIC_ID, 1, [0, 1])
        become_leader(w, tp1, TOPIC_ID, 1, [0, 1])

        # No transactional id and idempotent records: no verification.
        idempotent_records = MemoryRecords.with_idempotent_records(compression.NONE, producer_id, producer_epoch,
                                                                   sequence, SimpleRecord(b"message"))
        handle_produce_append(rm, tp0, idempotent_records, transactional_id=None)
        assert verify_transaction_calls(add_partitions_to_txn_manager) == []
        assert get_verification_guard(rm, tp0, producer_id) is VerificationGuard.SENTINEL

        # A transactional id with transactional and idempotent records: only the transactional partition is verified.
        transactional_records = MemoryRecords.with_transactional_records(compression.NONE, producer_id,
                                                                         producer_epoch, sequence + 1,
                                                                         SimpleRecord(b"message"))
        idempotent_records2 = MemoryRecords.with_idempotent_records(compression.NONE, producer_id, producer_epoch,
                                                                    sequence, SimpleRecord(b"message"))
        handle_produce_append_to_multiple_topics(rm, {tp0: transactional_records, tp1: idempotent_records2},
                                                 TRANSACTIONAL_ID)
        calls = verify_transaction_calls(add_partitions_to_txn_manager)
        assert len(calls) == 1
        assert calls[0].kwargs["transactional_id"] == TRANSACTIONAL_ID
        assert calls[0].kwargs["producer_id"] == producer_id
        assert calls[0].kwargs["producer_epoch"] == producer_epoch
        assert calls[0].kwargs["topic_partitions"] == [tp0]
        assert get_verification_guard(rm, tp0, producer_id) is not VerificationGuard.SENTINEL
        assert get_verification_guard(rm, tp1, producer_id) is VerificationGuard.SENTINEL
    finally:
        rm.shutdown(checkpoint_hw=False)


@pytest.mark.parametrize("append_origin", [AppendOrigin.CLIENT, AppendOrigin.COORDINATOR])
def test_transaction_verification_flow(tmp_path: Path, append_origin: AppendOrigin) -> None:
    tp0 = TopicPartition(TOPIC, 0)
    producer_id, producer_epoch, sequence = 24, 0, 6
    w, add_partitions_to_txn_manager = setup_with_mocked_add_partitions_to_txn_manager(tmp_path, [tp0])
    rm = w.replica_manager
    try:
        become_leader(w, tp0, TOPIC_ID, 1, [0, 1])
        transactional_records = MemoryRecords.with_transactional_records(compression.NONE, producer_id,
                                                                         producer_epoch, sequence,
                                                                         SimpleRecord(b"message"))
        # The partition goes to the manager to verify.
        result = handle_produce_append(rm, tp0, transactional_records, transactional_id=TRANSACTIONAL_ID)
        calls = verify_transaction_calls(add_partitions_to_txn_manager)
        assert len(calls) == 1
        assert calls[0].kwargs["topic_partitions"] == [tp0]
        verification_guard = get_verification_guard(rm, tp0, producer_id)
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)

        # Not written to the log: an error instead.
        calls[0].kwargs["callback"]({tp0: Errors.INVALID_TXN_STATE})
        assert result.assert_fired().error == Errors.INVALID_TXN_STATE
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)

        # This time verification is successful.
        handle_produce_append(rm, tp0, transactional_records, transactional_id=TRANSACTIONAL_ID)
        calls = verify_transaction_calls(add_partitions_to_txn_manager)
        assert len(calls) == 2
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)
        calls[1].kwargs["callback"]({})
        assert get_verification_guard(rm, tp0, producer_id) is VerificationGuard.SENTINEL
        assert rm.local_log(tp0).has_ongoing_transaction(producer_id)
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_transaction_verification_blocks_out_of_order_sequence(tmp_path: Path) -> None:
    tp0 = TopicPartition(TOPIC, 0)
    producer_id, producer_epoch, sequence = 24, 0, 6
    w, add_partitions_to_txn_manager = setup_with_mocked_add_partitions_to_txn_manager(tmp_path, [tp0])
    rm = w.replica_manager
    try:
        become_leader(w, tp0, TOPIC_ID, 1, [0, 1])
        transactional_records = MemoryRecords.with_transactional_records(compression.NONE, producer_id,
                                                                         producer_epoch, sequence,
                                                                         SimpleRecord(b"message"))
        result = handle_produce_append(rm, tp0, transactional_records, transactional_id=TRANSACTIONAL_ID)
        calls = verify_transaction_calls(add_partitions_to_txn_manager)
        assert len(calls) == 1
        verification_guard = get_verification_guard(rm, tp0, producer_id)
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)

        # Verification fails: no write, the guard stays.
        calls[0].kwargs["callback"]({tp0: Errors.INVALID_PRODUCER_ID_MAPPING})
        assert result.assert_fired().error == Errors.INVALID_PRODUCER_ID_MAPPING
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)

        # The next batch's sequence is out of order: verified, but refused, and the guard stays.
        transactional_records2 = MemoryRecords.with_transactional_records(compression.NONE, producer_id,
                                                                          producer_epoch, sequence + 1,
                                                                          SimpleRecord(b"message"))
        result2 = handle_produce_append(rm, tp0, transactional_records2, transactional_id=TRANSACTIONAL_ID)
        calls = verify_transaction_calls(add_partitions_to_txn_manager)
        assert len(calls) == 2
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)
        calls[1].kwargs["callback"]({})
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)
        assert result2.assert_fired().error == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_transaction_verification_guard_on_multiple_partitions(tmp_path: Path) -> None:
    tp0, tp1 = TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)
    producer_id, producer_epoch, sequence = 24, 0, 0
    w = setup_replica_manager(tmp_path)
    rm = w.replica_manager
    rm.add_partitions_to_txn_manager = mock.Mock()
    try:
        become_leader(w, tp0, TOPIC_ID, 1, [0, 1])
        become_leader(w, tp1, TOPIC_ID, 1, [0, 1])
        transactional_records = MemoryRecords.with_transactional_records(
            compression.NONE, producer_id, producer_epoch, sequence, SimpleRecord(f"message {sequence}".encode()))
        result = handle_produce_append_to_multiple_topics(rm, {tp0: transactional_records, tp1: transactional_records},
                                                          TRANSACTIONAL_ID)
        # Kafka's onFire: whenever the answer comes, every partition succeeded.
        if result.has_fired:
            for response in result.value.values():
                assert response.error == Errors.NONE
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_transaction_verification_when_not_leader(tmp_path: Path) -> None:
    tp0 = TopicPartition(TOPIC, 0)
    producer_id, producer_epoch, sequence = 24, 0, 6
    w, add_partitions_to_txn_manager = setup_with_mocked_add_partitions_to_txn_manager(tmp_path, [tp0])
    rm = w.replica_manager
    try:
        transactional_records = MemoryRecords.with_transactional_records(compression.NONE, producer_id,
                                                                         producer_epoch, sequence,
                                                                         SimpleRecord(b"message"))
        result = handle_produce_append(rm, tp0, transactional_records, transactional_id=TRANSACTIONAL_ID)
        assert result.assert_fired().error == Errors.NOT_LEADER_OR_FOLLOWER
        assert verify_transaction_calls(add_partitions_to_txn_manager) == []
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_pre_verification_error(tmp_path: Path) -> None:
    tp0 = TopicPartition(TOPIC, 0)
    producer_id, producer_epoch = 24, 0
    w, add_partitions_to_txn_manager = setup_with_mocked_add_partitions_to_txn_manager(tmp_path, [tp0])
    rm = w.replica_manager
    try:
        result = CallbackResult()

        def post_verification_callback(error_and_guard: tuple[Errors, VerificationGuard]) -> None:
            error, verification_guard = error_and_guard
            result.fire(error if error != Errors.NONE else verification_guard)

        rm.maybe_start_transaction_verification_for_partition(tp0, "txn-id", producer_id, producer_epoch, 0,
                                                              post_verification_callback)
        assert verify_transaction_calls(add_partitions_to_txn_manager) == []
        assert result.assert_fired() == Errors.NOT_LEADER_OR_FOLLOWER
    finally:
        rm.shutdown(checkpoint_hw=False)


def become_follower(w: World, tp: TopicPartition, topic_id: uuid.UUID | None, leader: int, leader_epoch: int,
                    replicas: list[int]) -> Partition:
    """Kafka's becomeLeaderOrFollower making this broker a follower, the way applyDelta does it."""
    partition = w.replica_manager.create_partition(tp)
    state = LeaderAndIsrPartitionState(topic_name=tp.topic, partition_index=tp.partition, controller_epoch=0,
                                       leader=leader, leader_epoch=leader_epoch, isr=list(replicas),
                                       partition_epoch=0, replicas=list(replicas), is_new=True)
    partition.make_follower(state, LazyOffsetCheckpoints(w.replica_manager.high_watermark_checkpoints),
                            Uuid.from_bytes(topic_id.bytes) if topic_id is not None else None)
    return partition


def fetch_as_consumer_with_client_metadata(rm: ReplicaManager, partition: TopicIdPartition,
                                           partition_data: PartitionData, client_metadata: Any) -> CallbackResult:
    result = CallbackResult()
    params = FetchParams(17, -1, 1, 0, 1, 1024 * 1024, FetchIsolation.HIGH_WATERMARK, client_metadata)
    rm.fetch_messages(params, [(partition, partition_data)], None, lambda status: result.fire(status[0][1]))
    return result


# DefaultClientMetadata("", "", null, ANONYMOUS, ""): only its presence matters to the port (no replica selector)
CLIENT_METADATA = object()


def test_fetch_follower_not_allowed_for_older_clients(world: World) -> None:
    rm = world.replica_manager
    tp0 = TopicPartition(TOPIC, 0)
    tidp0 = TopicIdPartition(TOPIC_ID, tp0)
    become_follower(world, tp0, TOPIC_ID, leader=1, leader_epoch=0, replicas=[0, 1])

    # A consumer with client metadata (Fetch v11+) may fetch from a follower.
    partition_data = PartitionData(ZERO, 0, 0, 100, 0)
    fetch_result = fetch_as_consumer_with_client_metadata(rm, tidp0, partition_data, CLIENT_METADATA)
    assert fetch_result.assert_fired().error == Errors.NONE

    # An older client (no client metadata) may not.
    fetch_result = fetch_partition_as_consumer(rm, tidp0, PartitionData(ZERO, 0, 0, 100, 0))
    assert fetch_result.assert_fired().error == Errors.NOT_LEADER_OR_FOLLOWER


def test_fetch_from_leader_always_allowed(world: World) -> None:
    rm = world.replica_manager
    tp0 = TopicPartition(TOPIC, 0)
    tidp0 = TopicIdPartition(TOPIC_ID, tp0)
    become_leader(world, tp0, TOPIC_ID, leader_epoch=1, replicas=[0, 1])

    fetch_result = fetch_as_consumer_with_client_metadata(rm, tidp0, PartitionData(ZERO, 0, 0, 100, 1),
                                                          CLIENT_METADATA)
    assert fetch_result.assert_fired().error == Errors.NONE

    fetch_result = fetch_as_consumer_with_client_metadata(rm, tidp0, PartitionData(ZERO, 0, 0, 100, None),
                                                          CLIENT_METADATA)
    assert fetch_result.assert_fired().error == Errors.NONE


def test_active_producer_state(world: World) -> None:
    rm = world.replica_manager
    broker_id = 0
    foo_partition = TopicPartition("foo", 0)
    foo_producer_state = rm.active_producer_state(foo_partition)
    assert Errors.for_code(foo_producer_state.error_code) == Errors.UNKNOWN_TOPIC_OR_PARTITION

    oof_partition = TopicPartition("oof", 0)
    world.metadata_cache.contained.add(oof_partition)
    oof_producer_state = rm.active_producer_state(oof_partition)
    assert Errors.for_code(oof_producer_state.error_code) == Errors.NOT_LEADER_OR_FOLLOWER

    bar_partition = TopicPartition("bar", 0)
    become_leader(world, bar_partition, uuid.uuid4(), leader_epoch=0, replicas=[broker_id])
    bar_producer_state = rm.active_producer_state(bar_partition)
    assert Errors.for_code(bar_producer_state.error_code) == Errors.NONE

    other_broker_id = 1
    baz_partition = TopicPartition("baz", 0)
    become_follower(world, baz_partition, uuid.uuid4(), leader=other_broker_id, leader_epoch=0,
                    replicas=[broker_id, other_broker_id])
    baz_producer_state = rm.active_producer_state(baz_partition)
    assert Errors.for_code(baz_producer_state.error_code) == Errors.NONE


def test_receive_out_of_order_sequence_exception_with_log_start_offset(world: World) -> None:
    rm = world.replica_manager
    tp = TopicPartition(TOPIC, 0)
    partition = become_leader(world, tp, uuid.uuid4(), leader_epoch=0, replicas=[0, 1])
    rm.get_partition_or_exception(tp).local_log_or_exception()

    producer_id, epoch, num_records = 234, 5, 3
    for sequence in range(num_records):
        records = MemoryRecords.with_idempotent_records(compression.NONE, producer_id, epoch, sequence,
                                                        SimpleRecord(f"message {sequence}".encode()))
        result = append_records(rm, tp, records)
        if result.has_fired:
            assert result.value.error == Errors.NONE

    assert partition.log_start_offset() == 0

    out_of_range_sequence = num_records + 10
    record = MemoryRecords.with_idempotent_records(compression.NONE, producer_id, epoch, out_of_range_sequence,
                                                   SimpleRecord(f"message: {out_of_range_sequence}".encode()))
    response = append_records(rm, tp, record).assert_fired()
    assert response.error == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert response.log_start_offset == 0


def test_fetch_messages_when_not_follower_for_one_partition(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path)
    w.metadata_cache.alive_broker_ids = (0, 1, 2)
    rm = w.replica_manager
    try:
        tp0, tp1 = TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)
        topic_id = uuid.uuid4()
        tidp0, tidp1 = TopicIdPartition(topic_id, tp0), TopicIdPartition(topic_id, tp1)
        leader_epoch = 0
        become_leader(w, tp0, topic_id, leader_epoch, [0, 1])
        become_leader(w, tp1, topic_id, leader_epoch, [0, 2])

        for i in range(1, 3):
            append_records(rm, tp0, singleton_records(f"message {i}".encode()))
            append_records(rm, tp1, singleton_records(f"message {i}".encode()))

        fired: list[Any] = []

        def fetch_callback(response_status: list[tuple[TopicIdPartition, Any]]) -> None:
            response_status_map = dict(response_status)
            assert len(response_status) == 2
            assert set(response_status_map) == {tidp0, tidp1}
            tp0_status = response_status_map[tidp0]
            assert tp0_status.high_watermark == 0
            assert tp0_status.last_stable_offset == 0
            assert tp0_status.error == Errors.NONE
            assert next(iter(tp0_status.records.batches()), None) is not None
            # replica 1 is not a replica of tp1
            assert response_status_map[tidp1].error == Errors.UNKNOWN_LEADER_EPOCH
            fired.append(True)

        fetch_partitions(rm, 1, [(tidp0, PartitionData(ZERO, 1, 0, 100000, leader_epoch)),
                                 (tidp1, PartitionData(ZERO, 1, 0, 100000, leader_epoch))],
                         fetch_callback, max_wait_ms=1000, min_bytes=0, max_bytes=2**31 - 1)
        assert fired

        tp0_log = rm.local_log(tp0)
        assert tp0_log is not None
        assert tp0_log.high_watermark() == 1, "hw should be incremented"
        tp1_replica = rm.local_log(tp1)
        assert tp1_replica is not None
        assert tp1_replica.high_watermark() == 0, "hw should not be incremented"
    finally:
        rm.shutdown(checkpoint_hw=False)


@REMOTE
def test_delta_follower_stop_fetcher_before_creating_initial_fetch_offset(world1: World,
                                                                          enable_remote_storage: bool) -> None:
    rm = world1.replica_manager
    local_id, other_id = 1, 2
    tp = TopicPartition("foo", 0)

    follower_topics_delta = topics_create_delta(local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    follower_partition = online(rm, tp)
    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 0
    assert follower_partition.local_log_or_exception().log_end_offset() == 0
    assert world1.fetcher_manager.added == [{tp: InitialFetchState(
        topic_id=Uuid.from_bytes(FOO_UUID.bytes), leader=endpoint_of(other_id), current_leader_epoch=0,
        init_offset=0)}]

    # The fetcher appends one more record while it is being removed.
    def append_while_removing(partitions: set[TopicPartition]) -> None:
        hosted = rm.get_partition(tp)
        if tp in partitions and isinstance(hosted, HostedPartition.Online):
            hosted.partition.append_records_to_follower_or_future_replica(
                MemoryRecords.with_records(compression.NONE, SimpleRecord(b"first message"), partition_leader_epoch=0),
                is_future=False)
    world1.fetcher_manager.on_remove = append_while_removing
    world1.fetcher_manager.reset()

    follower_topics_delta = topics_change_delta(follower_metadata_image.topics, local_id, False)
    follower_metadata_image = image_from_topics(follower_topics_delta.apply())
    rm.apply_delta(follower_topics_delta, follower_metadata_image)

    assert not follower_partition.is_leader()
    assert follower_partition.get_leader_epoch() == 1
    assert follower_partition.local_log_or_exception().log_end_offset() == 1

    # The initial fetch offset is taken after the fetcher stopped: it includes that record.
    assert world1.fetcher_manager.added == [{tp: InitialFetchState(
        topic_id=Uuid.from_bytes(FOO_UUID.bytes), leader=endpoint_of(other_id), current_leader_epoch=1,
        init_offset=1)}]


def test_read_committed_fetch_limited_at_lso(world: World) -> None:
    rm = world.replica_manager
    tp = TopicPartition(TOPIC, 0)
    tidp = TopicIdPartition(TOPIC_ID, tp)
    become_leader(world, tp, TOPIC_ID, leader_epoch=0, replicas=[0, 1])
    rm.get_partition_or_exception(tp).local_log_or_exception()

    producer_id, epoch, num_records = 234, 5, 3
    # Transactional records in the log without a commit marker.
    for sequence in range(num_records):
        records = MemoryRecords.with_transactional_records(compression.NONE, producer_id, epoch, sequence,
                                                           SimpleRecord(f"message {sequence}".encode()))
        result = handle_produce_append(rm, tp, records, transactional_id=TRANSACTIONAL_ID)
        if result.has_fired:
            assert result.value.error == Errors.NONE

    # The follower's fetch raises the high watermark.
    fetch_partition_as_follower(rm, tidp, PartitionData(ZERO, num_records, 0, 100000, None), replica_id=1)

    def fetch_read_committed(min_bytes: int = 1, max_wait_ms: int = 0) -> CallbackResult:
        return fetch_partition(rm, -1, tidp, PartitionData(ZERO, 0, 0, 100000, None), FetchIsolation.TXN_COMMITTED,
                               max_wait_ms, min_bytes)

    # A READ_COMMITTED consumer sees nothing past the LSO (0).
    fetch_data = fetch_read_committed().assert_fired()
    assert fetch_data.error == Errors.NONE
    assert list(fetch_data.records.batches()) == []
    assert fetch_data.last_stable_offset == 0
    assert list(fetch_data.aborted_transactions) == []

    # The same in a delayed fetch.
    consumer_fetch_result = fetch_read_committed(min_bytes=1000, max_wait_ms=1000)
    assert not consumer_fetch_result.has_fired
    world.timer.advance_clock(1001)
    fetch_data = consumer_fetch_result.assert_fired()
    assert fetch_data.error == Errors.NONE
    assert list(fetch_data.records.batches()) == []
    assert fetch_data.last_stable_offset == 0
    assert list(fetch_data.aborted_transactions) == []

    # Commit: the marker is in the log but the high watermark has not reached it.
    end_txn_marker = EndTransactionMarker(ControlRecordType.COMMIT, 0)
    commit_record_batch = MemoryRecords.with_end_transaction_marker(producer_id, epoch, end_txn_marker)
    rm.append_records(timeout=1000, required_acks=-1, internal_topics_allowed=False, origin=AppendOrigin.COORDINATOR,
                      entries_per_partition={tp: commit_record_batch}, response_callback=lambda _: None)

    fetch_data = fetch_read_committed().assert_fired()
    assert fetch_data.error == Errors.NONE
    assert list(fetch_data.records.batches()) == []

    # The follower's fetch moves the high watermark (and the LSO) past the marker.
    fetch_partition_as_follower(rm, tidp, PartitionData(ZERO, num_records + 1, 0, 100000, None), replica_id=1)

    fetch_data = fetch_read_committed().assert_fired()
    assert fetch_data.error == Errors.NONE
    assert fetch_data.last_stable_offset == num_records + 1
    assert list(fetch_data.aborted_transactions) == []
    assert len(list(fetch_data.records.batches())) == num_records + 1


def test_follower_state_not_updated_if_log_read_fails(world: World) -> None:
    rm = world.replica_manager
    max_fetch_bytes = 1024 * 1024
    leader_epoch = 5
    tp = TopicPartition(TOPIC, 0)
    tidp = TopicIdPartition(TOPIC_ID, tp)
    become_leader(world, tp, TOPIC_ID, leader_epoch, [0, 1])

    partition = rm.online_partition(tp)
    assert partition is not None
    follower_replica = partition.get_replica(1)
    assert follower_replica is not None
    assert follower_replica.state_snapshot.log_start_offset == -1
    assert follower_replica.state_snapshot.log_end_offset == -1

    for i in range(1, 6):
        append_records(rm, tp, singleton_records(f"message {i}".encode()))

    # A valid fetch updates the follower's state.
    valid_fetch_result = fetch_partition_as_follower(
        rm, tidp, PartitionData(ZERO, 0, 0, max_fetch_bytes, leader_epoch), replica_id=1)
    assert valid_fetch_result.assert_fired().error == Errors.NONE
    assert follower_replica.state_snapshot.log_start_offset == 0
    assert follower_replica.state_snapshot.log_end_offset == 0

    # A fenced epoch does not.
    invalid_fetch_result = fetch_partition_as_follower(
        rm, tidp, PartitionData(ZERO, 3, 0, max_fetch_bytes, leader_epoch - 1), replica_id=1)
    assert invalid_fetch_result.assert_fired().error == Errors.FENCED_LEADER_EPOCH
    assert follower_replica.state_snapshot.log_start_offset == 0
    assert follower_replica.state_snapshot.log_end_offset == 0

    # Nor does a diverging epoch.
    diverging_epoch_result = fetch_partition_as_follower(
        rm, tidp, PartitionData(tidp.topic_id, 3, 0, max_fetch_bytes, leader_epoch, leader_epoch - 1), replica_id=1)
    assert diverging_epoch_result.assert_fired().error == Errors.NONE
    assert diverging_epoch_result.assert_fired().diverging_epoch is not None
    assert follower_replica.state_snapshot.log_start_offset == 0
    assert follower_replica.state_snapshot.log_end_offset == 0


@pytest.mark.parametrize("is_start_id_leader", [True, False])
def test_delta_to_leader_or_follower_marks_partition_offline_if_log_cant_be_created(
        tmp_path: Path, is_start_id_leader: bool) -> None:
    local_id = 1
    tp = TopicPartition("foo", 0)
    data_dir = tmp_path / "only"
    w = setup_replica_manager(tmp_path, broker_id=local_id, log_dirs=[data_dir])
    rm = w.replica_manager
    try:
        shutil.rmtree(data_dir)
        topics_delta = topics_create_delta(local_id, is_start_id_leader)
        leader_metadata_image = image_from_topics(topics_delta.apply())
        rm.apply_delta(topics_delta, leader_metadata_image)
        # (Kafka also verifies the RemoteLogManager heard of no leadership change: tiered storage, not ported)

        hosted_partition = rm.get_partition(tp)
        assert isinstance(hosted_partition, HostedPartition.Offline)
        assert hosted_partition.partition is not None
        assert hosted_partition.partition.topic_id() == Uuid.from_bytes(FOO_UUID.bytes)
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_delayed_fetch_includes_aborted_transactions(world: World) -> None:
    rm = world.replica_manager
    tp = TopicPartition(TOPIC, 0)
    tidp = TopicIdPartition(TOPIC_ID, tp)
    become_leader(world, tp, TOPIC_ID, leader_epoch=0, replicas=[0, 1])
    rm.get_partition_or_exception(tp).local_log_or_exception()

    producer_id, epoch, num_records = 234, 5, 3
    # Transactional records, then an abort marker.
    for sequence in range(num_records):
        records = MemoryRecords.with_transactional_records(compression.NONE, producer_id, epoch, sequence,
                                                           SimpleRecord(f"message {sequence}".encode()))
        handle_produce_append(rm, tp, records, transactional_id=TRANSACTIONAL_ID)
    end_txn_marker = EndTransactionMarker(ControlRecordType.ABORT, 0)
    abort_record_batch = MemoryRecords.with_end_transaction_marker(producer_id, epoch, end_txn_marker)
    rm.append_records(timeout=1000, required_acks=-1, internal_topics_allowed=False, origin=AppendOrigin.COORDINATOR,
                      entries_per_partition={tp: abort_record_batch}, response_callback=lambda _: None)

    # The follower's fetch moves the high watermark past the marker.
    fetch_partition_as_follower(rm, tidp, PartitionData(ZERO, num_records + 1, 0, 100000, None), replica_id=1)

    fetch_result = fetch_partition(rm, -1, tidp, PartitionData(ZERO, 0, 0, 100000, None),
                                   FetchIsolation.TXN_COMMITTED, max_wait_ms=1000, min_bytes=10000)
    assert not fetch_result.has_fired
    world.timer.advance_clock(1001)
    fetch_data = fetch_result.assert_fired()
    assert fetch_data.error == Errors.NONE
    assert fetch_data.last_stable_offset == num_records + 1
    assert len(list(fetch_data.records.records())) == num_records + 1
    assert fetch_data.aborted_transactions is not None
    assert len(fetch_data.aborted_transactions) == 1
    aborted_transaction = fetch_data.aborted_transactions[0]
    assert aborted_transaction.first_offset == 0
    assert aborted_transaction.producer_id == producer_id


# -- KIP-392: reading from a follower ---------------------------------------------------------------------------


class MockReplicaSelector(ReplicaSelector):
    """Counts selections, keeps the last partition view, and always picks the leader."""

    def __init__(self) -> None:
        self.selection_count = 0
        self.partition_view_argument: PartitionView | None = None

    def select(self, topic_partition: TopicPartition, client_metadata: ClientMetadata,
               partition_view: PartitionView) -> ReplicaView | None:
        self.selection_count += 1
        self.partition_view_argument = partition_view
        return partition_view.leader()


MOCK_REPLICA_SELECTOR = f"{__name__}.MockReplicaSelector"
RACK_AWARE = "org.apache.kafka.common.replica.RackAwareReplicaSelector"


def client_metadata(rack_id: str) -> DefaultClientMetadata:
    return DefaultClientMetadata(rack_id, "client-id", "localhost", "User:ANONYMOUS", "default")


def test_replica_selector(world: World) -> None:
    """prepareReplicaManagerAndLogManager's world: broker 0, no selector configured."""
    rm = world.replica_manager
    tp = TopicPartition(TOPIC, 0)
    partition = rm.create_partition(tp)
    offset_checkpoints = LazyOffsetCheckpoints(rm.high_watermark_checkpoints)
    partition.create_log_if_not_exists(False, False, offset_checkpoints, None)
    partition.make_leader(LeaderAndIsrPartitionState(topic_name=TOPIC, partition_index=0, leader=1, leader_epoch=1,
                                                     isr=[0, 1], replicas=[0, 1]), offset_checkpoints, None)
    preferred_read_replica = rm.find_preferred_read_replica(partition, client_metadata("rack-a"), -1, 1,
                                                            world.time.milliseconds())
    assert preferred_read_replica is None


def test_preferred_replica_as_follower(world: World) -> None:
    rm = world.replica_manager
    topic_id = uuid.uuid4()
    tp0 = TopicPartition(TOPIC, 0)
    become_follower(world, tp0, topic_id, leader=1, leader_epoch=1, replicas=[0, 1])
    consumer_result = fetch_as_consumer_with_client_metadata(rm, TopicIdPartition(topic_id, tp0),
                                                             PartitionData(ZERO, 0, 0, 100000, None),
                                                             client_metadata("rack-a"))
    assert consumer_result.has_fired
    assert consumer_result.assert_fired().preferred_read_replica is None


def test_preferred_replica_as_leader(world: World) -> None:
    rm = world.replica_manager
    topic_id = uuid.uuid4()
    tp0 = TopicPartition(TOPIC, 0)
    become_leader(world, tp0, topic_id, leader_epoch=1, replicas=[0, 1])
    consumer_result = fetch_as_consumer_with_client_metadata(rm, TopicIdPartition(topic_id, tp0),
                                                             PartitionData(ZERO, 0, 0, 100000, None),
                                                             client_metadata("rack-a"))
    assert consumer_result.has_fired
    assert consumer_result.assert_fired().preferred_read_replica is None


def test_preferred_replica_as_leader_when_same_rack_follower_is_out_of_isr(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path, props={"replica.selector.class": MOCK_REPLICA_SELECTOR})
    rm = w.replica_manager
    try:
        leader_broker_id, follower_broker_id = 0, 1
        leader_node = Node(leader_broker_id, "host1", 0, "rack-a")
        follower_node = Node(follower_broker_id, "host2", 1, "rack-b")
        topic_id = uuid.uuid4()
        tp0 = TopicPartition(TOPIC, 0)
        tidp0 = TopicIdPartition(topic_id, tp0)
        w.metadata_cache.replica_endpoints[(tp0, "default")] = {leader_broker_id: leader_node,
                                                                 follower_broker_id: follower_node}
        partition = rm.create_partition(tp0)
        partition.make_leader(LeaderAndIsrPartitionState(
            topic_name=TOPIC, partition_index=0, leader=leader_broker_id, leader_epoch=1, isr=[leader_broker_id],
            replicas=[leader_broker_id, follower_broker_id]), LazyOffsetCheckpoints(rm.high_watermark_checkpoints),
            Uuid.from_bytes(topic_id.bytes))
        append_records(rm, tp0, singleton_records(b"message"))

        # The follower fetches, but is not in the ISR.
        fetch_partition_as_follower(rm, tidp0, PartitionData(ZERO, 0, 0, 100000, None), replica_id=1)

        consumer_result = fetch_as_consumer_with_client_metadata(rm, tidp0, PartitionData(ZERO, 0, 0, 100000, None),
                                                                 client_metadata("rack-b"))
        assert consumer_result.has_fired

        # The out-of-sync follower is not offered to the selector.
        expected_replica_views = {DefaultReplicaView(leader_node, 1, 0)}
        partition_view = rm.replica_selector_opt.partition_view_argument
        assert partition_view is not None
        assert set(partition_view.replicas()) == expected_replica_views
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_fetch_from_follower_should_not_run_prefer_leader_select(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path, props={"replica.selector.class": MOCK_REPLICA_SELECTOR})
    rm = w.replica_manager
    try:
        topic_id = uuid.uuid4()
        tp0 = TopicPartition(TOPIC, 0)
        become_follower(w, tp0, topic_id, leader=1, leader_epoch=1, replicas=[0, 1])
        consumer_result = fetch_as_consumer_with_client_metadata(rm, TopicIdPartition(topic_id, tp0),
                                                                 PartitionData(ZERO, 0, 0, 100000, None),
                                                                 client_metadata("rack-a"))
        assert consumer_result.has_fired
        assert rm.replica_selector_opt.selection_count == 0
        assert consumer_result.assert_fired().preferred_read_replica is None
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_fetch_should_return_immediately_when_preferred_read_replica_is_defined(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path, props={"replica.selector.class": RACK_AWARE})
    rm = w.replica_manager
    try:
        leader_broker_id, follower_broker_id = 0, 1
        topic_id = uuid.uuid4()
        tp0 = TopicPartition(TOPIC, 0)
        tidp0 = TopicIdPartition(topic_id, tp0)
        w.metadata_cache.replica_endpoints[(tp0, "default")] = {
            leader_broker_id: Node(leader_broker_id, "host1", 9092, "rack-a"),
            follower_broker_id: Node(follower_broker_id, "host2", 9092, "rack-b")}
        leader_epoch = 1
        become_leader(w, tp0, topic_id, leader_epoch, [leader_broker_id, follower_broker_id])

        # The follower catches up.
        fetch_partition_as_follower(rm, tidp0, PartitionData(topic_id, 0, 0, 2**31 - 1, leader_epoch, None),
                                    replica_id=follower_broker_id)

        # A consumer in rack-b is sent to the follower at once, even with minBytes unmet.
        result = CallbackResult()
        params = FetchParams(17, -1, 1, 5000, 1, 1024 * 1024, FetchIsolation.HIGH_WATERMARK, client_metadata("rack-b"))
        rm.fetch_messages(params, [(tidp0, PartitionData(topic_id, 0, 0, 100000, None))], None,
                          lambda status: result.fire(status[0][1]))
        assert result.has_fired
        assert rm.delayed_fetch_purgatory.watched == 0
        assert result.assert_fired().preferred_read_replica is not None
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_follower_fetch_with_default_selector_no_forced_hw_propagation(world: World) -> None:
    rm = world.replica_manager
    tp0 = TopicPartition(TOPIC, 0)
    tidp0 = TopicIdPartition(TOPIC_ID, tp0)
    become_leader(world, tp0, TOPIC_ID, leader_epoch=1, replicas=[0, 1])

    simple_records = [SimpleRecord(b"a"), SimpleRecord(b"b")]
    append_result = append_records(rm, tp0, MemoryRecords.with_records(compression.NONE, *simple_records))

    # The follower fetches at the end: the HW moves, but this response still carries the old one.
    fetch_offset = len(simple_records)
    follower_result = fetch_partition_as_follower(rm, tidp0, PartitionData(ZERO, fetch_offset, 0, 100000, None),
                                                  replica_id=1, min_bytes=0)
    assert follower_result.has_fired
    assert follower_result.assert_fired().high_watermark == 0
    assert append_result.has_fired, "Expected producer request to be acked"

    # The next fetch waits: a new HW alone does not complete it.
    follower_result = fetch_partition_as_follower(rm, tidp0, PartitionData(ZERO, fetch_offset, 0, 100000, None),
                                                  replica_id=1, min_bytes=1000, max_wait_ms=1000)
    assert not follower_result.has_fired, "Request completed immediately unexpectedly"
    world.timer.advance_clock(1001)
    assert follower_result.has_fired
    assert follower_result.assert_fired().high_watermark == fetch_offset


def test_unknown_replica_selector(tmp_path: Path) -> None:
    with pytest.raises(ClassNotFoundException):
        setup_replica_manager(tmp_path, props={"replica.selector.class": "non-a-class"})


def test_default_replica_selector(world: World) -> None:
    assert world.replica_manager.replica_selector_opt is None


def _world_with_follower_log(tmp_path: Path) -> World:
    """prepareReplicaManagerAndLogManager's log: a partition of TOPIC with records in one of the log dirs."""
    w = setup_replica_manager(tmp_path)
    tp = TopicPartition(TOPIC, 0)
    become_follower(w, tp, uuid.uuid4(), leader=1, leader_epoch=1, replicas=[0, 1])
    w.replica_manager.local_log(tp).append_as_follower(
        MemoryRecords.with_records(compression.NONE, *[SimpleRecord(str(i).encode()) for i in range(10)],
                                   partition_leader_epoch=1))
    return w


def test_describe_log_dirs(tmp_path: Path) -> None:
    w = _world_with_follower_log(tmp_path)
    rm = w.replica_manager
    try:
        responses = rm.describe_log_dirs({TopicPartition(TOPIC, 0)})
        assert len(responses) == len(rm.log_manager.live_log_dirs())
        # (Kafka's world has one log dir, holding the partition; here the partition sits in one of two)
        assert sum(1 for response in responses if response.topics) == 1
        for response in responses:
            assert response.error_code == Errors.NONE
            assert response.total_bytes > 0
            assert response.usable_bytes >= 0
            for t in response.topics:
                assert t.partitions
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_describe_log_dirs_without_any_partition_topic(tmp_path: Path) -> None:
    w = _world_with_follower_log(tmp_path)
    rm = w.replica_manager
    try:
        responses = rm.describe_log_dirs({TopicPartition("none-topic", 0)})
        assert len(responses) == len(rm.log_manager.live_log_dirs())
        for response in responses:
            assert response.error_code == Errors.NONE
            assert response.total_bytes > 0
            assert response.usable_bytes >= 0
            assert response.topics == ()
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_replica_not_available(tmp_path: Path) -> None:
    w = setup_replica_manager(tmp_path, broker_id=1, log_dirs=[tmp_path / "data"])
    rm = w.replica_manager

    def get_partition_or_exception(topic_partition: TopicPartition) -> Partition:
        raise NotLeaderOrFollowerException()

    rm.get_partition_or_exception = get_partition_or_exception  # type: ignore[method-assign]
    try:
        tp = TopicPartition(TOPIC, 0)
        log_dir = str(rm.log_manager.live_log_dirs()[0].absolute())
        errors = rm.alter_replica_log_dirs({tp: log_dir})
        assert errors[tp] == Errors.REPLICA_NOT_AVAILABLE
    finally:
        rm.shutdown(checkpoint_hw=False)


def test_transaction_verification_dynamic_disablement(tmp_path: Path) -> None:
    tp0 = TopicPartition(TOPIC, 0)
    producer_id, producer_epoch, sequence = 24, 0, 6
    w, add_partitions_to_txn_manager = setup_with_mocked_add_partitions_to_txn_manager(tmp_path, [tp0])
    rm = w.replica_manager
    try:
        become_leader(w, tp0, TOPIC_ID, 1, [0, 1])
        transactional_records = MemoryRecords.with_transactional_records(compression.NONE, producer_id,
                                                                         producer_epoch, sequence,
                                                                         SimpleRecord(b"message"))
        # The partition goes to the manager to verify.
        result = handle_produce_append(rm, tp0, transactional_records, transactional_id=TRANSACTIONAL_ID)
        calls = verify_transaction_calls(add_partitions_to_txn_manager)
        assert len(calls) == 1
        verification_guard = get_verification_guard(rm, tp0, producer_id)
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)

        # Disable verification. (Kafka goes through DynamicBrokerConfig.updateBrokerConfig, not ported: the
        # port installs the updated config the way DynamicBrokerConfig ends, KafkaConfig.updateCurrentConfig.)
        props = dict(w.config.originals())
        props["transaction.partition.verification.enable"] = "false"
        w.config.update_current_config(KafkaConfig(props, do_log=False))
        assert w.config.transaction_partition_verification_enable() is False, "Config did not dynamically update."

        # The earlier request still completes with the coordinator's answer.
        calls[0].kwargs["callback"]({tp0: Errors.INVALID_TXN_STATE})
        assert result.assert_fired().error == Errors.INVALID_TXN_STATE
        assert verification_guard == get_verification_guard(rm, tp0, producer_id)

        # A new request is not verified: the append goes through.
        handle_produce_append(rm, tp0, transactional_records, transactional_id=TRANSACTIONAL_ID)
        assert len(verify_transaction_calls(add_partitions_to_txn_manager)) == 1
        assert get_verification_guard(rm, tp0, producer_id) is VerificationGuard.SENTINEL
        assert rm.local_log(tp0).has_ongoing_transaction(producer_id)
    finally:
        rm.shutdown(checkpoint_hw=False)



def _log_dir_id(rm: ReplicaManager, tp: TopicPartition) -> Any:
    return rm.log_manager.directory_id(str(rm.log_manager.get_log(tp).dir().parent))


def _assignments(handler: mock.Mock) -> tuple[list[Any], list[Any]]:
    calls = handler.handle_assignment.call_args_list
    for call in calls:
        assert call.args[2] == "Applying metadata delta"
    return [call.args[0] for call in calls], [call.args[1] for call in calls]


@REMOTE
def test_apply_delta_should_handle_replica_assigned_to_online_directory(tmp_path: Path,
                                                                        enable_remote_storage: bool) -> None:
    local_id = 1
    tp0, tp1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
    directory_event_handler = mock.Mock()
    w = setup_replica_manager(tmp_path, broker_id=local_id, setup_log_dir_meta_properties=True,
                              directory_event_handler=directory_event_handler)
    rm = w.replica_manager
    try:
        directory_ids = list(rm.log_manager.directory_ids_set())
        leader_topics_delta = topics_create_delta(local_id, True, partition=0, directory_ids=directory_ids)
        rm.apply_delta(leader_topics_delta, image_from_topics(leader_topics_delta.apply()))
        assert directory_event_handler.mock_calls == []
        assert _log_dir_id(rm, tp0) == directory_ids[0]

        follower_topics_delta = topics_create_delta(local_id, False, partition=1, directory_ids=directory_ids)
        rm.apply_delta(follower_topics_delta, image_from_topics(follower_topics_delta.apply()))
        assert directory_event_handler.mock_calls == []
        assert _log_dir_id(rm, tp1) == directory_ids[0]
    finally:
        rm.shutdown(checkpoint_hw=False)


def _assigned_to(tmp_path: Path, directory_id: Uuid) -> None:
    local_id = 1
    tp0, tp1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
    directory_event_handler = mock.Mock()
    w = setup_replica_manager(tmp_path, broker_id=local_id, setup_log_dir_meta_properties=True,
                              directory_event_handler=directory_event_handler)
    rm = w.replica_manager
    try:
        leader_topics_delta = topics_create_delta(local_id, True, partition=0,
                                                  directory_ids=[directory_id, directory_id])
        leader_metadata_image = image_from_topics(leader_topics_delta.apply())
        topic_id = Uuid.from_bytes(leader_metadata_image.topics.topics_by_name["foo"].id.bytes)
        rm.apply_delta(leader_topics_delta, leader_metadata_image)

        follower_topics_delta = topics_create_delta(local_id, False, partition=1,
                                                    directory_ids=[directory_id, directory_id])
        rm.apply_delta(follower_topics_delta, image_from_topics(follower_topics_delta.apply()))

        partitions, log_ids = _assignments(directory_event_handler)
        assert partitions == [ServerTopicIdPartition(topic_id, tp0.partition),
                              ServerTopicIdPartition(topic_id, tp1.partition)]
        assert log_ids == [_log_dir_id(rm, tp0), _log_dir_id(rm, tp1)]
    finally:
        rm.shutdown(checkpoint_hw=False)


@REMOTE
def test_apply_delta_should_handle_replica_assigned_to_unassigned_directory(tmp_path: Path,
                                                                            enable_remote_storage: bool) -> None:
    _assigned_to(tmp_path, DirectoryId.UNASSIGNED)


@REMOTE
def test_apply_delta_should_handle_replica_assigned_to_lost_directory(tmp_path: Path,
                                                                      enable_remote_storage: bool) -> None:
    _assigned_to(tmp_path, DirectoryId.LOST)
