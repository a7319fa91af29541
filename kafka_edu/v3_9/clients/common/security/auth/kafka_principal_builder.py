"""Port of clients/src/main/java/org/apache/kafka/common/security/auth/KafkaPrincipalBuilder.java and
KafkaPrincipalSerde.java (Kafka 3.9): what builds a connection's principal from its authentication context
(`principal.builder.class`), and how a principal crosses to the controller inside a forwarded request."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.security.auth.authentication_context import AuthenticationContext


@runtime_checkable
class KafkaPrincipalBuilder(Protocol):
    def build(self, context: AuthenticationContext) -> KafkaPrincipal:
        ...


@runtime_checkable
class KafkaPrincipalSerde(Protocol):
    def serialize(self, principal: KafkaPrincipal) -> bytes:
        ...

    def deserialize(self, bytes_: bytes) -> KafkaPrincipal:
        ...
