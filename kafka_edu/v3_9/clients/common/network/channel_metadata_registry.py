"""Port of clients/src/main/java/org/apache/kafka/common/network/ChannelMetadataRegistry.java (Kafka 3.9): what a
channel learns about its peer while it is open (the client's software name and version; the TLS cipher, for SSL)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation


@runtime_checkable
class ChannelMetadataRegistry(Protocol):
    def register_cipher_information(self, cipher_information: Any) -> None:
        ...

    def cipher_information(self) -> Any:
        ...

    def register_client_information(self, client_information: ClientInformation) -> None:
        ...

    def client_information(self) -> ClientInformation | None:
        ...

    def close(self) -> None:
        ...
