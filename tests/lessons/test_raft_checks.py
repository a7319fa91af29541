"""Lesson `raft`: each check, fed a made-up KRaft run in which the thing it looks for did not happen (or happened
another way), says what it expected, what it saw, and what to do; fed the real thing, it explains it with the run's
numbers."""

from __future__ import annotations

from lessons import raft as lesson
from tests.lessons.helpers import died, ns, paused
from tests.lessons.kraft_fakes import KraftRun

ELECTED = {"leader": 1, "epoch": 1}


def elected(run: KraftRun, winner: int = 1) -> None:
    for node in (1, 2, 3):
        run.span("KafkaRaftServer.startup", node, node, 50, role="controller", step="KR.server")
    run.election(winner, 1, at_ms=1500)


# -- 1. the first election -----------------------------------------------------------------------------------------

def test_no_leader_yet_is_waited_for():
    run = KraftRun()
    run.role(2, 1500, "Candidate", 1, reason="election timeout (1200 ms) without a leader, become candidate")
    result = lesson.first_leader_elected(run.evidence())
    assert not result.ok and result.wait
    assert "Leader" in result.expected and "1 candidacy(ies) so far and no leader" in result.seen


def test_a_voter_not_following_yet_is_named():
    run = KraftRun()
    run.role(1, 1500, "Candidate", 1, reason="election timeout (1200 ms) without a leader, become candidate")
    run.role(1, 1520, "Leader", 1, frm="Candidate", name="KafkaRaftClient.handleVoteResponse", leader=1)
    run.role(2, 1530, "Follower", 1, leader=1)
    result = lesson.first_leader_elected(run.evidence())
    assert not result.ok and result.wait and "[3]" in result.seen


def test_the_election_is_explained_with_its_timeout_votes_and_quorum_state():
    run = KraftRun()
    elected(run, winner=2)
    result = lesson.first_leader_elected(run.evidence())
    assert result.ok and result.facts == {"leader": 2, "epoch": 1}
    assert "Controller 2 stood first" in result.explain and "(1369 ms" in result.explain
    assert '"votedId": 2' in result.explain  # the quorum-state it wrote
    assert "controller 1 granted" in result.explain and "granted: candidate" not in result.explain


def test_a_split_vote_at_startup_shows_both_candidacies():
    run = KraftRun()
    rival = run.role(3, 1400, "Candidate", 1, reason="election timeout (1100 ms) without a leader, become candidate",
                     voted=3)
    run.vote(1, 1405, 3, 1, False, "already voted for 2 in epoch 1", trace=rival.trace_id)
    run.role(2, 1401, "Candidate", 1, reason="election timeout (1101 ms) without a leader, become candidate")
    run.election(2, 2, at_ms=2600, frm="Candidate", name="KafkaRaftClient.pollCandidate",
                 reason="backoff over: a new election")
    result = lesson.first_leader_elected(run.evidence())
    assert result.ok and result.facts["epoch"] == 2
    assert "Controller 2 won epoch 2" in result.explain and "backoff over" in result.explain
    assert "Controller 3 stood too, in epoch 1" in result.explain and "already voted for 2" in result.explain


def test_a_first_leader_deposed_before_all_followed_gives_way_to_the_next_epochs():
    """A busy machine: controller 1 leads epoch 1, controller 3's election timeout runs out before 1's
    BeginQuorumEpoch reaches it, and it wins epoch 2, which everyone follows."""
    run = KraftRun()
    run.role(1, 1500, "Candidate", 1, reason="election timeout (1200 ms) without a leader, become candidate")
    run.role(1, 1520, "Leader", 1, frm="Candidate", name="KafkaRaftClient.handleVoteResponse", leader=1)
    run.role(2, 1530, "Follower", 1, leader=1)
    run.election(3, 2, at_ms=2800, reason="election timeout (1250 ms) without a leader, become candidate")
    result = lesson.first_leader_elected(run.evidence())
    assert result.ok and result.facts == {"leader": 3, "epoch": 2}
    assert "controller 1 led epoch 1 and lost it before every voter followed" in result.explain


# -- 2. replication and the high watermark -------------------------------------------------------------------------

def test_without_the_describe_request_the_learner_is_asked_to_run_it():
    run = KraftRun()
    elected(run)
    run.fetch_hw(1, 3000, 1, replica=2, voters=[1, 2, 3], offsets=[9, 9, 7], high_watermark=9)
    result = lesson.majority_high_watermark(run.evidence(action_ns=ns(2500), **ELECTED))
    assert not result.ok and "DescribeQuorum" in result.expected and "run the command above" in result.hint


def test_the_high_watermark_is_the_majority_offset_of_this_run():
    run = KraftRun()
    elected(run)
    run.span("KafkaMetadataLog.appendAsLeader", 1, 2900, 0.2, role="controller", kafka__raft__offset__first=8,
             kafka__raft__offset__last=8)
    run.span("KafkaMetadataLog.appendAsFollower", 2, 2950, 0.2, role="controller")
    run.fetch_hw(1, 3000, 1, replica=2, voters=[1, 2, 3], offsets=[9, 9, 7], high_watermark=9, epoch_start=0)
    run.fetch_hw(1, 3100, 1, replica=3, voters=[1, 2, 3], offsets=[9, 9, 9], high_watermark=9)
    run.span("RequestChannel.Request", 1, 3200, 2, role="controller", kafka__api__name="DescribeQuorum")
    result = lesson.majority_high_watermark(run.evidence(action_ns=ns(2500), **ELECTED))
    assert result.ok
    assert "[9, 9, 7]" in result.explain and "index 1" in result.explain and "controller 3, which had only reached 7" \
        in result.explain and "became 9" in result.explain


# -- 3. kill -9 the leader -------------------------------------------------------------------------------------------

def test_nothing_killed_fails_at_once_with_the_kill_command():
    run = KraftRun()
    elected(run)
    result = lesson.new_leader_after_kill(run.evidence(action_ns=ns(5000), **ELECTED))
    assert not result.ok and not result.wait
    assert "every controller is still running" in result.seen and "cluster kill 1 --run /tmp/run" in result.hint


def test_killing_a_follower_is_not_a_failover():
    run = KraftRun()
    elected(run)
    result = lesson.new_leader_after_kill(run.evidence(exits=[died(3, 5100)], action_ns=ns(5000), **ELECTED))
    assert not result.ok and not result.wait
    assert "controller 3 was killed instead" in result.seen and "cluster start 3" in result.hint


def test_a_failover_in_progress_is_waited_for():
    run = KraftRun()
    elected(run)
    run.span("KafkaRaftClient.pollFollower", 2, 6900, 1, role="controller",
             kafka__raft__poll__reason="fetch timeout: no successful Fetch from leader 1 in time, become candidate")
    result = lesson.new_leader_after_kill(run.evidence(exits=[died(1, 5100)], action_ns=ns(5000), **ELECTED))
    assert not result.ok and result.wait
    assert "1 fetch timeout(s)" in result.seen and "fetch.timeout.ms" in result.hint


def test_a_split_vote_failover_is_explained_and_timed():
    run = KraftRun()
    elected(run)
    reason = "fetch timeout: no successful Fetch from leader 1 in time, become candidate"
    for node, t in ((2, 6900), (3, 6905)):
        run.span("KafkaRaftClient.pollFollower", node, t, 1, role="controller", kafka__raft__poll__reason=reason)
        c = run.role(node, t + 1, "Candidate", 2, frm="Follower", name="KafkaRaftClient.pollFollower",
                     reason=reason, voted=node)
        run.vote(5 - node, t + 5, node, 2, False, "candidate itself in epoch 2 (voted for itself)", trace=c.trace_id)
    run.election(3, 3, at_ms=8000, frm="Candidate", name="KafkaRaftClient.pollCandidate",
                 reason="backoff over: a new election", voters=(2, 3))
    result = lesson.new_leader_after_kill(run.evidence(exits=[died(1, 5100)], action_ns=ns(5000), **ELECTED))
    assert result.ok
    assert result.facts["leader"] == 3 and result.facts["epoch"] == 3 and result.facts["old_leader"] == 1
    assert result.facts["split_vote"] is True and result.facts["detection_s"] == 1.8
    assert "The vote split" in result.explain and "candidate itself in epoch 2" in result.explain
    assert "2.94 s** from the kill to a working controller" in result.explain


def test_a_leader_not_yet_active_is_waited_for():
    run = KraftRun()
    elected(run)
    run.election(2, 2, at_ms=7000, frm="Follower", name="KafkaRaftClient.pollFollower", voters=(2, 3),
                 activate=False)
    result = lesson.new_leader_after_kill(run.evidence(exits=[died(1, 5100)], action_ns=ns(5000), **ELECTED))
    assert not result.ok and result.wait and "completeActivation" in result.expected


# -- 4. the old leader comes back ----------------------------------------------------------------------------------

AFTER_KILL = {"old_leader": 1, "old_epoch": 1, "leader": 2, "epoch": 2, "action_ns": ns(10_000)}


def test_a_leader_not_started_again_gets_the_start_command():
    run = KraftRun()
    elected(run)
    result = lesson.old_leader_rejoined(run.evidence(alive={1: None, 2: 102, 3: 103}, **AFTER_KILL))
    assert not result.ok and not result.wait and "cluster start 1" in result.hint


def test_a_restarted_leader_still_resigned_is_waited_for():
    run = KraftRun()
    elected(run)
    run.election(2, 2, at_ms=7000, frm="Follower", name="KafkaRaftClient.pollFollower", voters=(2, 3))
    run.span("KafkaRaftServer.startup", 1, 10_500, 40, role="controller", step="KR.server")
    run.role(1, 10_530, "Resigned", 1, frm="none", name="KafkaRaftClient.initialize", leader=1)
    result = lesson.old_leader_rejoined(run.evidence(**AFTER_KILL))
    assert not result.ok and result.wait and "Resigned (1)" in result.seen


def test_the_old_leader_following_is_explained():
    run = KraftRun()
    elected(run)
    run.election(2, 2, at_ms=7000, frm="Follower", name="KafkaRaftClient.pollFollower", voters=(2, 3))
    run.span("KafkaRaftServer.startup", 1, 10_500, 40, role="controller", step="KR.server")
    run.role(1, 10_530, "Resigned", 1, frm="none", name="KafkaRaftClient.initialize", leader=1)
    run.role(1, 10_560, "Follower", 2, frm="Resigned", name="KafkaRaftClient.handleBeginQuorumEpochRequest",
             leader=2)
    run.span("KafkaMetadataLog.appendAsFollower", 1, 10_600, 0.2, role="controller", kafka__raft__offset__first=7,
             kafka__raft__offset__last=12)
    run.span("ReplicatedLog.truncateToEndOffset", 1, 10_580, 0.2, role="controller",
             kafka__raft__log_end_offset__before=9, kafka__raft__truncation_offset=7)
    evidence = run.evidence(**AFTER_KILL)
    result = lesson.old_leader_rejoined(evidence)
    assert result.ok and result.facts == {"leader": 2, "epoch": 2}
    assert "came back as **Resigned** in epoch 1" in result.explain and "offsets 7 to 12" in result.explain
    assert "truncated from offset 9 to 7" in result.explain
    assert lesson.came_back_as(evidence) == "b"


# -- 5. a voter that sleeps ----------------------------------------------------------------------------------------

SLEEPING = {"sleeper": 3, "leader": 2, "epoch": 2, "action_ns": ns(20_000)}


def sleeping_run() -> KraftRun:
    run = KraftRun()
    elected(run)
    run.election(2, 2, at_ms=7000, frm="Follower", name="KafkaRaftClient.pollFollower", voters=(2, 3))
    return run


def test_pausing_the_leader_instead_is_refused_with_the_resume_command():
    result = lesson.sleeper_woke(sleeping_run().evidence(pauses=[paused(2, 20_100)], **SLEEPING))
    assert not result.ok and not result.wait
    assert "controller 2 was paused instead (the leader)" in result.seen and "cluster resume 2" in result.hint


def test_a_pause_shorter_than_the_fetch_timeout_is_refused():
    pauses = [paused(3, 20_100), paused(3, 21_000, resumed=True)]
    result = lesson.sleeper_woke(sleeping_run().evidence(pauses=pauses, **SLEEPING))
    assert not result.ok and not result.wait and "longer than the fetch timeout" in result.expected


def test_a_sleeper_still_paused_gets_the_resume_command():
    result = lesson.sleeper_woke(sleeping_run().evidence(pauses=[paused(3, 20_100)], **SLEEPING))
    assert not result.ok and result.wait and "cluster resume 3" in result.hint


def test_a_sleeper_that_woke_to_a_fetch_answer_is_explained_as_the_race():
    run = sleeping_run()
    run.span("KafkaRaftClient.handleFetchResponse", 3, 24_150, 1, role="controller")
    run.span("KafkaRaftClient.pollLeader", 2, 27_500, 1, role="controller")  # the run goes on
    pauses = [paused(3, 20_100), paused(3, 24_100, resumed=True)]
    evidence = run.evidence(pauses=pauses, **SLEEPING)
    result = lesson.sleeper_woke(evidence)
    assert result.ok and "reset the\nfetch timer" in result.explain and lesson.sleeper_outcome(evidence) == "a"


def test_a_sleeper_that_deposes_the_leader_is_explained_with_the_outage():
    run = sleeping_run()
    reason = "fetch timeout: no successful Fetch from leader 2 in time, become candidate"
    stood = run.role(3, 24_105, "Candidate", 3, frm="Follower", name="KafkaRaftClient.pollFollower", reason=reason,
                     voted=3)
    run.role(2, 24_110, "Unattached", 3, frm="Leader", name="KafkaRaftClient.handleVoteRequest", trace=stood.trace_id)
    for voter in (1, 2):
        run.vote(voter, 24_111, 3, 3, False, "log behind: candidate's (epoch 2, offset 13) < ours (epoch 2, offset 22)",
                 trace=stood.trace_id)
    run.role(3, 24_600, "Candidate", 4, frm="Candidate", name="KafkaRaftClient.pollCandidate",
             reason="backoff over: a new election", voted=3)
    run.election(1, 5, at_ms=25_400, voters=(1, 2, 3))
    pauses = [paused(3, 20_100), paused(3, 24_100, resumed=True)]
    evidence = run.evidence(pauses=pauses, **SLEEPING)
    result = lesson.sleeper_woke(evidence)
    assert result.ok and lesson.sleeper_outcome(evidence) == "b"
    assert "the moment it resumed" in result.explain and "moved to **Unattached** in epoch 3" in result.explain
    assert "renounced" not in result.explain  # no renounce span in this run: the lesson does not claim one
    assert "log behind" in result.explain and "It stood 2 times, in epochs 3 to 4" in result.explain
    assert "Controller 1 was elected in epoch 5" in result.explain and result.facts["no_leader_s"] == 1.31


def test_steps_about_the_leader_name_the_leader_the_traces_show_now():
    run = KraftRun()
    elected(run)
    assert lesson.current_leader(run.evidence()) == {"leader": 1, "epoch": 1}
    run.election(3, 2, at_ms=9000, frm="Follower", name="KafkaRaftClient.pollFollower")  # a spurious election
    assert lesson.current_leader(run.evidence()) == {"leader": 3, "epoch": 2}
    assert lesson.current_leader(KraftRun().evidence()) is None  # not known yet: asked again


def test_a_describe_answered_by_a_follower_first_still_counts():
    run = KraftRun()
    elected(run)
    run.fetch_hw(1, 3000, 1, replica=2, voters=[1, 2, 3], offsets=[9, 9, 7], high_watermark=9)
    run.span("RequestChannel.Request", 2, 3200, 2, role="controller", kafka__api__name="DescribeQuorum")
    result = lesson.majority_high_watermark(run.evidence(action_ns=ns(2500), **ELECTED))
    assert result.ok and "answered by controller 2 (`RequestChannel.Request` on controller-2" in \
        result.explain.replace("\n", " ")
