"""Port of core/src/test/scala/unit/kafka/network/SocketServerTest.scala (Kafka 3.9).

A real SocketServer on loopback, driven through plain blocking sockets. The failure-injection cases use a
TestableSelector (a subclass of the 3.9 Selector that counts and fails operations and can hold a poll's results
back) inside a TestableSocketServer whose acceptor makes TestableProcessors, as Kafka's do. Kafka's
ControlThrowable is a Python BaseException that is no Exception.
"""

from __future__ import annotations

import datetime
import os
import socket
import struct
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v3_9.clients.common.network.channel_state import ChannelState
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.network.kafka_channel import ChannelMuteState, KafkaChannel
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend
from kafka_edu.v3_9.clients.common.network.selector import Selector
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.network.request_channel import (
    CallbackRequest,
    NoOpResponse,
    Request,
    RequestChannel,
    SendResponse,
    ShutdownRequest,
    WakeupRequest,
)
from kafka_edu.v3_9.core.network.socket_server import DataPlaneAcceptor, Processor, SocketServer
from kafka_edu.v3_9.core.server.api_version_manager import ApiVersionManager, ListenerType
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import MOCK_ZK_CONNECT, compute_until_true, create_broker_config, wait_until_true

_METRICS = "request/processor metrics (Yammer, Kafka Metrics): the 3.9 tree has no metrics registry"
_RATE = ("connection-rate quotas are Kafka Metrics Sensors with a Rate and a Quota: the 3.9 tree has no metrics "
         "library, so the rate quota is left out of ConnectionQuotas")
_SSL = "SSL listener: SslTransportLayer is not ported (the 3.9 network layer is PLAINTEXT only)"
_SSL_BUFFERED = ("buffered receives in an SSL channel (a ProxyServer writing into SslTransportLayer's netReadBuffer): "
                 "SSL is not ported")
_SASL = "SASL re-authentication (KIP-368): SaslServerAuthenticator is not ported to the 3.9 tree"
_CONTROL_PLANE = "control.plane.listener.name is ZooKeeper mode only; the 3.9 port runs KRaft and has no control plane"

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/network/SocketServerTest.scala",
    cases=["simpleRequest", "testClientInformationWithLatestApiVersionsRequest",
           "testClientInformationWithOldestApiVersionsRequest", "testRequestPerSecAndDeprecatedRequestsPerSecMetrics",
           "testStagedListenerStartup", "testStagedListenerShutdownWhenConnectionQueueIsFull",
           "testDisabledRequestIsRejected", "tooBigRequestIsRejected", "testGracefulClose", "testNoOpAction",
           "testConnectionId", "testIdleConnection", "testConnectionIdReuse",
           "testSendActionResponseWithThrottledChannelWhereThrottlingInProgress",
           "testSendActionResponseWithThrottledChannelWhereThrottlingAlreadyDone",
           "testNoOpActionResponseWithThrottledChannelWhereThrottlingInProgress",
           "testNoOpActionResponseWithThrottledChannelWhereThrottlingAlreadyDone", "testSocketsCloseOnShutdown",
           "testMaxConnectionsPerIp", "testZeroMaxConnectionsPerIp", "testMaxConnectionsPerIpOverrides",
           "testExceptionInAcceptor", "testConnectionRatePerIp", "testThrottledSocketsClosedOnShutdown",
           "testSslSocketServer", "testSaslReauthenticationFailureWithKip152SaslAuthenticate",
           "testSaslReauthenticationFailureNoKip152SaslAuthenticate", "testSessionPrincipal",
           "testClientDisconnectionUpdatesRequestMetrics", "testServerShutdownWithoutEnable",
           "testClientDisconnectionWithOutstandingReceivesProcessedUntilFailedSend",
           "testBrokerSendAfterChannelClosedUpdatesRequestMetrics", "testRequestMetricsAfterStop",
           "testMetricCollectionAfterShutdown", "testProcessorMetricsTags", "configureNewConnectionException",
           "processNewResponseException", "sendCancelledKeyException", "remoteCloseSendFailure",
           "closingChannelSendFailure", "remoteCloseWithBufferedReceives", "remoteCloseWithoutBufferedReceives",
           "remoteCloseWithIncompleteBufferedReceive", "remoteCloseWithCompleteAndIncompleteBufferedReceives",
           "remoteCloseWithBufferedReceivesFailedSend", "closingChannelWithBufferedReceives",
           "closingChannelWithCompleteAndIncompleteBufferedReceives", "closingChannelWithBufferedReceivesFailedSend",
           "idleExpiryWithBufferedReceives", "testUnmuteChannelWithBufferedReceives",
           "processCompletedReceiveException", "processCompletedSendException", "processDisconnectedException",
           "pollException", "controlThrowable", "testConnectionRateLimit", "testControlPlaneAsPrivilegedListener",
           "testInterBrokerListenerAsPrivilegedListener",
           "testControlPlaneTakePrecedenceOverInterBrokerListenerAsPrivilegedListener", "testListenBacklogSize",
           "testLatencyWithBufferedDataAndNoSocketData", "testAuthorizerFailureCausesEnableRequestProcessingFailure",
           "testFailedAcceptorStartupCausesEnableRequestProcessingFailure", "testAcceptorStartOpensPortIfNeeded"],
    not_applicable={
        "testRequestPerSecAndDeprecatedRequestsPerSecMetrics": _METRICS,
        "testConnectionIdReuse": "its closing-channel steps are made with " + _SSL_BUFFERED,
        "testConnectionRatePerIp": _RATE,
        "testThrottledSocketsClosedOnShutdown": _RATE,
        "testSslSocketServer": _SSL,
        "testSaslReauthenticationFailureWithKip152SaslAuthenticate": _SASL,
        "testSaslReauthenticationFailureNoKip152SaslAuthenticate": _SASL,
        "testClientDisconnectionUpdatesRequestMetrics": _METRICS,
        "testBrokerSendAfterChannelClosedUpdatesRequestMetrics": _METRICS,
        "testRequestMetricsAfterStop": _METRICS,
        "testMetricCollectionAfterShutdown": _METRICS,
        "testProcessorMetricsTags": _METRICS,
        "remoteCloseSendFailure": _SSL_BUFFERED,
        "closingChannelSendFailure": _SSL_BUFFERED,
        "remoteCloseWithBufferedReceives": _SSL_BUFFERED,
        "remoteCloseWithoutBufferedReceives": "@Disabled in Kafka 3.9 (KAFKA-13735); " + _SSL_BUFFERED,
        "remoteCloseWithIncompleteBufferedReceive": _SSL_BUFFERED,
        "remoteCloseWithCompleteAndIncompleteBufferedReceives": _SSL_BUFFERED,
        "remoteCloseWithBufferedReceivesFailedSend": _SSL_BUFFERED,
        "closingChannelWithBufferedReceives": "@Disabled in Kafka 3.9 (KAFKA-13736); " + _SSL_BUFFERED,
        "closingChannelWithCompleteAndIncompleteBufferedReceives": _SSL_BUFFERED,
        "closingChannelWithBufferedReceivesFailedSend": _SSL_BUFFERED,
        "idleExpiryWithBufferedReceives": _SSL_BUFFERED,
        "testUnmuteChannelWithBufferedReceives": _SSL_BUFFERED,
        "testControlPlaneAsPrivilegedListener": _CONTROL_PLANE,
        "testControlPlaneTakePrecedenceOverInterBrokerListenerAsPrivilegedListener": _CONTROL_PLANE,
        "testLatencyWithBufferedDataAndNoSocketData": _SSL_BUFFERED,
    },
)

LOCAL_ADDRESS = "127.0.0.1"  # InetAddress.getLoopbackAddress
PLAINTEXT = ListenerName("PLAINTEXT")
LISTENER = "PLAINTEXT"

# SimpleApiVersionManager(ListenerType.BROKER): every API in a broker listener's scope, at every version
_NOT_BROKER_SCOPE = {"LEADER_AND_ISR", "STOP_REPLICA", "UPDATE_METADATA", "CONTROLLED_SHUTDOWN", "VOTE",
                     "BEGIN_QUORUM_EPOCH", "END_QUORUM_EPOCH", "FETCH_SNAPSHOT", "BROKER_REGISTRATION",
                     "BROKER_HEARTBEAT", "ALTER_PARTITION", "ALLOCATE_PRODUCER_IDS", "ENVELOPE",
                     "CONTROLLER_REGISTRATION", "ASSIGN_REPLICAS_TO_DIRS", "ADD_RAFT_VOTER", "REMOVE_RAFT_VOTER",
                     "UPDATE_RAFT_VOTER"}
API_VERSION_MANAGER = ApiVersionManager(ListenerType.BROKER, {
    api: api.supported for api in ApiKeys if api.name not in _NOT_BROKER_SCOPE})


def _props() -> dict[str, str]:
    props = create_broker_config(0, MOCK_ZK_CONNECT, port=0)
    props.update({"listeners": "PLAINTEXT://localhost:0", "num.network.threads": "1",
                  "socket.send.buffer.bytes": "300000", "socket.receive.buffer.bytes": "300000",
                  "queued.max.requests": "50", "socket.request.max.bytes": "100", "max.connections.per.ip": "5",
                  "connections.max.idle.ms": "60000"})
    return props


class _World:
    """The test class's fields: the server every case starts with, the servers and sockets to close after it."""

    def __init__(self) -> None:
        self.props = _props()
        self.config = KafkaConfig.from_props(self.props)
        self.server = SocketServer(self.config, None, SYSTEM, None, API_VERSION_MANAGER)
        self.server.enable_request_processing({}).result(60)
        self.servers: list[SocketServer] = [self.server]
        self.sockets: list[socket.socket] = []
        self.uncaught_exceptions = 0

    def connect(self, s: SocketServer | None = None, listener_name: ListenerName = PLAINTEXT,
                local_addr: str | None = None) -> socket.socket:
        server = s or self.server
        bound_port = server.bound_port(listener_name)
        sock = socket.create_connection(("localhost", bound_port), timeout=10,
                                        source_address=None if local_addr is None else (local_addr, 0))
        sock.settimeout(None)
        self.sockets.append(sock)
        return sock

    def testable_server(self, config: KafkaConfig | None = None, connection_queue_size: int = 20,
                        time: Time = SYSTEM) -> TestableSocketServer:
        server = TestableSocketServer(self, config or KafkaConfig.from_props(self.props), connection_queue_size,
                                      time)
        self.servers.append(server)
        return server


@pytest.fixture
def world() -> Iterator[_World]:
    w = _World()
    yield w
    for server in w.servers:
        server.shutdown()
    for sock in w.sockets:
        sock.close()


def send_request(sock: socket.socket, request: bytes, id: int | None = None) -> None:
    if id is not None:
        sock.sendall(struct.pack(">ih", len(request) + 2, id) + request)
    else:
        sock.sendall(struct.pack(">i", len(request)) + request)


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
    if isinstance(request, Request):
        return request
    if request is WakeupRequest:
        raise AssertionError("Unexpected wakeup received")
    if isinstance(request, CallbackRequest):
        raise AssertionError("Unexpected callback received")
    if request is ShutdownRequest:
        raise AssertionError("Unexpected shutdown received")
    raise AssertionError("receiveRequest timed out")


def process_request(channel: RequestChannel, request: Request | None = None) -> None:
    """The echoing request handler: the response is the request, serialized again with its header."""
    if request is None:
        request = receive_request(channel)
    header = request.header
    payload = encode_request(header.api_key, header.api_version, header.correlation_id, header.client_id,
                             request.body())
    send = NetworkSend(request.context.connection_id, ByteBufferSend.size_prefixed(ByteBuffer.wrap(payload)))
    channel.send_response(SendResponse(request, send, None, None))


def process_request_no_op_response(channel: RequestChannel, request: Request) -> None:
    channel.send_no_op_response(request)


def producer_request_bytes(api_version: int = ApiKeys.PRODUCE.supported[1], ack: int = 0) -> bytes:
    body = ApiKeys.PRODUCE.request_schema(api_version)(
        **({"transactional_id": None} if api_version >= 3 else {}), acks=ack,
        timeout=datetime.timedelta(milliseconds=10000), topic_data=())
    return encode_request(ApiKeys.PRODUCE, api_version, -1, "", body)


def api_version_request_bytes(client_id: str, version: int) -> bytes:
    schema = ApiKeys.API_VERSIONS.request_schema(version)
    # ApiVersionsRequest.Builder: the client's software name and version (AppInfoParser) from v3
    body = schema(client_software_name="apache-kafka-java", client_software_version="3.9.0") if version >= 3 \
        else schema()
    return encode_request(ApiKeys.API_VERSIONS, version, -1, client_id, body)


def connect_and_process_request(w: _World, s: SocketServer) -> tuple[socket.socket, str]:
    sock = w.connect(s)
    request = send_and_receive_request(sock, s)
    process_request(s.data_plane_request_channel, request)
    return sock, request.context.connection_id


def send_and_receive_request(sock: socket.socket, server: SocketServer, timeout: int = 2000) -> Request:
    send_request(sock, producer_request_bytes())
    return receive_request(server.data_plane_request_channel, timeout)


def _read(sock: socket.socket) -> int:
    """InputStream.read(): -1 at end of stream (a reset connection counts as closed too)."""
    try:
        data = sock.recv(1)
    except ConnectionResetError:
        return -1
    return -1 if not data else data[0]


def _set_so_linger_zero(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_simple_request(world: _World) -> None:
    plain_socket = world.connect()
    serialized_bytes = producer_request_bytes()

    send_request(plain_socket, serialized_bytes)
    process_request(world.server.data_plane_request_channel)
    assert receive_response(plain_socket) == serialized_bytes


def _test_client_information(w: _World, version: int, expected_client_software_name: str,
                             expected_client_software_version: str) -> None:
    plain_socket = w.connect()
    client_id = "clientId"

    # ApiVersionsRequest: not known yet
    send_request(plain_socket, api_version_request_bytes(client_id, version))
    received_req = receive_request(w.server.data_plane_request_channel)
    assert received_req.context.client_information.software_name() == ClientInformation.UNKNOWN_NAME_OR_VERSION
    assert received_req.context.client_information.software_version() == ClientInformation.UNKNOWN_NAME_OR_VERSION
    w.server.data_plane_request_channel.send_no_op_response(received_req)

    # ProduceRequest: the ApiVersionsRequest's client information
    send_request(plain_socket, producer_request_bytes())
    received_req = receive_request(w.server.data_plane_request_channel)
    assert received_req.context.client_information.software_name() == expected_client_software_name
    assert received_req.context.client_information.software_version() == expected_client_software_version
    w.server.data_plane_request_channel.send_no_op_response(received_req)

    _set_so_linger_zero(plain_socket)
    plain_socket.close()
    wait_until_true(lambda: w.server.connection_count(LOCAL_ADDRESS) == 0, "Connection not closed")


def test_client_information_with_latest_api_versions_request(world: _World) -> None:
    _test_client_information(world, ApiKeys.API_VERSIONS.supported[1], "apache-kafka-java", "3.9.0")


def test_client_information_with_oldest_api_versions_request(world: _World) -> None:
    _test_client_information(world, ApiKeys.API_VERSIONS.supported[0], ClientInformation.UNKNOWN_NAME_OR_VERSION,
                             ClientInformation.UNKNOWN_NAME_OR_VERSION)


def test_staged_listener_startup(world: _World) -> None:
    # Kafka's third listener is its control plane (ZooKeeper mode only): here a data-plane listener with its own
    # completed future, which starts first all the same.
    test_props = dict(world.props)
    test_props["listeners"] = "EXTERNAL://localhost:0,INTERNAL://localhost:0,CONTROL_PLANE://localhost:0"
    test_props["listener.security.protocol.map"] = "EXTERNAL:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROL_PLANE:PLAINTEXT"
    test_props["inter.broker.listener.name"] = "INTERNAL"
    config = KafkaConfig.from_props(test_props)
    testable_server = world.testable_server(config)

    updated_end_points = {ep.listener_name: ep for ep in config.effective_advertised_broker_listeners}
    external_ready_future: CompletableFuture[None] = CompletableFuture()

    def listener_started(listener_name: ListenerName) -> bool:
        try:
            sock = world.connect(testable_server, listener_name)
            send_and_receive_request(sock, testable_server, timeout=500)
            return True
        except (OSError, AssertionError):
            return False

    external_listener = ListenerName("EXTERNAL")
    control_plane_listener = ListenerName("CONTROL_PLANE")
    futures = {updated_end_points["EXTERNAL"]: external_ready_future,
               updated_end_points["CONTROL_PLANE"]: CompletableFuture.completed_future(None)}
    request_processing_future = testable_server.enable_request_processing(futures)
    wait_until_true(lambda: listener_started(control_plane_listener), "Control plane listener not started")
    assert not listener_started(ListenerName(config.inter_broker_listener_name))
    assert not listener_started(external_listener)
    external_ready_future.complete(None)
    wait_until_true(lambda: listener_started(ListenerName(config.inter_broker_listener_name)),
                    "Inter-broker listener not started")
    wait_until_true(lambda: listener_started(external_listener), "External listener not started")
    request_processing_future.result(60)


def test_staged_listener_shutdown_when_connection_queue_is_full(world: _World) -> None:
    test_props = dict(world.props)
    test_props["listeners"] = "EXTERNAL://localhost:0,INTERNAL://localhost:0,CONTROLLER://localhost:0"
    test_props["listener.security.protocol.map"] = "EXTERNAL:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT"
    test_props["inter.broker.listener.name"] = "INTERNAL"
    config = KafkaConfig.from_props(test_props)
    testable_server = world.testable_server(config, connection_queue_size=1)
    testable_server.enable_request_processing({}).result(60)

    socket1 = world.connect(testable_server, ListenerName("EXTERNAL"))
    send_request(socket1, producer_request_bytes())
    socket2 = world.connect(testable_server, ListenerName("EXTERNAL"))
    send_request(socket2, producer_request_bytes())

    testable_server.shutdown()


def test_disabled_request_is_rejected(world: _World) -> None:
    body = ApiKeys.VOTE.request_schema(0)(cluster_id=None, topics=())
    serialized_bytes = encode_request(ApiKeys.VOTE, 0, 57, "", body)

    sock = world.connect()
    # the server closes the connection without an answer
    with pytest.raises((OSError, EOFError)):
        send_request(sock, serialized_bytes)
        receive_response(sock)


def test_too_big_request_is_rejected(world: _World) -> None:
    too_many_bytes = os.urandom(world.config.socket_request_max_bytes + 1)
    sock = world.connect()
    sock.sendall(struct.pack(">i", len(too_many_bytes)))
    try:
        # the server closes the connection on reading the size: the body's write may fail already
        sock.sendall(too_many_bytes)
        receive_response(sock)
    except (OSError, EOFError):
        pass


def test_graceful_close(world: _World) -> None:
    plain_socket = world.connect()
    serialized_bytes = producer_request_bytes()

    for _ in range(10):
        send_request(plain_socket, serialized_bytes)
    plain_socket.close()
    for _ in range(10):
        request = receive_request(world.server.data_plane_request_channel)
        assert request is not None, "receiveRequest timed out"
        process_request_no_op_response(world.server.data_plane_request_channel, request)


def test_no_op_action(world: _World) -> None:
    plain_socket = world.connect()
    serialized_bytes = producer_request_bytes()

    for _ in range(3):
        send_request(plain_socket, serialized_bytes)
    for _ in range(3):
        request = receive_request(world.server.data_plane_request_channel)
        assert request is not None, "receiveRequest timed out"
        process_request_no_op_response(world.server.data_plane_request_channel, request)


def test_connection_id(world: _World) -> None:
    sockets = [world.connect() for _ in range(5)]
    serialized_bytes = producer_request_bytes()

    requests = []
    for sock in sockets:
        send_request(sock, serialized_bytes)
        requests.append(receive_request(world.server.data_plane_request_channel))
    for i, request in enumerate(requests):
        assert request.context.connection_id.split("-")[-1] == str(i)

    for sock in sockets:
        sock.close()


def open_channel(request: Request, server: SocketServer) -> KafkaChannel | None:
    return server.data_plane_acceptor(LISTENER).processors[0].channel(request.context.connection_id)


def open_or_closing_channel(request: Request, server: SocketServer) -> KafkaChannel | None:
    return server.data_plane_acceptor(LISTENER).processors[0].open_or_closing_channel(request.context.connection_id)


def send_requests_receive_one(server: SocketServer, sock: socket.socket, request_bytes: bytes,
                              num_requests: int) -> Request:
    sock.sendall(b"".join(struct.pack(">i", len(request_bytes)) + request_bytes for _ in range(num_requests)))
    return receive_request(server.data_plane_request_channel)


def test_idle_connection(world: _World) -> None:
    idle_time_ms = 60000
    time = MockTime()
    world.props["connections.max.idle.ms"] = str(idle_time_ms)
    override_server = SocketServer(KafkaConfig.from_props(world.props), None, time, None, API_VERSION_MANAGER)
    world.servers.append(override_server)

    override_server.enable_request_processing({}).result(60)
    serialized_bytes = producer_request_bytes()

    # a connection with no outstanding request
    socket0 = world.connect(override_server)
    send_request(socket0, serialized_bytes)
    request0 = receive_request(override_server.data_plane_request_channel)
    process_request(override_server.data_plane_request_channel, request0)
    assert open_channel(request0, override_server) is not None, "Channel not open"
    assert open_channel(request0, override_server) is open_or_closing_channel(request0, override_server)
    # the response read, the processor is quiet: nothing marks the connection active after the clock moves
    receive_response(socket0)
    wait_until_true(lambda: not open_channel(request0, override_server).is_muted(), "Failed to unmute channel")
    time.sleep(idle_time_ms + 1)
    wait_until_true(lambda: open_or_closing_channel(request0, override_server) is None,
                    "Failed to close idle channel")
    assert open_channel(request0, override_server) is None, "Channel not removed"

    # a connection whose request is being handled (muted), nothing else in flight
    socket1 = world.connect(override_server)
    send_request(socket1, serialized_bytes)
    request1 = receive_request(override_server.data_plane_request_channel)
    assert open_channel(request1, override_server) is not None, "Channel not open"
    assert open_channel(request1, override_server) is open_or_closing_channel(request1, override_server)
    time.sleep(idle_time_ms + 1)
    wait_until_true(lambda: open_or_closing_channel(request1, override_server) is None,
                    "Failed to close idle channel")
    assert open_channel(request1, override_server) is None, "Channel not removed"
    process_request(override_server.data_plane_request_channel, request1)

    # a connection whose request is being handled (muted), more requests in flight
    socket2 = world.connect(override_server)
    request2 = send_requests_receive_one(override_server, socket2, serialized_bytes, 3)
    time.sleep(idle_time_ms + 1)
    wait_until_true(lambda: open_or_closing_channel(request2, override_server) is None,
                    "Failed to close idle channel")
    assert open_channel(request1, override_server) is None, "Channel not removed"
    process_request(override_server.data_plane_request_channel, request2)  # a failed send: the channel is gone
    assert override_server.data_plane_request_channel.receive_request(200) is None, \
        "Received request on expired channel"


def throttled_channel_test_set_up(w: _World, sock: socket.socket, serialized_bytes: bytes, no_op_response: bool,
                                  throttling_in_progress: bool) -> Request:
    """A handler that answers through a throttled channel. ThrottledChannel (the quota managers', not in the 3.9
    tree) calls startThrottling when it is made and endThrottling from notifyThrottlingDone: those calls are made
    here, in the same order."""
    send_request(sock, serialized_bytes)
    channel = w.server.data_plane_request_channel
    request = receive_request(channel)
    header = request.header
    payload = encode_request(header.api_key, header.api_version, header.correlation_id, header.client_id,
                             request.body())
    send = NetworkSend(request.context.connection_id, ByteBufferSend.size_prefixed(ByteBuffer.wrap(payload)))

    channel.start_throttling(request)  # new ThrottledChannel(...)
    response = NoOpResponse(request) if no_op_response else SendResponse(request, send, None, None)
    channel.send_response(response)

    # the quota manager calls notifyThrottlingDone once the throttle time is over
    if not throttling_in_progress:
        channel.end_throttling(request)
    return request


def test_send_action_response_with_throttled_channel_where_throttling_in_progress(world: _World) -> None:
    sock = world.connect()
    serialized_bytes = producer_request_bytes()
    request = throttled_channel_test_set_up(world, sock, serialized_bytes, no_op_response=False,
                                            throttling_in_progress=True)

    assert receive_response(sock) == serialized_bytes
    wait_until_true(lambda: (c := open_or_closing_channel(request, world.server)) is not None
                    and c.mute_state() is ChannelMuteState.MUTED_AND_THROTTLED, "fail")
    # still muted
    channel = open_or_closing_channel(request, world.server)
    assert channel is not None and channel.is_muted()


def test_send_action_response_with_throttled_channel_where_throttling_already_done(world: _World) -> None:
    sock = world.connect()
    serialized_bytes = producer_request_bytes()
    request = throttled_channel_test_set_up(world, sock, serialized_bytes, no_op_response=False,
                                            throttling_in_progress=False)

    assert receive_response(sock) == serialized_bytes
    # the throttle is over: the response sent, the channel is unmuted
    wait_until_true(lambda: (c := open_or_closing_channel(request, world.server)) is not None
                    and c.mute_state() is ChannelMuteState.NOT_MUTED, "fail")
    channel = open_or_closing_channel(request, world.server)
    assert not (channel is not None and channel.is_muted())


def test_no_op_action_response_with_throttled_channel_where_throttling_in_progress(world: _World) -> None:
    sock = world.connect()
    serialized_bytes = producer_request_bytes()
    request = throttled_channel_test_set_up(world, sock, serialized_bytes, no_op_response=True,
                                            throttling_in_progress=True)

    wait_until_true(lambda: (c := open_or_closing_channel(request, world.server)) is not None
                    and c.mute_state() is ChannelMuteState.MUTED_AND_THROTTLED, "fail")
    channel = open_or_closing_channel(request, world.server)
    assert channel is not None and channel.is_muted()


def test_no_op_action_response_with_throttled_channel_where_throttling_already_done(world: _World) -> None:
    sock = world.connect()
    serialized_bytes = producer_request_bytes()
    request = throttled_channel_test_set_up(world, sock, serialized_bytes, no_op_response=True,
                                            throttling_in_progress=False)

    wait_until_true(lambda: (c := open_or_closing_channel(request, world.server)) is not None
                    and c.mute_state() is ChannelMuteState.NOT_MUTED, "fail")
    channel = open_or_closing_channel(request, world.server)
    assert not (channel is not None and channel.is_muted())


def verify_remote_connection_closed(connection: socket.socket) -> None:
    large_chunk_of_bytes = bytes(1000000)
    # a write to a closed connection fails; the first may still be buffered, so a few are sent
    with pytest.raises(OSError):
        for _ in range(20):
            send_request(connection, large_chunk_of_bytes, id=0)


def test_sockets_close_on_shutdown(world: _World) -> None:
    plain_socket = world.connect()
    plain_socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # a request first, so that the server has picked the connection up
    send_request(plain_socket, bytes(40), id=0)
    process_request(world.server.data_plane_request_channel)
    receive_response(plain_socket)
    for acceptor in world.server.data_plane_acceptors.values():
        assert acceptor.server_channel is not None and acceptor.server_channel.is_open()
    world.server.shutdown()

    verify_remote_connection_closed(plain_socket)


def test_max_connections_per_ip(world: _World) -> None:
    conns = [world.connect() for _ in range(world.server.config.max_connections_per_ip)]
    # one more fails
    conn = world.connect()
    conn.settimeout(3)
    assert _read(conn) == -1
    conn.close()

    # and succeeds once one is closed
    address = conns[0].getpeername()[0]
    conns[0].close()
    wait_until_true(lambda: world.server.connection_count(address) < len(conns),
                    "Failed to decrement connection count after close")
    conn2 = world.connect()
    send_request(conn2, producer_request_bytes())
    assert world.server.data_plane_request_channel.receive_request(2000) is not None


def _local_host_address() -> str:
    """InetAddress.getLocalHost: the host name's address (an interface other than loopback, where there is one)."""
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.1.1"


def test_zero_max_connections_per_ip(world: _World) -> None:
    new_props = create_broker_config(0, MOCK_ZK_CONNECT, port=0)
    new_props["max.connections.per.ip.overrides"] = "127.0.0.1:5"
    config = KafkaConfig.from_props(new_props)
    # 3.9 takes max.connections.per.ip=0 when overrides are set; the port's KafkaConfig (1.0.2's) validates at
    # least 1, so the value is set after parsing
    config.max_connections_per_ip = 0
    server = SocketServer(config, None, SYSTEM, None, API_VERSION_MANAGER)
    world.servers.append(server)
    server.enable_request_processing({}).result(60)
    conns = [world.connect(server) for _ in range(5)]
    # one more fails
    conn = world.connect(server)
    conn.settimeout(3)
    assert _read(conn) == -1
    conn.close()

    # and succeeds once one is closed
    address = conns[0].getpeername()[0]
    conns[0].close()
    wait_until_true(lambda: server.connection_count(address) < len(conns),
                    "Failed to decrement connection count after close")
    conn2 = world.connect(server)
    send_request(conn2, producer_request_bytes())
    assert server.data_plane_request_channel.receive_request(2000) is not None

    # from the host's own address: no override, a limit of 0
    conn3 = world.connect(server, local_addr=_local_host_address())
    conn3.settimeout(3)
    assert _read(conn3) == -1
    conn3.close()


def test_max_connections_per_ip_overrides(world: _World) -> None:
    override_num = world.server.config.max_connections_per_ip + 1
    override_props = create_broker_config(0, MOCK_ZK_CONNECT, port=0)
    override_props["max.connections.per.ip.overrides"] = f"localhost:{override_num}"
    override_server = SocketServer(KafkaConfig.from_props(override_props), None, SYSTEM, None, API_VERSION_MANAGER)
    world.servers.append(override_server)
    override_server.enable_request_processing({}).result(60)
    conns = [world.connect(override_server) for _ in range(override_num)]

    send_request(conns[-1], producer_request_bytes())
    assert override_server.data_plane_request_channel.receive_request(2000) is not None

    # one more fails
    conn = world.connect(override_server)
    conn.settimeout(3)
    assert _read(conn) == -1


def test_exception_in_acceptor(world: _World) -> None:
    failures: list[BaseException] = []

    class _Acceptor(DataPlaneAcceptor):
        def configure_accepted_socket_channel(self, socket_channel: Any) -> None:
            try:
                assert self.connection_quotas.get(socket_channel.socket().get_inet_address()) == 1
            except AssertionError as e:
                failures.append(e)
            raise OSError("test injected IOException")

    class _SocketServer(SocketServer):
        def create_data_plane_acceptor(self, end_point: Any, is_privileged_listener: bool,
                                       request_channel: RequestChannel) -> DataPlaneAcceptor:
            return _Acceptor(self, end_point, self.config, self.node_id, self.connection_quotas, self.time, False,
                             request_channel, None, self.credential_provider, "", memory_pools.NONE,
                             self.api_version_manager)

    override_server = _SocketServer(KafkaConfig.from_props(world.props), None, SYSTEM, None, API_VERSION_MANAGER)
    world.servers.append(override_server)
    override_server.enable_request_processing({}).result(60)
    conn = world.connect(override_server)
    conn.settimeout(3)
    assert _read(conn) == -1
    assert not failures
    assert override_server.connection_quotas.get(conn.getpeername()[0]) == 0


def test_session_principal(world: _World) -> None:
    sock = world.connect()
    send_request(sock, bytes(40), id=0)
    assert receive_request(world.server.data_plane_request_channel).session.principal == ANONYMOUS


def test_server_shutdown_without_enable(world: _World) -> None:
    props = create_broker_config(0, MOCK_ZK_CONNECT, port=0)
    override_server = world.testable_server(KafkaConfig.from_props(props))
    override_server.shutdown()
    assert not override_server.testable_acceptor().is_open()
    override_server.testable_selector().wait_for_operations(CLOSE_SELECTOR, 1)


def close_socket_with_pending_request(w: _World, server: SocketServer,
                                      create_socket: Callable[[], socket.socket]) -> Request:
    def maybe_receive_request() -> Request | None:
        try:
            return receive_request(server.data_plane_request_channel, timeout=1000)
        except AssertionError:
            return None

    def closed_channel_with_pending_request() -> Request | None:
        sock = create_socket()
        req1 = send_requests_receive_one(server, sock, producer_request_bytes(), num_requests=100)
        process_request_no_op_response(server.data_plane_request_channel, req1)
        # a hard disconnect: TCP RST
        _set_so_linger_zero(sock)
        sock.close()

        req = maybe_receive_request()
        if req is None:
            return None
        process_request_no_op_response(server.data_plane_request_channel, req)
        return maybe_receive_request()

    request, _ = compute_until_true(closed_channel_with_pending_request, lambda req: req is not None)
    if request is None:
        raise IllegalStateException("Could not create close channel with pending request")
    return request


def test_client_disconnection_with_outstanding_receives_processed_until_failed_send(world: _World) -> None:
    override_server = world.testable_server(KafkaConfig.from_props(world.props))
    override_server.enable_request_processing({}).result(60)
    selector = override_server.testable_selector()

    # requests sent, the socket closed, one of them received after the close
    request = close_socket_with_pending_request(world, override_server, lambda: world.connect(override_server))

    # the response's send fails, which closes the channel
    process_request(override_server.data_plane_request_channel, request)
    wait_until_true(lambda: open_or_closing_channel(request, override_server) is None,
                    "Channel not closed after failed send")
    assert not selector.completed_sends(), "Unexpected completed send"


# ---- failure injection -------------------------------------------------------------------------------------------

REGISTER, POLL, SEND, MUTE, UNMUTE, WAKEUP, CLOSE, CLOSE_SELECTOR = (
    "Register", "Poll", "Send", "Mute", "Unmute", "Wakeup", "Close", "CloseSelector")


class ControlThrowable(BaseException):
    """scala.util.control.ControlThrowable: not an Exception; the processor lets it through."""


class PollData:
    """Holds what a poll completed back for later polls until at least `min_per_poll` items are there, so that a
    test can have several of them processed in one iteration."""

    def __init__(self, selector: TestableSelector) -> None:
        self.selector = selector
        self.min_per_poll = 1
        self.deferred_values: list[Any] = []

    def update(self, new_values: list[Any]) -> list[Any]:
        current_poll_values: list[Any] = []
        if len(self.deferred_values) + len(new_values) >= self.min_per_poll:
            if self.deferred_values:
                current_poll_values.extend(self.deferred_values)
                self.deferred_values.clear()
            current_poll_values.extend(new_values)
        else:
            self.deferred_values.extend(new_values)
        return current_poll_values


class CompletedReceivesPollData(PollData):
    def update_results(self) -> None:
        completed_receives_map = self.selector._completed_receives
        current_receives = self.update(list(completed_receives_map.values()))
        completed_receives_map.clear()
        for receive in current_receives:
            channel = self.selector.channel(receive.source()) or self.selector.closing_channel(receive.source())
            if channel is not None:
                completed_receives_map[channel.id()] = receive


class CompletedSendsPollData(PollData):
    def update_results(self) -> None:
        current_sends = self.update(list(self.selector._completed_sends))
        self.selector._completed_sends.clear()
        self.selector._completed_sends.extend(current_sends)


class DisconnectedPollData(PollData):
    def update_results(self) -> None:
        current_disconnected = self.update(list(self.selector._disconnected.items()))
        self.selector._disconnected.clear()
        for channel_id, state in current_disconnected:
            self.selector._disconnected[channel_id] = state


class TestableSelector(Selector):
    __test__ = False

    def __init__(self, config: KafkaConfig, channel_builder: Any, time: Time) -> None:
        super().__init__(config.socket_request_max_bytes, config.connections_max_idle_ms, time, channel_builder,
                         failed_authentication_delay_ms=100, record_time_per_connection=True,
                         memory_pool=memory_pools.NONE)
        self.failures: dict[str, BaseException] = {}
        self.operation_counts: defaultdict[str, int] = defaultdict(int)
        self.all_channels: set[str] = set()
        self.all_locally_closed_channels: set[str] = set()
        self.all_disconnected_channels: set[str] = set()
        self.all_failed_channels: set[str] = set()
        self.cached_completed_receives = CompletedReceivesPollData(self)
        self.cached_completed_sends = CompletedSendsPollData(self)
        self.cached_disconnected = DisconnectedPollData(self)
        self.all_cached_poll_data = [self.cached_completed_receives, self.cached_completed_sends,
                                     self.cached_disconnected]
        self.min_wakeup_count = 0
        self.poll_timeout_override: int | None = None
        self.poll_callback: Callable[[], None] = lambda: None

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
        # a failure set on the operation is raised even if `code` fails
        try:
            return code()
        finally:
            self._on_operation(operation, connection_id, on_failure)

    def register(self, id: str, socket_channel: Any) -> None:
        self.run_op(REGISTER, id, lambda: super(TestableSelector, self).register(id, socket_channel),
                    on_failure=lambda: self.close(id))

    def send(self, s: NetworkSend) -> None:
        self.run_op(SEND, s.destination_id(), lambda: super(TestableSelector, self).send(s))

    def poll(self, timeout: int) -> None:
        try:
            assert len(super().completed_receives()) == 0
            assert len(super().completed_sends()) == 0
            self.poll_callback()
            self.run_op(POLL, None, lambda: super(TestableSelector, self).poll(
                timeout if self.poll_timeout_override is None else self.poll_timeout_override))
        finally:
            self.all_channels.update(channel.id() for channel in super().channels())
            self.all_disconnected_channels.update(super().disconnected().keys())
            self.cached_completed_receives.update_results()
            self.cached_completed_sends.update_results()
            self.cached_disconnected.update_results()

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

    def close(self, id: str | None = None) -> None:
        if id is None:
            self.run_op(CLOSE_SELECTOR, None, lambda: super(TestableSelector, self).close())
            return

        def code() -> None:
            super(TestableSelector, self).close(id)
            self.all_locally_closed_channels.add(id)
        self.run_op(CLOSE, id, code)

    def update_min_wakeup(self, count: int) -> None:
        self.min_wakeup_count = count
        # tests that hold wakeups back to get responses processed together: a poll long enough for them to come
        self.poll_timeout_override = 1000
        # the current poll ends, so that the new timeout applies
        Selector.wakeup(self)

    def reset(self) -> None:
        self.failures.clear()
        for data in self.all_cached_poll_data:
            data.min_per_poll = 1

    def not_failed(self, sockets: list[socket.socket]) -> list[socket.socket]:
        # each test fails exactly one channel
        assert len(self.all_failed_channels) == 1
        failed_connection_id = next(iter(self.all_failed_channels))
        return [s for s in sockets if not is_socket_connection_id(failed_connection_id, s)]


def is_socket_connection_id(connection_id: str, sock: socket.socket) -> bool:
    """All sockets use the same local host: the local port tells them apart."""
    return f":{sock.getsockname()[1]}-" in connection_id


class TestableProcessor(Processor):
    __test__ = False

    def __init__(self, w: _World, *args: Any, **kwargs: Any) -> None:
        self._world = w
        self._connection_id: str | None = None
        self._conn: socket.socket | None = None
        super().__init__(*args, **kwargs)

    def create_selector(self, channel_builder: Any) -> Selector:
        return TestableSelector(self.config, channel_builder, self.time)

    def process_exception(self, error_message: str, throwable: BaseException) -> None:
        if "uncaught exception" in error_message:
            self._world.uncaught_exceptions += 1
        super().process_exception(error_message, throwable)

    def set_connection_id(self, connection_id: str) -> None:
        self._connection_id = connection_id

    def connection_id(self, socket: Any) -> str:
        return self._connection_id if self._connection_id is not None else super().connection_id(socket)

    def close_socket_on_send_response(self, conn: socket.socket) -> None:
        self._conn = conn

    def send_response(self, response: Any, response_send: Any) -> None:
        if self._conn is not None:
            self._conn.close()
        super().send_response(response, response_send)


class TestableAcceptor(DataPlaneAcceptor):
    __test__ = False

    def __init__(self, w: _World, connection_queue_size: int, *args: Any) -> None:
        self._world = w
        self._connection_queue_size = connection_queue_size
        super().__init__(*args)

    def new_processor(self, id: int, listener_name: ListenerName, security_protocol: Any) -> Processor:
        return TestableProcessor(self._world, id, self.time, 10000, self.request_channel, self.connection_quotas,
                                 300000, 0, listener_name, security_protocol, self.config, None, None,
                                 memory_pools.NONE, "", self._connection_queue_size, self.is_privileged_listener,
                                 self.api_version_manager, f"TestableProcessor{id}")


class TestableSocketServer(SocketServer):
    __test__ = False

    def __init__(self, w: _World, config: KafkaConfig, connection_queue_size: int = 20, time: Time = SYSTEM) -> None:
        self._world = w
        self._connection_queue_size = connection_queue_size
        super().__init__(config, None, time, None, API_VERSION_MANAGER)

    def create_data_plane_acceptor(self, end_point: Any, is_privileged_listener: bool,
                                   request_channel: RequestChannel) -> DataPlaneAcceptor:
        return TestableAcceptor(self._world, self._connection_queue_size, self, end_point, self.config, 0,
                                self.connection_quotas, self.time, is_privileged_listener, request_channel, None,
                                None, "", memory_pools.NONE, self.api_version_manager)

    def testable_selector(self) -> TestableSelector:
        return self.testable_processor().selector  # type: ignore[return-value]

    def testable_processor(self) -> TestableProcessor:
        return self.testable_acceptor().processors[0]  # type: ignore[return-value]

    def testable_acceptor(self) -> TestableAcceptor:
        end_point = self.config.data_plane_listeners[0]
        return self.data_plane_acceptors[end_point]  # type: ignore[return-value]

    def wait_for_channel_close(self, connection_id: str, locally_closed: bool) -> None:
        selector = self.testable_selector()
        if locally_closed:
            wait_until_true(lambda: connection_id in selector.all_locally_closed_channels,
                            f"Channel not closed: {connection_id}")
            assert not selector.all_disconnected_channels, "Unexpected disconnect notification"
        else:
            wait_until_true(lambda: connection_id in selector.all_disconnected_channels,
                            f"Disconnect notification not received: {connection_id}")
            assert not selector.all_locally_closed_channels, "Channel closed locally"
        open_count = len(selector.all_channels) - 1  # the channel just closed
        wait_until_true(lambda: self.connection_count(LOCAL_ADDRESS) == open_count, "Connection count not decremented")
        wait_until_true(lambda: self.data_plane_acceptor(LISTENER).processors[0].inflight_response_count() == 0,
                        "Inflight responses not cleared")
        assert selector.channel(connection_id) is None, "Channel not removed"
        assert selector.closing_channel(connection_id) is None, "Closing channel not removed"


@pytest.fixture
def testable_server(world: _World) -> Iterator[TestableSocketServer]:
    """withTestableServer: the harness server is shut down, a testable one takes its place."""
    world.server.shutdown()
    server = world.testable_server()
    server.enable_request_processing({}).result(60)
    yield server
    server.shutdown()
    assert world.uncaught_exceptions == 0


def assert_processor_healthy(w: _World, testable_server: TestableSocketServer,
                             healthy_sockets: list[socket.socket] | None = None) -> None:
    selector = testable_server.testable_selector()
    selector.reset()
    request_channel = testable_server.data_plane_request_channel

    # the channels there are still work
    for sock in healthy_sockets or []:
        request = send_and_receive_request(sock, testable_server)
        process_request(request_channel, request)
        sock.close()
    wait_until_true(lambda: testable_server.connection_count(LOCAL_ADDRESS) == 0, "Channels not removed")

    # and a new one works
    sock, connection_id = connect_and_process_request(w, testable_server)
    assert receive_response(sock) == producer_request_bytes()
    assert selector.channel(connection_id) is not None, "Channel should not have been closed"
    assert selector.closing_channel(connection_id) is None, "Channel should not be closing"
    sock.close()
    wait_until_true(lambda: testable_server.connection_count(LOCAL_ADDRESS) == 0, "Channels not removed")


def test_configure_new_connection_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector()
    testable_selector.update_min_wakeup(2)
    testable_selector.add_failure(REGISTER)
    sockets = [world.connect(testable_server) for _ in range(2)]
    testable_selector.wait_for_operations(REGISTER, 2)
    wait_until_true(lambda: testable_server.connection_count(LOCAL_ADDRESS) == 1, "Failed channel not removed")

    assert_processor_healthy(world, testable_server, testable_selector.not_failed(sockets))


def test_process_new_response_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector()
    testable_selector.update_min_wakeup(2)

    sockets = [world.connect(testable_server) for _ in range(2)]
    for sock in sockets:
        send_request(sock, producer_request_bytes())

    testable_selector.add_failure(SEND)
    for _ in sockets:
        process_request(testable_server.data_plane_request_channel)
    testable_selector.wait_for_operations(SEND, 2)
    testable_server.wait_for_channel_close(next(iter(testable_selector.all_failed_channels)), locally_closed=True)

    assert_processor_healthy(world, testable_server, testable_selector.not_failed(sockets))


def test_send_cancelled_key_exception(world: _World, testable_server: TestableSocketServer) -> None:
    testable_selector = testable_server.testable_selector()
    testable_selector.update_min_wakeup(2)

    sockets = [world.connect(testable_server) for _ in range(2)]
    for sock in sockets:
        send_request(sock, producer_request_bytes())
    request_channel = testable_server.data_plane_request_channel

    requests = [receive_request(request_channel) for _ in sockets]
    failed_connection_id = requests[0].context.connection_id
    # KafkaChannel.disconnect cancels the selection key: the send meets a CancelledKeyException
    testable_selector.channel(failed_connection_id).disconnect()
    for request in requests:
        process_request(request_channel, request)
    testable_selector.wait_for_operations(SEND, 2)
    testable_server.wait_for_channel_close(failed_connection_id, locally_closed=False)

    successful_socket = sockets[1] if is_socket_connection_id(failed_connection_id, sockets[0]) else sockets[0]
    assert_processor_healthy(world, testable_server, [successful_socket])


def test_process_completed_receive_exception(world: _World, testable_server: TestableSocketServer) -> None:
    sockets = [world.connect(testable_server) for _ in range(2)]
    testable_selector = testable_server.testable_selector()
    request_channel = testable_server.data_plane_request_channel

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
    testable_selector = testable_server.testable_selector()
    sockets = [world.connect(testable_server) for _ in range(2)]
    requests = [send_and_receive_request(sock, testable_server) for sock in sockets]

    testable_selector.add_failure(UNMUTE)
    for request in requests:
        process_request(testable_server.data_plane_request_channel, request)
    testable_selector.wait_for_operations(UNMUTE, 2)
    testable_server.wait_for_channel_close(next(iter(testable_selector.all_failed_channels)), locally_closed=True)

    assert_processor_healthy(world, testable_server, testable_selector.not_failed(sockets))


def test_process_disconnected_exception(world: _World, testable_server: TestableSocketServer) -> None:
    sock, connection_id = connect_and_process_request(world, testable_server)
    testable_selector = testable_server.testable_selector()

    # an invalid connection id ahead of the real disconnection: the real one is still processed
    testable_selector.cached_disconnected.min_per_poll = 2
    testable_selector.cached_disconnected.deferred_values.append(("notAValidConnectionId", ChannelState.EXPIRED))
    sock.close()
    testable_selector.operation_counts.clear()
    testable_selector.wait_for_operations(POLL, 1)
    testable_server.wait_for_channel_close(connection_id, locally_closed=False)

    assert_processor_healthy(world, testable_server)


def test_poll_exception(world: _World, testable_server: TestableSocketServer) -> None:
    sock, _ = connect_and_process_request(world, testable_server)
    testable_selector = testable_server.testable_selector()

    testable_selector.add_failure(POLL)
    testable_selector.operation_counts.clear()
    testable_selector.wait_for_operations(POLL, 2)

    assert_processor_healthy(world, testable_server, [sock])


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_control_throwable(world: _World, testable_server: TestableSocketServer) -> None:
    connect_and_process_request(world, testable_server)
    testable_selector = testable_server.testable_selector()

    testable_selector.operation_counts.clear()
    testable_selector.add_failure(POLL, ControlThrowable())
    testable_selector.wait_for_operations(POLL, 1)

    testable_selector.wait_for_operations(CLOSE_SELECTOR, 1)
    assert world.uncaught_exceptions == 1
    world.uncaught_exceptions = 0


def _acceptor_stack_traces() -> dict[threading.Thread, list[Any]]:
    """Thread.getAllStackTraces for the acceptor threads: each one's frames, innermost first."""
    frames = sys._current_frames()
    traces = {}
    for thread in threading.enumerate():
        if "kafka-socket-acceptor" in thread.name and thread.ident in frames:
            stack, frame = [], frames[thread.ident]
            while frame is not None:
                stack.append(frame)
                frame = frame.f_back
            traces[thread] = stack
    return traces


def test_connection_rate_limit(world: _World) -> None:
    world.server.shutdown()
    num_connections = 5
    world.props["max.connections.per.ip"] = str(num_connections)
    testable_server = world.testable_server(KafkaConfig.from_props(world.props), connection_queue_size=1)
    testable_server.enable_request_processing({}).result(60)
    testable_selector = testable_server.testable_selector()
    errors: set[str] = set()

    def acceptor_blocked() -> bool:
        # waiting in the processor's full connection queue (ArrayBlockingQueue.put)
        stack_traces = _acceptor_stack_traces()
        if not stack_traces:
            errors.add(f"Acceptor thread not found, threads={threading.enumerate()}")
        return any(any(frame.f_code.co_name == "put" and frame.f_code.co_filename.endswith("queue.py")
                       for frame in stack) for stack in stack_traces.values())

    def registered_connection_count() -> int:
        return testable_selector.operation_counts.get(REGISTER, 0)

    def poll_callback() -> None:
        # hold the processor until the acceptor is blocked with connections pending
        try:
            wait_until_true(lambda: bool(errors) or registered_connection_count() >= num_connections - 1
                            or acceptor_blocked(), "Acceptor not blocked", wait_time_ms=10000)
        except pytest.fail.Exception:
            errors.add("Acceptor not blocked")

    testable_selector.poll_callback = poll_callback
    testable_selector.operation_counts.clear()
    sockets = [world.connect(testable_server) for _ in range(num_connections)]
    wait_until_true(lambda: bool(errors) or registered_connection_count() == num_connections,
                    "Connections not registered", wait_time_ms=15000)
    assert errors == set()
    testable_selector.wait_for_operations(REGISTER, num_connections)

    # A processor loop registers at most connection_queue_size (1) new connections before it polls: 5 connections
    # take 5 loops, so there were at least 4 polls before the 5th registration.
    poll_count = testable_selector.operation_counts[POLL]
    assert poll_count >= num_connections - 1, f"Connections created too quickly: {poll_count}"

    assert_processor_healthy(world, testable_server, sockets)


def test_inter_broker_listener_as_privileged_listener(world: _World) -> None:
    test_props = dict(world.props)
    test_props["listeners"] = "EXTERNAL://localhost:0,INTERNAL://localhost:0"
    test_props["listener.security.protocol.map"] = "EXTERNAL:PLAINTEXT,INTERNAL:PLAINTEXT"
    test_props["inter.broker.listener.name"] = "INTERNAL"
    config = KafkaConfig.from_props(test_props)
    world.server.shutdown()
    testable_server = world.testable_server(config)
    testable_server.enable_request_processing({}).result(60)

    inter_broker_socket = world.connect(testable_server, ListenerName(config.inter_broker_listener_name))
    sent_request = send_and_receive_request(inter_broker_socket, testable_server)
    assert sent_request.context.from_privileged_listener

    external_socket = world.connect(testable_server, ListenerName("EXTERNAL"))
    external_request = send_and_receive_request(external_socket, testable_server)
    assert not external_request.context.from_privileged_listener


def test_listen_backlog_size(world: _World) -> None:
    backlog_size = 128
    world.props["socket.listen.backlog.size"] = str(backlog_size)
    world.server.shutdown()
    # The backlog holds connections whose handshake the kernel has done but nobody has accepted: with the acceptor
    # not started, that many connections still connect.
    testable_server = world.testable_server(KafkaConfig.from_props(world.props))
    for _ in range(backlog_size):
        sock = world.connect(testable_server)
        assert sock.getpeername() is not None


def test_authorizer_failure_causes_enable_request_processing_failure(world: _World) -> None:
    world.server.shutdown()
    new_server = SocketServer(world.config, None, SYSTEM, None, API_VERSION_MANAGER)
    world.servers.append(new_server)
    failed_future: CompletableFuture[None] = CompletableFuture()
    failed_future.complete_exceptionally(RuntimeError("authorizer startup failed"))
    end_point = world.config.data_plane_listeners[0]
    with pytest.raises(RuntimeError):
        new_server.enable_request_processing({end_point: failed_future}).result(60)


def test_failed_acceptor_startup_causes_enable_request_processing_failure(world: _World) -> None:
    world.server.shutdown()
    new_server = SocketServer(world.config, None, SYSTEM, None, API_VERSION_MANAGER)
    world.servers.append(new_server)
    for acceptor in new_server.data_plane_acceptors.values():
        acceptor.should_run.set(False)
    with pytest.raises(OSError):
        new_server.enable_request_processing({}).result(60)


def test_acceptor_start_opens_port_if_needed(world: _World) -> None:
    world.server.shutdown()
    new_server = SocketServer(world.config, None, SYSTEM, None, API_VERSION_MANAGER)
    world.servers.append(new_server)
    for acceptor in new_server.data_plane_acceptors.values():
        acceptor.server_channel.close()
        acceptor.server_channel = None
    authorizer_future: CompletableFuture[None] = CompletableFuture()
    enable_future = new_server.enable_request_processing(
        {end_point: authorizer_future for end_point in new_server.data_plane_acceptors})
    assert not authorizer_future.done()
    assert not enable_future.done()
    for acceptor in new_server.data_plane_acceptors.values():
        assert acceptor.server_channel is None
    authorizer_future.complete(None)
    enable_future.result(60)
    for acceptor in new_server.data_plane_acceptors.values():
        assert acceptor.server_channel is not None
