"""Port of clients/src/main/java/org/apache/kafka/common/network/Authenticator.java (Kafka 3.9): who is on the other
end of a channel, established over its transport layer before the channel is ready (PLAINTEXT: at once). The
re-authentication hooks (KIP-368) keep Kafka's defaults: a PLAINTEXT channel never re-authenticates."""

from __future__ import annotations

from typing import Any


class Authenticator:
    """The interface, with Kafka's default methods."""

    def authenticate(self) -> None:
        """One step of the authentication; AuthenticationException or OSError on failure."""
        raise NotImplementedError

    def handle_authentication_failure(self) -> None:
        pass

    def principal(self) -> Any:
        raise NotImplementedError

    def principal_serde(self) -> Any | None:
        raise NotImplementedError

    def complete(self) -> bool:
        raise NotImplementedError

    def reauthenticate(self, reauthentication_context: Any) -> None:
        pass

    def server_session_expiration_time_nanos(self) -> int | None:
        return None

    def client_session_reauthentication_time_nanos(self) -> int | None:
        return None

    def reauthentication_latency_ms(self) -> int | None:
        return None

    def poll_response_received_during_reauthentication(self) -> Any | None:
        """An Optional<NetworkReceive>: None when empty."""
        return None

    def connected_client_supports_reauthentication(self) -> bool:
        return False

    def close(self) -> None:
        pass
