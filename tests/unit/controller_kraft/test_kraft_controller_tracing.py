"""The controller's spans (FIDELITY KR.qc, KR.replay, KR.fence): offsets to join by, and an idle controller's
NoOps left untraced."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kafka_edu.tracing import provider, setup_tracing
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT
from tests.integration.helpers import wait_until
from tests.unit.controller_kraft.test_kraft_quorum_controller import (
    TIMEOUT,
    Cluster,
    create_topics_request,
    heartbeat,
    register_and_unfence,
    result,
    topic,
)


@pytest.fixture
def tracing(monkeypatch: pytest.MonkeyPatch) -> Iterator[provider.Tracing]:
    monkeypatch.setattr(provider, "_current", None)
    yield setup_tracing("controller-0", "run-kraft")


@pytest.fixture
def clusters() -> Iterator[list[Cluster]]:
    made: list[Cluster] = []
    yield made
    for cluster in made:
        cluster.close()


def spans(tracing: provider.Tracing, name: str) -> list:
    return [s for s in tracing.memory.get_finished_spans() if s.name == name]


def test_a_write_and_its_replays_carry_the_offsets_they_wrote_and_applied(tracing: provider.Tracing,
                                                                          clusters: list[Cluster]) -> None:
    cluster = Cluster(num_controllers=2)
    clusters.append(cluster)
    controller = cluster.activate(0)
    register_and_unfence(cluster, controller, [1])
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("traced", 2))))
    (first, _), *_, (last, _) = [(o, m) for o, m in cluster.shared.data_records()
                                 if type(m).__name__ in ("TopicRecord", "ConfigRecord", "PartitionRecord")]
    standby = cluster.controllers[1]
    wait_until(lambda: standby.replication_control.get_topic_id("traced") is not None, TIMEOUT)
    standby.wait_for_readiness(TIMEOUT)

    (qc,) = spans(tracing, "QuorumController.createTopics")
    assert qc.attributes["kafka.step"] == "KR.qc" and qc.attributes["kafka.topics"] == ("traced",)
    (write,) = [s for s in spans(tracing, "QuorumController.ControllerWriteEvent.run")
                if s.attributes["kafka.controller.event"] == "createTopics"]
    assert (write.attributes["kafka.raft.offset.first"], write.attributes["kafka.raft.offset.last"]) == (first, last)
    assert write.attributes["kafka.metadata.record.types"] == ("TopicRecord", "ConfigRecord", "PartitionRecord x2")
    replays = [s for s in spans(tracing, "QuorumController.replay")
               if s.attributes["kafka.raft.offset.first"] == first]
    assert sorted(s.attributes["kafka.controller.role"] for s in replays) == ["active", "standby"]
    assert all(s.attributes["kafka.step"] == "KR.replay" and s.attributes["kafka.raft.offset.last"] == last
               for s in replays)
    active_replay = next(s for s in replays if s.attributes["kafka.controller.role"] == "active")
    assert active_replay.parent.span_id == write.context.span_id  # replayed inside the write, before commit
    assert spans(tracing, "QuorumController.claim") and spans(tracing, "QuorumController.completeActivation")


def test_an_idle_controller_traces_no_no_op_and_fencing_is_traced(tracing: provider.Tracing,
                                                                  clusters: list[Cluster]) -> None:
    cluster = Cluster(session_timeout_ms=400)
    clusters.append(cluster)
    controller = cluster.controllers[0]
    controller.max_idle_interval_ns = 30_000_000
    cluster.activate(0)
    epochs = register_and_unfence(cluster, controller, [1, 2])
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("f", assignments={0: [1, 2]}))))

    def fenced() -> bool:
        heartbeat(controller, 2, epochs[2], cluster.shared.high_watermark)
        return not controller.cluster_control.is_unfenced(1)

    wait_until(fenced, TIMEOUT, "broker 1 fenced")
    wait_until(lambda: sum(type(m).__name__ == "NoOpRecord" for _, m in cluster.shared.data_records()) >= 5,
               TIMEOUT, "NoOp records")
    controller.wait_for_readiness(TIMEOUT)
    finished = tracing.memory.get_finished_spans()
    assert not [s for s in finished if s.attributes.get("kafka.controller.event") == "writeNoOpRecord"]
    assert not [s for s in finished if s.attributes.get("kafka.metadata.record.types") == ("NoOpRecord",)]
    (fence,) = [s for s in finished if s.name == "QuorumController.rescheduleMaybeFenceStaleBrokers"]
    assert fence.attributes["kafka.step"] == "KR.fence" and fence.attributes["kafka.broker.id"] == 1
    assert fence.attributes["kafka.broker.silent.ms"] >= 400
    assert fence.attributes["kafka.partitions.changed"] == 1
    (one,) = [s for s in finished if s.name == "ReplicationControlManager.maybeFenceOneStaleBroker"]
    assert one.parent.span_id == fence.context.span_id
    assert one.attributes["kafka.metadata.record.types"] == ("PartitionChangeRecord",
                                                             "BrokerRegistrationChangeRecord")
