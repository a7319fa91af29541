"""Lesson `zombie-controller` (our own test code): each check, fed a made-up run in which the thing it looks for did
not happen, says what it expected, what it saw, and what to do; and fed the run it looks for, says it with that run's
numbers."""

from __future__ import annotations

from lessons import zombie_controller as lesson
from tests.lessons.helpers import FakeRun, ns

FACTS = {"controller": 0, "epoch": 1, "broker": 1, "action_ns": ns(1000)}


def took_epoch(run: FakeRun, broker: int, at_ms: float, epoch: int) -> None:
    run.span("ReplicaManager.maybeUpdateMetadataCache", broker, at_ms, kafka__controller__epoch=epoch,
             kafka__controller__id=0)


def runner(run: FakeRun, at_ms: float, name: str = "Runner.partition", cut: int = 1) -> None:
    run.span(name, 0, at_ms, 1, role="runner", kafka__network__cut=cut)


def test_no_controller_yet_waits():
    result = lesson.in_office(FakeRun().evidence())
    assert not result.ok and result.wait and "elect" in result.seen


def test_the_controller_in_office_once_every_broker_heard_its_epoch():
    run = FakeRun()
    run.elect(0, at_ms=10, won=True, controller=0, epoch=1)
    took_epoch(run, 0, 20, 1)
    took_epoch(run, 1, 20, 1)
    result = lesson.in_office(run.evidence())
    assert not result.ok and "[2]" in result.seen
    took_epoch(run, 2, 20, 1)
    result = lesson.in_office(run.evidence())
    assert result.ok and result.facts == {"controller": 0, "epoch": 1, "broker": 1} and "**1**" in result.explain


def test_no_cut_in_step_2_says_to_run_the_commands():
    result = lesson.order_held_up(FakeRun().evidence(**FACTS))
    assert not result.ok and not result.wait and "cut" in result.expected


def test_an_order_that_arrived_means_the_link_was_not_cut():
    run = FakeRun()
    runner(run, 1100)
    result = lesson.order_held_up(run.evidence(**FACTS))
    assert not result.ok and result.wait and "LeaderAndIsr" in result.expected
    run.span("ControllerChannelManager.sendRequest", 0, 1200, step="CT.channel", kafka__destination__broker__id=1,
             kafka__api__name="LeaderAndIsr")
    run.span("ReplicaManager.becomeLeaderOrFollower", 1, 1250, kafka__partitions=[f"{lesson.TOPIC}-0"])
    result = lesson.order_held_up(run.evidence(**FACTS))
    assert not result.ok and not result.wait and "not cut" in result.seen


def test_the_held_up_order_names_its_cut():
    run = FakeRun()
    runner(run, 1100, cut=4)
    run.span("ControllerChannelManager.sendRequest", 0, 1200, step="CT.channel", kafka__destination__broker__id=1,
             kafka__api__name="LeaderAndIsr")
    result = lesson.order_held_up(run.evidence(**FACTS))
    assert result.ok and result.facts["link_cut"] == 4 and "cut 4" in result.explain


def test_a_zombie_needs_a_newer_controller_and_no_resignation():
    facts = {**FACTS, "action_ns": ns(2000)}
    assert not lesson.zombie(FakeRun().evidence(**facts)).wait
    run = FakeRun()
    runner(run, 2100, cut=2)
    result = lesson.zombie(run.evidence(**facts))
    assert not result.ok and result.wait and "epoch 2" in result.expected and "session" in result.hint
    run.elect(2, at_ms=5200, won=True, controller=2, epoch=2)
    took_epoch(run, 1, 5300, 2)
    run.span("KafkaController.onControllerResignation", 0, 5400, step="CT.resign", kafka__controller__epoch=1)
    result = lesson.zombie(run.evidence(**facts))
    assert not result.ok and not result.wait and "resigned" in result.seen


def test_the_zombie_explained():
    facts = {**FACTS, "action_ns": ns(2000)}
    run = FakeRun()
    runner(run, 2100, cut=2)
    run.elect(2, at_ms=5200, won=True, controller=2, epoch=2)
    took_epoch(run, 1, 5300, 2)
    result = lesson.zombie(run.evidence(**facts))
    assert result.ok and result.facts["new_controller"] == 2 and result.facts["new_epoch"] == 2
    assert "epoch 2" in result.explain and "has not resigned" in result.explain


def test_no_refusal_yet_waits_for_the_resend():
    facts = {**FACTS, "new_epoch": 2, "action_ns": ns(9000)}
    assert not lesson.fenced(FakeRun().evidence(**facts)).wait
    run = FakeRun()
    runner(run, 9100, "Runner.heal")
    result = lesson.fenced(run.evidence(**facts))
    assert not result.ok and result.wait and "controller.socket.timeout.ms" in result.hint


def test_the_refusal_is_quoted_with_both_epochs():
    facts = {**FACTS, "new_epoch": 2, "action_ns": ns(9000)}
    run = FakeRun()
    runner(run, 9100, "Runner.heal")
    run.span("ReplicaManager.becomeLeaderOrFollower", 1, 9500, events=[
        ("controller.epoch.stale", {"kafka.api.name": "LeaderAndIsr", "kafka.controller.id": 0,
                                    "kafka.controller.epoch": 1, "kafka.controller.epoch.latest": 2})])
    result = lesson.fenced(run.evidence(**facts))
    assert result.ok and "LeaderAndIsr" in result.explain and "seen, 2" in result.explain


def test_heal_waits_for_the_resignation_then_the_new_epoch():
    facts = {**FACTS, "new_controller": 2, "new_epoch": 2, "zk_cut_ns": ns(2100), "elected_ns": ns(5200),
             "action_ns": ns(12000)}
    run = FakeRun()
    runner(run, 12100, "Runner.heal")
    result = lesson.resigned_and_rejoined(run.evidence(**facts))
    assert not result.ok and "resign" in result.expected
    run.span("KafkaController.onControllerResignation", 0, 13000, step="CT.resign", kafka__controller__epoch=1)
    result = lesson.resigned_and_rejoined(run.evidence(**facts))
    assert not result.ok and "epoch 2" in result.expected
    run.elect(0, at_ms=13100, won=False, controller=2, event="Reelect")
    took_epoch(run, 0, 13500, 2)
    result = lesson.resigned_and_rejoined(run.evidence(**facts))
    assert result.ok and "lost to broker 2" in result.explain and "for 10.90 s before" in result.explain
    assert "for 7.80 s of that" in result.explain and "at epoch 1)" in result.explain
