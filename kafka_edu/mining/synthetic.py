"""Large synthetic span sets for the mining benchmarks, shaped like a recorded run.

A sample run (every trace of every process, with its controller events, requests and cross-process links) is
replayed many times: each copy gets fresh trace and span ids (links remapped within the copy), is shifted in time
after the previous copy of its run, and has every trace stretched by its own log-normal factor, so durations vary
while each trace keeps its shape (children stay inside their parents). Files are OTLP/JSON Lines like the
exporter's, one run directory per `spans_per_run` spans, each with a finished manifest.

    python -m kafka_edu.mining.synthetic traces/samples/mining-failover /tmp/synthetic 1000000
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from pathlib import Path

from rich.progress import Progress

SPANS_PER_LINE = 64  # the batch exporter writes a few dozen spans per line
_VARIABLE = ("traceId", "spanId", "parentSpanId", "startTimeUnixNano", "endTimeUnixNano", "links")


@dataclass
class _Template:
    instance: str
    trace: int  # index of the template trace
    index: int  # index of the span
    parent: int | None  # index of the parent span, when in the sample
    links: list[int]  # indexes of linked spans found in the sample
    offset_ns: int  # start, relative to its trace's start
    duration_ns: int
    trace_start_ns: int  # its trace's start, relative to the run's first span
    constant: str  # the rest of the span, serialized once


def _templates(sample: Path) -> tuple[list[_Template], dict[str, str], int]:
    """Every span of the sample run, the resource JSON per instance, and the run's length in ns."""
    raw: list[tuple[str, dict]] = []
    resources: dict[str, str] = {}
    for path in sorted(sample.glob("*.jsonl")):
        if path.name.endswith(".starts.jsonl"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                continue
            for rs in doc.get("resourceSpans", []):
                attrs = {a["key"]: a["value"] for a in rs["resource"]["attributes"]}
                instance = attrs["service.instance.id"]["stringValue"]
                resources[instance] = json.dumps(rs["resource"])
                raw += [(instance, s) for ss in rs["scopeSpans"] for s in ss["spans"]]
    index = {(s["traceId"], s["spanId"]): i for i, (_, s) in enumerate(raw)}
    traces: dict[str, int] = {}
    starts: dict[str, int] = {}
    for _, s in raw:
        starts[s["traceId"]] = min(starts.get(s["traceId"], 1 << 62), int(s["startTimeUnixNano"]))
    origin = min(starts.values())
    end = max(int(s["endTimeUnixNano"]) for _, s in raw)
    templates = []
    for i, (instance, s) in enumerate(raw):
        trace_start = starts[s["traceId"]]
        templates.append(_Template(
            instance=instance, trace=traces.setdefault(s["traceId"], len(traces)), index=i,
            parent=index.get((s["traceId"], s.get("parentSpanId", ""))),
            links=[index[(link["traceId"], link["spanId"])] for link in s.get("links", [])
                   if (link["traceId"], link["spanId"]) in index],
            offset_ns=int(s["startTimeUnixNano"]) - trace_start,
            duration_ns=int(s["endTimeUnixNano"]) - int(s["startTimeUnixNano"]),
            trace_start_ns=trace_start - origin,
            constant=json.dumps({k: v for k, v in s.items() if k not in _VARIABLE})[1:-1]))
    return templates, resources, end - origin


def generate(sample: Path, out: Path, spans: int, spans_per_run: int = 250_000, seed: int = 7) -> list[Path]:
    """Write about `spans` spans (whole copies of the sample) under `out`; returns the run directories."""
    templates, resources, run_length = _templates(sample)
    copies = max(1, round(spans / len(templates)))
    copies_per_run = max(1, spans_per_run // len(templates))
    rng = random.Random(seed)
    start_ns = 1_700_000_000_000_000_000
    runs: list[Path] = []
    with Progress(transient=True) as progress:
        task = progress.add_task(f"synthetic spans from {sample.name}", total=copies * len(templates))
        for first in range(0, copies, copies_per_run):
            run_id = f"synthetic-{len(runs):04d}"
            run_dir = out / run_id
            run_dir.mkdir(parents=True, exist_ok=True)
            files = {instance: open(run_dir / f"{instance}.jsonl", "w", encoding="utf-8") for instance in resources}
            pending: dict[str, list[str]] = {instance: [] for instance in resources}
            base = start_ns
            for copy in range(first, min(first + copies_per_run, copies)):
                stretch = [rng.lognormvariate(0, 0.3) for _ in range(max(t.trace for t in templates) + 1)]
                for t in templates:
                    pending[t.instance].append(_span_json(t, copy, base, stretch[t.trace], templates))
                    if len(pending[t.instance]) == SPANS_PER_LINE:
                        _flush(files[t.instance], resources[t.instance], pending[t.instance])
                progress.advance(task, len(templates))
                base += int(run_length * 1.5)  # the next copy starts after this one, as if the run went on
            for instance, lines in pending.items():
                _flush(files[instance], resources[instance], lines)
                files[instance].close()
            (run_dir / "manifest.json").write_text(json.dumps({
                "run_id": run_id, "mode": "zk", "synthetic_from": str(sample), "started_at": "synthetic",
                "stopped_at": "synthetic"}, indent=2) + "\n")
            runs.append(run_dir)
            start_ns = base
    return runs


def _ids(copy: int, t: _Template) -> tuple[str, str]:
    return f"{copy:016x}{t.trace:016x}", f"{copy:08x}{t.index:08x}"


def _span_json(t: _Template, copy: int, base: int, stretch: float, templates: list[_Template]) -> str:
    trace_id, span_id = _ids(copy, t)
    parent = _ids(copy, templates[t.parent])[1] if t.parent is not None else ""
    start = base + t.trace_start_ns + int(t.offset_ns * stretch)
    links = ",".join(f'{{"traceId":"{a}","spanId":"{b}"}}' for a, b in (_ids(copy, templates[i]) for i in t.links))
    end = start + int(t.duration_ns * stretch)
    return (f'{{"traceId":"{trace_id}","spanId":"{span_id}","parentSpanId":"{parent}","startTimeUnixNano":"{start}",'
            f'"endTimeUnixNano":"{end}","links":[{links}],{t.constant}}}')


def _flush(file, resource: str, spans: list[str]) -> None:
    if spans:
        file.write('{"resourceSpans":[{"resource":' + resource + ',"scopeSpans":[{"scope":{"name":"kafka_edu"},'
                   '"spans":[' + ",".join(spans) + "]}]}]}\n")
        spans.clear()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="write synthetic OTLP JSON Lines shaped like a sample run")
    parser.add_argument("sample", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("spans", type=int)
    parser.add_argument("--spans-per-run", type=int, default=250_000)
    options = parser.parse_args(argv)
    runs = generate(options.sample, options.out, options.spans, options.spans_per_run)
    print(f"{len(runs)} runs in {options.out}")


if __name__ == "__main__":
    main()
