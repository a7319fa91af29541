"""Port of core/src/test/scala/unit/kafka/network/ConnectionQuotasTest.scala (Kafka 3.9).

ConnectionQuotas on its own, connections "accepted" from executor threads (inc() blocks while a limit is reached).
The acceptor's blocked-percent meter is a counting stand-in for Kafka's Yammer Meter. Assertions on Kafka Metrics
sensors (connection-accept-rate, throttle times) have nothing to read in the port and are left out of the cases
that also check counts.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.network.socket_server import (
    INT_MAX,
    MAX_CONNECTION_CREATION_RATE_CONFIG,
    MAX_CONNECTIONS_CONFIG,
    ConnectionQuotas,
    TooManyConnectionsException,
)
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import MOCK_ZK_CONNECT, create_broker_config

_RATE = ("connection-rate quota: a Kafka Metrics Sensor with a Rate and a Quota (and its throttle-time sensors); the "
         "3.9 tree has no metrics library, so the rate quota is left out of ConnectionQuotas")

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/network/ConnectionQuotasTest.scala",
    cases=["testFailWhenNoListeners", "testFailDecrementForUnknownIp", "testNoConnectionLimitsByDefault",
           "testMaxConnectionsPerIp", "testMaxBrokerWideConnectionLimit", "testMaxListenerConnectionLimits",
           "testBrokerConnectionRateLimitWhenActualRateBelowLimit",
           "testBrokerConnectionRateLimitWhenActualRateAboveLimit",
           "testListenerConnectionRateLimitWhenActualRateBelowLimit",
           "testListenerConnectionRateLimitWhenActualRateAboveLimit", "testIpConnectionRateWhenActualRateBelowLimit",
           "testIpConnectionRateWhenActualRateAboveLimit", "testIpConnectionRateWithListenerConnectionRate",
           "testRejectedIpConnectionUnrecordedFromConnectionRateQuotas",
           "testMaxListenerConnectionListenerMustBeAboveZero", "testMaxListenerConnectionRateReconfiguration",
           "testMaxBrokerConnectionRateReconfiguration", "testIpConnectionRateMetricUpdate",
           "testEnforcedIpConnectionRateQuotaUpdate", "testNonDefaultConnectionCountLimitAndRateLimit"],
    not_applicable={
        "testBrokerConnectionRateLimitWhenActualRateBelowLimit": _RATE,
        "testBrokerConnectionRateLimitWhenActualRateAboveLimit": _RATE,
        "testListenerConnectionRateLimitWhenActualRateBelowLimit": _RATE,
        "testListenerConnectionRateLimitWhenActualRateAboveLimit": _RATE,
        "testIpConnectionRateWhenActualRateBelowLimit": _RATE,
        "testIpConnectionRateWhenActualRateAboveLimit": _RATE,
        "testIpConnectionRateWithListenerConnectionRate": _RATE,
        "testRejectedIpConnectionUnrecordedFromConnectionRateQuotas": _RATE,
        "testMaxListenerConnectionRateReconfiguration": _RATE,
        "testMaxBrokerConnectionRateReconfiguration": _RATE,
        "testIpConnectionRateMetricUpdate": _RATE,
        "testEnforcedIpConnectionRateQuotaUpdate": _RATE,
        "testNonDefaultConnectionCountLimitAndRateLimit": _RATE + " (its count limit runs through the rate limit)",
    },
)


@dataclass(frozen=True)
class ListenerDesc:
    listener_name: ListenerName
    default_ip: str

    def __str__(self) -> str:
        return f"(listener={self.listener_name.value()}, client={self.default_ip})"


LISTENERS = {
    "EXTERNAL": ListenerDesc(ListenerName("EXTERNAL"), "192.168.1.1"),
    "ADMIN": ListenerDesc(ListenerName("ADMIN"), "192.168.1.2"),
    "REPLICATION": ListenerDesc(ListenerName("REPLICATION"), "192.168.1.3"),
}
KNOWN_HOST = "192.168.10.0"
UNKNOWN_HOST = "192.168.2.0"


class Meter:
    """The acceptor's blocked-percent meter (Yammer's Meter): here only its count."""

    def __init__(self) -> None:
        self._count = 0

    def mark(self, n: int = 1) -> None:
        self._count += n

    def count(self) -> int:
        return self._count


def broker_props_with_default_connection_limits() -> dict[str, str]:
    props = create_broker_config(0, MOCK_ZK_CONNECT, port=0)
    props["listeners"] = "EXTERNAL://localhost:0,REPLICATION://localhost:1,ADMIN://localhost:2"
    # the inter-broker listener is not limited, even when the broker-wide limit is reached
    props["inter.broker.listener.name"] = "REPLICATION"
    props["listener.security.protocol.map"] = "EXTERNAL:PLAINTEXT,REPLICATION:PLAINTEXT,ADMIN:PLAINTEXT"
    props["quota.window.num"] = "2"
    props["quota.window.size.seconds"] = "1"
    return props


class _World:
    def __init__(self) -> None:
        self.blocked_percent_meters = {name: Meter() for name in LISTENERS}
        self.executor = concurrent.futures.ThreadPoolExecutor(len(LISTENERS))
        self.connection_quotas: ConnectionQuotas | None = None
        self.time = SYSTEM

    def accept_connections(self, listener: ListenerDesc, num_connections: int) -> None:
        """On an executor thread: inc() may block."""
        for _ in range(num_connections):
            self.connection_quotas.inc(listener.listener_name, listener.default_ip,
                                       self.blocked_percent_meters[listener.listener_name.value()])

    def accept_connections_from(self, listener_name: ListenerName, address: str, num_connections: int) -> None:
        for _ in range(num_connections):
            self.connection_quotas.inc(listener_name, address, self.blocked_percent_meters[listener_name.value()])

    def accept_connections_above_ip_limit(self, listener: ListenerDesc, num_connections: int) -> None:
        for _ in range(num_connections):
            with pytest.raises(TooManyConnectionsException):
                self.connection_quotas.inc(listener.listener_name, listener.default_ip,
                                           self.blocked_percent_meters[listener.listener_name.value()])

    def add_listeners_and_verify(self, config: KafkaConfig, connection_quotas: ConnectionQuotas,
                                 listener_config: dict[str, str] | None = None) -> None:
        for name, listener in LISTENERS.items():
            connection_quotas.add_listener(config, listener.listener_name)
            connection_quotas.max_connections_per_listener[listener.listener_name].configure(listener_config or {})
            assert not connection_quotas.max_connections_exceeded(listener.listener_name), \
                f"Should not exceed max connection limit on {name} listener after initialization"
            assert connection_quotas.get(listener.default_ip) == 0, f"Number of connections on {listener} listener:"
        self.verify_no_blocked_percent_recorded_on_all_listeners()

    def verify_no_blocked_percent_recorded_on_all_listeners(self) -> None:
        for name, meter in self.blocked_percent_meters.items():
            assert meter.count() == 0, f"BlockedPercentMeter metric for {name} listener"

    def verify_connection_count_on_every_listener(self, expected_connection_count: int) -> None:
        for listener in LISTENERS.values():
            assert self.connection_quotas.get(listener.default_ip) == expected_connection_count, \
                f"Number of connections on {listener}:"


@pytest.fixture
def world() -> Iterator[_World]:
    w = _World()
    yield w
    if w.connection_quotas is not None:
        # lift every limit, so that no executor thread is left blocked in inc()
        w.connection_quotas.update_broker_max_connections(INT_MAX)
        for quota in list(w.connection_quotas.max_connections_per_listener.values()):
            quota.reconfigure({})
        w.connection_quotas.close()
    w.executor.shutdown(wait=True, cancel_futures=True)


def test_fail_when_no_listeners(world: _World) -> None:
    config = KafkaConfig.from_props(broker_props_with_default_connection_limits())
    world.connection_quotas = ConnectionQuotas(config, world.time, None)

    def inc() -> None:
        # Kafka's NoSuchElementException (a RuntimeException) is Python's KeyError
        with pytest.raises(KeyError):
            world.accept_connections(LISTENERS["EXTERNAL"], 1)
    # on a separate thread, in case it blocks
    world.executor.submit(inc).result(5)


def test_fail_decrement_for_unknown_ip(world: _World) -> None:
    config = KafkaConfig.from_props(broker_props_with_default_connection_limits())
    world.connection_quotas = ConnectionQuotas(config, world.time, None)
    world.add_listeners_and_verify(config, world.connection_quotas)

    # dec() for an IP that was never counted
    with pytest.raises(IllegalArgumentException):
        world.connection_quotas.dec(LISTENERS["EXTERNAL"].listener_name, UNKNOWN_HOST)


def test_no_connection_limits_by_default(world: _World) -> None:
    config = KafkaConfig.from_props(broker_props_with_default_connection_limits())
    world.connection_quotas = ConnectionQuotas(config, world.time, None)
    world.add_listeners_and_verify(config, world.connection_quotas)

    # no limit: 10000 connections as fast as possible
    num_connections = 10000
    futures = [world.executor.submit(world.accept_connections, listener, num_connections)
               for listener in LISTENERS.values()]
    for future in futures:
        future.result(10)
    for listener in LISTENERS.values():
        assert world.connection_quotas.get(listener.default_ip) == num_connections, \
            f"Number of connections on {listener}:"

        # one connection removed
        world.connection_quotas.dec(listener.listener_name, listener.default_ip)
        assert world.connection_quotas.get(listener.default_ip) == num_connections - 1, \
            f"Number of connections on {listener}:"
    # no limit was reached: nothing blocked
    world.verify_no_blocked_percent_recorded_on_all_listeners()


def test_max_connections_per_ip(world: _World) -> None:
    max_connections_per_ip = 17
    props = broker_props_with_default_connection_limits()
    props["max.connections.per.ip"] = str(max_connections_per_ip)
    config = KafkaConfig.from_props(props)
    world.connection_quotas = cq = ConnectionQuotas(config, world.time, None)

    world.add_listeners_and_verify(config, cq)

    external_listener = LISTENERS["EXTERNAL"]
    world.executor.submit(world.accept_connections, external_listener, max_connections_per_ip).result(5)
    assert cq.get(external_listener.default_ip) == max_connections_per_ip, \
        f"Number of connections on {external_listener}:"

    # the next ones are counted, but inc() raises TooManyConnectionsException for each
    world.executor.submit(world.accept_connections_above_ip_limit, external_listener, 2).result(5)
    assert cq.get(external_listener.default_ip) == max_connections_per_ip + 2, \
        f"Number of connections on {external_listener}:"

    # the same listener from another IP: accepted
    world.executor.submit(world.accept_connections_from, external_listener.listener_name, KNOWN_HOST,
                          max_connections_per_ip).result(5)

    # the two "rejected" ones go, and two more, which leaves room for two
    for _ in range(4):
        cq.dec(external_listener.listener_name, external_listener.default_ip)
    assert cq.get(external_listener.default_ip) == max_connections_per_ip - 2, \
        f"Number of connections on {external_listener}:"

    world.executor.submit(world.accept_connections, external_listener, 2).result(5)
    assert cq.get(external_listener.default_ip) == max_connections_per_ip, \
        f"Number of connections on {external_listener}:"


def test_max_broker_wide_connection_limit(world: _World) -> None:
    max_connections = 800
    props = broker_props_with_default_connection_limits()
    props[MAX_CONNECTIONS_CONFIG] = str(max_connections)
    config = KafkaConfig.from_props(props)
    world.connection_quotas = cq = ConnectionQuotas(config, world.time, None)
    external, replication, admin = LISTENERS["EXTERNAL"], LISTENERS["REPLICATION"], LISTENERS["ADMIN"]

    world.add_listeners_and_verify(config, cq)

    # one listener may take every connection
    world.executor.submit(world.accept_connections, external, max_connections).result(5)
    assert cq.get(external.default_ip) == max_connections, f"Number of connections on {external}:"

    # no wait for a slot so far
    assert world.blocked_percent_meters["EXTERNAL"].count() == 0

    # exactly the maximum is not above it
    assert not cq.max_connections_exceeded(external.listener_name), \
        "Total number of connections is exactly the maximum."

    # one more blocks in inc()
    future = world.executor.submit(world.accept_connections, external, 1)
    with pytest.raises(concurrent.futures.TimeoutError):
        future.result(0.1)

    # one connection removed: the waiting one gets in
    cq.dec(external.listener_name, external.default_ip)
    future.result(1)
    assert cq.get(external.default_ip) == max_connections, f"Number of connections on {external}:"
    # the wait was recorded (in nanoseconds)
    assert world.blocked_percent_meters["EXTERNAL"].count() > 0, "Expected BlockedPercentMeter metric to be recorded"

    # the inter-broker listener gets in even at the maximum
    world.executor.submit(world.accept_connections, replication, 1).result(5)
    assert cq.max_connections_exceeded(external.listener_name), \
        "Expected the number of connections to exceed the maximum."

    # another listener's connection blocks
    future1 = world.executor.submit(world.accept_connections, admin, 1)
    with pytest.raises(concurrent.futures.TimeoutError):
        future1.result(1)

    # the inter-broker listener still gets in, though another listener's connection waits
    world.executor.submit(world.accept_connections, replication, 1).result(5)

    # three connections must go for the waiting one: two are not enough
    for _ in range(2):
        cq.dec(external.listener_name, external.default_ip)
    with pytest.raises(concurrent.futures.TimeoutError):
        future1.result(0.1)
    cq.dec(external.listener_name, external.default_ip)
    future1.result(1)


def test_max_listener_connection_limits(world: _World) -> None:
    max_connections = 800
    # the listeners' limits add up to less than the broker's
    listener_max_connections = 200
    props = broker_props_with_default_connection_limits()
    props[MAX_CONNECTIONS_CONFIG] = str(max_connections)
    config = KafkaConfig.from_props(props)
    world.connection_quotas = cq = ConnectionQuotas(config, world.time, None)

    world.add_listeners_and_verify(config, cq)

    listener_config = {MAX_CONNECTIONS_CONFIG: str(listener_max_connections)}
    for listener in LISTENERS.values():
        cq.max_connections_per_listener[listener.listener_name].configure(listener_config)

    # each listener gets up to its own limit
    futures = [world.executor.submit(world.accept_connections, listener, listener_max_connections)
               for listener in LISTENERS.values()]
    for future in futures:
        future.result(5)
    for listener in LISTENERS.values():
        assert cq.get(listener.default_ip) == listener_max_connections, f"Number of connections on {listener}:"
        assert not cq.max_connections_exceeded(listener.listener_name), \
            f"Total number of connections on {listener} should be exactly the maximum."

    # every listener is at its limit: the next connection blocks, even on the inter-broker listener
    over_limit_futures = [world.executor.submit(world.accept_connections, listener, 1)
                          for listener in LISTENERS.values()]
    for future in over_limit_futures:
        with pytest.raises(concurrent.futures.TimeoutError):
            future.result(1)
    for listener in LISTENERS.values():
        # a slot freed
        cq.dec(listener.listener_name, listener.default_ip)
    # every waiting connection gets in
    for future in over_limit_futures:
        future.result(5)
    world.verify_connection_count_on_every_listener(listener_max_connections)


def test_max_listener_connection_listener_must_be_above_zero(world: _World) -> None:
    config = KafkaConfig.from_props(broker_props_with_default_connection_limits())
    world.connection_quotas = cq = ConnectionQuotas(config, world.time, None)

    cq.add_listener(config, LISTENERS["EXTERNAL"].listener_name)

    max_listener_connection_rate = 0
    listener_config = {MAX_CONNECTION_CREATION_RATE_CONFIG: str(max_listener_connection_rate)}
    with pytest.raises(ConfigException):
        cq.max_connections_per_listener[LISTENERS["EXTERNAL"].listener_name].validate_reconfiguration(
            listener_config)
