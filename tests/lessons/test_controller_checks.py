"""Lesson `controller`: each check, fed a made-up run in which the thing it looks for did not happen, says what it
expected, what it saw, and what to do."""

from __future__ import annotations

from lessons import controller as lesson
from tests.lessons.helpers import FakeRun, died, ns

ALL_FAILOVER = lesson.FAILOVER_STEPS[:9] + lesson.FAILOVER_STEPS[10:]  # no topics yet: no CT.failover.10


def three_brokers_elected(run: FakeRun, winner: int = 1, failover: list[str] | None = None) -> None:
    for broker in (0, 1, 2):
        run.startup(broker, at_ms=broker * 10)
        run.elect(broker, at_ms=100 + broker, won=broker == winner, controller=winner, epoch=1,
                  failover=ALL_FAILOVER if failover is None else failover)


# -- 1. the race ---------------------------------------------------------------------------------------------------

def test_no_election_won_yet():
    run = FakeRun()
    for broker in (0, 1, 2):
        run.startup(broker, at_ms=0)
    result = lesson.one_broker_won(run.evidence())
    assert not result.ok and result.wait
    assert "won = true" in result.expected and "none won yet" in result.seen and "wait" in result.hint


def test_a_broker_that_never_ran_elect_is_named():
    run = FakeRun()
    run.elect(0, at_ms=100, won=True, controller=0, epoch=1, failover=ALL_FAILOVER)
    run.elect(1, at_ms=101, won=False, controller=0)
    result = lesson.one_broker_won(run.evidence())
    assert not result.ok and "[2]" in result.seen


def test_two_winners_of_one_epoch_fail_at_once():
    run = FakeRun()
    run.elect(0, at_ms=100, won=True, controller=0, epoch=1)
    run.elect(1, at_ms=101, won=True, controller=1, epoch=1)
    result = lesson.one_broker_won(run.evidence())
    assert not result.ok and not result.wait
    assert "exactly one winner at controller epoch 1" in result.expected and "2 brokers won" in result.seen


def test_one_winner_is_explained_and_named_for_the_next_steps():
    run = FakeRun()
    three_brokers_elected(run, winner=2)
    result = lesson.one_broker_won(run.evidence())
    assert result.ok and result.facts == {"controller": 2, "epoch": 1}
    assert "Broker 2 won" in result.explain and "found broker 2 already in `/controller`" in result.explain


# -- 2. the failover -----------------------------------------------------------------------------------------------

def test_a_failover_still_running_is_waited_for():
    run = FakeRun()
    three_brokers_elected(run, failover=ALL_FAILOVER[:5])
    result = lesson.failover_in_order(run.evidence(controller=1, epoch=1))
    assert not result.ok and result.wait and "CT.failover.05" in result.seen


def test_failover_steps_out_of_order_are_shown_against_1_0_2s_order():
    run = FakeRun()
    swapped = list(ALL_FAILOVER)
    swapped[3], swapped[4] = swapped[4], swapped[3]  # the context read before the watches
    three_brokers_elected(run, failover=swapped)
    result = lesson.failover_in_order(run.evidence(controller=1, epoch=1))
    assert not result.ok and not result.wait
    assert "CT.failover.04, CT.failover.05" in result.expected and "CT.failover.05, CT.failover.04" in result.seen


def test_a_complete_failover_gets_its_table():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.failover_in_order(run.evidence(controller=1, epoch=1))
    assert result.ok and "| CT.failover.14 |" in result.explain and "wrote 1" in result.explain


# -- 3. the topic --------------------------------------------------------------------------------------------------

def test_no_topic_change_means_the_topic_was_not_created():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.topic_leaders_chosen(run.evidence(controller=1, epoch=1))
    assert not result.ok
    assert "TopicChange" in result.expected and "no TopicChange has named it yet" in result.seen
    assert "create it" in result.hint


def test_a_topic_with_one_replica_per_partition_must_be_made_again():
    run = FakeRun()
    three_brokers_elected(run)
    change = run.span("KafkaController.TopicChange.process", 1, 500, 20, step="CT.topic",
                      kafka__topics__new=[lesson.TOPIC])
    run.span("ReplicaStateMachine.handleStateChanges", 1, 505, links=[change], events=[
        ("replica.state.change", {"kafka.topic": lesson.TOPIC, "kafka.partition": p, "kafka.replica": p % 3,
                                  "from": "NonExistentReplica", "to": "NewReplica"}) for p in range(6)])
    result = lesson.topic_leaders_chosen(run.evidence(controller=1, epoch=1))
    assert not result.ok and not result.wait
    assert "6 partitions of 3 replicas" in result.expected and "6 partition(s) of 1 replica(s)" in result.seen
    assert "--delete" in result.hint


# -- 4. kill -9 of the controller ----------------------------------------------------------------------------------

def test_nothing_killed_is_said_at_once():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.new_controller_after_kill(run.evidence(controller=1, epoch=1, action_ns=ns(1000)))
    assert not result.ok and not result.wait
    assert "broker 1's process gone" in result.expected and "every broker is still running" in result.seen
    assert "cluster kill 1" in result.hint


def test_killing_a_broker_that_is_not_the_controller_gets_a_hint_to_undo_it():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.new_controller_after_kill(run.evidence(
        [died(2, 1500)], alive={0: 100, 1: 101, 2: None}, controller=1, epoch=1, action_ns=ns(1000)))
    assert not result.ok and not result.wait
    assert "the controller, broker 1, killed" in result.expected
    assert "broker 2 was killed" in result.seen and "still broker 1 at epoch 1" in result.seen
    assert "cluster start 2" in result.hint and "cluster kill 1" in result.hint


def test_before_the_session_expires_there_is_no_new_controller_yet():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.new_controller_after_kill(run.evidence(
        [died(1, 1500)], alive={0: 100, 1: None, 2: 102}, controller=1, epoch=1, action_ns=ns(1000)))
    assert not result.ok and result.wait
    assert "epoch 2" in result.expected and "no election has been won since" in result.seen
    assert "zookeeper.session.timeout.ms" in result.hint


def test_a_failover_is_timed_from_the_kill():
    run = FakeRun()
    three_brokers_elected(run)
    new = run.elect(0, at_ms=7500, won=True, controller=0, epoch=2, event="Reelect", failover=ALL_FAILOVER)
    run.span("PartitionStateMachine.triggerOnlinePartitionStateChange", 0, 7510, 5, links=[new], events=[
        ("partition.state.change", {"kafka.topic": "lesson", "kafka.partition": 4, "from": "OfflinePartition",
                                    "to": "OnlinePartition", "kafka.leader": 2})])
    run.span("ReplicaManager.makeLeaders", 2, 7520, 1, kafka__partitions=["lesson-4"])
    result = lesson.new_controller_after_kill(run.evidence(
        [died(1, 1500)], alive={0: 100, 1: None, 2: 102}, controller=1, epoch=1, action_ns=ns(1000)))
    assert result.ok, result.message()
    assert result.facts["controller"] == 0 and result.facts["epoch"] == 2 and result.facts["old_controller"] == 1
    assert result.facts["failover_s"] == 6.02 and result.facts["detection_s"] == 6.0
    assert "lesson-4 → broker 2" in result.explain


# -- 5. the old controller comes back ------------------------------------------------------------------------------

def test_a_broker_not_restarted_gets_the_start_command():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.old_controller_rejoined(run.evidence(
        alive={0: 100, 1: None, 2: 102}, controller=0, epoch=2, old_controller=1, action_ns=ns(9000)))
    assert not result.ok and not result.wait
    assert "broker 1 started again" in result.expected and "not running" in result.seen
    assert "cluster start 1" in result.hint


def test_every_broker_must_run_before_the_last_step():
    run = FakeRun()
    three_brokers_elected(run)
    run.startup(1, at_ms=9100)
    result = lesson.old_controller_rejoined(run.evidence(
        alive={0: 100, 1: 201, 2: None}, controller=0, epoch=2, old_controller=1, action_ns=ns(9000)))
    assert not result.ok and not result.wait
    assert "broker(s) [2] not running" in result.seen and "cluster start 2" in result.hint


# -- 6. controlled shutdown ----------------------------------------------------------------------------------------

FACTS = {"controller": 0, "epoch": 2, "victim": 2, "victim_led": "lesson-1, lesson-4", "victim_count": 2,
         "action_ns": ns(20_000)}


def test_a_killed_victim_ran_no_shutdown():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.leadership_moved_first(run.evidence([died(2, 20_500)], alive={0: 100, 1: 101, 2: None},
                                                        **FACTS))
    assert not result.ok and not result.wait
    assert "`KafkaServer.shutdown` trace from broker 2" in result.expected and "killed" in result.seen
    assert "cluster start 2" in result.hint and "cluster stop 2" in result.hint


def test_stopping_another_broker_is_named():
    run = FakeRun()
    three_brokers_elected(run)
    run.span("KafkaServer.shutdown", 1, 20_500, 300)
    result = lesson.leadership_moved_first(run.evidence([died(1, 20_800)], alive={0: 100, 1: None, 2: 102},
                                                        **FACTS))
    assert not result.ok and not result.wait
    assert "broker 2 stopped" in result.expected and "broker 1 was stopped instead" in result.seen


def test_a_victim_still_running_gets_the_stop_command():
    run = FakeRun()
    three_brokers_elected(run)
    result = lesson.leadership_moved_first(run.evidence(**FACTS))
    assert not result.ok and not result.wait
    assert "still running" in result.seen and "cluster stop 2" in result.hint


def test_the_broker_to_stop_leads_partitions_and_is_not_the_controller():
    run = FakeRun()
    three_brokers_elected(run)
    run.span("ReplicaManager.makeLeaders", 0, 600, kafka__partitions=["lesson-0", "lesson-3"])
    run.span("ReplicaManager.makeLeaders", 1, 600, kafka__partitions=["lesson-1"])
    run.span("ReplicaManager.makeLeaders", 2, 600, kafka__partitions=["lesson-2", "lesson-5", "lesson-4"])
    assert lesson.pick_broker_to_stop(run.evidence(controller=2)) == {
        "victim": 0, "victim_led": "lesson-0, lesson-3", "victim_count": 2}
    assert lesson.pick_broker_to_stop(run.evidence(controller=0, alive={0: 100, 1: 101, 2: None})) == {
        "victim": 1, "victim_led": "lesson-1", "victim_count": 1}
