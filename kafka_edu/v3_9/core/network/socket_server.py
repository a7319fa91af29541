"""Port of core/src/main/scala/kafka/network/SocketServer.scala (Kafka 3.9): SocketServer, DataPlaneAcceptor, Acceptor,
Processor and ConnectionQuotas, over the 3.9 network layer (kafka_edu/v3_9/clients/common/network/).

Threads: one Acceptor per listener accepts connections and hands each to the next of its Processors that has room in
its 20-slot connection queue (blocking only on the last one tried); each Processor drives a Selector, puts whole
requests on the shared RequestChannel and writes back the responses the handlers queue in it. Nothing listens until
`enable_request_processing` (the broker calls it once it is unfenced), except a port-0 listener, which binds early
so that its port is known.

Left out, with the reason:
- connection-rate quotas (`max.connection.creation.rate`, per-IP rates, the throttled sockets they park): they are
  Kafka Metrics Sensors with a Rate and a Quota, and the 3.9 tree has no metrics library. The connection counts and
  their limits (per IP, per listener, broker-wide, the protected inter-broker listener) are ported.
- the control-plane listener (ControlPlaneAcceptor): `control.plane.listener.name` is ZooKeeper mode only.
- metrics and gauges (Yammer, Kafka Metrics), dynamic reconfiguration registration (`config.addReconfigurable`:
  the port has no DynamicBrokerConfig; `reconfigure` methods are kept for it), SASL re-authentication beyond what
  KafkaChannel does (only PLAINTEXT channels are ported).
"""

from __future__ import annotations

import queue
import re
import socket
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from kafka_edu.tracing import event, step
from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidRequestException,
    KafkaException,
)
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.memory.memory_pool import MemoryPool
from kafka_edu.v3_9.clients.common.memory.simple_memory_pool import SimpleMemoryPool
from kafka_edu.v3_9.clients.common.network.channel_builder import ChannelBuilder
from kafka_edu.v3_9.clients.common.network.channel_builders import server_channel_builder
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.java_nio import (
    SelectionKey,
    ServerSocketChannel,
    SocketChannel,
)
from kafka_edu.v3_9.clients.common.network.java_nio import Selector as NioSelector
from kafka_edu.v3_9.clients.common.network.java_nio import Socket as JavaSocket
from kafka_edu.v3_9.clients.common.network.kafka_channel import ChannelMuteEvent, KafkaChannel
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend
from kafka_edu.v3_9.clients.common.network.selectable import USE_DEFAULT_BUFFER_SIZE
from kafka_edu.v3_9.clients.common.network.selector import Selector as KSelector
from kafka_edu.v3_9.clients.common.network.send import Send
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.network.request_channel import (
    CloseConnectionResponse,
    EndThrottlingResponse,
    NoOpResponse,
    Request,
    RequestChannel,
    Response,
    SendResponse,
    StartThrottlingResponse,
)
from kafka_edu.v3_9.core.server.api_version_manager import ApiVersionManager, ListenerType
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture

INT_MAX = 2**31 - 1

# SocketServerConfigs
MAX_CONNECTIONS_PER_IP_CONFIG = "max.connections.per.ip"
MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG = "max.connections.per.ip.overrides"
MAX_CONNECTIONS_CONFIG = "max.connections"
MAX_CONNECTION_CREATION_RATE_CONFIG = "max.connection.creation.rate"
NUM_NETWORK_THREADS_CONFIG = "num.network.threads"

RECONFIGURABLE_CONFIGS = frozenset({MAX_CONNECTIONS_PER_IP_CONFIG, MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG,
                                    MAX_CONNECTIONS_CONFIG, MAX_CONNECTION_CREATION_RATE_CONFIG})
LISTENER_RECONFIGURABLE_CONFIGS = frozenset({MAX_CONNECTIONS_CONFIG, MAX_CONNECTION_CREATION_RATE_CONFIG})


def listener_configs(config: Any, listener_name: ListenerName) -> dict[str, Any]:
    """config.valuesWithPrefixOverride(listenerName.configPrefix), for the configs a listener reads: each
    `listener.name.<listener>.<name>` value, else the broker's."""
    broker_values = {MAX_CONNECTIONS_CONFIG: config.max_connections,
                     MAX_CONNECTION_CREATION_RATE_CONFIG: config.max_connection_creation_rate,
                     NUM_NETWORK_THREADS_CONFIG: config.num_network_threads}
    originals = config.originals()
    return {name: originals.get(listener_name.config_prefix() + name, value) for name, value in broker_values.items()}


class TooManyConnectionsException(KafkaException):
    """org.apache.kafka.network.TooManyConnectionsException: the address is at its `max.connections.per.ip`."""

    def __init__(self, ip: str, count: int) -> None:
        super().__init__(f"Too many connections from {ip} (maximum = {count})")
        self.ip = ip
        self.count = count


class ClosedChannelException(OSError):
    """java.nio.channels.ClosedChannelException: the acceptor was shut down before it started."""


def _all_of(futures: Iterable[CompletableFuture[Any]], result: CompletableFuture[Any]) -> None:
    """FutureUtils.chainFuture(CompletableFuture.allOf(futures), result): `result` completes when all have, or
    exceptionally with the first failure met."""
    pending = list(futures)
    if not pending:
        result.complete(None)
        return
    remaining = [len(pending)]
    lock = threading.Lock()

    def done(_value: Any, exception: BaseException | None) -> None:
        if exception is not None:
            result.complete_exceptionally(exception)
            return
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            result.complete(None)

    for future in pending:
        future.when_complete(done)


def _listener_name(end_point: Any) -> ListenerName:
    return ListenerName(end_point.listener_name)


def _security_protocol(end_point: Any) -> SecurityProtocol:
    return SecurityProtocol.for_name(end_point.security_protocol)


class SocketServer:
    """Handles new connections, requests and responses to and from the broker (or controller): one acceptor per
    listener, N processors per acceptor, M handler threads behind the request channel."""

    @step("RQ.net.1")
    def __init__(self, config: Any, metrics: Any = None, time: Time = SYSTEM, credential_provider: Any = None,
                 api_version_manager: ApiVersionManager | None = None) -> None:
        self.config = config
        self.metrics = metrics
        self.time = time
        self.credential_provider = credential_provider
        self.api_version_manager = api_version_manager
        self._max_queued_requests = config.queued_max_requests
        self.node_id: int = config.broker_id
        listener_type = api_version_manager.listener_type if api_version_manager is not None else ListenerType.BROKER
        self.log_context = f"[SocketServer listenerType={listener_type.name}, nodeId={self.node_id}] "
        self.log = Logging("kafka.network.SocketServer", self.log_context)
        self.memory_pool: MemoryPool = (
            SimpleMemoryPool(config.queued_max_bytes, config.socket_request_max_bytes, False, None)
            if config.queued_max_bytes > 0 else memory_pools.NONE)
        # data-plane
        self.data_plane_acceptors: dict[Any, DataPlaneAcceptor] = {}
        self.data_plane_request_channel = RequestChannel(self._max_queued_requests, DATA_PLANE_METRIC_PREFIX, time)
        # control-plane: ZooKeeper mode only, not ported
        self.control_plane_request_channel_opt: RequestChannel | None = None

        self._next_processor_id = 0
        self._lock = threading.RLock()
        self.connection_quotas = ConnectionQuotas(config, time, metrics)

        # completed once all the authorizer futures are: the start signal of listeners without their own future
        self._all_authorizer_futures_complete: CompletableFuture[None] = CompletableFuture()

        # True once stopped; under the lock
        self._stopped = False

        # The statically configured listeners: their acceptors and processors, not yet started.
        if listener_type is ListenerType.CONTROLLER:
            for end_point in config.controller_listeners:
                self._create_data_plane_acceptor_and_processors(end_point)
        else:
            for end_point in config.data_plane_listeners:
                self._create_data_plane_acceptor_and_processors(end_point)

    def next_processor_id(self) -> int:
        """Processor ids are numbered across listeners, as before acceptors created their processors."""
        with self._lock:
            processor_id = self._next_processor_id
            self._next_processor_id += 1
            return processor_id

    @step("RQ.net.2")
    def enable_request_processing(self, authorizer_futures: Mapping[Any, CompletableFuture[Any]]
                                  ) -> CompletableFuture[None]:
        """Start each listener once its authorizer future (matched by listener name) completes, or once all do if
        it has none. The future returned completes when every acceptor has started, or fails with the first that
        could not."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("Can't enable request processing: SocketServer is stopped.")

            def chain_acceptor_future(acceptor: Acceptor) -> None:
                # ephemeral ports: acceptors are matched to futures by listener name, not by endpoint
                authorizer_future = next(
                    (future for end_point, future in authorizer_futures.items()
                     if acceptor.end_point.listener_name == end_point.listener_name),
                    self._all_authorizer_futures_complete)

                def start_acceptor(_value: Any, e: BaseException | None) -> None:
                    if e is not None:
                        # the authorizer failed to start: so does the listener
                        acceptor.started_future.complete_exceptionally(e)
                    else:
                        acceptor.start()
                authorizer_future.when_complete(start_acceptor)

            self.log.info("Enabling request processing.")
            for acceptor in list(self.data_plane_acceptors.values()):
                chain_acceptor_future(acceptor)
            _all_of(authorizer_futures.values(), self._all_authorizer_futures_complete)

            enable_future: CompletableFuture[None] = CompletableFuture()
            _all_of([acceptor.started_future for acceptor in self.data_plane_acceptors.values()], enable_future)
            return enable_future

    def _create_data_plane_acceptor_and_processors(self, end_point: Any) -> None:
        with self._lock:
            if self._stopped:
                raise RuntimeError("Can't create new data plane acceptor and processors: SocketServer is stopped.")
            listener_name = _listener_name(end_point)
            parsed_configs = listener_configs(self.config, listener_name)
            self.connection_quotas.add_listener(self.config, listener_name)
            is_privileged_listener = (self.control_plane_request_channel_opt is None
                                      and self.config.inter_broker_listener_name == end_point.listener_name)
            data_plane_acceptor = self.create_data_plane_acceptor(end_point, is_privileged_listener,
                                                                  self.data_plane_request_channel)
            data_plane_acceptor.configure(parsed_configs)
            self.data_plane_acceptors[end_point] = data_plane_acceptor
            self.log.info("Created data-plane acceptor and processors for endpoint : %s", listener_name)

    def _endpoints(self) -> dict[str, Any]:
        return {end_point.listener_name: end_point for end_point in self.config.listeners}

    def create_data_plane_acceptor(self, end_point: Any, is_privileged_listener: bool,
                                   request_channel: RequestChannel) -> DataPlaneAcceptor:
        """A hook for tests (Kafka's protected createDataPlaneAcceptor)."""
        return DataPlaneAcceptor(self, end_point, self.config, self.node_id, self.connection_quotas, self.time,
                                 is_privileged_listener, request_channel, self.metrics, self.credential_provider,
                                 self.log_context, self.memory_pool, self.api_version_manager)

    def stop_processing_requests(self) -> None:
        """Stop accepting connections and reading requests; the request channel stays for the shutdown."""
        with self._lock:
            if not self._stopped:
                self._stopped = True
                self.log.info("Stopping socket server request processors")
                for acceptor in self.data_plane_acceptors.values():
                    acceptor.begin_shutdown()
                for acceptor in self.data_plane_acceptors.values():
                    acceptor.close()
                self.data_plane_request_channel.clear()
                self.log.info("Stopped socket server request processors")

    def shutdown(self) -> None:
        """Shut down; stops processing requests first if it still does."""
        self.log.info("Shutting down socket server")
        self._all_authorizer_futures_complete.complete_exceptionally(TimeoutError(
            "The socket server was shut down before the Authorizer could be completely initialized."))
        with self._lock:
            self.stop_processing_requests()
            self.data_plane_request_channel.shutdown()
            self.connection_quotas.close()
        self.log.info("Shutdown completed")

    def bound_port(self, listener_name: ListenerName | str) -> int:
        name = listener_name.value() if isinstance(listener_name, ListenerName) else listener_name
        try:
            acceptor = self.data_plane_acceptors.get(self._endpoints()[name])
            if acceptor is None:
                raise KafkaException(f"Could not find listenerName : {name} in data-plane")
            return acceptor.local_port
        except Exception as e:
            raise KafkaException("Tried to check for port of non-existing protocol") from e

    def add_listeners(self, listeners_added: Iterable[Any]) -> None:
        """Dynamically added listeners start once all authorizer futures are complete."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("can't add new listeners: SocketServer is stopped.")
            listeners_added = list(listeners_added)
            self.log.info("Adding data-plane listeners for endpoints %s", listeners_added)
            for end_point in listeners_added:
                self._create_data_plane_acceptor_and_processors(end_point)
                acceptor = self.data_plane_acceptors[end_point]

                def start_acceptor(_value: Any, e: BaseException | None, acceptor: Acceptor = acceptor) -> None:
                    if e is not None:
                        acceptor.started_future.complete_exceptionally(e)
                    else:
                        acceptor.start()
                self._all_authorizer_futures_complete.when_complete(start_acceptor)

    def remove_listeners(self, listeners_removed: Iterable[Any]) -> None:
        with self._lock:
            listeners_removed = list(listeners_removed)
            self.log.info("Removing data-plane listeners for endpoints %s", listeners_removed)
            for end_point in listeners_removed:
                self.connection_quotas.remove_listener(self.config, _listener_name(end_point))
                acceptor = self.data_plane_acceptors.pop(end_point, None)
                if acceptor is not None:
                    acceptor.begin_shutdown()
                    acceptor.close()

    def reconfigurable_configs(self) -> frozenset[str]:
        return RECONFIGURABLE_CONFIGS

    def validate_reconfiguration(self, new_config: Any) -> None:
        pass

    def reconfigure(self, old_config: Any, new_config: Any) -> None:
        max_connections_per_ip = new_config.max_connections_per_ip
        if max_connections_per_ip != old_config.max_connections_per_ip:
            self.log.info("Updating maxConnectionsPerIp: %d", max_connections_per_ip)
            self.connection_quotas.update_max_connections_per_ip(max_connections_per_ip)
        max_connections_per_ip_overrides = new_config.max_connections_per_ip_overrides
        if max_connections_per_ip_overrides != old_config.max_connections_per_ip_overrides:
            self.log.info("Updating maxConnectionsPerIpOverrides: %s",
                          ",".join(f"{k}={v}" for k, v in max_connections_per_ip_overrides.items()))
            self.connection_quotas.update_max_connections_per_ip_override(max_connections_per_ip_overrides)
        max_connections = new_config.max_connections
        if max_connections != old_config.max_connections:
            self.log.info("Updating broker-wide maxConnections: %d", max_connections)
            self.connection_quotas.update_broker_max_connections(max_connections)

    def connection_count(self, address: str) -> int:
        """For tests."""
        return 0 if self.connection_quotas is None else self.connection_quotas.get(address)

    def data_plane_acceptor(self, listener_name: str) -> DataPlaneAcceptor | None:
        """For tests."""
        for end_point, acceptor in self.data_plane_acceptors.items():
            if end_point.listener_name == listener_name:
                return acceptor
        return None


def close_socket(channel: SocketChannel, log: Any) -> None:
    """SocketServer.closeSocket: errors are logged, not raised."""
    for close in (channel.socket().close, channel.close):
        try:
            close()
        except Exception:
            log.error("Error closing socket", exc_info=True)


DATA_PLANE_THREAD_PREFIX = "data-plane"
DATA_PLANE_METRIC_PREFIX = ""
DATA_PLANE_LISTENER_RECONFIGURABLE_CONFIGS = frozenset({NUM_NETWORK_THREADS_CONFIG})


class Acceptor:
    """A thread that accepts and configures new connections on one listener."""

    def __init__(self, socket_server: SocketServer, end_point: Any, config: Any, node_id: int,
                 connection_quotas: ConnectionQuotas, time: Time, is_privileged_listener: bool,
                 request_channel: RequestChannel, metrics: Any, credential_provider: Any, log_context: str,
                 memory_pool: MemoryPool, api_version_manager: ApiVersionManager | None) -> None:
        self.socket_server = socket_server
        self.end_point = end_point
        self.config = config
        self.node_id = node_id
        self.connection_quotas = connection_quotas
        self.time = time
        self.is_privileged_listener = is_privileged_listener
        self.request_channel = request_channel
        self.metrics = metrics
        self.credential_provider = credential_provider
        self.log_context = log_context
        self.memory_pool = memory_pool
        self.api_version_manager = api_version_manager
        self.log = Logging("kafka.network.Acceptor", log_context)
        self.listener_name = _listener_name(end_point)
        self.security_protocol = _security_protocol(end_point)

        self.should_run = AtomicBoolean(True)

        self._send_buffer_size = config.socket_send_buffer_bytes
        self._recv_buffer_size = config.socket_receive_buffer_bytes
        self._listen_backlog_size = config.socket_listen_backlog_size

        self._nio_selector = NioSelector.open()

        # Port 0: open the socket now to learn the port. Otherwise open it in start(), so that an open port means
        # a broker ready to serve.
        self.server_channel: ServerSocketChannel | None = None
        if end_point.port != 0:
            self.local_port = end_point.port
        else:
            self.server_channel = self._open_server_socket(end_point.host, end_point.port, self._listen_backlog_size)
            self.local_port = self.server_channel.socket().get_local_port()
            self.log.info("Opened wildcard endpoint %s:%d", end_point.host, self.local_port)

        self.processors: list[Processor] = []
        self._current_processor_index = 0
        self._lock = threading.RLock()
        self._started = AtomicBoolean(False)
        self.started_future: CompletableFuture[None] = CompletableFuture()

        # non-daemon in Kafka; a daemon here so that a test that fails before shutdown cannot hang the interpreter
        self.thread = threading.Thread(
            target=self.run, daemon=True,
            name=f"{self.thread_prefix()}-kafka-socket-acceptor-{end_point.listener_name}-"
                 f"{end_point.security_protocol}-{end_point.port}")

    def metric_prefix(self) -> str:
        raise NotImplementedError

    def thread_prefix(self) -> str:
        raise NotImplementedError

    def start(self) -> None:
        with self._lock:
            try:
                if not self.should_run.get():
                    raise ClosedChannelException()
                if self.server_channel is None:
                    self.server_channel = self._open_server_socket(self.end_point.host, self.end_point.port,
                                                                   self._listen_backlog_size)
                    self.log.debug("Opened endpoint %s:%d", self.end_point.host, self.end_point.port)
                self.log.debug("Starting processors for listener %s", self.listener_name)
                for processor in self.processors:
                    processor.start()
                self.log.debug("Starting acceptor thread for listener %s", self.listener_name)
                self.thread.start()
                self.started_future.complete(None)
                self._started.set(True)
            except ClosedChannelException as e:
                self.log.debug("Refusing to start acceptor for %s since the acceptor has already been shut down.",
                               self.listener_name)
                self.started_future.complete_exceptionally(e)
            except Exception as e:
                self.log.error("Unable to start acceptor for %s", self.listener_name, exc_info=True)
                failure = RuntimeError(f"Unable to start acceptor for {self.listener_name}")
                failure.__cause__ = e
                self.started_future.complete_exceptionally(failure)

    def remove_processors(self, remove_count: int) -> None:
        """Out of the list first, so that they get no new connections; then closed, with their connections; then
        out of the request channel, which drops their pending responses."""
        with self._lock:
            to_remove = self.processors[len(self.processors) - remove_count:]
            del self.processors[len(self.processors) - remove_count:]
            for processor in to_remove:
                processor.close()
            for processor in to_remove:
                self.request_channel.remove_processor(processor.id)

    def begin_shutdown(self) -> None:
        if self.should_run.compare_and_set(True, False):
            self.wakeup()
            with self._lock:
                for processor in self.processors:
                    processor.begin_shutdown()

    def close(self) -> None:
        self.begin_shutdown()
        if self.thread.is_alive() or self.thread.ident is not None:
            self.thread.join()
        if not self._started.get():
            self._close_all()
        with self._lock:
            for processor in self.processors:
                processor.close()

    def run(self) -> None:
        """The accept loop."""
        assert self.server_channel is not None
        self.server_channel.register(self._nio_selector, SelectionKey.OP_ACCEPT)
        try:
            while self.should_run.get():
                try:
                    self._accept_new_connections()
                except Exception:
                    # a failure on one connection must not stop the listener for everyone else
                    self.log.error("Error occurred", exc_info=True)
        finally:
            self._close_all()

    def _close_all(self) -> None:
        self.log.debug("Closing server socket, selector, and any throttled sockets.")
        for closeable in (self.server_channel, self._nio_selector):
            if closeable is None:
                continue
            try:
                closeable.close()
            except Exception:
                self.log.error("Error closing %s", closeable, exc_info=True)

    def is_open(self) -> bool:
        """For tests: whether the server socket is open."""
        return self.server_channel is not None and self.server_channel.is_open()

    def _open_server_socket(self, host: str | None, port: int, listen_backlog_size: int) -> ServerSocketChannel:
        socket_address = ("0.0.0.0" if not host or not host.strip() else host, port)
        server_channel = ServerSocketChannel.open()
        try:
            server_channel.configure_blocking(False)
            if self._recv_buffer_size != USE_DEFAULT_BUFFER_SIZE:
                server_channel.socket().set_receive_buffer_size(self._recv_buffer_size)
            server_channel.socket().bind(socket_address, listen_backlog_size)
            self.log.info("Awaiting socket connections on %s:%d.", socket_address[0],
                          server_channel.socket().get_local_port())
        except OSError as e:
            server_channel.close()
            raise KafkaException(f"Socket server failed to bind to {socket_address[0]}:{port}: {e.strerror}.") \
                from e
        return server_channel

    def _accept_new_connections(self) -> None:
        """Accept what is waiting and hand each connection round-robin to a processor that has room; when none has,
        block on the last one tried."""
        ready = self._nio_selector.select(500)
        if ready > 0:
            keys = self._nio_selector.selected_keys()
            for key in list(keys):
                if not self.should_run.get():
                    break
                try:
                    keys.discard(key)
                    if not key.is_acceptable():
                        raise IllegalStateException("Unrecognized key state for acceptor thread.")
                    socket_channel = self._accept(key)
                    if socket_channel is None:
                        continue
                    with self._lock:
                        retries_left = len(self.processors)
                    while True:
                        retries_left -= 1
                        with self._lock:
                            # the index is adjusted under the lock: the processors may have been reduced meanwhile
                            self._current_processor_index = self._current_processor_index % len(self.processors)
                            processor = self.processors[self._current_processor_index]
                        self._current_processor_index += 1
                        if self._assign_new_connection(socket_channel, processor, retries_left == 0):
                            break
                except Exception:
                    self.log.error("Error while accepting connection", exc_info=True)

    def _accept(self, key: SelectionKey) -> SocketChannel | None:
        server_socket_channel = key.channel()
        socket_channel = server_socket_channel.accept()  # type: ignore[union-attr]
        if socket_channel is None:
            return None  # another select had it already
        with step("RQ.net.3", self, channel=socket_channel):
            try:
                self.connection_quotas.inc(self.listener_name, socket_channel.socket().get_inet_address())
                self.configure_accepted_socket_channel(socket_channel)
                return socket_channel
            except TooManyConnectionsException as e:
                self.log.info("Rejected connection from %s, address already has the configured maximum of %d "
                              "connections.", e.ip, e.count)
                event("NW.acceptor.2", e=e)
                self.connection_quotas.close_channel(self.log, self.listener_name, socket_channel)
                return None
            except OSError:
                self.log.error("Encountered an error while configuring the connection, closing it.", exc_info=True)
                self.connection_quotas.close_channel(self.log, self.listener_name, socket_channel)
                return None

    def configure_accepted_socket_channel(self, socket_channel: SocketChannel) -> None:
        """A hook for tests (Kafka's protected configureAcceptedSocketChannel)."""
        socket_channel.configure_blocking(False)
        socket_channel.socket().set_tcp_no_delay(True)
        socket_channel.socket().set_keep_alive(True)
        if self._send_buffer_size != USE_DEFAULT_BUFFER_SIZE:
            socket_channel.socket().set_send_buffer_size(self._send_buffer_size)

    def _assign_new_connection(self, socket_channel: SocketChannel, processor: Processor, may_block: bool) -> bool:
        if processor.accept(socket_channel, may_block):
            self.log.debug("Accepted connection from %s on %s and assigned it to processor %d",
                           socket_channel.get_remote_address(), socket_channel.get_local_address(), processor.id)
            return True
        return False

    def wakeup(self) -> None:
        self._nio_selector.wakeup()

    def add_processors(self, to_create: int) -> None:
        with self._lock:
            listener_processors = []
            for _ in range(to_create):
                processor = self.new_processor(self.socket_server.next_processor_id(), self.listener_name,
                                               self.security_protocol)
                listener_processors.append(processor)
                self.request_channel.add_processor(processor)
                if self._started.get():
                    processor.start()
            self.processors.extend(listener_processors)

    def new_processor(self, id: int, listener_name: ListenerName, security_protocol: SecurityProtocol) -> Processor:
        name = (f"{self.thread_prefix()}-kafka-network-thread-{self.node_id}-{self.end_point.listener_name}-"
                f"{self.end_point.security_protocol}-{id}")
        return Processor(id, self.time, self.config.socket_request_max_bytes, self.request_channel,
                         self.connection_quotas, self.config.connections_max_idle_ms,
                         self.config.failed_authentication_delay_ms, listener_name,
                         security_protocol, self.config, self.metrics, self.credential_provider, self.memory_pool,
                         self.log_context, CONNECTION_QUEUE_SIZE, self.is_privileged_listener,
                         self.api_version_manager, name)


class DataPlaneAcceptor(Acceptor):
    """The acceptor of a data-plane listener; its processor count is reconfigurable per listener."""

    def metric_prefix(self) -> str:
        return DATA_PLANE_METRIC_PREFIX

    def thread_prefix(self) -> str:
        return DATA_PLANE_THREAD_PREFIX

    def reconfigurable_configs(self) -> frozenset[str]:
        return DATA_PLANE_LISTENER_RECONFIGURABLE_CONFIGS

    def validate_reconfiguration(self, configs: Mapping[str, Any]) -> None:
        for k, v in configs.items():
            if k in self.reconfigurable_configs():
                new_value = int(v)
                old_value = len(self.processors)
                if new_value != old_value:
                    error_msg = f"Dynamic thread count update validation failed for {k}={v}"
                    if new_value <= 0:
                        raise ConfigException(f"{error_msg}, value should be at least 1")
                    if new_value < old_value // 2:
                        raise ConfigException(f"{error_msg}, value should be at least half the current value "
                                              f"{old_value}")
                    if new_value > old_value * 2:
                        raise ConfigException(f"{error_msg}, value should not be greater than double the current "
                                              f"value {old_value}")

    def reconfigure(self, configs: Mapping[str, Any]) -> None:
        new_num_network_threads = int(configs[NUM_NETWORK_THREADS_CONFIG])
        if new_num_network_threads != len(self.processors):
            self.log.info("Resizing network thread pool size for %s listener from %d to %d", self.listener_name,
                          len(self.processors), new_num_network_threads)
            if new_num_network_threads > len(self.processors):
                self.add_processors(new_num_network_threads - len(self.processors))
            elif new_num_network_threads < len(self.processors):
                self.remove_processors(len(self.processors) - new_num_network_threads)

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.add_processors(int(configs[NUM_NETWORK_THREADS_CONFIG]))


NETWORK_PROCESSOR_METRIC_TAG = "networkProcessor"
LISTENER_METRIC_TAG = "listener"
CONNECTION_QUEUE_SIZE = 20

_HOST_PORT = re.compile(r"\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)")


def _parse_host_port(connection_string: str) -> tuple[str, int] | None:
    """BrokerEndPoint.parseHostPort."""
    match = _HOST_PORT.fullmatch(connection_string)
    return None if match is None else (match.group(1), int(match.group(2)))


class ConnectionId:
    """`localHost:localPort-remoteHost:remotePort-index`, the Processor's id of a connection."""

    def __init__(self, local_host: str, local_port: int, remote_host: str, remote_port: int, index: int) -> None:
        self.local_host, self.local_port = local_host, local_port
        self.remote_host, self.remote_port = remote_host, remote_port
        self.index = index

    @staticmethod
    def from_string(s: str) -> ConnectionId | None:
        parts = s.split("-")
        if len(parts) != 3:
            return None
        local, remote = _parse_host_port(parts[0]), _parse_host_port(parts[1])
        if local is None or remote is None:
            return None
        return ConnectionId(local[0], local[1], remote[0], remote[1], int(parts[2]))

    def __str__(self) -> str:
        return f"{self.local_host}:{self.local_port}-{self.remote_host}:{self.remote_port}-{self.index}"


class Processor:
    """A network thread: it registers the connections its acceptor hands it, reads whole requests off them into the
    request channel and writes back the responses queued for it. A connection is muted from the moment a request is
    read until its response is sent (and any throttling is over): requests on a connection are handled in order."""

    def __init__(self, id: int, time: Time, max_request_size: int, request_channel: RequestChannel,
                 connection_quotas: ConnectionQuotas, connections_max_idle_ms: int,
                 failed_authentication_delay_ms: int, listener_name: ListenerName,
                 security_protocol: SecurityProtocol, config: Any, metrics: Any, credential_provider: Any,
                 memory_pool: MemoryPool, log_context: str, connection_queue_size: int,
                 is_privileged_listener: bool, api_version_manager: ApiVersionManager | None,
                 thread_name: str) -> None:
        self.id = id
        self.time = time
        self.max_request_size = max_request_size
        self.request_channel = request_channel
        self.connection_quotas = connection_quotas
        self.connections_max_idle_ms = connections_max_idle_ms
        self.failed_authentication_delay_ms = failed_authentication_delay_ms
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.config = config
        self.metrics = metrics
        self.memory_pool = memory_pool
        self.log_context = log_context
        self.connection_queue_size = connection_queue_size
        self.is_privileged_listener = is_privileged_listener
        self.api_version_manager = api_version_manager
        self.log = Logging("kafka.network.Processor", log_context)

        self.should_run = AtomicBoolean(True)
        self._started = AtomicBoolean(False)

        # non-daemon in Kafka; see Acceptor.thread
        self.thread = threading.Thread(target=self.run, name=thread_name, daemon=True)

        self._new_connections: queue.Queue[SocketChannel] = queue.Queue(connection_queue_size)
        self._inflight_responses: dict[str, Response] = {}
        self._response_queue: queue.Queue[Response] = queue.Queue()

        self.metric_tags = {LISTENER_METRIC_TAG: listener_name.value(), NETWORK_PROCESSOR_METRIC_TAG: str(id)}

        self.selector = self.create_selector(server_channel_builder(
            listener_name, listener_name.value() == config.inter_broker_listener_name, security_protocol, config,
            None, None, time, log_context))

        # The index keeps ids unique while requests of a closed connection are still handled, even if the remote
        # port is reused at once.
        self._next_connection_index = 0

    def create_selector(self, channel_builder: ChannelBuilder) -> KSelector:
        """A hook for tests (Kafka's createSelector)."""
        return KSelector(self.max_request_size, self.connections_max_idle_ms, self.time, channel_builder,
                         failed_authentication_delay_ms=self.failed_authentication_delay_ms,
                         record_time_per_connection=True, memory_pool=self.memory_pool, log_context=self.log_context)

    def run(self) -> None:
        try:
            while self.should_run.get():
                try:
                    # connections the acceptor handed over
                    self.configure_new_connections()
                    # responses the handlers finished: register them for writing
                    self.process_new_responses()
                    self.poll()
                    self.process_completed_receives()
                    self.process_completed_sends()
                    self.process_disconnected()
                    self.close_excess_connections()
                except BaseException as e:
                    # each step closes the channel that failed and goes on; this keeps the thread for the rest
                    self.process_exception("Processor got uncaught exception.", e)
        finally:
            self.log.debug("Closing selector - processor %d", self.id)
            try:
                self._close_all()
            except Exception:
                self.log.error("Error closing processor %d", self.id, exc_info=True)

    def process_exception(self, error_message: str, throwable: BaseException) -> None:
        """Logged; Kafka's ControlThrowable (here: a BaseException that is not an Exception) goes on up."""
        if not isinstance(throwable, Exception):
            raise throwable
        self.log.error(error_message, exc_info=throwable)

    def _process_channel_exception(self, channel_id: str, error_message: str, throwable: BaseException) -> None:
        if self.open_or_closing_channel(channel_id) is not None:
            self.log.error("Closing socket for %s because of error", channel_id, exc_info=throwable)
            self.close(channel_id)
        self.process_exception(error_message, throwable)

    @step("RQ.net.4")
    def process_new_responses(self) -> None:
        while (current_response := self._dequeue_response()) is not None:
            channel_id = current_response.request.context.connection_id
            try:
                if isinstance(current_response, NoOpResponse):
                    # nothing to write (acks=0): read the connection's next pipelined request
                    self._update_request_metrics(current_response)
                    self.log.debug("Socket server received empty response to send, registering for read: %s",
                                   current_response)
                    # unmuted now unless a throttle still runs
                    self._handle_channel_mute_event(channel_id, ChannelMuteEvent.RESPONSE_SENT)
                    self._try_unmute_channel(channel_id)
                elif isinstance(current_response, SendResponse):
                    self.send_response(current_response, current_response.response_send)
                elif isinstance(current_response, CloseConnectionResponse):
                    self._update_request_metrics(current_response)
                    self.log.debug("Closing socket connection actively according to the response code.")
                    self.close(channel_id)
                elif isinstance(current_response, StartThrottlingResponse):
                    self._handle_channel_mute_event(channel_id, ChannelMuteEvent.THROTTLE_STARTED)
                elif isinstance(current_response, EndThrottlingResponse):
                    # unmuted now only if the response has gone out already
                    self._handle_channel_mute_event(channel_id, ChannelMuteEvent.THROTTLE_ENDED)
                    self._try_unmute_channel(channel_id)
                else:
                    raise IllegalArgumentException(f"Unknown response type: {type(current_response)}")
            except BaseException as e:
                self._process_channel_exception(channel_id, f"Exception while processing response for {channel_id}",
                                                e)

    def send_response(self, response: Response, response_send: Send) -> None:
        """A hook for tests (Kafka's protected sendResponse)."""
        connection_id = response.request.context.connection_id
        self.log.debug("Socket server received response to send to %s, registering for write and sending data: %s",
                       connection_id, response)
        # the connection is gone if the client left, or idled out, while its request was handled
        if self.channel(connection_id) is None:
            self.log.warning("Attempting to send response via channel for which there is no open connection, "
                             "connection id %s", connection_id)
            response.request.update_request_metrics(0, response)
        # a closing channel takes the send too, which fails it and removes the channel with its staged receives
        if self.open_or_closing_channel(connection_id) is not None:
            self.selector.send(NetworkSend(connection_id, response_send))
            self._inflight_responses[connection_id] = response

    @step("NW.processor.3")
    def poll(self) -> None:
        poll_timeout = 300 if self._new_connections.empty() else 0
        try:
            self.selector.poll(poll_timeout)
        except (IllegalStateException, OSError):
            # not raised again: what this poll completed is still processed
            self.log.error("Processor %d poll failed", self.id, exc_info=True)

    def _parse_request_header(self, buffer: Any) -> RequestHeader:
        header = RequestHeader.parse(buffer)
        if self._is_api_enabled(header.api_key, header.api_version):
            return header
        raise InvalidRequestException(f"Received request api key {header.api_key.name} with version "
                                      f"{header.api_version} which is not enabled")

    def _is_api_enabled(self, api_key: ApiKeys, api_version: int) -> bool:
        if self.api_version_manager is None:
            return True
        # ApiKeys.isVersionEnabled takes any ApiVersions version: the answer tells the client which to use
        if api_key is ApiKeys.API_VERSIONS and api_key in self.api_version_manager.enabled_apis:
            return True
        return self.api_version_manager.is_api_enabled(api_key, api_version)

    def process_completed_receives(self) -> None:
        for receive in list(self.selector.completed_receives()):
            try:
                channel = self.open_or_closing_channel(receive.source())
                if channel is None:
                    # cannot happen: completed receives are processed right after the poll
                    raise IllegalStateException(f"Channel {receive.source()} removed from selector before "
                                                f"processing completed receive")
                header = self._parse_request_header(receive.payload())
                if header.api_key is ApiKeys.SASL_HANDSHAKE and channel.maybe_begin_server_reauthentication(
                        receive, self.time.nanoseconds):
                    self.log.debug("Begin re-authentication: %s", channel)
                else:
                    now_nanos = self.time.nanoseconds()
                    if channel.server_authentication_session_expired(now_nanos):
                        # closing gives the connection's slot back and drops its in-flight response
                        self.log.debug("Disconnecting expired channel: %s : %s", channel, header)
                        self.close(channel.id())
                    else:
                        connection_id = receive.source()
                        context = RequestContext(
                            header, connection_id, channel.socket_address(), channel.socket_port(),
                            channel.principal(), self.listener_name, self.security_protocol,
                            channel.channel_metadata_registry().client_information(), self.is_privileged_listener,
                            channel.principal_serde())
                        req = Request(self.id, context, now_nanos, self.memory_pool, receive.payload(),
                                      self.request_channel.metrics, None)
                        with step("RQ.net.5", self, request=req):
                            # KIP-511: the client's software name and version, taken here rather than in the API
                            # layer
                            if header.api_key is ApiKeys.API_VERSIONS:
                                api_versions_request = req.body()
                                if api_versions_request is not None and _is_valid_api_versions(
                                        api_versions_request, header.api_version):
                                    channel.channel_metadata_registry().register_client_information(
                                        ClientInformation(
                                            getattr(api_versions_request, "client_software_name", ""),
                                            getattr(api_versions_request, "client_software_version", "")))
                            # blocks while the request queue is full
                            self.request_channel.send_request(req)
                            self.selector.mute(connection_id)
                            self._handle_channel_mute_event(connection_id, ChannelMuteEvent.REQUEST_RECEIVED)
            except BaseException as e:
                # the receive's source is valid even here: a bad receive never gets this far
                self._process_channel_exception(receive.source(),
                                                f"Exception while processing request from {receive.source()}", e)
        self.selector.clear_completed_receives()

    @step("NW.processor.5")
    def process_completed_sends(self) -> None:
        for send in list(self.selector.completed_sends()):
            try:
                response = self._inflight_responses.pop(send.destination_id(), None)
                if response is None:
                    raise IllegalStateException(f"Send for {send.destination_id()} completed, but not in "
                                                f"`inflightResponses`")
                # the callback first: it may update what the request metrics read
                on_complete = response.on_complete()
                if on_complete is not None:
                    on_complete(send)
                self._update_request_metrics(response)

                # unmuted now unless a throttle still runs
                self._handle_channel_mute_event(send.destination_id(), ChannelMuteEvent.RESPONSE_SENT)
                self._try_unmute_channel(send.destination_id())
            except BaseException as e:
                self._process_channel_exception(
                    send.destination_id(), f"Exception while processing completed send to {send.destination_id()}",
                    e)
        self.selector.clear_completed_sends()

    def _update_request_metrics(self, response: Response) -> None:
        request = response.request
        channel = self.open_or_closing_channel(request.context.connection_id)
        network_thread_time_nanos = 0 if channel is None else channel.get_and_reset_network_thread_time_nanos()
        request.update_request_metrics(network_thread_time_nanos, response)

    @step("NW.processor.6")
    def process_disconnected(self) -> None:
        for connection_id in list(self.selector.disconnected().keys()):
            try:
                parsed = ConnectionId.from_string(connection_id)
                if parsed is None:
                    raise IllegalStateException(f"connectionId has unexpected format: {connection_id}")
                response = self._inflight_responses.pop(connection_id, None)
                if response is not None:
                    self._update_request_metrics(response)
                # the selector closed the channel; its address's slot still has to be given back
                self.connection_quotas.dec(self.listener_name, parsed.remote_host)
            except BaseException as e:
                self.process_exception(f"Exception while processing disconnection of {connection_id}", e)

    def close_excess_connections(self) -> None:
        """Over the broker-wide limit (an inter-broker connection got in on its protected listener): close one."""
        if self.connection_quotas.max_connections_exceeded(self.listener_name):
            with step("RQ.net.6", self):
                channel = self.selector.lowest_priority_channel()
                if channel is not None:
                    self.close(channel.id())

    def close(self, connection_id: str | None = None) -> None:
        """close(connection_id): close that connection (open or closing), give its slot back and drop its
        in-flight response; nothing happens if the selector has dropped it already.
        close(): stop this processor and wait for its thread."""
        if connection_id is None:
            self._close_processor()
            return
        channel = self.open_or_closing_channel(connection_id)
        if channel is not None:
            self.log.debug("Closing selector connection %s", connection_id)
            address = channel.socket_address()
            if address is not None:
                self.connection_quotas.dec(self.listener_name, address)
            self.selector.close(connection_id)
            response = self._inflight_responses.pop(connection_id, None)
            if response is not None:
                self._update_request_metrics(response)

    def accept(self, socket_channel: SocketChannel, may_block: bool, acceptor_idle_percent_meter: Any = None
               ) -> bool:
        """Queue a new connection; False if the queue is full and `may_block` is not set."""
        try:
            self._new_connections.put_nowait(socket_channel)
            accepted = True
        except queue.Full:
            if may_block:
                start_ns = self.time.nanoseconds()
                self._new_connections.put(socket_channel)
                if acceptor_idle_percent_meter is not None:
                    acceptor_idle_percent_meter.mark(self.time.nanoseconds() - start_ns)
                accepted = True
            else:
                accepted = False
        if accepted:
            self.wakeup()
        return accepted

    @step("NW.processor.1")
    def configure_new_connections(self) -> None:
        """At most `connection_queue_size` a round, so that the traffic of the connections already open is not held
        up by a burst of new ones."""
        connections_processed = 0
        while connections_processed < self.connection_queue_size and not self._new_connections.empty():
            channel = self._new_connections.get_nowait()
            try:
                self.log.debug("Processor %d listening to new connection from %s", self.id,
                               channel.get_remote_address())
                self.selector.register(self.connection_id(channel.socket()), channel)
                connections_processed += 1
            except BaseException as e:
                # closed here, or the socket leaks
                remote_address = channel.get_remote_address()
                self.connection_quotas.close_channel(self.log, self.listener_name, channel)
                self.process_exception(f"Processor {self.id} closed connection from {remote_address}", e)

    def _close_all(self) -> None:
        """Close the selector and every connection."""
        while not self._new_connections.empty():
            self._new_connections.get_nowait().close()
        for channel in self.selector.channels():
            self.close(channel.id())
        self.selector.close()

    def connection_id(self, socket: JavaSocket) -> str:
        """A hook for tests (Kafka's protected connectionId)."""
        conn_id = KSelector.generate_connection_id(socket, self._next_connection_index)
        self._next_connection_index = 0 if self._next_connection_index == INT_MAX else self._next_connection_index + 1
        return conn_id

    def enqueue_response(self, response: Response) -> None:
        self._response_queue.put(response)
        self.wakeup()

    def _dequeue_response(self) -> Response | None:
        try:
            response = self._response_queue.get_nowait()
        except queue.Empty:
            return None
        response.request.response_dequeue_time_nanos = SYSTEM.nanoseconds()
        return response

    def response_queue_size(self) -> int:
        return self._response_queue.qsize()

    def inflight_response_count(self) -> int:
        """For tests."""
        return len(self._inflight_responses)

    def open_or_closing_channel(self, connection_id: str) -> KafkaChannel | None:
        """Call only what is safe on a disconnected channel on what this returns."""
        channel = self.selector.channel(connection_id)
        return channel if channel is not None else self.selector.closing_channel(connection_id)

    def _handle_channel_mute_event(self, connection_id: str, event: ChannelMuteEvent) -> None:
        channel = self.open_or_closing_channel(connection_id)
        if channel is not None:
            channel.handle_channel_mute_event(event)

    def _try_unmute_channel(self, connection_id: str) -> None:
        channel = self.open_or_closing_channel(connection_id)
        if channel is not None:
            self.selector.unmute(channel.id())

    def channel(self, connection_id: str) -> KafkaChannel | None:
        """For tests."""
        return self.selector.channel(connection_id)

    def start(self) -> None:
        if self._started.compare_and_set(False, True):
            self.thread.start()

    def wakeup(self) -> None:
        self.selector.wakeup()

    def begin_shutdown(self) -> None:
        if self.should_run.compare_and_set(True, False):
            self.wakeup()

    def _close_processor(self) -> None:
        self.begin_shutdown()
        if self._started.get():
            self.thread.join()
        else:
            try:
                self._close_all()
            except Exception:
                self.log.error("Error closing processor %d", self.id, exc_info=True)


_CLIENT_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def _is_valid_api_versions(body: Any, version: int) -> bool:
    """ApiVersionsRequest.isValid: from v3 the client software name and version must be set and well-formed."""
    if version < 3:
        return True
    name = getattr(body, "client_software_name", "")
    software_version = getattr(body, "client_software_version", "")
    return bool(name and software_version and _CLIENT_SOFTWARE.fullmatch(name)
                and _CLIENT_SOFTWARE.fullmatch(software_version))


class ListenerConnectionQuota:
    """A listener's `max.connections` (listener-prefixed, else the broker's), reconfigurable per listener."""

    def __init__(self, lock: threading.Condition, listener: ListenerName) -> None:
        self._lock = lock
        self._listener = listener
        self._max_connections = INT_MAX

    @property
    def max_connections(self) -> int:
        return self._max_connections

    def listener_name(self) -> ListenerName:
        return self._listener

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._max_connections = self._max_connections_of(configs)

    def reconfigurable_configs(self) -> frozenset[str]:
        return LISTENER_RECONFIGURABLE_CONFIGS

    def validate_reconfiguration(self, configs: Mapping[str, Any]) -> None:
        value = self._max_connections_of(configs)
        if value <= 0:
            raise ConfigException(f"Invalid {MAX_CONNECTIONS_CONFIG} {value}")
        rate = self._max_connection_creation_rate_of(configs)
        if rate <= 0:
            raise ConfigException(f"Invalid {MAX_CONNECTION_CREATION_RATE_CONFIG} {rate}")

    def reconfigure(self, configs: Mapping[str, Any]) -> None:
        with self._lock:
            self._max_connections = self._max_connections_of(configs)
            self._lock.notify_all()

    def close(self) -> None:
        pass  # its rate sensors are not ported

    @staticmethod
    def _max_connections_of(configs: Mapping[str, Any]) -> int:
        value = configs.get(MAX_CONNECTIONS_CONFIG)
        return INT_MAX if value is None else int(str(value))

    @staticmethod
    def _max_connection_creation_rate_of(configs: Mapping[str, Any]) -> int:
        value = configs.get(MAX_CONNECTION_CREATION_RATE_CONFIG)
        return INT_MAX if value is None else int(str(value))


def _resolve(host: str) -> str:
    """InetAddress.getByName: the IP of a host name (an IP stays as it is)."""
    return socket.gethostbyname(host)


class ConnectionQuotas:
    """Open connections counted per client address, per listener and broker-wide, against
    `max.connections.per.ip` (and its overrides), each listener's `max.connections` and the broker's."""

    def __init__(self, config: Any, time: Time, metrics: Any = None) -> None:
        self._time = time
        self._default_max_connections_per_ip: int = config.max_connections_per_ip
        self._max_connections_per_ip_overrides = {
            _resolve(host): count for host, count in config.max_connections_per_ip_overrides.items()}
        self._broker_max_connections: int = config.max_connections
        self._inter_broker_listener_name = ListenerName(config.inter_broker_listener_name)
        self._counts: dict[str, int] = {}
        # the lock of every count and limit; acceptors wait on it for a connection slot
        self._lock = threading.Condition()

        self._listener_counts: dict[ListenerName, int] = {}
        self.max_connections_per_listener: dict[ListenerName, ListenerConnectionQuota] = {}
        self._total_count = 0

    def inc(self, listener_name: ListenerName, address: str, acceptor_blocked_percent_meter: Any = None) -> None:
        """Count a new connection; waits while its listener (or the broker) is at its limit. The count goes up
        before the per-IP check, so that TooManyConnectionsException is followed by close_channel, which counts
        it down."""
        with self._lock:
            self._wait_for_connection_slot(listener_name, acceptor_blocked_percent_meter)

            count = self._counts.get(address, 0)
            self._counts[address] = count + 1
            self._total_count += 1
            if listener_name in self._listener_counts:
                self._listener_counts[listener_name] += 1
            limit = self._max_connections_per_ip_overrides.get(address, self._default_max_connections_per_ip)
            if count >= limit:
                raise TooManyConnectionsException(address, limit)

    def update_max_connections_per_ip(self, max_connections_per_ip: int) -> None:
        self._default_max_connections_per_ip = max_connections_per_ip

    def update_max_connections_per_ip_override(self, override_quotas: Mapping[str, int]) -> None:
        self._max_connections_per_ip_overrides = {_resolve(host): count for host, count in override_quotas.items()}

    def update_broker_max_connections(self, max_connections: int) -> None:
        with self._lock:
            self._broker_max_connections = max_connections
            self._lock.notify_all()

    def add_listener(self, config: Any, listener_name: ListenerName) -> None:
        with self._lock:
            if listener_name not in self.max_connections_per_listener:
                new_listener_quota = ListenerConnectionQuota(self._lock, listener_name)
                self.max_connections_per_listener[listener_name] = new_listener_quota
                self._listener_counts[listener_name] = 0
                new_listener_quota.configure(listener_configs(config, listener_name))
            self._lock.notify_all()

    def remove_listener(self, config: Any, listener_name: ListenerName) -> None:
        with self._lock:
            listener_quota = self.max_connections_per_listener.pop(listener_name, None)
            if listener_quota is not None:
                self._listener_counts.pop(listener_name, None)
                listener_quota.close()
                # acceptors waiting on this listener wake up and close cleanly
                self._lock.notify_all()

    def dec(self, listener_name: ListenerName, address: str) -> None:
        with self._lock:
            count = self._counts.get(address)
            if count is None:
                raise IllegalArgumentException(
                    f"Attempted to decrease connection count for address with no connections, address: /{address}")
            if count == 1:
                del self._counts[address]
            else:
                self._counts[address] = count - 1

            if self._total_count <= 0:
                log_quotas.error("Attempted to decrease total connection count for broker with no connections")
            self._total_count -= 1

            if listener_name in self.max_connections_per_listener:
                listener_count = self._listener_counts[listener_name]
                if listener_count == 0:
                    log_quotas.error("Attempted to decrease connection count for listener %s with no connections",
                                     listener_name)
                else:
                    self._listener_counts[listener_name] = listener_count - 1
            # a slot is free: wake an acceptor waiting for one
            self._lock.notify_all()

    def get(self, address: str) -> int:
        with self._lock:
            return self._counts.get(address, 0)

    def _wait_for_connection_slot(self, listener_name: ListenerName, acceptor_blocked_percent_meter: Any) -> None:
        """Wait while the listener (or, but for the protected listener, the broker) is at its limit; the time
        waited is marked on the acceptor's meter. Kafka also waits out the listener's and the broker's
        connection-rate throttle here (not ported)."""
        with self._lock:
            if not self._connection_slot_available(listener_name):
                start_ns = self._time.nanoseconds()
                while not self._connection_slot_available(listener_name):
                    self._lock.wait()
                if acceptor_blocked_percent_meter is not None:
                    acceptor_blocked_percent_meter.mark(self._time.nanoseconds() - start_ns)

    def max_connections_exceeded(self, listener_name: ListenerName) -> bool:
        """Checked on every processor loop, which then closes one connection of the listener's."""
        return self._total_count > self._broker_max_connections and not self._protected_listener(listener_name)

    def _connection_slot_available(self, listener_name: ListenerName) -> bool:
        if self._listener_counts[listener_name] >= self._max_listener_connections(listener_name):
            return False
        if self._protected_listener(listener_name):
            return True
        return self._total_count < self._broker_max_connections

    def _protected_listener(self, listener_name: ListenerName) -> bool:
        """The inter-broker listener is exempt from the broker-wide limit when there are other listeners."""
        return self._inter_broker_listener_name == listener_name and len(self._listener_counts) > 1

    def _max_listener_connections(self, listener_name: ListenerName) -> int:
        quota = self.max_connections_per_listener.get(listener_name)
        return INT_MAX if quota is None else quota.max_connections

    def close(self) -> None:
        for listener_quota in self.max_connections_per_listener.values():
            listener_quota.close()

    def close_channel(self, log: Any, listener_name: ListenerName, channel: SocketChannel | None) -> None:
        """Close `channel` and count it down."""
        if channel is not None:
            log.debug("Closing connection from %s", channel.get_remote_address())
            self.dec(listener_name, channel.socket().get_inet_address())
            close_socket(channel, log)


log_quotas = Logging("kafka.network.ConnectionQuotas")
