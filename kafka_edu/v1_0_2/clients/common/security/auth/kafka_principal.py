"""Port of clients/src/main/java/org/apache/kafka/common/security/auth/KafkaPrincipal.java (Kafka 1.0.2)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

SEPARATOR = ":"
USER_TYPE = "User"


@dataclass(frozen=True)
class KafkaPrincipal:
    """Who a connection is: a type ("User") and a name; ACLs and super users name principals as "User:alice"."""

    principal_type: str
    name: str

    @staticmethod
    def from_string(string: str | None) -> KafkaPrincipal:
        """"Type:name", split at the first colon; anything else is refused as Kafka refuses it."""
        if not string:
            raise IllegalArgumentException(f"expected a string in format principalType:principalName but got "
                                           f"{string}")
        principal_type, separator, name = string.partition(SEPARATOR)
        if not separator:
            raise IllegalArgumentException(f"expected a string in format principalType:principalName but got "
                                           f"{string}")
        return KafkaPrincipal(principal_type, name)

    def __str__(self) -> str:
        return f"{self.principal_type}{SEPARATOR}{self.name}"


# A connection nobody logged in on: every PLAINTEXT client, and a SASL client until its login completes.
ANONYMOUS = KafkaPrincipal(USER_TYPE, "ANONYMOUS")
