"""Port of core/src/main/scala/kafka/log/ProducerStateManager.scala (Kafka 1.0.2)."""

from __future__ import annotations

import enum
import logging
import os
import struct
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import crc32c

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    InvalidTxnStateException,
    KafkaException,
    OutOfOrderSequenceException,
    ProducerFencedException,
    TransactionCoordinatorFencedException,
    UnknownProducerIdException,
)
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    DefaultRecordBatch,
)
from kafka_edu.v1_0_2.core.log.log_segment import LogOffsetMetadata, filename_prefix_from_offset

logger = logging.getLogger(__name__)

PRODUCER_SNAPSHOT_FILE_SUFFIX = ".snapshot"
GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
INT_MAX = 2**31 - 1


def producer_snapshot_file(dir: Path, offset: int) -> Path:
    """Log.producerSnapshotFile: `<20-digit offset>.snapshot`, the offset being the first one NOT covered."""
    return dir / (filename_prefix_from_offset(offset) + PRODUCER_SNAPSHOT_FILE_SUFFIX)


def _offset_from_file(file: Path) -> int:
    return int(file.name[: file.name.index(".")])


class CorruptSnapshotException(KafkaException):
    pass


class ValidationType(enum.Enum):
    """How much of a producer's append to check: followers and log reloads check nothing."""

    NONE = "None"
    EPOCH_ONLY = "EpochOnly"  # transactional offset commits to __consumer_offsets carry no sequence
    FULL = "Full"  # produce requests from clients to the leader


@dataclass
class CompletedTxn:
    """Log.scala's CompletedTxn: a transaction whose COMMIT/ABORT marker is at last_offset."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


@dataclass
class TxnMetadata:
    producer_id: int
    first_offset: LogOffsetMetadata
    last_offset: int | None = None


@dataclass(frozen=True)
class BatchMetadata:
    """What the broker remembers of one appended batch: enough to answer a retry of it with the same offsets."""

    last_seq: int
    last_offset: int
    offset_delta: int
    timestamp: int

    @property
    def first_seq(self) -> int:
        return self.last_seq - self.offset_delta

    @property
    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta


@dataclass
class ProducerStateEntry:
    """The state of one producer id: its epoch and its last few batches, lowest sequence first."""

    NumBatchesToRetain = 5  # why an idempotent producer may have at most 5 requests in flight

    producer_id: int
    batch_metadata: deque[BatchMetadata] = field(default_factory=deque)
    producer_epoch: int = NO_PRODUCER_EPOCH
    coordinator_epoch: int = -1
    current_txn_first_offset: int | None = None

    @property
    def first_seq(self) -> int:
        return self.batch_metadata[0].first_seq if self.batch_metadata else NO_SEQUENCE

    @property
    def first_offset(self) -> int:
        return self.batch_metadata[0].first_offset if self.batch_metadata else -1

    @property
    def last_seq(self) -> int:
        return self.batch_metadata[-1].last_seq if self.batch_metadata else NO_SEQUENCE

    @property
    def last_data_offset(self) -> int:
        return self.batch_metadata[-1].last_offset if self.batch_metadata else -1

    @property
    def last_timestamp(self) -> int:
        return self.batch_metadata[-1].timestamp if self.batch_metadata else NO_TIMESTAMP

    @property
    def last_offset_delta(self) -> int:
        return self.batch_metadata[-1].offset_delta if self.batch_metadata else 0

    @staticmethod
    def empty(producer_id: int) -> ProducerStateEntry:
        return ProducerStateEntry(producer_id, deque(), NO_PRODUCER_EPOCH, -1, None)

    def is_empty(self) -> bool:
        return not self.batch_metadata

    def add_batch(self, producer_epoch: int, last_seq: int, last_offset: int, offset_delta: int,
                  timestamp: int) -> None:
        self.maybe_update_epoch(producer_epoch)
        self._add_batch_metadata(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))

    def maybe_update_epoch(self, producer_epoch: int) -> bool:
        """A new epoch starts a new sequence space: forget the batches of the old one."""
        if self.producer_epoch != producer_epoch:
            self.batch_metadata.clear()
            self.producer_epoch = producer_epoch
            return True
        return False

    def _add_batch_metadata(self, batch: BatchMetadata) -> None:
        if len(self.batch_metadata) == ProducerStateEntry.NumBatchesToRetain:
            self.batch_metadata.popleft()
        self.batch_metadata.append(batch)

    def update(self, next_entry: ProducerStateEntry) -> None:
        self.maybe_update_epoch(next_entry.producer_epoch)
        while next_entry.batch_metadata:
            self._add_batch_metadata(next_entry.batch_metadata.popleft())
        self.coordinator_epoch = next_entry.coordinator_epoch
        self.current_txn_first_offset = next_entry.current_txn_first_offset

    def remove_batches_older_than(self, offset: int) -> None:
        while self.batch_metadata and self.batch_metadata[0].last_offset < offset:
            self.batch_metadata.popleft()

    def find_duplicate_batch(self, batch: DefaultRecordBatch) -> BatchMetadata | None:
        """A retry of one of the cached batches (same epoch, same sequence range), if this batch is one."""
        if batch.producer_epoch != self.producer_epoch:
            return None
        return self.batch_with_sequence_range(batch.base_sequence, batch.last_sequence)

    def batch_with_sequence_range(self, first_seq: int, last_seq: int) -> BatchMetadata | None:
        for metadata in self.batch_metadata:
            if metadata.first_seq == first_seq and metadata.last_seq == last_seq:
                return metadata
        return None


# The name this class had before Kafka 1.0 (and in this port before): kept for callers that still use it.
ProducerIdEntry = ProducerStateEntry


class ProducerAppendInfo:
    """Checks one producer's batches of an append against its state and collects the state they lead to."""

    def __init__(self, producer_id: int, current_entry: ProducerStateEntry, validation_type: ValidationType) -> None:
        self.producer_id = producer_id
        self.current_entry = current_entry
        self.validation_type = validation_type
        self._transactions: list[TxnMetadata] = []
        # The entry this append builds; merged into the manager's entry by ProducerStateManager.update.
        self._updated_entry = ProducerStateEntry(producer_id, deque(), current_entry.producer_epoch,
                                              current_entry.coordinator_epoch, current_entry.current_txn_first_offset)

    def _maybe_validate_append(self, producer_epoch: int, first_seq: int) -> None:
        if self.validation_type is ValidationType.EPOCH_ONLY:
            self._check_producer_epoch(producer_epoch)
        elif self.validation_type is ValidationType.FULL:
            self._check_producer_epoch(producer_epoch)
            self._check_sequence(producer_epoch, first_seq)

    def _check_producer_epoch(self, producer_epoch: int) -> None:
        if producer_epoch < self._updated_entry.producer_epoch:
            raise ProducerFencedException(
                f"Producer's epoch is no longer valid. There is probably another producer with a newer epoch. "
                f"{producer_epoch} (request epoch), {self._updated_entry.producer_epoch} (server epoch)")

    def _check_sequence(self, producer_epoch: int, append_first_seq: int) -> None:
        updated = self._updated_entry
        if producer_epoch != updated.producer_epoch:
            if append_first_seq != 0:
                if updated.producer_epoch != NO_PRODUCER_EPOCH:
                    raise OutOfOrderSequenceException(f"Invalid sequence number for new epoch: {producer_epoch} "
                                                      f"(request epoch), {append_first_seq} (seq. number)")
                raise UnknownProducerIdException(
                    f"Found no record of producerId={self.producer_id} on the broker. It is possible that the last "
                    f"message with the producerId={self.producer_id} has been removed due to hitting the retention "
                    "limit.")
        else:
            if not updated.is_empty():
                current_last_seq = updated.last_seq
            elif producer_epoch == self.current_entry.producer_epoch:
                current_last_seq = self.current_entry.last_seq
            else:
                current_last_seq = NO_SEQUENCE
            if current_last_seq == NO_SEQUENCE and append_first_seq != 0:
                # Same epoch but no batches known (only a marker was written): the sequence must restart at 0.
                raise OutOfOrderSequenceException(f"Out of order sequence number for producerId {self.producer_id}: "
                                                  f"found {append_first_seq} (incoming seq. number), but expected 0")
            if not self._in_sequence(current_last_seq, append_first_seq):
                raise OutOfOrderSequenceException(
                    f"Out of order sequence number for producerId {self.producer_id}: {append_first_seq} "
                    f"(incoming seq. number), {current_last_seq} (current end sequence number)")

    @staticmethod
    def _in_sequence(last_seq: int, next_seq: int) -> bool:
        return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT_MAX)

    def append_batch(self, batch: DefaultRecordBatch) -> CompletedTxn | None:
        """ProducerAppendInfo.append(batch): a data batch, or a COMMIT/ABORT control batch."""
        if batch.is_control_batch:
            record = next(batch.records())
            marker = EndTransactionMarker.deserialize(record)
            return self.append_end_txn_marker(marker, batch.producer_epoch, batch.base_offset, record.timestamp)
        self.append(batch.producer_epoch, batch.base_sequence, batch.last_sequence, batch.max_timestamp,
                    batch.last_offset, batch.is_transactional)
        return None

    def append(self, epoch: int, first_seq: int, last_seq: int, last_timestamp: int, last_offset: int,
               is_transactional: bool) -> None:
        self._maybe_validate_append(epoch, first_seq)
        self._updated_entry.add_batch(epoch, last_seq, last_offset, last_seq - first_seq, last_timestamp)
        if self._updated_entry.current_txn_first_offset is not None and not is_transactional:
            raise InvalidTxnStateException(f"Expected transactional write from producer {self.producer_id}")
        if self._updated_entry.current_txn_first_offset is None and is_transactional:
            first_offset = last_offset - (last_seq - first_seq)
            self._updated_entry.current_txn_first_offset = first_offset
            self._transactions.append(TxnMetadata(self.producer_id, LogOffsetMetadata(first_offset)))

    def append_end_txn_marker(self, marker: EndTransactionMarker, producer_epoch: int, offset: int,
                              timestamp: int) -> CompletedTxn:
        self._check_producer_epoch(producer_epoch)
        if self._updated_entry.coordinator_epoch > marker.coordinator_epoch:
            raise TransactionCoordinatorFencedException(
                f"Invalid coordinator epoch: {marker.coordinator_epoch} (zombie), "
                f"{self._updated_entry.coordinator_epoch} (current)")
        self._updated_entry.maybe_update_epoch(producer_epoch)
        first_offset = self._updated_entry.current_txn_first_offset
        if first_offset is None:
            self._transactions.append(TxnMetadata(self.producer_id, LogOffsetMetadata(offset)))
            first_offset = offset
        self._updated_entry.current_txn_first_offset = None
        self._updated_entry.coordinator_epoch = marker.coordinator_epoch
        return CompletedTxn(self.producer_id, first_offset, offset, marker.control_type == ControlRecordType.ABORT)

    def to_entry(self) -> ProducerStateEntry:
        return self._updated_entry

    @property
    def started_transactions(self) -> list[TxnMetadata]:
        return list(self._transactions)

    def maybe_cache_txn_first_offset_metadata(self, log_offset_metadata: LogOffsetMetadata) -> None:
        """Remember where on disk the transaction started by this append begins."""
        if not self._transactions:
            return
        if self._transactions[0].first_offset.message_offset == log_offset_metadata.message_offset:
            self._transactions[0].first_offset = log_offset_metadata

    def __repr__(self) -> str:
        e = self._updated_entry
        return (f"ProducerAppendInfo(producerId={self.producer_id}, producerEpoch={e.producer_epoch}, "
                f"firstSequence={e.first_seq}, lastSequence={e.last_seq}, "
                f"currentTxnFirstOffset={e.current_txn_first_offset}, coordinatorEpoch={e.coordinator_epoch})")


# --- Snapshot file, version 1: version int16, crc uint32 (crc32c of everything after it), then an array of
# entries (int32 count; each producer_id int64, epoch int16, last_sequence int32, last_offset int64,
# offset_delta int32, timestamp int64, coordinator_epoch int32, current_txn_first_offset int64). ---

PRODUCER_SNAPSHOT_VERSION = 1
_CRC_OFFSET = 2
_PRODUCER_ENTRIES_OFFSET = 6
_ENTRY = struct.Struct(">qhiqiqiq")


def read_snapshot(file: Path) -> list[ProducerStateEntry]:
    buffer = file.read_bytes()
    try:
        (version,) = struct.unpack_from(">h", buffer, 0)
        if version != PRODUCER_SNAPSHOT_VERSION:
            raise CorruptSnapshotException(f"Snapshot contained an unknown file version {version}")
        (crc,) = struct.unpack_from(">I", buffer, _CRC_OFFSET)
        computed_crc = crc32c.crc32c(buffer[_PRODUCER_ENTRIES_OFFSET:])
        if crc != computed_crc:
            raise CorruptSnapshotException(f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. "
                                           f"Computed crc: {computed_crc}")
        (count,) = struct.unpack_from(">i", buffer, _PRODUCER_ENTRIES_OFFSET)
        if count < 0 or len(buffer) != _PRODUCER_ENTRIES_OFFSET + 4 + count * _ENTRY.size:
            raise CorruptSnapshotException(f"Snapshot failed schema validation: {count} entries in {len(buffer)} bytes")
        entries = []
        for i in range(count):
            (producer_id, epoch, seq, offset, offset_delta, timestamp, coordinator_epoch,
             current_txn_first_offset) = _ENTRY.unpack_from(buffer, _PRODUCER_ENTRIES_OFFSET + 4 + i * _ENTRY.size)
            entries.append(ProducerStateEntry(producer_id, deque([BatchMetadata(seq, offset, offset_delta, timestamp)]),
                                           epoch, coordinator_epoch,
                                           current_txn_first_offset if current_txn_first_offset >= 0 else None))
        return entries
    except struct.error as e:
        raise CorruptSnapshotException(f"Snapshot failed schema validation: {e}") from e


def write_snapshot(file: Path, entries: dict[int, ProducerStateEntry]) -> None:
    body = bytearray(struct.pack(">i", len(entries)))
    for producer_id, entry in entries.items():
        body += _ENTRY.pack(producer_id, entry.producer_epoch, entry.last_seq, entry.last_data_offset,
                            entry.last_offset_delta, entry.last_timestamp, entry.coordinator_epoch,
                            entry.current_txn_first_offset if entry.current_txn_first_offset is not None else -1)
    data = struct.pack(">hI", PRODUCER_SNAPSHOT_VERSION, crc32c.crc32c(bytes(body))) + bytes(body)
    with open(file, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def list_snapshot_files(dir: Path) -> list[Path]:
    if not dir.is_dir():
        return []
    return [f for f in dir.iterdir() if f.is_file() and f.name.endswith(PRODUCER_SNAPSHOT_FILE_SUFFIX)]


def delete_snapshots_before(dir: Path, offset: int) -> None:
    for file in list_snapshot_files(dir):
        if _offset_from_file(file) < offset:
            file.unlink(missing_ok=True)


class ProducerStateManager:
    """Producer id -> state of its last appends, with snapshots `<offset>.snapshot` to avoid rescanning the log.

    Not thread-safe: Log calls it under its lock.
    """

    def __init__(self, topic_partition: object, log_dir: Path,
                 max_producer_id_expiration_ms: int = 60 * 60 * 1000) -> None:
        self.topic_partition = topic_partition
        self.log_dir = Path(log_dir)
        self.max_producer_id_expiration_ms = max_producer_id_expiration_ms
        self._log_ident = f"[ProducerStateManager partition={topic_partition}] "
        self._producers: dict[int, ProducerStateEntry] = {}
        # The state covers the log below this offset.
        self._last_map_offset = 0
        # The offset of the newest snapshot written.
        self._last_snap_offset = 0
        # Open transactions by first offset, and finished ones whose marker is not yet below the high watermark.
        self._ongoing_txns: dict[int, TxnMetadata] = {}
        self._unreplicated_txns: dict[int, TxnMetadata] = {}

    @property
    def map_end_offset(self) -> int:
        return self._last_map_offset

    @property
    def active_producers(self) -> dict[int, ProducerStateEntry]:
        return dict(self._producers)

    def is_empty(self) -> bool:
        return not self._producers and not self._unreplicated_txns

    def first_unstable_offset(self) -> LogOffsetMetadata | None:
        """The first offset of a transaction that is open, or decided but not yet below the high watermark."""
        unreplicated = min(self._unreplicated_txns.items(), default=None)
        undecided = min(self._ongoing_txns.items(), default=None)
        if unreplicated is None:
            return undecided[1].first_offset if undecided else None
        if undecided is None:
            return unreplicated[1].first_offset
        if undecided[1].first_offset.message_offset < unreplicated[1].first_offset.message_offset:
            return undecided[1].first_offset
        return unreplicated[1].first_offset

    def on_high_watermark_updated(self, high_watermark: int) -> None:
        self._remove_unreplicated_transactions(high_watermark)

    def first_undecided_offset(self) -> int | None:
        if not self._ongoing_txns:
            return None
        return self._ongoing_txns[min(self._ongoing_txns)].first_offset.message_offset

    def _load_from_snapshot(self, log_start_offset: int, current_time: int) -> None:
        while True:
            file = self._latest_snapshot_file()
            if file is None:
                self._last_snap_offset = log_start_offset
                self._last_map_offset = log_start_offset
                return
            try:
                logger.info("%sLoading producer state from snapshot file '%s'", self._log_ident, file)
                for entry in read_snapshot(file):
                    if self._is_producer_retained(entry, log_start_offset) and not self._is_producer_expired(
                            current_time, entry):
                        self.load_producer_entry(entry)
                self._last_snap_offset = _offset_from_file(file)
                self._last_map_offset = self._last_snap_offset
                return
            except CorruptSnapshotException as e:
                logger.warning("%sFailed to load producer snapshot from '%s': %s", self._log_ident, file, e)
                file.unlink(missing_ok=True)

    def load_producer_entry(self, entry: ProducerStateEntry) -> None:
        self._producers[entry.producer_id] = entry
        if entry.current_txn_first_offset is not None:
            offset = entry.current_txn_first_offset
            self._ongoing_txns[offset] = TxnMetadata(entry.producer_id, LogOffsetMetadata(offset))

    def _is_producer_expired(self, current_time_ms: int, entry: ProducerStateEntry) -> bool:
        return (entry.current_txn_first_offset is None
                and current_time_ms - entry.last_timestamp >= self.max_producer_id_expiration_ms)

    def remove_expired_producers(self, current_time_ms: int) -> None:
        """Forget producers idle for longer than the expiration (transactional.id.expiration.ms)."""
        self._producers = {pid: e for pid, e in self._producers.items()
                           if not self._is_producer_expired(current_time_ms, e)}

    def truncate_and_reload(self, log_start_offset: int, log_end_offset: int, current_time_ms: int) -> None:
        """Drop snapshots outside (log start, log end] and reload the state from the newest one left."""
        for file in list_snapshot_files(self.log_dir):
            snap_offset = _offset_from_file(file)
            if snap_offset > log_end_offset or snap_offset <= log_start_offset:
                file.unlink(missing_ok=True)
        if log_end_offset != self.map_end_offset:
            self._producers.clear()
            self._ongoing_txns.clear()
            self._unreplicated_txns.clear()
            self._load_from_snapshot(log_start_offset, current_time_ms)
        else:
            self.truncate_head(log_start_offset)

    def prepare_update(self, producer_id: int, is_from_client: bool) -> ProducerAppendInfo:
        if not is_from_client:
            validation = ValidationType.NONE
        elif getattr(self.topic_partition, "topic", None) == GROUP_METADATA_TOPIC_NAME:
            validation = ValidationType.EPOCH_ONLY
        else:
            validation = ValidationType.FULL
        current_entry = self.last_entry(producer_id) or ProducerStateEntry.empty(producer_id)
        return ProducerAppendInfo(producer_id, current_entry, validation)

    def update(self, append_info: ProducerAppendInfo) -> None:
        if append_info.producer_id == NO_PRODUCER_ID:
            raise IllegalArgumentException(f"Invalid producer id {append_info.producer_id} passed to update for "
                                           f"partition {self.topic_partition}")
        logger.debug("%sUpdated producer %d state to %s", self._log_ident, append_info.producer_id, append_info)
        updated_entry = append_info.to_entry()
        current = self._producers.get(append_info.producer_id)
        if current is not None:
            current.update(updated_entry)
        else:
            self._producers[append_info.producer_id] = updated_entry
        for txn in append_info.started_transactions:
            self._ongoing_txns[txn.first_offset.message_offset] = txn

    def update_map_end_offset(self, last_offset: int) -> None:
        self._last_map_offset = last_offset

    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self._producers.get(producer_id)

    def take_snapshot(self) -> None:
        """Write `<map end offset>.snapshot` unless a snapshot at that offset or later was already taken."""
        if self._last_map_offset > self._last_snap_offset:
            snapshot_file = producer_snapshot_file(self.log_dir, self._last_map_offset)
            logger.info("%sWriting producer snapshot at offset %d", self._log_ident, self._last_map_offset)
            write_snapshot(snapshot_file, self._producers)
            self._last_snap_offset = self._last_map_offset

    def latest_snapshot_offset(self) -> int | None:
        file = self._latest_snapshot_file()
        return _offset_from_file(file) if file is not None else None

    def oldest_snapshot_offset(self) -> int | None:
        files = list_snapshot_files(self.log_dir)
        return min(map(_offset_from_file, files)) if files else None

    @staticmethod
    def _is_producer_retained(entry: ProducerStateEntry, log_start_offset: int) -> bool:
        entry.remove_batches_older_than(log_start_offset)
        return entry.last_data_offset >= log_start_offset

    def truncate_head(self, log_start_offset: int) -> None:
        """The log lost its head (retention, DeleteRecords): drop producers whose last write is gone with it."""
        evicted = {pid for pid, e in self._producers.items() if not self._is_producer_retained(e, log_start_offset)}
        for pid in evicted:
            del self._producers[pid]
        self._ongoing_txns = {o: t for o, t in self._ongoing_txns.items() if t.producer_id not in evicted}
        self._remove_unreplicated_transactions(log_start_offset)
        if self._last_map_offset < log_start_offset:
            self._last_map_offset = log_start_offset
        self.delete_snapshots_before(log_start_offset)
        latest = self.latest_snapshot_offset()
        self._last_snap_offset = latest if latest is not None else log_start_offset

    def _remove_unreplicated_transactions(self, offset: int) -> None:
        self._unreplicated_txns = {o: t for o, t in self._unreplicated_txns.items()
                                   if not (t.last_offset is not None and t.last_offset < offset)}

    def truncate(self) -> None:
        """Forget everything, snapshots included."""
        self._producers.clear()
        self._ongoing_txns.clear()
        self._unreplicated_txns.clear()
        for file in list_snapshot_files(self.log_dir):
            file.unlink(missing_ok=True)
        self._last_snap_offset = 0
        self._last_map_offset = 0

    def complete_txn(self, completed_txn: CompletedTxn) -> int:
        """Move a transaction from open to decided; return the last stable offset."""
        txn_metadata = self._ongoing_txns.pop(completed_txn.first_offset, None)
        if txn_metadata is None:
            raise IllegalArgumentException(f"Attempted to complete transaction {completed_txn} on partition "
                                           f"{self.topic_partition} which was not started")
        txn_metadata.last_offset = completed_txn.last_offset
        self._unreplicated_txns[completed_txn.first_offset] = txn_metadata
        first_undecided = self.first_undecided_offset()
        return first_undecided if first_undecided is not None else completed_txn.last_offset + 1

    def delete_snapshots_before(self, offset: int) -> None:
        delete_snapshots_before(self.log_dir, offset)

    def _latest_snapshot_file(self) -> Path | None:
        files = list_snapshot_files(self.log_dir)
        return max(files, key=_offset_from_file) if files else None
