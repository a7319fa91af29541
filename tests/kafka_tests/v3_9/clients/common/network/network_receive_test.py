"""Port of clients/src/test/java/org/apache/kafka/common/network/NetworkReceiveTest.java (Kafka 3.9).

The mocked ScatteringByteChannel is a unittest.mock whose read fills the buffer it is given, as the Mockito answer
does."""

from __future__ import annotations

from unittest import mock

from kafka_edu.v3_9.clients.common.network.network_receive import NetworkReceive
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.clients.common.network.network_test_utils import random_bytes

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/network/NetworkReceiveTest.java",
    cases=["testBytesRead"],
)


def test_bytes_read():
    receive = NetworkReceive(128, "0")
    assert receive.bytes_read() == 0

    channel = mock.Mock()

    answers = iter([lambda buffer: (buffer.put_int(128), 4)[1]])
    channel.read.side_effect = lambda buffer: next(answers, lambda _: 0)(buffer)  # thenAnswer(...).thenReturn(0)

    assert receive.read_from(channel) == 4
    assert receive.bytes_read() == 4
    assert not receive.complete()

    channel.reset_mock()
    channel.read.side_effect = lambda buffer: (buffer.put(random_bytes(64)), 64)[1]

    assert receive.read_from(channel) == 64
    assert receive.bytes_read() == 68
    assert not receive.complete()

    channel.reset_mock()
    channel.read.side_effect = lambda buffer: (buffer.put(random_bytes(64)), 64)[1]

    assert receive.read_from(channel) == 64
    assert receive.bytes_read() == 132
    assert receive.complete()
