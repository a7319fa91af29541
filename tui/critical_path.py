"""The critical path of a trace, by Jaeger's algorithm (jaeger-ui `TraceTimelineViewer/CriticalPath`).

Starting at the root: the span's last-finishing child is on the path, and the parent's time after that child ended
is the parent's own critical section; then the same question is asked of the child. When a span has no child
left, its time back to its start is on the path, and the walk returns to its parent, looking only at children that
finished before that start. Children that overflow their parent are first clipped to it (Jaeger's sanitising step).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kafka_edu.tracing.query import SpanRecord


@dataclass(frozen=True)
class Section:
    """[start_ns, end_ns) of one span's time that lies on the critical path."""

    span_id: str
    start_ns: int
    end_ns: int


@dataclass
class _Node:
    span_id: str
    parent_id: str | None
    start_ns: int
    end_ns: int
    children: list[str]


def critical_path(spans: Iterable[SpanRecord], root_id: str, now_ns: int) -> list[Section]:
    """Sections of the trace rooted at `root_id`, root first; a running span counts as ending at `now_ns`."""
    nodes: dict[str, _Node] = {}
    for span in spans:
        nodes[span.span_id] = _Node(span.span_id, span.parent_id or None, span.start_ns, span.end_ns or now_ns, [])
    if root_id not in nodes:
        return []
    _clip(nodes, root_id)
    sections: list[Section] = []
    span_id: str | None = root_id
    returning_child_start: int | None = None
    while span_id is not None:  # Jaeger's recursion, as a loop
        node = nodes[span_id]
        child = _last_finishing_child(nodes, node, returning_child_start)
        section_end = returning_child_start if returning_child_start is not None else node.end_ns
        if child is not None:
            if child.end_ns != section_end:
                sections.append(Section(node.span_id, child.end_ns, section_end))
            span_id, returning_child_start = child.span_id, None
        else:
            sections.append(Section(node.span_id, node.start_ns, section_end))
            span_id, returning_child_start = (node.parent_id if node.span_id != root_id else None), node.start_ns
    return sections


def _clip(nodes: dict[str, _Node], root_id: str) -> None:
    """Link children to parents (within the root's tree) and clip or drop children outside their parent."""
    for node in nodes.values():
        parent = nodes.get(node.parent_id) if node.parent_id else None
        if parent is not None:
            parent.children.append(node.span_id)
    stack = [root_id]
    while stack:
        parent = nodes[stack.pop()]
        kept = []
        for child_id in parent.children:
            child = nodes[child_id]
            if child.start_ns >= parent.end_ns or child.end_ns <= parent.start_ns:
                continue  # wholly outside its parent: not on any path through it
            child.start_ns = max(child.start_ns, parent.start_ns)
            child.end_ns = min(child.end_ns, parent.end_ns)
            kept.append(child_id)
            stack.append(child_id)
        # Latest-ending first, as Jaeger sorts childSpanIds
        parent.children = sorted(kept, key=lambda c: nodes[c].end_ns, reverse=True)


def _last_finishing_child(nodes: dict[str, _Node], node: _Node, before_ns: int | None) -> _Node | None:
    for child_id in node.children:
        child = nodes[child_id]
        if before_ns is None or child.end_ns < before_ns:
            return child
    return None
