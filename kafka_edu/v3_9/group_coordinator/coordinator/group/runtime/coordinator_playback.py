"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorPlayback.java
(Kafka 3.9): what a loader replays a partition's records into, to rebuild a coordinator's state."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult

U = TypeVar("U")


class CoordinatorPlayback(ABC, Generic[U]):

    @abstractmethod
    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: U) -> None: ...

    @abstractmethod
    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None: ...

    @abstractmethod
    def update_last_written_offset(self, offset: int) -> None:
        """A batch was loaded; `offset` is its last record's offset plus one."""

    @abstractmethod
    def update_last_committed_offset(self, offset: int) -> None:
        """The high watermark moved to `offset`."""
