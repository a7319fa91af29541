"""Describers for KRaft queue spans (Kafka 3.9; see kafka_edu/tracing/attributes.py).

KR.queue is two spans, told apart by name: `KafkaEventQueue.enqueue` in the caller's thread, and
`KafkaEventQueue.EventHandler.handleEvents`, one per event the queue thread runs or fails (a TimeoutException, a
RejectedExecutionException).

Where an event's story is. A KafkaEventQueue's one thread runs the work of many stories: a QuorumController's
queue runs every request's operation, every leader change, every timer; a MetadataLoader's every commit, snapshot
and publisher; a BrokerLifecycleManager's the registration, each heartbeat and the shutdown. So an event does not
carry its enqueuer's trace into the queue, with one exception:

- an event appended while the controller serves a client request (ControllerApis.handle, KR.apis, or the
  QuorumController operation it calls, KR.qc) is that request's work: the request waits on the event's future and
  answers with what it did. Its enqueue is the caller's child, and the request's trace reads request -> apis -> qc ->
  enqueue -> run -> replay (sampled and kept within the budget with the request, as all request work is);
- any other enqueue hands work over (the Raft client telling a listener of a new leader, a server's startup giving
  its lifecycle manager the registration or its loader the publishers, a publish asking the snapshot generator for
  a snapshot, an event asking for another): the enqueue starts the event's own trace, linked to the span that
  enqueued it. An election's trace holds the election, and the QuorumController's reaction to it is a trace of its
  own, linked to it.

Either way the event carries the context it was enqueued in (`EventContext.enqueued_in`), so its turn on the queue
thread is the child of its enqueue: an event's trace reads enqueue -> run. A DEFERRED event is a timer, and timers
reschedule themselves (3.9's NoOp record every 500 ms, a broker's heartbeat): each of its runs starts a trace of its
own, linked to the enqueue that scheduled it, rather than holding the wait until it is due.
"""

from __future__ import annotations

import time
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanContext, Status, StatusCode

from kafka_edu.tracing.attributes import NEW_TRACE, Scope, caller_link, end, links, own_trace, parent, start, when

_ENQUEUE = "KafkaEventQueue.enqueue"
_RUN = "KafkaEventQueue.EventHandler.handleEvents"
# The steps of a controller serving a client request: an event they append is the request's own work.
_SERVING_A_REQUEST = frozenset({"KR.apis", "KR.qc"})


def event_name(event: Any) -> str:
    """An event's `name` when it has one (QuorumController's `ControllerWriteEvent("createTopics")`), else its
    class name, as Kafka's events are classes."""
    name = getattr(event, "name", None)
    return name if isinstance(name, str) else type(event).__name__


def _enqueue_span(event_context: Any) -> Span:
    """The span that was current where the event was enqueued: its enqueue span, or INVALID_SPAN."""
    return event_context.enqueued_in.run(trace.get_current_span)


def _deferred(event_context: Any) -> bool:
    return event_context.insertion_type.name == "DEFERRED"


# -- KafkaEventQueue.enqueue: the caller's side ------------------------------------------------------------------

# Events that fire on every commit or timer of an idle quorum (a NoOp record every 500 ms, its commit on every node,
# the loader's retry of publisher set-up). Their queue turns get no spans: the spans inside them (a replay, a
# publish, a snapshot) are recorded when they have something to say, as traces of their own.
QUIET_EVENTS = frozenset({"writeNoOpRecord", "handleCommit", "InitializeNewPublishers"})


def _quiet(event: Any) -> bool:
    # The QuorumController names its raft events with their offset or epoch: `handleCommit[baseOffset=42]`.
    return event_name(event).split("[", 1)[0] in QUIET_EVENTS


@when(_ENQUEUE)
def _worth_a_span(s: Scope) -> bool:
    return not _quiet(s["event"])


def _serves_a_request(span: Span) -> bool:
    attributes = getattr(span, "attributes", None)  # a recorded span's; a non-recording one has none
    return attributes is not None and attributes.get("kafka.step") in _SERVING_A_REQUEST


@parent(_ENQUEUE)
def _enqueued_for(s: Scope) -> Span:
    caller = trace.get_current_span()
    return caller if _serves_a_request(caller) else own_trace()


@links(_ENQUEUE)
def _handed_over_by(s: Scope) -> list[SpanContext]:
    return [] if _serves_a_request(trace.get_current_span()) else caller_link()


@start(_ENQUEUE)
def _enqueue(s: Scope) -> dict[str, Any]:
    queue, tag = s["self"], s["tag"]
    attributes: dict[str, Any] = {"kafka.queue.event": event_name(s["event"]),
                                  "kafka.queue.insertion_type": s["insertion_type"].name,
                                  "kafka.queue.size": queue.size()}
    if tag is not None:
        attributes["kafka.queue.tag"] = tag
    if queue.shutting_down:  # it only ever turns on: the event is refused, handle_exception runs in this span
        attributes["kafka.queue.rejected"] = "RejectedExecutionException"
        return attributes
    # The deadline the event will get: a tagged event's calculator starts from the deadline of the one it replaces.
    replaced = queue.event_handler.tag_to_event_context.get(tag) if tag is not None else None
    if replaced is not None:
        attributes["kafka.queue.tag.replaced"] = event_name(replaced.event)
    deadline_ns = s["deadline_ns_calculator"](replaced.deadline_ns if replaced is not None else None)
    if deadline_ns is not None:
        attributes["kafka.queue.deadline.ms"] = round((deadline_ns - queue.time.nanoseconds()) / 1e6, 3)
    return attributes


# -- EventHandler.handleEvents: one event's turn on the queue thread ---------------------------------------------

@parent(_RUN)
def _enqueued_by(s: Scope) -> Span | None:
    to_run = s["to_run"]
    if _quiet(to_run.event):
        return None
    enqueued = _enqueue_span(to_run)
    if _deferred(to_run):
        context = enqueued.get_span_context()
        if context.is_valid and not context.trace_flags.sampled:
            return enqueued  # scheduled from inside an unsampled request: no span, as for the rest of it
        return NEW_TRACE
    return enqueued


@links(_RUN)
def _scheduled_by(s: Scope) -> list[SpanContext]:
    to_run = s["to_run"]
    if not _deferred(to_run):
        return []  # its parent already
    context = _enqueue_span(to_run).get_span_context()
    return [context] if context.is_valid else []


@start(_RUN)
def _run(s: Scope) -> dict[str, Any]:
    to_run = s["to_run"]
    attributes: dict[str, Any] = {"kafka.queue.event": event_name(to_run.event),
                                  "kafka.queue.insertion_type": to_run.insertion_type.name}
    enqueued_at = getattr(_enqueue_span(to_run), "start_time", None)  # epoch ns; INVALID_SPAN has none
    if enqueued_at:
        attributes["kafka.queue.time.ms"] = round((time.time_ns() - enqueued_at) / 1e6, 3)
    return attributes


@end(_RUN)
def _delivered(s: Scope) -> dict[str, Any]:
    """The exception the queue gave the event instead of running it."""
    exception = s["to_deliver"]
    if exception is None:
        return {}
    name = type(exception).__name__
    current = trace.get_current_span()
    current.record_exception(exception, attributes={"exception.type": name, "exception.message": str(exception)})
    current.set_status(Status(StatusCode.ERROR, name))
    return {"kafka.queue.exception.delivered": name}
