"""Port of clients/src/main/java/org/apache/kafka/common/network/Send.java (Kafka 1.0.2).

A Send is a response (or request) on its way out: the selector's channel calls `write_to` each time the socket can
take more, until `completed`. What it writes to is a transport layer
(kafka_edu/v1_0_2/clients/common/network/plaintext_transport_layer.py): `write` for buffers, `transfer_from` for a
file region.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class Send(ABC):
    """The in-progress sending of data to one destination (a connection id)."""

    @abstractmethod
    def destination(self) -> str:
        """The connection id this send goes to."""

    @abstractmethod
    def completed(self) -> bool:
        """Everything is written."""

    @abstractmethod
    def write_to(self, channel: Any) -> int:
        """Write what the channel takes now of the bytes not written yet; the number written (0 when it took
        nothing). Several calls may be needed."""

    @abstractmethod
    def size(self) -> int:
        """All the bytes this send writes."""
