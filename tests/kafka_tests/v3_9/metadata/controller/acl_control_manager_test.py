"""Port of metadata/src/test/java/org/apache/kafka/controller/AclControlManagerTest.java (Kafka 3.9).

The port's AclControlManager has no Builder: its constructor takes the Builder's SnapshotRegistry (a new one when
none is given). Kafka's overloaded replay is `replay` (AccessControlEntryRecord) and `replay_remove`
(RemoveAccessControlEntryRecord); `_replay_all` dispatches as RecordTestUtils.replayAll does. The mock
ClusterMetadataAuthorizer keeps only what these cases read (the snapshot it was given).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException
from kafka_edu.v3_9.clients.common.acl.acl_binding import (
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
)
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import ResourcePattern, ResourcePatternFilter
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion
from kafka_edu.v3_9.metadata.common.metadata.access_control_entry_record import AccessControlEntryRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_access_control_entry_record import RemoveAccessControlEntryRecord
from kafka_edu.v3_9.metadata.controller.acl_control_manager import AclControlManager, validate_filter, validate_new_acl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl_with_id import StandardAclWithId
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.metadata.authorizer import standard_acl_test
from tests.kafka_tests.v3_9.metadata.metadata.authorizer.standard_acl_with_id_test import TEST_ACLS

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/AclControlManagerTest.java",
    cases=["testValidateNewAcl", "testValidateFilter", "testLoadSnapshot", "testAddAndDelete",
           "testCreateAclDeleteAcl", "testDeleteDedupe"],
)

TOPIC, LITERAL = ResourceType.TOPIC, PatternType.LITERAL
ALTER, ALLOW = AclOperation.ALTER, AclPermissionType.ALLOW


class MockClusterMetadataAuthorizer:
    def __init__(self) -> None:
        self.acls: dict[uuid.UUID, StandardAcl] = {}

    def load_snapshot(self, acls: Mapping[uuid.UUID, StandardAcl]) -> None:
        self.acls = dict(acls)


def _replay_all(manager: AclControlManager, records: Iterable[Any]) -> None:
    for record in records:
        message = record.message
        if isinstance(message, AccessControlEntryRecord):
            manager.replay(message)
        else:
            manager.replay_remove(message)


def test_validate_new_acl() -> None:
    validate_new_acl(AclBinding(ResourcePattern(TOPIC, "*", LITERAL), AccessControlEntry("User:*", "*", ALTER, ALLOW)))
    for binding, message in [
        (AclBinding(ResourcePattern(TOPIC, "*", PatternType.UNKNOWN), AccessControlEntry("User:*", "*", ALTER, ALLOW)),
         "Invalid patternType UNKNOWN"),
        (AclBinding(ResourcePattern(ResourceType.UNKNOWN, "*", LITERAL),
                    AccessControlEntry("User:*", "*", ALTER, ALLOW)), "Invalid resourceType UNKNOWN"),
        (AclBinding(ResourcePattern(TOPIC, "*", LITERAL),
                    AccessControlEntry("User:*", "*", AclOperation.UNKNOWN, ALLOW)), "Invalid operation UNKNOWN"),
        (AclBinding(ResourcePattern(TOPIC, "*", LITERAL),
                    AccessControlEntry("User:*", "*", ALTER, AclPermissionType.UNKNOWN)),
         "Invalid permissionType UNKNOWN"),
    ]:
        with pytest.raises(InvalidRequestException) as e:
            validate_new_acl(binding)
        assert str(e.value) == message


def test_validate_filter() -> None:
    validate_filter(AclBindingFilter(ResourcePatternFilter(ResourceType.ANY, "*", LITERAL),
                                     AccessControlEntryFilter("User:*", "*", AclOperation.ANY, AclPermissionType.ANY)))
    with pytest.raises(InvalidRequestException) as e:
        validate_filter(AclBindingFilter(ResourcePatternFilter(ResourceType.ANY, "*", PatternType.UNKNOWN),
                                         AccessControlEntryFilter("User:*", "*", AclOperation.ANY,
                                                                  AclPermissionType.ANY)))
    assert str(e.value) == "Unknown patternFilter."
    with pytest.raises(InvalidRequestException) as e:
        validate_filter(AclBindingFilter(ResourcePatternFilter(ResourceType.ANY, "*", PatternType.MATCH),
                                         AccessControlEntryFilter("User:*", "*", AclOperation.ANY,
                                                                  AclPermissionType.UNKNOWN)))
    assert str(e.value) == "Unknown entryFilter."


def test_load_snapshot() -> None:
    snapshot_registry = SnapshotRegistry()
    snapshot_registry.get_or_create_snapshot(0)
    manager = AclControlManager(snapshot_registry)
    loaded_acls = []
    for acl in TEST_ACLS:
        record = ApiMessageAndVersion(acl.to_record(), 0)
        assert record not in loaded_acls
        loaded_acls.append(record)
        manager.replay(acl.to_record())
    found_acls = [ApiMessageAndVersion(StandardAclWithId(acl_id, acl).to_record(), 0)
                  for acl_id, acl in manager.id_to_acl().items()]
    assert sorted(map(repr, found_acls)) == sorted(map(repr, loaded_acls))
    # once the snapshot load completes, the authorizer has the ACLs
    authorizer = MockClusterMetadataAuthorizer()
    authorizer.load_snapshot(manager.id_to_acl())
    assert set(authorizer.acls.values()) == set(standard_acl_test.TEST_ACLS)
    # back to the empty state, then a snapshot load without an authorizer (none configured)
    snapshot_registry.revert_to_snapshot(0)
    authorizer.load_snapshot(manager.id_to_acl())
    assert not manager.id_to_acl()


def test_add_and_delete() -> None:
    manager = AclControlManager()
    authorizer = MockClusterMetadataAuthorizer()
    authorizer.load_snapshot(manager.id_to_acl())
    manager.replay(TEST_ACLS[0].to_record())
    manager.replay_remove(RemoveAccessControlEntryRecord(id=TEST_ACLS[0].id))
    assert not manager.id_to_acl()


def test_create_acl_delete_acl() -> None:
    manager = AclControlManager()
    authorizer = MockClusterMetadataAuthorizer()
    authorizer.load_snapshot(manager.id_to_acl())
    to_create = [TEST_ACLS[i].to_binding() for i in range(3)]
    to_create.append(AclBinding(ResourcePattern(TOPIC, "*", PatternType.UNKNOWN),
                                AccessControlEntry("User:*", "*", ALTER, ALLOW)))
    create_result = manager.create_acls(to_create)
    for i in range(3):
        assert create_result.response[i].exception is None
    assert isinstance(create_result.response[3].exception, InvalidRequestException)
    assert str(create_result.response[3].exception) == "Invalid patternType UNKNOWN"
    _replay_all(manager, create_result.records)
    assert manager.id_to_acl()

    delete_result = manager.delete_acls([
        AclBindingFilter(ResourcePatternFilter(ResourceType.ANY, None, LITERAL), AccessControlEntryFilter.ANY),
        AclBindingFilter(ResourcePatternFilter(ResourceType.UNKNOWN, None, LITERAL), AccessControlEntryFilter.ANY)])
    assert len(delete_result.response) == 2
    deleted = set()
    for result in delete_result.response[0].acl_binding_delete_results:
        assert result.exception is None
        deleted.add(result.acl_binding)
    assert deleted == {TEST_ACLS[0].to_binding(), TEST_ACLS[2].to_binding()}
    assert type(delete_result.response[1].exception) is InvalidRequestException
    _replay_all(manager, delete_result.records)
    assert list(manager.id_to_acl().values()) == [TEST_ACLS[1].acl]


def test_delete_dedupe() -> None:
    manager = AclControlManager()
    authorizer = MockClusterMetadataAuthorizer()
    authorizer.load_snapshot(manager.id_to_acl())
    acl_binding = AclBinding(ResourcePattern(TOPIC, "topic-1", LITERAL),
                             AccessControlEntry("User:user", "10.0.0.1", AclOperation.ALL, ALLOW))
    create_result = manager.create_acls([acl_binding])
    acl_id = create_result.records[0].message.id
    assert len(create_result.records) == 1

    any_filter = manager.delete_acls([AclBindingFilter.ANY])
    assert len(any_filter.records) == 1
    assert any_filter.records[0].message.id == acl_id
    assert len(any_filter.response) == 1

    specific_filter = manager.delete_acls([acl_binding.to_filter()])
    assert len(specific_filter.records) == 1
    assert specific_filter.records[0].message.id == acl_id
    assert len(specific_filter.response) == 1

    both_filters = manager.delete_acls([AclBindingFilter.ANY, acl_binding.to_filter()])
    assert len(both_filters.records) == 1
    assert both_filters.records[0].message.id == acl_id
    assert len(both_filters.response) == 2
