"""Port of core/src/main/scala/kafka/network/SocketServer.scala (Kafka 1.0.2): Acceptor, Processor, ConnectionQuotas.

Threads: one Acceptor per listener hands accepted sockets round-robin to that listener's Processors; each Processor
owns a selector, reads size-prefixed requests into the shared RequestChannel and writes responses back.
"""

from __future__ import annotations

import logging
import queue
import selectors
import socket
import struct
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from kafka_edu.network.request_channel import Request, RequestChannel, Response, ResponseAction
from kafka_edu.protocol.api_keys import ApiKeys
from kafka_edu.protocol.codec import InvalidRequestError, UnsupportedVersionError, decode_request
from kafka_edu.tracing import activate, add_event, end_span, open_span, span, step
from kafka_edu.tracing.step import remote_span_context

log = logging.getLogger("kafka.network.SocketServer")

POLL_TIMEOUT_S = 0.3
_SIZE = struct.Struct(">i")


class TooManyConnectionsException(Exception):
    def __init__(self, ip: str, count: int) -> None:
        super().__init__(f"Too many connections from {ip} (maximum = {count})")
        self.ip, self.count = ip, count


class InvalidReceiveException(Exception):
    """org.apache.kafka.common.network.InvalidReceiveException: a frame size the broker refuses."""


class ConnectionQuotas:
    """Counts open connections per client address against `max.connections.per.ip` and its overrides."""

    def __init__(self, default_max: int, override_quotas: dict[str, int]) -> None:
        self.default_max = default_max
        self.overrides = {socket.gethostbyname(host): count for host, count in override_quotas.items()}
        self.counts: defaultdict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def inc(self, address: str) -> None:
        with self._lock:
            count = self.counts[address] + 1
            self.counts[address] = count
            limit = self.overrides.get(address, self.default_max)
            if count > limit:
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


class AbstractServerThread(threading.Thread):
    """Startup/shutdown latches shared by the acceptor and processor threads."""

    def __init__(self, name: str, connection_quotas: ConnectionQuotas) -> None:
        super().__init__(name=name, daemon=True)
        self.connection_quotas = connection_quotas
        self._startup_latch = threading.Event()
        self._shutdown_latch = threading.Event()
        self.alive = True
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)

    def startup_complete(self) -> None:
        self._startup_latch.set()

    def await_startup(self) -> None:
        self._startup_latch.wait()

    def shutdown_complete(self) -> None:
        self._shutdown_latch.set()

    def shutdown(self) -> None:
        self.alive = False
        self.wakeup()
        if self.is_alive():
            self._shutdown_latch.wait()

    def wakeup(self) -> None:
        try:
            self._wakeup_w.send(b"\0")
        except (BlockingIOError, OSError):
            pass  # a wakeup is already pending, or the thread is gone

    def _drain_wakeups(self) -> None:
        try:
            while self._wakeup_r.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def close_socket(self, sock: socket.socket, address: str | None = None) -> None:
        """Close and give the address's connection slot back (a reset socket no longer knows its peer)."""
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
        self.server_channel = self.open_server_socket(end_point.host, end_point.port)
        self.bound_port = self.server_channel.getsockname()[1]
        self.connection_rejections = 0

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

    def start_processors(self) -> None:
        for processor in self.processors:
            processor.start()
            processor.await_startup()

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self.server_channel, selectors.EVENT_READ)
        selector.register(self._wakeup_r, selectors.EVENT_READ)
        self.startup_complete()
        current_processor = 0
        try:
            while self.alive:
                for key, _ in selector.select(0.5):
                    if key.fileobj is self._wakeup_r:
                        self._drain_wakeups()
                        continue
                    # round robin over this listener's processors
                    if self.accept(self.processors[current_processor % len(self.processors)]):
                        current_processor += 1
        finally:
            log.debug("Closing server socket and selector.")
            selector.close()
            self.server_channel.close()
            self.shutdown_complete()

    def accept(self, processor: Processor) -> bool:
        try:
            sock, (address, port) = self.server_channel.accept()
        except (BlockingIOError, InterruptedError):
            return False
        with step("NW.acceptor.1", {"kafka.client.address": f"{address}:{port}", "kafka.processor.id": processor.id,
                                    "kafka.listener": self.end_point.listener_name}, root=True) as accept_span:
            try:
                self.connection_quotas.inc(address)
                sock.setblocking(False)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
                if self.send_buffer_size != -1:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer_size)
                processor.accept(sock, accept_span.get_span_context())
                return True
            except TooManyConnectionsException as e:
                log.info("Rejected connection from %s, address already has the configured maximum of %d "
                         "connections.", e.ip, e.count)
                add_event(accept_span, "connection.rejected", {"kafka.step": "NW.acceptor.2", "kafka.client.ip": e.ip,
                                                               "kafka.connections.max": e.count})
                self.connection_rejections += 1
                self.close_socket(sock)
                return False


class KafkaSocketBindException(Exception):
    """kafka.common.KafkaException raised when a listener cannot bind."""


class KafkaChannel:
    """One client connection: partial reads and writes, and whether reading is muted."""

    def __init__(self, connection_id: str, sock: socket.socket, max_receive_size: int) -> None:
        self.id = connection_id
        self.socket = sock
        self.max_receive_size = max_receive_size
        self.receive_buffer = bytearray()
        self.send_buffer = memoryview(b"")
        self.muted = False
        self.last_activity = time.monotonic()
        self.address = sock.getpeername()[0]

    def read(self) -> bool:
        """Take what the socket has into the receive buffer; False when the peer closed the connection."""
        try:
            data = self.socket.recv(65536)
        except (BlockingIOError, InterruptedError):
            return True
        if not data:
            return False
        self.last_activity = time.monotonic()
        self.receive_buffer += data
        return True

    def next_frame(self) -> bytes | None:
        """The next whole size-prefixed request in the buffer, if one has fully arrived."""
        if len(self.receive_buffer) < 4:
            return None
        (size,) = _SIZE.unpack_from(self.receive_buffer)
        if size < 0 or size > self.max_receive_size:
            raise InvalidReceiveException(f"Invalid receive (size = {size} larger than {self.max_receive_size})"
                                          if size >= 0 else f"Invalid receive (size = {size})")
        if len(self.receive_buffer) < 4 + size:
            return None
        frame = bytes(self.receive_buffer[4:4 + size])
        del self.receive_buffer[:4 + size]
        return frame

    def write(self) -> bool:
        """Write what the socket takes; True when the whole pending send is out."""
        if self.send_buffer:
            try:
                sent = self.socket.send(self.send_buffer)
            except (BlockingIOError, InterruptedError):
                return False
            self.send_buffer = self.send_buffer[sent:]
            self.last_activity = time.monotonic()
        return not self.send_buffer


class Processor(AbstractServerThread):
    """A network thread: reads requests off its connections into the RequestChannel and writes the responses."""

    def __init__(self, id: int, request_channel: RequestChannel, max_request_size: int, listener_name: str,
                 security_protocol: str, connections_max_idle_ms: int, connection_quotas: ConnectionQuotas) -> None:
        super().__init__(f"kafka-network-thread-{id}-{listener_name}-{security_protocol}", connection_quotas)
        self.id = id
        self.request_channel = request_channel
        self.max_request_size = max_request_size
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.connections_max_idle_s = connections_max_idle_ms / 1000
        self.new_connections: queue.Queue[tuple[socket.socket, Any]] = queue.Queue()
        self.selector = selectors.DefaultSelector()
        self.channels: dict[str, KafkaChannel] = {}
        self.inflight_responses: dict[str, Any] = {}
        self.completed_receives: list[tuple[KafkaChannel, bytes, int]] = []
        self.completed_sends: list[KafkaChannel] = []
        self.disconnected: list[KafkaChannel] = []
        request_channel.add_processor(id, self.wakeup)

    def accept(self, sock: socket.socket, accept_context: Any = None) -> None:
        """Called by the acceptor thread: queue the socket and wake this processor up."""
        self.new_connections.put((sock, accept_context))
        self.wakeup()

    def run(self) -> None:
        self.selector.register(self._wakeup_r, selectors.EVENT_READ)
        self.startup_complete()
        try:
            while self.alive:
                try:
                    self.configure_new_connections()
                    self.process_new_responses()
                    self.poll()
                    self.process_completed_receives()
                    self.process_completed_sends()
                    self.process_disconnected()
                except Exception:
                    # One bad connection must not take the thread, and with it every other connection, down.
                    log.exception("Processor %d got uncaught exception.", self.id)
        finally:
            log.debug("Closing selector - processor %d", self.id)
            self.close_all()
            self.request_channel.remove_processor(self.id)
            self.shutdown_complete()

    def configure_new_connections(self) -> None:
        if self.new_connections.empty():
            return
        accepted = []
        while not self.new_connections.empty():
            accepted.append(self.new_connections.get_nowait())
        with step("NW.processor.1", {"kafka.processor.id": self.id, "kafka.connections": len(accepted)}, root=True,
                  links=[ctx for _, ctx in accepted if ctx is not None]):
            for sock, _ in accepted:
                try:
                    local, remote = sock.getsockname(), sock.getpeername()
                    connection_id = f"{local[0]}:{local[1]}-{remote[0]}:{remote[1]}"
                    channel = KafkaChannel(connection_id, sock, self.max_request_size)
                    self.channels[connection_id] = channel
                    self.selector.register(sock, selectors.EVENT_READ, channel)
                except OSError as e:
                    log.error("Processor %d closed connection from %s: %s", self.id, sock, e)
                    self.close_socket(sock)

    def process_new_responses(self) -> None:
        responses = []
        while (response := self.request_channel.receive_response(self.id)) is not None:
            responses.append(response)
        if not responses:
            return
        with step("NW.processor.2", {"kafka.processor.id": self.id, "kafka.responses": len(responses)}, root=True,
                  links=[r.request.trace_root.get_span_context() for r in responses if r.request.trace_root]):
            for response in responses:
                channel = self.channels.get(response.request.connection_id)
                if channel is None:
                    self.complete_request(response.request)  # the client went away while its request was handled
                elif response.response_action == ResponseAction.NO_OP:
                    # No response for this request (acks=0 produce): read the connection's next request.
                    self.complete_request(response.request)
                    self.unmute(channel)
                elif response.response_action == ResponseAction.SEND:
                    self.send_response(channel, response)
                else:
                    self.complete_request(response.request)
                    self.close(channel)

    def send_response(self, channel: KafkaChannel, response: Response) -> None:
        request = response.request
        with activate(request.trace_root), span("Processor.sendResponse", {"kafka.connection.id": channel.id,
                                                                          "kafka.response.bytes": len(
                                                                              response.response_send)}):
            channel.send_buffer = memoryview(_SIZE.pack(len(response.response_send)) + response.response_send)
            self.inflight_responses[channel.id] = response
            self.update_interest(channel)

    def poll(self) -> None:
        timeout = 0 if self.new_connections.qsize() or self.completed_receives else POLL_TIMEOUT_S
        started = time.time_ns()
        events = self.selector.select(timeout)
        work = [(key, mask) for key, mask in events if key.fileobj is not self._wakeup_r]
        if len(work) < len(events):
            self._drain_wakeups()
        if work:
            # Only polls that found work are traced; the span covers the poll and the reads it led to.
            poll_span = open_span("Processor.poll", {"kafka.processor.id": self.id, "kafka.ready.keys": len(work)},
                                  step_id="NW.processor.3", start_time_ns=started)
            with activate(poll_span):
                self.handle_ready_keys(work)
            end_span(poll_span)
        self.close_idle_connections()

    def handle_ready_keys(self, ready: list[tuple[selectors.SelectorKey, int]]) -> None:
        for key, mask in ready:
            channel: KafkaChannel = key.data
            try:
                if mask & selectors.EVENT_READ:
                    if not channel.read():
                        self.disconnected.append(channel)
                        continue
                    self.stage_receive(channel)
                if mask & selectors.EVENT_WRITE and channel.write():
                    self.completed_sends.append(channel)
            except (InvalidReceiveException, OSError) as e:
                log.info("Processor %d closing connection %s: %s", self.id, channel.id, e)
                self.disconnected.append(channel)

    def stage_receive(self, channel: KafkaChannel) -> None:
        """Hand over at most one request of an unmuted channel; the rest wait in its buffer."""
        if not channel.muted and (frame := channel.next_frame()) is not None:
            self.completed_receives.append((channel, frame, time.time_ns()))
            self.mute(channel)  # one request at a time per connection: Kafka's ordering guarantee

    def close_idle_connections(self) -> None:
        idle_deadline = time.monotonic() - self.connections_max_idle_s
        for channel in list(self.channels.values()):
            if channel.last_activity < idle_deadline and channel.id not in self.inflight_responses:
                log.debug("Closing idle connection %s", channel.id)
                self.disconnected.append(channel)

    def process_completed_receives(self) -> None:
        receives, self.completed_receives = self.completed_receives, []
        for channel, frame, received_ns in receives:
            if channel.id not in self.channels:
                continue
            request = self.parse_request(channel, frame, received_ns)
            if request is None:
                self.close(channel)  # Kafka closes the connection on a request it cannot parse
                continue
            request.trace_root = open_span("RequestChannel.Request", {
                "kafka.api.key": request.api_key, "kafka.api.name": ApiKeys.for_key(request.api_key).api_name,
                "kafka.api.version": request.api_version, "kafka.correlation_id": request.correlation_id,
                "kafka.client.id": request.client_id, "kafka.connection.id": channel.id,
                "kafka.processor.id": self.id, "kafka.request.bytes": request.size,
                **({"kafka.traceparent": request.traceparent} if request.traceparent else {})},
                links=[c for c in [remote_span_context(request.traceparent)] if c is not None],
                start_time_ns=received_ns)
            with activate(request.trace_root), step("NW.processor.4", {"kafka.processor.id": self.id}):
                # Blocks while the request queue is full: back-pressure reaches the sockets.
                self.request_channel.send_request(request)

    def parse_request(self, channel: KafkaChannel, frame: bytes, received_ns: int) -> Request | None:
        try:
            decoded = decode_request(frame)
        except UnsupportedVersionError as e:
            if e.api_key != ApiKeys.API_VERSIONS:
                log.info("Closing connection %s: %s", channel.id, e)
                return None
            # An ApiVersions request newer than the broker still gets an answer, so the client can downgrade.
            return Request(self.id, channel.id, e.api_key.id, e.api_version, e.correlation_id, e.client_id, None,
                           len(frame), self.listener_name, self.security_protocol, start_time_ns=received_ns)
        except InvalidRequestError as e:
            log.error("Closing connection %s due to an unparseable request: %s (first bytes: %s)", channel.id, e,
                      frame[:64].hex())
            return None
        return Request(self.id, channel.id, decoded.api_key.id, decoded.api_version, decoded.correlation_id,
                       decoded.client_id, decoded.body, decoded.size, self.listener_name, self.security_protocol,
                       start_time_ns=received_ns, traceparent=decoded.traceparent)

    def process_completed_sends(self) -> None:
        sends, self.completed_sends = self.completed_sends, []
        if not sends:
            return
        with step("NW.processor.5", {"kafka.processor.id": self.id, "kafka.sends": len(sends)}, root=True):
            for channel in sends:
                response = self.inflight_responses.pop(channel.id, None)
                if response is not None:
                    self.complete_request(response.request)
                self.unmute(channel)

    def process_disconnected(self) -> None:
        disconnected, self.disconnected = self.disconnected, []
        disconnected = [channel for channel in dict.fromkeys(disconnected) if channel.id in self.channels]
        if not disconnected:
            return
        with step("NW.processor.6", {"kafka.processor.id": self.id, "kafka.disconnected": len(disconnected)},
                  root=True):
            for channel in disconnected:
                response = self.inflight_responses.pop(channel.id, None)
                if response is not None:
                    self.complete_request(response.request)
                self.close(channel)

    @staticmethod
    def complete_request(request: Request) -> None:
        """The request's life ends: its metrics go on its root span, which ends now."""
        end_ns = time.time_ns()
        end_span(request.trace_root, request.request_metrics(end_ns), end_ns)

    def mute(self, channel: KafkaChannel) -> None:
        channel.muted = True
        self.update_interest(channel)

    def unmute(self, channel: KafkaChannel) -> None:
        channel.muted = False
        self.update_interest(channel)
        try:
            self.stage_receive(channel)  # a request that arrived while muted is already buffered
        except InvalidReceiveException as e:
            log.info("Processor %d closing connection %s: %s", self.id, channel.id, e)
            self.disconnected.append(channel)

    def update_interest(self, channel: KafkaChannel) -> None:
        """Read while unmuted, write while a response is pending; a muted idle channel is not polled at all."""
        events = (0 if channel.muted else selectors.EVENT_READ) | (selectors.EVENT_WRITE if channel.send_buffer else 0)
        registered = _is_registered(self.selector, channel.socket)
        if not events:
            if registered:
                self.selector.unregister(channel.socket)
        elif registered:
            self.selector.modify(channel.socket, events, channel)
        else:
            self.selector.register(channel.socket, events, channel)

    def close(self, channel: KafkaChannel) -> None:
        if self.channels.pop(channel.id, None) is None:
            return  # already closed
        if _is_registered(self.selector, channel.socket):
            self.selector.unregister(channel.socket)
        self.close_socket(channel.socket, channel.address)

    def close_all(self) -> None:
        # Requests whose responses will never be written still end, so no trace is left without its root.
        for response in self.inflight_responses.values():
            self.complete_request(response.request)
        self.inflight_responses.clear()
        while (response := self.request_channel.receive_response(self.id)) is not None:
            self.complete_request(response.request)
        for channel in list(self.channels.values()):
            self.close(channel)
        self.selector.close()


class SocketServer:
    """Listeners, their acceptors and processors, and the RequestChannel between them and the request handlers."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.end_points = config.listeners
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

    def startup(self, startup_processors: bool = True) -> None:
        """Bind every listener and start its acceptor; processors start now or in `start_processors`."""
        self.connection_quotas = ConnectionQuotas(self.max_connections_per_ip, self.max_connections_per_ip_overrides)
        processor_begin_index = 0
        for end_point in self.end_points:
            processor_end_index = processor_begin_index + self.num_processor_threads
            listener_processors = [self.new_processor(i, end_point) for i in range(processor_begin_index,
                                                                                   processor_end_index)]
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

    def new_processor(self, id: int, end_point: Any) -> Processor:
        return Processor(id, self.request_channel, self.max_request_size, end_point.listener_name,
                         end_point.security_protocol, self.connections_max_idle_ms, self.connection_quotas)

    def start_processors(self) -> None:
        for acceptor in self.acceptors.values():
            acceptor.start_processors()
        log.info("Started processors for %d acceptors", len(self.acceptors))

    def bound_port(self, listener_name: str) -> int:
        return self.acceptors[listener_name].bound_port

    def stop_processing_requests(self) -> None:
        """Stop accepting connections and reading requests; the request channel stays for the shutdown."""
        log.info("Stopping socket server request processors")
        for acceptor in self.acceptors.values():
            acceptor.shutdown()
        for processor in self.processors.values():
            processor.shutdown()
        self.request_channel.clear()
        log.info("Stopped socket server request processors")

    def shutdown(self) -> None:
        log.info("Shutting down socket server")
        self.request_channel.shutdown()
        log.info("Shutdown completed")


def _is_registered(selector: selectors.BaseSelector, sock: socket.socket) -> bool:
    try:
        selector.get_key(sock)
        return True
    except (KeyError, ValueError):
        return False
