"""QuorumState and FileQuorumStateStore (Kafka 3.9): what `quorum-state` holds, and that it is written before the
role changes in memory."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.file_quorum_state_store import FileQuorumStateStore
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.quorum_state import QuorumState
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet

VOTERS = VoterSet.from_inet_socket_addresses("CONTROLLER", {1: ("127.0.0.1", 9001), 2: ("127.0.0.1", 9002),
                                                            3: ("127.0.0.1", 9003)})


class WatchingStore(FileQuorumStateStore):
    """Records, at each write, the role the replica still has in memory."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.quorum: QuorumState | None = None
        self.roles_at_write: list[tuple[str, str]] = []

    def write_election_state(self, latest: ElectionState, kraft_version: int) -> None:
        super().write_election_state(latest, kraft_version)
        state = self.quorum.state if self.quorum is not None else None
        self.roles_at_write.append((state.name() if state else "none", str(latest)))


def quorum(tmp_path: Path, local_id: int = 1, store: FileQuorumStateStore | None = None) -> QuorumState:
    store = store or FileQuorumStateStore(tmp_path / "quorum-state")
    q = QuorumState(local_id, None, VOTERS, Endpoints({"CONTROLLER": ("127.0.0.1", 9000 + local_id)}), 300, 600,
                    store, lambda: 1_000, random.Random(7))
    if isinstance(store, WatchingStore):
        store.quorum = q
    return q


def test_the_file_is_v0_json_with_the_voters(tmp_path: Path) -> None:
    store = FileQuorumStateStore(tmp_path / "quorum-state")
    store.write_election_state(ElectionState.with_voted_candidate(4, ReplicaKey(2), {1, 2, 3}), 0)
    assert (tmp_path / "quorum-state").read_text() == (
        '{"clusterId":"","leaderId":-1,"leaderEpoch":4,"votedId":2,"appliedOffset":0,'
        '"currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}')
    assert not (tmp_path / "quorum-state.tmp").exists()
    assert store.read_election_state() == ElectionState(4, None, ReplicaKey(2), frozenset({1, 2, 3}))
    store.write_election_state(ElectionState.with_elected_leader(5, 3, {1, 2, 3}), 0)
    assert json.loads((tmp_path / "quorum-state").read_text())["leaderId"] == 3


def test_each_durable_transition_is_on_disk_before_the_role_changes(tmp_path: Path) -> None:
    store = WatchingStore(tmp_path / "quorum-state")
    q = quorum(tmp_path, store=store)
    q.initialize(OffsetAndEpoch(0, 0))
    q.transition_to_candidate()
    q.transition_to_unattached(3)
    q.transition_to_unattached_voted_state(3, ReplicaKey(2))
    q.transition_to_follower(3, 2, VOTERS.listeners(2))
    # at every write the replica still had its previous role in memory
    assert [role for role, _ in store.roles_at_write] == ["none", "Unattached", "Candidate", "Unattached",
                                                          "Unattached"]
    assert [e.split("(")[0] for _, e in store.roles_at_write] == ["Election"] * 5
    assert json.loads((tmp_path / "quorum-state").read_text())["leaderId"] == 2


def test_a_vote_is_given_once_per_epoch(tmp_path: Path) -> None:
    q = quorum(tmp_path)
    q.initialize(OffsetAndEpoch(0, 0))
    q.transition_to_unattached(2)
    assert q.can_grant_vote(ReplicaKey(2), True) and not q.can_grant_vote(ReplicaKey(3), False)
    q.transition_to_unattached_voted_state(2, ReplicaKey(2))
    assert q.can_grant_vote(ReplicaKey(2), True)  # the same candidate asking again
    assert not q.can_grant_vote(ReplicaKey(3), True)  # another one, however good its log
    with pytest.raises(RuntimeError):
        q.transition_to_unattached_voted_state(2, ReplicaKey(3))
    # a restart keeps the vote
    restarted = quorum(tmp_path)
    restarted.initialize(OffsetAndEpoch(0, 0))
    assert restarted.is_unattached_and_voted() and restarted.voted_key() == ReplicaKey(2)


def test_a_restarted_leader_comes_back_resigned_and_a_stale_file_gives_way_to_the_log(tmp_path: Path) -> None:
    FileQuorumStateStore(tmp_path / "quorum-state").write_election_state(
        ElectionState.with_elected_leader(4, 1, {1, 2, 3}), 0)
    q = quorum(tmp_path)
    q.initialize(OffsetAndEpoch(10, 4))
    assert q.is_resigned() and q.epoch() == 4
    behind = quorum(tmp_path)
    behind.initialize(OffsetAndEpoch(20, 6))  # the log has epoch 6: the file is behind it
    assert behind.is_unattached() and behind.epoch() == 6


def test_candidate_retries_and_random_election_timeouts(tmp_path: Path) -> None:
    q = quorum(tmp_path)
    q.initialize(OffsetAndEpoch(0, 0))
    q.transition_to_candidate()
    q.transition_to_candidate()
    state = q.candidate_state_or_throw()
    assert (q.epoch(), state.retries()) == (2, 2)
    assert state.granting_voters() == {1} and not state.is_vote_granted()
    state.record_granted_vote(2)
    assert state.is_vote_granted()
    timeouts = {q._random_election_timeout_ms() for _ in range(200)}
    assert min(timeouts) >= 300 and max(timeouts) < 600 and len(timeouts) > 50
    with pytest.raises(RuntimeError):
        q.transition_to_unattached(1)  # never back to an older epoch
