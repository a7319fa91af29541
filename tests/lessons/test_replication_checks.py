"""Lesson `replication`: each check, fed a made-up run in which the thing it looks for did not happen, says what it
expected, what it saw, and what to do."""

from __future__ import annotations

from lessons import replication as lesson
from tests.lessons.helpers import FakeRun, ns, paused

FACTS = {"partition": 2, "leader": 0, "follower": 1, "controller": 2, "action_ns": ns(1000)}


def created(run: FakeRun, assignment: dict[int, list[int]]) -> None:
    """The controller's TopicChange for the topic and the replica and partition state changes it caused."""
    run.elect(2, at_ms=10, won=True, controller=2, epoch=1)
    change = run.span("KafkaController.TopicChange.process", 2, 100, 20, step="CT.topic",
                      kafka__topics__new=[lesson.TOPIC])
    run.span("ReplicaStateMachine.handleStateChanges", 2, 105, links=[change], events=[
        ("replica.state.change", {"kafka.topic": lesson.TOPIC, "kafka.partition": p, "kafka.replica": r,
                                  "to": "NewReplica"}) for p, rs in assignment.items() for r in rs])
    run.span("PartitionStateMachine.handleStateChanges", 2, 110, links=[change], events=[
        ("partition.state.change", {"kafka.topic": lesson.TOPIC, "kafka.partition": p, "to": "OnlinePartition",
                                    "kafka.leader": rs[0]}) for p, rs in assignment.items()])


def isr_change(run: FakeRun, at_ms: float, before: list[int], after: list[int], partition: int = 2) -> None:
    run.span("Partition.updateIsr", 0, at_ms, 2, kafka__topic=lesson.TOPIC, kafka__partition=partition,
             events=[("isr.change", {"kafka.isr.from": before, "kafka.isr.to": after})])


def test_no_topic_gets_the_create_command():
    result = lesson.replicas_known(FakeRun().evidence())
    assert not result.ok and "TopicChange" in result.expected and "run the command above" in result.hint


def test_a_topic_of_the_wrong_shape_must_be_made_again():
    run = FakeRun()
    created(run, {0: [1], 1: [2], 2: [0]})
    result = lesson.replicas_known(run.evidence())
    assert not result.ok and not result.wait and "2 replicas each" in result.expected and "--delete" in result.hint


def test_the_partition_chosen_leaves_out_the_controller():
    run = FakeRun()
    created(run, {0: [1, 2], 1: [2, 0], 2: [0, 1]})
    result = lesson.replicas_known(run.evidence())
    assert result.ok and result.facts == {"partition": 2, "leader": 0, "follower": 1, "controller": 2}


def test_an_acks_1_produce_is_not_what_step_2_asks_for():
    run = FakeRun()
    root = run.span("RequestChannel.Request", 0, 1100, 5, kafka__api__name="Produce")
    run.span("KafkaApis.handleProduceRequest", 0, 1101, 3, step="NW.apis.produce", parent=root, kafka__produce__acks=1)
    run.span("Log.append", 0, 1102, 1, step="NW.log.append", parent=root, kafka__topic=lesson.TOPIC,
             kafka__partition=2, kafka__offset__first=0, kafka__offset__last=0)
    result = lesson.acks_all_waited(run.evidence(**FACTS))
    assert not result.ok and not result.wait and "acks=1" in result.seen and "acks=all" in result.hint


def test_pausing_the_wrong_broker_is_named():
    result = lesson.follower_dropped(FakeRun().evidence(pauses=[paused(2, 1500)], **FACTS))
    assert not result.ok and not result.wait
    assert "broker 2 was paused instead" in result.seen and "cluster resume 2" in result.hint
    assert "cluster pause 1" in result.hint


def test_no_pause_gets_the_pause_command():
    result = lesson.follower_dropped(FakeRun().evidence(**FACTS))
    assert not result.ok and not result.wait and "cluster pause 1" in result.hint


def test_a_paused_follower_is_waited_for_until_the_leader_shrinks_the_isr():
    run = FakeRun()
    result = lesson.follower_dropped(run.evidence(pauses=[paused(1, 1500)], **FACTS))
    assert not result.ok and result.wait and "replica.lag.time.max.ms" in result.hint
    isr_change(run, 5000, [0, 1], [0])
    result = lesson.follower_dropped(run.evidence(pauses=[paused(1, 1500)], **FACTS))
    assert result.ok and "3.50 s later" in result.explain and result.facts["shrunk_at_ns"] == ns(5000)


def test_an_acks_all_write_that_went_through_means_the_isr_was_whole_again():
    run = FakeRun()
    root = run.span("RequestChannel.Request", 0, 1100, 5, kafka__api__name="Produce")
    run.span("KafkaApis.handleProduceRequest", 0, 1101, 3, step="NW.apis.produce", parent=root,
             kafka__produce__acks=-1)
    run.span("Log.append", 0, 1102, 1, step="NW.log.append", parent=root, kafka__topic=lesson.TOPIC,
             kafka__partition=2, kafka__offset__first=3, kafka__offset__last=3)
    result = lesson.acks_all_refused(run.evidence(**FACTS))
    assert not result.ok and not result.wait
    assert "refused" in result.expected and "two replicas again" in result.seen and "cluster pause 1" in result.hint


def test_nothing_produced_yet_gets_both_commands():
    result = lesson.acks_all_refused(FakeRun().evidence(**FACTS))
    assert not result.ok and "0 refused, 0 written" in result.seen and "meant to fail" in result.hint


def test_a_follower_still_frozen_gets_the_resume_command():
    result = lesson.follower_back(FakeRun().evidence(pauses=[paused(1, 500)], **FACTS))
    assert not result.ok and not result.wait and "still frozen" in result.seen and "cluster resume 1" in result.hint


def test_a_resumed_follower_is_waited_for_until_it_is_back_in_the_isr():
    run = FakeRun()
    isr_change(run, 500, [0, 1], [0])
    pauses = [paused(1, 100), paused(1, 1200, resumed=True)]
    result = lesson.follower_back(run.evidence(pauses=pauses, **FACTS))
    assert not result.ok and result.wait and "high watermark" in result.hint
    isr_change(run, 1190, [0], [0, 1])  # before the lesson's watch saw the resume: it looks every 50 ms
    result = lesson.follower_back(run.evidence(pauses=pauses, shrunk_at_ns=ns(500), **FACTS))
    assert result.ok and "had even seen it continue" in result.explain and "out of the ISR for 690 ms" in result.explain
