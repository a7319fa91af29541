"""Moving a replica between the log dirs of one KRaft broker (Kafka 3.9's AlterReplicaLogDirs, JBOD), on real
processes: a broker with two log dirs, records produced with confluent-kafka, AlterReplicaLogDirs sent raw to move
partition 0 to the other dir; the ReplicaAlterLogDirsThread copies it into a future log and swaps it in, after which
DescribeLogDirs shows the partition in its new dir and a consumer reads every record back. Bad input gets 3.9's
answers: a path that is not a log dir LOG_DIR_NOT_FOUND, a partition the cluster does not have
UNKNOWN_TOPIC_OR_PARTITION.

The same move through `kafka-edu reassign-partitions` (Kafka 3.9's kafka-reassign-partitions.sh with `log_dirs` in
its JSON): --execute starts it (AlterReplicaLogDirs after the partition reassignment), --verify follows it (the
current and the future log in DescribeLogDirs) until it reports the replica's reassignment completed; a dir the
broker has not got fails the command with LOG_DIR_NOT_FOUND's message as the cause."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as ConfluentTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu import cli
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until

RECORDS = 200

# One controller (node 1), then broker 2 with two log dirs.
BROKER = 2


@pytest.fixture(scope="module")
def log_dirs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    base = tmp_path_factory.mktemp("alter-log-dirs-data")
    return [str((base / "dir-a").absolute()), str((base / "dir-b").absolute())]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, log_dirs: list[str]) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path_factory.mktemp("alter-log-dirs") / "traces", mode="kraft", controllers=1,
                              timeout_s=120, overrides=["offsets.topic.replication.factor=1",
                                                        "transaction.state.log.replication.factor=1",
                                                        "transaction.state.log.min.isr=1",
                                                        f"broker:log.dirs={','.join(log_dirs)}"])
    try:
        yield runner
    finally:
        runner.down()


@pytest.fixture(scope="module")
def bootstrap(cluster: ClusterRunner) -> str:
    return cluster.run.read_manifest()["bootstrap_servers"]


@pytest.fixture(scope="module")
def port(cluster: ClusterRunner) -> int:
    return int(cluster.broker_entry(BROKER)["port"])


def new_topic(bootstrap: str) -> str:
    topic = f"moved-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    wait_until(lambda: topic in admin.list_topics(timeout=5).topics
               and not admin.list_topics(timeout=5).topics[topic].error, 30, f"{topic} in the metadata")
    return topic


def describe_log_dirs(port: int, topic: str) -> dict[str, list[Any]]:
    """DescribeLogDirs v4 for the topic's partition 0: each log dir and what it holds of it."""
    response = request_to(port, ApiKeys.DESCRIBE_LOG_DIRS, 4, topics=[{"topic": topic, "partitions": [0]}])
    assert response.error_code == Errors.NONE
    held: dict[str, list[Any]] = {}
    for result in response.results:
        assert result.error_code == Errors.NONE
        held[result.log_dir] = [p for t in result.topics if t.name == topic for p in t.partitions]
    return held


def alter_replica_log_dirs(port: int, path: str, topic: str, partition: int) -> Errors:
    """AlterReplicaLogDirs v2 for one partition: its error."""
    response = request_to(port, ApiKeys.ALTER_REPLICA_LOG_DIRS, 2,
                          dirs=[{"path": path, "topics": [{"name": topic, "partitions": [partition]}]}])
    ((topic_result,),) = [response.results]
    assert topic_result.topic_name == topic
    (partition_result,) = topic_result.partitions
    assert partition_result.partition_index == partition
    return Errors.for_code(int(partition_result.error_code))


def produce(bootstrap: str, topic: str) -> list[bytes]:
    values = [f"record-{i}".encode() for i in range(RECORDS)]
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    for value in values:
        producer.produce(topic, value, partition=0)
    assert producer.flush(30) == 0
    return values


def consume(bootstrap: str, topic: str, expected: int) -> list[bytes]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False})
    try:
        consumer.assign([ConfluentTopicPartition(topic, 0, 0)])
        values: list[bytes] = []
        wait_until(lambda: values.extend(m.value() for m in consumer.consume(100, 1) if not m.error())
                   or len(values) >= expected, 30, f"{expected} records")
        return values
    finally:
        consumer.close()


def test_a_replica_moves_to_the_other_log_dir_and_keeps_every_record(bootstrap: str, port: int,
                                                                       log_dirs: list[str]) -> None:
    topic = new_topic(bootstrap)
    values = produce(bootstrap, topic)

    # the partition lives in one of the two dirs
    held = describe_log_dirs(port, topic)
    assert sorted(held) == sorted(log_dirs)
    (source,) = [d for d, partitions in held.items() if partitions]
    (destination,) = [d for d in log_dirs if d != source]
    assert [p.is_future_key for p in held[source]] == [False]

    assert alter_replica_log_dirs(port, destination, topic, 0) == Errors.NONE

    # the future log fills and replaces the current one: then the partition is in the destination only
    def moved() -> bool:
        now = describe_log_dirs(port, topic)
        return not now[source] and [p.is_future_key for p in now[destination]] == [False]
    wait_until(moved, 60, f"{topic}-0 in {destination}")
    (moved_partition,) = describe_log_dirs(port, topic)[destination]
    assert moved_partition.partition_size > 0
    assert not list(Path(source).glob(f"{topic}-0*-future"))

    # every record is there, in order
    assert consume(bootstrap, topic, RECORDS) == values

    # the broker goes on writing to the moved log
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    producer.produce(topic, b"after-the-move", partition=0)
    assert producer.flush(30) == 0
    assert consume(bootstrap, topic, RECORDS + 1) == [*values, b"after-the-move"]


def test_a_path_that_is_not_a_log_dir_is_log_dir_not_found(bootstrap: str, port: int, tmp_path: Path) -> None:
    topic = new_topic(bootstrap)
    assert alter_replica_log_dirs(port, str(tmp_path.absolute()), topic, 0) == Errors.LOG_DIR_NOT_FOUND


def test_a_partition_the_cluster_does_not_have_is_unknown_topic_or_partition(bootstrap: str, port: int,
                                                                             log_dirs: list[str]) -> None:
    # ReplicaManager.alterReplicaLogDirs: getPartitionOrException throws UnknownTopicOrPartitionException for a
    # partition the metadata does not know, answered by the catch-all as its own error code
    topic = new_topic(bootstrap)
    assert alter_replica_log_dirs(port, log_dirs[0], topic, 7) == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert alter_replica_log_dirs(port, log_dirs[1], f"no-such-{topic}", 0) == Errors.UNKNOWN_TOPIC_OR_PARTITION

def new_topic_with_records(bootstrap: str) -> str:
    topic = new_topic(bootstrap)
    produce(bootstrap, topic)
    return topic


def plan(tmp_path: Path, topic: str, log_dir: str) -> str:
    path = tmp_path / f"{topic}.json"
    path.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [BROKER], "log_dirs": [log_dir]}]}))
    return str(path)


def test_execute_moves_the_replica_to_the_named_log_dir_and_verify_follows_it(
        bootstrap: str, port: int, log_dirs: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topic = new_topic_with_records(bootstrap)
    held = describe_log_dirs(port, topic)
    (source,) = [d for d, partitions in held.items() if partitions]
    (destination,) = [d for d in log_dirs if d != source]
    move = plan(tmp_path, topic, destination)
    common = ["--reassignment-json-file", move, "--bootstrap-server", bootstrap]

    assert cli.main(["reassign-partitions", "--execute", *common]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Current partition replica assignment",
        "",
        f'{{"version":1,"partitions":[{{"topic":"{topic}","partition":0,"replicas":[{BROKER}],"log_dirs":["any"]}}]}}',
        "",
        "Save this to use as the --reassignment-json-file option during rollback",
        f"Successfully started partition reassignment for {topic}-0",
        f"Successfully started moving log directory to {destination} for replica {topic}-0 with broker {BROKER} ",
    ]

    said: list[str] = []

    def verified() -> bool:
        assert cli.main(["reassign-partitions", "--verify", *common]) == 0
        said[:] = capsys.readouterr().out.splitlines()
        return f"Reassignment of replica {topic}-0-{BROKER} completed successfully." in said
    wait_until(verified, 60, "--verify says the replica's move completed")
    assert said == ["Status of partition reassignment:",
                    f"Reassignment of partition {topic}-0 is completed.",
                    f"Reassignment of replica {topic}-0-{BROKER} completed successfully."]

    # the partition is in the destination now, as its current log, and nowhere else
    held = describe_log_dirs(port, topic)
    assert held[source] == []
    assert [(p.partition_index, p.is_future_key) for p in held[destination]] == [(0, False)]
    assert held[destination][0].partition_size > 0

    # the same plan again: the replica is where it is asked to be, and --verify says so at once
    assert cli.main(["reassign-partitions", "--execute", *common]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"Successfully started moving log directory to {destination} for replica {topic}-0 with broker {BROKER} ")
    assert cli.main(["reassign-partitions", "--verify", *common]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"Reassignment of replica {topic}-0-{BROKER} completed successfully.")


def test_a_log_dir_the_broker_has_not_got_fails_with_log_dir_not_found(
        bootstrap: str, port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topic = new_topic_with_records(bootstrap)
    before = describe_log_dirs(port, topic)
    elsewhere = str((tmp_path / "not-a-log-dir").absolute())
    move = plan(tmp_path, topic, elsewhere)

    assert cli.main(["reassign-partitions", "--execute", "--reassignment-json-file", move,
                     "--bootstrap-server", bootstrap]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    # 3.9: the partition reassignment is started, then AlterReplicaLogDirs fails; main prints "Error: " and the
    # message, then the stack trace, whose cause is the broker's LOG_DIR_NOT_FOUND
    assert lines[5:7] == [f"Successfully started partition reassignment for {topic}-0",
                          f"Error: Failed to alter dir for {topic}-0-{BROKER}"]
    assert "LogDirNotFoundError" in out
    assert "The user-specified log directory is not found in the broker config." in out
    assert describe_log_dirs(port, topic) == before  # nothing moved
