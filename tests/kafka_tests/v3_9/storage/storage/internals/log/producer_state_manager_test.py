"""Port of storage/src/test/java/org/apache/kafka/storage/internals/log/ProducerStateManagerTest.java (Kafka 3.9).

The fields of Kafka's test class (a temp log dir, a manager over it, its config and MockTime) are the `ctx` fixture;
Kafka's private helpers are module functions taking it. Optional/OptionalLong are `X | None`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    InvalidProducerEpochException,
    InvalidTxnStateException,
    OutOfOrderSequenceException,
    TransactionCoordinatorFencedException,
)
from kafka_edu.v3_9.clients.common.internals.topic import GROUP_METADATA_TOPIC_NAME
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.record_batch import NO_SEQUENCE, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.batch_metadata import BatchMetadata
from kafka_edu.v3_9.storage.storage.internals.log.completed_txn import CompletedTxn
from kafka_edu.v3_9.storage.storage.internals.log.log_file_utils import (
    DELETED_FILE_SUFFIX,
    offset_from_file,
    producer_snapshot_file,
)
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.producer_append_info import ProducerAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_entry import ProducerStateEntry
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import (
    LATE_TRANSACTION_BUFFER_MS,
    ProducerStateManager,
)
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.storage.storage.internals.log.txn_metadata import TxnMetadata
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from kafka_edu.v3_9.storage.storage.internals.log.verification_state_entry import VerificationStateEntry
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "storage/src/test/java/org/apache/kafka/storage/internals/log/ProducerStateManagerTest.java",
    cases=[
        "testBasicIdMapping",
        "testAppendTxnMarkerWithNoProducerState",
        "testProducerSequenceWrapAround",
        "testProducerSequenceWithWrapAroundBatchRecord",
        "testProducerSequenceInvalidWrapAround",
        "testNoValidationOnFirstEntryWhenLoadingLog",
        "testControlRecordBumpsProducerEpoch",
        "testTxnFirstOffsetMetadataCached",
        "testHasLateTransaction",
        "testHasLateTransactionInitializedAfterReload",
        "testHasLateTransactionUpdatedAfterPartialTruncation",
        "testHasLateTransactionUpdatedAfterFullTruncation",
        "testPrepareUpdateDoesNotMutate",
        "updateProducerTransactionState",
        "testOutOfSequenceAfterControlRecordEpochBump",
        "testNonTransactionalAppendWithOngoingTransaction",
        "testTruncateAndReloadRemovesOutOfRangeSnapshots",
        "testTakeSnapshot",
        "testFetchSnapshotEmptySnapShot",
        "testRecoverFromSnapshotUnfinishedTransaction",
        "testRecoverFromSnapshotFinishedTransaction",
        "testRecoverFromSnapshotEmptyTransaction",
        "testProducerStateAfterFencingAbortMarker",
        "testRemoveExpiredPidsOnReload",
        "testAcceptAppendWithoutProducerStateOnReplica",
        "testAcceptAppendWithSequenceGapsOnReplica",
        "testDeleteSnapshotsBefore",
        "testTruncateFullyAndStartAt",
        "testReloadSnapshots",
        "testFirstUnstableOffsetAfterTruncation",
        "testLoadFromSnapshotRetainsNonExpiredProducers",
        "testSkipSnapshotIfOffsetUnchanged",
        "testPidExpirationTimeout",
        "testFirstUnstableOffset",
        "testProducersWithOngoingTransactionsDontExpire",
        "testSequenceNotValidatedForGroupMetadataTopic",
        "testOldEpochForControlRecord",
        "testCoordinatorFencing",
        "testCoordinatorFencedAfterReload",
        "testLoadFromEmptySnapshotFile",
        "testLoadFromTruncatedSnapshotFile",
        "testLoadFromCorruptSnapshotFile",
        "testAppendEmptyControlBatch",
        "testRemoveStraySnapshotsKeepCleanShutdownSnapshot",
        "testRemoveAllStraySnapshots",
        "testRemoveAndMarkSnapshotForDeletion",
        "testRemoveAndMarkSnapshotForDeletionAlreadyDeleted",
        "testEntryForVerification",
        "testSequenceAndEpochInVerificationEntry",
        "testThrowOutOfOrderSequenceWithVerificationSequenceCheck",
        "testVerificationStateEntryExpiration",
        "testLastStableOffsetCompletedTxn",
        "testSkipEmptyTransactions",
        "testReadWriteSnapshot",
    ],
)

# TransactionLogConfigs.PRODUCER_ID_EXPIRATION_MS_DEFAULT (one day)
PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000

PRODUCER_ID = 1
EPOCH = 0
DEFAULT_SEQUENCE = 0
MAX_TRANSACTION_TIMEOUT_MS = 5 * 60 * 1000
LATE_TRANSACTION_TIMEOUT_MS = MAX_TRANSACTION_TIMEOUT_MS + LATE_TRANSACTION_BUFFER_MS
INT_MAX = 2**31 - 1


@dataclass
class Ctx:
    log_dir: Path
    partition: TopicPartition
    producer_state_manager_config: ProducerStateManagerConfig
    time: MockTime
    state_manager: ProducerStateManager

    def new_manager(self, partition: TopicPartition | None = None) -> ProducerStateManager:
        return ProducerStateManager(partition or self.partition, self.log_dir, MAX_TRANSACTION_TIMEOUT_MS,
                                    self.producer_state_manager_config, self.time)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[Ctx]:
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    partition = TopicPartition("test", 0)
    config = ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, True)
    time = MockTime()
    yield Ctx(log_dir, partition, config, time,
              ProducerStateManager(partition, log_dir, MAX_TRANSACTION_TIMEOUT_MS, config, time))


# --- Kafka's private helpers ---

def append_entry(state_manager: ProducerStateManager, producer_id: int, producer_epoch: int, seq: int, offset: int,
                 milliseconds: int, append_origin: AppendOrigin, is_transactional: bool) -> None:
    producer_append_info = state_manager.prepare_update(producer_id, append_origin)
    producer_append_info.append_data_batch(producer_epoch, seq, seq, milliseconds, LogOffsetMetadata(offset), offset,
                                           is_transactional)
    state_manager.update(producer_append_info)
    state_manager.update_map_end_offset(offset + 1)


def append_client_entry(ctx: Ctx, state_manager: ProducerStateManager, producer_id: int, producer_epoch: int,
                        seq: int, offset: int, is_transactional: bool, milliseconds: int | None = None) -> None:
    append_entry(state_manager, producer_id, producer_epoch, seq, offset,
                 ctx.time.milliseconds() if milliseconds is None else milliseconds, AppendOrigin.CLIENT,
                 is_transactional)


def append_replication_entry(ctx: Ctx, state_manager: ProducerStateManager, producer_epoch: int, seq: int,
                             offset: int, milliseconds: int | None = None) -> None:
    append_entry(state_manager, 1, producer_epoch, seq, offset,
                 ctx.time.milliseconds() if milliseconds is None else milliseconds, AppendOrigin.REPLICATION, False)


def append_end_txn_marker(ctx: Ctx, state_manager: ProducerStateManager, producer_id: int, producer_epoch: int,
                          control_type: ControlRecordType, offset: int, coordinator_epoch: int = 0,
                          timestamp: int | None = None) -> None:
    producer_append_info = state_manager.prepare_update(producer_id, AppendOrigin.COORDINATOR)
    end_txn_marker = EndTransactionMarker(control_type, coordinator_epoch)
    completed_txn = producer_append_info.append_end_txn_marker(
        end_txn_marker, producer_epoch, offset, ctx.time.milliseconds() if timestamp is None else timestamp)
    state_manager.update(producer_append_info)
    if completed_txn is not None:
        state_manager.complete_txn(completed_txn)
    state_manager.update_map_end_offset(offset + 1)


def get_last_entry_or_else_thrown_by_producer_id(state_manager: ProducerStateManager,
                                                 producer_id: int) -> ProducerStateEntry:
    entry = state_manager.last_entry(producer_id)
    if entry is None:
        raise RuntimeError(f"This producerId:{producer_id} should have last entry")
    return entry


def verify_last_entry_with_txn_data(last_entry: ProducerStateEntry, expected_first_seq: int, expected_last_seq: int,
                                    expected_first_data_offset: int, expected_last_data_offset: int,
                                    expected_current_txn_first_offset: int | None,
                                    append_info: ProducerAppendInfo) -> None:
    assert last_entry.producer_epoch() == EPOCH
    assert last_entry.first_seq() == expected_first_seq
    assert last_entry.last_seq() == expected_last_seq
    assert last_entry.first_data_offset() == expected_first_data_offset
    assert last_entry.last_data_offset() == expected_last_data_offset
    assert last_entry.current_txn_first_offset() == expected_current_txn_first_offset
    assert_txn_metadata_list_equals([TxnMetadata(PRODUCER_ID, 16)], append_info.started_transactions())


def assert_txn_metadata_list_equals(expected: list[TxnMetadata], actual: list[TxnMetadata]) -> None:
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual, strict=True):
        assert_txn_metadata_equals(e, a)


def assert_txn_metadata_equals(expected: TxnMetadata, actual: TxnMetadata) -> None:
    assert expected.producer_id == actual.producer_id
    assert expected.first_offset == actual.first_offset
    assert expected.last_offset == actual.last_offset


def current_snapshot_offsets(ctx: Ctx) -> set[int]:
    return {offset_from_file(f) for f in ctx.log_dir.iterdir()}


def files_in(ctx: Ctx) -> list[Path]:
    return list(ctx.log_dir.iterdir())


def load_from_corrupt_snapshot(ctx: Ctx, corrupt: Callable[[int], None]) -> None:
    """testLoadFromCorruptSnapshot: `corrupt` gets a descriptor open for writing at position 0."""
    append_client_entry(ctx, ctx.state_manager, PRODUCER_ID, EPOCH, 0, 0, False)
    ctx.state_manager.take_snapshot()

    append_client_entry(ctx, ctx.state_manager, PRODUCER_ID, EPOCH, 1, 1, False)
    ctx.state_manager.take_snapshot()

    # damage the newest snapshot
    latest_snapshot_offset = ctx.state_manager.latest_snapshot_offset()
    assert latest_snapshot_offset is not None
    assert latest_snapshot_offset == 2
    snapshot_to_truncate = producer_snapshot_file(ctx.log_dir, latest_snapshot_offset)
    fd = os.open(snapshot_to_truncate, os.O_WRONLY)
    try:
        corrupt(fd)
    finally:
        os.close(fd)

    # the damaged snapshot is deleted and the state comes from the one before it
    reloaded_state_manager = ctx.new_manager()
    reloaded_state_manager.truncate_and_reload(0, 20, ctx.time.milliseconds())
    assert not snapshot_to_truncate.exists()

    loaded_producer_state = reloaded_state_manager.active_producers().get(PRODUCER_ID)
    assert loaded_producer_state is not None
    assert loaded_producer_state.last_data_offset() == 0


def append(ctx: Ctx, state_manager: ProducerStateManager, producer_id: int, offset: int, batch: object) -> None:
    append_info = state_manager.prepare_update(producer_id, AppendOrigin.CLIENT)
    append_info.append(batch, None)  # type: ignore[arg-type]
    state_manager.update(append_info)
    state_manager.update_map_end_offset(offset + 1)


def verify_entry(ctx: Ctx, original_entry_verification_guard: VerificationGuard, new_entry: VerificationStateEntry,
                 expected_sequence: int, expected_epoch: int) -> None:
    entry = ctx.state_manager.verification_state_entry(PRODUCER_ID)
    assert entry is not None
    assert entry.verification_guard() == original_entry_verification_guard
    assert new_entry.verification_guard() == entry.verification_guard()
    assert entry.lowest_sequence() == expected_sequence
    assert entry.epoch() == expected_epoch


def begin_transaction(ctx: Ctx, producer_id: int, start_offset: int, segment_base_offset: int) -> None:
    relative_offset = start_offset - segment_base_offset
    append_info = ProducerAppendInfo(ctx.partition, producer_id, ProducerStateEntry.empty(producer_id),
                                     AppendOrigin.CLIENT,
                                     ctx.state_manager.maybe_create_verification_state_entry(producer_id, 0, EPOCH))
    first_offset_metadata = LogOffsetMetadata(start_offset, segment_base_offset, 50 * relative_offset)
    append_info.append_data_batch(EPOCH, 0, 0, ctx.time.milliseconds(), first_offset_metadata, start_offset, True)
    ctx.state_manager.update(append_info)


def append_end_transaction(ctx: Ctx, record_type: ControlRecordType, offset: int,
                           append_info: ProducerAppendInfo) -> CompletedTxn | None:
    return append_info.append_end_txn_marker(EndTransactionMarker(record_type, 27), EPOCH, offset,
                                             ctx.time.milliseconds())


def append_data(ctx: Ctx, start_offset: int, end_offset: int, append_info: ProducerAppendInfo,
                seq: list[int]) -> None:
    """`seq` is Kafka's AtomicInteger: a one-element list."""
    count = end_offset - start_offset
    first = seq[0]
    seq[0] += count
    append_info.append_data_batch(EPOCH, first, seq[0], ctx.time.milliseconds(), LogOffsetMetadata(start_offset),
                                  end_offset, True)
    seq[0] += 1


def assert_entries(expected: dict[int, ProducerStateEntry], actual: list[ProducerStateEntry]) -> None:
    actual_entry_map = {p.producer_id(): p for p in actual}
    assert set(expected) == set(actual_entry_map)
    for producer_id, expected_entry in expected.items():
        assert_producer_state_entry(expected_entry, actual_entry_map[producer_id])


def assert_producer_state_entry(expected: ProducerStateEntry, actual: ProducerStateEntry) -> None:
    assert expected.producer_id() == actual.producer_id()
    assert expected.producer_epoch() == actual.producer_epoch()
    assert expected.coordinator_epoch() == actual.coordinator_epoch()
    assert expected.last_timestamp() == actual.last_timestamp()
    assert expected.current_txn_first_offset() == actual.current_txn_first_offset()
    assert list(expected.batch_metadata()) == list(actual.batch_metadata())


# --- the cases ---

def test_basic_id_mapping(ctx: Ctx) -> None:
    sm = ctx.state_manager
    # first entry for the producer
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False, milliseconds=0)
    # second entry
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 0, False, milliseconds=1)

    # a duplicate is caught elsewhere; appended, it is out of order
    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 0, False, milliseconds=1)
    # a gap in the sequence
    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 5, 0, False, milliseconds=2)

    # a new epoch
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH + 1, DEFAULT_SEQUENCE, 0, False, milliseconds=3)
    # the old epoch is fenced
    with pytest.raises(InvalidProducerEpochException):
        append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False, milliseconds=4)


def test_append_txn_marker_with_no_producer_state(ctx: Ctx) -> None:
    sm = ctx.state_manager
    producer_epoch = 2

    append_end_txn_marker(ctx, sm, PRODUCER_ID, producer_epoch, ControlRecordType.COMMIT, 27)
    first_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)

    assert first_entry.producer_epoch() == producer_epoch
    assert first_entry.producer_id() == PRODUCER_ID
    assert first_entry.last_seq() == NO_SEQUENCE

    # a marker alone still fences older epochs
    with pytest.raises(InvalidProducerEpochException):
        append_client_entry(ctx, sm, PRODUCER_ID, 0, DEFAULT_SEQUENCE, 0, False, milliseconds=4)
    # with only a marker left, a non-zero sequence is out of order, so the producer resets its sequence
    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, producer_epoch, 17, 0, False, milliseconds=4)

    # sequence 0 is accepted
    append_client_entry(ctx, sm, PRODUCER_ID, producer_epoch, DEFAULT_SEQUENCE, 39, False, milliseconds=4)

    second_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert second_entry.producer_epoch() == producer_epoch
    assert second_entry.producer_id() == PRODUCER_ID
    assert second_entry.last_seq() == 0


def test_producer_sequence_wrap_around(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 15
    sequence = INT_MAX
    offset = 735

    append_replication_entry(ctx, sm, epoch, sequence, offset)
    append_client_entry(ctx, sm, PRODUCER_ID, epoch, 0, offset + 500, False)

    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.producer_epoch() == epoch
    assert last_entry.first_seq() == sequence
    assert last_entry.last_seq() == 0


def test_producer_sequence_with_wrap_around_batch_record(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 15
    first_sequence = INT_MAX - 10
    last_sequence = 9
    first_offset = 2000
    last_offset = 2020

    append_info = sm.prepare_update(PRODUCER_ID, AppendOrigin.REPLICATION)
    # the sequence wraps inside the batch
    append_info.append_data_batch(epoch, first_sequence, last_sequence, ctx.time.milliseconds(),
                                  LogOffsetMetadata(first_offset), last_offset, False)
    assert sm.last_entry(PRODUCER_ID) is None
    sm.update(append_info)

    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.first_seq() == first_sequence
    assert last_entry.last_seq() == last_sequence
    assert last_entry.first_data_offset() == first_offset
    assert last_entry.last_data_offset() == last_offset


def test_producer_sequence_invalid_wrap_around(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 15
    sequence = INT_MAX
    offset = 735

    append_replication_entry(ctx, sm, epoch, sequence, offset)
    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, epoch, 1, offset + 500, False)


def test_no_validation_on_first_entry_when_loading_log(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 5
    sequence = 16
    offset = 735
    append_replication_entry(ctx, sm, epoch, sequence, offset)

    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.producer_epoch() == epoch
    assert last_entry.first_seq() == sequence
    assert last_entry.last_seq() == sequence
    assert last_entry.last_data_offset() == offset
    assert last_entry.first_data_offset() == offset


def test_control_record_bumps_producer_epoch(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False)

    bumped_producer_epoch = 1
    append_end_txn_marker(ctx, sm, PRODUCER_ID, bumped_producer_epoch, ControlRecordType.ABORT, 1)

    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.producer_epoch() == bumped_producer_epoch
    assert last_entry.current_txn_first_offset() is None
    assert last_entry.first_seq() == NO_SEQUENCE
    assert last_entry.last_seq() == NO_SEQUENCE

    # the new epoch starts again at sequence 0
    append_client_entry(ctx, sm, PRODUCER_ID, bumped_producer_epoch, 0, 2, False)
    assert get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID).first_seq() == DEFAULT_SEQUENCE


def test_txn_first_offset_metadata_cached(ctx: Ctx) -> None:
    sm = ctx.state_manager
    offset = 992342
    append_info = ProducerAppendInfo(ctx.partition, PRODUCER_ID, ProducerStateEntry.empty(PRODUCER_ID),
                                     AppendOrigin.CLIENT,
                                     sm.maybe_create_verification_state_entry(PRODUCER_ID, DEFAULT_SEQUENCE, EPOCH))

    first_offset_metadata = LogOffsetMetadata(offset, 990000, 234224)
    append_info.append_data_batch(EPOCH, DEFAULT_SEQUENCE, DEFAULT_SEQUENCE, ctx.time.milliseconds(),
                                  first_offset_metadata, offset, True)
    sm.update(append_info)

    assert sm.first_unstable_offset() == first_offset_metadata


def test_has_late_transaction(ctx: Ctx) -> None:
    sm = ctx.state_manager
    producer_id1, epoch1 = 39, 2
    producer_id2, epoch2 = 57, 9

    # two transactions, started 500 ms apart
    append_client_entry(ctx, sm, producer_id1, epoch1, DEFAULT_SEQUENCE, 100, True)
    assert not sm.has_late_transaction(ctx.time.milliseconds())

    ctx.time.sleep(500)
    append_client_entry(ctx, sm, producer_id2, epoch2, DEFAULT_SEQUENCE, 150, True)
    assert not sm.has_late_transaction(ctx.time.milliseconds())

    # only the first is late
    ctx.time.sleep(LATE_TRANSACTION_TIMEOUT_MS - 500 + 1)
    assert sm.has_late_transaction(ctx.time.milliseconds())

    # both are late
    ctx.time.sleep(500)
    assert sm.has_late_transaction(ctx.time.milliseconds())

    # the first completes
    append_end_txn_marker(ctx, sm, producer_id1, epoch1, ControlRecordType.COMMIT, 200)
    assert sm.has_late_transaction(ctx.time.milliseconds())

    # and the second
    append_end_txn_marker(ctx, sm, producer_id2, epoch2, ControlRecordType.COMMIT, 250)
    assert not sm.has_late_transaction(ctx.time.milliseconds())


def test_has_late_transaction_initialized_after_reload(ctx: Ctx) -> None:
    sm = ctx.state_manager
    producer_id1, epoch1 = 39, 2
    producer_id2, epoch2 = 57, 9

    append_client_entry(ctx, sm, producer_id1, epoch1, DEFAULT_SEQUENCE, 100, True)
    assert not sm.has_late_transaction(ctx.time.milliseconds())

    ctx.time.sleep(500)
    append_client_entry(ctx, sm, producer_id2, epoch2, DEFAULT_SEQUENCE, 150, True)
    assert not sm.has_late_transaction(ctx.time.milliseconds())

    # snapshot, then let the first transaction go late
    sm.take_snapshot()
    ctx.time.sleep(LATE_TRANSACTION_TIMEOUT_MS - 500 + 1)
    assert sm.has_late_transaction(ctx.time.milliseconds())

    # reloaded from the snapshot, it is still late
    reloaded_state_manager = ctx.new_manager()
    reloaded_state_manager.truncate_and_reload(0, sm.map_end_offset(), ctx.time.milliseconds())
    assert reloaded_state_manager.has_late_transaction(ctx.time.milliseconds())


def test_has_late_transaction_updated_after_partial_truncation(ctx: Ctx) -> None:
    sm = ctx.state_manager
    producer_id, epoch = 39, 2

    append_client_entry(ctx, sm, producer_id, epoch, DEFAULT_SEQUENCE, 100, True)
    assert not sm.has_late_transaction(ctx.time.milliseconds())
    ctx.time.sleep(LATE_TRANSACTION_TIMEOUT_MS + 1)
    assert sm.has_late_transaction(ctx.time.milliseconds())

    # truncated below its start, the transaction is gone
    sm.truncate_and_reload(0, 80, ctx.time.milliseconds())
    assert not sm.has_late_transaction(ctx.time.milliseconds())


def test_has_late_transaction_updated_after_full_truncation(ctx: Ctx) -> None:
    sm = ctx.state_manager
    producer_id, epoch = 39, 2

    append_client_entry(ctx, sm, producer_id, epoch, DEFAULT_SEQUENCE, 100, True)
    assert not sm.has_late_transaction(ctx.time.milliseconds())
    ctx.time.sleep(LATE_TRANSACTION_TIMEOUT_MS + 1)
    assert sm.has_late_transaction(ctx.time.milliseconds())

    sm.truncate_fully_and_start_at(150)
    assert not sm.has_late_transaction(ctx.time.milliseconds())


def test_prepare_update_does_not_mutate(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_info = sm.prepare_update(PRODUCER_ID, AppendOrigin.CLIENT)
    append_info.append_data_batch(EPOCH, 0, 5, ctx.time.milliseconds(), LogOffsetMetadata(15), 20, False)
    assert sm.last_entry(PRODUCER_ID) is None
    sm.update(append_info)

    get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)

    next_append_info = sm.prepare_update(PRODUCER_ID, AppendOrigin.CLIENT)
    next_append_info.append_data_batch(EPOCH, 6, 10, ctx.time.milliseconds(), LogOffsetMetadata(26), 30, False)

    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.first_seq() == 0
    assert last_entry.last_seq() == 5
    assert last_entry.last_data_offset() == 20

    sm.update(next_append_info)
    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.first_seq() == 0
    assert last_entry.last_seq() == 10
    assert last_entry.last_data_offset() == 30


def test_update_producer_transaction_state(ctx: Ctx) -> None:
    sm = ctx.state_manager
    coordinator_epoch = 15
    offset = 9
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, offset, False)

    append_info = sm.prepare_update(PRODUCER_ID, AppendOrigin.CLIENT)
    append_info.append_data_batch(EPOCH, 1, 5, ctx.time.milliseconds(), LogOffsetMetadata(16), 20, True)
    verify_last_entry_with_txn_data(append_info.to_entry(), 1, 5, 16, 20, 16, append_info)

    append_info.append_data_batch(EPOCH, 6, 10, ctx.time.milliseconds(), LogOffsetMetadata(26), 30, True)
    verify_last_entry_with_txn_data(append_info.to_entry(), 1, 10, 16, 30, 16, append_info)

    end_txn_marker = EndTransactionMarker(ControlRecordType.COMMIT, coordinator_epoch)
    completed_txn = append_info.append_end_txn_marker(end_txn_marker, EPOCH, 40, ctx.time.milliseconds())
    assert completed_txn is not None, "The transaction should be completed"

    assert completed_txn.producer_id == PRODUCER_ID
    assert completed_txn.first_offset == 16
    assert completed_txn.last_offset == 40
    assert not completed_txn.is_aborted

    last_entry = append_info.to_entry()
    # the marker leaves the cached batches as they were
    verify_last_entry_with_txn_data(last_entry, 1, 10, 16, 30, None, append_info)
    assert last_entry.current_txn_first_offset() is None


def test_out_of_sequence_after_control_record_epoch_bump(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, True)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, True)

    bumped_epoch = 1
    append_end_txn_marker(ctx, sm, PRODUCER_ID, bumped_epoch, ControlRecordType.ABORT, 1)

    # the sequence must restart
    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, bumped_epoch, 2, 2, True)

    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, bumped_epoch + 1, 2, 2, True)

    # from sequence 0 the bumped epoch is fine
    append_client_entry(ctx, sm, PRODUCER_ID, bumped_epoch, DEFAULT_SEQUENCE, 0, True)
    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.producer_epoch() == bumped_epoch
    assert last_entry.last_seq() == 0


def test_non_transactional_append_with_ongoing_transaction(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, True)
    with pytest.raises(InvalidTxnStateException):
        append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, False)


def test_truncate_and_reload_removes_out_of_range_snapshots(ctx: Ctx) -> None:
    sm = ctx.state_manager
    for seq in range(5):
        append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, seq, seq, False)
        sm.take_snapshot()

    sm.truncate_and_reload(1, 3, ctx.time.milliseconds())

    assert sm.oldest_snapshot_offset() == 2
    assert sm.latest_snapshot_offset() == 3


def test_take_snapshot(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False, milliseconds=0)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, False, milliseconds=1)

    sm.take_snapshot()

    # one file, not empty
    log_dirs = [f.name for f in files_in(ctx)]
    assert len(log_dirs) == 1, "Directory doesn't contain a single file as expected"
    assert log_dirs[0], "Snapshot file is empty"


def test_fetch_snapshot_empty_snap_shot(ctx: Ctx) -> None:
    offset = 1
    assert ctx.state_manager.fetch_snapshot(offset) is None


def test_recover_from_snapshot_unfinished_transaction(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 0, 0, True)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, True)

    sm.take_snapshot()
    recovered_mapping = ctx.new_manager()
    recovered_mapping.truncate_and_reload(0, 3, ctx.time.milliseconds())

    # a snapshot keeps only the last batch
    loaded_entry = get_last_entry_or_else_thrown_by_producer_id(recovered_mapping, PRODUCER_ID)
    assert loaded_entry.first_data_offset() == 1
    assert loaded_entry.first_seq() == 1
    assert loaded_entry.last_data_offset() == 1
    assert loaded_entry.last_seq() == 1
    assert loaded_entry.current_txn_first_offset() == 0

    # appends go on after recovery
    append_client_entry(ctx, recovered_mapping, PRODUCER_ID, EPOCH, 2, 2, True)


def test_recover_from_snapshot_finished_transaction(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 0, 0, True)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, True)
    append_end_txn_marker(ctx, sm, PRODUCER_ID, EPOCH, ControlRecordType.ABORT, 2)

    sm.take_snapshot()
    recovered_mapping = ctx.new_manager()
    recovered_mapping.truncate_and_reload(0, 3, ctx.time.milliseconds())

    loaded_entry = get_last_entry_or_else_thrown_by_producer_id(recovered_mapping, PRODUCER_ID)
    assert loaded_entry.first_data_offset() == 1
    assert loaded_entry.first_seq() == 1
    assert loaded_entry.last_data_offset() == 1
    assert loaded_entry.last_seq() == 1
    assert loaded_entry.current_txn_first_offset() is None


def test_recover_from_snapshot_empty_transaction(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_timestamp = ctx.time.milliseconds()
    append_end_txn_marker(ctx, sm, PRODUCER_ID, EPOCH, ControlRecordType.ABORT, 0, 0, append_timestamp)
    sm.take_snapshot()

    recovered_mapping = ctx.new_manager()
    recovered_mapping.truncate_and_reload(0, 1, ctx.time.milliseconds())

    last_entry = get_last_entry_or_else_thrown_by_producer_id(recovered_mapping, PRODUCER_ID)
    assert last_entry.last_timestamp() == append_timestamp
    assert last_entry.current_txn_first_offset() is None


def test_producer_state_after_fencing_abort_marker(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, True)
    append_end_txn_marker(ctx, sm, PRODUCER_ID, EPOCH + 1, ControlRecordType.ABORT, 1)

    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.current_txn_first_offset() is None
    assert last_entry.last_data_offset() == -1
    assert last_entry.first_data_offset() == -1

    # kept, to go on fencing the old epoch
    sm.remove_expired_producers(ctx.time.milliseconds())
    get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)


def test_remove_expired_pids_on_reload(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False, milliseconds=0)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, False, milliseconds=1)

    sm.take_snapshot()
    recovered_mapping = ctx.new_manager()
    recovered_mapping.truncate_and_reload(0, 1, 70000)

    # the producer is gone after recovery, so its next append is accepted and brings it back
    append_client_entry(ctx, recovered_mapping, PRODUCER_ID, EPOCH, 2, 2, False, milliseconds=70001)

    assert len(recovered_mapping.active_producers()) == 1
    assert next(iter(recovered_mapping.active_producers().values())).last_seq() == 2
    assert recovered_mapping.map_end_offset() == 3


def test_accept_append_without_producer_state_on_replica(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False, milliseconds=0)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, False, milliseconds=1)

    sm.take_snapshot()
    recovered_mapping = ctx.new_manager()
    recovered_mapping.truncate_and_reload(0, 1, 70000)

    sequence = 2
    # the producer is gone after recovery; a replica still takes its append and records its state
    assert PRODUCER_ID not in recovered_mapping.active_producers()
    append_replication_entry(ctx, recovered_mapping, EPOCH, sequence, 2, 70001)
    assert PRODUCER_ID in recovered_mapping.active_producers()
    producer_state_entry = recovered_mapping.active_producers()[PRODUCER_ID]
    assert producer_state_entry.producer_epoch() == EPOCH
    assert producer_state_entry.first_seq() == sequence
    assert producer_state_entry.last_seq() == sequence


def test_accept_append_with_sequence_gaps_on_replica(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False, milliseconds=0)
    out_of_order_sequence = 3

    # from a client the gap is refused
    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, out_of_order_sequence, 1, False, milliseconds=1)
    assert PRODUCER_ID in sm.active_producers()
    producer_state_entry = sm.active_producers().get(PRODUCER_ID)
    assert producer_state_entry is not None
    assert producer_state_entry.last_seq() == 0

    # from the leader it is taken
    append_replication_entry(ctx, sm, EPOCH, out_of_order_sequence, 1, 1)
    producer_state_entry_for_replication = sm.active_producers().get(PRODUCER_ID)
    assert producer_state_entry_for_replication is not None
    assert producer_state_entry_for_replication.last_seq() == out_of_order_sequence


def test_delete_snapshots_before(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, False)
    sm.take_snapshot()
    assert len(files_in(ctx)) == 1
    assert current_snapshot_offsets(ctx) == {2}

    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 2, 2, False)
    sm.take_snapshot()
    assert len(files_in(ctx)) == 2
    assert current_snapshot_offsets(ctx) == {2, 3}

    sm.delete_snapshots_before(3)
    assert len(files_in(ctx)) == 1
    assert current_snapshot_offsets(ctx) == {3}

    sm.delete_snapshots_before(4)
    assert len(files_in(ctx)) == 0
    assert current_snapshot_offsets(ctx) == set()


def test_truncate_fully_and_start_at(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, False)
    sm.take_snapshot()
    assert len(files_in(ctx)) == 1
    assert current_snapshot_offsets(ctx) == {2}

    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 2, 2, False)
    sm.take_snapshot()
    assert len(files_in(ctx)) == 2
    assert current_snapshot_offsets(ctx) == {2, 3}

    sm.truncate_fully_and_start_at(0)

    assert len(files_in(ctx)) == 0
    assert current_snapshot_offsets(ctx) == set()

    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 0, 0, False)
    sm.take_snapshot()
    assert len(files_in(ctx)) == 1
    assert current_snapshot_offsets(ctx) == {1}


def test_reload_snapshots(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 1, 1, False)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 2, 2, False)
    sm.take_snapshot()
    path_and_data_list = {path: path.read_bytes() for path in files_in(ctx)}

    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 3, 3, False)
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 4, 4, False)
    sm.take_snapshot()
    assert len(files_in(ctx)) == 2
    assert current_snapshot_offsets(ctx) == {3, 5}

    # truncating to (3, 5] deletes the snapshot at 3
    sm.truncate_and_reload(3, 5, ctx.time.milliseconds())
    assert len(files_in(ctx)) == 1
    assert current_snapshot_offsets(ctx) == {5}

    # put the snapshot at 3 back, then reload: the manager finds it again
    for path, data in path_and_data_list.items():
        path.write_bytes(data)
    sm.truncate_fully_and_reload_snapshots()

    assert sm.latest_snapshot_offset() == 3
    assert current_snapshot_offsets(ctx) == {3}


def test_first_unstable_offset_after_truncation(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 99, True)
    first_unstable = sm.first_unstable_offset()
    assert first_unstable is not None, "First unstable offset should be present"
    assert first_unstable.message_offset == 99
    sm.take_snapshot()

    append_end_txn_marker(ctx, sm, PRODUCER_ID, EPOCH, ControlRecordType.COMMIT, 105)
    sm.on_high_watermark_updated(106)
    assert sm.first_unstable_offset() is None
    sm.take_snapshot()

    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE + 1, 106, False)
    sm.truncate_and_reload(0, 106, ctx.time.milliseconds())
    assert sm.first_unstable_offset() is None

    sm.truncate_and_reload(0, 100, ctx.time.milliseconds())
    first_unstable = sm.first_unstable_offset()
    assert first_unstable is not None, "First unstable offset should be present"
    assert first_unstable.message_offset == 99


def test_load_from_snapshot_retains_non_expired_producers(ctx: Ctx) -> None:
    sm = ctx.state_manager
    pid1, pid2 = 1, 2

    append_client_entry(ctx, sm, pid1, EPOCH, DEFAULT_SEQUENCE, 0, False)
    append_client_entry(ctx, sm, pid2, EPOCH, DEFAULT_SEQUENCE, 1, False)
    sm.take_snapshot()
    assert len(sm.active_producers()) == 2

    sm.truncate_and_reload(1, 2, ctx.time.milliseconds())
    assert len(sm.active_producers()) == 2

    entry1 = get_last_entry_or_else_thrown_by_producer_id(sm, pid1)
    assert entry1.last_seq() == 0
    assert entry1.last_data_offset() == 0

    entry2 = get_last_entry_or_else_thrown_by_producer_id(sm, pid2)
    assert entry2.last_seq() == 0
    assert entry2.last_data_offset() == 1


def test_skip_snapshot_if_offset_unchanged(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 0, False, milliseconds=0)

    sm.take_snapshot()
    assert len(files_in(ctx)) == 1
    assert current_snapshot_offsets(ctx) == {1}

    # nothing new, no new snapshot
    sm.take_snapshot()
    assert len(files_in(ctx)) == 1
    assert current_snapshot_offsets(ctx) == {1}


def test_pid_expiration_timeout(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 5
    append_client_entry(ctx, sm, PRODUCER_ID, epoch, DEFAULT_SEQUENCE, 1, False)
    ctx.time.sleep(ctx.producer_state_manager_config.producer_id_expiration_ms() + 1)
    sm.remove_expired_producers(ctx.time.milliseconds())
    append_client_entry(ctx, sm, PRODUCER_ID, epoch, DEFAULT_SEQUENCE + 1, 2, False)
    assert len(sm.active_producers()) == 1
    assert next(iter(sm.active_producers().values())).last_seq() == DEFAULT_SEQUENCE + 1
    assert sm.map_end_offset() == 3


def _first_unstable(sm: ProducerStateManager) -> int | None:
    offset = sm.first_unstable_offset()
    return offset.message_offset if offset is not None else None


def test_first_unstable_offset(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 5

    assert sm.first_undecided_offset() is None

    append_client_entry(ctx, sm, PRODUCER_ID, epoch, DEFAULT_SEQUENCE, 99, True)
    assert sm.first_undecided_offset() == 99
    assert _first_unstable(sm) == 99

    another_pid = 2
    append_client_entry(ctx, sm, another_pid, epoch, DEFAULT_SEQUENCE, 105, True)
    assert sm.first_undecided_offset() == 99
    assert _first_unstable(sm) == 99

    append_end_txn_marker(ctx, sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, 109)
    assert sm.first_undecided_offset() == 105
    assert _first_unstable(sm) == 99

    sm.on_high_watermark_updated(100)
    assert _first_unstable(sm) == 99

    sm.on_high_watermark_updated(110)
    assert _first_unstable(sm) == 105

    append_end_txn_marker(ctx, sm, another_pid, epoch, ControlRecordType.ABORT, 112)
    assert sm.first_undecided_offset() is None
    assert _first_unstable(sm) == 105

    sm.on_high_watermark_updated(113)
    assert _first_unstable(sm) is None


def test_producers_with_ongoing_transactions_dont_expire(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 5

    append_client_entry(ctx, sm, PRODUCER_ID, epoch, DEFAULT_SEQUENCE, 99, True)
    assert sm.first_undecided_offset() == 99

    ctx.time.sleep(ctx.producer_state_manager_config.producer_id_expiration_ms() + 1)
    sm.remove_expired_producers(ctx.time.milliseconds())

    assert sm.last_entry(PRODUCER_ID) is not None
    assert sm.first_undecided_offset() == 99

    sm.remove_expired_producers(ctx.time.milliseconds())
    assert sm.last_entry(PRODUCER_ID) is not None


def test_sequence_not_validated_for_group_metadata_topic(ctx: Ctx) -> None:
    partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, 0)
    state_manager = ctx.new_manager(partition)

    append_entry(state_manager, PRODUCER_ID, EPOCH, NO_SEQUENCE, 99, ctx.time.milliseconds(),
                 AppendOrigin.COORDINATOR, True)
    append_entry(state_manager, PRODUCER_ID, EPOCH, NO_SEQUENCE, 100, ctx.time.milliseconds(),
                 AppendOrigin.COORDINATOR, True)


def test_old_epoch_for_control_record(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 5

    assert sm.first_undecided_offset() is None

    append_client_entry(ctx, sm, PRODUCER_ID, epoch, DEFAULT_SEQUENCE, 99, True)
    with pytest.raises(InvalidProducerEpochException):
        append_end_txn_marker(ctx, sm, PRODUCER_ID, 3, ControlRecordType.COMMIT, 100)


def test_coordinator_fencing(ctx: Ctx) -> None:
    sm = ctx.state_manager
    epoch = 5

    append_client_entry(ctx, sm, PRODUCER_ID, epoch, DEFAULT_SEQUENCE, 99, True)
    append_end_txn_marker(ctx, sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, 100, 1, ctx.time.milliseconds())

    last_entry = get_last_entry_or_else_thrown_by_producer_id(sm, PRODUCER_ID)
    assert last_entry.coordinator_epoch() == 1

    # the current coordinator epoch is allowed
    append_end_txn_marker(ctx, sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, 101, 1, ctx.time.milliseconds())

    # so is a newer one
    append_end_txn_marker(ctx, sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, 102, 2, ctx.time.milliseconds())

    # an older one is fenced
    with pytest.raises(TransactionCoordinatorFencedException):
        append_end_txn_marker(ctx, sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, 103, 1,
                              ctx.time.milliseconds())


def test_coordinator_fenced_after_reload(ctx: Ctx) -> None:
    sm = ctx.state_manager
    append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, DEFAULT_SEQUENCE, 99, True)
    append_end_txn_marker(ctx, sm, PRODUCER_ID, EPOCH, ControlRecordType.COMMIT, 100, 1, ctx.time.milliseconds())
    sm.take_snapshot()

    recovered_mapping = ctx.new_manager()
    recovered_mapping.truncate_and_reload(0, 2, 70000)

    # a marker from the old coordinator is refused (Kafka's case appends to the original manager)
    with pytest.raises(TransactionCoordinatorFencedException):
        append_end_txn_marker(ctx, sm, PRODUCER_ID, EPOCH, ControlRecordType.COMMIT, 100)


def test_load_from_empty_snapshot_file(ctx: Ctx) -> None:
    load_from_corrupt_snapshot(ctx, lambda fd: os.ftruncate(fd, 0))


def test_load_from_truncated_snapshot_file(ctx: Ctx) -> None:
    def truncate_in_the_middle(fd: int) -> None:
        size = os.fstat(fd).st_size
        assert size > 2
        os.ftruncate(fd, size // 2)

    load_from_corrupt_snapshot(ctx, truncate_in_the_middle)


def test_load_from_corrupt_snapshot_file(ctx: Ctx) -> None:
    def write_garbage(fd: int) -> None:
        assert os.fstat(fd).st_size > 2
        os.write(fd, bytes(37))

    load_from_corrupt_snapshot(ctx, write_garbage)


class _EmptyControlBatch:
    """Kafka's mock(RecordBatch): a control batch whose iterator is empty (its transaction was cleaned away)."""

    def is_control_batch(self) -> bool:
        return True

    def __iter__(self) -> Iterator[object]:
        return iter(())


def test_append_empty_control_batch(ctx: Ctx) -> None:
    producer_id = 23423
    base_offset = 15

    # an empty control batch neither fails nor starts a transaction
    append(ctx, ctx.state_manager, producer_id, base_offset, _EmptyControlBatch())
    assert get_last_entry_or_else_thrown_by_producer_id(ctx.state_manager,
                                                        producer_id).current_txn_first_offset() is None


def test_remove_stray_snapshots_keep_clean_shutdown_snapshot(ctx: Ctx) -> None:
    # the largest stray snapshot stays: a clean shutdown writes one above the active segment's base offset
    producer_snapshot_file(ctx.log_dir, 5).touch()  # not stray
    producer_snapshot_file(ctx.log_dir, 2).touch()  # stray
    producer_snapshot_file(ctx.log_dir, 42).touch()  # not stray

    # one segment, based at 5
    ctx.state_manager.remove_stray_snapshots([5])

    assert ctx.state_manager.latest_snapshot_offset() == 42
    assert ctx.state_manager.oldest_snapshot_offset() == 5
    assert sorted(f.offset for f in ProducerStateManager.list_snapshot_files(ctx.log_dir)) == [5, 42]


def test_remove_all_stray_snapshots(ctx: Ctx) -> None:
    # strays below the largest segment base offset all go; a snapshot at a segment's base offset stays
    producer_snapshot_file(ctx.log_dir, 5).touch()  # stray
    producer_snapshot_file(ctx.log_dir, 2).touch()  # stray
    producer_snapshot_file(ctx.log_dir, 42).touch()  # not stray

    ctx.state_manager.remove_stray_snapshots([42])
    assert sorted(f.offset for f in ProducerStateManager.list_snapshot_files(ctx.log_dir)) == [42]


def test_remove_and_mark_snapshot_for_deletion(ctx: Ctx) -> None:
    producer_snapshot_file(ctx.log_dir, 5).touch()
    manager = ctx.new_manager()
    assert manager.latest_snapshot_offset() is not None
    snapshot_file_opt = manager.remove_and_mark_snapshot_for_deletion(5)
    assert snapshot_file_opt is not None
    assert str(snapshot_file_opt.file()).endswith(DELETED_FILE_SUFFIX)
    assert manager.latest_snapshot_offset() is None


def test_remove_and_mark_snapshot_for_deletion_already_deleted(ctx: Ctx) -> None:
    # log recovery's interim manager may have deleted the file already: None, and the snapshot is forgotten
    file = producer_snapshot_file(ctx.log_dir, 5)
    file.touch()
    manager = ctx.new_manager()
    assert manager.latest_snapshot_offset() is not None
    file.unlink()
    assert manager.remove_and_mark_snapshot_for_deletion(5) is None
    assert manager.latest_snapshot_offset() is None


def test_entry_for_verification(ctx: Ctx) -> None:
    sm = ctx.state_manager
    original_entry = sm.maybe_create_verification_state_entry(PRODUCER_ID, 0, EPOCH)
    original_entry_verification_guard = original_entry.verification_guard()

    # an existing entry is reused
    update_entry = sm.maybe_create_verification_state_entry(PRODUCER_ID, 0, EPOCH)
    entry = sm.verification_state_entry(PRODUCER_ID)
    assert entry is not None
    assert entry.verification_guard() == original_entry_verification_guard
    assert update_entry.verification_guard() == entry.verification_guard()

    # append transactional data, then clear the entry
    append_client_entry(ctx, sm, PRODUCER_ID, 0, DEFAULT_SEQUENCE, 0, True)
    sm.clear_verification_state_entry(PRODUCER_ID)
    assert sm.verification_state_entry(PRODUCER_ID) is None


def test_sequence_and_epoch_in_verification_entry(ctx: Ctx) -> None:
    sm = ctx.state_manager
    original_entry = sm.maybe_create_verification_state_entry(PRODUCER_ID, 1, EPOCH)
    original_entry_verification_guard = original_entry.verification_guard()

    verify_entry(ctx, original_entry_verification_guard, original_entry, 1, EPOCH)

    # a lower sequence lowers it
    updated_entry = sm.maybe_create_verification_state_entry(PRODUCER_ID, 0, EPOCH)
    verify_entry(ctx, original_entry_verification_guard, updated_entry, 0, EPOCH)

    # a higher epoch resets the sequence
    updated_entry_new_epoch = sm.maybe_create_verification_state_entry(PRODUCER_ID, 2, 1)
    verify_entry(ctx, original_entry_verification_guard, updated_entry_new_epoch, 2, 1)

    # a lower epoch is ignored
    updated_entry_old_epoch = sm.maybe_create_verification_state_entry(PRODUCER_ID, 0, EPOCH)
    verify_entry(ctx, original_entry_verification_guard, updated_entry_old_epoch, 2, 1)


@pytest.mark.parametrize("dynamically_disable", [True, False])
def test_throw_out_of_order_sequence_with_verification_sequence_check(ctx: Ctx, dynamically_disable: bool) -> None:
    sm = ctx.state_manager
    original_entry = sm.maybe_create_verification_state_entry(PRODUCER_ID, 0, EPOCH)

    # an existing entry is checked even once verification is switched off
    if dynamically_disable:
        ctx.producer_state_manager_config.set_transaction_verification_enabled(False)

    # a higher sequence fails
    with pytest.raises(OutOfOrderSequenceException):
        append_client_entry(ctx, sm, PRODUCER_ID, EPOCH, 4, 0, True)

    assert sm.verification_state_entry(PRODUCER_ID) is original_entry


def test_verification_state_entry_expiration(ctx: Ctx) -> None:
    sm = ctx.state_manager
    original_entry = sm.maybe_create_verification_state_entry(PRODUCER_ID, 0, EPOCH)

    # not yet expired (reading the entry does not refresh it)
    ctx.time.sleep(ctx.producer_state_manager_config.producer_id_expiration_ms() // 2)
    sm.remove_expired_producers(ctx.time.milliseconds())
    assert sm.verification_state_entry(PRODUCER_ID) is original_entry

    ctx.time.sleep(ctx.producer_state_manager_config.producer_id_expiration_ms() // 2 + 1)
    sm.remove_expired_producers(ctx.time.milliseconds())
    assert sm.verification_state_entry(PRODUCER_ID) is None


def test_last_stable_offset_completed_txn(ctx: Ctx) -> None:
    sm = ctx.state_manager
    segment_base_offset = 990000

    producer_id1 = PRODUCER_ID
    start_offset1 = 992342
    begin_transaction(ctx, producer_id1, start_offset1, segment_base_offset)

    producer_id2 = PRODUCER_ID + 1
    start_offset2 = start_offset1 + 25
    begin_transaction(ctx, producer_id2, start_offset2, segment_base_offset)

    producer_id3 = PRODUCER_ID + 2
    start_offset3 = start_offset1 + 57
    begin_transaction(ctx, producer_id3, start_offset3, segment_base_offset)

    last_offset1 = start_offset3 + 15
    completed_txn1 = CompletedTxn(producer_id1, start_offset1, last_offset1, False)
    assert sm.last_stable_offset(completed_txn1) == start_offset2
    sm.complete_txn(completed_txn1)
    sm.on_high_watermark_updated(last_offset1 + 1)

    assert _first_unstable(sm) == start_offset2

    last_offset3 = last_offset1 + 20
    completed_txn3 = CompletedTxn(producer_id3, start_offset3, last_offset3, False)
    assert sm.last_stable_offset(completed_txn3) == start_offset2
    sm.complete_txn(completed_txn3)
    sm.on_high_watermark_updated(last_offset3 + 1)
    assert _first_unstable(sm) == start_offset2

    last_offset2 = last_offset3 + 78
    completed_txn2 = CompletedTxn(producer_id2, start_offset2, last_offset2, False)
    assert sm.last_stable_offset(completed_txn2) == last_offset2 + 1
    sm.complete_txn(completed_txn2)
    sm.on_high_watermark_updated(last_offset2 + 1)
    assert sm.first_unstable_offset() is None


def test_skip_empty_transactions(ctx: Ctx) -> None:
    sm = ctx.state_manager
    seq = [DEFAULT_SEQUENCE]

    # one transaction started in an append of its own
    first_append = sm.prepare_update(PRODUCER_ID, AppendOrigin.CLIENT)
    append_data(ctx, 16, 20, first_append, seq)
    assert_txn_metadata_equals(TxnMetadata(PRODUCER_ID, 16), first_append.started_transactions()[0])
    sm.update(first_append)
    sm.on_high_watermark_updated(21)
    assert sm.first_unstable_offset() == LogOffsetMetadata(16)

    # one append that completes it, has empty transactions, one complete non-empty one and one left open
    second_append = sm.prepare_update(PRODUCER_ID, AppendOrigin.CLIENT)
    first_completed_txn = append_end_transaction(ctx, ControlRecordType.COMMIT, 21, second_append)
    assert first_completed_txn is not None
    assert first_completed_txn == CompletedTxn(PRODUCER_ID, 16, 21, False)
    assert append_end_transaction(ctx, ControlRecordType.COMMIT, 22, second_append) is None
    assert append_end_transaction(ctx, ControlRecordType.ABORT, 23, second_append) is None
    append_data(ctx, 24, 27, second_append, seq)
    second_completed_txn = append_end_transaction(ctx, ControlRecordType.ABORT, 28, second_append)
    assert second_completed_txn is not None
    assert append_end_transaction(ctx, ControlRecordType.ABORT, 29, second_append) is None
    append_data(ctx, 30, 31, second_append, seq)

    size = len(second_append.started_transactions())
    assert size == 2
    assert_txn_metadata_equals(TxnMetadata(PRODUCER_ID, LogOffsetMetadata(24)),
                               second_append.started_transactions()[0])
    assert_txn_metadata_equals(TxnMetadata(PRODUCER_ID, LogOffsetMetadata(30)),
                               second_append.started_transactions()[size - 1])
    sm.update(second_append)
    sm.complete_txn(first_completed_txn)
    sm.complete_txn(second_completed_txn)
    sm.on_high_watermark_updated(32)
    assert sm.first_unstable_offset() == LogOffsetMetadata(30)


def test_read_write_snapshot(ctx: Ctx) -> None:
    expected_entry_map = {
        1: ProducerStateEntry(1, 2, 3, NO_TIMESTAMP, 100, BatchMetadata(1, 2, 3, NO_TIMESTAMP)),
        11: ProducerStateEntry(11, 12, 13, 123456, None, None),
    }

    file = ctx.log_dir / "testReadWriteSnapshot"
    ProducerStateManager.write_snapshot(file, expected_entry_map, True)
    assert_entries(expected_entry_map, ProducerStateManager.read_snapshot(file))
