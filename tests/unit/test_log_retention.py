"""Scenarios for ListOffsets by timestamp and for retention: whole old segments go, the active one stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.record.file_records import build_batch
from kafka_edu.v1_0_2.core.log.log import Log, OffsetOutOfRangeException
from kafka_edu.v1_0_2.core.log.log_config import LogConfig

T0 = 1_700_000_000_000
MINUTE = 60_000


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def log_with_minutes(tmp_path: Path, clock: Clock, minutes: int = 6, **config: object) -> Log:
    """One batch per minute, two batches per segment (so segments hold offsets 0-1, 2-3, 4-5)."""
    batch_size = len(build_batch([b"m0"], keys=[b"k"]))
    log = Log(tmp_path / "clicks-0", LogConfig(segment_bytes=batch_size * 2, **config), time_ms=clock)
    for minute in range(minutes):
        log.append_as_leader(build_batch([b"m%d" % minute], timestamp_ms=T0 + minute * MINUTE, keys=[b"k"]),
                             leader_epoch=0)
    return log


def test_list_offsets_by_timestamp(tmp_path: Path) -> None:
    log = log_with_minutes(tmp_path, Clock(T0))
    assert log.number_of_segments == 3
    assert log.fetch_offsets_by_timestamp(-2) == (-1, 0)
    assert log.fetch_offsets_by_timestamp(-1) == (-1, 6)
    assert log.fetch_offsets_by_timestamp(T0) == (T0, 0)
    assert log.fetch_offsets_by_timestamp(T0 + 3 * MINUTE) == (T0 + 3 * MINUTE, 3)
    # Between two records: the first one at or after the target.
    assert log.fetch_offsets_by_timestamp(T0 + 4 * MINUTE - 1) == (T0 + 4 * MINUTE, 4)
    assert log.fetch_offsets_by_timestamp(T0 + 10 * MINUTE) is None


def test_nothing_is_deleted_before_the_high_watermark_is_known(tmp_path: Path) -> None:
    clock = Clock(T0)
    log = log_with_minutes(tmp_path, clock, retention_ms=MINUTE)
    clock.now = T0 + 60 * MINUTE
    assert log.delete_old_segments() == 0
    log.on_high_watermark_incremented(log.log_end_offset - 1)
    # The active segment holds offset 5, at the high watermark: it stays.
    assert log.delete_old_segments() == 2
    log.on_high_watermark_incremented(log.log_end_offset)
    # Everything is replicated and expired: Kafka rolls an empty segment first, then deletes the old active one.
    assert log.delete_old_segments() == 1
    assert [s.base_offset for s in log.log_segments()] == [6]
    assert (log.log_start_offset, log.log_end_offset) == (6, 6)
    assert log.append_as_leader(build_batch([b"next"]), leader_epoch=0).first_offset == 6


def test_retention_ms_deletes_whole_segments_by_their_largest_timestamp(tmp_path: Path) -> None:
    clock = Clock(T0 + 4 * MINUTE)
    log = log_with_minutes(tmp_path, clock, retention_ms=2 * MINUTE + 1)
    log.on_high_watermark_incremented(log.log_end_offset)
    # Segment 0-1 peaks at minute 1 (3 minutes ago): gone. Segment 2-3 peaks at minute 3: kept.
    assert log.delete_old_segments() == 1
    assert [s.base_offset for s in log.log_segments()] == [2, 4]
    assert log.log_start_offset == 2
    assert log.fetch_offsets_by_timestamp(-2) == (-1, 2)
    with pytest.raises(OffsetOutOfRangeException):
        log.read(1, 1 << 20)
    assert not (tmp_path / "clicks-0" / "00000000000000000000.log").exists()


def test_retention_bytes_keeps_the_newest_segments_that_fit(tmp_path: Path) -> None:
    clock = Clock(T0)
    batch_size = len(build_batch([b"m0"], keys=[b"k"]))
    log = log_with_minutes(tmp_path, clock, retention_bytes=batch_size * 3)
    log.on_high_watermark_incremented(log.log_end_offset)
    # 6 batches, 3 allowed: only whole segments go, so one segment (2 batches) is deleted, not 3 batches.
    assert log.delete_old_segments() == 1
    assert log.size == batch_size * 4
    assert log.log_start_offset == 2


def test_segments_below_the_log_start_offset_are_deleted(tmp_path: Path) -> None:
    log = log_with_minutes(tmp_path, Clock(T0))
    log.on_high_watermark_incremented(log.log_end_offset)
    log.maybe_increment_log_start_offset(5)  # DeleteRecords up to offset 5
    assert log.delete_old_segments() == 2
    assert [s.base_offset for s in log.log_segments()] == [4]
    assert log.log_start_offset == 5
    assert log.fetch_offsets_by_timestamp(T0) == (T0 + 5 * MINUTE, 5)


def test_compacted_topics_keep_everything(tmp_path: Path) -> None:
    clock = Clock(T0 + 60 * MINUTE)
    log = log_with_minutes(tmp_path, clock, retention_ms=MINUTE, cleanup_policy="compact")
    log.on_high_watermark_incremented(log.log_end_offset)
    assert log.delete_old_segments() == 0
    assert log.number_of_segments == 3
