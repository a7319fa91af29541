"""Our own test code, not a Kafka port: the 3.9 request path keeps the hooks the tracing needs. A request's header
(RequestHeader.parse, which the 3.9 Processor calls first) takes the sender's traceparent off the client id (header
v1) or out of the tagged fields (header v2); the Request built on it carries the traceparent and its wall-clock
start, and every consumer sees the plain client id."""

from __future__ import annotations

import datetime
import time

import pytest

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.core.network.request_channel import Request

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _produce(version: int) -> bytes:
    body = ApiKeys.PRODUCE.request_schema(version)(transactional_id=None, acks=1,
                                                   timeout=datetime.timedelta(seconds=1), topic_data=())
    return encode_request(ApiKeys.PRODUCE, version, 5, "producer-1", body, traceparent=TRACEPARENT)


@pytest.mark.parametrize("version", [8, 9])  # header v1 (client id suffix), header v2 (tagged field)
def test_request_carries_the_senders_traceparent_and_the_plain_client_id(version: int) -> None:
    buffer = ByteBuffer.wrap(_produce(version))
    header = RequestHeader.parse(buffer)
    assert header.client_id == "producer-1"
    assert header.traceparent == TRACEPARENT

    context = RequestContext(header, "127.0.0.1:9092-127.0.0.1:50000-0", "127.0.0.1", 50000, ANONYMOUS,
                             ListenerName("PLAINTEXT"), SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, False)
    before = time.time_ns()
    request = Request(0, context, 0, memory_pools.NONE, buffer)
    assert request.traceparent == TRACEPARENT
    assert before <= request.start_time_ns <= time.time_ns()
    assert request.body().acks == 1
    assert request.buffer is None  # given back to the pool


def test_an_unknown_api_key_is_an_invalid_request() -> None:
    with pytest.raises(InvalidRequestException):
        RequestHeader.parse(b"\x7f\x00\x00\x00\x00\x00\x00\x01")
