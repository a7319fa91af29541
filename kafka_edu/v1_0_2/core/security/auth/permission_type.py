"""Port of core/src/main/scala/kafka/security/auth/PermissionType.scala (Kafka 1.0.2)."""

from __future__ import annotations

import enum

from kafka_edu.v1_0_2.clients.common.acl.acl_operation import AclPermissionType
from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class PermissionType(enum.Enum):
    ALLOW = ("Allow", AclPermissionType.ALLOW)
    DENY = ("Deny", AclPermissionType.DENY)

    def __init__(self, permission_name: str, to_java: AclPermissionType) -> None:
        self.permission_name = permission_name
        self.to_java = to_java

    def __str__(self) -> str:
        return self.permission_name

    @classmethod
    def from_string(cls, permission_type: str) -> PermissionType:
        for value in cls:
            if value.permission_name.lower() == permission_type.lower():
                return value
        raise KafkaException(f"{permission_type} not a valid permissionType name. The valid names are "
                             f"{','.join(v.permission_name for v in cls)}")

    @classmethod
    def from_java(cls, permission_type: AclPermissionType) -> PermissionType:
        return cls.from_string(permission_type.name)
