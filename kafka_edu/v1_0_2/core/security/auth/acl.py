"""Port of core/src/main/scala/kafka/security/auth/Acl.scala (Kafka 1.0.2)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.permission_type import PermissionType

WILD_CARD_PRINCIPAL = KafkaPrincipal(USER_TYPE, "*")
WILD_CARD_HOST = "*"
PRINCIPAL_KEY = "principal"
PERMISSION_TYPE_KEY = "permissionType"
OPERATION_KEY = "operation"
HOSTS_KEY = "host"
VERSION_KEY = "version"
CURRENT_VERSION = 1
ACLS_KEY = "acls"


@dataclass(frozen=True)
class Acl:
    """Principal P is allowed (or denied) operation O from host H; "User:*" and "*" match every principal and
    host, All every operation."""

    principal: KafkaPrincipal
    permission_type: PermissionType
    host: str
    operation: Operation

    def to_map(self) -> dict[str, Any]:
        return {PRINCIPAL_KEY: str(self.principal), PERMISSION_TYPE_KEY: self.permission_type.permission_name,
                OPERATION_KEY: self.operation.operation_name, HOSTS_KEY: self.host}

    def __str__(self) -> str:
        return (f"{self.principal} has {self.permission_type.permission_name} permission for operations: "
                f"{self.operation} from hosts: {self.host}")

    @staticmethod
    def from_json(acl_json: str | None) -> set[Acl]:
        """The ACLs of one /kafka-acl/<type>/<name> znode."""
        if not acl_json:
            return set()
        acl_map = json.loads(acl_json)
        if acl_map[VERSION_KEY] != CURRENT_VERSION:
            raise ValueError(f"requirement failed: unsupported ACL json version {acl_map[VERSION_KEY]}")
        return {Acl(KafkaPrincipal.from_string(item[PRINCIPAL_KEY]),
                    PermissionType.from_string(item[PERMISSION_TYPE_KEY]), item[HOSTS_KEY],
                    Operation.from_string(item[OPERATION_KEY]))
                for item in acl_map[ACLS_KEY]}

    @staticmethod
    def to_json_compatible_map(acls: Iterable[Acl]) -> dict[str, Any]:
        # sorted, so that the same ACLs always make the same znode
        return {VERSION_KEY: CURRENT_VERSION, ACLS_KEY: [acl.to_map() for acl in sorted(acls, key=str)]}


ALLOW_ALL_ACL = Acl(WILD_CARD_PRINCIPAL, PermissionType.ALLOW, WILD_CARD_HOST, Operation.ALL)
