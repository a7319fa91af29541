"""Port of tools/src/test/java/org/apache/kafka/tools/reassign/ReassignPartitionsUnitTest.java (Kafka 3.9).

Kafka's MockAdminClient is `_MockAdminClient` below: the calls the port's tool makes of its admin client
(kafka-python's KafkaAdminClient), answered from brokers and topics held in memory as Kafka's mock answers them (a
reassignment is listed with the partition's current replicas, and adding/removing as the target makes them; each
partition's log is in the first log dir of its leader, and AlterReplicaLogDirs records a move that DescribeLogDirs
then shows as a future log in the new dir).
A partition of the port is a (topic, partition) tuple, a TopicPartitionReplica a (topic, partition, broker) tuple.
Kafka's mock leaves a replica of a topic it does not know out of describeReplicaLogDirs (MissingReplicaMoveState);
the port reads DescribeLogDirs as Kafka's real admin client does, which gives every replica of a broker that answered
an entry, with no current dir when no live dir has it: MissingLogDirMoveState (testFindLogDirMoveStates, quuz-0-0).
Where Kafka wraps an error in an ExecutionException the port raises it as such; an invalid reassignment JSON is an
AdminOperationException with Python's JSON parser's message rather than Jackson's ("Unexpected character").
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from kafka import TopicPartition as ClientTopicPartition
from kafka import TopicPartitionReplica as ClientTopicPartitionReplica
from kafka.errors import KafkaStorageError, NoError, ReplicaNotAvailableError, UnknownTopicOrPartitionError

from kafka_edu.v1_0_2.clients.common.errors import (
    AdminCommandFailedException,
    AdminOperationException,
    InvalidReplicationFactorException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.server_common.admin.admin_utils import BrokerMetadata
from kafka_edu.v3_9.tools.tools.reassign.reassign_partitions_command import (
    ActiveMoveState,
    CancelledMoveState,
    CompletedMoveState,
    MissingLogDirMoveState,
    MissingReplicaMoveState,
    TerseException,
    VerifyAssignmentResult,
    alter_partition_reassignments,
    alter_replica_log_dirs,
    cancel_assignment,
    cancel_partition_reassignments,
    compare_topic_partition_replicas,
    compare_topic_partitions,
    cur_reassignments_to_string,
    current_partition_replica_assignment_to_string,
    execute_assignment,
    find_log_dir_move_states,
    find_partition_reassignment_states,
    generate_assignment,
    get_broker_metadata,
    get_replica_assignment_for_partitions,
    get_replica_assignment_for_topics,
    parse_execute_assignment_args,
    parse_generate_assignment_args,
    partition_reassignment_states_to_string,
    replica_move_states_to_string,
    verify_assignment,
)
from tests.kafka_tests.referee import kafka_test_class

_THROTTLES = "replication throttles: the port's brokers have no quota managers, the tool sets no throttles"

KAFKA = kafka_test_class(
    "3.9", "tools/src/test/java/org/apache/kafka/tools/reassign/ReassignPartitionsUnitTest.java",
    cases=["testCompareTopicPartitions", "testCompareTopicPartitionReplicas", "testPartitionReassignStatesToString",
           "testFindPartitionReassignmentStates", "testFindLogDirMoveStates", "testReplicaMoveStatesToString",
           "testGetReplicaAssignments", "testGetBrokerRackInformation", "testParseGenerateAssignmentArgs",
           "testGenerateAssignmentFailsWithoutEnoughReplicas", "testGenerateAssignmentWithInvalidPartitionsFails",
           "testGenerateAssignmentWithInconsistentRacks", "testGenerateAssignmentWithFewerBrokers",
           "testCurrentPartitionReplicaAssignmentToString", "testMoveMap", "testParseExecuteAssignmentArgs",
           "testExecuteWithInvalidPartitionsFails", "testExecuteWithInvalidBrokerIdFails",
           "testModifyBrokerInterBrokerThrottle", "testModifyLogDirThrottle", "testCurReassignmentsToString",
           "testModifyTopicThrottles", "testAlterReplicaLogDirs", "testPropagateInvalidJsonError"],
    not_applicable={"testMoveMap": _THROTTLES, "testModifyBrokerInterBrokerThrottle": _THROTTLES,
                    "testModifyLogDirThrottle": _THROTTLES, "testModifyTopicThrottles": _THROTTLES},
)


DEFAULT_LOG_DIRS = ["/tmp/kafka-logs"]


class _MockAdminClient:
    """MockAdminClient: brokers 0..n-1 (or the given (id, rack) pairs), each with its log dirs (a None dir is
    offline), topics added by the test."""

    def __init__(self, num_brokers: int = 0, brokers: list[tuple[int, str | None]] | None = None,
                 broker_log_dirs: list[list[str | None]] | None = None) -> None:
        self.brokers = brokers if brokers is not None else [(i, None) for i in range(num_brokers)]
        self.broker_log_dirs = broker_log_dirs or [list(DEFAULT_LOG_DIRS) for _ in self.brokers]
        self.topics: dict[str, dict[int, list[int]]] = {}
        self.partition_log_dirs: dict[tuple[str, int], str | None] = {}
        self.replica_moves: dict[tuple[str, int, int], tuple[str | None, str]] = {}  # -> (current dir, future dir)
        self.reassignments: dict[tuple[str, int], list[int]] = {}

    def add_topic(self, name: str, partitions: dict[int, list[int]], leaders: dict[int, int] | None = None) -> None:
        """Each partition's log is in the first log dir of its leader (its first replica unless given)."""
        self.topics[name] = partitions
        for partition, replicas in partitions.items():
            leader = (leaders or {}).get(partition, replicas[0])
            self.partition_log_dirs[(name, partition)] = self.broker_log_dirs[leader][0]

    def complete_reassignments(self) -> None:
        """What the controller does in the end: each partition gets its target replicas."""
        for (topic, partition), target in self.reassignments.items():
            self.topics[topic][partition] = list(target)
        self.reassignments.clear()

    def complete_replica_moves(self) -> None:
        """What the brokers' ReplicaAlterLogDirsThreads do in the end: the future log replaces the current one."""
        for (topic, partition, _broker), (_current, future) in self.replica_moves.items():
            self.partition_log_dirs[(topic, partition)] = future
        self.replica_moves.clear()

    def describe_cluster(self) -> dict[str, Any]:
        return {"brokers": [{"broker_id": b, "host": "localhost", "port": 9092 + b, "rack": rack}
                            for b, rack in self.brokers]}

    def describe_topics(self, topics: list[str]) -> list[dict[str, Any]]:
        return [{"name": t, "error_code": Errors.UNKNOWN_TOPIC_OR_PARTITION, "partitions": []} if t not in self.topics
                else {"name": t, "error_code": Errors.NONE, "partitions": [
                    {"partition_index": p, "replica_nodes": list(r)} for p, r in self.topics[t].items()]}
                for t in topics]

    def alter_partition_reassignments(self, reassignments: dict[Any, list[int] | None]) -> dict[Any, Any]:
        results: dict[Any, Any] = {}
        for tp, replicas in reassignments.items():
            key = (tp.topic, tp.partition)
            if tp.topic not in self.topics or tp.partition not in self.topics[tp.topic]:
                results[tp] = UnknownTopicOrPartitionError
            elif replicas is None:
                self.reassignments.pop(key, None)
                results[tp] = None
            else:
                self.reassignments[key] = list(replicas)
                results[tp] = None
        return results

    def alter_replica_log_dirs(self, replica_assignments: dict[Any, str]) -> dict[Any, Any]:
        results: dict[Any, Any] = {}
        for replica, new_log_dir in replica_assignments.items():
            dirs = self.broker_log_dirs[replica.broker_id] if replica.broker_id < len(self.broker_log_dirs) else None
            if dirs is None:
                results[replica] = ReplicaNotAvailableError
            elif new_log_dir not in dirs:
                results[replica] = KafkaStorageError
            elif replica.topic not in self.topics or replica.partition not in self.topics[replica.topic]:
                results[replica] = ReplicaNotAvailableError
            else:
                key = (replica.topic, replica.partition, replica.broker_id)
                current_log_dir = self.partition_log_dirs.get((replica.topic, replica.partition))
                if new_log_dir == current_log_dir:  # the broker drops the future log: the move is cancelled
                    self.replica_moves.pop(key, None)
                else:
                    self.replica_moves[key] = (current_log_dir, new_log_dir)
                results[replica] = NoError
        return results

    def describe_log_dirs(self, topic_partitions: dict[str, list[int]] | None = None,
                          brokers: list[int] | None = None) -> list[dict[str, Any]]:
        """DescribeLogDirs as kafka-python hands it back: per broker, each log dir with the asked partitions it holds
        (is_future_key true for a future log)."""
        answers = []
        for broker in brokers if brokers is not None else [b for b, _ in self.brokers]:
            held: dict[str, dict[str, list[dict[str, Any]]]] = {d: {} for d in self.broker_log_dirs[broker] if d}
            for topic, partitions in (topic_partitions or {}).items():
                for partition in partitions:
                    current_log_dir = self.partition_log_dirs.get((topic, partition))
                    if current_log_dir is not None:
                        held.setdefault(current_log_dir, {}).setdefault(topic, []).append(
                            {"partition_index": partition, "partition_size": 0, "offset_lag": 0,
                             "is_future_key": False})
                    move = self.replica_moves.get((topic, partition, broker))
                    if move is not None:
                        held.setdefault(move[1], {}).setdefault(topic, []).append(
                            {"partition_index": partition, "partition_size": 0, "offset_lag": 0,
                             "is_future_key": True})
            answers.append({"broker": broker, "log_dirs": [
                {"error_code": 0, "log_dir": log_dir, "total_bytes": -1, "usable_bytes": -1,
                 "topics": [{"name": t, "partitions": p} for t, p in topics.items()]}
                for log_dir, topics in held.items()]})
        return answers

    def list_partition_reassignments(self, topic_partitions: dict[str, list[int]] | None = None
                                     ) -> dict[Any, dict[str, list[int]]]:
        results = {}
        for (topic, partition), target in self.reassignments.items():
            if topic_partitions is not None and partition not in topic_partitions.get(topic, []):
                continue
            current = self.topics[topic][partition]
            results[ClientTopicPartition(topic, partition)] = {
                "replicas": list(current), "adding_replicas": [r for r in target if r not in current],
                "removing_replicas": [r for r in current if r not in target]}
        return results


@pytest.fixture
def admin_client() -> Iterator[_MockAdminClient]:
    yield _MockAdminClient(num_brokers=4)


def add_topics(admin_client: _MockAdminClient) -> None:
    admin_client.add_topic("foo", {0: [0, 1, 2], 1: [1, 2, 3]})
    admin_client.add_topic("bar", {0: [2, 3, 0]})


def test_compare_topic_partitions() -> None:
    assert compare_topic_partitions(("abc", 0), ("abc", 1)) < 0
    assert not compare_topic_partitions(("def", 0), ("abc", 1)) < 0


def test_compare_topic_partition_replicas() -> None:
    assert compare_topic_partition_replicas(("def", 0, 0), ("abc", 0, 1)) < 0
    assert not compare_topic_partition_replicas(("def", 0, 0), ("cde", 0, 0)) < 0


def test_partition_reassign_states_to_string() -> None:
    states = {("foo", 0): ([1, 2, 3], [1, 2, 3], True), ("foo", 1): ([1, 2, 3], [1, 2, 4], False),
              ("bar", 0): ([1, 2, 3], [1, 2, 4], False)}
    assert partition_reassignment_states_to_string(states) == "\n".join([
        "Status of partition reassignment:",
        "Reassignment of partition bar-0 is still in progress.",
        "Reassignment of partition foo-0 is completed.",
        "Reassignment of partition foo-1 is still in progress."])


def test_find_partition_reassignment_states(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    # a reassignment
    reassignment_result = alter_partition_reassignments(admin_client, {("foo", 0): [0, 1, 3], ("quux", 0): [1, 2, 3]})
    assert list(reassignment_result) == [("quux", 0)]
    assert reassignment_result[("quux", 0)] is UnknownTopicOrPartitionError
    exp_states = {("foo", 0): ([0, 1, 2], [0, 1, 3], False), ("foo", 1): ([1, 2, 3], [1, 2, 3], True)}
    actual = find_partition_reassignment_states(admin_client, [(("foo", 0), [0, 1, 3]), (("foo", 1), [1, 2, 3])])
    assert actual == (exp_states, True)
    # cancelled
    cancel_result = cancel_partition_reassignments(admin_client, {("foo", 0), ("quux", 2)})
    assert list(cancel_result) == [("quux", 2)]
    assert cancel_result[("quux", 2)] is UnknownTopicOrPartitionError
    exp_states = {("foo", 0): ([0, 1, 2], [0, 1, 3], True), ("foo", 1): ([1, 2, 3], [1, 2, 3], True)}
    actual = find_partition_reassignment_states(admin_client, [(("foo", 0), [0, 1, 3]), (("foo", 1), [1, 2, 3])])
    assert actual == (exp_states, False)


def test_find_log_dir_move_states() -> None:
    admin_client = _MockAdminClient(num_brokers=4, broker_log_dirs=[
        ["/tmp/kafka-logs0", "/tmp/kafka-logs1"], ["/tmp/kafka-logs0", "/tmp/kafka-logs1"],
        ["/tmp/kafka-logs0", "/tmp/kafka-logs1"], ["/tmp/kafka-logs0", None]])
    add_topics(admin_client)
    admin_client.add_topic("quux", {0: [1, 2, 3]}, leaders={0: 2})
    replica_assignment = {ClientTopicPartitionReplica("foo", 0, 0): "/tmp/kafka-logs1",
                          ClientTopicPartitionReplica("quux", 0, 0): "/tmp/kafka-logs1"}
    assert set(admin_client.alter_replica_log_dirs(replica_assignment).values()) == {NoError}
    states = {
        ("bar", 0, 0): CompletedMoveState("/tmp/kafka-logs0"),
        ("foo", 0, 0): ActiveMoveState("/tmp/kafka-logs0", "/tmp/kafka-logs1", "/tmp/kafka-logs1"),
        ("foo", 1, 0): CancelledMoveState("/tmp/kafka-logs0", "/tmp/kafka-logs1"),
        ("quux", 1, 0): MissingLogDirMoveState("/tmp/kafka-logs1"),
        # Kafka's mock: MissingReplicaMoveState (see the module docstring)
        ("quuz", 0, 0): MissingLogDirMoveState("/tmp/kafka-logs0"),
    }
    target_moves = {("bar", 0, 0): "/tmp/kafka-logs0", ("foo", 0, 0): "/tmp/kafka-logs1",
                    ("foo", 1, 0): "/tmp/kafka-logs1", ("quux", 1, 0): "/tmp/kafka-logs1",
                    ("quuz", 0, 0): "/tmp/kafka-logs0"}
    assert find_log_dir_move_states(admin_client, target_moves) == states


def test_replica_move_states_to_string() -> None:
    states = {
        ("bar", 0, 0): CompletedMoveState("/tmp/kafka-logs0"),
        ("foo", 0, 0): ActiveMoveState("/tmp/kafka-logs0", "/tmp/kafka-logs1", "/tmp/kafka-logs1"),
        ("foo", 1, 0): CancelledMoveState("/tmp/kafka-logs0", "/tmp/kafka-logs1"),
        ("quux", 0, 0): MissingReplicaMoveState("/tmp/kafka-logs1"),
        ("quux", 1, 1): ActiveMoveState("/tmp/kafka-logs0", "/tmp/kafka-logs1", "/tmp/kafka-logs2"),
        ("quux", 2, 1): MissingLogDirMoveState("/tmp/kafka-logs1"),
    }
    assert replica_move_states_to_string(states) == "\n".join([
        "Reassignment of replica bar-0-0 completed successfully.",
        "Reassignment of replica foo-0-0 is still in progress.",
        "Partition foo-1 on broker 0 is not being moved from log dir /tmp/kafka-logs0 to /tmp/kafka-logs1.",
        "Partition quux-0 cannot be found in any live log directory on broker 0.",
        "Partition quux-1 on broker 1 is being moved to log dir /tmp/kafka-logs2 instead of /tmp/kafka-logs1.",
        "Partition quux-2 is not found in any live log dir on broker 1. "
        "There is likely an offline log directory on the broker."])


def test_get_replica_assignments(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    assert get_replica_assignment_for_topics(admin_client, ["foo"]) == {("foo", 0): [0, 1, 2], ("foo", 1): [1, 2, 3]}
    assert get_replica_assignment_for_partitions(admin_client, {("foo", 0), ("bar", 0)}) == {
        ("foo", 0): [0, 1, 2], ("bar", 0): [2, 3, 0]}
    with pytest.raises(UnknownTopicOrPartitionException) as e:
        get_replica_assignment_for_partitions(admin_client, {("foo", 0), ("foo", 10)})
    assert str(e.value) == "Unable to find partition: foo-10"


def test_get_broker_rack_information() -> None:
    admin_client = _MockAdminClient(brokers=[(0, "rack0"), (1, "rack1"), (2, None)])
    assert get_broker_metadata(admin_client, [0, 1], True) == [BrokerMetadata(0, "rack0"), BrokerMetadata(1, "rack1")]
    assert get_broker_metadata(admin_client, [0, 1], False) == [BrokerMetadata(0), BrokerMetadata(1)]
    with pytest.raises(AdminOperationException) as e:
        get_broker_metadata(admin_client, [1, 2], True)
    assert str(e.value).startswith("Not all brokers have rack information")
    assert get_broker_metadata(admin_client, [1, 2], False) == [BrokerMetadata(1), BrokerMetadata(2)]


def test_parse_generate_assignment_args() -> None:
    one_topic = '{"topics": [{"topic": "foo"}], "version":1}'
    for broker_list in ("1,1,2", "5,2,3,4,5"):
        with pytest.raises(AdminCommandFailedException) as e:
            parse_generate_assignment_args(one_topic, broker_list)
        assert str(e.value).startswith("Broker list contains duplicate entries")
    assert parse_generate_assignment_args(one_topic, "5,2,3,4") == ([5, 2, 3, 4], ["foo"])
    with pytest.raises(AdminCommandFailedException) as e:
        parse_generate_assignment_args('{"topics": [{"topic": "foo"},{"topic": "foo"}], "version":1}', "5,2,3,4")
    assert str(e.value).startswith("List of topics to reassign contains duplicate entries")
    assert parse_generate_assignment_args('{"topics": [{"topic": "foo"},{"topic": "bar"}], "version":1}',
                                          "5,3,4") == ([5, 3, 4], ["foo", "bar"])


def test_generate_assignment_fails_without_enough_replicas(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    with pytest.raises(InvalidReplicationFactorException) as e:
        generate_assignment(admin_client, '{"topics":[{"topic":"foo"},{"topic":"bar"}]}', "0,1", False,
                            io.StringIO())
    assert str(e.value).startswith("Replication factor: 3 larger than available brokers: 2")


def test_generate_assignment_with_invalid_partitions_fails() -> None:
    admin_client = _MockAdminClient(num_brokers=5)
    add_topics(admin_client)
    with pytest.raises(UnknownTopicOrPartitionException) as e:
        generate_assignment(admin_client, '{"topics":[{"topic":"foo"},{"topic":"quux"}]}', "0,1", False,
                            io.StringIO())
    assert str(e.value).startswith("Topic quux not found")


def test_generate_assignment_with_inconsistent_racks() -> None:
    admin_client = _MockAdminClient(brokers=[(0, "rack0"), (1, "rack0"), (2, None), (3, "rack1"), (4, "rack1"),
                                             (5, "rack2")])
    add_topics(admin_client)
    with pytest.raises(AdminOperationException) as e:
        generate_assignment(admin_client, '{"topics":[{"topic":"foo"}]}', "0,1,2,3", True, io.StringIO())
    assert str(e.value).startswith("Not all brokers have rack information.")
    # it succeeds with --disable-rack-aware
    _proposed, current = generate_assignment(admin_client, '{"topics":[{"topic":"foo"}]}', "0,1,2,3", False,
                                             io.StringIO())
    assert current == {("foo", 0): [0, 1, 2], ("foo", 1): [1, 2, 3]}


def test_generate_assignment_with_fewer_brokers(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    goal_brokers = [0, 1, 3]
    proposed, current = generate_assignment(admin_client, '{"topics":[{"topic":"foo"},{"topic":"bar"}]}',
                                            ",".join(map(str, goal_brokers)), False, io.StringIO())
    assert current == {("foo", 0): [0, 1, 2], ("foo", 1): [1, 2, 3], ("bar", 0): [2, 3, 0]}
    # the proposal only uses the brokers given
    assert all(set(replicas) <= set(goal_brokers) for replicas in proposed.values()), proposed


def test_current_partition_replica_assignment_to_string() -> None:
    proposed_parts = {("foo", 1): [1, 2, 3], ("bar", 0): [7, 8, 9]}
    current_parts = {("foo", 0): [1, 2, 3], ("foo", 1): [4, 5, 6], ("bar", 0): [7, 8], ("baz", 0): [10, 11, 12]}
    assert current_partition_replica_assignment_to_string(proposed_parts, current_parts) == "\n".join([
        "Current partition replica assignment",
        "",
        '{"version":1,"partitions":'
        '[{"topic":"bar","partition":0,"replicas":[7,8],"log_dirs":["any","any"]},'
        '{"topic":"foo","partition":1,"replicas":[4,5,6],"log_dirs":["any","any","any"]}]'
        "}",
        "",
        "Save this to use as the --reassignment-json-file option during rollback"])


def test_parse_execute_assignment_args() -> None:
    cases = [
        ('{"version":1,"partitions":[]}', "Partition reassignment list cannot be empty"),
        ('{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,1],"log_dirs":["any","any"]},'
         '{"topic":"foo","partition":0,"replicas":[2,3,4],"log_dirs":["any","any","any"]}]}',
         "Partition reassignment contains duplicate topic partitions"),
        ('{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,1],"log_dirs":["/abc","/def"]},'
         '{"topic":"foo","partition":0,"replicas":[2,3],"log_dirs":["/abc","/def"]}]}',
         "Partition reassignment contains duplicate topic partitions"),
        ('{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,0],"log_dirs":["/abc","/def"]},'
         '{"topic":"foo","partition":1,"replicas":[2,3],"log_dirs":["/abc","/def"]}]}',
         "Partition replica lists may not contain duplicate entries"),
    ]
    for json_text, message in cases:
        with pytest.raises(AdminCommandFailedException) as e:
            parse_execute_assignment_args(json_text)
        assert str(e.value).startswith(message)
    actual = parse_execute_assignment_args(
        '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2,3],"log_dirs":["any","any","any"]},'
        '{"topic":"foo","partition":1,"replicas":[3,4,5],"log_dirs":["any","any","any"]}]}')
    assert actual == ({("foo", 0): [1, 2, 3], ("foo", 1): [3, 4, 5]}, {})
    actual = parse_execute_assignment_args(
        '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2,3],'
        '"log_dirs":["/tmp/a","/tmp/b","/tmp/c"]}]}')
    assert actual == ({("foo", 0): [1, 2, 3]},
                      {("foo", 0, 1): "/tmp/a", ("foo", 0, 2): "/tmp/b", ("foo", 0, 3): "/tmp/c"})


def test_execute_with_invalid_partitions_fails() -> None:
    admin_client = _MockAdminClient(num_brokers=5)
    add_topics(admin_client)
    with pytest.raises(UnknownTopicOrPartitionException) as e:
        execute_assignment(admin_client, False,
                           '{"version":1,"partitions":'
                           '[{"topic":"foo","partition":0,"replicas":[0,1],"log_dirs":["any","any"]},'
                           '{"topic":"quux","partition":0,"replicas":[2,3,4],"log_dirs":["any","any","any"]}]}',
                           io.StringIO())
    assert str(e.value).startswith("Topic quux not found")


def test_execute_with_invalid_broker_id_fails(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    with pytest.raises(AdminCommandFailedException) as e:
        execute_assignment(admin_client, False,
                           '{"version":1,"partitions":'
                           '[{"topic":"foo","partition":0,"replicas":[0,1],"log_dirs":["any","any"]},'
                           '{"topic":"foo","partition":1,"replicas":[2,3,4],"log_dirs":["any","any","any"]}]}',
                           io.StringIO())
    assert str(e.value).startswith("Unknown broker id 4")


def test_cur_reassignments_to_string(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    assert cur_reassignments_to_string(admin_client) == "No partition reassignments found."
    reassignment_result = alter_partition_reassignments(admin_client, {
        ("foo", 1): [4, 5, 3], ("foo", 0): [0, 1, 4, 2], ("bar", 0): [2, 3]})
    assert reassignment_result == {}
    assert cur_reassignments_to_string(admin_client) == "\n".join([
        "Current partition reassignments:",
        "bar-0: replicas: 2,3,0. removing: 0.",
        "foo-0: replicas: 0,1,2. adding: 4.",
        "foo-1: replicas: 1,2,3. adding: 4,5. removing: 1,2."])


def test_alter_replica_log_dirs() -> None:
    admin_client = _MockAdminClient(num_brokers=4, broker_log_dirs=[["/tmp/kafka-logs0", "/tmp/kafka-logs1"]] * 4)
    add_topics(admin_client)
    assignment = {("foo", 0, 0): "/tmp/kafka-logs1", ("quux", 1, 0): "/tmp/kafka-logs1"}
    assert alter_replica_log_dirs(admin_client, assignment) == {("foo", 0, 0)}


def test_propagate_invalid_json_error(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    with pytest.raises(AdminOperationException) as e:
        execute_assignment(admin_client, False, "{invalid_json", io.StringIO())
    assert str(e.value).startswith("Expecting property name")  # Jackson: "Unexpected character"


# -- the port's own cases: --execute / --verify / --cancel with log dirs, on the mock ------------------------------
# (Kafka checks these in ReassignPartitionsCommandTest, on a real cluster with a log dir throttle; the port's
# real-cluster check is tests/integration/test_kraft_reassign_log_dirs.py.)

LOG_DIR_MOVE = ('{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,1,2],'
                '"log_dirs":["/tmp/kafka-logs1","any","any"]}]}')


def two_dir_admin_client() -> _MockAdminClient:
    admin_client = _MockAdminClient(num_brokers=4, broker_log_dirs=[["/tmp/kafka-logs0", "/tmp/kafka-logs1"]] * 4)
    add_topics(admin_client)
    return admin_client


def test_execute_moves_the_replicas_with_a_log_dir_after_the_reassignment() -> None:
    admin_client = two_dir_admin_client()
    out = io.StringIO()
    execute_assignment(admin_client, False, LOG_DIR_MOVE, out)
    admin_client.complete_reassignments()
    assert out.getvalue().splitlines()[-2:] == [
        "Successfully started partition reassignment for foo-0",
        "Successfully started moving log directory to /tmp/kafka-logs1 for replica foo-0 with broker 0 "]
    assert admin_client.replica_moves == {("foo", 0, 0): ("/tmp/kafka-logs0", "/tmp/kafka-logs1")}

    out = io.StringIO()
    result = verify_assignment(admin_client, LOG_DIR_MOVE, False, out)
    assert result == VerifyAssignmentResult(
        {("foo", 0): ([0, 1, 2], [0, 1, 2], True)}, False,
        {("foo", 0, 0): ActiveMoveState("/tmp/kafka-logs0", "/tmp/kafka-logs1", "/tmp/kafka-logs1")}, True)
    assert out.getvalue() == ("Status of partition reassignment:\n"
                              "Reassignment of partition foo-0 is completed.\n"
                              "Reassignment of replica foo-0-0 is still in progress.\n")

    admin_client.complete_replica_moves()
    out = io.StringIO()
    result = verify_assignment(admin_client, LOG_DIR_MOVE, False, out)
    assert result.move_states == {("foo", 0, 0): CompletedMoveState("/tmp/kafka-logs1")}
    assert not result.moves_ongoing
    assert out.getvalue().splitlines()[-1] == "Reassignment of replica foo-0-0 completed successfully."


def test_verify_without_log_dirs_prints_an_empty_move_report() -> None:
    admin_client = two_dir_admin_client()
    out = io.StringIO()
    result = verify_assignment(admin_client, '{"version":1,"partitions":[{"topic":"foo","partition":0,'
                                             '"replicas":[0,1,2]}]}', False, out)
    assert result == VerifyAssignmentResult({("foo", 0): ([0, 1, 2], [0, 1, 2], True)}, False, {}, False)
    assert out.getvalue() == "Status of partition reassignment:\nReassignment of partition foo-0 is completed.\n\n"


class _SlowReplicaAdminClient(_MockAdminClient):
    """A replica that its broker has not got yet: REPLICA_NOT_AVAILABLE for the first `unavailable_calls` calls."""

    def __init__(self, unavailable_calls: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unavailable_calls = unavailable_calls
        self.alter_calls = 0

    def alter_replica_log_dirs(self, replica_assignments: dict[Any, str]) -> dict[Any, Any]:
        self.alter_calls += 1
        if self.alter_calls <= self.unavailable_calls:
            return dict.fromkeys(replica_assignments, ReplicaNotAvailableError)
        return super().alter_replica_log_dirs(replica_assignments)


def test_execute_moves_asks_again_until_the_replica_is_there_or_the_timeout_passes() -> None:
    admin_client = _SlowReplicaAdminClient(3, num_brokers=4,
                                           broker_log_dirs=[["/tmp/kafka-logs0", "/tmp/kafka-logs1"]] * 4)
    add_topics(admin_client)
    time = MockTime()
    out = io.StringIO()
    execute_assignment(admin_client, False, LOG_DIR_MOVE, out, 10000, time)
    assert admin_client.alter_calls == 4  # three refusals, 100 ms apart, then accepted
    assert out.getvalue().splitlines()[-1] == ("Successfully started moving log directory to /tmp/kafka-logs1 for "
                                               "replica foo-0 with broker 0 ")

    admin_client = _SlowReplicaAdminClient(1000, num_brokers=4,
                                           broker_log_dirs=[["/tmp/kafka-logs0", "/tmp/kafka-logs1"]] * 4)
    add_topics(admin_client)
    with pytest.raises(TerseException) as e:
        execute_assignment(admin_client, True, LOG_DIR_MOVE.replace('"any","any"', '"/tmp/kafka-logs1","any"'),
                           io.StringIO(), 1000, MockTime())
    assert str(e.value) == "Timed out before log directory moves could be started for: foo-0-0,foo-0-1"
    assert admin_client.alter_calls == 11  # at 0, 100, ..., 1000 ms


def test_a_move_the_broker_refuses_fails_the_command_with_its_error() -> None:
    admin_client = two_dir_admin_client()
    with pytest.raises(AdminCommandFailedException) as e:
        execute_assignment(admin_client, False, LOG_DIR_MOVE.replace("/tmp/kafka-logs1", "/tmp/elsewhere"),
                           io.StringIO())
    assert str(e.value) == "Failed to alter dir for foo-0-0"
    assert isinstance(e.value.__cause__, KafkaStorageError)
    assert "Disk error when trying to access log file on the disk." in str(e.value.__cause__)


def test_cancel_sends_a_moving_replica_back_to_its_current_dir() -> None:
    admin_client = two_dir_admin_client()
    execute_assignment(admin_client, False, LOG_DIR_MOVE, io.StringIO())
    admin_client.complete_reassignments()
    out = io.StringIO()
    assert cancel_assignment(admin_client, LOG_DIR_MOVE, False, out) == (set(), {("foo", 0, 0)})
    assert out.getvalue() == ("None of the specified partition reassignments are active.\n"
                              "Successfully started moving log directory to /tmp/kafka-logs0 for replica foo-0 with "
                              "broker 0 \n")
    assert admin_client.replica_moves == {}

    out = io.StringIO()
    assert cancel_assignment(admin_client, LOG_DIR_MOVE, False, out) == (set(), set())
    assert out.getvalue() == ("None of the specified partition reassignments are active.\n"
                              "None of the specified partition moves are active.")
