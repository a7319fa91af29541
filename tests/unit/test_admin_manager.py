"""Kafka 1.0.2's admin paths in-process: AdminManager (CreateTopics' config checks, CreatePartitions, AlterConfigs)
and AdminUtils.addPartitions over an in-memory ZooKeeper, LogConfig.validate, DeleteRecords on the leader
(ReplicaManager.deleteRecordsOnLocalLog, DelayedDeleteRecords), and LogManager's log directory choices."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v1_0_2.clients.common.errors import (
    BrokerNotAvailableException,
    InvalidConfigurationException,
    InvalidPartitionsException,
    InvalidReplicaAssignmentException,
    LogDirNotFoundException,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import LogManager
from kafka_edu.v1_0_2.core.server.admin_manager import TOPIC_RESOURCE, AdminManager, add_partitions
from kafka_edu.v1_0_2.core.server.broker_states import BrokerState
from kafka_edu.v1_0_2.core.server.delayed_delete_records import (
    DelayedDeleteRecords,
    DeleteRecordsPartitionResponse,
    DeleteRecordsPartitionStatus,
)
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.clients.common.protocol.errors import Errors


class FakeKazoo:
    """The part of kazoo's client AdminManager writes through: create, with sequential nodes."""

    def __init__(self, nodes: dict[str, str]) -> None:
        self.nodes = nodes
        self.sequence = 0

    def create(self, path: str, value: bytes = b"", sequence: bool = False, makepath: bool = False) -> str:
        if sequence:
            path, self.sequence = f"{path}{self.sequence:010d}", self.sequence + 1
        self.nodes[path] = value.decode()
        return path


class FakeZkUtils:
    """An in-memory ZooKeeper: znode path -> data."""

    def __init__(self, brokers: list[int], topics: dict[str, dict[int, list[int]]]) -> None:
        self.nodes: dict[str, str] = {f"/brokers/ids/{b}": "{}" for b in brokers}
        for topic, assignment in topics.items():
            self.nodes[f"/brokers/topics/{topic}"] = json.dumps(
                {"version": 1, "partitions": {str(p): r for p, r in assignment.items()}})
        self.zk_client = FakeKazoo(self.nodes)

    def path_exists(self, path: str) -> bool:
        return path in self.nodes

    def get_children(self, path: str) -> list[str]:
        return sorted({p[len(path) + 1:].split("/")[0] for p in self.nodes if p.startswith(path + "/")})

    def read_data_maybe_null(self, path: str) -> tuple[str | None, Any]:
        return self.nodes.get(path), None

    def update_persistent_path(self, path: str, data: str) -> None:
        self.nodes[path] = data

    def make_sure_persistent_path_exists(self, path: str) -> None:
        pass

    def get_sorted_broker_list(self) -> list[int]:
        return sorted(int(b) for b in self.get_children("/brokers/ids"))

    def fetch_entity_config(self, entity_type: str, entity_name: str) -> dict[str, str]:
        data = self.nodes.get(f"/config/{entity_type}/{entity_name}")
        return json.loads(data)["config"] if data else {}

    def assignment(self, topic: str) -> dict[int, list[int]]:
        return {int(p): r for p, r in json.loads(self.nodes[f"/brokers/topics/{topic}"])["partitions"].items()}


class FakeMetadataCache:
    def __init__(self, brokers: list[int]) -> None:
        self.brokers = brokers

    def get_alive_brokers(self) -> list[Any]:
        return [SimpleNamespace(id=b) for b in self.brokers]

    def get_partition_info(self, topic: str, partition: int) -> None:
        return None  # no leader yet: a delayed answer would wait


@pytest.fixture
def admin_manager() -> Any:
    zk = FakeZkUtils([0, 1, 2], {"grow": {0: [1, 2], 1: [2, 0]}, "compacted": {0: [0, 1]}})
    config = SimpleNamespace(broker_id=0, num_partitions=1, default_replication_factor=1)
    manager = AdminManager(config, FakeMetadataCache([0, 1, 2]), zk)
    yield manager
    manager.shutdown()


def answer(call: Any, *args: Any) -> dict[str, tuple[Errors, str | None]]:
    results: dict[str, tuple[Errors, str | None]] = {}
    call(*args, results.update)
    return results


# -- AdminUtils.addPartitions ---------------------------------------------------------------------------------------


def test_add_partitions_places_new_partitions_from_partition_0s_first_replica() -> None:
    zk = FakeZkUtils([0, 1, 2], {"grow": {0: [1, 2], 1: [2, 0]}})
    assignment = add_partitions(zk, "grow", zk.assignment("grow"), [0, 1, 2], 5)
    # rack-unaware placement with start index = broker 1's index, continuing at partition 2
    assert assignment == {0: [1, 2], 1: [2, 0], 2: [0, 2], 3: [1, 2], 4: [2, 0]}
    assert zk.assignment("grow") == assignment
    assert all(len(set(r)) == 2 for r in assignment.values())


def test_add_partitions_validate_only_writes_nothing_and_manual_assignments_are_checked() -> None:
    zk = FakeZkUtils([0, 1, 2], {"grow": {0: [1, 2]}})
    before = dict(zk.nodes)
    assert add_partitions(zk, "grow", {0: [1, 2]}, [0, 1, 2], 2, {1: [0, 1]}, validate_only=True) == {
        0: [1, 2], 1: [0, 1]}
    assert zk.nodes == before
    with pytest.raises(InvalidPartitionsException, match="can only be increased"):
        add_partitions(zk, "grow", {0: [1, 2]}, [0, 1, 2], 1)
    with pytest.raises(InvalidReplicaAssignmentException, match="Duplicate brokers not allowed"):
        add_partitions(zk, "grow", {0: [1, 2]}, [0, 1, 2], 2, {1: [0, 0]})
    with pytest.raises(BrokerNotAvailableException, match="Specified brokers: 0, 5, available brokers: 0, 1, 2."):
        add_partitions(zk, "grow", {0: [1, 2]}, [0, 1, 2], 2, {1: [0, 5]})
    with pytest.raises(InvalidReplicaAssignmentException, match=r"partition 0 has 2 while partitions \[1\] have "
                                                                r"replication factors \[3\], respectively."):
        add_partitions(zk, "grow", {0: [1, 2]}, [0, 1, 2], 2, {1: [0, 1, 2]})
    assert zk.nodes == before


# -- AdminManager.createPartitions ----------------------------------------------------------------------------------


def test_create_partitions_errors_are_1_0_2s(admin_manager: Any) -> None:
    zk = admin_manager.zk_utils
    results = answer(admin_manager.create_partitions, 30000, {
        "grow": (1, None), "compacted": (1, None), "missing": (3, None), "unknown-broker": (3, None)}, False)
    assert results["grow"] == (Errors.INVALID_PARTITIONS,
                               "Topic currently has 2 partitions, which is higher than the requested 1.")
    assert results["compacted"] == (Errors.INVALID_PARTITIONS, "Topic already has 1 partitions.")
    assert results["missing"] == (Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'missing' does not exist.")
    results = answer(admin_manager.create_partitions, 30000, {"grow": (4, [[0, 9], [1, 2]]),
                                                              "compacted": (3, [[0, 1]])}, False)
    assert results == {"grow": (Errors.INVALID_REPLICA_ASSIGNMENT, "Unknown broker(s) in replica assignment: 9."),
                       "compacted": (Errors.INVALID_REPLICA_ASSIGNMENT,
                                     "Increasing the number of partitions by 2 but 1 assignments provided.")}
    zk.nodes["/admin/reassign_partitions"] = "{}"
    assert answer(admin_manager.create_partitions, 30000, {"grow": (3, None)}, False) == {
        "grow": (Errors.REASSIGNMENT_IN_PROGRESS, "A partition reassignment is in progress.")}
    assert zk.assignment("grow") == {0: [1, 2], 1: [2, 0]}


def test_create_partitions_validate_only_and_no_wait(admin_manager: Any) -> None:
    zk = admin_manager.zk_utils
    assert answer(admin_manager.create_partitions, 30000, {"grow": (3, None)}, True) == {"grow": (Errors.NONE, None)}
    assert sorted(zk.assignment("grow")) == [0, 1]
    # timeout 0: written, but not waited for (REQUEST_TIMED_OUT, as in 1.0.2)
    assert answer(admin_manager.create_partitions, 0, {"grow": (3, [[0, 1]])}, False) == {
        "grow": (Errors.REQUEST_TIMED_OUT, None)}
    assert zk.assignment("grow")[2] == [0, 1]


# -- AdminManager.createTopics: configs -----------------------------------------------------------------------------


def test_create_topics_checks_config_names_then_values(admin_manager: Any) -> None:
    zk = admin_manager.zk_utils
    results = answer(admin_manager.create_topics, 30000, False, {
        "unknown-name": dict(num_partitions=1, replication_factor=1, configs={"no.such": "1"}),
        "bad-value": dict(num_partitions=1, replication_factor=1, configs={"min.insync.replicas": "0"}),
        "dup-replica": dict(num_partitions=-1, replication_factor=-1, assignments={0: [1, 1]}),
        "uneven": dict(num_partitions=-1, replication_factor=-1, assignments={0: [1, 2], 1: [0]}),
        "too-many": dict(num_partitions=1, replication_factor=4)})
    assert results["unknown-name"] == (Errors.INVALID_CONFIG, "Unknown topic config name: no.such")
    assert results["bad-value"] == (Errors.UNKNOWN_SERVER_ERROR,
                                    "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1")
    assert results["dup-replica"][0] == Errors.INVALID_REPLICA_ASSIGNMENT
    assert results["uneven"] == (Errors.INVALID_REPLICA_ASSIGNMENT,
                                 "All partitions should have the same number of replicas")
    assert results["too-many"] == (Errors.INVALID_REPLICATION_FACTOR,
                                   "Replication factor: 4 larger than available brokers: 3.")
    assert not any(t in zk.get_children("/brokers/topics") for t in results)
    assert zk.get_children("/config/topics") == []


def test_log_config_validate() -> None:
    LogConfig.validate({"cleanup.policy": "compact,delete", "retention.ms": "-1", "preallocate": "true",
                        "message.format.version": "0.11.0-IV2", "min.cleanable.dirty.ratio": "0.1",
                        "leader.replication.throttled.replicas": "0:1,1:2"})
    with pytest.raises(InvalidConfigurationException, match="Unknown topic config name: nope"):
        LogConfig.validate({"retention.ms": "soon", "nope": "1"})  # names are checked first
    for props, message in [({"segment.bytes": "13"}, "Value must be at least 14"),
                           ({"cleanup.policy": "compact,sometimes"}, "String must be one of: compact, delete"),
                           ({"compression.type": "zstd"}, "String must be one of"),  # zstd came in 2.1
                           ({"unclean.leader.election.enable": "yes"}, "Expected value to be either true or false"),
                           ({"max.message.bytes": "2147483648"}, "Not a number of type INT"),
                           ({"message.format.version": "2.0"}, "Version `2.0` is not a valid version")]:
        with pytest.raises(ConfigException, match=message):
            LogConfig.validate(props)


# -- AdminManager.alterConfigs --------------------------------------------------------------------------------------


def test_alter_configs_replaces_the_overrides_or_refuses(admin_manager: Any) -> None:
    zk = admin_manager.zk_utils
    zk.nodes["/config/topics/grow"] = json.dumps({"version": 1, "config": {"retention.ms": "1000"}})
    assert admin_manager.alter_configs([(TOPIC_RESOURCE, "grow", {"segment.ms": "60000"})], True) == [
        (TOPIC_RESOURCE, "grow", Errors.NONE, None)]
    assert zk.fetch_entity_config("topics", "grow") == {"retention.ms": "1000"}  # validate only
    results = admin_manager.alter_configs([(TOPIC_RESOURCE, "grow", {"segment.ms": "60000"}),
                                           (TOPIC_RESOURCE, "grow", {"segment.ms": "never"}),
                                           (4, "0", {"segment.ms": "1"}),
                                           (TOPIC_RESOURCE, "missing", {"segment.ms": "1"})], False)
    assert [r[2] for r in results] == [Errors.NONE, Errors.INVALID_REQUEST, Errors.INVALID_REQUEST,
                                       Errors.UNKNOWN_SERVER_ERROR]
    assert results[1][3].startswith("Invalid config value for resource Resource(type=TOPIC, name='grow'): ")
    assert zk.fetch_entity_config("topics", "grow") == {"segment.ms": "60000"}
    (change,) = [p for p in zk.nodes if p.startswith("/config/changes/config_change_")]
    assert json.loads(zk.nodes[change])["entity_path"] == "topics/grow"


# -- DeleteRecords on the leader ------------------------------------------------------------------------------------


class StubLeader:
    """A partition led here whose leader deletes up to its high watermark and reports a low watermark."""

    def __init__(self, high_watermark: int, follower_start: int) -> None:
        self.high_watermark = high_watermark
        self.follower_start = follower_start
        self.deleted_to: int | None = None

    def leader_replica_if_local(self) -> Any:
        return SimpleNamespace(high_watermark=self.high_watermark)

    def delete_records_on_leader(self, offset: int) -> int:
        self.deleted_to = offset
        return min(offset, self.follower_start)

    def low_watermark_if_leader(self) -> int:
        return min(self.deleted_to or 0, self.follower_start)


def test_delete_records_on_local_log(tmp_path: Path) -> None:
    leader = StubLeader(high_watermark=10, follower_start=0)
    rm = SimpleNamespace(local_broker_id=0, get_partition={TopicPartition("t", 0): leader}.get)
    results = ReplicaManager.delete_records_on_local_log(rm, {
        TopicPartition("t", 0): -1, TopicPartition("__consumer_offsets", 0): 1, TopicPartition("gone", 0): 1})
    assert (results[TopicPartition("t", 0)].requested_offset, leader.deleted_to) == (10, 10)  # -1: the HW
    assert results[TopicPartition("__consumer_offsets", 0)].error == Errors.INVALID_TOPIC_EXCEPTION
    assert results[TopicPartition("gone", 0)].error == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert ReplicaManager.delayed_delete_records_required(results)  # the follower still starts at 0
    negative = ReplicaManager.delete_records_on_local_log(rm, {TopicPartition("t", 0): -5})
    assert negative[TopicPartition("t", 0)].error == Errors.OFFSET_OUT_OF_RANGE


def test_delayed_delete_records_waits_for_the_low_watermark() -> None:
    leader = StubLeader(high_watermark=10, follower_start=0)
    leader.deleted_to = 6
    partitions = {TopicPartition("t", 0): leader}
    rm = SimpleNamespace(get_partition=partitions.get)
    answered: list[dict[TopicPartition, DeleteRecordsPartitionResponse]] = []
    status = {TopicPartition("t", 0): DeleteRecordsPartitionStatus(6, DeleteRecordsPartitionResponse(0, Errors.NONE)),
              TopicPartition("x", 0): DeleteRecordsPartitionStatus(-1, DeleteRecordsPartitionResponse(
                  -1, Errors.POLICY_VIOLATION))}
    delayed = DelayedDeleteRecords(30000, status, rm, answered.append)  # type: ignore[arg-type]
    assert not delayed.try_complete() and not answered
    leader.follower_start = 6  # the follower's next fetch reported its new log start offset
    assert delayed.try_complete()
    assert answered == [{TopicPartition("t", 0): DeleteRecordsPartitionResponse(6, Errors.NONE),
                         TopicPartition("x", 0): DeleteRecordsPartitionResponse(-1, Errors.POLICY_VIOLATION)}]


def test_delayed_delete_records_times_out_with_request_timed_out() -> None:
    leader = StubLeader(high_watermark=10, follower_start=0)
    answered: list[dict[TopicPartition, DeleteRecordsPartitionResponse]] = []
    status = {TopicPartition("t", 0): DeleteRecordsPartitionStatus(6, DeleteRecordsPartitionResponse(0, Errors.NONE))}
    delayed = DelayedDeleteRecords(1, status, SimpleNamespace(get_partition={TopicPartition("t", 0): leader}.get),
                                   answered.append)  # type: ignore[arg-type]
    delayed.run()  # the purgatory's timer
    assert answered == [{TopicPartition("t", 0): DeleteRecordsPartitionResponse(0, Errors.REQUEST_TIMED_OUT)}]


# -- LogManager: preferred log dir ----------------------------------------------------------------------------------


def test_a_preferred_log_dir_is_used_once_and_an_unknown_dir_is_not_found(tmp_path: Path) -> None:
    dirs = [tmp_path / "a", tmp_path / "b"]
    manager = LogManager(dirs, [], {}, LogConfig(), 1, 1000, 1000, 1000, 1000, None,  # type: ignore[arg-type]
                         BrokerState(), LogDirFailureChannel(2))
    try:
        manager.update_preferred_log_dir(("t", 0), dirs[1])
        manager.update_preferred_log_dir(("t", 1), dirs[1])
        for partition in range(3):
            manager.get_or_create_log(("t", partition), LogConfig())
        assert Path(manager.get_log(("t", 0)).dir).parent == dirs[1]
        assert Path(manager.get_log(("t", 1)).dir).parent == dirs[1]
        assert Path(manager.get_log(("t", 2)).dir).parent == dirs[0]  # the least loaded one
        assert manager.preferred_log_dirs == {}
        assert manager.is_log_dir_online(str(dirs[0]))
        with pytest.raises(LogDirNotFoundException, match="is not found in the config"):
            manager.is_log_dir_online(str(tmp_path / "c"))
    finally:
        for lg in manager.all_logs():
            lg.close()
        for lock in manager.dir_locks:
            lock.destroy()
