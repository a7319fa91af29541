"""Issue 23's trace acceptance on real processes: a ZooKeeper-mode run passes `check_trace.py --require NW --require
CL` and a KRaft run `--require RQ --require CL`, each run doing what those rows describe: a compacted, replicated
topic written by a real client with acks=all and read back in a group (the request path, produce and fetch, a
follower fetching, a delayed produce), a cleaner pass over it, and a follower paused until the leader drops it from
the ISR, then resumed until it is back (RQ.isr on KRaft)."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from tests.integration.helpers import REPO, wait_until

CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"
SECTIONS = {"zk": ("NW", "CL"), "kraft": ("RQ", "CL")}
# A cleaner pass every 200 ms on any dirty log; a follower silent for 3 s leaves the ISR (checked every 1.5 s),
# well before a KRaft broker's session (9 s) would fence it.
OVERRIDES = ["log.cleaner.backoff.ms=200", "log.cleaner.min.cleanable.ratio=0.01",
             "log.cleaner.dedupe.buffer.size=4194304", "replica.lag.time.max.ms=3000",
             "group.initial.rebalance.delay.ms=0"]
TOPIC_CONFIG = {"cleanup.policy": "compact", "segment.bytes": "1024", "segment.ms": "1000",
                "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "1000"}
DEADLINE_S = 60


@pytest.fixture(params=["zk", "kraft"])
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path / "traces", mode=request.param, controllers=1, timeout_s=120,
                              overrides=OVERRIDES)
    try:
        yield runner
    finally:
        if runner.run.read_manifest().get("stopped_at") is None:
            runner.down()


def isr_of(admin: AdminClient, topic: str) -> list[int]:
    try:
        metadata = admin.list_topics(topic, timeout=5).topics.get(topic)
    except KafkaException:  # asked the paused broker: ask again
        return []
    return sorted(metadata.partitions[0].isrs) if metadata is not None and not metadata.error else []


def isr_changes(runner: ClusterRunner, mode: str) -> list[object]:
    """The leader's ISR changes so far: 3.9's AlterPartition submissions, 1.0.2's ZooKeeper writes."""
    spans = load_run(runner.run.path)
    return list(spans.where(step="RQ.isr") if mode == "kraft" else spans.where(name="Partition.updateIsr"))


@pytest.mark.skipif(not CHECK_TRACE.exists(), reason="shared/acceptance/check_trace.py is not in this checkout")
def test_a_run_passes_check_trace_with_its_request_path_and_cleaner_sections(cluster: ClusterRunner) -> None:
    runner = cluster
    manifest = runner.run.read_manifest()
    mode, bootstrap = manifest["mode"], manifest["bootstrap_servers"]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = f"sections-{uuid.uuid4().hex[:6]}"
    admin.create_topics([NewTopic(topic, 1, 2, config=TOPIC_CONFIG)])[topic].result(30)
    wait_until(lambda: len(isr_of(admin, topic)) == 2, 30, f"{topic} led with both replicas in its ISR")

    # Several values per key, acks=all, until a cleaner pass has cleaned the partition (each value more than half a
    # segment: every append rolls one, so the older ones become cleanable).
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True})
    start = time.monotonic()
    written = 0

    def cleaned() -> bool:
        nonlocal written
        written += 1
        producer.produce(topic, key=f"k{written % 4}".encode(), value=f"v{written}".encode() + b"." * 600)
        assert producer.flush(15) == 0
        return bool(load_run(runner.run.path).where(step="CL.clean", kafka__topic=topic))

    wait_until(cleaned, DEADLINE_S, f"a cleaner pass over {topic}")

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{topic}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    keys = {f"k{i % 4}".encode() for i in range(1, written + 1)}
    read: set[bytes] = set()
    deadline = time.monotonic() + 30
    while read != keys and time.monotonic() < deadline:
        message = consumer.poll(1)
        if message is not None and message.error() is None:
            read.add(message.key())
    consumer.close()
    assert read == keys

    # The follower paused past replica.lag.time.max.ms leaves the ISR; resumed, it catches up and is back in it.
    leader = admin.list_topics(topic, timeout=5).topics[topic].partitions[0].leader
    follower = next(b for b in isr_of(admin, topic) if b != leader)
    # A follower that stopped is out of sync only once the leader has records it lacks: keep writing (acks=1).
    # (bootstrapped on the leader alone: librdkafka would otherwise wait on the paused broker for metadata)
    writer = Producer({"bootstrap.servers": f"127.0.0.1:{runner.entry(leader)['port']}", "acks": "1"})

    def dropped() -> bool:
        writer.produce(topic, key=b"k0", value=b"while paused" + b"." * 600)
        writer.flush(5)
        return len(isr_changes(runner, mode)) >= 1

    runner.pause(follower)
    try:
        wait_until(dropped, 30, f"broker {follower} dropped from the ISR")
    finally:
        runner.resume(follower)
    wait_until(lambda: len(isr_changes(runner, mode)) >= 2 and isr_of(admin, topic) == sorted([leader, follower]),
               30, f"broker {follower} back in the ISR")
    assert time.monotonic() - start < 5 * DEADLINE_S
    runner.down()

    done = subprocess.run([sys.executable, str(CHECK_TRACE), str(runner.run.path),
                           *[arg for section in SECTIONS[mode] for arg in ("--require", section)]],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("trace contract: OK")
