"""Lesson `broker-life`: each check, fed a made-up run in which the thing it looks for did not happen, says what it
expected, what it saw, and what to do."""

from __future__ import annotations

from kafka_edu.tracing.query import SpanEvent
from lessons import broker_life as lesson
from tests.lessons.helpers import FakeRun, died, ns

FACTS = {"broker": 0, "controller": 1, "log_dir": "/nonexistent/broker-0/logs", "broker_ids": [0, 1]}


def two_brokers(run: FakeRun) -> None:
    for broker in (0, 1):
        root = run.startup(broker, at_ms=broker * 10)
        for i, step in enumerate(lesson.STARTUP_STEPS):
            run.span(f"Startup.{step}", broker, broker * 10 + 2 + i, 1, step=step, parent=root)
    run.elect(1, at_ms=50, won=True, controller=1, epoch=1)
    run.elect(0, at_ms=51, won=False, controller=1)


def test_no_controller_yet_is_waited_for():
    run = FakeRun()
    run.startup(0, at_ms=0)
    result = lesson.started_step_by_step(run.evidence(broker_ids=[0, 1]))
    assert not result.ok and result.wait and "no election won yet" in result.seen


def test_startup_steps_out_of_order_are_shown():
    run = FakeRun()
    root = run.startup(0, at_ms=0)
    steps = list(lesson.STARTUP_STEPS)
    steps[7], steps[9] = steps[9], steps[7]  # SocketServer before LogManager
    for i, step in enumerate(steps):
        run.span(f"Startup.{step}", 0, 2 + i, 1, step=step, parent=root)
    run.elect(1, at_ms=50, won=True, controller=1, epoch=1)
    result = lesson.started_step_by_step(run.evidence(broker_ids=[0, 1]))
    assert not result.ok and not result.wait
    assert "LC.startup.10, LC.startup.09, LC.startup.08" in result.seen


def test_the_broker_to_follow_is_the_one_that_is_not_the_controller():
    run = FakeRun()
    two_brokers(run)
    result = lesson.started_step_by_step(run.evidence(broker_ids=[0, 1]))
    assert result.ok, result.message()
    assert result.facts["broker"] == 0 and result.facts["controller"] == 1
    assert "| LC.startup.24 |" in result.explain
    assert lesson.slowest_of_four(run.evidence(**FACTS)) in lesson.RACE


def test_records_not_written_get_the_command_again():
    run = FakeRun()
    two_brokers(run)
    result = lesson.records_written(run.evidence(**FACTS))
    assert not result.ok and "TopicChange" in result.expected and "&&" in result.hint
    run.span("KafkaController.TopicChange.process", 1, 100, step="CT.topic", kafka__topics__new=[lesson.TOPIC])
    run.span("Log.append", 1, 110, step="NW.log.append", kafka__topic=lesson.TOPIC, kafka__partition=0,
             kafka__offset__first=0, kafka__offset__last=99)
    result = lesson.records_written(run.evidence(**FACTS))
    assert not result.ok and "100 in the traces" in result.seen and "kcat" in result.hint


def test_a_kill_is_not_a_clean_stop():
    run = FakeRun()
    two_brokers(run)
    result = lesson.stopped_cleanly(run.evidence([died(0, 1500)], alive={0: None, 1: 101}, action_ns=ns(1000),
                                                 **FACTS))
    assert not result.ok and not result.wait
    assert "killed" in result.seen and "cluster start 0" in result.hint and "cluster stop 0" in result.hint


def test_no_stop_yet_gets_the_stop_command():
    run = FakeRun()
    two_brokers(run)
    result = lesson.stopped_cleanly(run.evidence(action_ns=ns(1000), **FACTS))
    assert not result.ok and not result.wait and "cluster stop 0" in result.hint


def test_a_restart_after_a_clean_stop_must_not_recover():
    run = FakeRun()
    two_brokers(run)
    run.startup(0, at_ms=2000, states=("Starting", "RecoveringFromUncleanShutdown", "RunningAsBroker"))
    result = lesson.restarted_clean(run.evidence(action_ns=ns(1900), **FACTS))
    assert not result.ok and not result.wait
    assert "without RecoveringFromUncleanShutdown" in result.expected
    assert "Starting → RecoveringFromUncleanShutdown → RunningAsBroker" in result.seen


def test_a_refused_restart_is_explained_with_a_hint_to_wait():
    run = FakeRun()
    two_brokers(run)
    root = run.startup(0, at_ms=2000, states=("Starting",))
    root.events.append(SpanEvent("startup.fatal", ns(2100), {"exception.message": "A broker is already registered"}))
    result = lesson.restarted_recovered(run.evidence(action_ns=ns(1900), **FACTS))
    assert not result.ok and not result.wait
    assert "already registered" in result.seen and "wait a few seconds" in result.hint


def test_no_restart_yet_gets_the_start_command():
    run = FakeRun()
    two_brokers(run)
    result = lesson.restarted_recovered(run.evidence(alive={0: None, 1: 101}, action_ns=ns(1900), **FACTS))
    assert not result.ok and not result.wait and "not running" in result.seen and "cluster start 0" in result.hint


def test_a_stop_is_not_a_kill():
    run = FakeRun()
    two_brokers(run)
    run.span("KafkaServer.shutdown", 0, 3000, 300)
    result = lesson.killed(run.evidence([died(0, 3400)], alive={0: None, 1: 101}, action_ns=ns(2900), **FACTS))
    assert not result.ok and not result.wait
    assert "it was stopped, not killed" in result.seen and "cluster kill 0" in result.hint


def test_a_kill_waits_for_the_controller_to_notice():
    run = FakeRun()
    two_brokers(run)
    result = lesson.killed(run.evidence(action_ns=ns(2900), **FACTS))
    assert not result.ok and not result.wait and "still running" in result.seen
    result = lesson.killed(run.evidence([died(0, 3000)], alive={0: None, 1: 101}, action_ns=ns(2900), **FACTS))
    assert not result.ok and result.wait
    assert "BrokerChange naming broker 0 dead" in result.expected and "zookeeper.session.timeout.ms" in result.hint


def test_a_restart_that_was_not_refused_gets_the_one_line_hint():
    run = FakeRun()
    two_brokers(run)
    run.startup(0, at_ms=9000)
    result = lesson.refused(run.evidence([died(0, 8000)], action_ns=ns(7900), **FACTS))
    assert not result.ok and not result.wait
    assert "started fine" in result.seen
    assert "cluster kill 0" in result.hint and "; kafka-edu cluster start 0" in result.hint
