"""`kafka-edu reassign-partitions` moving a replica between the log dirs of a KRaft broker (Kafka 3.9's
kafka-reassign-partitions.sh with `log_dirs` in its JSON), on real processes: a broker with two log dirs, a partition
with records in one of them; --execute with a JSON that names the other dir starts the move (AlterReplicaLogDirs
after the partition reassignment), --verify follows it (DescribeLogDirs: the current and the future log) until it
reports the replica's reassignment completed, and DescribeLogDirs then shows the partition in its new dir. A dir the
broker has not got fails the command with LOG_DIR_NOT_FOUND's message as the cause."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
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
    base = tmp_path_factory.mktemp("reassign-log-dirs-data")
    return [str((base / "dir-a").absolute()), str((base / "dir-b").absolute())]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, log_dirs: list[str]) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path_factory.mktemp("reassign-log-dirs") / "traces", mode="kraft",
                              controllers=1, timeout_s=120,
                              overrides=["offsets.topic.replication.factor=1",
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


def new_topic_with_records(bootstrap: str) -> str:
    topic = f"tool-moved-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    wait_until(lambda: topic in admin.list_topics(timeout=5).topics
               and not admin.list_topics(timeout=5).topics[topic].error, 30, f"{topic} in the metadata")
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    for i in range(RECORDS):
        producer.produce(topic, f"record-{i}".encode(), partition=0)
    assert producer.flush(30) == 0
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
