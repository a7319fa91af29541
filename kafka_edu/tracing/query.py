"""Reading a run's spans back: the small query helper shared by tests, lessons, the runner and the TUI."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def _value(v: dict[str, Any]) -> Any:
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        return int(v["intValue"])
    if "arrayValue" in v:
        return [_value(x) for x in v["arrayValue"].get("values", [])]
    return None


def _attributes(items: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {a["key"]: _value(a.get("value", {})) for a in items or []}


@dataclass
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, Any]


@dataclass
class SpanRecord:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    events: list[SpanEvent] = field(default_factory=list)
    status_code: int = 0
    links: list[tuple[str, str]] = field(default_factory=list)  # (trace id, span id) of linked spans

    @property
    def step(self) -> str | None:
        return self.attributes.get("kafka.step")

    @property
    def instance(self) -> str:
        return self.resource.get("service.instance.id", "")

    @property
    def duration_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6

    @property
    def is_error(self) -> bool:
        return self.status_code == 2


def parse_traces_line(line: str) -> list[SpanRecord]:
    """One OTLP/JSON `TracesData` line -> its spans; partial or foreign lines give nothing."""
    try:
        doc = json.loads(line)
    except json.JSONDecodeError:
        return []
    spans = []
    for rs in doc.get("resourceSpans", []) if isinstance(doc, dict) else []:
        resource = _attributes(rs.get("resource", {}).get("attributes"))
        for ss in rs.get("scopeSpans", []):
            for s in ss.get("spans", []):
                spans.append(SpanRecord(
                    trace_id=s.get("traceId", ""), span_id=s.get("spanId", ""), parent_id=s.get("parentSpanId", ""),
                    name=s.get("name", ""), start_ns=int(s.get("startTimeUnixNano", 0)),
                    end_ns=int(s.get("endTimeUnixNano", 0)), attributes=_attributes(s.get("attributes")),
                    resource=resource, status_code=int(s.get("status", {}).get("code", 0) or 0),
                    events=[SpanEvent(e.get("name", ""), int(e.get("timeUnixNano", 0)),
                                      _attributes(e.get("attributes"))) for e in s.get("events", [])],
                    links=[(link.get("traceId", ""), link.get("spanId", "")) for link in s.get("links", [])]))
    return spans


def read_span_file(path: Path) -> Iterator[SpanRecord]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.endswith("\n"):  # a line still being written is read next time
                yield from parse_traces_line(line)


def read_span_file_from(path: Path, offset: int) -> tuple[int, list[SpanRecord]]:
    """The spans of whole lines written after byte `offset`, and the offset to read from next time."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return offset, []
    whole = data[:data.rfind(b"\n") + 1]  # a line still being written is read next time
    spans = [s for line in whole.decode("utf-8", errors="replace").splitlines() for s in parse_traces_line(line)]
    return offset + len(whole), spans


class Spans:
    """A list of spans with the questions tests and lessons ask of it."""

    def __init__(self, spans: Iterable[SpanRecord]) -> None:
        self.spans = sorted(spans, key=lambda s: s.start_ns)

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self) -> Iterator[SpanRecord]:
        return iter(self.spans)

    def where(self, *, step: str | None = None, name: str | None = None, instance: str | None = None,
              trace_id: str | None = None, **attributes: Any) -> Spans:
        """Spans matching every given criterion; `step` matches a prefix ("LC.startup" finds all its rows)."""
        def matches(s: SpanRecord) -> bool:
            if step is not None and not (s.step == step or (s.step or "").startswith(step + ".")):
                return False
            if name is not None and s.name != name:
                return False
            if instance is not None and s.instance != instance:
                return False
            if trace_id is not None and s.trace_id != trace_id:
                return False
            return all(s.attributes.get(k.replace("__", ".")) == v for k, v in attributes.items())
        return Spans(s for s in self.spans if matches(s))

    def with_event(self, event_name: str) -> Spans:
        return Spans(s for s in self.spans if any(e.name == event_name for e in s.events))

    def steps(self) -> list[str]:
        """Step ids in start order (each once, first occurrence)."""
        seen: dict[str, None] = {}
        for s in self.spans:
            if s.step:
                seen.setdefault(s.step, None)
        return list(seen)

    def first(self) -> SpanRecord:
        if not self.spans:
            raise LookupError("no span matches")
        return self.spans[0]

    def last(self) -> SpanRecord:
        if not self.spans:
            raise LookupError("no span matches")
        return self.spans[-1]

    def with_linked_traces(self, trace_id: str) -> Spans:
        """A trace together with every trace linked from it, transitively (a controller event and the state
        changes and requests it caused, which FIDELITY's order keeps in traces of their own)."""
        traces, frontier = {trace_id}, {trace_id}
        while frontier:
            linked = {s.trace_id for s in self.spans if s.trace_id not in traces
                      and any(link_trace in frontier for link_trace, _ in s.links)}
            traces |= linked
            frontier = linked
        return Spans(s for s in self.spans if s.trace_id in traces)

    def children_of(self, parent: SpanRecord) -> Spans:
        return Spans(s for s in self.spans if s.trace_id == parent.trace_id and s.parent_id == parent.span_id)


def load_run(run_dir: Path | str) -> Spans:
    """Every span of a run directory (all processes)."""
    run_dir = Path(run_dir)
    return Spans(s for path in sorted(run_dir.glob("*.jsonl")) if not path.name.endswith(".starts.jsonl")
                 for s in read_span_file(path))


def broker_states(spans: Spans, instance: str) -> list[str]:
    """The BrokerState names an instance went through, in order."""
    return [s.attributes["kafka.broker.state.to"] for s in spans.where(name="BrokerState.newState", instance=instance)]
