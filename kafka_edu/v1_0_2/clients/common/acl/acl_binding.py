"""Port of clients/src/main/java/org/apache/kafka/common/acl/{AccessControlEntry,AccessControlEntryFilter,AclBinding,
AclBindingFilter}.java and common/resource/{Resource,ResourceFilter}.java (Kafka 1.0.2): an ACL as the ACL APIs
carry it, and the filters DescribeAcls and DeleteAcls match ACLs with."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.acl.acl_operation import AclOperation, AclPermissionType, ResourceType


@dataclass(frozen=True)
class AdminResource:
    """org.apache.kafka.common.resource.Resource: a resource type and name."""

    resource_type: ResourceType
    name: str


@dataclass(frozen=True)
class AccessControlEntry:
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType


@dataclass(frozen=True)
class AclBinding:
    resource: AdminResource
    entry: AccessControlEntry


@dataclass(frozen=True)
class ResourceFilter:
    """A null name matches any name; ANY matches any type."""

    resource_type: ResourceType
    name: str | None

    def matches(self, other: AdminResource) -> bool:
        if self.name is not None and self.name != other.name:
            return False
        return self.resource_type in (ResourceType.ANY, other.resource_type)

    def find_indefinite_field(self) -> str | None:
        if self.resource_type == ResourceType.ANY:
            return "Resource type is ANY."
        if self.resource_type == ResourceType.UNKNOWN:
            return "Resource type is UNKNOWN."
        if self.name is None:
            return "Resource name is NULL."
        return None


@dataclass(frozen=True)
class AccessControlEntryFilter:
    """Null principal or host match any; ANY operation or permission type matches any."""

    principal: str | None
    host: str | None
    operation: AclOperation
    permission_type: AclPermissionType

    def matches(self, other: AccessControlEntry) -> bool:
        if self.principal is not None and self.principal != other.principal:
            return False
        if self.host is not None and self.host != other.host:
            return False
        if self.operation != AclOperation.ANY and self.operation != other.operation:
            return False
        return self.permission_type in (AclPermissionType.ANY, other.permission_type)

    def find_indefinite_field(self) -> str | None:
        if self.principal is None:
            return "Principal is NULL"
        if self.host is None:
            return "Host is NULL"
        if self.operation == AclOperation.ANY:
            return "Operation is ANY"
        if self.operation == AclOperation.UNKNOWN:
            return "Operation is UNKNOWN"
        if self.permission_type == AclPermissionType.ANY:
            return "Permission type is ANY"
        if self.permission_type == AclPermissionType.UNKNOWN:
            return "Permission type is UNKNOWN"
        return None


@dataclass(frozen=True)
class AclBindingFilter:
    resource_filter: ResourceFilter
    entry_filter: AccessControlEntryFilter

    def matches(self, binding: AclBinding) -> bool:
        return self.resource_filter.matches(binding.resource) and self.entry_filter.matches(binding.entry)

    def matches_at_most_one(self) -> bool:
        """True when every field is definite: the filter names one ACL exactly (DeleteAcls then skips the scan)."""
        return self.find_indefinite_field() is None

    def find_indefinite_field(self) -> str | None:
        return self.resource_filter.find_indefinite_field() or self.entry_filter.find_indefinite_field()
