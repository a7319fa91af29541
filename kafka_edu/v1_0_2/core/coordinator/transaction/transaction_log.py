"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionLog.scala (Kafka 1.0.2): the records of
`__transaction_state`, in 1.0.2's byte layout.

    key version 0:    (transactional_id: string)
    value version 0:  (producer_id: int64, producer_epoch: int16, transaction_timeout: int32,
                       transaction_status: int8, transaction_partitions: nullable [topic: string,
                       partition_ids: [int32]], transaction_entry_timestamp: int64,
                       transaction_start_timestamp: int64)

Each key and value starts with its int16 version; a null value is a tombstone (an expired transactional id).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaException
from kafka_edu.v1_0_2.clients.common.protocol.types import TypeReader, TypeWriter
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    Empty,
    TransactionMetadata,
    TxnTransitMetadata,
    byte_to_state,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition

# Log-level defaults, and what every write of the coordinator enforces.
DEFAULT_NUM_PARTITIONS = 50
DEFAULT_SEGMENT_BYTES = 100 * 1024 * 1024
DEFAULT_REPLICATION_FACTOR = 3
DEFAULT_MIN_IN_SYNC_REPLICAS = 2
DEFAULT_LOAD_BUFFER_SIZE = 5 * 1024 * 1024

# Compact cleanup, no compression, no unclean election, and acks=all on every write.
ENFORCED_COMPRESSION_TYPE = CompressionType.NONE
ENFORCED_REQUIRED_ACKS = -1

KEY_SCHEMA_CURRENT_VERSION = 0
VALUE_SCHEMA_CURRENT_VERSION = 0


@dataclass(frozen=True)
class TxnKey:
    version: int
    transactional_id: str

    def __str__(self) -> str:
        return self.transactional_id


def key_to_bytes(transactional_id: str) -> bytes:
    return bytes(TypeWriter().int16(KEY_SCHEMA_CURRENT_VERSION).string(transactional_id).out)


def value_to_bytes(txn_metadata: TxnTransitMetadata) -> bytes:
    w = TypeWriter().int16(VALUE_SCHEMA_CURRENT_VERSION)
    w.int64(txn_metadata.producer_id).int16(txn_metadata.producer_epoch).int32(txn_metadata.txn_timeout_ms)
    w.int8(txn_metadata.txn_state.byte)
    if txn_metadata.txn_state is Empty:
        if txn_metadata.topic_partitions:
            raise IllegalStateException("Transaction is not expected to have any partitions since its state is "
                                        f"{txn_metadata.txn_state}: {txn_metadata}")
        w.int32(-1)  # a null array
    else:
        # Grouped by topic, as 1.0.2 writes them.
        by_topic = [(topic, [tp.partition for tp in tps])
                    for topic, tps in groupby(sorted(txn_metadata.topic_partitions), key=lambda tp: tp.topic)]
        w.int32(len(by_topic))
        for topic, partition_ids in by_topic:
            w.string(topic).int32(len(partition_ids))
            for partition_id in partition_ids:
                w.int32(partition_id)
    w.int64(txn_metadata.txn_last_update_timestamp).int64(txn_metadata.txn_start_timestamp)
    return bytes(w.out)


def read_txn_record_key(buffer: bytes) -> TxnKey:
    r = TypeReader(buffer, "transaction log record key")
    version = r.int16()
    if version != KEY_SCHEMA_CURRENT_VERSION:
        raise KafkaException(f"Unknown transaction log message key schema version {version}")
    return TxnKey(version, r.string())


def read_txn_record_value(transactional_id: str, buffer: bytes | None) -> TransactionMetadata | None:
    """The metadata the record holds; None for a tombstone."""
    if buffer is None:
        return None
    r = TypeReader(buffer, "transaction log record value")
    version = r.int16()
    if version != VALUE_SCHEMA_CURRENT_VERSION:
        raise KafkaException(f"Unknown transaction log message value schema version {version}")
    producer_id, epoch, timeout = r.int64(), r.int16(), r.int32()
    state = byte_to_state(r.int8())
    partitions: list[TopicPartition] = []
    topic_count = r.int32()
    for _ in range(max(topic_count, 0)):
        topic = r.string()
        partitions.extend(TopicPartition(topic, r.int32()) for _ in range(r.int32()))
    entry_timestamp, start_timestamp = r.int64(), r.int64()
    transaction_metadata = TransactionMetadata(transactional_id, producer_id, epoch, timeout, state, (),
                                               start_timestamp, entry_timestamp)
    if state is not Empty:
        transaction_metadata.add_partitions(partitions)
    return transaction_metadata
