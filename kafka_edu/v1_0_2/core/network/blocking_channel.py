"""Port of core/src/main/scala/kafka/network/BlockingChannel.scala (Kafka 1.0.2): one blocking connection for
broker-to-broker requests (the controller's send threads, replica fetchers, controlled shutdown).

A request sent inside a span carries that span's W3C traceparent, so the receiving broker's span can name the
sender's (TRACING.md, causality). The codec puts it where the request's own version has room for it, never changing
the version: a flexible header's tagged field, else a suffix of the client id (see codec.py).
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from kafka_edu.tracing.step import current_traceparent
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response, encode_request

_SIZE = struct.Struct(">i")


class BlockingChannel:
    """Send one request, wait for its response; a failed exchange leaves the channel disconnected."""

    def __init__(self, host: str, port: int, read_timeout_s: float, client_id: str) -> None:
        self.host, self.port = host, port
        self.read_timeout_s = read_timeout_s
        self.client_id = client_id
        self._sock: socket.socket | None = None
        self._correlation_id = 0

    @property
    def is_connected(self) -> bool:
        return self._sock is not None

    def connect(self) -> None:
        if self._sock is None:
            sock = socket.create_connection((self.host, self.port), timeout=self.read_timeout_s)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._sock = sock

    def disconnect(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def send_and_receive(self, api_key: ApiKeys, api_version: int, body: Any) -> Any:
        try:
            self.connect()
            self._correlation_id += 1
            # the header carries the sender's span, so the receiver's handling joins its trace
            payload = encode_request(api_key, api_version, self._correlation_id, self.client_id, body,
                                     traceparent=current_traceparent())
            self._sock.sendall(_SIZE.pack(len(payload)) + payload)
            (size,) = _SIZE.unpack(self._read_exactly(4))
            response = decode_response(api_key, api_version, self._read_exactly(size))
            if response.correlation_id != self._correlation_id:
                raise OSError(f"Correlation id {response.correlation_id} does not match {self._correlation_id}")
            return response.body
        except Exception:
            self.disconnect()
            raise

    def _read_exactly(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            chunk = self._sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError(f"Connection to {self.host}:{self.port} closed before the response was read")
            data += chunk
        return bytes(data)
