"""Port of raft/src/main/java/org/apache/kafka/raft/RequestManager.java (Kafka 3.9).

Tracks the one request the raft client may have in flight to each node: a connection is READY, AWAITING_RESPONSE
(until the response or `controller.quorum.request.timeout.ms`), or BACKING_OFF after an error (for
`controller.quorum.retry.backoff.ms`).
"""

from __future__ import annotations

import enum
import random as _random
from collections.abc import Iterable

from kafka_edu.v3_9.raft.raft.voter_set import Node


class _State(enum.Enum):
    AWAITING_RESPONSE = "AWAITING_RESPONSE"
    BACKING_OFF = "BACKING_OFF"
    READY = "READY"


class _ConnectionState:
    def __init__(self, node: Node, retry_backoff_ms: int, request_timeout_ms: int) -> None:
        self.node = node
        self.retry_backoff_ms = retry_backoff_ms
        self.request_timeout_ms = request_timeout_ms
        self.state = _State.READY
        self.last_send_time_ms = 0
        self.last_fail_time_ms = 0
        self.in_flight_correlation_id: int | None = None

    def is_backoff_complete(self, time_ms: int) -> bool:
        return self.state is _State.BACKING_OFF and time_ms >= self.last_fail_time_ms + self.retry_backoff_ms

    def has_request_timed_out(self, time_ms: int) -> bool:
        return self.state is _State.AWAITING_RESPONSE and time_ms >= self.last_send_time_ms + self.request_timeout_ms

    def is_ready(self, time_ms: int) -> bool:
        if self.is_backoff_complete(time_ms) or self.has_request_timed_out(time_ms):
            self.state = _State.READY
        return self.state is _State.READY

    def is_backing_off(self, time_ms: int) -> bool:
        return self.state is _State.BACKING_OFF and not self.is_backoff_complete(time_ms)

    def has_inflight_request(self, time_ms: int) -> bool:
        return self.state is _State.AWAITING_RESPONSE and not self.has_request_timed_out(time_ms)

    def remaining_request_time_ms(self, time_ms: int) -> int:
        if self.has_inflight_request(time_ms):
            return self.last_send_time_ms + self.request_timeout_ms - time_ms
        return 0

    def remaining_backoff_ms(self, time_ms: int) -> int:
        if self.is_backing_off(time_ms):
            return self.last_fail_time_ms + self.retry_backoff_ms - time_ms
        return 0

    def is_response_expected(self, correlation_id: int) -> bool:
        return self.in_flight_correlation_id is not None and self.in_flight_correlation_id == correlation_id

    def on_response_error(self, correlation_id: int, time_ms: int) -> None:
        if self.in_flight_correlation_id == correlation_id:
            self.last_fail_time_ms = time_ms
            self.state = _State.BACKING_OFF
            self.in_flight_correlation_id = None

    def on_request_sent(self, correlation_id: int, time_ms: int) -> None:
        self.last_send_time_ms = time_ms
        self.in_flight_correlation_id = correlation_id
        self.state = _State.AWAITING_RESPONSE

    def __repr__(self) -> str:
        return (f"ConnectionState(node={self.node}, state={self.state.value}, "
                f"lastSendTimeMs={self.last_send_time_ms}, lastFailTimeMs={self.last_fail_time_ms}, "
                f"inFlightCorrelationId={self.in_flight_correlation_id})")


class RequestManager:
    def __init__(self, bootstrap_servers: Iterable[Node], retry_backoff_ms: int, request_timeout_ms: int,
                 random: _random.Random) -> None:
        self._connections: dict[str, _ConnectionState] = {}
        self._bootstrap_servers = list(bootstrap_servers)
        self._retry_backoff_ms = retry_backoff_ms
        self._request_timeout_ms = request_timeout_ms
        self._random = random

    def has_any_inflight_request(self, current_time_ms: int) -> bool:
        """Whether some request is pending: a replica keeps at most one Fetch in flight, or it could append the
        same offsets twice."""
        for node_id, connection in list(self._connections.items()):
            if connection.has_request_timed_out(current_time_ms) or connection.is_backoff_complete(current_time_ms):
                del self._connections[node_id]  # ready again
            elif connection.has_inflight_request(current_time_ms):
                return True
        return False

    def find_ready_bootstrap_server(self, current_time_ms: int) -> Node | None:
        """A random bootstrap node ready for a request, if no request is in flight anywhere."""
        if self.has_any_inflight_request(current_time_ms):
            return None
        start_index = self._random.randrange(len(self._bootstrap_servers))
        for i in range(len(self._bootstrap_servers)):
            node = self._bootstrap_servers[(start_index + i) % len(self._bootstrap_servers)]
            if self.is_ready(node, current_time_ms):
                return node
        return None

    def backoff_before_available_bootstrap_server(self, current_time_ms: int) -> int:
        min_backoff_ms = self._retry_backoff_ms
        for node_id, connection in list(self._connections.items()):
            if connection.has_request_timed_out(current_time_ms) or connection.is_backoff_complete(current_time_ms):
                del self._connections[node_id]
            elif connection.has_inflight_request(current_time_ms):
                return connection.remaining_request_time_ms(current_time_ms)  # at most one Fetch in flight
            elif connection.is_backing_off(current_time_ms):
                min_backoff_ms = min(min_backoff_ms, connection.remaining_backoff_ms(current_time_ms))
        for node in self._bootstrap_servers:
            if self.is_ready(node, current_time_ms):
                return 0
        return min_backoff_ms

    def has_request_timed_out(self, node: Node, time_ms: int) -> bool:
        state = self._connections.get(node.id_string())
        return state is not None and state.has_request_timed_out(time_ms)

    def is_ready(self, node: Node, time_ms: int) -> bool:
        state = self._connections.get(node.id_string())
        if state is None:
            return True
        ready = state.is_ready(time_ms)
        if ready:
            self.reset(node)
        return ready

    def is_backing_off(self, node: Node, time_ms: int) -> bool:
        state = self._connections.get(node.id_string())
        return state is not None and state.is_backing_off(time_ms)

    def remaining_request_time_ms(self, node: Node, time_ms: int) -> int:
        state = self._connections.get(node.id_string())
        return state.remaining_request_time_ms(time_ms) if state is not None else 0

    def remaining_backoff_ms(self, node: Node, time_ms: int) -> int:
        state = self._connections.get(node.id_string())
        return state.remaining_backoff_ms(time_ms) if state is not None else 0

    def is_response_expected(self, node: Node, correlation_id: int) -> bool:
        state = self._connections.get(node.id_string())
        return state is not None and state.is_response_expected(correlation_id)

    def on_response_result(self, node: Node, correlation_id: int, success: bool, time_ms: int) -> None:
        if self.is_response_expected(node, correlation_id):
            if success:
                self.reset(node)
            else:
                self._connections[node.id_string()].on_response_error(correlation_id, time_ms)

    def on_request_sent(self, node: Node, correlation_id: int, time_ms: int) -> None:
        state = self._connections.setdefault(node.id_string(),
                                             _ConnectionState(node, self._retry_backoff_ms, self._request_timeout_ms))
        state.on_request_sent(correlation_id, time_ms)

    def reset(self, node: Node) -> None:
        self._connections.pop(node.id_string(), None)

    def reset_all(self) -> None:
        self._connections.clear()
