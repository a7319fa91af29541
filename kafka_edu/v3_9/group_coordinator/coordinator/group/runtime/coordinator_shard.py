"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorShard.java (Kafka 3.9):
the replicated state machine of one coordinator partition, which the runtime drives."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage

U = TypeVar("U")


class CoordinatorShard(ABC, Generic[U]):
    """Only `replay` is required; the hooks default to doing nothing, as Kafka's default methods do."""

    def on_loaded(self, new_image: MetadataImage) -> None:
        """The partition is fully loaded (the place to register timers)."""

    def on_new_metadata_image(self, new_image: MetadataImage, delta: MetadataDelta) -> None:
        """A new metadata image; only called after `on_loaded`."""

    def on_unloaded(self) -> None:
        """The partition was unloaded."""

    @abstractmethod
    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: U) -> None: ...

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        """Commits or aborts the transaction's pending records."""
