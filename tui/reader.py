"""Tailing a run directory: new bytes of every span file, read by offset, never whole files (as Toolong does).
A recorded sample's compressed span files (`*.jsonl.gz`, as `traces/samples/lesson-*` keep them) are read front to
back in the same budget-sized pieces.

One `RunReader.poll()` returns what appeared since the last call. It runs on a worker thread; the UI only
receives the parsed batch. Bad input is reported, not raised: a missing directory, a line still being written,
a file truncated or replaced under us, a line that is not JSON.
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.run_directory import JsonFileWatch
from kafka_edu.tracing.query import SpanRecord, parse_traces_line

STARTS_SUFFIX = ".starts.jsonl"
READ_BUDGET = 4 << 20  # bytes per poll, so replaying a big run hands the UI batches while it stays responsive


def parse_start_line(line: str, instance: str) -> SpanRecord | None:
    """One `*.starts.jsonl` record -> a running span (end 0); the file name says which process wrote it."""
    try:
        doc = json.loads(line)
        return SpanRecord(trace_id=doc["traceId"], span_id=doc["spanId"], parent_id=doc.get("parentSpanId", ""),
                          name=doc["name"], start_ns=int(doc["startTimeUnixNano"]), end_ns=0,
                          attributes=doc.get("attributes") or {}, resource={"service.instance.id": instance})
    except (ValueError, KeyError, TypeError):
        return None


class FileTail:
    """The unread end of one growing file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.inode: int | None = None
        self.partial = b""  # a last line without its newline yet
        self.resets = 0  # times the file shrank or was replaced: read again from its start
        self.bad_lines = 0

    def read_lines(self, budget: int) -> list[str]:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return []
        if self.inode is not None and (stat.st_ino != self.inode or stat.st_size < self.offset):
            self.offset, self.partial = 0, b""
            self.resets += 1
        self.inode = stat.st_ino
        if stat.st_size <= self.offset:
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read(budget)
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        return [line.decode("utf-8", errors="replace") for line in lines if line.strip()]


class GzipTail(FileTail):
    """A compressed span file of a recorded run: it never changes, so it is decompressed once, piece by piece."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._file: gzip.GzipFile | None = None
        self.done = False

    def read_lines(self, budget: int) -> list[str]:
        if self.done:
            return []
        if self._file is None:
            self._file = gzip.open(self.path, "rb")
        try:
            data = self._file.read(budget)
        except (OSError, EOFError):  # not gzip, or cut short: what was read stands
            self.bad_lines += 1
            data = b""
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop() if data else b""
        if not data:
            self._file.close()
            self.done = True
        return [line.decode("utf-8", errors="replace") for line in lines if line.strip()]


@dataclass
class ReadBatch:
    """What one poll found."""

    ended: list[SpanRecord] = field(default_factory=list)
    started: list[SpanRecord] = field(default_factory=list)
    manifest: dict[str, Any] | None = None  # when it changed
    exits: dict[str, dict[str, Any]] = field(default_factory=dict)  # instance -> its exit record, when new
    span_stats: dict[str, dict[str, Any]] = field(default_factory=dict)  # instance -> its span-file policy and counts
    dead: set[str] | None = None  # instances whose process is gone, when it changed
    problems: list[str] | None = None  # when they changed: what is wrong with the run's files

    def __bool__(self) -> bool:
        return bool(self.ended or self.started or self.manifest is not None or self.exits or self.span_stats
                    or self.dead is not None
                    or self.problems is not None)


class RunReader:
    """Tails every span file of one run directory and watches its manifest and exit records."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.tails: dict[Path, FileTail] = {}
        self.manifest: dict[str, Any] = {}
        self._manifest = JsonFileWatch(run_dir / "manifest.json")
        self._side_files: dict[Path, JsonFileWatch] = {}
        self._dead: set[str] | None = None
        self._problems: list[str] = []

    def poll(self) -> ReadBatch:
        batch = ReadBatch()
        if self.run_dir.is_dir():
            self._read_manifest(batch)
            self._read_exits(batch)
            self._read_spans(batch)
            self._check_processes(batch)
        problems = self.problems()
        if problems != self._problems:
            self._problems = batch.problems = problems
        return batch

    @property
    def finished(self) -> bool:
        """A run whose processes are all gone: replay, without actions."""
        return bool(self.manifest.get("stopped_at"))

    def _read_manifest(self, batch: ReadBatch) -> None:
        manifest = self._manifest.read_if_changed()
        if manifest is not None:
            self.manifest = batch.manifest = manifest

    def _read_exits(self, batch: ReadBatch) -> None:
        for suffix, found in ((".exit.json", batch.exits), (".tracing.json", batch.span_stats)):
            for path in self.run_dir.glob("*" + suffix):
                record = self._side_files.setdefault(path, JsonFileWatch(path)).read_if_changed()
                if record is not None:
                    found[path.name.removesuffix(suffix)] = record

    def _read_spans(self, batch: ReadBatch) -> None:
        for path in sorted(self.run_dir.glob("*.jsonl")):
            self.tails.setdefault(path, FileTail(path))
        for path in sorted(self.run_dir.glob("*.jsonl.gz")):
            if path not in self.tails:
                self.tails[path] = GzipTail(path)
        budget = READ_BUDGET
        # Ends before starts: a replay then skips the start of every span that has ended.
        for tail in sorted(self.tails.values(), key=lambda t: t.path.name.endswith(STARTS_SUFFIX)):
            if budget <= 0:
                break
            before = tail.offset
            lines = tail.read_lines(budget)
            budget -= tail.offset - before
            if tail.path.name.endswith(STARTS_SUFFIX):
                instance = tail.path.name.removesuffix(STARTS_SUFFIX)
                for line in lines:
                    span = parse_start_line(line, instance)
                    if span is None:
                        tail.bad_lines += 1
                    else:
                        batch.started.append(span)
            else:
                for line in lines:
                    spans = parse_traces_line(line)
                    if not spans and '"spans"' in line:
                        tail.bad_lines += 1
                    batch.ended.extend(spans)

    def _check_processes(self, batch: ReadBatch) -> None:
        processes = [p for p in self.manifest.get("processes", []) if p.get("role") == "broker"]
        if self.finished:
            dead = {f"broker-{p['id']}" for p in processes}
        else:
            dead = {f"broker-{p['id']}" for p in processes if p.get("pid") and not process_alive(p["pid"])}
        if dead != self._dead:
            self._dead = batch.dead = dead

    def problems(self) -> list[str]:
        """What is wrong with the files, in words for the status line."""
        if not self.run_dir.exists():
            return [f"no run directory at {self.run_dir}"]
        notes = []
        if not (self.run_dir / "manifest.json").exists():
            notes.append("no manifest.json")
        if not self.tails:
            notes.append("no span files yet")
        for tail in self.tails.values():
            if tail.bad_lines:
                notes.append(f"{tail.path.name}: {tail.bad_lines} unreadable line(s) skipped")
            if tail.resets:
                notes.append(f"{tail.path.name}: truncated or replaced {tail.resets}×, read again")
            if tail.partial and self.finished:
                notes.append(f"{tail.path.name}: last line cut off ({len(tail.partial)} bytes) ignored")
        return notes
