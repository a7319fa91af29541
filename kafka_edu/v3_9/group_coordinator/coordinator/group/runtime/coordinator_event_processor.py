"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorEventProcessor.java
(Kafka 3.9): where the runtime hands its events to be run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType

from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event import CoordinatorEvent


class CoordinatorEventProcessor(ABC):
    """AutoCloseable: usable in a `with` block, which closes it."""

    @abstractmethod
    def enqueue_last(self, event: CoordinatorEvent) -> None:
        """Raises RejectedExecutionException once the processor is closed."""

    @abstractmethod
    def enqueue_first(self, event: CoordinatorEvent) -> None:
        """Raises RejectedExecutionException once the processor is closed."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> CoordinatorEventProcessor:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
