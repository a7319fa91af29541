"""Where mining jobs get their spans: run directories found under `--traces`, read as OTLP/JSON Lines with the
explicit schema, or read back from the compacted Parquet; every line or span that cannot be used is counted by
reason and reported, never silently dropped."""

from __future__ import annotations

import fnmatch
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from kafka_edu.mining.schema import CORRUPT, HOT_ATTRIBUTES, OTLP_LINE, SPAN
from kafka_edu.mining.session import MiningError

PARQUET_DIR = "_parquet"
META_DIR = "_meta"


@dataclass(frozen=True)
class RunDir:
    """One run directory: its id (the manifest's, else the folder's name), mode and whether it has stopped."""

    run_id: str
    path: Path
    mode: str
    finished: bool

    def span_files(self) -> list[Path]:
        """Span files, plain or gzipped as the lessons record them (Spark reads `.gz` by its name); not span starts."""
        files = [*self.path.glob("*.jsonl"), *self.path.glob("*.jsonl.gz")]
        return sorted(p for p in files if not p.name.endswith((".starts.jsonl", ".starts.jsonl.gz")))


@dataclass
class InputReport:
    """What was read and what was skipped, by reason."""

    spans: dict[str, int] = field(default_factory=dict)  # run id -> usable spans
    skipped: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # reason -> lines or spans
    schema_versions: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    notes: list[str] = field(default_factory=list)

    @property
    def total_spans(self) -> int:
        return sum(self.spans.values())

    def merge(self, other: InputReport) -> None:
        self.spans.update(other.spans)
        for reason, count in other.skipped.items():
            self.skipped[reason] += count
        for run_id, versions in other.schema_versions.items():
            self.schema_versions[run_id] |= versions
        self.notes.extend(other.notes)

    def lines(self) -> list[str]:
        """The summary a job prints: spans read, then every reason something was skipped."""
        out = [f"{self.total_spans} spans from {len(self.spans)} run(s)"]
        out += [f"skipped {count}: {reason}" for reason, count in sorted(self.skipped.items())]
        out += [f"run {run_id} mixes schema versions: {', '.join(sorted(v))}"
                for run_id, v in sorted(self.schema_versions.items()) if len(v) > 1]
        out += [f"run {run_id} has no usable span" for run_id, n in sorted(self.spans.items()) if n == 0]
        return out + self.notes

    def to_json(self) -> dict:
        return {"spans": self.spans, "skipped": dict(self.skipped),
                "schema_versions": {k: sorted(v) for k, v in self.schema_versions.items()}, "notes": self.notes}

    @classmethod
    def from_json(cls, doc: dict) -> InputReport:
        report = cls(spans=dict(doc.get("spans", {})), notes=list(doc.get("notes", [])))
        report.skipped.update(doc.get("skipped", {}))
        for run_id, versions in doc.get("schema_versions", {}).items():
            report.schema_versions[run_id] = set(versions)
        return report


def _run_dir(path: Path) -> RunDir:
    manifest_path = path / "manifest.json"
    manifest: dict = {}
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            manifest = {}
    # No manifest (spans copied by hand): nothing says it is still running.
    finished = not manifest or bool(manifest.get("stopped_at"))
    return RunDir(str(manifest.get("run_id") or path.name), path, str(manifest.get("mode") or "zk"), finished)


def discover_runs(traces: Path) -> tuple[list[RunDir], list[str]]:
    """Every run directory under `traces` (itself included): folders holding span files or a manifest.

    Folders whose name starts with `_` (compacted Parquet, job output) are not runs. Returns the runs and notes
    about folders that were passed over.
    """
    if not traces.is_dir():
        raise MiningError(f"trace directory {traces} does not exist", exit_code=2)
    candidates = {p.parent for pattern in ("*.jsonl", "*.jsonl.gz", "manifest.json") for p in traces.rglob(pattern)}
    runs: dict[str, RunDir] = {}
    notes = []
    for path in sorted(candidates):
        if any(part.startswith("_") for part in path.relative_to(traces).parts):
            continue
        run = _run_dir(path)
        if run.run_id in runs:
            notes.append(f"{path}: run id {run.run_id} already read from {runs[run.run_id].path}; skipped")
            continue
        runs[run.run_id] = run
    return sorted(runs.values(), key=lambda r: r.run_id), notes


def select_runs(runs: list[RunDir], wanted: list[str] | None) -> list[RunDir]:
    """Runs named by id or folder name (globs allowed) or path; all when nothing is asked for."""
    if not wanted:
        return runs
    chosen: dict[str, RunDir] = {}
    for token in wanted:
        matches = [r for r in runs if fnmatch.fnmatchcase(r.run_id, token) or fnmatch.fnmatchcase(r.path.name, token)
                   or (Path(token).exists() and r.path.resolve() == Path(token).resolve())]
        if not matches:
            raise MiningError(f"no run matches {token!r} (known: {', '.join(r.run_id for r in runs) or 'none'})",
                              exit_code=2)
        chosen.update((r.run_id, r) for r in matches)
    return sorted(chosen.values(), key=lambda r: r.run_id)


def _value_text(value: Column) -> Column:
    """An OTLP AnyValue as text: scalars as written, arrays as a JSON array of strings."""
    def scalar(v: Column) -> Column:
        return F.coalesce(v["stringValue"], v["intValue"], v["boolValue"].cast("string"),
                          v["doubleValue"].cast("string"))
    array = F.when(value["arrayValue"].isNotNull(),
                   F.to_json(F.transform(F.coalesce(value["arrayValue"]["values"], F.array()), scalar)))
    return F.coalesce(scalar(value), array)


def _attribute_map(attributes: Column) -> Column:
    entries = F.filter(F.coalesce(attributes, F.array()), lambda a: a["key"].isNotNull())
    return F.map_from_entries(F.transform(entries, lambda a: F.struct(a["key"].alias("key"),
                                                                       _value_text(a["value"]).alias("value"))))


def _nanos(text: Column) -> Column:
    return F.when(text.rlike("^[0-9]+$"), text.cast("long"))


def _classified(spark: SparkSession, run: RunDir) -> DataFrame:
    """Every line and span of one run, each with `reason` (null when usable) and the flat span columns."""
    files = [str(p) for p in run.span_files()]
    raw = (spark.read.schema(OTLP_LINE).option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", CORRUPT)
           .json(files))
    resources = raw.select(F.col(CORRUPT), F.col("resourceSpans").isNull().alias("no_resource_spans"),
                           F.explode_outer("resourceSpans").alias("rs"))
    scopes = resources.select("*", F.explode_outer("rs.scopeSpans").alias("ss"))
    spans = scopes.select("*", F.explode_outer("ss.spans").alias("s"))
    s = F.col("s")
    start, end = _nanos(s["startTimeUnixNano"]), _nanos(s["endTimeUnixNano"])
    reason = (F.when(F.col(CORRUPT).isNotNull(),
                     F.when(F.get_json_object(F.col(CORRUPT), "$").isNull(),
                            F.lit("line is not JSON (truncated or foreign)"))
                     .otherwise(F.lit("JSON line does not fit the OTLP/JSON TracesData schema")))
              .when(F.col("no_resource_spans"), F.lit("JSON line without resourceSpans (another schema or format)"))
              .when(s.isNull(), F.lit("empty"))
              .when((F.coalesce(s["traceId"], F.lit("")) == "") | (F.coalesce(s["spanId"], F.lit("")) == "")
                    | s["name"].isNull(), F.lit("span without traceId, spanId or name"))
              .when(start.isNull() | end.isNull(), F.lit("span without valid start or end time"))
              .when(end < start, F.lit("span ends before it starts")))
    attributes = _attribute_map(s["attributes"])
    resource = _attribute_map(F.col("rs.resource.attributes"))
    instance = resource["service.instance.id"]
    broker_from_instance = F.regexp_extract(instance, r"^broker-(\d+)$", 1)
    hot = {column: attributes[attr].cast("int") for column, attr in HOT_ATTRIBUTES.items() if column != "step"}
    hot["broker_id"] = F.coalesce(hot["broker_id"],
                                  F.when(broker_from_instance != "", broker_from_instance.cast("int")))
    columns = {
        "run_id": F.lit(run.run_id),
        "trace_id": s["traceId"],
        "span_id": s["spanId"],
        "parent_span_id": F.coalesce(s["parentSpanId"], F.lit("")),
        "name": s["name"],
        "kind": s["kind"],
        "start_ns": start,
        "end_ns": end,
        "duration_ns": end - start,
        "status_code": F.coalesce(s["status"]["code"], F.lit(0)),
        "status_message": s["status"]["message"],
        "service_instance": instance,
        "broker_id": hot["broker_id"],
        "step": attributes[HOT_ATTRIBUTES["step"]],
        "api_key": hot["api_key"],
        "api_version": hot["api_version"],
        "controller_epoch": hot["controller_epoch"],
        "attributes": attributes,
        "resource": resource,
        "events": F.transform(F.coalesce(s["events"], F.array()), lambda e: F.struct(
            e["name"].alias("name"), _nanos(e["timeUnixNano"]).alias("time_ns"),
            _attribute_map(e["attributes"]).alias("attributes"))),
        "links": F.transform(F.coalesce(s["links"], F.array()), lambda link: F.struct(
            link["traceId"].alias("trace_id"), link["spanId"].alias("span_id"))),
        "schema_url": F.coalesce(F.col("rs.schemaUrl"), F.col("ss.schemaUrl"), F.lit("")),
    }
    version = F.concat_ws(" ", F.when(columns["schema_url"] != "", columns["schema_url"]),
                          F.concat(F.lit("otel-sdk "), F.coalesce(resource["telemetry.sdk.version"], F.lit("?"))))
    return spans.select(reason.alias("reason"), version.alias("schema_version"),
                        *[c.alias(name) for name, c in columns.items()])


def usable(classified: DataFrame) -> DataFrame:
    return classified.where(F.col("reason").isNull()).select(*[f.name for f in SPAN.fields])


def account(classified: DataFrame, runs: list[RunDir]) -> dict[str, InputReport]:
    """One pass over the classified rows: per run, usable spans and skipped lines and spans by reason."""
    reports = {r.run_id: InputReport(spans={r.run_id: 0}) for r in runs}
    for row in classified.groupBy("run_id", "reason", "schema_version").count().collect():
        report = reports[row["run_id"]]
        if row["reason"] is None:
            report.spans[row["run_id"]] += row["count"]
            report.schema_versions[row["run_id"]].add(row["schema_version"])
        elif row["reason"] != "empty":
            report.skipped[row["reason"]] += row["count"]
    return reports


def merged(reports: dict[str, InputReport]) -> InputReport:
    total = InputReport()
    for report in reports.values():
        total.merge(report)
    return total


def read_json(spark: SparkSession, runs: list[RunDir]) -> tuple[DataFrame, DataFrame]:
    """(usable spans, every classified row) of the runs' span files; runs without span files give nothing."""
    parts = [_classified(spark, run) for run in runs if run.span_files()]
    if not parts:
        raise MiningError("no span files (*.jsonl, *.jsonl.gz) in the chosen runs", exit_code=2)
    classified = parts[0]
    for part in parts[1:]:
        classified = classified.unionByName(part)
    return usable(classified), classified


def compacted_runs(parquet: Path) -> set[str]:
    """Run ids already in the Parquet store (each a `run_id=<id>` partition with its report in `_meta/`)."""
    if not parquet.is_dir():
        return set()
    run_ids = {p.name.removeprefix("run_id=") for p in parquet.glob("run_id=*")}
    return {run_id for run_id in run_ids if (parquet / META_DIR / f"{run_id}.json").exists()}


def read_parquet(spark: SparkSession, parquet: Path, run_ids: list[str]) -> tuple[DataFrame, InputReport]:
    report = InputReport()
    for run_id in run_ids:
        report.merge(InputReport.from_json(json.loads((parquet / META_DIR / f"{run_id}.json").read_text())))
    spans = (spark.read.schema(SPAN).option("basePath", str(parquet)).parquet(str(parquet))
             .where(F.col("run_id").isin(run_ids)))
    return spans.select(*[f.name for f in SPAN.fields]), report


@dataclass
class Loaded:
    spans: DataFrame
    runs: list[RunDir]
    report: InputReport
    source: str  # "json" or "parquet"
    cached: DataFrame | None = None

    def release(self) -> None:
        if self.cached is not None:
            self.cached.unpersist()


def load_spans(spark: SparkSession, traces: Path, wanted: list[str] | None = None, source: str = "auto",
               parquet: Path | None = None) -> Loaded:
    """The spans of the chosen runs, from Parquet when every one is compacted (or `source="parquet"`), else
    from the JSON Lines; raises `MiningError` (exit code 2) when nothing usable is left."""
    found, notes = discover_runs(traces)
    if not found:
        raise MiningError(f"no run directory under {traces}", exit_code=2)
    runs = select_runs(found, wanted)
    parquet = parquet or traces / PARQUET_DIR
    compacted = compacted_runs(parquet)
    cached = None
    use_parquet = source == "parquet" or (source == "auto" and all(r.run_id in compacted for r in runs))
    if use_parquet:
        missing = [r.run_id for r in runs if r.run_id not in compacted]
        if missing:
            raise MiningError(f"not compacted into {parquet}: {', '.join(missing)} (run `kafka-edu mine compact`)",
                              exit_code=2)
        spans, report = read_parquet(spark, parquet, [r.run_id for r in runs])
    else:
        _, classified = read_json(spark, runs)
        # Kept so the JSON is parsed once, by the accounting pass, and the job reads the parsed rows.
        cached = classified.persist(StorageLevel.MEMORY_AND_DISK)
        report = merged(account(cached, runs))
        spans = usable(cached)
    report.notes[:0] = notes
    if report.total_spans == 0:
        if cached is not None:
            cached.unpersist()
        raise MiningError("no usable span in the chosen runs:\n  " + "\n  ".join(report.lines()), exit_code=2)
    return Loaded(spans, runs, report, "parquet" if use_parquet else "json", cached)
