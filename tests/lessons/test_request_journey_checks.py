"""Lesson `request-journey`: each check, fed a made-up run in which the thing it looks for did not happen, says what
it expected, what it saw, and what to do."""

from __future__ import annotations

from lessons import request_journey as lesson
from tests.lessons.helpers import FakeRun, ns

CONNECTION = "127.0.0.1:9092-127.0.0.1:50000-3"  # local-remote-index, as a Processor names it


def request(run: FakeRun, api: str, at_ms: float, took_ms: float, client: str = "rdkafka", **metrics: float):
    root = run.span("RequestChannel.Request", 0, at_ms, took_ms, kafka__api__name=api, kafka__api__version=3,
                    kafka__client__id=client, kafka__connection__id=CONNECTION,
                    **{f"kafka__request__{k}": v for k, v in metrics.items()})
    run.span("Processor.processCompletedReceives", 0, at_ms + 0.1, 0.05, step="NW.processor.4", parent=root,
             thread__name="kafka-network-thread-1")
    run.span("KafkaRequestHandler.run", 0, at_ms + 0.2, took_ms / 2, step="NW.handler.1", parent=root,
             thread__name="kafka-request-handler-3")
    return root


def test_no_create_topics_request_gets_the_command():
    run = FakeRun()
    result = lesson.connection_served(run.evidence(action_ns=ns(0)))
    assert not result.ok and "CreateTopics" in result.expected and "run the command above" in result.hint


def test_the_connection_and_its_threads_are_named():
    run = FakeRun()
    run.span("Acceptor.accept", 0, 0, 0.2, step="NW.acceptor.1", kafka__client__address="127.0.0.1:50000",
             kafka__processor__id=1, thread__name="kafka-socket-acceptor")
    request(run, "ApiVersions", 1, 1)
    request(run, "CreateTopics", 3, 50, remote_time_ms=40.0)
    result = lesson.connection_served(run.evidence(action_ns=ns(0)))
    assert result.ok, result.message()
    assert "handed it to processor 1" in result.explain and "| CreateTopics v3 |" in result.explain


def test_a_produce_to_another_topic_does_not_count():
    run = FakeRun()
    root = request(run, "Produce", 10, 2)
    run.span("Log.append", 0, 11, 0.3, step="NW.log.append", parent=root, kafka__topic="elsewhere",
             kafka__offset__first=0, kafka__offset__last=0)
    result = lesson.produce_followed(run.evidence(action_ns=ns(0)))
    assert not result.ok and f"`{lesson.TOPIC}`" in result.expected and "kcat" in result.hint


def test_metrics_that_do_not_add_up_are_reported():
    run = FakeRun()
    root = request(run, "Produce", 10, 2, queue_time_ms=0.5, local_time_ms=0.5, remote_time_ms=0.0,
                   throttle_time_ms=0.0, response_queue_time_ms=0.2, response_send_time_ms=0.2, total_time_ms=3.0)
    result = lesson.metrics_add_up(run.evidence(produce_trace=root.trace_id))
    assert not result.ok and not result.wait
    assert "3.000 ms" in result.expected and "1.400 ms: time is missing" in result.seen


def test_missing_metrics_are_named():
    run = FakeRun()
    root = request(run, "Produce", 10, 2, queue_time_ms=0.5)
    result = lesson.metrics_add_up(run.evidence(produce_trace=root.trace_id))
    assert not result.ok and "LocalTimeMs" in result.seen


def test_the_requests_are_waited_for_and_a_request_read_while_muted_is_a_bug():
    run = FakeRun()
    result = lesson.one_in_flight(run.evidence(action_ns=ns(0)))
    assert not result.ok and result.wait and "0 Fetch" in result.seen
    request(run, "Fetch", 1, 1000, client="lesson-pipelined", remote_time_ms=1000.0)
    request(run, "ApiVersions", 2, 1, client="lesson-pipelined")  # read while the Fetch was still in the broker
    request(run, "ApiVersions", 2, 1, client="lesson-alone")
    result = lesson.one_in_flight(run.evidence(action_ns=ns(0)))
    assert not result.ok and not result.wait
    assert "only after the first was answered" in result.expected and "before the Fetch's answer" in result.seen
