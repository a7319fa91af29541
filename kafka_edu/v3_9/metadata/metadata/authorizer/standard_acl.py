"""Port of metadata/src/main/java/org/apache/kafka/metadata/authorizer/StandardAcl.java (Kafka 3.9): an ACL as the
StandardAuthorizer stores it, ordered so that the ACLs that may apply to a resource sit together."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.acl.acl_binding import AccessControlEntry, AclBinding
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import ResourcePattern
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType


def _compare(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


@functools.total_ordering
@dataclass(frozen=True, eq=True)
class StandardAcl:
    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    @staticmethod
    def from_record(record: Any) -> StandardAcl:
        """From an AccessControlEntryRecord."""
        return StandardAcl(ResourceType.from_code(record.resource_type), record.resource_name,
                           PatternType.from_code(record.pattern_type), record.principal, record.host,
                           AclOperation.from_code(record.operation),
                           AclPermissionType.from_code(record.permission_type))

    @staticmethod
    def from_acl_binding(acl: AclBinding) -> StandardAcl:
        return StandardAcl(acl.pattern.resource_type, acl.pattern.name, acl.pattern.pattern_type,
                           acl.entry.principal, acl.entry.host, acl.entry.operation, acl.entry.permission_type)

    def kafka_principal(self) -> KafkaPrincipal:
        principal_type, colon, principal_name = self.principal.partition(":")
        if not colon:
            raise IllegalStateException(f"Could not parse principal from `{self.principal}` (no colon is present "
                                        "separating the principal type from the principal name)")
        return KafkaPrincipal(principal_type, principal_name)

    def to_binding(self) -> AclBinding:
        return AclBinding(ResourcePattern(self.resource_type, self.resource_name, self.pattern_type),
                          AccessControlEntry(self.principal, self.host, self.operation, self.permission_type))

    def compare_to(self, other: StandardAcl) -> int:
        """Resource type, then resource name in REVERSE order (a prefix sorts after the names it is a prefix of),
        pattern type, operation, principal, host, permission type."""
        result = _compare(self.resource_type, other.resource_type)
        if result != 0:
            return result
        result = _compare(other.resource_name, self.resource_name)  # reversed
        if result != 0:
            return result
        for mine, theirs in ((self.pattern_type, other.pattern_type), (self.operation, other.operation),
                             (self.principal, other.principal), (self.host, other.host),
                             (self.permission_type, other.permission_type)):
            result = _compare(mine, theirs)
            if result != 0:
                return result
        return 0

    def __lt__(self, other: StandardAcl) -> bool:
        return self.compare_to(other) < 0

    def __str__(self) -> str:
        return (f"StandardAcl(resourceType={self.resource_type}, resourceName={self.resource_name}, "
                f"patternType={self.pattern_type}, principal={self.principal}, host={self.host}, "
                f"operation={self.operation}, permissionType={self.permission_type})")
