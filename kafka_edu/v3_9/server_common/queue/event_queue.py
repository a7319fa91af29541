"""Port of server-common/src/main/java/org/apache/kafka/queue/EventQueue.java (Kafka 3.9).

The interface of a single-threaded event queue: what an event is, the three ways to insert one, and the functions
that turn a tag's previous deadline into the new one. KafkaEventQueue is its implementation.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from enum import Enum
from types import TracebackType
from typing import ClassVar

from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException

# Java's Function<OptionalLong, OptionalLong>: the deadline already held by an event with the same tag (None if
# none) in, the deadline in monotonic nanoseconds to use (None for none) out.
DeadlineNsCalculator = Callable[[int | None], int | None]


class Event:
    """`EventQueue.Event`: work to run on the queue's thread."""

    def run(self) -> None:
        raise NotImplementedError

    def handle_exception(self, e: BaseException) -> None:
        """What run raised, or why the queue never ran the event: a TimeoutException when its deadline passed
        first, a RejectedExecutionException when the queue was shutting down, an InterruptedError (Java's
        InterruptedException) when its thread was interrupted."""


class FailureLoggingEvent(Event):
    """An event whose failures are only logged: a rejection quietly, anything else as an error."""

    def __init__(self, log: logging.Logger | logging.LoggerAdapter) -> None:
        self.log = log

    def handle_exception(self, e: BaseException) -> None:
        if isinstance(e, RejectedExecutionException):
            self.log.info("Not processing %s because the event queue is closed.", self)
        else:
            self.log.error("Unexpected error handling %s", self, exc_info=e)

    def __str__(self) -> str:
        return type(self).__name__


class NoDeadlineFunction:
    INSTANCE: ClassVar[NoDeadlineFunction]

    def __call__(self, ignored: int | None) -> int | None:
        return None


NoDeadlineFunction.INSTANCE = NoDeadlineFunction()


class DeadlineFunction:
    def __init__(self, deadline_ns: int) -> None:
        self.deadline_ns = deadline_ns

    def __call__(self, ignored: int | None) -> int | None:
        return self.deadline_ns


class EarliestDeadlineFunction:
    """Keeps the sooner of the tag's previous deadline and the new one (a reschedule never postpones)."""

    def __init__(self, new_deadline_ns: int) -> None:
        self.new_deadline_ns = new_deadline_ns

    def __call__(self, prev_deadline_ns: int | None) -> int | None:
        if prev_deadline_ns is None:
            return self.new_deadline_ns
        elif prev_deadline_ns < self.new_deadline_ns:
            return prev_deadline_ns
        else:
            return self.new_deadline_ns


class LatestDeadlineFunction:
    """Keeps the later of the tag's previous deadline and the new one (a reschedule never brings forward)."""

    def __init__(self, new_deadline_ns: int) -> None:
        self.new_deadline_ns = new_deadline_ns

    def __call__(self, prev_deadline_ns: int | None) -> int | None:
        if prev_deadline_ns is None:
            return self.new_deadline_ns
        elif prev_deadline_ns > self.new_deadline_ns:
            return prev_deadline_ns
        else:
            return self.new_deadline_ns


class VoidEvent(Event):
    INSTANCE: ClassVar[VoidEvent]

    def run(self) -> None:
        pass


VoidEvent.INSTANCE = VoidEvent()


class EventInsertionType(Enum):
    PREPEND = "PREPEND"
    APPEND = "APPEND"
    DEFERRED = "DEFERRED"


class EventQueue(ABC):
    """`EventQueue`: what callers of a KafkaEventQueue use. The nested names are Java's (`EventQueue.Event`)."""

    Event = Event
    FailureLoggingEvent = FailureLoggingEvent
    NoDeadlineFunction = NoDeadlineFunction
    DeadlineFunction = DeadlineFunction
    EarliestDeadlineFunction = EarliestDeadlineFunction
    LatestDeadlineFunction = LatestDeadlineFunction
    VoidEvent = VoidEvent
    EventInsertionType = EventInsertionType

    def prepend(self, event: Event) -> None:
        """Put the event first: it runs before everything already queued."""
        self.enqueue(EventInsertionType.PREPEND, None, NoDeadlineFunction.INSTANCE, event)

    def append(self, event: Event) -> None:
        self.enqueue(EventInsertionType.APPEND, None, NoDeadlineFunction.INSTANCE, event)

    def append_with_deadline(self, deadline_ns: int, event: Event) -> None:
        """Append an event that must start by `deadline_ns` (monotonic), or get a TimeoutException instead."""
        self.enqueue(EventInsertionType.APPEND, None, DeadlineFunction(deadline_ns), event)

    def schedule_deferred(self, tag: str | None, deadline_ns_calculator: DeadlineNsCalculator, event: Event) -> None:
        """Run the event once its deadline comes; a tagged event replaces the one queued under the same tag."""
        self.enqueue(EventInsertionType.DEFERRED, tag, deadline_ns_calculator, event)

    @abstractmethod
    def cancel_deferred(self, tag: str) -> None:
        """Drop the event queued under `tag`, if there is one."""

    @abstractmethod
    def enqueue(self, insertion_type: EventInsertionType, tag: str | None,
                deadline_ns_calculator: DeadlineNsCalculator, event: Event) -> None:
        ...

    @abstractmethod
    def begin_shutdown(self, source: str) -> None:
        """Refuse new events from now on; the thread finishes what is queued and exits."""

    @abstractmethod
    def size(self) -> int:
        """The number of events queued or running."""

    def is_empty(self) -> bool:
        return self.size() == 0

    def wakeup(self) -> None:
        """Make the queue look at its clock again (for tests whose clock is not the real one)."""
        return None  # a queue on the real clock needs no reminder

    @abstractmethod
    def close(self) -> None:
        """Shut down and wait for the queue's thread to end."""

    # Java's AutoCloseable: `with KafkaEventQueue(...) as queue:` closes it at the end.
    def __enter__(self) -> EventQueue:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
