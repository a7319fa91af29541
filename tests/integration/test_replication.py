"""Two brokers replicating a partition, with the test acting as the controller: it writes the partition state znode
and sends UpdateMetadata and LeaderAndIsr over the wire, as KafkaController would (Kafka 1.0.2)."""

from __future__ import annotations

import json
import os
import signal
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, Producer
from kafka_wire import WireConnection, address_of

from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import wait_until

LEADER, FOLLOWER = 1, 2
CONTROLLER_EPOCH = 1
N = 300
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
LEADER_AND_ISR_V, UPDATE_METADATA_V, FETCH_V = 1, 4, 6  # what Kafka 1.0.2's controller and fetchers send


# -- the test's controller ------------------------------------------------------------------------------------------

def send(broker: Any, api: ApiKeys, version: int, body: Any, traceparent: str | None = None) -> Any:
    with WireConnection(address_of(broker.props["listeners"])) as conn:
        conn.send_frame(encode_request(api, version, conn.correlation_id(), "test-controller", body,
                                       traceparent=traceparent))
        return conn.read_response(api, version).body


def partition_state(partition: int, leader: int, isr: list[int], leader_epoch: int = 0,
                    controller_epoch: int = CONTROLLER_EPOCH) -> dict[str, Any]:
    return dict(partition_index=partition, controller_epoch=controller_epoch, leader=leader,
                leader_epoch=leader_epoch, isr=isr, partition_epoch=0, zk_version=0, replicas=[LEADER, FOLLOWER],
                offline_replicas=[], is_new=False)


def leader_and_isr(broker: Any, topic: str, states: list[dict[str, Any]], live_leaders: list[Any],
                   controller_epoch: int = CONTROLLER_EPOCH, traceparent: str | None = None) -> Any:
    body = build(ApiKeys.LEADER_AND_ISR.request_schema(LEADER_AND_ISR_V), controller_id=LEADER,
                 controller_epoch=controller_epoch,
                 ungrouped_partition_states=[dict(s, topic_name=topic) for s in states],
                 live_leaders=[dict(broker_id=int(b.props["broker.id"]),
                                    host_name=address_of(b.props["listeners"])[0],
                                    port=address_of(b.props["listeners"])[1]) for b in live_leaders])
    return send(broker, ApiKeys.LEADER_AND_ISR, LEADER_AND_ISR_V, body, traceparent)


def update_metadata(broker: Any, topic: str, states: list[dict[str, Any]], live: list[Any],
                    controller_epoch: int = CONTROLLER_EPOCH) -> Any:
    body = build(ApiKeys.UPDATE_METADATA.request_schema(UPDATE_METADATA_V), controller_id=LEADER,
                 controller_epoch=controller_epoch,
                 ungrouped_partition_states=[dict(s, topic_name=topic) for s in states],
                 live_brokers=[dict(id_=int(b.props["broker.id"]), rack=None, endpoints=[dict(
                     port=address_of(b.props["listeners"])[1], host=address_of(b.props["listeners"])[0],
                     listener="PLAINTEXT", security_protocol=0)]) for b in live])
    return send(broker, ApiKeys.UPDATE_METADATA, UPDATE_METADATA_V, body, None)


def fetch(broker: Any, topic: str, partition: int, replica_id: int) -> Any:
    """One partition from offset 0; replica id -2 (a debugging consumer) may read a follower."""
    body = build(ApiKeys.FETCH.request_schema(FETCH_V), replica_id=replica_id, max_wait=0, min_bytes=0,
                 max_bytes=10 * 1024 * 1024, isolation_level=0, topics=[dict(topic=topic, partitions=[dict(
                     partition=partition, fetch_offset=0, log_start_offset=-1, partition_max_bytes=10 * 1024 * 1024)])])
    return send(broker, ApiKeys.FETCH, FETCH_V, body).responses[0].partitions[0]


def records_in(partition_data: Any) -> int:
    return sum(batch.last_offset_delta + 1 for batch in MemoryRecords(bytes(partition_data.records or b"")).batches())


def state_znode(zookeeper: Any, topic: str, partition: int) -> dict[str, Any]:
    data, _ = zookeeper.client.get(f"/brokers/topics/{topic}/partitions/{partition}/state")
    return json.loads(data)


def produce(broker: Any, topic: str, partition: int, count: int, acks: str, **config: Any) -> list[Any]:
    errors: list[Any] = []
    producer = Producer({"bootstrap.servers": broker.props["listeners"].removeprefix("PLAINTEXT://"), "acks": acks,
                         "linger.ms": 5, **config})
    for i in range(count):
        producer.produce(topic, partition=partition, value=f"v{i}".encode(),
                         on_delivery=lambda err, _msg: errors.append(err) if err else None)
        producer.poll(0)
    assert producer.flush(60) == 0
    return errors


def raw_spans(run_dir: Path) -> list[dict[str, Any]]:
    """Spans with their links (the shared query helper does not read links)."""
    spans = []
    for path in run_dir.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                doc = json.loads(line)
            except json.JSONDecodeError:
                continue
            for rs in doc.get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    spans.extend(ss.get("spans", []))
    return spans


def attribute(span: dict[str, Any], key: str) -> Any:
    for a in span.get("attributes", []):
        if a["key"] == key:
            value = a["value"]
            return int(value["intValue"]) if "intValue" in value else next(iter(value.values()))
    return None


# -- the scenario ---------------------------------------------------------------------------------------------------

@pytest.fixture
def cluster(brokers: Any, zookeeper: Any) -> tuple[Any, Any, str]:
    """Two brokers (a SIGSTOPped one keeps its ZooKeeper session) and a topic wanting two in-sync replicas."""
    topic = f"replicated-{uuid.uuid4().hex[:6]}"
    # A topic override, stored before the brokers start so that they read it at startup.
    zookeeper.client.create(f"/config/topics/{topic}", json.dumps(
        {"version": 1, "config": {"min.insync.replicas": "2"}}).encode(), makepath=True)
    props = dict(replica_lag_time_max_ms="2000", replica_fetch_wait_max_ms="200",
                 zookeeper_session_timeout_ms="30000", num_partitions="1")
    leader = brokers("leader", broker_id=str(LEADER), **props).start()
    follower = brokers("follower", broker_id=str(FOLLOWER), **props).start()
    return leader.wait_running(), follower.wait_running(), topic


def test_follower_replicates_and_the_isr_follows_it(cluster: tuple[Any, Any, str], zookeeper: Any) -> None:
    leader, follower, topic = cluster
    # The controller's partition state znode: ISR changes are compare-and-set on it. Partition 1 has none.
    zookeeper.client.create(f"/brokers/topics/{topic}/partitions/0/state", json.dumps(
        {"controller_epoch": 1, "leader": LEADER, "version": 1, "leader_epoch": 0, "isr": [LEADER, FOLLOWER]}).encode(),
        makepath=True)
    states = [partition_state(0, LEADER, [LEADER, FOLLOWER]), partition_state(1, LEADER, [LEADER, FOLLOWER])]
    for broker in (leader, follower):
        assert update_metadata(broker, topic, states, [leader, follower]).error_code == Errors.NONE
    response = leader_and_isr(leader, topic, states, [leader], traceparent=TRACEPARENT)
    assert response.error_code == Errors.NONE
    assert {(e.partition_index, e.error_code) for e in response.partition_errors} == {(0, 0), (1, 0)}
    assert leader_and_isr(follower, topic, states[:1], [leader]).error_code == Errors.NONE

    # acks=all completes once the follower has fetched the records and the high watermark covers them.
    assert produce(leader, topic, 0, N, "all") == []
    assert fetch(leader, topic, 0, -1).high_watermark == N
    wait_until(lambda: fetch(follower, topic, 0, -2).high_watermark == N, 30, "the follower's high watermark")
    assert records_in(fetch(follower, topic, 0, -2)) == N

    # The leader's request span links to the span of whoever sent LeaderAndIsr (v1: the traceparent rode in the
    # client id, which the span shows without it).
    def linked() -> bool:
        return any(s["name"] == "RequestChannel.Request" and attribute(s, "kafka.api.key") == 4
                   and attribute(s, "kafka.api.version") == 1 and attribute(s, "kafka.client.id") == "test-controller"
                   and any(link["traceId"] == TRACE_ID for link in s.get("links", []))
                   for s in raw_spans(leader.run_dir))
    wait_until(linked, 10, "a RequestChannel.Request span linked to the controller's span")

    # An older controller is fenced off, and the broker's trace says so.
    stale = leader_and_isr(follower, topic, [partition_state(0, LEADER, [LEADER], 5, 0)], [leader],
                           controller_epoch=CONTROLLER_EPOCH - 1)
    assert stale.error_code == Errors.STALE_CONTROLLER_EPOCH
    assert update_metadata(follower, topic, states, [leader, follower], CONTROLLER_EPOCH - 1).error_code == \
        Errors.STALE_CONTROLLER_EPOCH
    wait_until(lambda: [e for s in follower.spans().with_event("controller.epoch.stale") for e in s.events
                        if e.name == "controller.epoch.stale" and e.attributes.get("kafka.step") == "CT.fence"],
               10, "the CT.fence event")
    # A leader epoch that is not newer is ignored for that partition alone.
    same_epoch = leader_and_isr(follower, topic, states[:1], [leader])
    assert same_epoch.error_code == Errors.NONE
    assert [e.error_code for e in same_epoch.partition_errors] == [Errors.STALE_CONTROLLER_EPOCH]

    # A follower that stops fetching leaves the ISR, and acks=all then needs more replicas than there are.
    os.kill(follower.pid, signal.SIGSTOP)
    try:
        wait_until(lambda: state_znode(zookeeper, topic, 0)["isr"] == [LEADER], 30, "the ISR to shrink")
        # The leader announces the change under /isr_change_notification (the active controller consumes it).
        wait_until(lambda: any(f"{topic}-0" in s.attributes["kafka.partitions"] and
                               s.attributes["kafka.zk.path"].startswith("/isr_change_notification/isr_change_")
                               for s in leader.spans().where(name="ReplicaManager.maybePropagateIsrChanges")),
                   30, "an ISR change notification")
        errors = produce(leader, topic, 0, 1, "all", retries=0, **{"message.timeout.ms": 10000})
        assert [e.code() for e in errors] == [KafkaError.NOT_ENOUGH_REPLICAS]
    finally:
        os.kill(follower.pid, signal.SIGCONT)

    # Back in sync: the ISR grows again (the znode too) and acks=all works.
    wait_until(lambda: state_znode(zookeeper, topic, 0)["isr"] == [LEADER, FOLLOWER], 30, "the ISR to expand")
    assert produce(leader, topic, 0, 10, "all") == []
    wait_until(lambda: records_in(fetch(follower, topic, 0, -2)) == N + 10, 30, "the follower to catch up")


def test_becoming_follower_of_a_leader_with_no_epochs_truncates_to_the_high_watermark(
        cluster: tuple[Any, Any, str]) -> None:
    leader, follower, _ = cluster
    topic = f"truncated-{uuid.uuid4().hex[:6]}"
    states = [partition_state(0, LEADER, [LEADER, FOLLOWER])]
    for broker in (leader, follower):
        assert update_metadata(broker, topic, states, [leader, follower]).error_code == Errors.NONE
    # Only the leader hears of the partition: the follower never fetches, so the high watermark stays at 0 while the
    # leader's log grows (no state znode: the ISR cannot shrink).
    assert leader_and_isr(leader, topic, states, [leader]).error_code == Errors.NONE
    assert produce(leader, topic, 0, N, "1") == []
    segment = Path(leader.props["log.dirs"]) / f"{topic}-0" / "00000000000000000000.log"
    assert segment.stat().st_size > 0
    assert fetch(leader, topic, 0, -1).high_watermark == 0

    # The other broker takes over at leader epoch 1; the old leader follows it and asks where its epoch 0 ends on the
    # new leader, which has written nothing and knows no epoch: it cuts its log back to its high watermark, and the
    # unreplicated records are gone (KIP-101's fallback).
    new_states = [partition_state(0, FOLLOWER, [FOLLOWER], leader_epoch=1)]
    assert leader_and_isr(follower, topic, new_states, [follower]).error_code == Errors.NONE
    assert leader_and_isr(leader, topic, new_states, [follower]).error_code == Errors.NONE
    wait_until(lambda: segment.stat().st_size == 0, 30, "the old leader's log to be truncated")
    wait_until(lambda: [e for s in leader.spans().where(name="ReplicaFetcherThread.maybeTruncate")
                        for e in s.events if e.name == "log.truncate"], 10, "the truncation span")
    truncations = [e for s in leader.spans().where(name="ReplicaFetcherThread.maybeTruncate") for e in s.events
                   if e.name == "log.truncate" and e.attributes["kafka.topic"] == topic]
    assert {k: truncations[-1].attributes[k] for k in ("kafka.partition", "kafka.offset", "kafka.truncation.by",
                                                      "kafka.leader.epoch.end_offset", "kafka.records.lost")} \
        == {"kafka.partition": 0, "kafka.offset": 0, "kafka.truncation.by": "high watermark",
            "kafka.leader.epoch.end_offset": -1, "kafka.records.lost": N}
