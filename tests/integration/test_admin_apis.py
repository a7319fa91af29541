"""Kafka 1.0.2's admin APIs on a ZooKeeper-mode cluster of real processes, two brokers with two log directories each:
CreatePartitions (the controller's AdminManager writes the grown assignment, the controller's partition-modifications
watch creates the partitions), CreateTopics validating configs, AlterConfigs (ZooKeeper and a change notification
every broker applies), DeleteRecords (the leader's log start offset, answered once the follower's has followed),
DescribeLogDirs and AlterReplicaLogDirs; with real clients (kafka-python's KafkaAdminClient, confluent-kafka) and,
for the bad input, raw requests whose error codes and messages are 1.0.2's. Then the kafka-edu commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import TopicPartition, TopicPartitionReplica
from kafka.admin import ConfigResource, KafkaAdminClient
from kafka.admin import NewTopic as KNewTopic
from kafka.errors import (
    InvalidConfigurationError,
    InvalidPartitionsError,
    InvalidReplicationAssignmentError,
    LogDirNotFoundError,
    NoError,
    OffsetOutOfRangeError,
    ReplicaNotAvailableError,
    UnknownTopicOrPartitionError,
)
from kazoo.client import KazooClient

from kafka_edu import cli
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v1_0_2.clients.common.security.scram.scram_credential_utils import credential_from_string
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import send_request, wait_until, zookeeper_client

TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    # `down` stops both brokers at once, so the last one's controlled shutdown finds no replica to move its
    # leaderships to and retries, as 1.0.2 does: a short backoff keeps those retries from taking 15 s.
    runner = ClusterRunner.up(2, tmp_path_factory.mktemp("admin") / "traces", timeout_s=120, log_dirs=2,
                              overrides=["default.replication.factor=2", "offsets.topic.replication.factor=2",
                                         "controlled.shutdown.retry.backoff.ms=200"])
    try:
        yield runner
    finally:
        runner.down()


@pytest.fixture(scope="module")
def bootstrap(cluster: ClusterRunner) -> str:
    return cluster.run.read_manifest()["bootstrap_servers"]


@pytest.fixture(scope="module")
def admin(bootstrap: str) -> Iterator[KafkaAdminClient]:
    client = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def zk(cluster: ClusterRunner) -> Iterator[KazooClient]:
    with zookeeper_client(cluster) as client:
        yield client


def log_dirs_of(cluster: ClusterRunner, broker_id: int) -> list[str]:
    return [str(cluster.run.path / f"broker-{broker_id}" / name) for name in ("logs", "logs-1")]


def send(cluster: ClusterRunner, broker_id: int, api: ApiKeys, version: int, **body: Any) -> Any:
    return send_request(cluster, broker_id, "admin-apis-test", api, version, **body)


def controller_id(zk: KazooClient) -> int:
    return json.loads(zk.get("/controller")[0])["brokerid"]


def leader_of(admin: KafkaAdminClient, topic: str, partition: int) -> int:
    partitions = admin.describe_topics([topic])[0]["partitions"]
    return next(p["leader_id"] for p in partitions if p["partition_index"] == partition)


def wait_for_leaders(admin: KafkaAdminClient, topic: str, count: int) -> list[dict[str, Any]]:
    def led() -> list[dict[str, Any]] | None:
        partitions = admin.describe_topics([topic])[0]["partitions"]
        return partitions if len(partitions) == count and all(p["leader_id"] >= 0 for p in partitions) else None

    return wait_until(led, 30, f"{count} led partitions of {topic}")  # type: ignore[return-value]


def produce(bootstrap: str, topic: str, values: list[bytes], partition: int = 0, key: bytes | None = None) -> list[int]:
    """acks=all: every offset returned is acknowledged by the whole ISR."""
    offsets: list[int] = []
    errors: list[KafkaError] = []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "message.timeout.ms": 30000})
    for value in values:
        producer.produce(topic, value, key=key, partition=partition,
                         on_delivery=lambda err, msg: errors.append(err) if err else offsets.append(msg.offset()))
    producer.flush(30)
    assert not errors and len(offsets) == len(values)
    return offsets


def consume_all(bootstrap: str, topic: str, partition: int, until_offset: int) -> list[tuple[int, bytes]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "admin-apis-test", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    consumer.assign([CTopicPartition(topic, partition, -2)])  # OFFSET_BEGINNING: the log start offset
    records: list[tuple[int, bytes]] = []
    try:
        def read_to_end() -> bool:
            msg = consumer.poll(1)
            if msg is not None and msg.error() is None:
                records.append((msg.offset(), msg.value()))
            return bool(records) and records[-1][0] >= until_offset - 1

        wait_until(read_to_end, 30, f"{topic}-{partition} read to {until_offset}")
    finally:
        consumer.close()
    return records


# -- CreatePartitions -----------------------------------------------------------------------------------------------


def test_create_partitions_grows_a_topic_through_the_controller(cluster: ClusterRunner, bootstrap: str,
                                                                admin: KafkaAdminClient, zk: KazooClient) -> None:
    admin.create_topics([KNewTopic("grow", 1, 2)])
    wait_for_leaders(admin, "grow", 1)
    acknowledged = produce(bootstrap, "grow", [b"v%d" % i for i in range(5)])

    admin.create_partitions({"grow": 3}, validate_only=True)
    assert sorted(json.loads(zk.get("/brokers/topics/grow")[0])["partitions"]) == ["0"]  # nothing written

    admin.create_partitions({"grow": 3}, timeout_ms=30000)
    assignment = json.loads(zk.get("/brokers/topics/grow")[0])["partitions"]
    assert sorted(assignment) == ["0", "1", "2"] and all(len(r) == 2 for r in assignment.values())
    partitions = wait_for_leaders(admin, "grow", 3)
    assert all(p["leader_id"] in p["replica_nodes"] and len(p["isr_nodes"]) == 2 for p in partitions)

    # a manual assignment for the new partitions
    admin.create_partitions({"grow": {"count": 4, "assignments": [[1, 0]]}}, timeout_ms=30000)
    assert json.loads(zk.get("/brokers/topics/grow")[0])["partitions"]["3"] == [1, 0]
    wait_for_leaders(admin, "grow", 4)

    # the records acknowledged before are all still there
    assert [offset for offset, _ in consume_all(bootstrap, "grow", 0, 5)] == acknowledged


def test_create_partitions_refuses_what_1_0_2_refuses(cluster: ClusterRunner, admin: KafkaAdminClient,
                                                      zk: KazooClient) -> None:
    admin.create_topics([KNewTopic("fixed", 2, 2)])
    wait_for_leaders(admin, "fixed", 2)
    with pytest.raises(InvalidPartitionsError):
        admin.create_partitions({"fixed": 1})  # a decrease
    with pytest.raises(InvalidPartitionsError):
        admin.create_partitions({"fixed": 2})  # no increase
    with pytest.raises(InvalidReplicationAssignmentError):
        admin.create_partitions({"fixed": {"count": 3, "assignments": [[0, 7]]}})  # broker 7 does not exist
    with pytest.raises(UnknownTopicOrPartitionError):
        admin.create_partitions({"no-such-topic": 3})
    assert sorted(json.loads(zk.get("/brokers/topics/fixed")[0])["partitions"]) == ["0", "1"]

    # the messages and the per-topic errors of one request, raw, on the controller
    response = send(cluster, controller_id(zk), ApiKeys.CREATE_PARTITIONS, 0, timeout=30000, validate_only=False,
                    topics=[dict(name="fixed", count=1, assignments=None),
                            dict(name="fixed-too", count=2, assignments=None),
                            dict(name="fixed-too", count=3, assignments=None),
                            dict(name="fixed", count=4, assignments=[dict(broker_ids=[0, 1])])])
    results = {r.name: (r.error_code, r.error_message) for r in response.results}
    assert results == {
        "fixed": (Errors.INVALID_REQUEST, "Duplicate topic in request."),
        "fixed-too": (Errors.INVALID_REQUEST, "Duplicate topic in request.")}
    response = send(cluster, controller_id(zk), ApiKeys.CREATE_PARTITIONS, 0, timeout=30000, validate_only=False,
                    topics=[dict(name="fixed", count=1, assignments=None)])
    assert [(r.error_code, r.error_message) for r in response.results] == [
        (Errors.INVALID_PARTITIONS, "Topic currently has 2 partitions, which is higher than the requested 1.")]
    response = send(cluster, controller_id(zk), ApiKeys.CREATE_PARTITIONS, 0, timeout=30000, validate_only=False,
                    topics=[dict(name="fixed", count=4, assignments=[dict(broker_ids=[0, 1])])])
    assert [(r.error_code, r.error_message) for r in response.results] == [
        (Errors.INVALID_REPLICA_ASSIGNMENT, "Increasing the number of partitions by 2 but 1 assignments provided.")]
    # a broker that is not the controller sends the client to the one that is
    other = 1 - controller_id(zk)
    response = send(cluster, other, ApiKeys.CREATE_PARTITIONS, 0, timeout=30000, validate_only=False,
                    topics=[dict(name="fixed", count=3, assignments=None)])
    assert [r.error_code for r in response.results] == [Errors.NOT_CONTROLLER]
    assert sorted(json.loads(zk.get("/brokers/topics/fixed")[0])["partitions"]) == ["0", "1"]


# -- CreateTopics: configs, replication factor, validate_only -------------------------------------------------------


def test_create_topics_validates_configs_as_1_0_2(cluster: ClusterRunner, bootstrap: str, admin: KafkaAdminClient,
                                                  zk: KazooClient) -> None:
    client = AdminClient({"bootstrap.servers": bootstrap})

    def create(topic: NewTopic, validate_only: bool = False) -> KafkaError | None:
        try:
            client.create_topics([topic], request_timeout=30, validate_only=validate_only)[topic.topic].result(30)
        except KafkaException as e:
            return e.args[0]
        return None

    # librdkafka's admin API: an unknown config name is INVALID_CONFIG, a bad value 1.0.2's UNKNOWN_SERVER_ERROR
    unknown = create(NewTopic("bad-name", 1, 1, config={"no.such.config": "1"}))
    assert unknown is not None and unknown.code() == KafkaError.INVALID_CONFIG
    bad_value = create(NewTopic("bad-value", 1, 1, config={"retention.ms": "soon"}))
    assert bad_value is not None and bad_value.code() == KafkaError.UNKNOWN
    assert "Invalid value soon for configuration retention.ms" in bad_value.str()
    too_many = create(NewTopic("too-many", 1, 3))
    assert too_many is not None and too_many.code() == KafkaError.INVALID_REPLICATION_FACTOR
    # validate_only: checked, answered NONE, nothing written
    assert create(NewTopic("checked", 2, 2, config={"cleanup.policy": "compact"}), validate_only=True) is None
    for topic in ("bad-name", "bad-value", "too-many", "checked"):
        assert zk.exists(f"/brokers/topics/{topic}") is None
        assert zk.exists(f"/config/topics/{topic}") is None
    # kafka-python sees the same code
    with pytest.raises(InvalidConfigurationError):
        admin.create_topics([KNewTopic("bad-name", 1, 1, topic_configs={"no.such.config": "1"})])
    # a good one is created with its config
    assert create(NewTopic("compacted", 1, 2, config={"cleanup.policy": "compact"})) is None
    assert json.loads(zk.get("/config/topics/compacted")[0])["config"] == {"cleanup.policy": "compact"}


# -- AlterConfigs ---------------------------------------------------------------------------------------------------


def test_alter_configs_replaces_a_topics_overrides_and_every_broker_applies_them(
        cluster: ClusterRunner, bootstrap: str, admin: KafkaAdminClient, zk: KazooClient) -> None:
    admin.create_topics([KNewTopic("altered", 1, 2, topic_configs={"retention.ms": "3600000"})])
    wait_for_leaders(admin, "altered", 1)
    produce(bootstrap, "altered", [b"x" * 2000])  # fits the default max.message.bytes
    admin.alter_configs([ConfigResource("TOPIC", "altered", configs={"max.message.bytes": "1000"})])
    stored = json.loads(zk.get("/config/topics/altered")[0])["config"]
    assert stored["max.message.bytes"] == "1000"
    notification = json.loads(zk.get("/config/changes/" + max(zk.get_children("/config/changes")))[0])
    assert notification["version"] == 2 and notification["entity_path"] == "topics/altered"

    # the leader applies the notification: a 2000-byte record is now refused
    def refused() -> bool:
        outcome: list[KafkaError | None] = []
        producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "retries": 0})
        producer.produce("altered", b"y" * 2000, on_delivery=lambda err, msg: outcome.append(err))
        producer.flush(30)
        return outcome[0] is not None and outcome[0].code() == KafkaError.MSG_SIZE_TOO_LARGE

    wait_until(refused, 30, "max.message.bytes applied by the leader")
    # kafka-python sent the override it kept (AlterConfigs replaces the whole set); DescribeConfigs reads both back
    configs = admin.describe_configs([ConfigResource("TOPIC", "altered")])["topic"]["altered"]
    assert {k: v["value"] for k, v in configs.items()} == {"max.message.bytes": "1000", "retention.ms": "3600000"}
    assert all(v["config_source"] == "DYNAMIC_TOPIC_CONFIG" for v in configs.values())
    # a raw AlterConfigs naming one config: the other override is gone
    response = send(cluster, 1, ApiKeys.ALTER_CONFIGS, 0, validate_only=False, resources=[dict(
        resource_type=TOPIC_RESOURCE, resource_name="altered", configs=[dict(name="retention.ms", value="7200000")])])
    assert [r.error_code for r in response.responses] == [Errors.NONE]
    assert json.loads(zk.get("/config/topics/altered")[0])["config"] == {"retention.ms": "7200000"}


def test_alter_configs_bad_input_gets_1_0_2_errors(cluster: ClusterRunner, admin: KafkaAdminClient,
                                                   zk: KazooClient) -> None:
    admin.create_topics([KNewTopic("config-target", 1, 2, topic_configs={"retention.ms": "3600000"})])
    before = zk.get("/config/topics/config-target")[0]

    def alter(resource_type: int, name: str, configs: dict[str, str], validate_only: bool = False) -> tuple[int, str]:
        response = send(cluster, 0, ApiKeys.ALTER_CONFIGS, 0, validate_only=validate_only, resources=[dict(
            resource_type=resource_type, resource_name=name,
            configs=[dict(name=k, value=v) for k, v in configs.items()])])
        (result,) = response.responses
        return result.error_code, result.error_message

    assert alter(TOPIC_RESOURCE, "config-target", {"no.such.config": "1"}) == (
        Errors.INVALID_CONFIG, "Unknown topic config name: no.such.config")
    code, message = alter(TOPIC_RESOURCE, "config-target", {"retention.ms": "soon"})
    assert code == Errors.INVALID_REQUEST and message.startswith(
        "Invalid config value for resource Resource(type=TOPIC, name='config-target'): Invalid value soon")
    assert alter(BROKER_RESOURCE, "0", {"log.retention.ms": "1"}) == (
        Errors.INVALID_REQUEST, "AlterConfigs is only supported for topics, but resource type is BROKER")
    assert alter(TOPIC_RESOURCE, "no-such-topic", {"retention.ms": "1"}) == (
        Errors.UNKNOWN_SERVER_ERROR, 'Topic "no-such-topic" does not exist.')
    assert alter(TOPIC_RESOURCE, "config-target", {"retention.ms": "1"}, validate_only=True) == (Errors.NONE, None)
    # nothing written by any of them
    assert zk.get("/config/topics/config-target")[0] == before
    # a resource type 1.0.2 cannot sort: the whole request refused
    assert alter(3, "group", {"x": "y"}) == (Errors.INVALID_REQUEST, "Unexpected resource type 3")


# -- DeleteRecords --------------------------------------------------------------------------------------------------


def test_delete_records_moves_the_log_start_offset_on_every_replica(cluster: ClusterRunner, bootstrap: str,
                                                                    admin: KafkaAdminClient) -> None:
    admin.create_topics([KNewTopic("trim", 1, 2)])
    wait_for_leaders(admin, "trim", 1)
    acknowledged = produce(bootstrap, "trim", [b"r%d" % i for i in range(10)])
    assert acknowledged == list(range(10))

    result = admin.delete_records({TopicPartition("trim", 0): 6}, timeout_ms=30000)
    # the answer waits for the low watermark: the follower's log start offset is 6 too
    assert result[TopicPartition("trim", 0)]["low_watermark"] == 6
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "trim-check"})
    try:
        assert consumer.get_watermark_offsets(CTopicPartition("trim", 0), timeout=30) == (6, 10)
    finally:
        consumer.close()
    # what is above the offset was not touched
    assert consume_all(bootstrap, "trim", 0, 10) == [(i, b"r%d" % i) for i in range(6, 10)]

    # -1: up to the high watermark
    result = admin.delete_records({TopicPartition("trim", 0): -1}, timeout_ms=30000)
    assert result[TopicPartition("trim", 0)]["low_watermark"] == 10
    with pytest.raises(OffsetOutOfRangeError):
        admin.delete_records({TopicPartition("trim", 0): 20})  # beyond the high watermark


def test_delete_records_bad_input_gets_1_0_2_errors(cluster: ClusterRunner, admin: KafkaAdminClient,
                                                    bootstrap: str) -> None:
    admin.create_topics([KNewTopic("kept", 1, 2, topic_configs={"cleanup.policy": "compact"})])
    wait_for_leaders(admin, "kept", 1)
    produce(bootstrap, "kept", [b"k"], key=b"key")  # compacted: a record needs a key
    leader = leader_of(admin, "kept", 0)
    response = send(cluster, leader, ApiKeys.DELETE_RECORDS, 0, timeout=30000, topics=[
        dict(name="kept", partitions=[dict(partition_index=0, offset=1)]),
        dict(name="no-such-topic", partitions=[dict(partition_index=0, offset=1)])])
    results = {(t.name, p.partition_index): (p.error_code, p.low_watermark) for t in response.topics
               for p in t.partitions}
    assert results == {("kept", 0): (Errors.POLICY_VIOLATION, -1),
                       ("no-such-topic", 0): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)}
    # on the follower: not the leader
    response = send(cluster, 1 - leader, ApiKeys.DELETE_RECORDS, 0, timeout=30000, topics=[
        dict(name="kept", partitions=[dict(partition_index=0, offset=-1)])])
    assert [p.error_code for t in response.topics for p in t.partitions] == [Errors.NOT_LEADER_OR_FOLLOWER]
    assert consume_all(bootstrap, "kept", 0, 1) == [(0, b"k")]


# -- DescribeLogDirs and AlterReplicaLogDirs ------------------------------------------------------------------------


def test_describe_log_dirs_lists_both_directories_of_each_broker(cluster: ClusterRunner, bootstrap: str,
                                                                 admin: KafkaAdminClient) -> None:
    admin.create_topics([KNewTopic("spread", 4, 2)])
    wait_for_leaders(admin, "spread", 4)
    for partition in range(4):
        produce(bootstrap, "spread", [b"s"], partition=partition)
    described = admin.describe_log_dirs(brokers=[0, 1])
    for info in described:
        by_dir = {d["log_dir"]: d for d in info["log_dirs"]}
        assert sorted(by_dir) == log_dirs_of(cluster, info["broker"])
        assert all(d["error_code"] == 0 for d in by_dir.values())
        spread = {(d["log_dir"], p["partition_index"]): p for d in by_dir.values() for t in d["topics"]
                  if t["name"] == "spread" for p in t["partitions"]}
        # every replica of the topic is in exactly one of the broker's directories, each log has its record
        assert sorted(p for _, p in spread) == [0, 1, 2, 3]
        assert all(p["partition_size"] > 0 and p["offset_lag"] == 0 and not p["is_future_key"]
                   for p in spread.values())
        assert {d for d, _ in spread} == set(by_dir)  # LogManager spreads new logs over both directories


def test_alter_replica_log_dirs_places_a_replica_not_yet_created(cluster: ClusterRunner, bootstrap: str,
                                                                 admin: KafkaAdminClient) -> None:
    logs, logs_1 = log_dirs_of(cluster, 0)
    result = admin.alter_replica_log_dirs({TopicPartitionReplica("placed", 0, 0): logs_1})
    assert result == {TopicPartitionReplica("placed", 0, 0): ReplicaNotAvailableError}
    client = AdminClient({"bootstrap.servers": bootstrap})
    client.create_topics([NewTopic("placed", 1, replica_assignment=[[0]])], request_timeout=30)["placed"].result(30)
    wait_until(lambda: (Path(logs_1) / "placed-0").is_dir(), 30, "placed-0 created in logs-1")
    assert not (Path(logs) / "placed-0").exists()
    # 1.0.2 does not move a replica that exists: NONE, and it stays. The log directory appears a moment before
    # LeaderAndIsr's handling registers the replica, and until then the answer is still REPLICA_NOT_AVAILABLE.
    wait_until(lambda: admin.alter_replica_log_dirs({TopicPartitionReplica("placed", 0, 0): logs})
               == {TopicPartitionReplica("placed", 0, 0): NoError}, 30, "NONE for the replica that exists")
    assert (Path(logs_1) / "placed-0").is_dir() and not (Path(logs) / "placed-0").exists()
    result = admin.alter_replica_log_dirs({TopicPartitionReplica("placed", 0, 0): "/no/such/dir"})
    assert result == {TopicPartitionReplica("placed", 0, 0): LogDirNotFoundError}


# -- the kafka-edu commands ------------------------------------------------------------------------------------------


def test_kafka_edu_admin_commands(cluster: ClusterRunner, bootstrap: str, admin: KafkaAdminClient, zk: KazooClient,
                                  tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = ["--run", str(cluster.run.path)]
    assert cli.main(["topics", "--create", "--topic", "cmd", "--partitions", "1", "--replication-factor", "2",
                     *run]) == 0
    wait_for_leaders(admin, "cmd", 1)
    assert cli.main(["topics", "--alter", "--topic", "cmd", "--partitions", "3", *run]) == 0
    assert "Adding partitions succeeded!" in capsys.readouterr().out
    assert sorted(json.loads(zk.get("/brokers/topics/cmd")[0])["partitions"]) == ["0", "1", "2"]
    assert cli.main(["topics", "--alter", "--topic", "cmd", "--partitions", "2", *run]) == 1  # a decrease
    assert "INVALID_PARTITIONS" in capsys.readouterr().out

    assert cli.main(["configs", "--alter", "--entity-type", "topics", "--entity-name", "cmd", "--add-config",
                     "retention.ms=60000,cleanup.policy=[compact,delete]", *run]) == 0
    assert "Completed Updating config for entity: topic 'cmd'." in capsys.readouterr().out
    assert json.loads(zk.get("/config/topics/cmd")[0])["config"] == {"retention.ms": "60000",
                                                                    "cleanup.policy": "compact,delete"}
    assert cli.main(["configs", "--alter", "--entity-type", "topics", "--entity-name", "cmd", "--delete-config",
                     "retention.ms", *run]) == 0
    capsys.readouterr()
    assert cli.main(["configs", "--describe", "--entity-type", "topics", "--entity-name", "cmd", *run]) == 0
    assert "Configs for topic 'cmd' are cleanup.policy=compact,delete" in capsys.readouterr().out
    assert cli.main(["configs", "--alter", "--entity-type", "topics", "--entity-name", "cmd", "--delete-config",
                     "retention.ms", *run]) == 1  # not set any more
    assert "Invalid config(s): retention.ms" in capsys.readouterr().out
    assert cli.main(["configs", "--alter", "--entity-type", "topics", "--entity-name", "cmd", "--add-config",
                     "no.such.config=1", *run]) == 1
    assert "Unknown topic config name: no.such.config" in capsys.readouterr().out
    assert json.loads(zk.get("/config/topics/cmd")[0])["config"] == {"cleanup.policy": "compact,delete"}
    # a user's SCRAM password is stored as a salted credential
    assert cli.main(["configs", "--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config",
                     "SCRAM-SHA-256=[iterations=8192,password=alice-secret]", *run]) == 0
    assert "Completed Updating config for entity: user-principal 'alice'." in capsys.readouterr().out
    stored = json.loads(zk.get("/config/users/alice")[0])["config"]["SCRAM-SHA-256"]
    assert "alice-secret" not in stored and credential_from_string(stored).iterations == 8192
    assert cli.main(["configs", "--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config",
                     "SCRAM-SHA-512=[iterations=100,password=x]", *run]) == 1
    assert "Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-512" in capsys.readouterr().out
    assert list(json.loads(zk.get("/config/users/alice")[0])["config"]) == ["SCRAM-SHA-256"]

    produce(bootstrap, "cmd", [b"c%d" % i for i in range(4)], key=b"key")  # compact,delete: keyed records
    offsets = tmp_path / "offsets.json"
    offsets.write_text(json.dumps({"version": 1, "partitions": [{"topic": "cmd", "partition": 0, "offset": 3}]}))
    assert cli.main(["delete-records", "--offset-json-file", str(offsets), *run]) == 0
    out = capsys.readouterr().out
    assert "Records delete operation completed:" in out and "partition: cmd-0\tlow_watermark: 3" in out
    offsets.write_text(json.dumps({"version": 1, "partitions": [{"topic": "cmd", "partition": 0, "offset": 99}]}))
    assert cli.main(["delete-records", "--offset-json-file", str(offsets), *run]) == 1
    assert "partition: cmd-0\terror: OFFSET_OUT_OF_RANGE" in capsys.readouterr().out

    assert cli.main(["log-dirs", "--describe", "--topic-list", "cmd", *run]) == 0
    out = capsys.readouterr().out
    assert "Received log directory information from brokers 0,1" in out
    described = json.loads(out.strip().splitlines()[-1])
    assert [b["broker"] for b in described["brokers"]] == [0, 1]
    for broker in described["brokers"]:
        assert sorted(d["logDir"] for d in broker["logDirs"]) == log_dirs_of(cluster, broker["broker"])
        assert all(d["error"] is None for d in broker["logDirs"])
        assert sorted(p["partition"] for d in broker["logDirs"] for p in d["partitions"]) == ["cmd-0", "cmd-1",
                                                                                             "cmd-2"]
