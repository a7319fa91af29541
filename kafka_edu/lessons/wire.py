"""Our own code, not a Kafka port: a few raw requests on sockets the lesson controls, for what ordinary clients hide,
such as two requests written on one connection before either is answered."""

from __future__ import annotations

import socket
import struct
import time
from typing import Any

from kafka_edu.v3_9.clients.common.protocol import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request

FETCH_VERSION = 6
API_VERSIONS_VERSION = 1
_SIZE = struct.Struct(">i")


def frame(api: ApiKeys, version: int, correlation_id: int, client_id: str, body: Any) -> bytes:
    payload = encode_request(api, version, correlation_id, client_id, body)
    return _SIZE.pack(len(payload)) + payload


def long_poll_fetch(topic: str, partition: int, offset: int, max_wait_ms: int) -> Any:
    """A consumer's Fetch from `offset` that waits up to `max_wait_ms` for one byte to arrive."""
    return build(ApiKeys.FETCH.request_schema(FETCH_VERSION), replica_id=-1, max_wait=max_wait_ms, min_bytes=1,
                 max_bytes=1 << 20, isolation_level=0, topics=[dict(topic=topic, partitions=[dict(
                     partition=partition, fetch_offset=offset, log_start_offset=-1, partition_max_bytes=1 << 20)])])


def api_versions() -> Any:
    return build(ApiKeys.API_VERSIONS.request_schema(API_VERSIONS_VERSION))


def connect(bootstrap: str, timeout_s: float) -> socket.socket:
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=timeout_s)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_response(sock: socket.socket) -> int:
    """Read one whole response frame; its correlation id."""
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            data += chunk
        return data
    (size,) = _SIZE.unpack(exactly(4))
    return _SIZE.unpack(exactly(size)[:4])[0]


def pipelined_behind_long_poll(bootstrap: str, topic: str, partition: int, offset: int, max_wait_ms: int = 1000
                               ) -> dict[str, float]:
    """Write a long-poll Fetch and an ApiVersions back to back on one connection, and at the same moment an
    ApiVersions alone on a second connection; how many ms after the writes each answer arrived."""
    timeout_s = max_wait_ms / 1000 + 30
    with connect(bootstrap, timeout_s) as shared, connect(bootstrap, timeout_s) as alone:
        started = time.monotonic()
        shared.sendall(frame(ApiKeys.FETCH, FETCH_VERSION, 1, "lesson-pipelined",
                             long_poll_fetch(topic, partition, offset, max_wait_ms))
                       + frame(ApiKeys.API_VERSIONS, API_VERSIONS_VERSION, 2, "lesson-pipelined", api_versions()))
        alone.sendall(frame(ApiKeys.API_VERSIONS, API_VERSIONS_VERSION, 1, "lesson-alone", api_versions()))
        answered: dict[str, float] = {}
        read_response(alone)
        answered["alone_ms"] = (time.monotonic() - started) * 1000
        read_response(shared)
        answered["fetch_ms"] = (time.monotonic() - started) * 1000
        read_response(shared)
        answered["pipelined_ms"] = (time.monotonic() - started) * 1000
    return answered
