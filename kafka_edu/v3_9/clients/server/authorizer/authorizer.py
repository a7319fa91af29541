"""Port of clients/src/main/java/org/apache/kafka/server/authorizer/Authorizer.java (Kafka 3.9): the authorizer
interface, with its default authorizeByResourceType."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.acl.acl_binding import AccessControlEntryFilter, AclBinding, AclBindingFilter
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import WILDCARD_RESOURCE, ResourcePatternFilter
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.clients.server.authorizer.action import Action, AuthorizationResult


class Authorizer(ABC):
    @abstractmethod
    def authorize(self, request_context: Any, actions: Sequence[Action]) -> list[AuthorizationResult]: ...

    @abstractmethod
    def acls(self, filter: AclBindingFilter) -> Iterable[AclBinding]: ...

    def authorize_by_resource_type(self, request_context: Any, op: AclOperation | str,
                                   resource_type: ResourceType | str) -> AuthorizationResult:
        """Whether the principal may perform `op` on some resource of the type: an ALLOW ACL (a literal name, or a
        prefix) that no DENY ACL dominates. The handlers name the operation and type as strings."""
        op = AclOperation[op] if isinstance(op, str) else op
        resource_type = ResourceType[resource_type] if isinstance(resource_type, str) else resource_type
        authorize_by_resource_type_check_args(op, resource_type)
        # a made-up name first: a super user is allowed whatever DENY ACLs there are
        if self.authorize(request_context, [Action(op.name, resource_type.name, "hardcode", 0, True,
                                                   False)])[0] is AuthorizationResult.ALLOWED:
            return AuthorizationResult.ALLOWED
        acl_filter = AclBindingFilter(ResourcePatternFilter(resource_type, None, PatternType.ANY),
                                      AccessControlEntryFilter.ANY)
        deny_patterns: dict[PatternType, set[str]] = {PatternType.LITERAL: set(), PatternType.PREFIXED: set()}
        allow_patterns: dict[PatternType, set[str]] = {PatternType.LITERAL: set(), PatternType.PREFIXED: set()}
        has_wild_card_allow = False
        principal = KafkaPrincipal(request_context.principal.principal_type, request_context.principal.name)
        host_addr = request_context.client_address
        for binding in self.acls(acl_filter):
            if binding.entry.host != host_addr and binding.entry.host != "*":
                continue
            if KafkaPrincipal.from_string(binding.entry.principal) != principal and binding.entry.principal != "User:*":
                continue
            if binding.entry.operation is not op and binding.entry.operation is not AclOperation.ALL:
                continue
            pattern_type = binding.pattern.pattern_type
            if binding.entry.permission_type is AclPermissionType.DENY:
                if pattern_type is PatternType.LITERAL:
                    if binding.pattern.name == WILDCARD_RESOURCE:
                        return AuthorizationResult.DENIED  # a wildcard DENY denies all
                    deny_patterns[PatternType.LITERAL].add(binding.pattern.name)
                elif pattern_type is PatternType.PREFIXED:
                    deny_patterns[PatternType.PREFIXED].add(binding.pattern.name)
                continue
            if binding.entry.permission_type is not AclPermissionType.ALLOW:
                continue
            if pattern_type is PatternType.LITERAL:
                if binding.pattern.name == WILDCARD_RESOURCE:
                    has_wild_card_allow = True
                    continue
                allow_patterns[PatternType.LITERAL].add(binding.pattern.name)
            elif pattern_type is PatternType.PREFIXED:
                allow_patterns[PatternType.PREFIXED].add(binding.pattern.name)
        if has_wild_card_allow:
            return AuthorizationResult.ALLOWED
        # an allowed literal with no literal or prefix DENY over it, or an allowed prefix with no prefix DENY over it
        for pattern_type, names in allow_patterns.items():
            for allow_str in names:
                if pattern_type is PatternType.LITERAL and allow_str in deny_patterns[PatternType.LITERAL]:
                    continue
                if not any(allow_str[:i] in deny_patterns[PatternType.PREFIXED] for i in range(1, len(allow_str) + 1)):
                    return AuthorizationResult.ALLOWED
        return AuthorizationResult.DENIED


def authorize_by_resource_type_check_args(op: AclOperation, resource_type: ResourceType) -> None:
    """SecurityUtils.authorizeByResourceTypeCheckArgs."""
    if resource_type is ResourceType.ANY:
        raise IllegalArgumentException("Must specify a non-filter resource type for authorizeByResourceType")
    if resource_type is ResourceType.UNKNOWN:
        raise IllegalArgumentException("Unknown resource type")
    if op is AclOperation.ANY:
        raise IllegalArgumentException("Must specify a non-filter operation type for authorizeByResourceType")
    if op is AclOperation.UNKNOWN:
        raise IllegalArgumentException("Unknown operation type")
