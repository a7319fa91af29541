"""Port of core/src/main/scala/kafka/controller/ControllerState.scala (Kafka 1.0.2)."""

from __future__ import annotations

from enum import Enum


class ControllerState(Enum):
    """What the controller's event thread is busy with; the value is the byte Kafka's ControllerState gauge reports.

    Each event names the state it runs in, and the thread is Idle between events.
    """

    Idle = 0
    ControllerChange = 1
    BrokerChange = 2
    TopicChange = 3
    TopicDeletion = 4
    PartitionReassignment = 5
    AutoLeaderBalance = 6
    ManualLeaderBalance = 7
    ControlledShutdown = 8
    IsrChange = 9
    LeaderAndIsrResponseReceived = 10
    LogDirChange = 11

