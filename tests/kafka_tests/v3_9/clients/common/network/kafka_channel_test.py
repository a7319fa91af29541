"""Port of clients/src/test/java/org/apache/kafka/common/network/KafkaChannelTest.java (Kafka 3.9).

Mockito's mocks are unittest.mock ones; where Mockito's default answer (false, an empty Optional) matters, it is set."""

from __future__ import annotations

from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.network.kafka_channel import KafkaChannel
from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.clients.common.network.network_test_utils import random_bytes

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/network/KafkaChannelTest.java",
    cases=["testSending", "testReceiving"],
)


def _transport() -> mock.Mock:
    transport = mock.Mock()
    transport.has_pending_writes.return_value = False
    transport.ready.return_value = False
    return transport


def test_sending():
    authenticator = mock.Mock()
    transport = _transport()
    pool = mock.Mock()
    metadata_registry = mock.Mock()

    channel = KafkaChannel("0", transport, lambda: authenticator, 1024, pool, metadata_registry)
    send = ByteBufferSend.size_prefixed(ByteBuffer.wrap(random_bytes(128)))
    network_send = NetworkSend("0", send)

    channel.set_send(network_send)
    assert channel.has_send()
    with pytest.raises(IllegalStateException):
        channel.set_send(network_send)

    transport.write.return_value = 4
    assert channel.write() == 4
    assert send.remaining() == 128
    assert channel.maybe_complete_send() is None

    transport.write.return_value = 64
    assert channel.write() == 64
    assert send.remaining() == 64
    assert channel.maybe_complete_send() is None

    transport.write.return_value = 64
    assert channel.write() == 64
    assert send.remaining() == 0
    assert channel.maybe_complete_send() is network_send


def test_receiving():
    authenticator = mock.Mock()
    transport = _transport()
    pool = mock.Mock()
    metadata_registry = mock.Mock()

    pool.try_allocate.side_effect = lambda size: ByteBuffer.allocate(size)

    channel = KafkaChannel("0", transport, lambda: authenticator, 1024, pool, metadata_registry)

    answers = iter([lambda buffer: (buffer.put_int(128), 4)[1]])
    transport.read.side_effect = lambda buffer: next(answers, lambda _: 0)(buffer)  # thenAnswer(...).thenReturn(0)
    assert channel.read() == 4
    assert channel.current_receive().bytes_read() == 4
    assert channel.maybe_complete_receive() is None

    transport.reset_mock()
    transport.read.side_effect = lambda buffer: (buffer.put(random_bytes(64)), 64)[1]
    assert channel.read() == 64
    assert channel.current_receive().bytes_read() == 68
    assert channel.maybe_complete_receive() is None

    transport.reset_mock()
    transport.read.side_effect = lambda buffer: (buffer.put(random_bytes(64)), 64)[1]
    assert channel.read() == 64
    assert channel.current_receive().bytes_read() == 132
    assert channel.maybe_complete_receive() is not None
    assert channel.current_receive() is None
