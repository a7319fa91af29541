"""Port of tools/src/test/java/org/apache/kafka/tools/LeaderElectionCommandErrorTest.java (Kafka 3.9).

testInvalidBroker asks a closed local port (Kafka's example.com:1234 needs a network the tests do not rely on); the
timeout's cause is the client library's (kafka-python's KafkaTimeoutError) where Kafka's Admin gives a
TimeoutException.
"""

from __future__ import annotations

import io

import pytest

from kafka_edu.v1_0_2.clients.common.errors import AdminCommandFailedException
from kafka_edu.v3_9.tools.tools import leader_election_command as LeaderElectionCommand
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "tools/src/test/java/org/apache/kafka/tools/LeaderElectionCommandErrorTest.java",
    cases=["testTopicWithoutPartition", "testPartitionWithoutTopic", "testMissingElectionType",
           "testMissingTopicPartitionSelection", "testInvalidBroker"],
)


def main_no_exit(args: list[str]) -> tuple[int, str]:
    """mainNoExit, and what it wrote to stderr (ToolsTestUtils.captureStandardErr)."""
    err = io.StringIO()
    return LeaderElectionCommand.main(args, out=io.StringIO(), err=err), err.getvalue()


def test_topic_without_partition() -> None:
    code, out = main_no_exit(["--bootstrap-server", "nohost:9092", "--election-type", "unclean",
                              "--topic", "some-topic"])
    assert code == 1
    assert out.startswith("Missing required option(s)")
    assert " partition" in out


def test_partition_without_topic() -> None:
    code, out = main_no_exit(["--bootstrap-server", "nohost:9092", "--election-type", "unclean",
                              "--all-topic-partitions", "--partition", "0"])
    assert code == 1
    assert out.startswith("Option partition is only allowed if topic is used")


def test_missing_election_type() -> None:
    code, out = main_no_exit(["--bootstrap-server", "nohost:9092", "--topic", "some-topic", "--partition", "0"])
    assert code == 1
    assert out.startswith("Missing required option(s)")
    assert " election-type" in out


def test_missing_topic_partition_selection() -> None:
    code, out = main_no_exit(["--bootstrap-server", "nohost:9092", "--election-type", "preferred"])
    assert code == 1
    assert out.startswith("One and only one of the following options is required: ")
    assert " all-topic-partitions" in out
    assert " topic" in out
    assert " path-to-json-file" in out


def test_invalid_broker() -> None:
    with pytest.raises(AdminCommandFailedException) as e:
        LeaderElectionCommand.run(1000, ["--bootstrap-server", "127.0.0.1:1", "--election-type", "unclean",
                                         "--all-topic-partitions"], io.StringIO())
    assert type(e.value.__cause__).__name__ == "KafkaTimeoutError"
