"""Port of raft/src/main/java/org/apache/kafka/raft/RaftMessage.java, RaftRequest.java and RaftResponse.java
(Kafka 3.9): what travels through the raft client's message queue.

`data` is the kio request or response object of the API (VoteRequest, FetchResponse, ...).
"""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.voter_set import Node


class RaftMessage:
    correlation_id: int
    data: Any

    def api_key(self) -> int:
        return int(self.data.__api_key__)


class RaftRequest(RaftMessage):
    def __init__(self, correlation_id: int, data: Any, created_time_ms: int) -> None:
        self.correlation_id = correlation_id
        self.data = data
        self.created_time_ms = created_time_ms


class InboundRequest(RaftRequest):
    """A request another replica sent us; its response goes back through `completion`."""

    def __init__(self, correlation_id: int, api_version: int, data: Any, created_time_ms: int,
                 listener_name: str = "CONTROLLER", traceparent: str | None = None) -> None:
        super().__init__(correlation_id, data, created_time_ms)
        self.api_version = api_version
        self.listener_name = listener_name
        self.traceparent = traceparent  # the sender's span, carried in the request header
        self.completion: CompletableFuture[OutboundResponse] = CompletableFuture()

    def __repr__(self) -> str:
        return (f"InboundRequest(correlationId={self.correlation_id}, apiVersion={self.api_version}, "
                f"data={type(self.data).__name__}, createdTimeMs={self.created_time_ms})")


class OutboundRequest(RaftRequest):
    """A request we send to `destination`; the network channel completes `completion` with the response."""

    def __init__(self, correlation_id: int, data: Any, destination: Node, created_time_ms: int,
                 api_version: int) -> None:
        super().__init__(correlation_id, data, created_time_ms)
        self.destination = destination
        self.api_version = api_version
        self.completion: CompletableFuture[InboundResponse] = CompletableFuture()

    def __repr__(self) -> str:
        return (f"OutboundRequest(correlationId={self.correlation_id}, data={type(self.data).__name__}, "
                f"createdTimeMs={self.created_time_ms}, destination={self.destination})")


class RaftResponse(RaftMessage):
    def __init__(self, correlation_id: int, data: Any) -> None:
        self.correlation_id = correlation_id
        self.data = data


class InboundResponse(RaftResponse):
    """A response to one of our requests (or the error response the network channel made up for it)."""

    def __init__(self, correlation_id: int, data: Any, source: Node) -> None:
        super().__init__(correlation_id, data)
        self.source = source

    def __repr__(self) -> str:
        return (f"InboundResponse(correlationId={self.correlation_id}, data={type(self.data).__name__}, "
                f"source={self.source})")


class OutboundResponse(RaftResponse):
    def __repr__(self) -> str:
        return f"OutboundResponse(correlationId={self.correlation_id}, data={type(self.data).__name__})"
