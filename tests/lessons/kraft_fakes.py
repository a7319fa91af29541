"""Our own test code, not a Kafka port: made-up KRaft runs (Kafka 3.9) for the KRaft lessons' checks, built on
`FakeRun` with the span names, events and attributes the raft and controller describers write."""

from __future__ import annotations

import json
from typing import Any

from kafka_edu.lessons import Evidence, ProcessExit, ProcessPause
from kafka_edu.tracing.query import SpanRecord
from tests.lessons.helpers import FakeRun

VOTERS = (1, 2, 3)


def quorum_state(leader: int, epoch: int, voted: int = -1) -> str:
    return json.dumps({"clusterId": "", "leaderId": leader, "leaderEpoch": epoch, "votedId": voted,
                       "appliedOffset": 0, "currentVoters": [{"voterId": v} for v in VOTERS], "data_version": 0})


class KraftRun(FakeRun):
    """A made-up KRaft run: controllers 1..3 (`controller-N`) and brokers (`broker-N`), times in ms."""

    def role(self, node: int, at_ms: float, to: str, epoch: int, *, frm: str = "Unattached",
             name: str = "KafkaRaftClient.pollUnattached", reason: str | None = None, leader: int = -1,
             voted: int = -1, trace: str | None = None, parent: SpanRecord | None = None,
             node_role: str = "controller", **attributes: Any) -> SpanRecord:
        """A span (a poll phase, a request's handling) in which `node` moved to role `to`."""
        event = {"kafka.raft.role.from": frm, "kafka.raft.role.to": to, "kafka.raft.epoch": epoch,
                 "kafka.raft.leader.id": leader, "kafka.raft.voted.id": voted,
                 "kafka.raft.quorum_state": quorum_state(leader, epoch, voted)}
        if reason is not None:
            attributes["kafka__raft__poll__reason"] = reason
        return self.span(name, node, at_ms, 1.0, role=node_role, trace=trace, parent=parent,
                         events=[("raft.role.change", event)], step="KR.poll" if name.startswith(
                             "KafkaRaftClient.poll") else None, **attributes)

    def vote(self, voter: int, at_ms: float, candidate: int, epoch: int, granted: bool, reason: str,
             trace: str | None = None) -> SpanRecord:
        return self.span("KafkaRaftClient.handleVoteRequest", voter, at_ms, 0.5, role="controller", trace=trace,
                         step="KR.vote", kafka__raft__vote__candidate_id=candidate,
                         kafka__raft__vote__candidate_epoch=epoch, kafka__raft__vote__granted=granted,
                         kafka__raft__vote__reason=reason)

    def election(self, winner: int, epoch: int, at_ms: float, *, frm: str = "Unattached",
                 name: str = "KafkaRaftClient.pollUnattached",
                 reason: str = "election timeout (1369 ms) without a leader, become candidate",
                 voters: tuple[int, ...] = VOTERS, activate: bool = True) -> SpanRecord:
        """`winner` stands in `epoch`, the other voters grant, it leads, they follow, and (with `activate`) its
        QuorumController claims the epoch."""
        stood = self.role(winner, at_ms, "Candidate", epoch, frm=frm, name=name, reason=reason, voted=winner)
        for i, voter in enumerate(v for v in voters if v != winner):
            self.vote(voter, at_ms + 5 + i, winner, epoch, True,
                      "granted: candidate's log (epoch 0, offset 0) is at least ours (epoch 0, offset 0)",
                      trace=stood.trace_id)
        leader = self.role(winner, at_ms + 20, "Leader", epoch, frm="Candidate",
                           name="KafkaRaftClient.handleVoteResponse", leader=winner, trace=stood.trace_id)
        for i, voter in enumerate(v for v in voters if v != winner):
            self.role(voter, at_ms + 30 + i, "Follower", epoch, frm="Unattached",
                      name="KafkaRaftClient.handleBeginQuorumEpochRequest", leader=winner, trace=stood.trace_id,
                      kafka__raft__request__leader_epoch=epoch)
        if activate:
            self.span("QuorumController.claim", winner, at_ms + 40, 0.1, role="controller", kafka__raft__epoch=epoch)
            self.span("QuorumController.completeActivation", winner, at_ms + 41, 0.1, role="controller",
                      kafka__metadata__record__types=[], kafka__controller__log_was_empty=False)
        return leader

    def fetch_hw(self, leader: int, at_ms: float, epoch: int, replica: int, voters: list[int], offsets: list[int],
                 high_watermark: int, epoch_start: int = 0) -> SpanRecord:
        """The leader's handling of a follower's Fetch, with the high watermark's computation."""
        index = len(offsets) // 2
        return self.span("KafkaRaftClient.handleFetchRequest", leader, at_ms, 0.3, role="controller",
                         step="KR.fetch", kafka__raft__epoch=epoch, kafka__raft__fetch__replica_id=replica,
                         kafka__raft__fetch__offset=offsets[voters.index(replica)],
                         kafka__raft__hw__sorted_voters=voters, kafka__raft__hw__sorted_offsets=offsets,
                         kafka__raft__hw__majority_index=index, kafka__raft__hw__candidate=offsets[index],
                         kafka__raft__hw__epoch_start_offset=epoch_start, kafka__raft__high_watermark=high_watermark)

    def evidence(self, exits: list[ProcessExit] = (), alive: dict[int, int | None] | None = None,
                 pauses: list[ProcessPause] = (), **facts: Any) -> Evidence:
        return super().evidence(exits, alive if alive is not None else {n: 100 + n for n in VOTERS}, pauses,
                                **{"controller_ids": list(VOTERS), "broker_ids": [], **facts})
