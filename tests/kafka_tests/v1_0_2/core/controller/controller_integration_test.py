"""Port of core/src/test/scala/unit/kafka/controller/ControllerIntegrationTest.scala (Kafka 1.0.2).

ZooKeeperTestHarness is the project's real ZooKeeper (the `zookeeper` fixture of tests/conftest.py) with a ZkUtils
opened on it; TestUtils.createServer starts a v1_0_2 KafkaServer in this process, on a random port, as Kafka's test
starts one in its JVM. The `servers` fixture is the test's tearDown: it shuts down every server a case made, whether
the case passed or not. Assertions read ZooKeeper, as Kafka's do.

Left out of testPartitionReassignment: the check that the PartitionReassignment rate-and-time timer counted the
reassignment (Yammer metrics: the port registers no metrics). The rest of that case is Kafka's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.controller.controller_context import (
    LeaderIsrAndControllerEpoch,
    get_partition_leader_and_isr_for_topics,
    get_replica_assignment_for_topics,
    replica_assignment_zk_data,
)
from kafka_edu.v1_0_2.core.controller.kafka_controller import INITIAL_CONTROLLER_EPOCH
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.kafka_server import KafkaServer
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    CONTROLLER_EPOCH_PATH,
    CONTROLLER_PATH,
    PREFERRED_REPLICA_LEADER_ELECTION_PATH,
    REASSIGN_PARTITIONS_PATH,
    ZkUtils,
    format_as_reassignment_json,
    get_topic_path,
    preferred_replica_leader_election_zk_data,
)
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import (
    create_broker_configs,
    create_server,
    create_topic,
    shutdown_servers,
    wait_until_controller_elected,
    wait_until_metadata_is_propagated,
    wait_until_true,
)

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/controller/ControllerIntegrationTest.scala",
    cases=[
        "testEmptyCluster",
        "testControllerEpochPersistsWhenAllBrokersDown",
        "testControllerMoveIncrementsControllerEpoch",
        "testTopicCreation",
        "testTopicCreationWithOfflineReplica",
        "testTopicPartitionExpansion",
        "testTopicPartitionExpansionWithOfflineReplica",
        "testPartitionReassignment",
        "testPartitionReassignmentWithOfflineReplicaHaltingProgress",
        "testPartitionReassignmentResumesAfterReplicaComesOnline",
        "testPreferredReplicaLeaderElection",
        "testPreferredReplicaLeaderElectionWithOfflinePreferredReplica",
        "testAutoPreferredReplicaLeaderElection",
        "testLeaderAndIsrWhenEntireIsrOfflineAndUncleanLeaderElectionDisabled",
        "testLeaderAndIsrWhenEntireIsrOfflineAndUncleanLeaderElectionEnabled",
    ],
)

ZK_CONNECTION_TIMEOUT = 10000  # ZooKeeperTestHarness
ZK_SESSION_TIMEOUT = 6000
INITIAL_LEADER_EPOCH = LeaderAndIsr.initial_leader_epoch
NO_LEADER = LeaderAndIsr.NoLeader


class Harness:
    """The test class's fields: ZooKeeperTestHarness's zkConnect and zkUtils, and the servers a case made."""

    def __init__(self, zk_connect: str, zk_utils: ZkUtils) -> None:
        self.zk_connect = zk_connect
        self.zk_utils = zk_utils
        self.servers: list[KafkaServer] = []

    def make_servers(self, num_configs: int, auto_leader_rebalance_enable: bool = False,
                     unclean_leader_election_enable: bool = False) -> list[KafkaServer]:
        configs = create_broker_configs(num_configs, self.zk_connect)
        for config in configs:
            config["auto.leader.rebalance.enable"] = str(auto_leader_rebalance_enable).lower()
            config["unclean.leader.election.enable"] = str(unclean_leader_election_enable).lower()
            config["leader.imbalance.check.interval.seconds"] = "1"
        # each server joins the list as it starts, so that tearDown shuts it down even if a later one fails
        for config in configs:
            self.servers.append(create_server(KafkaConfig.from_props(config)))
        return self.servers

    def wait_until_controller_epoch(self, epoch: int, message: str) -> None:
        wait_until_true(lambda: self.zk_utils.read_data_maybe_null(CONTROLLER_EPOCH_PATH)[0] == str(epoch), message)

    def leader_isr_and_controller_epoch(self, tp: TopicPartition) -> LeaderIsrAndControllerEpoch | None:
        return get_partition_leader_and_isr_for_topics(self.zk_utils, {tp}).get(tp)

    def wait_for_partition_state(self, tp: TopicPartition, controller_epoch: int, leader: int, leader_epoch: int,
                                 message: str) -> None:
        def reached() -> bool:
            state = self.leader_isr_and_controller_epoch(tp)
            return state is not None and is_expected_partition_state(state, controller_epoch, leader, leader_epoch)

        wait_until_true(reached, lambda: f"{message}: {self.leader_isr_and_controller_epoch(tp)}")

    def wait_for_partition_state_and_isr(self, tp: TopicPartition, controller_epoch: int, leader: int,
                                         leader_epoch: int, isr: list[int], message: str) -> None:
        def reached() -> bool:
            state = self.leader_isr_and_controller_epoch(tp)
            return (state is not None and is_expected_partition_state(state, controller_epoch, leader, leader_epoch)
                    and list(state.leader_and_isr.isr) == isr)

        wait_until_true(reached, lambda: f"{message}: {self.leader_isr_and_controller_epoch(tp)}")

    def other_broker_id(self, controller_id: int) -> int:
        return next(s.config.broker_id for s in self.servers if s.config.broker_id != controller_id)

    def stop(self, broker_id: int) -> None:
        self.servers[broker_id].shutdown()
        self.servers[broker_id].await_shutdown()

    def replica_assignment(self, topic: str) -> dict[TopicPartition, list[int]]:
        return get_replica_assignment_for_topics(self.zk_utils, [topic])


def is_expected_partition_state(leader_isr_and_controller_epoch: LeaderIsrAndControllerEpoch, controller_epoch: int,
                                leader: int, leader_epoch: int) -> bool:
    return (leader_isr_and_controller_epoch.controller_epoch == controller_epoch
            and leader_isr_and_controller_epoch.leader_and_isr.leader == leader
            and leader_isr_and_controller_epoch.leader_and_isr.leader_epoch == leader_epoch)


@pytest.fixture
def h(zookeeper) -> Iterator[Harness]:
    zk_utils = ZkUtils(zookeeper.connect, ZK_SESSION_TIMEOUT, ZK_CONNECTION_TIMEOUT)
    harness = Harness(zookeeper.connect, zk_utils)
    try:
        yield harness
    finally:
        try:
            shutdown_servers(harness.servers)
        finally:
            zk_utils.close()


def _path_exists(h: Harness, path: str) -> Callable[[], bool]:
    return lambda: h.zk_utils.path_exists(path)


def test_empty_cluster(h: Harness) -> None:
    h.make_servers(1)
    wait_until_true(_path_exists(h, CONTROLLER_PATH), "failed to elect a controller")
    h.wait_until_controller_epoch(INITIAL_CONTROLLER_EPOCH, "broker failed to set controller epoch")


def test_controller_epoch_persists_when_all_brokers_down(h: Harness) -> None:
    servers = h.make_servers(1)
    wait_until_true(_path_exists(h, CONTROLLER_PATH), "failed to elect a controller")
    h.wait_until_controller_epoch(INITIAL_CONTROLLER_EPOCH, "broker failed to set controller epoch")
    servers[0].shutdown()
    servers[0].await_shutdown()
    wait_until_true(lambda: not h.zk_utils.path_exists(CONTROLLER_PATH), "failed to kill controller")
    h.wait_until_controller_epoch(INITIAL_CONTROLLER_EPOCH,
                                  "controller epoch was not persisted after broker failure")


def test_controller_move_increments_controller_epoch(h: Harness) -> None:
    servers = h.make_servers(1)
    wait_until_true(_path_exists(h, CONTROLLER_PATH), "failed to elect a controller")
    h.wait_until_controller_epoch(INITIAL_CONTROLLER_EPOCH, "broker failed to set controller epoch")
    servers[0].shutdown()
    servers[0].await_shutdown()
    servers[0].startup()
    wait_until_true(_path_exists(h, CONTROLLER_PATH), "failed to elect a controller")
    h.wait_until_controller_epoch(INITIAL_CONTROLLER_EPOCH + 1,
                                  "controller epoch was not incremented after controller move")


def test_topic_creation(h: Harness) -> None:
    servers = h.make_servers(1)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [0]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, 0, INITIAL_LEADER_EPOCH,
                               "failed to get expected partition state upon topic creation")


def test_topic_creation_with_offline_replica(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    h.stop(other_broker_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [other_broker_id, controller_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers[:1])
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, controller_id, INITIAL_LEADER_EPOCH,
                               "failed to get expected partition state upon topic creation")


def test_topic_partition_expansion(h: Harness) -> None:
    servers = h.make_servers(1)
    tp0 = TopicPartition("t", 0)
    tp1 = TopicPartition("t", 1)
    assignment = {tp0.partition: [0]}
    expanded_assignment = {tp0.partition: [0], tp1.partition: [0]}
    create_topic(h.zk_utils, tp0.topic, assignment, servers)
    h.zk_utils.update_persistent_path(get_topic_path(tp0.topic), replica_assignment_zk_data(expanded_assignment))
    h.wait_for_partition_state(tp1, INITIAL_CONTROLLER_EPOCH, 0, INITIAL_LEADER_EPOCH,
                               "failed to get expected partition state upon topic partition expansion")
    wait_until_metadata_is_propagated(servers, tp1.topic, tp1.partition)


def test_topic_partition_expansion_with_offline_replica(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp0 = TopicPartition("t", 0)
    tp1 = TopicPartition("t", 1)
    assignment = {tp0.partition: [other_broker_id, controller_id]}
    expanded_assignment = {tp0.partition: [other_broker_id, controller_id],
                           tp1.partition: [other_broker_id, controller_id]}
    create_topic(h.zk_utils, tp0.topic, assignment, servers)
    h.stop(other_broker_id)
    h.zk_utils.update_persistent_path(get_topic_path(tp0.topic), replica_assignment_zk_data(expanded_assignment))
    h.wait_for_partition_state(tp1, INITIAL_CONTROLLER_EPOCH, controller_id, INITIAL_LEADER_EPOCH,
                               "failed to get expected partition state upon topic partition expansion")
    wait_until_metadata_is_propagated([servers[controller_id]], tp1.topic, tp1.partition)


def test_partition_reassignment(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [controller_id]}
    reassignment = {tp: [other_broker_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.zk_utils.create_persistent_path(REASSIGN_PARTITIONS_PATH, format_as_reassignment_json(reassignment))
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, other_broker_id, INITIAL_LEADER_EPOCH + 3,
                               "failed to get expected partition state after partition reassignment")
    wait_until_true(lambda: h.replica_assignment(tp.topic) == reassignment,
                    "failed to get updated partition assignment on topic znode after partition reassignment")
    wait_until_true(lambda: not h.zk_utils.path_exists(REASSIGN_PARTITIONS_PATH),
                    "failed to remove reassign partitions path after completion")


def test_partition_reassignment_with_offline_replica_halting_progress(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [controller_id]}
    reassignment = {tp: [other_broker_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.stop(other_broker_id)
    h.zk_utils.create_persistent_path(REASSIGN_PARTITIONS_PATH, format_as_reassignment_json(reassignment))
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, controller_id, INITIAL_LEADER_EPOCH + 1,
                               "failed to get expected partition state during partition reassignment with offline "
                               "replica")
    wait_until_true(_path_exists(h, REASSIGN_PARTITIONS_PATH),
                    "partition reassignment path should remain while reassignment in progress")


def test_partition_reassignment_resumes_after_replica_comes_online(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [controller_id]}
    reassignment = {tp: [other_broker_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.stop(other_broker_id)
    h.zk_utils.create_persistent_path(REASSIGN_PARTITIONS_PATH, format_as_reassignment_json(reassignment))
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, controller_id, INITIAL_LEADER_EPOCH + 1,
                               "failed to get expected partition state during partition reassignment with offline "
                               "replica")
    servers[other_broker_id].startup()
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, other_broker_id, INITIAL_LEADER_EPOCH + 4,
                               "failed to get expected partition state after partition reassignment")
    wait_until_true(lambda: h.replica_assignment(tp.topic) == reassignment,
                    "failed to get updated partition assignment on topic znode after partition reassignment")
    wait_until_true(lambda: not h.zk_utils.path_exists(REASSIGN_PARTITIONS_PATH),
                    "failed to remove reassign partitions path after completion")


def test_preferred_replica_leader_election(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [other_broker_id, controller_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.stop(other_broker_id)
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, controller_id, INITIAL_LEADER_EPOCH + 1,
                               "failed to get expected partition state upon broker shutdown")
    servers[other_broker_id].startup()

    def isr_is_assignment() -> bool:
        leader_and_isr = h.zk_utils.get_leader_and_isr_for_partition(tp.topic, tp.partition)
        return leader_and_isr is not None and set(leader_and_isr.isr) == set(assignment[tp.partition])

    wait_until_true(isr_is_assignment, "restarted broker failed to join in-sync replicas")
    h.zk_utils.create_persistent_path(PREFERRED_REPLICA_LEADER_ELECTION_PATH,
                                      preferred_replica_leader_election_zk_data({tp}))
    wait_until_true(lambda: not h.zk_utils.path_exists(PREFERRED_REPLICA_LEADER_ELECTION_PATH),
                    "failed to remove preferred replica leader election path after completion")
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, other_broker_id, INITIAL_LEADER_EPOCH + 2,
                               "failed to get expected partition state upon broker startup")


def test_preferred_replica_leader_election_with_offline_preferred_replica(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [other_broker_id, controller_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.stop(other_broker_id)
    h.zk_utils.create_persistent_path(PREFERRED_REPLICA_LEADER_ELECTION_PATH,
                                      preferred_replica_leader_election_zk_data({tp}))
    wait_until_true(lambda: not h.zk_utils.path_exists(PREFERRED_REPLICA_LEADER_ELECTION_PATH),
                    "failed to remove preferred replica leader election path after giving up")
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, controller_id, INITIAL_LEADER_EPOCH + 1,
                               "failed to get expected partition state upon broker shutdown")


def test_auto_preferred_replica_leader_election(h: Harness) -> None:
    servers = h.make_servers(2, auto_leader_rebalance_enable=True)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [1, 0]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.stop(other_broker_id)
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, controller_id, INITIAL_LEADER_EPOCH + 1,
                               "failed to get expected partition state upon broker shutdown")
    servers[other_broker_id].startup()
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, other_broker_id, INITIAL_LEADER_EPOCH + 2,
                               "failed to get expected partition state upon broker startup")


def test_leader_and_isr_when_entire_isr_offline_and_unclean_leader_election_disabled(h: Harness) -> None:
    servers = h.make_servers(2)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [other_broker_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, other_broker_id, INITIAL_LEADER_EPOCH,
                               "failed to get expected partition state upon topic creation")
    h.stop(other_broker_id)
    h.wait_for_partition_state_and_isr(tp, INITIAL_CONTROLLER_EPOCH, NO_LEADER, INITIAL_LEADER_EPOCH + 1,
                                       [other_broker_id],
                                       "failed to get expected partition state after entire isr went offline")


def test_leader_and_isr_when_entire_isr_offline_and_unclean_leader_election_enabled(h: Harness) -> None:
    servers = h.make_servers(2, unclean_leader_election_enable=True)
    controller_id = wait_until_controller_elected(h.zk_utils)
    other_broker_id = h.other_broker_id(controller_id)
    tp = TopicPartition("t", 0)
    assignment = {tp.partition: [other_broker_id]}
    create_topic(h.zk_utils, tp.topic, assignment, servers)
    h.wait_for_partition_state(tp, INITIAL_CONTROLLER_EPOCH, other_broker_id, INITIAL_LEADER_EPOCH,
                               "failed to get expected partition state upon topic creation")
    h.stop(1)
    h.wait_for_partition_state_and_isr(tp, INITIAL_CONTROLLER_EPOCH, NO_LEADER, INITIAL_LEADER_EPOCH + 1, [],
                                       "failed to get expected partition state after entire isr went offline")
