"""KRaft part 2, wiring slice, on real processes: three controllers and two brokers serve clients. A topic created
through a broker (CreateTopics sent on to the active controller) appears in each broker's metadata only once the
controller has committed it; kcat produces to it with acks=all and reads it back, alone and in a consumer group
(`__consumer_offsets` auto-created through the controller)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until
from tests.integration.test_kraft_brokers import metadata_records, of_type

OVERRIDES = ["broker.session.timeout.ms=4000", "broker.heartbeat.interval.ms=1000",
             "offsets.topic.replication.factor=2", "offsets.topic.num.partitions=4", "default.replication.factor=2"]
BROKERS = (4, 5)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path / "traces", mode="kraft", controllers=3, timeout_s=90, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def topic_metadata(port: int, topic: str) -> Any:
    response = request_to(port, ApiKeys.METADATA, 9, topics=[dict(name=topic)], allow_auto_topic_creation=False,
                       include_cluster_authorized_operations=False, include_topic_authorized_operations=False)
    [found] = response.topics
    return found


def test_a_topic_created_through_a_broker_is_served_once_committed(cluster: ClusterRunner) -> None:
    runner = cluster
    ports = {b: runner.entry(b)["port"] for b in BROKERS}
    bootstrap = runner.run.read_manifest()["bootstrap_servers"]

    # ApiVersions on a KRaft broker: no controller-to-broker RPCs, and the data plane is there.
    advertised = {k.api_key for k in request_to(ports[4], ApiKeys.API_VERSIONS, 3, client_software_name="t",
                                             client_software_version="1").api_keys}
    assert {ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.METADATA, ApiKeys.CREATE_TOPICS, ApiKeys.JOIN_GROUP} <= advertised
    assert not advertised & {ApiKeys.LEADER_AND_ISR, ApiKeys.UPDATE_METADATA, ApiKeys.STOP_REPLICA,
                             ApiKeys.CONTROLLED_SHUTDOWN}
    assert topic_metadata(ports[5], "orders").error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION

    # CreateTopics through broker 4 (v4: below the controller's oldest, re-built on the way), answered after commit.
    created = request_to(ports[4], ApiKeys.CREATE_TOPICS, 4, timeout=30000, validate_only=False, topics=[
        dict(name="orders", num_partitions=3, replication_factor=2, assignments=[], configs=[])])
    assert [(t.name, t.error_code) for t in created.topics] == [("orders", Errors.NONE)]
    again = request_to(ports[5], ApiKeys.CREATE_TOPICS, 4, timeout=30000, validate_only=False, topics=[
        dict(name="orders", num_partitions=3, replication_factor=2, assignments=[], configs=[])])
    assert [t.error_code for t in again.topics] == [Errors.TOPIC_ALREADY_EXISTS]

    # The records are in the committed metadata log of the active controller ...
    leader = runner.wait_for_quorum(30)
    records = metadata_records(runner, leader)
    [(topic_offset, _, topic_record)] = of_type(records, "TOPIC_RECORD", name="orders")
    partitions = of_type(records, "PARTITION_RECORD", topicId=topic_record["topicId"])
    assert len(partitions) == 3 and all(offset > topic_offset for offset, _, _ in partitions)

    # ... and each broker serves the topic, every partition with a leader among the brokers.
    for port in ports.values():
        def served(p: int = port) -> bool:
            found = topic_metadata(p, "orders")
            return found.error_code == Errors.NONE and len(found.partitions) == 3 and all(
                part.error_code == Errors.NONE and part.leader_id in BROKERS for part in found.partitions)
        wait_until(served, 30, f"broker on port {port} serving orders")

    # kcat: produce with acks=all, read back, then read in a consumer group.
    payload = "".join(f"k{i}:v{i}\n" for i in range(50))
    produced = subprocess.run(["kcat", "-b", bootstrap, "-P", "-t", "orders", "-K:", "-X",
                               "topic.request.required.acks=-1"], input=payload, capture_output=True, text=True,
                              timeout=120)
    assert produced.returncode == 0, produced.stderr
    consumed = subprocess.run(["kcat", "-b", bootstrap, "-C", "-t", "orders", "-o", "beginning", "-e", "-q",
                               "-K:"], capture_output=True, text=True, timeout=120)
    assert sorted(consumed.stdout.split()) == sorted(f"k{i}:v{i}" for i in range(50))
    grouped = subprocess.run(["kcat", "-b", bootstrap, "-G", "orders-readers", "orders", "-o", "beginning", "-e",
                              "-q", "-X", "auto.offset.reset=earliest"], capture_output=True, text=True, timeout=120)
    assert sorted(grouped.stdout.split()) == sorted(f"v{i}" for i in range(50)), grouped.stderr
    offsets = topic_metadata(ports[4], "__consumer_offsets")
    assert offsets.error_code == Errors.NONE and len(offsets.partitions) == 4
