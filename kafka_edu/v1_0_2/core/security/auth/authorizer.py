"""Port of core/src/main/scala/kafka/security/auth/Authorizer.scala (Kafka 1.0.2)."""

from __future__ import annotations

from typing import Any, Protocol

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.security.auth.acl import Acl
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.resource import Resource


class Authorizer(Protocol):
    """What `authorizer.class.name` names: KafkaApis asks it about every request; the ACL APIs and
    `kafka-edu acls` change what it knows."""

    def configure(self, configs: dict[str, Any]) -> None: ...

    def authorize(self, session: Any, operation: Operation, resource: Resource) -> bool: ...

    def add_acls(self, acls: set[Acl], resource: Resource) -> None: ...

    def remove_acls(self, acls_to_be_removed: set[Acl], resource: Resource) -> bool: ...

    def remove_all_acls(self, resource: Resource) -> bool: ...

    def get_acls(self, resource: Resource) -> set[Acl]: ...

    def get_acls_for_principal(self, principal: KafkaPrincipal) -> dict[Resource, set[Acl]]: ...

    def get_all_acls(self) -> dict[Resource, set[Acl]]: ...

    def close(self) -> None: ...
