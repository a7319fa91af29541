"""Port of core/src/main/scala/kafka/network/SocketServer.scala (Kafka 1.0.2): SocketServer, Acceptor, Processor,
ConnectionQuotas.

Threads: one Acceptor per listener hands accepted sockets round-robin to that listener's Processors; each Processor
drives a Selector (kafka_edu/v1_0_2/clients/common/network/selector.py), puts whole requests on the shared
RequestChannel and
writes the handlers' responses back.
"""

from __future__ import annotations

import logging
import queue
import selectors
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from kafka_edu.tracing import event, step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.network.sasl_channel_builder import server_channel_builder
from kafka_edu.v1_0_2.clients.common.network.selector import NetworkReceive, Selector
from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v1_0_2.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v1_0_2.core.network.request_channel import Request, RequestChannel, Response, ResponseAction
from kafka_edu.v1_0_2.core.security.credential_provider import CredentialProvider
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import InvalidRequestError, UnsupportedVersionError, decode_request

log = logging.getLogger("kafka.network.SocketServer")

POLL_TIMEOUT_MS = 300


class SocketServer:
    """Listeners, their acceptors and processors, and the RequestChannel between them and the request handlers."""

    def __init__(self, config: Any, api_version_manager: Any = None,
                 credential_provider: CredentialProvider | None = None, time: Time = SYSTEM) -> None:
        self.config = config
        self.time = time
        self.api_version_manager = api_version_manager
        # the SCRAM credentials a SASL listener's logins are checked against (KafkaServer's, kept from ZooKeeper)
        self.credential_provider = credential_provider or CredentialProvider(config.sasl_enabled_mechanisms)
        # A controller's SocketServer binds the controller listeners; a broker's every other one (3.9).
        listener_type = getattr(api_version_manager, "listener_type", None)  # a ZooKeeper-mode broker's has none
        if listener_type is not None and listener_type.value == "controller":
            self.end_points = config.controller_listeners
        else:
            self.end_points = config.data_plane_listeners
        self.num_processor_threads = config.num_network_threads
        self.max_queued_requests = config.queued_max_requests
        self.send_buffer_size = config.socket_send_buffer_bytes
        self.recv_buffer_size = config.socket_receive_buffer_bytes
        self.max_request_size = config.socket_request_max_bytes
        self.max_connections_per_ip = config.max_connections_per_ip
        self.max_connections_per_ip_overrides = config.max_connections_per_ip_overrides
        self.connections_max_idle_ms = config.connections_max_idle_ms
        self.request_channel = RequestChannel(self.max_queued_requests)
        self.processors: dict[int, Processor] = {}
        self.acceptors: dict[str, Acceptor] = {}
        self.connection_quotas: ConnectionQuotas | None = None
        self.stopped_processing_requests = False
        self._lock = threading.Lock()

    def startup(self, startup_processors: bool = True) -> None:
        """Bind every listener and start its acceptor; processors start now or in `start_processors`."""
        self.connection_quotas = ConnectionQuotas(self.max_connections_per_ip, self.max_connections_per_ip_overrides)
        processor_begin_index = 0
        for end_point in self.end_points:
            processor_end_index = processor_begin_index + self.num_processor_threads
            listener_processors = [self.new_processor(i, end_point)
                                   for i in range(processor_begin_index, processor_end_index)]
            for processor in listener_processors:
                self.processors[processor.id] = processor
            acceptor = Acceptor(end_point, self.send_buffer_size, self.recv_buffer_size, self.config.broker_id,
                                listener_processors, self.connection_quotas)
            self.acceptors[end_point.listener_name] = acceptor
            acceptor.start()
            acceptor.await_startup()
            processor_begin_index = processor_end_index
        if startup_processors:
            self.start_processors()
        log.info("Started %d acceptor threads", len(self.acceptors))

    def start_processors(self) -> None:
        for acceptor in self.acceptors.values():
            acceptor.start_processors()
        log.info("Started processors for %d acceptors", len(self.acceptors))

    def stop_processing_requests(self) -> None:
        """Stop accepting connections and reading requests; the request channel stays for the shutdown."""
        log.info("Stopping socket server request processors")
        self.stopped_processing_requests = True
        for acceptor in self.acceptors.values():
            acceptor.shutdown()
        for processor in self.processors.values():
            processor.shutdown()
        self.request_channel.clear()
        log.info("Stopped socket server request processors")

    def shutdown(self) -> None:
        log.info("Shutting down socket server")
        with self._lock:
            if not self.stopped_processing_requests:
                self.stop_processing_requests()
            self.request_channel.shutdown()
        log.info("Shutdown completed")

    def connection_count(self, address: str) -> int:
        return 0 if self.connection_quotas is None else self.connection_quotas.get(address)

    def processor(self, index: int) -> Processor:
        return self.processors[index]

    def bound_port(self, listener_name: str) -> int:
        return self.acceptors[listener_name].bound_port

    def new_processor(self, id: int, end_point: Any) -> Processor:
        channel_builder = server_channel_builder(end_point.listener_name, end_point.security_protocol, self.config,
                                                 self.credential_provider.credential_cache,
                                                 self.api_version_manager, id)
        return Processor(id, self.request_channel, self.max_request_size, end_point.listener_name,
                         end_point.security_protocol, self.connections_max_idle_ms, self.connection_quotas,
                         self.api_version_manager, channel_builder, self.time)


class AbstractServerThread(threading.Thread):
    """Startup/shutdown latches shared by the acceptor and processor threads."""

    def __init__(self, name: str, connection_quotas: ConnectionQuotas) -> None:
        super().__init__(name=name, daemon=True)
        self.connection_quotas = connection_quotas
        self._startup_latch = threading.Event()
        self._shutdown_latch = threading.Event()
        self.alive = True

    def wakeup(self) -> None:
        raise NotImplementedError

    def shutdown(self) -> None:
        self.alive = False
        self.wakeup()
        if self.is_alive():
            self._shutdown_latch.wait()

    def await_startup(self) -> None:
        self._startup_latch.wait()

    def startup_complete(self) -> None:
        self._startup_latch.set()

    def shutdown_complete(self) -> None:
        self._shutdown_latch.set()

    @property
    def is_running(self) -> bool:
        return self.alive

    def close(self, sock: socket.socket, address: str | None = None) -> None:
        """Close a socket that never became a connection, and give its address's slot back."""
        if address is None:
            try:
                address = sock.getpeername()[0]
            except OSError:
                address = None
        sock.close()
        if address is not None:
            self.connection_quotas.dec(address)


class Acceptor(AbstractServerThread):
    """Accepts connections on one listener and assigns them round-robin to its processors."""

    def __init__(self, end_point: Any, send_buffer_size: int, recv_buffer_size: int, broker_id: int,
                 processors: Sequence[Processor], connection_quotas: ConnectionQuotas) -> None:
        super().__init__(f"kafka-socket-acceptor-{end_point.listener_name}-{end_point.security_protocol}-"
                         f"{end_point.port}", connection_quotas)
        self.end_point = end_point
        self.send_buffer_size = send_buffer_size
        self.recv_buffer_size = recv_buffer_size
        self.broker_id = broker_id
        self.processors = list(processors)
        self.nio_selector = selectors.DefaultSelector()
        self.server_channel = self.open_server_socket(end_point.host, end_point.port)
        self.bound_port = self.server_channel.getsockname()[1]
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self.connection_rejections = 0

    def start_processors(self) -> None:
        for processor in self.processors:
            processor.start()
            processor.await_startup()

    def run(self) -> None:
        self.nio_selector.register(self.server_channel, selectors.EVENT_READ)
        self.nio_selector.register(self._wakeup_r, selectors.EVENT_READ)
        self.startup_complete()
        current_processor = 0
        try:
            while self.is_running:
                try:
                    for key, _ in self.nio_selector.select(0.5):
                        if key.fileobj is self._wakeup_r:
                            self._wakeup_r.recv(4096)  # shutdown() woke us: the loop condition decides
                            continue
                        if self.accept(self.processors[current_processor]):
                            # round robin to the next processor thread
                            current_processor = (current_processor + 1) % len(self.processors)
                except Exception:
                    # A failure on one connection must not stop the listener for everyone else.
                    log.exception("Error occurred")
        finally:
            log.debug("Closing server socket and selector.")
            self.server_channel.close()
            self.nio_selector.close()
            self.shutdown_complete()

    def open_server_socket(self, host: str | None, port: int) -> socket.socket:
        address = (host or "0.0.0.0", port)
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.recv_buffer_size != -1:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.recv_buffer_size)
        try:
            server.bind(address)
            server.listen(50)
        except OSError as e:
            server.close()
            raise KafkaSocketBindException(f"Socket server failed to bind to {address[0]}:{port}: {e.strerror}.") \
                from e
        server.setblocking(False)
        log.info("Awaiting socket connections on %s:%d.", address[0], server.getsockname()[1])
        return server

    def accept(self, processor: Processor) -> bool:
        try:
            socket_channel, (address, port) = self.server_channel.accept()
        except (BlockingIOError, InterruptedError):
            return False  # another wakeup took it
        with step("NW.acceptor.1", self, processor=processor, channel=socket_channel, address=address, port=port):
            try:
                self.connection_quotas.inc(address)
                socket_channel.setblocking(False)
                socket_channel.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                socket_channel.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
                if self.send_buffer_size != -1:
                    socket_channel.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer_size)
                processor.accept(socket_channel)
                return True
            except TooManyConnectionsException as e:
                log.info("Rejected connection from %s, address already has the configured maximum of %d "
                         "connections.", e.ip, e.count)
                event("NW.acceptor.2", e=e)
                self.connection_rejections += 1
                self.close(socket_channel, address)
                return False

    def wakeup(self) -> None:
        try:
            self._wakeup_w.send(b"\0")
        except OSError:
            pass


class KafkaSocketBindException(Exception):
    """kafka.common.KafkaException raised when a listener cannot bind."""


class Processor(AbstractServerThread):
    """A network thread: reads requests off its connections into the RequestChannel and writes the responses."""

    def __init__(self, id: int, request_channel: RequestChannel, max_request_size: int, listener_name: str,
                 security_protocol: str, connections_max_idle_ms: int, connection_quotas: ConnectionQuotas,
                 api_version_manager: Any = None, channel_builder: Any = None, time: Time = SYSTEM) -> None:
        super().__init__(f"kafka-network-thread-{id}-{listener_name}-{security_protocol}", connection_quotas)
        self.id = id
        self.time = time
        self.request_channel = request_channel
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.api_version_manager = api_version_manager
        self.new_connections: queue.Queue[socket.socket] = queue.Queue()
        self.inflight_responses: dict[str, Response] = {}
        self.max_request_size = max_request_size
        self.connections_max_idle_ms = connections_max_idle_ms
        self.selector = self.create_selector(channel_builder)
        self.next_connection_index = 0
        request_channel.add_processor(id, self.wakeup)

    def create_selector(self, channel_builder: Any) -> Selector:
        """Kafka's createSelector: a hook for tests."""
        return Selector(self.max_request_size, self.connections_max_idle_ms, channel_builder, self.time)

    def run(self) -> None:
        self.startup_complete()
        try:
            while self.is_running:
                try:
                    # connections the acceptor handed over since the last poll
                    self.configure_new_connections()
                    # responses the handlers finished: queue them for writing
                    self.process_new_responses()
                    self.poll()
                    self.process_completed_receives()
                    self.process_completed_sends()
                    self.process_disconnected()
                except Exception as e:
                    # Each connection's failure is handled where it happens; this keeps the thread alive for the rest.
                    self.process_exception("Processor got uncaught exception.", e)
        finally:
            log.debug("Closing selector - processor %d", self.id)
            self.close_all()
            self.request_channel.remove_processor(self.id)
            self.shutdown_complete()

    def process_exception(self, error_message: str, e: BaseException) -> None:
        log.error(error_message, exc_info=e)

    def process_channel_exception(self, channel_id: str, error_message: str, e: BaseException) -> None:
        """One connection failed: close it alone, and the processor goes on with the others."""
        if self.open_or_closing_channel(channel_id) is not None:
            log.error("Closing socket for %s because of error", channel_id, exc_info=e)
            self.close_connection(channel_id)
        self.process_exception(error_message, e)

    @step("NW.processor.2")
    def process_new_responses(self) -> None:
        while (curr := self.request_channel.receive_response(self.id)) is not None:
            channel_id = curr.request.connection_id
            try:
                if curr.response_action == ResponseAction.NO_OP:
                    # No response to write (acks=0 produce): read the connection's next request.
                    curr.request.update_request_metrics(time.time_ns())
                    if (channel := self.open_or_closing_channel(channel_id)) is not None:
                        self.selector.unmute(channel.id)
                elif curr.response_action == ResponseAction.SEND:
                    self.send_response(curr)
                else:
                    curr.request.update_request_metrics(time.time_ns())
                    self.close_connection(channel_id)
            except Exception as e:
                self.process_channel_exception(channel_id, f"Exception while processing response for {channel_id}", e)

    def send_response(self, response: Response) -> None:
        # The connection is gone if the client left, or idled out, while its request was handled.
        connection_id = response.request.connection_id
        if self.channel(connection_id) is None:
            log.warning("Attempting to send response via channel for which there is no open connection, "
                        "connection id %s", connection_id)
            response.request.update_request_metrics(time.time_ns())
        # a closing channel takes the send and fails it: its staged requests are dropped with it
        if self.open_or_closing_channel(connection_id) is not None:
            self.selector.send(connection_id, response.response_send)
            self.inflight_responses[connection_id] = response

    @step("NW.processor.3")
    def poll(self) -> None:
        try:
            self.selector.poll(POLL_TIMEOUT_MS)
        except (IllegalStateException, OSError):
            # not raised again: what this poll completed (receives, sends, disconnections) is still processed
            log.error("Processor %d poll failed due to illegal state or IO exception", self.id)

    def process_completed_receives(self) -> None:
        for receive in self.selector.completed_receives:
            try:
                if self.open_or_closing_channel(receive.source) is None:
                    raise IllegalStateException(f"Channel {receive.source} removed from selector before processing "
                                                f"completed receive")
                req = self.parse_request(receive)
                if req is None:
                    self.close_connection(receive.source)  # Kafka closes the connection on a request it cannot parse
                    continue
                with step("NW.processor.4", self, request=req):
                    # Blocks while the request queue is full: back-pressure reaches the sockets.
                    self.request_channel.send_request(req)
                    # One request at a time per connection: responses leave in the order requests came.
                    self.selector.mute(receive.source)
            except Exception as e:
                self.process_channel_exception(receive.source,
                                               f"Exception while processing request from {receive.source}", e)

    def parse_request(self, receive: NetworkReceive) -> Request | None:
        try:
            decoded = decode_request(receive.payload, None if self.api_version_manager is None
                                     else self.api_version_manager.is_api_enabled)
        except UnsupportedVersionError as e:
            if e.api_key != ApiKeys.API_VERSIONS:
                log.info("Closing connection %s: %s", receive.source, e)
                return None
            # An ApiVersions request newer than the broker still gets an answer, so the client can downgrade.
            return Request(self.id, receive.source, e.api_key, e.api_version, e.correlation_id, e.client_id, None,
                           len(receive.payload), self.listener_name, self.security_protocol,
                           start_time_ns=receive.received_ns)
        except InvalidRequestError as e:
            log.error("Closing socket for %s because of error: %s (first bytes: %s)", receive.source, e,
                      receive.payload[:64].hex())
            return None
        if decoded.api_key in (ApiKeys.FETCH, ApiKeys.LIST_OFFSETS):
            # 1.0.2's FetchRequest and ListOffsetRequest read the isolation level as they parse: an unknown one
            # fails the parse, before any handler sees the request
            try:
                IsolationLevel.for_id(getattr(decoded.body, "isolation_level", IsolationLevel.READ_UNCOMMITTED))
            except IllegalArgumentException as e:
                log.error("Closing socket for %s because of error: %s", receive.source, e)
                return None
        # the principal the channel logged in as travels with the request, to the authorizer
        channel = self.open_or_closing_channel(receive.source)
        return Request(self.id, receive.source, decoded.api_key, decoded.api_version, decoded.correlation_id,
                       decoded.client_id, decoded.body, decoded.size, self.listener_name, self.security_protocol,
                       start_time_ns=receive.received_ns, traceparent=decoded.traceparent,
                       principal=channel.principal())

    @step("NW.processor.5")
    def process_completed_sends(self) -> None:
        for destination in self.selector.completed_sends:
            try:
                resp = self.inflight_responses.pop(destination, None)
                if resp is None:
                    raise IllegalStateException(f"Send for {destination} completed, but not in `inflightResponses`")
                resp.request.update_request_metrics(time.time_ns())
                self.selector.unmute(destination)
            except Exception as e:
                self.process_channel_exception(destination,
                                               f"Exception while processing completed send to {destination}", e)

    @step("NW.processor.6")
    def process_disconnected(self) -> None:
        for connection_id in self.selector.disconnected:
            try:
                parsed = connection_id_from_string(connection_id)
                if parsed is None:
                    raise IllegalStateException(f"connectionId has unexpected format: {connection_id}")
                remote_host = parsed[2]
                resp = self.inflight_responses.pop(connection_id, None)
                if resp is not None:
                    resp.request.update_request_metrics(time.time_ns())
                # the selector closed the channel; its address's slot still has to be given back
                self.connection_quotas.dec(remote_host)
            except Exception as e:
                self.process_exception(f"Exception while processing disconnection of {connection_id}", e)

    def accept(self, socket_channel: socket.socket) -> None:
        """Called by the acceptor thread: queue the socket and wake this processor up."""
        self.new_connections.put(socket_channel)
        self.wakeup()

    @step("NW.processor.1")
    def configure_new_connections(self) -> None:
        while not self.new_connections.empty():
            channel = self.new_connections.get_nowait()
            remote_address = None
            try:
                remote_address = channel.getpeername()[0]
                self.selector.register(self.connection_id(channel), channel)
            except Exception as e:
                # the socket may be closed already: its address, taken before, gives the slot back
                self.close(channel, remote_address)
                self.process_exception(f"Processor {self.id} closed connection from {remote_address}", e)

    def connection_id(self, sock: socket.socket) -> str:
        """localHost:localPort-remoteHost:remotePort-index, the index telling apart connections that reuse ports."""
        local, remote = sock.getsockname(), sock.getpeername()
        connection_id = f"{local[0]}:{local[1]}-{remote[0]}:{remote[1]}-{self.next_connection_index}"
        self.next_connection_index = 0 if self.next_connection_index == 2**31 - 1 else self.next_connection_index + 1
        return connection_id

    @property
    def inflight_response_count(self) -> int:
        return len(self.inflight_responses)

    def open_or_closing_channel(self, connection_id: str) -> Any:
        return self.selector.channel(connection_id) or self.selector.closing_channel(connection_id)

    def channel(self, connection_id: str) -> Any:
        """The open channel of that id, or None."""
        return self.selector.channel(connection_id)

    def num_staged_receives(self, connection_id: str) -> int:
        channel = self.open_or_closing_channel(connection_id)
        return 0 if channel is None else self.selector.num_staged_receives(channel)

    def close_all(self) -> None:
        # Requests whose responses will never be written still end, so no trace is left without its root.
        end_ns = time.time_ns()
        for response in self.inflight_responses.values():
            response.request.update_request_metrics(end_ns)
        self.inflight_responses.clear()
        while (response := self.request_channel.receive_response(self.id)) is not None:
            response.request.update_request_metrics(end_ns)
        for connection_id in list(self.selector.channels):
            self.close_connection(connection_id)
        self.selector.close()

    def close_connection(self, connection_id: str) -> None:
        """Kafka's close(selector, connectionId): close it here and give its address's slot back."""
        channel = self.open_or_closing_channel(connection_id)
        if channel is not None:
            self.connection_quotas.dec(channel.socket_address)
            self.selector.close_connection(connection_id)
            # a response still being written is dropped with its connection
            response = self.inflight_responses.pop(connection_id, None)
            if response is not None:
                response.request.update_request_metrics(time.time_ns())

    def wakeup(self) -> None:
        self.selector.wakeup()


def connection_id_from_string(s: str) -> tuple[str, int, str, int, int] | None:
    """Processor.ConnectionId.fromString: (localHost, localPort, remoteHost, remotePort, index), or None."""
    parts = s.split("-")
    if len(parts) != 3:
        return None
    try:
        (local_host, local_port), (remote_host, remote_port) = (p.rsplit(":", 1) for p in parts[:2])
        return local_host, int(local_port), remote_host, int(remote_port), int(parts[2])
    except ValueError:
        return None


class ConnectionQuotas:
    """Counts open connections per client address against `max.connections.per.ip` and its overrides."""

    def __init__(self, default_max: int, override_quotas: dict[str, int]) -> None:
        self.default_max = default_max
        self.overrides = {socket.gethostbyname(host): count for host, count in override_quotas.items()}
        self.counts: defaultdict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def inc(self, address: str) -> None:
        with self._lock:
            count = self.counts[address]
            self.counts[address] = count + 1
            limit = self.overrides.get(address, self.default_max)
            if count >= limit:
                raise TooManyConnectionsException(address, limit)

    def dec(self, address: str) -> None:
        with self._lock:
            count = self.counts.get(address)
            if count is None:
                raise ValueError(f"Attempted to decrease connection count for address with no connections, {address}")
            if count == 1:
                del self.counts[address]
            else:
                self.counts[address] = count - 1

    def get(self, address: str) -> int:
        with self._lock:
            return self.counts.get(address, 0)


class TooManyConnectionsException(Exception):
    def __init__(self, ip: str, count: int) -> None:
        super().__init__(f"Too many connections from {ip} (maximum = {count})")
        self.ip, self.count = ip, count
