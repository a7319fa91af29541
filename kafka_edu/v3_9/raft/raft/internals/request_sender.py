"""Port of raft/src/main/java/org/apache/kafka/raft/internals/RequestSender.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from kafka_edu.v3_9.raft.raft.voter_set import Node


class RequestSender(Protocol):
    """What a handler uses to send a request of its own (the AddVoterHandler's ApiVersions)."""

    def listener_name(self) -> str:
        ...

    def send(self, destination: Node, request_supplier: Callable[[], Any], current_time_ms: int) -> int | None:
        """The time until the request times out, or None when it was not sent (the connection is backing off or
        busy)."""
        ...
