"""Port of server-common/src/main/java/org/apache/kafka/deferred/DeferredEvent.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod


class DeferredEvent(ABC):
    """Something that waits for the log to commit up to an offset."""

    @abstractmethod
    def complete(self, exception: BaseException | None) -> None:
        """Called once: with None when the offset is committed, with the failure otherwise."""
