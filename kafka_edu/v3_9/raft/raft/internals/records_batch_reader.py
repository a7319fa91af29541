"""Port of raft/src/main/java/org/apache/kafka/raft/internals/RecordsBatchReader.java and RecordsIterator.java
(Kafka 3.9): committed batches read back from the log, decoded as they are iterated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException
from kafka_edu.v1_0_2.clients.common.record.file_records import DefaultRecordBatch, MemoryRecords
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.batch_reader import BatchReader, CloseListener
from kafka_edu.v3_9.raft.raft.control_record import ControlRecord

T = TypeVar("T")


class RecordsIterator(Iterator[Batch[T]], Generic[T]):
    """Each batch of `records` as a Batch: a data batch's values through the serde, a control batch's records as
    ControlRecords."""

    def __init__(self, records: bytes, serde: Any, do_crc_validation: bool) -> None:
        self._batches = MemoryRecords(records).batches()
        self._serde = serde
        self._do_crc_validation = do_crc_validation

    def __next__(self) -> Batch[T]:
        batch = next(self._batches)
        return self._read_batch(batch)

    def _read_batch(self, batch: DefaultRecordBatch) -> Batch[T]:
        if self._do_crc_validation and not batch.is_valid():
            raise CorruptRecordException(f"Record batch is corrupt (stored crc = {batch.checksum}, computed crc = "
                                         f"{batch.compute_checksum()})")
        size = batch.size_in_bytes
        if batch.is_control_batch:
            control_records = [self._decode_control_record(record) for record in batch.records()]
            return Batch.control(batch.base_offset, batch.partition_leader_epoch, batch.max_timestamp, size,
                                 control_records)
        records = [self._serde.read(record.value, len(record.value)) for record in batch.records()]
        return Batch.data(batch.base_offset, batch.partition_leader_epoch, batch.max_timestamp, size, records)

    @staticmethod
    def _decode_control_record(record: Any) -> ControlRecord:
        if record.key is None:
            raise CorruptRecordException("Control record has no key")
        record_type = ControlRecordType.parse(record.key)
        if record_type is ControlRecordType.UNKNOWN:
            return ControlRecord(record_type, None)
        return ControlRecord(record_type, ControlRecordUtils.deserialize(record_type, record.value or b""))


class RecordsBatchReader(BatchReader[T], Generic[T]):
    def __init__(self, base_offset: int, iterator: RecordsIterator[T], close_listener: CloseListener) -> None:
        self._base_offset = base_offset
        self._iterator = iterator
        self._close_listener = close_listener
        self._last_returned_offset = base_offset
        self._closed = False

    @staticmethod
    def of(base_offset: int, records: bytes, serde: Any, close_listener: CloseListener,
           do_crc_validation: bool = True) -> RecordsBatchReader[T]:
        return RecordsBatchReader(base_offset, RecordsIterator(records, serde, do_crc_validation), close_listener)

    def base_offset(self) -> int:
        return self._base_offset

    def last_offset(self) -> int | None:
        """Known only once closed: the reader decodes lazily."""
        return self._last_returned_offset if self._closed else None

    def __next__(self) -> Batch[T]:
        if self._closed:
            raise RuntimeError("Records batch reader was closed")
        batch = next(self._iterator)
        self._last_returned_offset = batch.last_offset
        return batch

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._close_listener.on_close(self)
