"""Log compaction on real brokers, in both modes (FIDELITY CL): a topic with `cleanup.policy=compact` (and
`compact,delete`) written by a real client keeps, once the cleaner has passed, exactly the newest record of each key,
and its tombstones go once `delete.retention.ms` has passed; `__consumer_offsets` is compacted the same way. Each
pass that cleans is a CL.work trace whose CL.clean counts the records and bytes read, kept and removed; a
ZooKeeper-mode broker runs Kafka 1.0.2's cleaner, a KRaft broker Kafka 3.9's (`kafka.origin.version` says which).

Kafka rolls a segment only on an append, and never cleans the active one: the test appends a `tick` record (a key
of its own, left out of the checks) every TICK_S while it waits, so that the records before it become cleanable.
1.0.2 drops a tombstone only once its segment is delete.retention.ms older than the newest clean segment (3.9 writes
the horizon into the batch the first time it cleans it: now + delete.retention.ms). So that a tick's segment is that
much newer, ticks come further apart than delete.retention.ms, and each is more than half a segment: the cleaner
(which merges neighbouring segments up to segment.bytes, the merged one as old as its newest) then never merges the
tombstones' segment with the newest tick's, which would make it the newest clean segment for ever.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import SpanRecord, Spans, load_run
from tests.integration.helpers import wait_until

# The broker's cleaner: a pass every 200 ms when idle (15 s by default), any dirty log cleanable (0.5 by default), a
# small offset map (128 MiB by default: eight sessions share this machine); __consumer_offsets in one partition whose
# segments roll every ~10 commits.
OVERRIDES = ["log.cleaner.backoff.ms=200", "log.cleaner.min.cleanable.ratio=0.01",
             "log.cleaner.dedupe.buffer.size=4194304", "offsets.topic.num.partitions=1",
             "offsets.topic.replication.factor=1", "offsets.topic.segment.bytes=1024",
             "group.initial.rebalance.delay.ms=0"]
DELETE_RETENTION_MS = 1000
TOPIC_CONFIG = {"segment.bytes": "1024", "segment.ms": "1000", "min.cleanable.dirty.ratio": "0.01",
                "delete.retention.ms": str(DELETE_RETENTION_MS)}
TICK_S = 1.5
TICK_PADDING = "." * 600  # more than half of segment.bytes
KEYS = [f"k{i}" for i in range(8)]
ROUNDS = 4
TOMBSTONED = ["k1", "k4", "k6"]
DEADLINE_S = 45
ORIGIN_VERSION = {"zk": "1.0.2", "kraft": "3.9"}


@pytest.fixture(scope="module", params=[
    "zk",
    "kraft",
])
def cluster(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    mode = request.param
    runner = ClusterRunner.up(1, tmp_path_factory.mktemp(f"compaction-{mode}") / "traces", mode=mode, controllers=1,
                              timeout_s=90, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def mode_of(runner: ClusterRunner) -> str:
    return runner.run.read_manifest()["mode"]


def bootstrap_of(runner: ClusterRunner) -> str:
    return runner.run.read_manifest()["bootstrap_servers"]


def broker_spans(runner: ClusterRunner) -> Spans:
    return Spans(s for s in load_run(runner.run.path) if s.instance.startswith("broker-"))


def require_cleaner(runner: ClusterRunner) -> None:
    """The broker started its log cleaner (CL.startup, in LogManager.startup): without it nothing below can pass."""
    startups = broker_spans(runner).where(step="CL.startup")
    assert startups, "the broker started no log cleaner (no CL.startup span)"
    assert startups.first().attributes["kafka.cleaner.threads"] == ["kafka-log-cleaner-thread-0"]


def create_topic(runner: ClusterRunner, policy: str) -> str:
    topic = f"compacted-{policy.replace(',', '-')}-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap_of(runner)})
    admin.create_topics([NewTopic(topic, 1, 1, config={"cleanup.policy": policy, **TOPIC_CONFIG})])[topic].result(30)
    wait_until(lambda: (t := admin.list_topics(topic, timeout=5).topics.get(topic)) is not None and not t.error
               and t.partitions[0].leader >= 0, 30, f"{topic} led")
    return topic


def read_from_start(bootstrap: str, topic: str) -> list[tuple[str, str | None]]:
    """Every record of partition 0, from the log start to its end, as (key, value)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False, "enable.partition.eof": True,
                         "auto.offset.reset": "earliest"})
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        records: list[tuple[str, str | None]] = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            message = consumer.poll(1)
            if message is None:
                continue
            if message.error() is not None:
                if message.error().code() == KafkaError._PARTITION_EOF:  # read to the end
                    return records
                raise AssertionError(f"reading {topic}: {message.error()}")
            value = message.value()
            records.append((message.key().decode(), value.decode() if value is not None else None))
        raise AssertionError(f"{topic} not read to its end within 15 s")
    finally:
        consumer.close()


class Ticker:
    """Appends a `tick` record at most every TICK_S, to roll the active segment (see the module's docstring)."""

    def __init__(self, producer: Producer, topic: str) -> None:
        self.producer = producer
        self.topic = topic
        self.last = time.monotonic()
        self.count = 0

    def __call__(self) -> None:
        if time.monotonic() - self.last >= TICK_S:
            self.count += 1
            self.producer.produce(self.topic, key=b"tick", value=f"t{self.count}{TICK_PADDING}".encode())
            assert self.producer.flush(15) == 0
            self.last = time.monotonic()


def cleaned_passes(runner: ClusterRunner, topic: str, since_ns: int = 0) -> list[tuple[SpanRecord, SpanRecord]]:
    """(CL.work, CL.clean) of every pass that cleaned the topic's partition 0 (and began after `since_ns`)."""
    spans = broker_spans(runner)
    passes = []
    for clean in spans.where(step="CL.clean", kafka__topic=topic, kafka__partition=0):
        if clean.start_ns < since_ns:
            continue
        work = [s for s in spans.where(step="CL.work", trace_id=clean.trace_id) if s.span_id == clean.parent_id]
        if work:
            passes.append((work[0], clean))
    return passes


def check_counts(passes: list[tuple[SpanRecord, SpanRecord]], version: str) -> tuple[SpanRecord, SpanRecord]:
    """Every pass is a trace of its own (CL.work its root) of the expected version, its CL.clean counting what it
    read, kept and removed; returns the first pass that removed records (a pass over a segment whose keys are all
    new removes none)."""
    for work, clean in passes:
        assert work.parent_id == "" and work.attributes["kafka.origin.version"] == version
        attrs = clean.attributes
        assert attrs["kafka.origin.version"] == version
        assert attrs["kafka.cleaner.records.removed"] == (attrs["kafka.cleaner.records.read"]
                                                          - attrs["kafka.cleaner.records.kept"])
        assert attrs["kafka.cleaner.bytes.removed"] == (attrs["kafka.cleaner.bytes.read"]
                                                        - attrs["kafka.cleaner.bytes.kept"])
    removing = [(work, clean) for work, clean in passes
                if clean.attributes["kafka.cleaner.records.read"] > clean.attributes["kafka.cleaner.records.kept"] > 0]
    assert removing, f"no pass removed records: {[clean.attributes for _, clean in passes]}"
    work, clean = removing[0]
    assert clean.attributes["kafka.cleaner.bytes.removed"] > 0
    return work, clean


@pytest.mark.parametrize("policy", ["compact", "compact,delete"])
def test_a_compacted_topic_keeps_the_newest_record_of_each_key_and_drops_its_tombstones(
        cluster: ClusterRunner, policy: str) -> None:
    require_cleaner(cluster)
    bootstrap = bootstrap_of(cluster)
    topic = create_topic(cluster, policy)

    # several values per key, then tombstones for some keys: one batch each (segment.bytes is small)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 0})
    newest: dict[str, str | None] = {}
    for r in range(ROUNDS):
        for key in KEYS:
            newest[key] = f"{key}-v{r}"
            producer.produce(topic, key=key.encode(), value=newest[key].encode())
            assert producer.flush(15) == 0
    for key in TOMBSTONED:
        newest[key] = None
        producer.produce(topic, key=key.encode(), value=None)
        assert producer.flush(15) == 0
    written = len(KEYS) * ROUNDS + len(TOMBSTONED)
    tick = Ticker(producer, topic)

    def data(records: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        return [(k, v) for k, v in records if k != "tick"]

    # compacted: one record per key, the newest; a tombstoned key's is its tombstone, or nothing once it went
    expected_live = {k: v for k, v in newest.items() if v is not None}

    def compacted() -> list[tuple[str, str | None]] | None:
        tick()
        records = data(read_from_start(bootstrap, topic))
        keys = [k for k, _ in records]
        if len(keys) != len(set(keys)):
            return None
        values = dict(records)
        if {k: v for k, v in values.items() if v is not None} != expected_live:
            return None
        return records if all(values.get(k) is None for k in TOMBSTONED) else None

    records = wait_until(compacted, DEADLINE_S, f"{topic} compacted to the newest record of each key")
    assert len(records) < written

    # after delete.retention.ms the tombstones go too: the newest record of every live key and nothing else
    def without_tombstones() -> list[tuple[str, str | None]] | None:
        tick()
        records = data(read_from_start(bootstrap, topic))
        return records if sorted(records) == sorted(expected_live.items()) else None

    wait_until(without_tombstones, DEADLINE_S, f"{topic}'s tombstones gone after delete.retention.ms")

    # each pass that cleaned the partition is a CL.work trace of its own, its CL.clean counting what it removed
    version = ORIGIN_VERSION[mode_of(cluster)]
    passes = wait_until(lambda: cleaned_passes(cluster, topic), 10, f"a CL.work trace cleaning {topic}")
    assert passes[0][1].attributes["kafka.cleaner.first_dirty_offset"] == 0, [
        (clean.start_ns, clean.attributes) for _, clean in passes]
    work, clean = check_counts(passes, version)
    in_trace = broker_spans(cluster).where(trace_id=work.trace_id)
    assert [s.step for s in in_trace.children_of(work)] == ["CL.grab", "CL.clean", "CL.done", "CL.delete"]
    assert {s.step for s in in_trace.children_of(clean)} == {"CL.map", "CL.group", "CL.segments"}
    done = in_trace.where(step="CL.done").first()
    assert done.attributes["kafka.cleaner.checkpoint"] == done.attributes["kafka.cleaner.end_offset"]
    swaps = in_trace.where(step="CL.swap")
    assert swaps and all(s.name == ("Log.replaceSegments" if version == "1.0.2" else "UnifiedLog.replaceSegments")
                         for s in swaps)
    # a compact,delete log also gets its retention applied after the clean (both versions; 3.9 every compacted log)
    if policy == "compact,delete":
        deletes = broker_spans(cluster).where(step="CL.delete")
        assert any(f"{topic}-0" in s.attributes.get("kafka.cleaner.deletable", []) for s in deletes)


def test_consumer_offsets_is_compacted(cluster: ClusterRunner) -> None:
    require_cleaner(cluster)
    bootstrap = bootstrap_of(cluster)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = create_topic(cluster, "delete")
    group = f"committer-{uuid.uuid4().hex[:6]}"
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    commits = 0
    since_ns = time.time_ns()
    try:
        # one key (group, topic, partition) committed over and over: every commit but the last is garbage
        def a_pass_cleaned_consumer_offsets() -> list[tuple[SpanRecord, SpanRecord]]:
            nonlocal commits
            for _ in range(20):
                commits += 1
                consumer.commit(offsets=[TopicPartition(topic, 0, commits)], asynchronous=False)
            return cleaned_passes(cluster, "__consumer_offsets", since_ns)

        passes = wait_until(a_pass_cleaned_consumer_offsets, DEADLINE_S, "a cleaner pass over __consumer_offsets")
        [committed] = consumer.committed([TopicPartition(topic, 0)], timeout=15)
        assert committed.offset == commits
    finally:
        consumer.close()

    config = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, "__consumer_offsets")])
    [described] = config.values()
    assert described.result(30)["cleanup.policy"].value == "compact"
    check_counts(passes, ORIGIN_VERSION[mode_of(cluster)])
