"""Port of raft/src/test/java/org/apache/kafka/raft/VoterSetTest.java (Kafka 3.9).

Java's Optional results are `X | None` here. The static builders other Kafka tests use (`voter_map`, `voter_node`,
`voter_set`, DEFAULT_LISTENER_NAME) are module-level functions below; Java's overloads by argument type become
`voter_map`/`voter_map_of_keys`, `voter_node`/`voter_node_of_key` and `voter_set`/`voter_set_of_keys`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import Node, VoterNode, VoterSet
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/VoterSetTest.java",
    cases=[
        "testEmptyVoterSet",
        "testVoterNode",
        "testVoterNodes",
        "testVoterIds",
        "testAddVoter",
        "testRemoveVoter",
        "testUpdateVoter",
        "testCannotRemoveToEmptyVoterSet",
        "testIsVoterWithDirectoryId",
        "testIsVoterWithoutDirectoryId",
        "testVoterNodeIsVoterWithDirectoryId",
        "testVoterNodeIsVoterWithoutDirectoryId",
        "testEndpoints",
        "testIsOnlyVoterInStandalone",
        "testIsOnlyVoterInNotStandalone",
        "testRecordRoundTrip",
        "testOverlappingMajority",
        "testNonoverlappingMajority",
    ],
)

DEFAULT_LISTENER_NAME = "LISTENER"  # ListenerName.normalised("LISTENER")

# Features.KRAFT_VERSION.supportedVersionRange(): the lowest to the highest kraft.version this version knows
KRAFT_VERSION_SUPPORTED_RANGE = SupportedVersionRange(min(KRaftVersion).feature_level(),
                                                      max(KRaftVersion).feature_level())


def voter_map(replicas: Iterable[int], with_directory_id: bool) -> dict[int, VoterNode]:
    """voterMap(IntStream, boolean)."""
    return {replica: voter_node(replica, with_directory_id) for replica in replicas}


def voter_map_of_keys(replicas: Iterable[ReplicaKey]) -> dict[int, VoterNode]:
    """voterMap(Stream<ReplicaKey>)."""
    return {replica.id: voter_node_of_key(replica) for replica in replicas}


def voter_node(id: int, with_directory_id: bool) -> VoterNode:
    """voterNode(int, boolean)."""
    return voter_node_of_key(ReplicaKey.of(id, Uuid.random_uuid() if with_directory_id else ReplicaKey.NO_DIRECTORY_ID))


def voter_node_of_key(replica_key: ReplicaKey) -> VoterNode:
    """voterNode(ReplicaKey): one listener at localhost:9990 + id."""
    return VoterNode(
        replica_key,
        Endpoints.from_inet_socket_addresses({DEFAULT_LISTENER_NAME: ("localhost", 9990 + replica_key.id)}),
        KRAFT_VERSION_SUPPORTED_RANGE)


def voter_set(voters: Mapping[int, VoterNode]) -> VoterSet:
    """voterSet(Map)."""
    return VoterSet.from_map(voters)


def voter_set_of_keys(voter_keys: Iterable[ReplicaKey]) -> VoterSet:
    """voterSet(Stream<ReplicaKey>)."""
    return voter_set(voter_map_of_keys(voter_keys))


def test_empty_voter_set() -> None:
    assert VoterSet.empty() == VoterSet.from_map({})


def test_voter_node() -> None:
    voters = VoterSet.from_map(voter_map([1, 2, 3], True))
    assert voters.voter_node(1, DEFAULT_LISTENER_NAME) == Node(1, "localhost", 9991)
    assert voters.voter_node(1, "MISSING") is None
    assert voters.voter_node(4, DEFAULT_LISTENER_NAME) is None


def test_voter_nodes() -> None:
    voters = VoterSet.from_map(voter_map([1, 2, 3], True))

    assert voters.voter_nodes([1, 2], DEFAULT_LISTENER_NAME) == {Node(1, "localhost", 9991),
                                                                 Node(2, "localhost", 9992)}

    with pytest.raises(IllegalArgumentException):
        voters.voter_nodes([1, 2], "MISSING")

    with pytest.raises(IllegalArgumentException):
        voters.voter_nodes([1, 4], DEFAULT_LISTENER_NAME)


def test_voter_ids() -> None:
    voters = VoterSet.from_map(voter_map([1, 2, 3], True))
    assert voters.voter_ids() == {1, 2, 3}


def test_add_voter() -> None:
    a_voter_map = voter_map([1, 2, 3], True)
    voters = VoterSet.from_map(dict(a_voter_map))

    assert voters.add_voter(voter_node(1, True)) is None

    voter4 = voter_node(4, True)
    a_voter_map[voter4.voter_key.id] = voter4
    assert voters.add_voter(voter4) == VoterSet.from_map(dict(a_voter_map))


def test_remove_voter() -> None:
    a_voter_map = voter_map([1, 2, 3], True)
    voters = VoterSet.from_map(dict(a_voter_map))

    assert voters.remove_voter(ReplicaKey.of(4, ReplicaKey.NO_DIRECTORY_ID)) is None
    assert voters.remove_voter(ReplicaKey.of(4, Uuid.random_uuid())) is None

    voter3 = a_voter_map.pop(3)
    assert voters.remove_voter(voter3.voter_key) == VoterSet.from_map(dict(a_voter_map))


def test_update_voter() -> None:
    a_voter_map = voter_map([1, 2, 3], True)
    voters = VoterSet.from_map(dict(a_voter_map))

    assert voters.update_voter(voter_node(4, True)) is None
    assert not voters.voter_node_needs_update(voter_node(4, True))
    assert voters.update_voter(voter_node(3, True)) is None
    assert not voters.voter_node_needs_update(voter_node(3, True))

    voter3 = a_voter_map[3]
    new_voter3 = VoterNode.of(
        voter3.voter_key,
        Endpoints.from_inet_socket_addresses({"ABC": ("abc", 1234)}),
        SupportedVersionRange(1, 1))
    a_voter_map[3] = new_voter3

    assert voters.voter_node_needs_update(new_voter3)
    assert voters.update_voter(new_voter3) == VoterSet.from_map(dict(a_voter_map))


def test_cannot_remove_to_empty_voter_set() -> None:
    a_voter_map = voter_map([1], True)
    voters = VoterSet.from_map(dict(a_voter_map))

    voter1 = a_voter_map[1].voter_key
    assert voters.is_voter(voter1)
    assert voters.remove_voter(voter1) is None


def test_is_voter_with_directory_id() -> None:
    a_voter_map = voter_map([1, 2, 3], True)
    voters = VoterSet.from_map(dict(a_voter_map))
    directory_id1 = a_voter_map[1].voter_key.directory_id

    assert voters.is_voter(a_voter_map[1].voter_key)
    assert not voters.is_voter(ReplicaKey.of(1, Uuid.random_uuid()))
    assert not voters.is_voter(ReplicaKey.of(1, ReplicaKey.NO_DIRECTORY_ID))
    assert not voters.is_voter(ReplicaKey.of(2, directory_id1))
    assert not voters.is_voter(ReplicaKey.of(4, directory_id1))
    assert not voters.is_voter(ReplicaKey.of(4, ReplicaKey.NO_DIRECTORY_ID))


def test_is_voter_without_directory_id() -> None:
    a_voter_map = voter_map([1, 2, 3], False)
    voters = VoterSet.from_map(dict(a_voter_map))

    assert voters.is_voter(ReplicaKey.of(1, ReplicaKey.NO_DIRECTORY_ID))
    assert voters.is_voter(ReplicaKey.of(1, Uuid.random_uuid()))
    assert not voters.is_voter(ReplicaKey.of(4, Uuid.random_uuid()))
    assert not voters.is_voter(ReplicaKey.of(4, ReplicaKey.NO_DIRECTORY_ID))


def test_voter_node_is_voter_with_directory_id() -> None:
    node = voter_node(1, True)

    assert node.is_voter(node.voter_key)
    assert not node.is_voter(ReplicaKey.of(1, Uuid.random_uuid()))
    assert not node.is_voter(ReplicaKey.of(1, ReplicaKey.NO_DIRECTORY_ID))
    assert not node.is_voter(ReplicaKey.of(2, Uuid.random_uuid()))
    assert not node.is_voter(ReplicaKey.of(2, ReplicaKey.NO_DIRECTORY_ID))
    assert not node.is_voter(ReplicaKey.of(2, node.voter_key.directory_id))


def test_voter_node_is_voter_without_directory_id() -> None:
    node = voter_node(1, False)

    assert node.is_voter(node.voter_key)
    assert node.is_voter(ReplicaKey.of(1, Uuid.random_uuid()))
    assert node.is_voter(ReplicaKey.of(1, ReplicaKey.NO_DIRECTORY_ID))
    assert node.is_voter(ReplicaKey.of(1, Uuid.random_uuid()))
    assert not node.is_voter(ReplicaKey.of(2, Uuid.random_uuid()))
    assert not node.is_voter(ReplicaKey.of(2, ReplicaKey.NO_DIRECTORY_ID))


@pytest.mark.parametrize("with_directory_id", [True, False])
def test_endpoints(with_directory_id: bool) -> None:
    a_voter_map = voter_map([1, 2, 3], with_directory_id)
    voters = VoterSet.from_map(dict(a_voter_map))

    assert voters.listeners(1) != Endpoints.empty()
    assert voters.listeners(2) != Endpoints.empty()
    assert voters.listeners(3) != Endpoints.empty()
    assert voters.listeners(4) == Endpoints.empty()


def test_is_only_voter_in_standalone() -> None:
    a_voter_map = voter_map([1], True)
    voters = VoterSet.from_map(dict(a_voter_map))
    directory_id1 = a_voter_map[1].voter_key.directory_id

    assert voters.is_only_voter(a_voter_map[1].voter_key)
    assert not voters.is_only_voter(ReplicaKey.of(1, Uuid.random_uuid()))
    assert not voters.is_only_voter(ReplicaKey.of(1, ReplicaKey.NO_DIRECTORY_ID))
    assert not voters.is_only_voter(ReplicaKey.of(4, directory_id1))
    assert not voters.is_only_voter(ReplicaKey.of(4, ReplicaKey.NO_DIRECTORY_ID))


def test_is_only_voter_in_not_standalone() -> None:
    a_voter_map = voter_map([1, 2], True)
    voters = VoterSet.from_map(dict(a_voter_map))
    directory_id1 = a_voter_map[1].voter_key.directory_id

    assert not voters.is_only_voter(a_voter_map[1].voter_key)
    assert not voters.is_only_voter(ReplicaKey.of(1, Uuid.random_uuid()))
    assert not voters.is_only_voter(ReplicaKey.of(1, ReplicaKey.NO_DIRECTORY_ID))
    assert not voters.is_only_voter(ReplicaKey.of(2, directory_id1))
    assert not voters.is_only_voter(ReplicaKey.of(4, directory_id1))
    assert not voters.is_only_voter(ReplicaKey.of(4, ReplicaKey.NO_DIRECTORY_ID))


def test_record_round_trip() -> None:
    voters = VoterSet.from_map(voter_map([1, 2, 3], True))

    assert VoterSet.from_voters_record(voters.to_voters_record(0)) == voters


def test_overlapping_majority() -> None:
    starting_voter_map = voter_map([1, 2, 3], True)
    starting_voter_set = voter_set(starting_voter_map)

    bigger_voter_set = _present(starting_voter_set.add_voter(voter_node(4, True)))
    _assert_majorities(True, starting_voter_set, bigger_voter_set)

    smaller_voter_set = _present(starting_voter_set.remove_voter(starting_voter_map[1].voter_key))
    _assert_majorities(True, starting_voter_set, smaller_voter_set)

    replaced_voter_set = _present(
        _present(starting_voter_set.remove_voter(starting_voter_map[1].voter_key)).add_voter(voter_node(1, True)))
    _assert_majorities(True, starting_voter_set, replaced_voter_set)


def test_nonoverlapping_majority() -> None:
    starting_voter_map = voter_map([1, 2, 3, 4, 5], True)
    starting_voter_set = voter_set(starting_voter_map)

    # two voters added at once: no overlapping majority
    bigger_voter_set = _present(
        _present(starting_voter_set.add_voter(voter_node(6, True))).add_voter(voter_node(7, True)))
    _assert_majorities(False, starting_voter_set, bigger_voter_set)

    # two voters removed at once: no overlapping majority
    smaller_voter_set = _present(
        _present(starting_voter_set.remove_voter(starting_voter_map[1].voter_key))
        .remove_voter(starting_voter_map[2].voter_key))
    _assert_majorities(False, starting_voter_set, smaller_voter_set)

    # two voters replaced at once: no overlapping majority
    replaced_voter_set = starting_voter_set
    for voter_id in (1, 2):
        replaced_voter_set = _present(replaced_voter_set.remove_voter(starting_voter_map[voter_id].voter_key))
        replaced_voter_set = _present(replaced_voter_set.add_voter(voter_node(voter_id, True)))
    _assert_majorities(False, starting_voter_set, replaced_voter_set)


def _present(voters: VoterSet | None) -> VoterSet:
    """Optional.get(): fail if the change did not apply."""
    assert voters is not None
    return voters


def _assert_majorities(overlap: bool, a: VoterSet, b: VoterSet) -> None:
    assert a.has_overlapping_majority(b) == overlap, f"a = {a}, b = {b}"
    assert b.has_overlapping_majority(a) == overlap, f"b = {b}, a = {a}"
