"""Port of metadata/src/test/java/org/apache/kafka/metadata/authorizer/StandardAclWithIdTest.java (Kafka 3.9)."""

from __future__ import annotations

import uuid

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl_with_id import StandardAclWithId
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.metadata.authorizer import standard_acl_test

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/metadata/authorizer/StandardAclWithIdTest.java",
    cases=["testToRecordRoundTrips", "testEquals"],
)


def _id(text: str) -> uuid.UUID:
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


TEST_ACLS = [StandardAclWithId(_id(text), acl) for text, acl in zip(
    ["QZDDv-R7SyaPgetDPGd0Mw", "SdDjEdlbRmy2__WFKe3RMg", "wQzt5gkSTwuQNXZF5gIw7A", "ab_5xjJXSbS1o5jGfhgQXg",
     "wP_cCK0LTEGSX9oDRInJHQ"], standard_acl_test.TEST_ACLS, strict=True)]


def test_to_record_round_trips() -> None:
    for acl in TEST_ACLS:
        assert StandardAclWithId.from_record(acl.to_record()) == acl


def test_equals() -> None:
    for i, a in enumerate(TEST_ACLS):
        for j, b in enumerate(TEST_ACLS):
            assert (a == b) is (i == j)
