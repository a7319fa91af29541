"""The span files of one process, kept within a budget for runs that last an hour under load.

Spans are sorted by what may be given up:

- everything that is not a client request (lifecycle, controller, replication state, groups, and later KRaft and
  transactions) goes to `<instance>.jsonl`, its starts to `<instance>.starts.jsonl` (so a step still running
  shows as running), and is never dropped by policy or budget;
- request-path traces (a client request, a processor's loop phase: `steps.REQUEST_PATH_ROOTS`) go to segments
  `<instance>.requests-NNNNNN.jsonl` that rotate at `segment_bytes`; when this process's segments pass
  `budget_bytes`, the oldest segment is deleted and its spans are counted as dropped. Their starts are not
  published: a request lasts milliseconds, and one the policy leaves out would otherwise look stuck.

Before a request-path trace is written the sampling policy decides on its whole trace once its root has ended
(tail sampling): every trace of a kind (the API, or the loop phase) up to `rate` a second, then one in `one_in`,
and always the slow ones (root at least `slow_ms`) and the failed ones (a span with an error or an exception).
What the policy leaves out is counted, never silently lost. `<instance>.tracing.json` says the policy and the
counts, rewritten about once a second, for the TUI and the run manifest.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict, deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import StatusCode

from kafka_edu.tracing.otlp_json import SpanLineFile
from kafka_edu.tracing.steps import REQUEST_PATH_ROOTS

log = logging.getLogger(__name__)

EXPORT_DELAY_S = 0.1  # TRACING.md: a span is on disk within 250 ms of its end
MAX_QUEUE_SIZE = 1 << 16  # bursts (a startup, a flood of requests) fit without dropping
EXPORT_BATCH = 2048
STATS_INTERVAL_S = 1.0
_DECIDED_MEMORY = 16_384  # request traces whose decision late spans still need


@dataclass(frozen=True)
class TracePolicy:
    """How much of the request path a process keeps. From the environment (`KAFKA_EDU_TRACE_*`), defaults below."""

    sampling: bool = True  # KAFKA_EDU_TRACE_SAMPLING=all keeps every request trace (the budget still holds)
    rate: float = 100.0  # request traces of one kind kept per second before thinning
    one_in: int = 10  # beyond the rate, one trace in this many
    slow_ms: float = 100.0  # a request at least this slow is always kept
    segment_bytes: int = 32 << 20
    budget_bytes: int = 256 << 20  # request-path segments of one process, at most

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> TracePolicy:
        env = os.environ if environ is None else environ
        default = cls()
        return cls(
            sampling=env.get("KAFKA_EDU_TRACE_SAMPLING", "on").lower() != "all",
            rate=float(env.get("KAFKA_EDU_TRACE_RATE", default.rate)),
            one_in=max(1, int(env.get("KAFKA_EDU_TRACE_ONE_IN", default.one_in))),
            slow_ms=float(env.get("KAFKA_EDU_TRACE_SLOW_MS", default.slow_ms)),
            segment_bytes=int(float(env.get("KAFKA_EDU_TRACE_SEGMENT_MB", default.segment_bytes >> 20)) * (1 << 20)),
            budget_bytes=int(float(env.get("KAFKA_EDU_TRACE_BUDGET_MB", default.budget_bytes >> 20)) * (1 << 20)),
        )

    def describe(self) -> str:
        kept = (f"every request trace of a kind up to {self.rate:g}/s, then 1 in {self.one_in}; always the slow "
                f"(≥ {self.slow_ms:g} ms) and the failed" if self.sampling else "every request trace")
        return f"{kept}; request spans within {self.budget_bytes >> 20} MB a process, oldest dropped first"


class _Thinning:
    """The per-kind rate: a one-second window of kept traces, then one in N."""

    def __init__(self, policy: TracePolicy) -> None:
        self.policy = policy
        self.windows: dict[str, tuple[float, int, int]] = {}  # kind -> (window start, kept, seen beyond the rate)

    def keep(self, kind: str, now: float) -> bool:
        start, kept, beyond = self.windows.get(kind, (now, 0, 0))
        if now - start >= 1.0:
            start, kept, beyond = now, 0, 0
        if kept < self.policy.rate:
            self.windows[kind] = (start, kept + 1, beyond)
            return True
        self.windows[kind] = (start, kept, beyond + 1)
        return beyond % self.policy.one_in == 0


class SpanFileWriter(SpanProcessor):
    """Queues span starts and ends; one thread writes them, rotates request segments and holds the budget."""

    def __init__(self, run_dir: Path, instance_id: str, policy: TracePolicy | None = None) -> None:
        self.run_dir = run_dir
        self.instance_id = instance_id
        self.policy = policy or TracePolicy.from_environment()
        self.dropped = 0  # a full queue or a failed write: never expected, reported as an error
        self.sampled_out = 0  # request-path spans the policy left out
        self.budget_dropped = 0  # request-path spans deleted with the oldest segments
        self._main = SpanLineFile(run_dir / f"{instance_id}.jsonl")
        self._main_starts = os.open(run_dir / f"{instance_id}.starts.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                                    0o644)
        self._segment_exporter: SpanLineFile | None = None
        # (segment number, spans in it or None if unknown), oldest first; an earlier process of this instance (a
        # broker killed and started again) left its segments here too, and they share the budget
        self._segments: deque[tuple[int, int | None]] = deque((n, None) for n in self._earlier_segments())
        self._segment = self._segments[-1][0] if self._segments else 0
        self._segment_spans = 0
        self._ended: deque[tuple[ReadableSpan, bool]] = deque()
        self._started: deque[Span] = deque()
        self._pending: dict[int, list[ReadableSpan]] = {}  # open request traces: the spans ended so far
        self._open: dict[int, dict[int, Span]] = {}  # open request traces: their spans not ended yet
        self._decided: OrderedDict[int, bool] = OrderedDict()
        self._lock = threading.Lock()
        self._thinning = _Thinning(self.policy)
        self._wakeup = threading.Event()
        self._stopping = False
        self._flushed = threading.Condition()
        self._last_stats: dict[str, Any] | None = None
        self._stats_at = 0.0
        self._thread = threading.Thread(target=self._run, name="span-file-writer", daemon=True)
        self._thread.start()

    # -- the traced threads: append and go --------------------------------------------------------------------------

    # A span's fields are read directly, not through its properties: these run for every span. Its context is a
    # SpanContext, a tuple whose first two items are the trace id and the span id.

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        trace_id, span_id = span._context[:2]
        if span._parent is None and span._name in REQUEST_PATH_ROOTS:
            with self._lock:
                self._pending[trace_id] = []
                self._open[trace_id] = {span_id: span}
        elif (open_spans := self._open.get(trace_id)) is not None:
            open_spans[span_id] = span
        else:
            self._started.append(span)

    def on_end(self, span: ReadableSpan) -> None:
        trace_id, span_id = span._context[:2]
        with self._lock:
            pending = self._pending.get(trace_id)
            if pending is not None:
                self._open[trace_id].pop(span_id, None)
                if span._parent is not None:
                    pending.append(span)
                    return
                del self._pending[trace_id], self._open[trace_id]
                pending.append(span)
                keep = self._decide(span, pending)
                self._remember(trace_id, keep)
                spans = pending
            else:
                keep = self._decided.get(trace_id)
                spans = [span]
        if keep is None:
            self._enqueue(spans, False)
        elif keep:
            self._enqueue(spans, True)
        else:
            self.sampled_out += len(spans)

    def _decide(self, root: ReadableSpan, spans: list[ReadableSpan]) -> bool:
        if not self.policy.sampling:
            return True
        if (root.end_time - root.start_time) / 1e6 >= self.policy.slow_ms:
            return True
        for span in spans:  # the fields, not the properties (a copy of the events each): asked of every span
            if span._status.status_code is StatusCode.ERROR or (span._events and _has_exception(span)):
                return True
        attributes = root._attributes
        kind = str(attributes.get("kafka.api.name", root.name)) if attributes else root.name
        return self._thinning.keep(kind, time.monotonic())

    def _remember(self, trace_id: int, keep: bool) -> None:
        self._decided[trace_id] = keep
        if len(self._decided) > _DECIDED_MEMORY:
            self._decided.popitem(last=False)

    def _enqueue(self, spans: list[ReadableSpan], request_path: bool) -> None:
        ended = self._ended
        room = MAX_QUEUE_SIZE - len(ended)
        if room < len(spans):
            kept = max(room, 0)
            self.dropped += len(spans) - kept
            spans = spans[:kept]
        ended.extend([(span, request_path) for span in spans])
        if len(ended) >= EXPORT_BATCH:
            self._wakeup.set()

    # -- the writer thread --------------------------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            self._wakeup.wait(EXPORT_DELAY_S)
            self._wakeup.clear()
            try:
                self._write_pending()
            except Exception:  # a full disk must not kill the writer; what it could not write is counted
                log.exception("Writing span files failed")
            with self._flushed:
                self._flushed.notify_all()
            if self._stopping:
                return

    def _write_pending(self) -> None:
        started = _drain(self._started)
        if started:
            os.write(self._main_starts, b"".join(_start_line(s) for s in started))
        while ended := _drain(self._ended, EXPORT_BATCH):
            main = [s for s, request_path in ended if not request_path]
            requests = [s for s, request_path in ended if request_path]
            if main:
                self._export(self._main, main)
            if requests:
                self._write_requests(requests)
        self._maybe_write_stats()

    def _write_requests(self, spans: list[ReadableSpan]) -> None:
        if self._segment_exporter is None or self._segment_size() >= self.policy.segment_bytes:
            self._roll_segment()
        self._export(self._segment_exporter, spans)
        self._segment_spans += len(spans)

    def _export(self, exporter: SpanLineFile, spans: list[ReadableSpan]) -> None:
        try:
            exporter.export(spans)
        except Exception:
            log.exception("Exporting %d spans failed", len(spans))
            self.dropped += len(spans)

    def _earlier_segments(self) -> list[int]:
        prefix = f"{self.instance_id}.requests-"
        numbers = [p.name.removeprefix(prefix).removesuffix(".jsonl") for p in self.run_dir.glob(f"{prefix}*.jsonl")]
        return sorted(int(n) for n in numbers if n.isdigit())

    def _segment_path(self, number: int) -> Path:
        return self.run_dir / f"{self.instance_id}.requests-{number:06d}.jsonl"

    def _segment_size(self) -> int:
        try:
            return os.path.getsize(self._segment_path(self._segment))
        except OSError:
            return 0

    def _roll_segment(self) -> None:
        if self._segment_exporter is not None:
            self._segment_exporter.shutdown()
            self._segments.append((self._segment, self._segment_spans))
        self._segment += 1
        self._segment_spans = 0
        self._segment_exporter = SpanLineFile(self._segment_path(self._segment))
        self._hold_budget()

    def _hold_budget(self) -> None:
        """Delete the oldest closed segments until this process's request segments fit the budget again."""
        def size(number: int) -> int:
            path = self._segment_path(number)
            return path.stat().st_size if path.exists() else 0
        total = sum(size(number) for number, _ in self._segments)
        while self._segments and total + self.policy.segment_bytes > self.policy.budget_bytes:
            number, spans = self._segments.popleft()
            total -= size(number)
            if spans is None:  # an earlier process's segment: count what it held before it goes
                spans = _spans_in(self._segment_path(number))
            self._segment_path(number).unlink(missing_ok=True)
            self.budget_dropped += spans

    def stats(self) -> dict[str, Any]:
        return {"instance": self.instance_id, "pid": os.getpid(), "policy": self.policy.describe(),
                "settings": asdict(self.policy),
                "dropped_spans": self.dropped, "sampled_out_spans": self.sampled_out,
                "budget_dropped_spans": self.budget_dropped,
                "request_segments": len(self._segments) + (self._segment_exporter is not None)}

    def _maybe_write_stats(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._stats_at < STATS_INTERVAL_S:
            return
        self._stats_at = now
        stats = self.stats()
        if stats != self._last_stats:
            path = self.run_dir / f"{self.instance_id}.tracing.json"
            temp = path.with_suffix(".tmp")
            temp.write_text(json.dumps(stats) + "\n")
            os.replace(temp, path)
            self._last_stats = stats

    # -- SpanProcessor --------------------------------------------------------------------------------------------

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        with self._flushed:
            self._wakeup.set()
            return self._flushed.wait(timeout_millis / 1000)

    def shutdown(self) -> None:
        self._stopping = True
        self._wakeup.set()
        self._thread.join(timeout=30)
        with self._lock:  # request traces still open (a long poll at exit): written with their open spans
            exit_ns = time.time_ns()
            leftovers = [s for spans in self._pending.values() for s in spans]
            leftovers += [_open_at_exit(s, exit_ns) for spans in self._open.values() for s in list(spans.values())]
            self._pending.clear()
            self._open.clear()
        self._enqueue(leftovers, True)
        self._write_pending()
        self._maybe_write_stats(force=True)
        self._main.shutdown()
        os.close(self._main_starts)
        if self._segment_exporter is not None:
            self._segment_exporter.shutdown()


def _open_at_exit(span: Span, exit_ns: int) -> ReadableSpan:
    """A span its process never ended, drawn up to the exit: its ended children keep a parent to hang from."""
    return ReadableSpan(name=span.name, context=span.context, parent=span.parent, resource=span.resource,
                        attributes={**(span.attributes or {}), "kafka.span.open_at_exit": True},
                        events=span.events, links=span.links, kind=span.kind, status=span.status,
                        start_time=span.start_time, end_time=max(exit_ns, span.start_time or 0),
                        instrumentation_scope=span.instrumentation_scope)


def _spans_in(path: Path) -> int:
    """Spans in an OTLP/JSON Lines file: every span, and nothing else, has a start time."""
    try:
        return path.read_bytes().count(b'"startTimeUnixNano"')
    except OSError:
        return 0


def _has_exception(span: ReadableSpan) -> bool:
    # the span's own list, not the `events` property's copy of it: most spans have no events at all
    events = getattr(span, "_events", None)
    if events is None:
        events = span.events
    return bool(events) and any(e.name == "exception" for e in events)


def _drain(queue: deque, limit: int | None = None) -> list:
    items = []
    while queue and (limit is None or len(items) < limit):
        items.append(queue.popleft())
    return items


def _start_line(span: Span) -> bytes:
    ctx = span.get_span_context()
    parent = span.parent
    record = {
        "traceId": format(ctx.trace_id, "032x"),
        "spanId": format(ctx.span_id, "016x"),
        "parentSpanId": format(parent.span_id, "016x") if parent else "",
        "name": span.name,
        "startTimeUnixNano": str(span.start_time),
        "attributes": dict(span.attributes or {}),
    }
    return (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode()
