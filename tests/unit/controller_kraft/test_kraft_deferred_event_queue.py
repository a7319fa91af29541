"""DeferredEventQueue: events wait for the high watermark and complete in offset order."""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, NotControllerException
from kafka_edu.v3_9.server_common.deferred.deferred_event import DeferredEvent
from kafka_edu.v3_9.server_common.deferred.deferred_event_queue import DeferredEventQueue


class Recorder(DeferredEvent):
    def __init__(self, name: str, done: list[tuple[str, object]]) -> None:
        self.name = name
        self.done = done

    def complete(self, exception: BaseException | None) -> None:
        self.done.append((self.name, exception))


def test_completes_in_offset_order_up_to_the_high_watermark() -> None:
    done: list[tuple[str, object]] = []
    queue = DeferredEventQueue()
    queue.add(3, Recorder("a", done))
    queue.add(3, Recorder("b", done))
    queue.add(5, Recorder("c", done))
    queue.add(9, Recorder("d", done))
    assert queue.highest_pending_offset() == 9

    queue.complete_up_to(4)
    assert done == [("a", None), ("b", None)]
    queue.complete_up_to(5)
    assert done[-1] == ("c", None) and len(queue) == 1


def test_an_offset_below_the_last_is_refused_and_fail_all_fails_the_rest() -> None:
    done: list[tuple[str, object]] = []
    queue = DeferredEventQueue()
    queue.add(5, Recorder("a", done))
    with pytest.raises(IllegalArgumentException):
        queue.add(4, Recorder("late", done))
    queue.add(6, Recorder("b", done))
    error = NotControllerException("renounced")
    queue.fail_all(error)
    assert done == [("a", error), ("b", error)]
    assert queue.highest_pending_offset() is None
