"""Port of clients/src/main/java/org/apache/kafka/common/replica/ClientMetadata.java (Kafka 3.9): what the broker
knows of a fetching client (rack, id, address, principal, listener), for choosing a replica to read from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ClientMetadata:
    def rack_id(self) -> str | None:
        raise NotImplementedError

    def client_id(self) -> str:
        raise NotImplementedError

    def client_address(self) -> Any:
        raise NotImplementedError

    def principal(self) -> Any:
        raise NotImplementedError

    def listener_name(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class DefaultClientMetadata(ClientMetadata):
    _rack_id: str | None
    _client_id: str
    _client_address: Any
    _principal: Any
    _listener_name: str

    def rack_id(self) -> str | None:
        return self._rack_id

    def client_id(self) -> str:
        return self._client_id

    def client_address(self) -> Any:
        return self._client_address

    def principal(self) -> Any:
        return self._principal

    def listener_name(self) -> str:
        return self._listener_name

    def __str__(self) -> str:
        return (f"DefaultClientMetadata{{rackId='{self._rack_id}', clientId='{self._client_id}', clientAddress="
                f"{self._client_address}, principal={self._principal}, listenerName='{self._listener_name}'}}")
