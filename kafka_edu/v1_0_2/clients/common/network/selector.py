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
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS, KafkaPrincipal

log = logging.getLogger("org.apache.kafka.common.network.Selector")

_SIZE = struct.Struct(">i")
_READ_CHUNK = 1 << 18


class CancelledKeyException(Exception):
    """java.nio.channels.CancelledKeyException: the channel's selection key was cancelled (it was disconnected)."""


class InvalidReceiveException(Exception):
    """org.apache.kafka.common.network.InvalidReceiveException: a frame size the receiver refuses."""


@dataclass
class NetworkReceive:
    """A whole size-prefixed frame read off a connection."""

    source: str
    payload: bytes
    received_ns: int


class KafkaChannel:
    """One connection: its partial reads and writes, whether reading is muted, and its authenticator (None: a
    PLAINTEXT connection, ready from the start and anonymous)."""

    def __init__(self, id: str, sock: socket.socket, max_receive_size: int) -> None:
        self.id = id
        self.socket = sock
        self.max_receive_size = max_receive_size
        self.receive_buffer = bytearray()
        self.send_buffer = memoryview(b"")
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

    def read(self) -> bool:
        """Take what the socket has into the receive buffer; False when the peer closed the connection."""
        try:
            data = self.socket.recv(_READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return True
        if not data:
            return False
        self.receive_buffer += data
        return True

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

    def set_send(self, payload: bytes) -> None:
        if self.disconnected:
            raise CancelledKeyException(self.id)
        if self.send_buffer:
            raise IllegalStateException(f"Attempt to begin a send operation with prior send operation still in "
                                        f"progress, connection id is {self.id}")
        self.send_buffer = memoryview(_SIZE.pack(len(payload)) + payload)

    def write(self) -> bool:
        """Write what the socket takes; True when the whole pending send is out."""
        if self.send_buffer:
            try:
                sent = self.socket.send(self.send_buffer)
            except (BlockingIOError, InterruptedError):
                return False
            self.send_buffer = self.send_buffer[sent:]
        return not self.send_buffer


class Selector:
    """Non-blocking I/O over many connections, one thread: register, send, poll, mute/unmute, close."""

    def __init__(self, max_receive_size: int, connections_max_idle_ms: int, channel_builder: Any = None) -> None:
        self.max_receive_size = max_receive_size
        self.channel_builder = channel_builder  # None: PLAINTEXT channels
        self.connections_max_idle_s = connections_max_idle_ms / 1000
        self.nio_selector = selectors.DefaultSelector()
        self.channels: dict[str, KafkaChannel] = {}
        self.completed_receives: list[NetworkReceive] = []
        self.completed_sends: list[str] = []
        self.disconnected: list[str] = []
        self.failed_sends: list[str] = []
        self.last_activity: dict[str, float] = {}  # the idle-expiry manager: connection id -> last I/O
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)
        self.nio_selector.register(self._wakeup_r, selectors.EVENT_READ)

    def register(self, id: str, sock: socket.socket) -> None:
        channel = (KafkaChannel(id, sock, self.max_receive_size) if self.channel_builder is None
                   else self.channel_builder.build_channel(id, sock, self.max_receive_size))
        self.channels[id] = channel
        self.last_activity[id] = time.monotonic()
        self._update_interest(channel)

    def send(self, destination: str, payload: bytes) -> None:
        channel = self.channels.get(destination)
        if channel is None:
            raise IllegalStateException(f"Attempt to retrieve channel for which there is no connection. "
                                        f"Connection id {destination} existing connections {list(self.channels)}")
        try:
            channel.set_send(payload)
        except CancelledKeyException:
            # reported as a disconnection by the next poll
            self.failed_sends.append(destination)
            self._close_channel(channel, disconnected=False)
            return
        self._update_interest(channel)

    def poll(self, timeout_ms: int) -> None:
        """Do the I/O that is ready: what completed is in completed_receives, completed_sends and disconnected."""
        self.completed_receives.clear()
        self.completed_sends.clear()
        self.disconnected.clear()
        self.disconnected.extend(self.failed_sends)
        self.failed_sends.clear()
        staged = self._has_staged_receives()
        ready = self.nio_selector.select(0 if staged else timeout_ms / 1000)
        for key, mask in ready:
            if key.fileobj is self._wakeup_r:
                self._drain_wakeups()
                continue
            self._poll_selection_key(key.data, mask)
        self._prepare_channels()
        self._add_to_completed_receives()
        self._maybe_close_oldest_connection()

    def _poll_selection_key(self, channel: KafkaChannel, mask: int) -> None:
        try:
            if mask & selectors.EVENT_READ and not channel.read():
                self._close_channel(channel, disconnected=True)
                return
            # a channel still logging in writes its authenticator's answers, which are no request's response
            if mask & selectors.EVENT_WRITE and channel.write() and channel.ready():
                self.completed_sends.append(channel.id)
                self._update_interest(channel)
            self.last_activity[channel.id] = time.monotonic()
        except OSError as e:
            log.debug("Connection with %s disconnected: %s", channel.socket_address, e)
            self._close_channel(channel, disconnected=True)

    def _has_staged_receives(self) -> bool:
        return any((not c.muted and len(c.receive_buffer) >= 4) if c.ready()
                   else (not c.send_buffer and c.has_whole_receive()) for c in self.channels.values())

    def _prepare_channels(self) -> None:
        """KafkaChannel.prepare for the channels still logging in: each frame they have buffered is answered in
        turn, one at a time (the next waits until the answer to the last is written)."""
        for channel in [c for c in self.channels.values() if not c.ready()]:
            try:
                channel.prepare()
                while not channel.ready() and not channel.send_buffer and channel.has_whole_receive():
                    channel.prepare()
            except Exception as e:
                # a failed login, or a frame that is no login at all: the connection closes
                log.info("Closing connection %s during authentication: %s: %s", channel.id, type(e).__name__, e)
                self._close_channel(channel, disconnected=True)
                continue
            self._update_interest(channel)

    def _add_to_completed_receives(self) -> None:
        """One receive per unmuted channel per poll: a muted channel keeps the rest buffered, in order."""
        now = time.time_ns()
        for channel in list(self.channels.values()):
            if channel.muted or len(channel.receive_buffer) < 4 or not channel.ready():
                continue
            try:
                payload = channel.next_receive()
            except InvalidReceiveException as e:
                log.info("Closing connection %s: %s", channel.id, e)
                self._close_channel(channel, disconnected=True)
                continue
            if payload is not None:
                self.completed_receives.append(NetworkReceive(channel.id, payload, now))

    def _maybe_close_oldest_connection(self) -> None:
        if not self.last_activity:
            return
        oldest = min(self.last_activity, key=self.last_activity.__getitem__)
        if self.last_activity[oldest] < time.monotonic() - self.connections_max_idle_s:
            log.debug("About to close the idle connection from %s due to being idle for %s ms", oldest,
                      self.connections_max_idle_s * 1000)
            self._close_channel(self.channels[oldest], disconnected=True)

    def mute(self, id: str) -> None:
        channel = self.channels[id]
        channel.muted = True
        self._update_interest(channel)

    def unmute(self, id: str) -> None:
        channel = self.channels.get(id)
        if channel is not None:
            channel.muted = False
            self._update_interest(channel)

    def channel(self, id: str) -> KafkaChannel | None:
        return self.channels.get(id)

    def close_connection(self, id: str) -> None:
        """Close one connection at this end (not reported in `disconnected`)."""
        channel = self.channels.get(id)
        if channel is not None:
            self._close_channel(channel, disconnected=False)

    def _close_channel(self, channel: KafkaChannel, disconnected: bool) -> None:
        if self.channels.pop(channel.id, None) is None:
            return
        self.last_activity.pop(channel.id, None)
        if channel.authenticator is not None:
            channel.authenticator.close()
        if _is_registered(self.nio_selector, channel.socket):
            self.nio_selector.unregister(channel.socket)
        channel.socket.close()
        if disconnected:
            self.disconnected.append(channel.id)

    def _update_interest(self, channel: KafkaChannel) -> None:
        """Read while unmuted, write while a send is pending; a muted idle channel is not polled at all."""
        events = (0 if channel.muted else selectors.EVENT_READ) | (selectors.EVENT_WRITE if channel.send_buffer else 0)
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
        for channel in list(self.channels.values()):
            self._close_channel(channel, disconnected=False)
        self.nio_selector.close()
        self._wakeup_r.close()
        self._wakeup_w.close()


def _is_registered(selector: selectors.BaseSelector, sock: socket.socket) -> bool:
    try:
        selector.get_key(sock)
        return True
    except (KeyError, ValueError):
        return False
