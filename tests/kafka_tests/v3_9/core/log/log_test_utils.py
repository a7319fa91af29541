"""Port of core/src/test/scala/unit/kafka/log/LogTestUtils.scala (Kafka 3.9): helpers the log tests share."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.log import unified_log
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.server_common.server.config.server_log_configs import LOG_INITIAL_TASK_DELAY_MS_DEFAULT
from kafka_edu.v3_9.server_common.server.util.scheduler import Scheduler
from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_offsets_listener import LogOffsetsListener
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import ProducerStateManager
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.transaction_log_configs import (
    PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT,
)
from tests.kafka_tests.v3_9.storage.storage.internals.log.log_test_utils import create_segment

__all__ = ["create_segment", "create_log_config", "raw_segment", "initialize_log_dir_with_overflowed_segment",
           "create_log", "has_offset_overflow", "first_overflow_segment", "keys_in_log", "recover_and_check",
           "append_end_txn_marker_as_leader", "read_log", "all_aborted_transactions",
           "delete_producer_snapshot_files", "list_producer_snapshot_offsets", "assert_leader_epoch_cache_empty",
           "append_non_transactional_as_leader", "append_transactional_as_leader", "append_idempotent_as_leader",
           "singleton_records", "create_log_manager"]

INT_MAX = 2**31 - 1


def create_log_config(segment_ms: int | None = None, segment_bytes: int | None = None,
                      retention_ms: int | None = None, local_retention_ms: int | None = None,
                      retention_bytes: int | None = None, local_retention_bytes: int | None = None,
                      segment_jitter_ms: int | None = None, cleanup_policy: str | None = None,
                      max_message_bytes: int | None = None, index_interval_bytes: int | None = None,
                      segment_index_bytes: int | None = None, file_delete_delay_ms: int | None = None,
                      remote_log_storage_enable: bool | None = None, remote_log_copy_disable: bool | None = None,
                      remote_log_delete_on_disable: bool | None = None) -> LogConfig:
    """LogTestUtils.createLogConfig: an argument left out takes LogConfig's default, as Kafka's defaults are."""
    props: dict[str, Any] = {}
    for key, value in (("segment.ms", segment_ms), ("segment.bytes", segment_bytes),
                       ("retention.ms", retention_ms), ("local.retention.ms", local_retention_ms),
                       ("retention.bytes", retention_bytes), ("local.retention.bytes", local_retention_bytes),
                       ("segment.jitter.ms", segment_jitter_ms), ("cleanup.policy", cleanup_policy),
                       ("max.message.bytes", max_message_bytes), ("index.interval.bytes", index_interval_bytes),
                       ("segment.index.bytes", segment_index_bytes), ("file.delete.delay.ms", file_delete_delay_ms),
                       ("remote.storage.enable", remote_log_storage_enable),
                       ("remote.log.copy.disable", remote_log_copy_disable),
                       ("remote.log.delete.on.disable", remote_log_delete_on_disable)):
        if value is not None:
            props[key] = value
    return LogConfig(props)


def raw_segment(log_dir: Path, base_offset: int) -> FileRecords:
    return FileRecords.open(log_file_utils.log_file(log_dir, base_offset))


def initialize_log_dir_with_overflowed_segment(log_dir: Path) -> None:
    """Three segments on disk, the second holding offsets that overflow a relative offset."""
    def write_sample_batches(base_offset: int, segment: FileRecords) -> int:
        def record(offset: int) -> SimpleRecord:
            data = str(offset).encode()
            return SimpleRecord(key=data, value=data)

        # Kafka's withRecords(offset, compression, partitionLeaderEpoch = 0, records...)
        segment.append(MemoryRecords.with_records(Compression.NONE, record(base_offset), initial_offset=base_offset,
                                                  partition_leader_epoch=0))
        segment.append(MemoryRecords.with_records(Compression.NONE, record(base_offset + 1), record(base_offset + 2),
                                                  initial_offset=base_offset + 1, partition_leader_epoch=0))
        segment.append(MemoryRecords.with_records(Compression.NONE, record(base_offset + INT_MAX - 1),
                                                  initial_offset=base_offset + INT_MAX - 1, partition_leader_epoch=0))
        # with index files present, loading does not recover (and so truncate) the segment
        log_file_utils.offset_index_file(log_dir, base_offset).touch(exist_ok=False)
        log_file_utils.time_index_file(log_dir, base_offset).touch(exist_ok=False)
        return base_offset + INT_MAX

    def write_normal_segment(base_offset: int) -> int:
        segment = raw_segment(log_dir, base_offset)
        try:
            return write_sample_batches(base_offset, segment)
        finally:
            segment.close()

    def write_overflow_segment(base_offset: int) -> int:
        segment = raw_segment(log_dir, base_offset)
        try:
            next_offset = write_sample_batches(base_offset, segment)
            return write_sample_batches(next_offset, segment)
        finally:
            segment.close()

    next_offset = 0
    next_offset = write_normal_segment(next_offset)
    next_offset = write_overflow_segment(next_offset)
    write_normal_segment(next_offset)


# ---- the UnifiedLog helpers (added with the UnifiedLog port) ----

PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000  # TransactionLogConfigs.PRODUCER_ID_EXPIRATION_MS_DEFAULT


def create_log(dir: Path, config: LogConfig, broker_topic_stats: Any, scheduler: Scheduler, time: Time,
               log_start_offset: int = 0, recovery_point: int = 0, max_transaction_timeout_ms: int = 5 * 60 * 1000,
               producer_state_manager_config: ProducerStateManagerConfig | None = None,
               producer_id_expiration_check_interval_ms: int = PRODUCER_ID_EXPIRATION_MS_DEFAULT,
               last_shutdown_clean: bool = True, topic_id: Uuid | None = None,
               keep_partition_metadata_file: bool = True, num_remaining_segments: dict[str, int] | None = None,
               remote_storage_system_enable: bool = False, remote_log_manager: Any = None,
               log_offsets_listener: LogOffsetsListener = LogOffsetsListener.NO_OP_OFFSETS_LISTENER) -> UnifiedLog:
    """LogTestUtils.createLog: UnifiedLog.apply with a fresh LogDirFailureChannel (remote_log_manager unused: tiered
    storage is not ported)."""
    if producer_state_manager_config is None:
        producer_state_manager_config = ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False)
    return unified_log.apply(dir, config, log_start_offset, recovery_point, scheduler, broker_topic_stats, time,
                             max_transaction_timeout_ms, producer_state_manager_config,
                             producer_id_expiration_check_interval_ms, LogDirFailureChannel(10),
                             last_shutdown_clean=last_shutdown_clean, topic_id=topic_id,
                             keep_partition_metadata_file=keep_partition_metadata_file,
                             num_remaining_segments=num_remaining_segments if num_remaining_segments is not None
                             else {}, remote_storage_system_enable=remote_storage_system_enable,
                             log_offsets_listener=log_offsets_listener)


def has_offset_overflow(log: UnifiedLog) -> bool:
    return first_overflow_segment(log) is not None


def first_overflow_segment(log: UnifiedLog) -> LogSegment | None:
    def has_overflow(base_offset: int, batch: Any) -> bool:
        return batch.last_offset() > base_offset + INT_MAX or batch.base_offset() < base_offset

    for segment in log.log_segments():
        if any(has_overflow(segment.base_offset(), batch) for batch in segment.log().batches()):
            return segment
    return None


def keys_in_log(log: UnifiedLog) -> list[int]:
    """The keys of every record with a key and a value, as longs."""
    return [int(bytes(record.key()).decode())
            for segment in log.log_segments()
            for batch in segment.log().batches() if not batch.is_control_batch()
            for record in batch if record.has_value() and record.has_key()]


def recover_and_check(log_dir: Path, config: LogConfig, expected_keys: Iterable[int], broker_topic_stats: Any,
                      time: Any, scheduler: Scheduler) -> UnifiedLog:
    """Recover the log (unclean shutdown): no temporary files left, the keys expected, no offset overflow."""
    recovered_log = create_log(log_dir, config, broker_topic_stats, scheduler, time, last_shutdown_clean=False)
    time.sleep(config.file_delete_delay_ms + 1)
    for file in log_dir.iterdir():
        assert not file.name.endswith(log_file_utils.DELETED_FILE_SUFFIX), "Unexpected .deleted file after recovery"
        assert not file.name.endswith(unified_log.CLEANED_FILE_SUFFIX), "Unexpected .cleaned file after recovery"
        assert not file.name.endswith(unified_log.SWAP_FILE_SUFFIX), "Unexpected .swap file after recovery"
    assert list(expected_keys) == keys_in_log(recovered_log)
    assert not has_offset_overflow(recovered_log)
    return recovered_log


def append_end_txn_marker_as_leader(log: UnifiedLog, producer_id: int, producer_epoch: int,
                                    control_type: ControlRecordType, timestamp: int, coordinator_epoch: int = 0,
                                    leader_epoch: int = 0) -> LogAppendInfo:
    records = _end_txn_records(control_type, producer_id, producer_epoch, coordinator_epoch=coordinator_epoch,
                               timestamp=timestamp)
    return log.append_as_leader(records, origin=AppendOrigin.COORDINATOR, leader_epoch=leader_epoch)


def _end_txn_records(control_record_type: ControlRecordType, producer_id: int, epoch: int, offset: int = 0,
                     coordinator_epoch: int = 0, partition_leader_epoch: int = 0,
                     timestamp: int = 0) -> MemoryRecords:
    marker = EndTransactionMarker(control_record_type, coordinator_epoch)
    return MemoryRecords.with_end_transaction_marker(producer_id, epoch, marker, initial_offset=offset,
                                                     timestamp=timestamp,
                                                     partition_leader_epoch=partition_leader_epoch)


def read_log(log: UnifiedLog, start_offset: int, max_length: int, isolation: FetchIsolation = FetchIsolation.LOG_END,
             min_one_message: bool = True) -> FetchDataInfo:
    return log.read(start_offset, max_length, isolation, min_one_message)


def all_aborted_transactions(log: UnifiedLog) -> list[AbortedTxn]:
    return [txn for segment in log.log_segments() for txn in segment.txn_index().all_aborted_txns()]


def delete_producer_snapshot_files(log_dir: Path) -> None:
    for f in log_dir.iterdir():
        if f.is_file() and f.name.endswith(log_file_utils.PRODUCER_SNAPSHOT_FILE_SUFFIX):
            f.unlink()


def list_producer_snapshot_offsets(log_dir: Path) -> list[int]:
    return sorted(s.offset for s in ProducerStateManager.list_snapshot_files(log_dir))


def assert_leader_epoch_cache_empty(log: UnifiedLog) -> None:
    assert log.leader_epoch_cache is None
    assert log.latest_epoch() is None
    assert not LeaderEpochCheckpointFile.new_file(log.dir()).exists()


def append_non_transactional_as_leader(log: UnifiedLog, num_records: int) -> None:
    simple_records = [SimpleRecord(str(seq).encode()) for seq in range(num_records)]
    records = MemoryRecords.with_records(Compression.NONE, *simple_records)
    log.append_as_leader(records, leader_epoch=0)


def append_transactional_as_leader(log: UnifiedLog, producer_id: int, producer_epoch: int,
                                   time: Time) -> Callable[[int], None]:
    return append_idempotent_as_leader(log, producer_id, producer_epoch, time, is_transactional=True)


def append_idempotent_as_leader(log: UnifiedLog, producer_id: int, producer_epoch: int, time: Time,
                                is_transactional: bool = False) -> Callable[[int], None]:
    """A function appending the next n records of the producer (sequence numbers continue from call to call)."""
    sequence = 0

    def append(num_records: int) -> None:
        nonlocal sequence
        simple_records = [SimpleRecord(str(seq).encode(), timestamp=time.milliseconds())
                          for seq in range(sequence, sequence + num_records)]
        if is_transactional:
            records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch,
                                                               sequence, *simple_records)
        else:
            records = MemoryRecords.with_idempotent_records(Compression.NONE, producer_id, producer_epoch,
                                                            sequence, *simple_records)
        log.append_as_leader(records, leader_epoch=0)
        sequence += num_records

    return append


# ---- TestUtils helpers for the 3.9 log (added with the LogManager port) ----

def singleton_records(value: bytes | None, key: bytes | None = None, timestamp: int = -1) -> MemoryRecords:
    """TestUtils.singletonRecords(value, key, codec = NONE, timestamp = NO_TIMESTAMP), with 3.9's records."""
    return MemoryRecords.with_records(Compression.NONE, SimpleRecord.of(timestamp, key, value))


def create_log_manager(log_dirs: Iterable[Path] = (), default_config: LogConfig | None = None,
                       config_repository: Any = None, cleaner_config: Any = None, time: Any = None,
                       inter_broker_protocol_version: Any = None, recovery_threads_per_data_dir: int = 4,
                       transaction_verification_enabled: bool = False, remote_storage_system_enable: bool = False,
                       initial_task_delay_ms: int = LOG_INITIAL_TASK_DELAY_MS_DEFAULT) -> Any:
    """TestUtils.createLogManager (3.9): the manager runs its tasks on the MockTime's scheduler."""
    from kafka_edu.v3_9.core.log.log_manager import LogManager
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
    from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
    from kafka_edu.v3_9.storage.storage.internals.log.cleaner_config import CleanerConfig
    from tests.kafka_tests.v3_9.core.server.metadata.mock_config_repository import MockConfigRepository

    log_dirs = [Path(d).absolute() for d in log_dirs]
    time = MockTime() if time is None else time
    return LogManager(
        log_dirs=log_dirs, initial_offline_dirs=[],
        config_repository=MockConfigRepository() if config_repository is None else config_repository,
        initial_default_config=LogConfig({}) if default_config is None else default_config,
        cleaner_config=CleanerConfig(False) if cleaner_config is None else cleaner_config,
        recovery_threads_per_data_dir=recovery_threads_per_data_dir, flush_check_ms=1000,
        flush_recovery_offset_checkpoint_ms=10000, flush_start_offset_checkpoint_ms=10000, retention_check_ms=1000,
        max_transaction_timeout_ms=5 * 60 * 1000,
        producer_state_manager_config=ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT,
                                                                 transaction_verification_enabled),
        producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT,
        scheduler=time.scheduler, time=time, broker_topic_stats=None,
        log_dir_failure_channel=LogDirFailureChannel(len(log_dirs)), keep_partition_metadata_file=True,
        inter_broker_protocol_version=(MetadataVersion.latest_testing() if inter_broker_protocol_version is None
                                       else inter_broker_protocol_version),
        remote_storage_system_enable=remote_storage_system_enable, initial_task_delay_ms=initial_task_delay_ms)

