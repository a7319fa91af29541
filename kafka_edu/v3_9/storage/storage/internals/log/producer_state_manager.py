"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java (Kafka 3.9): a
partition's producer ids and what each last wrote (epoch, sequences, offsets, open transaction), with the open and
not-yet-replicated transactions that hold back the last stable offset, and its snapshots `<offset>.snapshot`."""

from __future__ import annotations

import os
import struct
from collections.abc import Collection, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.record.default_record_batch import crc32c_compute
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.batch_metadata import BatchMetadata
from kafka_edu.v3_9.storage.storage.internals.log.completed_txn import CompletedTxn
from kafka_edu.v3_9.storage.storage.internals.log.corrupt_snapshot_exception import CorruptSnapshotException
from kafka_edu.v3_9.storage.storage.internals.log.log_file_utils import (
    PRODUCER_SNAPSHOT_FILE_SUFFIX,
    producer_snapshot_file,
)
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.producer_append_info import ProducerAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_entry import ProducerStateEntry
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.storage.storage.internals.log.snapshot_file import SnapshotFile
from kafka_edu.v3_9.storage.storage.internals.log.txn_metadata import TxnMetadata
from kafka_edu.v3_9.storage.storage.internals.log.verification_state_entry import VerificationStateEntry

# a transaction open this long past the maximum transaction timeout is reported as hanging
LATE_TRANSACTION_BUFFER_MS = 5 * 60 * 1000

# --- The snapshot file, version 1: Kafka's protocol Schema, written and read as Kafka's Schema/Struct do it.
# version int16 | crc uint32 (CRC32C of everything after it) | producer_entries: int32 count, then fixed-size entries

PRODUCER_SNAPSHOT_VERSION = 1
VERSION_FIELD = "version"
CRC_FIELD = "crc"
PRODUCER_ID_FIELD = "producer_id"
LAST_SEQUENCE_FIELD = "last_sequence"
PRODUCER_EPOCH_FIELD = "epoch"
LAST_OFFSET_FIELD = "last_offset"
OFFSET_DELTA_FIELD = "offset_delta"
TIMESTAMP_FIELD = "timestamp"
PRODUCER_ENTRIES_FIELD = "producer_entries"
COORDINATOR_EPOCH_FIELD = "coordinator_epoch"
CURRENT_TXN_FIRST_OFFSET_FIELD = "current_txn_first_offset"

VERSION_OFFSET = 0
CRC_OFFSET = VERSION_OFFSET + 2
PRODUCER_ENTRIES_OFFSET = CRC_OFFSET + 4

# a schema is its fields in order: (name, struct format of a fixed-size type) or (name, entry schema) for ArrayOf
_Schema = tuple[tuple[str, Any], ...]
PRODUCER_SNAPSHOT_ENTRY_SCHEMA: _Schema = (
    (PRODUCER_ID_FIELD, ">q"),
    (PRODUCER_EPOCH_FIELD, ">h"),
    (LAST_SEQUENCE_FIELD, ">i"),
    (LAST_OFFSET_FIELD, ">q"),
    (OFFSET_DELTA_FIELD, ">i"),
    (TIMESTAMP_FIELD, ">q"),
    (COORDINATOR_EPOCH_FIELD, ">i"),
    (CURRENT_TXN_FIRST_OFFSET_FIELD, ">q"),
)
PID_SNAPSHOT_MAP_SCHEMA: _Schema = (
    (VERSION_FIELD, ">h"),
    (CRC_FIELD, ">I"),  # Type.UNSIGNED_INT32
    (PRODUCER_ENTRIES_FIELD, PRODUCER_SNAPSHOT_ENTRY_SCHEMA),
)


class _SchemaException(Exception):
    """org.apache.kafka.common.protocol.types.SchemaException, as far as reading a snapshot needs it."""


def _schema_read(schema: _Schema, buffer: bytes, position: int) -> tuple[dict[str, Any], int]:
    """Schema.read: each field in turn; any failure names the field it happened in."""
    values: dict[str, Any] = {}
    for name, type_ in schema:
        try:
            if isinstance(type_, str):
                if position + struct.calcsize(type_) > len(buffer):
                    raise _SchemaException("java.nio.BufferUnderflowException")
                (values[name],) = struct.unpack_from(type_, buffer, position)
                position += struct.calcsize(type_)
            else:
                values[name], position = _array_read(type_, buffer, position)
        except _SchemaException as e:
            raise _SchemaException(f"Error reading field '{name}': {e}") from e
    return values, position


def _array_read(entry_schema: _Schema, buffer: bytes, position: int) -> tuple[list[dict[str, Any]], int]:
    """ArrayOf.read, not nullable."""
    if position + 4 > len(buffer):
        raise _SchemaException("java.nio.BufferUnderflowException")
    (size,) = struct.unpack_from(">i", buffer, position)
    position += 4
    if size < 0:
        raise _SchemaException(f"Array size {size} cannot be negative")
    remaining = len(buffer) - position
    if size > remaining:
        raise _SchemaException(f"Error reading array of size {size}, only {remaining} bytes available")
    entries = []
    for _ in range(size):
        entry, position = _schema_read(entry_schema, buffer, position)
        entries.append(entry)
    return entries, position


def _schema_write(schema: _Schema, values: Mapping[str, Any], out: bytearray) -> None:
    """Struct.writeTo."""
    for name, type_ in schema:
        if isinstance(type_, str):
            out += struct.pack(type_, values[name])
        else:
            out += struct.pack(">i", len(values[name]))
            for entry in values[name]:
                _schema_write(type_, entry, out)


class ProducerStateManager:
    """Producer ids and their last appends, so the log can fence zombies (epochs), reject gaps and recognise
    duplicates (sequences), and know which transactions are still open.

    A producer id stays known while it may still write: it goes when it has been idle for producer.id.expiration.ms
    (unless it has a transaction open); on a compacted topic the cleaner keeps each producer's last batch until then.
    Not thread-safe apart from the few lock-free reads (producer_id_count, has_late_transaction): UnifiedLog calls
    it under its lock.
    """

    LATE_TRANSACTION_BUFFER_MS = LATE_TRANSACTION_BUFFER_MS

    def __init__(self, topic_partition: TopicPartition, log_dir: str | os.PathLike[str],
                 max_transaction_timeout_ms: int, producer_state_manager_config: ProducerStateManagerConfig,
                 time: Time) -> None:
        self._topic_partition = topic_partition
        self._log_dir = Path(log_dir)
        self._max_transaction_timeout_ms = max_transaction_timeout_ms
        self._producer_state_manager_config = producer_state_manager_config
        self._time = time
        self.log = Logging("org.apache.kafka.storage.internals.log.ProducerStateManager",
                           f"[ProducerStateManager partition={topic_partition}] ")

        self._producers: dict[int, ProducerStateEntry] = {}
        self._verification_states: dict[int, VerificationStateEntry] = {}
        # Kafka's TreeMaps keyed by first offset: dicts here, read in key order where order matters.
        # Open transactions:
        self._ongoing_txns: dict[int, TxnMetadata] = {}
        # completed transactions whose markers are not yet below the high watermark:
        self._unreplicated_txns: dict[int, TxnMetadata] = {}
        # len(producers), readable without the lock
        self._producer_id_count = 0
        # last timestamp of the producer of the oldest open transaction, -1 if none: spots a hanging transaction
        # without the lock
        self._oldest_txn_last_timestamp = -1
        # snapshot offset -> file (Kafka's ConcurrentSkipListMap)
        self._snapshots: dict[int, SnapshotFile] = {}
        # the state covers the log below this offset
        self._last_map_offset = 0
        # the offset of the newest snapshot taken or loaded
        self._last_snap_offset = 0

        self._snapshots = self._load_snapshots()

    def max_transaction_timeout_ms(self) -> int:
        return self._max_transaction_timeout_ms

    def producer_state_manager_config(self) -> ProducerStateManagerConfig:
        return self._producer_state_manager_config

    def has_late_transaction(self, current_time_ms: int) -> bool:
        last_timestamp = self._oldest_txn_last_timestamp
        return (last_timestamp > 0
                and (current_time_ms - last_timestamp) > self._max_transaction_timeout_ms + LATE_TRANSACTION_BUFFER_MS)

    def truncate_fully_and_reload_snapshots(self) -> None:
        self.log.info("Reloading the producer state snapshots")
        self.truncate_fully_and_start_at(0)
        self._snapshots = self._load_snapshots()

    def producer_id_count(self) -> int:
        return self._producer_id_count

    def _add_producer_id(self, producer_id: int, entry: ProducerStateEntry) -> None:
        self._producers[producer_id] = entry
        self._producer_id_count = len(self._producers)

    def _clear_producer_ids(self) -> None:
        self._producers.clear()
        self._producer_id_count = 0

    def maybe_create_verification_state_entry(self, producer_id: int, sequence: int,
                                              epoch: int) -> VerificationStateEntry:
        """The producer's verification entry, created if it has none, with its lowest sequence and epoch updated."""
        entry = self._verification_states.get(producer_id)
        if entry is None:
            entry = VerificationStateEntry(self._time.milliseconds(), sequence, epoch)
            self._verification_states[producer_id] = entry
        entry.maybe_update_lowest_sequence_and_epoch(sequence, epoch)
        return entry

    def verification_state_entry(self, producer_id: int) -> VerificationStateEntry | None:
        return self._verification_states.get(producer_id)

    def clear_verification_state_entry(self, producer_id: int) -> None:
        self._verification_states.pop(producer_id, None)

    def _load_snapshots(self) -> dict[int, SnapshotFile]:
        """The snapshot files in the log dir, by offset."""
        offset_to_snapshots: dict[int, SnapshotFile] = {}
        for snapshot_file in ProducerStateManager.list_snapshot_files(self._log_dir):
            offset_to_snapshots[snapshot_file.offset] = snapshot_file
        return offset_to_snapshots

    def remove_stray_snapshots(self, segment_base_offsets: Collection[int]) -> None:
        """Delete the snapshots that match no segment's base offset, except the largest such one if it is above every
        segment's base offset: that is the snapshot a clean shutdown wrote at the log end."""
        max_segment_base_offset = max(segment_base_offsets) if segment_base_offsets else None
        base_offsets = set(segment_base_offsets)
        latest_stray_snapshot: SnapshotFile | None = None

        snapshots = self._load_snapshots()
        for key in sorted(snapshots):
            snapshot = snapshots[key]
            if latest_stray_snapshot is not None:
                prev = latest_stray_snapshot
                if key not in base_offsets:
                    # this one is now the largest stray
                    prev.delete_if_exists()
                    snapshots.pop(prev.offset, None)
                    latest_stray_snapshot = snapshot
            elif key not in base_offsets:
                latest_stray_snapshot = snapshot

        # the largest stray stays only if no segment starts above it
        if latest_stray_snapshot is not None and max_segment_base_offset is not None:
            stray_offset = latest_stray_snapshot.offset
            if stray_offset < max_segment_base_offset:
                removed_snapshot = snapshots.pop(stray_offset, None)
                if removed_snapshot is not None:
                    removed_snapshot.delete_if_exists()

        self._snapshots = snapshots

    def first_unstable_offset(self) -> LogOffsetMetadata | None:
        """The first offset whose transaction is undecided, or decided by a marker not yet replicated (above the high
        watermark)."""
        unreplicated_first_offset = (self._unreplicated_txns[min(self._unreplicated_txns)].first_offset
                                     if self._unreplicated_txns else None)
        undecided_first_offset = (self._ongoing_txns[min(self._ongoing_txns)].first_offset
                                  if self._ongoing_txns else None)

        if unreplicated_first_offset is None:
            return undecided_first_offset
        elif undecided_first_offset is None:
            return unreplicated_first_offset
        elif undecided_first_offset.message_offset < unreplicated_first_offset.message_offset:
            return undecided_first_offset
        else:
            return unreplicated_first_offset

    def on_high_watermark_updated(self, high_watermark: int) -> None:
        """Forget the completed transactions whose markers are now replicated, so the LSO can move past them."""
        self._remove_unreplicated_transactions(high_watermark)

    def first_undecided_offset(self) -> int | None:
        """The first offset of the oldest open transaction, whatever the state of replication."""
        if not self._ongoing_txns:
            return None
        return self._ongoing_txns[min(self._ongoing_txns)].first_offset.message_offset

    def map_end_offset(self) -> int:
        return self._last_map_offset

    def active_producers(self) -> Mapping[int, ProducerStateEntry]:
        return MappingProxyType(self._producers)

    def is_empty(self) -> bool:
        return not self._producers and not self._unreplicated_txns

    def _load_from_snapshot(self, log_start_offset: int, current_time: int) -> None:
        while True:
            latest_snapshot_file = self._latest_snapshot_file()
            if latest_snapshot_file is not None:
                snapshot = latest_snapshot_file
                try:
                    self.log.info("Loading producer state from snapshot file '%s'", snapshot)
                    loaded_producers = [producer_entry for producer_entry in self.read_snapshot(snapshot.file())
                                        if not self._is_producer_expired(current_time, producer_entry)]
                    for producer_entry in loaded_producers:
                        self.load_producer_entry(producer_entry)
                    self._last_snap_offset = snapshot.offset
                    self._last_map_offset = self._last_snap_offset
                    self._update_oldest_txn_timestamp()
                    return
                except CorruptSnapshotException as e:
                    # fall back to the next older snapshot
                    self.log.warning("Failed to load producer snapshot from '%s': %s", snapshot.file(), e)
                    self._remove_and_delete_snapshot(snapshot.offset)
            else:
                self._last_snap_offset = log_start_offset
                self._last_map_offset = log_start_offset
                return

    def load_producer_entry(self, entry: ProducerStateEntry) -> None:
        """Visible for testing."""
        producer_id = entry.producer_id()
        self._add_producer_id(producer_id, entry)
        offset = entry.current_txn_first_offset()
        if offset is not None:
            self._ongoing_txns[offset] = TxnMetadata(producer_id, offset)

    def _is_producer_expired(self, current_time_ms: int, producer_state: ProducerStateEntry) -> bool:
        # a producer with an open transaction never expires: its transaction must still be completed
        return (producer_state.current_txn_first_offset() is None
                and current_time_ms - producer_state.last_timestamp()
                >= self._producer_state_manager_config.producer_id_expiration_ms())

    def remove_expired_producers(self, current_time_ms: int) -> None:
        """Forget producers idle longer than producer.id.expiration.ms, and verification entries left unused as
        long."""
        for producer_id in [pid for pid, entry in self._producers.items()
                            if self._is_producer_expired(current_time_ms, entry)]:
            del self._producers[producer_id]
        self._producer_id_count = len(self._producers)

        expiration_ms = self._producer_state_manager_config.producer_id_expiration_ms()
        for producer_id in [pid for pid, entry in self._verification_states.items()
                            if current_time_ms - entry.timestamp() >= expiration_ms]:
            del self._verification_states[producer_id]

    def truncate_and_reload(self, log_start_offset: int, log_end_offset: int, current_time_ms: int) -> None:
        """Cut the state to [log_start_offset, log_end_offset] and reload it from the newest snapshot in range.

        Snapshots below the log start offset are deleted but the state they hold stays in memory, so what was not
        snapshotted is lost on an unclean restart (the producer then gets UNKNOWN_PRODUCER_ID). The log end offset is
        assumed to be at or below the high watermark.
        """
        for offset in sorted(self._snapshots):
            if offset > log_end_offset or offset <= log_start_offset:
                self._remove_and_delete_snapshot(offset)

        if log_end_offset != self.map_end_offset():
            self._clear_producer_ids()
            self._ongoing_txns.clear()
            self._update_oldest_txn_timestamp()

            # everything below the log end is replicated, by the assumption above
            self._unreplicated_txns.clear()
            self._load_from_snapshot(log_start_offset, current_time_ms)
        else:
            self.on_log_start_offset_incremented(log_start_offset)

    def prepare_update(self, producer_id: int, origin: AppendOrigin) -> ProducerAppendInfo:
        current_entry = self.last_entry(producer_id)
        if current_entry is None:
            current_entry = ProducerStateEntry.empty(producer_id)
        return ProducerAppendInfo(self._topic_partition, producer_id, current_entry, origin,
                                  self.verification_state_entry(producer_id))

    def update(self, append_info: ProducerAppendInfo) -> None:
        """Apply what a validated append left behind."""
        if append_info.producer_id() == NO_PRODUCER_ID:
            raise IllegalArgumentException(f"Invalid producer id {append_info.producer_id()} passed to update for "
                                           f"partition{self._topic_partition}")

        self.log.debug("Updated producer %s state to %s", append_info.producer_id(), append_info)
        updated_entry = append_info.to_entry()
        current_entry = self._producers.get(append_info.producer_id())
        if current_entry is not None:
            current_entry.update(updated_entry)
        else:
            self._add_producer_id(append_info.producer_id(), updated_entry)

        for txn in append_info.started_transactions():
            self._ongoing_txns[txn.first_offset.message_offset] = txn

        self._update_oldest_txn_timestamp()

    def _update_oldest_txn_timestamp(self) -> None:
        if not self._ongoing_txns:
            self._oldest_txn_last_timestamp = -1
        else:
            oldest_txn_metadata = self._ongoing_txns[min(self._ongoing_txns)]
            entry = self._producers.get(oldest_txn_metadata.producer_id)
            self._oldest_txn_last_timestamp = entry.last_timestamp() if entry is not None else -1

    def update_map_end_offset(self, last_offset: int) -> None:
        self._last_map_offset = last_offset

    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self._producers.get(producer_id)

    def take_snapshot(self, sync: bool = True) -> Path | None:
        """Write a snapshot at the map end offset, unless there is one there already; fsynced when sync."""
        # no new offset, nothing worth a new snapshot
        if self._last_map_offset > self._last_snap_offset:
            snapshot_file = SnapshotFile(producer_snapshot_file(self._log_dir, self._last_map_offset))
            start = self._time.hi_res_clock_ms()
            self.write_snapshot(snapshot_file.file(), self._producers, sync)
            self.log.info("Wrote producer snapshot at offset %s with %s producer ids in %s ms.",
                          self._last_map_offset, len(self._producers), self._time.hi_res_clock_ms() - start)

            self._snapshots[snapshot_file.offset] = snapshot_file

            self._last_snap_offset = self._last_map_offset
            return snapshot_file.file()
        return None

    def update_parent_dir(self, parent_dir: str | os.PathLike[str]) -> None:
        """Point this manager and its snapshot files at a new log dir (the partition's directory was renamed)."""
        self._log_dir = Path(parent_dir)
        for snapshot in self._snapshots.values():
            snapshot.update_parent_dir(parent_dir)

    def latest_snapshot_offset(self) -> int | None:
        """The (exclusive) last offset of the newest snapshot."""
        snapshot_file = self._latest_snapshot_file()
        return snapshot_file.offset if snapshot_file is not None else None

    def oldest_snapshot_offset(self) -> int | None:
        """The (exclusive) last offset of the oldest snapshot."""
        snapshot_file = self._oldest_snapshot_file()
        return snapshot_file.offset if snapshot_file is not None else None

    def snapshot_file_for_offset(self, offset: int) -> SnapshotFile | None:
        """Visible for testing."""
        return self._snapshots.get(offset)

    def on_log_start_offset_incremented(self, log_start_offset: int) -> None:
        """Drop the unreplicated transactions below the new log start, and move the map end up to it if behind."""
        self._remove_unreplicated_transactions(log_start_offset)

        if self._last_map_offset < log_start_offset:
            self._last_map_offset = log_start_offset

        latest = self.latest_snapshot_offset()
        self._last_snap_offset = latest if latest is not None else log_start_offset

    def _remove_unreplicated_transactions(self, offset: int) -> None:
        for first_offset in [k for k, txn in self._unreplicated_txns.items()
                             if txn.last_offset is not None and txn.last_offset < offset]:
            del self._unreplicated_txns[first_offset]

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Forget every producer and transaction and delete every snapshot; the state restarts at offset."""
        self._clear_producer_ids()
        self._ongoing_txns.clear()
        self._unreplicated_txns.clear()
        for snapshot_offset in sorted(self._snapshots):
            self._remove_and_delete_snapshot(snapshot_offset)
        self._last_snap_offset = 0
        self._last_map_offset = offset
        self._update_oldest_txn_timestamp()

    def last_stable_offset(self, completed_txn: CompletedTxn) -> int:
        """The LSO once completed_txn is complete, without completing it: the transaction index is appended with this
        value first, and only then is complete_txn called."""
        next_incomplete = self._find_next_incomplete_txn(completed_txn.producer_id)
        if next_incomplete is not None:
            return next_incomplete.first_offset.message_offset
        return completed_txn.last_offset + 1

    def _find_next_incomplete_txn(self, producer_id: int) -> TxnMetadata | None:
        for first_offset in sorted(self._ongoing_txns):
            txn_metadata = self._ongoing_txns[first_offset]
            if txn_metadata.producer_id != producer_id:
                return txn_metadata
        return None

    def complete_txn(self, completed_txn: CompletedTxn) -> None:
        """Mark the transaction complete; it holds the first unstable offset until its marker is replicated."""
        txn_metadata = self._ongoing_txns.pop(completed_txn.first_offset, None)
        if txn_metadata is None:
            raise IllegalArgumentException(f"Attempted to complete transaction {completed_txn} on partition "
                                           f"{self._topic_partition} which was not started")

        txn_metadata.last_offset = completed_txn.last_offset
        self._unreplicated_txns[completed_txn.first_offset] = txn_metadata
        self._update_oldest_txn_timestamp()

    def delete_snapshots_before(self, offset: int) -> None:
        """Delete the snapshot files below offset (exclusive)."""
        for snapshot_offset in sorted(k for k in self._snapshots if 0 <= k < offset):
            self._remove_and_delete_snapshot(snapshot_offset)

    def fetch_snapshot(self, offset: int) -> Path | None:
        snapshot = self._snapshots.get(offset)
        return snapshot.file() if snapshot is not None else None

    def _oldest_snapshot_file(self) -> SnapshotFile | None:
        return self._snapshots[min(self._snapshots)] if self._snapshots else None

    def _latest_snapshot_file(self) -> SnapshotFile | None:
        return self._snapshots[max(self._snapshots)] if self._snapshots else None

    def _remove_and_delete_snapshot(self, snapshot_offset: int) -> None:
        """Forget the snapshot at snapshot_offset, if any, and delete its file."""
        snapshot_file = self._snapshots.pop(snapshot_offset, None)
        if snapshot_file is not None:
            snapshot_file.delete_if_exists()

    def remove_and_mark_snapshot_for_deletion(self, snapshot_offset: int) -> SnapshotFile | None:
        """Forget the snapshot at snapshot_offset and rename its file with the `.deleted` suffix for async deletion.

        None if the file was gone already: log recovery builds an interim manager that may have deleted it, and the
        deletion meant here is then already done.
        """
        snapshot_file = self._snapshots.pop(snapshot_offset, None)
        if snapshot_file is not None:
            try:
                snapshot_file.rename_to_delete()
                return snapshot_file
            except FileNotFoundError:
                self.log.info("Failed to rename producer state snapshot %s with deletion suffix because it was "
                              "already deleted", snapshot_file.file().absolute())
        return None

    @staticmethod
    def read_snapshot(file: str | os.PathLike[str]) -> list[ProducerStateEntry]:
        """The entries of a snapshot file; CorruptSnapshotException if its version, CRC or layout is wrong."""
        buffer = Path(file).read_bytes()
        try:
            struct_, _ = _schema_read(PID_SNAPSHOT_MAP_SCHEMA, buffer, 0)
        except _SchemaException as e:
            raise CorruptSnapshotException(f"Snapshot failed schema validation: {e}") from e

        version = struct_[VERSION_FIELD]
        if version != PRODUCER_SNAPSHOT_VERSION:
            raise CorruptSnapshotException(f"Snapshot contained an unknown file version {version}")

        crc = struct_[CRC_FIELD]
        computed_crc = crc32c_compute(buffer, PRODUCER_ENTRIES_OFFSET, len(buffer) - PRODUCER_ENTRIES_OFFSET)
        if crc != computed_crc:
            raise CorruptSnapshotException(f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. "
                                           f"Computed crc: {computed_crc}")

        entries = []
        for producer_entry_struct in struct_[PRODUCER_ENTRIES_FIELD]:
            producer_id = producer_entry_struct[PRODUCER_ID_FIELD]
            producer_epoch = producer_entry_struct[PRODUCER_EPOCH_FIELD]
            seq = producer_entry_struct[LAST_SEQUENCE_FIELD]
            offset = producer_entry_struct[LAST_OFFSET_FIELD]
            timestamp = producer_entry_struct[TIMESTAMP_FIELD]
            offset_delta = producer_entry_struct[OFFSET_DELTA_FIELD]
            coordinator_epoch = producer_entry_struct[COORDINATOR_EPOCH_FIELD]
            current_txn_first_offset = producer_entry_struct[CURRENT_TXN_FIRST_OFFSET_FIELD]

            # -1 stands for "none" in both
            current_txn_first_offset_val = current_txn_first_offset if current_txn_first_offset >= 0 else None
            batch_metadata = BatchMetadata(seq, offset, offset_delta, timestamp) if offset >= 0 else None
            entries.append(ProducerStateEntry(producer_id, producer_epoch, coordinator_epoch, timestamp,
                                              current_txn_first_offset_val, batch_metadata))
        return entries

    @staticmethod
    def write_snapshot(file: str | os.PathLike[str], entries: Mapping[int, ProducerStateEntry], sync: bool) -> None:
        """Visible for testing. Only each producer's last batch is kept: enough to go on checking its sequences."""
        struct_: dict[str, Any] = {
            VERSION_FIELD: PRODUCER_SNAPSHOT_VERSION,
            CRC_FIELD: 0,  # filled in once the entries are written
            PRODUCER_ENTRIES_FIELD: [
                {
                    PRODUCER_ID_FIELD: producer_id,
                    PRODUCER_EPOCH_FIELD: entry.producer_epoch(),
                    LAST_SEQUENCE_FIELD: entry.last_seq(),
                    LAST_OFFSET_FIELD: entry.last_data_offset(),
                    OFFSET_DELTA_FIELD: entry.last_offset_delta(),
                    TIMESTAMP_FIELD: entry.last_timestamp(),
                    COORDINATOR_EPOCH_FIELD: entry.coordinator_epoch(),
                    CURRENT_TXN_FIRST_OFFSET_FIELD: (entry.current_txn_first_offset()
                                                     if entry.current_txn_first_offset() is not None else -1),
                }
                for producer_id, entry in entries.items()
            ],
        }
        buffer = bytearray()
        _schema_write(PID_SNAPSHOT_MAP_SCHEMA, struct_, buffer)

        crc = crc32c_compute(buffer, PRODUCER_ENTRIES_OFFSET, len(buffer) - PRODUCER_ENTRIES_OFFSET)
        struct.pack_into(">I", buffer, CRC_OFFSET, crc)

        # Kafka opens with CREATE and WRITE only: no truncation of an existing file
        fd = os.open(file, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            view = memoryview(buffer)
            while view:
                view = view[os.write(fd, view):]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _is_snapshot_file(path: Path) -> bool:
        return path.is_file() and path.name.endswith(PRODUCER_SNAPSHOT_FILE_SUFFIX)

    @staticmethod
    def list_snapshot_files(dir: str | os.PathLike[str]) -> list[SnapshotFile]:
        """Visible for testing."""
        dir_path = Path(dir)
        if dir_path.is_dir():
            return [SnapshotFile(path) for path in dir_path.iterdir() if ProducerStateManager._is_snapshot_file(path)]
        return []
