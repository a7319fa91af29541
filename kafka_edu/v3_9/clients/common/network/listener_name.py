"""Port of clients/src/main/java/org/apache/kafka/common/network/ListenerName.java (Kafka 3.9): the name of a
listener (PLAINTEXT, CONTROLLER, INTERNAL, ...) and the `listener.name.<name>.` prefix of its own configs."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol

CONFIG_STATIC_PREFIX = "listener.name"


class ListenerName:
    def __init__(self, value: str) -> None:
        if value is None:
            raise TypeError("value should not be null")
        self._value = value

    @staticmethod
    def for_security_protocol(security_protocol: SecurityProtocol) -> ListenerName:
        return ListenerName(security_protocol.name)

    @staticmethod
    def normalised(value: str | None) -> ListenerName:
        if value is None or not value.strip():
            raise ConfigException("The provided listener name is null or empty string")
        return ListenerName(value.upper())

    def value(self) -> str:
        return self._value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ListenerName) and self._value == other._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __str__(self) -> str:
        return f"ListenerName({self._value})"

    __repr__ = __str__

    def config_prefix(self) -> str:
        return f"{CONFIG_STATIC_PREFIX}.{self._value.lower()}."

    def sasl_mechanism_config_prefix(self, sasl_mechanism: str) -> str:
        return self.config_prefix() + ListenerName.sasl_mechanism_prefix(sasl_mechanism)

    @staticmethod
    def sasl_mechanism_prefix(sasl_mechanism: str) -> str:
        return sasl_mechanism.lower() + "."
