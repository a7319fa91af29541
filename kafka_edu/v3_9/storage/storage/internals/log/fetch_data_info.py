"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/FetchDataInfo.java (Kafka 3.9): what a read of
the log returns: where the read started, the records, and for read_committed the aborted transactions."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata


class FetchDataInfo:
    """`aborted_transactions` is None for Optional.empty(); `delayed_remote_storage_fetch` stays None: tiered storage
    (RemoteStorageFetchInfo) is not ported."""

    def __init__(self, fetch_offset_metadata: LogOffsetMetadata, records: Any, first_entry_incomplete: bool = False,
                 aborted_transactions: list[Any] | None = None, delayed_remote_storage_fetch: Any = None) -> None:
        self.fetch_offset_metadata = fetch_offset_metadata
        self.records = records
        self.first_entry_incomplete = first_entry_incomplete
        self.aborted_transactions = aborted_transactions
        self.delayed_remote_storage_fetch = delayed_remote_storage_fetch

    @staticmethod
    def empty(fetch_offset: int) -> FetchDataInfo:
        return FetchDataInfo(LogOffsetMetadata(fetch_offset), MemoryRecords.EMPTY)
