"""Port of clients/src/main/java/org/apache/kafka/common/network/PlaintextTransportLayer.java (Kafka 3.9): the
transport layer of a PLAINTEXT channel: the socket itself, ready from the start, with no bytes of its own."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS, KafkaPrincipal
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer, SelectionKey, SocketChannel


class PlaintextTransportLayer:
    def __init__(self, key: SelectionKey) -> None:
        self._key = key
        self._socket_channel: SocketChannel = key.channel()  # type: ignore[assignment]
        self._principal = ANONYMOUS

    def ready(self) -> bool:
        return True

    def finish_connect(self) -> bool:
        connected = self._socket_channel.finish_connect()
        if connected:
            self._key.interest_ops(self._key.interest_ops() & ~SelectionKey.OP_CONNECT | SelectionKey.OP_READ)
        return connected

    def disconnect(self) -> None:
        self._key.cancel()

    def socket_channel(self) -> SocketChannel:
        return self._socket_channel

    def selection_key(self) -> SelectionKey:
        return self._key

    def is_open(self) -> bool:
        return self._socket_channel.is_open()

    def is_connected(self) -> bool:
        return self._socket_channel.is_connected()

    def close(self) -> None:
        self._socket_channel.socket().close()
        self._socket_channel.close()

    def handshake(self) -> None:
        pass

    def read(self, dst: ByteBuffer) -> int:
        return self._socket_channel.read(dst)

    def write(self, srcs: ByteBuffer | Iterable[ByteBuffer]) -> int:
        return self._socket_channel.write(srcs)

    def has_pending_writes(self) -> bool:
        return False

    def peer_principal(self) -> KafkaPrincipal:
        return self._principal

    def add_interest_ops(self, ops: int) -> None:
        self._key.interest_ops(self._key.interest_ops() | ops)

    def remove_interest_ops(self, ops: int) -> None:
        self._key.interest_ops(self._key.interest_ops() & ~ops)

    def is_mute(self) -> bool:
        return self._key.is_valid() and (self._key.interest_ops() & SelectionKey.OP_READ) == 0

    def has_bytes_buffered(self) -> bool:
        return False

    def transfer_from(self, file_channel: Any, position: int, count: int) -> int:
        return file_channel.transfer_to(position, count, self._socket_channel)
