"""Where a span's code is in this checkout: the line its marker names, even if the file changed since the run.

A span records the line of its marker (`with step("LC.startup.08"):`, or the `@step("CT.elect")` decorator of a
whole method) and the function around it. A run recorded before the code moved (the samples in traces/samples, a run
copied from another checkout) points at lines that now hold other code; the marker's step id or span name, and the
function, still find it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=64)
def source_lines(path: str) -> tuple[str, ...] | None:
    """A repository file's lines; None for anything outside the repository, whatever a span claims."""
    file = (REPO / path).resolve()
    if REPO not in file.parents or not file.is_file():
        return None
    return tuple(file.read_text(encoding="utf-8", errors="replace").splitlines())


def step_line(lines: tuple[str, ...], line: int, marker: str, function: str = "") -> int:
    """The line of the step's own code (1-based).

    `line` is what the span recorded, `marker` its step id or span name, `function` its `code.function.name`
    (a qualified name). In order: the recorded line if it names the marker; else the line naming the marker nearest
    the recorded one, inside the function if one there does; else the recorded line if it still lies in the function
    (a marker named only in the tracing tables); else the function's first line; else the recorded line."""
    needle = f'"{marker}"'
    if 1 <= line <= len(lines) and needle in lines[line - 1]:
        return line
    found = [number for number, text in enumerate(lines, 1) if needle in text]
    region = function_region(lines, line, function)
    if region is not None:
        inside = [number for number in found if region[0] <= number <= region[1]]
        if inside:
            return _nearest(inside, line)
    if found:
        return _nearest(found, line)
    if region is not None:
        return line if region[0] <= line <= region[1] else region[0]
    return line


def function_region(lines: tuple[str, ...], line: int, function: str) -> tuple[int, int] | None:
    """First and last line (decorators included) of the definition of `function` nearest `line`, within its class
    when the name says which."""
    parts = [part for part in function.split(".") if part and not part.startswith("<")]
    if not parts:
        return None
    first, last = 1, len(lines)
    if len(parts) > 1:  # Class.method: only the class's own lines
        region = _block(lines, re.compile(rf"^(\s*)class {re.escape(parts[-2])}\b"), line, first, last)
        if region is not None:
            first, last = region
    return _block(lines, re.compile(rf"^(\s*)(async\s+)?def {re.escape(parts[-1])}\s*\("), line, first, last)


def _block(lines: tuple[str, ...], header: re.Pattern[str], line: int, first: int, last: int
           ) -> tuple[int, int] | None:
    """The indented block whose header matches, nearest `line` among those in [first, last]."""
    starts = [number for number in range(first, last + 1) if header.match(lines[number - 1])]
    if not starts:
        return None
    start = _nearest(starts, line)
    indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    end = start
    for number in range(start + 1, last + 1):
        text = lines[number - 1]
        if text.strip() and len(text) - len(text.lstrip()) <= indent and not text.lstrip().startswith(("#", ")")):
            break
        end = number if text.strip() else end
    while start > first and lines[start - 2].strip().startswith("@"):  # its decorators
        start -= 1
    return start, end


def _nearest(numbers: list[int], line: int) -> int:
    return min(numbers, key=lambda number: abs(number - line))
