"""Our own test code, not a Kafka port: the referee's count. At the end of a run that ran any of Kafka's own ported
tests, one line per Kafka test class: its cases in Kafka, how many are not applicable, still to port, ported, passed,
failed, and kept apart as a deliberate difference; the pass share is of the applicable cases. With
KAFKA_EDU_KAFKA_TESTS_JSON=PATH the same figures go to PATH (the docs site's hook runs these tests that way to draw
docs/kafka-tests.md)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

from kafka_edu.tracing import provider
from tests.kafka_tests.referee import KafkaTestClass, snake

FIGURES_ENV = "KAFKA_EDU_KAFKA_TESTS_FIGURES"  # read by docs/hooks/kafka_tests.py
_outcomes: dict[str, dict[str, str]] = defaultdict(dict)  # module file -> test function -> outcome
_classes: dict[str, KafkaTestClass] = {}


@pytest.fixture(autouse=True)
def _no_process_tracing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kafka's tests run untraced, as Kafka runs them: a test elsewhere in the run that installed this process's
    tracing must not have the tracing code call into a case's fakes (it would use up their expectations)."""
    monkeypatch.setattr(provider, "_current", None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        kafka = getattr(item.module, "KAFKA", None) if isinstance(item, pytest.Function) else None
        if isinstance(kafka, KafkaTestClass):
            _classes[item.module.__file__] = kafka


_to_run: set[str] = set()  # node ids of the Kafka cases this session still has to run


def pytest_collection_finish(session: pytest.Session) -> None:
    every_class = {str(path.resolve()) for path in Path(__file__).parent.rglob("*_test.py")}
    if session.config.option.keyword or not every_class <= set(_classes):
        return  # a partial run: its figures would draw a partial page
    _to_run.update(item.nodeid for item in session.items if str(Path(item.fspath).resolve()) in _classes)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = str(Path(report.fspath).resolve())
    if path not in _classes:
        return
    if report.when == "teardown" and report.nodeid in _to_run:
        _to_run.discard(report.nodeid)
        if not _to_run:
            _publish_figures()
    name = report.location[2].split("[")[0]
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        if hasattr(report, "wasxfail"):
            outcome = "differs" if report.skipped else "failed"  # a strict xfail that passed fails the run
        else:
            outcome = report.outcome
        previous = _outcomes[path].get(name)
        # a parametrized case: any failing run fails it, else any passing run passes it; a skipped run alone is
        # what it is (a parameter that cannot apply, say)
        rank = {"failed": 3, "passed": 2, "differs": 1, "skipped": 0}
        if previous is None or rank[outcome] > rank[previous]:
            _outcomes[path][name] = outcome


def _publish_figures() -> None:
    """Every Kafka case of this session has run: its figures go to a file named in FIGURES_ENV, so a docs build
    later in the same session (tests/test_docs.py) draws the page from this run instead of running the tests again."""
    target = Path(tempfile.gettempdir()) / f"kafka-edu-kafka-tests-{os.getpid()}.json"
    target.write_text(json.dumps(figures(), indent=2) + "\n")
    os.environ[FIGURES_ENV] = str(target)


def figures() -> list[dict]:
    rows = []
    for path, kafka in sorted(_classes.items(), key=lambda kv: (kv[1].version, kv[1].name)):
        done = _outcomes.get(path, {})
        counts = defaultdict(int)
        for case in kafka.cases:
            if case in kafka.not_applicable:
                counts["not_applicable"] += 1
            elif case in kafka.not_ported:
                counts["not_ported"] += 1
            elif snake(case) in done:
                counts["ported"] += 1
                counts[done[snake(case)]] += 1
        applicable = len(kafka.cases) - counts["not_applicable"]
        rows.append({"version": kafka.version, "class": kafka.name, "kafka_path": kafka.path,
                     "port_path": str(Path(path).relative_to(Path(__file__).resolve().parents[2])),
                     "cases": len(kafka.cases), "applicable": applicable, "ported": counts["ported"],
                     "passed": counts["passed"], "failed": counts["failed"], "differs": counts["differs"],
                     "skipped": counts["skipped"], "not_applicable": counts["not_applicable"],
                     "not_ported": counts["not_ported"], "not_applicable_reasons": kafka.not_applicable,
                     "not_ported_reasons": kafka.not_ported})
    return rows


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    rows = figures()
    if not rows:
        return
    write = terminalreporter.write_line
    terminalreporter.section("Kafka's own tests, ported (tests/kafka_tests)")
    width = max(34, *(len(r["class"]) for r in rows))
    write(f"{'Kafka':6} {'test class':{width}} {'cases':>5} {'n/a':>4} {'to port':>7} {'ported':>6} {'passed':>6} "
          f"{'failed':>6} {'differs':>7} {'pass %':>6}")
    for r in rows:
        share = f"{100 * r['passed'] / r['applicable']:.0f}" if r["applicable"] else "-"
        write(f"{r['version']:6} {r['class']:{width}} {r['cases']:5} {r['not_applicable']:4} {r['not_ported']:7} "
              f"{r['ported']:6} {r['passed']:6} {r['failed']:6} {r['differs']:7} {share:>6}")
    target = os.environ.get("KAFKA_EDU_KAFKA_TESTS_JSON")
    if target:
        Path(target).write_text(json.dumps(rows, indent=2) + "\n")
        print(f"figures written to {target}", file=sys.stderr)
