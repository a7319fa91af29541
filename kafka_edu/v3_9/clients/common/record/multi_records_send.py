"""Port of clients/src/main/java/org/apache/kafka/common/record/MultiRecordsSend.java (Kafka 3.9): one response
made of several Sends written one after the other (the bytes of a fetch response around each partition's
records, and the records themselves), each dropped once written."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v3_9.clients.common.network.send import Send
from kafka_edu.v3_9.clients.common.network.transferable_channel import TransferableChannel

log = logging.getLogger(__name__)


class MultiRecordsSend:
    def __init__(self, sends: Iterable[Send], size: int | None = None) -> None:
        self._send_queue: deque[Send] = deque(sends)
        self._size = sum(send.size() for send in self._send_queue) if size is None else size
        self._total_written = 0
        self._current: Send | None = self._send_queue.popleft() if self._send_queue else None

    def size(self) -> int:
        return self._size

    def completed(self) -> bool:
        return self._current is None

    def num_resident_sends(self) -> int:
        """Sends not yet written, the current one included (visible for testing)."""
        return (1 if self._current is not None else 0) + len(self._send_queue)

    def write_to(self, channel: TransferableChannel) -> int:
        if self._current is None:
            raise KafkaException("This operation cannot be invoked on a complete request.")
        total_written_per_call = 0
        while True:
            total_written_per_call += self._current.write_to(channel)
            send_complete = self._current.completed()
            if send_complete:
                # a down-converting send would hand its conversion statistics over here; none is ported
                self._current = self._send_queue.popleft() if self._send_queue else None
            if self._current is None or not send_complete:
                break
        self._total_written += total_written_per_call
        if self._current is None and self._total_written != self._size:
            log.error("mismatch in sending bytes over socket; expected: %d actual: %d", self._size,
                      self._total_written)
        return total_written_per_call

    def __str__(self) -> str:
        return f"MultiRecordsSend(size={self._size}, totalWritten={self._total_written})"
