"""The tracing contract of shared/TRACING.md, checked on spans made in memory and in files."""

from __future__ import annotations

import json
import time

import pytest

from kafka_edu.tracing import event, set_process_attribute, setup_tracing, span, step
from kafka_edu.tracing.query import load_run
from kafka_edu.tracing.steps import STEPS
from tests.unit.helpers import lenient_describers  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("lenient_describers")

def test_a_step_span_names_its_row_its_origin_and_its_python_lines():
    tracing = setup_tracing("broker-0", "run-1")
    with step("LC.startup.04"):
        line = __import__("inspect").currentframe().f_lineno - 1
    (s,) = tracing.memory.get_finished_spans()
    assert s.name == "KafkaServer.initZk"
    assert s.attributes["kafka.step"] == "LC.startup.04"
    assert s.attributes["kafka.origin.file"] == "core/src/main/scala/kafka/server/KafkaServer.scala"
    assert s.attributes["kafka.origin.symbol"] == "KafkaServer.initZk"
    assert s.attributes["kafka.origin.version"] == "1.0.2"
    assert s.attributes["code.file.path"] == "tests/unit/test_tracing.py"
    assert s.attributes["code.line.number"] == line
    assert s.attributes["code.function.name"].endswith("test_a_step_span_names_its_row_its_origin_and_its_python_lines")
    assert s.resource.attributes["service.instance.id"] == "broker-0"
    assert s.resource.attributes["kafka.run.id"] == "run-1"


def test_an_error_inside_a_step_is_recorded_with_kafkas_exception_name():
    class InconsistentBrokerIdException(Exception):
        pass

    tracing = setup_tracing("broker-0", "run-1")
    with pytest.raises(InconsistentBrokerIdException), step("LC.startup.06"):
        raise InconsistentBrokerIdException("ids differ")
    (s,) = tracing.memory.get_finished_spans()
    assert s.status.status_code.name == "ERROR"
    (exception_event,) = s.events
    assert exception_event.attributes["exception.type"] == "InconsistentBrokerIdException"


def test_events_and_process_attributes():
    tracing = setup_tracing("broker-pid1", "run-1")
    with span("KafkaServer.startup", root=True):
        set_process_attribute("kafka.broker.id", 1001)
        with step("LC.startup.03"):
            event("LC.main.3")
    inner, outer = tracing.memory.get_finished_spans()
    assert inner.attributes["kafka.broker.id"] == 1001 and "kafka.broker.id" not in outer.attributes
    assert inner.events[0].name == "shutdown.hook.registered"
    assert inner.events[0].attributes["kafka.step"] == "LC.main.3"
    assert inner.events[0].attributes["signals"] == ("SIGTERM", "SIGINT")  # from its describer
    assert inner.parent.span_id == outer.context.span_id


def test_decorated_method_spans_point_at_the_method():
    tracing = setup_tracing("broker-0", "run-1")

    class LogManager:
        @span("LogManager.loadLogs")
        def load_logs(self) -> int:
            return 3

    assert LogManager().load_logs() == 3
    (s,) = tracing.memory.get_finished_spans()
    assert s.name == "LogManager.loadLogs"
    assert s.attributes["code.function.name"].endswith("LogManager.load_logs")


def test_files_are_otlp_json_lines_and_starts_are_published_before_the_end(tmp_path):
    tracing = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    with step("LC.startup.08"):
        # Starts are written in batches a few times a second: the running step shows before it ends.
        deadline = time.monotonic() + 5
        while not (starts_file := tmp_path / "broker-0.starts.jsonl").read_text() and time.monotonic() < deadline:
            time.sleep(0.01)
        starts = [json.loads(line) for line in starts_file.read_text().splitlines()]
        assert [s["name"] for s in starts] == ["LogManager.startup"]
        assert starts[0]["attributes"]["kafka.step"] == "LC.startup.08"
    tracing.shutdown()
    doc = json.loads((tmp_path / "broker-0.jsonl").read_text().splitlines()[0])
    otlp_span = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert len(otlp_span["traceId"]) == 32 and len(otlp_span["spanId"]) == 16
    assert otlp_span["startTimeUnixNano"].isdigit()
    (record,) = load_run(tmp_path)
    assert record.step == "LC.startup.08" and record.instance == "broker-0" and tracing.dropped == 0


def test_every_registered_step_has_a_span_name_and_an_origin():
    for step_id, row in STEPS.items():
        assert step_id.split(".")[0] in {"LC", "NW", "CT", "LE", "TX", "TX39", "KR", "CL", "RQ", "KV", "GC"}
        assert row.span_name and row.origin_file.startswith(("core/", "raft/", "metadata/", "server-common/",
                                                             "storage/", "group-coordinator/"))


def test_tracing_off_drops_request_traces_but_keeps_the_lifecycle(monkeypatch):
    monkeypatch.setenv("KAFKA_EDU_TRACING", "off")
    tracing = setup_tracing("broker-0", "run-1")
    with step("LC.startup.04"):
        pass
    with span("RequestChannel.Request", root=True), step("NW.apis.1"):
        pass
    assert [s.name for s in tracing.memory.get_finished_spans()] == ["KafkaServer.initZk"]


def test_linked_traces_are_followed(tmp_path):
    tracing = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    from kafka_edu.tracing import current_span_context
    with span("KafkaController.onBrokerFailure", root=True) as cause:
        with span("PartitionStateMachine.handleStateChanges", root=True, links=[current_span_context()]):
            pass
    with span("KafkaController.onBrokerStartup", root=True):
        pass
    tracing.shutdown()
    spans = load_run(tmp_path)
    related = spans.with_linked_traces(format(cause.get_span_context().trace_id, "032x"))
    assert sorted(s.name for s in related) == ["KafkaController.onBrokerFailure",
                                               "PartitionStateMachine.handleStateChanges"]


def test_a_fidelity_event_outside_any_recorded_span_gets_a_span_of_its_own():
    # A Raft role change can happen in a poll that records no span (nothing else worth one): it must not vanish.
    tracing = setup_tracing("controller-1", "run-1")
    event("KR.role")
    (s,) = tracing.memory.get_finished_spans()
    assert s.name == "QuorumState.memoryTransitionTo" and s.parent is None
    (e,) = s.events
    assert e.name == "raft.role.change" and e.attributes["kafka.step"] == "KR.role"
    tracing.memory.clear()
    event("isr.change")  # no FIDELITY row: nothing to keep without a span
    assert tracing.memory.get_finished_spans() == ()
