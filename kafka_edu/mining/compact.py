"""`kafka-edu mine compact`: OTLP/JSON Lines -> Parquet, one span a row, partitioned by run.

Answers nothing by itself; it makes every later question cheaper: the JSON is parsed once, hot attributes become
typed columns (`broker_id`, `step`, `api_key`, `controller_epoch`, ...) and a job on a few runs reads only their
partitions. Idempotent and incremental: a run already in the store is skipped, a run still being recorded is left
for later, and each new run lands by renaming its finished partition into place, so a crash leaves no half run.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from pyspark.sql import SparkSession

from kafka_edu.mining.source import (
    META_DIR,
    InputReport,
    RunDir,
    account,
    compacted_runs,
    discover_runs,
    read_json,
    select_runs,
    usable,
)


@dataclass
class CompactResult:
    written: list[str] = field(default_factory=list)
    skipped_done: list[str] = field(default_factory=list)
    skipped_running: list[str] = field(default_factory=list)
    report: InputReport = field(default_factory=InputReport)


def compact(spark: SparkSession, traces: Path, out: Path, wanted: list[str] | None = None) -> CompactResult:
    """Write every finished, not yet compacted run under `traces` to `out/run_id=<id>/`."""
    found, notes = discover_runs(traces)
    runs = select_runs(found, wanted)
    done = compacted_runs(out)
    result = CompactResult()
    result.report.notes.extend(notes)
    todo: list[RunDir] = []
    for run in runs:
        if run.run_id in done:
            result.skipped_done.append(run.run_id)
        elif not run.finished:
            result.skipped_running.append(run.run_id)
        elif run.span_files():
            todo.append(run)
        else:
            result.report.spans[run.run_id] = 0
    if not todo:
        return result
    _, classified = read_json(spark, todo)
    classified = classified.persist()
    try:
        reports = account(classified, todo)
        staging = out / f"_staging-{uuid.uuid4().hex}"
        usable(classified).write.partitionBy("run_id").parquet(str(staging))
    finally:
        classified.unpersist()
    (out / META_DIR).mkdir(parents=True, exist_ok=True)
    for run in todo:
        run_report = reports[run.run_id]
        partition = staging / f"run_id={run.run_id}"
        if partition.exists():
            partition.rename(out / f"run_id={run.run_id}")
        else:  # no usable span: an empty partition keeps the run from being re-read every time
            (out / f"run_id={run.run_id}").mkdir(exist_ok=True)
        meta = run_report.to_json() | {"source": str(run.path), "compacted_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        (out / META_DIR / f"{run.run_id}.json").write_text(json.dumps(meta, indent=2) + "\n")
        result.written.append(run.run_id)
        result.report.merge(run_report)
    shutil.rmtree(staging, ignore_errors=True)
    return result
