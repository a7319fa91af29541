"""Port of server-common/src/main/java/org/apache/kafka/server/common/ProducerIdsBlock.java (Kafka 3.9)."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import ClassVar

PRODUCER_ID_BLOCK_SIZE = 1000


@dataclass(frozen=True)
class ProducerIdsBlock:
    """A run of `producer_id_len` producer ids from `producer_id_start`, handed to one broker; the broker claims
    them one at a time, from any handler thread."""

    EMPTY: ClassVar[ProducerIdsBlock]

    assigned_broker_id: int
    producer_id_start: int
    producer_id_len: int
    _claimed: itertools.count = field(default_factory=itertools.count, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def claim_next_id(self) -> int | None:
        """The next unclaimed id, or None once the block is used up."""
        with self._lock:
            n = next(self._claimed)
        return self.producer_id_start + n if n < self.producer_id_len else None

    def first_producer_id(self) -> int:
        return self.producer_id_start

    def size(self) -> int:
        return self.producer_id_len

    def last_producer_id(self) -> int:
        return self.producer_id_start + self.producer_id_len - 1

    def next_block_first_id(self) -> int:
        return self.producer_id_start + self.producer_id_len


ProducerIdsBlock.EMPTY = ProducerIdsBlock(-1, 0, 0)
