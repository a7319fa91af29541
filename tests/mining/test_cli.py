"""`kafka-edu mine JOB`: a table on stdout, a CSV and a chart (PNG and SVG) in --out."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.mining.helpers import SAMPLES


def test_job_prints_a_table_and_writes_csv_and_charts(spark, tmp_path: Path, capsys, monkeypatch) -> None:
    from kafka_edu.cli import build_parser
    from kafka_edu.mining.cli import run

    monkeypatch.setenv("COLUMNS", "250")  # a wide terminal: cells unwrapped

    out = tmp_path / "out"
    options = build_parser().parse_args(["mine", "failover-timeline", "--traces", str(SAMPLES), "--runs",
                                         "mining-failover", "--out", str(out)])
    assert run(options, spark) == 0
    printed = capsys.readouterr().out
    assert "Controller changes" in printed and "session lost" in printed and "spans from 1 run(s)" in printed
    with open(out / "failover-timeline.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and rows[0]["cause"] == "session lost: /controller deleted"
    assert (out / "failover-timeline.png").read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (out / "failover-timeline.svg").read_text()


def test_regressions_needs_a_baseline() -> None:
    import pytest

    from kafka_edu.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["mine", "regressions", "--traces", "traces"])
