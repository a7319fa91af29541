"""Reading runs: the explicit-schema JSON reader, bad input counted by reason, and compaction to Parquet."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kafka_edu.mining.session import MiningError
from tests.mining.helpers import BASELINE, FAILOVER, RUNS, SAMPLES


def _span(span_id: str, **overrides) -> dict:
    span = {"traceId": "ab" * 16, "spanId": span_id, "parentSpanId": "", "name": "KafkaServer.startup",
            "kind": 1, "startTimeUnixNano": "1000000", "endTimeUnixNano": "3000000",
            "attributes": [{"key": "kafka.step", "value": {"stringValue": "LC.main.4"}},
                           {"key": "kafka.broker.id", "value": {"intValue": "7"}}],
            "status": {}}
    return span | overrides


def _line(*spans: dict, schema_url: str | None = None) -> str:
    rs = {"resource": {"attributes": [{"key": "service.instance.id", "value": {"stringValue": "broker-7"}}]},
          "scopeSpans": [{"scope": {"name": "kafka_edu"}, "spans": list(spans)}]}
    if schema_url:
        rs["schemaUrl"] = schema_url
    return json.dumps({"resourceSpans": [rs]}) + "\n"


@pytest.fixture
def bad_traces(tmp_path: Path) -> Path:
    run = tmp_path / "bad-run"
    run.mkdir()
    good = _line(_span("0000000000000001"))
    (run / "broker-7.jsonl").write_text(
        good
        + "this is not json\n"
        + _line(_span("0000000000000002"), schema_url="https://opentelemetry.io/schemas/1.30.0")
        + json.dumps({"resource_spans": []}) + "\n"  # another exporter's snake_case layout
        + _line(_span("0000000000000003", traceId=None), _span("0000000000000004", endTimeUnixNano="500"))
        + json.dumps({"resourceSpans": "not a list"}) + "\n"
        + good[: len(good) // 2] + "\n")  # a line cut short by a crash
    (run / "broker-7.starts.jsonl").write_text("{}\n")  # start records are not spans: never read
    empty = tmp_path / "empty-run"
    empty.mkdir()
    (empty / "manifest.json").write_text(json.dumps({"run_id": "empty-run", "mode": "zk", "stopped_at": "x"}))
    return tmp_path


def test_bad_input_is_counted_by_reason(spark, bad_traces: Path) -> None:
    from kafka_edu.mining.source import load_spans

    loaded = load_spans(spark, bad_traces, source="json")
    try:
        report = loaded.report
        assert report.spans == {"bad-run": 2, "empty-run": 0}
        assert dict(report.skipped) == {
            "line is not JSON (truncated or foreign)": 2,
            "JSON line without resourceSpans (another schema or format)": 1,
            "JSON line does not fit the OTLP/JSON TracesData schema": 1,
            "span without traceId, spanId or name": 1,
            "span ends before it starts": 1,
        }
        lines = report.lines()
        assert any("mixes schema versions" in line for line in lines)
        assert "run empty-run has no usable span" in lines
        row = loaded.spans.where("span_id = '0000000000000001'").first()
        assert (row["broker_id"], row["step"], row["duration_ns"], row["service_instance"]) == \
            (7, "LC.main.4", 2_000_000, "broker-7")
    finally:
        loaded.release()


def test_unusable_input_exits_2_with_a_summary(spark, tmp_path: Path, capsys) -> None:
    from kafka_edu.mining.cli import run

    run_dir = tmp_path / "junk"
    run_dir.mkdir()
    (run_dir / "broker-0.jsonl").write_text("garbage\n{\"resourceSpans\": [\n")
    options = _options("startup-profile", tmp_path)
    assert run(options, spark) == 2
    err = capsys.readouterr().err
    assert "no usable span" in err and "skipped 2: line is not JSON" in err
    assert "Exception" not in err and "at org.apache" not in err


def test_missing_trace_directory_exits_2_without_spark(tmp_path: Path, capsys) -> None:
    from kafka_edu.mining.cli import run

    assert run(_options("dependencies", tmp_path / "nowhere")) == 2
    assert "does not exist" in capsys.readouterr().err


def test_unknown_run_is_unusable_input(spark) -> None:
    from kafka_edu.mining.source import load_spans

    with pytest.raises(MiningError) as error:
        load_spans(spark, SAMPLES, ["no-such-run"])
    assert error.value.exit_code == 2


def _options(job: str, traces: Path, *extra: str):
    from kafka_edu.cli import build_parser
    return build_parser().parse_args(["mine", job, "--traces", str(traces), *extra])


def test_compact_is_idempotent_and_incremental(spark, tmp_path: Path, loaded, python_spans) -> None:
    from kafka_edu.mining.compact import compact
    from kafka_edu.mining.source import load_spans

    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copytree(BASELINE, traces / BASELINE.name)
    out = traces / "_parquet"
    first = compact(spark, traces, out)
    baseline_id = python_spans["mining-baseline"].first().resource["kafka.run.id"]
    assert first.written == [baseline_id]
    assert first.report.spans == {baseline_id: len(python_spans["mining-baseline"])}

    shutil.copytree(FAILOVER, traces / FAILOVER.name)
    second = compact(spark, traces, out)
    failover_id = python_spans["mining-failover"].first().resource["kafka.run.id"]
    assert second.written == [failover_id] and second.skipped_done == [baseline_id]
    assert compact(spark, traces, out).written == []  # nothing new: nothing written

    # a run still being recorded waits for its manifest's stopped_at
    live = traces / "live"
    shutil.copytree(BASELINE, live)
    manifest = json.loads((live / "manifest.json").read_text())
    (live / "manifest.json").write_text(json.dumps(manifest | {"run_id": "live-run", "stopped_at": None}))
    assert compact(spark, traces, out).skipped_running == ["live-run"]

    assert sorted(p.name for p in out.glob("run_id=*")) == sorted(f"run_id={r}" for r in (baseline_id, failover_id))
    parquet = load_spans(spark, traces, RUNS)  # auto: both are compacted, so Parquet is read
    assert parquet.source == "parquet"
    assert parquet.report.total_spans == loaded.report.total_spans
    columns = ["run_id", "trace_id", "span_id", "parent_span_id", "name", "start_ns", "end_ns", "duration_ns",
               "service_instance", "broker_id", "step", "api_key", "api_version", "controller_epoch", "status_code"]
    from_parquet = parquet.spans.select(*columns)
    from_json = loaded.spans.select(*columns)
    assert from_parquet.exceptAll(from_json).count() == 0 and from_json.exceptAll(from_parquet).count() == 0
    schema = {f.name: f.dataType.simpleString() for f in parquet.spans.schema.fields}
    assert schema["broker_id"] == "int" and schema["duration_ns"] == "bigint" and schema["controller_epoch"] == "int"
    assert schema["attributes"] == "map<string,string>"


def test_a_lesson_recording_gzipped_is_compacted_and_mined_like_a_plain_run(spark, tmp_path: Path,
                                                                              python_spans) -> None:
    """The lessons record their runs as `*.jsonl.gz`: compact reads them as it reads plain span files."""
    import gzip

    from kafka_edu.mining.compact import compact

    traces = tmp_path / "traces"
    lesson = traces / "lesson-like"
    shutil.copytree(BASELINE, lesson)
    for plain in lesson.glob("*.jsonl"):
        with plain.open("rb") as source, gzip.open(plain.with_name(plain.name + ".gz"), "wb") as target:
            shutil.copyfileobj(source, target)
        plain.unlink()
    assert not list(lesson.glob("*.jsonl"))
    result = compact(spark, traces, traces / "_parquet")
    baseline_id = python_spans["mining-baseline"].first().resource["kafka.run.id"]
    assert result.written == [baseline_id]
    assert result.report.spans == {baseline_id: len(python_spans["mining-baseline"])}
