"""Our own test code, not a Kafka port: the java.nio semantics the 3.9 network port relies on
(kafka_edu/v3_9/clients/common/network/java_nio.py), on real loopback sockets."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from kafka_edu.v3_9.clients.common.network.java_nio import (
    ByteBuffer,
    CancelledKeyException,
    SelectionKey,
    Selector,
    ServerSocketChannel,
    SocketChannel,
)


@pytest.fixture
def pair() -> Iterator[tuple[Selector, SocketChannel, SocketChannel, ServerSocketChannel]]:
    """A selector, a non-blocking client channel connected to an accepted server channel."""
    selector = Selector.open()
    server = ServerSocketChannel.open().bind(("127.0.0.1", 0))
    client = SocketChannel.open()
    client.configure_blocking(False)
    connected = client.connect(server.get_local_address())
    accepted = server.accept()
    accepted.configure_blocking(False)
    if not connected:
        key = client.register(selector, SelectionKey.OP_CONNECT)
        assert selector.select(5000) == 1 and key.is_connectable()
        assert client.finish_connect()
        key.cancel()
        selector.select_now()
    try:
        yield selector, client, accepted, server
    finally:
        client.close()
        accepted.close()
        server.close()
        selector.close()


def test_byte_buffer_position_limit_and_ints():
    buffer = ByteBuffer.allocate(8)
    buffer.put_int(7).put_int_at(4, -1)
    assert (buffer.position(), buffer.remaining()) == (4, 4)
    buffer.flip()
    assert buffer.get_int() == 7 and not buffer.has_remaining()
    assert ByteBuffer.wrap(bytes(buffer.array())).rewind().position(4) == 4


def test_read_is_zero_without_data_and_minus_one_at_end_of_stream(pair):
    _, client, accepted, _ = pair
    buffer = ByteBuffer.allocate(4)
    assert client.read(buffer) == 0
    assert accepted.write([ByteBuffer.wrap(b"ab"), ByteBuffer.wrap(b"cd")]) == 4
    accepted.close()
    while buffer.has_remaining():
        assert client.read(buffer) >= 0
    assert bytes(buffer.array()) == b"abcd"
    assert client.read(ByteBuffer.allocate(1)) == -1


def test_only_interesting_ready_operations_are_selected(pair):
    selector, client, accepted, _ = pair
    key = client.register(selector, SelectionKey.OP_READ)
    assert selector.select_now() == 0  # writable, but only reads interest it
    accepted.write(ByteBuffer.wrap(b"x"))
    assert selector.select(5000) == 1
    assert key in selector.selected_keys() and key.is_readable() and not key.is_writable()
    key.interest_ops(SelectionKey.OP_READ | SelectionKey.OP_WRITE)
    selector.selected_keys().clear()
    assert selector.select_now() == 1 and key.ready_ops() == SelectionKey.OP_READ | SelectionKey.OP_WRITE
    key.interest_ops(0)
    selector.selected_keys().clear()
    assert selector.select_now() == 0


def test_a_cancelled_key_stays_selected_until_the_next_select(pair):
    selector, client, accepted, _ = pair
    key = client.register(selector, SelectionKey.OP_WRITE)
    assert selector.select_now() == 1
    key.cancel()
    assert key in selector.selected_keys() and key in selector.keys()  # a loop over them may go on
    with pytest.raises(CancelledKeyException):
        key.interest_ops(SelectionKey.OP_READ)
    selector.select_now()
    assert key not in selector.selected_keys() and key not in selector.keys()


def test_closing_a_channel_cancels_its_key_and_keeps_its_addresses(pair):
    selector, client, _, server = pair
    key = client.register(selector, SelectionKey.OP_READ)
    client.close()
    assert not key.is_valid()
    assert client.socket().get_port() == server.get_local_address()[1]


def test_a_refused_connect_fails_in_finish_connect():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    selector = Selector.open()
    client = SocketChannel.open()
    client.configure_blocking(False)
    try:
        if client.connect(("127.0.0.1", port)):
            pytest.fail("connected to a closed port")
        key = client.register(selector, SelectionKey.OP_CONNECT)
        assert selector.select(5000) == 1 and key.is_connectable()
        with pytest.raises(ConnectionRefusedError):
            client.finish_connect()
        assert client.get_remote_address() == ("127.0.0.1", port)
    finally:
        client.close()
        selector.close()


def test_wakeup_ends_a_blocking_select():
    selector = Selector.open()
    try:
        selector.wakeup()
        assert selector.select(0) == 0  # would block forever without the wakeup
    finally:
        selector.close()
