"""Port of clients/src/main/java/org/apache/kafka/common/resource/{ResourcePattern,ResourcePatternFilter}.java
(Kafka 3.9): the resource side of an ACL and of the filters DescribeAcls and DeleteAcls carry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType

WILDCARD_RESOURCE = "*"  # ResourcePattern.WILDCARD_RESOURCE


@dataclass(frozen=True)
class ResourcePattern:
    """A resource type, a name and how the name matches; never ANY nor MATCH (those are for filters)."""

    resource_type: ResourceType
    name: str
    pattern_type: PatternType

    def __post_init__(self) -> None:
        if self.resource_type is ResourceType.ANY:
            raise IllegalArgumentException("resourceType must not be ANY")
        if self.pattern_type in (PatternType.MATCH, PatternType.ANY):
            raise IllegalArgumentException(f"patternType must not be {self.pattern_type}")

    def to_filter(self) -> ResourcePatternFilter:
        return ResourcePatternFilter(self.resource_type, self.name, self.pattern_type)

    def is_unknown(self) -> bool:
        return self.resource_type.is_unknown() or self.pattern_type.is_unknown()

    def __str__(self) -> str:
        return f"ResourcePattern(resourceType={self.resource_type}, name={self.name}, patternType={self.pattern_type})"


@dataclass(frozen=True)
class ResourcePatternFilter:
    """A null name matches any name; ANY type or pattern type matches any; MATCH pattern type matches the literal,
    wildcard and prefixed patterns that would apply to the name."""

    ANY: ClassVar[ResourcePatternFilter]

    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType

    def is_unknown(self) -> bool:
        return self.resource_type.is_unknown() or self.pattern_type.is_unknown()

    def matches(self, pattern: ResourcePattern) -> bool:
        if self.resource_type is not ResourceType.ANY and self.resource_type is not pattern.resource_type:
            return False
        if (self.pattern_type not in (PatternType.ANY, PatternType.MATCH)
                and self.pattern_type is not pattern.pattern_type):
            return False
        if self.name is None:
            return True
        if self.pattern_type in (PatternType.ANY, pattern.pattern_type):
            return self.name == pattern.name
        if pattern.pattern_type is PatternType.LITERAL:
            return self.name == pattern.name or pattern.name == WILDCARD_RESOURCE
        if pattern.pattern_type is PatternType.PREFIXED:
            return self.name.startswith(pattern.name)
        raise IllegalArgumentException(f"Unsupported PatternType: {pattern.pattern_type}")

    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    def find_indefinite_field(self) -> str | None:
        if self.resource_type is ResourceType.ANY:
            return "Resource type is ANY."
        if self.resource_type is ResourceType.UNKNOWN:
            return "Resource type is UNKNOWN."
        if self.pattern_type is PatternType.ANY:
            return "Resource pattern type is ANY."
        if self.pattern_type is PatternType.MATCH:
            return "Resource pattern type is MATCH."
        if self.pattern_type is PatternType.UNKNOWN:
            return "Resource pattern type is UNKNOWN."
        if self.name is None:
            return "Resource name is NULL."
        return None

    def __str__(self) -> str:
        return (f"ResourcePattern(resourceType={self.resource_type}, name={self.name or '<any>'}, "
                f"patternType={self.pattern_type})")


ResourcePatternFilter.ANY = ResourcePatternFilter(ResourceType.ANY, None, PatternType.ANY)
