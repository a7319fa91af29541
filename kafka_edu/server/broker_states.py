"""Port of core/src/main/scala/kafka/server/BrokerStates.scala (Kafka 1.0.2)."""

from __future__ import annotations

from enum import IntEnum

from kafka_edu.tracing import span, step


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

    def new_state(self, new_state: BrokerStates, step_id: str | None = None) -> None:
        """Move to `new_state`; `step_id` names the FIDELITY row when the change is one."""
        attributes = {"kafka.broker.state.from": self.current_state.name, "kafka.broker.state.to": new_state.name,
                      "kafka.broker.state.value": int(new_state)}
        with step(step_id, attributes, _depth=3) if step_id else span("BrokerState.newState", attributes, _depth=2):
            self.current_state = new_state
