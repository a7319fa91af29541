"""Port of clients/src/main/java/org/apache/kafka/common/security/auth/PlaintextAuthenticationContext.java (Kafka
3.9): the authentication context of a PLAINTEXT connection: only its address and listener."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol


class PlaintextAuthenticationContext:
    def __init__(self, client_address: str | None, listener_name: str) -> None:
        self._client_address = client_address
        self._listener_name = listener_name

    def security_protocol(self) -> SecurityProtocol:
        return SecurityProtocol.PLAINTEXT

    def client_address(self) -> str | None:
        return self._client_address

    def listener_name(self) -> str:
        return self._listener_name
