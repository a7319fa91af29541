"""Partitions, replicas and producers on a KRaft cluster of real processes (Kafka 3.9), through real clients:
ElectLeaders (preferred and unclean), AlterPartitionReassignments / ListPartitionReassignments (a reassignment that
moves a partition's data to other brokers and completes as they join the ISR), CreatePartitions with explicit
assignments, DescribeProducers and UnregisterBroker, each with the error codes 3.9 gives bad input; then the tools
(`kafka-edu reassign-partitions`, `leader-election`, `log-dirs`, `delete-records`) with --bootstrap-server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import ElectionType
from confluent_kafka import TopicPartition as ConfluentTopicPartition
from confluent_kafka.admin import AdminClient
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import (
    InvalidReplicationAssignmentError,
    KafkaError,
    UnknownTopicOrPartitionError,
)

from kafka_edu import cli
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until

# One controller (node 1), then brokers 2, 3 and 4.


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(3, tmp_path_factory.mktemp("partitions") / "traces", mode="kraft", controllers=1,
                              timeout_s=120, overrides=["offsets.topic.replication.factor=1",
                                                        "transaction.state.log.replication.factor=1",
                                                        "transaction.state.log.min.isr=1"])
    try:
        yield runner
    finally:
        runner.down()


@pytest.fixture
def admin(cluster: ClusterRunner) -> Iterator[KafkaAdminClient]:
    client = KafkaAdminClient(bootstrap_servers=cluster.run.read_manifest()["bootstrap_servers"],
                              api_version=(3, 9), request_timeout_ms=30000)
    try:
        yield client
    finally:
        client.close()


def bootstrap(cluster: ClusterRunner) -> str:
    return cluster.run.read_manifest()["bootstrap_servers"]


def broker_port(cluster: ClusterRunner) -> int:
    return next(p["port"] for p in cluster.run.read_manifest()["processes"] if p["role"] == "broker")


def partition(admin: KafkaAdminClient, topic: str, index: int = 0) -> dict[str, Any]:
    try:
        described = admin.describe_topics([topic])[0]
    except KafkaError:  # the broker asked has just been stopped: {} too, and the waits ask again
        return {}
    return next((p for p in described["partitions"] if p["partition_index"] == index), {})  # {}: not known yet


def create_topic(admin: KafkaAdminClient, name: str, assignments: dict[int, list[int]]) -> None:
    admin.create_topics([NewTopic(name, replica_assignments=assignments)])
    wait_until(lambda: all(partition(admin, name, p).get("leader_id") == replicas[0]
                           for p, replicas in assignments.items()), 30, f"{name}'s leaders")


def test_reorder_then_preferred_election_moves_the_leader(admin: KafkaAdminClient) -> None:
    create_topic(admin, "elect", {0: [2, 3]})
    # a reassignment that only reorders replicas in the ISR completes at once; the leader stays
    wait_until(lambda: sorted(partition(admin, "elect").get("isr_nodes", [])) == [2, 3], 30, "both replicas in the ISR")
    result = admin.alter_partition_reassignments({TopicPartition("elect", 0): [3, 2]})
    assert result == {TopicPartition("elect", 0): None}
    wait_until(lambda: partition(admin, "elect").get("replica_nodes") == [3, 2], 30, "replicas reordered")
    assert partition(admin, "elect")["leader_id"] == 2
    assert admin.list_partition_reassignments() == {}
    # the preferred election makes the first replica the leader
    admin.elect_leaders(0, {"elect": [0]})
    wait_until(lambda: partition(admin, "elect").get("leader_id") == 3, 30, "3 leads")
    # now there is nothing to elect, preferred or unclean (kafka-python does not raise ELECTION_NOT_NEEDED)
    for election_type in (0, 1):
        response = admin.elect_leaders(election_type, {"elect": [0]}, raise_errors=False)
        assert [(r.topic, [(p.partition_id, p.error_code) for p in r.partition_result])
                for r in response.replica_election_results] == [("elect", [(0, Errors.ELECTION_NOT_NEEDED)])]
    with pytest.raises(UnknownTopicOrPartitionError):
        admin.elect_leaders(0, {"no-such-topic": [0]})


def test_elect_leaders_with_an_unknown_election_type_is_an_invalid_request(cluster: ClusterRunner) -> None:
    response = request_to(broker_port(cluster), ApiKeys.ELECT_LEADERS, 2, election_type=7, timeout=30000,
                          topic_partitions=[dict(topic="elect", partitions=[0])])
    assert response.error_code == Errors.INVALID_REQUEST
    assert [(r.topic, [(p.partition_id, p.error_code, p.error_message) for p in r.partition_result])
            for r in response.replica_election_results] == [
        ("elect", [(0, Errors.INVALID_REQUEST, "Unknown election type 7")])]


def test_confluent_kafka_elect_leaders(cluster: ClusterRunner, admin: KafkaAdminClient) -> None:
    create_topic(admin, "elect-ck", {0: [3, 4]})
    client = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    future = client.elect_leaders(ElectionType.PREFERRED, [ConfluentTopicPartition("elect-ck", 0),
                                                          ConfluentTopicPartition("elect-ck", 7)])
    results = future.result(30)
    errors = {tp.partition: (err.code() if err is not None else 0) for tp, err in results.items()}
    assert errors == {0: Errors.ELECTION_NOT_NEEDED, 7: Errors.UNKNOWN_TOPIC_OR_PARTITION}


def test_reassignment_moves_the_data_and_completes(cluster: ClusterRunner, admin: KafkaAdminClient) -> None:
    create_topic(admin, "moving", {0: [2]})
    producer = KafkaProducer(bootstrap_servers=bootstrap(cluster), acks="all")
    for i in range(20):
        producer.send("moving", f"m{i}".encode(), partition=0)
    producer.flush(30)
    producer.close()
    result = admin.alter_partition_reassignments({TopicPartition("moving", 0): [3, 4]})
    assert result == {TopicPartition("moving", 0): None}
    # the new replicas join the ISR as they catch up, then the old one leaves and 3 takes over
    wait_until(lambda: partition(admin, "moving").get("replica_nodes") == [3, 4], 60, "the reassignment completes")
    wait_until(lambda: partition(admin, "moving").get("leader_id") == 3, 30, "3 leads")
    assert admin.list_partition_reassignments() == {}
    consumer = KafkaConsumer(bootstrap_servers=bootstrap(cluster), auto_offset_reset="earliest",
                             consumer_timeout_ms=10000, enable_auto_commit=False)
    consumer.assign([TopicPartition("moving", 0)])
    values = [record.value.decode() for _, record in zip(range(20), consumer, strict=False)]
    consumer.close()
    assert values == [f"m{i}" for i in range(20)]


def test_reassignment_errors(cluster: ClusterRunner, admin: KafkaAdminClient) -> None:
    create_topic(admin, "stay", {0: [4]})
    result = admin.alter_partition_reassignments({
        TopicPartition("stay", 0): None,  # cancel: none in progress
        TopicPartition("stay", 1): [2],  # no such partition
        TopicPartition("no-such-topic", 0): [2],
    })
    assert {tp: err.errno for tp, err in result.items()} == {
        TopicPartition("stay", 0): Errors.NO_REASSIGNMENT_IN_PROGRESS,
        TopicPartition("stay", 1): Errors.UNKNOWN_TOPIC_OR_PARTITION,
        TopicPartition("no-such-topic", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}
    result = admin.alter_partition_reassignments({TopicPartition("stay", 0): [4, 99]})
    assert result[TopicPartition("stay", 0)].errno == Errors.INVALID_REPLICA_ASSIGNMENT
    response = request_to(broker_port(cluster), ApiKeys.ALTER_PARTITION_REASSIGNMENTS, 0, timeout=30000, topics=[
        dict(name="stay", partitions=[dict(partition_index=0, replicas=[4, 4])])])
    error = response.responses[0].partitions[0]
    assert (error.error_code, error.error_message) == (
        Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes the broker 4 more than once.")
    assert partition(admin, "stay")["replica_nodes"] == [4]


def test_create_partitions_with_explicit_assignments(admin: KafkaAdminClient) -> None:
    create_topic(admin, "grow-manual", {0: [2, 3]})
    admin.create_partitions({"grow-manual": {"count": 3, "assignments": [[4, 2], [3, 4]]}})
    wait_until(lambda: len(admin.describe_topics(["grow-manual"])[0]["partitions"]) == 3, 30, "three partitions")
    assert partition(admin, "grow-manual", 1)["replica_nodes"] == [4, 2]
    assert partition(admin, "grow-manual", 2)["replica_nodes"] == [3, 4]
    with pytest.raises(InvalidReplicationAssignmentError):
        admin.create_partitions({"grow-manual": {"count": 4, "assignments": [[2, 99]]}})
    with pytest.raises(InvalidReplicationAssignmentError):
        admin.create_partitions({"grow-manual": {"count": 4, "assignments": [[2]]}})  # replication factor 2
    with pytest.raises(InvalidReplicationAssignmentError):
        admin.create_partitions({"grow-manual": {"count": 5, "assignments": [[2, 3]]}})  # two new, one given
    assert len(admin.describe_topics(["grow-manual"])[0]["partitions"]) == 3


def test_describe_producers(cluster: ClusterRunner, admin: KafkaAdminClient) -> None:
    create_topic(admin, "produced", {0: [2]})
    producer = KafkaProducer(bootstrap_servers=bootstrap(cluster), enable_idempotence=True, acks="all")
    producer.send("produced", b"x", partition=0).get(30)
    producer.flush(30)
    states = admin.describe_producers([TopicPartition("produced", 0)])
    producer.close()
    (state,) = states.values()
    (active,) = state.active_producers
    assert active.producer_id >= 0
    assert active.last_sequence == 0
    assert active.current_transaction_start_offset == -1
    response = request_to(broker_port(cluster), ApiKeys.DESCRIBE_PRODUCERS, 0, topics=[
        dict(name="no-such-topic", partition_indexes=[0]), dict(name="bad;name", partition_indexes=[0])])
    assert [(t.name, t.partitions[0].error_code) for t in response.topics] == [
        ("no-such-topic", Errors.UNKNOWN_TOPIC_OR_PARTITION), ("bad;name", Errors.INVALID_TOPIC_EXCEPTION)]


def test_unregister_broker_of_an_unknown_id(cluster: ClusterRunner) -> None:
    response = request_to(broker_port(cluster), ApiKeys.UNREGISTER_BROKER, 0, broker_id=99)
    assert response.error_code == Errors.BROKER_ID_NOT_REGISTERED


# -- the tools, as a user runs them against a KRaft cluster -------------------------------------------------------


def test_reassign_partitions_tool(cluster: ClusterRunner, admin: KafkaAdminClient, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    create_topic(admin, "tool-moved", {0: [2]})
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "tool-moved", "partition": 0,
                                                              "replicas": [3]}]}))
    common = ["--bootstrap-server", bootstrap(cluster)]
    assert cli.main(["reassign-partitions", "--execute", "--reassignment-json-file", str(plan), *common]) == 0
    said = capsys.readouterr().out
    assert "Current partition replica assignment" in said
    assert '{"version":1,"partitions":[{"topic":"tool-moved","partition":0,"replicas":[2],"log_dirs":["any"]}]}' \
        in said
    assert "Successfully started partition reassignment for tool-moved-0" in said

    def verified() -> bool:
        assert cli.main(["reassign-partitions", "--verify", "--reassignment-json-file", str(plan), *common]) == 0
        return "Reassignment of partition tool-moved-0 is completed." in capsys.readouterr().out
    wait_until(verified, 60, "--verify says completed")
    assert cli.main(["reassign-partitions", "--list", *common]) == 0
    assert "No partition reassignments found." in capsys.readouterr().out
    assert partition(admin, "tool-moved")["replica_nodes"] == [3]

    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps({"version": 1, "topics": [{"topic": "tool-moved"}]}))
    assert cli.main(["reassign-partitions", "--generate", "--topics-to-move-json-file", str(topics),
                     "--broker-list", "2,4", *common]) == 0
    said = capsys.readouterr().out.splitlines()
    proposed = json.loads(said[said.index("Proposed partition reassignment configuration") + 1])
    assert proposed["partitions"][0]["replicas"][0] in (2, 4)

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "partitions": [{"topic": "tool-moved", "partition": 0,
                                                             "replicas": [3, 99]}]}))
    assert cli.main(["reassign-partitions", "--execute", "--reassignment-json-file", str(bad), *common]) == 1
    assert "Unknown broker id 99" in capsys.readouterr().out
    assert cli.main(["reassign-partitions", "--cancel", "--reassignment-json-file", str(plan), *common]) == 0
    assert "None of the specified partition reassignments are active." in capsys.readouterr().out


def test_leader_election_tool(cluster: ClusterRunner, admin: KafkaAdminClient,
                              capsys: pytest.CaptureFixture[str]) -> None:
    create_topic(admin, "tool-elect", {0: [2, 4]})
    wait_until(lambda: sorted(partition(admin, "tool-elect").get("isr_nodes", [])) == [2, 4], 30, "both in the ISR")
    admin.alter_partition_reassignments({TopicPartition("tool-elect", 0): [4, 2]})
    wait_until(lambda: partition(admin, "tool-elect").get("replica_nodes") == [4, 2], 30, "replicas reordered")
    common = ["--bootstrap-server", bootstrap(cluster), "--election-type", "preferred"]
    assert cli.main(["leader-election", *common, "--topic", "tool-elect", "--partition", "0"]) == 0
    assert "Successfully completed leader election (PREFERRED) for partitions tool-elect-0" in \
        capsys.readouterr().out
    wait_until(lambda: partition(admin, "tool-elect").get("leader_id") == 4, 30, "4 leads")
    assert cli.main(["leader-election", *common, "--topic", "tool-elect", "--partition", "0"]) == 0
    assert "Valid replica already elected for partitions tool-elect-0" in capsys.readouterr().out
    assert cli.main(["leader-election", *common, "--topic", "nope", "--partition", "0"]) == 1
    captured = capsys.readouterr()
    assert ("Error completing leader election (PREFERRED) for partition: nope-0: "
            "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: No such topic as nope") in captured.out
    assert "1 replica(s) could not be elected" in captured.err
    assert cli.main(["leader-election", "--bootstrap-server", bootstrap(cluster), "--election-type", "unclean",
                     "--all-topic-partitions"]) == 0  # every partition has a leader: nothing to do, nothing listed
    assert cli.main(["leader-election", *common, "--topic", "tool-elect"]) == 1
    assert "Missing required option(s): partition" in capsys.readouterr().err


def test_log_dirs_and_delete_records_tools(cluster: ClusterRunner, admin: KafkaAdminClient, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    create_topic(admin, "tool-records", {0: [4]})
    producer = KafkaProducer(bootstrap_servers=bootstrap(cluster), acks="all")
    for i in range(10):
        producer.send("tool-records", f"r{i}".encode(), partition=0)
    producer.flush(30)
    producer.close()
    offsets = tmp_path / "offsets.json"
    offsets.write_text(json.dumps({"version": 1, "partitions": [{"topic": "tool-records", "partition": 0,
                                                                 "offset": 4}]}))
    assert cli.main(["delete-records", "--offset-json-file", str(offsets), "--bootstrap-server",
                     bootstrap(cluster)]) == 0
    assert "partition: tool-records-0\tlow_watermark: 4" in capsys.readouterr().out
    assert cli.main(["log-dirs", "--describe", "--broker-list", "4", "--topic-list", "tool-records",
                     "--bootstrap-server", bootstrap(cluster)]) == 0
    said = capsys.readouterr().out.splitlines()
    described = json.loads(said[-1])
    (log_dir,) = described["brokers"][0]["logDirs"]
    assert [p["partition"] for p in log_dir["partitions"]] == ["tool-records-0"]


def test_unclean_election_brings_a_leaderless_partition_back(cluster: ClusterRunner,
                                                             admin: KafkaAdminClient) -> None:
    """(Last: it stops brokers 3 and 4 and starts them again.) The partition's ISR shrinks to 3 as 4 shuts down;
    3 shuts down too and the partition has no leader, its ISR still [3]. 4 comes back, outside the ISR: a preferred
    election cannot help, an unclean one makes 4 the leader of an ISR of its own."""
    create_topic(admin, "unclean", {0: [3, 4]})
    wait_until(lambda: sorted(partition(admin, "unclean").get("isr_nodes", [])) == [3, 4], 30, "both in the ISR")
    cluster.stop(4)
    wait_until(lambda: partition(admin, "unclean").get("isr_nodes") == [3], 30, "4 left the ISR")
    cluster.stop(3)
    wait_until(lambda: partition(admin, "unclean").get("leader_id") == -1, 30, "no leader")
    cluster.start(4)
    cluster.wait_for_state(4, "RUNNING", 60)
    # a new client: the first one's idea of the brokers (and of the one it sends elections to) predates the restart
    fresh = KafkaAdminClient(bootstrap_servers=bootstrap(cluster), api_version=(3, 9), request_timeout_ms=30000)
    try:
        response = fresh.elect_leaders(0, {"unclean": [0]}, raise_errors=False)
        assert response.replica_election_results[0].partition_result[0].error_code == \
            Errors.PREFERRED_LEADER_NOT_AVAILABLE
        fresh.elect_leaders(1, {"unclean": [0]})
        wait_until(lambda: partition(fresh, "unclean").get("leader_id") == 4, 30, "4 leads, uncleanly")
        assert partition(fresh, "unclean")["isr_nodes"] == [4]
    finally:
        fresh.close()
        cluster.start(3)
        cluster.wait_for_state(3, "RUNNING", 60)
