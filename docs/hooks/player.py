"""MkDocs hook (our own code, not a Kafka port): a player for every recorded run a page shows.

A page asks for a player with `<div class="kafka-player" data-sample="NAME"></div>` (NAME a directory of
`traces/samples/`); each lesson page gets one for its recorded run (`lesson-<name>`) without asking, above its
diagram, and each of its steps a button that moves the player to the moment the step acted. At build time the run is
read once (`kafka_edu.lessons.diagram`, which reads gzipped span files too) and compacted into
`assets/player/runs/<NAME>.js`: the spans in start order (times in microseconds from the first span, names and
values interned), the arrows and marks the lesson diagram draws, controller epochs, the lesson's steps as chapters,
the FIDELITY explanation of every step the run reached (`tui.explanations`, the TUI's), the ported Python around
each step's own line (found again by `tui.source` if the code moved since the run) and each Kafka origin with its
link to Kafka's repository at that version. The data is a script, not a fetch(), so the built site works from
file:// too; `assets/player/player.js` draws it (plain JavaScript, a canvas, no library).
"""

from __future__ import annotations

import base64
import gzip
import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.plugins.kafka_edu.player")

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "traces" / "samples"
RUNS = "assets/player/runs"
ASKED = re.compile(r'<div class="kafka-player" data-sample="([A-Za-z0-9_.-]+)"\s*>\s*</div>')
KAFKA_TAGS = {"1.0.2": "1.0.2", "1.1.0": "1.1.0", "3.9": "3.9.0"}  # kafka.origin.version -> the git tag
KAFKA_BLOB = "https://github.com/apache/kafka/blob/{tag}/{path}"
# a manifest's fault -> the mark's kind and label (as the lesson diagram marks the faults a lesson did)
FAULT_MARKS = {"kill -9": ("killed", "killed (SIGKILL): no more spans"), "start": ("start", "started again"),
               "pause": ("paused", "paused (SIGSTOP)"), "resume": ("resumed", "resumed (SIGCONT)")}
VALUE_CHARS = 160  # an attribute value longer than this is cut: the player shows it, it does not archive it
# shown in sections of their own by the detail, as the TUI's Detail pane does
SECTIONED = {"kafka.step", "kafka.origin.file", "kafka.origin.symbol", "kafka.origin.version", "code.file.path",
             "code.line.number", "code.function.name"}

if str(REPO) not in sys.path:  # `tui/` and `lessons/` are top-level packages of the repository
    sys.path.insert(0, str(REPO))


class _Strings:
    """Interned strings: each text once in the data, referred to by its index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.items: list[str] = []

    def __call__(self, text: Any) -> int:
        text = "" if text is None else str(text)
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.items)
            self.items.append(text)
        return found


def _short(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def _excerpt(path: str, line: int, marker: str, function: str) -> dict[str, Any] | None:
    """The port's code around a step's own line, as the TUI's Detail pane shows it."""
    from tui.source import source_lines, step_line
    from tui.widgets.detail import LINES_AFTER, LINES_BEFORE
    lines = source_lines(path)
    if not lines or not 1 <= line <= len(lines):
        return None
    shown = step_line(lines, line, marker, function) if marker else line
    first = max(shown - LINES_BEFORE, 1)
    while first < shown and not lines[first - 1].strip():
        first += 1
    last = min(shown + LINES_AFTER, len(lines))
    return {"file": path, "line": shown, "recorded": line, "function": function, "first": first,
            "lines": list(lines[first - 1:last])}


def _more_marks(recorded: Any) -> list[tuple[int, str, str, str]]:
    """(when, lane, label, kind) of the state changes the lesson diagram leaves out, for the lanes' states: each time
    a ZooKeeper-mode controller took a new epoch, and a KRaft controller's Raft roles other than those it draws
    (Follower, Unattached)."""
    from kafka_edu.lessons.diagram import SHOWN_ROLES
    out = []
    for span in recorded.spans.where(name="KafkaController.incrementControllerEpoch"):
        epoch = span.attributes.get("kafka.controller.epoch")
        if epoch is not None and not span.is_error:
            out.append((span.end_ns, span.instance, f"controller, epoch {epoch}", "epoch"))
    for span in recorded.spans.with_event("raft.role.change"):
        for event in span.events:
            role = event.attributes.get("kafka.raft.role.to")
            if event.name == "raft.role.change" and role not in SHOWN_ROLES and span.instance.startswith("controller-"):
                out.append((event.time_ns, span.instance, f"{role}, epoch {event.attributes.get('kafka.raft.epoch')}",
                            "role"))
    return out


def compact(recorded: Any, name: str, title: str) -> dict[str, Any]:
    """What the player needs of a recorded run (`kafka_edu.lessons.diagram.Recorded`), as JSON-ready data."""
    from kafka_edu.lessons import diagram
    from kafka_edu.tracing.steps import STEPS
    from tui.explanations import explain

    strings = _Strings()
    t0 = recorded.t0
    lanes = list(recorded.lanes)
    for span in recorded.spans:  # a process the diagram has no lane for (a storage tool) still gets one
        if span.instance and span.instance not in lanes:
            lanes.append(span.instance)
    lane_of = {lane: i for i, lane in enumerate(lanes)}

    def us(ns: int) -> int:
        return round((ns - t0) / 1000)

    attr_sets: dict[tuple[int, ...], int] = {}
    codes: dict[tuple[str, int, str, str], int] = {}
    code_list: list[dict[str, Any]] = []
    origins: dict[tuple[str, str, str], int] = {}
    origin_list: list[list[Any]] = []
    kinds: dict[tuple[int, int, int, int], int] = {}  # (name, step, code, origin): most spans of a name share them
    steps: dict[str, dict[str, str]] = {}
    columns: dict[str, list[int]] = {"start": [], "dur": [], "lane": [], "kind": [], "attrs": [], "errors": []}
    at: dict[tuple[int, str], int] = {}
    last = 0
    for n, span in enumerate(recorded.spans):
        a = span.attributes
        pairs = tuple(i for key in sorted(a) if key not in SECTIONED for i in (strings(key), strings(_short(a[key]))))
        code = -1
        path, line = a.get("code.file.path"), a.get("code.line.number")
        if isinstance(path, str) and isinstance(line, int):
            key = (path, line, span.step or span.name, str(a.get("code.function.name", "")))
            if key not in codes:
                excerpt = _excerpt(*key)
                codes[key] = len(code_list) if excerpt is not None else -1
                if excerpt is not None:
                    code_list.append(excerpt)
            code = codes[key]
        origin = -1
        if a.get("kafka.origin.file"):
            version = str(a.get("kafka.origin.version", ""))
            okey = (str(a["kafka.origin.file"]), str(a.get("kafka.origin.symbol", "")), version)
            if okey not in origins:
                origins[okey] = len(origin_list)
                tag = KAFKA_TAGS.get(version)
                origin_list.append([*okey, KAFKA_BLOB.format(tag=tag, path=okey[0]) if tag else ""])
            origin = origins[okey]
        if span.step and span.step not in steps:
            row, fidelity = explain(span.step), STEPS.get(span.step)
            steps[span.step] = {"span": row.span if row else (fidelity.span_name if fidelity else span.name),
                                "what": row.what if row else "", "why": row.why if row else ""}
        kind = (strings(span.name), strings(span.step) if span.step else -1, code, origin)
        start = us(span.start_ns)
        columns["start"].append(start - last)  # start order: small deltas
        last = start
        columns["dur"].append(max(round((span.end_ns - span.start_ns) / 1000), 0))
        columns["lane"].append(lane_of.get(span.instance, 0))
        columns["kind"].append(kinds.setdefault(kind, len(kinds)))
        columns["attrs"].append(attr_sets.setdefault(pairs, len(attr_sets)) if pairs else -1)
        if span.is_error:
            columns["errors"].append(n)
        at.setdefault((span.start_ns, span.instance), n)
    messages: list[int] = []
    for m in diagram.messages(recorded.spans):
        if m.source not in lane_of or m.target not in lane_of:
            continue
        # the span an arrow stands for started where it was received, or where it was sent (a write, a lost send)
        index = at.get((m.at_ns, m.target), at.get((m.at_ns, m.source), -1))
        messages += [us(m.at_ns), lane_of[m.source], lane_of[m.target], strings(m.label), strings(m.kind),
                     strings(m.note), 1 if m.error else 0, index]
    marks: list[int] = []
    found = [(m.at_ns, m.lane, m.label, m.kind) for m in diagram.marks(recorded.spans, recorded.lesson)]
    found += _more_marks(recorded)
    for fault in recorded.manifest.get("faults", []):  # a recorded run's own faults (record_kraft.py writes them)
        lane = next((f"{role}-{fault.get('node')}" for role in ("controller", "broker")
                     if f"{role}-{fault.get('node')}" in lane_of), None)
        if lane is not None and fault.get("fault") in FAULT_MARKS and "time_ns" in fault:
            kind, label = FAULT_MARKS[fault["fault"]]
            found.append((fault["time_ns"], lane, label, kind))
    for at_ns, lane, label, kind in sorted(found):
        if lane in lane_of:
            marks += [us(at_ns), lane_of[lane], strings(label), strings(kind)]
    chapters = [{"title": title_, "at": us(action_ns), "end": us(ended_ns)}
                for title_, action_ns, ended_ns in recorded.step_times()]
    end = max(us(s.end_ns) for s in recorded.spans)
    if chapters:  # the lesson stopping its cluster after its last check is not part of it, as in the diagram
        end = min(end, chapters[-1]["end"] + 2_000_000)
    return {"name": name, "title": title, "mode": recorded.mode, "t0": str(t0), "end": end, "lanes": lanes,
            "strings": strings.items, "spans": columns, "kinds": [list(k) for k in kinds],
            "attrs": [list(k) for k in attr_sets], "code": code_list, "origins": origin_list, "steps": steps,
            "messages": messages, "marks": marks, "chapters": chapters, "colours": diagram.COLOURS}


def run_script(data: dict[str, Any]) -> str:
    """The data as a script that registers it: a page's <script src> reads it, from a server or from file://.
    Gzipped and base64'd (the browser's DecompressionStream opens it): a tenth of the JSON's size."""
    packed = gzip.compress(json.dumps(data, separators=(",", ":")).encode(), compresslevel=9, mtime=0)
    return (f"(window.KafkaEduRuns = window.KafkaEduRuns || {{}})[{json.dumps(data['name'])}] = "
            f"\"{base64.b64encode(packed).decode()}\";\n")


# -- MkDocs events ---------------------------------------------------------------------------------------------------

_wanted: dict[str, str] = {}  # sample -> title, for the pages of this build


def _lessons() -> list[Any]:
    from kafka_edu.lessons.catalog import all_lessons
    return all_lessons()


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from kafka_edu.lessons import diagram
    _wanted.clear()
    for n, lesson in enumerate(_lessons(), 1):
        if (SAMPLES / f"lesson-{lesson.name}" / "lesson.json").exists():
            _wanted[f"lesson-{lesson.name}"] = f"Lesson {n}: {lesson.title}, as recorded"
    for f in files.documentation_pages():
        if f.abs_src_path:
            for sample in ASKED.findall(Path(f.abs_src_path).read_text(encoding="utf-8")):
                _wanted.setdefault(sample, f"traces/samples/{sample}")
    for sample, title in sorted(_wanted.items()):
        path = SAMPLES / sample
        if not (path / "manifest.json").exists():
            log.warning("a page asks for a player of traces/samples/%s, which is no recorded run", sample)
            continue
        data = compact(diagram.load_recorded(path), sample, title)
        files.append(File.generated(config, f"{RUNS}/{sample}.js", content=run_script(data)))
    return files


def _player(sample: str, root: str, lesson: bool = False) -> str:
    caption = (f'<p class="kp-caption">The player below plays this run: press play, or step span by span (→) or '
               f'from one of the lesson\'s steps to the next (<kbd>n</kbd>); each step below has a button that '
               f'moves it there. <a href="{root}player/">The run player</a> lists its keys.</p>\n') if lesson else ""
    return (f'{caption}<div class="kafka-player" data-sample="{sample}"><noscript>The player needs JavaScript; '
            f'the diagram below is the same run.</noscript></div>\n<script src="{root}{RUNS}/{sample}.js"></script>')


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    root = "../" * page.url.count("/")  # the page's way back to the site's root, relative: file:// has no server
    src = page.file.src_uri
    lesson = re.fullmatch(r"lessons/([a-z0-9-]+)\.md", src)
    sample = f"lesson-{lesson.group(1)}" if lesson else None
    shown = False
    if sample in _wanted:
        html, count = re.subn(r'(<div class="lesson-diagram">)',
                              lambda m: _player(sample, root, lesson=True) + "\n" + m.group(1), html, count=1)
        shown = count == 1
        if shown:  # each step of the lesson: a button that shows its moment in the player
            html = re.sub(r'(<h2 id="step-(\d+)[^"]*">.*?</h2>)', lambda m: m.group(1) + (
                f'\n<p class="kp-chapter-link"><button type="button" data-kp-sample="{sample}" '
                f'data-kp-chapter="{int(m.group(2)) - 1}">Show step {m.group(2)} in the recorded run</button></p>'),
                html)

    def asked(m: re.Match[str]) -> str:
        return _player(m.group(1), root) if m.group(1) in _wanted else m.group(0)
    html, count = ASKED.subn(asked, html)
    if not shown and not count:
        return html
    return (f'<link rel="stylesheet" href="{root}assets/player/player.css">\n{html}\n'
            f'<script src="{root}assets/player/player.js"></script>')
