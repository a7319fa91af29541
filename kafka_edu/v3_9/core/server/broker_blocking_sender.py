"""Port of core/src/main/scala/kafka/server/BrokerBlockingSender.scala (Kafka 3.9): BlockingSend, one request at a time
to the leader a replica fetcher follows, and BrokerBlockingSender, its implementation over a connection to that broker.

Kafka builds it on a NetworkClient driven by NetworkClientUtils (awaitReady, then sendAndReceive). The port has no
NetworkClient: the connection is a blocking socket speaking the 3.9 wire codec, with the same behaviour seen from the
fetcher: connect within replica.socket.timeout.ms, wait for the response up to request.timeout.ms, and on any failure
close the connection and rethrow (the fetcher backs off and the next request reconnects).
"""

from __future__ import annotations

import socket
import struct
import threading
from abc import ABC, abstractmethod
from typing import Any

from kafka_edu.tracing.step import current_traceparent
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build, values
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response, encode_request
from kafka_edu.v3_9.clients.common.requests.fetch_request import ZERO_UUID
from kafka_edu.v3_9.clients.common.requests.fetch_response import (
    FetchableTopicResponse,
    FetchResponse,
    FetchResponseData,
    PartitionData,
    partition_data,
)
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint

_SIZE = struct.Struct(">i")


class BlockingSend(ABC):
    """What a RemoteLeaderEndPoint sends its requests through. A request builder has `api_key`,
    `latest_allowed_version` and `build(version)`, the built request `to_kio()` (AbstractRequest.Builder)."""

    @abstractmethod
    def broker_end_point(self) -> BrokerEndPoint: ...

    @abstractmethod
    def send_request(self, request_builder: Any) -> ClientResponse: ...

    @abstractmethod
    def initiate_close(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...


class BrokerBlockingSender(BlockingSend):
    """One connection to `source_broker`, opened on the first request and again after a failure."""

    def __init__(self, source_broker: BrokerEndPoint, broker_config: Any, metrics: Any, time: Time, fetcher_id: int,
                 client_id: str, log_prefix: str = "") -> None:
        self.source_broker = source_broker
        self.broker_config = broker_config
        self.time = time
        self.fetcher_id = fetcher_id
        self.client_id = client_id
        self.log = Logging("kafka.server.BrokerBlockingSender", log_prefix)
        self._socket_timeout_ms: int = broker_config.replica_socket_timeout_ms
        self._request_timeout_ms: int = broker_config.request_timeout_ms
        self._receive_buffer_bytes: int = broker_config.replica_socket_receive_buffer_bytes
        # NetworkClient's state: the connection, the next correlation id, and whether close has begun (a closing
        # client sends nothing more)
        self._sock: socket.socket | None = None
        self._correlation_id = 0
        self._closing = False
        self._lock = threading.Lock()

    def broker_end_point(self) -> BrokerEndPoint:
        return self.source_broker

    def send_request(self, request_builder: Any) -> ClientResponse:
        try:
            if not self._await_ready():
                raise TimeoutError(f"Failed to connect within {self._socket_timeout_ms} ms")
            return self._send_and_receive(request_builder)
        except BaseException:
            self._close_connection()
            raise

    def _await_ready(self) -> bool:
        """NetworkClientUtils.awaitReady: connected, or connected now within the socket timeout. A refused or
        unreachable broker raises OSError, as NetworkClient reports a failed connection."""
        with self._lock:
            if self._closing:
                raise OSError("Client was shutdown before response was read")
            if self._sock is not None:
                return True
        try:
            sock = socket.create_connection((self.source_broker.host, self.source_broker.port),
                                            timeout=self._socket_timeout_ms / 1000)
        except TimeoutError:
            return False
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self._receive_buffer_bytes > 0:  # -1 is the OS default (Selectable.USE_DEFAULT_BUFFER_SIZE)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self._receive_buffer_bytes)
        # the response may wait in the leader's purgatory up to replica.fetch.wait.max.ms: request.timeout.ms bounds it
        sock.settimeout(self._request_timeout_ms / 1000)
        with self._lock:
            if self._closing:
                sock.close()
                raise OSError("Client was shutdown before response was read")
            self._sock = sock
        return True

    def _send_and_receive(self, request_builder: Any) -> ClientResponse:
        """NetworkClientUtils.sendAndReceive: send one request and block until its response."""
        version = request_builder.latest_allowed_version  # no version discovery, as Kafka's fetcher client
        request = request_builder.build(version)
        api_key: ApiKeys = request_builder.api_key
        self._correlation_id += 1
        header = RequestHeader(api_key, version, self.client_id, self._correlation_id,
                               api_key.request_header_version(version))
        created_time_ms = self.time.milliseconds()
        # the sending span (a follower's fetch round) goes along: the leader's handling joins its trace
        payload = encode_request(api_key, version, header.correlation_id, self.client_id, request.to_kio(),
                                 traceparent=current_traceparent())
        sock = self._sock
        sock.sendall(_SIZE.pack(len(payload)) + payload)
        (size,) = _SIZE.unpack(self._read_exactly(sock, 4))
        response = decode_response(api_key, version, self._read_exactly(sock, size))
        if response.correlation_id != header.correlation_id:
            raise OSError(f"Correlation id for response ({response.correlation_id}) does not match request "
                          f"({header.correlation_id}), request header: {header}")
        return ClientResponse(header, str(self.source_broker.id), created_time_ms, self.time.milliseconds(),
                              disconnected=False, version_mismatch=None, authentication_exception=None,
                              response_body=parse_response(api_key, response.body))

    def _read_exactly(self, sock: socket.socket, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise OSError(f"Connection to {self.source_broker.id} was disconnected before the response was read")
            data += chunk
        return bytes(data)

    def _close_connection(self) -> None:
        """NetworkClient.close(nodeId)."""
        with self._lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def initiate_close(self) -> None:
        """NetworkClient.initiateClose: no new request goes out, and one blocked on the socket returns with an
        error (the selector's wakeup), so the fetcher thread can see its shutdown."""
        with self._lock:
            self._closing = True
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # not connected any more

    def close(self) -> None:
        with self._lock:
            self._closing = True
        self._close_connection()

    def __str__(self) -> str:
        return f"BrokerBlockingSender(sourceBroker={self.source_broker}, fetcherId={self.fetcher_id})"


def parse_response(api_key: ApiKeys, body: Any) -> Any:
    """AbstractResponse.parseResponse for the requests a fetcher sends: a Fetch response becomes a FetchResponse (its
    partitions as the newest version's PartitionData, defaults where the version lacks a field); ListOffsets and
    OffsetForLeaderEpoch stay kio's messages of their version (their response classes are not ported)."""
    if api_key is not ApiKeys.FETCH:
        return body
    defaults = values(partition_data())
    responses = []
    for topic in body.responses:
        partitions = []
        for p in topic.partitions:
            fields = {**defaults, **values(p)}
            fields["error_code"], fields["records"] = p.error_code, p.records
            partitions.append(build(PartitionData, **fields))
        topic_id = getattr(topic, "topic_id", None)
        responses.append(FetchableTopicResponse(getattr(topic, "topic", None),
                                                ZERO_UUID if topic_id is None else topic_id, partitions))
    throttle_time = getattr(body, "throttle_time", None)
    return FetchResponse(FetchResponseData(
        throttle_time_ms=0 if throttle_time is None else int(throttle_time.total_seconds() * 1000),
        error_code=getattr(body, "error_code", 0), session_id=getattr(body, "session_id", 0), responses=responses))
