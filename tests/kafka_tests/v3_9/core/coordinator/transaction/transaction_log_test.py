"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionLogTest.scala (Kafka 3.9).

The "future" TransactionLogValue of testDeserializeFutureTransactionLogValue (v1 plus tagged fields Kafka builds
with a Schema and Struct) is written here with the wire primitives directly.
"""

from __future__ import annotations

import struct

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_log import (
    TransactionLog,
    UnknownKey,
    to_version_prefixed_bytes,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    CompleteAbort,
    CompleteCommit,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated._wire import Readable, Writable
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated.transaction_log_key import (
    TransactionLogKey,
)
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated.transaction_log_value import (
    TransactionLogValue,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionLogTest.scala",
    cases=[
        "shouldThrowExceptionWriteInvalidTxn",
        "shouldReadWriteMessages",
        "testTransactionMetadataParsing",
        "testTransactionMetadataTombstoneParsing",
        "testSerializeTransactionLogValueToHighestNonFlexibleVersion",
        "testSerializeTransactionLogValueToFlexibleVersion",
        "testDeserializeHighestSupportedTransactionLogValue",
        "testDeserializeFutureTransactionLogValue",
        "testReadTxnRecordKeyCanReadUnknownMessage",
    ],
)

producer_epoch = 0
transaction_timeout_ms = 1000
topic_partitions = {TopicPartition("topic1", 0), TopicPartition("topic1", 1), TopicPartition("topic2", 0),
                    TopicPartition("topic2", 1), TopicPartition("topic2", 2)}


def _records(*records: SimpleRecord) -> MemoryRecords:
    return MemoryRecords.with_records(Compression.NONE, *records)


def test_should_throw_exception_write_invalid_txn() -> None:
    txn_metadata = TransactionMetadata.apply("transactionalId", 23423, producer_epoch, transaction_timeout_ms, 0)
    txn_metadata.add_partitions(topic_partitions)
    with pytest.raises(IllegalStateException):
        TransactionLog.value_to_bytes(txn_metadata.prepare_no_transit(), True)


def test_should_read_write_messages() -> None:
    pid_mappings = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
    transaction_states: dict[int, TransactionState] = {0: Empty, 1: Ongoing, 2: PrepareCommit, 3: CompleteCommit,
                                                       4: PrepareAbort, 5: CompleteAbort}
    txn_records = []
    for transactional_id, producer_id in pid_mappings.items():
        txn_metadata = TransactionMetadata.apply(transactional_id, producer_id, producer_epoch, transaction_timeout_ms,
                                                 transaction_states[producer_id], 0)
        if txn_metadata.state is not Empty:
            txn_metadata.add_partitions(topic_partitions)
        key_bytes = TransactionLog.key_to_bytes(transactional_id)
        value_bytes = TransactionLog.value_to_bytes(txn_metadata.prepare_no_transit(), True)
        txn_records.append(SimpleRecord(key=key_bytes, value=value_bytes))

    records = _records(*txn_records)
    count = 0
    for record in records.records():
        txn_key = TransactionLog.read_txn_record_key(record.key())
        transactional_id = txn_key.transactional_id
        assert transactional_id is not None
        txn_metadata = TransactionLog.read_txn_record_value(transactional_id, record.value())
        assert txn_metadata is not None
        assert txn_metadata.producer_id == pid_mappings[transactional_id]
        assert txn_metadata.producer_epoch == producer_epoch
        assert txn_metadata.txn_timeout_ms == transaction_timeout_ms
        assert txn_metadata.state is transaction_states[txn_metadata.producer_id]
        if txn_metadata.state is Empty:
            assert txn_metadata.topic_partitions == set()
        else:
            assert txn_metadata.topic_partitions == topic_partitions
        count += 1
    assert count == len(pid_mappings)


def test_transaction_metadata_parsing() -> None:
    transactional_id = "id"
    producer_id = 1334
    topic_partition = TopicPartition("topic", 0)
    txn_metadata = TransactionMetadata.apply(transactional_id, producer_id, producer_epoch, transaction_timeout_ms,
                                             Ongoing, 0)
    txn_metadata.add_partitions({topic_partition})

    key_bytes = TransactionLog.key_to_bytes(transactional_id)
    value_bytes = TransactionLog.value_to_bytes(txn_metadata.prepare_no_transit(), True)
    transaction_metadata_record = next(iter(_records(SimpleRecord(key=key_bytes, value=value_bytes)).records()))

    key_string, value_string = TransactionLog.format_record_key_and_value(transaction_metadata_record)
    assert key_string == f"transaction_metadata::transactionalId={transactional_id}"
    assert value_string == (f"producerId:{producer_id},producerEpoch:{producer_epoch},state=Ongoing,"
                            f"partitions=[{topic_partition}],txnLastUpdateTimestamp=0,"
                            f"txnTimeoutMs={transaction_timeout_ms}")


def test_transaction_metadata_tombstone_parsing() -> None:
    transactional_id = "id"
    transaction_metadata_record = next(iter(_records(
        SimpleRecord(key=TransactionLog.key_to_bytes(transactional_id), value=None)).records()))
    key_string, value_string = TransactionLog.format_record_key_and_value(transaction_metadata_record)
    assert key_string == f"transaction_metadata::transactionalId={transactional_id}"
    assert value_string == "<DELETE>"


def test_serialize_transaction_log_value_to_highest_non_flexible_version() -> None:
    txn_transit_metadata = TxnTransitMetadata(1, 1, 1, 1, 1000, CompleteCommit, frozenset(), 500, 500)
    txn_log_value_buffer = TransactionLog.value_to_bytes(txn_transit_metadata, False)
    assert struct.unpack_from(">h", txn_log_value_buffer)[0] == 0


def test_serialize_transaction_log_value_to_flexible_version() -> None:
    txn_transit_metadata = TxnTransitMetadata(1, 1, 1, 1, 1000, CompleteCommit, frozenset(), 500, 500)
    txn_log_value_buffer = TransactionLog.value_to_bytes(txn_transit_metadata, True)
    assert struct.unpack_from(">h", txn_log_value_buffer)[0] == TransactionLogValue.HIGHEST_SUPPORTED_VERSION


def test_deserialize_highest_supported_transaction_log_value() -> None:
    txn_partitions = TransactionLogValue.PartitionsSchema().set_topic("topic").set_partition_ids([0])
    txn_log_value = (TransactionLogValue()
                     .set_producer_id(100)
                     .set_producer_epoch(50)
                     .set_transaction_status(CompleteCommit.id)
                     .set_transaction_start_timestamp_ms(750)
                     .set_transaction_last_update_timestamp_ms(1000)
                     .set_transaction_timeout_ms(500)
                     .set_transaction_partitions([txn_partitions]))

    serialized = to_version_prefixed_bytes(1, txn_log_value)
    deserialized = TransactionLog.read_txn_record_value("transactionId", serialized)
    assert deserialized is not None

    assert deserialized.producer_id == 100
    assert deserialized.producer_epoch == 50
    assert deserialized.state is CompleteCommit
    assert deserialized.txn_start_timestamp == 750
    assert deserialized.txn_last_update_timestamp == 1000
    assert deserialized.txn_timeout_ms == 500

    actual_txn_partitions = deserialized.topic_partitions
    assert len(actual_txn_partitions) == 1
    assert TopicPartition("topic", 0) in actual_txn_partitions


def _tagged(tag: int, data: bytes, w: Writable) -> None:
    w.write_unsigned_varint(tag)
    w.write_unsigned_varint(len(data))
    w.write_bytes(data)


def test_deserialize_future_transaction_log_value() -> None:
    # TransactionLogValue v1 as a later version could write it: two unknown tagged fields on the partitions entry
    # (a STRING and an INT32) and two on the value itself.
    w = Writable()
    w.write_short(1)  # the version prefix
    w.write_long(1000)  # producer_id
    w.write_short(100)  # producer_epoch
    w.write_int(1000)  # transaction_timeout_ms
    w.write_byte(CompleteCommit.id)  # transaction_status
    w.write_unsigned_varint(1 + 1)  # one partitions entry
    w.write_string("topic", True)
    w.write_unsigned_varint(1 + 1)  # one partition id
    w.write_int(1)
    w.write_unsigned_varint(2)
    _tagged(0, struct.pack(">h", 3) + b"foo", w)
    _tagged(1, struct.pack(">i", 4000), w)
    w.write_long(2000)  # transaction_last_update_timestamp_ms
    w.write_long(3000)  # transaction_start_timestamp_ms
    w.write_unsigned_varint(2)
    _tagged(0, struct.pack(">h", 3) + b"foo", w)
    _tagged(1, struct.pack(">i", 4000), w)
    buffer = bytes(w.out)

    # the real schema reads the tagged fields and keeps them aside
    readable = Readable(buffer)
    readable.read_short()  # skip the version
    value = TransactionLogValue.read(readable, 1)
    assert [f.tag for f in value.unknown_tagged_fields()] == [0, 1]
    assert value.transaction_partitions is not None
    assert [f.tag for f in value.transaction_partitions[0].unknown_tagged_fields()] == [0, 1]

    txn_metadata = TransactionLog.read_txn_record_value("transaction-id", buffer)
    assert txn_metadata is not None
    assert txn_metadata.producer_id == 1000
    assert txn_metadata.producer_epoch == 100
    assert txn_metadata.txn_timeout_ms == 1000
    assert txn_metadata.state is CompleteCommit
    assert txn_metadata.topic_partitions == {TopicPartition("topic", 1)}
    assert txn_metadata.txn_last_update_timestamp == 2000
    assert txn_metadata.txn_start_timestamp == 3000


def test_read_txn_record_key_can_read_unknown_message() -> None:
    record = TransactionLogKey()
    unknown_record = to_version_prefixed_bytes(32767, record)
    key = TransactionLog.read_txn_record_key(unknown_record)
    assert key == UnknownKey(32767)
