"""Port of clients/src/main/java/org/apache/kafka/common/network/MultiSend.java (Kafka 1.0.2)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.clients.common.network.send import Send

log = logging.getLogger("org.apache.kafka.common.network.MultiSend")


class MultiSend(Send):
    """Several sends written one after another as one: a call goes on to the next send only once the current one
    has completed, and stops at the first the channel does not take whole."""

    def __init__(self, dest: str, sends: Sequence[Send]) -> None:
        self.dest = dest
        self._sends_iterator = iter(sends)
        self._current: Send | None = None
        self._next_send_or_done()
        self._size = sum(send.size() for send in sends)
        self._total_written = 0

    def size(self) -> int:
        return self._size

    def destination(self) -> str:
        return self.dest

    def completed(self) -> bool:
        return self._current is None

    def write_to(self, channel: Any) -> int:
        if self._current is None:
            raise KafkaException("This operation cannot be invoked on a complete request.")
        total_written_per_call = 0
        while True:
            total_written_per_call += self._current.write_to(channel)
            send_complete = self._current.completed()
            if send_complete:
                self._next_send_or_done()
            if self._current is None or not send_complete:
                break
        self._total_written += total_written_per_call
        if self._current is None and self._total_written != self._size:
            log.error("mismatch in sending bytes over socket; expected: %d actual: %d", self._size,
                      self._total_written)
        return total_written_per_call

    def _next_send_or_done(self) -> None:
        self._current = next(self._sends_iterator, None)
