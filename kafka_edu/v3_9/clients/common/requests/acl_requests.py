"""Port of clients/src/main/java/org/apache/kafka/common/requests/{CreateAclsRequest,DeleteAclsRequest,
DescribeAclsRequest,DescribeAclsResponse,DeleteAclsResponse}.java (Kafka 3.9): the ACL APIs' bodies as AclBindings
and filters, and back."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, UnsupportedVersionException
from kafka_edu.v3_9.clients.common.acl.acl_binding import (
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
)
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import ResourcePattern, ResourcePatternFilter
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.clients.server.authorizer.acl_create_result import AclBindingDeleteResult, AclDeleteResult

# -- CreateAclsRequest --------------------------------------------------------------------------------------------


def validate_create_acls(data: Any, version: int) -> None:
    """CreateAclsRequest.validate: v0 has literal patterns only; no field may be UNKNOWN."""
    if version == 0 and any(c.resource_pattern_type != PatternType.LITERAL for c in data.creations):
        raise UnsupportedVersionException("Version 0 only supports literal resource pattern types")
    if any(c.resource_pattern_type == PatternType.UNKNOWN or c.resource_type == ResourceType.UNKNOWN
           or c.permission_type == AclPermissionType.UNKNOWN or c.operation == AclOperation.UNKNOWN
           for c in data.creations):
        raise IllegalArgumentException(f"CreatableAcls contain unknown elements: {list(data.creations)}")


def acl_binding(acl: Any) -> AclBinding:
    """CreateAclsRequest.aclBinding(AclCreation)."""
    pattern = ResourcePattern(ResourceType.from_code(acl.resource_type), acl.resource_name,
                              PatternType.from_code(acl.resource_pattern_type))
    entry = AccessControlEntry(acl.principal, acl.host, AclOperation.from_code(acl.operation),
                               AclPermissionType.from_code(acl.permission_type))
    return AclBinding(pattern, entry)


def acl_creation(binding: AclBinding) -> dict[str, Any]:
    return dict(host=binding.entry.host, operation=binding.entry.operation.code(),
                permission_type=binding.entry.permission_type.code(), principal=binding.entry.principal,
                resource_name=binding.pattern.name, resource_type=binding.pattern.resource_type.code(),
                resource_pattern_type=binding.pattern.pattern_type.code())


def acl_creation_result(throwable: BaseException | None) -> dict[str, Any]:
    """CreateAclsRequest.aclResult: an AclCreationResult's fields."""
    api_error = ApiError.NONE if throwable is None else ApiError.from_throwable(throwable)
    return dict(error_code=api_error.error, error_message=api_error.message)


# -- DeleteAclsRequest ----------------------------------------------------------------------------------------------


def normalize_and_validate_delete_acls(data: Any, version: int) -> list[Any]:
    """DeleteAclsRequest.normalizeAndValidate: the filters, ANY read as LITERAL at v0 (no other pattern existed)."""
    filters = []
    for f in data.filters:
        pattern_type = PatternType.from_code(f.pattern_type_filter)
        if version == 0:
            if pattern_type is PatternType.ANY:
                pattern_type = PatternType.LITERAL
            elif pattern_type is not PatternType.LITERAL:
                raise UnsupportedVersionException(f"Version 0 does not support pattern type {pattern_type} (only "
                                                  "LITERAL and ANY are supported)")
        filters.append((f, pattern_type))
    if any(pattern_type is PatternType.UNKNOWN or f.resource_type_filter == ResourceType.UNKNOWN
           or f.operation == AclOperation.UNKNOWN or f.permission_type == AclPermissionType.UNKNOWN
           for f, pattern_type in filters):
        raise IllegalArgumentException(f"Filters contain UNKNOWN elements, filters: {list(data.filters)}")
    return [_acl_binding_filter(f.resource_type_filter, f.resource_name_filter, pattern_type, f.principal_filter,
                                f.host_filter, f.operation, f.permission_type) for f, pattern_type in filters]


# -- DescribeAclsRequest --------------------------------------------------------------------------------------------


def describe_acls_filter(data: Any, version: int) -> AclBindingFilter:
    """DescribeAclsRequest.normalizeAndValidate, then filter()."""
    pattern_type = PatternType.from_code(data.pattern_type_filter)
    if version == 0:
        if pattern_type is PatternType.ANY:
            pattern_type = PatternType.LITERAL
        elif pattern_type is not PatternType.LITERAL:
            raise UnsupportedVersionException("Version 0 only supports literal resource pattern types")
    if (pattern_type is PatternType.UNKNOWN or data.resource_type_filter == ResourceType.UNKNOWN
            or data.permission_type == AclPermissionType.UNKNOWN or data.operation == AclOperation.UNKNOWN):
        raise IllegalArgumentException(f"DescribeAclsRequest contains UNKNOWN elements: {data}")
    return _acl_binding_filter(data.resource_type_filter, data.resource_name_filter, pattern_type,
                               data.principal_filter, data.host_filter, data.operation, data.permission_type)


def _acl_binding_filter(resource_type: int, resource_name: str | None, pattern_type: PatternType,
                        principal: str | None, host: str | None, operation: int,
                        permission_type: int) -> AclBindingFilter:
    return AclBindingFilter(
        ResourcePatternFilter(ResourceType.from_code(resource_type), resource_name, pattern_type),
        AccessControlEntryFilter(principal, host, AclOperation.from_code(operation),
                                 AclPermissionType.from_code(permission_type)))


# -- DescribeAclsResponse, DeleteAclsResponse -----------------------------------------------------------------------


def acls_resources(acls: Iterable[AclBinding]) -> list[dict[str, Any]]:
    """DescribeAclsResponse.aclsResources: the bindings grouped by resource pattern."""
    pattern_to_entries: dict[ResourcePattern, dict[AccessControlEntry, None]] = {}
    for acl in acls:
        pattern_to_entries.setdefault(acl.pattern, {})[acl.entry] = None
    return [dict(resource_name=pattern.name, pattern_type=pattern.pattern_type.code(),
                 resource_type=pattern.resource_type.code(),
                 acls=[dict(host=ace.host, operation=ace.operation.code(), permission_type=ace.permission_type.code(),
                            principal=ace.principal) for ace in entries])
            for pattern, entries in pattern_to_entries.items()]


def acl_bindings(resources: Iterable[Any]) -> list[AclBinding]:
    """DescribeAclsResponse.aclBindings: a response's resources back as bindings."""
    return [AclBinding(ResourcePattern(ResourceType.from_code(r.resource_type), r.resource_name,
                                       PatternType.from_code(r.pattern_type)),
                       AccessControlEntry(acl.principal, acl.host, AclOperation.from_code(acl.operation),
                                          AclPermissionType.from_code(acl.permission_type)))
            for r in resources for acl in r.acls]


def filter_result(result: AclDeleteResult) -> dict[str, Any]:
    """DeleteAclsResponse.filterResult: a DeleteAclsFilterResult's fields."""
    error = ApiError.NONE if result.exception is None else ApiError.from_throwable(result.exception)
    return dict(error_code=error.error, error_message=error.message,
                matching_acls=[matching_acl(r) for r in result.acl_binding_delete_results])


def matching_acl(result: AclBindingDeleteResult) -> dict[str, Any]:
    error = ApiError.NONE if result.exception is None else ApiError.from_throwable(result.exception)
    acl = result.acl_binding
    return dict(error_code=error.error, error_message=error.message, resource_name=acl.pattern.name,
                resource_type=acl.pattern.resource_type.code(), pattern_type=acl.pattern.pattern_type.code(),
                host=acl.entry.host, operation=acl.entry.operation.code(),
                permission_type=acl.entry.permission_type.code(), principal=acl.entry.principal)
