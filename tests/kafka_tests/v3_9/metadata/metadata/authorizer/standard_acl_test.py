"""Port of metadata/src/test/java/org/apache/kafka/metadata/authorizer/StandardAclTest.java (Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer_data import WILDCARD, WILDCARD_PRINCIPAL
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/metadata/authorizer/StandardAclTest.java",
    cases=["testCompareTo", "testToBindingRoundTrips", "testEquals"],
)

TEST_ACLS = [
    StandardAcl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, WILDCARD_PRINCIPAL, WILDCARD,
                AclOperation.ALTER, AclPermissionType.ALLOW),
    StandardAcl(ResourceType.TOPIC, "foo_", PatternType.PREFIXED, WILDCARD_PRINCIPAL, WILDCARD, AclOperation.READ,
                AclPermissionType.ALLOW),
    StandardAcl(ResourceType.GROUP, "mygroup", PatternType.LITERAL, "User:foo", WILDCARD, AclOperation.READ,
                AclPermissionType.DENY),
    StandardAcl(ResourceType.GROUP, "mygroup", PatternType.PREFIXED, "User:foo", WILDCARD, AclOperation.READ,
                AclPermissionType.DENY),
    StandardAcl(ResourceType.GROUP, "foo", PatternType.PREFIXED, "User:foo", WILDCARD, AclOperation.READ,
                AclPermissionType.DENY),
]


def signum(value: int) -> int:
    return (value > 0) - (value < 0)


def test_compare_to() -> None:
    assert signum(TEST_ACLS[0].compare_to(TEST_ACLS[1])) == 1
    assert signum(TEST_ACLS[1].compare_to(TEST_ACLS[0])) == -1
    assert signum(TEST_ACLS[2].compare_to(TEST_ACLS[3])) == -1
    assert signum(TEST_ACLS[4].compare_to(TEST_ACLS[3])) == 1
    assert signum(TEST_ACLS[3].compare_to(TEST_ACLS[4])) == -1


def test_to_binding_round_trips() -> None:
    for acl in TEST_ACLS:
        assert StandardAcl.from_acl_binding(acl.to_binding()) == acl


def test_equals() -> None:
    for i, a in enumerate(TEST_ACLS):
        for j, b in enumerate(TEST_ACLS):
            assert (a == b) is (i == j)
