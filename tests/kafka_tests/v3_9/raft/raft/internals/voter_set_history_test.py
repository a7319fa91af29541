"""Port of raft/src/test/java/org/apache/kafka/raft/internals/VoterSetHistoryTest.java (Kafka 3.9).

Java's Optional results are `X | None` here; VoterSetTest's builders come from the ported voter_set_test module.
"""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.raft.raft.internals.voter_set_history import VoterSetHistory
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.raft.raft.voter_set_test import voter_map, voter_node

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/internals/VoterSetHistoryTest.java",
    cases=[
        "testStaticVoterSet",
        "TestNoStaticVoterSet",
        "testAddAt",
        "testBootstrapAddAt",
        "testAddAtNonOverlapping",
        "testNonoverlappingFromStaticVoterSet",
        "testTruncateTo",
        "testTrimPrefixTo",
        "testClear",
    ],
)


def _present(voters: VoterSet | None) -> VoterSet:
    """Optional.get(): fail if the change did not apply."""
    assert voters is not None
    return voters


def test_static_voter_set() -> None:
    static_voter_set = VoterSet.from_map(voter_map([1, 2, 3], True))
    voters_history = VoterSetHistory(static_voter_set)

    assert voters_history.value_at_or_before(0) is None
    assert voters_history.value_at_or_before(100) is None
    assert voters_history.last_value() == static_voter_set

    # nothing to truncate
    voters_history.truncate_new_entries(100)
    assert voters_history.value_at_or_before(0) is None
    assert voters_history.value_at_or_before(100) is None
    assert voters_history.last_value() == static_voter_set

    # nothing to truncate
    voters_history.truncate_old_entries(100)
    assert voters_history.value_at_or_before(0) is None
    assert voters_history.value_at_or_before(100) is None
    assert voters_history.last_value() == static_voter_set


def test_no_static_voter_set() -> None:
    voters_history = VoterSetHistory(VoterSet.empty())

    assert voters_history.value_at_or_before(0) is None
    assert voters_history.value_at_or_before(100) is None
    assert voters_history.last_value() == VoterSet.empty()


def test_add_at() -> None:
    a_voter_map = voter_map([1, 2, 3], True)
    static_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history = VoterSetHistory(static_voter_set)

    with pytest.raises(IllegalArgumentException):
        voters_history.add_at(-2, VoterSet.from_map(voter_map([1, 2, 3], True)))
    assert voters_history.last_value() == static_voter_set

    a_voter_map[4] = voter_node(4, True)
    added_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history.add_at(100, added_voter_set)

    assert voters_history.last_value() == added_voter_set
    assert voters_history.value_at_or_before(99) is None
    assert voters_history.value_at_or_before(100) == added_voter_set

    del a_voter_map[4]
    removed_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history.add_at(200, removed_voter_set)

    assert voters_history.last_value() == removed_voter_set
    assert voters_history.value_at_or_before(99) is None
    assert voters_history.value_at_or_before(199) == added_voter_set
    assert voters_history.value_at_or_before(200) == removed_voter_set


def test_bootstrap_add_at() -> None:
    a_voter_map = voter_map([1, 2, 3], True)
    bootstrap_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history = VoterSetHistory(VoterSet.empty())

    voters_history.add_at(-1, bootstrap_voter_set)
    assert voters_history.last_value() == bootstrap_voter_set
    assert voters_history.value_at_or_before(-2) is None
    assert voters_history.value_at_or_before(-1) == bootstrap_voter_set

    a_voter_map[4] = voter_node(4, True)
    added_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history.add_at(100, added_voter_set)

    assert voters_history.last_value() == added_voter_set
    assert voters_history.value_at_or_before(-2) is None
    assert voters_history.value_at_or_before(99) == bootstrap_voter_set
    assert voters_history.value_at_or_before(100) == added_voter_set

    del a_voter_map[4]
    removed_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history.add_at(200, removed_voter_set)

    assert voters_history.last_value() == removed_voter_set
    assert voters_history.value_at_or_before(-2) is None
    assert voters_history.value_at_or_before(99) == bootstrap_voter_set
    assert voters_history.value_at_or_before(199) == added_voter_set
    assert voters_history.value_at_or_before(200) == removed_voter_set


def test_add_at_non_overlapping() -> None:
    voters_history = VoterSetHistory(VoterSet.empty())

    a_voter_map = voter_map([1, 2, 3], True)
    voters = VoterSet.from_map(dict(a_voter_map))

    # a first voter set in the log
    voters_history.add_at(100, voters)

    # two voters removed: no overlapping majority
    nonoverlapping_removed_set = _present(
        _present(voters.remove_voter(a_voter_map[1].voter_key)).remove_voter(a_voter_map[2].voter_key))

    with pytest.raises(IllegalArgumentException):
        voters_history.add_at(200, nonoverlapping_removed_set)
    assert voters_history.last_value() == voters

    # two voters added: no overlapping majority
    nonoverlapping_add_set = _present(_present(voters.add_voter(voter_node(4, True))).add_voter(voter_node(5, True)))

    with pytest.raises(IllegalArgumentException):
        voters_history.add_at(200, nonoverlapping_add_set)
    assert voters_history.last_value() == voters


def test_nonoverlapping_from_static_voter_set() -> None:
    a_voter_map = voter_map([1, 2, 3], True)
    static_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history = VoterSetHistory(VoterSet.empty())

    # two voters removed: no overlapping majority, but the first set in the log is not checked
    nonoverlapping_removed_set = _present(
        _present(static_voter_set.remove_voter(a_voter_map[1].voter_key)).remove_voter(a_voter_map[2].voter_key))

    voters_history.add_at(100, nonoverlapping_removed_set)
    assert voters_history.last_value() == nonoverlapping_removed_set


def _history_1234_12345() -> tuple[VoterSetHistory, VoterSet, VoterSet, VoterSet]:
    """The setup testTruncateTo, testTrimPrefixTo and testClear share: voter 4 added at 100, voter 5 at 200."""
    a_voter_map = voter_map([1, 2, 3], True)
    static_voter_set = VoterSet.from_map(dict(a_voter_map))
    voters_history = VoterSetHistory(static_voter_set)

    a_voter_map[4] = voter_node(4, True)
    voter_set1234 = VoterSet.from_map(dict(a_voter_map))
    voters_history.add_at(100, voter_set1234)

    a_voter_map[5] = voter_node(5, True)
    voter_set12345 = VoterSet.from_map(dict(a_voter_map))
    voters_history.add_at(200, voter_set12345)
    return voters_history, static_voter_set, voter_set1234, voter_set12345


def test_truncate_to() -> None:
    voters_history, static_voter_set, voter_set1234, voter_set12345 = _history_1234_12345()

    voters_history.truncate_new_entries(201)
    assert voters_history.last_value() == voter_set12345
    voters_history.truncate_new_entries(200)
    assert voters_history.last_value() == voter_set1234
    voters_history.truncate_new_entries(101)
    assert voters_history.last_value() == voter_set1234
    voters_history.truncate_new_entries(100)
    assert voters_history.last_value() == static_voter_set


def test_trim_prefix_to() -> None:
    voters_history, _, voter_set1234, voter_set12345 = _history_1234_12345()

    voters_history.truncate_old_entries(99)
    assert voters_history.value_at_or_before(99) is None
    assert voters_history.value_at_or_before(100) == voter_set1234

    voters_history.truncate_old_entries(100)
    assert voters_history.value_at_or_before(99) is None
    assert voters_history.value_at_or_before(100) == voter_set1234

    voters_history.truncate_old_entries(101)
    assert voters_history.value_at_or_before(99) is None
    assert voters_history.value_at_or_before(100) == voter_set1234

    voters_history.truncate_old_entries(200)
    assert voters_history.value_at_or_before(199) is None
    assert voters_history.value_at_or_before(200) == voter_set12345


def test_clear() -> None:
    voters_history, static_voter_set, _, _ = _history_1234_12345()

    voters_history.clear()

    assert voters_history.last_value() == static_voter_set
