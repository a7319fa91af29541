"""Port of clients/src/main/java/org/apache/kafka/common/network/PlaintextChannelBuilder.java (Kafka 3.9): builds
PLAINTEXT channels: a PlaintextTransportLayer and an authenticator that is complete from the start, whose principal
is what the principal builder makes of the client's address and listener (KafkaPrincipal.ANONYMOUS by default)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.memory.memory_pool import MemoryPool
from kafka_edu.v3_9.clients.common.network.authenticator import Authenticator
from kafka_edu.v3_9.clients.common.network.channel_builders import create_principal_builder
from kafka_edu.v3_9.clients.common.network.channel_metadata_registry import ChannelMetadataRegistry
from kafka_edu.v3_9.clients.common.network.java_nio import SelectionKey
from kafka_edu.v3_9.clients.common.network.kafka_channel import KafkaChannel
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.network.plaintext_transport_layer import PlaintextTransportLayer
from kafka_edu.v3_9.clients.common.network.transport_layer import TransportLayer
from kafka_edu.v3_9.clients.common.security.auth.kafka_principal_builder import KafkaPrincipalSerde
from kafka_edu.v3_9.clients.common.security.auth.plaintext_authentication_context import (
    PlaintextAuthenticationContext,
)
from kafka_edu.v3_9.clients.common.utils.utils import close_quietly


class PlaintextChannelBuilder:
    def __init__(self, listener_name: ListenerName | None) -> None:
        """listener_name: None on a client, where principal() is never asked."""
        self.listener_name = listener_name
        self.configs: dict[str, Any] | None = None

    def configure(self, configs: dict[str, Any]) -> None:
        self.configs = configs

    def build_channel(self, id: str, key: SelectionKey, max_receive_size: int, memory_pool: MemoryPool | None,
                      metadata_registry: ChannelMetadataRegistry) -> KafkaChannel:
        transport_layer = None
        try:
            transport_layer = self.build_transport_layer(key)
            final_transport_layer = transport_layer
            authenticator_creator = lambda: _PlaintextAuthenticator(  # noqa: E731
                self.configs, final_transport_layer, self.listener_name)
            return self._build_channel(id, transport_layer, authenticator_creator, max_receive_size,
                                       memory_pool if memory_pool is not None else memory_pools.NONE,
                                       metadata_registry)
        except Exception as e:
            # no channel owns the transport layer yet: close it here
            close_quietly(transport_layer, f"transport layer for channel Id: {id}")
            raise KafkaException(e) from e

    def _build_channel(self, id: str, transport_layer: TransportLayer,
                       authenticator_creator: Callable[[], Authenticator], max_receive_size: int,
                       memory_pool: MemoryPool, metadata_registry: ChannelMetadataRegistry) -> KafkaChannel:
        """buildChannel(id, transportLayer, ...), visible for testing: a test's builder overrides it."""
        return KafkaChannel(id, transport_layer, authenticator_creator, max_receive_size, memory_pool,
                            metadata_registry)

    def build_transport_layer(self, key: SelectionKey) -> PlaintextTransportLayer:
        return PlaintextTransportLayer(key)

    def close(self) -> None:
        pass


class _PlaintextAuthenticator(Authenticator):
    """PlaintextChannelBuilder.PlaintextAuthenticator: nothing to authenticate; the principal builder names the
    client."""

    def __init__(self, configs: dict[str, Any] | None, transport_layer: PlaintextTransportLayer,
                 listener_name: ListenerName | None) -> None:
        self.transport_layer = transport_layer
        self.principal_builder = create_principal_builder(configs or {}, None, None)
        self.listener_name = listener_name

    def authenticate(self) -> None:
        pass

    def principal(self) -> KafkaPrincipal:
        client_address = self.transport_layer.socket_channel().socket().get_inet_address()
        # only a client has no listener name, and a client never asks for the principal
        if self.listener_name is None:
            raise IllegalStateException("Unexpected call to principal() when listenerName is null")
        return self.principal_builder.build(PlaintextAuthenticationContext(client_address, self.listener_name.value()))

    def principal_serde(self) -> KafkaPrincipalSerde | None:
        return self.principal_builder if isinstance(self.principal_builder, KafkaPrincipalSerde) else None

    def complete(self) -> bool:
        return True

    def close(self) -> None:
        if callable(getattr(self.principal_builder, "close", None)):
            close_quietly(self.principal_builder, "principal builder")
