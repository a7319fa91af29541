"""MkDocs hook: the tables of "One produce request, 1.0.2 and 3.9 side by side", read from two recorded runs.

`traces/samples/side-by-side-zk/` (a ZooKeeper-mode broker, Kafka 1.0.2's request path, FIDELITY NW) and
`traces/samples/side-by-side-kraft/` (a KRaft broker, Kafka 3.9's, FIDELITY RQ) each hold one run of
`traces/samples/record_side_by_side.py`: the same idempotent producer sends one batch with acks=all to a partition with
two replicas. This hook finds that Produce request in each run, pairs the steps of its trace (and of the follower's
fetch that completed it) and fills the page's placeholders (`<!-- side-by-side:NAME -->`, NAME in RENDERERS) with
tables whose spans and durations are the recordings'. A placeholder left unfilled, or a run without its request, is
a warning, so `mkdocs build --strict` fails rather than publish a page that no longer matches its recordings.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from kafka_edu.lessons.diagram import load_spans
from kafka_edu.tracing.query import SpanRecord, Spans

log = logging.getLogger("mkdocs.plugins.kafka_edu.side_by_side")

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "traces" / "samples"
PAGE = "produce-side-by-side.md"
RUNS = {"zk": SAMPLES / "side-by-side-zk", "kraft": SAMPLES / "side-by-side-kraft"}
PLACEHOLDER = re.compile(r"<!-- side-by-side:([a-z-]+) -->")
METRICS = ("queue_time_ms", "local_time_ms", "remote_time_ms", "throttle_time_ms", "response_queue_time_ms",
           "response_send_time_ms", "total_time_ms")


@dataclass
class Run:
    """One recorded run and the spans of its produce request."""

    mode: str
    spans: Spans
    manifest: dict
    request: SpanRecord  # the Produce request's root (RequestChannel.Request)
    trace: Spans  # every span of that request's trace
    fetch: Spans  # the trace of the follower's Fetch that completed it, at the leader

    def at(self, span: SpanRecord) -> float:
        return (span.start_ns - self.request.start_ns) / 1e6


def _produce_request(spans: Spans, manifest: dict) -> SpanRecord:
    produced = manifest["produce"]
    leader = f"broker-{produced['leader']}"
    requests = [s for s in spans.where(name="RequestChannel.Request", instance=leader, kafka__api__name="Produce")
                if produced["sent_ns"] <= s.start_ns <= produced["acked_ns"]]
    if not requests:
        raise LookupError(f"no Produce request at {leader} between the send and the acknowledgement")
    return requests[0]


def _completing_fetch_zk(spans: Spans, request: SpanRecord, trace: Spans) -> Spans:
    """1.0.2 has no span for the delayed produce: the response is queued (NW.channel.resp, a child of the request's
    root) on the handler thread of the follower's Fetch whose `KafkaApis.handle` completed it."""
    responses = [s for s in trace if s.step == "NW.channel.resp"]
    if not responses:
        return Spans([])
    response = responses[-1]
    thread = response.attributes.get("thread.name")
    for handle in spans.where(step="NW.apis.1", instance=request.instance, kafka__api__name="Fetch"):
        if handle.attributes.get("thread.name") == thread and handle.start_ns <= response.start_ns <= handle.end_ns:
            return spans.where(trace_id=handle.trace_id)
    return Spans([])


def _completing_fetch_kraft(spans: Spans, trace: Spans) -> Spans:
    """3.9's delayed produce is tried again after the follower's fetch moved the HW; that try (RQ.produce.8) stays in
    the produce's trace and links the trace that triggered it: the follower's Fetch at the leader."""
    for attempt in reversed([s for s in trace if s.step == "RQ.produce.8"]):
        for trace_id, _ in attempt.links:
            fetch = spans.where(trace_id=trace_id)
            if any(s.step == "RQ.fetch.1" for s in fetch):
                return fetch
    return Spans([])


def load(mode: str) -> Run:
    path = RUNS[mode]
    spans = load_spans(path)
    manifest = json.loads((path / "manifest.json").read_text())
    request = _produce_request(spans, manifest)
    trace = spans.where(trace_id=request.trace_id)
    fetch = (_completing_fetch_zk(spans, request, trace) if mode == "zk" else _completing_fetch_kraft(spans, trace))
    return Run(mode, spans, manifest, request, trace, fetch)


# -- the pairing ------------------------------------------------------------------------------------------------------

Pick = Callable[[Run], SpanRecord | None]


def in_trace(step: str, *, last: bool = False, name: str | None = None) -> Pick:
    def pick(run: Run) -> SpanRecord | None:
        found = [s for s in run.trace if s.step == step or (name is not None and s.name == name and not s.step)]
        return (found[-1] if last else found[0]) if found else None
    return pick


def in_fetch(step: str, api: str | None = None) -> Pick:
    def pick(run: Run) -> SpanRecord | None:
        found = [s for s in run.fetch if s.step == step and s.instance == run.request.instance
                 and (api is None or s.attributes.get("kafka.api.name") == api)]
        return found[0] if found else None
    return pick


def nothing(_run: Run) -> None:
    return None


def _thread(span: SpanRecord | None) -> str | None:
    return None if span is None else span.attributes.get("thread.name")


def woken_fetch(step: str, within: str) -> Pick:
    """The follower's earlier Fetch, parked in the fetch purgatory, answered by the produce's own handler thread while
    the produce's `within` step ran: a span of that other trace (`step`) on the same thread, inside its window."""
    def pick(run: Run) -> SpanRecord | None:
        outer = in_trace(within)(run)
        if outer is None:
            return None
        for s in run.spans.where(step=step, instance=run.request.instance):
            if (s.trace_id != run.request.trace_id and _thread(s) == _thread(outer)
                    and outer.start_ns <= s.start_ns <= outer.end_ns):
                return s
        return None
    return pick


def processor_step(step: str) -> Pick:
    """A processor step with a trace of its own, on the thread that read the request, once its response was queued."""
    def pick(run: Run) -> SpanRecord | None:
        received = in_trace("NW.processor.4")(run) or in_trace("RQ.net.5")(run)
        queued = in_trace("NW.channel.resp", last=True)(run)
        if received is None or queued is None:
            return None
        for s in run.spans.where(step=step, instance=run.request.instance):
            if _thread(s) == _thread(received) and queued.start_ns <= s.start_ns <= run.request.end_ns + 10**8:
                return s
        return None
    return pick


# (what happens, the 1.0.2 step, the 3.9 step, why a 1.0.2 cell is empty; ROW_WHY_39: why a 3.9 cell is)
ROWS: list[tuple[str, Pick, Pick, str]] = [
    ("the processor reads the request and queues it", in_trace("NW.processor.4"), in_trace("RQ.net.5"), ""),
    ("a handler thread takes it", in_trace("NW.handler.1"), in_trace("RQ.net.7"), ""),
    ("dispatch by API key", in_trace("NW.apis.1"), in_trace("NW.apis.1"), ""),
    ("authorize, split per partition", in_trace("NW.apis.produce"), in_trace("RQ.produce.1"), ""),
    ("transaction verification (KIP-890)", nothing, in_trace("RQ.produce.2"), "new in 3.x"),
    ("append, then wait or answer", in_trace("NW.rm.append"), in_trace("RQ.produce.3"), ""),
    ("leader checks around the append", nothing, in_trace("RQ.produce.4"), "no span: inside the row above"),
    ("validate, offsets, producer state, write", in_trace("NW.log.append"), in_trace("RQ.produce.5"), ""),
    ("the batch's leader epoch into the epoch cache", in_trace("LE.assign"), in_trace("LE.assign"), ""),
    ("validate records, assign offsets", nothing, in_trace("RQ.produce.6"), "inside `Log.append`"),
    ("write the active segment", nothing, in_trace("RQ.produce.7"), "inside `Log.append`"),
    ("first try of the delayed produce", nothing, in_trace("RQ.produce.8"), "no span"),
    ("the append wakes the follower's parked fetch", woken_fetch("NW.channel.resp", "NW.rm.append"),
     woken_fetch("RQ.fetch.5", "NW.apis.1"), ""),
    ("the follower's next fetch reaches the leader", in_fetch("NW.apis.1", "Fetch"), in_fetch("RQ.fetch.1"), ""),
    ("the leader reads for the follower, moves the HW", nothing, in_fetch("RQ.fetch.4"), "no span"),
    ("the delayed produce completes", nothing, in_trace("RQ.produce.8", last=True), "no span"),
    ("the response is queued", in_trace("NW.channel.resp", last=True), in_trace("NW.channel.resp", last=True), ""),
    ("the processor takes the response", processor_step("NW.processor.2"), processor_step("RQ.net.4"), ""),
    ("the response is sent: unmute, metrics", processor_step("NW.processor.5"), processor_step("NW.processor.5"), ""),
]


WOKEN_ROW = 12  # "the append wakes the follower's parked fetch"
ROW_WHY_39 = {"the batch's leader epoch into the epoch cache": "done when it became leader, `Partition.makeLeader`"}


def _cell(run: Run, span: SpanRecord | None, why: str) -> str:
    if span is None:
        return f"— <small>{why or 'not in this run'}</small>"
    if span.trace_id == run.request.trace_id:
        where = ""
    elif span.trace_id == (run.fetch.first().trace_id if len(run.fetch) else None):
        where = ", next fetch's trace"
    elif span.parent_id:
        where = ", parked fetch's trace"
    else:
        where = ", own trace"
    step = f"{span.step} · " if span.step else ""
    return f"`{span.name}`<br><small>{step}at +{run.at(span):.2f}, took {span.duration_ms:.2f}{where}</small>"


def steps_table(zk: Run, kraft: Run) -> str:
    lines = ["| # | what happens | 1.0.2 (ZooKeeper mode) | 3.9 (KRaft) |", "|---|---|---|---|"]
    for i, (what, old, new, why) in enumerate(ROWS, 1):
        old_cell = _cell(zk, old(zk), why)
        new_cell = _cell(kraft, new(kraft), ROW_WHY_39.get(what, ""))
        lines.append(f"| {i} | {what} | {old_cell} | {new_cell} |")
    return "\n".join(lines)


def metrics_table(zk: Run, kraft: Run) -> str:
    lines = ["| request metric (ms) | 1.0.2 | 3.9 |", "|---|---|---|"]
    for metric in METRICS:
        key = f"kafka.request.{metric}"
        values = [r.request.attributes.get(key) for r in (zk, kraft)]
        lines.append(f"| `{metric}` | " + " | ".join("—" if v is None else f"{v:.2f}" for v in values) + " |")
    return "\n".join(lines)


def _thread_name(span: SpanRecord) -> str:
    """Kafka's thread name, without the listener and protocol every network thread repeats (both PLAINTEXT)."""
    return span.attributes.get("thread.name", "").replace("-PLAINTEXT-PLAINTEXT", "")


def _tree(run: Run, spans: Spans, t0: int) -> list[str]:
    by_id = {s.span_id: s for s in spans}

    def depth(span: SpanRecord) -> int:
        d = 0
        while span.parent_id in by_id:
            span, d = by_id[span.parent_id], d + 1
        return d
    here = [s for s in spans if s.instance == run.request.instance]
    threads = [_thread_name(s) for s in here]
    width = max(map(len, threads), default=0)
    return [f"{(s.start_ns - t0) / 1e6:+9.2f} {s.duration_ms:8.2f}  {thread:<{width}}  "
            + "  " * depth(s) + s.name + (f" [{s.step}]" if s.step else "")
            for s, thread in zip(here, threads, strict=True)]


def trace_block(run: Run) -> str:
    t0 = run.request.start_ns
    lines = ["    at ms  took ms  thread, then the span [FIDELITY step]", *_tree(run, run.trace, t0)]
    woken = ROWS[WOKEN_ROW][1 if run.mode == "zk" else 2](run)
    if woken is not None:
        lines += ["", "the follower's parked Fetch (sent before the produce), answered once the batch was appended:",
                  *_tree(run, run.spans.where(trace_id=woken.trace_id), t0)]
    if len(run.fetch):
        lines += ["", "the follower's next Fetch at the leader, the request that completed the produce:",
                  *_tree(run, run.fetch, t0)]
    return "```text\n" + "\n".join(lines) + "\n```"


def facts(zk: Run, kraft: Run) -> str:
    rows = ["| | 1.0.2 | 3.9 |", "|---|---|---|"]
    def log_append(run: Run) -> SpanRecord | None:
        return in_trace("NW.log.append")(run) or in_trace("RQ.produce.5")(run)

    def attribute(run: Run, span: SpanRecord | None, key: str) -> object:
        value = None if span is None else span.attributes.get(key)
        return "—" if value is None or value == "" else value

    pairs = [("broker answering (leader)", lambda r: r.request.instance),
             ("Produce version", lambda r: r.request.attributes.get("kafka.api.version")),
             ("offsets given to the batch (first, last)",
              lambda r: f"{attribute(r, log_append(r), 'kafka.offset.first')}, "
                        f"{attribute(r, log_append(r), 'kafka.offset.last')}"),
             ("bytes appended", lambda r: attribute(r, log_append(r), "kafka.records.bytes")),
             ("transactional id on the request", lambda r: attribute(r, in_trace("RQ.produce.1")(r),
                                                                     "kafka.transactional.id")),
             ("HW right after the leader's append (3.9's span says)",
              lambda r: attribute(r, log_append(r), "kafka.high_watermark")),
             ("spans in the produce's trace", lambda r: len(r.trace)),
             ("spans of the next fetch's trace, at the leader", lambda r: sum(1 for s in r.fetch
                                                                      if s.instance == r.request.instance))]
    for what, get in pairs:
        rows.append(f"| {what} | {get(zk)} | {get(kraft)} |")
    return "\n".join(rows)


RENDERERS: dict[str, Callable[[Run, Run], str]] = {
    "steps": steps_table,
    "metrics": metrics_table,
    "facts": facts,
    "trace-zk": lambda zk, kraft: trace_block(zk),
    "trace-kraft": lambda zk, kraft: trace_block(kraft),
}


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    try:
        zk, kraft = load("zk"), load("kraft")
    except (OSError, LookupError, KeyError) as e:
        log.warning(f"{PAGE}: the recorded runs cannot be read ({e}); run traces/samples/record_side_by_side.py")
        return markdown

    def fill(match: re.Match[str]) -> str:
        renderer = RENDERERS.get(match.group(1))
        if renderer is None:
            log.warning(f"{PAGE}: unknown placeholder {match.group(0)}")
            return match.group(0)
        return renderer(zk, kraft)
    return PLACEHOLDER.sub(fill, markdown)
