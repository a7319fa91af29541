"""Record one sample run per lesson, for the lesson pages of the docs site (docs/hooks/lessons.py).

    .venv/bin/python traces/samples/record_lessons.py [broker-life request-journey ...]

Each lesson runs as `kafka-edu lesson run NAME --auto` runs it (the lesson's own cluster shape, its actions, every
check holding), in a scratch directory. What is kept in `traces/samples/lesson-<name>/`:

- every span file, gzipped (`broker-0.jsonl.gz`: OTLP JSON repeats itself, so a whole lesson's spans fit in about a
  hundred KB), and the manifest; no span-start files, no broker data, no logs. `kafka_edu.lessons.diagram.load_spans`
  reads them; for the TUI, copy the directory and `gunzip` its files first;
- `lesson.json`: what the traces cannot say: when each step began, acted and ended, the facts its text was filled
  with, its question's answer for this run, its check's explanation with this run's numbers; the broker (and KRaft
  controller: `broker` is then its node id) processes that ended or were paused and when (the lesson's own process
  watch); and the facts the checks handed on (`kill_noticed_s`, `first_startup_ms`, ...);
- a lesson's own log beside the spans, gzipped (`members.ndjson.gz`: what rebalance-without-stopping's consumer
  processes reported). That lesson's producer and consumers keep its broker busy: its sample leaves their Produce,
  Fetch and OffsetCommit requests out (`LEFT_OUT_APIS`).

A KRaft lesson runs on its own KRaft cluster (`Lesson.mode`); a cluster a lesson starts beside its own (zk-or-kraft's
ZooKeeper-mode one) is stopped at the end and not kept. A KRaft cluster's controllers answer a Fetch long poll or a
heartbeat every few hundred milliseconds: of those background requests' traces only the request itself
(`RequestChannel.Request`, the arrow the diagram draws) is kept, and none of their network processors' loop phases
(`Processor.*` spans that are traces of their own), which together would make a recording three times larger.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.lessons.catalog import all_lessons
from kafka_edu.lessons.model import Lesson, Step
from kafka_edu.lessons.prompts import Terminal
from kafka_edu.lessons.runner import LessonFailed, LessonRun
from kafka_edu.tracing.query import load_run

SAMPLES = Path(__file__).resolve().parent
BACKGROUND_APIS = {"Fetch", "BrokerHeartbeat"}  # what a KRaft controller answers all the time
# Lessons whose own clients keep a broker busy (a producer, consumers polling): their samples leave those requests'
# traces out altogether, and every node's network-loop phases with them; a lesson's own log (`*.ndjson`) is kept
LEFT_OUT_APIS = {"rebalance-without-stopping": {"Produce", "Fetch", "OffsetCommit"},
                 "lost-writes": {"Produce", "Fetch"}}


class _Recorder(Terminal):
    """A terminal that prints nowhere and keeps each check's explanation (facts filled in), in order."""

    def __init__(self) -> None:
        super().__init__(Console(file=io.StringIO(), width=120), interactive=False)
        self.explained: list[str] = []

    def passed(self, explain: str) -> None:
        self.explained.append(explain.strip())


class _RecordedRun(LessonRun):
    """The lesson's own run, noting the facts each step's text, question and command were filled with."""

    filled_with: dict[str, Any] = {}

    def prepare(self, step: Step) -> None:
        super().prepare(step)
        self.filled_with = dict(self.facts)


def _json_safe(facts: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in facts.items() if isinstance(v, str | int | float | bool | list | type(None))}


def _run(lesson: Lesson, scratch: Path) -> tuple[Path, dict[str, Any]]:
    """Run the lesson on a cluster of its own; its run directory and what lesson.json keeps of it."""
    runner = ClusterRunner.up(lesson.brokers, scratch, None, list(lesson.overrides), mode=lesson.mode,
                              controllers=lesson.controllers, dynamic_quorum=lesson.dynamic_quorum, netns=lesson.netns)
    terminal = _Recorder()
    session = _RecordedRun(lesson, runner, terminal, auto=True, owned=True)
    session.watch.start()
    steps = []
    try:
        for index, step in enumerate(lesson.steps, 1):
            began, explained = time.time_ns(), len(terminal.explained)
            session.run_step(index, step)
            steps.append({
                "title": step.title, "began_ns": began, "action_ns": session.facts["action_ns"],
                "ended_ns": time.time_ns(), "facts": _json_safe(session.filled_with),
                "answer": step.predict.answer_for(session.evidence()) if step.predict else None,
                "explain": "\n\n".join(terminal.explained[explained:])})
    finally:
        session.watch.stop()
        session.stop_others()  # a cluster the lesson started beside its own (zk-or-kraft): not recorded
        runner.down()
    exits, _, pauses = session.watch.snapshot()
    facts = _json_safe(session.facts)
    return runner.run.path, {
        "lesson": lesson.name, "started_ns": facts.pop("started_ns"), "steps": steps,
        "exits": [{"broker": e.broker_id, "pid": e.pid, "at_ns": e.at_ns} for e in exits],
        "pauses": [{"broker": p.broker_id, "pid": p.pid, "at_ns": p.at_ns, "resumed": p.resumed} for p in pauses],
        "facts": facts,
    }


def background_traces(run_dir: Path) -> set[str]:
    """The traces of requests a KRaft controller answers all the time (Raft Fetch long polls, heartbeats)."""
    return {s.trace_id for s in load_run(run_dir).where(name="RequestChannel.Request")
            if s.instance.startswith("controller-") and s.attributes.get("kafka.api.name") in BACKGROUND_APIS}


def left_out_traces(run_dir: Path, apis: set[str]) -> set[str]:
    """The traces of the requests a lesson's sample leaves out (LEFT_OUT_APIS)."""
    if not apis:
        return set()
    return {s.trace_id for s in load_run(run_dir).where(name="RequestChannel.Request")
            if s.attributes.get("kafka.api.name") in apis}


def _kept(span: dict, controller: bool, background: set[str], left_out: set[str] = frozenset()) -> bool:
    if span.get("traceId") in left_out:
        return False
    if left_out and span.get("name", "").startswith("Processor.") and not span.get("parentSpanId"):
        return False
    if span.get("traceId") in background:
        return span.get("name") == "RequestChannel.Request"
    return not (controller and span.get("name", "").startswith("Processor.") and not span.get("parentSpanId"))


def trimmed(line: str, background: set[str], left_out: set[str] = frozenset()) -> str:
    """One OTLP/JSON line without a KRaft controller's network plumbing, nor the traces a lesson leaves out (see
    above); other lines as they are."""
    if not background and not left_out:
        return line
    doc = json.loads(line)
    for resource_spans in doc.get("resourceSpans", []):
        instance = next((a["value"].get("stringValue", "") for a in resource_spans.get("resource", {}).get(
            "attributes", []) if a.get("key") == "service.instance.id"), "")
        for scope_spans in resource_spans.get("scopeSpans", []):
            scope_spans["spans"] = [s for s in scope_spans.get("spans", [])
                                    if _kept(s, instance.startswith("controller-"), background, left_out)]
    return json.dumps(doc, separators=(",", ":")) + "\n"


def record(lesson: Lesson, attempts: int = 3) -> Path:
    with tempfile.TemporaryDirectory() as scratch:
        for attempt in range(1, attempts + 1):
            try:
                run_dir, recorded = _run(lesson, Path(scratch))
                break
            except LessonFailed as e:
                print(f"{lesson.name}, attempt {attempt}: {e}", file=sys.stderr)
                if attempt == attempts:
                    raise
        target = SAMPLES / f"lesson-{lesson.name}"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        background = background_traces(run_dir)
        left_out = left_out_traces(run_dir, LEFT_OUT_APIS.get(lesson.name, set()))
        for path in sorted(run_dir.glob("*.jsonl")):
            if path.name.endswith(".starts.jsonl"):
                continue
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            with open(target / f"{path.name}.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
                f.write("".join(trimmed(line, background, left_out) for line in lines if line.endswith("\n"))
                        .encode())
        for path in sorted(run_dir.glob("*.ndjson")):
            with open(target / f"{path.name}.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
                f.write(path.read_bytes())

        def here(text: str) -> str:  # the scratch paths mean nothing once copied
            return text.replace(str(run_dir), f"traces/samples/{target.name}").replace(scratch, "traces")
        (target / "manifest.json").write_text(here((run_dir / "manifest.json").read_text()))
        (target / "lesson.json").write_text(here(json.dumps(recorded, indent=2) + "\n"))
    return target


if __name__ == "__main__":
    wanted = sys.argv[1:]
    for lesson in all_lessons():
        if wanted and lesson.name not in wanted:
            continue
        path = record(lesson)
        size = sum(p.stat().st_size for p in path.iterdir())
        print(f"{lesson.name}: {path} ({size // 1024} KB)")
