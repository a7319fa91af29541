"""Lesson `lost-writes` (our own test code): each check, fed a made-up run in which the thing it looks for did not
happen, says what it expected, what it saw, and what to do; and fed the run it looks for, says it with that run's
numbers."""

from __future__ import annotations

from lessons import lost_writes as lesson
from tests.lessons.helpers import FakeRun, ns

FACTS = {"leader": 1, "followers": "0,2", "replicas": "1,0,2", "controller": 0, "action_ns": ns(1000)}


def led(run: FakeRun, broker: int, at_ms: float, *topics: str) -> None:
    run.span("ReplicaManager.makeLeaders", broker, at_ms, 2, kafka__partitions=[f"{t}-0" for t in topics])


def cut(run: FakeRun, at_ms: float, name: str = "Runner.partition") -> None:
    run.span(name, 0, at_ms, 1, role="runner", events=[("network.partition" if name == "Runner.partition"
                                                        else "network.heal", {})])


def shrink(run: FakeRun, topic: str, at_ms: float) -> None:
    run.span("Partition.updateIsr", 1, at_ms, 2, kafka__topic=topic, kafka__partition=0,
             events=[("isr.change", {"kafka.isr.from": [1, 0, 2], "kafka.isr.to": [1]})])


def test_pick_leader_waits_for_a_controller_and_keeps_it_out_of_the_leaders_seat():
    run = FakeRun()
    assert lesson.pick_leader(run.evidence()) is None
    run.elect(0, at_ms=10, won=True, controller=0, epoch=1)
    assert lesson.pick_leader(run.evidence()) == {"controller": 0, "leader": 1, "followers": "0,2",
                                                  "replicas": "1,0,2"}


def test_topics_not_led_yet_names_the_missing_one():
    run = FakeRun()
    led(run, 1, 1100, lesson.UNSAFE)
    result = lesson.topics_led(run.evidence(**FACTS))
    assert not result.ok and result.wait and lesson.SAFE in result.seen and lesson.UNSAFE not in result.seen
    led(run, 1, 1200, lesson.SAFE)
    assert lesson.topics_led(run.evidence(**FACTS)).ok


def test_writers_must_append_to_both_topics_on_the_leader():
    run = FakeRun()
    run.span("Log.append", 1, 1100, step="NW.log.append", kafka__topic=lesson.UNSAFE)
    run.span("Log.append", 0, 1100, step="NW.log.append", kafka__topic=lesson.SAFE)  # a follower: not the leader's
    result = lesson.writers_writing(run.evidence(**FACTS))
    assert not result.ok and lesson.SAFE in result.expected and "broker 1" in result.expected


def test_no_cut_in_step_3_says_to_run_the_split():
    result = lesson.isr_is_leader_alone(FakeRun().evidence(**FACTS))
    assert not result.ok and not result.wait and "--split" in result.hint


def test_a_cut_without_a_shrink_waits_for_the_lag_time():
    run = FakeRun()
    cut(run, 1100)
    shrink(run, lesson.UNSAFE, 1500)
    result = lesson.isr_is_leader_alone(run.evidence(**FACTS))
    assert not result.ok and result.wait and lesson.SAFE in result.expected
    assert "replica.lag.time.max.ms" in result.hint
    shrink(run, lesson.SAFE, 1600)
    result = lesson.isr_is_leader_alone(run.evidence(**FACTS))
    assert result.ok and result.facts["split_ns"] == ns(1100) and "400 ms later" in result.explain


def test_no_zookeeper_cut_says_to_run_it():
    result = lesson.unclean_election(FakeRun().evidence(**FACTS))
    assert not result.ok and not result.wait and "--from-zookeeper" in result.hint


def test_before_the_session_expires_there_is_no_new_leader_yet():
    run = FakeRun()
    cut(run, 1100)
    result = lesson.unclean_election(run.evidence(**FACTS))
    assert not result.ok and result.wait and "session" in result.hint


def test_a_safe_topic_with_a_new_leader_is_not_what_the_lesson_set_up():
    run = FakeRun()
    cut(run, 1100)
    led(run, 0, 5000, lesson.UNSAFE, lesson.SAFE)
    result = lesson.unclean_election(run.evidence(**FACTS))
    assert not result.ok and not result.wait and "broker 0 became its leader" in result.seen


def test_the_unclean_election_is_explained_with_the_new_leader():
    run = FakeRun()
    cut(run, 1100)
    run.span("OfflinePartitionLeaderSelector.selectLeader", 0, 4900, step="CT.select", kafka__topic=lesson.UNSAFE)
    led(run, 0, 5000, lesson.UNSAFE)
    led(run, 1, 5000, lesson.SAFE)  # the old leader, cut off: it does not count as a new leader
    result = lesson.unclean_election(run.evidence(**FACTS))
    assert result.ok and result.facts["new_leader"] == 0 and "unclean" in result.explain


def test_heal_waits_for_the_truncation_and_then_quotes_its_numbers():
    facts = {**FACTS, "new_leader": 0}
    assert not lesson.old_leader_truncated(FakeRun().evidence(**facts)).wait
    run = FakeRun()
    cut(run, 1100, "Runner.heal")
    result = lesson.old_leader_truncated(run.evidence(**facts))
    assert not result.ok and result.wait and "truncate" in result.expected
    truncate = {"kafka.topic": lesson.UNSAFE, "kafka.partition": 0, "kafka.offset": 120, "kafka.log_end_offset": 180,
                "kafka.truncation.by": "leader epoch", "kafka.records.lost": 0}
    run.span("ReplicaFetcherThread.maybeTruncate", 1, 2000, step="LE.truncate", events=[
        ("log.truncate", {**truncate, "kafka.log_end_offset": 120})])  # nothing to cut: not the lesson's
    assert not lesson.old_leader_truncated(run.evidence(**facts)).ok
    run.span("ReplicaFetcherThread.maybeTruncate", 1, 3000, step="LE.truncate", events=[
        ("log.truncate", {**truncate, "kafka.records.lost": 60})])
    led(run, 1, 3100, lesson.SAFE)
    result = lesson.old_leader_truncated(run.evidence(**facts))
    assert result.ok and "**60 records**" in result.explain and "from log end 180 down to 120" in result.explain
    assert result.facts == {"truncated": 60, "truncated_from": 120, "truncated_to": 180}


def test_the_verdict_needs_both_histories_judged():
    result = lesson.verdict_given(FakeRun().evidence(**FACTS))
    assert not result.ok and not result.wait


VERDICT = {"unsafe_acknowledged": 500, "unsafe_read": 440, "unsafe_indeterminate": 0, "unsafe_lost": 60,
           "unsafe_lost_offsets": list(range(120, 180)), "safe_acknowledged": 300, "safe_read": 300,
           "safe_indeterminate": 12, "safe_lost": 0, "safe_counts": {}, "truncated_from": 120, "truncated_to": 180}


def test_a_loss_on_the_safe_topic_fails_the_lesson():
    result = lesson.verdict_given(FakeRun().evidence(**FACTS, **{**VERDICT, "safe_lost": 2}))
    assert not result.ok and not result.wait and "2 lost" in result.seen


def test_no_loss_on_the_unsafe_topic_fails_the_lesson():
    result = lesson.verdict_given(FakeRun().evidence(**FACTS, **{**VERDICT, "unsafe_lost": 0}))
    assert not result.ok and "none lost of 500" in result.seen


def test_the_verdict_quotes_the_checkers_numbers():
    result = lesson.verdict_given(FakeRun().evidence(**FACTS, **VERDICT))
    assert result.ok and "60 acknowledged records lost" in result.explain and "offsets 120 to 179" in result.explain
    assert "12 indeterminate" in result.explain
    result = lesson.verdict_given(FakeRun().evidence(**FACTS, **{**VERDICT, "safe_indeterminate": 0}))
    assert result.ok and "every send was answered in the end" in result.explain
