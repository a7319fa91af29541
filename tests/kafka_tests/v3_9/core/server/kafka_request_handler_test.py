"""Port of core/src/test/scala/kafka/server/KafkaRequestHandlerTest.scala (Kafka 3.9).

A KafkaRequestHandler run on the test thread against a stand-in API layer, and callbacks wrapped with
wrap_async_callback fired from another thread (CompletableFuture.runAsync) or from the handler thread itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.utils.buffer_supplier import BufferSupplier
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.core.network.request_channel import Request, RequestChannel
from kafka_edu.v3_9.core.server.kafka_request_handler import ApiRequestHandler, KafkaRequestHandler, wrap_async_callback
from kafka_edu.v3_9.core.server.request_local import RequestLocal
from tests.kafka_tests.referee import kafka_test_class

_REMOTE = ("BrokerTopicStats' remote-storage metrics (Yammer gauges and meters): tiered storage is not ported and the "
           "3.9 tree has no metrics registry")
_METRICS = "BrokerTopicStats' per-topic Yammer meters: the 3.9 tree has no metrics registry"

_CASES = ["testCallbackTiming", "testCallbackTryCompleteActions", "testHandlingCallbackOnNewThread",
          "testCallbackOnSameThread", "testTopicStats", "testSingularCopyLagBytesMetric",
          "testMultipleCopyLagBytesMetrics", "testCopyLagBytesMetricWithPartitionExpansion",
          "testCopyLagBytesMetricWithPartitionShrinking", "testCopyLagBytesMetricWithRemovingNonexistentPartitions",
          "testCopyLagBytesMetricClear", "testMultipleCopyLagSegmentsMetrics",
          "testCopyLagSegmentsMetricWithPartitionExpansion", "testCopyLagSegmentsMetricWithPartitionShrinking",
          "testCopyLagSegmentsMetricWithRemovingNonexistentPartitions", "testCopyLagSegmentsMetricClear",
          "testMultipleDeleteLagBytesMetrics", "testDeleteLagBytesMetricWithPartitionExpansion",
          "testDeleteLagBytesMetricWithPartitionShrinking",
          "testDeleteLagBytesMetricWithRemovingNonexistentPartitions", "testDeleteLagBytesMetricClear",
          "testMultipleDeleteLagSegmentsMetrics", "testDeleteLagSegmentsMetricWithPartitionExpansion",
          "testDeleteLagSegmentsMetricWithPartitionShrinking",
          "testDeleteLagSegmentsMetricWithRemovingNonexistentPartitions", "testDeleteLagSegmentsMetricClear",
          "testRemoteLogMetadataCount", "testSingularLogSizeBytesMetric", "testMultipleLogSizeBytesMetrics",
          "testLogSizeBytesMetricWithPartitionExpansion", "testLogSizeBytesMetricWithPartitionShrinking",
          "testLogSizeBytesMetricWithRemovingNonexistentPartitions", "testLogSizeBytesMetricClear",
          "testGaugeClose"]

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/kafka/server/KafkaRequestHandlerTest.scala",
    cases=_CASES,
    not_applicable={case: (_METRICS if case == "testTopicStats" else _REMOTE) for case in _CASES[4:]},
)


class ApiHandler(ApiRequestHandler):
    """The ApiRequestHandler mock: `handle` answers with `on_handle`."""

    def __init__(self, on_handle: Callable[[Request, Any], None]) -> None:
        self.on_handle = on_handle
        self.try_complete_action_count = 0

    def handle(self, request: Request, request_local: Any) -> None:
        self.on_handle(request, request_local)

    def try_complete_actions(self) -> None:
        self.try_complete_action_count += 1


class CountingRequestLocal:
    """A RequestLocal mock that counts reads of its buffer supplier (Mockito's verify(..., times(n)))."""

    def __init__(self, buffer_supplier: BufferSupplier | None = None) -> None:
        self._buffer_supplier = buffer_supplier
        self.buffer_supplier_reads = 0

    @property
    def buffer_supplier(self) -> BufferSupplier | None:
        self.buffer_supplier_reads += 1
        return self._buffer_supplier


def run_async(fn: Callable[[], None]) -> None:
    """CompletableFuture.runAsync: on another thread."""
    threading.Thread(target=fn, daemon=True).start()


def make_request(time: MockTime) -> Request:
    # an ApiVersions v0 request: nothing to parse in its body
    body = ApiKeys.API_VERSIONS.request_schema(0)()
    buffer = encode_request(ApiKeys.API_VERSIONS, 0, 0, "", body)
    context = RequestContext(RequestHeader.parse(buffer), "0", None, None, KafkaPrincipal("", ""), ListenerName(""),
                             SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, False)
    return Request(0, context, time.nanoseconds(), memory_pools.NONE, buffer, None)


def test_callback_timing() -> None:
    time = MockTime()
    start_time = time.nanoseconds()
    request_channel = RequestChannel(10, "", time, None)
    handler: KafkaRequestHandler | None = None
    request = make_request(time)

    def on_handle(req: Request, _request_local: Any) -> None:
        assert req is request
        time.sleep(2)

        def callback_fn(_request_local: Any, ms: int) -> None:
            time.sleep(ms)
            handler.stop()
        callback = wrap_async_callback(callback_fn, RequestLocal.NO_CACHING)
        # the callback fires on another thread
        run_async(lambda: callback(1))
        request.api_local_complete_time_nanos = time.nanoseconds()

    handler = KafkaRequestHandler(0, 0, None, 1, request_channel, ApiHandler(on_handle), time)
    request_channel.send_request(request)

    handler.run()

    assert request.request_dequeue_time_nanos == start_time
    assert request.api_local_complete_time_nanos == start_time + 2000000
    assert request.callback_request_dequeue_time_nanos == start_time + 2000000
    assert request.callback_request_complete_time_nanos == start_time + 3000000


def test_callback_try_complete_actions() -> None:
    time = MockTime()
    request_channel = RequestChannel(10, "", time, None)
    handler: KafkaRequestHandler | None = None
    handled_count = 0
    request = make_request(time)

    def on_handle(req: Request, _request_local: Any) -> None:
        nonlocal handled_count
        assert req is request
        handled_count += 1
        callback = wrap_async_callback(lambda _request_local, _value: handler.stop(), RequestLocal.NO_CACHING)
        run_async(lambda: callback(1))

    api_handler = ApiHandler(on_handle)
    handler = KafkaRequestHandler(0, 0, None, 1, request_channel, api_handler, time)
    request_channel.send_request(request)

    handler.run()

    assert handled_count == 1
    assert api_handler.try_complete_action_count == 1


def test_handling_callback_on_new_thread() -> None:
    time = MockTime()
    request_channel = RequestChannel(10, "", time, None)
    handler: KafkaRequestHandler | None = None
    original_request_local = CountingRequestLocal()
    handled_count = 0
    request = make_request(time)

    def on_handle(req: Request, _request_local: Any) -> None:
        def callback_fn(req_local: Any, _value: int) -> None:
            nonlocal handled_count
            req_local.buffer_supplier.close()
            handled_count += 1
            handler.stop()
        callback = wrap_async_callback(callback_fn, original_request_local)
        run_async(lambda: callback(1))

    handler = KafkaRequestHandler(0, 0, None, 1, request_channel, ApiHandler(on_handle), time)
    request_channel.send_request(request)

    handler.run()
    # the handler thread's own RequestLocal, not the one passed in
    assert original_request_local.buffer_supplier_reads == 0
    assert handled_count == 1


def test_callback_on_same_thread() -> None:
    time = MockTime()
    request_channel = RequestChannel(10, "", time, None)
    handler: KafkaRequestHandler | None = None
    original_request_local = CountingRequestLocal(BufferSupplier.create())
    handled_count = 0
    request = make_request(time)

    def on_handle(req: Request, _request_local: Any) -> None:
        def callback_fn(req_local: Any, _value: int) -> None:
            nonlocal handled_count
            req_local.buffer_supplier.close()
            handled_count += 1
            handler.stop()
        callback = wrap_async_callback(callback_fn, original_request_local)
        # before the request returns, on its handler thread
        callback(1)

    handler = KafkaRequestHandler(0, 0, None, 1, request_channel, ApiHandler(on_handle), time)
    request_channel.send_request(request)

    handler.run()
    # the RequestLocal passed in
    assert original_request_local.buffer_supplier_reads == 1
    assert handled_count == 1
