"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/metrics/CoordinatorRuntimeMetrics.java
(Kafka 3.9): what the coordinator runtime and its event processor report.

Only the interface is ported: the port has no metrics registry, so no implementation (Kafka's
GroupCoordinatorRuntimeMetrics) exists yet; the event processor's tests hand it a mock, as Kafka's do.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from types import TracebackType
from typing import Any


class CoordinatorRuntimeMetrics(ABC):

    @abstractmethod
    def record_partition_state_change(self, old_state: Any, new_state: Any) -> None:
        """Both are CoordinatorRuntime.CoordinatorState values."""

    @abstractmethod
    def record_partition_load_sensor(self, start_time_ms: int, end_time_ms: int) -> None: ...

    @abstractmethod
    def record_event_queue_time(self, duration_ms: int) -> None: ...

    @abstractmethod
    def record_event_queue_processing_time(self, duration_ms: int) -> None: ...

    @abstractmethod
    def record_thread_idle_time(self, idle_time_ms: int) -> None: ...

    @abstractmethod
    def register_event_queue_size_gauge(self, size_supplier: Callable[[], int]) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> CoordinatorRuntimeMetrics:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
