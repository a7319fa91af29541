"""StripedReplicaPlacer and BrokerHeartbeatManager (Kafka 3.9), on their own."""

from __future__ import annotations

import random
import re
import uuid
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from kafka_edu.v1_0_2.clients.common.errors import InvalidReplicationFactorException
from kafka_edu.v3_9.metadata.controller.broker_control_state import BrokerControlState
from kafka_edu.v3_9.metadata.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import ClusterDescriber, PlacementSpec, UsableBroker
from kafka_edu.v3_9.metadata.metadata.placement.striped_replica_placer import StripedReplicaPlacer


class Cluster(ClusterDescriber):
    def __init__(self, brokers: list[UsableBroker]) -> None:
        self.brokers = brokers

    def usable_brokers(self) -> Iterator[UsableBroker]:
        return iter(self.brokers)

    def default_dir(self, broker_id: int) -> uuid.UUID:
        return uuid.UUID(int=broker_id)


def test_replicas_spread_evenly_leaders_unfenced_and_never_twice_on_a_broker() -> None:
    cluster = Cluster([UsableBroker(i, None, fenced=(i == 4)) for i in range(5)])
    assignment = StripedReplicaPlacer(random.Random(7)).place(PlacementSpec(0, 40, 3), cluster)
    leaders = Counter(p.replicas[0] for p in assignment.assignments)
    replicas = Counter(r for p in assignment.assignments for r in p.replicas)
    assert all(len(set(p.replicas)) == 3 for p in assignment.assignments)
    assert 4 not in leaders and set(leaders) == {0, 1, 2, 3}
    assert max(leaders.values()) - min(leaders.values()) <= 1
    # the fenced broker is used only when a partition runs out of unfenced ones
    assert all(replicas[b] >= replicas[4] for b in range(4))
    assert assignment.assignments[0].directories == [uuid.UUID(int=r) for r in assignment.assignments[0].replicas]


def test_racks_come_first() -> None:
    cluster = Cluster([UsableBroker(i, f"rack{i % 3}", False) for i in range(6)])
    assignment = StripedReplicaPlacer(random.Random(1)).place(PlacementSpec(0, 12, 3), cluster)
    for p in assignment.assignments:
        assert len({b % 3 for b in p.replicas}) == 3


@pytest.mark.parametrize("brokers, rf, message", [
    ([UsableBroker(0, None, False)], 2, "cannot be reached because only 1 broker(s)"),
    ([UsableBroker(0, None, True), UsableBroker(1, None, True)], 1, "All brokers are currently fenced."),
    ([UsableBroker(0, None, False)], 0, "must be positive"),
])
def test_invalid_replication_factor(brokers: list[UsableBroker], rf: int, message: str) -> None:
    with pytest.raises(InvalidReplicationFactorException, match=re.escape(message)):
        StripedReplicaPlacer().place(PlacementSpec(0, 1, rf), Cluster(brokers))


def heartbeat(offset: int, want_fence: bool = False, want_shut_down: bool = False) -> SimpleNamespace:
    return SimpleNamespace(current_metadata_offset=offset, want_fence=want_fence, want_shut_down=want_shut_down)


def test_a_fenced_broker_is_unfenced_once_caught_up_to_its_registration() -> None:
    now = [0]
    manager = BrokerHeartbeatManager("", session_timeout_ns=1000, nanoseconds=lambda: now[0])
    manager.register(1, fenced=True)
    assert manager.calculate_next_broker_state(1, heartbeat(9), 10, lambda: False).next is BrokerControlState.FENCED
    assert manager.calculate_next_broker_state(1, heartbeat(10), 10, lambda: False).next \
        is BrokerControlState.UNFENCED
    assert manager.calculate_next_broker_state(1, heartbeat(10, want_fence=True), 10, lambda: False).next \
        is BrokerControlState.FENCED
    assert manager.calculate_next_broker_state(1, heartbeat(0, want_shut_down=True), 10, lambda: False).next \
        is BrokerControlState.SHUTDOWN_NOW


def test_the_longest_silent_unfenced_broker_goes_stale_first() -> None:
    now = [0]
    manager = BrokerHeartbeatManager("", session_timeout_ns=1000, nanoseconds=lambda: now[0])
    for broker_id in (1, 2, 3):
        manager.register(broker_id, fenced=True)  # touch() wants a registered broker, as Kafka's
    manager.touch(1, False, 5)
    now[0] = 300
    manager.touch(2, False, 5)
    manager.touch(3, True, 5)  # fenced brokers never go stale
    assert manager.next_check_time_ns() == 1000
    now[0] = 1001
    assert manager.find_one_stale_broker() == 1
    manager.fence(1)
    assert manager.find_one_stale_broker() is None and manager.next_check_time_ns() == 1300
    now[0] = 1301
    assert manager.find_one_stale_broker() == 2


def test_controlled_shutdown_waits_for_leaderships_and_the_lowest_active_offset() -> None:
    manager = BrokerHeartbeatManager("", session_timeout_ns=10**9)
    for broker_id in (1, 2):
        manager.register(broker_id, fenced=True)  # touch() wants a registered broker, as Kafka's
    manager.touch(1, False, 50)
    manager.touch(2, False, 40)
    states = manager.calculate_next_broker_state(1, heartbeat(50, want_shut_down=True), 0, lambda: True)
    assert states.next is BrokerControlState.CONTROLLED_SHUTDOWN
    manager.maybe_update_controlled_shutdown_offset(1, 45)
    assert manager.calculate_next_broker_state(1, heartbeat(50, want_shut_down=True), 0, lambda: True).next \
        is BrokerControlState.CONTROLLED_SHUTDOWN
    assert manager.calculate_next_broker_state(1, heartbeat(50, want_shut_down=True), 0, lambda: False).next \
        is BrokerControlState.CONTROLLED_SHUTDOWN  # broker 2 is at 40 < 45
    manager.touch(2, False, 45)
    assert manager.calculate_next_broker_state(1, heartbeat(50, want_shut_down=True), 0, lambda: False).next \
        is BrokerControlState.SHUTDOWN_NOW
    assert [b.id for b in manager.usable_brokers(lambda _id: None)] == [2]
