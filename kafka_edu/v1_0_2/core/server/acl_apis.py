"""Port of the ACL handlers of core/src/main/scala/kafka/server/KafkaApis.scala (Kafka 1.0.2): handleDescribeAcls,
handleCreateAcls and handleDeleteAcls, kept here so that kafka_apis.py holds only their dispatch, the cluster
authorization each one starts with and, for CreateAcls and DeleteAcls, the error response without an authorizer.
Each function returns the response's fields for `build`."""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.v1_0_2.clients.common.acl.acl_binding import (
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    ResourceFilter,
)
from kafka_edu.v1_0_2.clients.common.acl.acl_operation import AclOperation, AclPermissionType, ResourceType
from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException
from kafka_edu.v1_0_2.core.security.auth.acl import Acl
from kafka_edu.v1_0_2.core.security.auth.resource import CLUSTER_RESOURCE_NAME, Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType as CoreResourceType
from kafka_edu.v1_0_2.core.security.security_utils import convert_to_acl_binding, convert_to_resource_and_acl
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.metadata.controller.replication_control_manager import ApiError

log = logging.getLogger("kafka.server.KafkaApis")

NO_AUTHORIZER = "No Authorizer is configured on the broker"  # DescribeAcls's; CreateAcls and DeleteAcls add a "."


def describe_acls(authorizer: Any, body: Any) -> dict[str, Any]:
    """Every ACL the filter matches, grouped by resource; SECURITY_DISABLED without an authorizer."""
    if authorizer is None:
        return dict(error_code=Errors.SECURITY_DISABLED, error_message=NO_AUTHORIZER, resources=[])
    acl_filter = AclBindingFilter(
        ResourceFilter(ResourceType.from_code(body.resource_type_filter), body.resource_name_filter),
        AccessControlEntryFilter(body.principal_filter, body.host_filter, AclOperation.from_code(body.operation),
                                 AclPermissionType.from_code(body.permission_type)))
    returned: dict[Resource, list[AclBinding]] = {}
    for resource, acls in authorizer.get_all_acls().items():
        for acl in sorted(acls, key=str):
            binding = convert_to_acl_binding(resource, acl)
            if acl_filter.matches(binding):
                returned.setdefault(resource, []).append(binding)
    return dict(error_code=Errors.NONE, error_message=None, resources=[
        dict(resource_type=resource.resource_type.to_java, resource_name=resource.name, acls=[
            _acl_description(binding) for binding in bindings])
        for resource, bindings in sorted(returned.items(), key=lambda item: str(item[0]))])


def create_acls(authorizer: Any, creations: Any) -> list[dict[str, Any]]:
    """One result per creation, in order: INVALID_REQUEST for what names no single valid ACL (an unknown or ANY
    type, operation or permission, a principal not "Type:name", a cluster not named kafka-cluster, an empty
    name); each valid one added to ZooKeeper by the authorizer. Without an authorizer KafkaApis answers the
    request's error response (SECURITY_DISABLED) instead."""
    results = []
    for creation in creations:
        converted = convert_to_resource_and_acl(AclBindingFilter(
            ResourceFilter(ResourceType.from_code(creation.resource_type), creation.resource_name),
            AccessControlEntryFilter(creation.principal, creation.host, AclOperation.from_code(creation.operation),
                                     AclPermissionType.from_code(creation.permission_type))))
        if isinstance(converted, ApiError):
            results.append(dict(error_code=converted.error, error_message=converted.message))
            continue
        resource, acl = converted
        try:
            if resource.resource_type == CoreResourceType.CLUSTER and resource.name != CLUSTER_RESOURCE_NAME:
                raise InvalidRequestException(f"The only valid name for the CLUSTER resource is "
                                              f"{CLUSTER_RESOURCE_NAME}")
            if not resource.name:
                raise InvalidRequestException("Invalid empty resource name")
            authorizer.add_acls({acl}, resource)
            log.debug("Added acl %s to %s", acl, resource)
            results.append(dict(error_code=Errors.NONE, error_message=None))
        except Exception as e:
            log.debug("Failed to add acl %s to %s: %s", acl, resource, e)
            error = ApiError.from_throwable(e)
            results.append(dict(error_code=error.error, error_message=error.message))
    return results


def delete_acls(authorizer: Any, filters: Any) -> list[dict[str, Any]]:
    """One result per filter, in order, listing the ACLs it deleted. Filters that each name one ACL exactly are
    deleted as named; otherwise every ACL is matched against every filter. Without an authorizer KafkaApis answers
    the request's error response (SECURITY_DISABLED) instead."""
    acl_filters = [AclBindingFilter(
        ResourceFilter(ResourceType.from_code(f.resource_type_filter), f.resource_name_filter),
        AccessControlEntryFilter(f.principal_filter, f.host_filter, AclOperation.from_code(f.operation),
                                 AclPermissionType.from_code(f.permission_type))) for f in filters]
    filter_responses: dict[int, dict[str, Any]] = {}
    to_delete: dict[int, list[tuple[Resource, Acl]]] = {}
    if all(f.matches_at_most_one() for f in acl_filters):
        for i, acl_filter in enumerate(acl_filters):
            converted = convert_to_resource_and_acl(acl_filter)
            if isinstance(converted, ApiError):
                filter_responses[i] = dict(error_code=converted.error, error_message=converted.message,
                                           matching_acls=[])
            else:
                to_delete[i] = [converted]
    else:
        for resource, acls in authorizer.get_all_acls().items():
            for acl in sorted(acls, key=str):
                binding = convert_to_acl_binding(resource, acl)
                for i, acl_filter in enumerate(acl_filters):
                    if acl_filter.matches(binding):
                        to_delete.setdefault(i, []).append((resource, acl))

    for i, resource_acls in to_delete.items():
        deletion_results = []
        for resource, acl in resource_acls:
            binding = convert_to_acl_binding(resource, acl)
            try:
                if authorizer.remove_acls({acl}, resource):
                    deletion_results.append(_deletion_result(binding, ApiError(Errors.NONE)))
            except Exception as e:
                deletion_results.append(_deletion_result(binding, ApiError.from_throwable(e)))
        filter_responses[i] = dict(error_code=Errors.NONE, error_message=None, matching_acls=deletion_results)
    return [filter_responses.get(i, dict(error_code=Errors.NONE, error_message=None, matching_acls=[]))
            for i in range(len(acl_filters))]


def _acl_description(binding: AclBinding) -> dict[str, Any]:
    entry = binding.entry
    return dict(principal=entry.principal, host=entry.host, operation=entry.operation,
                permission_type=entry.permission_type)


def _deletion_result(binding: AclBinding, error: ApiError) -> dict[str, Any]:
    entry = binding.entry
    return dict(error_code=error.error, error_message=error.message, resource_type=binding.resource.resource_type,
                resource_name=binding.resource.name, pattern_type=3, principal=entry.principal, host=entry.host,
                operation=entry.operation, permission_type=entry.permission_type)
