"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/PartitionWriter.java (Kafka 3.9):
the little a coordinator needs from the log of its partition: append, verify a transaction, and hear when the high
watermark moves."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard


class Listener(ABC):
    """PartitionWriter.Listener: told the new high watermark of a partition it registered for."""

    @abstractmethod
    def on_high_watermark_updated(self, tp: TopicPartition, offset: int) -> None: ...


class PartitionWriter(ABC):

    Listener = Listener

    @abstractmethod
    def register_listener(self, tp: TopicPartition, listener: Listener) -> None: ...

    @abstractmethod
    def deregister_listener(self, tp: TopicPartition, listener: Listener) -> None: ...

    @abstractmethod
    def config(self, tp: TopicPartition) -> LogConfig: ...

    @abstractmethod
    def append(self, tp: TopicPartition, verification_guard: VerificationGuard, records: MemoryRecords) -> int:
        """The log end offset right after the appended records; raises a KafkaException on failure."""

    @abstractmethod
    def maybe_start_transaction_verification(self, tp: TopicPartition, transactional_id: str, producer_id: int,
                                             producer_epoch: int,
                                             api_version: int) -> CompletableFuture[VerificationGuard]:
        """A future of the guard to append with (VerificationGuard.SENTINEL when no verification was needed), or
        failed with the verification's error."""
