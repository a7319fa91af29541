"""Port of the segment helper of core/src/test/scala/unit/kafka/log/LogTestUtils.scala (Kafka 3.9)."""

from __future__ import annotations

from pathlib import Path

from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.lazy_index import LazyIndex
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.transaction_index import TransactionIndex


def create_segment(offset: int, log_dir: Path, index_interval_bytes: int = 10, time: Time = SYSTEM) -> LogSegment:
    """LogTestUtils.createSegment: a segment with a 1000-byte offset index and a 1500-byte time index."""
    ms = FileRecords.open(log_file_utils.log_file(log_dir, offset))
    idx = LazyIndex.for_offset(log_file_utils.offset_index_file(log_dir, offset), offset, 1000)
    time_idx = LazyIndex.for_time(log_file_utils.time_index_file(log_dir, offset), offset, 1500)
    txn_index = TransactionIndex(offset, log_file_utils.transaction_index_file(log_dir, offset))
    return LogSegment(ms, idx, time_idx, txn_index, offset, index_interval_bytes, 0, time)
