"""Port of clients/src/main/java/org/apache/kafka/common/security/auth/AuthenticationContext.java (Kafka 3.9): what a
principal builder knows of a connection it builds the principal for."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol


@runtime_checkable
class AuthenticationContext(Protocol):
    def security_protocol(self) -> SecurityProtocol:
        ...

    def client_address(self) -> str | None:
        """The client's IP address (java.net.InetAddress)."""
        ...

    def listener_name(self) -> str:
        ...
