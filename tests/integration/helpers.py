"""Our own test code, not a Kafka port: the helpers integration tests share (conftest.py's fixtures build on them).

A real ZooKeeper and real `kafka-edu server-start` processes, waiting on conditions, the controller as ZooKeeper
names it, and a three-broker cluster with a replicated topic that real clients produce to and consume from; for a
cluster the runner started (ClusterRunner), a client of its ZooKeeper and raw requests to its brokers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafka_edu.cluster_runner.processes import stop_process
from kafka_edu.cluster_runner.run_directory import RUN_DIR_ENV, RUN_ID_ENV
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import Spans, load_run
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.zookeeper.zookeeper_server import ZooKeeperServer

REPO = Path(__file__).resolve().parents[2]
# The controller tests' brokers: a short ZooKeeper session, so that a dead broker is noticed within seconds.
SESSION_TIMEOUT_S = 2.0
PARTITIONS = 6
N = 600


def wait_until(condition: Callable[[], object], timeout_s: float = 30.0, what: str = "condition") -> object:
    """Poll `condition` until it is truthy; fail the test at the deadline."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def meta_broker_id(log_dir: Path) -> int | None:
    meta = log_dir / "meta.properties"
    return int(load_props(meta)["broker.id"]) if meta.exists() else None


class ZooKeeper:
    def __init__(self, server: ZooKeeperServer) -> None:
        self.server = server
        self.connect = server.connect_string
        self.client = KazooClient(hosts=self.connect)
        self.client.start(timeout=15)

    def exists(self, path: str) -> bool:
        return self.client.exists(path) is not None


class Broker:
    """One `kafka-edu server-start` process with its own properties file, in a test's run directory."""

    def __init__(self, run_dir: Path, name: str, props: dict[str, str]) -> None:
        self.run_dir = run_dir
        self.name = name
        self.props = props
        self.config = run_dir / f"{name}.properties"
        self.log_file = run_dir / f"{name}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> Broker:
        self.config.write_text("".join(f"{k}={v}\n" for k, v in self.props.items()))
        env = {**os.environ, RUN_DIR_ENV: str(self.run_dir), RUN_ID_ENV: self.run_dir.name}
        with open(self.log_file, "ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "kafka_edu.cli", "server-start", str(self.config)],
                                            stdout=log, stderr=subprocess.PIPE, env=env, cwd=REPO)
        return self

    @property
    def pid(self) -> int:
        return self.process.pid

    def spans(self) -> Spans:
        return Spans(s for s in load_run(self.run_dir) if s.resource.get("process.pid") == self.pid)

    def state(self) -> str | None:
        states = [s.attributes["kafka.broker.state.to"] for s in self.spans().where(name="BrokerState.newState")]
        return states[-1] if states else None

    def wait_running(self, timeout_s: float = 60.0) -> Broker:
        def running() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode}: {self.stderr()}")
            return self.state() == "RunningAsBroker"
        wait_until(running, timeout_s, f"{self.name} to reach RunningAsBroker")
        return self

    def wait_for_controller(self, timeout_s: float = 30.0) -> Broker:
        """Until the controller's UpdateMetadata has reached this broker, so that its Metadata answers name the
        controller (which CreateTopics/DeleteTopics need) and its live brokers."""
        wait_until(lambda: self.spans().where(name="KafkaApis.handleUpdateMetadataRequest"), timeout_s,
                   f"{self.name} to hear from the controller")
        return self

    def wait_exit(self, timeout_s: float = 60.0) -> int:
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name} did not exit within {timeout_s} s") from None

    def stderr(self) -> str:
        return self.process.stderr.read().decode(errors="replace") if self.process.poll() is not None else ""

    def terminate(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.wait_exit()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def cleanup(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_process(self.process.pid, 20)
            self.process.wait()
        if self.process is not None and self.process.stderr:
            self.process.stderr.close()


def start_cluster(brokers: Any, **props: str) -> dict[int, Broker]:
    """Three brokers (ids 0-2) with a short session timeout and `props`, running and past the controller's election."""
    cluster = {i: brokers(f"b{i}", broker_id=str(i), zookeeper_session_timeout_ms=str(int(SESSION_TIMEOUT_S * 1000)),
                          **props)
               for i in range(3)}
    for broker in cluster.values():
        broker.start()
    for broker in cluster.values():
        broker.wait_running().wait_for_controller()
    return cluster


def bootstrap(cluster: dict[int, Broker]) -> str:
    return ",".join(b.props["listeners"].removeprefix("PLAINTEXT://") for b in cluster.values())


def controller_of(zookeeper: ZooKeeper) -> tuple[int, int]:
    """The active controller's id and its epoch."""
    controller = json.loads(zookeeper.client.get("/controller")[0])["brokerid"]
    return controller, int(zookeeper.client.get("/controller_epoch")[0])


def partition_states(zookeeper: ZooKeeper, topic: str) -> dict[int, dict[str, Any]] | None:
    """Every partition's state znode, once all exist."""
    states = {}
    for partition in range(PARTITIONS):
        path = f"/brokers/topics/{topic}/partitions/{partition}/state"
        if not zookeeper.exists(path):
            return None
        states[partition] = json.loads(zookeeper.client.get(path)[0])
    return states


def metadata_leaders(cluster: dict[int, Broker], topic: str) -> dict[int, int]:
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    partitions = admin.list_topics(topic, timeout=10).topics[topic].partitions
    return {p: m.leader for p, m in partitions.items()}


def produce(cluster: dict[int, Broker], topic: str, start: int, count: int) -> list[Any]:
    errors: list[Any] = []
    producer = Producer({"bootstrap.servers": bootstrap(cluster), "acks": "all", "enable.idempotence": True,
                         "linger.ms": 5})
    for i in range(start, start + count):
        producer.produce(topic, key=str(i).encode(), value=f"v{i}".encode(),
                         on_delivery=lambda err, _msg: errors.append(err) if err else None)
        producer.poll(0)
    assert producer.flush(60) == 0
    return errors


def consume_all(cluster: dict[int, Broker], topic: str, expected: int) -> list[str]:
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": f"g-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    values: list[str] = []

    def read_everything() -> bool:
        for message in consumer.consume(500, timeout=1):
            if message.error() is None:
                values.append(message.value().decode())
        return len(values) >= expected
    try:
        wait_until(read_everything, 60, f"{expected} records")
    finally:
        consumer.close()
    return values


def controller_id(zookeeper: ZooKeeper) -> int | None:
    try:  # one read: the znode may vanish between an exists() and a get() when a session expires
        return json.loads(zookeeper.client.get("/controller")[0])["brokerid"]
    except NoNodeError:
        return None


def controller_epoch(zookeeper: ZooKeeper) -> int | None:
    return int(zookeeper.client.get("/controller_epoch")[0]) if zookeeper.exists("/controller_epoch") else None


def metadata_controller_id(broker: Broker) -> int:
    """The controller a real client is told about in a Metadata answer."""
    admin = AdminClient({"bootstrap.servers": broker.props["listeners"].removeprefix("PLAINTEXT://")})
    return admin.list_topics(timeout=10).controller_id


# -- a cluster the runner started ---------------------------------------------------------------------------------

@contextmanager
def zookeeper_client(runner: ClusterRunner) -> Iterator[KazooClient]:
    """A started client of the run's ZooKeeper (the manifest names it), stopped and closed on leaving."""
    client = KazooClient(hosts=runner.run.read_manifest()["zookeeper_connect"])
    client.start(timeout=30)
    try:
        yield client
    finally:
        client.stop()
        client.close()


def broker_port(runner: ClusterRunner, broker_id: int) -> int:
    return int(runner.broker_entry(broker_id)["port"])


def request_to(port: int, api: ApiKeys, version: int, *, client_id: str = "kafka-edu-test", timeout_s: float = 30,
               **body: Any) -> Any:
    """One request built from `body`'s fields, on its own connection to 127.0.0.1:`port` (a broker or a
    controller): raw, for the error codes and messages a client library would turn into exceptions or retries."""
    channel = BlockingChannel("127.0.0.1", port, timeout_s, client_id)
    try:
        return channel.send_and_receive(api, version, build(api.request_schema(version), **body))
    finally:
        channel.disconnect()


def send_request(runner: ClusterRunner, broker_id: int, client_id: str, api: ApiKeys, version: int,
                 **body: Any) -> Any:
    """`request_to` the broker with this id in a runner's cluster."""
    return request_to(broker_port(runner, broker_id), api, version, client_id=client_id, **body)
