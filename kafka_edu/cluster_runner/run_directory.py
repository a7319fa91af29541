"""Our own code, not a Kafka port: a run directory, `traces/<run-id>/`, with every file of one cluster run and its
manifest (shared/TRACING.md)."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

RUN_DIR_ENV = "KAFKA_EDU_RUN_DIR"
RUN_ID_ENV = "KAFKA_EDU_RUN_ID"
DEFAULT_TRACES_DIR = Path("traces")


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class AmbiguousRunError(RuntimeError):
    """More than one run is live and the command did not say which."""


class JsonFileWatch:
    """A small JSON file another process rewrites (a manifest, an exit record), read again only once it changed.

    A change is told by inode, nanosecond mtime and size, not by mtime alone: an atomic replace makes a new inode,
    and two writes within one tick of the file system's coarse clock would otherwise look like one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._version: tuple[int, int, int] | None = None

    def read_if_changed(self) -> dict[str, Any] | None:
        """The file's contents if it changed since the last read; None if not, or if absent or half-written."""
        try:
            st = self.path.stat()
            version = (st.st_ino, st.st_mtime_ns, st.st_size)
            if version == self._version:
                return None
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None  # absent, or replaced under us: read on the next poll
        self._version = version
        return data


class RunDirectory:
    def __init__(self, path: Path, run_id: str) -> None:
        self.path = path
        self.run_id = run_id

    @classmethod
    def create(cls, traces_dir: Path = DEFAULT_TRACES_DIR) -> RunDirectory:
        run_id = new_run_id()
        path = traces_dir.absolute() / run_id
        path.mkdir(parents=True)
        return cls(path, run_id)

    @classmethod
    def open(cls, path: Path) -> RunDirectory:
        manifest = json.loads((path / "manifest.json").read_text()) if (path / "manifest.json").exists() else {}
        return cls(path.absolute(), manifest.get("run_id", path.name))

    @classmethod
    def from_environment(cls) -> RunDirectory:
        """The run a process belongs to: the runner's (environment), or a new one for a standalone command."""
        if RUN_DIR_ENV in os.environ:
            path = Path(os.environ[RUN_DIR_ENV]).absolute()
            path.mkdir(parents=True, exist_ok=True)
            return cls(path, os.environ.get(RUN_ID_ENV, path.name))
        return cls.create()

    @classmethod
    def all_runs(cls, traces_dir: Path = DEFAULT_TRACES_DIR) -> list[RunDirectory]:
        """Every run with a manifest, in the order they were started (a run id begins with its start time)."""
        return sorted((cls.open(p.parent) for p in traces_dir.glob("*/manifest.json")), key=lambda r: r.run_id)

    @classmethod
    def newest(cls, traces_dir: Path = DEFAULT_TRACES_DIR, *, changes: bool = False) -> RunDirectory:
        """The run a command means when it names none: the live run started last, else the run started last.

        A command that would stop or change a cluster (`changes`) refuses to guess between two live runs: a restart
        in one class's cluster must not make another class's `cluster down` stop it.
        """
        runs = cls.all_runs(traces_dir)
        if not runs:
            raise FileNotFoundError(f"no run with a manifest under {traces_dir}/")
        live = [run for run in runs if run.is_live()]
        if changes and len(live) > 1:
            names = "".join(f"\n  {run.path}" for run in live)
            raise AmbiguousRunError(f"{len(live)} runs are live:{names}\nsay which one with --run DIR")
        return live[-1] if live else runs[-1]

    def is_live(self) -> bool:
        """Not stopped by the runner, and at least one of its processes still there."""
        from kafka_edu.cluster_runner.processes import process_alive
        try:
            manifest = self.read_manifest()
        except (OSError, ValueError):
            return False
        return not manifest.get("stopped_at") and any(
            process_alive(p["pid"]) for p in manifest.get("processes", []) if p.get("pid"))

    def environment(self) -> dict[str, str]:
        return {**os.environ, RUN_DIR_ENV: str(self.path), RUN_ID_ENV: self.run_id}

    # -- manifest -------------------------------------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    def read_manifest(self) -> dict[str, Any]:
        return json.loads(self.manifest_path.read_text())

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replace the manifest at once. The temporary file is the writer's own: two writers sharing one would
        interleave their bytes in it, and the rename would publish the mix."""
        temp = self.path / f".manifest.{os.getpid()}.{threading.get_ident()}.tmp"
        temp.write_text(json.dumps(manifest, indent=2) + "\n")
        os.replace(temp, self.manifest_path)

    @contextmanager
    def changing_manifest(self) -> Iterator[dict[str, Any]]:
        """The manifest to change in place, written back when the block ends without an error. The runner, the TUI
        and `kafka-edu cluster` commands change it from several threads and processes: an exclusive lock on
        `manifest.lock`, held from the read to the write, keeps one writer from undoing another's change. Not
        reentrant: a block must not start another."""
        with open(self.path / "manifest.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a lock of this open file: other threads' opens wait for it too
            manifest = self.read_manifest()
            yield manifest
            self.write_manifest(manifest)

    # -- per-process exit records (a process cannot safely edit the manifest the runner owns) --------------------

    def write_exit_record(self, instance_id: str, exit_code: int, span_stats: dict[str, Any]) -> None:
        """`span_stats`: what the process's span files gave up (`dropped_spans`, and by policy and budget)."""
        record = {"instance": instance_id, "exit_code": exit_code, "dropped_spans": span_stats.get("dropped_spans", 0),
                  "span_files": span_stats, "pid": os.getpid(), "at": now_iso()}
        (self.path / f"{instance_id}.exit.json").write_text(json.dumps(record) + "\n")

    def exit_records(self) -> dict[str, dict[str, Any]]:
        return {p.name.removesuffix(".exit.json"): json.loads(p.read_text())
                for p in self.path.glob("*.exit.json")}
