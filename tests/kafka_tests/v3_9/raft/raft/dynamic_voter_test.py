"""Port of raft/src/test/java/org/apache/kafka/raft/DynamicVoterTest.java (Kafka 3.9)."""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.dynamic_voter import DynamicVoter
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterNode
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/DynamicVoterTest.java",
    cases=[
        "testParseDynamicVoter",
        "testParseDynamicVoter2",
        "testParseDynamicVoterWithBrackets",
        "testParseDynamicVoterWithoutId",
        "testParseDynamicVoterWithoutId2",
        "testParseDynamicVoterWithInvalidNegativeId",
        "testFailedToParseNodeId",
        "testParseDynamicVoterWithoutHostname",
        "testParseDynamicVoterWithUnbalancedBrackets",
        "testNoColonFollowingHostname",
        "testPortSectionMustStartWithAColon",
        "testParseDynamicVoterWithNoColonFollowingPort",
        "testFailedToParsePort",
        "testInvalidNegativePort",
        "testInvalidPositivePort",
        "testFailedToParseDirectoryId",
        "testFailedToParseDirectoryId2",
        "testToVoterNode",
    ],
)


def assert_parse_fails(text: str, message: str) -> None:
    with pytest.raises(IllegalArgumentException) as e:
        DynamicVoter.parse(text)
    assert str(e.value) == message


def test_parse_dynamic_voter() -> None:
    assert DynamicVoter.parse("2@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ") == DynamicVoter(
        Uuid.from_string("K90IZ-0DRNazJ49kCZ1EMQ"), 2, "localhost", 8020)


def test_parse_dynamic_voter2() -> None:
    assert DynamicVoter.parse("100@192.128.0.100:800:__0IZ-0DRNazJ49kCZ1EMQ") == DynamicVoter(
        Uuid.from_string("__0IZ-0DRNazJ49kCZ1EMQ"), 100, "192.128.0.100", 800)


def test_parse_dynamic_voter_with_brackets() -> None:
    assert DynamicVoter.parse("5@[2001:4860:4860::8888]:8020:__0IZ-0DRNazJ49kCZ1EMQ") == DynamicVoter(
        Uuid.from_string("__0IZ-0DRNazJ49kCZ1EMQ"), 5, "2001:4860:4860::8888", 8020)


def test_parse_dynamic_voter_without_id() -> None:
    assert_parse_fails("localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ", "No @ found in dynamic voter string.")


def test_parse_dynamic_voter_without_id2() -> None:
    assert_parse_fails("@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ", "Invalid @ at beginning of dynamic voter string.")


def test_parse_dynamic_voter_with_invalid_negative_id() -> None:
    assert_parse_fails("-1@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ",
                       "Invalid negative node id -1 in dynamic voter string.")


def test_failed_to_parse_node_id() -> None:
    assert_parse_fails("blah@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ", "Failed to parse node id in dynamic voter string.")


def test_parse_dynamic_voter_without_hostname() -> None:
    assert_parse_fails("2@", "No hostname found after node id.")


def test_parse_dynamic_voter_with_unbalanced_brackets() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888:8020:__0IZ-0DRNazJ49kCZ1EMQ",
                       "Hostname began with left bracket, but no right bracket was found.")


def test_no_colon_following_hostname() -> None:
    assert_parse_fails("2@localhost8020K90IZ-0DRNazJ49kCZ1EMQ", "No colon following hostname could be found.")


def test_port_section_must_start_with_a_colon() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888]8020:__0IZ-0DRNazJ49kCZ1EMQ", "Port section must start with a colon.")


def test_parse_dynamic_voter_with_no_colon_following_port() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888]:8020__0IZ-0DRNazJ49kCZ1EMQ",
                       "No colon following port could be found.")


def test_failed_to_parse_port() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888]:8020m:__0IZ-0DRNazJ49kCZ1EMQ",
                       "Failed to parse port in dynamic voter string.")


def test_invalid_negative_port() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888]:-8020:__0IZ-0DRNazJ49kCZ1EMQ",
                       "Invalid port -8020 in dynamic voter string.")


def test_invalid_positive_port() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888]:666666:__0IZ-0DRNazJ49kCZ1EMQ",
                       "Invalid port 666666 in dynamic voter string.")


def test_failed_to_parse_directory_id() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888]:8020:%_0IZ-0DRNazJ49kCZ1EMQ",
                       "Failed to parse directory ID in dynamic voter string.")


def test_failed_to_parse_directory_id2() -> None:
    assert_parse_fails("5@[2001:4860:4860::8888]:8020:", "Failed to parse directory ID in dynamic voter string.")


def test_to_voter_node() -> None:
    voter_key = ReplicaKey.of(5, Uuid.from_string("__0IZ-0DRNazJ49kCZ1EMQ"))
    listeners = Endpoints.from_inet_socket_addresses({"CONTROLLER": ("localhost", 8020)})
    supported_kraft_version = SupportedVersionRange(0, 1)
    assert DynamicVoter.parse("5@localhost:8020:__0IZ-0DRNazJ49kCZ1EMQ").to_voter_node("CONTROLLER") == VoterNode.of(
        voter_key, listeners, supported_kraft_version)
