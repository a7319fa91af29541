"""Consumer groups with real clients: members join and leave, every record is consumed once, offsets survive."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import uuid

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer

from tests.integration.helpers import REPO, wait_until

PARTITIONS = 6


def bootstrap(broker) -> str:
    return broker.props["listeners"].removeprefix("PLAINTEXT://")


def produce(bootstrap_servers: str, topic: str, values: range) -> None:
    producer = Producer({"bootstrap.servers": bootstrap_servers, "acks": "all", "linger.ms": 5})
    for i in values:
        producer.produce(topic, key=str(i).encode(), value=str(i).encode())
        producer.poll(0)
    assert producer.flush(60) == 0


class Member(threading.Thread):
    """One group member that records what it consumed and commits synchronously after each batch, so a
    rebalance never hands a processed record to another member."""

    def __init__(self, name: str, kind: str, bootstrap_servers: str, topic: str, group: str,
                 seen: list[tuple[str, int]], lock: threading.Lock) -> None:
        super().__init__(name=name, daemon=True)
        self.kind, self.bootstrap_servers, self.topic, self.group = kind, bootstrap_servers, topic, group
        self.seen, self.lock = seen, lock
        self.stop = threading.Event()
        self.assigned = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.run_kafka_python() if self.kind == "kafka-python" else self.run_confluent()
        except BaseException as e:
            self.error = e

    def record(self, value: bytes) -> None:
        with self.lock:
            self.seen.append((self.name, int(value)))

    def run_kafka_python(self) -> None:
        consumer = KafkaConsumer(self.topic, bootstrap_servers=self.bootstrap_servers, group_id=self.group,
                                 client_id=self.name, auto_offset_reset="earliest", enable_auto_commit=False,
                                 session_timeout_ms=10000, heartbeat_interval_ms=1000)
        try:
            while not self.stop.is_set():
                batches = consumer.poll(timeout_ms=200)
                if consumer.assignment():
                    self.assigned.set()
                for messages in batches.values():
                    for message in messages:
                        self.record(message.value)
                if batches:
                    consumer.commit()
        finally:
            consumer.close()

    def run_confluent(self) -> None:
        consumer = Consumer({"bootstrap.servers": self.bootstrap_servers, "group.id": self.group,
                             "client.id": self.name, "auto.offset.reset": "earliest", "enable.auto.commit": False,
                             "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000})
        consumer.subscribe([self.topic])
        try:
            while not self.stop.is_set():
                messages = [m for m in consumer.consume(num_messages=500, timeout=0.2) if not m.error()]
                if consumer.assignment():
                    self.assigned.set()
                for message in messages:
                    self.record(message.value())
                if messages:
                    consumer.commit(asynchronous=False)
        finally:
            consumer.close()


@pytest.mark.slow
def test_five_members_consume_every_record_once_and_resume_after_a_restart(brokers, tmp_path):
    log_dir = tmp_path / "logs"
    props = dict(broker_id="0", group_initial_rebalance_delay_ms="0", zookeeper_session_timeout_ms="2000")
    broker = brokers("first", log_dirs=[log_dir], **props).start().wait_running().wait_for_controller()
    servers = bootstrap(broker)
    topic, group = f"grouped-{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": servers})
    admin.create_topics([NewTopic(topic, num_partitions=PARTITIONS, replication_factor=1)])[topic].result(30)

    seen: list[tuple[str, int]] = []
    lock = threading.Lock()
    members = [Member(f"{kind}-{i}", kind, servers, topic, group, seen, lock)
               for i, kind in enumerate(["kafka-python", "confluent", "kafka-python", "confluent", "kafka-python"])]
    produce(servers, topic, range(0, 3000))
    try:
        for member in members:  # each join is a rebalance while the others are consuming
            member.start()
            wait_until(lambda m=member: m.assigned.is_set() or m.error, 60, f"{member.name} to get partitions")
        for member in members[1:3]:  # two members leave mid-stream
            member.stop.set()
            member.join(30)
        produce(servers, topic, range(3000, 6000))
        wait_until(lambda: len({v for _, v in seen}) >= 6000, 120, "all 6000 records to be consumed")
    finally:
        for member in members:
            member.stop.set()
        for member in members:
            member.join(30)
    assert [m.error for m in members] == [None] * len(members)
    values = [v for _, v in seen]
    assert sorted(values) == list(range(6000)), "a record was consumed twice or never"
    assert len({name for name, _ in seen}) >= 3  # the work really was shared

    # A restart must not lose the group's committed offsets: a new member starts where the group stopped.
    assert broker.terminate() == 0
    restarted = brokers("second", log_dirs=[log_dir], listeners=broker.props["listeners"], **props)
    restarted.start().wait_running()
    produce(servers, topic, range(6000, 6500))
    after: list[tuple[str, int]] = []
    late = Member("late", "confluent", servers, topic, group, after, lock)
    late.start()
    try:
        wait_until(lambda: len(after) >= 500 or late.error, 90, "the new member to read the new records")
    finally:
        late.stop.set()
        late.join(30)
    assert late.error is None
    assert sorted(v for _, v in after) == list(range(6000, 6500))


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is installed by ./run")
def test_kcat_group_read_and_the_consumer_groups_command(brokers):
    broker = brokers("b0", broker_id="0", group_initial_rebalance_delay_ms="0").start().wait_running()
    servers = bootstrap(broker)
    topic, group = f"kcatg-{uuid.uuid4().hex[:6]}", f"kg-{uuid.uuid4().hex[:6]}"
    produce(servers, topic, range(500))
    read = subprocess.run(["kcat", "-b", servers, "-G", group, topic, "-o", "beginning", "-e", "-q", "-X",
                           "auto.offset.reset=earliest"], capture_output=True, text=True, timeout=120)
    assert sorted(int(v) for v in read.stdout.split()) == list(range(500))

    listed = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "consumer-groups", "--list",
                             "--bootstrap-server", servers], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert listed.returncode == 0 and group in listed.stdout.split()
    described = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "consumer-groups", "--describe", group,
                                "--bootstrap-server", servers], capture_output=True, text=True, timeout=60,
                               cwd=REPO)
    assert described.returncode == 0, described.stdout
    assert topic in described.stdout and "500" in described.stdout
