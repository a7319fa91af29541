"""Port of metadata/src/main/java/org/apache/kafka/controller/BrokerHeartbeatManager.java (Kafka 3.9)."""

from __future__ import annotations

import bisect
import logging
import time as _time
from collections.abc import Callable, Iterator
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.metadata.controller.broker_control_state import BrokerControlState, BrokerControlStates
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import UsableBroker

log = logging.getLogger(__name__)

LONG_MAX = 2**63 - 1


class BrokerHeartbeatState:
    """What the active controller knows of one broker's heartbeats: soft state, never written to the log."""

    def __init__(self, broker_id: int) -> None:
        self.id = broker_id
        self.last_contact_ns = 0
        self.metadata_offset = -1  # the last metadata offset the broker reported
        self.controlled_shutdown_offset = -1  # the offset its controlled shutdown completes at, or -1
        # Links in the unfenced list: both None while the broker is fenced.
        self.prev: BrokerHeartbeatState | None = None
        self.next: BrokerHeartbeatState | None = None

    def fenced(self) -> bool:
        return self.prev is None

    def shutting_down(self) -> bool:
        return self.controlled_shutdown_offset >= 0

    def __repr__(self) -> str:
        return (f"BrokerHeartbeatState(id={self.id}, lastContactNs={self.last_contact_ns}, "
                f"metadataOffset={self.metadata_offset}, controlledShutdownOffset={self.controlled_shutdown_offset})")


class MetadataOffsetComparator:
    """Orders brokers by reported metadata offset, then id: the order of the active set."""

    @staticmethod
    def compare(a: BrokerHeartbeatState, b: BrokerHeartbeatState) -> int:
        if a.metadata_offset != b.metadata_offset:
            return -1 if a.metadata_offset < b.metadata_offset else 1
        if a.id != b.id:
            return -1 if a.id < b.id else 1
        return 0

    @staticmethod
    def key(broker: BrokerHeartbeatState) -> tuple[int, int]:
        """The sort key `compare` agrees with."""
        return broker.metadata_offset, broker.id


class BrokerHeartbeatStateList:
    """The unfenced brokers, a ring sorted by last contact: its first broker is the next one to go stale."""

    def __init__(self) -> None:
        self.head = BrokerHeartbeatState(-1)
        self.head.prev = self.head
        self.head.next = self.head

    def first(self) -> BrokerHeartbeatState | None:
        result = self.head.next
        return None if result is self.head else result

    def add(self, broker: BrokerHeartbeatState) -> None:
        # Usually the broker just heartbeated: look for its place from the end.
        cur = self.head.prev
        while True:
            if cur is self.head or cur.last_contact_ns <= broker.last_contact_ns:
                broker.next = cur.next
                cur.next.prev = broker
                broker.prev = cur
                cur.next = broker
                return
            cur = cur.prev

    def remove(self, broker: BrokerHeartbeatState) -> None:
        if broker.next is None:
            raise RuntimeError(f"{broker} is not in the  list.")
        broker.prev.next = broker.next
        broker.next.prev = broker.prev
        broker.prev = None
        broker.next = None

    def __iter__(self) -> Iterator[BrokerHeartbeatState]:
        cur = self.head.next
        while cur is not self.head:
            yield cur
            cur = cur.next


class BrokerHeartbeatManager:
    """The active controller's view of broker liveness: last contact times (to fence stale brokers), reported
    metadata offsets (the lowest one among active brokers gates controlled shutdowns), shutdown offsets.

    Only the active controller has one; a new active controller builds it afresh on activation, which is why a
    failover restarts every broker's session clock.
    """

    def __init__(self, log_context: str, session_timeout_ns: int,
                 nanoseconds: Callable[[], int] = _time.monotonic_ns) -> None:
        self._log_prefix = log_context
        self._nanoseconds = nanoseconds
        self.session_timeout_ns = session_timeout_ns
        self._brokers: dict[int, BrokerHeartbeatState] = {}
        self._unfenced = BrokerHeartbeatStateList()
        # Active = unfenced and not shutting down; kept sorted by (metadata offset, id), as Java's TreeSet.
        self._active: list[tuple[int, int]] = []

    def time_ns(self) -> int:
        return self._nanoseconds()

    def unfenced(self) -> BrokerHeartbeatStateList:
        return self._unfenced

    def brokers(self) -> list[BrokerHeartbeatState]:
        return list(self._brokers.values())

    def controlled_shutdown_offset(self, broker_id: int) -> int | None:
        broker = self._brokers.get(broker_id)
        if broker is None or broker.controlled_shutdown_offset == -1:
            return None
        return broker.controlled_shutdown_offset

    def fence(self, broker_id: int) -> None:
        broker = self._brokers.get(broker_id)
        if broker is not None:
            self._untrack(broker)

    def remove(self, broker_id: int) -> None:
        broker = self._brokers.pop(broker_id, None)
        if broker is not None:
            self._untrack(broker)

    def _active_add(self, broker: BrokerHeartbeatState) -> None:
        key = MetadataOffsetComparator.key(broker)
        i = bisect.bisect_left(self._active, key)
        if i == len(self._active) or self._active[i] != key:
            self._active.insert(i, key)

    def _active_remove(self, broker: BrokerHeartbeatState) -> None:
        key = MetadataOffsetComparator.key(broker)
        i = bisect.bisect_left(self._active, key)
        if i < len(self._active) and self._active[i] == key:
            del self._active[i]

    def _untrack(self, broker: BrokerHeartbeatState) -> None:
        """Take the broker out of the unfenced list and the active set (its place there depends on what changes)."""
        if not broker.fenced():
            self._unfenced.remove(broker)
            if not broker.shutting_down():
                self._active_remove(broker)

    def has_valid_session(self, broker: int | BrokerHeartbeatState) -> bool:
        if isinstance(broker, int):
            state = self._brokers.get(broker)
            if state is None:
                return False
            broker = state
        if broker.fenced():
            return False
        return broker.last_contact_ns + self.session_timeout_ns >= self._nanoseconds()

    def register(self, broker_id: int, fenced: bool) -> None:
        """Track a broker (on registration, or on activation for every registered broker) in the right state."""
        broker = self._brokers.get(broker_id)
        metadata_offset = -1
        if broker is None:
            self._brokers[broker_id] = BrokerHeartbeatState(broker_id)
        elif broker.fenced() != fenced:
            metadata_offset = broker.metadata_offset
        self.touch(broker_id, fenced, metadata_offset)

    def touch(self, broker_id: int, fenced: bool, metadata_offset: int) -> None:
        """A heartbeat (or registration): the broker's last contact is now. IllegalStateException if the broker
        is not registered."""
        broker = self._heartbeat_state_or_throw(broker_id)
        # Its place in the unfenced list and the active set depends on what changes here: out, then back in.
        self._untrack(broker)
        broker.last_contact_ns = self._nanoseconds()
        broker.metadata_offset = metadata_offset
        if fenced:
            # A fenced broker leaves controlled shutdown; its next heartbeat tells it to stop at once.
            broker.controlled_shutdown_offset = -1
        else:
            self._unfenced.add(broker)
            if not broker.shutting_down():
                self._active_add(broker)

    def lowest_active_offset(self) -> int:
        return self._active[0][0] if self._active else LONG_MAX

    def maybe_update_controlled_shutdown_offset(self, broker_id: int, controlled_shut_down_offset: int) -> None:
        broker = self._heartbeat_state_or_throw(broker_id)
        if broker.fenced():
            raise RuntimeError("Fenced brokers cannot enter controlled shutdown.")
        self._active_remove(broker)
        if broker.controlled_shutdown_offset < 0:
            broker.controlled_shutdown_offset = controlled_shut_down_offset
            log.debug("%sUpdated the controlled shutdown offset for broker %d to %d.", self._log_prefix, broker_id,
                      controlled_shut_down_offset)

    def next_check_time_ns(self) -> int:
        """When the longest-silent unfenced broker's session runs out (LONG_MAX: no unfenced broker)."""
        broker = self._unfenced.first()
        return LONG_MAX if broker is None else broker.last_contact_ns + self.session_timeout_ns

    def find_one_stale_broker(self) -> int | None:
        # The list is sorted by last contact: if its first broker is not stale, none is.
        broker = self._unfenced.first()
        if broker is not None and not self.has_valid_session(broker):
            return broker.id
        return None

    def usable_brokers(self, id_to_rack: Callable[[int], str | None]) -> Iterator[UsableBroker]:
        """Brokers new replicas may go to: every tracked broker not in controlled shutdown."""
        return UsableBrokerIterator(iter(self.brokers()), id_to_rack)

    def current_broker_state(self, broker: BrokerHeartbeatState) -> BrokerControlState:
        if broker.shutting_down():
            return BrokerControlState.CONTROLLED_SHUTDOWN
        if broker.fenced():
            return BrokerControlState.FENCED
        return BrokerControlState.UNFENCED

    def calculate_next_broker_state(self, broker_id: int, request: Any, register_broker_record_offset: int,
                                    has_leaderships: Callable[[], bool]) -> BrokerControlStates:
        """The state a heartbeat moves its broker to. `request` is BrokerHeartbeatRequest data (want_fence,
        want_shut_down, current_metadata_offset). IllegalStateException if the broker is not registered."""
        broker = self._heartbeat_state_or_throw(broker_id)
        current = self.current_broker_state(broker)
        s = BrokerControlState
        if current is s.FENCED:
            if request.want_shut_down:
                log.info("%sFenced broker %d has requested and been granted an immediate shutdown.",
                         self._log_prefix, broker_id)
                return BrokerControlStates(current, s.SHUTDOWN_NOW)
            if not request.want_fence:
                if request.current_metadata_offset >= register_broker_record_offset:
                    log.info("%sThe request from broker %d to unfence has been granted because it has caught up "
                             "with the offset of its register broker record %d.", self._log_prefix, broker_id,
                             register_broker_record_offset)
                    return BrokerControlStates(current, s.UNFENCED)
                log.debug("%sThe request from broker %d to unfence cannot yet be granted because it has not caught "
                          "up with the offset of its register broker record %d. It is still at offset %d.",
                          self._log_prefix, broker_id, register_broker_record_offset,
                          request.current_metadata_offset)
            return BrokerControlStates(current, s.FENCED)
        if current is s.UNFENCED:
            if request.want_fence:
                if request.want_shut_down:
                    log.info("%sUnfenced broker %d has requested and been granted an immediate shutdown.",
                             self._log_prefix, broker_id)
                    return BrokerControlStates(current, s.SHUTDOWN_NOW)
                log.info("%sUnfenced broker %d has requested and been granted fencing", self._log_prefix, broker_id)
                return BrokerControlStates(current, s.FENCED)
            if request.want_shut_down:
                if has_leaderships():
                    log.info("%sUnfenced broker %d has requested and been granted a controlled shutdown.",
                             self._log_prefix, broker_id)
                    return BrokerControlStates(current, s.CONTROLLED_SHUTDOWN)
                log.info("%sUnfenced broker %d has requested and been granted an immediate shutdown.",
                         self._log_prefix, broker_id)
                return BrokerControlStates(current, s.SHUTDOWN_NOW)
            return BrokerControlStates(current, s.UNFENCED)
        if current is s.CONTROLLED_SHUTDOWN:
            if has_leaderships():
                log.debug("%sBroker %d is in controlled shutdown state, but can not shut down because more leaders "
                          "still need to be moved.", self._log_prefix, broker_id)
                return BrokerControlStates(current, s.CONTROLLED_SHUTDOWN)
            lowest_active_offset = self.lowest_active_offset()
            if broker.controlled_shutdown_offset <= lowest_active_offset:
                log.info("%sThe request from broker %d to shut down has been granted since the lowest active offset "
                         "%d is now greater than the broker's controlled shutdown offset %d.", self._log_prefix,
                         broker_id, lowest_active_offset, broker.controlled_shutdown_offset)
                return BrokerControlStates(current, s.SHUTDOWN_NOW)
            log.debug("%sThe request from broker %d to shut down can not yet be granted because the lowest active "
                      "offset %d is not greater than the broker's shutdown offset %d.", self._log_prefix, broker_id,
                      lowest_active_offset, broker.controlled_shutdown_offset)
            return BrokerControlStates(current, s.CONTROLLED_SHUTDOWN)
        return BrokerControlStates(current, s.SHUTDOWN_NOW)

    def _heartbeat_state_or_throw(self, broker_id: int) -> BrokerHeartbeatState:
        broker = self._brokers.get(broker_id)
        if broker is None:
            raise IllegalStateException(f"Broker {broker_id} is not registered.")
        return broker


class UsableBrokerIterator(Iterator[UsableBroker]):
    """The brokers of `iterator` not in controlled shutdown, as UsableBrokers with their racks."""

    def __init__(self, iterator: Iterator[BrokerHeartbeatState], id_to_rack: Callable[[int], str | None]) -> None:
        self._iterator = iterator
        self._id_to_rack = id_to_rack

    def __next__(self) -> UsableBroker:
        result = next(self._iterator)
        while result.shutting_down():
            result = next(self._iterator)
        return UsableBroker(result.id, self._id_to_rack(result.id), result.fenced())
