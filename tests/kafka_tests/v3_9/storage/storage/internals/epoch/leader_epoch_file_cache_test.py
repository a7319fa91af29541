"""Port of core/src/test/scala/unit/kafka/server/epoch/LeaderEpochFileCacheTest.scala (Kafka 3.9).

The cache runs on server-common's MockTime and its MockScheduler, as Kafka's test does: the checkpoint write after a
truncation is scheduled with no delay, so it runs inside the truncation. Java's OptionalInt/Optional are the port's
`int | None` / `EpochEntry | None`; a Map.Entry answer of endOffsetFor is the port's (epoch, offset) tuple.
TestUtils.tempFile becomes a file under pytest's tmp_path; TopicPartition is the one the 3.9 tree uses today.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import (
    LeaderEpochCheckpointFile,
)
from kafka_edu.v3_9.storage.storage.internals.epoch.leader_epoch_file_cache import LeaderEpochFileCache
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/epoch/LeaderEpochFileCacheTest.scala",
    cases=[
        "testPreviousEpoch",
        "shouldAddEpochAndMessageOffsetToCache",
        "shouldReturnLogEndOffsetIfLatestEpochRequested",
        "shouldReturnUndefinedOffsetIfUndefinedEpochRequested",
        "shouldNotOverwriteLogEndOffsetForALeaderEpochOnceItHasBeenAssigned",
        "shouldEnforceMonotonicallyIncreasingStartOffsets",
        "shouldNotOverwriteOffsetForALeaderEpochOnceItHasBeenAssigned",
        "shouldReturnUnsupportedIfNoEpochRecorded",
        "shouldReturnUnsupportedIfNoEpochRecordedAndUndefinedEpochRequested",
        "shouldReturnFirstEpochIfRequestedEpochLessThanFirstEpoch",
        "shouldTruncateIfMatchingEpochButEarlierStartingOffset",
        "shouldGetFirstOffsetOfSubsequentEpochWhenOffsetRequestedForPreviousEpoch",
        "shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested",
        "shouldNotUpdateEpochAndStartOffsetIfItDidNotChange",
        "shouldReturnInvalidOffsetIfEpochIsRequestedWhichIsNotCurrentlyTracked",
        "shouldSupportEpochsThatDoNotStartFromZero",
        "shouldPersistEpochsBetweenInstances",
        "shouldEnforceMonotonicallyIncreasingEpochs",
        "shouldEnforceOffsetsIncreaseMonotonically",
        "shouldIncreaseAndTrackEpochsAsLeadersChangeManyTimes",
        "shouldIncreaseAndTrackEpochsAsFollowerReceivesManyMessages",
        "shouldDropEntriesOnEpochBoundaryWhenRemovingLatestEntries",
        "shouldPreserveResetOffsetOnClearEarliestIfOneExists",
        "shouldUpdateSavedOffsetWhenOffsetToClearToIsBetweenEpochs",
        "shouldNotClearAnythingIfOffsetToEarly",
        "shouldNotClearAnythingIfOffsetToFirstOffset",
        "shouldRetainLatestEpochOnClearAllEarliest",
        "shouldUpdateOffsetBetweenEpochBoundariesOnClearEarliest",
        "shouldUpdateOffsetBetweenEpochBoundariesOnClearEarliest2",
        "shouldRetainLatestEpochOnClearAllEarliestAndUpdateItsOffset",
        "shouldDropEntriesBetweenEpochBoundaryWhenRemovingNewest",
        "shouldClearAllEntries",
        "shouldNotResetEpochHistoryHeadIfUndefinedPassed",
        "shouldNotResetEpochHistoryTailIfUndefinedPassed",
        "shouldFetchLatestEpochOfEmptyCache",
        "shouldFetchEndOffsetOfEmptyCache",
        "shouldClearEarliestOnEmptyCache",
        "shouldClearLatestOnEmptyCache",
        "testFindPreviousEpoch",
        "testFindPreviousEntry",
        "testFindNextEpoch",
        "testGetEpochEntry",
        "shouldFetchEpochForGivenOffset",
        "shouldWriteCheckpointOnTruncation",
    ],
)

TP = TopicPartition("TestTopic", 5)


def _temp_file(tmp_path: Path, name: str = "leader-epoch-checkpoint") -> Path:
    file = tmp_path / name
    file.touch()
    return file


@pytest.fixture
def checkpoint(tmp_path: Path) -> LeaderEpochCheckpointFile:
    return LeaderEpochCheckpointFile(_temp_file(tmp_path), LogDirFailureChannel(1))


@pytest.fixture
def cache(checkpoint: LeaderEpochCheckpointFile) -> LeaderEpochFileCache:
    return LeaderEpochFileCache(TP, checkpoint, MockTime().scheduler)


def test_previous_epoch(cache: LeaderEpochFileCache) -> None:
    assert cache.previous_epoch() is None

    cache.assign(2, 10)
    assert cache.previous_epoch() is None

    cache.assign(4, 15)
    assert cache.previous_epoch() == 2

    cache.assign(10, 20)
    assert cache.previous_epoch() == 4

    cache.truncate_from_end_async_flush(18)
    assert cache.previous_epoch() == 2


def test_should_add_epoch_and_message_offset_to_cache(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 10)
    log_end_offset = 11

    assert cache.latest_epoch() == 2
    assert cache.epoch_entries()[0] == EpochEntry(2, 10)
    assert cache.end_offset_for(2, log_end_offset) == (2, log_end_offset)  # the log end offset


def test_should_return_log_end_offset_if_latest_epoch_requested(cache: LeaderEpochFileCache) -> None:
    # just one epoch
    cache.assign(2, 11)
    cache.assign(2, 12)
    log_end_offset = 14

    assert cache.end_offset_for(2, log_end_offset) == (2, log_end_offset)


def test_should_return_undefined_offset_if_undefined_epoch_requested(cache: LeaderEpochFileCache) -> None:
    expected_epoch_end_offset = (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)

    cache.assign(2, 11)
    cache.assign(3, 12)

    # a bootstrapping follower asks for UNDEFINED_EPOCH
    epoch_and_offset_for = cache.end_offset_for(UNDEFINED_EPOCH, 0)

    assert epoch_and_offset_for == expected_epoch_end_offset, \
        "Expected undefined epoch and offset if undefined epoch requested. Cache not empty."


def test_should_not_overwrite_log_end_offset_for_a_leader_epoch_once_it_has_been_assigned(
        cache: LeaderEpochFileCache) -> None:
    log_end_offset = 9

    cache.assign(2, log_end_offset)

    # again, later
    cache.assign(2, 10)

    # the first offset stays
    assert cache.epoch_entries()[0].start_offset == log_end_offset
    assert cache.epoch_entries() == [EpochEntry(2, 9)]


def test_should_enforce_monotonically_increasing_start_offsets(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 9)

    # a new epoch at the same offset
    cache.assign(3, 9)

    # replaces the old one
    assert cache.epoch_entries() == [EpochEntry(3, 9)]


def test_should_not_overwrite_offset_for_a_leader_epoch_once_it_has_been_assigned(
        cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)

    # again, later, with a greater offset
    cache.assign(2, 10)

    # ignored
    assert cache.epoch_entries()[0].start_offset == 6


def test_should_return_unsupported_if_no_epoch_recorded(cache: LeaderEpochFileCache) -> None:
    assert cache.end_offset_for(0, 0) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)


def test_should_return_unsupported_if_no_epoch_recorded_and_undefined_epoch_requested(
        cache: LeaderEpochFileCache) -> None:
    # a follower on an older message format asks for UNDEFINED_EPOCH
    offset_for = cache.end_offset_for(UNDEFINED_EPOCH, 73)

    assert offset_for == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET), \
        "Expected undefined epoch and offset if undefined epoch requested. Empty cache."


def test_should_return_first_epoch_if_requested_epoch_less_than_first_epoch(cache: LeaderEpochFileCache) -> None:
    cache.assign(5, 11)
    cache.assign(6, 12)
    cache.assign(7, 13)

    epoch_and_offset = cache.end_offset_for(4, 0)

    assert epoch_and_offset == (4, 11)


def test_should_truncate_if_matching_epoch_but_earlier_starting_offset(cache: LeaderEpochFileCache) -> None:
    cache.assign(5, 11)
    cache.assign(6, 12)
    cache.assign(7, 13)

    # epoch 7 again, from an earlier offset
    cache.assign(7, 12)

    assert cache.end_offset_for(5, 0) == (5, 12)
    assert cache.end_offset_for(6, 0) == (5, 12)


def test_should_get_first_offset_of_subsequent_epoch_when_offset_requested_for_previous_epoch(
        cache: LeaderEpochFileCache) -> None:
    cache.assign(1, 11)
    cache.assign(1, 12)
    cache.assign(2, 13)
    cache.assign(2, 14)
    cache.assign(3, 15)
    cache.assign(3, 16)

    # the start offset of the next epoch
    assert cache.end_offset_for(2, 17) == (2, 15)


def test_should_return_next_available_epoch_if_there_is_no_exact_epoch_for_the_one_requested(
        cache: LeaderEpochFileCache) -> None:
    cache.assign(0, 10)
    cache.assign(2, 13)
    cache.assign(4, 17)

    assert cache.end_offset_for(1, 0) == (0, 13)
    assert cache.end_offset_for(2, 0) == (2, 17)
    assert cache.end_offset_for(3, 0) == (2, 17)


def test_should_not_update_epoch_and_start_offset_if_it_did_not_change(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(2, 7)

    assert len(cache.epoch_entries()) == 1
    assert cache.epoch_entries()[0] == EpochEntry(2, 6)


def test_should_return_invalid_offset_if_epoch_is_requested_which_is_not_currently_tracked(
        cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 100)

    assert cache.end_offset_for(3, 100) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)


def test_should_support_epochs_that_do_not_start_from_zero(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    log_end_offset = 7

    assert cache.end_offset_for(2, log_end_offset) == (2, log_end_offset)
    assert len(cache.epoch_entries()) == 1
    assert cache.epoch_entries()[0] == EpochEntry(2, 6)


def test_should_persist_epochs_between_instances(tmp_path: Path) -> None:
    checkpoint_path = _temp_file(tmp_path, "persisted-checkpoint").absolute()
    checkpoint = LeaderEpochCheckpointFile(checkpoint_path, LogDirFailureChannel(1))

    cache = LeaderEpochFileCache(TP, checkpoint, MockTime().scheduler)
    cache.assign(2, 6)

    # a new cache over a new checkpoint of the same file
    checkpoint2 = LeaderEpochCheckpointFile(checkpoint_path, LogDirFailureChannel(1))
    cache2 = LeaderEpochFileCache(TP, checkpoint2, MockTime().scheduler)

    assert len(cache2.epoch_entries()) == 1
    assert cache2.epoch_entries()[0] == EpochEntry(2, 6)


def test_should_enforce_monotonically_increasing_epochs(cache: LeaderEpochFileCache) -> None:
    cache.assign(1, 5)
    log_end_offset = 6
    cache.assign(2, 6)
    log_end_offset = 7

    # an epoch in the past at a different offset: the log is already inconsistent, and the cache truncates the
    # conflicting entries so that epochs and offsets still grow together
    cache.assign(1, 7)
    log_end_offset = 8

    # later epochs are gone
    assert cache.latest_epoch() == 1

    # epoch 1 now ends at the log end
    assert cache.end_offset_for(1, log_end_offset) == (1, 8)

    # and epoch 2 is unknown
    assert cache.end_offset_for(2, log_end_offset) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
    assert cache.epoch_entries()[0] == EpochEntry(1, 7)


def test_should_enforce_offsets_increase_monotonically(cache: LeaderEpochFileCache) -> None:
    # the epoch goes forward, the offset back
    cache.assign(2, 6)
    cache.assign(3, 5)

    # the last assignment wins; the conflicting entry is removed
    assert cache.epoch_entries()[0] == EpochEntry(3, 5)


def test_should_increase_and_track_epochs_as_leaders_change_many_times(cache: LeaderEpochFileCache) -> None:
    log_end_offset = 0

    cache.assign(0, 0)  # log end offset 0

    cache.assign(1, 0)  # log end offset 0

    # the epoch goes up
    assert cache.latest_epoch() == 1
    # epoch 1 still ends at 0
    assert cache.end_offset_for(1, log_end_offset) == (1, 0)
    # and so does epoch 0
    assert cache.end_offset_for(0, log_end_offset) == (0, 0)

    # 5 messages written in epoch 1
    log_end_offset = 5

    # epoch 1 ends at the log end
    assert cache.end_offset_for(1, log_end_offset) == (1, 5)
    # epoch 0 still at 0
    assert cache.end_offset_for(0, log_end_offset) == (0, 0)

    cache.assign(2, 5)  # log end offset 5

    log_end_offset = 10  # 5 more messages

    # epoch 2 ends at the log end
    assert cache.end_offset_for(2, log_end_offset) == (2, 10)

    # epoch 1 ends where epoch 2 starts
    assert cache.end_offset_for(1, log_end_offset) == (1, 5)

    # epoch 0 still at 0
    assert cache.end_offset_for(0, log_end_offset) == (0, 0)


def test_should_increase_and_track_epochs_as_follower_receives_many_messages(cache: LeaderEpochFileCache) -> None:
    cache.assign(0, 0)
    log_end_offset = 1
    cache.assign(0, 1)
    log_end_offset = 2
    cache.assign(0, 2)
    log_end_offset = 3

    # the epoch stays, the offsets grow
    assert cache.latest_epoch() == 0
    assert cache.end_offset_for(0, log_end_offset) == (0, log_end_offset)

    # messages of a greater epoch
    cache.assign(1, 3)
    log_end_offset = 4
    cache.assign(1, 4)
    log_end_offset = 5
    cache.assign(1, 5)
    log_end_offset = 6

    assert cache.latest_epoch() == 1
    assert cache.end_offset_for(1, log_end_offset) == (1, log_end_offset)

    cache.assign(2, 6)
    log_end_offset = 7
    cache.assign(2, 7)
    log_end_offset = 8
    cache.assign(2, 8)
    log_end_offset = 9

    assert cache.latest_epoch() == 2
    assert cache.end_offset_for(2, log_end_offset) == (2, log_end_offset)

    # an older epoch ends where the next one starts
    assert cache.end_offset_for(0, log_end_offset) == (0, 3)
    assert cache.end_offset_for(1, log_end_offset) == (1, 6)


def test_should_drop_entries_on_epoch_boundary_when_removing_latest_entries(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # truncated at an epoch boundary
    cache.truncate_from_end_async_flush(8)

    # the two latest epochs go (the truncation is inclusive)
    assert cache.epoch_entries() == [EpochEntry(2, 6)]


def test_should_preserve_reset_offset_on_clear_earliest_if_one_exists(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # reset to an offset on an epoch boundary
    cache.truncate_from_start_async_flush(8)

    # (3, 8) stays
    assert cache.epoch_entries() == [EpochEntry(3, 8), EpochEntry(4, 11)]


def test_should_update_saved_offset_when_offset_to_clear_to_is_between_epochs(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # reset to an offset between epoch boundaries
    cache.truncate_from_start_async_flush(9)

    # epoch 3 stays, now starting at 9
    assert cache.epoch_entries() == [EpochEntry(3, 9), EpochEntry(4, 11)]


def test_should_not_clear_anything_if_offset_to_early(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # reset to an offset before the first epoch's
    cache.truncate_from_start_async_flush(1)

    assert cache.epoch_entries() == [EpochEntry(2, 6), EpochEntry(3, 8), EpochEntry(4, 11)]


def test_should_not_clear_anything_if_offset_to_first_offset(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # reset to the first epoch's start offset
    cache.truncate_from_start_async_flush(6)

    assert cache.epoch_entries() == [EpochEntry(2, 6), EpochEntry(3, 8), EpochEntry(4, 11)]


def test_should_retain_latest_epoch_on_clear_all_earliest(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    cache.truncate_from_start_async_flush(11)

    # the last one stays
    assert cache.epoch_entries() == [EpochEntry(4, 11)]


def test_should_update_offset_between_epoch_boundaries_on_clear_earliest(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # between offsets 8 and 11
    cache.truncate_from_start_async_flush(9)

    # the middle entry moves
    assert cache.epoch_entries() == [EpochEntry(3, 9), EpochEntry(4, 11)]


def test_should_update_offset_between_epoch_boundaries_on_clear_earliest2(cache: LeaderEpochFileCache) -> None:
    cache.assign(0, 0)
    cache.assign(1, 7)
    cache.assign(2, 10)

    # between offsets 0 and 7
    cache.truncate_from_start_async_flush(5)

    # epoch 0 stays, moved to 5
    assert cache.epoch_entries() == [EpochEntry(0, 5), EpochEntry(1, 7), EpochEntry(2, 10)]


def test_should_retain_latest_epoch_on_clear_all_earliest_and_update_its_offset(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # past the last epoch's start
    cache.truncate_from_start_async_flush(15)

    # the last one stays, moved
    assert cache.epoch_entries() == [EpochEntry(4, 15)]


def test_should_drop_entries_between_epoch_boundary_when_removing_newest(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    # between epoch boundaries
    cache.truncate_from_end_async_flush(9)

    # the epochs before stay
    assert cache.latest_epoch() == 3
    assert cache.epoch_entries() == [EpochEntry(2, 6), EpochEntry(3, 8)]


def test_should_clear_all_entries(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    cache.clear_and_flush()

    assert len(cache.epoch_entries()) == 0


def test_should_not_reset_epoch_history_head_if_undefined_passed(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    cache.truncate_from_start_async_flush(UNDEFINED_EPOCH_OFFSET)

    # nothing happens
    assert len(cache.epoch_entries()) == 3


def test_should_not_reset_epoch_history_tail_if_undefined_passed(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    cache.truncate_from_end_async_flush(UNDEFINED_EPOCH_OFFSET)

    # nothing happens
    assert len(cache.epoch_entries()) == 3


def test_should_fetch_latest_epoch_of_empty_cache(cache: LeaderEpochFileCache) -> None:
    assert cache.latest_epoch() is None


def test_should_fetch_end_offset_of_empty_cache(cache: LeaderEpochFileCache) -> None:
    assert cache.end_offset_for(7, 0) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)


def test_should_clear_earliest_on_empty_cache(cache: LeaderEpochFileCache) -> None:
    cache.truncate_from_start_async_flush(7)


def test_should_clear_latest_on_empty_cache(cache: LeaderEpochFileCache) -> None:
    cache.truncate_from_end_async_flush(7)


def test_find_previous_epoch(cache: LeaderEpochFileCache) -> None:
    assert cache.previous_epoch(2) is None

    cache.assign(2, 10)
    assert cache.previous_epoch(2) is None

    cache.assign(4, 15)
    assert cache.previous_epoch(4) == 2

    cache.assign(10, 20)
    assert cache.previous_epoch(10) == 4

    cache.truncate_from_end_async_flush(18)
    assert cache.previous_epoch(cache.latest_epoch()) == 2


def test_find_previous_entry(cache: LeaderEpochFileCache) -> None:
    assert cache.previous_entry(2) is None

    cache.assign(2, 10)
    assert cache.previous_entry(2) is None

    cache.assign(4, 15)
    assert cache.previous_entry(4) == EpochEntry(2, 10)

    cache.assign(10, 20)
    assert cache.previous_entry(10) == EpochEntry(4, 15)

    cache.truncate_from_end_async_flush(18)
    assert cache.previous_entry(cache.latest_epoch()) == EpochEntry(2, 10)


def test_find_next_epoch(cache: LeaderEpochFileCache) -> None:
    cache.assign(0, 0)
    cache.assign(1, 100)
    cache.assign(2, 200)

    assert cache.next_epoch(-1) == 0
    assert cache.next_epoch(0) == 1
    assert cache.next_epoch(1) == 2
    assert cache.next_epoch(2) is None
    assert cache.next_epoch(100) is None


def test_get_epoch_entry(cache: LeaderEpochFileCache) -> None:
    cache.assign(2, 100)
    cache.assign(3, 500)
    cache.assign(5, 1000)

    assert cache.epoch_entry(2) == EpochEntry(2, 100)
    assert cache.epoch_entry(3) == EpochEntry(3, 500)
    assert cache.epoch_entry(5) == EpochEntry(5, 1000)


def test_should_fetch_epoch_for_given_offset(cache: LeaderEpochFileCache) -> None:
    cache.assign(0, 10)
    cache.assign(1, 20)
    cache.assign(5, 30)

    assert cache.epoch_for_offset(25) == 1
    assert cache.epoch_for_offset(20) == 1
    assert cache.epoch_for_offset(30) == 5
    assert cache.epoch_for_offset(50) == 5
    assert cache.epoch_for_offset(5) is None


def test_should_write_checkpoint_on_truncation(cache: LeaderEpochFileCache,
                                               checkpoint: LeaderEpochCheckpointFile) -> None:
    cache.assign(2, 6)
    cache.assign(3, 8)
    cache.assign(4, 11)

    cache.truncate_from_end_async_flush(11)
    cache.truncate_from_start_async_flush(8)

    assert checkpoint.read() == [EpochEntry(3, 8)]
