"""Port of clients/src/main/java/org/apache/kafka/common/network/ChannelBuilder.java (Kafka 3.9): what the Selector
asks for a KafkaChannel (transport layer and authenticator) for each new connection."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.memory.memory_pool import MemoryPool
    from kafka_edu.v3_9.clients.common.network.channel_metadata_registry import ChannelMetadataRegistry
    from kafka_edu.v3_9.clients.common.network.java_nio import SelectionKey
    from kafka_edu.v3_9.clients.common.network.kafka_channel import KafkaChannel


@runtime_checkable
class ChannelBuilder(Protocol):
    def configure(self, configs: dict[str, Any]) -> None:
        """Configurable.configure."""
        ...

    def build_channel(self, id: str, key: SelectionKey, max_receive_size: int, memory_pool: MemoryPool,
                      metadata_registry: ChannelMetadataRegistry) -> KafkaChannel:
        """A channel for the connection registered under `key`; KafkaException if none can be built."""
        ...

    def close(self) -> None:
        ...
