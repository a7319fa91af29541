"""LeaderEpochFileCache and its checkpoint file (kafka.server.epoch, 1.0.2 + the 3.9 end-offset lookup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_edu.v1_0_2.core.server.checkpoints.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile, new_file
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import (
    UNDEFINED_EPOCH,
    UNDEFINED_EPOCH_OFFSET,
    EpochEntry,
    LeaderEpochFileCache,
)


def cache_at(tmp_path: Path, leo: list[int]) -> LeaderEpochFileCache:
    return LeaderEpochFileCache("tp-0", lambda: leo[0], LeaderEpochCheckpointFile(new_file(tmp_path)))


def test_assign_keeps_each_epochs_first_offset_and_survives_a_reopen(tmp_path: Path) -> None:
    leo = [0]
    cache = cache_at(tmp_path, leo)
    cache.assign(1, 0)
    cache.assign(1, 5)  # the same epoch again: its start does not move
    cache.assign(3, 10)
    cache.assign(2, 12)  # an older epoch after a newer one: ignored (out of order)
    assert cache.epoch_entries() == [EpochEntry(1, 0), EpochEntry(3, 10)]
    assert cache.latest_epoch() == 3
    assert (tmp_path / "leader-epoch-checkpoint").read_text() == "0\n2\n1 0\n3 10\n"
    reopened = cache_at(tmp_path, leo)
    assert reopened.epoch_entries() == [EpochEntry(1, 0), EpochEntry(3, 10)]


def test_end_offsets_for_epochs(tmp_path: Path) -> None:
    leo = [20]
    cache = cache_at(tmp_path, leo)
    assert cache.latest_epoch() == UNDEFINED_EPOCH
    for epoch, offset in [(2, 0), (4, 7), (5, 15)]:
        cache.assign(epoch, offset)
    # 1.0.2's form: the next epoch's start, the LEO for the latest, undefined outside the cache
    assert cache.end_offset_for(2) == 7 and cache.end_offset_for(3) == 7 and cache.end_offset_for(5) == 20
    assert cache.end_offset_for(1) == UNDEFINED_EPOCH_OFFSET and cache.end_offset_for(9) == UNDEFINED_EPOCH_OFFSET
    # 3.9's form: (the epoch the log has at or below the requested one, where it ends)
    assert cache.end_offset_for_epoch(5, 20) == (5, 20)
    assert cache.end_offset_for_epoch(4, 20) == (4, 15)
    assert cache.end_offset_for_epoch(3, 20) == (2, 7)  # epoch 3 never happened here: epoch 2 ends at 7
    assert cache.end_offset_for_epoch(1, 20) == (1, 0)  # older than all: the oldest known start
    assert cache.end_offset_for_epoch(7, 20) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
    assert cache.end_offset_for_epoch(UNDEFINED_EPOCH, 20) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)


def test_truncation_from_either_end(tmp_path: Path) -> None:
    cache = cache_at(tmp_path, [30])
    for epoch, offset in [(1, 0), (2, 10), (3, 20)]:
        cache.assign(epoch, offset)
    cache.clear_and_flush_latest(15)  # the log lost offsets >= 15: epoch 3 is gone
    assert cache.epoch_entries() == [EpochEntry(1, 0), EpochEntry(2, 10)]
    cache.clear_and_flush_latest(10)  # the start of epoch 2 itself: gone too
    assert cache.epoch_entries() == [EpochEntry(1, 0)]
    cache.assign(2, 10)
    cache.assign(3, 20)
    cache.clear_and_flush_earliest(12)  # the log now starts inside epoch 2
    assert cache.epoch_entries() == [EpochEntry(2, 12), EpochEntry(3, 20)]
    cache.clear_and_flush_earliest(20)
    assert cache.epoch_entries() == [EpochEntry(3, 20)]
    cache.clear_and_flush()
    assert cache.epoch_entries() == [] and cache_at(tmp_path, [0]).epoch_entries() == []


def test_a_damaged_checkpoint_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "leader-epoch-checkpoint"
    file.write_text("0\n2\n1 0\n")
    with pytest.raises(OSError, match="Expected 2 entries"):
        LeaderEpochCheckpointFile(file).read()
    file.write_text("7\n0\n")
    with pytest.raises(OSError, match="Unrecognized version"):
        LeaderEpochCheckpointFile(file).read()
    file.write_text("0\n1\n1 0 9\n")
    with pytest.raises(OSError, match="Malformed line"):
        LeaderEpochCheckpointFile(file).read()
