"""Our own code, not a Kafka port: what every gallery scenario shares. A fresh cluster whose processes live in
network namespaces of their own, the run's spans, the report a scenario hands back (the moment it found, with the
run's own numbers and trace ids), and a recorded sample for the site's run player."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner import network as net
from kafka_edu.cluster_runner.processes import process_alive, signal_process
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import SpanRecord, Spans, load_run

SAMPLES = Path(__file__).resolve().parents[2] / "traces" / "samples"
# A sample keeps the story, not the traffic: replicas' and consumers' Fetch long polls and the network processors'
# loop phases (traces of their own) would make a recording several times larger and draw nothing the story needs.
LEFT_OUT_APIS = frozenset({"Fetch"})


class GalleryError(RuntimeError):
    """A scenario that could not be played (its message is the one line to print)."""


@dataclass
class Report:
    """What a scenario found: whether its story happened (`ok`), the lines telling it with this run's numbers, and
    THE moment's span (step id, span name, trace id, the attribute that says it)."""

    name: str
    run_dir: Path
    ok: bool = False
    lines: list[str] = field(default_factory=list)
    moments: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    # a scenario told on more than one cluster: its other runs, by the suffix of their samples' names
    runs: dict[str, Path] = field(default_factory=dict)

    def say(self, line: str) -> None:
        self.lines.append(line)

    def moment(self, what: str, span: SpanRecord, attribute: str) -> None:
        self.moments.append({"what": what, "step": span.step, "span": span.name, "instance": span.instance,
                             "trace_id": span.trace_id, "attribute": attribute,
                             "value": span.attributes.get(attribute), "start_ns": span.start_ns})

    def text(self) -> str:
        out = [*self.lines]
        for m in self.moments:
            out.append(f"moment: {m['what']}: {m['step']} {m['span']} on {m['instance']}, "
                       f"{m['attribute']}={m['value']!r}, trace {m['trace_id']}")
        others = "".join(f", {suffix} run {path}" for suffix, path in self.runs.items())
        out.append(f"{'OK' if self.ok else 'NOT FOUND'}: run {self.run_dir}{others}")
        return "\n".join(out)


def netns_missing() -> str | None:
    """Why this machine cannot run a gallery scenario (None when it can)."""
    if os.geteuid() != 0:
        return "the gallery needs root: each process runs in a network namespace of its own (sudo -E kafka-edu ...)"
    if shutil.which("ip") is None or shutil.which("nft") is None:
        return "the gallery needs ip (iproute2) and nft (nftables)"
    return None


def wait_for(condition: Callable[[], Any], timeout_s: float, what: str, every_s: float = 0.2,
             default: bool = False) -> Any:
    """The condition's first true value, asked until the deadline; then GalleryError names what did not happen
    (with `default`, the last value is returned instead: the caller reports what is missing)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            if default:
                return value
            raise GalleryError(f"gave up after {timeout_s:.0f} s waiting for {what}")
        time.sleep(every_s)


@contextmanager
def fresh_run(traces_dir: Path, keep: bool, **up: Any) -> Iterator[ClusterRunner]:
    """A fresh netns cluster for one scenario; taken down at the end (processes, namespaces and rules), or with
    `keep` left running for the TUI (`kafka-edu cluster down --run DIR` ends it)."""
    runner = ClusterRunner.up(traces_dir=traces_dir, netns=True, timeout_s=90, **up)
    try:
        yield runner
    except BaseException:
        keep = False
        raise
    finally:
        if not keep:
            take_down(runner)


def take_down(runner: ClusterRunner) -> None:
    """`down`, then whatever it could not stop, so that nothing of the run outlives it."""
    try:
        runner.down()
    finally:
        manifest = runner.run.read_manifest()
        for entry in manifest["processes"]:
            if entry.get("pid") and process_alive(entry["pid"]):
                signal_process(entry["pid"], 9)
        if manifest.get("network"):
            net.teardown(manifest["network"])


def spans(runner: ClusterRunner) -> Spans:
    return load_run(runner.run.path)


def record_sample(run_dir: Path, name: str, report: Report, samples: Path = SAMPLES) -> Path:
    """The run as the site's player reads it: `traces/samples/gallery-<name>/`, every span file gzipped, the
    manifest and the report (`gallery.json`); no span-start files, logs or data."""
    target = samples / f"gallery-{name}"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    left_out = {s.trace_id for s in load_run(run_dir).where(name="RequestChannel.Request")
                if s.attributes.get("kafka.api.name") in LEFT_OUT_APIS}
    for path in sorted(run_dir.glob("*.jsonl")):
        if path.name.endswith(".starts.jsonl"):
            continue
        lines = [line for line in path.read_text(encoding="utf-8").splitlines(keepends=True) if line.endswith("\n")]
        with open(target / f"{path.name}.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write("".join(_trimmed(line, left_out) for line in lines).encode())

    # the runs' own paths mean nothing once copied: each becomes its sample's
    samples_of = {str(report.run_dir): f"gallery-{report.name}",
                  **{str(path): f"gallery-{report.name}-{suffix}" for suffix, path in report.runs.items()},
                  str(run_dir): target.name}

    def here(text: str) -> str:
        for path, sample in samples_of.items():
            text = text.replace(path, f"traces/samples/{sample}")
        return text
    (target / "manifest.json").write_text(here((run_dir / "manifest.json").read_text()))
    (target / "gallery.json").write_text(here(json.dumps(
        {"name": report.name, "ok": report.ok, "lines": report.lines, "moments": report.moments,
         "facts": report.facts}, indent=1, default=str) + "\n"))
    return target


def _trimmed(line: str, left_out: set[str]) -> str:
    """One OTLP/JSON line without the left-out requests' traces and the network processors' own traces."""
    doc = json.loads(line)
    for resource_spans in doc.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            scope_spans["spans"] = [s for s in scope_spans.get("spans", []) if s.get("traceId") not in left_out
                                    and not (s.get("name", "").startswith("Processor.") and not s.get("parentSpanId"))]
    return json.dumps(doc, separators=(",", ":")) + "\n"
