"""Raft control batches (LeaderChangeMessage, snapshot header/footer ...) and data batches of the metadata log."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import pytest
from kio.records.readers import read_batch
from kio.schema.k_raft_version_record.v0.data import KRaftVersionRecord
from kio.schema.leader_change_message.v0.data import LeaderChangeMessage, Voter
from kio.schema.leader_change_message.v1.data import LeaderChangeMessage as LeaderChangeMessageV1
from kio.schema.snapshot_footer_record.v0.data import SnapshotFooterRecord
from kio.schema.snapshot_header_record.v0.data import SnapshotHeaderRecord
from kio.schema.types import BrokerId, TopicName
from kio.serial import entity_writer
from kio.static.primitive import i16, i32, i64

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidRecordException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import (
    CURRENT_END_TXN_SCHEMA_RECORD_SIZE,
    EndTransactionMarker,
)
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    RECORD_BATCH_OVERHEAD,
    FileRecords,
    MemoryRecords,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    MemoryRecordsBuilder,
    with_end_transaction_marker,
    with_kraft_version_record,
    with_leader_change_message,
    with_records,
    with_snapshot_footer_record,
    with_snapshot_header_record,
)
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, NoOpRecord, TopicRecord
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde

NOW = 1_730_000_000_000


def _leader_change(leader: int = 1) -> LeaderChangeMessage:
    return LeaderChangeMessage(version=i16(0), leader_id=BrokerId(leader),
                               voters=(Voter(voter_id=i32(1)), Voter(voter_id=i32(2)), Voter(voter_id=i32(3))),
                               granting_voters=(Voter(voter_id=i32(1)), Voter(voter_id=i32(2))))


def test_a_leader_change_batch_reads_back_as_a_control_batch_of_the_epoch() -> None:
    records = with_leader_change_message(5, NOW, 3, _leader_change())
    [batch] = list(MemoryRecords(records.buffer).batches())
    batch.ensure_valid()  # CRC-32C over attributes..end
    assert (batch.base_offset, batch.last_offset, batch.record_count) == (5, 5, 1)
    assert batch.is_control_batch and not batch.is_transactional
    assert batch.partition_leader_epoch == 3
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence) == (-1, -1, -1)
    assert batch.timestamp_type is TimestampType.CREATE_TIME and batch.max_timestamp == NOW
    [record] = list(batch.records())
    assert record.offset == 5 and record.timestamp == NOW and record.headers == []
    assert record.key == bytes.fromhex("0000" "0002")  # key version 0, type LEADER_CHANGE
    assert record.value == bytes.fromhex(
        "0000"  # LeaderChangeMessage.version
        "00000001"  # leader id
        "04" "00000001" "00" "00000002" "00" "00000003" "00"  # voters: 3 + 1, each voter id then no tags
        "03" "00000001" "00" "00000002" "00"  # granting voters
        "00")  # no tagged fields: the bare message, no version prefix
    assert ControlRecordType.parse(record.key) is ControlRecordType.LEADER_CHANGE
    assert ControlRecordUtils.deserialize_leader_change_message(record) == _leader_change()
    assert ControlRecordUtils.deserialize_leader_change_message(record.value) == _leader_change()


def test_an_independent_batch_parser_reads_the_same_batch(tmp_path: Path) -> None:
    records = with_leader_change_message(0, NOW, 7, _leader_change(2))
    parsed, size = read_batch(bytes(records.buffer), 0)  # kio's own batch reader checks the CRC and the lengths
    assert size == records.size_in_bytes()
    assert parsed.attributes & 0x20 and parsed.partition_leader_epoch == 7
    assert parsed.records[0].key == ControlRecordType.LEADER_CHANGE.record_key()
    # And through a segment file, as the raft log will hold it.
    file_records = FileRecords.open(tmp_path / "00000000000000000000.log")
    file_records.append(records)
    [on_disk] = list(file_records.batches())
    full = on_disk.load_full_batch()
    assert full.is_control_batch and on_disk.partition_leader_epoch == 7
    assert ControlRecordUtils.deserialize_leader_change_message(next(full.records())).leader_id == 2
    file_records.close()


@pytest.mark.parametrize(("build", "record_type", "message"), [
    (with_snapshot_header_record, ControlRecordType.SNAPSHOT_HEADER,
     SnapshotHeaderRecord(version=i16(0), last_contained_log_timestamp=i64(NOW))),
    (with_snapshot_footer_record, ControlRecordType.SNAPSHOT_FOOTER, SnapshotFooterRecord(version=i16(0))),
    (with_kraft_version_record, ControlRecordType.KRAFT_VERSION,
     KRaftVersionRecord(version=i16(0), k_raft_version=i16(0))),
])
def test_every_raft_control_type_round_trips(build, record_type: ControlRecordType, message: object) -> None:
    [batch] = list(build(0, NOW, 1, message).batches())
    [record] = list(batch.records())
    assert batch.is_control_batch
    assert ControlRecordType.parse(record.key) is record_type
    assert ControlRecordUtils.deserialize(record_type, record.value) == message


def test_a_record_of_another_type_is_refused_by_the_typed_deserializer() -> None:
    [record] = list(next(with_leader_change_message(0, NOW, 1, _leader_change()).batches()).records())
    with pytest.raises(IllegalArgumentException,
                       match=r"Expected SNAPSHOT_HEADER control record type\(3\), but found LEADER_CHANGE"):
        ControlRecordUtils.deserialize_snapshot_header_record(record)


def test_control_record_keys() -> None:
    assert ControlRecordType.parse(bytes.fromhex("0000" "0006")) is ControlRecordType.KRAFT_VOTERS
    assert ControlRecordType.parse(bytes.fromhex("0000" "0063")) is ControlRecordType.UNKNOWN  # 99: skip it
    assert ControlRecordType.parse(bytes.fromhex("0001" "0000")) is ControlRecordType.ABORT  # newer key version
    with pytest.raises(InvalidRecordException, match="at least 4 bytes"):
        ControlRecordType.parse(b"\x00\x00\x00")
    with pytest.raises(InvalidRecordException, match="Invalid version"):
        ControlRecordType.parse(bytes.fromhex("ffff" "0002"))
    with pytest.raises(IllegalArgumentException):
        ControlRecordType.UNKNOWN.record_key()
    with pytest.raises(IllegalArgumentException, match="Unknown control record type"):
        ControlRecordUtils.deserialize(ControlRecordType.COMMIT, b"")


def test_builder_refuses_mixing_data_and_control_records_and_a_leader_change_without_epoch() -> None:
    control = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, NOW, -1, -1, -1, False, 1,
                                   is_control_batch=True)
    with pytest.raises(IllegalArgumentException, match="Control records can only be appended to control batches"):
        control.append(NOW, None, b"data")
    data = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, NOW, -1, -1, -1, False, 1)
    with pytest.raises(IllegalArgumentException, match="Control records can only be appended to control batches"):
        data.append_leader_change_message(NOW, _leader_change())
    with pytest.raises(IllegalArgumentException, match="Partition leader epoch must be valid"):
        with_leader_change_message(0, NOW, -1, _leader_change())
    with pytest.raises(IllegalArgumentException):  # 3.9 reads LeaderChangeMessage at version 0 only
        with_leader_change_message(0, NOW, 1, LeaderChangeMessageV1(version=i16(1), leader_id=BrokerId(1),
                                                                    voters=(), granting_voters=()))


def test_a_data_batch_of_serialized_metadata_records() -> None:
    serde = MetadataRecordSerde.INSTANCE
    messages = [ApiMessageAndVersion(TopicRecord(name=TopicName("t"), topic_id=uuid.uuid4()), 0),
                ApiMessageAndVersion(NoOpRecord(), 0)]
    records = with_records(10, NOW, 4, [serde.write(m) for m in messages])
    [batch] = list(records.batches())
    batch.ensure_valid()
    assert (batch.base_offset, batch.last_offset, batch.partition_leader_epoch) == (10, 11, 4)
    assert not batch.is_control_batch
    decoded = list(batch.records())
    assert [r.offset for r in decoded] == [10, 11]
    assert all(r.key is None and r.timestamp == NOW for r in decoded)
    assert [serde.read(r.value) for r in decoded] == messages
    parsed, _ = read_batch(bytes(records.buffer), 0)
    assert parsed.attributes == 0 and [r.value for r in parsed.records] == [r.value for r in decoded]
    with pytest.raises(IllegalArgumentException):
        with_records(0, NOW, 1, [])


def test_control_messages_are_written_bare() -> None:
    out = io.BytesIO()
    entity_writer(SnapshotFooterRecord)(out, SnapshotFooterRecord(version=i16(0)))
    [record] = list(next(with_snapshot_footer_record(0, NOW, 1, SnapshotFooterRecord(version=i16(0)))
                         .batches()).records())
    assert record.value == out.getvalue() == bytes.fromhex("0000" "00")


# --- the end transaction markers (COMMIT / ABORT) that partition leaders write for WriteTxnMarkers (Kafka 1.0.2) ---

def test_an_end_transaction_marker_batch() -> None:
    records = with_end_transaction_marker(4000, 3, EndTransactionMarker(ControlRecordType.ABORT, 7), timestamp=NOW)
    assert records.size_in_bytes() == RECORD_BATCH_OVERHEAD + CURRENT_END_TXN_SCHEMA_RECORD_SIZE == 78
    [batch] = list(records.batches())
    batch.ensure_valid()
    assert batch.is_control_batch and batch.is_transactional
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence) == (4000, 3, -1)
    assert (batch.base_offset, batch.partition_leader_epoch) == (0, -1)  # the leader assigns both on append
    [record] = list(batch.records())
    assert record.key == bytes.fromhex("0000" "0000")  # key version 0, ABORT
    assert record.value == bytes.fromhex("0000" "00000007")  # value version 0, coordinator epoch 7
    assert EndTransactionMarker.deserialize(record) == EndTransactionMarker(ControlRecordType.ABORT, 7)
    parsed, _ = read_batch(bytes(records.buffer), 0)  # kio's reader agrees on the bytes
    assert parsed.attributes & 0x30 == 0x30  # transactional and control


def test_end_transaction_markers_refuse_what_1_0_2_refuses() -> None:
    with pytest.raises(IllegalArgumentException, match="Invalid control record type for end transaction marker"):
        EndTransactionMarker(ControlRecordType.LEADER_CHANGE, 0)
    with pytest.raises(InvalidRecordException, match="at least 6 bytes, but found only 4"):
        EndTransactionMarker.deserialize_value(ControlRecordType.COMMIT, b"\x00\x00\x00\x01")
    with pytest.raises(InvalidRecordException, match="Invalid version found for end transaction marker: -1"):
        EndTransactionMarker.deserialize_value(ControlRecordType.COMMIT, bytes.fromhex("ffff" "00000001"))
    # a newer value version is read as version 0
    assert EndTransactionMarker.deserialize_value(ControlRecordType.COMMIT, bytes.fromhex("0001" "00000002" "ff")) \
        == EndTransactionMarker(ControlRecordType.COMMIT, 2)
    no_producer = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, NOW, -1, -1, -1, True, -1,
                                       is_control_batch=True)
    with pytest.raises(IllegalArgumentException, match="requires a valid producerId"):
        no_producer.append_end_txn_marker(NOW, EndTransactionMarker(ControlRecordType.COMMIT, 0))
    not_transactional = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, NOW, 1, 0, -1, False,
                                             -1, is_control_batch=True)
    with pytest.raises(IllegalArgumentException, match="transactional flag"):
        not_transactional.append_end_txn_marker(NOW, EndTransactionMarker(ControlRecordType.COMMIT, 0))
