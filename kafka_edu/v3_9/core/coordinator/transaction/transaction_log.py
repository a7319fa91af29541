"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionLog.scala (Kafka 3.9).

`__transaction_state` holds, per transactional id, a record keyed by TransactionLogKey v0 [transactional id] whose
value is TransactionLogValue [producer id, epoch, timeout, state byte, [topic, [partition]], last update, start],
each prefixed with its int16 version. The value is written at version 0 (1.0.2's bytes exactly) unless the
caller says the records may be flexible (transaction.version 1), then at version 1; both are read back.

Scala takes a ByteBuffer and reads the version off its position; the port takes the record's bytes.
"""

from __future__ import annotations

import struct
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Protocol

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    Empty,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated._wire import Readable, Writable
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated.transaction_log_key import (
    TransactionLogKey,
)
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated.transaction_log_value import (
    PartitionsSchema,
    TransactionLogValue,
)

_SHORT = struct.Struct(">h")


class _Message(Protocol):
    def write(self, writable: Writable, version: int) -> None: ...


def to_version_prefixed_bytes(version: int, message: _Message) -> bytes:
    """MessageUtil.toVersionPrefixedBytes: the int16 version, then the message at that version."""
    writable = Writable()
    writable.write_short(version)
    message.write(writable, version)
    return bytes(writable.out)


class BaseKey:
    version: int
    transactional_id: str | None


@dataclass(frozen=True)
class TxnKey(BaseKey):
    version: int
    transactional_id: str

    def __str__(self) -> str:
        return self.transactional_id


@dataclass(frozen=True)
class UnknownKey(BaseKey):
    """A key of a version this broker does not know: a newer broker wrote it; loading skips it."""

    version: int

    @property
    def transactional_id(self) -> str | None:  # type: ignore[override]
        return None

    def __str__(self) -> str:
        return str(self.transactional_id)


class TransactionLog:
    # The topic is compacted, uncompressed, with no unclean election, and written with acks=-1.
    ENFORCED_COMPRESSION = Compression.NONE
    ENFORCED_REQUIRED_ACKS = -1

    @staticmethod
    def key_to_bytes(transactional_id: str) -> bytes:
        return to_version_prefixed_bytes(TransactionLogKey.HIGHEST_SUPPORTED_VERSION,
                                         TransactionLogKey().set_transactional_id(transactional_id))

    @staticmethod
    def value_to_bytes(txn_metadata: TxnTransitMetadata, uses_flexible_records: bool) -> bytes:
        if txn_metadata.txn_state is Empty and txn_metadata.topic_partitions:
            raise IllegalStateException("Transaction is not expected to have any partitions since its state is "
                                        f"{txn_metadata.txn_state}: {txn_metadata}")
        transaction_partitions: list[PartitionsSchema] | None
        if txn_metadata.txn_state is Empty:
            transaction_partitions = None
        else:
            by_topic: dict[str, list[int]] = defaultdict(list)
            # sorted, so the same transaction always writes the same bytes (Kafka follows its hash set's order)
            for tp in sorted(txn_metadata.topic_partitions, key=lambda tp: (str(tp.topic), tp.partition)):
                by_topic[str(tp.topic)].append(tp.partition)
            transaction_partitions = [PartitionsSchema().set_topic(topic).set_partition_ids(partitions)
                                      for topic, partitions in by_topic.items()]
        # version 0 (the highest non-flexible one) until transaction.version 1 allows flexible records
        version = 1 if uses_flexible_records else 0
        return to_version_prefixed_bytes(version, TransactionLogValue()
                                         .set_producer_id(txn_metadata.producer_id)
                                         .set_producer_epoch(txn_metadata.producer_epoch)
                                         .set_transaction_timeout_ms(txn_metadata.txn_timeout_ms)
                                         .set_transaction_status(txn_metadata.txn_state.id)
                                         .set_transaction_last_update_timestamp_ms(
                                             txn_metadata.txn_last_update_timestamp)
                                         .set_transaction_start_timestamp_ms(txn_metadata.txn_start_timestamp)
                                         .set_transaction_partitions(transaction_partitions))

    @staticmethod
    def read_txn_record_key(buffer: bytes | bytearray | memoryview) -> BaseKey:
        readable = Readable(buffer)
        version = readable.read_short()
        if TransactionLogKey.LOWEST_SUPPORTED_VERSION <= version <= TransactionLogKey.HIGHEST_SUPPORTED_VERSION:
            value = TransactionLogKey.read(readable, version)
            return TxnKey(version=version, transactional_id=value.transactional_id)
        return UnknownKey(version)

    @staticmethod
    def read_txn_record_value(transactional_id: str,
                              buffer: bytes | bytearray | memoryview | None) -> TransactionMetadata | None:
        if buffer is None:  # a tombstone
            return None
        readable = Readable(buffer)
        version = readable.read_short()
        if not TransactionLogValue.LOWEST_SUPPORTED_VERSION <= version <= TransactionLogValue.HIGHEST_SUPPORTED_VERSION:
            raise IllegalStateException(f"Unknown version {version} from the transaction log message value")
        value = TransactionLogValue.read(readable, version)
        # the log keeps no last producer id or epoch: a loaded id starts without them
        transaction_metadata = TransactionMetadata(
            transactional_id=transactional_id,
            producer_id=value.producer_id,
            last_producer_id=NO_PRODUCER_ID,
            producer_epoch=value.producer_epoch,
            last_producer_epoch=NO_PRODUCER_EPOCH,
            txn_timeout_ms=value.transaction_timeout_ms,
            state=TransactionState.from_id(value.transaction_status),
            topic_partitions=set(),
            txn_start_timestamp=value.transaction_start_timestamp_ms,
            txn_last_update_timestamp=value.transaction_last_update_timestamp_ms)
        if transaction_metadata.state is not Empty:
            for partitions_schema in value.transaction_partitions or []:
                transaction_metadata.add_partitions({TopicPartition(partitions_schema.topic, partition_id)
                                                     for partition_id in partitions_schema.partition_ids})
        return transaction_metadata

    class TransactionLogMessageFormatter:
        """For the console tools (deprecated in 3.9): one line `<transactional id>::<metadata or NULL>` per record."""

        def write_to(self, consumer_record: Any, output: Any) -> None:
            key = consumer_record.key()
            if key is None:
                return
            txn_key = TransactionLog.read_txn_record_key(key)
            if isinstance(txn_key, TxnKey):
                value = consumer_record.value()
                producer_id_metadata = (None if value is None
                                        else TransactionLog.read_txn_record_value(txn_key.transactional_id, value))
                output.write(txn_key.transactional_id.encode("utf-8"))
                output.write(b"::")
                output.write(str("NULL" if producer_id_metadata is None else producer_id_metadata).encode("utf-8"))
                output.write(b"\n")
            else:
                output.write(f"unknown::version={txn_key.version}\n".encode())

    @staticmethod
    def format_record_key_and_value(record: Any) -> tuple[str | None, str | None]:
        """What DumpLogSegments prints for a `__transaction_state` record."""
        txn_key = TransactionLog.read_txn_record_key(record.key())
        if isinstance(txn_key, TxnKey):
            key_string = f"transaction_metadata::transactionalId={txn_key.transactional_id}"
            txn_metadata = TransactionLog.read_txn_record_value(txn_key.transactional_id, record.value())
            if txn_metadata is None:
                value_string = "<DELETE>"
            else:
                partitions = ",".join(str(tp) for tp in txn_metadata.topic_partitions)
                value_string = (f"producerId:{txn_metadata.producer_id},"
                                f"producerEpoch:{txn_metadata.producer_epoch},"
                                f"state={txn_metadata.state},"
                                f"partitions=[{partitions}],"
                                f"txnLastUpdateTimestamp={txn_metadata.txn_last_update_timestamp},"
                                f"txnTimeoutMs={txn_metadata.txn_timeout_ms}")
            return key_string, value_string
        return f"unknown::version={txn_key.version}", None
