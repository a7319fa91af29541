"""KIP-101 on real processes (Kafka 1.0.2's leader epochs): a follower that restarts while its high watermark lags
keeps the acknowledged record that truncation to the high watermark loses.

The paper's first case, with two brokers, replication factor 2, min.insync.replicas=1, acks=all and no unclean
election. A leads, B follows; B is the controller, so that when B is killed the new controller (A) leaves B in the
ISR (1.0.2's failover marks a dead broker's replicas ineligible for deletion, it does not shrink ISRs), and a long
replica.lag.time.max.ms keeps A from shrinking it either. Records m0 and m1 are acknowledged; B has both, but its
high watermark is 1: it learns that m1 is committed only from the answer to its next fetch, which the leader holds
for replica.fetch.wait.max.ms. B is killed then, and restarts; a breakpoint on LE.truncate holds B's fetcher after it
asked A where its epoch ends and before it truncates; A is killed meanwhile, so B never fetches again from it, and B
becomes the leader.

With leader epochs B keeps m1: A said epoch 0 ends at 2, B's log end offset. With inter.broker.protocol.version
0.11.0-IV1 (a follower that may not ask) B truncates to its high watermark, 1, and m1, acknowledged to the producer,
is gone from the only replica left.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from kafka import KafkaConsumer
from kafka import TopicPartition as KTopicPartition
from kazoo.client import KazooClient

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import Spans, load_run
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import REPO, broker_port, send_request, wait_until, zookeeper_client
from tests.integration.kafka_wire import WireConnection
from tui.control import ClusterControl

CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"
SESSION_TIMEOUT_MS = 2000
FETCH_WAIT_MS = 10_000  # how long the leader holds a follower's fetch that finds nothing new: B's lagging HW
OVERRIDES = [f"zookeeper.session.timeout.ms={SESSION_TIMEOUT_MS}", f"replica.fetch.wait.max.ms={FETCH_WAIT_MS}",
             "replica.lag.time.max.ms=120000", "replica.high.watermark.checkpoint.interval.ms=100",
             "unclean.leader.election.enable=false", "min.insync.replicas=1", "auto.leader.rebalance.enable=false",
             "controlled.shutdown.retry.backoff.ms=200"]
DEADLINE_S = 60


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path_factory.mktemp("kip101") / "traces", overrides=OVERRIDES, timeout_s=120)
    try:
        yield runner
    finally:
        (runner.run.path / "breakpoints.json").unlink(missing_ok=True)  # releases a broker left paused
        if runner.run.read_manifest().get("stopped_at") is None:
            runner.down()


@pytest.fixture(scope="module")
def zk(cluster: ClusterRunner) -> Iterator[KazooClient]:
    with zookeeper_client(cluster) as client:
        yield client


# -- the cluster, as the test sees it -----------------------------------------------------------------------------

def bootstrap(cluster: ClusterRunner, broker_id: int) -> str:
    return f"127.0.0.1:{broker_port(cluster, broker_id)}"


def controller_id(zk: KazooClient) -> int | None:
    try:
        return json.loads(zk.get("/controller")[0])["brokerid"]
    except Exception:  # no controller right now (NoNodeError), or it went between exists and get
        return None


def partition_state(zk: KazooClient, topic: str) -> dict[str, Any]:
    return json.loads(zk.get(f"/brokers/topics/{topic}/partitions/0/state")[0])


def all_running(cluster: ClusterRunner, zk: KazooClient) -> tuple[int, int]:
    """Start any broker a previous test left dead; then (A, B): A the one to lead, B the controller (the follower
    that restarts)."""
    for broker_id in (0, 1):
        if cluster.broker_state(broker_id) == "NotRunning":
            cluster.start(broker_id)
    for broker_id in (0, 1):
        cluster.wait_for_state(broker_id, "RunningAsBroker", DEADLINE_S)
    wait_until(lambda: all(zk.exists(f"/brokers/ids/{b}") for b in (0, 1)), DEADLINE_S, "both brokers registered")
    wait_until(lambda: controller_id(zk) is not None, DEADLINE_S, "a controller")
    b = controller_id(zk)
    return 1 - b, b


def create_topic(cluster: ClusterRunner, zk: KazooClient, topic: str, a: int, b: int) -> None:
    """One partition on [a, b] (a the preferred leader), through the controller (b). Raw: kafka-python asks a 1.0
    broker for a partition count and a replication factor, which 1.0.2 refuses beside an assignment."""
    response = send(cluster, b, ApiKeys.CREATE_TOPICS, 2, timeout=30000, validate_only=False, topics=[dict(
        name=topic, num_partitions=-1, replication_factor=-1, assignments=[dict(partition_index=0, broker_ids=[a, b])],
        configs=[dict(name="min.insync.replicas", value="1"),
                 dict(name="unclean.leader.election.enable", value="false")])])
    assert [(t.name, t.error_code) for t in response.topics] == [(topic, Errors.NONE)]
    wait_until(lambda: zk.exists(f"/brokers/topics/{topic}/partitions/0/state")
               and partition_state(zk, topic)["leader"] == a
               and sorted(partition_state(zk, topic)["isr"]) == sorted([a, b]), DEADLINE_S,
               f"{topic} led by broker {a} with both in sync")


def produce(cluster: ClusterRunner, broker_id: int, topic: str, value: bytes, acks: str = "all") -> int:
    offsets: list[int] = []
    errors: list[Any] = []
    producer = Producer({"bootstrap.servers": bootstrap(cluster, broker_id), "acks": acks,
                         "message.timeout.ms": 30000, "enable.idempotence": False})
    producer.produce(topic, value, partition=0,
                     on_delivery=lambda err, msg: errors.append(err) if err else offsets.append(msg.offset()))
    producer.flush(30)
    assert errors == [] and len(offsets) == 1, errors
    return offsets[0]


def read_all(cluster: ClusterRunner, broker_id: int, topic: str) -> list[tuple[int, bytes]]:
    """Every record a consumer can read (up to the high watermark), through `broker_id`."""
    tp = KTopicPartition(topic, 0)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap(cluster, broker_id), group_id=None,
                             enable_auto_commit=False, request_timeout_ms=30000)
    try:
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        end = consumer.end_offsets([tp])[tp]
        records: list[tuple[int, bytes]] = []

        def read_to_end() -> bool:
            for batch in consumer.poll(timeout_ms=500).values():
                records.extend((r.offset, r.value) for r in batch)
            return consumer.position(tp) >= end

        wait_until(read_to_end, 30, f"{topic} read to {end}")
        return records
    finally:
        consumer.close()


def checkpointed_high_watermark(cluster: ClusterRunner, broker_id: int, topic: str) -> int | None:
    """What `replication-offset-checkpoint` says of the partition: the high watermark a restart starts from."""
    path = cluster.run.path / f"broker-{broker_id}" / "logs" / "replication-offset-checkpoint"
    lines = path.read_text().splitlines() if path.exists() else []
    return next((int(line.split()[2]) for line in lines[2:] if line.split()[:2] == [topic, "0"]), None)


def send(cluster: ClusterRunner, broker_id: int, api: ApiKeys, version: int, **body: Any) -> Any:
    return send_request(cluster, broker_id, "kip101-test", api, version, **body)


def offsets_for_leader_epoch(cluster: ClusterRunner, broker_id: int, epochs: dict[tuple[str, int], int]
                             ) -> dict[tuple[str, int], tuple[Errors, int]]:
    topics: dict[str, list[dict[str, int]]] = {}
    for (topic, partition), epoch in epochs.items():
        topics.setdefault(topic, []).append(dict(partition=partition, leader_epoch=epoch))
    response = send(cluster, broker_id, ApiKeys.OFFSET_FOR_LEADER_EPOCH, 0,
                    topics=[dict(topic=t, partitions=p) for t, p in topics.items()])
    return {(t.topic, p.partition): (Errors.for_code(int(p.error_code)), int(p.end_offset))
            for t in response.topics for p in t.partitions}


def answered_since(cluster: ClusterRunner, broker_id: int, topic: str, since_ns: int) -> bool:
    return any(f"{topic}-0" in s.attributes["kafka.partitions"] and s.start_ns >= since_ns
               for s in load_run(cluster.run.path).where(step="LE.apis", instance=f"broker-{broker_id}"))


def paused_at_truncation(control: ClusterControl, broker_id: int) -> bool:
    return any(p.instance == f"broker-{broker_id}" and p.step == "LE.truncate" for p in control.paused())


# -- the scenario -------------------------------------------------------------------------------------------------

def replay_kip101_case_1(cluster: ClusterRunner, zk: KazooClient, topic: str,
                         b_overrides: list[str] | None = None) -> dict[str, Any]:
    """A leads, B (the controller) follows; m0 and m1 acknowledged; B killed with its HW at 1, restarted (with
    `b_overrides` appended to its config), held at LE.truncate while A is killed, then released. What was seen."""
    a, b = all_running(cluster, zk)
    create_topic(cluster, zk, topic, a, b)
    seen: dict[str, Any] = {"a": a, "b": b}
    seen["acked"] = [produce(cluster, a, topic, b"m0"), produce(cluster, a, topic, b"m1")]
    assert seen["acked"] == [0, 1]

    # B has m1 (A acknowledged it only once B's fetch asked for offset 2) but not the news that it is committed:
    # the answer to that fetch waits on A. B's checkpoint shows the high watermark it has.
    wait_until(lambda: checkpointed_high_watermark(cluster, b, topic) == 1, 5, "B's high watermark checkpointed")
    cluster.kill(b)
    seen["hw_at_restart"] = checkpointed_high_watermark(cluster, b, topic)

    # A takes over as controller once B's session expires, and leaves B in the ISR.
    wait_until(lambda: controller_id(zk) == a, DEADLINE_S, f"broker {a} to become the controller")
    seen["isr_while_b_was_down"] = sorted(partition_state(zk, topic)["isr"])
    epoch = partition_state(zk, topic)["leader_epoch"]

    control = ClusterControl(cluster.run.path)
    control.set_breakpoint("LE.truncate")
    config = Path(cluster.entry(b)["config"])
    original_config = config.read_text()
    try:
        if b_overrides:
            config.write_text(original_config + "".join(f"{line}\n" for line in b_overrides))
        restarted_ns = seen["restarted_ns"] = time.time_ns()
        cluster.start(b)
        wait_until(lambda: paused_at_truncation(control, b), DEADLINE_S, f"broker {b} to stop before truncating")
    finally:
        config.write_text(original_config)
    if not b_overrides:  # A's answer reaches its span file before A is killed (a kill -9 loses what is buffered)
        wait_until(lambda: answered_since(cluster, a, topic, restarted_ns), 10, f"broker {a}'s answer on disk")
    # B has asked A where its epoch ends (or, not allowed to ask, chosen its HW) and waits to truncate: A dies now.
    cluster.kill(a)
    control.clear_breakpoint("LE.truncate")
    control.continue_(f"broker-{b}")

    wait_until(lambda: controller_id(zk) == b and partition_state(zk, topic)["leader"] == b, DEADLINE_S,
               f"broker {b} to lead {topic}")
    seen["new_leader_epoch"] = partition_state(zk, topic)["leader_epoch"]
    assert seen["new_leader_epoch"] > epoch
    cluster.wait_for_state(b, "RunningAsBroker", DEADLINE_S)
    seen["records"] = read_all(cluster, b, topic)
    return seen


def test_offsets_for_leader_epoch_answers_only_from_a_leader(cluster: ClusterRunner, zk: KazooClient) -> None:
    a, b = all_running(cluster, zk)
    create_topic(cluster, zk, "kip101-bad-input", a, b)
    produce(cluster, a, "kip101-bad-input", b"x")
    tp = ("kip101-bad-input", 0)
    assert offsets_for_leader_epoch(cluster, a, {tp: 0, ("kip101-bad-input", 7): 0, ("no-such-topic", 0): 0,
                                                 ("kip101-bad-input-2", 0): 3}) == {
        tp: (Errors.NONE, 1),  # the leader's latest epoch: its log end offset
        ("kip101-bad-input", 7): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1),
        ("no-such-topic", 0): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1),
        ("kip101-bad-input-2", 0): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)}
    assert offsets_for_leader_epoch(cluster, a, {tp: 5}) == {tp: (Errors.NONE, -1)}  # an epoch it never had
    assert offsets_for_leader_epoch(cluster, b, {tp: 0}) == {tp: (Errors.NOT_LEADER_OR_FOLLOWER, -1)}  # a follower

    # a version 1.0.2 does not have: the connection is closed; the broker serves on
    with WireConnection(("127.0.0.1", broker_port(cluster, a))) as connection:
        body = build(ApiKeys.OFFSET_FOR_LEADER_EPOCH.request_schema(1), topics=[])
        connection.send_frame(encode_request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 1, 1, "kip101-test", body))
        assert connection.is_closed_by_peer(10)
    assert offsets_for_leader_epoch(cluster, a, {tp: 0}) == {tp: (Errors.NONE, 1)}


def test_a_restarted_follower_truncates_by_leader_epoch_and_keeps_the_acknowledged_record(
        cluster: ClusterRunner, zk: KazooClient) -> None:
    topic = "kip101"
    seen = replay_kip101_case_1(cluster, zk, topic)
    a, b = seen["a"], seen["b"]
    assert seen["hw_at_restart"] == 1 <= seen["acked"][1]  # truncating to it would drop m1
    assert seen["isr_while_b_was_down"] == sorted([a, b])
    assert seen["records"] == [(0, b"m0"), (1, b"m1")]  # both acknowledged records survived A's death

    spans = load_run(cluster.run.path)
    # B asked A where epoch 0 ends...
    request = max((s for s in spans.where(step="LE.request", instance=f"broker-{b}")
                   if f"{topic}-0" in s.attributes["kafka.partitions"]), key=lambda s: s.start_ns)  # after the restart
    assert request.attributes["kafka.fetcher.source.broker"] == a
    assert dict(zip(request.attributes["kafka.partitions"], request.attributes["kafka.leader.epochs"],
                    strict=True))[f"{topic}-0"] == 0
    # ...A answered from its cache: epoch 0 is its latest, so it ends at its log end offset...
    apis = max((s for s in spans.where(step="LE.apis", instance=f"broker-{a}")
                if f"{topic}-0" in s.attributes["kafka.partitions"]
                and s.attributes["kafka.client.id"] == f"broker-{b}-fetcher-0"), key=lambda s: s.start_ns)
    assert dict(zip(apis.attributes["kafka.partitions"], apis.attributes["kafka.leader.epoch.end_offsets"],
                    strict=True))[f"{topic}-0"] == 2
    assert request.start_ns < apis.start_ns < request.end_ns
    # ...and B truncated to the smaller of that and its own log end offset: nothing.
    truncate = next(s for s in spans.where(step="LE.truncate", instance=f"broker-{b}") if s.parent_id ==
                    request.span_id)
    choice, = [e.attributes for e in truncate.events if e.name == "log.truncate" and e.attributes["kafka.topic"] ==
               topic]
    assert {k: choice[k] for k in ("kafka.leader.epoch.end_offset", "kafka.log_end_offset", "kafka.high_watermark",
                                   "kafka.offset", "kafka.truncation.by", "kafka.records.lost")} == {
        "kafka.leader.epoch.end_offset": 2, "kafka.log_end_offset": 2, "kafka.high_watermark": 1,
        "kafka.offset": 2, "kafka.truncation.by": "log end offset", "kafka.records.lost": 0}
    assert apis.end_ns < truncate.start_ns

    # B leads in a new epoch: its first append there starts the epoch in its cache (LE.assign).
    assert produce(cluster, b, topic, b"m2", acks="1") == 2
    # (the epoch-0 entry B made as a follower is in its checkpoint below; its span may have died unwritten with
    # B's first process, killed -9 within the span writer's 100 ms)
    def new_epoch_on_b() -> list[Any]:
        return [s for s in load_run(cluster.run.path).where(step="LE.assign", instance=f"broker-{b}")
                if s.attributes.get("kafka.topic") == topic and s.attributes["kafka.leader.epoch"] > 0]

    assigned, = wait_until(new_epoch_on_b, 10, "B's new epoch assigned")
    assert (assigned.attributes["kafka.leader.epoch"], assigned.attributes["kafka.leader.epoch.start_offset"],
            assigned.attributes["kafka.leader.epoch.previous"]) == (seen["new_leader_epoch"], 2, 0)
    leader_epoch_file = cluster.run.path / f"broker-{b}" / "logs" / f"{topic}-0" / "leader-epoch-checkpoint"
    assert leader_epoch_file.read_text() == f"0\n2\n0 0\n{seen['new_leader_epoch']} 2\n"


def test_truncation_by_high_watermark_loses_the_acknowledged_record(cluster: ClusterRunner,
                                                                     zk: KazooClient) -> None:
    """The same scenario with B not allowed to ask (inter.broker.protocol.version 0.11.0-IV1): 1.0.2's fallback."""
    topic = "kip101-hw"
    seen = replay_kip101_case_1(cluster, zk, topic, b_overrides=["inter.broker.protocol.version=0.11.0-IV1"])
    b = seen["b"]
    assert seen["hw_at_restart"] == 1 and seen["acked"] == [0, 1]
    assert seen["records"] == [(0, b"m0")]  # m1 was acknowledged, and is gone

    spans = load_run(cluster.run.path)
    request = max((s for s in spans.where(step="LE.request", instance=f"broker-{b}")
                   if f"{topic}-0" in s.attributes["kafka.partitions"]), key=lambda s: s.start_ns)  # after the restart
    assert request.attributes["kafka.leader.epoch.request.sent"] is False
    assert not [s for s in spans.where(step="LE.apis") if f"{topic}-0" in s.attributes["kafka.partitions"]
                and s.start_ns >= seen["restarted_ns"]]  # B did not ask
    truncate = next(s for s in spans.where(step="LE.truncate", instance=f"broker-{b}")
                    if s.parent_id == request.span_id)
    choice, = [e.attributes for e in truncate.events if e.name == "log.truncate" and e.attributes["kafka.topic"] ==
               topic]
    assert (choice["kafka.truncation.by"], choice["kafka.offset"], choice["kafka.records.lost"]) == (
        "high watermark", 1, 1)


@pytest.mark.skipif(not CHECK_TRACE.exists(), reason="shared/acceptance/check_trace.py is not in this checkout")
def test_check_trace_requires_le_on_the_run(cluster: ClusterRunner, zk: KazooClient) -> None:
    spans: Spans = load_run(cluster.run.path)
    if not spans.where(step="LE.apis"):
        pytest.skip("the KIP-101 scenario did not run in this session")
    zk.stop()
    cluster.down()
    done = subprocess.run([sys.executable, str(CHECK_TRACE), str(cluster.run.path), "--require", "LE"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("trace contract: OK")
