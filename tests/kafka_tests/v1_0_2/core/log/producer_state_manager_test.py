"""Port of core/src/test/scala/unit/kafka/log/ProducerStateManagerTest.scala (Kafka 1.0.2).

Every case is ported. As in Kafka, the end-transaction-marker helper prepares its update on the fixture's state
manager whichever manager it is handed, and testPidExpirationTimeout's first append (sequence 37 from a producer the
broker has never seen) is what raises UnknownProducerIdException.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    InvalidTxnStateException,
    OutOfOrderSequenceException,
    ProducerFencedException,
    TransactionCoordinatorFencedException,
    UnknownProducerIdException,
)
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_SEQUENCE
from kafka_edu.v1_0_2.core.log.log import Log, TopicPartition
from kafka_edu.v1_0_2.core.log.log_segment import LogOffsetMetadata
from kafka_edu.v1_0_2.core.log.producer_state_manager import (
    GROUP_METADATA_TOPIC_NAME,
    CompletedTxn,
    ProducerAppendInfo,
    ProducerStateEntry,
    ProducerStateManager,
    TxnMetadata,
    ValidationType,
    producer_snapshot_file,
)
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/ProducerStateManagerTest.scala",
    cases=[
        "testBasicIdMapping", "testProducerSequenceWrapAround", "testProducerSequenceInvalidWrapAround",
        "testNoValidationOnFirstEntryWhenLoadingLog", "testControlRecordBumpsEpoch", "testTxnFirstOffsetMetadataCached",
        "testNonMatchingTxnFirstOffsetMetadataNotCached", "testPrepareUpdateDoesNotMutate",
        "updateProducerTransactionState", "testOutOfSequenceAfterControlRecordEpochBump",
        "testNonTransactionalAppendWithOngoingTransaction", "testTruncateAndReloadRemovesOutOfRangeSnapshots",
        "testTakeSnapshot", "testRecoverFromSnapshot", "testRemoveExpiredPidsOnReload",
        "testAcceptAppendWithoutProducerStateOnReplica", "testAcceptAppendWithSequenceGapsOnReplica",
        "testDeleteSnapshotsBefore", "testTruncate", "testFirstUnstableOffsetAfterTruncation",
        "testFirstUnstableOffsetAfterEviction", "testTruncateHead", "testLoadFromSnapshotRemovesNonRetainedProducers",
        "testSkipSnapshotIfOffsetUnchanged", "testStartOffset", "testPidExpirationTimeout", "testFirstUnstableOffset",
        "testProducersWithOngoingTransactionsDontExpire", "testSequenceNotValidatedForGroupMetadataTopic",
        "testOldEpochForControlRecord", "testCoordinatorFencing", "testCoordinatorFencedAfterReload",
        "testLoadFromEmptySnapshotFile", "testLoadFromTruncatedSnapshotFile", "testLoadFromCorruptSnapshotFile",
    ],
)

PARTITION = TopicPartition("test", 0)
PRODUCER_ID = 1
MAX_PID_EXPIRATION_MS = 60 * 1000


class _World:
    """The test class's fields: a temp log dir, a state manager over it, and a MockTime."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.time = MockTime()
        self.state_manager = ProducerStateManager(PARTITION, log_dir, MAX_PID_EXPIRATION_MS)

    def new_manager(self) -> ProducerStateManager:
        return ProducerStateManager(PARTITION, self.log_dir, MAX_PID_EXPIRATION_MS)

    def append(self, state_manager: ProducerStateManager, producer_id: int, producer_epoch: int, seq: int,
               offset: int, timestamp: int | None = None, is_transactional: bool = False,
               is_from_client: bool = True) -> None:
        if timestamp is None:
            timestamp = self.time.milliseconds()
        producer_append_info = state_manager.prepare_update(producer_id, is_from_client)
        producer_append_info.append(producer_epoch, seq, seq, timestamp, offset, is_transactional)
        state_manager.update(producer_append_info)
        state_manager.update_map_end_offset(offset + 1)

    def append_end_txn_marker(self, mapping: ProducerStateManager, producer_id: int, producer_epoch: int,
                              control_type: ControlRecordType, offset: int, coordinator_epoch: int = 0,
                              timestamp: int | None = None) -> tuple[CompletedTxn, int]:
        if timestamp is None:
            timestamp = self.time.milliseconds()
        producer_append_info = self.state_manager.prepare_update(producer_id, is_from_client=True)
        end_txn_marker = EndTransactionMarker(control_type, coordinator_epoch)
        completed_txn = producer_append_info.append_end_txn_marker(end_txn_marker, producer_epoch, offset, timestamp)
        mapping.update(producer_append_info)
        last_stable_offset = mapping.complete_txn(completed_txn)
        mapping.update_map_end_offset(offset + 1)
        return completed_txn, last_stable_offset

    def files(self) -> list[str]:
        return os.listdir(self.log_dir)

    def current_snapshot_offsets(self) -> set[int]:
        return {Log.offset_from_file(f) for f in self.log_dir.iterdir()}


@pytest.fixture
def w(tmp_path: Path) -> Iterator[_World]:
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    yield _World(log_dir)


def _first_unstable(sm: ProducerStateManager) -> int | None:
    metadata = sm.first_unstable_offset()
    return metadata.message_offset if metadata is not None else None


def test_basic_id_mapping(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 0, 1)
    with pytest.raises(OutOfOrderSequenceException):
        w.append(sm, PRODUCER_ID, epoch, 1, 0, 1)
    with pytest.raises(OutOfOrderSequenceException):
        w.append(sm, PRODUCER_ID, epoch, 5, 0, 2)
    w.append(sm, PRODUCER_ID, epoch + 1, 0, 0, 3)
    with pytest.raises(ProducerFencedException):
        w.append(sm, PRODUCER_ID, epoch, 0, 0, 4)


def test_producer_sequence_wrap_around(w: _World) -> None:
    sm, epoch, sequence, offset = w.state_manager, 15, 2**31 - 1, 735
    w.append(sm, PRODUCER_ID, epoch, sequence, offset, is_from_client=False)
    w.append(sm, PRODUCER_ID, epoch, 0, offset + 500)

    last_entry = sm.last_entry(PRODUCER_ID)
    assert last_entry is not None
    assert last_entry.producer_epoch == epoch
    assert last_entry.first_seq == 2**31 - 1
    assert last_entry.last_seq == 0


def test_producer_sequence_invalid_wrap_around(w: _World) -> None:
    sm, epoch, sequence, offset = w.state_manager, 15, 2**31 - 1, 735
    w.append(sm, PRODUCER_ID, epoch, sequence, offset, is_from_client=False)
    with pytest.raises(OutOfOrderSequenceException):
        w.append(sm, PRODUCER_ID, epoch, 1, offset + 500)


def test_no_validation_on_first_entry_when_loading_log(w: _World) -> None:
    sm, epoch, sequence, offset = w.state_manager, 5, 16, 735
    w.append(sm, PRODUCER_ID, epoch, sequence, offset, is_from_client=False)

    last_entry = sm.last_entry(PRODUCER_ID)
    assert last_entry is not None
    assert last_entry.producer_epoch == epoch
    assert last_entry.first_seq == sequence
    assert last_entry.last_seq == sequence
    assert last_entry.last_data_offset == offset
    assert last_entry.first_offset == offset


def test_control_record_bumps_epoch(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0)

    bumped_epoch = 1
    completed_txn, last_stable_offset = w.append_end_txn_marker(sm, PRODUCER_ID, bumped_epoch,
                                                                ControlRecordType.ABORT, 1)
    assert completed_txn.first_offset == 1
    assert completed_txn.last_offset == 1
    assert last_stable_offset == 2
    assert completed_txn.is_aborted
    assert completed_txn.producer_id == PRODUCER_ID

    last_entry = sm.last_entry(PRODUCER_ID)
    assert last_entry is not None
    assert last_entry.producer_epoch == bumped_epoch
    assert last_entry.current_txn_first_offset is None
    assert last_entry.first_seq == NO_SEQUENCE
    assert last_entry.last_seq == NO_SEQUENCE

    w.append(sm, PRODUCER_ID, bumped_epoch, 0, 2)
    assert sm.last_entry(PRODUCER_ID).first_seq == 0


def test_txn_first_offset_metadata_cached(w: _World) -> None:
    producer_epoch, offset, seq = 0, 992342, 0
    producer_append_info = ProducerAppendInfo(PRODUCER_ID, ProducerStateEntry.empty(PRODUCER_ID), ValidationType.FULL)
    producer_append_info.append(producer_epoch, seq, seq, w.time.milliseconds(), offset, is_transactional=True)

    log_offset_metadata = LogOffsetMetadata(message_offset=offset, segment_base_offset=990000,
                                            relative_position_in_segment=234224)
    producer_append_info.maybe_cache_txn_first_offset_metadata(log_offset_metadata)
    w.state_manager.update(producer_append_info)

    assert w.state_manager.first_unstable_offset() == log_offset_metadata


def test_non_matching_txn_first_offset_metadata_not_cached(w: _World) -> None:
    producer_epoch, offset, seq = 0, 992342, 0
    producer_append_info = ProducerAppendInfo(PRODUCER_ID, ProducerStateEntry.empty(PRODUCER_ID), ValidationType.FULL)
    producer_append_info.append(producer_epoch, seq, seq, w.time.milliseconds(), offset, is_transactional=True)

    log_offset_metadata = LogOffsetMetadata(message_offset=offset - 23429, segment_base_offset=990000,
                                            relative_position_in_segment=234224)
    producer_append_info.maybe_cache_txn_first_offset_metadata(log_offset_metadata)
    w.state_manager.update(producer_append_info)

    assert w.state_manager.first_unstable_offset() == LogOffsetMetadata(offset)


def test_prepare_update_does_not_mutate(w: _World) -> None:
    sm, producer_epoch = w.state_manager, 0

    append_info = sm.prepare_update(PRODUCER_ID, is_from_client=True)
    append_info.append(producer_epoch, 0, 5, w.time.milliseconds(), 20, is_transactional=False)
    assert sm.last_entry(PRODUCER_ID) is None
    sm.update(append_info)
    assert sm.last_entry(PRODUCER_ID) is not None

    next_append_info = sm.prepare_update(PRODUCER_ID, is_from_client=True)
    next_append_info.append(producer_epoch, 6, 10, w.time.milliseconds(), 30, is_transactional=False)
    assert sm.last_entry(PRODUCER_ID) is not None

    last_entry = sm.last_entry(PRODUCER_ID)
    assert last_entry.first_seq == 0
    assert last_entry.last_seq == 5
    assert last_entry.last_data_offset == 20

    sm.update(next_append_info)
    last_entry = sm.last_entry(PRODUCER_ID)
    assert last_entry.first_seq == 0
    assert last_entry.last_seq == 10
    assert last_entry.last_data_offset == 30


def test_update_producer_transaction_state(w: _World) -> None:
    sm, producer_epoch, coordinator_epoch, offset = w.state_manager, 0, 15, 9
    w.append(sm, PRODUCER_ID, producer_epoch, 0, offset)

    append_info = sm.prepare_update(PRODUCER_ID, is_from_client=True)
    append_info.append(producer_epoch, 1, 5, w.time.milliseconds(), 20, is_transactional=True)
    last_entry = append_info.to_entry()
    assert last_entry.producer_epoch == producer_epoch
    assert last_entry.first_seq == 1
    assert last_entry.last_seq == 5
    assert last_entry.first_offset == 16
    assert last_entry.last_data_offset == 20
    assert last_entry.current_txn_first_offset == 16
    assert append_info.started_transactions == [TxnMetadata(PRODUCER_ID, LogOffsetMetadata(16))]

    append_info.append(producer_epoch, 6, 10, w.time.milliseconds(), 30, is_transactional=True)
    last_entry = append_info.to_entry()
    assert last_entry.producer_epoch == producer_epoch
    assert last_entry.first_seq == 1
    assert last_entry.last_seq == 10
    assert last_entry.first_offset == 16
    assert last_entry.last_data_offset == 30
    assert last_entry.current_txn_first_offset == 16
    assert append_info.started_transactions == [TxnMetadata(PRODUCER_ID, LogOffsetMetadata(16))]

    end_txn_marker = EndTransactionMarker(ControlRecordType.COMMIT, coordinator_epoch)
    completed_txn = append_info.append_end_txn_marker(end_txn_marker, producer_epoch, 40, w.time.milliseconds())
    assert completed_txn.producer_id == PRODUCER_ID
    assert completed_txn.first_offset == 16
    assert completed_txn.last_offset == 40
    assert not completed_txn.is_aborted

    last_entry = append_info.to_entry()
    assert last_entry.producer_epoch == producer_epoch
    assert last_entry.first_seq == 1
    assert last_entry.last_seq == 10
    assert last_entry.first_offset == 16
    assert last_entry.last_data_offset == 30
    assert last_entry.coordinator_epoch == coordinator_epoch
    assert last_entry.current_txn_first_offset is None
    assert append_info.started_transactions == [TxnMetadata(PRODUCER_ID, LogOffsetMetadata(16))]


def test_out_of_sequence_after_control_record_epoch_bump(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, is_transactional=True)
    w.append(sm, PRODUCER_ID, epoch, 1, 1, is_transactional=True)

    bumped_epoch = 1
    w.append_end_txn_marker(sm, PRODUCER_ID, bumped_epoch, ControlRecordType.ABORT, 1)

    with pytest.raises(OutOfOrderSequenceException):
        w.append(sm, PRODUCER_ID, bumped_epoch, 2, 2, is_transactional=True)
    with pytest.raises(OutOfOrderSequenceException):
        w.append(sm, PRODUCER_ID, bumped_epoch + 1, 2, 2, is_transactional=True)

    w.append(sm, PRODUCER_ID, bumped_epoch, 0, 0, is_transactional=True)
    assert sm.last_entry(PRODUCER_ID).producer_epoch == bumped_epoch
    assert sm.last_entry(PRODUCER_ID).last_seq == 0


def test_non_transactional_append_with_ongoing_transaction(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, is_transactional=True)
    with pytest.raises(InvalidTxnStateException):
        w.append(sm, PRODUCER_ID, epoch, 1, 1, is_transactional=False)


def test_truncate_and_reload_removes_out_of_range_snapshots(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    for seq in range(5):
        w.append(sm, PRODUCER_ID, epoch, seq, seq)
        sm.take_snapshot()

    sm.truncate_and_reload(1, 3, w.time.milliseconds())

    assert sm.oldest_snapshot_offset() == 2
    assert sm.latest_snapshot_offset() == 3


def test_take_snapshot(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 1, 1)

    sm.take_snapshot()

    assert len(w.files()) == 1, "Directory doesn't contain a single file as expected"
    assert len(w.files()[0]) > 0, "Snapshot file is empty"


def test_recover_from_snapshot(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 1)

    sm.take_snapshot()
    recovered_mapping = w.new_manager()
    recovered_mapping.truncate_and_reload(0, 3, w.time.milliseconds())

    w.append(recovered_mapping, PRODUCER_ID, epoch, 2, 2)


def test_remove_expired_pids_on_reload(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 1, 1)

    sm.take_snapshot()
    recovered_mapping = w.new_manager()
    recovered_mapping.truncate_and_reload(0, 1, 70000)

    with pytest.raises(UnknownProducerIdException):
        w.append(recovered_mapping, PRODUCER_ID, epoch, 2, 2, 70001)


def test_accept_append_without_producer_state_on_replica(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 1, 1)

    sm.take_snapshot()
    recovered_mapping = w.new_manager()
    recovered_mapping.truncate_and_reload(0, 1, 70000)

    sequence = 2
    assert PRODUCER_ID not in recovered_mapping.active_producers
    w.append(recovered_mapping, PRODUCER_ID, epoch, sequence, 2, 70001, is_from_client=False)
    assert PRODUCER_ID in recovered_mapping.active_producers
    producer_state_entry = recovered_mapping.active_producers[PRODUCER_ID]
    assert producer_state_entry.producer_epoch == epoch
    assert producer_state_entry.first_seq == sequence
    assert producer_state_entry.last_seq == sequence


def test_accept_append_with_sequence_gaps_on_replica(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, 0)
    out_of_order_sequence = 3

    with pytest.raises(OutOfOrderSequenceException):
        w.append(sm, PRODUCER_ID, epoch, out_of_order_sequence, 1, 1, is_from_client=True)

    assert sm.active_producers[PRODUCER_ID].last_seq == 0
    w.append(sm, PRODUCER_ID, epoch, out_of_order_sequence, 1, 1, is_from_client=False)
    assert sm.active_producers[PRODUCER_ID].last_seq == out_of_order_sequence


def test_delete_snapshots_before(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 1)
    sm.take_snapshot()
    assert len(w.files()) == 1
    assert w.current_snapshot_offsets() == {2}

    w.append(sm, PRODUCER_ID, epoch, 2, 2)
    sm.take_snapshot()
    assert len(w.files()) == 2
    assert w.current_snapshot_offsets() == {2, 3}

    sm.delete_snapshots_before(3)
    assert len(w.files()) == 1
    assert w.current_snapshot_offsets() == {3}

    sm.delete_snapshots_before(4)
    assert len(w.files()) == 0
    assert w.current_snapshot_offsets() == set()


def test_truncate(w: _World) -> None:
    sm, epoch = w.state_manager, 0

    w.append(sm, PRODUCER_ID, epoch, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 1)
    sm.take_snapshot()
    assert len(w.files()) == 1
    assert w.current_snapshot_offsets() == {2}

    w.append(sm, PRODUCER_ID, epoch, 2, 2)
    sm.take_snapshot()
    assert len(w.files()) == 2
    assert w.current_snapshot_offsets() == {2, 3}

    sm.truncate()

    assert len(w.files()) == 0
    assert w.current_snapshot_offsets() == set()

    w.append(sm, PRODUCER_ID, epoch, 0, 0)
    sm.take_snapshot()
    assert len(w.files()) == 1
    assert w.current_snapshot_offsets() == {1}


def test_first_unstable_offset_after_truncation(w: _World) -> None:
    sm, epoch, sequence = w.state_manager, 0, 0

    w.append(sm, PRODUCER_ID, epoch, sequence, offset=99, is_transactional=True)
    assert _first_unstable(sm) == 99
    sm.take_snapshot()

    w.append_end_txn_marker(sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, offset=105)
    sm.on_high_watermark_updated(106)
    assert _first_unstable(sm) is None
    sm.take_snapshot()

    w.append(sm, PRODUCER_ID, epoch, sequence + 1, offset=106)
    sm.truncate_and_reload(0, 106, w.time.milliseconds())
    assert _first_unstable(sm) is None

    sm.truncate_and_reload(0, 100, w.time.milliseconds())
    assert _first_unstable(sm) == 99


def test_first_unstable_offset_after_eviction(w: _World) -> None:
    sm, epoch, sequence = w.state_manager, 0, 0
    w.append(sm, PRODUCER_ID, epoch, sequence, offset=99, is_transactional=True)
    assert _first_unstable(sm) == 99
    w.append(sm, 2, epoch, 0, offset=106, is_transactional=True)
    sm.truncate_head(100)
    assert _first_unstable(sm) == 106


def test_truncate_head(w: _World) -> None:
    sm, epoch = w.state_manager, 0

    w.append(sm, PRODUCER_ID, epoch, 0, 0)
    w.append(sm, PRODUCER_ID, epoch, 1, 1)
    sm.take_snapshot()

    another_pid = 2
    w.append(sm, another_pid, epoch, 0, 2)
    w.append(sm, another_pid, epoch, 1, 3)
    sm.take_snapshot()
    assert w.current_snapshot_offsets() == {2, 4}

    sm.truncate_head(2)
    assert w.current_snapshot_offsets() == {2, 4}
    assert set(sm.active_producers) == {another_pid}
    assert sm.last_entry(PRODUCER_ID) is None

    maybe_entry = sm.last_entry(another_pid)
    assert maybe_entry is not None
    assert maybe_entry.last_data_offset == 3

    sm.truncate_head(3)
    assert set(sm.active_producers) == {another_pid}
    assert w.current_snapshot_offsets() == {4}
    assert sm.map_end_offset == 4

    sm.truncate_head(5)
    assert set(sm.active_producers) == set()
    assert w.current_snapshot_offsets() == set()
    assert sm.map_end_offset == 5


def test_load_from_snapshot_removes_non_retained_producers(w: _World) -> None:
    sm, epoch, pid1, pid2 = w.state_manager, 0, 1, 2

    w.append(sm, pid1, epoch, 0, 0)
    w.append(sm, pid2, epoch, 0, 1)
    sm.take_snapshot()
    assert len(sm.active_producers) == 2

    sm.truncate_and_reload(1, 2, w.time.milliseconds())
    assert len(sm.active_producers) == 1
    assert sm.last_entry(pid1) is None

    entry = sm.last_entry(pid2)
    assert entry is not None
    assert entry.last_seq == 0
    assert entry.last_data_offset == 1


def test_skip_snapshot_if_offset_unchanged(w: _World) -> None:
    sm, epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, epoch, 0, 0, 0)

    sm.take_snapshot()
    assert len(w.files()) == 1
    assert w.current_snapshot_offsets() == {1}

    sm.take_snapshot()
    assert len(w.files()) == 1
    assert w.current_snapshot_offsets() == {1}


def test_start_offset(w: _World) -> None:
    sm, epoch, pid2 = w.state_manager, 0, 2
    w.append(sm, pid2, epoch, 0, 0, 1)
    w.append(sm, PRODUCER_ID, epoch, 0, 1, 2)
    w.append(sm, PRODUCER_ID, epoch, 1, 2, 3)
    w.append(sm, PRODUCER_ID, epoch, 2, 3, 4)
    sm.take_snapshot()

    with pytest.raises(UnknownProducerIdException):
        recovered_mapping = w.new_manager()
        recovered_mapping.truncate_and_reload(0, 1, w.time.milliseconds())
        w.append(recovered_mapping, pid2, epoch, 1, 4, 5)


def test_pid_expiration_timeout(w: _World) -> None:
    sm, epoch, sequence = w.state_manager, 5, 37
    with pytest.raises(UnknownProducerIdException):
        w.append(sm, PRODUCER_ID, epoch, sequence, 1)
        w.time.sleep(MAX_PID_EXPIRATION_MS + 1)
        sm.remove_expired_producers(w.time.milliseconds())
        w.append(sm, PRODUCER_ID, epoch, sequence + 1, 1)


def test_first_unstable_offset(w: _World) -> None:
    sm, epoch, sequence = w.state_manager, 5, 0

    assert sm.first_undecided_offset() is None

    w.append(sm, PRODUCER_ID, epoch, sequence, offset=99, is_transactional=True)
    assert sm.first_undecided_offset() == 99
    assert _first_unstable(sm) == 99

    another_pid = 2
    w.append(sm, another_pid, epoch, sequence, offset=105, is_transactional=True)
    assert sm.first_undecided_offset() == 99
    assert _first_unstable(sm) == 99

    w.append_end_txn_marker(sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, offset=109)
    assert sm.first_undecided_offset() == 105
    assert _first_unstable(sm) == 99

    sm.on_high_watermark_updated(100)
    assert _first_unstable(sm) == 99

    sm.on_high_watermark_updated(110)
    assert _first_unstable(sm) == 105

    w.append_end_txn_marker(sm, another_pid, epoch, ControlRecordType.ABORT, offset=112)
    assert sm.first_undecided_offset() is None
    assert _first_unstable(sm) == 105

    sm.on_high_watermark_updated(113)
    assert _first_unstable(sm) is None


def test_producers_with_ongoing_transactions_dont_expire(w: _World) -> None:
    sm, epoch, sequence = w.state_manager, 5, 0

    w.append(sm, PRODUCER_ID, epoch, sequence, offset=99, is_transactional=True)
    assert sm.first_undecided_offset() == 99

    w.time.sleep(MAX_PID_EXPIRATION_MS + 1)
    sm.remove_expired_producers(w.time.milliseconds())

    assert sm.last_entry(PRODUCER_ID) is not None
    assert sm.first_undecided_offset() == 99

    sm.remove_expired_producers(w.time.milliseconds())
    assert sm.last_entry(PRODUCER_ID) is not None


def test_sequence_not_validated_for_group_metadata_topic(w: _World) -> None:
    partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, 0)
    state_manager = ProducerStateManager(partition, w.log_dir, MAX_PID_EXPIRATION_MS)

    epoch = 0
    w.append(state_manager, PRODUCER_ID, epoch, NO_SEQUENCE, offset=99, is_transactional=True)
    w.append(state_manager, PRODUCER_ID, epoch, NO_SEQUENCE, offset=100, is_transactional=True)


def test_old_epoch_for_control_record(w: _World) -> None:
    sm, epoch, sequence = w.state_manager, 5, 0

    assert sm.first_undecided_offset() is None

    w.append(sm, PRODUCER_ID, epoch, sequence, offset=99, is_transactional=True)
    with pytest.raises(ProducerFencedException):
        w.append_end_txn_marker(sm, PRODUCER_ID, 3, ControlRecordType.COMMIT, offset=100)


def test_coordinator_fencing(w: _World) -> None:
    sm, epoch, sequence = w.state_manager, 5, 0

    w.append(sm, PRODUCER_ID, epoch, sequence, offset=99, is_transactional=True)
    w.append_end_txn_marker(sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, offset=100, coordinator_epoch=1)

    last_entry = sm.last_entry(PRODUCER_ID)
    assert last_entry is not None and last_entry.coordinator_epoch == 1

    w.append_end_txn_marker(sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, offset=101, coordinator_epoch=1)
    w.append_end_txn_marker(sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, offset=102, coordinator_epoch=2)

    with pytest.raises(TransactionCoordinatorFencedException):
        w.append_end_txn_marker(sm, PRODUCER_ID, epoch, ControlRecordType.COMMIT, offset=103, coordinator_epoch=1)


def test_coordinator_fenced_after_reload(w: _World) -> None:
    sm, producer_epoch = w.state_manager, 0
    w.append(sm, PRODUCER_ID, producer_epoch, 0, offset=99, is_transactional=True)
    w.append_end_txn_marker(sm, PRODUCER_ID, producer_epoch, ControlRecordType.COMMIT, offset=100,
                            coordinator_epoch=1)
    sm.take_snapshot()

    recovered_mapping = w.new_manager()
    recovered_mapping.truncate_and_reload(0, 2, 70000)

    with pytest.raises(TransactionCoordinatorFencedException):
        w.append_end_txn_marker(sm, PRODUCER_ID, producer_epoch, ControlRecordType.COMMIT, offset=100,
                                coordinator_epoch=0)


def _load_from_corrupt_snapshot(w: _World, make_file_corrupt: Callable[[int], None]) -> None:
    """testLoadFromCorruptSnapshot: damage the newest snapshot (through a file descriptor opened for writing)."""
    sm, epoch, producer_id = w.state_manager, 0, 1

    w.append(sm, producer_id, epoch, seq=0, offset=0)
    sm.take_snapshot()

    w.append(sm, producer_id, epoch, seq=1, offset=1)
    sm.take_snapshot()

    latest_snapshot_offset = sm.latest_snapshot_offset()
    assert latest_snapshot_offset == 2
    snapshot_to_truncate = producer_snapshot_file(w.log_dir, latest_snapshot_offset)
    fd = os.open(snapshot_to_truncate, os.O_WRONLY)
    try:
        make_file_corrupt(fd)
    finally:
        os.close(fd)

    reloaded_state_manager = w.new_manager()
    reloaded_state_manager.truncate_and_reload(0, 20, w.time.milliseconds())
    assert not snapshot_to_truncate.exists()

    loaded_producer_state = reloaded_state_manager.active_producers[producer_id]
    assert loaded_producer_state.last_data_offset == 0


def test_load_from_empty_snapshot_file(w: _World) -> None:
    _load_from_corrupt_snapshot(w, lambda fd: os.ftruncate(fd, 0))


def test_load_from_truncated_snapshot_file(w: _World) -> None:
    def truncate_half(fd: int) -> None:
        size = os.fstat(fd).st_size
        assert size > 2
        os.ftruncate(fd, size // 2)

    _load_from_corrupt_snapshot(w, truncate_half)


def test_load_from_corrupt_snapshot_file(w: _World) -> None:
    def write_garbage(fd: int) -> None:
        size = os.fstat(fd).st_size
        assert size > 2
        os.pwrite(fd, bytes([37]), size // 2)

    _load_from_corrupt_snapshot(w, write_garbage)
