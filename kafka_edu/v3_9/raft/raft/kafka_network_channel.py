"""Port of raft/src/main/java/org/apache/kafka/raft/KafkaNetworkChannel.java (Kafka 3.9), with the part of
InterBrokerSendThread and NetworkClient it runs on.

The raft thread hands a request to `send` and goes on; the send thread ("<prefix>-outbound-request-thread") keeps
one connection per voter, writes each request with the sender's traceparent in its header, reads the responses,
and completes each request's future: with the response, or with the error Kafka reports for a lost connection, a
connect that failed or a request that outlived `controller.quorum.request.timeout.ms` (BROKER_NOT_AVAILABLE: to
NetworkClient a timed-out request is a disconnection too). The raft client puts that response on its own message
queue.
"""

from __future__ import annotations

import errno
import itertools
import logging
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafka_edu.tracing.step import current_traceparent
from kafka_edu.v1_0_2.clients.common.network.selector import Selector
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response, encode_request
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.network_channel import NetworkChannel
from kafka_edu.v3_9.raft.raft.raft_message import InboundResponse, OutboundRequest
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread

log = logging.getLogger("org.apache.kafka.raft.KafkaNetworkChannel")

_MAX_RESPONSE_SIZE = 100 * 1024 * 1024
_CONNECT_POLL_MS = 10  # how often connects in progress are looked at


@dataclass
class _Pending:
    request: OutboundRequest
    api: ApiKeys
    version: int
    traceparent: str | None
    sent_ms: float = 0.0


@dataclass
class _Connection:
    node: Node
    outbox: deque[_Pending] = field(default_factory=deque)  # waiting for the channel's previous send to finish
    in_flight: dict[int, _Pending] = field(default_factory=dict)  # by correlation id, in send order
    connecting: socket.socket | None = None  # until the non-blocking connect completes
    connect_deadline: float = 0.0  # time.monotonic() by which it must have


class KafkaNetworkChannel(NetworkChannel):
    def __init__(self, listener_name: str, request_timeout_ms: int, thread_name_prefix: str,
                 client_id: str = "raft-client") -> None:
        self._listener_name = listener_name
        self._request_timeout_ms = request_timeout_ms
        self._correlation_id_counter = itertools.count()
        self._request_thread = RaftSendThread(f"{thread_name_prefix}-outbound-request-thread", request_timeout_ms,
                                              client_id, self._send_on_complete)

    def new_correlation_id(self) -> int:
        return next(self._correlation_id_counter)

    def send(self, request: OutboundRequest) -> None:
        node = request.destination
        if node is None:
            self._send_complete_future(request, raft_util.error_response(ApiKeys(request.api_key()),
                                                                         Errors.BROKER_NOT_AVAILABLE))
            return
        api = ApiKeys(request.api_key())
        # captured here, on the raft thread inside the span that sends it: the receiver's span links to it
        self._request_thread.send_request(_Pending(request, api, request.api_version, current_traceparent()))

    def _send_on_complete(self, pending: _Pending, response: Any, error: Errors | None) -> None:
        if error is not None:
            response = raft_util.error_response(pending.api, error)
        self._send_complete_future(pending.request, response)

    @staticmethod
    def _send_complete_future(request: OutboundRequest, message: Any) -> None:
        request.completion.complete(InboundResponse(request.correlation_id, message, request.destination))

    def listener_name(self) -> str:
        return self._listener_name

    def start(self) -> None:
        self._request_thread.start()

    def close(self) -> None:
        self._request_thread.shutdown()


class RaftSendThread(ShutdownableThread):
    """InterBrokerSendThread over a NetworkClient: one Selector, a connection per destination."""

    def __init__(self, name: str, request_timeout_ms: int, client_id: str,
                 on_complete: Callable[[_Pending, Any, Errors | None], None]) -> None:
        super().__init__(name, is_interruptible=True, logger_name="kafka.raft.RaftSendThread", daemon=True)
        self._request_timeout_ms = request_timeout_ms
        # socket.connection.setup.timeout.ms (10 s) bounds a connect; a raft request gives up sooner, at its own
        # timeout, so the connect is given no longer than the request
        self._connection_setup_timeout_ms = min(request_timeout_ms, 10_000)
        self._client_id = client_id
        self._selector = Selector(_MAX_RESPONSE_SIZE, connections_max_idle_ms=9 * 60 * 1000)
        self._connections: dict[str, _Connection] = {}
        self._queue: deque[_Pending] = deque()
        self._lock = threading.Lock()
        self._on_complete = on_complete

    def send_request(self, pending: _Pending) -> None:
        with self._lock:
            self._queue.append(pending)
        self._selector.wakeup()

    def interrupt(self) -> None:
        self._selector.wakeup()

    def do_work(self) -> None:
        with self._lock:
            drained = list(self._queue)
            self._queue.clear()
        for pending in drained:
            self._start_send(pending)
        self._finish_connects()
        self._selector.poll(self._poll_timeout_ms())
        for destination in self._selector.completed_sends:
            self._flush_outbox(destination)
        for receive in self._selector.completed_receives:
            self._handle_receive(receive.source, receive.payload)
        for destination in self._selector.disconnected:
            self._fail_connection(destination, Errors.BROKER_NOT_AVAILABLE, close=False)
        self._expire_requests()

    def _poll_timeout_ms(self) -> int:
        if any(c.connecting is not None for c in self._connections.values()):
            return _CONNECT_POLL_MS  # the selector does not watch sockets still connecting: look again soon
        now = time.monotonic()
        deadlines = [p.sent_ms / 1000 + self._request_timeout_ms / 1000
                     for c in self._connections.values() for p in c.in_flight.values()]
        if not deadlines:
            return 300
        return max(0, min(300, int((min(deadlines) - now) * 1000) + 1))

    def _start_send(self, pending: _Pending) -> None:
        node = pending.request.destination
        connection_id = node.id_string()
        connection = self._connections.get(connection_id)
        if connection is None or (connection.connecting is None and self._selector.channel(connection_id) is None):
            # NetworkClient.initiateConnect: a non-blocking connect, so that a voter whose packets are dropped holds
            # up only the requests to it, never those to the other voters
            sock = socket.socket(socket.AF_INET6 if ":" in node.host else socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            code = sock.connect_ex((node.host, node.port))
            if code not in (0, errno.EINPROGRESS):
                sock.close()
                log.info("Connection to node %s could not be established: %s", node, errno.errorcode.get(code, code))
                self._complete(pending, None, Errors.BROKER_NOT_AVAILABLE)
                return
            connection = _Connection(node, connecting=sock,
                                     connect_deadline=time.monotonic() + self._connection_setup_timeout_ms / 1000)
            self._connections[connection_id] = connection
        connection.outbox.append(pending)
        if connection.connecting is None:
            self._flush_outbox(connection_id)

    def _finish_connects(self) -> None:
        """Selector.finishConnect for the sockets still connecting: ready ones join the selector and send what
        waited; refused ones, and ones past the setup timeout, fail their requests with BROKER_NOT_AVAILABLE."""
        connecting = {c.connecting: cid for cid, c in self._connections.items() if c.connecting is not None}
        if not connecting:
            return
        poller = select.poll()  # not select.select: it refuses a socket numbered 1024 or above
        for sock in connecting:
            poller.register(sock, select.POLLOUT)
        ready = {fd for fd, _ in poller.poll(0)}  # a failed connect reports POLLERR/POLLHUP; SO_ERROR says why
        writable = [sock for sock in connecting if sock.fileno() in ready]
        now = time.monotonic()
        for sock, connection_id in connecting.items():
            connection = self._connections[connection_id]
            if sock in writable:
                code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if code == 0:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    self._selector.register(connection_id, sock)
                    connection.connecting = None
                    self._flush_outbox(connection_id)
                    continue
                reason = errno.errorcode.get(code, str(code))
            elif now >= connection.connect_deadline:
                reason = f"no answer within {self._connection_setup_timeout_ms} ms"
            else:
                continue
            log.info("Connection to node %s could not be established: %s", connection.node, reason)
            sock.close()
            connection.connecting = None
            self._fail_connection(connection_id, Errors.BROKER_NOT_AVAILABLE, close=False)

    def _flush_outbox(self, connection_id: str) -> None:
        connection = self._connections.get(connection_id)
        channel = self._selector.channel(connection_id)
        if connection is None or channel is None or channel.send_buffer or not connection.outbox:
            return
        pending = connection.outbox.popleft()
        request = pending.request
        try:
            payload = encode_request(pending.api, pending.version, request.correlation_id, self._client_id,
                                     request.data, traceparent=pending.traceparent)
        except Exception as e:
            log.error("Could not encode %s: %s", request, e)
            self._complete(pending, None, Errors.UNKNOWN_SERVER_ERROR)
            return
        pending.sent_ms = time.monotonic() * 1000
        connection.in_flight[request.correlation_id] = pending
        self._selector.send(connection_id, payload)

    def _handle_receive(self, connection_id: str, payload: bytes) -> None:
        connection = self._connections.get(connection_id)
        if connection is None or not connection.in_flight:
            return
        correlation_id = int.from_bytes(payload[:4], "big", signed=True)
        pending = connection.in_flight.pop(correlation_id, None)
        if pending is None:
            log.warning("Dropping a response with unknown correlation id %d from %s", correlation_id, connection_id)
            return
        try:
            response = decode_response(pending.api, pending.version, payload)
        except Exception as e:
            log.error("Could not decode the %s response from node %s: %s", pending.api.api_name, connection_id, e)
            self._fail_connection(connection_id, Errors.BROKER_NOT_AVAILABLE, close=True)
            self._complete(pending, None, Errors.BROKER_NOT_AVAILABLE)
            return
        self._complete(pending, response.body, None)

    def _expire_requests(self) -> None:
        now = time.monotonic() * 1000
        for connection_id, connection in list(self._connections.items()):
            if any(now - p.sent_ms >= self._request_timeout_ms for p in connection.in_flight.values()):
                # NetworkClient closes the connection of a request that timed out, failing all on it
                log.info("Disconnecting from node %s due to request timeout.", connection_id)
                # a timed-out request is a disconnection to KafkaNetworkChannel.sendOnComplete: BROKER_NOT_AVAILABLE
                self._fail_connection(connection_id, Errors.BROKER_NOT_AVAILABLE, close=True)

    def _fail_connection(self, connection_id: str, error: Errors, close: bool) -> None:
        connection = self._connections.pop(connection_id, None)
        if close:
            self._selector.close_connection(connection_id)
        if connection is None:
            return
        if connection.connecting is not None:
            connection.connecting.close()
        for pending in list(connection.in_flight.values()) + list(connection.outbox):
            self._complete(pending, None, error if pending in connection.in_flight.values()
                           else Errors.BROKER_NOT_AVAILABLE)

    def _complete(self, pending: _Pending, response: Any, error: Errors | None) -> None:
        try:
            self._on_complete(pending, response, error)
        except Exception:
            log.exception("Completing %s failed", pending.request)

    def shutdown(self) -> None:
        super().shutdown()
        for connection_id in list(self._connections):
            self._fail_connection(connection_id, Errors.BROKER_NOT_AVAILABLE, close=True)
        self._selector.close()
