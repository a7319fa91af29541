"""The critical path of a trace, by Jaeger's algorithm (jaeger-ui `CriticalPath/index.tsx`), for the TUI and the
Spark jobs alike.

Children are first clipped to their parent's interval (those wholly outside it are dropped: Jaeger's sanitising
step). Then, from the root: the child that finishes last is on the path, and the parent's time after that child
ended is the parent's own section; the walk descends into the child. A span with no child left has its time back to
its start on the path, and the walk returns to its parent, looking only at children that finished before that
start. The sections add up to the root's duration.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple


class Section(NamedTuple):
    """[start_ns, end_ns) of one span's time that lies on the critical path."""

    span_id: str
    start_ns: int
    end_ns: int


class _Span(NamedTuple):
    span_id: str
    parent_id: str | None
    start_ns: int
    end_ns: int


def critical_path(spans: Iterable[tuple[str, str | None, int, int]], root_id: str) -> list[Section]:
    """Sections of the trace rooted at `root_id`, from the root's end backwards; `spans` are
    (span id, parent span id, start ns, end ns). Empty when the root is not among them."""
    by_id = {s[0]: _Span(*s) for s in spans}
    if root_id not in by_id:
        return []
    kept, children = _clipped(by_id, root_id)
    path: list[Section] = []
    span, returning = kept[root_id], None
    while True:  # Jaeger's recursion, as a loop
        end = span.end_ns if returning is None else returning
        candidates = [c for c in children.get(span.span_id, []) if returning is None or c.end_ns < returning]
        last = max(candidates, key=lambda c: (c.end_ns, c.start_ns, c.span_id), default=None)
        if last is not None:
            if last.end_ns != end:
                path.append(Section(span.span_id, last.end_ns, end))
            span, returning = last, None
            continue
        if span.start_ns != end:
            path.append(Section(span.span_id, span.start_ns, end))
        if span.span_id == root_id:
            return path
        span, returning = kept[span.parent_id], span.start_ns


def _clipped(spans: dict[str, _Span], root_id: str) -> tuple[dict[str, _Span], dict[str, list[_Span]]]:
    """Spans reachable from the root, each clipped to its (clipped) parent; children lists by parent id."""
    children: dict[str, list[_Span]] = defaultdict(list)
    for span in spans.values():
        if span.span_id != root_id:
            children[span.parent_id or ""].append(span)
    kept = {root_id: spans[root_id]}
    kept_children: dict[str, list[_Span]] = defaultdict(list)
    stack = [root_id]
    while stack:
        parent = kept[stack.pop()]
        for child in children.get(parent.span_id, []):
            start, end = max(child.start_ns, parent.start_ns), min(child.end_ns, parent.end_ns)
            if start > end or child.span_id in kept:  # wholly outside the parent, or a cycle in bad data
                continue
            clipped = child._replace(start_ns=start, end_ns=end)
            kept[child.span_id] = clipped
            kept_children[parent.span_id].append(clipped)
            stack.append(child.span_id)
    return kept, kept_children
