"""Port of metadata/src/test/java/org/apache/kafka/controller/BrokerHeartbeatManagerTest.java (Kafka 3.9).

Every case is ported. The manager reads its clock through a nanoseconds function rather than a Time object, so the
helper that builds it hands back the MockTime as well (Kafka's cases cast `manager.time()` back to MockTime).
Java's TreeSet over MetadataOffsetComparator is a small sorted set below; its Optionals are None or a value.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime as _MockTime
from kafka_edu.v3_9.metadata.controller.broker_control_state import BrokerControlState, BrokerControlStates
from kafka_edu.v3_9.metadata.controller.broker_heartbeat_manager import (
    LONG_MAX,
    BrokerHeartbeatManager,
    BrokerHeartbeatState,
    BrokerHeartbeatStateList,
    MetadataOffsetComparator,
    UsableBrokerIterator,
)
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import UsableBroker
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/BrokerHeartbeatManagerTest.java",
    cases=[
        "testHasValidSession",
        "testFindOneStaleBroker",
        "testNextCheckTimeNs",
        "testMetadataOffsetComparator",
        "testUsableBrokerIterator",
        "testControlledShutdownOffsetIsOnlyUpdatedOnce",
        "testBrokerHeartbeatStateList",
        "testCalculateNextBrokerState",
        "testTouchThrowsExceptionUnlessRegistered",
    ],
)

FENCED = BrokerControlState.FENCED
UNFENCED = BrokerControlState.UNFENCED
CONTROLLED_SHUTDOWN = BrokerControlState.CONTROLLED_SHUTDOWN
SHUTDOWN_NOW = BrokerControlState.SHUTDOWN_NOW


def _new_broker_heartbeat_manager() -> tuple[BrokerHeartbeatManager, _MockTime]:
    time = _MockTime(0, 1_000_000, 0)
    return BrokerHeartbeatManager("", 10_000_000, time.nanoseconds), time


def _heartbeat(*, want_shut_down: bool = False, want_fence: bool = False,
               current_metadata_offset: int = 0) -> Any:
    """`new BrokerHeartbeatRequestData()` with the setters Kafka's case calls; the other fields keep their defaults."""
    schema = ApiKeys.BROKER_HEARTBEAT.request_schema(1)
    return schema(broker_id=0, current_metadata_offset=current_metadata_offset, want_fence=want_fence,
                  want_shut_down=want_shut_down)


class _TreeSet:
    """java.util.TreeSet with a comparator: add/remove by comparison, iteration in order."""

    def __init__(self, compare: Callable[[BrokerHeartbeatState, BrokerHeartbeatState], int]) -> None:
        self._key = functools.cmp_to_key(compare)
        self._items: list[BrokerHeartbeatState] = []

    def _find(self, item: BrokerHeartbeatState) -> tuple[int, bool]:
        keys = [self._key(x) for x in self._items]
        i = bisect.bisect_left(keys, self._key(item))
        return i, i < len(self._items) and keys[i] == self._key(item)

    def add(self, item: BrokerHeartbeatState) -> bool:
        i, found = self._find(item)
        if not found:
            self._items.insert(i, item)
        return not found

    def remove(self, item: BrokerHeartbeatState) -> bool:
        i, found = self._find(item)
        if found:
            del self._items[i]
        return found

    def is_empty(self) -> bool:
        return not self._items

    def __iter__(self) -> Iterator[BrokerHeartbeatState]:
        return iter(list(self._items))


def test_has_valid_session() -> None:
    manager, time = _new_broker_heartbeat_manager()
    assert not manager.has_valid_session(0)
    for broker_id in range(3):
        manager.register(broker_id, True)
    manager.touch(0, False, 0)
    time.sleep(5)
    manager.touch(1, False, 0)
    manager.touch(2, False, 0)
    assert manager.has_valid_session(0)
    assert manager.has_valid_session(1)
    assert manager.has_valid_session(2)
    assert not manager.has_valid_session(3)
    time.sleep(6)
    assert not manager.has_valid_session(0)
    assert manager.has_valid_session(1)
    assert manager.has_valid_session(2)
    assert not manager.has_valid_session(3)
    manager.remove(2)
    assert not manager.has_valid_session(2)
    manager.remove(1)
    assert not manager.has_valid_session(1)


def test_find_one_stale_broker() -> None:
    manager, time = _new_broker_heartbeat_manager()
    assert not manager.has_valid_session(0)
    for broker_id in range(3):
        manager.register(broker_id, True)
    manager.touch(0, False, 0)
    time.sleep(5)
    manager.touch(1, False, 0)
    time.sleep(1)
    manager.touch(2, False, 0)

    it = iter(manager.unfenced())
    assert next(it).id == 0
    assert next(it).id == 1
    assert next(it).id == 2
    assert next(it, None) is None
    assert manager.find_one_stale_broker() is None

    time.sleep(5)
    assert manager.find_one_stale_broker() == 0
    manager.fence(0)
    assert manager.find_one_stale_broker() is None
    it = iter(manager.unfenced())
    assert next(it).id == 1
    assert next(it).id == 2
    assert next(it, None) is None

    time.sleep(20)
    assert manager.find_one_stale_broker() == 1
    manager.fence(1)
    assert manager.find_one_stale_broker() == 2
    manager.fence(2)

    assert manager.find_one_stale_broker() is None
    it = iter(manager.unfenced())
    assert next(it, None) is None


def test_next_check_time_ns() -> None:
    manager, time = _new_broker_heartbeat_manager()
    assert manager.next_check_time_ns() == LONG_MAX
    for broker_id in range(4):
        manager.register(broker_id, True)
    manager.touch(0, False, 0)
    time.sleep(2)
    manager.touch(1, False, 0)
    time.sleep(1)
    manager.touch(2, False, 0)
    time.sleep(1)
    manager.touch(3, False, 0)
    assert manager.find_one_stale_broker() is None
    assert manager.next_check_time_ns() == 10_000_000
    time.sleep(7)
    assert manager.next_check_time_ns() == 10_000_000
    assert manager.find_one_stale_broker() == 0
    manager.fence(0)
    assert manager.next_check_time_ns() == 12_000_000

    time.sleep(3)
    assert manager.find_one_stale_broker() == 1
    manager.fence(1)
    assert manager.find_one_stale_broker() == 2
    manager.fence(2)

    assert manager.next_check_time_ns() == 14_000_000


def test_metadata_offset_comparator() -> None:
    tree = _TreeSet(MetadataOffsetComparator.compare)
    broker1 = BrokerHeartbeatState(1)
    broker2 = BrokerHeartbeatState(2)
    broker3 = BrokerHeartbeatState(3)
    tree.add(broker1)
    tree.add(broker2)
    tree.add(broker3)
    it = iter(tree)
    assert next(it) is broker1
    assert next(it) is broker2
    assert next(it) is broker3
    assert next(it, None) is None
    assert tree.remove(broker1)
    assert tree.remove(broker2)
    assert tree.remove(broker3)
    assert tree.is_empty()
    broker1.metadata_offset = 800
    broker2.metadata_offset = 400
    broker3.metadata_offset = 100
    tree.add(broker1)
    tree.add(broker2)
    tree.add(broker3)
    it = iter(tree)
    assert next(it) is broker3
    assert next(it) is broker2
    assert next(it) is broker1
    assert next(it, None) is None


def _usable_brokers_to_set(manager: BrokerHeartbeatManager) -> set[UsableBroker]:
    return set(UsableBrokerIterator(iter(manager.brokers()),
                                    lambda broker_id: "rack1" if broker_id % 2 == 0 else "rack2"))


def test_usable_broker_iterator() -> None:
    manager, _ = _new_broker_heartbeat_manager()
    assert _usable_brokers_to_set(manager) == set()
    for broker_id in range(5):
        manager.register(broker_id, True)
    manager.touch(0, False, 100)
    manager.touch(1, False, 100)
    manager.touch(2, False, 98)
    manager.touch(3, False, 100)
    manager.touch(4, True, 100)
    assert manager.lowest_active_offset() == 98
    expected = {
        UsableBroker(0, "rack1", False),
        UsableBroker(1, "rack2", False),
        UsableBroker(2, "rack1", False),
        UsableBroker(3, "rack2", False),
        UsableBroker(4, "rack1", True),
    }
    assert _usable_brokers_to_set(manager) == expected
    manager.maybe_update_controlled_shutdown_offset(2, 0)
    assert manager.lowest_active_offset() == 100
    with pytest.raises(RuntimeError):
        manager.maybe_update_controlled_shutdown_offset(4, 0)
    manager.touch(4, False, 100)
    manager.maybe_update_controlled_shutdown_offset(4, 0)
    expected.discard(UsableBroker(2, "rack1", False))
    expected.discard(UsableBroker(4, "rack1", True))
    assert _usable_brokers_to_set(manager) == expected


def test_controlled_shutdown_offset_is_only_updated_once() -> None:
    manager, _ = _new_broker_heartbeat_manager()
    assert _usable_brokers_to_set(manager) == set()
    for broker_id in range(5):
        manager.register(broker_id, True)
    manager.touch(0, False, 100)
    manager.touch(1, False, 100)
    manager.touch(2, False, 98)
    manager.touch(3, False, 100)
    manager.touch(4, True, 100)
    assert manager.controlled_shutdown_offset(2) is None
    manager.maybe_update_controlled_shutdown_offset(2, 98)
    assert manager.controlled_shutdown_offset(2) == 98
    manager.maybe_update_controlled_shutdown_offset(2, 99)
    assert manager.controlled_shutdown_offset(2) == 98
    assert manager.controlled_shutdown_offset(3) is None
    manager.maybe_update_controlled_shutdown_offset(3, 101)
    assert manager.controlled_shutdown_offset(3) == 101
    manager.maybe_update_controlled_shutdown_offset(3, 102)
    assert manager.controlled_shutdown_offset(3) == 101


def test_broker_heartbeat_state_list() -> None:
    states = BrokerHeartbeatStateList()
    assert states.first() is None
    it = iter(states)
    assert next(it, None) is None
    broker0 = BrokerHeartbeatState(0)
    broker0.last_contact_ns = 200
    broker1 = BrokerHeartbeatState(1)
    broker1.last_contact_ns = 100
    broker2 = BrokerHeartbeatState(2)
    broker2.last_contact_ns = 50
    broker3 = BrokerHeartbeatState(3)
    broker3.last_contact_ns = 150
    states.add(broker0)
    states.add(broker1)
    states.add(broker2)
    states.add(broker3)
    assert states.first() is broker2
    it = iter(states)
    assert next(it) is broker2
    assert next(it) is broker1
    assert next(it) is broker3
    assert next(it) is broker0
    assert next(it, None) is None
    states.remove(broker1)
    it = iter(states)
    assert next(it) is broker2
    assert next(it) is broker3
    assert next(it) is broker0
    assert next(it, None) is None


def test_calculate_next_broker_state() -> None:
    manager, _ = _new_broker_heartbeat_manager()
    for broker_id in range(6):
        manager.register(broker_id, True)
    manager.touch(0, True, 100)
    manager.touch(1, False, 98)
    manager.touch(2, False, 100)
    manager.touch(3, False, 100)
    manager.touch(4, True, 100)
    manager.touch(5, False, 99)
    manager.maybe_update_controlled_shutdown_offset(5, 99)

    assert manager.lowest_active_offset() == 98

    assert manager.calculate_next_broker_state(0, _heartbeat(want_shut_down=True), 100, lambda: False) \
        == BrokerControlStates(FENCED, SHUTDOWN_NOW)
    assert manager.calculate_next_broker_state(
        0, _heartbeat(want_fence=False, current_metadata_offset=100), 100, lambda: False) \
        == BrokerControlStates(FENCED, UNFENCED)
    assert manager.calculate_next_broker_state(
        0, _heartbeat(want_fence=False, current_metadata_offset=50), 100, lambda: False) \
        == BrokerControlStates(FENCED, FENCED)
    assert manager.calculate_next_broker_state(0, _heartbeat(want_fence=True), 100, lambda: False) \
        == BrokerControlStates(FENCED, FENCED)

    assert manager.calculate_next_broker_state(1, _heartbeat(want_shut_down=True), 100, lambda: True) \
        == BrokerControlStates(UNFENCED, CONTROLLED_SHUTDOWN)
    assert manager.calculate_next_broker_state(1, _heartbeat(want_shut_down=True), 100, lambda: False) \
        == BrokerControlStates(UNFENCED, SHUTDOWN_NOW)
    assert manager.calculate_next_broker_state(1, _heartbeat(want_fence=False), 100, lambda: False) \
        == BrokerControlStates(UNFENCED, UNFENCED)

    assert manager.calculate_next_broker_state(5, _heartbeat(want_shut_down=True), 100, lambda: True) \
        == BrokerControlStates(CONTROLLED_SHUTDOWN, CONTROLLED_SHUTDOWN)
    assert manager.calculate_next_broker_state(5, _heartbeat(want_shut_down=True), 100, lambda: False) \
        == BrokerControlStates(CONTROLLED_SHUTDOWN, CONTROLLED_SHUTDOWN)
    manager.fence(1)
    assert manager.calculate_next_broker_state(5, _heartbeat(want_shut_down=True), 100, lambda: False) \
        == BrokerControlStates(CONTROLLED_SHUTDOWN, SHUTDOWN_NOW)
    assert manager.calculate_next_broker_state(5, _heartbeat(want_shut_down=True), 100, lambda: True) \
        == BrokerControlStates(CONTROLLED_SHUTDOWN, CONTROLLED_SHUTDOWN)
    with pytest.raises(IllegalStateException) as e:
        manager.calculate_next_broker_state(6, _heartbeat(want_shut_down=True), 100, lambda: True)
    assert str(e.value) == "Broker 6 is not registered."
    with pytest.raises(IllegalStateException) as e:
        manager.calculate_next_broker_state(7, _heartbeat(want_shut_down=True), 100, lambda: True)
    assert str(e.value) == "Broker 7 is not registered."


def test_touch_throws_exception_unless_registered() -> None:
    manager, _ = _new_broker_heartbeat_manager()
    manager.register(1, True)
    manager.register(3, True)
    with pytest.raises(IllegalStateException) as e:
        manager.touch(2, False, 0)
    assert str(e.value) == "Broker 2 is not registered."
    with pytest.raises(IllegalStateException) as e:
        manager.touch(4, False, 0)
    assert str(e.value) == "Broker 4 is not registered."
