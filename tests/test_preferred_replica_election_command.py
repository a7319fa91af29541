"""kafka-preferred-replica-election.sh against a real ZooKeeper: the tool hands partitions to the controller through
`/admin/preferred_replica_election`, refuses bad JSON, and refuses a second request while one is pending."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_edu import cli
from kafka_edu.v1_0_2.clients.common.errors import AdminCommandFailedException, AdminOperationException
from kafka_edu.v1_0_2.core.admin.preferred_replica_leader_election_command import (
    parse_preferred_replica_election_data,
    run,
    write_preferred_replica_election_data,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.zk_utils import PREFERRED_REPLICA_LEADER_ELECTION_PATH, ZkUtils

ELECTION = PREFERRED_REPLICA_LEADER_ELECTION_PATH


def create_topic(zookeeper, topic: str, assignment: dict[int, list[int]]) -> None:
    """What topic creation and the controller leave in ZooKeeper: the assignment and one znode per partition."""
    data = {"version": 1, "partitions": {str(p): replicas for p, replicas in assignment.items()}}
    zookeeper.client.create(f"/brokers/topics/{topic}", json.dumps(data).encode(), makepath=True)
    for partition in assignment:
        zookeeper.client.create(f"/brokers/topics/{topic}/partitions/{partition}", makepath=True)


def election_znode(zookeeper) -> dict:
    return json.loads(zookeeper.client.get(ELECTION)[0])


def write_json(tmp_path: Path, text: str) -> str:
    path = tmp_path / "election.json"
    path.write_text(text)
    return str(path)


# -- parsing (no ZooKeeper needed) --------------------------------------------------------------------------------

def test_parse_reads_the_partitions_as_a_set() -> None:
    data = '{"partitions": [{"topic": "foo", "partition": 1}, {"topic": "bar", "partition": 0}]}'
    assert parse_preferred_replica_election_data(data) == {TopicPartition("foo", 1), TopicPartition("bar", 0)}


@pytest.mark.parametrize(("text", "message"), [
    ('{"partitions": [{"topic": "foo", "partition": 1}, {"topic": "foo", "partition": 1}]}',
     "Preferred replica election data contains duplicate partitions: foo-1"),
    ('{"partitions": [{"topic": "foo", "partition": 1}', "Preferred replica election data is empty (it is not valid"),
    ('{"version": 1}', "Preferred replica election data is empty"),
    ('{"partitions": [{"topic": "foo"}]}', 'Missing field "partition"'),
    ('{"partitions": [{"topic": "foo", "partition": "1"}]}', 'Field "partition" of'),
])
def test_parse_refuses_bad_data(text: str, message: str) -> None:
    with pytest.raises(AdminOperationException, match=message.replace("(", r"\(")):
        parse_preferred_replica_election_data(text)


# -- against ZooKeeper --------------------------------------------------------------------------------------------

def test_without_a_file_every_partition_of_every_topic_is_elected(zookeeper, capsys) -> None:
    create_topic(zookeeper, "orders", {0: [1, 2], 1: [2, 1]})
    create_topic(zookeeper, "audit", {0: [2, 1]})

    run(zookeeper.connect, None)

    assert election_znode(zookeeper) == {"version": 1, "partitions": [
        {"topic": "audit", "partition": 0}, {"topic": "orders", "partition": 0}, {"topic": "orders", "partition": 1}]}
    assert "Successfully started preferred replica election for partitions {audit-0, orders-0, orders-1}" in (
        capsys.readouterr().out)


def test_the_controller_reads_back_what_the_tool_wrote(zookeeper) -> None:
    zk_utils = ZkUtils(zookeeper.connect, 30000, 30000)
    try:
        assert zk_utils.get_partitions_undergoing_preferred_replica_election() == set()
        partitions = {TopicPartition("orders", 0), TopicPartition("orders", 1)}
        write_preferred_replica_election_data(zk_utils, partitions)
        assert zk_utils.get_partitions_undergoing_preferred_replica_election() == partitions
    finally:
        zk_utils.close()


def test_partitions_that_do_not_exist_are_skipped_and_named(zookeeper, tmp_path, capsys) -> None:
    create_topic(zookeeper, "orders", {0: [1, 2]})
    path = write_json(tmp_path, '{"partitions": [{"topic": "orders", "partition": 0},'
                                ' {"topic": "orders", "partition": 7}, {"topic": "ghost", "partition": 0}]}')

    assert cli.main(["preferred-replica-election", "--path-to-json-file", path, "--zookeeper", zookeeper.connect]) == 0

    assert election_znode(zookeeper) == {"version": 1, "partitions": [{"topic": "orders", "partition": 0}]}
    out = capsys.readouterr().out
    assert "Skipping preferred replica leader election for partition ghost-0 since it doesn't exist." in out
    assert "Skipping preferred replica leader election for partition orders-7 since it doesn't exist." in out


@pytest.mark.parametrize(("text", "message"), [
    ('{"partitions": [{"topic": "orders", "partition": 0}, {"topic": "orders", "partition": 0}]}',
     "AdminOperationException: Preferred replica election data contains duplicate partitions: orders-0"),
    ("{partitions: nope", "AdminOperationException: Preferred replica election data is empty (it is not valid JSON)"),
])
def test_bad_json_is_refused_with_exit_code_1_and_nothing_is_written(zookeeper, tmp_path, capsys, text,
                                                                      message) -> None:
    create_topic(zookeeper, "orders", {0: [1, 2]})
    path = write_json(tmp_path, text)

    assert cli.main(["preferred-replica-election", "--path-to-json-file", path, "--zookeeper", zookeeper.connect]) == 1

    out = capsys.readouterr().out
    assert out.count("\n") == 1 and message in out
    assert not zookeeper.exists(ELECTION)


def test_a_second_election_is_refused_while_one_is_pending(zookeeper, tmp_path, capsys) -> None:
    create_topic(zookeeper, "orders", {0: [1, 2], 1: [2, 1]})
    pending = '{"version":1,"partitions":[{"topic":"orders","partition":1}]}'
    zookeeper.client.create(ELECTION, pending.encode(), makepath=True)

    with pytest.raises(AdminCommandFailedException) as failure:
        run(zookeeper.connect, None)
    assert isinstance(failure.value.__cause__, AdminOperationException)
    assert str(failure.value.__cause__) == ("Preferred replica leader election currently in progress for {orders-1}. "
                                            "Aborting operation")

    assert cli.main(["preferred-replica-election", "--zookeeper", zookeeper.connect]) == 1
    out = capsys.readouterr().out
    assert ("Failed to start preferred replica election: AdminCommandFailedException: Admin command failed "
            "(caused by AdminOperationException: Preferred replica leader election currently in progress") in out
    assert zookeeper.client.get(ELECTION)[0].decode() == pending


def test_the_zookeeper_defaults_to_the_newest_runs(zookeeper, tmp_path) -> None:
    create_topic(zookeeper, "orders", {0: [1, 2]})
    run_dir = tmp_path / "traces" / "20240101-000000-abcd"
    run_dir.mkdir(parents=True)
    (run_dir / "manifest.json").write_text(json.dumps({"zookeeper_connect": zookeeper.connect}))

    assert cli.main(["preferred-replica-election", "--traces", str(tmp_path / "traces")]) == 0

    assert election_znode(zookeeper) == {"version": 1, "partitions": [{"topic": "orders", "partition": 0}]}
