"""Port of core/src/test/scala/unit/kafka/server/epoch/LeaderEpochFileCacheTest.scala (Kafka 1.0.2).

Kafka hands the cache a `() => LogOffsetMetadata`; the port's cache takes the log end offset as a plain `() -> int`
(what `Log` gives it), so each case's `leoFinder` answers the offset itself. `epochEntries` is a list here, Kafka's a
ListBuffer: the cases compare it to lists. The checkpoint of every case is a LeaderEpochCheckpointFile on a fresh
temporary file, as Kafka's `setUp` makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.checkpoints.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import EpochEntry, LeaderEpochFileCache
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/server/epoch/LeaderEpochFileCacheTest.scala",
    cases=[
        "shouldAddEpochAndMessageOffsetToCache",
        "shouldReturnLogEndOffsetIfLatestEpochRequested",
        "shouldReturnUndefinedOffsetIfUndefinedEpochRequested",
        "shouldNotOverwriteLogEndOffsetForALeaderEpochOnceItHasBeenAssigned",
        "shouldAllowLeaderEpochToChangeEvenIfOffsetDoesNot",
        "shouldNotOverwriteOffsetForALeaderEpochOnceItHasBeenAssigned",
        "shouldReturnUnsupportedIfNoEpochRecorded",
        "shouldReturnUnsupportedIfNoEpochRecordedAndUndefinedEpochRequested",
        "shouldReturnUnsupportedIfRequestedEpochLessThanFirstEpoch",
        "shouldGetFirstOffsetOfSubsequentEpochWhenOffsetRequestedForPreviousEpoch",
        "shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested",
        "shouldNotUpdateEpochAndStartOffsetIfItDidNotChange",
        "shouldReturnInvalidOffsetIfEpochIsRequestedWhichIsNotCurrentlyTracked",
        "shouldSupportEpochsThatDoNotStartFromZero",
        "shouldPersistEpochsBetweenInstances",
        "shouldNotLetEpochGoBackwardsEvenIfMessageEpochsDo",
        "shouldNotLetOffsetsGoBackwardsEvenIfEpochsProgress",
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
    ],
)

TP = TopicPartition("TestTopic", 5)


class _Leo:
    """The test's `var leo` and its `leoFinder`: the log end offset the cache sees when it asks."""

    def __init__(self, value: int = 0) -> None:
        self.value = value

    def __call__(self) -> int:
        return self.value


def _temp_file(directory: Path) -> Path:
    """TestUtils.tempFile: a new, empty file."""
    file = directory / "kafka.tmp"
    file.touch()
    return file


@pytest.fixture
def checkpoint(tmp_path: Path) -> LeaderEpochCheckpointFile:
    """setUp."""
    return LeaderEpochCheckpointFile(_temp_file(tmp_path))


@pytest.fixture
def new_cache(checkpoint: LeaderEpochCheckpointFile) -> Callable[[Callable[[], int]], LeaderEpochFileCache]:
    return lambda leo: LeaderEpochFileCache(TP, leo, checkpoint)


NewCache = Callable[[Callable[[], int]], LeaderEpochFileCache]


def _cache_with_epochs_2_3_4(new_cache: NewCache) -> LeaderEpochFileCache:
    """The given of most clearing cases: epochs 2, 3, 4 starting at 6, 8, 11."""
    cache = new_cache(_Leo(0))
    cache.assign(epoch=2, offset=6)
    cache.assign(epoch=3, offset=8)
    cache.assign(epoch=4, offset=11)
    return cache


def test_should_add_epoch_and_message_offset_to_cache(new_cache: NewCache) -> None:
    leo = _Leo(0)
    cache = new_cache(leo)

    cache.assign(epoch=2, offset=10)
    leo.value = 11

    assert cache.latest_epoch() == 2
    assert cache.epoch_entries()[0] == EpochEntry(2, 10)
    assert cache.end_offset_for(2) == 11


def test_should_return_log_end_offset_if_latest_epoch_requested(new_cache: NewCache) -> None:
    leo = _Leo(0)
    cache = new_cache(leo)

    cache.assign(epoch=2, offset=11)
    cache.assign(epoch=2, offset=12)
    leo.value = 14

    assert cache.end_offset_for(2) == 14


def test_should_return_undefined_offset_if_undefined_epoch_requested(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))
    cache.assign(epoch=2, offset=11)
    cache.assign(epoch=3, offset=12)

    offset_for = cache.end_offset_for(UNDEFINED_EPOCH)

    assert offset_for == UNDEFINED_EPOCH_OFFSET


def test_should_not_overwrite_log_end_offset_for_a_leader_epoch_once_it_has_been_assigned(new_cache: NewCache) -> None:
    leo = _Leo(0)
    leo.value = 9
    cache = new_cache(leo)

    cache.assign(2, leo.value)

    cache.assign(2, 10)

    assert cache.epoch_entries()[0].start_offset == leo.value


def test_should_allow_leader_epoch_to_change_even_if_offset_does_not(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))
    cache.assign(2, 9)

    cache.assign(3, 9)

    assert cache.epoch_entries() == [EpochEntry(2, 9), EpochEntry(3, 9)]


def test_should_not_overwrite_offset_for_a_leader_epoch_once_it_has_been_assigned(new_cache: NewCache) -> None:
    cache = new_cache(lambda: 0)
    cache.assign(2, 6)

    cache.assign(2, 10)

    assert cache.epoch_entries()[0].start_offset == 6


def test_should_return_unsupported_if_no_epoch_recorded(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    assert cache.end_offset_for(0) == UNDEFINED_EPOCH_OFFSET


def test_should_return_unsupported_if_no_epoch_recorded_and_undefined_epoch_requested(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(73))

    offset_for = cache.end_offset_for(UNDEFINED_EPOCH)

    assert offset_for == UNDEFINED_EPOCH_OFFSET


def test_should_return_unsupported_if_requested_epoch_less_than_first_epoch(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))
    cache.assign(epoch=5, offset=11)
    cache.assign(epoch=6, offset=12)
    cache.assign(epoch=7, offset=13)

    offset = cache.end_offset_for(5 - 1)

    assert offset == UNDEFINED_EPOCH_OFFSET


def test_should_get_first_offset_of_subsequent_epoch_when_offset_requested_for_previous_epoch(
        new_cache: NewCache) -> None:
    leo = _Leo(0)
    cache = new_cache(leo)

    cache.assign(epoch=1, offset=11)
    cache.assign(epoch=1, offset=12)
    cache.assign(epoch=2, offset=13)
    cache.assign(epoch=2, offset=14)
    cache.assign(epoch=3, offset=15)
    cache.assign(epoch=3, offset=16)
    leo.value = 17

    assert cache.end_offset_for(2) == 15


def test_should_return_next_available_epoch_if_there_is_no_exact_epoch_for_the_one_requested(
        new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    cache.assign(epoch=0, offset=10)
    cache.assign(epoch=2, offset=13)
    cache.assign(epoch=4, offset=17)

    assert cache.end_offset_for(requested_epoch=1) == 13
    assert cache.end_offset_for(requested_epoch=2) == 17


def test_should_not_update_epoch_and_start_offset_if_it_did_not_change(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    cache.assign(epoch=2, offset=6)
    cache.assign(epoch=2, offset=7)

    assert len(cache.epoch_entries()) == 1
    assert cache.epoch_entries()[0] == EpochEntry(2, 6)


def test_should_return_invalid_offset_if_epoch_is_requested_which_is_not_currently_tracked(
        new_cache: NewCache) -> None:
    cache = new_cache(_Leo(100))

    cache.assign(epoch=2, offset=100)

    assert cache.end_offset_for(3) == UNDEFINED_EPOCH_OFFSET


def test_should_support_epochs_that_do_not_start_from_zero(new_cache: NewCache) -> None:
    leo = _Leo(0)
    cache = new_cache(leo)

    cache.assign(epoch=2, offset=6)
    leo.value = 7

    assert cache.end_offset_for(2) == leo.value
    assert len(cache.epoch_entries()) == 1
    assert cache.epoch_entries()[0] == EpochEntry(2, 6)


def test_should_persist_epochs_between_instances(tmp_path: Path) -> None:
    leo = _Leo(0)
    checkpoint_path = _temp_file(tmp_path).absolute()
    checkpoint = LeaderEpochCheckpointFile(checkpoint_path)

    cache = LeaderEpochFileCache(TP, leo, checkpoint)
    cache.assign(epoch=2, offset=6)

    checkpoint2 = LeaderEpochCheckpointFile(checkpoint_path)
    cache2 = LeaderEpochFileCache(TP, leo, checkpoint2)

    assert len(cache2.epoch_entries()) == 1
    assert cache2.epoch_entries()[0] == EpochEntry(2, 6)


def test_should_not_let_epoch_go_backwards_even_if_message_epochs_do(new_cache: NewCache) -> None:
    leo = _Leo(0)
    cache = new_cache(leo)

    cache.assign(epoch=1, offset=5)
    leo.value = 6
    cache.assign(epoch=2, offset=6)
    leo.value = 7

    cache.assign(epoch=1, offset=7)
    leo.value = 8

    assert cache.latest_epoch() == 2
    assert cache.end_offset_for(1) == 6
    assert cache.end_offset_for(2) == 8
    assert cache.epoch_entries()[0] == EpochEntry(1, 5)
    assert cache.epoch_entries()[1] == EpochEntry(2, 6)


def test_should_not_let_offsets_go_backwards_even_if_epochs_progress(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    cache.assign(epoch=2, offset=6)
    cache.assign(epoch=3, offset=5)

    assert cache.epoch_entries()[0] == EpochEntry(2, 6)


def test_should_increase_and_track_epochs_as_leaders_change_many_times(new_cache: NewCache) -> None:
    leo = _Leo(0)
    cache = new_cache(leo)
    cache.assign(epoch=0, offset=0)

    cache.assign(epoch=1, offset=0)

    assert cache.latest_epoch() == 1
    assert cache.end_offset_for(1) == 0
    assert cache.end_offset_for(0) == 0

    leo.value = 5

    assert cache.end_offset_for(1) == 5
    assert cache.end_offset_for(0) == 0

    cache.assign(epoch=2, offset=5)

    leo.value = 10

    assert cache.end_offset_for(2) == 10
    assert cache.end_offset_for(1) == 5
    assert cache.end_offset_for(0) == 0


def test_should_increase_and_track_epochs_as_follower_receives_many_messages(new_cache: NewCache) -> None:
    leo = _Leo(0)
    cache = new_cache(leo)

    def append(epoch: int, offset: int) -> None:
        cache.assign(epoch=epoch, offset=offset)
        leo.value = offset + 1

    append(0, 0)
    append(0, 1)
    append(0, 2)

    assert cache.latest_epoch() == 0
    assert cache.end_offset_for(0) == leo.value

    append(1, 3)
    append(1, 4)
    append(1, 5)

    assert cache.latest_epoch() == 1
    assert cache.end_offset_for(1) == leo.value

    append(2, 6)
    append(2, 7)
    append(2, 8)

    assert cache.latest_epoch() == 2
    assert cache.end_offset_for(2) == leo.value

    assert cache.end_offset_for(0) == 3
    assert cache.end_offset_for(1) == 6


def test_should_drop_entries_on_epoch_boundary_when_removing_latest_entries(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_latest(offset=8)

    assert cache.epoch_entries() == [EpochEntry(2, 6)]


def test_should_preserve_reset_offset_on_clear_earliest_if_one_exists(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=8)

    assert cache.epoch_entries() == [EpochEntry(3, 8), EpochEntry(4, 11)]


def test_should_update_saved_offset_when_offset_to_clear_to_is_between_epochs(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=9)

    assert cache.epoch_entries() == [EpochEntry(3, 9), EpochEntry(4, 11)]


def test_should_not_clear_anything_if_offset_to_early(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=1)

    assert cache.epoch_entries() == [EpochEntry(2, 6), EpochEntry(3, 8), EpochEntry(4, 11)]


def test_should_not_clear_anything_if_offset_to_first_offset(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=6)

    assert cache.epoch_entries() == [EpochEntry(2, 6), EpochEntry(3, 8), EpochEntry(4, 11)]


def test_should_retain_latest_epoch_on_clear_all_earliest(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=11)

    assert cache.epoch_entries() == [EpochEntry(4, 11)]


def test_should_update_offset_between_epoch_boundaries_on_clear_earliest(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=9)

    assert cache.epoch_entries() == [EpochEntry(3, 9), EpochEntry(4, 11)]


def test_should_update_offset_between_epoch_boundaries_on_clear_earliest2(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))
    cache.assign(epoch=0, offset=0)
    cache.assign(epoch=1, offset=7)
    cache.assign(epoch=2, offset=10)

    cache.clear_and_flush_earliest(offset=5)

    assert cache.epoch_entries() == [EpochEntry(0, 5), EpochEntry(1, 7), EpochEntry(2, 10)]


def test_should_retain_latest_epoch_on_clear_all_earliest_and_update_its_offset(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=15)

    assert cache.epoch_entries() == [EpochEntry(4, 15)]


def test_should_drop_entries_between_epoch_boundary_when_removing_newest(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_latest(offset=9)

    assert cache.latest_epoch() == 3
    assert cache.epoch_entries() == [EpochEntry(2, 6), EpochEntry(3, 8)]


def test_should_clear_all_entries(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush()

    assert len(cache.epoch_entries()) == 0


def test_should_not_reset_epoch_history_head_if_undefined_passed(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_latest(offset=UNDEFINED_EPOCH_OFFSET)

    assert len(cache.epoch_entries()) == 3


def test_should_not_reset_epoch_history_tail_if_undefined_passed(new_cache: NewCache) -> None:
    cache = _cache_with_epochs_2_3_4(new_cache)

    cache.clear_and_flush_earliest(offset=UNDEFINED_EPOCH_OFFSET)

    assert len(cache.epoch_entries()) == 3


def test_should_fetch_latest_epoch_of_empty_cache(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    assert cache.latest_epoch() == -1


def test_should_fetch_end_offset_of_empty_cache(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    assert cache.end_offset_for(7) == -1


def test_should_clear_earliest_on_empty_cache(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    cache.clear_and_flush_earliest(7)


def test_should_clear_latest_on_empty_cache(new_cache: NewCache) -> None:
    cache = new_cache(_Leo(0))

    cache.clear_and_flush_latest(7)
