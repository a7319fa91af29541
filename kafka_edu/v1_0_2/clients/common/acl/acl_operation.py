"""Port of clients/src/main/java/org/apache/kafka/common/acl/AclOperation.java, AclPermissionType.java and
clients/src/main/java/org/apache/kafka/common/resource/ResourceType.java (Kafka 1.0.2): the wire codes of the
ACL APIs."""

from __future__ import annotations

import enum


class AclOperation(enum.IntEnum):
    """What an ACL allows or denies. ANY only matches in a filter; UNKNOWN is a code this version does not know."""

    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12

    @classmethod
    def from_code(cls, code: int) -> AclOperation:
        return cls._value2member_map_.get(code, cls.UNKNOWN)  # type: ignore[return-value]


class AclPermissionType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3

    @classmethod
    def from_code(cls, code: int) -> AclPermissionType:
        return cls._value2member_map_.get(code, cls.UNKNOWN)  # type: ignore[return-value]


class ResourceType(enum.IntEnum):
    """The resource an ACL is on, as the ACL APIs code it (core's kafka.security.auth.ResourceType names it)."""

    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5

    @classmethod
    def from_code(cls, code: int) -> ResourceType:
        return cls._value2member_map_.get(code, cls.UNKNOWN)  # type: ignore[return-value]
