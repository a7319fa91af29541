"""Port of raft/src/main/java/org/apache/kafka/snapshot/RecordsSnapshotReader.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.file_records import DefaultRecordBatch, FileRecords, MemoryRecords
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.control_record import ControlRecord
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_reader import RawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.snapshot_reader import SnapshotReader
from kafka_edu.v3_9.server_common.server.common.serialization.record_serde import RecordSerde

T = TypeVar("T")


class RecordsSnapshotReader(SnapshotReader[T], Generic[T]):
    """The data batches of a snapshot, decoded with a RecordSerde; control batches are read and skipped.

    The first batch must be a control batch opening with a SnapshotHeaderRecord: its lastContainedLogTimestamp is
    what `last_contained_log_timestamp` returns.
    """

    def __init__(self, snapshot_id: OffsetAndEpoch, iterator: _RecordsIterator[T],
                 include_control_batches: bool = False) -> None:
        self._snapshot_id = snapshot_id
        self._iterator = iterator
        # Kafka returns every batch; the port's listeners want the data batches only, KRaftControlRecordStateMachine
        # (KIP-853) reads the control batches too.
        self._include_control_batches = include_control_batches
        self._next_batch: Batch[T] | None = None
        self._last_contained_log_timestamp: int | None = None

    def snapshot_id(self) -> OffsetAndEpoch:
        return self._snapshot_id

    def last_contained_log_offset(self) -> int:
        return self._snapshot_id.offset - 1

    def last_contained_log_epoch(self) -> int:
        return self._snapshot_id.epoch

    def last_contained_log_timestamp(self) -> int:
        if self._last_contained_log_timestamp is None:
            if self._next_batch is not None:
                batch = self._next_batch
                raise IllegalStateException(
                    "nextBatch was present when last contained log timestamp was not present: Batch(baseOffset="
                    f"{batch.base_offset}, epoch={batch.epoch}, appendTimestamp={batch.append_timestamp}, "
                    f"sizeInBytes={batch.size_in_bytes}, lastOffset={batch.last_offset})")
            self._next_batch = self._read_next_batch()
        if self._last_contained_log_timestamp is None:
            raise IllegalStateException(f"Snapshot {self._snapshot_id} has no batches")
        return self._last_contained_log_timestamp

    def has_next(self) -> bool:
        if self._next_batch is None:
            self._next_batch = self._read_next_batch()
        return self._next_batch is not None

    def __next__(self) -> Batch[T]:
        if not self.has_next():
            raise StopIteration("Snapshot reader doesn't have any more elements")
        batch, self._next_batch = self._next_batch, None
        assert batch is not None
        return batch

    def next(self) -> Batch[T]:
        return self.__next__()

    def close(self) -> None:
        self._iterator.close()

    @staticmethod
    def of(snapshot: RawSnapshotReader, serde: RecordSerde[T], max_batch_size: int = 8 * 1024 * 1024,
           do_crc_validation: bool = True, include_control_batches: bool = False) -> RecordsSnapshotReader[T]:
        """A reader over a raw snapshot; `max_batch_size` sized Kafka's read buffer and is not needed here."""
        return RecordsSnapshotReader(snapshot.snapshot_id(),
                                     _RecordsIterator(snapshot.records(), serde, do_crc_validation),
                                     include_control_batches)

    def _read_next_batch(self) -> Batch[T] | None:
        """The next batch holding data records (Kafka's nextBatch)."""
        for batch in self._iterator:
            if self._last_contained_log_timestamp is None:
                # The first batch: a control batch whose first record is the snapshot header.
                if not batch.control_records:
                    raise IllegalStateException("First batch is not a control batch with at least one record")
                record_type, message = batch.control_records[0].type, batch.control_records[0].message
                if record_type is not ControlRecordType.SNAPSHOT_HEADER:
                    raise IllegalStateException(f"First control record is not a snapshot header ({record_type.name})")
                self._last_contained_log_timestamp = int(message.last_contained_log_timestamp)
            if batch.records or self._include_control_batches:
                return batch
        return None


class _RecordsIterator(Iterator[Batch[T]], Generic[T]):
    """The part of raft/internals/RecordsIterator a snapshot needs: each batch decoded to a Batch.

    Data records go through the serde; control records become ControlRecords.
    """

    def __init__(self, records: FileRecords | MemoryRecords, serde: RecordSerde[T], do_crc_validation: bool) -> None:
        self._records = records
        self._serde = serde
        self._do_crc_validation = do_crc_validation
        self._batches: Iterator[Any] | None = None

    def __next__(self) -> Batch[T]:
        if self._batches is None:
            self._batches = iter(self._records.batches())
        batch = next(self._batches)
        full = batch.load_full_batch() if hasattr(batch, "load_full_batch") else batch
        return self._read_batch(full)

    def _read_batch(self, batch: DefaultRecordBatch) -> Batch[T]:
        if self._do_crc_validation:
            batch.ensure_valid()
        if batch.is_control_batch:
            control_records = [_decode_control_record(record.key, record.value) for record in batch.records()]
            return Batch.control(batch.base_offset, batch.partition_leader_epoch, batch.max_timestamp,
                                 batch.size_in_bytes, control_records)
        records = [self._decode_data_record(record.key, record.value, record.headers) for record in batch.records()]
        return Batch.data(batch.base_offset, batch.partition_leader_epoch, batch.max_timestamp,
                          batch.size_in_bytes, records)

    def _decode_data_record(self, key: bytes | None, value: bytes | None, headers: list[Any]) -> T:
        if key is not None:
            raise IllegalArgumentException("Got key in the record when no key was expected")
        if value is None:
            raise IllegalArgumentException("Got null value in the record when a value was expected")
        if headers:
            raise IllegalArgumentException("Got headers in the record when no headers were expected")
        return self._serde.read(value, len(value))

    def close(self) -> None:
        self._batches = None


def _decode_control_record(key: bytes | None, value: bytes | None) -> ControlRecord:
    if key is None:
        raise IllegalArgumentException("Missing key for control record")
    if value is None:
        raise IllegalArgumentException("Missing value for control record")
    record_type = ControlRecordType.parse(key)
    return ControlRecord(record_type, ControlRecordUtils.deserialize(record_type, value))
