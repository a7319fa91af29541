"""Port of server-common/src/main/java/org/apache/kafka/server/util/timer/TimerTaskEntry.java (Kafka 3.9): a node of
a TimerTaskList's doubly linked list, holding a task and its expiration time."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
    from kafka_edu.v3_9.server_common.server.util.timer.timer_task_list import TimerTaskList


class TimerTaskEntry:
    def __init__(self, timer_task: TimerTask | None, expiration_ms: int) -> None:
        self.timer_task = timer_task
        self.expiration_ms = expiration_ms
        self.list: TimerTaskList | None = None
        self.next: TimerTaskEntry | None = None
        self.prev: TimerTaskEntry | None = None
        self._lock = threading.RLock()  # Java's `synchronized (timerTaskEntry)`

        # a task already held by another entry is taken out of that entry's list here
        if timer_task is not None:
            timer_task.set_timer_task_entry(self)

    def cancelled(self) -> bool:
        return self.timer_task.get_timer_task_entry() is not self

    def remove(self) -> None:
        current_list = self.list
        # another thread may be moving this entry to another list; retry until it sits in none
        while current_list is not None:
            current_list.remove(self)
            current_list = self.list
