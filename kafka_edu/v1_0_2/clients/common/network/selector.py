"""Port of clients/src/main/java/org/apache/kafka/common/network/Selector.java and KafkaChannel.java (Kafka 1.0.2).

The broker's Processor drives one Selector: `poll` does the socket I/O and leaves what completed in three lists,
`completed_receives`, `completed_sends` and `disconnected`, for the Processor to act on. A PLAINTEXT channel is
ready at once; a SASL_PLAINTEXT channel (built by kafka_edu/v1_0_2/clients/common/network/sasl_channel_builder.py)
first runs its
authenticator on every frame it receives, and only then hands its frames on as requests.
"""

from __future__ import annotations

import logging
import selectors
import socket
import struct
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.network.network_send import NetworkSend
from kafka_edu.v1_0_2.clients.common.network.plaintext_transport_layer import PlaintextTransportLayer
from kafka_edu.v1_0_2.clients.common.network.send import Send
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS, KafkaPrincipal
from kafka_edu.v1_0_2.clients.common.utils.time import SYSTEM, Time

log = logging.getLogger("org.apache.kafka.common.network.Selector")

_SIZE = struct.Struct(">i")
_READ_CHUNK = 1 << 18


class CancelledKeyException(Exception):
    """java.nio.channels.CancelledKeyException: the channel's selection key was cancelled (it was disconnected)."""


class EOFException(OSError):
    """java.io.EOFException: the peer closed the connection."""


class InvalidReceiveException(Exception):
    """org.apache.kafka.common.network.InvalidReceiveException: a frame size the receiver refuses."""


@dataclass
class NetworkReceive:
    """A whole size-prefixed frame read off a connection."""

    source: str
    payload: bytes
    received_ns: int = 0  # wall clock, when the selector hands it on: the start of the request's trace


class KafkaChannel:
    """One connection: its partial reads, the Send being written, whether reading is muted, and its authenticator
    (None: a PLAINTEXT connection, ready from the start and anonymous)."""

    def __init__(self, id: str, sock: socket.socket, max_receive_size: int) -> None:
        self.id = id
        self.socket = sock
        self.max_receive_size = max_receive_size
        self.receive_buffer = bytearray()
        self.transport_layer = PlaintextTransportLayer(sock)
        self.send: Send | None = None
        self.muted = False
        self.socket_address = sock.getpeername()[0]
        self.authenticator: Any = None
        self.disconnected = False

    def ready(self) -> bool:
        """Requests may be read: nothing to authenticate, or the login is complete."""
        return self.authenticator is None or self.authenticator.complete()

    def prepare(self) -> None:
        """One step of the login: write what is pending, answer the next whole frame."""
        self.authenticator.authenticate()

    def principal(self) -> KafkaPrincipal:
        return ANONYMOUS if self.authenticator is None else self.authenticator.principal()

    def has_whole_receive(self) -> bool:
        """A whole frame is buffered, or a size prefix no frame may have (reading it raises)."""
        if len(self.receive_buffer) < 4:
            return False
        (size,) = _SIZE.unpack_from(self.receive_buffer)
        return size < 0 or size > self.max_receive_size or len(self.receive_buffer) >= 4 + size

    def fill(self) -> bool:
        """Take what the socket has into the receive buffer; False when the peer closed the connection."""
        try:
            data = self.socket.recv(_READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return True
        if not data:
            return False
        self.receive_buffer += data
        return True

    def read(self) -> NetworkReceive | None:
        """KafkaChannel.read: the next whole frame, reading the socket for it if it is not buffered yet; None
        until one has fully arrived. A peer that closed, or a frame size no frame may have, raises."""
        buffered = self.next_receive()
        if buffered is not None:
            return NetworkReceive(self.id, buffered)
        if not self.fill():
            raise EOFException(f"Connection {self.id} closed by the peer")
        payload = self.next_receive()
        return None if payload is None else NetworkReceive(self.id, payload)

    def has_bytes_buffered(self) -> bool:
        """A whole frame (or a size no frame may have) is already buffered: readable without the socket."""
        return self.ready() and not self.muted and self.has_whole_receive()

    def next_receive(self, max_receive_size: int | None = None) -> bytes | None:
        """The next whole frame in the buffer, if one has fully arrived (an authenticator reads with a lower
        limit of its own)."""
        max_size = self.max_receive_size if max_receive_size is None else max_receive_size
        if len(self.receive_buffer) < 4:
            return None
        (size,) = _SIZE.unpack_from(self.receive_buffer)
        if size < 0 or size > max_size:
            raise InvalidReceiveException(f"Invalid receive (size = {size} larger than {max_size})"
                                          if size >= 0 else f"Invalid receive (size = {size})")
        if len(self.receive_buffer) < 4 + size:
            return None
        payload = bytes(memoryview(self.receive_buffer)[4:4 + size])
        del self.receive_buffer[:4 + size]
        return payload

    def disconnect(self) -> None:
        """KafkaChannel.disconnect: cancel the selection key; the selector finds out on the next operation."""
        self.disconnected = True

    def set_send(self, send: Send | bytes) -> None:
        """The Send to write next; a payload as bytes is sent size-prefixed (a NetworkSend)."""
        if self.disconnected:
            raise CancelledKeyException(self.id)
        if self.send is not None:
            raise IllegalStateException(f"Attempt to begin a send operation with prior send operation still in "
                                        f"progress, connection id is {self.id}")
        self.send = NetworkSend(self.id, send) if isinstance(send, bytes | bytearray | memoryview) else send

    @property
    def send_buffer(self) -> bool:
        """A send is pending: what the raft network channel (kafka_edu/v3_9/raft/raft/kafka_network_channel.py),
        which drives this Selector, asks before queueing its next request."""
        return self.send is not None

    def write(self) -> bool:
        """Write what the socket takes of the pending Send; True when none is left to write. (Kafka returns the
        Send it completed; a SASL login here also asks whether its answer is out, so no send counts as done.)"""
        send = self.send
        if send is not None:
            send.write_to(self.transport_layer)
            if send.completed():
                self.send = None
        return self.send is None


class IdleExpiryManager:
    """Selector.IdleExpiryManager: connections in order of last activity, the least recently active first."""

    def __init__(self, time: Time, connections_max_idle_ms: int) -> None:
        self.connections_max_idle_nanos = connections_max_idle_ms * 1000 * 1000
        self.lru_connections: dict[str, int] = {}  # insertion order, refreshed on update: an access-ordered map
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
        oldest = next(iter(self.lru_connections.items()))
        self.next_idle_close_check_time = oldest[1] + self.connections_max_idle_nanos
        return oldest if current_time_nanos > self.next_idle_close_check_time else None

    def remove(self, connection_id: str) -> None:
        self.lru_connections.pop(connection_id, None)


class Selector:
    """Non-blocking I/O over many connections, one thread: register, send, poll, mute/unmute, close.

    A channel reads every whole request the socket has into its staged receives, and each poll hands on at most
    one per unmuted channel. A channel that fails or is closed by its peer while requests are staged is kept as a
    closing channel until they are handed on (or a send to it fails), so a client that sends and closes is still
    served what it sent.
    """

    def __init__(self, max_receive_size: int, connections_max_idle_ms: int, channel_builder: Any = None,
                 time: Time = SYSTEM) -> None:
        self.max_receive_size = max_receive_size
        self.channel_builder = channel_builder  # None: PLAINTEXT channels
        self.time = time
        self.nio_selector = selectors.DefaultSelector()
        self.channels: dict[str, KafkaChannel] = {}
        self.closing_channels: dict[str, KafkaChannel] = {}
        self.staged_receives: dict[KafkaChannel, deque[NetworkReceive]] = {}
        self.explicitly_muted_channels: set[KafkaChannel] = set()
        self.completed_receives: list[NetworkReceive] = []
        self.completed_sends: list[str] = []
        self.disconnected: list[str] = []
        self.failed_sends: list[str] = []
        self.idle_expiry_manager = (None if connections_max_idle_ms < 0
                                    else IdleExpiryManager(time, connections_max_idle_ms))
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)
        self.nio_selector.register(self._wakeup_r, selectors.EVENT_READ)

    def register(self, id: str, sock: socket.socket) -> None:
        self.ensure_not_registered(id)
        channel = (KafkaChannel(id, sock, self.max_receive_size) if self.channel_builder is None
                   else self.channel_builder.build_channel(id, sock, self.max_receive_size))
        self.channels[id] = channel
        self._update_interest(channel)

    def ensure_not_registered(self, id: str) -> None:
        if id in self.channels:
            raise IllegalStateException(f"There is already a connection for id {id}")
        if id in self.closing_channels:
            raise IllegalStateException(f"There is already a connection for id {id} that is still being closed")

    def send(self, destination: str, send: Send | bytes) -> None:
        """Selector.send: queue `send` (bytes are framed as a NetworkSend) on the destination's channel."""
        channel = self.open_or_closing_channel_or_fail(destination)
        if destination in self.closing_channels:
            self.failed_sends.append(destination)
            return
        try:
            channel.set_send(send)
        except Exception as e:
            self.failed_sends.append(destination)  # reported as a disconnection by the next poll
            self._close(channel, process_outstanding=False, notify_disconnect=False)
            if not isinstance(e, CancelledKeyException):
                log.error("Unexpected exception during send, closing connection %s and rethrowing exception %s",
                          destination, e)
                raise
            return
        self._update_interest(channel)

    def poll(self, timeout_ms: int) -> None:
        """Do the I/O that is ready: what completed is in completed_receives, completed_sends and disconnected."""
        if timeout_ms < 0:
            raise ValueError("timeout should be >= 0")
        self._clear()
        # whole frames already read off a socket (after a SASL login) are no ready key: Kafka's buffered reads
        buffered = [c for c in self.channels.values() if c.has_bytes_buffered()]
        if self.has_staged_receives() or buffered or self._logins_with_buffered_frames():
            timeout_ms = 0
        ready = self.nio_selector.select(timeout_ms / 1000)
        end_select = self.time.nanoseconds()
        polled: set[KafkaChannel] = set()
        for key, mask in ready:
            if key.fileobj is self._wakeup_r:
                self._drain_wakeups()
                continue
            polled.add(key.data)
            self._poll_selection_key(key.data, mask, end_select)
        for channel in buffered:
            if channel not in polled and channel.id in self.channels:
                self._poll_selection_key(channel, 0, end_select)
        self._prepare_channels()
        self._maybe_close_oldest_connection(end_select)
        self._add_to_completed_receives()

    def _poll_selection_key(self, channel: KafkaChannel, mask: int, current_time_nanos: int) -> None:
        if self.idle_expiry_manager is not None:
            self.idle_expiry_manager.update(channel.id, current_time_nanos)
        send_failed = False
        try:
            if not channel.ready() and mask & selectors.EVENT_READ and not channel.fill():
                raise EOFException(f"Connection {channel.id} closed by the peer during authentication")
            self._attempt_read(channel, mask)
            # a channel still logging in writes its authenticator's answers, which are no request's response
            if mask & selectors.EVENT_WRITE:
                try:
                    written = channel.write()
                except Exception:
                    send_failed = True
                    raise
                if written and channel.ready():
                    self.completed_sends.append(channel.id)
                    self._update_interest(channel)
        except Exception as e:
            if isinstance(e, OSError):
                log.debug("Connection with %s disconnected: %s", channel.socket_address, e)
            else:
                log.warning("Unexpected error from %s; closing connection: %s", channel.socket_address, e)
            self._close(channel, process_outstanding=not send_failed, notify_disconnect=True)

    def _attempt_read(self, channel: KafkaChannel, mask: int) -> None:
        if (channel.ready() and (mask & selectors.EVENT_READ or channel.has_bytes_buffered())
                and not self.has_staged_receive(channel) and channel not in self.explicitly_muted_channels):
            while (network_receive := channel.read()) is not None:
                self._add_to_staged_receives(channel, network_receive)

    def _prepare_channels(self) -> None:
        """KafkaChannel.prepare for the channels still logging in: each frame they have buffered is answered in
        turn, one at a time (the next waits until the answer to the last is written)."""
        for channel in [c for c in self.channels.values() if not c.ready()]:
            try:
                channel.prepare()
                while not channel.ready() and channel.send is None and channel.has_whole_receive():
                    channel.prepare()
            except Exception as e:
                # a failed login, or a frame that is no login at all: the connection closes
                log.info("Closing connection %s during authentication: %s: %s", channel.id, type(e).__name__, e)
                self._close(channel, process_outstanding=False, notify_disconnect=True)
                continue
            self._update_interest(channel)

    def _logins_with_buffered_frames(self) -> bool:
        return any(not c.ready() and c.send is None and c.has_whole_receive() for c in self.channels.values())

    def has_staged_receive(self, channel: KafkaChannel) -> bool:
        return bool(self.staged_receives.get(channel))

    def has_staged_receives(self) -> bool:
        return any(not channel.muted for channel in self.staged_receives)

    def _add_to_staged_receives(self, channel: KafkaChannel, receive: NetworkReceive) -> None:
        self.staged_receives.setdefault(channel, deque()).append(receive)

    def num_staged_receives(self, channel: KafkaChannel) -> int:
        return len(self.staged_receives.get(channel, ()))

    def _add_to_completed_receives(self) -> None:
        """One receive per unmuted channel per poll: a muted channel keeps the rest staged, in order."""
        for channel, staged in list(self.staged_receives.items()):
            if channel in self.explicitly_muted_channels:
                continue
            receive = staged.popleft()
            receive.received_ns = time.time_ns()
            self.completed_receives.append(receive)
            if not staged:
                del self.staged_receives[channel]

    def _maybe_close_oldest_connection(self, current_time_nanos: int) -> None:
        if self.idle_expiry_manager is None:
            return
        expired = self.idle_expiry_manager.poll_expired_connection(current_time_nanos)
        if expired is None:
            return
        connection_id, last_active_nanos = expired
        channel = self.channels.get(connection_id)
        if channel is not None:
            log.debug("About to close the idle connection from %s due to being idle for %d millis",
                      connection_id, (current_time_nanos - last_active_nanos) // 1_000_000)
            self._close(channel, process_outstanding=True, notify_disconnect=True)

    def _clear(self) -> None:
        self.completed_sends.clear()
        self.completed_receives.clear()
        self.disconnected.clear()
        for id, channel in list(self.closing_channels.items()):
            send_failed = id in self.failed_sends
            if send_failed:
                self.failed_sends.remove(id)
            if not self.staged_receives.get(channel) or send_failed:
                self._do_close(channel, notify_disconnect=True)
                del self.closing_channels[id]
        self.disconnected.extend(self.failed_sends)
        self.failed_sends.clear()

    def mute(self, id: str) -> None:
        channel = self.open_or_closing_channel_or_fail(id)
        channel.muted = True
        self.explicitly_muted_channels.add(channel)
        self._update_interest(channel)

    def unmute(self, id: str) -> None:
        channel = self.open_or_closing_channel_or_fail(id)
        self.explicitly_muted_channels.discard(channel)
        channel.muted = False
        self._update_interest(channel)

    def channel(self, id: str) -> KafkaChannel | None:
        return self.channels.get(id)

    def closing_channel(self, id: str) -> KafkaChannel | None:
        return self.closing_channels.get(id)

    def open_or_closing_channel_or_fail(self, id: str) -> KafkaChannel:
        channel = self.channels.get(id) or self.closing_channels.get(id)
        if channel is None:
            raise IllegalStateException(f"Attempt to retrieve channel for which there is no connection. "
                                        f"Connection id {id} existing connections {list(self.channels)}")
        return channel

    def close_connection(self, id: str) -> None:
        """Selector.close(id): close one connection at this end, open or closing (not reported in
        `disconnected`)."""
        channel = self.channels.get(id)
        if channel is not None:
            self._close(channel, process_outstanding=False, notify_disconnect=False)
        else:
            closing = self.closing_channels.pop(id, None)
            if closing is not None:
                self._do_close(closing, notify_disconnect=False)

    def _close(self, channel: KafkaChannel, process_outstanding: bool, notify_disconnect: bool) -> None:
        if process_outstanding and not notify_disconnect:
            raise IllegalStateException("Disconnect notification required for remote disconnect after processing "
                                        "outstanding requests")
        channel.disconnect()
        self._unregister(channel)  # the key is cancelled: no more I/O, even while staged receives are handed on
        if process_outstanding and self.staged_receives.get(channel):
            self.closing_channels[channel.id] = channel
            log.debug("Tracking closing connection %s to process outstanding requests", channel.id)
        else:
            self._do_close(channel, notify_disconnect)
        self.channels.pop(channel.id, None)
        if self.idle_expiry_manager is not None:
            self.idle_expiry_manager.remove(channel.id)

    def _do_close(self, channel: KafkaChannel, notify_disconnect: bool) -> None:
        try:
            if channel.authenticator is not None:
                channel.authenticator.close()
            channel.socket.close()
        except OSError as e:
            log.error("Exception closing connection to node %s: %s", channel.id, e)
        finally:
            self._unregister(channel)
        self.staged_receives.pop(channel, None)
        self.explicitly_muted_channels.discard(channel)
        if notify_disconnect:
            self.disconnected.append(channel.id)

    def _unregister(self, channel: KafkaChannel) -> None:
        if _is_registered(self.nio_selector, channel.socket):
            self.nio_selector.unregister(channel.socket)

    def _update_interest(self, channel: KafkaChannel) -> None:
        """Read while unmuted, write while a send is pending; a muted idle channel is not polled at all."""
        if channel.disconnected:
            return
        events = ((0 if channel.muted else selectors.EVENT_READ)
                  | (selectors.EVENT_WRITE if channel.send is not None else 0))
        registered = _is_registered(self.nio_selector, channel.socket)
        if not events:
            if registered:
                self.nio_selector.unregister(channel.socket)
        elif registered:
            self.nio_selector.modify(channel.socket, events, channel)
        else:
            self.nio_selector.register(channel.socket, events, channel)

    def wakeup(self) -> None:
        try:
            self._wakeup_w.send(b"\0")
        except (BlockingIOError, OSError):
            pass  # a wakeup is already pending, or the selector is closed

    def _drain_wakeups(self) -> None:
        try:
            while self._wakeup_r.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def close(self) -> None:
        # Kafka closes the open channels only; closing ones are closed too here, so no socket outlives the selector
        for id in list(self.channels) + list(self.closing_channels):
            self.close_connection(id)
        self.nio_selector.close()
        self._wakeup_r.close()
        self._wakeup_w.close()


def _is_registered(selector: selectors.BaseSelector, sock: socket.socket) -> bool:
    try:
        selector.get_key(sock)
        return True
    except (KeyError, ValueError):
        return False
