"""kafka-reassign-partitions.sh against a real ZooKeeper: `--execute` validates the proposal and hands it to the
controller through `/admin/reassign_partitions`, `--verify` reads the progress back, `--generate` proposes a move."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_edu import cli
from kafka_edu.v1_0_2.clients.common.errors import AdminCommandFailedException, KafkaException
from kafka_edu.v1_0_2.core.admin.reassign_partitions_command import (
    ReassignmentStatus,
    execute_assignment,
    generate_assignment,
    verify_assignment,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    REASSIGN_PARTITIONS_PATH,
    ZkUtils,
    format_as_reassignment_json,
    parse_partition_reassignment_data,
    parse_partition_reassignment_data_without_dedup,
)

T0, T1, T2 = TopicPartition("orders", 0), TopicPartition("orders", 1), TopicPartition("orders", 2)


def create_topic(zookeeper, topic: str, assignment: dict[int, list[int]]) -> None:
    data = {"version": 1, "partitions": {str(p): replicas for p, replicas in assignment.items()}}
    zookeeper.client.create(f"/brokers/topics/{topic}", json.dumps(data).encode(), makepath=True)


def register_brokers(zookeeper, *broker_ids: int) -> None:
    for broker_id in broker_ids:
        registration = {"version": 4, "host": "127.0.0.1", "port": 9092 + broker_id, "jmx_port": -1,
                        "endpoints": [f"PLAINTEXT://127.0.0.1:{9092 + broker_id}"], "timestamp": "0"}
        zookeeper.client.create(f"/brokers/ids/{broker_id}", json.dumps(registration).encode(), makepath=True)


def reassignment(*entries: tuple[str, int, list[int]]) -> str:
    partitions = [{"topic": t, "partition": p, "replicas": r} for t, p, r in entries]
    return json.dumps({"version": 1, "partitions": partitions})


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def cluster(zookeeper):
    """Brokers 1, 2, 3 registered; `orders` with three partitions on them; a ZkUtils session like the tool's."""
    register_brokers(zookeeper, 1, 2, 3)
    create_topic(zookeeper, "orders", {0: [1, 2], 1: [2, 3], 2: [3, 1]})
    zk_utils = ZkUtils(zookeeper.connect, 30000, 30000)
    yield zookeeper, zk_utils
    zk_utils.close()


# -- the reassignment JSON (no ZooKeeper needed) ------------------------------------------------------------------

def test_reassignment_json_is_1_0_2s_layout() -> None:
    text = format_as_reassignment_json({T0: [2, 3], T1: [3, 1]})
    assert text == ('{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,3]},'
                    '{"topic":"orders","partition":1,"replicas":[3,1]}]}')
    assert parse_partition_reassignment_data(text) == {T0: [2, 3], T1: [3, 1]}


def test_parsing_without_dedup_keeps_every_entry_and_the_dict_keeps_the_last() -> None:
    text = reassignment(("orders", 0, [1]), ("orders", 0, [2]))
    assert parse_partition_reassignment_data_without_dedup(text) == [(T0, [1]), (T0, [2])]
    assert parse_partition_reassignment_data(text) == {T0: [2]}


def test_text_that_is_not_json_is_no_partitions_and_a_bad_entry_is_an_error() -> None:
    assert parse_partition_reassignment_data_without_dedup("{nope") == []
    assert parse_partition_reassignment_data_without_dedup('{"version": 1}') == []
    with pytest.raises(KafkaException, match='Missing field "replicas"'):
        parse_partition_reassignment_data('{"partitions": [{"topic": "orders", "partition": 0}]}')
    with pytest.raises(KafkaException, match="array of integers"):
        parse_partition_reassignment_data(reassignment(("orders", 0, ["1"])))


# -- the znode the controller works from ---------------------------------------------------------------------------

def test_zk_utils_reads_updates_and_finally_deletes_the_reassignment_znode(cluster) -> None:
    zookeeper, zk_utils = cluster
    assert zk_utils.get_partitions_being_reassigned() == {}

    zk_utils.update_partition_reassignment_data({T0: [2, 3], T1: [3, 1]})  # creates the znode
    assert zk_utils.get_partitions_being_reassigned() == {T0: [2, 3], T1: [3, 1]}
    zk_utils.update_partition_reassignment_data({T1: [3, 1]})  # one partition finished
    assert json.loads(zookeeper.client.get(REASSIGN_PARTITIONS_PATH)[0]) == {
        "version": 1, "partitions": [{"topic": "orders", "partition": 1, "replicas": [3, 1]}]}
    zk_utils.update_partition_reassignment_data({})  # all finished
    assert not zookeeper.exists(REASSIGN_PARTITIONS_PATH)


# -- --execute ------------------------------------------------------------------------------------------------------

def test_execute_prints_the_rollback_json_and_writes_the_znode(cluster, tmp_path, capsys) -> None:
    zookeeper, _ = cluster
    path = write(tmp_path, "move.json", reassignment(("orders", 0, [2, 3]), ("orders", 2, [1, 2])))

    assert cli.main(["reassign-partitions", "--execute", "--reassignment-json-file", path,
                     "--zookeeper", zookeeper.connect]) == 0

    assert zookeeper.client.get(REASSIGN_PARTITIONS_PATH)[0].decode() == (
        '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,3]},'
        '{"topic":"orders","partition":2,"replicas":[1,2]}]}')
    out = capsys.readouterr().out
    rollback = ('{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2]},'
                '{"topic":"orders","partition":1,"replicas":[2,3]},{"topic":"orders","partition":2,"replicas":[3,1]}]}')
    assert f"Current partition replica assignment\n\n{rollback}\n\nSave this to use" in out
    assert out.rstrip().endswith("Successfully started reassignment of partitions.")


def test_execute_refuses_every_kind_of_bad_proposal_and_writes_nothing(cluster, tmp_path, capsys) -> None:
    zookeeper, zk_utils = cluster
    create_topic(zookeeper, "audit", {0: [1, 2]})
    cases = [
        ('{"partitions": [{"topic": "orders",', "Partition reassignment data file is empty (it is not valid JSON)"),
        ('{"version": 1, "partitions": []}', "Partition reassignment data file is empty"),
        (reassignment(("orders", 0, [])), "Partition replica list cannot be empty"),
        (reassignment(("orders", 0, [2, 3]), ("orders", 0, [3, 1])),
         "Partition reassignment contains duplicate topic partitions: orders-0"),
        (reassignment(("orders", 0, [2, 2, 3]), ("audit", 0, [1, 3, 1])),
         "Partition replica lists may not contain duplicate entries: orders-0 contains multiple entries for 2. "
         "audit-0 contains multiple entries for 1"),
        (reassignment(("orders", 0, [2, 3]), ("orders", 5, [1, 2])),
         "The proposed assignment contains non-existent partitions: orders-5"),
        (reassignment(("ghost", 0, [1, 2])), "The proposed assignment contains non-existent partitions: ghost-0"),
        (reassignment(("orders", 0, [2, 9]), ("orders", 1, [7, 1])),
         "The proposed assignment contains non-existent brokerIDs: 7,9"),
    ]
    for text, message in cases:
        with pytest.raises(AdminCommandFailedException) as failure:
            execute_assignment(zk_utils, text)
        assert str(failure.value) == message

        path = write(tmp_path, "bad.json", text)
        assert cli.main(["reassign-partitions", "--execute", "--reassignment-json-file", path,
                         "--zookeeper", zookeeper.connect]) == 1, text
        out = capsys.readouterr().out
        assert out == f"Partitions reassignment failed due to AdminCommandFailedException: {message}\n", text
        assert not zookeeper.exists(REASSIGN_PARTITIONS_PATH), text


def test_execute_refuses_to_start_while_a_reassignment_runs(cluster, tmp_path, capsys) -> None:
    zookeeper, _ = cluster
    running = reassignment(("orders", 1, [1, 2]))
    zookeeper.client.create(REASSIGN_PARTITIONS_PATH, running.encode(), makepath=True)
    path = write(tmp_path, "move.json", reassignment(("orders", 0, [2, 3])))

    assert cli.main(["reassign-partitions", "--execute", "--reassignment-json-file", path,
                     "--zookeeper", zookeeper.connect]) == 1

    assert capsys.readouterr().out == "There is an existing assignment running.\n"
    assert zookeeper.client.get(REASSIGN_PARTITIONS_PATH)[0].decode() == running


# -- --verify -------------------------------------------------------------------------------------------------------

def test_verify_reports_each_partition_as_completed_in_progress_or_failed(cluster, tmp_path, capsys) -> None:
    zookeeper, zk_utils = cluster
    # orders-0 is still moving (in the znode); orders-1 was moved to [2,3]... which is where it is already;
    # orders-2 is out of the znode but its replicas are not the ones asked for.
    zookeeper.client.create(REASSIGN_PARTITIONS_PATH, reassignment(("orders", 0, [2, 3])).encode(), makepath=True)
    proposal = reassignment(("orders", 0, [2, 3]), ("orders", 1, [2, 3]), ("orders", 2, [1, 3]))

    assert verify_assignment(zk_utils, proposal) == {
        T0: ReassignmentStatus.IN_PROGRESS, T1: ReassignmentStatus.COMPLETED, T2: ReassignmentStatus.FAILED}
    capsys.readouterr()

    path = write(tmp_path, "move.json", proposal)
    assert cli.main(["reassign-partitions", "--verify", "--reassignment-json-file", path,
                     "--zookeeper", zookeeper.connect]) == 0
    # As in 1.0.2, the mismatch is explained while the statuses are gathered, before they are reported.
    assert capsys.readouterr().out.splitlines() == [
        "Status of partition reassignment: ",
        "ERROR: Assigned replicas (3,1) don't match the list of replicas for reassignment (1,3) for partition orders-2",
        "Reassignment of partition orders-0 is still in progress",
        "Reassignment of partition orders-1 completed successfully",
        "Reassignment of partition orders-2 failed",
    ]


def test_verify_after_the_controller_finished_reports_completion(cluster, tmp_path, capsys) -> None:
    zookeeper, zk_utils = cluster
    path = write(tmp_path, "move.json", reassignment(("orders", 0, [2, 3])))
    assert cli.main(["reassign-partitions", "--execute", "--reassignment-json-file", path,
                     "--zookeeper", zookeeper.connect]) == 0
    # What the controller does at the end of a reassignment: the new assignment in /brokers/topics, the znode gone.
    zookeeper.client.set("/brokers/topics/orders",
                         b'{"version":1,"partitions":{"0":[2,3],"1":[2,3],"2":[3,1]}}')
    zk_utils.update_partition_reassignment_data({})
    capsys.readouterr()

    assert cli.main(["reassign-partitions", "--verify", "--reassignment-json-file", path,
                     "--zookeeper", zookeeper.connect]) == 0
    assert "Reassignment of partition orders-0 completed successfully" in capsys.readouterr().out


# -- --generate -----------------------------------------------------------------------------------------------------

def test_generate_spreads_each_topic_over_the_listed_brokers(cluster, tmp_path, capsys) -> None:
    zookeeper, zk_utils = cluster
    register_brokers(zookeeper, 4)
    topics = '{"version": 1, "topics": [{"topic": "orders"}, {"topic": "ghost"}]}'

    proposed, current = generate_assignment(zk_utils, [2, 3, 4], topics)

    assert current == {T0: [1, 2], T1: [2, 3], T2: [3, 1]}
    assert set(proposed) == {T0, T1, T2}  # the topic that does not exist is left out
    for replicas in proposed.values():
        assert len(replicas) == 2 and len(set(replicas)) == 2 and set(replicas) <= {2, 3, 4}
    assert {replicas[0] for replicas in proposed.values()} == {2, 3, 4}  # leaders round-robin

    path = write(tmp_path, "topics.json", topics)
    assert cli.main(["reassign-partitions", "--generate", "--topics-to-move-json-file", path, "--broker-list", "2,3,4",
                     "--zookeeper", zookeeper.connect]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Current partition replica assignment"
    assert lines[1] == format_as_reassignment_json(current)
    assert lines[3] == "Proposed partition reassignment configuration"
    assert set(json.loads(lines[4])["partitions"][0]) == {"topic", "partition", "replicas"}
    assert not zookeeper.exists(REASSIGN_PARTITIONS_PATH)  # generating only proposes


def test_generate_refuses_duplicates_and_too_few_live_brokers(cluster, tmp_path, capsys) -> None:
    zookeeper, zk_utils = cluster
    path = write(tmp_path, "topics.json", '{"topics": [{"topic": "orders"}]}')
    base = ["reassign-partitions", "--generate", "--topics-to-move-json-file", path, "--zookeeper", zookeeper.connect]

    assert cli.main([*base, "--broker-list", "1,2,1"]) == 1
    assert capsys.readouterr().out == ("Partitions reassignment failed due to AdminCommandFailedException: "
                                       "Broker list contains duplicate entries: 1\n")

    with pytest.raises(AdminCommandFailedException, match="List of topics to reassign contains duplicate entries: a"):
        generate_assignment(zk_utils, [1, 2], '{"topics": [{"topic": "a"}, {"topic": "a"}]}')

    # Broker 9 is not registered, so only broker 1 is left for a replication factor of 2.
    assert cli.main([*base, "--broker-list", "1,9"]) == 1
    assert capsys.readouterr().out == ("Partitions reassignment failed due to InvalidReplicationFactorException: "
                                       "Replication factor: 2 larger than available brokers: 1.\n")


# -- the command line's usage errors (no ZooKeeper is contacted) ---------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["--execute"], "If --execute option is used, command must include --reassignment-json-file"),
    (["--verify"], "If --verify option is used, command must include --reassignment-json-file"),
    (["--generate", "--broker-list", "1,2"], "If --generate option is used, command must include both"),
    (["--verify", "--reassignment-json-file", "f.json", "--broker-list", "1"],
     "Option \"--verify\" can't be used with option \"--broker-list\""),
    (["--generate", "--topics-to-move-json-file", "t.json", "--broker-list", "1,2", "--reassignment-json-file", "f"],
     "Option \"--generate\" can't be used with option \"--reassignment-json-file\""),
    (["--generate", "--topics-to-move-json-file", "t.json", "--broker-list", "1,x"], "--broker-list takes broker ids"),
])
def test_usage_errors_exit_with_2(args: list[str], message: str, capsys) -> None:
    assert cli.main(["reassign-partitions", *args, "--zookeeper", "127.0.0.1:1"]) == 2
    assert message in capsys.readouterr().out


def test_two_actions_at_once_are_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["reassign-partitions", "--execute", "--verify", "--reassignment-json-file", "f.json"])
    assert exit_.value.code == 2
