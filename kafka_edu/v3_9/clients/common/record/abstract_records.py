"""Port of clients/src/main/java/org/apache/kafka/common/record/AbstractRecords.java (Kafka 3.9): what MemoryRecords
and FileRecords share (first and last batch, the flat record iterator) and the batch size estimates."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.record import legacy_record
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V1, MAGIC_VALUE_V2, RecordBatch
from kafka_edu.v3_9.clients.common.record.records import LOG_OVERHEAD
from kafka_edu.v3_9.clients.common.record.records_send import DefaultRecordsSend
from kafka_edu.v3_9.clients.common.utils.byte_utils import Buffer


class AbstractRecords:
    def batches(self) -> Iterable[RecordBatch]:
        raise NotImplementedError

    def has_matching_magic(self, magic: int) -> bool:
        return all(batch.magic() == magic for batch in self.batches())

    def first_batch(self) -> RecordBatch | None:
        return next(iter(self.batches()), None)

    def last_batch(self) -> RecordBatch | None:
        """The last batch, or None (Optional.empty); this walks every batch."""
        batch = None
        for batch in self.batches():  # noqa: B007 - keep the last one
            pass
        return batch

    def to_send(self) -> DefaultRecordsSend:
        """These records as a Send that writes them itself (a file's slice by sendfile)."""
        return DefaultRecordsSend(self)

    def records(self) -> Iterable[Record]:
        """The records of every batch in turn (this decompresses)."""
        return _RecordsIterable(self)

    def _records_iterator(self) -> Iterator[Record]:
        for batch in self.batches():
            yield from batch


class _RecordsIterable:
    def __init__(self, records: AbstractRecords) -> None:
        self._records = records

    def __iter__(self) -> Iterator[Record]:
        return self._records._records_iterator()


def estimate_size_in_bytes(magic: int, base_offset: int, compression_type: CompressionType,
                           records: Iterable[Record]) -> int:
    size = 0
    if magic <= MAGIC_VALUE_V1:
        for record in records:
            size += LOG_OVERHEAD + legacy_record.record_size(magic, record.key(), record.value())
    else:
        from kafka_edu.v3_9.clients.common.record import default_record_batch
        size = default_record_batch.size_in_bytes(base_offset, records)
    return _estimate_compressed_size_in_bytes(size, compression_type)


def estimate_size_in_bytes_of_simple_records(magic: int, compression_type: CompressionType,
                                             records: Iterable[Any]) -> int:
    """estimateSizeInBytes(magic, compressionType, Iterable<SimpleRecord>)."""
    size = 0
    if magic <= MAGIC_VALUE_V1:
        for record in records:
            size += LOG_OVERHEAD + legacy_record.record_size(magic, record.key(), record.value())
    else:
        from kafka_edu.v3_9.clients.common.record import default_record_batch
        size = default_record_batch.size_in_bytes_of_simple_records(records)
    return _estimate_compressed_size_in_bytes(size, compression_type)


def _estimate_compressed_size_in_bytes(size: int, compression_type: CompressionType) -> int:
    return size if compression_type is CompressionType.NONE else min(max(size // 2, 1024), 1 << 16)


def estimate_size_in_bytes_upper_bound(magic: int, compression_type: CompressionType, key: Buffer | None,
                                       value: Buffer | None, headers: Sequence[RecordHeader]) -> int:
    """An upper bound on the batch size one record needs (compression overhead aside)."""
    if magic >= MAGIC_VALUE_V2:
        from kafka_edu.v3_9.clients.common.record import default_record_batch
        return default_record_batch.estimate_batch_size_upper_bound(key, value, headers)
    if compression_type is not CompressionType.NONE:
        return LOG_OVERHEAD + legacy_record.record_overhead(magic) + legacy_record.record_size(magic, key, value)
    return LOG_OVERHEAD + legacy_record.record_size(magic, key, value)


def record_batch_header_size_in_bytes(magic: int, compression_type: CompressionType) -> int:
    """The header a builder reserves: v2's batch header, a compressed v0/v1 wrapper, or nothing."""
    if magic > MAGIC_VALUE_V1:
        from kafka_edu.v3_9.clients.common.record.default_record_batch import RECORD_BATCH_OVERHEAD
        return RECORD_BATCH_OVERHEAD
    if compression_type is not CompressionType.NONE:
        return LOG_OVERHEAD + legacy_record.record_overhead(magic)
    return 0
