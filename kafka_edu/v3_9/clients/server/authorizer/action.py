"""Port of clients/src/main/java/org/apache/kafka/server/authorizer/{Action,AuthorizationResult}.java (Kafka 3.9):
what a request handler asks an authorizer, and its answer."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import ResourcePattern
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType


class AuthorizationResult(enum.Enum):
    ALLOWED = "ALLOWED"
    DENIED = "DENIED"


@dataclass(frozen=True)
class Action:
    """An operation on a LITERAL resource pattern. The handlers name the operation and the resource type as Kafka's
    enum constants ("ALTER", "CLUSTER"), so `acl_operation()` and `resource_pattern()` give the enums 3.9's Action
    holds. `resource_reference_count` is how many times the request names the resource; the log flags say whether
    an allowed or denied answer is worth the audit log's attention (False when only asking, e.g. for a filter)."""

    operation: str
    resource_type: str
    resource_name: str
    resource_reference_count: int = 1
    log_if_allowed: bool = True
    log_if_denied: bool = True

    def acl_operation(self) -> AclOperation:
        return AclOperation[str(self.operation)]

    def resource_pattern(self) -> ResourcePattern:
        return ResourcePattern(ResourceType[str(self.resource_type)], self.resource_name, PatternType.LITERAL)

    def __str__(self) -> str:
        return (f"Action(resourcePattern='{self.resource_pattern()}', operation='{self.operation}', "
                f"resourceReferenceCount='{self.resource_reference_count}', logIfAllowed='{self.log_if_allowed}', "
                f"logIfDenied='{self.log_if_denied}')")
