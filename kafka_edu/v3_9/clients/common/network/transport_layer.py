"""Port of clients/src/main/java/org/apache/kafka/common/network/TransportLayer.java (Kafka 3.9): what a KafkaChannel
reads from and writes to: a socket channel and its selection key, plus the handshake of the protocol over it
(nothing for PLAINTEXT, TLS for SSL)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer, SelectionKey, SocketChannel


@runtime_checkable
class TransportLayer(Protocol):
    """A ScatteringByteChannel and TransferableChannel with a handshake and interest-set control."""

    def ready(self) -> bool:
        """The handshake is done."""
        ...

    def finish_connect(self) -> bool:
        ...

    def disconnect(self) -> None:
        """Cancel the selection key: no more I/O is selected for the channel."""
        ...

    def is_connected(self) -> bool:
        ...

    def socket_channel(self) -> SocketChannel:
        ...

    def selection_key(self) -> SelectionKey:
        ...

    def handshake(self) -> None:
        """One step of the handshake; AuthenticationException when the peer is refused."""
        ...

    def peer_principal(self) -> Any:
        ...

    def add_interest_ops(self, ops: int) -> None:
        ...

    def remove_interest_ops(self, ops: int) -> None:
        ...

    def is_mute(self) -> bool:
        ...

    def has_bytes_buffered(self) -> bool:
        """Bytes were read off the socket into the layer's own buffers and wait there (SSL)."""
        ...

    def is_open(self) -> bool:
        ...

    def close(self) -> None:
        ...

    def read(self, dst: ByteBuffer) -> int:
        ...

    def write(self, srcs: ByteBuffer | Iterable[ByteBuffer]) -> int:
        ...

    def has_pending_writes(self) -> bool:
        ...

    def transfer_from(self, file_channel: Any, position: int, count: int) -> int:
        ...
