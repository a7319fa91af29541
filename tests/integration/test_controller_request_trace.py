"""A 1.0.2 controller's requests go out at Kafka 1.0.2's versions (LeaderAndIsr v1, UpdateMetadata v4, StopReplica
v0; a broker's ControlledShutdown v1), whose headers are not flexible, and each broker's handling still joins the
sender's trace: the traceparent rides in the client id's suffix (codec.py), which the receiver strips off again."""

from __future__ import annotations

from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.tracing.query import SpanRecord, Spans, load_run
from tests.integration.helpers import bootstrap, controller_id, start_cluster, wait_until

REQUEST_ROOT = "RequestChannel.Request"
CONTROLLER_SEND = "RequestSendThread.doWork"
HANDLERS = {"LeaderAndIsr": ("KafkaApis.handleLeaderAndIsrRequest", 1),
            "UpdateMetadata": ("KafkaApis.handleUpdateMetadataRequest", 4),
            "StopReplica": ("KafkaApis.handleStopReplicaRequest", 0)}


def joined(handling: SpanRecord, everything: Spans) -> tuple[SpanRecord, SpanRecord] | None:
    """(the request's root span, the sender's span it names) for a handling span, or None while either is not on
    disk: the handling span is in its request's trace, whose RequestChannel.Request root names the sender's span as
    its link (or a span up the way names another process's span as its parent)."""
    by_id = {(s.trace_id, s.span_id): s for s in everything}
    root = next((s for s in everything.where(trace_id=handling.trace_id, name=REQUEST_ROOT, instance=handling.instance)
                 if not s.parent_id), None)
    span = handling
    while span is not None and root is not None:
        sender = next((by_id[link] for link in span.links if link in by_id), None)
        parent = by_id.get((span.trace_id, span.parent_id))
        if sender is None and parent is not None and parent.instance != span.instance:
            sender = parent
        if sender is not None:
            return root, sender
        span = parent
    return None


def controller_requests_joined(cluster: dict[int, Any], controller: int, api: str) -> list[tuple[int, Any, Any]]:
    """(receiving broker, request root, controller's send span) for every `api` request a broker handled so far."""
    handler, _ = HANDLERS[api]
    everything = Spans(load_run(cluster[controller].run_dir))
    out = []
    for broker_id in cluster:
        for handling in everything.where(name=handler, instance=f"broker-{broker_id}"):
            if handling.attributes.get("kafka.controller.id") == controller:
                out.append((broker_id, handling, joined(handling, everything)))
    return out


def test_controller_requests_at_1_0_2_versions_join_the_controllers_trace(brokers, zookeeper) -> None:
    cluster = start_cluster(brokers)
    controller = controller_id(zookeeper)
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    topic = "traced"
    admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=3)])[topic].result(30)

    def every_broker_has_its_leader_and_isr() -> bool:
        return {b for b, _, _ in controller_requests_joined(cluster, controller, "LeaderAndIsr")} == set(cluster)
    wait_until(every_broker_has_its_leader_and_isr, 30, "every broker to handle the controller's LeaderAndIsr")
    admin.delete_topics([topic])[topic].result(30)
    wait_until(lambda: {b for b, _, _ in controller_requests_joined(cluster, controller, "StopReplica")}
               == set(cluster), 30, "every broker to handle the controller's StopReplica")

    for api, (_, version) in HANDLERS.items():
        handled = wait_until(lambda api=api: (h := controller_requests_joined(cluster, controller, api))
                             and all(join is not None for _, _, join in h) and h, 10,
                             f"each {api} handling to be joined to the controller's span")
        for broker_id, _, (root, sender) in handled:
            # the request on the wire was 1.0.2's version, and the receiver sees the plain client id
            assert (root.attributes["kafka.api.name"], root.attributes["kafka.api.version"]) == (api, version)
            assert root.attributes["kafka.client.id"] == f"controller-{controller}"
            assert root.attributes["kafka.traceparent"].split("-")[1:3] == [sender.trace_id, sender.span_id]
            # ...and it names the controller's send of that very request to that broker
            assert (sender.name, sender.instance) == (CONTROLLER_SEND, f"broker-{controller}")
            assert (sender.attributes["kafka.api.name"], sender.attributes["kafka.api.version"]) == (api, version)
            assert sender.attributes["kafka.destination.broker.id"] == broker_id

    # A broker's controlled shutdown asks the controller with ControlledShutdown v1, joined the same way.
    leaving = next(i for i in cluster if i != controller)
    assert cluster[leaving].terminate() == 0

    def controlled_shutdown_joined() -> tuple[SpanRecord, SpanRecord] | None:
        everything = Spans(load_run(cluster[controller].run_dir))
        handled = [s for s in everything.where(name="KafkaApis.handleControlledShutdownRequest",
                                               instance=f"broker-{controller}")
                   if s.attributes.get("kafka.shutdown.broker.id") == leaving]
        return joined(handled[0], everything) if handled else None
    root, sender = wait_until(controlled_shutdown_joined, 10, "the ControlledShutdown handling, joined to its sender")
    assert (root.attributes["kafka.api.name"], root.attributes["kafka.api.version"]) == ("ControlledShutdown", 1)
    assert root.attributes["kafka.client.id"] == str(leaving)
    assert sender.instance == f"broker-{leaving}"
