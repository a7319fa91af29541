"""Port of clients/src/main/java/org/apache/kafka/common/network/Selector.java (Kafka 3.9): non-blocking I/O over many
connections on one thread. `connect` (a client) or `register` (the broker's Processor, for an accepted socket) adds
a connection; `send` queues one NetworkSend per connection; `poll` does the I/O that is ready and leaves its results
in `completed_sends`, `completed_receives` (at most one per connection per poll, so requests keep their order),
`connected` and `disconnected`, which the next poll clears.

A connection its peer closes while a whole request is still to be read is kept in `closing_channels` until that
request is handed on; an idle connection is closed by the IdleExpiryManager; a memory pool that runs dry mutes the
channels that need memory until some is released.

Left out: SelectorMetrics (the 3.9 tree has no metrics registry: no sensors are recorded, and the per-cipher and
per-client connection gauges are gone from the metadata registry) and the Java overloads' metrics arguments.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Collection, Iterable
from enum import Enum
from logging import DEBUG
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import (
    AuthenticationException,
    IllegalArgumentException,
    IllegalStateException,
    KafkaException,
)
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.memory.memory_pool import MemoryPool
from kafka_edu.v3_9.clients.common.network.channel_builder import ChannelBuilder
from kafka_edu.v3_9.clients.common.network.channel_state import ChannelState, State
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.delayed_response_authentication_exception import (
    DelayedResponseAuthenticationException,
)
from kafka_edu.v3_9.clients.common.network.java_nio import (
    CancelledKeyException,
    SelectionKey,
    SocketChannel,
)
from kafka_edu.v3_9.clients.common.network.java_nio import (
    Selector as NioSelector,
)
from kafka_edu.v3_9.clients.common.network.java_nio import (
    Socket as JavaSocket,
)
from kafka_edu.v3_9.clients.common.network.kafka_channel import KafkaChannel
from kafka_edu.v3_9.clients.common.network.network_receive import NetworkReceive
from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend
from kafka_edu.v3_9.clients.common.network.selectable import USE_DEFAULT_BUFFER_SIZE
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.utils.utils import close_all_quietly, close_quietly

NO_IDLE_TIMEOUT_MS = -1
NO_FAILED_AUTHENTICATION_DELAY = 0


class CloseMode(Enum):
    """GRACEFUL: process outstanding buffered receives, notify the disconnect; NOTIFY_ONLY: discard them, notify;
    DISCARD_NO_NOTIFY: discard them, no notification."""

    GRACEFUL = ("GRACEFUL", True)
    NOTIFY_ONLY = ("NOTIFY_ONLY", True)
    DISCARD_NO_NOTIFY = ("DISCARD_NO_NOTIFY", False)

    def __init__(self, _name: str, notify_disconnect: bool) -> None:
        self.notify_disconnect = notify_disconnect


class Selector:
    NO_IDLE_TIMEOUT_MS = NO_IDLE_TIMEOUT_MS
    NO_FAILED_AUTHENTICATION_DELAY = NO_FAILED_AUTHENTICATION_DELAY

    def __init__(self, max_receive_size: int, connection_max_idle_ms: int, time: Time,
                 channel_builder: ChannelBuilder, *,
                 failed_authentication_delay_ms: int = NO_FAILED_AUTHENTICATION_DELAY,
                 record_time_per_connection: bool = False, memory_pool: MemoryPool = memory_pools.NONE,
                 log_context: str = "") -> None:
        """max_receive_size: the largest frame accepted (NetworkReceive.UNLIMITED: any); connection_max_idle_ms:
        NO_IDLE_TIMEOUT_MS disables idle expiry; failed_authentication_delay_ms: how long the close of a channel
        that failed authentication is delayed (NO_FAILED_AUTHENTICATION_DELAY: not at all)."""
        try:
            self._nio_selector = NioSelector.open()
        except OSError as e:
            raise KafkaException(e) from e
        self._max_receive_size = max_receive_size
        self._time = time
        self._channels: dict[str, KafkaChannel] = {}
        self._explicitly_muted_channels: set[KafkaChannel] = set()
        self._out_of_memory = False
        self._completed_sends: list[NetworkSend] = []
        self._completed_receives: dict[str, NetworkReceive] = {}
        self._immediately_connected_keys: set[SelectionKey] = set()
        self._closing_channels: dict[str, KafkaChannel] = {}
        self._keys_with_buffered_read: set[SelectionKey] = set()
        self._connected: list[str] = []
        self._disconnected: dict[str, ChannelState] = {}
        self._failed_sends: list[str] = []
        self.log = Logging("org.apache.kafka.common.network.Selector", log_context)
        self._channel_builder = channel_builder
        self._record_time_per_connection = record_time_per_connection
        self._idle_expiry_manager = (None if connection_max_idle_ms < 0
                                     else IdleExpiryManager(time, connection_max_idle_ms))
        self._memory_pool = memory_pool
        self._low_mem_threshold = int(0.1 * self._memory_pool.size())
        self._failed_authentication_delay_ms = failed_authentication_delay_ms
        self._delayed_closing_channels: dict[str, DelayedAuthenticationFailureClose] | None = (
            {} if failed_authentication_delay_ms > NO_FAILED_AUTHENTICATION_DELAY else None)
        # whether the last poll could read already-buffered data; without it, a pool out of memory spins the loop
        self._made_read_progress_last_poll = True

    @staticmethod
    def generate_connection_id(socket: JavaSocket, connection_index: int) -> str:
        """localHost:localPort-remoteHost:remotePort-index, unique even when a remote port is reused at once."""
        return (f"{socket.get_local_address()}:{socket.get_local_port()}-"
                f"{socket.get_inet_address()}:{socket.get_port()}-{connection_index}")

    def connect(self, id: str, address: tuple[str, int], send_buffer_size: int, receive_buffer_size: int) -> None:
        """Begin connecting; a later poll completes it (see connected()). IllegalStateException if the id is taken,
        OSError if the host cannot be resolved or the connect fails at once."""
        self._ensure_not_registered(id)
        socket_channel = SocketChannel.open()
        key = None
        try:
            self._configure_socket_channel(socket_channel, send_buffer_size, receive_buffer_size)
            connected = self.do_connect(socket_channel, address)
            key = self.register_channel(id, socket_channel, SelectionKey.OP_CONNECT)
            if connected:
                # OP_CONNECT is never selected for a channel that connected at once
                self.log.debug("Immediately connected to node %s", id)
                self._immediately_connected_keys.add(key)
                key.interest_ops(0)
        except Exception:
            if key is not None:
                self._immediately_connected_keys.discard(key)
            self._channels.pop(id, None)
            socket_channel.close()
            raise

    def do_connect(self, channel: SocketChannel, address: tuple[str, int]) -> bool:
        """Overridable by tests (a blocking connect makes an "immediately connected" socket)."""
        try:
            return channel.connect(address)
        except socket.gaierror as e:
            raise OSError(f"Can't resolve address: {address}") from e

    def _configure_socket_channel(self, socket_channel: SocketChannel, send_buffer_size: int,
                                  receive_buffer_size: int) -> None:
        socket_channel.configure_blocking(False)
        sock = socket_channel.socket()
        sock.set_keep_alive(True)
        if send_buffer_size != USE_DEFAULT_BUFFER_SIZE:
            sock.set_send_buffer_size(send_buffer_size)
        if receive_buffer_size != USE_DEFAULT_BUFFER_SIZE:
            sock.set_receive_buffer_size(receive_buffer_size)
        sock.set_tcp_no_delay(True)

    def register(self, id: str, socket_channel: SocketChannel) -> None:
        """Add a connection accepted elsewhere (the broker's Acceptor). The id must not be in use, open or closing:
        brokers append an index to host:port ids so that a reused remote port cannot clash. If no channel can be
        built, the socket is closed and OSError raised."""
        self._ensure_not_registered(id)
        self.register_channel(id, socket_channel, SelectionKey.OP_READ)
        # ApiVersionsRequest is optional: a client that sends none still counts, as unknown/unknown
        metadata_registry = self.channel(id).channel_metadata_registry()
        if metadata_registry.client_information() is None:
            metadata_registry.register_client_information(ClientInformation.EMPTY)

    def _ensure_not_registered(self, id: str) -> None:
        if id in self._channels:
            raise IllegalStateException(f"There is already a connection for id {id}")
        if id in self._closing_channels:
            raise IllegalStateException(f"There is already a connection for id {id} that is still being closed")

    def register_channel(self, id: str, socket_channel: SocketChannel, interested_ops: int) -> SelectionKey:
        key = socket_channel.register(self._nio_selector, interested_ops)
        channel = self._build_and_attach_kafka_channel(socket_channel, id, key)
        self._channels[id] = channel
        if self._idle_expiry_manager is not None:
            self._idle_expiry_manager.update(channel.id(), self._time.nanoseconds())
        return key

    def _build_and_attach_kafka_channel(self, socket_channel: SocketChannel, id: str,
                                        key: SelectionKey) -> KafkaChannel:
        metadata_registry = None
        try:
            metadata_registry = SelectorChannelMetadataRegistry()
            channel = self._channel_builder.build_channel(id, key, self._max_receive_size, self._memory_pool,
                                                          metadata_registry)
            key.attach(channel)
            return channel
        except Exception as e:
            try:
                socket_channel.close()
            finally:
                key.cancel()
            # no channel owns the registry: close it here
            close_quietly(metadata_registry, "metadataRegistry")
            raise OSError(f"Channel could not be created for socket {socket_channel}") from e

    def wakeup(self) -> None:
        """Interrupt a poll blocked waiting for I/O."""
        self._nio_selector.wakeup()

    def close(self, id: str | None = None) -> None:
        """close(): this selector and all its connections; close(id): one connection (see _close_connection)."""
        if id is not None:
            self._close_connection(id)
            return
        connections = list(self._channels)
        first_exception: list[BaseException] = []
        close_all_quietly(first_exception, "release connections",
                          *(_Closer(lambda id=connection: self.close(id)) for connection in connections))
        # whatever close(id) raised, the rest is still closed
        close_quietly(_Closer(self._nio_selector.close), "nioSelector", first_exception)
        close_quietly(self._channel_builder, "channelBuilder", first_exception)
        # a runtime failure is raised; an I/O one (Java's checked IOException) only logged
        if first_exception and not isinstance(first_exception[0], OSError):
            raise first_exception[0]

    def send(self, send: NetworkSend) -> None:
        """Queue a send for the coming polls."""
        connection_id = send.destination_id()
        channel = self._open_or_closing_channel_or_fail(connection_id)
        if connection_id in self._closing_channels:
            # reported through `disconnected`; the channel stays in the state its close left it in
            self._failed_sends.append(connection_id)
        else:
            try:
                channel.set_send(send)
            except Exception as e:
                # the channel is discarded by the close; its state says why, and the next poll reports it
                channel.state(ChannelState.FAILED_SEND)
                self._failed_sends.append(connection_id)
                self._close(channel, CloseMode.DISCARD_NO_NOTIFY)
                if not isinstance(e, CancelledKeyException):
                    self.log.error("Unexpected exception during send, closing connection %s and rethrowing "
                                   "exception.", connection_id, exc_info=True)
                    raise

    def poll(self, timeout: int) -> None:
        """Do the I/O that can be done without blocking (waiting up to `timeout` ms for some): finish connects,
        start and continue sends and receives, close what failed. The results are in completed_sends(),
        completed_receives() (one per channel at most), connected() and disconnected() until the next poll."""
        if timeout < 0:
            raise IllegalArgumentException("timeout should be >= 0")

        made_read_progress_last_call = self._made_read_progress_last_poll
        self._clear()

        data_in_buffers = bool(self._keys_with_buffered_read)

        if self._immediately_connected_keys or (made_read_progress_last_call and data_in_buffers):
            timeout = 0

        if not self._memory_pool.is_out_of_memory() and self._out_of_memory:
            # memory is back: unmute every channel not muted for another reason
            self.log.debug("Broker no longer low on memory - unmuting incoming sockets")
            for channel in self._channels.values():
                if channel.is_in_mutable_state() and channel not in self._explicitly_muted_channels:
                    channel.maybe_unmute()
            self._out_of_memory = False

        # check ready keys
        num_ready_keys = self._select(timeout)
        end_select = self._time.nanoseconds()

        if num_ready_keys > 0 or self._immediately_connected_keys or data_in_buffers:
            ready_keys = self._nio_selector.selected_keys()

            # channels with buffered data but nothing more on the socket
            if data_in_buffers:
                self._keys_with_buffered_read -= ready_keys  # so that no channel is polled twice
                to_poll = self._keys_with_buffered_read
                self._keys_with_buffered_read = set()  # refilled by the polls below
                self.poll_selection_keys(to_poll, False, end_select)

            # channels whose socket has more data
            self.poll_selection_keys(ready_keys, False, end_select)
            # emptied, so that they are not counted ready by the next select
            ready_keys.clear()

            self.poll_selection_keys(self._immediately_connected_keys, True, end_select)
            self._immediately_connected_keys.clear()
        else:
            self._made_read_progress_last_poll = True  # no work is progress too

        end_io = self._time.nanoseconds()

        # close the channels whose delayed close is due
        self.complete_delayed_channel_close(end_io)

        # the time at the end of the select, so that no channel just polled is closed as idle
        self._maybe_close_oldest_connection(end_select)

    def poll_selection_keys(self, selection_keys: Iterable[SelectionKey], is_immediately_connected: bool,
                            current_time_nanos: int) -> None:
        """Handle the ready I/O of these keys (package-private in Kafka, for tests)."""
        for key in self._determine_handling_order(selection_keys):
            channel = self._channel_of(key)
            channel_start_time_nanos = self._time.nanoseconds() if self._record_time_per_connection else 0
            send_failed = False
            node_id = channel.id()

            if self._idle_expiry_manager is not None:
                self._idle_expiry_manager.update(node_id, current_time_nanos)

            try:
                # complete the connections whose handshake finished (or that connected at once)
                if is_immediately_connected or key.is_connectable():
                    if channel.finish_connect():
                        self._connected.append(node_id)
                        if self.log.isEnabledFor(DEBUG):
                            sock = key.channel().socket()
                            self.log.debug("Created socket with SO_RCVBUF = %s, SO_SNDBUF = %s, SO_TIMEOUT = %s to "
                                           "node %s", sock.get_receive_buffer_size(), sock.get_send_buffer_size(),
                                           sock.get_so_timeout(), node_id)
                    else:
                        continue

                # a channel not ready yet: one more step of handshake and authentication
                if channel.is_connected() and not channel.ready():
                    channel.prepare()
                    if channel.ready():
                        is_reauthentication = channel.successful_authentications() > 1
                        if is_reauthentication and channel.reauthentication_latency_ms() is None:
                            self.log.warning("Should never happen: re-authentication latency for a re-authenticated "
                                             "channel was null; continuing...")
                        self.log.debug("Successfully %sauthenticated with %s", "re-" if is_reauthentication else "",
                                       channel.socket_description())
                if channel.ready() and channel.state() is ChannelState.NOT_CONNECTED:
                    channel.state(ChannelState.READY)
                response_received_during_reauthentication = channel.poll_response_received_during_reauthentication()
                if response_received_during_reauthentication is not None:
                    self._add_to_completed_receives(channel, response_received_during_reauthentication,
                                                    self._time.milliseconds())

                # read when ready, readable (or with buffered bytes), and no receive of this poll is waiting
                if (channel.ready() and (key.is_readable() or channel.has_bytes_buffered())
                        and not self._has_completed_receive(channel)
                        and channel not in self._explicitly_muted_channels):
                    self._attempt_read(channel)

                if channel.has_bytes_buffered() and channel not in self._explicitly_muted_channels:
                    # bytes wait in the layer's buffers (perhaps for memory) and the socket may not be selected
                    # again: poll this channel next time whatever the socket says
                    self._keys_with_buffered_read.add(key)

                # write what the socket takes of the channel's send
                now_nanos = channel_start_time_nanos if channel_start_time_nanos != 0 else current_time_nanos
                try:
                    self._attempt_write(key, channel, now_nanos)
                except Exception:
                    send_failed = True
                    raise

                # a cancelled key: the channel is gone
                if not key.is_valid():
                    self._close(channel, CloseMode.GRACEFUL)

            except Exception as e:
                desc = f"{channel.socket_description()} (channelId={channel.id()})"
                if isinstance(e, OSError):
                    self.log.debug("Connection with %s disconnected", desc, exc_info=True)
                elif isinstance(e, AuthenticationException):
                    is_reauthentication = channel.successful_authentications() > 0
                    exception_message = str(e)
                    if isinstance(e, DelayedResponseAuthenticationException) and e.__cause__ is not None:
                        exception_message = str(e.__cause__)
                    self.log.info("Failed %sauthentication with %s (%s)", "re-" if is_reauthentication else "",
                                  desc, exception_message)
                else:
                    self.log.warning("Unexpected error from %s; closing connection", desc, exc_info=True)

                if isinstance(e, DelayedResponseAuthenticationException):
                    self._maybe_delay_close_on_authentication_failure(channel)
                else:
                    self._close(channel, CloseMode.NOTIFY_ONLY if send_failed else CloseMode.GRACEFUL)
            finally:
                self._maybe_record_time_per_connection(channel, channel_start_time_nanos)

    def _attempt_write(self, key: SelectionKey, channel: KafkaChannel, now_nanos: int) -> None:
        if (channel.has_send() and channel.ready() and key.is_writable()
                and not channel.maybe_begin_client_reauthentication(lambda: now_nanos)):
            self.write(channel)

    def write(self, channel: KafkaChannel) -> None:
        """Package-private in Kafka, for tests."""
        channel.write()  # the bytes written fed the sensors, which are not ported
        send = channel.maybe_complete_send()
        # a send may complete with nothing written now (an SSL layer flushed what it held back)
        if send is not None:
            self._completed_sends.append(send)

    def _determine_handling_order(self, selection_keys: Iterable[SelectionKey]) -> list[SelectionKey]:
        # A snapshot: Python's sets, unlike Java's iteration here, refuse a change (a close) during the loop.
        keys = list(selection_keys)
        # the same order every time could starve the same reads when memory is low: shuffle then
        if not self._out_of_memory and self._memory_pool.available_memory() < self._low_mem_threshold:
            random.shuffle(keys)
        return keys

    def _attempt_read(self, channel: KafkaChannel) -> None:
        bytes_received = channel.read()
        if bytes_received != 0:
            current_time_ms = self._time.milliseconds()
            self._made_read_progress_last_poll = True

            receive = channel.maybe_complete_receive()
            if receive is not None:
                self._add_to_completed_receives(channel, receive, current_time_ms)
        if channel.is_muted():
            self._out_of_memory = True  # the channel muted itself: the pool is out of memory
        else:
            self._made_read_progress_last_poll = True

    def _maybe_read_from_closing_channel(self, channel: KafkaChannel) -> bool:
        if channel.state().state() is not State.READY:
            has_pending = False
        elif channel in self._explicitly_muted_channels or self._has_completed_receive(channel):
            has_pending = True
        else:
            try:
                self._attempt_read(channel)
                has_pending = self._has_completed_receive(channel)
            except Exception:
                self.log.debug("Read from closing channel failed, ignoring exception", exc_info=True)
                has_pending = False
        return has_pending

    def _maybe_record_time_per_connection(self, channel: KafkaChannel, start_time_nanos: int) -> None:
        if self._record_time_per_connection:
            channel.add_network_thread_time_nanos(self._time.nanoseconds() - start_time_nanos)

    def completed_sends(self) -> list[NetworkSend]:
        return self._completed_sends

    def completed_receives(self) -> Collection[NetworkReceive]:
        return self._completed_receives.values()

    def disconnected(self) -> dict[str, ChannelState]:
        return self._disconnected

    def connected(self) -> list[str]:
        return self._connected

    def mute(self, id: str) -> None:
        channel = self._open_or_closing_channel_or_fail(id)
        self._mute(channel)

    def _mute(self, channel: KafkaChannel) -> None:
        channel.mute()
        self._explicitly_muted_channels.add(channel)
        self._keys_with_buffered_read.discard(channel.selection_key())

    def unmute(self, id: str) -> None:
        channel = self._open_or_closing_channel_or_fail(id)
        self._unmute(channel)

    def _unmute(self, channel: KafkaChannel) -> None:
        # explicitly muted until actually unmuted (a MUTED_AND_* state stays muted)
        if channel.maybe_unmute():
            self._explicitly_muted_channels.discard(channel)
            if channel.has_bytes_buffered():
                self._keys_with_buffered_read.add(channel.selection_key())
                self._made_read_progress_last_poll = True

    def mute_all(self) -> None:
        for channel in self._channels.values():
            self._mute(channel)

    def unmute_all(self) -> None:
        for channel in self._channels.values():
            self._unmute(channel)

    def complete_delayed_channel_close(self, current_time_nanos: int) -> None:
        """Package-private in Kafka, for tests."""
        if self._delayed_closing_channels is None:
            return
        while self._delayed_closing_channels:
            delayed_close = next(iter(self._delayed_closing_channels.values()))
            if not delayed_close.try_close(current_time_nanos):
                break

    def _maybe_close_oldest_connection(self, current_time_nanos: int) -> None:
        if self._idle_expiry_manager is None:
            return
        expired_connection = self._idle_expiry_manager.poll_expired_connection(current_time_nanos)
        if expired_connection is not None:
            connection_id, last_active_nanos = expired_connection
            channel = self._channels.get(connection_id)
            if channel is not None:
                self.log.debug("About to close the idle connection from %s due to being idle for %d millis",
                               connection_id, (current_time_nanos - last_active_nanos) // 1000 // 1000)
                channel.state(ChannelState.EXPIRED)
                self._close(channel, CloseMode.GRACEFUL)

    def clear_completed_receives(self) -> None:
        """SocketServer drops its references to the receive buffers as soon as it has handled them."""
        self._completed_receives.clear()

    def clear_completed_sends(self) -> None:
        """SocketServer drops its references to the send buffers as soon as it has handled them."""
        self._completed_sends.clear()

    def _clear(self) -> None:
        """At the start of a poll: the last poll's results have been handled."""
        self._completed_sends.clear()
        self._completed_receives.clear()
        self._connected.clear()
        self._disconnected.clear()

        # closing channels go once their buffered receives are handed on, or a send to them failed
        for id, channel in list(self._closing_channels.items()):
            send_failed = channel.id() in self._failed_sends
            if send_failed:
                self._failed_sends.remove(channel.id())
            has_pending = False
            if not send_failed:
                has_pending = self._maybe_read_from_closing_channel(channel)
            if not has_pending:
                self._do_close(channel, True)
                del self._closing_channels[id]

        for channel_id in self._failed_sends:
            self._disconnected[channel_id] = ChannelState.FAILED_SEND
        self._failed_sends.clear()
        self._made_read_progress_last_poll = False

    def _select(self, timeout_ms: int) -> int:
        if timeout_ms < 0:
            raise IllegalArgumentException("timeout should be >= 0")
        if timeout_ms == 0:
            return self._nio_selector.select_now()
        return self._nio_selector.select(timeout_ms)

    def _close_connection(self, id: str) -> None:
        """Selector.close(String id): close at this end; no disconnect is notified."""
        channel = self._channels.get(id)
        if channel is not None:
            # not reported, but the state says why anyway
            channel.state(ChannelState.LOCAL_CLOSE)
            self._close(channel, CloseMode.DISCARD_NO_NOTIFY)
        else:
            closing_channel = self._closing_channels.pop(id, None)
            # a closing channel keeps the state its close left it in
            if closing_channel is not None:
                self._do_close(closing_channel, False)

    def _maybe_delay_close_on_authentication_failure(self, channel: KafkaChannel) -> None:
        delayed_close = DelayedAuthenticationFailureClose(self, channel, self._failed_authentication_delay_ms)
        if self._delayed_closing_channels is not None:
            self._delayed_closing_channels[channel.id()] = delayed_close
        else:
            delayed_close.close_now()

    def _handle_close_on_authentication_failure(self, channel: KafkaChannel) -> None:
        try:
            channel.complete_close_on_authentication_failure()
        except Exception:
            self.log.error("Exception handling close on authentication failure node %s", channel.id(), exc_info=True)
        finally:
            self._close(channel, CloseMode.GRACEFUL)

    def _close(self, channel: KafkaChannel, close_mode: CloseMode) -> None:
        """Begin closing a channel. GRACEFUL keeps it in closing_channels while a whole receive is still to be
        handed on (a producer with acks=0 may send and close in one go); otherwise it is closed now. The disconnect is
        notified when it is closed, if the mode says so."""
        channel.disconnect()

        # `connected` must hold no closed channel (prepare may fail in the poll whose finish_connect succeeded)
        if channel.id() in self._connected:
            self._connected.remove(channel.id())

        if close_mode is CloseMode.GRACEFUL and self._maybe_read_from_closing_channel(channel):
            self._closing_channels[channel.id()] = channel
            self.log.debug("Tracking closing connection %s to process outstanding requests", channel.id())
        else:
            self._do_close(channel, close_mode.notify_disconnect)
        self._channels.pop(channel.id(), None)

        if self._delayed_closing_channels is not None:
            self._delayed_closing_channels.pop(channel.id(), None)

        if self._idle_expiry_manager is not None:
            self._idle_expiry_manager.remove(channel.id())

    def _do_close(self, channel: KafkaChannel, notify_disconnect: bool) -> None:
        key = channel.selection_key()
        try:
            self._immediately_connected_keys.discard(key)
            self._keys_with_buffered_read.discard(key)
            channel.close()
        except OSError:
            self.log.error("Exception closing connection to node %s:", channel.id(), exc_info=True)
        finally:
            key.cancel()
            key.attach(None)

        self._explicitly_muted_channels.discard(channel)
        if notify_disconnect:
            self._disconnected[channel.id()] = channel.state()

    def is_channel_ready(self, id: str) -> bool:
        channel = self._channels.get(id)
        return channel is not None and channel.ready()

    def _open_or_closing_channel_or_fail(self, id: str) -> KafkaChannel:
        channel = self._channels.get(id)
        if channel is None:
            channel = self._closing_channels.get(id)
        if channel is None:
            raise IllegalStateException("Attempt to retrieve channel for which there is no connection. Connection "
                                        f"id {id} existing connections {list(self._channels)}")
        return channel

    def channels(self) -> list[KafkaChannel]:
        return list(self._channels.values())

    def channel(self, id: str) -> KafkaChannel | None:
        return self._channels.get(id)

    def closing_channel(self, id: str) -> KafkaChannel | None:
        """A channel disconnected but not closed yet: it has receives still to hand on."""
        return self._closing_channels.get(id)

    def lowest_priority_channel(self) -> KafkaChannel | None:
        """The channel to close for a new inter-broker connection when max.connections is reached: a closing one,
        else the least recently active, else any."""
        channel = None
        if self._closing_channels:
            channel = next(iter(self._closing_channels.values()))
        elif self._idle_expiry_manager is not None and self._idle_expiry_manager.lru_connections:
            channel_id = next(iter(self._idle_expiry_manager.lru_connections))
            channel = self.channel(channel_id)
        elif self._channels:
            channel = next(iter(self._channels.values()))
        return channel

    def _channel_of(self, key: SelectionKey) -> KafkaChannel:
        """Selector.channel(SelectionKey): the channel attached to the key."""
        return key.attachment()

    def _has_completed_receive(self, channel: KafkaChannel) -> bool:
        return channel.id() in self._completed_receives

    def _add_to_completed_receives(self, channel: KafkaChannel, network_receive: NetworkReceive,
                                   current_time_ms: int) -> None:
        if self._has_completed_receive(channel):
            raise IllegalStateException(f"Attempting to add second completed receive to channel {channel.id()}")
        self._completed_receives[channel.id()] = network_receive

    def keys(self) -> set[SelectionKey]:
        """Only for testing."""
        return self._nio_selector.keys()

    def is_out_of_memory(self) -> bool:
        """Package-private in Kafka, for tests."""
        return self._out_of_memory

    def is_made_read_progress_last_poll(self) -> bool:
        """Package-private in Kafka, for tests."""
        return self._made_read_progress_last_poll

    def delayed_closing_channels(self) -> dict[str, Any] | None:
        """Package-private in Kafka, for tests."""
        return self._delayed_closing_channels


class _Closer:
    """An AutoCloseable lambda, for Utils.closeAllQuietly."""

    def __init__(self, close: Any) -> None:
        self.close = close


class SelectorChannelMetadataRegistry:
    """Selector.SelectorChannelMetadataRegistry, without the per-cipher and per-client connection gauges."""

    def __init__(self) -> None:
        self._cipher_information: Any = None
        self._client_information: ClientInformation | None = None

    def register_cipher_information(self, cipher_information: Any) -> None:
        self._cipher_information = cipher_information

    def cipher_information(self) -> Any:
        return self._cipher_information

    def register_client_information(self, client_information: ClientInformation) -> None:
        self._client_information = client_information

    def client_information(self) -> ClientInformation | None:
        return self._client_information

    def close(self) -> None:
        self._cipher_information = None
        self._client_information = None


class DelayedAuthenticationFailureClose:
    """Selector.DelayedAuthenticationFailureClose: a channel that failed authentication, closed once its delay
    (failed_authentication_delay_ms) has passed, so that a client cannot hammer the broker with retries."""

    def __init__(self, selector: Selector, channel: KafkaChannel, delay_ms: int) -> None:
        self._selector = selector
        self.channel = channel
        self.end_time_nanos = selector._time.nanoseconds() + delay_ms * 1000 * 1000
        self.closed = False

    def try_close(self, current_time_nanos: int) -> bool:
        """Close if the delay is over; whether the channel is closed."""
        if self.end_time_nanos <= current_time_nanos:
            self.close_now()
        return self.closed

    def close_now(self) -> None:
        if self.closed:
            raise IllegalStateException("Attempt to close a channel that has already been closed")
        self._selector._handle_close_on_authentication_failure(self.channel)
        self.closed = True


class IdleExpiryManager:
    """Selector.IdleExpiryManager: connections by last activity, least recent first (Java's access-ordered
    LinkedHashMap: an update moves a connection to the end)."""

    def __init__(self, time: Time, connections_max_idle_ms: int) -> None:
        self.connections_max_idle_nanos = connections_max_idle_ms * 1000 * 1000
        self.lru_connections: dict[str, int] = {}
        self.next_idle_close_check_time = time.nanoseconds() + self.connections_max_idle_nanos

    def update(self, connection_id: str, current_time_nanos: int) -> None:
        self.lru_connections.pop(connection_id, None)
        self.lru_connections[connection_id] = current_time_nanos

    def poll_expired_connection(self, current_time_nanos: int) -> tuple[str, int] | None:
        if current_time_nanos <= self.next_idle_close_check_time:
            return None

        if not self.lru_connections:
            self.next_idle_close_check_time = current_time_nanos + self.connections_max_idle_nanos
            return None

        oldest_connection_entry = next(iter(self.lru_connections.items()))
        connection_last_active_time = oldest_connection_entry[1]
        self.next_idle_close_check_time = connection_last_active_time + self.connections_max_idle_nanos

        if current_time_nanos > self.next_idle_close_check_time:
            return oldest_connection_entry
        return None

    def remove(self, connection_id: str) -> None:
        self.lru_connections.pop(connection_id, None)

