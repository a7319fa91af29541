"""Port of clients/src/main/java/org/apache/kafka/common/acl/{AclOperation,AclPermissionType}.java (Kafka 3.9): what
an ACL allows or denies, and whether it allows or denies it."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.utils.wire_code_enum import WireCodeEnum


class AclOperation(WireCodeEnum):
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


class AclPermissionType(WireCodeEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3
