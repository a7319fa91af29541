"""Port of raft/src/main/java/org/apache/kafka/raft/internals/BlockingMessageQueue.java (Kafka 3.9)."""

from __future__ import annotations

import queue
import threading

from kafka_edu.v3_9.raft.raft.raft_message import RaftMessage
from kafka_edu.v3_9.raft.raft.raft_message_queue import RaftMessageQueue

_WAKEUP_MESSAGE = object()  # not a message: it only ends a poll early
_MAX_WAIT_S = threading.TIMEOUT_MAX


class BlockingMessageQueue(RaftMessageQueue):
    def __init__(self) -> None:
        self._queue: queue.Queue = queue.Queue()
        self._size = 0
        self._lock = threading.Lock()

    def poll(self, timeout_ms: int) -> RaftMessage | None:
        try:
            message = self._queue.get(timeout=min(max(timeout_ms, 0) / 1000, _MAX_WAIT_S))
        except queue.Empty:
            return None
        if message is _WAKEUP_MESSAGE:
            return None
        with self._lock:
            self._size -= 1
        return message

    def add(self, message: RaftMessage) -> None:
        with self._lock:
            self._size += 1
        self._queue.put(message)

    def is_empty(self) -> bool:
        return self._size == 0

    def wakeup(self) -> None:
        self._queue.put(_WAKEUP_MESSAGE)
