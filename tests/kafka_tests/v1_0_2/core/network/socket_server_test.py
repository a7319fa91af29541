"""Port of core/src/test/scala/unit/kafka/network/SocketServerTest.scala (Kafka 1.0.2).

A real SocketServer on loopback, driven through plain blocking sockets. The failure-injection cases use a
TestableSelector (a subclass of the port's Selector) and a TestableSocketServer whose processor creates it, as
Kafka's do. Kafka's ControlThrowable is a Python BaseException that is no Exception: the processor does not catch it.
"""

from __future__ import annotations

import datetime
import os
import socket
import struct
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.network.sasl_channel_builder import server_channel_builder
from kafka_edu.v1_0_2.clients.common.network.selector import Selector
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS
from kafka_edu.v1_0_2.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v1_0_2.core.network.request_channel import Request, RequestChannel, Response, ResponseAction
from kafka_edu.v1_0_2.core.network.socket_server import Processor, SocketServer
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import MOCK_ZK_CONNECT, compute_until_true, create_broker_config, wait_until_true

_METRICS = "request/processor metrics (Yammer, Kafka Metrics): the port has no metrics registry"

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/network/SocketServerTest.scala",
    cases=["simpleRequest", "tooBigRequestIsRejected", "testGracefulClose", "testNoOpAction", "testConnectionId",
           "testIdleConnection", "testConnectionIdReuse", "testSocketsCloseOnShutdown", "testMaxConnectionsPerIp",
           "testMaxConnectionsPerIpOverrides", "testSslSocketServer", "testSessionPrincipal",
           "testClientDisconnectionUpdatesRequestMetrics", "testClientDisconnectionWithStagedReceivesFullyProcessed",
           "testBrokerSendAfterChannelClosedUpdatesRequestMetrics", "testRequestMetricsAfterStop",
           "testMetricCollectionAfterShutdown", "testProcessorMetricsTags", "configureNewConnectionException",
           "processNewResponseException", "sendCancelledKeyException", "closingChannelException",
           "processCompletedReceiveException", "processCompletedSendException", "processDisconnectedException",
           "pollException", "controlThrowable"],
    not_applicable={
        "testSslSocketServer": "SSL listener: not built in kafka-edu (docs list SSL as not ported)",
        "testClientDisconnectionUpdatesRequestMetrics": _METRICS,
        "testBrokerSendAfterChannelClosedUpdatesRequestMetrics": _METRICS,
        "testRequestMetricsAfterStop": _METRICS,
        "testMetricCollectionAfterShutdown": _METRICS,
        "testProcessorMetricsTags": _METRICS,
    },
)

LOCAL_ADDRESS = "127.0.0.1"
PLAINTEXT = "PLAINTEXT"


def _props() -> dict[str, str]:
    props = create_broker_config(0, MOCK_ZK_CONNECT, port=0)
    props.update({"listeners": "PLAINTEXT://localhost:0", "num.network.threads": "1",
                  "socket.send.buffer.bytes": "300000", "socket.receive.buffer.bytes": "300000",
                  "queued.max.requests": "50", "socket.request.max.bytes": "50", "max.connections.per.ip": "5",
                  "connections.max.idle.ms": "60000"})
    return props


class _World:
    """The test class's fields: the server every case gets, and the sockets to close after it."""

    def __init__(self) -> None:
        self.props = _props()
        self.config = KafkaConfig.from_props(self.props)
        self.server = SocketServer(self.config)
        self.server.startup()
        self.sockets: list[socket.socket] = []

    def connect(self, s: SocketServer | None = None) -> socket.socket:
        server = s or self.server
        sock = socket.create_connection(("localhost", server.bound_port(PLAINTEXT)))
        self.sockets.append(sock)
        return sock


@pytest.fixture
def world() -> Iterator[_World]:
    w = _World()
    yield w
    w.server.shutdown()
    for sock in w.sockets:
        sock.close()


def _frame(request: bytes, id: int | None = None) -> bytes:
    if id is not None:
        return struct.pack(">ih", len(request) + 2, id) + request
    return struct.pack(">i", len(request)) + request


def send_request(sock: socket.socket, request: bytes, id: int | None = None) -> None:
    sock.sendall(_frame(request, id))


def _read_fully(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("connection closed")
        data += chunk
    return data


def receive_response(sock: socket.socket) -> bytes:
    (length,) = struct.unpack(">i", _read_fully(sock, 4))
    return _read_fully(sock, length)


def receive_request(channel: RequestChannel, timeout: int = 2000) -> Request:
    request = channel.receive_request(timeout)
    if request is None:
        pytest.fail("receiveRequest timed out")
    if not isinstance(request, Request):
        pytest.fail("Unexpected shutdown received")
    return request


def process_request(channel: RequestChannel, request: Request | None = None) -> None:
    """The echoing request handler: the response is the request, serialized again."""
    if request is None:
        request = receive_request(channel)
    send = encode_request(request.api_key, request.api_version, request.correlation_id, request.client_id,
                          request.body)
    channel.send_response(Response(request, send, ResponseAction.SEND))


def producer_request_bytes(ack: int = 0) -> bytes:
    body = ApiKeys.PRODUCE.request_schema(5)(transactional_id=None, acks=ack,
                                                    timeout=datetime.timedelta(milliseconds=10000), topic_data=())
    return encode_request(ApiKeys.PRODUCE, 5, -1, "", body)


def connect_and_process_request(w: _World, s: SocketServer) -> tuple[socket.socket, str]:
    sock = w.connect(s)
    request = send_and_receive_request(sock, s)
    process_request(s.request_channel, request)
    return sock, request.connection_id


def send_and_receive_request(sock: socket.socket, server: SocketServer) -> Request:
    send_request(sock, producer_request_bytes())
    return receive_request(server.request_channel)


def _read_eof(sock: socket.socket) -> int:
    """InputStream.read(): -1 at end of stream (a reset connection counts as closed too)."""
    try:
        data = sock.recv(1)
    except ConnectionResetError:
        return -1
    return -1 if not data else data[0]


def test_simple_request(world: _World) -> None:
    plain_socket = world.connect()
    serialized_bytes = producer_request_bytes()
    send_request(plain_socket, serialized_bytes)
    process_request(world.server.request_channel)
    assert receive_response(plain_socket) == serialized_bytes


def test_too_big_request_is_rejected(world: _World) -> None:
    too_many_bytes = os.urandom(world.config.socket_request_max_bytes + 1)
    sock = world.connect()
    sock.sendall(struct.pack(">i", len(too_many_bytes)))
    try:
        sock.sendall(too_many_bytes)
        receive_response(sock)
    except (OSError, EOFError):
        pass  # the server closed the connection on reading the size


def test_graceful_close(world: _World) -> None:
    plain_socket = world.connect()
    serialized_bytes = producer_request_bytes()
    for _ in range(10):
        send_request(plain_socket, serialized_bytes)
    plain_socket.close()
    for _ in range(10):
        request = receive_request(world.server.request_channel)
        assert request is not None, "receiveRequest timed out"
        world.server.request_channel.send_response(Response(request, None, ResponseAction.NO_OP))


def test_no_op_action(world: _World) -> None:
    plain_socket = world.connect()
    serialized_bytes = producer_request_bytes()
    for _ in range(3):
        send_request(plain_socket, serialized_bytes)
    for _ in range(3):
        request = receive_request(world.server.request_channel)
        assert request is not None, "receiveRequest timed out"
        world.server.request_channel.send_response(Response(request, None, ResponseAction.NO_OP))


def test_connection_id(world: _World) -> None:
    sockets = [world.connect() for _ in range(5)]
    serialized_bytes = producer_request_bytes()
    requests = []
    for sock in sockets:
        send_request(sock, serialized_bytes)
        requests.append(receive_request(world.server.request_channel))
    for i, request in enumerate(requests):
        assert request.connection_id.split("-")[-1] == str(i)
    for sock in sockets:
        sock.close()


IDLE_TIME_MS = 60000
OVERRIDE_CONNECTION_ID = "127.0.0.1:1-127.0.0.1:2-0"


def send_requests_until_staged_receive(server: SocketServer, sock: socket.socket, request_bytes: bytes) -> Request:
    """Two requests in one write until the processor has read the second while the first is being handled."""
    def send_two_requests_receive_one() -> Request:
        sock.sendall(_frame(request_bytes) + _frame(request_bytes))
        return receive_request(server.request_channel)

    def has_staged_receives(req: Request) -> bool:
        staged = server.processor(0).num_staged_receives(req.connection_id) > 0
        if not staged:
            process_request(server.request_channel, req)
            process_request(server.request_channel)
        return staged

    request, staged = compute_until_true(send_two_requests_receive_one, has_staged_receives)
    assert staged, "Receives not staged"
    return request


@pytest.fixture
def override_servers() -> Iterator[list[SocketServer]]:
    made: list[SocketServer] = []
    yield made
    for server in made:  # shutdownServerAndMetrics
        server.shutdown()


def test_idle_connection(world: _World, override_servers: list[SocketServer]) -> None:
    time = MockTime()
    world.props["connections.max.idle.ms"] = str(IDLE_TIME_MS)
    override_server = SocketServer(KafkaConfig.from_props(world.props), time=time)
    override_servers.append(override_server)

    def open_channel(request: Request) -> Any:
        return override_server.processor(request.processor).channel(request.connection_id)

    def open_or_closing_channel(request: Request) -> Any:
        return override_server.processor(request.processor).open_or_closing_channel(request.connection_id)

    override_server.startup()
    serialized_bytes = producer_request_bytes()

    # a connection with nothing staged
    socket1 = world.connect(override_server)
    send_request(socket1, serialized_bytes)
    request1 = receive_request(override_server.request_channel)
    assert open_channel(request1) is not None, "Channel not open"
    assert open_channel(request1) is open_or_closing_channel(request1)

    time.sleep(IDLE_TIME_MS + 1)
    wait_until_true(lambda: open_or_closing_channel(request1) is None, "Failed to close idle channel")
    assert open_channel(request1) is None, "Channel not removed"
    process_request(override_server.request_channel, request1)

    # a connection with staged receives
    socket2 = world.connect(override_server)
    request2 = send_requests_until_staged_receive(override_server, socket2, serialized_bytes)

    time.sleep(IDLE_TIME_MS + 1)
    wait_until_true(lambda: open_channel(request2) is None, "Failed to close idle channel")
    wait_until_true(lambda: open_or_closing_channel(request2) is not None,
                    "Channel removed without processing staged receives")
    process_request(override_server.request_channel, request2)  # the send fails: the channel is closed
    wait_until_true(lambda: open_or_closing_channel(request2) is None, "Failed to remove channel with failed sends")
    assert override_server.request_channel.receive_request(200) is None, "Received request after failed send"


def test_connection_id_reuse(world: _World, override_servers: list[SocketServer]) -> None:
    time = MockTime()
    world.props["connections.max.idle.ms"] = str(IDLE_TIME_MS)
    world.props["listeners"] = "PLAINTEXT://localhost:0"
    override_server = TestableSocketServer(KafkaConfig.from_props(world.props), time, OVERRIDE_CONNECTION_ID)
    override_servers.append(override_server)

    def open_channel() -> Any:
        return override_server.processor(0).channel(OVERRIDE_CONNECTION_ID)

    def open_or_closing_channel() -> Any:
        return override_server.processor(0).open_or_closing_channel(OVERRIDE_CONNECTION_ID)

    def connection_count() -> int:
        return override_server.connection_count(LOCAL_ADDRESS)

    def connect_and_wait_for_connection_register() -> socket.socket:
        selector = override_server.testable_selector
        connections = selector.operation_counts[REGISTER]
        sock = world.connect(override_server)
        wait_until_true(lambda: selector.operation_counts[REGISTER] == connections + 1, "Connection not registered")
        return sock

    override_server.startup()
    socket1 = connect_and_wait_for_connection_register()
    wait_until_true(lambda: connection_count() == 1 and open_channel() is not None, "Failed to create channel")
    channel1 = open_channel()

    # a second connection with the same id while channel1 is open: it is closed, channel1 stays
    connect_and_wait_for_connection_register()
    wait_until_true(lambda: connection_count() == 1, "Failed to close channel")
    assert open_channel() is channel1

    # channel1 idles out with a staged receive: it is closing
    request = send_requests_until_staged_receive(override_server, socket1, producer_request_bytes())
    time.sleep(IDLE_TIME_MS + 1)
    wait_until_true(lambda: open_channel() is None, "Idle channel not closed")
    wait_until_true(lambda: open_or_closing_channel() is not None,
                    "Channel removed without processing staged receives")

    # a connection with the same id while channel1 is closing: it is closed, channel1 stays
    connect_and_wait_for_connection_register()
    wait_until_true(lambda: connection_count() == 1, "Failed to close channel")
    assert open_or_closing_channel() is channel1

    # the response's send fails, which removes channel1
    process_request(override_server.request_channel, request)
    wait_until_true(lambda: connection_count() == 0 and open_or_closing_channel() is None,
                    "Failed to remove channel with failed send")

    # now the id can be used again
    connect_and_wait_for_connection_register()
    wait_until_true(lambda: connection_count() == 1 and open_channel() is not None, "Failed to open new channel")
    new_channel = open_channel()
    assert new_channel is not channel1
    new_channel.disconnect()


def test_sockets_close_on_shutdown(world: _World) -> None:
    plain_socket = world.connect()
    plain_socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    send_request(plain_socket, bytes(40), id=0)
    process_request(world.server.request_channel)
    for acceptor in world.server.acceptors.values():
        assert acceptor.server_channel.fileno() != -1
    world.server.shutdown()
    large_chunk_of_bytes = bytes(1000000)
    with pytest.raises(OSError):
        # the first write may be buffered; the peer's reset fails a later one
        for _ in range(20):
            send_request(plain_socket, large_chunk_of_bytes, id=0)


def test_max_connections_per_ip(world: _World) -> None:
    conns = [world.connect() for _ in range(world.config.max_connections_per_ip)]
    conn = world.connect()
    conn.settimeout(3)
    assert _read_eof(conn) == -1
    conn.close()
    address = conns[0].getpeername()[0]
    conns[0].close()
    wait_until_true(lambda: world.server.connection_count(address) < len(conns),
                    "Failed to decrement connection count after close")
    conn2 = world.connect()
    send_request(conn2, producer_request_bytes())
    assert world.server.request_channel.receive_request(2000) is not None


def test_max_connections_per_ip_overrides(world: _World) -> None:
    override_num = world.config.max_connections_per_ip + 1
    override_props = create_broker_config(0, MOCK_ZK_CONNECT, port=0)
    override_props["max.connections.per.ip.overrides"] = f"localhost:{override_num}"
    override_server = SocketServer(KafkaConfig.from_props(override_props))
    try:
        override_server.startup()
        conns = [world.connect(override_server) for _ in range(override_num)]
        send_request(conns[-1], producer_request_bytes())
        assert override_server.request_channel.receive_request(2000) is not None
        conn = world.connect(override_server)
        conn.settimeout(3)
        assert _read_eof(conn) == -1
    finally:
        override_server.shutdown()


def test_session_principal(world: _World) -> None:
    sock = world.connect()
    send_request(sock, producer_request_bytes())
    assert receive_request(world.server.request_channel).session.principal == ANONYMOUS


# ---- failure injection -------------------------------------------------------------------------------------------

def test_client_disconnection_with_staged_receives_fully_processed(
        world: _World, override_servers: list[SocketServer]) -> None:
    override_server = TestableSocketServer(KafkaConfig.from_props(world.props), SYSTEM, OVERRIDE_CONNECTION_ID)
    override_servers.append(override_server)

    def open_channel() -> Any:
        return override_server.processor(0).channel(OVERRIDE_CONNECTION_ID)

    def open_or_closing_channel() -> Any:
        return override_server.processor(0).open_or_closing_channel(OVERRIDE_CONNECTION_ID)

    override_server.startup()
    sock = world.connect(override_server)
    wait_until_true(lambda: open_channel() is not None, "Channel not found")

    # staged receives when the client goes: the channel is kept among the closing ones
    request = send_requests_until_staged_receive(override_server, sock, producer_request_bytes(1))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a hard close: TCP RST
    sock.close()

    # the response's send fails, which takes the channel out of the closing ones
    process_request(override_server.request_channel, request)
    wait_until_true(lambda: open_or_closing_channel() is None, "Channel not closed after failed send")
    assert not override_server.testable_selector.completed_sends, "Unexpected completed send"


REGISTER, POLL, SEND, MUTE, UNMUTE, WAKEUP, CLOSE, CLOSE_SELECTOR = (
    "Register", "Poll", "Send", "Mute", "Unmute", "Wakeup", "Close", "CloseSelector")


class ControlThrowable(BaseException):
    """scala.util.control.ControlThrowable: not an Exception, so no handler of the processor's catches it."""


class PollData:
    """Defers what a poll completed to a later poll until `min_per_poll` items are there."""

    def __init__(self) -> None:
        self.min_per_poll = 1
        self.deferred_values: list[Any] = []
        self.current_poll_values: list[Any] = []

    def update(self, new_values: list[Any]) -> None:
        if self.current_poll_values or len(self.deferred_values) + len(new_values) >= self.min_per_poll:
            if self.deferred_values:
                self.current_poll_values.extend(self.deferred_values)
                self.deferred_values.clear()
            self.current_poll_values.extend(new_values)
        else:
            self.deferred_values.extend(new_values)

    def reset(self) -> None:
        self.current_poll_values = []


def _cached(name: str) -> property:
    """What the processor sees of completed_receives / completed_sends / disconnected: this poll's cached values;
    the Selector's own list while it runs."""
    real = f"_real_{name}"

    def get(self: TestableSelector) -> list[Any]:
        if self._in_super:
            return getattr(self, real)
        return getattr(self, f"cached_{name}").current_poll_values

    def set_(self: TestableSelector, value: list[Any]) -> None:
        setattr(self, real, value)
    return property(get, set_)


class TestableSelector(Selector):
    __test__ = False

    completed_receives = _cached("completed_receives")
    completed_sends = _cached("completed_sends")
    disconnected = _cached("disconnected")

    def __init__(self, max_receive_size: int, connections_max_idle_ms: int, channel_builder: Any,
                 time: Time = SYSTEM) -> None:
        self._in_super = True
        self.cached_completed_receives = PollData()
        self.cached_completed_sends = PollData()
        self.cached_disconnected = PollData()
        super().__init__(max_receive_size, connections_max_idle_ms, channel_builder, time)
        self._in_super = False
        self.failures: dict[str, BaseException] = {}
        self.operation_counts: defaultdict[str, int] = defaultdict(int)
        self.all_channels: set[str] = set()
        self.all_locally_closed_channels: set[str] = set()
        self.all_disconnected_channels: set[str] = set()
        self.all_failed_channels: set[str] = set()
        self.all_cached_poll_data = [self.cached_completed_receives, self.cached_completed_sends,
                                     self.cached_disconnected]
        self.min_wakeup_count = 0
        self.poll_timeout_override: int | None = None

    def add_failure(self, operation: str, exception: BaseException | None = None) -> None:
        self.failures[operation] = exception or IllegalStateException(f"Test exception during {operation}")

    def _on_operation(self, operation: str, connection_id: str | None, on_failure: Callable[[], None]) -> None:
        self.operation_counts[operation] += 1
        e = self.failures.pop(operation, None)
        if e is not None:
            if connection_id is not None:
                self.all_failed_channels.add(connection_id)
            on_failure()
            raise e

    def wait_for_operations(self, operation: str, min_expected_total: int) -> None:
        wait_until_true(lambda: self.operation_counts.get(operation, 0) >= min_expected_total,
                        "Operations not performed within timeout")

    def run_op(self, operation: str, connection_id: str | None, code: Callable[[], Any],
               on_failure: Callable[[], None] = lambda: None) -> Any:
        try:
            return code()
        finally:
            self._on_operation(operation, connection_id, on_failure)

    def register(self, id: str, sock: socket.socket) -> None:
        self.run_op(REGISTER, id, lambda: super(TestableSelector, self).register(id, sock),
                    on_failure=lambda: self.close_connection(id))

    def send(self, destination: str, payload: bytes) -> None:
        self.run_op(SEND, destination, lambda: super(TestableSelector, self).send(destination, payload))

    def poll(self, timeout_ms: int) -> None:
        try:
            for data in self.all_cached_poll_data:
                data.reset()
            self._in_super = True
            self.run_op(POLL, None, lambda: super(TestableSelector, self).poll(
                timeout_ms if self.poll_timeout_override is None else self.poll_timeout_override))
        finally:
            self._in_super = False
            self.all_channels.update(self.channels)
            self.all_disconnected_channels.update(self._real_disconnected)
            self.cached_completed_receives.update(list(self._real_completed_receives))
            self.cached_completed_sends.update(list(self._real_completed_sends))
            self.cached_disconnected.update(list(self._real_disconnected))

    def mute(self, id: str) -> None:
        self.run_op(MUTE, id, lambda: super(TestableSelector, self).mute(id))

    def unmute(self, id: str) -> None:
        self.run_op(UNMUTE, id, lambda: super(TestableSelector, self).unmute(id))

    def wakeup(self) -> None:
        def code() -> None:
            if self.min_wakeup_count > 0:
                self.min_wakeup_count -= 1
            if self.min_wakeup_count <= 0:
                super(TestableSelector, self).wakeup()
        self.run_op(WAKEUP, None, code)

    def close_connection(self, id: str) -> None:
        def code() -> None:
            super(TestableSelector, self).close_connection(id)
            self.all_locally_closed_channels.add(id)
        self.run_op(CLOSE, id, code)

    def close(self) -> None:
        self.run_op(CLOSE_SELECTOR, None, lambda: super(TestableSelector, self).close())

    def update_min_wakeup(self, count: int) -> None:
        self.min_wakeup_count = count
        self.poll_timeout_override = 1000
        Selector.wakeup(self)

    def reset(self) -> None:
        self.failures.clear()
        for data in self.all_cached_poll_data:
            data.min_per_poll = 1

    def not_failed(self, sockets: list[socket.socket]) -> list[socket.socket]:
        assert len(self.all_failed_channels) == 1
        failed_connection_id = next(iter(self.all_failed_channels))
        return [s for s in sockets if not is_socket_connection_id(failed_connection_id, s)]


def is_socket_connection_id(connection_id: str, sock: socket.socket) -> bool:
    return f":{sock.getsockname()[1]}-" in connection_id


class TestableSocketServer(SocketServer):
    __test__ = False

    def __init__(self, config: KafkaConfig, time: Time = SYSTEM, connection_id: str | None = None) -> None:
        super().__init__(config, time=time)
        self.selector: TestableSelector | None = None
        self.override_connection_id = connection_id  # every connection gets this id (testConnectionIdReuse)

    def new_processor(self, id: int, end_point: Any) -> Processor:
        server = self

        class _Processor(Processor):
            def create_selector(self, channel_builder: Any) -> Selector:
                testable_selector = TestableSelector(self.max_request_size, self.connections_max_idle_ms,
                                                     channel_builder, self.time)
                assert server.selector is None
                server.selector = testable_selector
                return testable_selector

            def connection_id(self, sock: socket.socket) -> str:
                if server.override_connection_id is not None:
                    return server.override_connection_id
                return super().connection_id(sock)

        channel_builder = server_channel_builder(end_point.listener_name, end_point.security_protocol, self.config,
                                                 self.credential_provider.credential_cache, None, id)
        return _Processor(id, self.request_channel, self.max_request_size, end_point.listener_name,
                          end_point.security_protocol, self.connections_max_idle_ms, self.connection_quotas,
                          None, channel_builder, self.time)

    @property
    def testable_selector(self) -> TestableSelector:
        if self.selector is None:
            raise IllegalStateException("Selector not created")
        return self.selector

    def wait_for_channel_close(self, connection_id: str, locally_closed: bool) -> None:
        selector = self.testable_selector
        if locally_closed:
            wait_until_true(lambda: connection_id in selector.all_locally_closed_channels,
                            f"Channel not closed: {connection_id}")
            assert not selector.all_disconnected_channels, "Unexpected disconnect notification"
        else:
            wait_until_true(lambda: connection_id in selector.all_disconnected_channels,
                            f"Disconnect notification not received: {connection_id}")
            assert not selector.all_locally_closed_channels, "Channel closed locally"
        open_count = len(selector.all_channels) - 1
        wait_until_true(lambda: self.connection_count(LOCAL_ADDRESS) == open_count, "Connection count not decremented")
        wait_until_true(lambda: self.processor(0).inflight_response_count == 0, "Inflight responses not cleared")
        assert selector.channel(connection_id) is None, "Channel not removed"
        assert selector.closing_channel(connection_id) is None, "Closing channel not removed"


@pytest.fixture
def testable_server(world: _World) -> Iterator[TestableSocketServer]:
    """withTestableServer."""
    server = TestableSocketServer(KafkaConfig.from_props(world.props))
    server.startup()
    yield server
    server.shutdown()


def assert_processor_healthy(w: _World, testable_server: TestableSocketServer,
                             healthy_sockets: list[socket.socket] | None = None) -> None:
    selector = testable_server.testable_selector
    selector.reset()
    request_channel = testable_server.request_channel
    for sock in healthy_sockets or []:
        request = send_and_receive_request(sock, testable_server)
        process_request(request_channel, request)
        sock.close()
    wait_until_true(lambda: testable_server.connection_count(LOCAL_ADDRESS) == 0, "Channels not removed")
    sock, connection_id = connect_and_process_request(w, testable_server)
    assert receive_response(sock) == producer_request_bytes()
    assert selector.channel(connection_id) is not None, "Channel should not have been closed"
    assert selector.closing_channel(connection_id) is None, "Channel should not be closing"
    sock.close()
    wait_until_true(lambda: testable_server.connection_count(LOCAL_ADDRESS) == 0, "Channels not removed")


def test_configure_new_connection_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector
    testable_selector.update_min_wakeup(2)
    testable_selector.add_failure(REGISTER)
    sockets = [world.connect(testable_server) for _ in range(2)]
    testable_selector.wait_for_operations(REGISTER, 2)
    wait_until_true(lambda: testable_server.connection_count(LOCAL_ADDRESS) == 1, "Failed channel not removed")
    assert_processor_healthy(world, testable_server, testable_selector.not_failed(sockets))


def test_process_new_response_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector
    testable_selector.update_min_wakeup(2)
    sockets = [world.connect(testable_server) for _ in range(2)]
    for sock in sockets:
        send_request(sock, producer_request_bytes())
    testable_selector.add_failure(SEND)
    for _ in sockets:
        process_request(testable_server.request_channel)
    testable_selector.wait_for_operations(SEND, 2)
    testable_server.wait_for_channel_close(next(iter(testable_selector.all_failed_channels)), locally_closed=True)
    assert_processor_healthy(world, testable_server, testable_selector.not_failed(sockets))


def test_send_cancelled_key_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector
    testable_selector.update_min_wakeup(2)
    sockets = [world.connect(testable_server) for _ in range(2)]
    for sock in sockets:
        send_request(sock, producer_request_bytes())
    request_channel = testable_server.request_channel
    requests = [receive_request(request_channel) for _ in sockets]
    failed_connection_id = requests[0].connection_id
    testable_selector.channel(failed_connection_id).disconnect()
    for request in requests:
        process_request(request_channel, request)
    testable_selector.wait_for_operations(SEND, 2)
    testable_server.wait_for_channel_close(failed_connection_id, locally_closed=False)
    successful_socket = sockets[1] if is_socket_connection_id(failed_connection_id, sockets[0]) else sockets[0]
    assert_processor_healthy(world, testable_server, [successful_socket])


def test_closing_channel_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector
    testable_selector.update_min_wakeup(2)
    sockets = [world.connect(testable_server) for _ in range(2)]
    serialized_bytes = producer_request_bytes()
    request = send_requests_until_staged_receive(testable_server, sockets[0], serialized_bytes)
    send_request(sockets[1], serialized_bytes)

    testable_selector.add_failure(SEND)
    sockets[0].close()
    process_request(testable_server.request_channel, request)
    process_request(testable_server.request_channel)  # and the other connection's request
    testable_selector.wait_for_operations(SEND, 2)
    testable_server.wait_for_channel_close(request.connection_id, locally_closed=True)
    assert_processor_healthy(world, testable_server, [sockets[1]])


def test_process_completed_receive_exception(world: _World, testable_server: TestableSocketServer) -> None:
    sockets = [world.connect(testable_server) for _ in range(2)]
    testable_selector = testable_server.testable_selector
    request_channel = testable_server.request_channel
    testable_selector.cached_completed_receives.min_per_poll = 2
    testable_selector.add_failure(MUTE)
    for sock in sockets:
        send_request(sock, producer_request_bytes())
    requests = [receive_request(request_channel) for _ in sockets]
    testable_selector.wait_for_operations(MUTE, 2)
    testable_server.wait_for_channel_close(next(iter(testable_selector.all_failed_channels)), locally_closed=True)
    for request in requests:
        process_request(request_channel, request)
    assert_processor_healthy(world, testable_server, testable_selector.not_failed(sockets))


def test_process_completed_send_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector
    sockets = [world.connect(testable_server) for _ in range(2)]
    requests = [send_and_receive_request(sock, testable_server) for sock in sockets]
    testable_selector.add_failure(UNMUTE)
    for request in requests:
        process_request(testable_server.request_channel, request)
    testable_selector.wait_for_operations(UNMUTE, 2)
    testable_server.wait_for_channel_close(next(iter(testable_selector.all_failed_channels)), locally_closed=True)
    assert_processor_healthy(world, testable_server, testable_selector.not_failed(sockets))


def test_process_disconnected_exception(world: _World, testable_server: TestableSocketServer) -> None:
    sock, connection_id = connect_and_process_request(world, testable_server)
    testable_selector = testable_server.testable_selector
    testable_selector.cached_disconnected.min_per_poll = 2
    testable_selector.cached_disconnected.deferred_values.append("notAValidConnectionId")
    sock.close()
    testable_selector.operation_counts.clear()
    testable_selector.wait_for_operations(POLL, 1)
    testable_server.wait_for_channel_close(connection_id, locally_closed=False)
    assert_processor_healthy(world, testable_server)


def test_poll_exception(world: _World, testable_server: TestableSocketServer) -> None:
    sock, _ = connect_and_process_request(world, testable_server)
    testable_selector = testable_server.testable_selector
    testable_selector.add_failure(POLL)
    testable_selector.operation_counts.clear()
    testable_selector.wait_for_operations(POLL, 2)
    assert_processor_healthy(world, testable_server, [sock])


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_control_throwable(world: _World, testable_server: TestableSocketServer) -> None:
    connect_and_process_request(world, testable_server)
    testable_selector = testable_server.testable_selector
    testable_selector.operation_counts.clear()
    testable_selector.add_failure(POLL, ControlThrowable("ControlThrowable exception during poll()"))
    testable_selector.wait_for_operations(POLL, 1)
    testable_selector.wait_for_operations(CLOSE_SELECTOR, 1)
