"""Port of core/src/main/scala/kafka/cluster/EndPoint.scala (Kafka 3.9): a broker listener, host and port matched to
a listener name and security protocol."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v3_9.clients.common.endpoint import Endpoint
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol


def parse_listener_name(connection_string: str) -> str:
    first_colon = connection_string.find(":")
    if first_colon < 0:
        raise KafkaException(f"Unable to parse a listener name from {connection_string}")
    return connection_string[:first_colon].upper()


@dataclass(frozen=True)
class EndPoint:
    host: str | None
    port: int
    listener_name: ListenerName
    security_protocol: SecurityProtocol

    @staticmethod
    def from_java(endpoint: Endpoint) -> EndPoint:
        return EndPoint(endpoint.host, endpoint.port, ListenerName(endpoint.listener_name),
                        endpoint.security_protocol)

    def connection_string(self) -> str:
        if self.host is None:
            hostport = f":{self.port}"
        elif ":" in self.host:  # Utils.formatAddress: an IPv6 address goes in brackets
            hostport = f"[{self.host}]:{self.port}"
        else:
            hostport = f"{self.host}:{self.port}"
        return f"{self.listener_name.value()}://{hostport}"

    def to_java(self) -> Endpoint:
        return Endpoint(self.listener_name.value(), self.security_protocol, self.host, self.port)
