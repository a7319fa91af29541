"""Record the two runs of the page "One produce request, 1.0.2 and 3.9 side by side" (docs/produce-side-by-side.md).

    .venv/bin/python traces/samples/record_side_by_side.py [zk kraft]

The same thing happens on both: two brokers (ZooKeeper mode, Kafka 1.0.2; or KRaft with one controller, Kafka 3.9),
a topic of one partition with two replicas, and one idempotent producer (confluent-kafka, acks=all) that sends a
single batch of one record once the follower fetches from the leader. The leader appends it, parks the request as a
delayed produce, and answers once the follower's next fetch has moved the high watermark past the batch.
`docs/hooks/side_by_side.py` finds that request in each run and renders the page's tables from it.

The request path is traced (`KAFKA_EDU_TRACING=on`). Kept in `traces/samples/side-by-side-<mode>/`, as
record_lessons.py keeps a lesson's run: every span file gzipped, without a KRaft controller's background request
plumbing (`record_lessons.trimmed`), and the manifest, with `produce`: the topic and when the batch was sent. No
span-start files, broker data or logs.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from record_lessons import background_traces, trimmed

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.provider import TRACING_ENV
from kafka_edu.tracing.query import load_run

SAMPLES = Path(__file__).resolve().parent
TOPIC = "side-by-side"
MODES = ("zk", "kraft")
DEADLINE_S = 60


def wait(condition: Callable[[], object], what: str, timeout_s: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.2)


def both_in_isr(admin: AdminClient) -> bool:
    topic = admin.list_topics(TOPIC, timeout=5).topics.get(TOPIC)
    return topic is not None and not topic.error and len(topic.partitions[0].isrs) == 2


def follower_fetches(runner: ClusterRunner, leader: int) -> int:
    """Fetch requests the leader has answered so far (a follower's, as no consumer runs)."""
    instance = f"broker-{leader}"
    return len(load_run(runner.run.path).where(name="RequestChannel.Request", instance=instance,
                                               kafka__api__name="Fetch"))


def scenario(runner: ClusterRunner) -> dict:
    bootstrap = runner.run.read_manifest()["bootstrap_servers"]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 2)])[TOPIC].result(30)
    wait(lambda: both_in_isr(admin), f"{TOPIC} with both replicas in its ISR")
    leader = admin.list_topics(TOPIC, timeout=5).topics[TOPIC].partitions[0].leader
    seen = follower_fetches(runner, leader)
    wait(lambda: follower_fetches(runner, leader) >= seen + 2, "the follower fetching from the leader")
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                         "linger.ms": 0})
    producer.list_topics(TOPIC, timeout=10)  # metadata and the producer id first: the Produce is one batch alone
    time.sleep(1.0)
    sent_ns = time.time_ns()
    producer.produce(TOPIC, key=b"k", value=b"one record, one batch")
    if producer.flush(30):
        raise RuntimeError("the record was not acknowledged")
    acked_ns = time.time_ns()
    time.sleep(1.5)  # the spans of the follower's fetch that completed it reach their files
    return {"topic": TOPIC, "leader": leader, "sent_ns": sent_ns, "acked_ns": acked_ns}


def record(mode: str) -> Path:
    os.environ[TRACING_ENV] = "on"
    target = SAMPLES / f"side-by-side-{mode}"
    with tempfile.TemporaryDirectory() as scratch:
        runner = ClusterRunner.up(2, Path(scratch), mode=mode, controllers=1, timeout_s=120)
        try:
            produced = scenario(runner)
        finally:
            runner.down()
        run_dir = runner.run.path
        for old in target.glob("*"):
            old.unlink()
        target.mkdir(exist_ok=True)
        background = background_traces(run_dir)
        for path in sorted(run_dir.glob("*.jsonl")):
            if path.name.endswith(".starts.jsonl"):
                continue
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            with open(target / f"{path.name}.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
                f.write("".join(trimmed(line, background) for line in lines if line.endswith("\n")).encode())
        manifest = json.loads((run_dir / "manifest.json").read_text().replace(str(run_dir), str(target.relative_to(
            SAMPLES.parents[1]))).replace(scratch, "traces"))
        manifest["produce"] = produced
        (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return target


if __name__ == "__main__":
    for name in sys.argv[1:] or MODES:
        path = record(name)
        size = sum(p.stat().st_size for p in path.iterdir())
        print(f"{name}: {path} ({size // 1024} KB)")
