"""Port of raft/src/test/java/org/apache/kafka/raft/MockMessageQueue.java (Kafka 3.9): a message queue whose `poll`
never blocks. It remembers the timeout of the last poll and whether a wakeup was asked since, for tests to check."""

from __future__ import annotations

from collections import deque

from kafka_edu.v3_9.raft.raft.raft_message import RaftMessage
from kafka_edu.v3_9.raft.raft.raft_message_queue import RaftMessageQueue


class MockMessageQueue(RaftMessageQueue):
    def __init__(self) -> None:
        self._messages: deque[RaftMessage] = deque()
        self._wakeup_requested = False
        self._last_poll_timeout = -1

    def poll(self, timeout_ms: int) -> RaftMessage | None:
        self._wakeup_requested = False
        self._last_poll_timeout = timeout_ms
        return self._messages.popleft() if self._messages else None

    def add(self, message: RaftMessage) -> None:
        self._messages.append(message)

    def last_poll_timeout_ms(self) -> int | None:
        """The timeout of the last poll; None before the first (Java's empty OptionalLong)."""
        return None if self._last_poll_timeout < 0 else self._last_poll_timeout

    def wakeup_requested(self) -> bool:
        return self._wakeup_requested

    def is_empty(self) -> bool:
        return not self._messages

    def wakeup(self) -> None:
        self._wakeup_requested = True
