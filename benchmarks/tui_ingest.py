"""Can the TUI keep up? Replays synthetic spans into the real app (headless) and measures three things:

- bulk ingestion: 100,000 spans already on disk, from attach to all of them in the store (spans/s);
- live ingestion: a writer appending 2,000 spans/s (ends and starts, as brokers do) for a few seconds, and how long
  each batch takes to reach the store (the budget is 250 ms from the span's end);
- frame time: with 100,000 spans held, one keypress in the trace list and in the waterfall, to the next frame.

Spans are cloned from the committed sample `traces/samples/produce` (real names, attributes and trace shapes), with
fresh ids and times.

    python benchmarks/tui_ingest.py [--spans 100000] [--rate 2000] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui.app import KafkaEduApp  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "traces" / "samples" / "produce"
SPANS_PER_LINE = 64  # the exporter writes one TracesData line per batch


def sample_traces() -> tuple[dict[str, Any], list[list[dict[str, Any]]]]:
    """The sample's resource block and its traces as lists of OTLP span dicts."""
    resource: dict[str, Any] = {}
    traces: dict[str, list[dict[str, Any]]] = {}
    for line in (SAMPLE / "broker-0.jsonl").read_text().splitlines():
        for rs in json.loads(line)["resourceSpans"]:
            resource = rs["resource"]
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    traces.setdefault(s["traceId"], []).append(s)
    return resource, list(traces.values())


class SpanFactory:
    """Clones of the sample's traces with new ids, laid out one after another in time."""

    def __init__(self) -> None:
        self.resource, self.templates = sample_traces()
        self.counter = 0
        self.clock = time.time_ns()

    def trace(self) -> list[dict[str, Any]]:
        template = self.templates[self.counter % len(self.templates)]
        self.counter += 1
        trace_id = f"{self.counter:032x}"
        base = min(int(s["startTimeUnixNano"]) for s in template)
        ids = {s["spanId"]: f"{self.counter:08x}{i:08x}" for i, s in enumerate(template)}
        spans = []
        for s in template:
            clone = copy.copy(s)
            clone["traceId"], clone["spanId"] = trace_id, ids[s["spanId"]]
            clone["parentSpanId"] = ids.get(s.get("parentSpanId", ""), "")
            clone["startTimeUnixNano"] = str(int(s["startTimeUnixNano"]) - base + self.clock)
            clone["endTimeUnixNano"] = str(int(s["endTimeUnixNano"]) - base + self.clock)
            spans.append(clone)
        self.clock += 1_000_000
        return spans

    def lines(self, count: int) -> tuple[list[str], list[str]]:
        """About `count` spans as (span-file lines, start-file lines)."""
        ended, starts, batch = [], [], []
        made = 0
        while made < count:
            spans = self.trace()
            made += len(spans)
            batch.extend(spans)
            starts.extend(json.dumps({"traceId": s["traceId"], "spanId": s["spanId"], "parentSpanId": s["parentSpanId"],
                                      "name": s["name"], "startTimeUnixNano": s["startTimeUnixNano"],
                                      "attributes": {}}) for s in spans)
            if len(batch) >= SPANS_PER_LINE or made >= count:
                ended.append(json.dumps({"resourceSpans": [{"resource": self.resource, "scopeSpans": [
                    {"scope": {"name": "kafka_edu"}, "spans": batch}]}]}))
                batch = []
        return ended, starts


def write_run(run_dir: Path, stopped: bool) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "manifest.json").write_text(json.dumps({
        "run_id": run_dir.name, "mode": "zk", "stopped_at": "2026-01-01T00:00:00" if stopped else None,
        "processes": [{"role": "broker", "id": 0, "pid": os.getpid(), "port": 0, "state": "RunningAsBroker"}]}))


async def bulk(spans: int) -> tuple[float, int, list[float], list[float]]:
    """(seconds to ingest, spans held, trace-list frame times, waterfall frame times)."""
    factory = SpanFactory()
    with tempfile.TemporaryDirectory() as scratch:
        run_dir = Path(scratch) / "bulk"
        write_run(run_dir, stopped=True)
        ended, starts = factory.lines(spans)
        (run_dir / "broker-0.jsonl").write_text("\n".join(ended) + "\n")
        (run_dir / "broker-0.starts.jsonl").write_text("\n".join(starts) + "\n")
        app = KafkaEduApp(run_dir, watch=False, max_spans=spans)
        began = time.perf_counter()
        async with app.run_test(size=(160, 50)) as pilot:
            while not app.loaded.is_set():
                await pilot.pause(0.01)
            elapsed = time.perf_counter() - began
            held = len(app.store)
            await pilot.pause(0.3)
            return elapsed, held, await frames(pilot, app.traces), await frames(pilot, app.waterfall)


async def frames(pilot: Any, pane: Any, presses: int = 100) -> list[float]:
    """CPU ms per keypress, to the next frame drawn. CPU rather than wall time: the pilot waits for the process to
    look idle after each key (textual._wait.wait_for_idle), and those waits are not the app's work."""
    pane.focus()
    await pilot.pause()
    times = []
    for i in range(presses):
        began = time.process_time()
        await pilot.press("j" if i % 20 < 10 else "k")
        await pilot.pause()  # the keypress handled and the screen refreshed
        times.append((time.process_time() - began) * 1000)
    return times


async def live(rate: int, seconds: float) -> tuple[list[float], int, int]:
    """Lags (ms) from a batch's write to its last span in the store; spans written; spans held."""
    factory = SpanFactory()
    with tempfile.TemporaryDirectory() as scratch:
        run_dir = Path(scratch) / "live"
        write_run(run_dir, stopped=False)
        (run_dir / "broker-0.jsonl").touch()
        (run_dir / "broker-0.starts.jsonl").touch()
        written: list[tuple[float, int]] = []  # (time written, spans written so far)
        done = threading.Event()

        def writer() -> None:
            tick, total = 0.05, 0
            with open(run_dir / "broker-0.jsonl", "a") as ends, open(run_dir / "broker-0.starts.jsonl", "a") as st:
                next_at = time.perf_counter()
                while total < rate * seconds:
                    ended, starts = factory.lines(int(rate * tick))
                    st.write("\n".join(starts) + "\n")
                    st.flush()
                    ends.write("\n".join(ended) + "\n")
                    ends.flush()
                    total += len(starts)
                    written.append((time.perf_counter(), total))
                    next_at += tick
                    time.sleep(max(next_at - time.perf_counter(), 0))
            done.set()

        app = KafkaEduApp(run_dir, watch=True)
        async with app.run_test(size=(160, 50)) as pilot:
            while not app.loaded.is_set():
                await pilot.pause(0.01)
            thread = threading.Thread(target=writer, daemon=True)
            thread.start()
            lags, seen = [], 0
            while not (done.is_set() and seen >= len(written)):
                await pilot.pause(0.005)
                now, held = time.perf_counter(), len(app.store)
                while seen < len(written) and held >= written[seen][1]:
                    lags.append((now - written[seen][0]) * 1000)
                    seen += 1
            return lags, written[-1][1], len(app.store)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * p), len(ordered) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--rate", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=5.0)
    options = parser.parse_args()

    elapsed, held, list_frames, waterfall_frames = asyncio.run(bulk(options.spans))
    print(f"bulk: {held:,} spans ingested in {elapsed:.2f} s = {held / elapsed:,.0f} spans/s")
    for name, times in (("trace list", list_frames), ("waterfall", waterfall_frames)):
        print(f"CPU per keypress and frame with {held:,} spans held, {name}: median {statistics.median(times):.1f} ms, "
              f"p95 {percentile(times, 0.95):.1f} ms, max {max(times):.1f} ms")
    lags, written, held = asyncio.run(live(options.rate, options.seconds))
    print(f"live: {options.rate:,} spans/s for {options.seconds:.0f} s: {written:,} written, {held:,} in the store; "
          f"write-to-store lag median {statistics.median(lags):.0f} ms, p95 {percentile(lags, 0.95):.0f} ms, "
          f"max {max(lags):.0f} ms (budget 250 ms, of which the exporter may use 100)")


if __name__ == "__main__":
    main()
