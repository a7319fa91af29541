"""A KRaft broker's admin APIs on real processes (Kafka 3.9): CreatePartitions forwarded to the active controller
(kafka-python's KafkaAdminClient), DescribeCluster from the broker's metadata (confluent-kafka's AdminClient),
DescribeTopicPartitions paged by a cursor (raw requests, and confluent-kafka's describe_topics), and DescribeConfigs
of a topic and a broker (confluent-kafka's describe_configs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import TopicCollection
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource
from confluent_kafka.admin import NewTopic as ConfluentNewTopic
from kafka.admin import KafkaAdminClient, NewPartitions, NewTopic
from kafka.errors import InvalidPartitionsError

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path_factory.mktemp("admin") / "traces", mode="kraft", controllers=1,
                              timeout_s=120, overrides=["default.replication.factor=2",
                                                        "offsets.topic.replication.factor=2"])
    try:
        yield runner
    finally:
        runner.down()


def describe_topic_partitions(port: int, topics: list[str], limit: int, cursor: dict[str, Any] | None = None
                              ) -> Any:
    return request_to(port, ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0, topics=[dict(name=t) for t in topics],
                      response_partition_limit=limit, cursor=cursor)


def test_create_partitions_goes_to_the_controller_and_refuses_a_decrease(cluster: ClusterRunner) -> None:
    admin = KafkaAdminClient(bootstrap_servers=cluster.run.read_manifest()["bootstrap_servers"])
    try:
        admin.create_topics([NewTopic("grow", 2, 2)])
        admin.create_partitions({"grow": NewPartitions(4)}, validate_only=True)
        assert len(admin.describe_topics(["grow"])[0]["partitions"]) == 2  # validate_only: nothing written
        admin.create_partitions({"grow": NewPartitions(4)})
        wait_until(lambda: len(admin.describe_topics(["grow"])[0]["partitions"]) == 4, 30, "four partitions")
        with pytest.raises(InvalidPartitionsError):
            admin.create_partitions({"grow": NewPartitions(3)})
        with pytest.raises(InvalidPartitionsError):
            admin.create_partitions({"grow": NewPartitions(4)})  # no increase
        partitions = admin.describe_topics(["grow"])[0]["partitions"]
        assert sorted(p["partition_index"] for p in partitions) == [0, 1, 2, 3]
        assert all(len(p["replica_nodes"]) == 2 and p["leader_id"] in p["replica_nodes"] for p in partitions)
    finally:
        admin.close()


def test_describe_cluster_lists_the_brokers_and_names_a_broker_as_controller(cluster: ClusterRunner) -> None:
    manifest = cluster.run.read_manifest()
    admin = AdminClient({"bootstrap.servers": manifest["bootstrap_servers"]})
    description = admin.describe_cluster(request_timeout=30).result(30)
    brokers = {p["id"]: p["port"] for p in manifest["processes"] if p["role"] == "broker"}
    assert {node.id: node.port for node in description.nodes} == brokers
    assert description.controller.id in brokers  # clients are never sent to a KRaft controller
    assert description.cluster_id == manifest["cluster_id"]


def test_describe_topic_partitions_pages_with_a_cursor(cluster: ClusterRunner) -> None:
    manifest = cluster.run.read_manifest()
    admin = KafkaAdminClient(bootstrap_servers=manifest["bootstrap_servers"])
    try:
        admin.create_topics([NewTopic("page-a", 3, 1), NewTopic("page-b", 2, 1)])
    finally:
        admin.close()
    port = next(p["port"] for p in manifest["processes"] if p["role"] == "broker")
    wait_until(lambda: [len(t.partitions) for t in describe_topic_partitions(port, ["page-a", "page-b"], 10).topics]
               == [3, 2], 30, "both topics in the broker's metadata")

    first = describe_topic_partitions(port, ["page-b", "page-a", "missing"], 2)
    # in name order: "missing" (which does not exist) first, then as many partitions as the limit allows
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in first.topics] == [
        ("missing", []), ("page-a", [0, 1])]
    assert first.topics[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert (first.next_cursor.topic_name, first.next_cursor.partition_index) == ("page-a", 2)
    second = describe_topic_partitions(port, ["page-b", "page-a", "missing"], 2,
                                       dict(topic_name="page-a", partition_index=2))
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in second.topics] == [
        ("page-a", [2]), ("page-b", [0])]
    assert (second.next_cursor.topic_name, second.next_cursor.partition_index) == ("page-b", 1)

    refused = describe_topic_partitions(port, ["page-a"], 2, dict(topic_name="page-b", partition_index=0))
    assert [(t.name, t.error_code) for t in refused.topics] == [("page-a", Errors.INVALID_REQUEST)]

    # librdkafka's describe_topics asks the same API
    client = AdminClient({"bootstrap.servers": manifest["bootstrap_servers"]})
    described = client.describe_topics(TopicCollection(["page-a"]), request_timeout=30)["page-a"].result(30)
    assert [p.id for p in described.partitions] == [0, 1, 2]


def test_describe_configs_of_a_topic_and_a_broker(cluster: ClusterRunner) -> None:
    manifest = cluster.run.read_manifest()
    admin = AdminClient({"bootstrap.servers": manifest["bootstrap_servers"]})
    admin.create_topics([ConfluentNewTopic("described", 1, 1, config={"cleanup.policy": "compact"})],
                        request_timeout=30)["described"].result(30)
    topic = ConfigResource(ConfigResource.Type.TOPIC, "described")

    def topic_configs() -> dict[str, Any] | None:
        try:
            return admin.describe_configs([topic], request_timeout=30)[topic].result(30)
        except Exception:  # UNKNOWN_TOPIC_OR_PARTITION until the broker's metadata has the topic
            return None

    wait_until(lambda: topic_configs() is not None, 30, "the topic in the broker's metadata")
    configs = topic_configs()
    assert configs is not None
    assert configs["cleanup.policy"].value == "compact"
    assert ConfigSource(configs["cleanup.policy"].source) == ConfigSource.DYNAMIC_TOPIC_CONFIG
    assert configs["message.timestamp.type"].value == "CreateTime"
    assert ConfigSource(configs["message.timestamp.type"].source) == ConfigSource.DEFAULT_CONFIG

    broker_id = next(p["id"] for p in manifest["processes"] if p["role"] == "broker")
    broker = ConfigResource(ConfigResource.Type.BROKER, str(broker_id))
    broker_configs = admin.describe_configs([broker], request_timeout=30)[broker].result(30)
    assert broker_configs["node.id"].value == str(broker_id)
    assert ConfigSource(broker_configs["node.id"].source) == ConfigSource.STATIC_BROKER_CONFIG
    assert broker_configs["node.id"].is_read_only
