"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/classic/ClassicGroupMemberTest.java
(Kafka 3.9).

JoinGroupRequestProtocolCollection is a list of kio's JoinGroup (v9) JoinGroupRequestProtocol; a described member is
kio's DescribeGroups (v5) DescribedGroupMember. Java's Optional.of(x) is x.
"""

from __future__ import annotations

import pytest
from kio.schema.describe_groups.v5.response import DescribedGroupMember
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import (
    EMPTY_ASSIGNMENT,
    ClassicGroupMember,
)
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/classic/ClassicGroupMemberTest.java",
    cases=["testMatchesSupportedProtocols", "testVoteForPreferredProtocol", "testMetadata",
           "testMetadataRaisesOnUnsupportedProtocol", "testVoteRaisesOnNoSupportedProtocols",
           "testHasValidGroupInstanceId", "testPlainProtocolSet", "testHasHeartbeatSatisfied",
           "testDescribeNoMetadata", "testDescribe"],
)


def protocol(name: str, metadata: bytes) -> JoinGroupRequestProtocol:
    return JoinGroupRequestProtocol(name=name, metadata=metadata)


def new_member(protocols: list[JoinGroupRequestProtocol], assignment: bytes = EMPTY_ASSIGNMENT) -> ClassicGroupMember:
    return ClassicGroupMember("member", "group-instance-id", "client-id", "client-host", 10, 4500, "generic",
                              protocols, assignment)


def test_matches_supported_protocols() -> None:
    protocols = [protocol("range", bytes([0]))]
    member = new_member(protocols, b"")

    assert member.matches([protocol("range", bytes([0]))])
    assert not member.matches([protocol("range", bytes([1]))])
    assert not member.matches([protocol("range", b"")])
    assert not member.matches([protocol("range", b""), protocol("roundrobin", b"")])
    assert member.matches(protocols)


def test_vote_for_preferred_protocol() -> None:
    member = new_member([protocol("range", b""), protocol("roundrobin", b"")])

    assert member.vote({"range", "roundrobin"}) == "range"
    assert member.vote({"unknown", "roundrobin"}) == "roundrobin"


def test_metadata() -> None:
    member = new_member([protocol("range", bytes([0])), protocol("roundrobin", bytes([1]))])

    assert member.metadata("range") == bytes([0])
    assert member.metadata("roundrobin") == bytes([1])


def test_metadata_raises_on_unsupported_protocol() -> None:
    member = new_member([])

    with pytest.raises(IllegalArgumentException):
        member.metadata("unknown")


def test_vote_raises_on_no_supported_protocols() -> None:
    member = new_member([protocol("range", bytes([0])), protocol("roundrobin", bytes([1]))])

    with pytest.raises(IllegalArgumentException):
        member.vote({"unknown"})


def test_has_valid_group_instance_id() -> None:
    member = new_member([])

    assert member.is_static_member()
    assert member.group_instance_id() == "group-instance-id"


def test_plain_protocol_set() -> None:
    protocol_collection = [protocol("range", bytes([0])), protocol("roundrobin", bytes([1]))]

    assert ClassicGroupMember.plain_protocol_set(protocol_collection) == {"range", "roundrobin"}


def test_has_heartbeat_satisfied() -> None:
    member = new_member([])

    assert not member.has_satisfied_heartbeat()

    member.set_is_new(True)
    assert not member.has_satisfied_heartbeat()

    member.set_is_new(False)
    member.set_awaiting_join_future(CompletableFuture())
    assert member.has_satisfied_heartbeat()

    member.set_awaiting_join_future(None)
    member.set_awaiting_sync_future(CompletableFuture())
    assert member.has_satisfied_heartbeat()


def test_describe_no_metadata() -> None:
    member = new_member([], b"")

    expected_described_group_member = DescribedGroupMember(
        member_id="member",
        group_instance_id="group-instance-id",
        client_id="client-id",
        client_host="client-host",
        member_metadata=b"",
        member_assignment=b"",
    )

    assert member.describe_no_metadata() == expected_described_group_member


def test_describe() -> None:
    member = new_member([protocol("range", bytes([0]))], b"")

    expected_described_group_member = DescribedGroupMember(
        member_id="member",
        group_instance_id="group-instance-id",
        client_id="client-id",
        client_host="client-host",
        member_metadata=member.metadata("range"),
        member_assignment=b"",
    )

    assert member.describe("range") == expected_described_group_member
