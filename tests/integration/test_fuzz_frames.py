"""Our own test code, not a Kafka port: a broker no client can take down (issue 26).

One broker of each mode (ZooKeeper mode's 1.0.2 broker; a KRaft 3.9 broker with its controller), started as users
start it, with the default memory bound (KAFKA_HEAP_OPTS unset: -Xmx1G, kafka_edu/cluster_runner/heap.py):

- CreateTopics asking for more partitions than the memory bound holds gets an error answer, as Kafka's does, leaves
  no topic behind, and the broker serves the next request;
- mutated request frames of every API the broker advertises (ApiVersions), built from valid requests of each
  advertised version and mutated with a seeded RNG (the mutations of test_request_path_bad_input.py: bit flips,
  byte runs, truncations, lying sizes, lengths and counts, unknown keys and versions, garbage), sent over several
  connections: each frame is answered or its connection closed, never left hanging; every few hundred frames the
  broker's (and controller's) resident memory is under the bound and a bystander's produce is acknowledged; at the
  end every record acknowledged is read back at its offset.

The default fuzz sends FUZZ_FRAMES frames a mode; the long_run variant FUZZ_FRAMES_PER_KIND of every kind:
`pytest -m long_run tests/integration/test_fuzz_frames.py` (docs/request-path.md gives its duration).
"""

from __future__ import annotations

import dataclasses
import datetime
import errno
import random
import struct
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kafka_wire import WireConnection
from kio.serial._introspect import (
    EntityField,
    EntityTupleField,
    PrimitiveTupleField,
    classify_field,
    get_schema_field_type,
)

from kafka_edu.cluster_runner.heap import DEFAULT_HEAP_OPTS, HEAP_OPTS_ENV, max_heap_bytes
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords, build_batch
from kafka_edu.v3_9.clients.common.protocol import ApiKeys, Errors, encode_request
from kafka_edu.v3_9.clients.common.protocol.builder import build
from tests.integration.helpers import wait_until, zookeeper_client
from tests.integration.test_request_path_bad_input import fuzz_connection, mutate

BOUND = max_heap_bytes(DEFAULT_HEAP_OPTS)
ACKED_TOPIC = "acked-before-fuzz"
FUZZ_FRAMES = 10_000
FUZZ_FRAMES_PER_KIND = 10_000
HEALTH_EVERY = 400  # frames between two checks of memory and health
WORKERS = 4  # connections at a time
SEED = 20261130
# Requests Kafka may hold until a wait of the request's own ends (a mutated max wait or rebalance timeout): a
# connection whose frames include one of these may go unanswered for the fuzzer's whole deadline. And one Kafka 3.9
# never answers: a WriteTxnMarkers whose first marker is appended and a later one names only partitions the broker
# has not got (handleWriteTxnMarkersRequest counts the skipped marker down without sending the response; the port
# does the same).
WAITING_APIS = {ApiKeys.FETCH, ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.PRODUCE, ApiKeys.CREATE_TOPICS,
                ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DELETE_RECORDS, ApiKeys.WRITE_TXN_MARKERS}


# -- the cluster -------------------------------------------------------------------------------------------------------

@dataclass
class Cluster:
    runner: ClusterRunner
    mode: str
    address: tuple[str, int]
    bounded: dict[str, int]  # the processes under the memory bound, by name: pid
    acked: list[tuple[int, bytes]] = field(default_factory=list)  # (offset, value) of every acknowledged record


@pytest.fixture(scope="module", params=["zk", "kraft"])
def cluster(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            ) -> Iterator[Cluster]:
    mode = request.param
    traces = tmp_path_factory.mktemp(f"fuzz-{mode}") / "traces"
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(HEAP_OPTS_ENV, raising=False)  # the default bound, as users get it
        if mode == "zk":
            runner = ClusterRunner.up(1, traces, overrides=["kafka.edu.advertised.api.versions=latest"])
        else:
            runner = ClusterRunner.up(1, traces, mode="kraft", controllers=1, timeout_s=120)
    try:
        processes = [p for p in runner.run.read_manifest()["processes"] if p["role"] in ("broker", "controller")]
        broker = next(p for p in processes if p["role"] == "broker")
        made = Cluster(runner, mode, ("127.0.0.1", int(broker["port"])),
                       {f"{p['role']}-{p['id']}": p["pid"] for p in processes})
        with WireConnection(made.address, timeout_s=60) as conn:
            response = conn.request(ApiKeys.CREATE_TOPICS, 2, create_topics(ACKED_TOPIC, 1, version=2))
            assert [Errors.for_code(t.error_code) for t in response.topics] == [Errors.NONE]
            wait_until(lambda: produce_one(conn, made, b"before-0") is not None, 60, f"{ACKED_TOPIC} to take records")
        yield made
    finally:
        runner.down()


def create_topics(name: str, partitions: int, version: int = 0) -> Any:
    return build(ApiKeys.CREATE_TOPICS.request_schema(version), timeout=30000, validate_only=False, topics=[
        dict(name=name, num_partitions=partitions, replication_factor=1, assignments=[], configs=[])])


def produce_one(conn: WireConnection, cluster: Cluster, value: bytes) -> int | None:
    """Produce one record to ACKED_TOPIC (acks=1): its offset, recorded as acknowledged, or None if refused."""
    # a timestamp of now: an older one would have retention.ms delete the record before it is read back
    batch = build_batch([value], timestamp_ms=int(time.time() * 1000))
    body = build(ApiKeys.PRODUCE.request_schema(3), transactional_id=None, acks=1, timeout=30000, topic_data=[
        dict(name=ACKED_TOPIC, partition_data=[dict(index=0, records=batch)])])
    ((partition,),) = [t.partition_responses for t in conn.request(ApiKeys.PRODUCE, 3, body).responses]
    if Errors.for_code(partition.error_code) is not Errors.NONE:
        return None
    cluster.acked.append((partition.base_offset, value))
    return partition.base_offset


def resident_bytes(pid: int) -> int:
    """VmRSS of a live process (AssertionError if it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        raise AssertionError(f"process {pid} is gone") from None
    (line,) = [line for line in status.splitlines() if line.startswith("VmRSS:")]
    return int(line.split()[1]) * 1024


class MemoryWatch:
    """The highest resident memory of each bounded process, sampled every 50 ms while the block runs."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.peak = {name: 0 for name in cluster.bounded}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="memory-watch", daemon=True)

    def _sample(self) -> None:
        while True:
            for name, pid in self.cluster.bounded.items():
                try:
                    self.peak[name] = max(self.peak[name], resident_bytes(pid))
                except AssertionError:
                    pass  # checked by assert_healthy
            if self._stop.wait(0.05):
                return

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def assert_under_bound(self) -> None:
        over = {name: peak for name, peak in self.peak.items() if peak >= BOUND}
        assert not over, f"resident memory above the {BOUND} byte bound: {over}"


def assert_healthy(cluster: Cluster, conn: WireConnection, label: str) -> None:
    """Every bounded process is alive and under the bound; the bystander's ApiVersions is answered and its produce
    acknowledged."""
    for name, pid in cluster.bounded.items():
        rss = resident_bytes(pid)
        assert rss < BOUND, f"{label}: {name} resident {rss} bytes, bound {BOUND}"
    assert conn.request(ApiKeys.API_VERSIONS, 0, build(ApiKeys.API_VERSIONS.request_schema(0))).error_code == 0
    assert produce_one(conn, cluster, f"{label}-{len(cluster.acked)}".encode()) is not None, label


def delete_fuzz_topics(cluster: Cluster, conn: WireConnection) -> list[Errors]:
    """Delete every topic the fuzz made so far (all but ACKED_TOPIC and the internal ones), as an operator would:
    mutated counts grow a topic by up to 10,000 partitions a request (3.9's MAX_RECORDS_PER_USER_OP), and over
    hundreds of thousands of frames they would take every file descriptor the broker has. In ZooKeeper mode with a
    timeout of 0: 1.0.2 answers REQUEST_TIMED_OUT at once and deletes in the background (a topic assigned to a broker
    that does not exist waits for it forever, as Kafka's TopicDeletionManager makes it). The answers' other errors
    are returned, not judged: cleaning up is not what is tested."""
    every = build(ApiKeys.METADATA.request_schema(1), topics=None)
    names = [t.name for t in conn.request(ApiKeys.METADATA, 1, every).topics
             if t.name != ACKED_TOPIC and not t.is_internal]
    if not names:
        return []
    zk = cluster.mode == "zk"
    body = build(ApiKeys.DELETE_TOPICS.request_schema(1), topic_names=names, timeout=0 if zk else 30000)
    expected = {Errors.NONE, Errors.UNKNOWN_TOPIC_OR_PARTITION} | ({Errors.REQUEST_TIMED_OUT} if zk else set())
    errors = [Errors.for_code(r.error_code) for r in conn.request(ApiKeys.DELETE_TOPICS, 1, body).responses]
    return [e for e in errors if e not in expected]


def read_back(cluster: Cluster) -> list[tuple[int, bytes]]:
    """Every record of ACKED_TOPIC-0 up to the last acknowledged offset, read with Fetch v4 (from the replica the
    broker leads: no metadata involved)."""
    end = max(offset for offset, _ in cluster.acked) + 1
    read: list[tuple[int, bytes]] = []
    with WireConnection(cluster.address, timeout_s=30) as conn:
        while not read or read[-1][0] + 1 < end:
            fetch_offset = read[-1][0] + 1 if read else 0
            body = build(ApiKeys.FETCH.request_schema(4), replica_id=-1, max_wait=100, min_bytes=1,
                         max_bytes=1 << 20, isolation_level=0, topics=[dict(topic=ACKED_TOPIC, partitions=[
                             dict(partition=0, fetch_offset=fetch_offset, partition_max_bytes=1 << 20)])])
            ((partition,),) = [t.partitions for t in conn.request(ApiKeys.FETCH, 4, body).responses]
            assert Errors.for_code(partition.error_code) is Errors.NONE
            for batch in MemoryRecords(partition.records or b"").batches():
                read.extend((r.offset, r.value) for r in batch.records() if r.offset >= fetch_offset)
    return read


def assert_acked_records_read_back(cluster: Cluster) -> None:
    read = dict(read_back(cluster))
    missing = [(offset, value) for offset, value in cluster.acked if read.get(offset) != value]
    assert not missing, f"{len(missing)} acknowledged records not read back at their offsets: {missing[:5]}"


def topic_names(conn: WireConnection, *names: str) -> dict[str, Errors]:
    body = build(ApiKeys.METADATA.request_schema(4), topics=[dict(name=n) for n in names],
                 allow_auto_topic_creation=False)
    return {t.name: Errors.for_code(t.error_code) for t in conn.request(ApiKeys.METADATA, 4, body).topics}


# -- CreateTopics past the memory bound --------------------------------------------------------------------------------

# What Kafka answers. 1.0.2: AdminManager.createTopics turns whatever assignReplicasToBrokers or the ZooKeeper write
# throws (an OutOfMemoryError past -Xmx; ZooKeeper refusing a 15 MB assignment past jute.maxbuffer) into the topic's
# UNKNOWN_SERVER_ERROR. 3.9: StripedReplicaPlacer sizes its list for 2^31-1 partitions up front (OutOfMemoryError: an
# unexpected error, UNKNOWN_SERVER_ERROR, and the controller fails over); 2^20 partitions fit, but their records
# overflow the controller's BoundedList of MAX_RECORDS_PER_USER_OP (POLICY_VIOLATION).
# The answer's deadline. On an idle machine: ZooKeeper mode 8 s (2^31-1: the assignment grows to the bound) and 10 s
# (2^20: ZooKeeper refuses the write); KRaft 0.3 s and 13 s (2^20: a million partition registrations are built before
# the records overflow); on a loaded machine the last one passes the broker's 30 s forwarding timeout, and the
# forwarded request is sent again.
ANSWER_WITHIN_S = 120
# On a loaded machine the KRaft 2^20 case outlasts the broker's forwarding timeout, and the request sent again then
# starts past its own deadline: REQUEST_TIMED_OUT, the answer Kafka gives a request its controller was too slow for.
EXPECTED = {("zk", 2**31 - 1): {Errors.UNKNOWN_SERVER_ERROR}, ("zk", 2**20): {Errors.UNKNOWN_SERVER_ERROR},
            ("kraft", 2**31 - 1): {Errors.UNKNOWN_SERVER_ERROR},
            ("kraft", 2**20): {Errors.POLICY_VIOLATION, Errors.REQUEST_TIMED_OUT}}


@pytest.mark.parametrize("partitions", [2**31 - 1, 2**20], ids=["2^31-1", "2^20"])
def test_create_topics_past_the_memory_bound_fails_alone_and_the_broker_serves_on(cluster, partitions):
    name = f"huge-{partitions}"
    with WireConnection(cluster.address, timeout_s=ANSWER_WITHIN_S) as bystander, MemoryWatch(cluster) as watch:
        with WireConnection(cluster.address, timeout_s=ANSWER_WITHIN_S) as conn:
            started = time.monotonic()
            (result,) = conn.request(ApiKeys.CREATE_TOPICS, 0, create_topics(name, partitions)).topics
            print(f"\n[{cluster.mode}] CreateTopics v0 of {partitions} partitions answered "
                  f"{Errors.for_code(result.error_code).name} after {time.monotonic() - started:.1f} s")
            assert result.name == name
            assert Errors.for_code(result.error_code) in EXPECTED[cluster.mode, partitions]
            # the same connection is served next, and so is a client that was connected all along
            assert topic_names(conn, name) == {name: Errors.UNKNOWN_TOPIC_OR_PARTITION}
        assert_healthy(cluster, bystander, f"after-{name}")
    print(f"[{cluster.mode}] peak resident { {n: peak >> 20 for n, peak in watch.peak.items()} } MB")
    watch.assert_under_bound()
    if cluster.mode == "zk":
        with zookeeper_client(cluster.runner) as zk:
            assert zk.exists(f"/brokers/topics/{name}") is None
    # Nothing half-made stands in the name's way. In ZooKeeper mode the refused 15 MB write can cost the broker its
    # ZooKeeper session (ZooKeeper drops the connection): a create is refused until the broker has a new one.
    with WireConnection(cluster.address, timeout_s=ANSWER_WITHIN_S) as conn:
        def created() -> bool:
            (result,) = conn.request(ApiKeys.CREATE_TOPICS, 0, create_topics(name, 1)).topics
            return Errors.for_code(result.error_code) in (Errors.NONE, Errors.TOPIC_ALREADY_EXISTS)
        wait_until(created, ANSWER_WITHIN_S, f"{name} to be created with one partition")

        def partitions() -> int:
            (metadata,) = conn.request(ApiKeys.METADATA, 1, build(ApiKeys.METADATA.request_schema(1),
                                                                   topics=[dict(name=name)])).topics
            return len(metadata.partitions)
        wait_until(lambda: partitions() == 1, 60, f"{name} to have its one partition")


# -- mutated frames ----------------------------------------------------------------------------------------------------

def advertised(address: tuple[str, int]) -> dict[ApiKeys, tuple[int, int]]:
    with WireConnection(address) as conn:
        versions = conn.request(ApiKeys.API_VERSIONS, 0, build(ApiKeys.API_VERSIONS.request_schema(0)))
    return {ApiKeys(v.api_key): (v.min_version, v.max_version) for v in versions.api_keys}


def _primitive(kind: str, rng: random.Random) -> Any:
    """A valid value of a schema's primitive type: small numbers and waits, names of the fuzz's own topics, groups
    and ids (never ACKED_TOPIC, never a node's id), one-record batches."""
    if kind == "string":
        return f"fuzz-{rng.randrange(4)}"
    if kind == "records":
        return build_batch([b"fuzz-value"], keys=[b"fuzz-key"])
    if kind == "bytes":
        return b"fuzz"
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "uuid":
        return uuid.UUID(int=rng.getrandbits(128))
    if kind == "float64":
        return 1.0
    if kind.startswith("timedelta"):
        return datetime.timedelta(milliseconds=rng.choice([0, 100]))
    if kind == "datetime_i64":
        return datetime.datetime.fromtimestamp(0, datetime.UTC)
    # Numbers no single bit flip turns into a node id of these clusters (0, 1, 2): an UnregisterBroker or
    # ControlledShutdown naming the broker does to it what Kafka does, without an authorizer: take it out.
    return rng.choice([24, 40])


def sample_body(schema: type[Any], rng: random.Random) -> Any:
    """A well-formed request body of any API and version: one or two entries in each array, each field valid."""
    values = {}
    for f in dataclasses.fields(schema):
        kind = classify_field(f)
        if isinstance(kind, EntityTupleField):
            values[f.name] = tuple(sample_body(kind.type_, rng) for _ in range(rng.randint(1, 2)))
        elif isinstance(kind, PrimitiveTupleField):
            values[f.name] = tuple(_primitive(get_schema_field_type(f), rng) for _ in range(rng.randint(1, 2)))
        elif isinstance(kind, EntityField):
            values[f.name] = sample_body(kind.type_, rng)
        else:
            value = _primitive(get_schema_field_type(f), rng)
            values[f.name] = kind.type_.parse(value) if hasattr(kind.type_, "parse") else value
    return schema(**values)


def seeds(apis: dict[ApiKeys, tuple[int, int]], rng: random.Random) -> dict[ApiKeys, list[bytes]]:
    """Two valid size-stripped requests of each advertised version of each advertised API."""
    return {api: [encode_request(api, version, rng.randrange(1, 2**31 - 1), "fuzz",
                                 sample_body(api.request_schema(version), rng))
                  for version in range(low, high + 1) for _ in range(2)]
            for api, (low, high) in apis.items()}


@dataclass
class Case:
    kind: ApiKeys
    frames: list[tuple[bytes, bool]]

    def may_wait(self) -> bool:
        """A frame of it names an API whose answer may wait for the request's own (mutated) timeout."""
        keys = {struct.unpack_from(">h", f, 4)[0] for f, _ in self.frames if len(f) >= 6}
        return any(int(api) in keys for api in WAITING_APIS)


def plan(apis: dict[ApiKeys, tuple[int, int]], frames_per_kind: int, rng: random.Random) -> list[Case]:
    """Cases of one to three frames of one kind, every kind in turn, about `frames_per_kind` frames each: most
    mutated, one in ten sent as built."""
    by_kind = seeds(apis, rng)
    kinds = sorted(by_kind, key=int)
    cases, sent = [], dict.fromkeys(kinds, 0)
    while min(sent.values()) < frames_per_kind:
        for kind in kinds:
            frames = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                seed = rng.choice(by_kind[kind])
                frames.append((struct.pack(">i", len(seed)) + seed, True) if rng.random() < 0.1
                              else mutate(rng, seed))
            cases.append(Case(kind, frames))
            sent[kind] += len(frames)
    return cases


def exchange(address: tuple[str, int], frames: list[tuple[bytes, bool]]) -> tuple[str, int]:
    """fuzz_connection, with a connection the broker closed before our half-close counted as reset."""
    try:
        return fuzz_connection(address, frames)
    except TimeoutError:
        return "hung", 0
    except OSError as e:
        if e.errno in (errno.ENOTCONN, errno.ECONNRESET, errno.EPIPE):
            return "reset", 0
        raise


@dataclass
class FuzzReport:
    frames: int = 0
    answered: int = 0
    endings: dict[str, int] = field(default_factory=lambda: {"closed": 0, "reset": 0, "hung": 0})
    hung_kinds: list[str] = field(default_factory=list)
    checks: int = 0
    cleanup_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def fuzz(cluster: Cluster, frames_per_kind: int, any_kind_may_wait: bool = False) -> FuzzReport:
    """Send the planned cases, checking memory and health every HEALTH_EVERY frames. A connection left waiting must
    hold a request of WAITING_APIS, unless `any_kind_may_wait`: over hundreds of thousands of frames some mutated
    count creates thousands of partitions (the KRaft long run met a topic of 4,000+), which the port takes minutes
    to make while other requests wait past the fuzzer's 10 s deadline; those are counted, listed, and bounded."""
    rng = random.Random(SEED)
    apis = advertised(cluster.address)
    assert ApiKeys.CREATE_TOPICS in apis and ApiKeys.PRODUCE in apis
    cases = plan(apis, frames_per_kind, rng)
    report = FuzzReport()
    started = time.monotonic()
    with WireConnection(cluster.address, timeout_s=60) as bystander, MemoryWatch(cluster) as watch, \
            ThreadPoolExecutor(WORKERS) as pool:
        batch: list[Case] = []
        for case in cases:
            batch.append(case)
            if sum(len(c.frames) for c in batch) < HEALTH_EVERY and case is not cases[-1]:
                continue
            for done, (ending, answered) in zip(batch, pool.map(
                    lambda c: exchange(cluster.address, c.frames), batch), strict=True):
                report.endings[ending] += 1
                report.answered += answered
                if ending == "hung":
                    report.hung_kinds.append(done.kind.name)
                    assert any_kind_may_wait or done.may_wait(), \
                        f"a {done.kind.name} case was left hanging: {done.frames}"
            report.frames += sum(len(c.frames) for c in batch)
            batch = []
            assert_healthy(cluster, bystander, f"after-{report.frames}-frames")
            report.checks += 1
            report.cleanup_errors.extend(e.name for e in delete_fuzz_topics(cluster, bystander))
    watch.assert_under_bound()
    report.seconds = time.monotonic() - started
    assert report.frames >= frames_per_kind * len(apis)
    assert report.answered > report.frames // 10, report
    # a long wait is the exception: almost every connection is answered or closed at once
    assert report.endings["hung"] <= report.frames // 500, report
    assert_acked_records_read_back(cluster)
    print(f"\n[{cluster.mode}] {report.frames} frames of {len(apis)} kinds in {report.seconds:.0f} s: "
          f"{report.answered} answers, endings {report.endings}, {report.checks} health checks, "
          f"{len(cluster.acked)} records acknowledged and read back; waiting: {sorted(set(report.hung_kinds))}; "
          f"fuzz topics deleted at each check, refused {len(report.cleanup_errors)} times "
          f"{sorted(set(report.cleanup_errors))}; "
          f"peak resident "
          f"{ {name: peak >> 20 for name, peak in watch.peak.items()} } MB")
    return report


def test_mutated_frames_of_every_advertised_kind_are_answered_or_closed(cluster):
    fuzz(cluster, -(-FUZZ_FRAMES // len(advertised(cluster.address))))


@pytest.mark.long_run
def test_ten_thousand_mutated_frames_of_every_advertised_kind(cluster):
    fuzz(cluster, FUZZ_FRAMES_PER_KIND, any_kind_may_wait=True)
