"""Port of tools/src/test/java/org/apache/kafka/tools/reassign/ReassignPartitionsUnitTest.java (Kafka 3.9).

Kafka's MockAdminClient is `_MockAdminClient` below: the calls the port's tool makes of its admin client
(kafka-python's KafkaAdminClient), answered from brokers and topics held in memory as Kafka's mock answers them (a
reassignment is listed with the partition's current replicas, and adding/removing as the target makes them).
A partition of the port is a (topic, partition) tuple. Where Kafka wraps an error in an ExecutionException the port
raises it as such; an invalid reassignment JSON is an AdminOperationException with Python's JSON parser's message
rather than Jackson's ("Unexpected character").
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from kafka import TopicPartition as ClientTopicPartition
from kafka.errors import UnknownTopicOrPartitionError

from kafka_edu.v1_0_2.clients.common.errors import (
    AdminCommandFailedException,
    AdminOperationException,
    InvalidReplicationFactorException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.server_common.admin.admin_utils import BrokerMetadata
from kafka_edu.v3_9.tools.tools.reassign.reassign_partitions_command import (
    alter_partition_reassignments,
    cancel_partition_reassignments,
    compare_topic_partitions,
    cur_reassignments_to_string,
    current_partition_replica_assignment_to_string,
    execute_assignment,
    find_partition_reassignment_states,
    generate_assignment,
    get_broker_metadata,
    get_replica_assignment_for_partitions,
    get_replica_assignment_for_topics,
    parse_execute_assignment_args,
    parse_generate_assignment_args,
    partition_reassignment_states_to_string,
)
from tests.kafka_tests.referee import kafka_test_class

_LOG_DIRS = "moves between a broker's log directories: AlterReplicaLogDirs is not served by the port's brokers"
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
    not_applicable={"testCompareTopicPartitionReplicas": _LOG_DIRS, "testFindLogDirMoveStates": _LOG_DIRS,
                    "testReplicaMoveStatesToString": _LOG_DIRS, "testAlterReplicaLogDirs": _LOG_DIRS,
                    "testMoveMap": _THROTTLES, "testModifyBrokerInterBrokerThrottle": _THROTTLES,
                    "testModifyLogDirThrottle": _THROTTLES, "testModifyTopicThrottles": _THROTTLES},
)


class _MockAdminClient:
    """MockAdminClient: brokers 0..n-1 (or the given (id, rack) pairs), topics added by the test."""

    def __init__(self, num_brokers: int = 0, brokers: list[tuple[int, str | None]] | None = None) -> None:
        self.brokers = brokers if brokers is not None else [(i, None) for i in range(num_brokers)]
        self.topics: dict[str, dict[int, list[int]]] = {}
        self.reassignments: dict[tuple[str, int], list[int]] = {}

    def add_topic(self, name: str, partitions: dict[int, list[int]]) -> None:
        self.topics[name] = partitions

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


def test_propagate_invalid_json_error(admin_client: _MockAdminClient) -> None:
    add_topics(admin_client)
    with pytest.raises(AdminOperationException) as e:
        execute_assignment(admin_client, False, "{invalid_json", io.StringIO())
    assert str(e.value).startswith("Expecting property name")  # Jackson: "Unexpected character"
