"""Port of clients/src/main/java/org/apache/kafka/common/Endpoint.java (Kafka 3.9): a listener's name, security
protocol, host and port, as the public API (and SocketServerConfigs) hands it out."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol


@dataclass(frozen=True)
class Endpoint:
    listener_name: str | None
    security_protocol: SecurityProtocol
    host: str | None  # None: every interface
    port: int
