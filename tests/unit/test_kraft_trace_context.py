"""Where a KRaft story splits (shared/TRACING.md, FIDELITY KR): a KafkaEventQueue runs the work of many stories, so an
event continues its enqueuer's trace only when a controller appends it while serving a client request (KR.apis,
KR.qc); any other enqueue starts the event's own trace, linked to the span that enqueued it. The Raft client's
initialize, called by a server's startup, is a trace of its own too; an election's trace holds no listener's
reaction to it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace

from kafka_edu.tracing import provider, setup_tracing
from kafka_edu.tracing.requests import UNSAMPLED
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient
from kafka_edu.v3_9.server_common.queue.event_queue import Event
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import SYSTEM_TIME, KafkaEventQueue
from tests.integration.helpers import wait_until
from tests.unit.controller_kraft.test_kraft_quorum_controller import (
    Cluster,
    create_topics_request,
    register_and_unfence,
    result,
    topic,
)
from tests.unit.raft.raft_cluster import RaftCluster

WAIT_S = 10
_ENQUEUE = "KafkaEventQueue.enqueue"
_RUN = "KafkaEventQueue.EventHandler.handleEvents"
# FIDELITY's KR rows in table order (the conditional ones left out), as check_trace orders them within a trace.
KR_ORDER = ["KR.storage", "KR.build", "KR.server", "KR.controller", "KR.driver", "KR.poll", "KR.role", "KR.vote",
            "KR.begin", "KR.fetch", "KR.listener", "KR.apis", "KR.qc", "KR.queue", "KR.replay", "KR.broker",
            "KR.publish"]


@pytest.fixture
def tracing(monkeypatch: pytest.MonkeyPatch) -> Iterator[provider.Tracing]:
    monkeypatch.setattr(provider, "_current", None)  # restored after the test
    tracing = setup_tracing("controller-1", "run-1", mode="kraft")
    yield tracing
    tracing.shutdown()


@pytest.fixture
def queue() -> Iterator[KafkaEventQueue]:
    made = KafkaEventQueue(SYSTEM_TIME, "[queue] ", "test-")
    yield made
    made.close()


class Named(Event):
    def __init__(self, name: str) -> None:
        self.name = name
        self.ran: Future[None] = Future()

    def run(self) -> None:
        self.ran.set_result(None)


def finished(tracing: provider.Tracing) -> list[Any]:
    return list(tracing.memory.get_finished_spans())


def named(tracing: provider.Tracing, name: str, event: str | None = None) -> list[Any]:
    return [s for s in finished(tracing) if s.name == name
            and (event is None or str(s.attributes.get("kafka.queue.event", "")).startswith(event))]


def in_trace(tracing: provider.Tracing, trace_id: int) -> list[Any]:
    return [s for s in finished(tracing) if s.context.trace_id == trace_id]


def steps_in_order(spans: list[Any]) -> list[str]:
    """The KR steps of one trace by first start, as check_trace reads them (span and event steps)."""
    firsts: dict[str, int] = {}
    for s in sorted(spans, key=lambda s: s.start_time):
        for step in [s.attributes.get("kafka.step")] + [e.attributes.get("kafka.step") for e in s.events]:
            if step in KR_ORDER:
                firsts.setdefault(step, s.start_time)
    return sorted(firsts, key=lambda step: firsts[step])


def assert_in_fidelity_order(spans: list[Any]) -> None:
    seen = steps_in_order(spans)
    assert seen == sorted(seen, key=KR_ORDER.index), seen


# -- the queue ------------------------------------------------------------------------------------------------------

def test_an_event_handed_over_starts_a_trace_of_its_own_linked_to_the_span_that_enqueued_it(tracing, queue) -> None:
    event = Named("StartupEvent")
    with tracing.tracer.start_as_current_span("startup") as startup:
        queue.append(event)
    event.ran.result(WAIT_S)
    queue.close()
    (enqueue,) = named(tracing, _ENQUEUE)
    (run,) = named(tracing, _RUN)
    assert enqueue.parent is None and enqueue.context.trace_id != startup.get_span_context().trace_id
    assert [link.context.span_id for link in enqueue.links] == [startup.get_span_context().span_id]
    assert run.parent.span_id == enqueue.context.span_id and run.context.trace_id == enqueue.context.trace_id
    assert in_trace(tracing, startup.get_span_context().trace_id) == named(tracing, "startup")


def test_an_event_appended_for_a_request_stays_in_the_requests_trace(tracing, queue) -> None:
    event = Named("createTopics")
    with tracing.tracer.start_as_current_span("QuorumController.createTopics",
                                              attributes={"kafka.step": "KR.qc"}) as operation:
        queue.append(event)
    event.ran.result(WAIT_S)
    queue.close()
    (enqueue,) = named(tracing, _ENQUEUE)
    (run,) = named(tracing, _RUN)
    assert enqueue.parent.span_id == operation.get_span_context().span_id and not enqueue.links
    assert run.parent.span_id == enqueue.context.span_id
    assert run.context.trace_id == operation.get_span_context().trace_id


def test_an_event_enqueued_inside_an_unsampled_request_traces_nothing(tracing, queue) -> None:
    event = Named("createTopics")
    with trace.use_span(UNSAMPLED):
        queue.append(event)
    event.ran.result(WAIT_S)
    queue.close()
    assert named(tracing, _ENQUEUE) == [] and named(tracing, _RUN) == []


def test_the_quorum_controllers_commit_events_are_quiet_whatever_their_offset(tracing, queue) -> None:
    event = Named("handleCommit[baseOffset=42]")
    queue.append(event)
    event.ran.result(WAIT_S)
    queue.close()
    assert named(tracing, _ENQUEUE) == [] and named(tracing, _RUN) == []


# -- the QuorumController ---------------------------------------------------------------------------------------------

@pytest.fixture
def clusters() -> Iterator[list[Cluster]]:
    made: list[Cluster] = []
    yield made
    for cluster in made:
        cluster.close()


def test_the_controllers_reaction_to_a_leader_change_is_its_own_trace_and_a_request_keeps_its_write(
        tracing, clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    with tracing.tracer.start_as_current_span("election") as election:
        controller = cluster.activate(0)  # the raft client tells the listener of its leadership in this span
    election_trace = election.get_span_context().trace_id
    # The election's trace holds nothing of the QuorumController: its reaction is a trace linked to the election.
    assert [s.name for s in in_trace(tracing, election_trace)] == ["election"]
    (told,) = named(tracing, _ENQUEUE, "handleLeaderChange[1]")  # epoch 1: the leadership activate gave it
    assert told.parent is None and [link.context.span_id for link in told.links] == [
        election.get_span_context().span_id]
    reaction = in_trace(tracing, told.context.trace_id)
    (claim,) = [s for s in reaction if s.name == "QuorumController.claim"]
    assert claim.attributes["thread.name"].endswith("event-handler")

    # A CreateTopics: the request's trace reads request -> createTopics (KR.qc) -> enqueue -> run -> write -> replay.
    register_and_unfence(cluster, controller, [1])
    with tracing.tracer.start_as_current_span("RequestChannel.Request") as request:
        future = controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("orders")))
    result(future)
    request_trace = in_trace(tracing, request.get_span_context().trace_id)
    names = [s.name for s in sorted(request_trace, key=lambda s: s.start_time)]
    assert names[:4] == ["RequestChannel.Request", "QuorumController.createTopics", _ENQUEUE, _RUN]
    (write,) = [s for s in request_trace if s.name == "QuorumController.ControllerWriteEvent.run"]
    (replay,) = [s for s in request_trace if s.name == "QuorumController.replay"]
    assert replay.parent.span_id == write.context.span_id
    assert_in_fidelity_order(request_trace)


# -- the Raft client ------------------------------------------------------------------------------------------------

class QueuedListener(RaftClient.Listener):
    """A listener that reacts on its own event queue, as the QuorumController and the MetadataLoader do."""

    def __init__(self, node_id: int) -> None:
        self.queue = KafkaEventQueue(SYSTEM_TIME, f"[listener {node_id}] ", f"listener-{node_id}-")
        self.told: list[LeaderAndEpoch] = []
        self.lock = threading.Lock()

    def handle_commit(self, reader: Any) -> None:
        reader.close()

    def handle_load_snapshot(self, reader: Any) -> None:
        reader.close()

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        listener = self

        class LeaderChange(Event):
            name = f"handleLeaderChange[{leader.epoch}]"

            def run(self) -> None:
                with listener.lock:
                    listener.told.append(leader)

        self.queue.append(LeaderChange())


@pytest.fixture
def raft(tmp_path: Path) -> Iterator[RaftCluster]:
    cluster = RaftCluster(tmp_path)
    yield cluster
    cluster.stop()
    for node in cluster.nodes:
        listener = getattr(node, "queued", None)
        if listener is not None:
            listener.queue.close()


def test_an_election_is_its_own_trace_and_so_is_the_raft_clients_start(tracing, raft: RaftCluster) -> None:
    with tracing.tracer.start_as_current_span("startup") as startup:
        for node in raft.nodes:
            node.start()
            node.queued = QueuedListener(node.node_id)
            node.manager.register(node.queued)
    # Each replica's initialize (quorum-state read, the first role change) is a trace of its own, linked to the
    # startup that called it; the startup's trace holds no role change.
    initializes = named(tracing, "KafkaRaftClient.initialize")
    assert len(initializes) == 3
    for initialize in initializes:
        assert initialize.parent is None and initialize.context.trace_id != startup.get_span_context().trace_id
        assert [link.context.span_id for link in initialize.links] == [startup.get_span_context().span_id]
        assert [e.attributes["kafka.raft.role.to"] for e in initialize.events
                if e.name == "raft.role.change"] == ["Unattached"]
    assert not [s for s in in_trace(tracing, startup.get_span_context().trace_id) if s.events]

    leader = wait_until(raft.stable_leader, 20, "a leader")
    survivors = [n for n in raft.nodes if n is not leader]
    wait_until(lambda: all(n.queued.told for n in survivors), WAIT_S, "the listeners told of the first leader")
    epoch = leader.client.quorum.epoch()
    leader.kill()  # the others' fetch timeout runs out: a new election
    new_leader = wait_until(lambda: (n := raft.stable_leader()) and n.client.quorum.epoch() > epoch and n, 20,
                            "a new leader")
    new_epoch = new_leader.client.quorum.epoch()
    wait_until(lambda: all(any(t.epoch == new_epoch and t.leader_id is not None for t in n.queued.told)
                           for n in survivors), WAIT_S, "the listeners told of the new leader")

    def candidacy(span: Any) -> bool:
        return span.attributes.get("kafka.node.id") == new_leader.node_id and any(
            e.name == "raft.role.change" and e.attributes["kafka.raft.role.to"] == "Candidate"
            and e.attributes["kafka.raft.epoch"] == new_epoch for e in span.events)

    root = wait_until(lambda: next((s for s in finished(tracing) if candidacy(s)), None), WAIT_S, "the candidacy")
    election = in_trace(tracing, root.context.trace_id)
    assert root.parent is None and "KafkaRaftClient.maybeSendVoteRequests" in {s.name for s in election}
    # The election holds no listener's reaction: the listeners' queues are traces of their own, linked to it.
    assert not [s for s in election if s.name in (_ENQUEUE, _RUN)]
    assert_in_fidelity_order(election)
    election_spans = {s.context.span_id for s in election}
    reactions = named(tracing, _ENQUEUE, f"handleLeaderChange[{new_epoch}]")
    assert reactions and all(s.parent is None and s.context.trace_id != root.context.trace_id for s in reactions)
    assert any(link.context.span_id in election_spans for s in reactions for link in s.links)
