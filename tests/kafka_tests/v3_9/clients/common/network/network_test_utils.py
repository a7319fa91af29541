"""Port of clients/src/test/java/org/apache/kafka/common/network/NetworkTestUtils.java (Kafka 3.9): the helpers the
network tests share. The NioEchoServer factories (SSL/SASL transport tests) are not ported."""

from __future__ import annotations

import random
import string
import time as _time
from typing import Any

from kafka_edu.v3_9.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v3_9.clients.common.network.channel_builder import ChannelBuilder
from kafka_edu.v3_9.clients.common.network.channel_state import ChannelState, State
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.network.network_receive import UNLIMITED, NetworkReceive
from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend
from kafka_edu.v3_9.clients.common.network.selector import Selector
from kafka_edu.v3_9.clients.common.utils.time import Time


def random_string(length: int) -> str:
    """org.apache.kafka.test.TestUtils.randomString."""
    return "".join(random.choices(string.ascii_letters + string.digits, k=length))


def random_bytes(size: int) -> bytes:
    """org.apache.kafka.test.TestUtils.randomBytes."""
    return random.randbytes(size)


def as_string(receive: NetworkReceive) -> str:
    """new String(Utils.toArray(receive.payload())): the payload from its position to its limit."""
    payload = receive.payload()
    return bytes(payload.array()[payload.position():payload.limit()]).decode()


def create_selector(channel_builder: ChannelBuilder, time: Time) -> Selector:
    return Selector(UNLIMITED, 5000, time, channel_builder)


def _send(node: str, payload: str) -> NetworkSend:
    return NetworkSend(node, ByteBufferSend.size_prefixed(ByteBuffer.wrap(payload.encode())))


def check_client_connection(selector: Selector, node: str, min_message_size: int, message_count: int) -> None:
    wait_for_channel_ready(selector, node)
    prefix = random_string(min_message_size)
    requests = 0
    responses = 0
    selector.send(_send(node, prefix + "-0"))
    requests += 1
    while responses < message_count:
        selector.poll(0)
        assert len(selector.disconnected()) == 0, f"No disconnects should have occurred .{selector.disconnected()}"
        for receive in selector.completed_receives():
            assert as_string(receive) == f"{prefix}-{responses}"
            responses += 1
        i = 0
        while i < len(selector.completed_sends()) and requests < message_count and selector.is_channel_ready(node):
            selector.send(_send(node, f"{prefix}-{requests}"))
            i += 1
            requests += 1


def wait_for_channel_connected(selector: Selector, node: str) -> None:
    seconds_left = 30
    while selector.channel(node) is not None and not selector.channel(node).is_connected() and seconds_left > 0:
        seconds_left -= 1
        selector.poll(1000)
    assert selector.channel(node) is not None
    assert selector.channel(node).is_connected(), f"Channel {node} was not connected after 30 seconds"


def wait_for_channel_ready(selector: Selector, node: str) -> None:
    # until the handshake is done
    seconds_left = 30
    while not selector.is_channel_ready(node) and seconds_left > 0:
        seconds_left -= 1
        selector.poll(1000)
    assert selector.is_channel_ready(node), f"Channel {node} was not ready after 30 seconds"


def wait_for_channel_close(selector: Selector, node: str, channel_state: State,
                           delay_between_poll_ms: int = 0) -> ChannelState:
    closed = False
    for _ in range(300):
        if delay_between_poll_ms > 0:
            _time.sleep(delay_between_poll_ms / 1000)  # Utils.sleep: Kafka's pacing, not a synchronisation
        selector.poll(100)
        if selector.channel(node) is None and selector.closing_channel(node) is None:
            closed = True
            break
    assert closed, "Channel was not closed by timeout"
    final_state = selector.disconnected().get(node)
    assert final_state.state() is channel_state
    return final_state


def complete_delayed_channel_close(selector: Selector, current_time_nanos: int) -> None:
    selector.complete_delayed_channel_close(current_time_nanos)


def delayed_closing_channels(selector: Selector) -> dict[str, Any] | None:
    return selector.delayed_closing_channels()
