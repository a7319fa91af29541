"""Port of core/src/main/scala/kafka/security/SecurityUtils.scala (Kafka 1.0.2): between the ACL APIs' bindings
and the authorizer's resources and ACLs."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.acl.acl_binding import (
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AdminResource,
)
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.security.auth.acl import Acl
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.permission_type import PermissionType
from kafka_edu.v1_0_2.core.security.auth.resource import Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.metadata.controller.replication_control_manager import ApiError


def convert_to_resource_and_acl(acl_filter: AclBindingFilter) -> ApiError | tuple[Resource, Acl]:
    """The one resource and ACL a definite filter names, or INVALID_REQUEST with the reason: a type, operation or
    permission that is ANY or unknown, or a principal not of the form "Type:name"."""
    try:
        resource_type = ResourceType.from_java(acl_filter.resource_filter.resource_type)
        principal = KafkaPrincipal.from_string(acl_filter.entry_filter.principal)
        operation = Operation.from_java(acl_filter.entry_filter.operation)
        permission_type = PermissionType.from_java(acl_filter.entry_filter.permission_type)
        resource = Resource(resource_type, acl_filter.resource_filter.name)
        acl = Acl(principal, permission_type, acl_filter.entry_filter.host, operation)
    except Exception as e:
        return ApiError(Errors.INVALID_REQUEST, str(e))
    return resource, acl


def convert_to_acl_binding(resource: Resource, acl: Acl) -> AclBinding:
    admin_resource = AdminResource(resource.resource_type.to_java, resource.name)
    entry = AccessControlEntry(str(acl.principal), acl.host, acl.operation.to_java, acl.permission_type.to_java)
    return AclBinding(admin_resource, entry)
