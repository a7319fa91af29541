"""Port of server-common/src/test/java/org/apache/kafka/server/util/timer/TimerTaskListTest.java (Kafka 3.9).

TimerTaskList.getDelay takes no TimeUnit in the port (it answers in milliseconds); the case converts to seconds as
TimeUnit.SECONDS.convert does.
"""

from __future__ import annotations

from kafka_edu.v1_0_2.core.utils.concurrent import AtomicInteger
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_entry import TimerTaskEntry
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_list import TimerTaskList
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "server-common/src/test/java/org/apache/kafka/server/util/timer/TimerTaskListTest.java",
    cases=["testAll", "testGetDelay"],
)


class _TestTask(TimerTask):
    def run(self) -> None:
        pass


def _size(task_list: TimerTaskList) -> int:
    count = [0]

    def count_one(_: TimerTask) -> None:
        count[0] += 1

    task_list.foreach(count_one)
    return count[0]


def test_all() -> None:
    shared_counter = AtomicInteger(0)
    list1 = TimerTaskList(shared_counter)
    list2 = TimerTaskList(shared_counter)
    list3 = TimerTaskList(shared_counter)

    tasks = []
    for i in range(1, 11):
        task = _TestTask(0)
        list1.add(TimerTaskEntry(task, 10))
        assert shared_counter.get() == i
        tasks.append(task)

    assert shared_counter.get() == len(tasks)

    # reinserting the existing tasks does not change the task count
    for task in tasks[:4]:
        prev_counter = shared_counter.get()
        # the new entry takes the task out of its entry in list1
        list2.add(TimerTaskEntry(task, 10))
        assert shared_counter.get() == prev_counter
    assert _size(list1) == 10 - 4
    assert _size(list2) == 4

    assert shared_counter.get() == len(tasks)

    for task in tasks[4:]:
        prev_counter = shared_counter.get()
        list3.add(TimerTaskEntry(task, 10))
        assert shared_counter.get() == prev_counter
    assert _size(list1) == 0
    assert _size(list2) == 4
    assert _size(list3) == 6

    assert shared_counter.get() == len(tasks)

    # cancel tasks in lists
    list1.foreach(TimerTask.cancel)
    assert _size(list1) == 0
    assert _size(list2) == 4
    assert _size(list3) == 6

    list2.foreach(TimerTask.cancel)
    assert _size(list1) == 0
    assert _size(list2) == 0
    assert _size(list3) == 6

    list3.foreach(TimerTask.cancel)
    assert _size(list1) == 0
    assert _size(list2) == 0
    assert _size(list3) == 0


def test_get_delay() -> None:
    time = MockTime()
    task_list = TimerTaskList(AtomicInteger(0), time)
    task_list.set_expiration(time.hi_res_clock_ms() + 10000)
    time.sleep(5000)
    assert task_list.get_delay() // 1000 == 5  # TimeUnit.SECONDS
