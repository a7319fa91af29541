"""Port of raft/src/main/java/org/apache/kafka/raft/NetworkChannel.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v3_9.raft.raft.raft_message import OutboundRequest


class NetworkChannel(ABC):
    """Sends the raft client's requests; each request's `completion` is completed with its response."""

    @abstractmethod
    def new_correlation_id(self) -> int: ...

    @abstractmethod
    def send(self, request: OutboundRequest) -> None:
        """Queue the request; it must not block the raft thread."""

    @abstractmethod
    def listener_name(self) -> str: ...

    def close(self) -> None:  # noqa: B027 (nothing to release by default)
        pass
