"""Lesson `zk-or-kraft`: each check, fed made-up runs of both clusters (a ZooKeeper-mode one in `Evidence.runs["zk"]`,
the KRaft one as the lesson's own) in which the experiment went wrong or is not over, says what it expected, what it
saw, and what to do; fed a complete round, it compares the two failovers with the runs' numbers."""

from __future__ import annotations

from kafka_edu.lessons import ProcessExit
from kafka_edu.tracing.query import Spans
from lessons import controller as zk_lesson
from lessons import zk_or_kraft as lesson
from tests.lessons.helpers import FakeRun, died, ns
from tests.lessons.kraft_fakes import KraftRun

TOPIC, PARTITIONS = lesson.TOPIC, lesson.PARTITIONS
ALL_FAILOVER = zk_lesson.FAILOVER_STEPS
ZK_FACTS = {"zk_run_dir": "/tmp/zk", "zk_broker_ids": [0, 1], "zk_session_timeout_s": 6.0}
READY = {**ZK_FACTS, "zk_controller": 0, "zk_epoch": 1, "kraft_leader": 1, "kraft_epoch": 1, "topic_first": 20,
         "topic_last": 40, "broker_ids": [4, 5]}


def zk_cluster(led: int = PARTITIONS) -> FakeRun:
    zk = FakeRun()
    zk.elect(0, at_ms=100, won=True, controller=0, epoch=1, failover=ALL_FAILOVER)
    zk.elect(1, at_ms=101, won=False, controller=0)
    for p in range(led):
        zk.span("ReplicaManager.makeLeaders", p % 2, 3000 + p, 1, kafka__partitions=[f"{TOPIC}-{p}"])
    return zk


def kraft_cluster() -> KraftRun:
    run = KraftRun()
    run.election(1, 1, at_ms=1500)
    run.span("QuorumController.ControllerWriteEvent.run", 1, 3500, 2, role="controller",
             kafka__controller__event="createTopics", kafka__metadata__records=21, kafka__raft__offset__first=20,
             kafka__raft__offset__last=40, kafka__metadata__record__types=["TopicRecord", "PartitionRecord x20"])
    for n in (2, 3):
        run.span("QuorumController.replay", n, 3600 + n, 1, role="controller", kafka__controller__role="standby",
                 kafka__raft__offset__first=20, kafka__raft__offset__last=40)
    for b in (4, 5):
        run.span("BrokerMetadataPublisher.onMetadataUpdate", b, 3700 + b, 2, kafka__metadata__topics__created=[TOPIC])
    return run


def evidence(run: KraftRun, zk: FakeRun | None, exits: list[ProcessExit] = (), **facts):
    ev = run.evidence(exits=list(exits), **{"broker_ids": [4, 5], **facts})
    if zk is not None:
        ev.runs["zk"] = Spans(zk.spans)
    return ev


# -- 1. both clusters ready ----------------------------------------------------------------------------------------

def test_without_the_zookeeper_cluster_the_lesson_must_start_again():
    result = lesson.both_ready(evidence(kraft_cluster(), None, **ZK_FACTS))
    assert not result.ok and not result.wait and "run the lesson again" in result.hint


def test_a_topic_not_yet_led_everywhere_is_waited_for():
    result = lesson.both_ready(evidence(kraft_cluster(), zk_cluster(led=7), **ZK_FACTS))
    assert not result.ok and result.wait and f"7 of {PARTITIONS} ZooKeeper-mode partitions led" in result.seen


def test_both_clusters_ready_name_their_controllers_and_where_the_topic_lives():
    result = lesson.both_ready(evidence(kraft_cluster(), zk_cluster(), **ZK_FACTS))
    assert result.ok
    assert result.facts == {"zk_controller": 0, "zk_epoch": 1, "kraft_leader": 1, "kraft_epoch": 1,
                            "topic_first": 20, "topic_last": 40}
    assert "broker 0 holds `/controller`" in result.explain and "offsets 20-40" in result.explain
    assert "Broker(s) 1 keep" in result.explain and "controller 2: " in result.explain


# -- 2. both controllers killed -------------------------------------------------------------------------------------

def killed_zk(broker: int, at_ms: float) -> ProcessExit:
    return ProcessExit(broker, 100 + broker, ns(at_ms), run="zk")


def failed_over(run: KraftRun, zk: FakeRun, failover: list[str] = ALL_FAILOVER) -> None:
    zk.elect(1, at_ms=11_000, won=True, controller=1, epoch=2, event="Reelect", failover=failover)
    run.span("KafkaRaftClient.pollFollower", 2, 6800, 1, role="controller")
    run.election(2, 2, at_ms=6810, frm="Follower", name="KafkaRaftClient.pollFollower", voters=(2, 3))


def test_nothing_killed_gives_both_commands():
    result = lesson.both_failed_over(evidence(kraft_cluster(), zk_cluster(), action_ns=ns(4000), **READY))
    assert not result.ok and not result.wait
    assert "still running: broker 0 and controller 1" in result.seen
    assert "cluster kill 0 --run /tmp/zk" in result.hint and "cluster kill 1 --run /tmp/run" in result.hint


def test_one_kill_missing_names_it():
    result = lesson.both_failed_over(evidence(kraft_cluster(), zk_cluster(), [died(1, 4800)], action_ns=ns(4000),
                                              **READY))
    assert not result.ok and not result.wait and "still running: broker 0" in result.seen
    assert "cluster kill 0 --run /tmp/zk" in result.hint and "cluster kill 1" not in result.hint


def test_killing_another_node_spoils_the_comparison():
    exits = [killed_zk(1, 4800), died(1, 4801)]
    result = lesson.both_failed_over(evidence(kraft_cluster(), zk_cluster(), exits, action_ns=ns(4000), **READY))
    assert not result.ok and not result.wait and "ZooKeeper-mode broker 1 killed instead" in result.seen


def test_a_zookeeper_session_not_yet_expired_is_waited_for():
    run, zk = kraft_cluster(), zk_cluster()
    run.span("KafkaRaftClient.pollFollower", 2, 6800, 1, role="controller")
    run.election(2, 2, at_ms=6810, frm="Follower", name="KafkaRaftClient.pollFollower", voters=(2, 3))
    exits = [killed_zk(0, 4800), died(1, 4801)]
    result = lesson.both_failed_over(evidence(run, zk, exits, action_ns=ns(4000), **READY))
    assert not result.ok and result.wait
    assert "ZooKeeper mode: not yet; KRaft: done" in result.seen and "session.timeout" in result.hint


def test_both_failovers_are_compared():
    run, zk = kraft_cluster(), zk_cluster()
    failed_over(run, zk)
    exits = [killed_zk(0, 4800), died(1, 4801)]
    ev = evidence(run, zk, exits, action_ns=ns(4000), **READY)
    result = lesson.both_failed_over(ev)
    assert result.ok
    assert result.facts["kraft_failover_s"] == 2.05 and result.facts["zk_failover_s"] == 6.22
    assert result.facts["zk_new"] == 1 and result.facts["kraft_new"] == 2
    assert "KRaft had a working controller first" in result.explain and "the vote split" not in result.explain
    assert "| working | **+6.22 s**" in result.explain and "**+2.05 s**" in result.explain
    ev.facts.update(result.facts)
    assert lesson.faster_cluster(ev) == "b"


# -- 3. what each had to load ---------------------------------------------------------------------------------------

WITHOUT_CONTEXT = [step for step in ALL_FAILOVER if step != "CT.failover.05"]


def test_what_each_new_controller_loaded_is_compared():
    run, zk = kraft_cluster(), zk_cluster()
    failed_over(run, zk, WITHOUT_CONTEXT)
    elect = [s for s in zk.spans if s.name == "KafkaController.elect" and s.attributes.get("kafka.controller.epoch")
             == 2][0]
    zk.span("KafkaController.initializeControllerContext", 1, 11_003, 22, step="CT.failover.05", trace=elect.trace_id,
            kafka__brokers__live=[1], kafka__topics=[TOPIC], kafka__partitions=PARTITIONS,
            kafka__partitions__with_leader_and_isr=PARTITIONS)
    facts = {**READY, "zk_new": 1, "zk_new_trace": elect.trace_id, "kraft_new": 2, "kraft_killed_ns": ns(4801),
             "kraft_failover_s": 2.05, "zk_failover_s": 6.25}
    result = lesson.what_was_loaded(evidence(run, zk, **facts))
    assert result.ok
    assert f"{PARTITIONS} partition assignments" in result.explain and "22 ms" in result.explain
    assert "replayed every committed batch, up to offset 40 (1 of them" in result.explain.replace("\n", " ")
    assert "2.05 s against 6.25 s" in result.explain


def test_a_zookeeper_failover_without_its_context_step_is_reported():
    run, zk = kraft_cluster(), zk_cluster()
    failed_over(run, zk, WITHOUT_CONTEXT)
    elect = [s for s in zk.spans if s.name == "KafkaController.elect" and s.attributes.get("kafka.controller.epoch")
             == 2][0]
    facts = {**READY, "zk_new": 1, "zk_new_trace": elect.trace_id, "kraft_new": 2, "kraft_killed_ns": ns(4801)}
    result = lesson.what_was_loaded(evidence(run, zk, **facts))
    assert not result.ok and not result.wait and "CT.failover.05" in result.hint


def test_the_kill_names_each_cluster_s_controller_as_the_traces_show_it_now():
    run, zk = kraft_cluster(), zk_cluster()
    assert lesson.current_controllers(evidence(run, zk)) == {"zk_controller": 0, "zk_epoch": 1, "kraft_leader": 1,
                                                            "kraft_epoch": 1}
    run.election(3, 2, at_ms=9000, frm="Follower", name="KafkaRaftClient.pollFollower")
    assert lesson.current_controllers(evidence(run, zk))["kraft_leader"] == 3
    assert lesson.current_controllers(evidence(run, None)) is None


def test_a_split_kraft_vote_is_said():
    run, zk = kraft_cluster(), zk_cluster()
    zk.elect(1, at_ms=11_000, won=True, controller=1, epoch=2, event="Reelect", failover=ALL_FAILOVER)
    for node in (2, 3):
        run.role(node, 6800, "Candidate", 2, frm="Follower", name="KafkaRaftClient.pollFollower", voted=node)
    run.election(3, 3, at_ms=8000, frm="Candidate", name="KafkaRaftClient.pollCandidate", voters=(2, 3))
    result = lesson.both_failed_over(evidence(run, zk, [killed_zk(0, 4800), died(1, 4801)], action_ns=ns(4000),
                                              **READY))
    assert result.ok and "the vote split" in result.explain and result.facts["kraft_new"] == 3
