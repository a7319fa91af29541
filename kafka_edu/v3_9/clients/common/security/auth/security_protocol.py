"""Port of clients/src/main/java/org/apache/kafka/common/security/auth/SecurityProtocol.java (Kafka 3.9): the four
security protocols a listener may speak, with the ids the metadata records carry."""

from __future__ import annotations

from enum import Enum

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException


class SecurityProtocol(Enum):
    """`.name` is Kafka's name, `.id` its id."""

    PLAINTEXT = 0
    SSL = 1
    SASL_PLAINTEXT = 2
    SASL_SSL = 3

    @property
    def id(self) -> int:
        return self.value

    @staticmethod
    def names() -> list[str]:
        return [protocol.name for protocol in SecurityProtocol]

    @staticmethod
    def for_id(id: int) -> SecurityProtocol | None:
        return next((protocol for protocol in SecurityProtocol if protocol.id == id), None)

    @staticmethod
    def for_name(name: str) -> SecurityProtocol:
        try:
            return SecurityProtocol[name.upper()]
        except KeyError:
            raise IllegalArgumentException(f"No enum constant SecurityProtocol.{name.upper()}") from None
