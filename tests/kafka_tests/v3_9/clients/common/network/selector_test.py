"""Port of clients/src/test/java/org/apache/kafka/common/network/SelectorTest.java (Kafka 3.9).

Each case runs against a real EchoServer on a free loopback port, with a PLAINTEXT Selector on a MockTime, both
closed by the fixture (after Kafka's tearDown check that the selector holds nothing any more). SslSelectorTest, the
SSL subclass, is not ported (SSL is not).

Forms that differ from Kafka's:
- the Selector takes (max_receive_size, connection_max_idle_ms, time, channel_builder, ...) with no Metrics,
  metric group or LogContext: SelectorMetrics is not ported, so the cases that check metrics are not applicable;
- Mockito mocks are unittest.mock ones, given Mockito's default answers (false, an empty Optional) where the
  Selector asks; a mocked SelectionKey's is_readable/is_writable/is_connectable follow its ready_ops, as Java's
  final methods do;
- reflection on private fields reads the port's underscored attributes;
- loops that Kafka's @Timeout(240) bounds stop at a deadline of their own.
"""

from __future__ import annotations

import itertools
import struct
import time as _real_time
from collections.abc import Iterator
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.memory.simple_memory_pool import SimpleMemoryPool
from kafka_edu.v3_9.clients.common.network import selector as selector_module
from kafka_edu.v3_9.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v3_9.clients.common.network.channel_state import ChannelState
from kafka_edu.v3_9.clients.common.network.java_nio import (
    ByteBuffer,
    SelectionKey,
    ServerSocketChannel,
    SocketChannel,
)
from kafka_edu.v3_9.clients.common.network.kafka_channel import KafkaChannel
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.network.network_receive import UNLIMITED, NetworkReceive
from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend
from kafka_edu.v3_9.clients.common.network.plaintext_channel_builder import PlaintextChannelBuilder
from kafka_edu.v3_9.clients.common.network.selector import Selector
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true
from tests.kafka_tests.v3_9.clients.common.network import network_test_utils
from tests.kafka_tests.v3_9.clients.common.network.echo_server import EchoServer
from tests.kafka_tests.v3_9.clients.common.network.network_test_utils import as_string, random_string
from tests.kafka_tests.v3_9.clients.common.network.plaintext_sender import PlaintextSender

METRICS = "SelectorMetrics is not ported (the 3.9 tree has no metrics registry)"

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/network/SelectorTest.java",
    cases=["testServerDisconnect", "testCantSendWithInProgress", "testSendWithoutConnecting", "testNoRouteToHost",
           "testConnectionRefused", "testNormalOperation", "testSendLargeRequest",
           "testPartialSendAndReceiveReflectedInMetrics", "testLargeMessageSequence", "testEmptyRequest",
           "testClearCompletedSendsAndReceives", "testExistingConnectionId", "testMute", "testCloseAllChannels",
           "registerFailure", "testCloseOldestConnection", "testIdleExpiryWithoutReadyKeys",
           "testImmediatelyConnectedCleaned", "testConnectException", "testExpireConnectionWithPendingReceives",
           "testExpireClosedConnectionWithPendingReceives", "testCloseOldestConnectionWithMultiplePendingReceives",
           "testGracefulClose", "testPartialReceiveGracefulClose", "testMuteOnOOM",
           "testConnectDisconnectDuringInSinglePoll", "testOutboundConnectionsCountInConnectionCreationMetric",
           "testInboundConnectionsCountInConnectionCreationMetric", "testConnectionsByClientMetric",
           "testLowestPriorityChannel", "testMetricsCleanupOnSelectorClose",
           "testWriteCompletesSendWithNoBytesWritten", "testChannelCloseWhileProcessingReceives",
           "testIoMetricsHaveCorrectDoc"],
    not_applicable={
        "testPartialSendAndReceiveReflectedInMetrics": f"asserts outgoing/incoming-byte-total: {METRICS}",
        "testOutboundConnectionsCountInConnectionCreationMetric": f"asserts connection-creation-total: {METRICS}",
        "testInboundConnectionsCountInConnectionCreationMetric": f"asserts connection-creation-total: {METRICS}",
        "testConnectionsByClientMetric": f"asserts the per-client `connections` gauges: {METRICS}",
        "testMetricsCleanupOnSelectorClose": f"asserts the metrics are removed on close: {METRICS}",
        "testIoMetricsHaveCorrectDoc": f"asserts the io metrics' docs: {METRICS}",
    },
)

BUFFER_SIZE = 4 * 1024
CONNECTION_MAX_IDLE_MS = 5_000
DEADLINE_S = 60  # Kafka's @Timeout(240) for the whole class


class _Context:
    """SelectorTest's fields: server, time, selector, channel_builder."""

    def __init__(self) -> None:
        self.server = EchoServer(SecurityProtocol.PLAINTEXT, {})
        self.server.start()
        self.time = MockTime()
        self.channel_builder = PlaintextChannelBuilder(ListenerName.for_security_protocol(SecurityProtocol.PLAINTEXT))
        self.channel_builder.configure(client_configs())
        self.selector = Selector(UNLIMITED, CONNECTION_MAX_IDLE_MS, self.time, self.channel_builder)


def client_configs() -> dict:
    return {}


@pytest.fixture
def ctx() -> Iterator[_Context]:
    context = _Context()
    try:
        yield context
        verify_selector_empty(context.selector)  # Kafka's tearDown
    finally:
        context.selector.close()
        context.server.close()


def _deadline() -> float:
    return _real_time.monotonic() + DEADLINE_S


def _before(deadline: float) -> bool:
    assert _real_time.monotonic() < deadline, "timed out"
    return True


# --- SelectorTest's helpers ---

def create_send(node: str, payload: str) -> NetworkSend:
    return NetworkSend(node, ByteBufferSend.size_prefixed(ByteBuffer.wrap(payload.encode())))


def blocking_request(ctx: _Context, node: str, s: str) -> str:
    ctx.selector.send(create_send(node, s))
    deadline = _deadline()
    while _before(deadline):
        ctx.selector.poll(1000)
        for receive in ctx.selector.completed_receives():
            if receive.source() == node:
                return as_string(receive)
    raise AssertionError("unreachable")


def connect(ctx: _Context, node: str, server_addr: tuple[str, int]) -> None:
    ctx.selector.connect(node, server_addr, BUFFER_SIZE, BUFFER_SIZE)


def blocking_connect(ctx: _Context, node: str, server_addr: tuple[str, int] | None = None) -> None:
    ctx.selector.connect(node, server_addr or ("localhost", ctx.server.port), BUFFER_SIZE, BUFFER_SIZE)
    network_test_utils.wait_for_channel_ready(ctx.selector, node)


def send_and_receive(ctx: _Context, node: str, request_prefix: str, start_index: int, end_index: int) -> None:
    selector = ctx.selector
    requests = start_index
    responses = start_index
    selector.send(create_send(node, f"{request_prefix}-{start_index}"))
    requests += 1
    deadline = _deadline()
    while responses < end_index and _before(deadline):
        selector.poll(0)
        assert len(selector.disconnected()) == 0, "No disconnects should have occurred."
        for receive in selector.completed_receives():
            assert as_string(receive) == f"{request_prefix}-{responses}"
            responses += 1
        i = 0
        while i < len(selector.completed_sends()) and requests < end_index:
            selector.send(create_send(node, f"{request_prefix}-{requests}"))
            i += 1
            requests += 1


def verify_non_empty_immediately_connected_keys(selector: Selector) -> None:
    assert selector._immediately_connected_keys


def verify_empty_immediately_connected_keys(selector: Selector) -> None:
    assert not selector._immediately_connected_keys


def verify_selector_empty(selector: Selector) -> None:
    for channel in selector.channels():
        selector.close(channel.id())
        assert channel.selection_key().attachment() is None
    selector.poll(0)
    selector.poll(0)  # a second time, to clear everything
    ensure_empty_selector_fields(selector)


def ensure_empty_selector_fields(selector: Selector) -> None:
    for name, value in vars(selector).items():
        if isinstance(value, list | set | dict):
            assert not value, f"Field not empty: {name} {value}"


def create_connection_with_pending_receives(ctx: _Context, pending_receives: int) -> KafkaChannel:
    """Connect and send the requests without reading anything: some responses may be in the socket buffers."""
    id = "0"
    blocking_connect(ctx, id)
    channel = ctx.selector.channel(id)
    send_no_receive(ctx, channel, pending_receives)
    return channel


def send_no_receive(ctx: _Context, channel: KafkaChannel, num_requests: int) -> None:
    """Send the requests and wait until they are sent, the channel muted so that nothing is received."""
    ctx.selector.mute(channel.id())
    for i in range(num_requests):
        ctx.selector.send(create_send(channel.id(), str(i)))
        deadline = _deadline()
        while _before(deadline):
            ctx.selector.poll(10)
            if ctx.selector.completed_sends():
                break
    ctx.selector.unmute(channel.id())


def inject_network_receive(channel: KafkaChannel, size: int) -> None:
    """A NetworkReceive whose size is read and whose payload buffer is allocated, with no data in it yet."""
    receive = NetworkReceive()
    channel._receive = receive
    receive._size.put_int(size)
    receive._buffer = ByteBuffer.allocate(size)


def random_payload(size_bytes: int) -> bytes:
    return struct.pack(">i", size_bytes) + network_test_utils.random_bytes(size_bytes)


def _mock_key(ready_ops: int, attachment: object, channel: object = None) -> mock.Mock:
    """A mocked SelectionKey: is_readable/is_writable/is_connectable follow ready_ops (final in Java)."""
    key = mock.Mock()
    key.ready_ops.return_value = ready_ops
    key.is_readable.return_value = bool(ready_ops & SelectionKey.OP_READ)
    key.is_writable.return_value = bool(ready_ops & SelectionKey.OP_WRITE)
    key.is_connectable.return_value = bool(ready_ops & SelectionKey.OP_CONNECT)
    key.is_valid.return_value = False
    key.channel.return_value = channel
    key.attachment.return_value = attachment
    return key


def _mock_channel(id: str) -> mock.Mock:
    """A mocked KafkaChannel with Mockito's defaults for what the Selector asks (false, an empty Optional)."""
    channel = mock.Mock()
    channel.id.return_value = id
    for boolean in ("has_bytes_buffered", "is_muted", "has_send", "ready", "is_connected", "finish_connect",
                    "maybe_begin_client_reauthentication", "is_in_mutable_state"):
        getattr(channel, boolean).return_value = False
    channel.poll_response_received_during_reauthentication.return_value = None
    channel.successful_authentications.return_value = 0
    channel.reauthentication_latency_ms.return_value = None
    channel.read.return_value = 0
    channel.write.return_value = 0
    return channel


class ImmediatelyConnectingSelector(Selector):
    def __init__(self, connection_max_idle_ms: int, time: MockTime, channel_builder: PlaintextChannelBuilder) -> None:
        super().__init__(UNLIMITED, connection_max_idle_ms, time, channel_builder)

    def do_connect(self, channel: SocketChannel, address: tuple[str, int]) -> bool:
        # a blocking connect takes the "immediately connected" path
        channel.configure_blocking(True)
        connected = super().do_connect(channel, address)
        channel.configure_blocking(False)
        return connected


# --- the cases ---

def test_server_disconnect(ctx: _Context):
    """When the server disconnects, the node ends up in `disconnected`."""
    node = "0"

    # connect and do a simple request
    blocking_connect(ctx, node)
    assert blocking_request(ctx, node, "hello") == "hello"

    channel = ctx.selector.channel(node)

    # disconnect
    ctx.server.close_connections()

    def disconnected() -> bool:
        ctx.selector.poll(1000)
        return node in ctx.selector.disconnected()

    wait_until_true(disconnected, "Failed to observe disconnected node in disconnected set", 5000, pause_ms=0)

    assert channel.selection_key().attachment() is None

    # reconnect and do another request
    blocking_connect(ctx, node)
    assert blocking_request(ctx, node, "hello") == "hello"


def test_cant_send_with_in_progress(ctx: _Context):
    node = "0"
    blocking_connect(ctx, node)
    ctx.selector.send(create_send(node, "test1"))
    with pytest.raises(IllegalStateException):
        ctx.selector.send(create_send(node, "test2"))
    ctx.selector.poll(0)
    assert node in ctx.selector.disconnected(), "Channel not closed"
    assert ctx.selector.disconnected()[node] is ChannelState.FAILED_SEND


def test_send_without_connecting(ctx: _Context):
    with pytest.raises(IllegalStateException):
        ctx.selector.send(create_send("0", "test"))


def test_no_route_to_host(ctx: _Context):
    with pytest.raises(OSError):
        ctx.selector.connect("0", ("some.invalid.hostname.foo.bar.local", ctx.server.port), BUFFER_SIZE,
                             BUFFER_SIZE)


def test_connection_refused(ctx: _Context):
    node = "0"
    non_listening_socket = ServerSocketChannel.open().bind(("127.0.0.1", 0))
    non_listening_port = non_listening_socket.get_local_address()[1]
    ctx.selector.connect(node, ("localhost", non_listening_port), BUFFER_SIZE, BUFFER_SIZE)
    while node in ctx.selector.disconnected():
        assert ctx.selector.disconnected()[node] is ChannelState.NOT_CONNECTED
        ctx.selector.poll(1000)
    non_listening_socket.close()


def test_normal_operation(ctx: _Context):
    """Many requests over several connections at once: each connection's responses come back in order."""
    selector = ctx.selector
    conns = 5
    reqs = 500

    # create connections
    addr = ("localhost", ctx.server.port)
    for i in range(conns):
        connect(ctx, str(i), addr)
    # send echo requests and receive responses
    requests: dict[str, int] = {}
    responses: dict[str, int] = {}
    response_count = 0
    for i in range(conns):
        node = str(i)
        selector.send(create_send(node, f"{node}-0"))

    # loop until we complete all requests
    deadline = _deadline()
    while response_count < conns * reqs and _before(deadline):
        # do the i/o
        selector.poll(0)

        assert len(selector.disconnected()) == 0, "No disconnects should have occurred."

        # handle any responses we may have gotten
        for receive in selector.completed_receives():
            pieces = as_string(receive).split("-")
            assert len(pieces) == 2, "Should be in the form 'conn-counter'"
            assert pieces[0] == receive.source(), "Check the source"
            assert receive.payload().position() == 0, "Check that the receive has kindly been rewound"
            if receive.source() in responses:
                assert int(pieces[1]) == responses[receive.source()], "Check the request counter"
                responses[receive.source()] += 1
            else:
                assert int(pieces[1]) == 0, "Check the request counter"
                responses[receive.source()] = 1
            response_count += 1

        # prepare new sends for the next round
        for send in selector.completed_sends():
            dest = send.destination_id()
            requests[dest] = requests.get(dest, 0) + 1
            if requests[dest] < reqs:
                selector.send(create_send(dest, f"{dest}-{requests[dest]}"))
    # Kafka then counts the SSL cipher metrics, none for PLAINTEXT: SelectorMetrics is not ported


def test_send_large_request(ctx: _Context):
    """A message larger than the receive and send buffers goes out and comes back."""
    node = "0"
    blocking_connect(ctx, node)
    big = random_string(10 * BUFFER_SIZE)
    assert blocking_request(ctx, node, big) == big


def test_large_message_sequence(ctx: _Context):
    buffer_size = 512 * 1024
    node = "0"
    reqs = 50
    addr = ("localhost", ctx.server.port)
    connect(ctx, node, addr)
    request_prefix = random_string(buffer_size)
    send_and_receive(ctx, node, request_prefix, 0, reqs)


def test_empty_request(ctx: _Context):
    node = "0"
    blocking_connect(ctx, node)
    assert blocking_request(ctx, node, "") == ""


def test_clear_completed_sends_and_receives(ctx: _Context):
    selector = ctx.selector
    buffer_size = 1024
    node = "0"
    addr = ("localhost", ctx.server.port)
    connect(ctx, node, addr)
    request = random_string(buffer_size)
    selector.send(create_send(node, request))
    sent = False
    received = False
    deadline = _deadline()
    while (not sent or not received) and _before(deadline):
        selector.poll(1000)
        assert len(selector.disconnected()) == 0, "No disconnects should have occurred."
        if selector.completed_sends():
            assert len(selector.completed_sends()) == 1
            selector.clear_completed_sends()
            assert len(selector.completed_sends()) == 0
            sent = True

        if selector.completed_receives():
            assert len(selector.completed_receives()) == 1
            assert as_string(next(iter(selector.completed_receives()))) == request
            selector.clear_completed_receives()
            assert len(selector.completed_receives()) == 0
            received = True


def test_existing_connection_id(ctx: _Context):
    blocking_connect(ctx, "0")
    with pytest.raises(IllegalStateException):
        blocking_connect(ctx, "0")


def test_mute(ctx: _Context):
    selector = ctx.selector
    blocking_connect(ctx, "0")
    blocking_connect(ctx, "1")

    selector.send(create_send("0", "hello"))
    selector.send(create_send("1", "hi"))

    selector.mute("1")

    deadline = _deadline()
    while not selector.completed_receives() and _before(deadline):
        selector.poll(5)
    assert len(selector.completed_receives()) == 1, "We should have only one response"
    assert next(iter(selector.completed_receives())).source() == "0", \
        "The response should not be from the muted node"

    selector.unmute("1")
    deadline = _deadline()
    while _before(deadline):
        selector.poll(5)
        if selector.completed_receives():
            break
    assert len(selector.completed_receives()) == 1, "We should have only one response"
    assert next(iter(selector.completed_receives())).source() == "1", \
        "The response should be from the previously muted node"


def test_close_all_channels(ctx: _Context):
    closed_channels_count = [0]

    class _ClosingChannel(KafkaChannel):
        def __init__(self, index: int, *args: object) -> None:
            super().__init__(*args)
            self.index = index

        def close(self) -> None:
            closed_channels_count[0] += 1
            super().close()
            if self.index == 0:
                raise RuntimeError("you should fail")

    class _Builder(PlaintextChannelBuilder):
        channel_index = 0

        def _build_channel(self, id, transport_layer, authenticator_creator, max_receive_size, memory_pool,
                           metadata_registry):
            index = self.channel_index
            self.channel_index += 1
            return _ClosingChannel(index, id, transport_layer, authenticator_creator, max_receive_size, memory_pool,
                                   metadata_registry)

    channel_builder = _Builder(None)
    channel_builder.configure(client_configs())
    selector = Selector(UNLIMITED, CONNECTION_MAX_IDLE_MS, MockTime(), channel_builder)
    selector.connect("0", ("localhost", ctx.server.port), BUFFER_SIZE, BUFFER_SIZE)
    selector.connect("1", ("localhost", ctx.server.port), BUFFER_SIZE, BUFFER_SIZE)
    with pytest.raises(RuntimeError):
        selector.close()
    assert closed_channels_count[0] == 2


def test_register_failure(ctx: _Context, monkeypatch: pytest.MonkeyPatch):
    channel_id = "1"

    channel_builder = mock.Mock()
    channel_builder.build_channel.side_effect = RuntimeError("Test exception")

    # mockConstruction(SelectorChannelMetadataRegistry): every registry the Selector builds is a mock
    constructed: list[mock.Mock] = []
    monkeypatch.setattr(selector_module, "SelectorChannelMetadataRegistry",
                        lambda: constructed.append(mock.Mock()) or constructed[-1])
    selector = Selector(UNLIMITED, CONNECTION_MAX_IDLE_MS, MockTime(), channel_builder)
    socket_channel = SocketChannel.open()
    socket_channel.configure_blocking(False)
    with pytest.raises(OSError) as e:
        selector.register(channel_id, socket_channel)
    assert "Test exception" in str(e.value.__cause__), f"Unexpected exception: {e.value}"
    assert not socket_channel.is_open(), "Socket not closed"
    # no channel was built to close the registry: the Selector closes it
    constructed[0].close.assert_called_once()
    selector.close()


def test_close_oldest_connection(ctx: _Context):
    id = "0"
    ctx.selector.connect(id, ("localhost", ctx.server.port), BUFFER_SIZE, BUFFER_SIZE)
    network_test_utils.wait_for_channel_connected(ctx.selector, id)
    ctx.time.sleep(CONNECTION_MAX_IDLE_MS + 1_000)
    ctx.selector.poll(0)

    assert id in ctx.selector.disconnected(), "The idle connection should have been closed"
    assert ctx.selector.disconnected()[id] is ChannelState.EXPIRED


def test_idle_expiry_without_ready_keys(ctx: _Context):
    id = "0"
    ctx.selector.connect(id, ("localhost", ctx.server.port), BUFFER_SIZE, BUFFER_SIZE)
    channel = ctx.selector.channel(id)
    channel.selection_key().interest_ops(0)

    ctx.time.sleep(CONNECTION_MAX_IDLE_MS + 1_000)
    ctx.selector.poll(0)
    assert id in ctx.selector.disconnected(), "The idle connection should have been closed"
    assert ctx.selector.disconnected()[id] is ChannelState.EXPIRED


def _immediately_connected_cleaned(ctx: _Context, selector: Selector, close_after_first_poll: bool) -> None:
    id = "0"
    selector.connect(id, ("localhost", ctx.server.port), BUFFER_SIZE, BUFFER_SIZE)
    verify_non_empty_immediately_connected_keys(selector)
    if close_after_first_poll:
        selector.poll(0)
        verify_empty_immediately_connected_keys(selector)
    selector.close(id)
    verify_selector_empty(selector)


def test_immediately_connected_cleaned(ctx: _Context):
    selector = ImmediatelyConnectingSelector(CONNECTION_MAX_IDLE_MS, ctx.time, ctx.channel_builder)
    try:
        _immediately_connected_cleaned(ctx, selector, True)
        _immediately_connected_cleaned(ctx, selector, False)
    finally:
        selector.close()


def test_connect_exception(ctx: _Context):
    """A failed connect leaves nothing behind before the exception reaches the caller."""
    throw_io_exception = [False]

    class _Selector(ImmediatelyConnectingSelector):
        def register_channel(self, id: str, socket_channel: SocketChannel, interested_ops: int) -> SelectionKey:
            key = super().register_channel(id, socket_channel, interested_ops)
            key.cancel()
            if throw_io_exception[0]:
                raise OSError("Test exception")
            return key

    selector = _Selector(CONNECTION_MAX_IDLE_MS, ctx.time, ctx.channel_builder)

    def verify_immediately_connected_exception(id: str) -> None:
        with pytest.raises(Exception):  # noqa: B017 - Kafka's case catches any Exception
            selector.connect(id, ("localhost", ctx.server.port), BUFFER_SIZE, BUFFER_SIZE)
        verify_empty_immediately_connected_keys(selector)
        assert selector.channel(id) is None, "Channel not removed"
        ensure_empty_selector_fields(selector)

    try:
        verify_immediately_connected_exception("0")
        throw_io_exception[0] = True
        verify_immediately_connected_exception("1")
    finally:
        selector.close()


def verify_channel_expiry(ctx: _Context, channel: KafkaChannel) -> None:
    selector = ctx.selector
    id = channel.id()
    selector.mute(id)  # muted, so that it may expire even with more data to read
    ctx.time.sleep(CONNECTION_MAX_IDLE_MS + 1_000)
    selector.poll(0)
    assert selector.channel(id) is None, "Channel not expired"
    assert selector.closing_channel(id) is None, "Channel not removed from closingChannels"
    assert channel.state() is ChannelState.EXPIRED
    assert channel.selection_key().attachment() is None
    assert id in selector.disconnected(), "Disconnect not notified"
    assert selector.disconnected()[id] is ChannelState.EXPIRED
    verify_selector_empty(selector)


def test_expire_connection_with_pending_receives(ctx: _Context):
    """A muted connection expires on idle timeout even with receives pending on the socket."""
    channel = create_connection_with_pending_receives(ctx, 5)
    verify_channel_expiry(ctx, channel)


def test_expire_closed_connection_with_pending_receives(ctx: _Context):
    """A muted connection the peer closed expires on idle timeout even with receives pending on the socket."""
    channel = create_connection_with_pending_receives(ctx, 5)
    ctx.server.close_connections()
    verify_channel_expiry(ctx, channel)


def test_close_oldest_connection_with_multiple_pending_receives(ctx: _Context):
    """A socket with data to read does not expire (PLAINTEXT buffers nothing of its own)."""
    selector = ctx.selector
    expected_receives = 5
    channel = create_connection_with_pending_receives(ctx, expected_receives)
    completed_receives = len(selector.completed_receives())

    deadline = _deadline()
    while not selector.disconnected() and _before(deadline):
        ctx.time.sleep(CONNECTION_MAX_IDLE_MS + 1_000)
        selector.poll(0 if completed_receives == expected_receives else 1_000)
        completed_receives += len(selector.completed_receives())

    assert completed_receives == expected_receives
    assert selector.channel(channel.id()) is None, "Channel not expired"
    assert selector.closing_channel(channel.id()) is None, "Channel not expired"
    assert channel.id() in selector.disconnected(), "Disconnect not notified"
    assert not selector.completed_receives(), "Unexpected receive"


def test_graceful_close(ctx: _Context):
    """A graceful close still hands on what the socket buffers hold: several receives complete after the server
    has closed the connection (retried, as the data in the buffers at that moment varies)."""
    selector = ctx.selector
    max_receive_count_after_close = 0
    i = 6
    while i <= 100 and max_receive_count_after_close < 5:
        receive_count = 0
        channel = create_connection_with_pending_receives(ctx, i)

        # poll until one or more receives complete, then close the server side
        def received() -> bool:
            selector.poll(1000)
            return bool(selector.completed_receives())

        wait_until_true(received, "Receive not completed", 5000, pause_ms=0)
        ctx.server.close_connections()
        deadline = _deadline()
        while not selector.disconnected() and _before(deadline):
            selector.poll(1)
            receive_count += len(selector.completed_receives())
            assert len(selector.completed_receives()) <= 1, "Too many completed receives in one poll"
        assert next(iter(selector.disconnected())) == channel.id()
        max_receive_count_after_close = max(max_receive_count_after_close, receive_count)
        i += 1
    assert max_receive_count_after_close >= 5, f"Too few receives after close: {max_receive_count_after_close}"


def test_partial_receive_graceful_close(ctx: _Context):
    """A graceful close is not delayed by a receive only part of which is in the socket buffer."""
    selector = ctx.selector
    id = "0"
    blocking_connect(ctx, id)
    channel = selector.channel(id)
    # a receive with a large size, which the data sent next only partly fills
    inject_network_receive(channel, 100000)
    send_no_receive(ctx, channel, 2)
    selector.poll(1000)  # until some data arrives, but not a whole receive
    assert len(selector.completed_receives()) == 0
    ctx.server.close_connections()

    def disconnected() -> bool:
        selector.poll(100)
        return bool(selector.disconnected())

    wait_until_true(disconnected, "Channel not disconnected", 10000, pause_ms=0)
    assert len(selector.disconnected()) == 1
    assert next(iter(selector.disconnected())) == channel.id()
    assert len(selector.completed_receives()) == 0


def test_mute_on_oom(ctx: _Context):
    # the default selector is replaced by one with a finite memory pool
    ctx.selector.close()
    pool = SimpleMemoryPool(900, 900, False, None)
    ctx.selector = selector = Selector(UNLIMITED, CONNECTION_MAX_IDLE_MS, ctx.time, ctx.channel_builder,
                                       memory_pool=pool)

    ss = ServerSocketChannel.open()
    try:
        ss.bind(("127.0.0.1", 0))
        server_address = ss.get_local_address()

        sender1 = PlaintextSender(server_address, random_payload(900))
        sender2 = PlaintextSender(server_address, random_payload(900))
        sender1.start()
        sender2.start()

        # both requests are flushed to the network (they are smaller than the OS buffers): both size prefixes are in
        sender1.join(5)
        sender2.join(5)

        channel_x = ss.accept()  # 1 or 2, whichever
        channel_x.configure_blocking(False)
        channel_y = ss.accept()
        channel_y.configure_blocking(False)
        selector.register("clientX", channel_x)
        selector.register("clientY", channel_y)

        completed: object = []
        deadline = _real_time.monotonic() + 5
        while _real_time.monotonic() < deadline and not completed:
            selector.poll(1000)
            completed = selector.completed_receives()
        assert len(completed) == 1, "could not read a single request within timeout"
        first_receive = next(iter(completed))
        assert pool.available_memory() == 0
        assert selector.is_out_of_memory()

        selector.poll(10)
        assert not selector.completed_receives()
        assert pool.available_memory() == 0
        assert selector.is_out_of_memory()

        first_receive.close()
        assert pool.available_memory() == 900  # back in the pool

        completed = []
        deadline = _real_time.monotonic() + 5
        while _real_time.monotonic() < deadline and not completed:
            selector.poll(1000)
            completed = selector.completed_receives()
        assert len(selector.completed_receives()) == 1, "could not read a single request within timeout"
        assert pool.available_memory() == 0
        assert not selector.is_out_of_memory()
    finally:
        ss.close()


def test_connect_disconnect_during_in_single_poll(ctx: _Context):
    """A connect and a disconnect in one poll: the id is in `disconnected`, not in `connected`."""
    # connected, not ready, and prepare fails
    kafka_channel = _mock_channel("1")
    kafka_channel.socket_description.return_value = ""
    kafka_channel.state.return_value = ChannelState.NOT_CONNECTED
    kafka_channel.finish_connect.return_value = True
    kafka_channel.is_connected.return_value = True
    kafka_channel.ready.return_value = False
    kafka_channel.prepare.side_effect = OSError()

    socket = SocketChannel.open()
    selection_key = _mock_key(SelectionKey.OP_CONNECT, kafka_channel, socket)
    kafka_channel.selection_key.return_value = selection_key

    selection_keys = {selection_key}
    ctx.selector.poll_selection_keys(selection_keys, False, _real_time.monotonic_ns())

    assert kafka_channel.id() not in ctx.selector.connected()
    assert kafka_channel.id() in ctx.selector.disconnected()

    assert kafka_channel.ready.call_count >= 1
    kafka_channel.disconnect.assert_called_once()
    kafka_channel.close.assert_called_once()
    selection_key.cancel.assert_called_once()
    socket.close()


def test_lowest_priority_channel(ctx: _Context):
    selector = ctx.selector
    conns = 5
    addr = ("localhost", ctx.server.port)
    for i in range(conns):
        connect(ctx, str(i), addr)
    assert selector.lowest_priority_channel() is not None
    for i in range(conns - 1, -1, -1):
        if i != 2:
            assert blocking_request(ctx, str(i), "") == ""
        ctx.time.sleep(10)
    assert selector.lowest_priority_channel().id() == "2"

    closing_channels = selector._closing_channels
    closing_channels["3"] = selector.channel("3")
    assert selector.lowest_priority_channel().id() == "3"
    del closing_channels["3"]

    for i in range(conns):
        selector.close(str(i))
    assert selector.lowest_priority_channel() is None


def test_write_completes_send_with_no_bytes_written(ctx: _Context):
    channel = _mock_channel("1")
    channel.write.return_value = 0
    send = NetworkSend("destination", ByteBufferSend(ByteBuffer.allocate(0)))
    channel.maybe_complete_send.return_value = send
    ctx.selector.write(channel)
    assert ctx.selector.completed_sends() == [send]


def test_channel_close_while_processing_receives(ctx: _Context):
    """Closing channels while their completed receives are handled raises nothing."""
    selector = ctx.selector
    num_channels = 4
    channels = selector._channels
    selection_keys = set()
    for i in range(num_channels):
        id = str(i)
        channel = _mock_channel(id)
        channels[id] = channel
        channel.state.return_value = ChannelState.READY
        channel.is_connected.return_value = True
        channel.ready.return_value = True
        channel.read.return_value = 1

        selection_key = _mock_key(SelectionKey.OP_READ, None)
        selection_key.is_valid.return_value = True
        selection_key.attachment.side_effect = itertools.chain([channel], itertools.repeat(None))
        channel.selection_key.return_value = selection_key
        selection_keys.add(selection_key)

        receive = mock.Mock()
        receive.source.return_value = id
        receive.size.return_value = 10
        receive.bytes_read.return_value = 1
        receive.payload.return_value = ByteBuffer.allocate(10)
        channel.maybe_complete_receive.return_value = receive

    selector.poll_selection_keys(selection_keys, False, _real_time.monotonic_ns())
    assert len(selector.completed_receives()) == num_channels
    closed: set = set()
    not_closed: set = set()
    for receive in selector.completed_receives():
        channel = selector.channel(receive.source())
        assert channel is not None
        if len(closed) < 2:
            selector.close(channel.id())
            closed.add(channel)
        else:
            not_closed.add(channel)
    assert set(selector.channels()) == not_closed
    for channel in closed:
        assert selector.channel(channel.id()) is None

    selector.poll(0)
    assert len(selector.completed_receives()) == 0
