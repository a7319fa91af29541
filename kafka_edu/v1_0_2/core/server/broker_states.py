"""Port of core/src/main/scala/kafka/server/BrokerStates.scala (Kafka 1.0.2)."""

from __future__ import annotations

from enum import IntEnum

from kafka_edu.tracing import span


class BrokerStates(IntEnum):
    """The broker's lifecycle states, with Kafka's numeric values (the BrokerState JMX gauge)."""

    NotRunning = 0
    Starting = 1
    RecoveringFromUncleanShutdown = 2
    RunningAsBroker = 3
    PendingControlledShutdown = 6
    BrokerShuttingDown = 7


class BrokerState:
    """The current state of one broker. Every change is a `BrokerState.newState` span."""

    def __init__(self) -> None:
        self.current_state: BrokerStates = BrokerStates.NotRunning

    @span("BrokerState.newState")
    def new_state(self, new_state: BrokerStates) -> None:
        self.current_state = new_state
