"""Port of server-common/src/main/java/org/apache/kafka/deferred/DeferredEventQueue.java (Kafka 3.9)."""

from __future__ import annotations

import logging

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.server_common.deferred.deferred_event import DeferredEvent

log = logging.getLogger(__name__)


class DeferredEventQueue:
    """Events that have run but wait for the high watermark to pass their offset before they complete.

    Offsets only grow (a write event's records go after the ones before it), so a dict in insertion order plays
    the part of Java's TreeMap.
    """

    def __init__(self, log_context: str = "") -> None:
        self._log_prefix = log_context
        self._pending: dict[int, list[DeferredEvent]] = {}

    def complete_up_to(self, offset: int) -> None:
        """Complete, oldest first, every event whose offset is at most `offset`."""
        num_completed = 0
        for key in list(self._pending):
            if key > offset:
                break
            for event in self._pending.pop(key):
                log.debug("%scompleteUpTo(%d): successfully completing %s", self._log_prefix, offset, event)
                event.complete(None)
                num_completed += 1
        log.debug("%scompleteUpTo(%d): successfully completed %d deferred entries", self._log_prefix, offset,
                  num_completed)

    def fail_all(self, exception: BaseException) -> None:
        for key in list(self._pending):
            for event in self._pending.pop(key):
                log.info("%sfailAll(%s): failing %s.", self._log_prefix, type(exception).__name__, event)
                event.complete(exception)

    def add(self, offset: int, event: DeferredEvent) -> None:
        if self._pending:
            last_key = next(reversed(self._pending))
            if offset < last_key:
                raise IllegalArgumentException(
                    f"There is already a deferred event with offset {last_key}. We should not add one with an "
                    f"offset of {offset} which is lower than that.")
        self._pending.setdefault(offset, []).append(event)
        log.debug("%sAdding deferred event %s at offset %d", self._log_prefix, event, offset)

    def highest_pending_offset(self) -> int | None:
        """The offset of the newest waiting event, or None."""
        return next(reversed(self._pending)) if self._pending else None

    def __len__(self) -> int:
        return sum(len(events) for events in self._pending.values())
