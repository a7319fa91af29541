"""Lesson `metadata-journey`: each check, fed a made-up KRaft run in which the change did not get that far (or went
wrong), says what it expected, what it saw, and what to do; fed the whole journey, it tells it with the run's
numbers, joined by metadata-log offset."""

from __future__ import annotations

from lessons import metadata_journey as lesson
from tests.lessons.helpers import ns
from tests.lessons.kraft_fakes import KraftRun

TOPIC = lesson.TOPIC
BROKERS = [4, 5]
FIRST, LAST = 33, 36


def request(run: KraftRun, *, errors: tuple[str, ...] = ("NONE",), forwarded: bool = True) -> dict:
    """The client's CreateTopics on broker 4, forwarded to controller 3, and controller 3's write event."""
    received = run.span("RequestChannel.Request", 4, 1000, 74, kafka__api__name="CreateTopics",
                        kafka__client__id="rdkafka", kafka__request__total_time_ms=74.0,
                        kafka__request__remote_time_ms=73.0)
    run.span("InterBrokerSendThread.sendRequests", 4, 1001, 72, parent=received, kafka__api__name="CreateTopics",
             kafka__controller__id=3, kafka__response__errors=list(errors))
    if not forwarded:
        return {}
    on_controller = run.span("RequestChannel.Request", 3, 1002, 70, role="controller",
                             kafka__api__name="CreateTopics", kafka__client__id="4")
    run.span("QuorumController.createTopics", 3, 1002.2, 0.1, role="controller", parent=on_controller,
             step="KR.qc", kafka__topics=[TOPIC])
    enqueue = run.span("KafkaEventQueue.enqueue", 3, 1002.3, 0.05, role="controller", parent=on_controller,
                       step="KR.queue", kafka__queue__event="createTopics", kafka__queue__size=2,
                       kafka__queue__deadline__ms=60000.0)
    handled = run.span("KafkaEventQueue.EventHandler.handleEvents", 3, 1002.5, 1.2, role="controller",
                       parent=enqueue, step="KR.queue", kafka__queue__event="createTopics", kafka__queue__time__ms=0.15)
    write = run.span("QuorumController.ControllerWriteEvent.run", 3, 1002.6, 1.1, role="controller", parent=handled,
                     kafka__controller__event="createTopics", kafka__metadata__records=4,
                     kafka__raft__offset__first=FIRST, kafka__raft__offset__last=LAST,
                     kafka__controller__wait__offset=LAST,
                     kafka__metadata__record__types=["TopicRecord", "PartitionRecord x3"])
    return {"broker": 4, "controller": 3, "first_offset": FIRST, "last_offset": LAST, "write_trace": write.trace_id,
            "controller_request": on_controller.trace_id}


def replayed_on_active(run: KraftRun, facts: dict) -> None:
    write = next(s for s in run.spans if s.name == "QuorumController.ControllerWriteEvent.run")
    run.span("QuorumController.replay", 3, 1003, 0.2, role="controller", parent=write, step="KR.replay",
             kafka__raft__offset__first=FIRST, kafka__raft__offset__last=LAST, kafka__controller__role="active",
             kafka__metadata__record__types=["TopicRecord", "PartitionRecord x3"])


def committed(run: KraftRun) -> None:
    offsets = {"kafka__raft__offset__first": FIRST, "kafka__raft__offset__last": LAST}
    run.span("KafkaMetadataLog.appendAsLeader", 3, 1038, 0.2, role="controller", **offsets)
    run.span("KafkaMetadataLog.appendAsFollower", 5, 1043, 0.2, **offsets)
    run.span("KafkaMetadataLog.appendAsFollower", 1, 1054, 0.2, role="controller", **offsets)
    run.fetch_hw(3, 1069, 1, replica=1, voters=[3, 1, 2], offsets=[37, 37, 33], high_watermark=37)
    run.span("QuorumController.QuorumMetaLogListener.handleCommit", 3, 1071, 0.5, role="controller", **offsets)


# -- 1. the request, forwarded ---------------------------------------------------------------------------------------

def test_no_create_topics_on_a_broker_asks_for_the_command():
    result = lesson.request_forwarded(KraftRun().evidence(action_ns=ns(500)))
    assert not result.ok and result.wait and "CreateTopics" in result.expected and result.hint == \
        "run the command above"


def test_a_topic_that_exists_already_fails_at_once_with_the_delete_command():
    run = KraftRun()
    request(run, errors=("TOPIC_ALREADY_EXISTS",), forwarded=False)
    result = lesson.request_forwarded(run.evidence(action_ns=ns(500), bootstrap="b:1"))
    assert not result.ok and not result.wait
    assert "TOPIC_ALREADY_EXISTS" in result.seen and f"topics --delete --topic {TOPIC}" in result.hint


def test_a_request_not_yet_on_the_controller_is_waited_for():
    run = KraftRun()
    request(run, forwarded=False)
    result = lesson.request_forwarded(run.evidence(action_ns=ns(500)))
    assert not result.ok and result.wait and "controller 3's CreateTopics" in result.expected


def test_the_forwarded_request_is_explained_and_its_offsets_handed_on():
    run = KraftRun()
    facts = request(run)
    result = lesson.request_forwarded(run.evidence(action_ns=ns(500)))
    assert result.ok and result.facts == facts
    assert "broker 4" in result.explain and "controller 3" in result.explain and "73 ms of it waiting" in \
        result.explain


# -- 2. the write event ----------------------------------------------------------------------------------------------

def test_a_write_event_without_its_replay_is_waited_for():
    run = KraftRun()
    facts = request(run)
    result = lesson.written_on_the_queue(run.evidence(action_ns=ns(500), **facts))
    assert not result.ok and result.wait and "ControllerWriteEvent.run" in result.seen


def test_the_write_event_is_explained_with_its_queue_and_records():
    run = KraftRun()
    facts = request(run)
    replayed_on_active(run, facts)
    result = lesson.written_on_the_queue(run.evidence(action_ns=ns(500), **facts))
    assert result.ok
    assert "behind\n2 other event(s)" in result.explain and "offsets\n33 to 36" in result.explain
    assert "TopicRecord, PartitionRecord x3" in result.explain and "role `active`" in result.explain


# -- 3. committed ----------------------------------------------------------------------------------------------------

def test_records_not_yet_committed_are_waited_for():
    run = KraftRun()
    facts = request(run)
    run.span("KafkaMetadataLog.appendAsLeader", 3, 1038, 0.2, role="controller", kafka__raft__offset__first=FIRST,
             kafka__raft__offset__last=LAST)
    result = lesson.committed_by_majority(run.evidence(action_ns=ns(500), **facts))
    assert not result.ok and result.wait and "1 append(s), 0 commit(s)" in result.seen


def test_records_appended_to_an_unrelated_offset_do_not_count():
    run = KraftRun()
    facts = request(run)
    run.span("KafkaMetadataLog.appendAsLeader", 3, 1038, 0.2, role="controller", kafka__raft__offset__first=40,
             kafka__raft__offset__last=40)
    result = lesson.committed_by_majority(run.evidence(action_ns=ns(500), **facts))
    assert not result.ok and "0 append(s)" in result.seen


def test_the_commit_is_a_timeline_from_the_write_event():
    run = KraftRun()
    facts = request(run)
    committed(run)
    result = lesson.committed_by_majority(run.evidence(action_ns=ns(500), **facts))
    assert result.ok and result.facts["committed_ns"] == ns(1069.3)
    lines = [line for line in result.explain.splitlines() if line.startswith("| +")]
    assert [line.split("|")[2].strip() for line in lines] == ["controller 3", "broker-5", "controller-1",
                                                              "controller 3", "controller 3", "controller 3"]
    assert "[37, 37, 33]" in result.explain and "**committed**" in result.explain
    text = result.explain.replace("\n", " ")
    assert "controllers 1, 3;" in text and "brokers 5 fetched" in text and "before the commit too" not in text


# -- 4. every node applies it ---------------------------------------------------------------------------------------

def applied(run: KraftRun, brokers: list[int], standbys: list[int]) -> None:
    offsets = {"kafka__raft__offset__first": FIRST, "kafka__raft__offset__last": LAST}
    for n in standbys:
        run.span("QuorumController.replay", n, 1180 + n, 0.3, role="controller", step="KR.replay",
                 kafka__controller__role="standby", kafka__metadata__record__types=["TopicRecord"], **offsets)
    for b in brokers:
        load = run.span("MetadataLoader.handleCommit", b, 1150 + b, 12, step="KR.publish", **offsets)
        publish = run.span("BrokerMetadataPublisher.onMetadataUpdate", b, 1151 + b, 11, parent=load,
                           step="KR.publish", kafka__metadata__topics__created=[TOPIC])
        run.span("ReplicaManager.applyDelta", b, 1152 + b, 10, parent=publish,
                 kafka__partitions__leader=[f"{TOPIC}-{b - 4}"], kafka__partitions__follower=[f"{TOPIC}-2"])


def test_a_broker_that_has_not_applied_the_records_is_named():
    run = KraftRun()
    facts = request(run)
    applied(run, brokers=[4], standbys=[1, 2])
    result = lesson.applied_everywhere(run.evidence(action_ns=ns(500), broker_ids=BROKERS, committed_ns=ns(1070),
                                                    alive={1: 1, 2: 2, 3: 3, 4: 4, 5: 5}, **facts))
    assert not result.ok and result.wait and "broker 5" in result.seen and "controller" not in result.seen


def test_a_stopped_node_is_not_waited_for():
    run = KraftRun()
    facts = request(run)
    applied(run, brokers=[4], standbys=[1, 2])
    result = lesson.applied_everywhere(run.evidence(action_ns=ns(500), broker_ids=BROKERS, committed_ns=ns(1070),
                                                    alive={1: 1, 2: 2, 3: 3, 4: 4, 5: None}, **facts))
    assert result.ok


def test_every_node_applying_the_change_is_tabled():
    run = KraftRun()
    facts = request(run)
    applied(run, brokers=BROKERS, standbys=[1, 2])
    result = lesson.applied_everywhere(run.evidence(action_ns=ns(500), broker_ids=BROKERS, committed_ns=ns(1070),
                                                    alive={1: 1, 2: 2, 3: 3, 4: 4, 5: 5}, **facts))
    assert result.ok
    assert "| controller 1 (standby) | +111 ms | replayed TopicRecord" in result.explain
    assert f"| broker 5 | +85 ms | published: leads {TOPIC}-1, follows {TOPIC}-2" in result.explain


def test_a_forward_retried_to_the_new_leader_is_followed_there():
    run = KraftRun()
    received = run.span("RequestChannel.Request", 4, 1000, 90, kafka__api__name="CreateTopics")
    run.span("InterBrokerSendThread.sendRequests", 4, 1001, 10, parent=received, kafka__api__name="CreateTopics",
             kafka__controller__id=1, kafka__response__errors=["NOT_CONTROLLER"])
    run.span("InterBrokerSendThread.sendRequests", 4, 1020, 60, parent=received, kafka__api__name="CreateTopics",
             kafka__controller__id=3, kafka__response__errors=["NONE"])
    on_controller = run.span("RequestChannel.Request", 3, 1025, 50, role="controller",
                             kafka__api__name="CreateTopics", kafka__client__id="4")
    run.span("QuorumController.ControllerWriteEvent.run", 3, 1026, 1, role="controller", parent=on_controller,
             kafka__raft__offset__first=FIRST, kafka__raft__offset__last=LAST)
    result = lesson.request_forwarded(run.evidence(action_ns=ns(500)))
    assert result.ok and result.facts["controller"] == 3 and result.facts["first_offset"] == FIRST


def test_a_voter_that_had_the_records_before_the_commit_is_explained():
    run = KraftRun()
    facts = request(run)
    committed(run)
    # controller 2 appended too, before the commit, but its Fetch had not told the leader yet
    run.span("KafkaMetadataLog.appendAsFollower", 2, 1060, 0.2, role="controller", kafka__raft__offset__first=FIRST,
             kafka__raft__offset__last=LAST)
    result = lesson.committed_by_majority(run.evidence(action_ns=ns(500), **facts))
    assert result.ok and "Controller 2 had appended them before the commit too" in result.explain
    assert "controllers 1, 2, 3;" in result.explain.replace("\n", " ")
