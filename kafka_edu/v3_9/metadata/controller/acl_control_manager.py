"""Port of metadata/src/main/java/org/apache/kafka/controller/AclControlManager.java (Kafka 3.9): the controller's
ACLs: CreateAcls and DeleteAcls make AccessControlEntryRecords and RemoveAccessControlEntryRecords."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from kafka_edu.v1_0_2.clients.common.errors import ApiException, InvalidRequestException, UnknownServerException
from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.clients.server.authorizer.acl_create_result import (
    AclBindingDeleteResult,
    AclCreateResult,
    AclDeleteResult,
)
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion
from kafka_edu.v3_9.metadata.common.metadata.access_control_entry_record import AccessControlEntryRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_access_control_entry_record import RemoveAccessControlEntryRecord
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl_with_id import StandardAclWithId
from kafka_edu.v3_9.server_common.server.mutable.bounded_list import BoundedList, BoundedListTooLongException
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_hash_set import TimelineHashSet

MAX_RECORDS_PER_USER_OP = 10000  # QuorumController.MAX_RECORDS_PER_USER_OP


class AclControlManager:
    """`id_to_acl` and `existing_acls` are timeline structures: a write the log refuses is rolled back with the
    controller's snapshot."""

    def __init__(self, snapshot_registry: SnapshotRegistry | None = None, log_context: str = "") -> None:
        self.log = logging.LoggerAdapter(logging.getLogger("org.apache.kafka.controller.AclControlManager"),
                                         {"log_context": log_context})
        snapshot_registry = snapshot_registry if snapshot_registry is not None else SnapshotRegistry(log_context)
        self._id_to_acl: TimelineHashMap[uuid.UUID, StandardAcl] = TimelineHashMap(snapshot_registry, 0)
        self._existing_acls: TimelineHashSet[StandardAcl] = TimelineHashSet(snapshot_registry, 0)

    def create_acls(self, acls: Sequence[AclBinding]) -> ControllerResult[list[AclCreateResult]]:
        """An ACL that already exists succeeds without a record; so does one repeated in the request."""
        results: list[AclCreateResult] = []
        records: list[ApiMessageAndVersion] = BoundedList(MAX_RECORDS_PER_USER_OP)
        for acl in acls:
            try:
                validate_new_acl(acl)
            except Exception as t:
                e = t if isinstance(t, ApiException) else UnknownServerException(
                    "Unknown error while trying to create ACL")
                results.append(AclCreateResult(e))
                continue
            standard_acl = StandardAcl.from_acl_binding(acl)
            if self._existing_acls.add(standard_acl):
                standard_acl_with_id = StandardAclWithId(self.new_acl_id(), standard_acl)
                self._id_to_acl.put(standard_acl_with_id.id, standard_acl)
                records.append(ApiMessageAndVersion(standard_acl_with_id.to_record(), 0))
            results.append(AclCreateResult.SUCCESS)
        return ControllerResult(list(records), results, True)

    def new_acl_id(self) -> uuid.UUID:
        while True:
            acl_id = uuid.UUID(bytes=Uuid.random_uuid().to_bytes())
            if acl_id not in self._id_to_acl:
                return acl_id

    def delete_acls(self, filters: Sequence[AclBindingFilter]) -> ControllerResult[list[AclDeleteResult]]:
        """Atomic: either every matched ACL goes, or (too many for one operation) the filter fails."""
        results: list[AclDeleteResult] = []
        records: dict[uuid.UUID, ApiMessageAndVersion] = {}  # a set: two filters may match one ACL
        for filter in filters:
            try:
                validate_filter(filter)
                results.append(self.delete_acls_for_filter(filter, records))
            except Exception as e:
                results.append(AclDeleteResult.of_exception(_api_exception(e)))
        return ControllerResult.atomic_of(list(records.values()), results)

    def delete_acls_for_filter(self, filter: AclBindingFilter,
                               records: dict[uuid.UUID, ApiMessageAndVersion]) -> AclDeleteResult:
        deleted: list[AclBindingDeleteResult] = []
        for acl_id, acl in self._id_to_acl.entry_set():
            binding = acl.to_binding()
            if filter.matches(binding):
                deleted.append(AclBindingDeleteResult(binding))
                records[acl_id] = ApiMessageAndVersion(RemoveAccessControlEntryRecord(id=acl_id), 0)
                if len(records) > MAX_RECORDS_PER_USER_OP:
                    raise BoundedListTooLongException(f"Cannot remove more than {MAX_RECORDS_PER_USER_OP} acls in "
                                                      "a single delete operation.")
        return AclDeleteResult(deleted)

    def replay(self, record: AccessControlEntryRecord) -> None:
        acl_with_id = StandardAclWithId.from_record(record)
        self._id_to_acl.put(acl_with_id.id, acl_with_id.acl)
        self._existing_acls.add(acl_with_id.acl)
        self.log.info("Replayed AccessControlEntryRecord for %s, setting %s", record.id, acl_with_id.acl)

    def replay_remove(self, record: RemoveAccessControlEntryRecord) -> None:
        """Kafka's replay(RemoveAccessControlEntryRecord)."""
        acl = self._id_to_acl.remove(record.id)
        if acl is None:
            raise RuntimeError(f"Unable to replay {record}: no acl with that ID found.")
        if not self._existing_acls.remove(acl):
            raise RuntimeError(f"Unable to replay {record} for {acl}: acl not found in existingAcls.")
        self.log.info("Replayed RemoveAccessControlEntryRecord for %s, removing %s", record.id, acl)

    def id_to_acl(self) -> Mapping[uuid.UUID, StandardAcl]:
        return MappingProxyType(dict(self._id_to_acl.entry_set()))


def validate_new_acl(binding: AclBinding) -> None:
    if binding.pattern.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
        raise InvalidRequestException(f"Invalid resourceType {binding.pattern.resource_type}")
    if binding.pattern.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        raise InvalidRequestException(f"Invalid patternType {binding.pattern.pattern_type}")
    if binding.entry.operation in (AclOperation.UNKNOWN, AclOperation.ANY):
        raise InvalidRequestException(f"Invalid operation {binding.entry.operation}")
    if binding.entry.permission_type not in (AclPermissionType.DENY, AclPermissionType.ALLOW):
        raise InvalidRequestException(f"Invalid permissionType {binding.entry.permission_type}")
    if not binding.pattern.name:
        raise InvalidRequestException("Resource name should not be empty")


def validate_filter(filter: AclBindingFilter) -> None:
    if filter.pattern_filter.is_unknown():
        raise InvalidRequestException("Unknown patternFilter.")
    if filter.entry_filter.is_unknown():
        raise InvalidRequestException("Unknown entryFilter.")


def _api_exception(e: BaseException) -> BaseException:
    """ApiError.fromThrowable(e).exception()."""
    if isinstance(e, ApiException):
        return e
    api_error = ApiError.from_throwable(e)
    return UnknownServerException(api_error.message) if api_error.message else UnknownServerException()


