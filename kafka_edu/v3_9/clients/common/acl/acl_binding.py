"""Port of clients/src/main/java/org/apache/kafka/common/acl/{AccessControlEntry,AccessControlEntryFilter,AclBinding,
AclBindingFilter}.java (Kafka 3.9): an ACL as the admin APIs carry it, and the filters that match ACLs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import ResourcePattern, ResourcePatternFilter


@dataclass(frozen=True)
class AccessControlEntry:
    """Who ("User:alice"), from where (a host or `*`), what, and whether it is allowed or denied."""

    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    def __post_init__(self) -> None:
        if self.operation is AclOperation.ANY:
            raise IllegalArgumentException("operation must not be ANY")
        if self.permission_type is AclPermissionType.ANY:
            raise IllegalArgumentException("permissionType must not be ANY")

    def to_filter(self) -> AccessControlEntryFilter:
        return AccessControlEntryFilter(self.principal, self.host, self.operation, self.permission_type)

    def is_unknown(self) -> bool:
        return self.operation.is_unknown() or self.permission_type.is_unknown()

    def __str__(self) -> str:
        return (f"(principal={self.principal}, host={self.host}, operation={self.operation}, "
                f"permissionType={self.permission_type})")


@dataclass(frozen=True)
class AccessControlEntryFilter:
    """A null principal or host matches any; ANY operation or permission type matches any."""

    ANY: ClassVar[AccessControlEntryFilter]

    principal: str | None
    host: str | None
    operation: AclOperation
    permission_type: AclPermissionType

    def matches(self, other: AccessControlEntry) -> bool:
        if self.principal is not None and self.principal != other.principal:
            return False
        if self.host is not None and self.host != other.host:
            return False
        if self.operation is not AclOperation.ANY and self.operation is not other.operation:
            return False
        return self.permission_type in (AclPermissionType.ANY, other.permission_type)

    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    def find_indefinite_field(self) -> str | None:
        if self.principal is None:
            return "Principal is NULL"
        if self.host is None:
            return "Host is NULL"
        if self.operation is AclOperation.ANY:
            return "Operation is ANY"
        if self.operation is AclOperation.UNKNOWN:
            return "Operation is UNKNOWN"
        if self.permission_type is AclPermissionType.ANY:
            return "Permission type is ANY"
        if self.permission_type is AclPermissionType.UNKNOWN:
            return "Permission type is UNKNOWN"
        return None

    def is_unknown(self) -> bool:
        return self.operation.is_unknown() or self.permission_type.is_unknown()

    def __str__(self) -> str:
        return (f"(principal={self.principal or '<any>'}, host={self.host or '<any>'}, operation={self.operation}, "
                f"permissionType={self.permission_type})")


AccessControlEntryFilter.ANY = AccessControlEntryFilter(None, None, AclOperation.ANY, AclPermissionType.ANY)


@dataclass(frozen=True)
class AclBinding:
    pattern: ResourcePattern
    entry: AccessControlEntry

    def is_unknown(self) -> bool:
        return self.pattern.is_unknown() or self.entry.is_unknown()

    def to_filter(self) -> AclBindingFilter:
        return AclBindingFilter(self.pattern.to_filter(), self.entry.to_filter())

    def __str__(self) -> str:
        return f"(pattern={self.pattern}, entry={self.entry})"


@dataclass(frozen=True)
class AclBindingFilter:
    ANY: ClassVar[AclBindingFilter]

    pattern_filter: ResourcePatternFilter
    entry_filter: AccessControlEntryFilter

    def is_unknown(self) -> bool:
        return self.pattern_filter.is_unknown() or self.entry_filter.is_unknown()

    def matches(self, binding: AclBinding) -> bool:
        return self.pattern_filter.matches(binding.pattern) and self.entry_filter.matches(binding.entry)

    def matches_at_most_one(self) -> bool:
        return self.pattern_filter.matches_at_most_one() and self.entry_filter.matches_at_most_one()

    def find_indefinite_field(self) -> str | None:
        return self.pattern_filter.find_indefinite_field() or self.entry_filter.find_indefinite_field()

    def __str__(self) -> str:
        return f"(patternFilter={self.pattern_filter}, entryFilter={self.entry_filter})"


AclBindingFilter.ANY = AclBindingFilter(ResourcePatternFilter.ANY, AccessControlEntryFilter.ANY)
