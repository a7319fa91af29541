"""KafkaEventQueue (Kafka 3.9): one thread, APPEND / PREPEND / DEFERRED, tags, deadlines, shutdown, and its KR.queue
spans. A test that needs time to pass moves its own clock and wakes the queue up, as Kafka's tests do with MockTime."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future

import pytest

from kafka_edu.tracing import provider, setup_tracing
from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException, TimeoutException
from kafka_edu.v3_9.server_common.queue.event_queue import (
    DeadlineFunction,
    EarliestDeadlineFunction,
    Event,
    LatestDeadlineFunction,
    NoDeadlineFunction,
)
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import SYSTEM_TIME, KafkaEventQueue

WAIT_S = 10
SECOND_NS = 1_000_000_000


class ManualTime:
    """A clock that moves only when the test moves it (Kafka's MockTime)."""

    def __init__(self) -> None:
        self.ns = 1_000 * SECOND_NS

    def nanoseconds(self) -> int:
        return self.ns


class Recorded(Event):
    """Appends its name to a shared list when it runs, `name!ExceptionName` when the queue hands it an exception."""

    def __init__(self, name: str, seen: list[str], action: Callable[[], None] = lambda: None) -> None:
        self.name = name
        self.seen = seen
        self.action = action
        self.ran: Future[str] = Future()
        self.failed: Future[BaseException] = Future()

    def run(self) -> None:
        self.seen.append(self.name)
        self.ran.set_result(threading.current_thread().name)
        self.action()

    def handle_exception(self, e: BaseException) -> None:
        self.seen.append(f"{self.name}!{type(e).__name__}")
        self.failed.set_result(e)


class Gate(Recorded):
    """Holds the queue thread until the test opens it, so that events can be lined up behind it."""

    def __init__(self, seen: list[str]) -> None:
        self.open = threading.Event()
        super().__init__("gate", seen, lambda: self.open.wait(WAIT_S))


@pytest.fixture
def time() -> ManualTime:
    return ManualTime()


@pytest.fixture
def queues() -> Iterator[Callable[..., KafkaEventQueue]]:
    made: list[KafkaEventQueue] = []

    def make(time: object = SYSTEM_TIME, cleanup_event: Event | None = None, prefix: str = "test-") -> KafkaEventQueue:
        queue = (KafkaEventQueue(time, "[queue] ", prefix) if cleanup_event is None
                 else KafkaEventQueue(time, "[queue] ", prefix, cleanup_event))
        made.append(queue)
        return queue

    yield make
    for queue in made:  # close(), with a limit on the join: a queue that never ends fails the test, not the run
        queue.begin_shutdown("test teardown")
        queue.event_handler_thread.join(WAIT_S)
        assert not queue.event_handler_thread.is_alive()


def drain(queue: KafkaEventQueue, seen: list[str]) -> None:
    """Wait until everything queued before now, and every deferred event already due, has had its turn."""
    sentinel = Recorded("sentinel", seen)
    queue.append(sentinel)
    sentinel.ran.result(WAIT_S)
    seen.remove("sentinel")


def held(queue: KafkaEventQueue, seen: list[str]) -> Gate:
    gate = Gate(seen)
    queue.append(gate)
    gate.ran.result(WAIT_S)  # the thread is inside the gate now
    return gate


# -- order ---------------------------------------------------------------------------------------------------------

def test_appended_events_run_in_order_on_one_thread_named_after_the_prefix(queues):
    queue = queues(prefix="quorum-controller-1-")
    seen: list[str] = []
    gate = held(queue, seen)
    events = [Recorded(name, seen) for name in ("a", "b", "c")]
    for event in events:
        queue.append(event)
    assert queue.size() == 4  # the running gate counts until it is done
    gate.open.set()
    assert {e.ran.result(WAIT_S) for e in events} == {"quorum-controller-1-event-handler"}
    assert seen == ["gate", "a", "b", "c"]
    drain(queue, seen)
    assert queue.is_empty()


def test_prepend_jumps_ahead_of_the_queued_events(queues):
    queue = queues()
    seen: list[str] = []
    gate = held(queue, seen)
    queue.append(Recorded("a", seen))
    queue.append(Recorded("b", seen))
    queue.prepend(Recorded("first", seen))
    gate.open.set()
    drain(queue, seen)
    assert seen == ["gate", "first", "a", "b"]


# -- tags and deferred events -----------------------------------------------------------------------------------------

def test_a_second_deferred_event_with_the_same_tag_replaces_the_first(queues, time):
    queue = queues(time)
    seen: list[str] = []
    first, second = Recorded("first", seen), Recorded("second", seen)
    queue.schedule_deferred("fence", DeadlineFunction(time.ns + 10 * SECOND_NS), first)
    queue.schedule_deferred("fence", DeadlineFunction(time.ns + 20 * SECOND_NS), second)
    assert queue.size() == 1
    assert queue.first_deferred_if_idling() is second
    time.ns += 30 * SECOND_NS
    queue.wakeup()
    second.ran.result(WAIT_S)
    drain(queue, seen)
    assert seen == ["second"]  # the replaced event neither ran nor was told anything
    assert not first.failed.done()


def test_earliest_deadline_function_keeps_the_sooner_deadline_of_the_tag(queues, time):
    queue = queues(time)
    seen: list[str] = []
    soon, late = Recorded("soon", seen), Recorded("late", seen)
    queue.schedule_deferred("tick", EarliestDeadlineFunction(time.ns + 10 * SECOND_NS), soon)
    queue.schedule_deferred("tick", EarliestDeadlineFunction(time.ns + 60 * SECOND_NS), late)
    time.ns += 10 * SECOND_NS  # the first deadline: the replacing event inherited it
    queue.wakeup()
    late.ran.result(WAIT_S)
    assert seen == ["late"]


def test_the_deadline_functions():
    assert NoDeadlineFunction.INSTANCE(5) is None
    assert DeadlineFunction(7)(3) == 7
    assert EarliestDeadlineFunction(7)(None) == 7
    assert EarliestDeadlineFunction(7)(3) == 3
    assert EarliestDeadlineFunction(7)(9) == 7
    assert LatestDeadlineFunction(7)(None) == 7
    assert LatestDeadlineFunction(7)(9) == 9
    assert LatestDeadlineFunction(7)(3) == 7


def test_cancel_deferred_drops_the_tagged_event(queues, time):
    queue = queues(time)
    seen: list[str] = []
    cancelled = Recorded("cancelled", seen)
    queue.schedule_deferred("fence", DeadlineFunction(time.ns + SECOND_NS), cancelled)
    queue.cancel_deferred("fence")
    queue.cancel_deferred("no-such-tag")  # ignored
    assert queue.is_empty()
    time.ns += 2 * SECOND_NS
    queue.wakeup()
    drain(queue, seen)
    assert seen == []
    assert not cancelled.failed.done()


def test_a_deferred_event_runs_at_its_deadline_not_before(queues, time):
    queue = queues(time)
    seen: list[str] = []
    deadline = time.ns + 10 * SECOND_NS
    deferred = Recorded("deferred", seen)
    queue.schedule_deferred(None, DeadlineFunction(deadline), deferred)
    time.ns = deadline - SECOND_NS
    queue.wakeup()
    drain(queue, seen)
    assert seen == [] and queue.first_deferred_if_idling() is deferred
    time.ns = deadline
    queue.wakeup()
    deferred.ran.result(WAIT_S)
    assert seen == ["deferred"] and queue.first_deferred_if_idling() is None


def test_a_deferred_event_on_the_real_clock_does_not_run_early(queues):
    queue = queues()
    seen: list[str] = []
    ran_at: list[int] = []
    deadline = SYSTEM_TIME.nanoseconds() + 50_000_000
    deferred = Recorded("deferred", seen, lambda: ran_at.append(SYSTEM_TIME.nanoseconds()))
    queue.schedule_deferred(None, DeadlineFunction(deadline), deferred)
    deferred.ran.result(WAIT_S)
    assert ran_at[0] >= deadline


def test_deferred_events_with_the_same_deadline_both_run_the_later_one_a_nanosecond_on(queues, time):
    queue = queues(time)
    seen: list[str] = []
    deadline = time.ns + SECOND_NS
    first, second = Recorded("first", seen), Recorded("second", seen)
    queue.schedule_deferred(None, DeadlineFunction(deadline), first)
    queue.schedule_deferred(None, DeadlineFunction(deadline), second)
    assert queue.size() == 2
    time.ns = deadline  # the second one's deadline moved to deadline + 1: not due yet
    queue.wakeup()
    first.ran.result(WAIT_S)
    drain(queue, seen)
    assert seen == ["first"]
    time.ns = deadline + 1
    queue.wakeup()
    second.ran.result(WAIT_S)


def test_a_deferred_event_without_a_deadline_is_refused(queues):
    queue = queues()
    seen: list[str] = []
    event = Recorded("deferred", seen)
    queue.schedule_deferred(None, NoDeadlineFunction.INSTANCE, event)
    assert isinstance(event.failed.result(0), RuntimeError)  # delivered at once, in the caller's thread
    assert queue.is_empty()


# -- deadlines ------------------------------------------------------------------------------------------------------

def test_an_append_whose_deadline_passed_gets_a_timeout_exception_instead_of_running(queues, time):
    queue = queues(time)
    seen: list[str] = []
    gate = held(queue, seen)
    timed_out = Recorded("timed-out", seen)
    in_time = Recorded("in-time", seen)
    queue.append_with_deadline(time.ns + SECOND_NS, timed_out)
    queue.append_with_deadline(time.ns + 60 * SECOND_NS, in_time)
    time.ns += 2 * SECOND_NS  # the first deadline passes while the gate holds the thread
    gate.open.set()
    assert isinstance(timed_out.failed.result(WAIT_S), TimeoutException)
    in_time.ran.result(WAIT_S)
    assert seen == ["gate", "timed-out!TimeoutException", "in-time"]


# -- failures and shutdown ------------------------------------------------------------------------------------------

def test_an_exception_from_run_goes_to_handle_exception_and_the_queue_keeps_running(queues):
    queue = queues()
    seen: list[str] = []
    boom = ValueError("boom")

    def fail() -> None:
        raise boom

    failing, after = Recorded("failing", seen, fail), Recorded("after", seen)
    queue.append(failing)
    queue.append(after)
    assert failing.failed.result(WAIT_S) is boom
    after.ran.result(WAIT_S)
    assert seen == ["failing", "failing!ValueError", "after"]


def test_an_event_enqueued_after_begin_shutdown_is_rejected_in_the_callers_thread(queues):
    queue = queues()
    seen: list[str] = []
    queue.begin_shutdown("test")
    late = Recorded("late", seen, lambda: seen.append(threading.current_thread().name))
    queue.append(late)
    assert isinstance(late.failed.result(0), RejectedExecutionException)
    assert seen == ["late!RejectedExecutionException"]
    queue.close()
    assert not late.ran.done()


def test_shutdown_runs_queued_events_refuses_deadline_holders_and_runs_the_cleanup_event_last(queues, time):
    seen: list[str] = []
    cleanup = Recorded("cleanup", seen)
    queue = queues(time, cleanup_event=cleanup)
    gate = held(queue, seen)
    queue.append(Recorded("a", seen))
    queue.schedule_deferred("later", DeadlineFunction(time.ns + 60 * SECOND_NS), deferred := Recorded("deferred", seen))
    queue.append_with_deadline(time.ns + 60 * SECOND_NS, with_deadline := Recorded("with-deadline", seen))
    queue.append(Recorded("b", seen))
    queue.begin_shutdown("test")
    queue.begin_shutdown("test again")  # a second call changes nothing
    gate.open.set()
    queue.event_handler_thread.join(WAIT_S)
    assert not queue.event_handler_thread.is_alive()
    assert isinstance(deferred.failed.result(0), RejectedExecutionException)
    assert isinstance(with_deadline.failed.result(0), RejectedExecutionException)
    # Deadline holders are refused first (the deadline map is looked at before the list), then the plain events run.
    assert seen == ["gate", "deferred!RejectedExecutionException", "with-deadline!RejectedExecutionException",
                    "a", "b", "cleanup"]
    assert cleanup.ran.result(0) == "test-event-handler"


def test_close_joins_the_thread_of_an_idle_queue(queues):
    queue = queues()
    assert queue.event_handler_thread.is_alive()
    queue.close()
    assert not queue.event_handler_thread.is_alive()


# -- KR.queue spans -------------------------------------------------------------------------------------------------

_ENQUEUE = "KafkaEventQueue.enqueue"
_RUN = "KafkaEventQueue.EventHandler.handleEvents"


@pytest.fixture
def tracing(monkeypatch):
    monkeypatch.setattr(provider, "_current", None)  # restored after the test
    return setup_tracing("controller-1", "run-1", mode="kraft")


def spans_named(tracing, name: str) -> list:
    return [s for s in tracing.memory.get_finished_spans() if s.name == name]


def test_an_events_run_span_is_the_child_of_its_enqueue_span(queues, tracing):
    queue = queues(prefix="quorum-controller-1-")
    seen: list[str] = []

    class ControllerWriteEvent(Recorded):
        pass

    named = ControllerWriteEvent("createTopics", seen)
    queue.append(named)
    named.ran.result(WAIT_S)
    queue.close()
    (enqueue,) = spans_named(tracing, _ENQUEUE)
    (run,) = spans_named(tracing, _RUN)
    assert enqueue.attributes["kafka.step"] == run.attributes["kafka.step"] == "KR.queue"
    assert enqueue.attributes["kafka.queue.event"] == run.attributes["kafka.queue.event"] == "createTopics"
    assert enqueue.attributes["kafka.queue.insertion_type"] == "APPEND"
    assert run.parent.span_id == enqueue.context.span_id
    assert run.context.trace_id == enqueue.context.trace_id
    assert run.attributes["thread.name"] == "quorum-controller-1-event-handler"
    assert run.attributes["kafka.queue.time.ms"] >= 0
    assert "kafka.queue.exception.delivered" not in run.attributes


def test_an_event_without_a_name_is_named_after_its_class(queues, tracing):
    queue = queues()
    ran = threading.Event()

    class MaybeFenceStaleBrokers(Event):
        def run(self) -> None:
            ran.set()

    queue.append(MaybeFenceStaleBrokers())
    assert ran.wait(WAIT_S)
    queue.close()
    assert [s.attributes["kafka.queue.event"] for s in spans_named(tracing, _RUN)] == ["MaybeFenceStaleBrokers"]


def test_a_timed_out_events_run_span_records_the_timeout_it_was_given(queues, tracing, time):
    queue = queues(time)
    seen: list[str] = []
    gate = held(queue, seen)
    timed_out = Recorded("timed-out", seen)
    queue.append_with_deadline(time.ns + SECOND_NS, timed_out)
    time.ns += 2 * SECOND_NS
    gate.open.set()
    timed_out.failed.result(WAIT_S)
    queue.close()
    enqueue = next(s for s in spans_named(tracing, _ENQUEUE) if s.attributes["kafka.queue.event"] == "timed-out")
    assert enqueue.attributes["kafka.queue.deadline.ms"] == 1000.0
    run = next(s for s in spans_named(tracing, _RUN) if s.attributes["kafka.queue.event"] == "timed-out")
    assert run.attributes["kafka.queue.exception.delivered"] == "TimeoutException"
    assert run.status.status_code.name == "ERROR"
    assert [e.attributes["exception.type"] for e in run.events] == ["TimeoutException"]
    assert run.parent.span_id == enqueue.context.span_id


def test_a_rejected_enqueue_says_so_and_has_no_run_span(queues, tracing):
    queue = queues()
    queue.begin_shutdown("test")
    queue.append(Recorded("late", []))
    queue.close()
    (enqueue,) = spans_named(tracing, _ENQUEUE)
    assert enqueue.attributes["kafka.queue.rejected"] == "RejectedExecutionException"
    assert spans_named(tracing, _RUN) == []


def test_a_deferred_events_run_starts_a_trace_of_its_own_linked_to_its_enqueue(queues, tracing, time):
    queue = queues(time)
    seen: list[str] = []
    first = Recorded("maybeFenceReplicas", seen)
    queue.schedule_deferred("maybeFenceReplicas", DeadlineFunction(time.ns + SECOND_NS), first)
    second = Recorded("maybeFenceReplicas", seen)
    queue.schedule_deferred("maybeFenceReplicas", EarliestDeadlineFunction(time.ns + 5 * SECOND_NS), second)
    time.ns += SECOND_NS
    queue.wakeup()
    second.ran.result(WAIT_S)
    queue.close()
    first_enqueue, second_enqueue = spans_named(tracing, _ENQUEUE)
    assert second_enqueue.attributes["kafka.queue.tag"] == "maybeFenceReplicas"
    assert second_enqueue.attributes["kafka.queue.tag.replaced"] == "maybeFenceReplicas"
    assert second_enqueue.attributes["kafka.queue.deadline.ms"] == 1000.0  # the earlier deadline it inherited
    (run,) = spans_named(tracing, _RUN)
    assert run.parent is None and run.context.trace_id != second_enqueue.context.trace_id
    assert [link.context.span_id for link in run.links] == [second_enqueue.context.span_id]
    assert run.attributes["kafka.queue.insertion_type"] == "DEFERRED"


def test_the_timers_and_commits_of_an_idle_quorum_get_no_queue_spans(queues, tracing, time):
    queue = queues(time)
    seen: list[str] = []
    noop = Recorded("writeNoOpRecord", seen)
    queue.schedule_deferred("writeNoOpRecord", DeadlineFunction(time.ns + SECOND_NS), noop)
    commit = Recorded("handleCommit", seen)
    queue.append(commit)
    time.ns += SECOND_NS
    queue.wakeup()
    noop.ran.result(WAIT_S)
    commit.ran.result(WAIT_S)
    queue.close()
    assert sorted(seen) == ["handleCommit", "writeNoOpRecord"]  # they ran
    assert spans_named(tracing, _ENQUEUE) == [] and spans_named(tracing, _RUN) == []


def test_an_idle_queue_emits_no_spans(queues, tracing, time):
    queue = queues(time)
    for _ in range(3):
        queue.wakeup()
        time.ns += SECOND_NS
    queue.close()
    assert tracing.memory.get_finished_spans() == ()
