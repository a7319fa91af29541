"""Port of metadata/src/main/java/org/apache/kafka/metadata/BrokerState.java (Kafka 3.9)."""

from __future__ import annotations

from enum import IntEnum


class BrokerState(IntEnum):
    """A KRaft broker's lifecycle state, owned by its BrokerLifecycleManager. The values are the BrokerState gauge's
    and match 1.0.2's BrokerStates where a state has an older twin (Starting = 1, RunningAsBroker = 3, ...)."""

    NOT_RUNNING = 0
    # Registered, catching up with the metadata log; the controller keeps it fenced.
    STARTING = 1
    # Caught up: logs are being loaded and recovered; still fenced until it asks to be unfenced.
    RECOVERY = 2
    # Unfenced: it may lead partitions and serve clients.
    RUNNING = 3
    # Asking the controller, through heartbeats, to move its leaderships away before it stops.
    PENDING_CONTROLLED_SHUTDOWN = 6
    SHUTTING_DOWN = 7
    UNKNOWN = 127

    @staticmethod
    def from_value(value: int) -> BrokerState:
        try:
            return BrokerState(value)
        except ValueError:
            return BrokerState.UNKNOWN
