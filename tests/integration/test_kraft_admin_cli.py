"""Our own test code, not a Kafka port: `kafka-edu topics` and `kafka-edu consumer-groups` against a KRaft run (one
controller, two brokers; the bootstrap servers found in the run's manifest), and the ZooKeeper-bound admin tools
saying why they cannot act on one. Each command runs as a user runs it: a process, its output and exit code."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from kafka_edu.cluster_runner.runner import ClusterRunner
from tests.integration.helpers import REPO, wait_until

OVERRIDES = ["offsets.topic.replication.factor=2", "offsets.topic.num.partitions=2", "default.replication.factor=2"]
BROKERS = {2, 3}  # node ids after the one controller's
ROW = re.compile(r"│ (\S+) +│ (\d+) +│ (-?\d+) +│ ([\d,]+) +│ ([\d,]*) +│")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path_factory.mktemp("kraft-admin") / "traces", mode="kraft", controllers=1,
                              timeout_s=90, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def kafka_edu(runner: ClusterRunner, *args: str) -> subprocess.CompletedProcess[str]:
    """The command as a user types it, with no --bootstrap-server: it finds the brokers in the run's manifest."""
    return subprocess.run([sys.executable, "-m", "kafka_edu.cli", *args, "--run", str(runner.run.path)],
                          capture_output=True, text=True, timeout=120, cwd=REPO)


def listed(runner: ClusterRunner) -> list[str]:
    done = kafka_edu(runner, "topics", "--list")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.split()


def described(runner: ClusterRunner, topic: str) -> list[tuple[str, int, int, list[int], list[int]]]:
    done = kafka_edu(runner, "topics", "--describe", "--topic", topic)
    assert done.returncode == 0, done.stdout + done.stderr
    return [(m[1], int(m[2]), int(m[3]), [int(r) for r in m[4].split(",")], [int(r) for r in m[5].split(",") if r])
            for m in ROW.finditer(done.stdout)]


def test_the_run_is_a_kraft_run_whose_bootstrap_servers_are_its_brokers(cluster: ClusterRunner) -> None:
    manifest = cluster.run.read_manifest()
    assert manifest["mode"] == "kraft" and manifest["zookeeper_connect"] is None
    ports = {p["port"] for p in manifest["processes"] if p["role"] == "broker"}
    assert {int(a.rsplit(":", 1)[1]) for a in manifest["bootstrap_servers"].split(",")} == ports
    assert {p["id"] for p in manifest["processes"] if p["role"] == "broker"} == BROKERS


def test_topics_create_list_describe_delete(cluster: ClusterRunner) -> None:
    done = kafka_edu(cluster, "topics", "--create", "--topic", "orders", "--partitions", "3",
                     "--replication-factor", "2")
    assert done.returncode == 0 and 'Created topic "orders".' in done.stdout, done.stdout + done.stderr

    # CreateTopics is answered once the controller has committed it; the brokers serve it once they have replayed it.
    wait_until(lambda: "orders" in listed(cluster), 30, "orders in --list")
    rows = wait_until(lambda: (rows := described(cluster, "orders")) and all(r[2] in BROKERS for r in rows) and rows,
                      30, "every partition of orders led by a broker")
    assert [r[1] for r in rows] == [0, 1, 2]
    for _topic, _partition, leader, replicas, isr in rows:
        assert set(replicas) == BROKERS and leader in replicas and set(isr) <= BROKERS and leader in isr

    again = kafka_edu(cluster, "topics", "--create", "--topic", "orders", "--partitions", "3",
                      "--replication-factor", "2")
    assert again.returncode == 1 and "TOPIC_ALREADY_EXISTS" in again.stdout + again.stderr

    too_many = kafka_edu(cluster, "topics", "--create", "--topic", "wide", "--replication-factor", "3")
    assert too_many.returncode == 1 and "INVALID_REPLICATION_FACTOR" in too_many.stdout + too_many.stderr

    done = kafka_edu(cluster, "topics", "--delete", "--topic", "orders")
    assert done.returncode == 0 and "Topic orders is marked for deletion." in done.stdout, done.stdout + done.stderr
    wait_until(lambda: "orders" not in listed(cluster), 30, "orders gone from --list")
    # Describing a topic that is not there lists nothing (as 1.0.2's), and does not create it on the way.
    assert described(cluster, "orders") == []
    assert "orders" not in listed(cluster)
    missing = kafka_edu(cluster, "topics", "--delete", "--topic", "orders")
    assert missing.returncode == 1 and "UNKNOWN_TOPIC_OR_PART" in missing.stdout + missing.stderr


def test_consumer_groups_list_and_describe(cluster: ClusterRunner) -> None:
    bootstrap = cluster.run.read_manifest()["bootstrap_servers"]
    done = kafka_edu(cluster, "topics", "--create", "--topic", "events", "--partitions", "2",
                     "--replication-factor", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    wait_until(lambda: "events" in listed(cluster), 30, "events in --list")
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(20):
        producer.produce("events", key=str(i).encode(), value=f"event-{i}".encode())
    assert producer.flush(30) == 0

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "readers", "auto.offset.reset": "earliest",
                         "enable.auto.commit": False})
    try:
        consumer.subscribe(["events"])
        received: list[object] = []

        def read_one() -> bool:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                received.append(message)
            return len(received) == 20

        wait_until(read_one, 60, "the group to read the 20 records")
        consumer.commit(asynchronous=False)

        done = kafka_edu(cluster, "consumer-groups", "--list")
        assert done.returncode == 0 and "readers" in done.stdout.split(), done.stdout + done.stderr
        done = kafka_edu(cluster, "consumer-groups", "--describe", "readers")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Consumer group 'readers' (STABLE)" in done.stdout
        rows = [line.split("│")[1:-1] for line in done.stdout.splitlines() if line.startswith("│ readers")]
        cells = [[cell.strip() for cell in row] for row in rows]
        assert sorted(int(c[2]) for c in cells) == [0, 1] and all(c[1] == "events" for c in cells)
        assert sum(int(c[3]) for c in cells) == 20 and all(c[3] == c[4] and c[5] == "0" for c in cells)
        assert all(c[6] != "-" for c in cells)  # the member that owns the partition
    finally:
        consumer.close()


def test_the_zookeeper_tools_say_why_they_cannot_act_on_a_kraft_run(cluster: ClusterRunner, tmp_path: Path) -> None:
    # (reassign-partitions on a KRaft run is Kafka 3.9's tool: tests/integration/test_kraft_partitions_admin.py)
    done = kafka_edu(cluster, "preferred-replica-election")
    said = " ".join(done.stdout.split())
    assert done.returncode == 2, said
    assert f"run {cluster.run.run_id} is a KRaft cluster, which has no ZooKeeper" in said
    assert "ElectLeaders" in said and "kafka-edu leader-election" in said and "Traceback" not in done.stderr


def test_a_run_of_controllers_only_has_no_brokers_to_ask(cluster: ClusterRunner, tmp_path: Path) -> None:
    run_dir = tmp_path / "controllers-only"
    run_dir.mkdir()
    manifest = {**cluster.run.read_manifest(), "run_id": "controllers-only", "bootstrap_servers": "",
                "run_dir": str(run_dir)}
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    for args in (["topics", "--list"], ["consumer-groups", "--list"]):
        done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", *args, "--run", str(run_dir)],
                              capture_output=True, text=True, timeout=60, cwd=REPO)
        assert done.returncode == 2 and "has no brokers to ask" in done.stdout, done.stdout + done.stderr


def test_metadata_quorum_through_a_broker_matches_the_controllers_answer(cluster: ClusterRunner) -> None:
    """3.9's brokers forward DescribeQuorum to the active controller, so `--bootstrap-server` reports the same quorum
    as `--bootstrap-controller`."""
    manifest = cluster.run.read_manifest()

    def status(*connection: str) -> dict[str, str]:
        done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "metadata-quorum", *connection, "describe",
                               "--status"], capture_output=True, text=True, timeout=60, cwd=REPO)
        assert done.returncode == 0, done.stdout + done.stderr
        fields = dict(line.split(":", 1) for line in done.stdout.splitlines() if ":" in line)
        return {key.strip(): value.strip() for key, value in fields.items()}

    through_broker = status("--bootstrap-server", manifest["bootstrap_servers"])
    direct = status("--bootstrap-controller", manifest["bootstrap_controllers"])
    assert through_broker["ClusterId"] == direct["ClusterId"] == manifest["cluster_id"]
    assert (through_broker["LeaderId"], through_broker["LeaderEpoch"]) == (direct["LeaderId"], direct["LeaderEpoch"])
    assert through_broker["LeaderId"] == "1"  # the one controller


def test_kafka_python_deletes_a_topic_by_name_with_delete_topics_v6(cluster: ClusterRunner) -> None:
    """DeleteTopics v6 names each topic and sends the zero topic id beside it (the decoder reads that id as None):
    a topic named so is deleted, not refused with "You may not specify both topic name and topic id."."""
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=cluster.run.read_manifest()["bootstrap_servers"])
    try:
        admin.create_topics([NewTopic("kp-deleted", 1, 2)])
        wait_until(lambda: "kp-deleted" in admin.list_topics(), 30, "the topic in the metadata")
        response = admin.delete_topics(["kp-deleted"])
        assert [(r["name"], r["error_code"]) for r in response["topics"]] == [("kp-deleted", 0)], response
        wait_until(lambda: "kp-deleted" not in admin.list_topics(), 30, "the topic gone from the metadata")
    finally:
        admin.close()
