"""Port of raft/src/test/java/org/apache/kafka/raft/DynamicVotersTest.java (Kafka 3.9)."""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.dynamic_voter import DynamicVoter
from kafka_edu.v3_9.raft.raft.dynamic_voters import DynamicVoters
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/DynamicVotersTest.java",
    cases=[
        "testParsingEmptyStringFails",
        "testParsingSingleDynamicVoter",
        "testParsingThreeDynamicVoters",
        "testParsingInvalidStringWithDuplicateNodeIds",
        "testRoundTripSingleVoter",
        "testRoundTripThreeVoters",
        "testToVoterSet",
    ],
)

THREE_VOTERS = ("0@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ,"
                "1@localhost:8030:aUARLskQTCW4qCZDtS_cwA,"
                "2@localhost:8040:2ggvsS4kQb-fSJ_-zC_Ang")


def test_parsing_empty_string_fails() -> None:
    with pytest.raises(IllegalArgumentException) as e:
        DynamicVoters.parse("")
    assert str(e.value) == "No voters given."


def test_parsing_single_dynamic_voter() -> None:
    assert DynamicVoters.parse("2@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ") == DynamicVoters([
        DynamicVoter(Uuid.from_string("K90IZ-0DRNazJ49kCZ1EMQ"), 2, "localhost", 8020)])


def test_parsing_three_dynamic_voters() -> None:
    assert DynamicVoters.parse(THREE_VOTERS) == DynamicVoters([
        DynamicVoter(Uuid.from_string("K90IZ-0DRNazJ49kCZ1EMQ"), 0, "localhost", 8020),
        DynamicVoter(Uuid.from_string("aUARLskQTCW4qCZDtS_cwA"), 1, "localhost", 8030),
        DynamicVoter(Uuid.from_string("2ggvsS4kQb-fSJ_-zC_Ang"), 2, "localhost", 8040)])


def test_parsing_invalid_string_with_duplicate_node_ids() -> None:
    with pytest.raises(IllegalArgumentException) as e:
        DynamicVoters.parse("0@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ,"
                            "1@localhost:8030:aUARLskQTCW4qCZDtS_cwA,"
                            "1@localhost:8040:2ggvsS4kQb-fSJ_-zC_Ang")
    assert str(e.value) == "Node id 1 was specified more than once."


def round_trip(text: str) -> None:
    assert str(DynamicVoters.parse(text)) == text


def test_round_trip_single_voter() -> None:
    round_trip("2@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ")


def test_round_trip_three_voters() -> None:
    round_trip(THREE_VOTERS)


def test_to_voter_set() -> None:
    voter_map = {
        0: DynamicVoter.parse("0@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ").to_voter_node("CONTROLLER2"),
        1: DynamicVoter.parse("1@localhost:8030:aUARLskQTCW4qCZDtS_cwA").to_voter_node("CONTROLLER2"),
        2: DynamicVoter.parse("2@localhost:8040:2ggvsS4kQb-fSJ_-zC_Ang").to_voter_node("CONTROLLER2"),
    }
    assert DynamicVoters.parse(THREE_VOTERS).to_voter_set("CONTROLLER2") == VoterSet.from_map(voter_map)
