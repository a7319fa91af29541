"""Port of core/src/main/scala/kafka/network/RequestChannel.scala (Kafka 1.0.2)."""

from __future__ import annotations

import enum
import queue
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

_HEADER_PREFIX = struct.Struct(">hhi")


class InvalidRequestException(Exception):
    """org.apache.kafka.common.errors.InvalidRequestException: a request the broker cannot parse."""


@dataclass(frozen=True)
class RequestHeader:
    """The common prefix of every request header: enough to route and to answer."""

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    size: int  # bytes the header occupies (the body follows)

    @classmethod
    def parse(cls, buffer: bytes) -> RequestHeader:
        if len(buffer) < _HEADER_PREFIX.size + 2:
            raise InvalidRequestException(f"request header needs at least 10 bytes, got {len(buffer)}")
        api_key, api_version, correlation_id = _HEADER_PREFIX.unpack_from(buffer)
        (length,) = struct.unpack_from(">h", buffer, 8)
        if length < 0:
            return cls(api_key, api_version, correlation_id, None, 10)
        if 10 + length > len(buffer):
            raise InvalidRequestException("client id runs past the end of the request")
        client_id = buffer[10:10 + length].decode("utf-8", errors="replace")
        return cls(api_key, api_version, correlation_id, client_id, 10 + length)


@dataclass
class Request:
    """A request taken off a connection, with the timestamps Kafka's request metrics are computed from."""

    processor: int
    connection_id: str
    header: RequestHeader
    buffer: bytes
    listener_name: str
    security_protocol: str
    start_time_ns: int = field(default_factory=time.monotonic_ns)
    request_dequeue_time_ns: int = 0
    api_local_complete_time_ns: int = 0
    response_complete_time_ns: int = 0
    response_dequeue_time_ns: int = 0
    context: object = None  # the trace context the handler continues


class ResponseAction(enum.Enum):
    SEND = "SendAction"
    NO_OP = "NoOpAction"
    CLOSE_CONNECTION = "CloseConnectionAction"


@dataclass
class Response:
    request: Request
    response_send: bytes | None
    response_action: ResponseAction

    @property
    def processor(self) -> int:
        return self.request.processor


class RequestChannel:
    """One bounded queue of requests shared by all processors; one response queue per processor."""

    def __init__(self, queue_size: int) -> None:
        self.request_queue: queue.Queue[Request] = queue.Queue(maxsize=queue_size)
        self.processors: dict[int, queue.Queue[Response]] = {}
        self._response_listeners: dict[int, Callable[[], None]] = {}

    def add_processor(self, processor_id: int, wakeup: Callable[[], None]) -> None:
        self.processors[processor_id] = queue.Queue()
        self._response_listeners[processor_id] = wakeup

    def remove_processor(self, processor_id: int) -> None:
        self.processors.pop(processor_id, None)
        self._response_listeners.pop(processor_id, None)

    def send_request(self, request: Request) -> None:
        """Blocks while the queue is full: back-pressure on the network threads."""
        self.request_queue.put(request)

    def send_response(self, response: Response) -> None:
        responses = self.processors.get(response.processor)
        if responses is not None:  # the processor is gone when the broker is stopping
            responses.put(response)
            self._response_listeners[response.processor]()

    def receive_request(self, timeout_ms: int) -> Request | None:
        try:
            return self.request_queue.get(timeout=timeout_ms / 1000)
        except queue.Empty:
            return None

    def receive_response(self, processor: int) -> Response | None:
        try:
            response = self.processors[processor].get_nowait()
        except (queue.Empty, KeyError):
            return None
        response.request.response_dequeue_time_ns = time.monotonic_ns()
        return response

    def clear(self) -> None:
        while not self.request_queue.empty():
            self.request_queue.get_nowait()

    def shutdown(self) -> None:
        self.clear()
