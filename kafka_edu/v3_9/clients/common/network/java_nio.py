"""The part of java.nio (and java.io/java.net) that Kafka 3.9's network layer is written against, over Python's
`selectors` and non-blocking sockets: ByteBuffer, SocketChannel (with its java.net.Socket view),
ServerSocketChannel, SelectionKey and Selector. Not a Kafka class; it lets selector.py, kafka_channel.py and the
transport layers keep Kafka's calls (`key.interest_ops(ops)`, `socket_channel.read(buffer)`, `selector.select(ms)`).

Java's semantics kept: a cancelled key is dropped from the selector's key sets at the next select (so a loop over
the selected keys may cancel keys), a key's ready set holds only operations it is interested in, a read returns -1
at end of stream and 0 when nothing is there, and closing a channel cancels its keys. java.io.IOException is
Python's OSError.
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import struct
from collections.abc import Iterable
from typing import Any

_INT = struct.Struct(">i")


class EOFException(OSError):
    """java.io.EOFException: the peer closed the stream before what was expected arrived."""


class CancelledKeyException(RuntimeError):
    """java.nio.channels.CancelledKeyException: the selection key was cancelled (its channel is closed)."""


class IllegalBlockingModeException(RuntimeError):
    """java.nio.channels.IllegalBlockingModeException: a blocking channel was registered with a selector."""


class NoConnectionPendingException(RuntimeError):
    """java.nio.channels.NoConnectionPendingException: finish_connect without a connect."""


class ByteBuffer:
    """java.nio.ByteBuffer (heap, big-endian): a bytearray with a position and a limit."""

    __slots__ = ("_data", "_position", "_limit")

    def __init__(self, data: bytearray) -> None:
        self._data = data
        self._position = 0
        self._limit = len(data)

    @staticmethod
    def allocate(capacity: int) -> ByteBuffer:
        return ByteBuffer(bytearray(capacity))

    @staticmethod
    def wrap(data: bytes | bytearray) -> ByteBuffer:
        return ByteBuffer(data if isinstance(data, bytearray) else bytearray(data))

    def capacity(self) -> int:
        return len(self._data)

    def position(self, new_position: int | None = None) -> int:
        if new_position is not None:
            if not 0 <= new_position <= self._limit:
                raise ValueError(f"newPosition > limit: ({new_position} > {self._limit})")
            self._position = new_position
        return self._position

    def limit(self, new_limit: int | None = None) -> int:
        if new_limit is not None:
            if not 0 <= new_limit <= len(self._data):
                raise ValueError(f"newLimit > capacity: ({new_limit} > {len(self._data)})")
            self._limit = new_limit
            self._position = min(self._position, new_limit)
        return self._limit

    def remaining(self) -> int:
        return self._limit - self._position

    def has_remaining(self) -> bool:
        return self._position < self._limit

    def rewind(self) -> ByteBuffer:
        self._position = 0
        return self

    def flip(self) -> ByteBuffer:
        self._limit = self._position
        self._position = 0
        return self

    def clear(self) -> ByteBuffer:
        self._position = 0
        self._limit = len(self._data)
        return self

    def array(self) -> bytearray:
        return self._data

    def _advance(self, n: int) -> int:
        if n > self.remaining():
            raise BufferError("java.nio.BufferOverflowException")  # BufferOverflow/UnderflowException
        start = self._position
        self._position += n
        return start

    def put_int(self, value: int) -> ByteBuffer:
        _INT.pack_into(self._data, self._advance(4), value)
        return self

    def put_int_at(self, index: int, value: int) -> ByteBuffer:
        """putInt(index, value): absolute, the position does not move."""
        _INT.pack_into(self._data, index, value)
        return self

    def get_int(self) -> int:
        return _INT.unpack_from(self._data, self._advance(4))[0]

    def put(self, src: bytes | bytearray) -> ByteBuffer:
        start = self._advance(len(src))
        self._data[start:start + len(src)] = src
        return self

    def remaining_view(self) -> memoryview:
        """The bytes between position and limit, for a socket to read into or write from."""
        return memoryview(self._data)[self._position:self._limit]

    def __repr__(self) -> str:
        return f"java.nio.HeapByteBuffer[pos={self._position} lim={self._limit} cap={len(self._data)}]"


class SelectionKey:
    """java.nio.channels.SelectionKey: a channel's registration with a selector, its interest and ready sets and
    the object attached to it (Kafka attaches the KafkaChannel)."""

    OP_READ = 1 << 0
    OP_WRITE = 1 << 2
    OP_CONNECT = 1 << 3
    OP_ACCEPT = 1 << 4

    def __init__(self, channel: SocketChannel | ServerSocketChannel, selector: Selector, ops: int) -> None:
        self._channel = channel
        self._selector = selector
        self._interest_ops = ops
        self._ready_ops = 0
        self._attachment: Any = None
        self._valid = True

    def channel(self) -> SocketChannel | ServerSocketChannel:
        return self._channel

    def selector(self) -> Selector:
        return self._selector

    def interest_ops(self, ops: int | None = None) -> int:
        """interestOps() reads the interest set; interestOps(ops) replaces it (Java's two overloads)."""
        self._ensure_valid()
        if ops is not None:
            self._interest_ops = ops
            self._selector._update_registration(self)
        return self._interest_ops

    def ready_ops(self) -> int:
        self._ensure_valid()
        return self._ready_ops

    def is_readable(self) -> bool:
        return bool(self.ready_ops() & SelectionKey.OP_READ)

    def is_writable(self) -> bool:
        return bool(self.ready_ops() & SelectionKey.OP_WRITE)

    def is_connectable(self) -> bool:
        return bool(self.ready_ops() & SelectionKey.OP_CONNECT)

    def is_acceptable(self) -> bool:
        return bool(self.ready_ops() & SelectionKey.OP_ACCEPT)

    def is_valid(self) -> bool:
        return self._valid

    def cancel(self) -> None:
        if self._valid:
            self._valid = False
            self._selector._cancel(self)

    def attach(self, obj: Any) -> Any:
        previous, self._attachment = self._attachment, obj
        return previous

    def attachment(self) -> Any:
        return self._attachment

    def _ensure_valid(self) -> None:
        if not self._valid:
            raise CancelledKeyException()


class _SelectableChannel:
    """java.nio.channels.spi.AbstractSelectableChannel: blocking mode, registration, close cancels the keys."""

    def __init__(self, sock: socket.socket) -> None:
        self._socket = sock
        self._open = True
        self._keys: list[SelectionKey] = []

    def configure_blocking(self, block: bool) -> None:
        if block and any(key.is_valid() for key in self._keys):
            raise IllegalBlockingModeException()
        self._socket.setblocking(block)

    def is_blocking(self) -> bool:
        return self._socket.getblocking()

    def is_open(self) -> bool:
        return self._open

    def fileno(self) -> int:
        return self._socket.fileno()

    def register(self, selector: Selector, ops: int, att: Any = None) -> SelectionKey:
        if not self._open:
            raise OSError(errno.EBADF, "java.nio.channels.ClosedChannelException")
        if self.is_blocking():
            raise IllegalBlockingModeException()
        key = selector._register(self, ops)
        key.attach(att)
        self._keys.append(key)
        return key

    def key_for(self, selector: Selector) -> SelectionKey | None:
        return next((key for key in self._keys if key.selector() is selector and key.is_valid()), None)

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        for key in self._keys:
            key.cancel()
        self._socket.close()


class SocketChannel(_SelectableChannel):
    """java.nio.channels.SocketChannel over a TCP socket (blocking until configure_blocking(False))."""

    def __init__(self, sock: socket.socket, connected: bool = False) -> None:
        super().__init__(sock)
        self._connected = connected
        self._connection_pending = False
        self._remote_address: tuple[str, int] | None = None
        self._local_address: tuple[str, int] | None = None
        if connected:
            try:
                self._remote_address = sock.getpeername()[:2]
                self._local_address = sock.getsockname()[:2]
            except OSError:
                pass  # accepted, then reset by the peer at once: the first read or write will say so
        self._socket_view = Socket(self)

    @staticmethod
    def open() -> SocketChannel:
        return SocketChannel(socket.socket(socket.AF_INET, socket.SOCK_STREAM))

    def socket(self) -> Socket:
        return self._socket_view

    def connect(self, address: tuple[str, int]) -> bool:
        """True if connected at once (always, in blocking mode), False if the connection is pending; an unknown
        host raises socket.gaierror (an OSError: Java's UnresolvedAddressException before its IOException)."""
        host, port = address
        resolved = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)[0][4][:2]
        self._remote_address = resolved
        if self.is_blocking():
            self._socket.connect(resolved)
            self._on_connected()
            return True
        err = self._socket.connect_ex(resolved)
        if err == 0:
            self._on_connected()
            return True
        if err in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY):
            self._connection_pending = True
            self._local_address = self._socket.getsockname()[:2]
            return False
        raise OSError(err, os.strerror(err))

    def finish_connect(self) -> bool:
        if self._connected:
            return True
        if not self._connection_pending:
            raise NoConnectionPendingException()
        err = self._socket.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err != 0:
            self._connection_pending = False
            raise OSError(err, os.strerror(err))
        try:
            self._socket.getpeername()
        except OSError:
            return False  # still in progress
        self._on_connected()
        return True

    def _on_connected(self) -> None:
        self._connected = True
        self._connection_pending = False
        self._local_address = self._socket.getsockname()[:2]

    def is_connected(self) -> bool:
        return self._connected and self._open

    def is_connection_pending(self) -> bool:
        return self._connection_pending

    def get_remote_address(self) -> tuple[str, int] | None:
        """The address connected (or being connected) to, even after a refusal or a close."""
        return self._remote_address

    def get_local_address(self) -> tuple[str, int] | None:
        return self._local_address

    def read(self, dst: ByteBuffer) -> int:
        """Bytes read into dst (0 if none were waiting), -1 at end of stream."""
        if not self._open:
            raise OSError(errno.EBADF, "java.nio.channels.ClosedChannelException")
        if not dst.has_remaining():
            return 0
        try:
            n = self._socket.recv_into(dst.remaining_view())
        except (BlockingIOError, InterruptedError):
            return 0
        if n == 0:
            return -1
        dst._position += n
        return n

    def write(self, srcs: ByteBuffer | Iterable[ByteBuffer]) -> int:
        """A gathering write of what the socket takes now, from each buffer in turn; each position moves on."""
        if not self._open:
            raise OSError(errno.EBADF, "java.nio.channels.ClosedChannelException")
        buffers = [srcs] if isinstance(srcs, ByteBuffer) else [b for b in srcs if b.has_remaining()]
        views = [b.remaining_view() for b in buffers if b.has_remaining()]
        if not views:
            return 0
        try:
            written = self._socket.sendmsg(views)
        except (BlockingIOError, InterruptedError):
            return 0
        left = written
        for buffer in buffers:
            step = min(left, buffer.remaining())
            buffer._position += step
            left -= step
        return written


class Socket:
    """The java.net.Socket of a SocketChannel (`channel.socket()`): its addresses stay known after a close."""

    def __init__(self, channel: SocketChannel) -> None:
        self._channel = channel

    def get_inet_address(self) -> str | None:
        address = self._channel.get_remote_address() if self._channel._connected else None
        return None if address is None else address[0]

    def get_port(self) -> int:
        address = self._channel.get_remote_address() if self._channel._connected else None
        return 0 if address is None else address[1]

    def get_local_address(self) -> str:
        address = self._channel.get_local_address()
        return "0.0.0.0" if address is None else address[0]

    def get_local_port(self) -> int:
        address = self._channel.get_local_address()
        return -1 if address is None else address[1]

    def set_keep_alive(self, on: bool) -> None:
        self._channel._socket.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, int(on))

    def set_tcp_no_delay(self, on: bool) -> None:
        self._channel._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, int(on))

    def set_send_buffer_size(self, size: int) -> None:
        self._channel._socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)

    def set_receive_buffer_size(self, size: int) -> None:
        self._channel._socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, size)

    def get_send_buffer_size(self) -> int:
        return self._channel._socket.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)

    def get_receive_buffer_size(self) -> int:
        return self._channel._socket.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)

    def get_so_timeout(self) -> int:
        return 0

    def is_closed(self) -> bool:
        return not self._channel.is_open()

    def close(self) -> None:
        self._channel.close()


class ServerSocketChannel(_SelectableChannel):
    """java.nio.channels.ServerSocketChannel: a listening TCP socket whose accept hands out SocketChannels."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(sock)
        self._socket_view = ServerSocket(self)

    @staticmethod
    def open() -> ServerSocketChannel:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        return ServerSocketChannel(sock)

    def socket(self) -> ServerSocket:
        return self._socket_view

    def bind(self, address: tuple[str, int], backlog: int = 50) -> ServerSocketChannel:
        self._socket.bind(address)
        self._socket.listen(backlog if backlog > 0 else 50)
        return self

    def get_local_address(self) -> tuple[str, int]:
        return self._socket.getsockname()[:2]

    def accept(self) -> SocketChannel | None:
        """The next connection (a blocking SocketChannel, as Java's), or None when non-blocking and none waits."""
        try:
            sock, _ = self._socket.accept()
        except (BlockingIOError, InterruptedError):
            return None
        sock.setblocking(True)
        return SocketChannel(sock, connected=True)


class ServerSocket:
    """The java.net.ServerSocket of a ServerSocketChannel (`channel.socket()`)."""

    def __init__(self, channel: ServerSocketChannel) -> None:
        self._channel = channel

    def bind(self, address: tuple[str, int], backlog: int = 50) -> None:
        self._channel.bind(address, backlog)

    def get_local_port(self) -> int:
        return self._channel.get_local_address()[1]

    def get_inet_address(self) -> str:
        return self._channel.get_local_address()[0]

    def set_receive_buffer_size(self, size: int) -> None:
        self._channel._socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, size)

    def close(self) -> None:
        self._channel.close()


def _events(ops: int) -> int:
    events = 0
    if ops & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT):
        events |= selectors.EVENT_READ
    if ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT):
        events |= selectors.EVENT_WRITE
    return events


def _ready_ops(interest: int, events: int) -> int:
    ready = 0
    if events & selectors.EVENT_READ:
        ready |= interest & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)
    if events & selectors.EVENT_WRITE:
        ready |= interest & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)
    return ready


class Selector:
    """java.nio.channels.Selector over selectors.DefaultSelector (epoll on Linux), woken by a socket pair."""

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._keys: set[SelectionKey] = set()
        self._selected_keys: set[SelectionKey] = set()
        self._cancelled_keys: set[SelectionKey] = set()
        self._registered_fds: dict[SelectionKey, int] = {}
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)
        self._selector.register(self._wakeup_r, selectors.EVENT_READ, None)
        self._open = True

    @staticmethod
    def open() -> Selector:
        return Selector()

    def is_open(self) -> bool:
        return self._open

    def keys(self) -> set[SelectionKey]:
        return set(self._keys)

    def selected_keys(self) -> set[SelectionKey]:
        """The live selected-key set: select adds to it, only its user (Kafka: `readyKeys.clear()`) empties it."""
        return self._selected_keys

    def select(self, timeout_ms: int) -> int:
        """Block up to timeout_ms (0: until a key is ready or wakeup) for ready keys; the number of keys updated."""
        return self._do_select(None if timeout_ms == 0 else timeout_ms / 1000)

    def select_now(self) -> int:
        return self._do_select(0)

    def wakeup(self) -> Selector:
        try:
            self._wakeup_w.send(b"\0")
        except OSError:
            pass  # a wakeup is already pending, or the selector is closed
        return self

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        for key in list(self._keys):
            key.cancel()
        self._deregister_cancelled()
        self._selector.close()
        self._wakeup_r.close()
        self._wakeup_w.close()

    def _do_select(self, timeout_s: float | None) -> int:
        self._deregister_cancelled()
        updated = 0
        for py_key, events in self._selector.select(timeout_s):
            key: SelectionKey | None = py_key.data
            if key is None:
                self._drain_wakeups()
                continue
            if not key.is_valid():
                continue
            ready = _ready_ops(key._interest_ops, events)
            if not ready:
                continue
            if key in self._selected_keys:
                key._ready_ops |= ready
            else:
                key._ready_ops = ready
                self._selected_keys.add(key)
            updated += 1
        self._deregister_cancelled()
        return updated

    def _drain_wakeups(self) -> None:
        try:
            while self._wakeup_r.recv(4096):
                pass
        except OSError:
            pass

    def _register(self, channel: _SelectableChannel, ops: int) -> SelectionKey:
        if not self._open:
            raise OSError(errno.EBADF, "java.nio.channels.ClosedSelectorException")
        key = SelectionKey(channel, self, ops)  # type: ignore[arg-type]
        self._keys.add(key)
        self._update_registration(key)
        return key

    def _update_registration(self, key: SelectionKey) -> None:
        """Mirror the key's interest set into epoll; an empty set is no registration at all (epoll wants events)."""
        events = _events(key._interest_ops)
        fd = self._registered_fds.get(key)
        if fd is None:
            if events:
                fd = key.channel().fileno()
                self._selector.register(fd, events, key)
                self._registered_fds[key] = fd
        elif events:
            self._selector.modify(fd, events, key)
        else:
            self._unregister_fd(key)

    def _unregister_fd(self, key: SelectionKey) -> None:
        fd = self._registered_fds.pop(key, None)
        if fd is not None:
            try:
                self._selector.unregister(fd)
            except (KeyError, ValueError):
                pass

    def _cancel(self, key: SelectionKey) -> None:
        # Out of epoll at once (the fd may be closed and reused next); out of the key sets at the next select.
        self._unregister_fd(key)
        self._cancelled_keys.add(key)

    def _deregister_cancelled(self) -> None:
        for key in self._cancelled_keys:
            self._keys.discard(key)
            self._selected_keys.discard(key)
        self._cancelled_keys.clear()
