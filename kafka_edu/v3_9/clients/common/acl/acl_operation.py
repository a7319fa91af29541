"""Port of clients/src/main/java/org/apache/kafka/common/acl/{AclOperation,AclPermissionType}.java (Kafka 3.9): what
an ACL allows or denies, and whether it allows or denies it."""

from __future__ import annotations

import enum


class AclOperation(enum.IntEnum):
    """The value is the wire code and the ordinal. ANY only matches in a filter; ALL is every operation."""

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
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14

    @classmethod
    def from_code(cls, code: int) -> AclOperation:
        return cls._value2member_map_.get(code, cls.UNKNOWN)  # type: ignore[return-value]

    @classmethod
    def from_string(cls, text: str) -> AclOperation:
        try:
            return cls[text.upper()]
        except KeyError:
            return cls.UNKNOWN

    def code(self) -> int:
        return self.value

    def is_unknown(self) -> bool:
        return self is AclOperation.UNKNOWN

    def __str__(self) -> str:
        return self.name


class AclPermissionType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3

    @classmethod
    def from_code(cls, code: int) -> AclPermissionType:
        return cls._value2member_map_.get(code, cls.UNKNOWN)  # type: ignore[return-value]

    @classmethod
    def from_string(cls, text: str) -> AclPermissionType:
        try:
            return cls[text.upper()]
        except KeyError:
            return cls.UNKNOWN

    def code(self) -> int:
        return self.value

    def is_unknown(self) -> bool:
        return self is AclPermissionType.UNKNOWN

    def __str__(self) -> str:
        return self.name
