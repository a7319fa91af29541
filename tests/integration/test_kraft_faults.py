"""KRaft part 2, faults on real processes (three controllers, two brokers; Kafka 3.9's behaviour):

1. a topic created through a broker is served only once committed: with both standby controllers paused, the
   active one appends the TopicRecord but cannot commit it (and resigns when check-quorum runs out); no broker's
   Metadata names the topic until the standbys are resumed, and each broker publishes it only below the high
   watermark it was told;
2. a broker killed with -9 is fenced after broker.session.timeout.ms, in one event that also moves its leaderships,
   and the new leader serves produce (acks=all) and fetch;
3. a SIGTERM shuts a broker down in order: heartbeats asking to shut down, its leaderships moved, the controller's
   permission, then its logs closed; no partition is leaderless while it is still up;
4. a broker paused for longer than its session wakes up fenced, is unfenced by its next heartbeat (same broker
   epoch: no new registration) and joins the ISRs again.

The tests share one cluster (bringing one up costs more than the test): before each, every node is running again
(resumed, or restarted after a kill or a stop), and each test has a topic of its own and reads only the spans and
metadata records written since it began.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import Spans, read_span_file_from
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until
from tests.integration.test_kraft_brokers import metadata_records, of_type

SESSION_TIMEOUT_MS = 4000
HEARTBEAT_INTERVAL_MS = 1000
OVERRIDES = [f"broker.session.timeout.ms={SESSION_TIMEOUT_MS}", f"broker.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}",
             "default.replication.factor=2"]
BROKERS = (4, 5)
CONTROLLERS = (1, 2, 3)
PARTITIONS = 4
Records = list[tuple[int, int, dict[str, Any]]]  # (offset, CreateTime ms, record), as metadata_records gives them


@pytest.fixture(scope="module")
def shared_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path_factory.mktemp("kraft-faults") / "traces", mode="kraft", controllers=3,
                              timeout_s=90, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        for entry in runner.run.read_manifest()["processes"]:  # a stopped process would not hear SIGTERM
            if entry.get("state") == "paused":
                runner.resume(entry["id"])
        runner.down()


@pytest.fixture
def cluster(shared_cluster: ClusterRunner) -> ClusterRunner:
    """The shared cluster whole again, whatever the last test left: paused nodes resumed, dead ones restarted, one
    quorum, both brokers RUNNING."""
    runner = shared_cluster
    for entry in runner.run.read_manifest()["processes"]:
        if entry["role"] not in ("broker", "controller"):
            continue
        if entry.get("state") == "paused":
            runner.resume(entry["id"])
        elif not process_alive(entry["pid"]):
            runner.start(entry["id"])
    runner.wait_for_quorum(60)
    for broker_id in BROKERS:
        runner.wait_for_state(broker_id, "RUNNING", 90)
    return runner


class NewSpans:
    """The spans the run's processes write from now on: each span file is read from where it ended when this was
    made. A span is written when it ends, possibly after what it did shows to a client: `once` waits for it."""

    def __init__(self, runner: ClusterRunner) -> None:
        self.run_dir = runner.run.path
        self.marks = {p.name: p.stat().st_size for p in self.run_dir.glob("*.jsonl")}

    def load(self) -> Spans:
        spans = []
        for path in sorted(self.run_dir.glob("*.jsonl")):
            if not path.name.endswith(".starts.jsonl"):
                spans += read_span_file_from(path, self.marks.get(path.name, 0))[1]
        return Spans(spans)

    def once(self, condition: Callable[[Spans], object], what: str, timeout_s: float = 30) -> Spans:
        def loaded() -> Spans | None:
            spans = self.load()
            return spans if condition(spans) else None
        return wait_until(loaded, timeout_s, what)


def log_end(runner: ClusterRunner, controller: int) -> int:
    """The offset the controller's metadata log will give its next record."""
    return metadata_records(runner, controller)[-1][0] + 1


def records_from(runner: ClusterRunner, controller: int, offset: int) -> Records:
    """The metadata records of a controller's log from this offset on. (Not by CreateTime: a record batch has the
    time it was started, and records appended while it waits for the Raft thread join it.)"""
    return [r for r in metadata_records(runner, controller) if r[0] >= offset]


# -- talking to a broker -------------------------------------------------------------------------------------------

def partitions(port: int, topic: str) -> dict[int, tuple[int, tuple[int, ...]]] | None:
    """{partition: (leader, isr)} as this broker's Metadata answers it, or None while it does not know the topic."""
    [found] = request_to(port, ApiKeys.METADATA, 9, topics=[dict(name=topic)], allow_auto_topic_creation=False,
                   include_cluster_authorized_operations=False, include_topic_authorized_operations=False).topics
    if found.error_code != Errors.NONE:
        return None
    return {int(p.partition_index): (int(p.leader_id), tuple(sorted(int(r) for r in p.isr_nodes)))
            for p in found.partitions}


def create_topic(port: int, topic: str, timeout_s: float = 30) -> Any:
    response = request_to(port, ApiKeys.CREATE_TOPICS, 4, timeout_s=timeout_s, timeout=int(timeout_s * 1000),
                    validate_only=False, topics=[dict(name=topic, num_partitions=PARTITIONS, replication_factor=2,
                                                      assignments=[], configs=[])])
    [result] = response.topics
    return result


def fully_replicated(runner: ClusterRunner, topic: str) -> dict[int, tuple[int, tuple[int, ...]]]:
    """A new topic, once both brokers serve it with every partition led and both brokers in every ISR."""
    assert create_topic(runner.entry(4)["port"], topic).error_code == Errors.NONE

    def replicated() -> dict[int, tuple[int, tuple[int, ...]]] | None:
        seen = [partitions(runner.entry(b)["port"], topic) for b in BROKERS]
        if seen[0] and seen[0] == seen[1] and len(seen[0]) == PARTITIONS and all(
                leader in BROKERS and isr == BROKERS for leader, isr in seen[0].values()):
            return seen[0]
        return None
    return wait_until(replicated, 60, f"{topic} served by both brokers, every ISR full")


def led_by(port: int, topic: str) -> dict[int, int]:
    return {p: leader for p, (leader, _) in (partitions(port, topic) or {}).items()}


def kcat(bootstrap: str, *args: str, payload: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["kcat", "-b", bootstrap, *args], input=payload, capture_output=True, text=True,
                          timeout=120)


def produce(bootstrap: str, topic: str, keys: range) -> None:
    done = kcat(bootstrap, "-P", "-t", topic, "-K:", "-X", "topic.request.required.acks=-1",
                payload="".join(f"k{i}:v{i}\n" for i in keys))
    assert done.returncode == 0, done.stderr


def consume(bootstrap: str, topic: str) -> list[str]:
    done = kcat(bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-K:")
    assert done.returncode == 0, done.stderr
    return sorted(done.stdout.split())


# -- reading the traces --------------------------------------------------------------------------------------------

def publishes_of(spans: Spans, broker_id: int, topic: str) -> list[Any]:
    """The broker's BrokerMetadataPublisher.onMetadataUpdate spans that created the topic."""
    return [s for s in spans.where(name="BrokerMetadataPublisher.onMetadataUpdate", instance=f"broker-{broker_id}")
            if topic in s.attributes.get("kafka.metadata.topics.created", [])]


def writes(spans: Spans, controller: int, record_type: str, event: str | None = None) -> list[Any]:
    """The controller's write events (of this name, if given) that appended a record of this type."""
    events = spans.where(name="QuorumController.ControllerWriteEvent.run", instance=f"controller-{controller}")
    return [s for s in events
            if (event is None or s.attributes["kafka.controller.event"] == event) and any(
                t.split(" x")[0] == record_type for t in s.attributes.get("kafka.metadata.record.types", []))]


def role_changes(spans: Spans, controller: int) -> list[tuple[int, str, int]]:
    """(time, role, epoch) of each raft.role.change on this controller."""
    return sorted((e.time_ns, e.attributes["kafka.raft.role.to"], e.attributes["kafka.raft.epoch"])
                  for s in spans.where(instance=f"controller-{controller}") for e in s.events
                  if e.name == "raft.role.change")


def topic_id_of(records: Records, topic: str) -> str:
    [(_, _, topic_record)] = of_type(records, "TOPIC_RECORD", name=topic)
    return topic_record["topicId"]


def leaders_after_each_change(records: Records, topic_id: str) -> list[dict[int, int]]:
    """{partition: leader} after each Partition/PartitionChange record of the topic, in log order."""
    leaders: dict[int, int] = {}
    states = []
    for _, _, record in records:
        data = record["data"]
        if record["type"] in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD") and data.get("topicId") == topic_id:
            if data.get("leader", -2) != -2:  # -2: a change that leaves the leader alone
                leaders[data["partitionId"]] = data["leader"]
            states.append(dict(leaders))
    return states


# -- 1. commit before publish --------------------------------------------------------------------------------------

def test_a_topic_is_published_to_brokers_only_once_committed_by_a_majority(cluster: ClusterRunner) -> None:
    runner, topic = cluster, "paused-quorum"
    ports = {b: runner.entry(b)["port"] for b in BROKERS}
    leader = runner.wait_for_quorum(30)
    standbys = [c for c in CONTROLLERS if c != leader]
    new_spans = NewSpans(runner)

    # The active controller loses its majority: both standbys stop.
    paused_at_ns = time.time_ns()
    for c in standbys:
        runner.pause(c)

    # CreateTopics through broker 4 goes on to the active controller, which appends and replays the records but
    # cannot commit them. The request waits in a thread of its own.
    answer: dict[str, Any] = {}

    def create() -> None:
        try:
            answer["result"] = create_topic(ports[4], topic, timeout_s=90)
        except Exception as e:  # the test asserts on it below
            answer["error"] = e
    creator = threading.Thread(target=create, daemon=True)
    creator.start()

    spans = new_spans.once(lambda run: writes(run, leader, "TopicRecord"),
                           f"controller {leader} to append the TopicRecord")
    [write] = writes(spans, leader, "TopicRecord")
    topic_offset = write.attributes["kafka.raft.offset.first"]

    # Check-quorum: with no Fetch from a majority the leader resigns. Until then, and after, nothing published.
    def resigned(run: Spans) -> bool:
        for port in ports.values():
            assert partitions(port, topic) is None, "a broker serves a topic that is not committed"
        return any(role == "Resigned" for _, role, _ in role_changes(run, leader))
    spans = new_spans.once(resigned, f"controller {leader} to resign without a majority")

    # The brokers fetched the records (a leader serves its log past the high watermark to every fetcher), but
    # their high watermark stayed at or below the TopicRecord: in their logs, not committed, not published.
    for broker_id in BROKERS:
        assert not publishes_of(spans, broker_id, topic)
        fetched = [s for s in spans.where(name="KafkaRaftClient.handleFetchResponse", instance=f"broker-{broker_id}")
                   if s.start_ns > paused_at_ns and "kafka.raft.high_watermark" in s.attributes]
        assert any(s.attributes["kafka.raft.log_end_offset"] > topic_offset for s in fetched)
        assert all(s.attributes["kafka.raft.high_watermark"] <= topic_offset for s in fetched)
    for port in ports.values():
        assert partitions(port, topic) is None

    # The majority is back: an election, the records committed, and both brokers serve the topic.
    resumed_at_ns = time.time_ns()
    for c in standbys:
        runner.resume(c)
    new_leader = runner.wait_for_quorum(60)
    for port in ports.values():
        wait_until(lambda p=port: partitions(p, topic), 60, f"broker on port {port} to serve {topic}")
    creator.join(120)
    assert not creator.is_alive()
    # The forwarded request outlives the resignation (NOT_CONTROLLER is retried on the next active controller):
    # it created the topic, or finds the one its first attempt wrote committed by now.
    assert "error" not in answer, answer
    assert answer["result"].error_code in (Errors.NONE, Errors.TOPIC_ALREADY_EXISTS), answer

    # Each broker published the topic once, after the resume, from an image at an offset below the high watermark
    # its Raft client had by then.
    spans = new_spans.once(lambda run: all(publishes_of(run, b, topic) for b in BROKERS), "both brokers' publishes")
    [(committed_offset, _, _)] = of_type(metadata_records(runner, new_leader), "TOPIC_RECORD", name=topic)
    if committed_offset != topic_offset:
        # The resumed voters elected one of them, whose log lacked the old leader's uncommitted suffix: every log
        # holding it (the brokers' too) was truncated back, and the retried request created the topic anew.
        for broker_id in BROKERS:
            truncations = spans.where(name="ReplicatedLog.truncateToEndOffset", instance=f"broker-{broker_id}")
            assert any(s.start_ns > resumed_at_ns and s.attributes["kafka.raft.truncation_offset"] <= topic_offset
                       for s in truncations)
    for broker_id in BROKERS:
        [publish] = publishes_of(spans, broker_id, topic)
        assert publish.start_ns > resumed_at_ns
        image_offset = publish.attributes["kafka.metadata.image.offset"]
        assert image_offset >= committed_offset
        told = [s.attributes["kafka.raft.high_watermark"]
                for s in spans.where(name="KafkaRaftClient.handleFetchResponse", instance=f"broker-{broker_id}")
                if s.end_ns <= publish.start_ns and "kafka.raft.high_watermark" in s.attributes]
        assert told and image_offset < max(told), (image_offset, told)


# -- 2. kill -9 of a broker that leads partitions ------------------------------------------------------------------

def test_a_killed_broker_is_fenced_after_its_session_and_its_leaderships_move(cluster: ClusterRunner) -> None:
    runner, topic = cluster, "killed-leader"
    ports = {b: runner.entry(b)["port"] for b in BROKERS}
    before = fully_replicated(runner, topic)
    led_by_5 = sorted(p for p, (leader, _) in before.items() if leader == 5)
    assert led_by_5 and len(led_by_5) < PARTITIONS  # striped placement: each broker leads some
    produce(runner.run.read_manifest()["bootstrap_servers"], topic, range(40))

    leader = runner.wait_for_quorum(30)
    [*_, (_, _, registration)] = of_type(metadata_records(runner, leader), "REGISTER_BROKER_RECORD", brokerId=5)
    start = log_end(runner, leader)
    new_spans = NewSpans(runner)
    killed_at_ns = time.time_ns()
    runner.kill(5)

    # Fenced once its session ran out ...
    def fenced() -> Records:
        return of_type(records_from(runner, leader, start), "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=5,
                       brokerEpoch=registration["brokerEpoch"], fenced=1)
    [(fence_offset, _, _)] = wait_until(fenced, SESSION_TIMEOUT_MS / 1000 + 30, "broker 5 fenced")

    # ... by the deferred fencing event (KR.fence), a whole session after the controller last heard from it by its own
    # clock (a busy broker's last heartbeat may leave late, so the kill is no clock for it), whose one batch also
    # takes broker 5 out of every ISR and gives its leaderships to broker 4.
    def fencing(run: Spans) -> list[Any]:
        return [s for s in run.where(name="QuorumController.rescheduleMaybeFenceStaleBrokers",
                                     instance=f"controller-{leader}") if s.attributes.get("kafka.broker.id") == 5]
    spans = new_spans.once(lambda run: fencing(run) and writes(run, leader, "BrokerRegistrationChangeRecord",
                                                               "maybeFenceReplicas"), "the fencing event's spans")
    [fence] = fencing(spans)
    assert fence.attributes["kafka.broker.silent.ms"] >= SESSION_TIMEOUT_MS
    assert fence.start_ns > killed_at_ns
    [batch] = writes(spans, leader, "BrokerRegistrationChangeRecord", "maybeFenceReplicas")
    first, last = batch.attributes["kafka.raft.offset.first"], batch.attributes["kafka.raft.offset.last"]
    assert first < fence_offset <= last
    records = metadata_records(runner, leader)
    in_batch = [r for r in records if first <= r[0] <= last]
    assert fence.attributes["kafka.partitions.changed"] == len(of_type(in_batch, "PARTITION_CHANGE_RECORD"))
    changes = {data["partitionId"]: data for _, _, data in
               of_type(in_batch, "PARTITION_CHANGE_RECORD", topicId=topic_id_of(records, topic))}
    assert sorted(changes) == list(range(PARTITIONS))  # 5 was in every ISR
    for partition, data in changes.items():
        assert data["isr"] == [4]
        assert data.get("leader", -2) == (4 if partition in led_by_5 else -2)  # -2: leader unchanged

    # Broker 4 publishes it: it leads every partition now, alone in the ISR ...
    wait_until(lambda: partitions(ports[4], topic) == {p: (4, (4,)) for p in range(PARTITIONS)}, 30,
               "broker 4 leading every partition alone")
    moved = {f"{topic}-{p}" for p in led_by_5}
    new_spans.once(lambda run: moved <= {n for s in run.where(name="ReplicaManager.applyDelta", instance="broker-4")
                                         for n in s.attributes["kafka.partitions.leader"]},
                   "broker 4's applyDelta leading the partitions broker 5 led")

    # ... and serves produce (acks=all: the ISR is broker 4 alone) and fetch, the records from before the kill too.
    bootstrap = f"127.0.0.1:{ports[4]}"
    produce(bootstrap, topic, range(40, 80))
    assert consume(bootstrap, topic) == sorted(f"k{i}:v{i}" for i in range(80))


# -- 3. controlled shutdown ----------------------------------------------------------------------------------------

def test_a_sigterm_moves_the_brokers_leaderships_before_it_closes_its_logs(cluster: ClusterRunner) -> None:
    runner, topic = cluster, "stopped-leader"
    ports = {b: runner.entry(b)["port"] for b in BROKERS}
    before = fully_replicated(runner, topic)
    led_by_5 = sorted(p for p, (leader, _) in before.items() if leader == 5)
    assert led_by_5
    leader = runner.wait_for_quorum(30)
    start = log_end(runner, leader)
    new_spans = NewSpans(runner)

    # Broker 4's Metadata, asked over and over while broker 5 shuts down: never a partition without a leader.
    seen: list[dict[int, int]] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.append(led_by(ports[4], topic))
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    pid = runner.entry(5)["pid"]
    stopping_at_ns = time.time_ns()
    runner.stop(5, timeout_s=30)  # then SIGKILL: a controlled shutdown here takes a few seconds
    done.set()
    watcher.join(30)
    exited = runner.run.exit_records().get("broker-5", {})
    assert (exited.get("pid"), exited.get("exit_code")) == (pid, 0), "broker 5 did not shut down by itself"
    assert len(seen) > 1 and all(-1 not in answer.values() for answer in seen)
    assert partitions(ports[4], topic) == {p: (4, (4,)) for p in range(PARTITIONS)}

    # The metadata log, in order: broker 5 enters controlled shutdown and, in the same batch, loses its
    # leaderships and ISR places; only later is it fenced, by the heartbeat answered with shouldShutDown.
    records = records_from(runner, leader, start)
    [(in_shutdown_offset, _, _)] = of_type(records, "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=5,
                                           inControlledShutdown=1)
    [(fence_offset, _, _)] = of_type(records, "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=5, fenced=1)
    topic_id = topic_id_of(metadata_records(runner, leader), topic)
    moves = {data["partitionId"]: offset for offset, _, data in
             of_type(records, "PARTITION_CHANGE_RECORD", topicId=topic_id, leader=4)}
    assert sorted(moves) == led_by_5
    assert all(in_shutdown_offset < offset < fence_offset for offset in moves.values())
    # and no state of the log has a partition of the topic without a leader
    assert all(-1 not in leaders.values()
               for leaders in leaders_after_each_change(metadata_records(runner, leader), topic_id))

    # In time: broker 5 asked (a heartbeat with wantShutDown); the controller moved its leaderships; broker 4 took
    # them over; the controller fenced broker 5 for its answer shouldShutDown; only then did broker 5 close its logs
    # (LogManager.shutdown leaves its clean-shutdown marker once every log is flushed and closed).
    def wrote_offset(run: Spans, offset: int) -> list[Any]:
        return [s for s in writes(run, leader, "BrokerRegistrationChangeRecord", "processBrokerHeartbeat")
                if s.attributes["kafka.raft.offset.first"] <= offset <= s.attributes["kafka.raft.offset.last"]]

    def took_over(run: Spans) -> list[Any]:
        return [s for s in run.where(name="ReplicaManager.applyDelta", instance="broker-4")
                if {f"{topic}-{p}" for p in led_by_5} <= set(s.attributes["kafka.partitions.leader"])]
    spans = new_spans.once(lambda run: took_over(run) and wrote_offset(run, in_shutdown_offset)
                           and wrote_offset(run, fence_offset), "the controller's writes and broker 4's applyDelta")
    asked = spans.where(name="BrokerLifecycleManager.sendBrokerHeartbeat", instance="broker-5",
                        **{"kafka.broker.want_shut_down": True}).first()
    [moved] = wrote_offset(spans, in_shutdown_offset)
    [permitted] = wrote_offset(spans, fence_offset)
    closed_ns = (runner.run.path / "broker-5" / "logs" / ".kafka_cleanshutdown").stat().st_mtime_ns
    assert asked.start_ns < moved.start_ns < took_over(spans)[0].end_ns < closed_ns
    assert moved.end_ns < permitted.start_ns < permitted.end_ns < closed_ns
    shutdown = spans.where(name="BrokerServer.shutdown", instance="broker-5").first()
    assert stopping_at_ns < shutdown.start_ns < asked.start_ns and closed_ns <= shutdown.end_ns


# -- 4. a paused broker --------------------------------------------------------------------------------------------

def test_a_paused_broker_wakes_up_fenced_and_is_unfenced_by_its_next_heartbeat(cluster: ClusterRunner) -> None:
    runner, topic = cluster, "paused-leader"
    ports = {b: runner.entry(b)["port"] for b in BROKERS}
    fully_replicated(runner, topic)
    leader = runner.wait_for_quorum(30)
    [*_, (registered_offset, _, registration)] = of_type(metadata_records(runner, leader), "REGISTER_BROKER_RECORD",
                                                         brokerId=5)
    epoch = registration["brokerEpoch"]
    pid = runner.entry(5)["pid"]
    start = log_end(runner, leader)
    new_spans = NewSpans(runner)

    # Frozen past its session: fenced, its leaderships and ISR places gone to broker 4, which takes writes alone.
    runner.pause(5)

    def fenced() -> Records:
        return of_type(records_from(runner, leader, start), "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=5,
                       brokerEpoch=epoch, fenced=1)
    [(fence_offset, _, _)] = wait_until(fenced, SESSION_TIMEOUT_MS / 1000 + 30, "broker 5 fenced")
    wait_until(lambda: partitions(ports[4], topic) == {p: (4, (4,)) for p in range(PARTITIONS)}, 30,
               "broker 4 leading every partition alone")
    produce(f"127.0.0.1:{ports[4]}", topic, range(40))

    # Woken: it is still fenced until a heartbeat of its own (it still asks to be unfenced, and its metadata
    # offset is past its registration) unfences it, with the same broker epoch: no new registration.
    resumed_at_ns = time.time_ns()
    runner.resume(5)

    def unfenced() -> Records:
        return of_type(records_from(runner, leader, start), "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=5,
                       brokerEpoch=epoch, fenced=-1)
    [(unfence_offset, _, _)] = wait_until(unfenced, 30, "broker 5 unfenced")
    records = records_from(runner, leader, start)
    assert not of_type(records, "REGISTER_BROKER_RECORD", brokerId=5)
    assert [offset for offset, _, _ in of_type(records, "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=5)] == [
        fence_offset, unfence_offset]

    # The controller's side: the first heartbeat it had from broker 5 after the resume asked to be unfenced, with a
    # metadata offset past the registration, and its write event is the one that unfenced it.
    def unfencing(run: Spans) -> list[Any]:
        return [s for s in writes(run, leader, "BrokerRegistrationChangeRecord", "processBrokerHeartbeat")
                if s.start_ns > resumed_at_ns and s.attributes["kafka.raft.offset.last"] >= unfence_offset]
    spans = new_spans.once(unfencing, "the controller's span of the heartbeat that unfenced broker 5")
    woke = [s for s in spans.where(name="QuorumController.processBrokerHeartbeat", instance=f"controller-{leader}")
            if s.attributes.get("kafka.broker.id") == 5 and s.start_ns > resumed_at_ns][0]
    assert woke.attributes["kafka.broker.epoch"] == epoch and not woke.attributes["kafka.broker.want_fence"]
    assert woke.attributes["kafka.broker.metadata_offset"] >= registered_offset
    assert woke.trace_id == unfencing(spans)[0].trace_id

    # It stayed RUNNING throughout (the same process), follows broker 4, catches up and is back in every ISR.
    assert runner.entry(5)["pid"] == pid and runner.broker_state(5) == "RUNNING"
    assert not [e for s in spans.where(instance="broker-5") for e in s.events if e.name == "broker.state.change"]
    wait_until(lambda: partitions(ports[4], topic) == {p: (4, BROKERS) for p in range(PARTITIONS)}, 60,
               "broker 5 back in every ISR")
    assert consume(f"127.0.0.1:{ports[5]}", topic) == sorted(f"k{i}:v{i}" for i in range(40))
