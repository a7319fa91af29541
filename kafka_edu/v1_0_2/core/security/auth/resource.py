"""Port of core/src/main/scala/kafka/security/auth/Resource.scala (Kafka 1.0.2)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType

SEPARATOR = ":"
CLUSTER_RESOURCE_NAME = "kafka-cluster"
WILD_CARD_RESOURCE = "*"  # an ACL on "*" applies to every resource of its type


@dataclass(frozen=True)
class Resource:
    """A resource ACLs are kept for: "Topic:orders", "Group:billing", "Cluster:kafka-cluster"."""

    resource_type: ResourceType
    name: str

    @staticmethod
    def from_string(string: str) -> Resource:
        """The form change notifications carry ("Topic:orders"); the name may hold colons of its own."""
        resource_type, separator, name = string.partition(SEPARATOR)
        if not separator:
            raise IllegalArgumentException(f"expected a string in format ResourceType:ResourceName but got {string}")
        return Resource(ResourceType.from_string(resource_type), name)

    def __str__(self) -> str:
        return f"{self.resource_type.type_name}{SEPARATOR}{self.name}"


CLUSTER_RESOURCE = Resource(ResourceType.CLUSTER, CLUSTER_RESOURCE_NAME)
