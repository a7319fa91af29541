"""Port of metadata/.../controller/BrokerControlState.java and BrokerControlStates.java (Kafka 3.9)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class BrokerControlState(enum.Enum):
    FENCED = "FENCED"
    UNFENCED = "UNFENCED"
    CONTROLLED_SHUTDOWN = "CONTROLLED_SHUTDOWN"
    SHUTDOWN_NOW = "SHUTDOWN_NOW"

    @property
    def fenced(self) -> bool:
        return self in (BrokerControlState.FENCED, BrokerControlState.SHUTDOWN_NOW)

    @property
    def should_shut_down(self) -> bool:
        return self is BrokerControlState.SHUTDOWN_NOW

    def in_controlled_shutdown(self) -> bool:
        return self is BrokerControlState.CONTROLLED_SHUTDOWN


@dataclass(frozen=True)
class BrokerControlStates:
    """A heartbeat's verdict: the broker's state before it, and the state it moves to."""

    current: BrokerControlState
    next: BrokerControlState
