"""Port of core/src/main/scala/kafka/network/RequestChannel.scala (Kafka 1.0.2)."""

from __future__ import annotations

import enum
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import completes_request, step
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS, KafkaPrincipal

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.clients.common.network.send import Send
    from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys


@dataclass(frozen=True)
class Session:
    """Who sent a request and from where: what the authorizer decides on."""

    principal: KafkaPrincipal
    client_address: str  # the client's IP, as InetAddress.getHostAddress gives it


@dataclass
class Request:
    """A request taken off a connection, with the timestamps Kafka's request metrics are computed from.

    `body` is None only for an ApiVersions request of an unsupported version, which is still answered. `api_key` is
    the header's ApiKeys member, as Kafka's `header.apiKey` is.
    """

    processor: int
    connection_id: str
    api_key: ApiKeys
    api_version: int
    correlation_id: int
    client_id: str
    body: Any
    size: int
    listener_name: str
    security_protocol: str
    start_time_ns: int = field(default_factory=time.time_ns)
    request_dequeue_time_ns: int = -1
    api_local_complete_time_ns: int = -1
    response_complete_time_ns: int = -1
    response_dequeue_time_ns: int = -1
    traceparent: str | None = None  # the caller's span, when another broker sent this request
    principal: KafkaPrincipal = ANONYMOUS  # who the connection logged in as (SASL), else ANONYMOUS

    @property
    def session(self) -> Session:
        return Session(self.principal, self.client_host[1:])

    @property
    def client_host(self) -> str:
        """The client's address as Kafka prints an InetAddress: "/127.0.0.1"."""
        return "/" + self.connection_id.split("-", 1)[1].rsplit(":", 1)[0]

    @completes_request
    def update_request_metrics(self, end_time_ns: int) -> dict[str, float]:
        """Where the request's time went, in ms (Kafka feeds these to its request histograms)."""
        def ms(later: int, earlier: int) -> float:
            return max(0.0, (later - earlier) / 1e6) if later >= 0 and earlier >= 0 else 0.0
        api_local_complete = self.api_local_complete_time_ns if self.api_local_complete_time_ns >= 0 \
            else self.response_complete_time_ns
        return {
            "kafka.request.queue_time_ms": ms(self.request_dequeue_time_ns, self.start_time_ns),
            "kafka.request.local_time_ms": ms(api_local_complete, self.request_dequeue_time_ns),
            "kafka.request.remote_time_ms": ms(self.response_complete_time_ns, api_local_complete),
            "kafka.request.throttle_time_ms": 0.0,
            "kafka.request.response_queue_time_ms": ms(self.response_dequeue_time_ns,
                                                       self.response_complete_time_ns),
            "kafka.request.response_send_time_ms": ms(end_time_ns, self.response_dequeue_time_ns),
            "kafka.request.total_time_ms": ms(end_time_ns, self.start_time_ns),
        }


SHUTDOWN_REQUEST = object()  # RequestChannel.ShutdownRequest: a handler that takes it stops


class ResponseAction(enum.Enum):
    SEND = "SendAction"
    NO_OP = "NoOpAction"
    CLOSE_CONNECTION = "CloseConnectionAction"


@dataclass
class Response:
    request: Request
    response_send: Send | bytes | None  # a payload as bytes is sent size-prefixed (a NetworkSend)
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

    @step("NW.channel.resp")
    def send_response(self, response: Response) -> None:
        response.request.response_complete_time_ns = time.time_ns()
        responses = self.processors.get(response.processor)
        if responses is not None:  # the processor is gone when the broker is stopping
            responses.put(response)
            self._response_listeners[response.processor]()

    def receive_request(self, timeout_ms: int) -> Request | object | None:
        try:
            return self.request_queue.get(timeout=timeout_ms / 1000)
        except queue.Empty:
            return None

    def send_shutdown_request(self) -> None:
        """Wakes one handler thread with the request that ends it."""
        self.request_queue.put(SHUTDOWN_REQUEST)

    def receive_response(self, processor: int) -> Response | None:
        try:
            response = self.processors[processor].get_nowait()
        except (queue.Empty, KeyError):
            return None
        response.request.response_dequeue_time_ns = time.time_ns()
        return response

    def clear(self) -> None:
        """Drop the requests no handler will take (the broker is stopping); each one's trace still ends."""
        while not self.request_queue.empty():
            request = self.request_queue.get_nowait()
            if isinstance(request, Request):
                request.update_request_metrics(time.time_ns())

    def shutdown(self) -> None:
        self.clear()
