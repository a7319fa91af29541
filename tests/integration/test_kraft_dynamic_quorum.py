"""KIP-853 on real processes: `cluster up --mode kraft --dynamic-quorum` formats three Kafka 3.9 controllers with
`--initial-controllers` (no controller.quorum.voters: everyone finds the leader through
controller.quorum.bootstrap.servers) and one broker. The quorum grows by a fourth controller (started as an
observer, then made a voter with AddRaftVoter) and shrinks by its leader (RemoveRaftVoter: the leader resigns and the
other voters elect a new one), while a topic is produced to and consumed from before, between and after. The leader
refuses a voter that is already there, a voter it does not know, and a right id with a wrong directory id."""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.tools.tools.metadata_quorum_command import BROKER_ENDPOINT_TYPE, ControllerAdmin, RaftVoterError
from tests.integration.helpers import request_to, wait_until

TOPIC = "dynamic-quorum"
PARTITIONS = 3


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path / "traces", mode="kraft", controllers=3, dynamic_quorum=True, timeout_s=90)
    try:
        yield runner
    finally:
        runner.down()


def describe_quorum(runner: ClusterRunner) -> Any:
    """The leader's DescribeQuorum answer (partition data), through the bootstrap controllers."""
    manifest = runner.run.read_manifest()
    partition, _ = ControllerAdmin(manifest["bootstrap_controllers"]).describe_metadata_quorum()
    return partition


def voter_ids(runner: ClusterRunner) -> set[int]:
    return {v.replica_id for v in describe_quorum(runner).current_voters}


def produce(bootstrap: str, start: int, count: int) -> None:
    errors: list[Any] = []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                         "linger.ms": 5})
    for i in range(start, start + count):
        producer.produce(TOPIC, key=str(i).encode(), value=f"v{i}".encode(),
                         on_delivery=lambda err, _msg: errors.append(err) if err else None)
        producer.poll(0)
    assert producer.flush(60) == 0
    assert errors == []


def consume_all(bootstrap: str, expected: int) -> list[str]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(TOPIC, p, 0) for p in range(PARTITIONS)])
    values: list[str] = []

    def read_everything() -> bool:
        for message in consumer.consume(500, timeout=1):
            if message.error() is None:
                values.append(message.value().decode())
        return len(values) >= expected
    try:
        wait_until(read_everything, 60, f"{expected} records")
    finally:
        consumer.close()
    return values


def test_a_dynamic_quorum_grows_by_a_controller_and_shrinks_by_its_leader_while_clients_work(
        cluster: ClusterRunner) -> None:
    manifest = cluster.run.read_manifest()
    assert "controller.quorum.voters" not in Path(cluster.entry(1)["config"]).read_text()
    assert "controller.quorum.bootstrap.servers" in Path(cluster.entry(1)["config"]).read_text()
    bootstrap = manifest["bootstrap_servers"]
    assert voter_ids(cluster) == {1, 2, 3}
    quorum = describe_quorum(cluster)
    # the voters carry the directory ids the runner formatted them with
    assert {v.replica_id: str(Uuid.from_bytes(v.replica_directory_id.bytes)) for v in quorum.current_voters} == {
        p["id"]: p["directory_id"] for p in manifest["processes"] if p["role"] == "controller"}

    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept: its futures fail once it is collected
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(60)
    produce(bootstrap, 0, 20)
    assert sorted(consume_all(bootstrap, 20)) == sorted(f"v{i}" for i in range(20))

    # grow: the fourth controller fetches as an observer, then the leader adds it once it has caught up
    added = cluster.add_controller(90)
    assert added == 5  # node ids are one space: 1-3 the controllers, 4 the broker
    quorum = describe_quorum(cluster)
    assert {v.replica_id for v in quorum.current_voters} == {1, 2, 3, 5}
    assert 5 not in {o.replica_id for o in quorum.observers}
    assert cluster.raft_state(5)[0] in ("Leader", "Follower")
    produce(bootstrap, 20, 20)
    assert sorted(consume_all(bootstrap, 40)) == sorted(f"v{i}" for i in range(40))

    # shrink by the leader: it resigns once the change is committed and the other three elect a new leader
    old_leader = cluster.wait_for_quorum(60)
    old_epoch = describe_quorum(cluster).leader_epoch
    cluster.remove_controller(old_leader, 90)
    new_leader = cluster.wait_for_quorum(60)
    assert new_leader != old_leader
    quorum = describe_quorum(cluster)
    assert quorum.leader_id == new_leader and quorum.leader_epoch > old_epoch
    assert {v.replica_id for v in quorum.current_voters} == {1, 2, 3, 5} - {old_leader}
    assert old_leader not in {o.replica_id for o in quorum.observers}
    produce(bootstrap, 40, 20)
    assert sorted(consume_all(bootstrap, 60)) == sorted(f"v{i}" for i in range(60))


def test_the_leader_refuses_a_duplicate_an_unknown_voter_and_a_wrong_directory_id(cluster: ClusterRunner) -> None:
    manifest = cluster.run.read_manifest()
    admin = ControllerAdmin(manifest["bootstrap_controllers"])
    directory_ids = {p["id"]: Uuid.from_string(p["directory_id"]) for p in manifest["processes"]
                     if p["role"] == "controller"}
    entry = cluster.entry(2)

    # a voter already there: DUPLICATE_VOTER (the id is what counts)
    with pytest.raises(RaftVoterError) as duplicate:
        admin.add_raft_voter(2, directory_ids[2], [("CONTROLLER", "127.0.0.1", entry["port"])])
    assert duplicate.value.error == Errors.DUPLICATE_VOTER

    # a voter the quorum does not have: VOTER_NOT_FOUND
    with pytest.raises(RaftVoterError) as unknown:
        admin.remove_raft_voter(42, Uuid.random_uuid())
    assert unknown.value.error == Errors.VOTER_NOT_FOUND

    # the right id with another directory id is another replica: refused, and the voter stays
    with pytest.raises(RaftVoterError) as wrong_directory:
        admin.remove_raft_voter(2, Uuid.random_uuid())
    assert wrong_directory.value.error == Errors.VOTER_NOT_FOUND
    assert voter_ids(cluster) == {1, 2, 3}

    # through a broker, which forwards voter changes to the active controller: the leader's answer comes back
    through_broker = ControllerAdmin(manifest["bootstrap_servers"], BROKER_ENDPOINT_TYPE)
    with pytest.raises(RaftVoterError) as forwarded:
        through_broker.add_raft_voter(2, directory_ids[2], [("CONTROLLER", "127.0.0.1", entry["port"])])
    assert forwarded.value.error == Errors.DUPLICATE_VOTER
    with pytest.raises(RaftVoterError) as forwarded_remove:
        through_broker.remove_raft_voter(42, Uuid.random_uuid())
    assert forwarded_remove.value.error == Errors.VOTER_NOT_FOUND

    # the same through the tool's command line: one line on stderr, exit code 1
    from kafka_edu.v3_9.tools.tools.metadata_quorum_command import main
    assert main(["--bootstrap-controller", manifest["bootstrap_controllers"], "remove-controller",
                 "--controller-id", "2", "--controller-directory-id", str(Uuid.random_uuid())], io.StringIO()) == 1
    assert main(["--bootstrap-controller", manifest["bootstrap_controllers"], "remove-controller",
                 "--controller-id", "2", "--controller-directory-id", "not-a-uuid"], io.StringIO()) == 1
    assert voter_ids(cluster) == {1, 2, 3}

    # a controller advertises the kraft.version range it supports (the leader checks it before adding a voter)
    response = request_to(entry["port"], ApiKeys.API_VERSIONS, 3, client_software_name="kafka-edu-test",
                          client_software_version="1")
    supported = {f.name: (f.min_version, f.max_version) for f in response.supported_features}
    assert supported["kraft.version"] == (0, 1)
    assert supported["metadata.version"][0] == 1
