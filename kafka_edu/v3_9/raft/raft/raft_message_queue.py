"""Port of raft/src/main/java/org/apache/kafka/raft/RaftMessageQueue.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v3_9.raft.raft.raft_message import RaftMessage


class RaftMessageQueue(ABC):
    """Inbound requests and responses for the raft thread, which blocks on `poll` until one comes or `wakeup`."""

    @abstractmethod
    def poll(self, timeout_ms: int) -> RaftMessage | None: ...

    @abstractmethod
    def add(self, message: RaftMessage) -> None: ...

    @abstractmethod
    def is_empty(self) -> bool: ...

    @abstractmethod
    def wakeup(self) -> None: ...
