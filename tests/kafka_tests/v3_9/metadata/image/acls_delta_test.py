"""Port of metadata/src/test/java/org/apache/kafka/image/AclsDeltaTest.java (Kafka 3.9). Kafka's overloaded replay is
`replay` and `replay_remove` in the port; a removed ACL is None among the changes where Kafka has Optional.empty()."""

from __future__ import annotations

import uuid

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.common.metadata.access_control_entry_record import AccessControlEntryRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_access_control_entry_record import RemoveAccessControlEntryRecord
from kafka_edu.v3_9.metadata.image.acls_delta import AclsDelta
from kafka_edu.v3_9.metadata.image.acls_image import AclsImage
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/image/AclsDeltaTest.java",
    cases=["testRemovesDeleteIfNotInImage", "testKeepsDeleteIfInImage",
           "testThrowsExceptionOnInvalidStateWhenImageIsEmpty",
           "testThrowsExceptionOnInvalidStateWhenImageHasOtherAcls"],
)


def _id(text: str) -> uuid.UUID:
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


ACL_ID = _id("iOZpss6VQUmD6blnqzl50g")


def access_control_entry_record(acl_id: uuid.UUID = ACL_ID) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(id=acl_id, resource_type=1, resource_name="foo", pattern_type=1,
                                    principal="User:user", host="host", operation=1, permission_type=1)


def remove_access_control_entry_record() -> RemoveAccessControlEntryRecord:
    return RemoveAccessControlEntryRecord(id=ACL_ID)


def standard_acl() -> StandardAcl:
    return StandardAcl.from_record(access_control_entry_record())


def test_removes_delete_if_not_in_image() -> None:
    delta = AclsDelta(AclsImage({}))
    assert len(delta.changes()) == 0
    delta.replay(access_control_entry_record())
    assert delta.changes()[ACL_ID] == standard_acl()
    delta.replay_remove(remove_access_control_entry_record())
    assert ACL_ID not in delta.changes()


def test_keeps_delete_if_in_image() -> None:
    delta = AclsDelta(AclsImage({ACL_ID: standard_acl()}))
    assert len(delta.changes()) == 0
    delta.replay_remove(remove_access_control_entry_record())
    assert ACL_ID in delta.changes()
    assert delta.changes()[ACL_ID] is None


def test_throws_exception_on_invalid_state_when_image_is_empty() -> None:
    delta = AclsDelta(AclsImage({}))
    with pytest.raises(IllegalStateException):
        delta.replay_remove(remove_access_control_entry_record())


def test_throws_exception_on_invalid_state_when_image_has_other_acls() -> None:
    other_id = _id("nGiNMQHwRgmgsIlfu73aJQ")
    delta = AclsDelta(AclsImage({other_id: StandardAcl.from_record(access_control_entry_record(other_id))}))
    with pytest.raises(IllegalStateException):
        delta.replay_remove(remove_access_control_entry_record())
