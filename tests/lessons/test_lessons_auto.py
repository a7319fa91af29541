"""Every lesson, `--auto`, as CI runs it: a real cluster, every action performed, every check holding, exit 0; and a
run in which a check cannot hold exits non-zero with the check's message."""

from __future__ import annotations

import importlib.util
import io
import os
import shutil

import pytest
from rich.console import Console

from kafka_edu.lessons import Lesson, Result, Step
from kafka_edu.lessons.catalog import all_lessons
from kafka_edu.lessons.prompts import Terminal
from kafka_edu.lessons.runner import run_lesson
from tests.lessons.helpers import run_lesson_auto, stop_leftover_clusters

pytestmark = pytest.mark.slow


# many-runs runs the Spark jobs of kafka-edu mine: PySpark and a Java runtime
NEEDS_SPARK = pytest.mark.skipif(importlib.util.find_spec("pyspark") is None or shutil.which("java") is None,
                                 reason="needs pyspark and java")


# lessons that cut network links run their cluster in network namespaces (Lesson.netns): root only
NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0,
                                reason="the lesson cuts network links (cluster up --netns): needs root")


def _param(lesson: Lesson) -> object:
    if lesson.name == "many-runs":
        return pytest.param(lesson.name, marks=[NEEDS_SPARK, pytest.mark.long_run])
    return pytest.param(lesson.name, marks=[NEEDS_ROOT]) if lesson.netns else lesson.name


# many-runs starts three clusters and Spark twice, over a minute: behind the long_run marker (pyproject.toml)
@pytest.mark.parametrize("name", [_param(lesson) for lesson in all_lessons()])
def test_lesson_passes_auto(name, tmp_path):
    traces = tmp_path / "traces"
    try:
        # many-runs starts three clusters and Spark twice: minutes on a busy 2-core machine
        done = run_lesson_auto(name, traces, tmp_path / "state", timeout_s=1500 if name == "many-runs" else 600)
    finally:
        stop_leftover_clusters(traces)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert done.stdout.count("✓ The trace agrees.") == sum(1 for s in next(
        lesson for lesson in all_lessons() if lesson.name == name).steps if s.check is not None)
    # --auto teaches nobody: it records no progress
    assert not (tmp_path / "state" / "progress.json").exists()
    # the lesson stopped the clusters it started
    manifests = list(traces.glob("*/manifest.json"))
    assert manifests and all('"stopped_at": null' not in m.read_text() for m in manifests)


def test_auto_stops_at_the_first_check_that_does_not_hold_and_says_why(tmp_path):
    never = Step(title="A unicorn", about=("KafkaServer.startup",), text="`KafkaServer.startup` makes no unicorns.",
                 check=lambda ev: Result.failed("a unicorn", "no unicorn", "look harder", wait=False))
    unreached = Step(title="Unreached", about=("KafkaServer.startup",), text="`KafkaServer.startup`.")
    lesson = Lesson(name="unicorn", title="Unicorns", summary="", minutes=1, seed="000", intro="A test.",
                    brokers=1, steps=[never, unreached])
    out = io.StringIO()
    code = run_lesson(lesson, auto=True, traces=tmp_path / "traces",
                      terminal=Terminal(Console(file=out, width=120), interactive=False))
    text = out.getvalue()
    assert code == 1
    assert "expected: a unicorn" in text and "seen:     no unicorn" in text and "hint:     look harder" in text
    assert "Unreached" not in text
    manifest = next((tmp_path / "traces").glob("*/manifest.json")).read_text()
    assert '"stopped_at": null' not in manifest
