"""Port of core/src/main/scala/kafka/network/RequestChannel.scala (Kafka 3.9): the hand-off between the network
threads (Processors) and the request handler threads.

One bounded request queue (`queued.max.requests`) shared by all processors, and a callback queue of the same size for
the async steps that resume on a handler thread (KafkaRequestHandler.wrap_async_callback); the responses go back to
the queue inside the Processor that read the request (3.9 moved it there from 1.0.2's RequestChannel).

Left out: the request metrics (RequestChannel.Metrics, RequestMetrics: Yammer histograms and meters; the 3.9 tree
has no metrics registry). `Request.update_request_metrics` still computes Kafka's timings, writes them to the request
log when it is on ("kafka.request.logger" at DEBUG) and returns them.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import queue
import time as _time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import completes_request, step
from kafka_edu.v1_0_2.clients.common.config.config_def import Password, Type
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.server.kafka_config import config_type
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.memory.memory_pool import MemoryPool
from kafka_edu.v3_9.clients.common.network.send import Send
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.request_context import RequestAndSize, RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.network import request_convert_to_json
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import error_counts
from kafka_edu.v3_9.storage.storage.internals.log import log_config

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.network.socket_server import Processor

log = Logging("kafka.network.RequestChannel")
request_logger = logging.getLogger("kafka.request.logger")


def is_request_logging_enabled() -> bool:
    return request_logger.isEnabledFor(logging.DEBUG)


_CONFIG_RESOURCE_TOPIC, _CONFIG_RESOURCE_BROKER = 2, 4  # ConfigResource.Type ids
_CONFIG_RESOURCE_BROKER_LOGGER, _CONFIG_RESOURCE_CLIENT_METRICS, _CONFIG_RESOURCE_GROUP = 8, 16, 32


def loggable_value(resource_type: int, name: str, value: str | None) -> str | None:
    """KafkaConfig.loggableValue (3.9): a config value as a log may show it; a password, or a config whose type is
    not known (it may be one), is hidden. Broker config types are the port's KafkaConfig's, topic ones 3.9's
    LogConfig's."""
    if resource_type == _CONFIG_RESOURCE_BROKER:
        type_ = config_type(name)
        maybe_sensitive = type_ is None or type_ is Type.PASSWORD
    elif resource_type == _CONFIG_RESOURCE_TOPIC:
        key = log_config.CONFIG.config_keys.get(name)
        maybe_sensitive = key is None or key.type is Type.PASSWORD
    elif resource_type in (_CONFIG_RESOURCE_BROKER_LOGGER, _CONFIG_RESOURCE_CLIENT_METRICS, _CONFIG_RESOURCE_GROUP):
        maybe_sensitive = False
    else:
        maybe_sensitive = True
    return Password.HIDDEN if maybe_sensitive else value


class BaseRequest:
    """What a handler thread can take off the request channel."""


class _ShutdownRequest(BaseRequest):
    def __repr__(self) -> str:
        return "ShutdownRequest"


class _WakeupRequest(BaseRequest):
    def __repr__(self) -> str:
        return "WakeupRequest"


ShutdownRequest = _ShutdownRequest()  # a handler that takes it stops
WakeupRequest = _WakeupRequest()  # "a callback is queued": the handler takes it from the callback queue


@dataclass(frozen=True)
class Session:
    """org.apache.kafka.network.Session: who sent a request and from where, what the authorizer decides on."""

    principal: KafkaPrincipal
    client_address: str | None


@dataclass
class CallbackRequest(BaseRequest):
    """An async step of `original_request` to run on a handler thread with that thread's RequestLocal."""

    fun: Callable[[Any], None]
    original_request: Request


class Request(BaseRequest):
    """A request read off a connection, with the times Kafka's request metrics are computed from.

    `start_time_nanos` is Kafka's (the processor's Time, monotonic); `start_time_ns` is the wall clock when the
    processor read the request, and `traceparent` the sender's span if it sent one: the hooks the tracing needs.
    """

    def __init__(self, processor: int, context: RequestContext, start_time_nanos: int, memory_pool: MemoryPool,
                 buffer: Any, metrics: Any = None, envelope: Request | None = None,
                 start_time_ns: int | None = None) -> None:
        self.processor = processor
        self.context = context
        self.start_time_nanos = start_time_nanos
        self.start_time_ns = _time.time_ns() if start_time_ns is None else start_time_ns
        self.memory_pool = memory_pool
        self.buffer = buffer
        self.metrics = metrics
        self.envelope = envelope
        # written by handler and purgatory threads, read by the network thread (Python's attribute writes are atomic)
        self.request_dequeue_time_nanos = -1
        self.api_local_complete_time_nanos = -1
        self.response_complete_time_nanos = -1
        self.response_dequeue_time_nanos = -1
        self.message_conversions_time_nanos = 0
        self.api_throttle_time_ms = 0
        self.temporary_memory_bytes = 0
        self.record_network_thread_time_callback: Callable[[int], None] | None = None
        self.callback_request_dequeue_time_nanos: int | None = None
        self.callback_request_complete_time_nanos: int | None = None

        self.session = Session(context.principal, context.client_address)

        self._body_and_size: RequestAndSize = context.parse_request(buffer)

        # made now, before the API layer can take the request apart (a produce request parked in purgatory)
        self.request_log: Any = (request_convert_to_json.request(self.loggable_request())
                                 if is_request_logging_enabled() else None)

        # Kafka keeps the buffer only for bodies that refer into it (Produce's records); kio copies every field out
        # of the frame, so the buffer can go back at once for every API.
        self.release_buffer()

    @property
    def header(self) -> RequestHeader:
        return self.context.header

    @property
    def traceparent(self) -> str | None:
        return self.context.header.traceparent

    def size_of_body_in_bytes(self) -> int:
        return self._body_and_size.size

    def size_in_bytes(self) -> int:
        return self.header.size + self.size_of_body_in_bytes()

    def is_forwarded(self) -> bool:
        return self.envelope is not None

    def _should_return_not_controller(self, response: Any) -> bool:
        errors = error_counts(response)
        if self.header.api_key is ApiKeys.DESCRIBE_QUORUM:
            return Errors.NOT_LEADER_OR_FOLLOWER in errors
        return Errors.NOT_CONTROLLER in errors

    def build_response_send(self, response: Any) -> Send:
        """The framed response; for a forwarded request, the response wrapped in the envelope's answer."""
        if self.envelope is None:
            return self.context.build_response_send(response)
        envelope_schema = ApiKeys.ENVELOPE.response_schema(self.envelope.header.api_version)
        if self._should_return_not_controller(response):
            # the forwarding broker learns it must look for the new active controller
            envelope_response = envelope_schema(response_data=None, error_code=Errors.NOT_CONTROLLER)
        else:
            payload = encode_response(self.header.api_key, self.context.api_version(), self.header.correlation_id,
                                      response)
            envelope_response = envelope_schema(response_data=payload, error_code=Errors.NONE)
        return self.envelope.context.build_response_send(envelope_response)

    def response_node(self, response: Any) -> Any:
        if is_request_logging_enabled():
            return request_convert_to_json.response(response, self.context.api_version())
        return None

    def header_for_logging_or_throttling(self) -> RequestHeader:
        return self.envelope.context.header if self.envelope is not None else self.context.header

    def request_desc(self, details: bool) -> str:
        forward_description = f"Forwarded request: {self.envelope.context} " if self.envelope is not None else ""
        body = self.loggable_request() if details else type(self.loggable_request()).__name__
        return f"{forward_description}{self.header} -- {body}"

    def body(self, expected_type: type | None = None) -> Any:
        """The parsed body (a kio message); ClassCastException's TypeError if it is not of `expected_type`."""
        request = self._body_and_size.request
        if expected_type is not None and not isinstance(request, expected_type):
            raise TypeError(f"Expected request with type {expected_type}, but found {type(request)}")
        return request

    def loggable_request(self) -> Any:
        """The body as a log may show it: AlterConfigs and IncrementalAlterConfigs with the values of sensitive
        configs hidden."""
        request = self._body_and_size.request
        if self.header.api_key is ApiKeys.ALTER_CONFIGS or type(request).__name__ == "IncrementalAlterConfigsRequest":
            return dataclasses.replace(request, resources=tuple(
                dataclasses.replace(resource, configs=tuple(
                    dataclasses.replace(config, value=loggable_value(int(resource.resource_type), config.name,
                                                                     config.value))
                    for config in resource.configs))
                for resource in request.resources))
        return request

    def request_thread_time_nanos(self) -> int:
        if self.api_local_complete_time_nanos == -1:
            self.api_local_complete_time_nanos = SYSTEM.nanoseconds()
        return max(self.api_local_complete_time_nanos - self.request_dequeue_time_nanos, 0)

    @completes_request
    def update_request_metrics(self, network_thread_time_nanos: int, response: Response) -> dict[str, float]:
        """Where the request's time went, in ms, as Kafka computes it for its request histograms: a callback's time
        counts as local time, not remote. Returned (the port has no histograms)."""
        end_time_nanos = SYSTEM.nanoseconds()

        def nanos_to_ms(nanos: int) -> float:
            return max(nanos, 0) // 1000 / 1000

        request_queue_time_ms = nanos_to_ms(self.request_dequeue_time_nanos - self.start_time_nanos)
        callback_request_time_nanos = ((self.callback_request_complete_time_nanos or 0)
                                       - (self.callback_request_dequeue_time_nanos or 0))
        api_local_time_ms = nanos_to_ms(self.api_local_complete_time_nanos - self.request_dequeue_time_nanos
                                        + callback_request_time_nanos)
        api_remote_time_ms = nanos_to_ms(self.response_complete_time_nanos - self.api_local_complete_time_nanos
                                         - callback_request_time_nanos)
        response_queue_time_ms = nanos_to_ms(self.response_dequeue_time_nanos - self.response_complete_time_nanos)
        response_send_time_ms = nanos_to_ms(end_time_nanos - self.response_dequeue_time_nanos)
        total_time_ms = nanos_to_ms(end_time_nanos - self.start_time_nanos)

        # the network thread's time counts towards the client's request quota
        if self.record_network_thread_time_callback is not None:
            self.record_network_thread_time_callback(network_thread_time_nanos)

        if is_request_logging_enabled():
            desc = request_convert_to_json.request_desc_metrics(
                self.header, self.request_log, getattr(response, "response_log_value", None), self.context,
                self.session, self.is_forwarded(), total_time_ms, request_queue_time_ms, api_local_time_ms,
                api_remote_time_ms, self.api_throttle_time_ms, response_queue_time_ms, response_send_time_ms,
                self.temporary_memory_bytes, nanos_to_ms(self.message_conversions_time_nanos))
            request_logger.debug("Completed request:%s", json.dumps(desc))

        return {
            "request_queue_time_ms": request_queue_time_ms,
            "local_time_ms": api_local_time_ms,
            "remote_time_ms": api_remote_time_ms,
            "throttle_time_ms": float(self.api_throttle_time_ms),
            "response_queue_time_ms": response_queue_time_ms,
            "response_send_time_ms": response_send_time_ms,
            "message_conversions_time_ms": nanos_to_ms(self.message_conversions_time_nanos),
            "total_time_ms": total_time_ms,
        }

    def release_buffer(self) -> None:
        if self.envelope is not None:
            self.envelope.release_buffer()
        elif self.buffer is not None:
            self.memory_pool.release(self.buffer)
            self.buffer = None

    def __repr__(self) -> str:
        return (f"Request(processor={self.processor}, connectionId={self.context.connection_id}, "
                f"session={self.session}, listenerName={self.context.listener_name}, "
                f"securityProtocol={self.context.security_protocol.name}, buffer={self.buffer}, "
                f"envelope={self.envelope})")


class Response:
    """What a handler hands back to the processor for a request: exactly one of Send, NoOp, CloseConnection, plus
    any StartThrottling/EndThrottling pair."""

    def __init__(self, request: Request) -> None:
        self.request = request

    @property
    def processor(self) -> int:
        return self.request.processor

    def on_complete(self) -> Callable[[Send], None] | None:
        return None


class SendResponse(Response):
    def __init__(self, request: Request, response_send: Send, response_log_value: Any = None,
                 on_complete_callback: Callable[[Send], None] | None = None) -> None:
        super().__init__(request)
        self.response_send = response_send
        self.response_log_value = response_log_value
        self.on_complete_callback = on_complete_callback

    def on_complete(self) -> Callable[[Send], None] | None:
        return self.on_complete_callback

    def __repr__(self) -> str:
        return f"Response(type=Send, request={self.request}, send={self.response_send})"


class NoOpResponse(Response):
    def __repr__(self) -> str:
        return f"Response(type=NoOp, request={self.request})"


class CloseConnectionResponse(Response):
    def __repr__(self) -> str:
        return f"Response(type=CloseConnection, request={self.request})"


class StartThrottlingResponse(Response):
    def __repr__(self) -> str:
        return f"Response(type=StartThrottling, request={self.request})"


class EndThrottlingResponse(Response):
    def __repr__(self) -> str:
        return f"Response(type=EndThrottling, request={self.request})"


class RequestChannel:
    def __init__(self, queue_size: int, metric_name_prefix: str = "", time: Time = SYSTEM,
                 metrics: Any = None) -> None:
        self.queue_size = queue_size
        self.metric_name_prefix = metric_name_prefix
        self.time = time
        self.metrics = metrics
        self._request_queue: queue.Queue[BaseRequest] = queue.Queue(queue_size)
        self._processors: dict[int, Processor] = {}
        self._callback_queue: queue.Queue[BaseRequest] = queue.Queue(queue_size)

    def add_processor(self, processor: Processor) -> None:
        if self._processors.setdefault(processor.id, processor) is not processor:
            log.warning("Unexpected processor with processorId %d", processor.id)

    def remove_processor(self, processor_id: int) -> None:
        self._processors.pop(processor_id, None)

    def send_request(self, request: Request) -> None:
        """Blocks while the queue is full: back-pressure reaches the network threads, then the sockets."""
        self._request_queue.put(request)

    def close_connection(self, request: Request, error_counts: Mapping[Errors, int] | None = None) -> None:
        """A handler failed a request that expects no response (acks=0 produce): the connection is closed instead.
        `error_counts` feeds Kafka's error meters (not ported)."""
        self.send_response(CloseConnectionResponse(request))

    def send_response(self, response: Response | Request, body: Any = None,
                      on_complete: Callable[[Send], None] | None = None) -> None:
        """send_response(request, body, on_complete): frame `body` for `request` and send it;
        send_response(response): hand a built Response to its processor (Kafka's private[network] overload)."""
        if isinstance(response, Request):
            request = response
            response = SendResponse(request, request.build_response_send(body), request.response_node(body),
                                    on_complete)
        self._send_response(response)

    def send_no_op_response(self, request: Request) -> None:
        self._send_response(NoOpResponse(request))

    def start_throttling(self, request: Request) -> None:
        self._send_response(StartThrottlingResponse(request))

    def end_throttling(self, request: Request) -> None:
        self._send_response(EndThrottlingResponse(request))

    @step("NW.channel.resp")
    def _send_response(self, response: Response) -> None:
        if isinstance(response, (SendResponse, NoOpResponse, CloseConnectionResponse)):
            # one of these per request
            request = response.request
            time_nanos = self.time.nanoseconds()
            request.response_complete_time_nanos = time_nanos
            if request.api_local_complete_time_nanos == -1:
                request.api_local_complete_time_nanos = time_nanos
            # a callback that answered after KafkaApis returned: its time ends here
            if (request.callback_request_dequeue_time_nanos is not None
                    and request.callback_request_complete_time_nanos is None):
                request.callback_request_complete_time_nanos = self.time.nanoseconds()
        # throttling responses come on top of the request's one response: no times to set

        processor = self._processors.get(response.processor)
        # a processor that was shut down closed its connections: the response is dropped
        if processor is not None:
            processor.enqueue_response(response)

    def receive_request(self, timeout_ms: int | None = None) -> BaseRequest | None:
        """The next callback if one waits (it waited in line already), else the next request within `timeout_ms`
        (None when it passes); without a timeout, block until a request comes."""
        if timeout_ms is None:
            return self._request_queue.get()
        try:
            return self._callback_queue.get_nowait()
        except queue.Empty:
            pass
        try:
            request = self._request_queue.get(timeout=timeout_ms / 1000)
        except queue.Empty:
            return None
        if request is WakeupRequest:
            try:
                return self._callback_queue.get_nowait()
            except queue.Empty:
                return None
        return request

    def clear(self) -> None:
        for q in (self._request_queue, self._callback_queue):
            try:
                while True:
                    q.get_nowait()
            except queue.Empty:
                pass

    def shutdown(self) -> None:
        self.clear()

    def send_shutdown_request(self) -> None:
        self._request_queue.put(ShutdownRequest)

    def send_callback_request(self, request: CallbackRequest) -> None:
        self._callback_queue.put(request)
        try:
            self._request_queue.put_nowait(WakeupRequest)
        except queue.Full:
            # a full queue wakes the handlers anyway, and they poll the callback queue first
            log.debug("Wakeup request could not be added to queue. This means queue is full, so we will still "
                      "process callback.")

    def request_queue_size(self) -> int:
        return self._request_queue.qsize()
