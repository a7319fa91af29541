"""Port of core/src/main/scala/kafka/security/auth/Operation.scala (Kafka 1.0.2)."""

from __future__ import annotations

import enum

from kafka_edu.v1_0_2.clients.common.acl.acl_operation import AclOperation
from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class Operation(enum.Enum):
    """What a request does to a resource; an ACL names one of these, or All."""

    READ = ("Read", AclOperation.READ)
    WRITE = ("Write", AclOperation.WRITE)
    CREATE = ("Create", AclOperation.CREATE)
    DELETE = ("Delete", AclOperation.DELETE)
    ALTER = ("Alter", AclOperation.ALTER)
    DESCRIBE = ("Describe", AclOperation.DESCRIBE)
    CLUSTER_ACTION = ("ClusterAction", AclOperation.CLUSTER_ACTION)
    ALTER_CONFIGS = ("AlterConfigs", AclOperation.ALTER_CONFIGS)
    DESCRIBE_CONFIGS = ("DescribeConfigs", AclOperation.DESCRIBE_CONFIGS)
    IDEMPOTENT_WRITE = ("IdempotentWrite", AclOperation.IDEMPOTENT_WRITE)
    ALL = ("All", AclOperation.ALL)

    def __init__(self, operation_name: str, to_java: AclOperation) -> None:
        self.operation_name = operation_name
        self.to_java = to_java

    def __str__(self) -> str:
        return self.operation_name

    @classmethod
    def from_string(cls, operation: str) -> Operation:
        for value in cls:
            if value.operation_name.lower() == operation.lower():
                return value
        raise KafkaException(f"{operation} not a valid operation name. The valid names are "
                             f"{','.join(v.operation_name for v in cls)}")

    @classmethod
    def from_java(cls, operation: AclOperation) -> Operation:
        # ANY and UNKNOWN have no core operation: an ACL cannot be made of them
        return cls.from_string(operation.name.replace("_", ""))
