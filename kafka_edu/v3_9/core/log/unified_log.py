"""Port of core/src/main/scala/kafka/log/UnifiedLog.scala (Kafka 3.9): a partition's log as the broker sees it: offsets
(log start, high watermark, last stable), producer state, leader epochs and retention, over LocalLog's segments."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kio.schema.describe_producers.v0.response import ProducerId, ProducerState

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalArgumentException,
    InvalidTxnStateException,
    KafkaException,
    OffsetOutOfRangeException,
    OffsetsOutOfOrderException,
    RecordBatchTooLargeException,
    RecordTooLargeException,
    UnexpectedAppendOffsetException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.errors.inconsistent_topic_id_exception import InconsistentTopicIdException
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.file_records import TimestampAndOffset
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_TIMESTAMP,
    RecordBatch,
)
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.primitive_ref import LongRef
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.log import local_log
from kafka_edu.v3_9.core.log.local_log import LocalLog, SegmentDeletionReason
from kafka_edu.v3_9.core.server.request_local import RequestLocal
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.server_common.server.util.scheduler import Scheduler
from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile
from kafka_edu.v3_9.storage.storage.internals.checkpoint.partition_metadata_file import PartitionMetadataFile
from kafka_edu.v3_9.storage.storage.internals.epoch.leader_epoch_file_cache import LeaderEpochFileCache
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.batch_metadata import BatchMetadata
from kafka_edu.v3_9.storage.storage.internals.log.completed_txn import CompletedTxn
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.last_record import LastRecord
from kafka_edu.v3_9.storage.storage.internals.log.leader_hw_change import LeaderHwChange
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_snapshot import LogOffsetSnapshot
from kafka_edu.v3_9.storage.storage.internals.log.log_offsets_listener import LogOffsetsListener
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_segments import LogSegments
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.log_validator import LogValidator
from kafka_edu.v3_9.storage.storage.internals.log.producer_append_info import ProducerAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import ProducerStateManager
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.storage.storage.internals.log.roll_params import RollParams
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.record.records import Records


T = TypeVar("T")


INT_MAX = 2**31 - 1

# ListOffsetsRequest's special timestamps
EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5
# OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET
UNDEFINED_EPOCH_OFFSET = -1
# TopicBasedRemoteLogMetadataManagerConfig.REMOTE_LOG_METADATA_TOPIC_NAME
REMOTE_LOG_METADATA_TOPIC_NAME = "__remote_log_metadata"


class UnifiedLog:
    """A partition's log over LocalLog's segments. Tiered storage is not ported: the remote-storage switches and
    offsets (local log start, highest offset in remote storage) are kept, and fetch_offset_by_timestamp takes any
    object with RemoteLogManager's find_offset_by_timestamp. As in
    LocalLog, Scala's vals and vars are attributes and its parameterless defs methods; Option values are `X | None`;
    the companion object's members are this module's functions."""

    def __init__(self, log_start_offset: int, local_log: LocalLog, broker_topic_stats: Any,
                 producer_id_expiration_check_interval_ms: int, leader_epoch_cache: LeaderEpochFileCache | None,
                 producer_state_manager: ProducerStateManager, topic_id: Uuid | None,
                 keep_partition_metadata_file: bool, remote_storage_system_enable: bool = False,
                 log_offsets_listener: LogOffsetsListener = LogOffsetsListener.NO_OP_OFFSETS_LISTENER) -> None:
        self.log_start_offset = log_start_offset
        self._local_log = local_log
        self.broker_topic_stats = broker_topic_stats
        self.producer_id_expiration_check_interval_ms = producer_id_expiration_check_interval_ms
        self.leader_epoch_cache = leader_epoch_cache
        self.producer_state_manager = producer_state_manager
        self._topic_id = topic_id
        self.keep_partition_metadata_file = keep_partition_metadata_file
        self.remote_storage_system_enable = remote_storage_system_enable
        self._log_offsets_listener = log_offsets_listener

        self.log_ident = f"[UnifiedLog partition={self.topic_partition()}, dir={self.parent_dir()}] "
        self._logger = Logging("kafka.log.UnifiedLog", self.log_ident)

        # guards every modification of the log (Scala's `lock synchronized`, reentrant)
        self._lock = threading.RLock()
        self._validator_metrics_recorder = new_validator_metrics_recorder(
            getattr(broker_topic_stats, "all_topics_stats", None))

        # The earliest offset of an incomplete transaction: the LSO is computed from it. After record or segment
        # deletion it may point at the log start offset, which is good enough to bound read_committed fetches.
        self._first_unstable_offset_metadata: LogOffsetMetadata | None = None

        # The current high watermark: segments at or above it are not deletable, so the log start offset exposed
        # in fetch responses never passes it.
        self._high_watermark_metadata = LogOffsetMetadata(log_start_offset)

        self.partition_metadata_file: PartitionMetadataFile | None = None
        self._local_log_start_offset = log_start_offset
        # the offset (inclusive) up to which segments were copied to remote storage
        self._highest_offset_in_remote_storage = -1

        self._initialize_partition_metadata()
        self._update_log_start_offset(log_start_offset)
        first_segment_base_offset = self._local_log.segments.first_segment_base_offset()
        self._update_local_log_start_offset(max(log_start_offset, first_segment_base_offset
                                                if first_segment_base_offset is not None else 0))
        if not self.remote_log_enabled():
            self.log_start_offset = self.local_log_start_offset()
        self._maybe_increment_first_unstable_offset()
        self._initialize_topic_id()

        self._log_offsets_listener.on_high_watermark_updated(self._high_watermark_metadata.message_offset)

        # metrics (NumLogSegments, LogStartOffset, LogEndOffset, Size gauges) are not ported
        self.producer_expire_check = self.scheduler().schedule(
            "PeriodicProducerExpirationCheck", lambda: self.remove_expired_producers(self.time().milliseconds()),
            producer_id_expiration_check_interval_ms, producer_id_expiration_check_interval_ms)

    def local_log_start_offset(self) -> int:
        return self._local_log_start_offset

    def highest_offset_in_remote_storage(self) -> int:
        return self._highest_offset_in_remote_storage

    def _update_local_log_start_offset(self, offset: int) -> None:
        self._local_log_start_offset = offset
        if self.high_watermark() < offset:
            self.update_high_watermark(offset)
        if self.recovery_point() < offset:
            self._local_log.update_recovery_point(offset)

    def set_log_offsets_listener(self, listener: LogOffsetsListener) -> None:
        self._log_offsets_listener = listener

    def update_log_start_offset_from_remote_tier(self, remote_log_start_offset: int) -> None:
        if not self.remote_log_enabled():
            self._logger.error("Ignoring the call as the remote log storage is disabled")
            return
        self.maybe_increment_log_start_offset(remote_log_start_offset, LogStartOffsetIncrementReason.SegmentDeletion)

    def remote_log_enabled(self) -> bool:
        return is_remote_log_enabled(self.remote_storage_system_enable, self.config(),
                                     self.topic_partition().topic)

    def _initialize_topic_id(self) -> None:
        """Keep partition.metadata and the in-memory topic id in step: read the id back when the file exists (it
        must agree with one given), write a given one when it does not, drop both when the file is not kept."""
        part_metadata_file = self.partition_metadata_file
        if part_metadata_file is None:
            raise KafkaException("The partitionMetadataFile should have been initialized")

        if part_metadata_file.exists():
            if self.keep_partition_metadata_file:
                file_topic_id = part_metadata_file.read().topic_id
                if self._topic_id is not None and self._topic_id != file_topic_id:
                    raise InconsistentTopicIdException(
                        f"Tried to assign topic ID {self.topic_id()} to log for topic partition "
                        f"{self.topic_partition()},"
                        f"but log already contained topic ID {file_topic_id}")
                self._topic_id = file_topic_id
            else:
                try:
                    part_metadata_file.delete()
                except OSError as e:
                    self._logger.error("Error while trying to delete partition metadata file %s", part_metadata_file,
                                       exc_info=e)
        elif self.keep_partition_metadata_file:
            if self._topic_id is not None:
                part_metadata_file.record(self._topic_id)
            self.scheduler().schedule_once("flush-metadata-file", self._maybe_flush_metadata_file)
        else:
            # the file and the in-memory topic id stay in sync
            self._topic_id = None

    def topic_id(self) -> Uuid | None:
        return self._topic_id

    def dir(self) -> Path:
        return self._local_log.dir()

    def parent_dir(self) -> str:
        return self._local_log.parent_dir()

    def parent_dir_file(self) -> Path:
        return self._local_log.parent_dir_file()

    def name(self) -> str:
        return self._local_log.name()

    def recovery_point(self) -> int:
        return self._local_log.recovery_point

    def topic_partition(self) -> TopicPartition:
        return self._local_log.topic_partition

    def time(self) -> Time:
        return self._local_log.time

    def scheduler(self) -> Scheduler:
        return self._local_log.scheduler

    def config(self) -> LogConfig:
        return self._local_log.config

    def log_dir_failure_channel(self) -> LogDirFailureChannel:
        return self._local_log.log_dir_failure_channel

    def update_config(self, new_config: LogConfig) -> LogConfig:
        old_config = self._local_log.config
        self._local_log.update_config(new_config)
        if new_config.record_version() != old_config.record_version():
            self._initialize_leader_epoch_cache()
        return old_config

    def high_watermark(self) -> int:
        return self._high_watermark_metadata.message_offset

    def update_high_watermark(self, hw: int | LogOffsetMetadata) -> int:
        """Set the high watermark, bounded below by the log start offset and above by the log end offset (the
        leader initialising it); returns the offset set."""
        high_watermark_metadata = hw if isinstance(hw, LogOffsetMetadata) else LogOffsetMetadata(hw)
        end_offset_metadata = self._local_log.log_end_offset_metadata()
        if high_watermark_metadata.message_offset < self.log_start_offset:
            new_high_watermark_metadata = LogOffsetMetadata(self.log_start_offset)
        elif high_watermark_metadata.message_offset >= end_offset_metadata.message_offset:
            new_high_watermark_metadata = end_offset_metadata
        else:
            new_high_watermark_metadata = high_watermark_metadata
        self._update_high_watermark_metadata(new_high_watermark_metadata)
        return new_high_watermark_metadata.message_offset

    def maybe_increment_high_watermark(self, new_high_watermark: LogOffsetMetadata) -> LogOffsetMetadata | None:
        """Raise the high watermark (the leader, after followers' fetch offsets moved); also take the same offset
        when it now sits on a newer segment (after a roll). Returns the old value when it moved."""
        if new_high_watermark.message_offset > self.log_end_offset():
            raise IllegalArgumentException(f"High watermark {new_high_watermark} update exceeds current log end "
                                           f"offset {self._local_log.log_end_offset_metadata()}")
        with self._lock:
            old_high_watermark = self._fetch_high_watermark_metadata()
            if old_high_watermark.message_offset < new_high_watermark.message_offset or (
                    old_high_watermark.message_offset == new_high_watermark.message_offset
                    and old_high_watermark.on_older_segment(new_high_watermark)):
                self._update_high_watermark_metadata(new_high_watermark)
                return old_high_watermark
            return None

    def maybe_update_high_watermark(self, hw: int) -> int | None:
        """The follower's update from the leader's high watermark (bounded as update_high_watermark); the new value
        when it changed."""
        with self._lock:
            old_high_watermark = self._high_watermark_metadata
            new_high_watermark = self.update_high_watermark(LogOffsetMetadata(hw))
            if new_high_watermark == old_high_watermark.message_offset:
                return None
            return new_high_watermark

    def _fetch_high_watermark_metadata(self) -> LogOffsetMetadata:
        """The high watermark with its segment position, looked up (and cached) when only the offset is known."""
        self._local_log.check_if_memory_mapped_buffer_closed()
        offset_metadata = self._high_watermark_metadata
        if offset_metadata.message_offset_only():
            with self._lock:
                full_offset = self.maybe_convert_to_offset_metadata(self.high_watermark())
                self._update_high_watermark_metadata(full_offset)
                return full_offset
        return offset_metadata

    def _update_high_watermark_metadata(self, new_high_watermark: LogOffsetMetadata) -> None:
        if new_high_watermark.message_offset < 0:
            raise IllegalArgumentException("High watermark offset should be non-negative")
        with self._lock:
            if new_high_watermark.message_offset < self._high_watermark_metadata.message_offset:
                self._logger.warning("Non-monotonic update of high watermark from %s to %s",
                                     self._high_watermark_metadata, new_high_watermark)
            self._high_watermark_metadata = new_high_watermark
            self.producer_state_manager.on_high_watermark_updated(new_high_watermark.message_offset)
            self._log_offsets_listener.on_high_watermark_updated(new_high_watermark.message_offset)
            self._maybe_increment_first_unstable_offset()
        self._logger.debug("Setting high watermark %s", new_high_watermark)

    def first_unstable_offset(self) -> int | None:
        """The first offset of an ongoing transaction; None when no transaction is in progress."""
        metadata = self._first_unstable_offset_metadata
        return metadata.message_offset if metadata is not None else None

    def _fetch_last_stable_offset_metadata(self) -> LogOffsetMetadata:
        self._local_log.check_if_memory_mapped_buffer_closed()
        # read once: a concurrent update must not invalidate the range check
        high_watermark_metadata = self._fetch_high_watermark_metadata()
        offset_metadata = self._first_unstable_offset_metadata
        if offset_metadata is not None and offset_metadata.message_offset < high_watermark_metadata.message_offset:
            if offset_metadata.message_offset_only():
                with self._lock:
                    full_offset = self.maybe_convert_to_offset_metadata(offset_metadata.message_offset)
                    if self._first_unstable_offset_metadata == offset_metadata:
                        self._first_unstable_offset_metadata = full_offset
                    return full_offset
            return offset_metadata
        return high_watermark_metadata

    def last_stable_offset(self) -> int:
        """The first offset not yet decided (all below are committed, aborted or not transactional); never above the
        high watermark."""
        offset_metadata = self._first_unstable_offset_metadata
        if offset_metadata is not None and offset_metadata.message_offset < self.high_watermark():
            return offset_metadata.message_offset
        return self.high_watermark()

    def last_stable_offset_lag(self) -> int:
        return self.high_watermark() - self.last_stable_offset()

    def fetch_offset_snapshot(self) -> LogOffsetSnapshot:
        """The offsets with their segment positions (filled in for the high watermark and the LSO); an offset
        out of range is raised when a position cannot be loaded."""
        last_stable = self._fetch_last_stable_offset_metadata()
        high_watermark = self._fetch_high_watermark_metadata()
        return LogOffsetSnapshot(self.log_start_offset, self._local_log.log_end_offset_metadata(), high_watermark,
                                 last_stable)

    # visible for testing
    def remove_expired_producers(self, current_time_ms: int) -> None:
        with self._lock:
            self.producer_state_manager.remove_expired_producers(current_time_ms)

    def load_producer_state(self, last_offset: int) -> None:
        with self._lock:
            self._rebuild_producer_state(last_offset, self.producer_state_manager)
            self._maybe_increment_first_unstable_offset()
            self.update_high_watermark(self._local_log.log_end_offset_metadata())

    def _record_version(self) -> RecordVersion:
        return self.config().record_version()

    def _initialize_partition_metadata(self) -> None:
        with self._lock:
            partition_metadata = PartitionMetadataFile.new_file(self.dir())
            self.partition_metadata_file = PartitionMetadataFile(partition_metadata, self.log_dir_failure_channel())

    def _maybe_flush_metadata_file(self) -> None:
        if self.partition_metadata_file is not None:
            self.partition_metadata_file.maybe_flush()

    def assign_topic_id(self, topic_id: Uuid) -> None:
        """ZooKeeper clusters only: give an existing topic its id."""
        if self._topic_id is not None:
            if self._topic_id != topic_id:
                raise InconsistentTopicIdException(
                    f"Tried to assign topic ID {topic_id} to log for topic partition {self.topic_partition()},"
                    f"but log already contained topic ID {self._topic_id}")
        elif self.keep_partition_metadata_file:
            self._topic_id = topic_id
            part_metadata_file = self.partition_metadata_file
            if part_metadata_file is not None:
                if not part_metadata_file.exists():
                    part_metadata_file.record(topic_id)
                    self.scheduler().schedule_once("flush-metadata-file", self._maybe_flush_metadata_file)
            else:
                self._logger.warning("The topic id %s will not be persisted to the partition metadata file since "
                                     "the partition is deleted", topic_id)

    def _initialize_leader_epoch_cache(self) -> None:
        with self._lock:
            self.leader_epoch_cache = maybe_create_leader_epoch_cache(
                self.dir(), self.topic_partition(), self.log_dir_failure_channel(), self._record_version(),
                self.log_ident, self.leader_epoch_cache, self.scheduler())

    def _update_high_watermark_with_log_end_offset(self) -> None:
        # after a truncation the HW may be ahead of the LEO; after a roll its segment position is stale
        if self.high_watermark() >= self._local_log.log_end_offset():
            self._update_high_watermark_metadata(self._local_log.log_end_offset_metadata())

    def _update_log_start_offset(self, offset: int) -> None:
        self.log_start_offset = offset
        if self.high_watermark() < offset:
            self.update_high_watermark(offset)
        if self._local_log.recovery_point < offset:
            self._local_log.update_recovery_point(offset)

    def update_highest_offset_in_remote_storage(self, offset: int) -> None:
        if not self.remote_log_enabled():
            self._logger.warning("Unable to update the highest offset in remote storage with offset %s since remote "
                                 "storage is not enabled. The existing highest offset is %s.", offset,
                                 self.highest_offset_in_remote_storage())
        elif offset > self.highest_offset_in_remote_storage():
            self._highest_offset_in_remote_storage = offset

    def _rebuild_producer_state(self, last_offset: int, producer_state_manager: ProducerStateManager) -> None:
        """Rebuild producer state up to last_offset; also called on recovery, so it changes no log state."""
        with self._lock:
            self._local_log.check_if_memory_mapped_buffer_closed()
            rebuild_producer_state(producer_state_manager, self._local_log.segments, self.log_start_offset,
                                   last_offset, self._record_version(), self.time(),
                                   reload_from_clean_shutdown=False, log_prefix=self.log_ident)

    def has_late_transaction(self, current_time_ms: int) -> bool:
        return self.producer_state_manager.has_late_transaction(current_time_ms)

    def producer_id_count(self) -> int:
        return self.producer_state_manager.producer_id_count()

    def active_producers(self) -> list[ProducerState]:
        """DescribeProducers' view of each active producer."""
        with self._lock:
            result = []
            for producer_id, state in self.producer_state_manager.active_producers().items():
                current_txn_first_offset = state.current_txn_first_offset()
                result.append(ProducerState(
                    producer_id=ProducerId(producer_id), producer_epoch=state.producer_epoch(),
                    last_sequence=state.last_seq(), last_timestamp=state.last_timestamp(),
                    coordinator_epoch=state.coordinator_epoch(),
                    current_txn_start_offset=current_txn_first_offset if current_txn_first_offset is not None
                    else -1))
            return result

    def active_producers_with_last_sequence(self) -> dict[int, int]:
        with self._lock:
            return {producer_id: entry.last_seq()
                    for producer_id, entry in self.producer_state_manager.active_producers().items()}

    def last_records_of_active_producers(self) -> dict[int, LastRecord]:
        with self._lock:
            result = {}
            for producer_id, entry in self.producer_state_manager.active_producers().items():
                last_data_offset = entry.last_data_offset() if entry.last_data_offset() >= 0 else None
                result[producer_id] = LastRecord(last_data_offset, entry.producer_epoch())
            return result

    def maybe_start_transaction_verification(self, producer_id: int, sequence: int,
                                             epoch: int) -> VerificationGuard:
        """A new VerificationGuard (verification starts) unless a transaction is already ongoing: then SENTINEL."""
        with self._lock:
            if self.has_ongoing_transaction(producer_id):
                return VerificationGuard.SENTINEL
            return self._maybe_create_verification_guard(producer_id, sequence, epoch)

    def _maybe_create_verification_guard(self, producer_id: int, sequence: int, epoch: int) -> VerificationGuard:
        with self._lock:
            return self.producer_state_manager.maybe_create_verification_state_entry(
                producer_id, sequence, epoch).verification_guard()

    def verification_guard(self, producer_id: int) -> VerificationGuard:
        """The producer's VerificationGuard if verification state exists for it, else SENTINEL."""
        with self._lock:
            entry = self.producer_state_manager.verification_state_entry(producer_id)
            return entry.verification_guard() if entry is not None else VerificationGuard.SENTINEL

    def has_ongoing_transaction(self, producer_id: int) -> bool:
        with self._lock:
            entry = self.producer_state_manager.active_producers().get(producer_id)
            return entry is not None and entry.current_txn_first_offset() is not None

    def number_of_segments(self) -> int:
        return self._local_log.segments.number_of_segments()

    def close(self) -> None:
        """Close the log; index mmaps stay open until the log is deleted."""
        self._logger.debug("Closing log")
        with self._lock:
            self._log_offsets_listener = LogOffsetsListener.NO_OP_OFFSETS_LISTENER
            self._maybe_flush_metadata_file()
            self._local_log.check_if_memory_mapped_buffer_closed()
            self.producer_expire_check.cancel(True)

            def take_snapshot() -> None:
                # a snapshot at the last offset spares a scan at restart (and the upgrade shortcut never applies:
                # the clean shutdown file is written after every log is closed)
                self.producer_state_manager.take_snapshot()

            self._maybe_handle_io_exception(
                lambda: f"Error while renaming dir for {self.topic_partition()} in dir {self.dir().parent}",
                take_snapshot)
            self._local_log.close()

    def rename_dir(self, name: str, should_reinitialize: bool) -> None:
        """Rename the log's directory; a rename for async deletion (StopReplica) does not reinitialise."""
        with self._lock:
            def rename() -> None:
                # flush partition.metadata before it is re-initialised
                self._maybe_flush_metadata_file()
                if self._local_log.rename_dir(name):
                    self.producer_state_manager.update_parent_dir(self.dir())
                    if should_reinitialize:
                        # the epoch checkpoint must point into the renamed directory
                        self._initialize_leader_epoch_cache()
                        self._initialize_partition_metadata()
                    else:
                        self.leader_epoch_cache = None
                        self.partition_metadata_file = None

            self._maybe_handle_io_exception(
                lambda: f"Error while renaming dir for {self.topic_partition()} in log dir {self.dir().parent}", rename)

    def close_handlers(self) -> None:
        """Close the file handles without writing (the log directory went offline)."""
        self._logger.debug("Closing handlers")
        with self._lock:
            self._local_log.close_handlers()

    def append_as_leader(self, records: MemoryRecords, leader_epoch: int, origin: AppendOrigin = AppendOrigin.CLIENT,
                         inter_broker_protocol_version: MetadataVersion | None = None,
                         request_local: RequestLocal | None = None,
                         verification_guard: VerificationGuard = VerificationGuard.SENTINEL) -> LogAppendInfo:
        """Append on the leader: offsets and the partition leader epoch are assigned here (not for RAFT_LEADER)."""
        if inter_broker_protocol_version is None:
            inter_broker_protocol_version = MetadataVersion.latest_production()
        if request_local is None:
            request_local = RequestLocal.NO_CACHING  # type: ignore[attr-defined]
        validate_and_assign_offsets = origin != AppendOrigin.RAFT_LEADER
        return self._append(records, origin, inter_broker_protocol_version, validate_and_assign_offsets,
                            leader_epoch, request_local, verification_guard, ignore_record_size=False)

    def append_as_follower(self, records: MemoryRecords) -> LogAppendInfo:
        """Append replicated records with the offsets and epochs the leader gave them."""
        return self._append(records, origin=AppendOrigin.REPLICATION,
                            inter_broker_protocol_version=MetadataVersion.latest_production(),
                            validate_and_assign_offsets=False, leader_epoch=-1, request_local=None,
                            verification_guard=VerificationGuard.SENTINEL,
                            # the leader accepted the records: their size is not checked again
                            ignore_record_size=True)

    @step("RQ.produce.5")
    def _append(self, records: MemoryRecords, origin: AppendOrigin, inter_broker_protocol_version: MetadataVersion,
                validate_and_assign_offsets: bool, leader_epoch: int, request_local: RequestLocal | None,
                verification_guard: VerificationGuard, ignore_record_size: bool) -> LogAppendInfo:
        """Append to the active segment, rolling first if needed; assigns offsets unless told not to, in which
        case the given offsets are checked (OffsetsOutOfOrderException, UnexpectedAppendOffsetException)."""
        # partition.metadata goes to disk before any data, so data is always recovered with its topic id
        self._maybe_flush_metadata_file()

        append_info = self._analyze_and_validate_records(records, origin, ignore_record_size,
                                                         not validate_and_assign_offsets, leader_epoch)

        # nothing valid to append
        if append_info.valid_bytes <= 0:
            return append_info

        # trim invalid bytes or a partial batch off the end before writing
        valid_records = self._trim_invalid_bytes(records, append_info)

        with self._lock:
            def do_append() -> LogAppendInfo:
                nonlocal valid_records
                self._local_log.check_if_memory_mapped_buffer_closed()
                if validate_and_assign_offsets:
                    # assign offsets to the message set
                    offset = LongRef(self._local_log.log_end_offset())
                    append_info.first_offset = offset.value
                    if request_local is None:
                        raise IllegalArgumentException("requestLocal should be defined if assignOffsets is true")
                    try:
                        target_compression = UnifiedLog._target_compression(self.config().compression,
                                                                            append_info.source_compression)
                        validator = LogValidator(valid_records, self.topic_partition(), self.time(),
                                                 append_info.source_compression, target_compression,
                                                 self.config().compact, self.config().record_version().value,
                                                 self.config().message_timestamp_type,
                                                 self.config().message_timestamp_before_max_ms,
                                                 self.config().message_timestamp_after_max_ms, leader_epoch, origin,
                                                 inter_broker_protocol_version)
                        validate_and_offset_assign_result = validator.validate_messages_and_assign_offsets(
                            offset, self._validator_metrics_recorder, request_local.buffer_supplier)
                    except OSError as e:
                        raise KafkaException(f"Error validating messages while appending to log {self.name()}") from e

                    valid_records = validate_and_offset_assign_result.validated_records
                    append_info.max_timestamp = validate_and_offset_assign_result.max_timestamp_ms
                    append_info.shallow_offset_of_max_timestamp = \
                        validate_and_offset_assign_result.shallow_offset_of_max_timestamp
                    append_info.last_offset = offset.value - 1
                    append_info.record_validation_stats = validate_and_offset_assign_result.record_validation_stats
                    if self.config().message_timestamp_type == TimestampType.LOG_APPEND_TIME:
                        append_info.log_append_time = validate_and_offset_assign_result.log_append_time_ms

                    # recompression or format conversion may have changed the batch sizes: check them again
                    if not ignore_record_size and validate_and_offset_assign_result.message_size_maybe_changed:
                        for batch in valid_records.batches():
                            if batch.size_in_bytes() > self.config().max_message_size():
                                # (the bytes-rejected meters are not ported)
                                raise RecordTooLargeException(
                                    f"Message batch size is {batch.size_in_bytes()} bytes in append to"
                                    f"partition {self.topic_partition()} which exceeds the maximum configured size of "
                                    f"{self.config().max_message_size()}.")
                else:
                    # we take the offsets we are given
                    if append_info.first_or_last_offset_of_first_batch() < self._local_log.log_end_offset():
                        # an empty log may still recover: e.g. a fetch from a log start offset that deleteRecords
                        # left in the middle of a batch
                        has_first_offset = append_info.first_offset != UNKNOWN_OFFSET
                        first_offset = append_info.first_offset if has_first_offset \
                            else next(iter(records.batches())).base_offset()
                        first_or_last = "First offset" if has_first_offset else "Last offset of the first batch"
                        first_ten = [r.offset() for _, r in zip(range(10), records.records(), strict=False)]
                        raise UnexpectedAppendOffsetException(
                            f"Unexpected offset in append to {self.topic_partition()}. {first_or_last} "
                            f"{append_info.first_or_last_offset_of_first_batch()} is less than the next offset "
                            f"{self._local_log.log_end_offset()}. First 10 offsets in append: {first_ten}, last offset "
                            f"in append: {append_info.last_offset}. Log start offset = {self.log_start_offset}",
                            first_offset, append_info.last_offset)

                # the epoch cache follows the epoch the leader stamped on each batch
                for batch in valid_records.batches():
                    if batch.magic() >= MAGIC_VALUE_V2:
                        self.maybe_assign_epoch_start_offset(batch.partition_leader_epoch(), batch.base_offset())
                    else:
                        # a partial upgrade can bring a message format regression: clear the cache so that the
                        # next leader election falls back to truncation by high watermark
                        cache = self.leader_epoch_cache
                        if cache is not None and cache.non_empty():
                            self._logger.warning("Clearing leader epoch cache after unexpected append with message "
                                                 "format v%s", batch.magic())
                            cache.clear_and_flush()

                # the message set may not exceed the segment size
                if valid_records.size_in_bytes() > self.config().segment_size:
                    raise RecordBatchTooLargeException(
                        f"Message batch size is {valid_records.size_in_bytes()} bytes in append to partition "
                        f"{self.topic_partition()}, which exceeds the maximum configured segment size of "
                        f"{self.config().segment_size}.")

                # maybe roll the log if this segment is full
                segment = self._maybe_roll(valid_records.size_in_bytes(), append_info)

                log_offset_metadata = LogOffsetMetadata(append_info.first_or_last_offset_of_first_batch(),
                                                        segment.base_offset(), segment.size())

                # with offsets and timestamps final, check producer state (idempotence, transactions)
                updated_producers, completed_txns, maybe_duplicate = self._analyze_and_validate_producer_state(
                    log_offset_metadata, valid_records, origin, verification_guard)

                if maybe_duplicate is not None:
                    append_info.first_offset = maybe_duplicate.first_offset()
                    append_info.last_offset = maybe_duplicate.last_offset
                    append_info.log_append_time = maybe_duplicate.timestamp
                    append_info.log_start_offset = self.log_start_offset
                else:
                    # The LEO moves right after the write: a failed transaction index write below must not let
                    # later offsets repeat (recovery repairs the index; the LSO does not move meanwhile).
                    self._local_log.append(append_info.last_offset, append_info.max_timestamp,
                                           append_info.shallow_offset_of_max_timestamp, valid_records)
                    self._update_high_watermark_with_log_end_offset()

                    # update the producer state
                    for producer_append_info in updated_producers.values():
                        self.producer_state_manager.update(producer_append_info)

                    # the transaction index records each completed transaction with the true LSO
                    for completed_txn in completed_txns:
                        last_stable_offset = self.producer_state_manager.last_stable_offset(completed_txn)
                        segment.update_txn_index(completed_txn, last_stable_offset)
                        self.producer_state_manager.complete_txn(completed_txn)

                    # the snapshot reflects the current offset even without idempotent data
                    self.producer_state_manager.update_map_end_offset(append_info.last_offset + 1)

                    # update the first unstable offset (which is used to compute LSO)
                    self._maybe_increment_first_unstable_offset()

                    self._logger.debug("Appended message set with last offset: %s, first offset: %s, next offset: %s",
                                       append_info.last_offset, append_info.first_offset,
                                       self._local_log.log_end_offset())

                    if self._local_log.unflushed_messages() >= self.config().flush_interval:
                        self.flush(False)
                return append_info

            return self._maybe_handle_io_exception(
                lambda: f"Error while appending records to {self.topic_partition()} in dir {self.dir().parent}",
                do_append)

    @staticmethod
    def _target_compression(log_compression: Compression | None, producer_compression: CompressionType) -> Any:
        """BrokerCompressionType.targetCompression: the topic's codec, or the producer's for `producer`."""
        if log_compression is not None:
            return log_compression
        return Compression.of(producer_compression).build()

    def maybe_assign_epoch_start_offset(self, leader_epoch: int, start_offset: int) -> None:
        if self.leader_epoch_cache is not None:
            self.leader_epoch_cache.assign(leader_epoch, start_offset)

    def latest_epoch(self) -> int | None:
        return self.leader_epoch_cache.latest_epoch() if self.leader_epoch_cache is not None else None

    def end_offset_for_epoch(self, leader_epoch: int) -> OffsetAndEpoch | None:
        cache = self.leader_epoch_cache
        if cache is None:
            return None
        found_epoch, found_offset = cache.end_offset_for(leader_epoch, self.log_end_offset())
        if found_offset == UNDEFINED_EPOCH_OFFSET:
            return None
        return OffsetAndEpoch(found_offset, found_epoch)

    def _maybe_increment_first_unstable_offset(self) -> None:
        with self._lock:
            self._local_log.check_if_memory_mapped_buffer_closed()
            updated_first_unstable_offset = self.producer_state_manager.first_unstable_offset()
            if updated_first_unstable_offset is not None and (
                    updated_first_unstable_offset.message_offset_only()
                    or updated_first_unstable_offset.message_offset < self.log_start_offset):
                offset = max(updated_first_unstable_offset.message_offset, self.log_start_offset)
                updated_first_unstable_offset = self.maybe_convert_to_offset_metadata(offset)

            if updated_first_unstable_offset != self._first_unstable_offset_metadata:
                self._logger.debug("First unstable offset updated to %s", updated_first_unstable_offset)
                self._first_unstable_offset_metadata = updated_first_unstable_offset

    def maybe_increment_local_log_start_offset(self, new_local_log_start_offset: int,
                                               reason: LogStartOffsetIncrementReason) -> None:
        with self._lock:
            if new_local_log_start_offset > self.local_log_start_offset():
                self._local_log_start_offset = new_local_log_start_offset
                self._logger.info("Incremented local log start offset to %s due to reason %s",
                                  self.local_log_start_offset(), reason)

    def maybe_increment_log_start_offset(self, new_log_start_offset: int,
                                         reason: LogStartOffsetIncrementReason) -> bool:
        """Raise the log start offset; keeps log start <= LSO <= HW and trims the epoch cache and producer state.
        OffsetOutOfRangeException when the offset is past the high watermark; True when it moved."""
        # the log-start-offset checkpoint is written later: losing it needs every in-sync replica to crash at once
        updated_log_start_offset = False

        def increment() -> None:
            nonlocal updated_log_start_offset
            with self._lock:
                if new_log_start_offset > self.high_watermark():
                    raise OffsetOutOfRangeException(
                        f"Cannot increment the log start offset to {new_log_start_offset} of partition "
                        f"{self.topic_partition()} since it is larger than the high watermark {self.high_watermark()}")

                if self.remote_log_enabled():
                    # the local log start offset never lags the log start offset
                    self._local_log_start_offset = max(new_log_start_offset, self.local_log_start_offset())

                self._local_log.check_if_memory_mapped_buffer_closed()
                if new_log_start_offset > self.log_start_offset:
                    updated_log_start_offset = True
                    self._update_log_start_offset(new_log_start_offset)
                    self._logger.info("Incremented log start offset to %s due to %s", new_log_start_offset, reason)
                    if self.leader_epoch_cache is not None:
                        self.leader_epoch_cache.truncate_from_start_async_flush(self.log_start_offset)
                    self.producer_state_manager.on_log_start_offset_incremented(new_log_start_offset)
                    self._maybe_increment_first_unstable_offset()

        self._maybe_handle_io_exception(
            lambda: f"Exception while increasing log start offset for {self.topic_partition()} to "
                    f"{new_log_start_offset} in dir {self.dir().parent}", increment)
        return updated_log_start_offset

    @step("TX39.guard")
    def _analyze_and_validate_producer_state(
            self, append_offset_metadata: LogOffsetMetadata, records: MemoryRecords, origin: AppendOrigin,
            request_verification_guard: VerificationGuard,
    ) -> tuple[dict[int, ProducerAppendInfo], list[CompletedTxn], BatchMetadata | None]:
        updated_producers: dict[int, ProducerAppendInfo] = {}
        completed_txns: list[CompletedTxn] = []
        relative_position_in_segment = append_offset_metadata.relative_position_in_segment

        for batch in records.batches():
            if batch.has_producer_id():
                # a client produce may repeat any of the producer's last 5 batches: answer with the original's
                # metadata
                if origin == AppendOrigin.CLIENT:
                    maybe_last_entry = self.producer_state_manager.last_entry(batch.producer_id())
                    duplicate_batch = maybe_last_entry.find_duplicate_batch(batch) \
                        if maybe_last_entry is not None else None
                    if duplicate_batch is not None:
                        return updated_producers, completed_txns, duplicate_batch

                if origin in (AppendOrigin.CLIENT, AppendOrigin.COORDINATOR):
                    # Transactional records from a client or coordinator are written only inside a transaction the
                    # coordinator knows of: an ongoing one (later appends), or one whose first append carries the
                    # VerificationGuard created when verification started. A unique guard defeats a stale
                    # verification arriving after an abort and a new transaction (the ABA problem).
                    if batch.is_transactional() and not self.has_ongoing_transaction(batch.producer_id()) and \
                            self._batch_missing_required_verification(batch, request_verification_guard):
                        raise InvalidTxnStateException("Record was not part of an ongoing transaction")

                # the start of each transaction keeps its position: the LSO needs no index look-up
                first_offset_metadata = LogOffsetMetadata(batch.base_offset(),
                                                          append_offset_metadata.segment_base_offset,
                                                          relative_position_in_segment) \
                    if batch.is_transactional() else None

                maybe_completed_txn = _update_producers(self.producer_state_manager, batch,
                                                        updated_producers, first_offset_metadata, origin)
                if maybe_completed_txn is not None:
                    completed_txns.append(maybe_completed_txn)

            relative_position_in_segment += batch.size_in_bytes()
        return updated_producers, completed_txns, None

    def _batch_missing_required_verification(self, batch: RecordBatch,
                                             request_verification_guard: VerificationGuard) -> bool:
        return (self.producer_state_manager.producer_state_manager_config().transaction_verification_enabled()
                and not batch.is_control_batch()
                and not self.verification_guard(batch.producer_id()).verify(request_verification_guard))

    def _analyze_and_validate_records(self, records: MemoryRecords, origin: AppendOrigin, ignore_record_size: bool,
                                      require_offsets_monotonic: bool, leader_epoch: int) -> LogAppendInfo:
        """Check each batch (CRC, size unless ignored, base offset 0 from clients, monotonic offsets when required)
        and sum up the append: first and last offset, valid bytes, max timestamp, source codec."""
        valid_bytes_count = 0
        first_offset = UNKNOWN_OFFSET
        last_offset = -1
        last_leader_epoch = NO_PARTITION_LEADER_EPOCH
        source_compression = CompressionType.NONE
        monotonic = True
        max_timestamp = NO_TIMESTAMP
        shallow_offset_of_max_timestamp = -1
        read_first_message = False
        last_offset_of_first_batch = -1

        for batch in records.batches():
            if origin == AppendOrigin.RAFT_LEADER and batch.partition_leader_epoch() != leader_epoch:
                raise InvalidRecordException("Append from Raft leader did not set the batch epoch correctly")
            # only v2 and up are checked, for older clients' sake
            if batch.magic() >= MAGIC_VALUE_V2 and origin == AppendOrigin.CLIENT and batch.base_offset() != 0:
                raise InvalidRecordException(f"The baseOffset of the record batch in the append to "
                                             f"{self.topic_partition()} should be 0, but it is {batch.base_offset()}")

            # v2 batches carry their first offset in the header; older ones only the last (without decompressing).
            # The leader overwrites the first offset later; a follower is more lenient.
            if not read_first_message:
                if batch.magic() >= MAGIC_VALUE_V2:
                    first_offset = batch.base_offset()
                last_offset_of_first_batch = batch.last_offset()
                read_first_message = True

            # check that offsets are monotonically increasing
            if last_offset >= batch.last_offset():
                monotonic = False

            # update the last offset seen
            last_offset = batch.last_offset()
            last_leader_epoch = batch.partition_leader_epoch()

            # check the batch size (the bytes-rejected meters are not ported)
            batch_size = batch.size_in_bytes()
            if not ignore_record_size and batch_size > self.config().max_message_size():
                raise RecordTooLargeException(
                    f"The record batch size in the append to {self.topic_partition()} is {batch_size} bytes which "
                    f"exceeds the maximum configured value of {self.config().max_message_size()}.")

            # check the CRC
            if not batch.is_valid():
                raise CorruptRecordException(f"Record is corrupt (stored crc = {batch.checksum()}) in topic "
                                             f"partition {self.topic_partition()}.")

            if batch.max_timestamp() > max_timestamp:
                max_timestamp = batch.max_timestamp()
                shallow_offset_of_max_timestamp = last_offset

            valid_bytes_count += batch_size

            # the leader path has one batch when v2 or compressed, so the last codec seen is its codec
            batch_compression = batch.compression_type()
            if batch_compression is not CompressionType.NONE:
                source_compression = batch_compression

        if require_offsets_monotonic and not monotonic:
            raise OffsetsOutOfOrderException(f"Out of order offsets found in append to {self.topic_partition()}: "
                                             f"{[r.offset() for r in records.records()]}")

        last_leader_epoch_opt = last_leader_epoch if last_leader_epoch != NO_PARTITION_LEADER_EPOCH else None

        return LogAppendInfo(first_offset, last_offset, last_leader_epoch_opt, max_timestamp,
                             shallow_offset_of_max_timestamp, NO_TIMESTAMP, self.log_start_offset,
                             RecordValidationStats.EMPTY, source_compression, valid_bytes_count,
                             last_offset_of_first_batch, [], LeaderHwChange.NONE)

    def _trim_invalid_bytes(self, records: MemoryRecords, info: LogAppendInfo) -> MemoryRecords:
        """The records without any invalid bytes or partial batch at their end."""
        valid_bytes = info.valid_bytes
        if valid_bytes < 0:
            raise CorruptRecordException(f"Cannot append record batch with illegal length {valid_bytes} to log for "
                                         f"{self.topic_partition()}. A possible cause is a corrupted produce request.")
        if valid_bytes == records.size_in_bytes():
            return records
        # trim invalid bytes
        return MemoryRecords.readable_records(records.buffer()[:valid_bytes])

    def _check_log_start_offset(self, offset: int) -> None:
        if offset < self.log_start_offset:
            raise OffsetOutOfRangeException(f"Received request for offset {offset} for partition "
                                            f"{self.topic_partition()}, but we only have log segments starting from "
                                            f"offset: {self.log_start_offset}.")

    def read(self, start_offset: int, max_length: int, isolation: FetchIsolation,
             min_one_message: bool) -> FetchDataInfo:
        """Read from start_offset up to the bound the isolation sets (LEO, HW or LSO); OffsetOutOfRangeException
        below the log start or past the log end."""
        self._check_log_start_offset(start_offset)
        if isolation is FetchIsolation.LOG_END:
            max_offset_metadata = self._local_log.log_end_offset_metadata()
        elif isolation is FetchIsolation.HIGH_WATERMARK:
            max_offset_metadata = self._fetch_high_watermark_metadata()
        else:
            max_offset_metadata = self._fetch_last_stable_offset_metadata()
        return self._local_log.read(start_offset, max_length, min_one_message, max_offset_metadata,
                                    isolation is FetchIsolation.TXN_COMMITTED)

    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        return self._local_log.collect_aborted_transactions(self.log_start_offset, start_offset, upper_bound_offset)

    def fetch_offset_by_timestamp(self, target_timestamp: int,
                                  remote_log_manager: Any = None) -> TimestampAndOffset | None:
        """The first offset whose timestamp is >= target_timestamp (and the special timestamps of ListOffsets);
        None when no such record exists."""
        def search() -> TimestampAndOffset | None:
            self._logger.debug("Searching offset for timestamp %s", target_timestamp)

            if self.config().message_format_version.is_less_than(MetadataVersion.IBP_0_10_0_IV0) and \
                    target_timestamp not in (EARLIEST_TIMESTAMP, LATEST_TIMESTAMP):
                raise UnsupportedForMessageFormatException(
                    f"Cannot search offsets based on timestamp because message format version for partition "
                    f"{self.topic_partition()} is {self.config().message_format_version} which is earlier than the "
                    f"minimum required version {MetadataVersion.IBP_0_10_0_IV0}")

            # earliest and latest carry no timestamp
            if target_timestamp == EARLIEST_TIMESTAMP or (
                    not self.remote_log_enabled() and target_timestamp == EARLIEST_LOCAL_TIMESTAMP):
                # after a message format bump the first cached epoch may start past the log start: check it
                earliest_epoch_entry = self.leader_epoch_cache.earliest_entry() \
                    if self.leader_epoch_cache is not None else None
                epoch_opt = earliest_epoch_entry.epoch \
                    if earliest_epoch_entry is not None and earliest_epoch_entry.start_offset <= self.log_start_offset \
                    else None
                return TimestampAndOffset(NO_TIMESTAMP, self.log_start_offset, epoch_opt)
            if target_timestamp == EARLIEST_LOCAL_TIMESTAMP:
                cur_local_log_start_offset = self.local_log_start_offset()
                epoch_result = self.leader_epoch_cache.epoch_for_offset(cur_local_log_start_offset) \
                    if self.leader_epoch_cache is not None else None
                return TimestampAndOffset(NO_TIMESTAMP, cur_local_log_start_offset, epoch_result)
            if target_timestamp == LATEST_TIMESTAMP:
                epoch = self.leader_epoch_cache.latest_epoch() if self.leader_epoch_cache is not None else None
                return TimestampAndOffset(NO_TIMESTAMP, self.log_end_offset(), epoch)
            if target_timestamp == LATEST_TIERED_TIMESTAMP:
                if self.remote_log_enabled():
                    cur_highest_remote_offset = self.highest_offset_in_remote_storage()
                    epoch_result = None
                    if self.leader_epoch_cache is not None:
                        epoch_result = self.leader_epoch_cache.epoch_for_offset(cur_highest_remote_offset)
                        if epoch_result is None and cur_highest_remote_offset == -1:
                            epoch_result = NO_PARTITION_LEADER_EPOCH
                    return TimestampAndOffset(NO_TIMESTAMP, cur_highest_remote_offset, epoch_result)
                return TimestampAndOffset(NO_TIMESTAMP, -1, -1)
            if target_timestamp == MAX_TIMESTAMP:
                # a copy of the segment list: no race with a concurrent change
                latest_timestamp_segment = max(self.log_segments(), key=lambda s: s.max_timestamp_so_far())
                # cache the timestamp and offset
                max_timestamp_so_far = latest_timestamp_segment.read_max_timestamp_and_offset_so_far()
                # the batch's position from the index saves I/O
                position = latest_timestamp_segment.offset_index().lookup(max_timestamp_so_far.offset)
                for batch in latest_timestamp_segment.log().batches_from(position.position):
                    if batch.max_timestamp() == max_timestamp_so_far.timestamp:
                        offset_of_max = batch.offset_of_max_timestamp()
                        if offset_of_max is None:
                            return None
                        epoch = batch.partition_leader_epoch()
                        return TimestampAndOffset(batch.max_timestamp(), offset_of_max, epoch if epoch >= 0 else None)
                return None
            # the first segment whose largest timestamp is >= the target, if any
            if self.remote_log_enabled():
                if remote_log_manager is None:
                    raise KafkaException("RemoteLogManager is empty even though the remote log storage is enabled.")
                if self._record_version().value < RecordVersion.V2.value:
                    raise KafkaException("Tiered storage is supported only with versions supporting leader epochs, "
                                         "that means RecordVersion must be >= 2.")
                # the remote tier first (RemoteLogManager is not ported: any object with its find_offset_by_timestamp)
                remote_offset = remote_log_manager.find_offset_by_timestamp(
                    self.topic_partition(), target_timestamp, self.log_start_offset, self.leader_epoch_cache)
                if remote_offset is not None:
                    return remote_offset
                # not in remote storage: the local log, from the local log start offset
                return self._search_offset_in_local_log(target_timestamp, self.local_log_start_offset())
            return self._search_offset_in_local_log(target_timestamp, self.log_start_offset)

        return self._maybe_handle_io_exception(
            lambda: f"Error while fetching offset by timestamp for {self.topic_partition()} in dir {self.dir().parent}",
            search)

    def _search_offset_in_local_log(self, target_timestamp: int, start_offset: int) -> TimestampAndOffset | None:
        # a copy of the segment list: no race with a concurrent change
        segments_copy = list(self.log_segments())
        target_seg = next((s for s in segments_copy if s.largest_timestamp() >= target_timestamp), None)
        return target_seg.find_offset_by_timestamp(target_timestamp, start_offset) if target_seg is not None else None

    def legacy_fetch_offsets_before(self, timestamp: int, max_num_offsets: int) -> list[int]:
        """ListOffsets v0: segment base offsets by segment modification time, newest first."""
        all_segments = list(self.log_segments())
        last_segment_has_size = all_segments[-1].size() > 0

        offset_time_array = [(max(s.base_offset(), self.log_start_offset), s.last_modified()) for s in all_segments]
        if last_segment_has_size:
            offset_time_array.append((self.log_end_offset(), self.time().milliseconds()))

        if timestamp == LATEST_TIMESTAMP:
            start_index = len(offset_time_array) - 1
        elif timestamp == EARLIEST_TIMESTAMP:
            start_index = 0
        else:
            start_index = len(offset_time_array) - 1
            while start_index >= 0 and offset_time_array[start_index][1] > timestamp:
                start_index -= 1

        ret_size = min(max_num_offsets, start_index + 1)
        ret = []
        for _ in range(ret_size):
            ret.append(offset_time_array[start_index][0])
            start_index -= 1
        # descending order of offsets
        return sorted(ret, reverse=True)

    def maybe_convert_to_offset_metadata(self, offset: int) -> LogOffsetMetadata:
        """The offset with its segment position; message-only metadata when it is outside the local log."""
        try:
            return self._local_log.convert_to_offset_metadata_or_throw(offset)
        except OffsetOutOfRangeException:
            return LogOffsetMetadata(offset)

    def _delete_old_segments(self, predicate: Callable[[LogSegment, LogSegment | None], bool],
                             reason: SegmentDeletionReason) -> int:
        """Delete segments from the oldest while the predicate holds, never the one holding the high watermark
        or above (the log start offset never passes the HW); none while the HW is uninitialised."""
        with self._lock:
            deletable = self.deletable_segments(predicate)
            if deletable:
                return self._delete_segments(deletable, reason)
            return 0

    def _remote_log_enabled_and_remote_copy_enabled(self) -> bool:
        return self.remote_log_enabled() and not self.config().remote_log_copy_disable()

    def deletable_segments(self, predicate: Callable[[LogSegment, LogSegment | None], bool]) -> list[LogSegment]:
        """The segments from the oldest while the predicate holds; an empty last segment is never one."""
        def is_segment_eligible_for_deletion(next_segment_opt: LogSegment | None, upper_bound_offset: int) -> bool:
            allow_deletion_due_to_log_start_offset_incremented = \
                next_segment_opt is not None and self.log_start_offset >= next_segment_opt.base_offset()
            # with tiered storage, only segments already copied (or below the log start offset) go
            if self._remote_log_enabled_and_remote_copy_enabled():
                return (upper_bound_offset > 0
                        and upper_bound_offset - 1 <= self.highest_offset_in_remote_storage()) \
                    or allow_deletion_due_to_log_start_offset_incremented
            return True

        if self._local_log.segments.is_empty():
            return []
        deletable: list[LogSegment] = []
        segments_iterator = iter(self._local_log.segments.values())
        segment_opt = next(segments_iterator, None)
        should_roll = False
        while segment_opt is not None:
            segment = segment_opt
            next_segment_opt = next(segments_iterator, None)
            is_last_segment_and_empty = next_segment_opt is None and segment.size() == 0
            upper_bound_offset = next_segment_opt.base_offset() if next_segment_opt is not None \
                else self.log_end_offset()
            # segments at or above the high watermark stay: the log start offset never passes it
            predicate_result = self.high_watermark() >= upper_bound_offset and predicate(segment, next_segment_opt)

            # an active segment past retention is rolled, to go in the next round (tiered storage only)
            if predicate_result and self.remote_log_enabled() and next_segment_opt is None and segment.size() > 0:
                should_roll = True
            if predicate_result and not is_last_segment_and_empty and \
                    is_segment_eligible_for_deletion(next_segment_opt, upper_bound_offset):
                deletable.append(segment)
                segment_opt = next_segment_opt
            else:
                segment_opt = None
        if should_roll:
            self._logger.info("Rolling the active segment to make it eligible for deletion")
            self.roll()
        return deletable

    def _increment_start_offset(self, start_offset: int, reason: LogStartOffsetIncrementReason) -> None:
        if self._remote_log_enabled_and_remote_copy_enabled():
            self.maybe_increment_local_log_start_offset(start_offset, reason)
        else:
            self.maybe_increment_log_start_offset(start_offset, reason)

    def _delete_segments(self, deletable: list[LogSegment], reason: SegmentDeletionReason) -> int:
        def delete() -> int:
            num_to_delete = len(deletable)
            if num_to_delete > 0:
                # a log always keeps a segment: roll a new one before deleting them all
                segments_to_delete = deletable
                if self._local_log.segments.number_of_segments() == num_to_delete:
                    new_segment = self.roll()
                    if deletable[-1].base_offset() == new_segment.base_offset():
                        self._logger.warning("Empty active segment at %s was deleted and recreated due to %s",
                                             deletable[-1].base_offset(), reason)
                        segments_to_delete = deletable[:-1]
                self._local_log.check_if_memory_mapped_buffer_closed()
                if segments_to_delete:
                    # move the (local) log start offset before the segments leave the look-ups
                    higher = self._local_log.segments.higher_segment(segments_to_delete[-1].base_offset())
                    assert higher is not None
                    self._increment_start_offset(higher.base_offset(), LogStartOffsetIncrementReason.SegmentDeletion)
                    # remove the segments for lookups
                    self._local_log.remove_and_delete_segments(segments_to_delete, True, reason)
                self.delete_producer_snapshots(deletable, async_delete=True)
            return num_to_delete

        return self._maybe_handle_io_exception(
            lambda: f"Error while deleting segments for {self.topic_partition()} in dir {self.dir().parent}", delete)

    def delete_old_segments(self) -> int:
        """With cleanup.policy delete, the segments past retention time or size; in any case those below the log
        start offset."""
        if self.config().delete:
            return (self._delete_log_start_offset_breached_segments()
                    + self._delete_retention_size_breached_segments()
                    + self._delete_retention_ms_breached_segments())
        return self._delete_log_start_offset_breached_segments()

    def _delete_retention_ms_breached_segments(self) -> int:
        retention_ms = local_retention_ms(self.config(), self._remote_log_enabled_and_remote_copy_enabled())
        if retention_ms < 0:
            return 0
        start_ms = self.time().milliseconds()

        def should_delete(segment: LogSegment, next_segment_opt: LogSegment | None) -> bool:
            return start_ms - segment.largest_timestamp() > retention_ms

        return self._delete_old_segments(
            should_delete, RetentionMsBreach(self, self._remote_log_enabled_and_remote_copy_enabled()))

    def _delete_retention_size_breached_segments(self) -> int:
        retention_size = local_retention_size(self.config(),
                                              self._remote_log_enabled_and_remote_copy_enabled())
        if retention_size < 0 or self.size() < retention_size:
            return 0
        diff = self.size() - retention_size

        def should_delete(segment: LogSegment, next_segment_opt: LogSegment | None) -> bool:
            nonlocal diff
            if diff - segment.size() >= 0:
                diff -= segment.size()
                return True
            return False

        return self._delete_old_segments(
            should_delete, RetentionSizeBreach(self, self._remote_log_enabled_and_remote_copy_enabled()))

    def _delete_log_start_offset_breached_segments(self) -> int:
        def should_delete(segment: LogSegment, next_segment_opt: LogSegment | None) -> bool:
            bound = self.local_log_start_offset() if self.remote_log_enabled() else self.log_start_offset
            return next_segment_opt is not None and next_segment_opt.base_offset() <= bound

        return self._delete_old_segments(should_delete, StartOffsetBreach(self, self.remote_log_enabled()))

    def is_future(self) -> bool:
        return self._local_log.is_future()

    def size(self) -> int:
        """The size of the log in bytes."""
        return self._local_log.segments.size_in_bytes()

    def only_local_log_segments_size(self) -> int:
        """The bytes of the segments not yet in remote storage."""
        return size_in_bytes([s for s in self.log_segments()
                              if s.base_offset() >= self.highest_offset_in_remote_storage()])

    def only_local_log_segments_count(self) -> int:
        return sum(1 for s in self.log_segments() if s.base_offset() >= self.highest_offset_in_remote_storage())

    def log_end_offset(self) -> int:
        """The offset the next appended record gets."""
        return self._local_log.log_end_offset()

    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        return self._local_log.log_end_offset_metadata()

    def _maybe_roll(self, messages_size: int, append_info: LogAppendInfo) -> LogSegment:
        """Roll when the active segment is full, segment.ms (less jitter) passed since its first timestamp, or an
        index is full; returns the active segment after that."""
        with self._lock:
            segment = self._local_log.segments.active_segment()
            now = self.time().milliseconds()

            max_timestamp_in_messages = append_info.max_timestamp
            max_offset_in_messages = append_info.last_offset

            if segment.should_roll(RollParams(self.config().max_segment_ms(), self.config().segment_size,
                                              append_info.max_timestamp, append_info.last_offset, messages_size,
                                              now)):
                self._logger.debug(
                    "Rolling new log segment (log_size = %s/%s}, offset_index_size = %s/%s, time_index_size = %s/%s, "
                    "inactive_time_ms = %s/%s).", segment.size(), self.config().segment_size,
                    segment.offset_index().entries(), segment.offset_index().max_entries(),
                    segment.time_index().entries(), segment.time_index().max_entries(),
                    segment.time_waited_for_roll(now, max_timestamp_in_messages),
                    self.config().segment_ms - segment.roll_jitter_ms())

                # Pre-v2 batches do not give their first offset without decompression: last offset - Int.MaxValue
                # is a lower bound of it (offsets in one append differ by less), so the new segment can hold the
                # batch even when offsets jump by more than Int.MaxValue (a compacted topic replicated anew).
                roll_offset = max_offset_in_messages - INT_MAX \
                    if append_info.first_offset == UNKNOWN_OFFSET else append_info.first_offset

                return self.roll(roll_offset)
            return segment

    def roll(self, expected_next_offset: int | None = None) -> LogSegment:
        """Roll to a new active segment at expected_next_offset (or the log end offset); the old one's indexes are
        trimmed to their entries and it is flushed in the background."""
        with self._lock:
            new_segment = self._local_log.roll(expected_next_offset)
            # A producer snapshot at the new segment's base offset lets recovery start from it and scan only this
            # segment; the base offset may be past the producer state's end offset, hence the override.
            self.producer_state_manager.update_map_end_offset(new_segment.base_offset())
            # no fsync under the lock (it would block produces): the flush task below syncs it
            maybe_snapshot = self.producer_state_manager.take_snapshot(False)
            self._update_high_watermark_with_log_end_offset()

            def flush_log() -> None:
                if maybe_snapshot is not None:
                    self.flush_producer_state_snapshot(maybe_snapshot)
                self.flush_upto_offset_exclusive(new_segment.base_offset())

            # schedule an asynchronous flush of the old segment
            self.scheduler().schedule_once("flush-log", flush_log)
            return new_segment

    def flush(self, force_flush_active_segment: bool) -> None:
        """Flush every segment; on clean shutdown (force) the active one too, even empty, so that its file exists."""
        self._flush(self.log_end_offset(), force_flush_active_segment)

    def flush_upto_offset_exclusive(self, offset: int) -> None:
        """Flush segments up to offset - 1; offset becomes the recovery point."""
        self._flush(offset, including_offset=False)

    def _flush(self, offset: int, including_offset: bool) -> None:
        flush_offset = offset + 1 if including_offset else offset
        new_recovery_point = offset
        including_offset_str = "inclusive" if including_offset else "exclusive"

        def do_flush() -> None:
            if flush_offset > self._local_log.recovery_point:
                self._logger.debug("Flushing log up to offset %s (%s)with recovery point %s, last flushed: %s,  "
                                   "current time: %s,unflushed: %s", offset, including_offset_str,
                                   new_recovery_point, self.last_flush_time(), self.time().milliseconds(),
                                   self._local_log.unflushed_messages())
                self._local_log.flush(flush_offset)
                with self._lock:
                    self._local_log.mark_flushed(new_recovery_point)

        self._maybe_handle_io_exception(
            lambda: f"Error while flushing log for {self.topic_partition()} in dir {self.dir().parent} with offset "
                    f"{offset} ({including_offset_str}) and recovery point {new_recovery_point}", do_flush)

    def delete(self) -> None:
        """Delete the local log directory and everything in it, now."""
        def do_delete() -> None:
            with self._lock:
                self._local_log.check_if_memory_mapped_buffer_closed()
                self.producer_expire_check.cancel(True)
                if self.leader_epoch_cache is not None:
                    self.leader_epoch_cache.clear()
                deleted_segments = self._local_log.delete_all_segments()
                self.delete_producer_snapshots(deleted_segments, async_delete=False)
                self._local_log.delete_empty_dir()

        self._maybe_handle_io_exception(
            lambda: f"Error while deleting log for {self.topic_partition()} in dir {self.dir().parent}", do_delete)

    # visible for testing
    def take_producer_snapshot(self) -> None:
        with self._lock:
            self._local_log.check_if_memory_mapped_buffer_closed()
            self.producer_state_manager.take_snapshot()

    # visible for testing
    def latest_producer_snapshot_offset(self) -> int | None:
        with self._lock:
            return self.producer_state_manager.latest_snapshot_offset()

    # visible for testing
    def oldest_producer_snapshot_offset(self) -> int | None:
        with self._lock:
            return self.producer_state_manager.oldest_snapshot_offset()

    # visible for testing
    def latest_producer_state_end_offset(self) -> int:
        with self._lock:
            return self.producer_state_manager.map_end_offset()

    def flush_producer_state_snapshot(self, snapshot: Path) -> None:
        def do_flush() -> None:
            _flush_file_if_exists(snapshot)

        self._maybe_handle_io_exception(
            lambda: f"Error while deleting producer state snapshot {snapshot} for {self.topic_partition()} in dir "
                    f"{self.dir().parent}", do_flush)

    def truncate_to(self, target_offset: int) -> bool:
        """Truncate so that the log ends below target_offset; True when anything was removed."""
        def truncate() -> bool:
            if target_offset < 0:
                raise IllegalArgumentException(f"Cannot truncate partition {self.topic_partition()} to a negative "
                                               f"offset ({target_offset}).")
            if target_offset >= self._local_log.log_end_offset():
                self._logger.info("Truncating to %s has no effect as the largest offset in the log is %s",
                                  target_offset, self._local_log.log_end_offset() - 1)
                # The epoch cache is truncated anyway: as a leader this broker may have added an epoch entry and
                # then lost leadership before appending to it.
                with self._lock:
                    if self.leader_epoch_cache is not None:
                        self.leader_epoch_cache.truncate_from_end_async_flush(self.log_end_offset())
                return False
            self._logger.info("Truncating to offset %s", target_offset)
            with self._lock:
                self._local_log.check_if_memory_mapped_buffer_closed()
                first_segment_base_offset = self._local_log.segments.first_segment_base_offset()
                if first_segment_base_offset is not None and first_segment_base_offset > target_offset:
                    self.truncate_fully_and_start_at(target_offset)
                else:
                    deleted_segments = self._local_log.truncate_to(target_offset)
                    self.delete_producer_snapshots(deleted_segments, async_delete=True)
                    if self.leader_epoch_cache is not None:
                        self.leader_epoch_cache.truncate_from_end_async_flush(target_offset)
                    self.log_start_offset = min(target_offset, self.log_start_offset)
                    self._rebuild_producer_state(target_offset, self.producer_state_manager)
                    if self.high_watermark() >= self._local_log.log_end_offset():
                        self.update_high_watermark(self._local_log.log_end_offset_metadata())
                return True

        return self._maybe_handle_io_exception(
            lambda: f"Error while truncating log to offset {target_offset} for {self.topic_partition()} in dir "
                    f"{self.dir().parent}", truncate)

    def truncate_fully_and_start_at(self, new_offset: int, log_start_offset_opt: int | None = None) -> None:
        """Delete all data and start the log at new_offset (log start offset: the one given, else new_offset)."""
        def truncate() -> None:
            self._logger.debug("Truncate and start at offset %s, logStartOffset: %s", new_offset,
                               log_start_offset_opt if log_start_offset_opt is not None else new_offset)
            with self._lock:
                self._local_log.truncate_fully_and_start_at(new_offset)
                if self.leader_epoch_cache is not None:
                    self.leader_epoch_cache.clear_and_flush()
                self.producer_state_manager.truncate_fully_and_start_at(new_offset)
                self.log_start_offset = log_start_offset_opt if log_start_offset_opt is not None else new_offset
                if self.remote_log_enabled():
                    self._local_log_start_offset = new_offset
                self._rebuild_producer_state(new_offset, self.producer_state_manager)
                self.update_high_watermark(self._local_log.log_end_offset_metadata())

        self._maybe_handle_io_exception(
            lambda: f"Error while truncating the entire log for {self.topic_partition()} in dir {self.dir().parent}",
            truncate)

    def last_flush_time(self) -> int:
        """When the log was last known to be fully flushed."""
        return self._local_log.last_flush_time()

    def active_segment(self) -> LogSegment:
        """The segment taking appends."""
        return self._local_log.segments.active_segment()

    def log_segments(self, from_offset: int | None = None, to: int | None = None) -> list[LogSegment]:
        """logSegments: every segment, oldest first; logSegments(from, to): those from the one holding `from` up to
        the one holding to - 1 (or the end)."""
        if from_offset is None or to is None:
            return self._local_log.segments.values()
        with self._lock:
            return self._local_log.segments.values(from_offset, to)

    def non_active_log_segments_from(self, from_offset: int) -> list[LogSegment]:
        with self._lock:
            return self._local_log.segments.non_active_log_segments_from(from_offset)

    def __str__(self) -> str:
        parts = [f"Log(dir={self.dir()}"]
        if self.topic_id() is not None:
            parts.append(f", topicId={self.topic_id()}")
        parts.append(f", topic={self.topic_partition().topic}, partition={self.topic_partition().partition}, "
                     f"highWatermark={self.high_watermark()}, lastStableOffset={self.last_stable_offset()}, "
                     f"logStartOffset={self.log_start_offset}, logEndOffset={self.log_end_offset()})")
        return "".join(parts)

    @step("CL.swap")
    def replace_segments(self, new_segments: list[LogSegment], old_segments: list[LogSegment]) -> None:
        with self._lock:
            self._local_log.check_if_memory_mapped_buffer_closed()
            deleted_segments = replace_segments(self._local_log.segments, new_segments, old_segments,
                                                self.dir(), self.topic_partition(), self.config(),
                                                self.scheduler(), self.log_dir_failure_channel(),
                                                self.log_ident)
            self.delete_producer_snapshots(deleted_segments, async_delete=True)

    def get_first_batch_timestamp_for_segments(self, segments: Iterable[LogSegment]) -> list[int]:
        """Without the log lock: the cleaner calls it under its own lock, on non-active segments only."""
        return [s.get_first_batch_timestamp() for s in segments]

    def remove_log_metrics(self) -> None:
        """Metrics are not ported: nothing registered, nothing to remove."""

    def add_segment(self, segment: LogSegment) -> LogSegment | None:
        """Add a segment (replacing one at the same base offset)."""
        return self._local_log.segments.add(segment)

    def _maybe_handle_io_exception(self, msg: Callable[[], str], fun: Callable[[], T]) -> T:
        return local_log.maybe_handle_io_exception(self.log_dir_failure_channel(), self.parent_dir(), msg, fun)

    def split_overflowed_segment(self, segment: LogSegment) -> list[LogSegment]:
        with self._lock:
            result = split_overflowed_segment(segment, self._local_log.segments, self.dir(),
                                              self.topic_partition(), self.config(), self.scheduler(),
                                              self.log_dir_failure_channel(), self.log_ident)
            self.delete_producer_snapshots(result.deleted_segments, async_delete=True)
            return list(result.new_segments)

    def delete_producer_snapshots(self, segments: Iterable[LogSegment], async_delete: bool) -> None:
        delete_producer_snapshots(segments, self.producer_state_manager, async_delete, self.scheduler(),
                                  self.config(), self.log_dir_failure_channel(), self.parent_dir(),
                                  self.topic_partition())


_companion_logger = Logging("kafka.log.UnifiedLog")

# ---- the companion object (module level, as local_log's) ----------------------------------------------------


LOG_FILE_SUFFIX = log_file_utils.LOG_FILE_SUFFIX
INDEX_FILE_SUFFIX = log_file_utils.INDEX_FILE_SUFFIX
TIME_INDEX_FILE_SUFFIX = log_file_utils.TIME_INDEX_FILE_SUFFIX
TXN_INDEX_FILE_SUFFIX = log_file_utils.TXN_INDEX_FILE_SUFFIX
CLEANED_FILE_SUFFIX = local_log.CLEANED_FILE_SUFFIX
SWAP_FILE_SUFFIX = local_log.SWAP_FILE_SUFFIX
DELETE_DIR_SUFFIX = local_log.DELETE_DIR_SUFFIX
STRAY_DIR_SUFFIX = local_log.STRAY_DIR_SUFFIX
FUTURE_DIR_SUFFIX = local_log.FUTURE_DIR_SUFFIX
DELETE_DIR_PATTERN = local_log.DELETE_DIR_PATTERN
FUTURE_DIR_PATTERN = local_log.FUTURE_DIR_PATTERN
UNKNOWN_OFFSET = local_log.UNKNOWN_OFFSET


def is_remote_log_enabled(remote_storage_system_enable: bool, config: LogConfig, topic: str) -> bool:
    """Remote storage applies only to non-compacted, non-internal topics."""
    return (remote_storage_system_enable
            and not (config.compact or Topic.is_internal(topic) or topic == REMOTE_LOG_METADATA_TOPIC_NAME
                     or topic == Topic.CLUSTER_METADATA_TOPIC_NAME)
            and config.remote_storage_enable())


def apply(dir: str | os.PathLike[str], config: LogConfig, log_start_offset: int, recovery_point: int,
          scheduler: Scheduler, broker_topic_stats: Any, time: Time, max_transaction_timeout_ms: int,
          producer_state_manager_config: ProducerStateManagerConfig, producer_id_expiration_check_interval_ms: int,
          log_dir_failure_channel: LogDirFailureChannel, last_shutdown_clean: bool = True,
          topic_id: Uuid | None = None, keep_partition_metadata_file: bool = True,
          num_remaining_segments: dict[str, int] | None = None, remote_storage_system_enable: bool = False,
          log_offsets_listener: LogOffsetsListener = LogOffsetsListener.NO_OP_OFFSETS_LISTENER) -> UnifiedLog:
    """Open (creating it if needed) and recover the log in `dir`."""
    # LogLoader calls back into this module's companion functions
    from kafka_edu.v3_9.core.log.log_loader import LogLoader

    dir = Path(dir)
    # create the log directory if it doesn't exist
    dir.mkdir(parents=True, exist_ok=True)
    topic_partition = parse_topic_partition_name(dir)
    segments = LogSegments(topic_partition)
    # LogLoader truncates the cache as needed, so entries are right even from a stale checkpoint
    leader_epoch_cache = maybe_create_leader_epoch_cache(
        dir, topic_partition, log_dir_failure_channel, config.record_version(),
        f"[UnifiedLog partition={topic_partition}, dir={dir.parent}] ", None, scheduler)
    producer_state_manager = ProducerStateManager(topic_partition, dir, max_transaction_timeout_ms,
                                                  producer_state_manager_config, time)
    remote_log_enabled = is_remote_log_enabled(remote_storage_system_enable, config, topic_partition.topic)
    offsets = LogLoader(dir, topic_partition, config, scheduler, time, log_dir_failure_channel,
                        last_shutdown_clean, segments, log_start_offset, recovery_point, leader_epoch_cache,
                        producer_state_manager,
                        num_remaining_segments if num_remaining_segments is not None else {},
                        remote_log_enabled).load()
    local_log = LocalLog(dir, config, segments, offsets.recovery_point, offsets.next_offset_metadata, scheduler,
                         time, topic_partition, log_dir_failure_channel)
    return UnifiedLog(offsets.log_start_offset, local_log, broker_topic_stats,
                      producer_id_expiration_check_interval_ms, leader_epoch_cache, producer_state_manager,
                      topic_id, keep_partition_metadata_file, remote_storage_system_enable, log_offsets_listener)


def log_delete_dir_name(topic_partition: TopicPartition) -> str:
    return local_log.log_delete_dir_name(topic_partition)


def log_future_dir_name(topic_partition: TopicPartition) -> str:
    return local_log.log_future_dir_name(topic_partition)


def log_stray_dir_name(topic_partition: TopicPartition) -> str:
    return local_log.log_stray_dir_name(topic_partition)


def log_dir_name(topic_partition: TopicPartition) -> str:
    return local_log.log_dir_name(topic_partition)


def transaction_index_file(dir: str | os.PathLike[str], offset: int, suffix: str = "") -> Path:
    return log_file_utils.transaction_index_file(Path(dir), offset, suffix)


def offset_from_file(file: str | os.PathLike[str]) -> int:
    return log_file_utils.offset_from_file(Path(file))


def size_in_bytes(segments: Iterable[LogSegment]) -> int:
    return LogSegments.size_in_bytes_of(list(segments))


def parse_topic_partition_name(dir: str | os.PathLike[str]) -> TopicPartition:
    return local_log.parse_topic_partition_name(Path(dir))


def is_index_file(file: str | os.PathLike[str]) -> bool:
    return local_log.is_index_file(Path(file))


def is_log_file(file: str | os.PathLike[str]) -> bool:
    return local_log.is_log_file(Path(file))


def _load_producers_from_records(producer_state_manager: ProducerStateManager, records: Records) -> None:
    loaded_producers: dict[int, ProducerAppendInfo] = {}
    completed_txns: list[CompletedTxn] = []
    for batch in records.batches():
        if batch.has_producer_id():
            maybe_completed_txn = _update_producers(producer_state_manager, batch, loaded_producers,
                                                    None, AppendOrigin.REPLICATION)
            if maybe_completed_txn is not None:
                completed_txns.append(maybe_completed_txn)
    for append_info in loaded_producers.values():
        producer_state_manager.update(append_info)
    for completed_txn in completed_txns:
        producer_state_manager.complete_txn(completed_txn)


def _update_producers(producer_state_manager: ProducerStateManager, batch: RecordBatch,
                      producers: dict[int, ProducerAppendInfo], first_offset_metadata: LogOffsetMetadata | None,
                      origin: AppendOrigin) -> CompletedTxn | None:
    producer_id = batch.producer_id()
    append_info = producers.get(producer_id)
    if append_info is None:
        append_info = producers[producer_id] = producer_state_manager.prepare_update(producer_id, origin)
    completed_txn = append_info.append(batch, first_offset_metadata)
    # a marker completes the transaction and a data batch gives it a first offset: the guard is done with
    if batch.is_transactional():
        producer_state_manager.clear_verification_state_entry(producer_id)
    return completed_txn


def maybe_create_leader_epoch_cache(dir: str | os.PathLike[str], topic_partition: TopicPartition,
                                    log_dir_failure_channel: LogDirFailureChannel | None,
                                    record_version: RecordVersion, log_prefix: str,
                                    current_cache: LeaderEpochFileCache | None,
                                    scheduler: Scheduler) -> LeaderEpochFileCache | None:
    """A leader epoch cache for record version 2 and up (from the current cache's entries, else from the
    checkpoint); below v2 the checkpoint is deleted and there is none."""
    leader_epoch_file = LeaderEpochCheckpointFile.new_file(Path(dir))

    if record_version.precedes(RecordVersion.V2):
        if leader_epoch_file.exists():
            _companion_logger.warning("%sDeleting non-empty leader epoch cache due to incompatible "
                                      "message format %s", log_prefix, record_version)
        leader_epoch_file.unlink(missing_ok=True)
        return None
    checkpoint_file = LeaderEpochCheckpointFile(leader_epoch_file, log_dir_failure_channel)
    if current_cache is not None:
        return current_cache.with_checkpoint(checkpoint_file)
    return LeaderEpochFileCache(topic_partition, checkpoint_file, scheduler)


def replace_segments(existing_segments: LogSegments, new_segments: list[LogSegment],
                     old_segments: list[LogSegment], dir: Path, topic_partition: TopicPartition,
                     config: LogConfig, scheduler: Scheduler, log_dir_failure_channel: LogDirFailureChannel,
                     log_prefix: str, is_recovered_swap_file: bool = False) -> Iterable[LogSegment]:
    """The companion's replaceSegments: LocalLog's, for the cleaner and the loader."""
    return local_log.replace_segments(existing_segments, new_segments, old_segments, dir, topic_partition, config,
                                      scheduler, log_dir_failure_channel, log_prefix, is_recovered_swap_file)


def delete_segment_files(segments_to_delete: Iterable[LogSegment], async_delete: bool, dir: Path,
                         topic_partition: TopicPartition, config: LogConfig, scheduler: Scheduler,
                         log_dir_failure_channel: LogDirFailureChannel, log_prefix: str) -> None:
    local_log.delete_segment_files(segments_to_delete, async_delete, dir, topic_partition, config, scheduler,
                                   log_dir_failure_channel, log_prefix)


def rebuild_producer_state(producer_state_manager: ProducerStateManager, segments: LogSegments,
                           log_start_offset: int, last_offset: int, record_version: RecordVersion, time: Time,
                           reload_from_clean_shutdown: bool, log_prefix: str) -> None:
    """Rebuild producer state up to last_offset from the latest snapshot and the segments after it. Also run by
    recovery, so it changes no log state."""
    logger = _companion_logger
    if segments.non_empty():
        last_segment = segments.last_segment()
        assert last_segment is not None
        last_segment_base_offset = last_segment.base_offset()
        lower = segments.lower_segment(last_segment_base_offset)
        next_latest_segment_base_offset = lower.base_offset() if lower is not None else None
        offsets_to_snapshot = [next_latest_segment_base_offset, last_segment_base_offset, last_offset]
    else:
        offsets_to_snapshot = [last_offset]
    logger.info("%sLoading producer state till offset %s with message format version %s", log_prefix,
                last_offset, record_version.value)

    # An upgraded broker finds no snapshots: on an old message format, or (new format) after a clean shutdown,
    # there is no producer state to scan for, so empty snapshots are written (at the start of the last two
    # segments and at the last offset) and the next load starts from them. Otherwise a missing snapshot means
    # rebuilding from the first segment.
    if record_version.value < MAGIC_VALUE_V2 or (
            producer_state_manager.latest_snapshot_offset() is None and reload_from_clean_shutdown):
        for offset in offsets_to_snapshot:
            if offset is not None:
                producer_state_manager.update_map_end_offset(offset)
                producer_state_manager.take_snapshot()
    else:
        logger.info("%sReloading from producer snapshot and rebuilding producer state from offset %s",
                    log_prefix, last_offset)
        is_empty_before_truncation = producer_state_manager.is_empty() and \
            producer_state_manager.map_end_offset() >= last_offset
        producer_state_load_start = time.milliseconds()
        producer_state_manager.truncate_and_reload(log_start_offset, last_offset, time.milliseconds())
        segment_recovery_start = time.milliseconds()

        # Scan only when the last snapshot is below the last offset (first start) and there were producers
        # before truncating (truncation cannot create any): logs without idempotent or transactional data
        # skip the scan.
        if last_offset > producer_state_manager.map_end_offset() and not is_empty_before_truncation:
            segment_of_last_offset = segments.floor_segment(last_offset)

            for segment in segments.values(producer_state_manager.map_end_offset(), last_offset):
                start_offset = max(segment.base_offset(), producer_state_manager.map_end_offset(),
                                   log_start_offset)
                producer_state_manager.update_map_end_offset(start_offset)

                if segment.base_offset() in offsets_to_snapshot:
                    producer_state_manager.take_snapshot()

                if segment_of_last_offset is not None and segment_of_last_offset is segment:
                    position = segment.translate_offset(last_offset)
                    max_position = position.position if position is not None else segment.size()
                else:
                    max_position = segment.size()

                fetch_data_info = segment.read(start_offset, INT_MAX, max_position)
                if fetch_data_info is not None:
                    _load_producers_from_records(producer_state_manager, fetch_data_info.records)
        producer_state_manager.update_map_end_offset(last_offset)
        producer_state_manager.take_snapshot()
        logger.info("%sProducer state recovery took %sms for snapshot load and %sms for segment recovery from "
                    "offset %s", log_prefix, segment_recovery_start - producer_state_load_start,
                    time.milliseconds() - segment_recovery_start, last_offset)


def split_overflowed_segment(segment: LogSegment, existing_segments: LogSegments, dir: Path,
                             topic_partition: TopicPartition, config: LogConfig, scheduler: Scheduler,
                             log_dir_failure_channel: LogDirFailureChannel, log_prefix: str) -> Any:
    """A SplitSegmentResult (LocalLog's split)."""
    return local_log.split_overflowed_segment(segment, existing_segments, dir, topic_partition, config, scheduler,
                                              log_dir_failure_channel, log_prefix)


def delete_producer_snapshots(segments: Iterable[LogSegment], producer_state_manager: ProducerStateManager,
                              async_delete: bool, scheduler: Scheduler, config: LogConfig,
                              log_dir_failure_channel: LogDirFailureChannel, parent_dir: str,
                              topic_partition: TopicPartition) -> None:
    """The companion's deleteProducerSnapshots: mark the segments' snapshots for deletion (now or after
    file.delete.delay.ms)."""
    snapshots_to_delete = []
    for segment in segments:
        snapshot = producer_state_manager.remove_and_mark_snapshot_for_deletion(segment.base_offset())
        if snapshot is not None:
            snapshots_to_delete.append(snapshot)

    def delete_producer_snapshots() -> None:
        def delete_all() -> None:
            for snapshot in snapshots_to_delete:
                snapshot.delete_if_exists()

        local_log.maybe_handle_io_exception(
            log_dir_failure_channel, parent_dir,
            lambda: f"Error while deleting producer state snapshots for {topic_partition} in dir {parent_dir}",
            delete_all)

    if async_delete:
        scheduler.schedule_once("delete-producer-snapshot", delete_producer_snapshots, config.file_delete_delay_ms)
    else:
        delete_producer_snapshots()


def create_new_cleaned_segment(dir: Path, log_config: LogConfig, base_offset: int) -> LogSegment:
    return local_log.create_new_cleaned_segment(dir, log_config, base_offset)


def new_validator_metrics_recorder(all_topics_stats: Any) -> LogValidator.MetricsRecorder:
    return _ValidatorMetricsRecorder(all_topics_stats)


def local_retention_ms(config: LogConfig, remote_log_enabled_and_remote_copy_enabled: bool) -> int:
    return config.local_retention_ms() if remote_log_enabled_and_remote_copy_enabled else config.retention_ms


def local_retention_size(config: LogConfig, remote_log_enabled_and_remote_copy_enabled: bool) -> int:
    return config.local_retention_bytes() if remote_log_enabled_and_remote_copy_enabled \
        else config.retention_size


class _ValidatorMetricsRecorder:
    """newValidatorMetricsRecorder: marks BrokerTopicStats' all-topics meters (metrics are not ported: with no
    stats object there is nothing to mark)."""

    def __init__(self, all_topics_stats: Any) -> None:
        self._stats = all_topics_stats

    def _mark(self, meter: str) -> None:
        if self._stats is not None:
            getattr(self._stats, meter).mark()

    def record_invalid_magic(self) -> None:
        self._mark("invalid_magic_number_records_per_sec")

    def record_invalid_offset(self) -> None:
        self._mark("invalid_offset_or_sequence_records_per_sec")

    def record_invalid_sequence(self) -> None:
        self._mark("invalid_offset_or_sequence_records_per_sec")

    def record_invalid_checksums(self) -> None:
        self._mark("invalid_message_crc_records_per_sec")

    def record_no_key_compacted_topic(self) -> None:
        self._mark("no_key_compacted_topic_records_per_sec")


def _flush_file_if_exists(path: Path) -> None:
    """Utils.flushFileIfExists: fsync a file; one already gone is fine."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LogMetricNames:
    NUM_LOG_SEGMENTS = "NumLogSegments"
    LOG_START_OFFSET = "LogStartOffset"
    LOG_END_OFFSET = "LogEndOffset"
    SIZE = "Size"

    @staticmethod
    def all_metric_names() -> list[str]:
        return [LogMetricNames.NUM_LOG_SEGMENTS, LogMetricNames.LOG_START_OFFSET, LogMetricNames.LOG_END_OFFSET,
                LogMetricNames.SIZE]


class RetentionMsBreach(SegmentDeletionReason):
    def __init__(self, log: UnifiedLog, remote_log_enabled_and_remote_copy_enabled: bool) -> None:
        self.log = log
        self.remote_log_enabled_and_remote_copy_enabled = remote_log_enabled_and_remote_copy_enabled

    def log_reason(self, to_delete: list[LogSegment]) -> None:
        retention_ms = local_retention_ms(self.log.config(), self.remote_log_enabled_and_remote_copy_enabled)
        local = "local " if self.remote_log_enabled_and_remote_copy_enabled else ""
        for segment in to_delete:
            if segment.largest_record_timestamp() is not None:
                self.log._logger.info("Deleting segment %s due to %slog retention time %sms breach based on the "
                                      "largest record timestamp in the segment", segment, local, retention_ms)
            else:
                self.log._logger.info("Deleting segment %s due to %slog retention time %sms breach based on the "
                                      "last modified time of the segment", segment, local, retention_ms)


class RetentionSizeBreach(SegmentDeletionReason):
    def __init__(self, log: UnifiedLog, remote_log_enabled_and_remote_copy_enabled: bool) -> None:
        self.log = log
        self.remote_log_enabled_and_remote_copy_enabled = remote_log_enabled_and_remote_copy_enabled

    def log_reason(self, to_delete: list[LogSegment]) -> None:
        size = self.log.size()
        for segment in to_delete:
            size -= segment.size()
            if self.remote_log_enabled_and_remote_copy_enabled:
                self.log._logger.info("Deleting segment %s due to local log retention size %s breach. Local log size "
                                      "after deletion will be %s.", segment,
                                      local_retention_size(self.log.config(), True), size)
            else:
                self.log._logger.info("Deleting segment %s due to log retention size %s breach. Log size after "
                                      "deletion will be %s.", segment, self.log.config().retention_size, size)


class StartOffsetBreach(SegmentDeletionReason):
    def __init__(self, log: UnifiedLog, remote_log_enabled: bool) -> None:
        self.log = log
        self.remote_log_enabled = remote_log_enabled

    def log_reason(self, to_delete: list[LogSegment]) -> None:
        segments = ",".join(str(s) for s in to_delete)
        if self.remote_log_enabled:
            self.log._logger.info("Deleting segments due to local log start offset %s breach: %s",
                                  self.log.local_log_start_offset(), segments)
        else:
            self.log._logger.info("Deleting segments due to log start offset %s breach: %s",
                                  self.log.log_start_offset, segments)
