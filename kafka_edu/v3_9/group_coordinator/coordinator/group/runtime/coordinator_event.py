"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorEvent.java (Kafka 3.9).

The unit of work of the coordinator runtime, keyed by the coordinator's partition so that the accumulator runs the
events of one partition one at a time.
"""

from __future__ import annotations

from abc import abstractmethod

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.event_accumulator import EventAccumulator


class CoordinatorEvent(EventAccumulator.Event[TopicPartition]):

    @abstractmethod
    def run(self) -> None: ...

    @abstractmethod
    def complete(self, exception: BaseException | None) -> None:
        """Finish the event: with the failure of its run (or its rejection), or None when it succeeded."""

    @abstractmethod
    def created_time_ms(self) -> int: ...
