"""Our own code, not a Kafka port: a run directory, `traces/<run-id>/`, with every file of one cluster run and its
manifest (shared/TRACING.md)."""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

RUN_DIR_ENV = "KAFKA_EDU_RUN_DIR"
RUN_ID_ENV = "KAFKA_EDU_RUN_ID"
DEFAULT_TRACES_DIR = Path("traces")


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


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
    def newest(cls, traces_dir: Path = DEFAULT_TRACES_DIR) -> RunDirectory:
        runs = sorted(p for p in traces_dir.glob("*/manifest.json"))
        if not runs:
            raise FileNotFoundError(f"no run with a manifest under {traces_dir}/")
        return cls.open(max(runs, key=lambda p: p.stat().st_mtime).parent)

    def environment(self) -> dict[str, str]:
        return {**os.environ, RUN_DIR_ENV: str(self.path), RUN_ID_ENV: self.run_id}

    # -- manifest -------------------------------------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    def read_manifest(self) -> dict[str, Any]:
        return json.loads(self.manifest_path.read_text())

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        temp = self.manifest_path.with_suffix(".tmp")
        temp.write_text(json.dumps(manifest, indent=2) + "\n")
        os.replace(temp, self.manifest_path)

    # -- per-process exit records (a process cannot safely edit the manifest the runner owns) --------------------

    def write_exit_record(self, instance_id: str, exit_code: int, dropped_spans: int) -> None:
        record = {"instance": instance_id, "exit_code": exit_code, "dropped_spans": dropped_spans,
                  "pid": os.getpid(), "at": now_iso()}
        (self.path / f"{instance_id}.exit.json").write_text(json.dumps(record) + "\n")

    def exit_records(self) -> dict[str, dict[str, Any]]:
        return {p.name.removesuffix(".exit.json"): json.loads(p.read_text())
                for p in self.path.glob("*.exit.json")}
