"""Port of raft/src/test/java/org/apache/kafka/raft/internals/TreeMapLogHistoryTest.java (Kafka 3.9).

Java's Optional results are `X | None` here.
"""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.raft.raft.internals.log_history import LogHistory
from kafka_edu.v3_9.raft.raft.internals.tree_map_log_history import TreeMapLogHistory
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/internals/TreeMapLogHistoryTest.java",
    cases=["testEmpty", "testAddAt", "testTruncateTo", "testTrimPrefixTo", "testClear"],
)


def test_empty() -> None:
    history: TreeMapLogHistory[str] = TreeMapLogHistory()
    assert history.value_at_or_before(100) is None
    assert history.last_entry() is None


def test_add_at() -> None:
    history: TreeMapLogHistory[str] = TreeMapLogHistory()
    with pytest.raises(IllegalArgumentException):
        history.add_at(-2, "")
    assert history.last_entry() is None

    history.add_at(-1, "-1")
    assert history.value_at_or_before(-1) == "-1"
    assert history.value_at_or_before(0) == "-1"
    history.add_at(100, "100")
    with pytest.raises(IllegalArgumentException):
        history.add_at(99, "")
    with pytest.raises(IllegalArgumentException):
        history.add_at(100, "")
    assert history.value_at_or_before(100) == "100"
    assert history.value_at_or_before(201) == "100"

    history.add_at(200, "200")
    assert history.value_at_or_before(-2) is None
    assert history.value_at_or_before(-1) == "-1"
    assert history.value_at_or_before(100) == "100"
    assert history.value_at_or_before(101) == "100"
    assert history.value_at_or_before(199) == "100"
    assert history.value_at_or_before(200) == "200"
    assert history.value_at_or_before(201) == "200"
    assert history.last_entry() == LogHistory.Entry(200, "200")


def test_truncate_to() -> None:
    history: TreeMapLogHistory[str] = TreeMapLogHistory()
    history.add_at(100, "100")
    history.add_at(200, "200")

    history.truncate_new_entries(201)
    assert history.last_entry() == LogHistory.Entry(200, "200")

    history.truncate_new_entries(200)
    assert history.last_entry() == LogHistory.Entry(100, "100")

    history.truncate_new_entries(101)
    assert history.last_entry() == LogHistory.Entry(100, "100")

    history.truncate_new_entries(100)
    assert history.last_entry() is None


def test_trim_prefix_to() -> None:
    history: TreeMapLogHistory[str] = TreeMapLogHistory()
    history.add_at(100, "100")
    history.add_at(200, "200")

    history.truncate_old_entries(99)
    assert history.value_at_or_before(99) is None
    assert history.value_at_or_before(100) == "100"

    history.truncate_old_entries(100)
    assert history.value_at_or_before(99) is None
    assert history.value_at_or_before(100) == "100"

    history.truncate_old_entries(101)
    assert history.value_at_or_before(99) is None
    assert history.value_at_or_before(100) == "100"

    history.truncate_old_entries(200)
    assert history.value_at_or_before(199) is None
    assert history.value_at_or_before(200) == "200"


def test_clear() -> None:
    history: TreeMapLogHistory[str] = TreeMapLogHistory()
    history.add_at(100, "100")
    history.add_at(200, "200")
    history.clear()
    assert history.last_entry() is None
