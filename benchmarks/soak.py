"""An hour-long class, compressed or not: does a traced 3-broker cluster stay within its trace budget under load and
faults, with tools that stay fast and nothing acknowledged lost?

One run: a 3-broker cluster (`kafka-edu cluster up`), a topic of 6 partitions with replication factor 3, one
idempotent acks=all producer at a stated rate and one consumer group reading along, for `--minutes`. Every
`--fault-every` minutes one broker (in turn) is killed with SIGKILL and started again `--down-for` seconds later,
as a teacher's `x` then `r` would. Printed once a minute, and as a summary at the end:

- trace bytes written per minute (every file of the run directory that holds spans) and the run directory's size;
- `cluster start` time of each restart (the start of the soak against its end: the state check must not slow down
  as the run's traces grow);
- TUI ingest lag: a `tui.reader.RunReader` polls the run directory as the TUI does, and for every span it reads
  the lag is the time from the span's end to the poll that delivered it (median, p95, max per minute);
- spans dropped (queue full: must stay 0), sampled out by the request-path policy, and dropped for the budget;
- at the end, every acknowledged record is read back by (partition, offset): lost records must be 0.

    python benchmarks/soak.py --minutes 60 --rate 2000          # the hour-long class
    python benchmarks/soak.py --minutes 20 --budget-mb 256       # what docs/long-runs.md records
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafka_edu.cluster_runner.runner import ClusterRunner  # noqa: E402
from kafka_edu.tracing.query import read_span_file_from  # noqa: E402
from tui.reader import RunReader  # noqa: E402

console = Console(width=None if sys.stdout.isatty() else 160)
TOPIC = "soak"
PARTITIONS = 6


@dataclass
class Minute:
    minute: int
    trace_bytes: int = 0  # span bytes written this minute (segments deleted since count with their last size)
    span_files_bytes: int = 0  # span files on disk at the end of the minute
    run_dir_bytes: int = 0  # the whole run directory on disk, Kafka's own logs included
    acked: int = 0
    lags_ms: list[float] = field(default_factory=list)
    dropped: int = 0
    sampled_out: int = 0
    budget_dropped: int = 0
    faults: list[str] = field(default_factory=list)


class SpanBytes:
    """Bytes ever written to the run's span files: each file counted at the largest size seen, so a segment the
    budget deleted still counts what it held."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.largest: dict[str, int] = {}
        self.on_disk = 0

    def sample(self) -> int:
        on_disk = 0
        for path in self.run_dir.glob("*.jsonl"):
            try:
                size = path.stat().st_size
            except OSError:
                continue
            on_disk += size
            self.largest[path.name] = max(size, self.largest.get(path.name, 0))
        self.on_disk = on_disk
        return sum(self.largest.values())


def dir_bytes(path: Path) -> int:
    """Disk used, as `du` counts it (Kafka's index files are preallocated and mostly holes)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


class SpanCounts:
    """dropped, sampled out and dropped for the budget since the run began: each broker process's last counts (a
    killed process's too: a restart starts its counts again)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.by_process: dict[tuple[str, int], tuple[int, int, int]] = {}

    def sample(self) -> tuple[int, int, int]:
        for path in self.run_dir.glob("broker-*.tracing.json"):
            try:
                stats = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            self.by_process[(path.name, stats.get("pid", 0))] = (
                stats.get("dropped_spans", 0), stats.get("sampled_out_spans", 0), stats.get("budget_dropped_spans", 0))
        totals = [sum(counts[i] for counts in self.by_process.values()) for i in range(3)]
        return totals[0], totals[1], totals[2]


class IngestLag(threading.Thread):
    """Polls the run as the TUI's reader does and records, for each span read, how long after its end it arrived."""

    def __init__(self) -> None:
        super().__init__(name="ingest-lag", daemon=True)
        self.reader: RunReader | None = None
        self.lags_ms: list[float] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.1):
            if self.reader is None:
                continue
            batch = self.reader.poll()
            now = time.time_ns()
            self.lags_ms.extend((now - s.end_ns) / 1e6 for s in batch.ended if s.end_ns)

    def take(self) -> list[float]:
        lags, self.lags_ms = self.lags_ms, []
        return lags


def broker_startup_s(runner: ClusterRunner, broker_id: int) -> float:
    """How long the broker's own KafkaServer.startup (LC.main.4) took in its new process: log recovery after a
    kill -9 grows with the data, which is Kafka's cost, not the runner's."""
    entry = runner.broker_entry(broker_id)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the span reaches the file within a few hundred ms of its end
        _, spans = read_span_file_from(runner.span_file(broker_id), entry.get("span_offset", 0))
        for s in spans:
            if s.step == "LC.main.4" and s.resource.get("process.pid") == entry["pid"]:
                return (s.end_ns - s.start_ns) / 1e9
        time.sleep(0.1)
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--rate", type=int, default=2000, help="records a second")
    parser.add_argument("--record-bytes", type=int, default=200)
    parser.add_argument("--fault-every", type=float, default=3.0, help="minutes between kill -9s")
    parser.add_argument("--down-for", type=float, default=20.0, help="seconds a killed broker stays down")
    parser.add_argument("--budget-mb", type=float, default=None, help="KAFKA_EDU_TRACE_BUDGET_MB for the brokers")
    parser.add_argument("--traces", type=Path, default=Path("traces"))
    options = parser.parse_args()
    if options.budget_mb is not None:
        os.environ["KAFKA_EDU_TRACE_BUDGET_MB"] = str(options.budget_mb)

    with console.status("Starting ZooKeeper and 3 brokers..."):
        runner = ClusterRunner.up(3, options.traces)
    run_dir = runner.run.path
    bootstrap = runner.run.read_manifest()["bootstrap_servers"]
    console.print(f"run directory: {run_dir}\nbootstrap servers: {bootstrap}")
    lag = IngestLag()
    lag.reader = RunReader(run_dir)
    lag.start()
    acked: dict[tuple[int, int], bytes] = {}
    errors: list[str] = []
    minutes: list[Minute] = []
    # (minute of the soak, seconds `cluster start` took, seconds of it the broker's own KafkaServer.startup took)
    start_times: list[tuple[float, float, float]] = []
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3, config={"min.insync.replicas": "2"})])[TOPIC].result()
        producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                             "linger.ms": 5, "message.timeout.ms": 120_000, "error_cb": lambda e: None,
                             "log_level": 2})  # brokers are killed on purpose: librdkafka's reconnect lines are noise
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "soak-readers",
                             "auto.offset.reset": "earliest", "error_cb": lambda e: None, "log_level": 2})
        consumer.subscribe([TOPIC])

        def delivered(err: KafkaError | None, msg) -> None:
            if err is None:
                acked[(msg.partition(), msg.offset())] = msg.value()
            else:
                errors.append(str(err))

        began = time.monotonic()
        end = began + options.minutes * 60
        next_fault = began + options.fault_every * 60
        restart_at: tuple[float, int] | None = None
        victim = 0
        sent = 0
        minute = Minute(1)
        written, counts = SpanBytes(run_dir), SpanCounts(run_dir)
        minute_started, last_bytes, last_sample = began, written.sample(), began
        acked_before = 0
        while (now := time.monotonic()) < end or restart_at is not None:
            # the producer keeps to its rate; the consumer reads along
            due = int((now - began) * options.rate) if now < end else sent
            while sent < due:
                value = f"{sent:012d}".encode().ljust(options.record_bytes, b".")
                try:
                    producer.produce(TOPIC, value, key=str(sent % 97).encode(), on_delivery=delivered)
                    sent += 1
                except BufferError:
                    break
            producer.poll(0)
            consumer.consume(500, 0.05)
            if now - last_sample >= 5:  # often enough to see every segment before the budget deletes it
                written.sample()
                counts.sample()
                last_sample = now
            if now >= next_fault and now < end and restart_at is None:
                runner.kill(victim)
                minute.faults.append(f"kill -9 broker {victim}")
                restart_at, next_fault = (now + options.down_for, victim), next_fault + options.fault_every * 60
            if restart_at is not None and now >= restart_at[0]:
                broker = restart_at[1]
                t0 = time.monotonic()
                runner.start(broker)
                runner.wait_for_state(broker, "RunningAsBroker", 120)
                took = time.monotonic() - t0
                start_times.append(((t0 - began) / 60, took, broker_startup_s(runner, broker)))
                minute.faults.append(f"restart broker {broker} ({took:.1f} s, of which KafkaServer.startup "
                                     f"{start_times[-1][2]:.1f} s)")
                restart_at, victim = None, (victim + 1) % 3
            if now - minute_started >= 60 or (now >= end and restart_at is None and now - minute_started > 1):
                total = written.sample()
                minute.trace_bytes, last_bytes = total - last_bytes, total
                minute.span_files_bytes = written.on_disk
                minute.run_dir_bytes = dir_bytes(run_dir)
                minute.acked, acked_before = len(acked) - acked_before, len(acked)
                minute.lags_ms = lag.take()
                minute.dropped, minute.sampled_out, minute.budget_dropped = counts.sample()
                minutes.append(minute)
                print_minute(minute)
                minute, minute_started = Minute(minute.minute + 1), now
        with console.status("Flushing the producer..."):
            producer.flush(120)
        consumer.close()
        lost = verify(bootstrap, acked)
    finally:
        lag.stopping.set()
        with console.status("Stopping the cluster..."):
            runner.down()
    summarize(minutes, start_times, len(acked), lost, errors, run_dir, options)
    return 0 if lost == 0 else 1


def verify(bootstrap: str, acked: dict[tuple[int, int], bytes]) -> int:
    """Read every partition from the start; an acknowledged (partition, offset) missing or changed is lost."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "soak-verify", "enable.auto.commit": False,
                         "log_level": 2})
    ends = {p: consumer.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30)[1] for p in range(PARTITIONS)}
    consumer.assign([TopicPartition(TOPIC, p, 0) for p in range(PARTITIONS)])
    seen: dict[tuple[int, int], bytes] = {}
    deadline = time.monotonic() + 300
    with console.status(f"Reading back {len(acked):,} acknowledged records..."):
        while time.monotonic() < deadline and any(
                max((o for (p2, o) in seen if p2 == p), default=-1) + 1 < ends[p] for p in range(PARTITIONS)):
            for msg in consumer.consume(10_000, 1.0):
                if msg.error() is None:
                    seen[(msg.partition(), msg.offset())] = msg.value()
    consumer.close()
    return sum(1 for key, value in acked.items() if seen.get(key) != value)


def print_minute(m: Minute) -> None:
    console.print(f"minute {m.minute:>3}: {m.trace_bytes / 1e6:6.1f} MB of spans written · span files "
                  f"{m.span_files_bytes / 1e6:6.1f} MB · run dir {m.run_dir_bytes / 1e6:7.1f} MB · {m.acked:,} acked · "
                  f"lag median "
                  f"{statistics.median(m.lags_ms) if m.lags_ms else 0:.0f} ms p95 {percentile(m.lags_ms, 0.95):.0f} "
                  f"ms · dropped {m.dropped} · sampled out {m.sampled_out:,} · budget {m.budget_dropped:,}"
                  + (f" · {'; '.join(m.faults)}" if m.faults else ""))


def summarize(minutes: list[Minute], start_times: list[tuple[float, float, float]], acked: int, lost: int,
              errors: list[str], run_dir: Path, options: argparse.Namespace) -> None:
    table = Table(title=f"Soak: {options.minutes:g} min, {options.rate:,} records/s of {options.record_bytes} B, "
                        f"kill -9 every {options.fault_every:g} min")
    table.add_column("figure")
    table.add_column("value", justify="right")
    trace = [m.trace_bytes for m in minutes]
    lags = [lag for m in minutes for lag in m.lags_ms]
    last = minutes[-1] if minutes else Minute(0)
    table.add_row("span bytes written per minute, median / max", f"{statistics.median(trace) / 1e6:.1f} / "
                  f"{max(trace) / 1e6:.1f} MB" if trace else "-")
    table.add_row("span files on disk: largest minute / at the end",
                  f"{max(m.span_files_bytes for m in minutes) / 1e6:.1f} / {last.span_files_bytes / 1e6:.1f} MB")
    table.add_row("run directory on disk at the end (Kafka's logs included)", f"{last.run_dir_bytes / 1e6:.1f} MB")
    for label, (at, took, startup) in (("first", start_times[0]), ("last", start_times[-1])) if start_times else ():
        table.add_row(f"cluster start, {label} restart (minute {at:.0f})",
                      f"{took:.1f} s, of which KafkaServer.startup {startup:.1f} s")
    table.add_row("TUI ingest lag, median / p95 / max", f"{statistics.median(lags) if lags else 0:.0f} / "
                  f"{percentile(lags, 0.95):.0f} / {max(lags, default=0):.0f} ms")
    table.add_row("spans dropped (queue full)", f"{last.dropped}")
    table.add_row("request spans sampled out / dropped for the budget",
                  f"{last.sampled_out:,} / {last.budget_dropped:,}")
    table.add_row("records acknowledged / lost", f"{acked:,} / {lost}")
    table.add_row("producer errors", f"{len(errors)}")
    console.print(table)
    console.print(f"run directory: {run_dir}")


if __name__ == "__main__":
    sys.exit(main())
