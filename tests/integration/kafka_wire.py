"""A tiny raw-socket Kafka client for tests: one size-prefixed frame out, one response (or a closed connection) back.

Built on kafka_edu.v3_9.clients.common.protocol.codec. Every wait is a socket timeout: a test never sleeps to
synchronise with the broker.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.codec import DecodedResponse, decode_response, encode_request

DEFAULT_TIMEOUT_S = 10.0
_SIZE = struct.Struct(">i")


class ConnectionClosed(Exception):
    """The broker closed the connection (EOF or reset) before a whole response frame arrived."""


def address_of(listeners: str) -> tuple[str, int]:
    """('127.0.0.1', 9092) from a single-listener `listeners` value such as PLAINTEXT://127.0.0.1:9092."""
    host, port = listeners.split("://", 1)[1].rsplit(":", 1)
    return host, int(port)


def frame(payload: bytes) -> bytes:
    """The payload behind Kafka's 4-byte big-endian size prefix."""
    return _SIZE.pack(len(payload)) + payload


def with_version(payload: bytes, api_version: int) -> bytes:
    """A size-stripped request with its header's api version replaced: the way to send a version kio cannot encode."""
    return payload[:2] + struct.pack(">h", api_version) + payload[4:]


def with_api_key(payload: bytes, api_key: int) -> bytes:
    return struct.pack(">h", api_key) + payload[2:]


class WireConnection:
    """One TCP connection to a broker. Use as a context manager; it is always closed on exit."""

    def __init__(self, address: tuple[str, int], timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.sock = socket.create_connection(address, timeout=timeout_s)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout_s = timeout_s
        self._next_correlation_id = 1

    def __enter__(self) -> WireConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    # -- bytes ----------------------------------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        """Exactly these bytes, no size prefix added. A reset by the broker shows up as ConnectionClosed."""
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise ConnectionClosed(str(e)) from e

    def send_frame(self, payload: bytes) -> None:
        self.send_raw(frame(payload))

    def _read_exactly(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            try:
                chunk = self.sock.recv(n - len(data))
            except ConnectionResetError as e:
                raise ConnectionClosed(str(e)) from e
            if not chunk:
                raise ConnectionClosed(f"EOF after {len(data)} of {n} bytes")
            data += chunk
        return bytes(data)

    def read_frame(self) -> bytes:
        """The next size-stripped response. ConnectionClosed if the broker closes first, TimeoutError if silent."""
        (size,) = _SIZE.unpack(self._read_exactly(4))
        return self._read_exactly(size)

    def is_closed_by_peer(self, timeout_s: float | None = None) -> bool:
        """True once the broker has closed the connection with nothing more to read; False if it stays silently open
        for `timeout_s`. Bytes arriving instead of EOF are an error: the broker answered."""
        self.sock.settimeout(self.timeout_s if timeout_s is None else timeout_s)
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
        finally:
            self.sock.settimeout(self.timeout_s)
        if data:
            raise AssertionError(f"expected the broker to close the connection, it sent {len(data)} bytes: {data!r}")
        return True

    # -- requests -------------------------------------------------------------------------------------------------

    def correlation_id(self) -> int:
        value = self._next_correlation_id
        self._next_correlation_id += 1
        return value

    def encode(self, api_key: int, api_version: int, body: Any, client_id: str | None = "kafka-wire") -> bytes:
        return encode_request(api_key, api_version, self.correlation_id(), client_id, body)

    def request(self, api_key: int, api_version: int, body: Any, client_id: str | None = "kafka-wire") -> Any:
        """Send one request and return the decoded response body, checking the echoed correlation id."""
        payload = self.encode(api_key, api_version, body, client_id)
        self.send_frame(payload)
        response = self.read_response(api_key, api_version)
        (sent,) = struct.unpack_from(">i", payload, 4)
        assert response.correlation_id == sent, (response.correlation_id, sent)
        return response.body

    def read_response(self, api_key: int, api_version: int) -> DecodedResponse:
        return decode_response(api_key, api_version, self.read_frame())
