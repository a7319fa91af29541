"""Port of core/src/main/scala/kafka/security/auth/ResourceType.scala (Kafka 1.0.2)."""

from __future__ import annotations

import enum

from kafka_edu.v1_0_2.clients.common.acl.acl_operation import ResourceType as JResourceType
from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors


class ResourceType(enum.Enum):
    """A kind of resource ACLs are kept for; its name is the znode under /kafka-acl, its error the code a denied
    request gets."""

    TOPIC = ("Topic", Errors.TOPIC_AUTHORIZATION_FAILED, JResourceType.TOPIC)
    GROUP = ("Group", Errors.GROUP_AUTHORIZATION_FAILED, JResourceType.GROUP)
    CLUSTER = ("Cluster", Errors.CLUSTER_AUTHORIZATION_FAILED, JResourceType.CLUSTER)
    TRANSACTIONAL_ID = ("TransactionalId", Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                        JResourceType.TRANSACTIONAL_ID)

    def __init__(self, type_name: str, error: Errors, to_java: JResourceType) -> None:
        self.type_name = type_name
        self.error = error
        self.to_java = to_java

    def __str__(self) -> str:
        return self.type_name

    @classmethod
    def from_string(cls, resource_type: str) -> ResourceType:
        for value in cls:
            if value.type_name.lower() == resource_type.lower():
                return value
        raise KafkaException(f"{resource_type} not a valid resourceType name. The valid names are "
                             f"{','.join(v.type_name for v in cls)}")

    @classmethod
    def from_java(cls, resource_type: JResourceType) -> ResourceType:
        return cls.from_string(resource_type.name.replace("_", ""))
