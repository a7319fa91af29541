"""Port of clients/src/main/java/org/apache/kafka/common/network/Selectable.java (Kafka 3.9): the interface of the
Selector as NetworkClient uses it (a test can hand NetworkClient a MockSelector instead)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.network.channel_state import ChannelState
    from kafka_edu.v3_9.clients.common.network.network_receive import NetworkReceive
    from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend

USE_DEFAULT_BUFFER_SIZE = -1  # for connect: leave the socket's buffer size as the OS sets it


@runtime_checkable
class Selectable(Protocol):
    def connect(self, id: str, address: tuple[str, int], send_buffer_size: int, receive_buffer_size: int) -> None:
        ...

    def wakeup(self) -> None:
        ...

    def close(self, id: str | None = None) -> None:
        """close(): the selector and every connection; close(id): one connection."""
        ...

    def send(self, send: NetworkSend) -> None:
        ...

    def poll(self, timeout: int) -> None:
        ...

    def completed_sends(self) -> list[NetworkSend]:
        ...

    def completed_receives(self) -> Collection[NetworkReceive]:
        ...

    def disconnected(self) -> dict[str, ChannelState]:
        ...

    def connected(self) -> list[str]:
        ...

    def mute(self, id: str) -> None:
        ...

    def unmute(self, id: str) -> None:
        ...

    def mute_all(self) -> None:
        ...

    def unmute_all(self) -> None:
        ...

    def is_channel_ready(self, id: str) -> bool:
        ...
