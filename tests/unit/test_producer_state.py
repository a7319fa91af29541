"""Scenarios for idempotent producers: sequences, retries, fencing, and state that outlives a restart or a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from kafka.record.default_records import DefaultRecordBatchBuilder

from kafka_edu.v1_0_2.clients.common.errors import (
    OutOfOrderSequenceException,
    ProducerFencedException,
    UnknownProducerIdException,
)
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.producer_state_manager import (
    CorruptSnapshotException,
    ProducerIdEntry,
    read_snapshot,
    write_snapshot,
)

NOW = 1_700_000_000_000
PID = 4000


def idempotent_batch(base_sequence: int, n: int = 2, epoch: int = 0, producer_id: int = PID) -> bytes:
    """What an idempotent kafka-python producer sends: producer id, epoch and the sequence of the first record."""
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=producer_id,
                                        producer_epoch=epoch, base_sequence=base_sequence, batch_size=1 << 20)
    for i in range(n):
        builder.append(i, timestamp=NOW, key=None, value=b"seq-%d" % (base_sequence + i), headers=[])
    return bytes(builder.build())


def open_log(log_dir: Path, **config: int) -> Log:
    return Log(log_dir, LogConfig(**config), time_ms=lambda: NOW)


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs" / "payments-0"


def test_in_order_batches_are_appended_and_a_retry_gets_the_original_offsets(log_dir: Path) -> None:
    log = open_log(log_dir)
    assert log.append_as_leader(idempotent_batch(0), 0).first_offset == 0
    assert log.append_as_leader(idempotent_batch(2), 0).first_offset == 2
    assert log.append_as_leader(idempotent_batch(4), 0).first_offset == 4

    # The response to seq 2-3 was lost; the producer sends it again. Nothing is written twice.
    retry = log.append_as_leader(idempotent_batch(2), 0)
    assert (retry.first_offset, retry.last_offset) == (2, 3)
    retry_last = log.append_as_leader(idempotent_batch(4), 0)
    assert (retry_last.first_offset, retry_last.last_offset) == (4, 5)
    assert log.log_end_offset == 6
    assert log.active_producers_with_last_sequence == {PID: 5}


def test_a_gap_in_sequences_is_out_of_order(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(idempotent_batch(0), 0)
    with pytest.raises(OutOfOrderSequenceException):
        log.append_as_leader(idempotent_batch(3), 0)
    assert log.log_end_offset == 2
    assert log.append_as_leader(idempotent_batch(2), 0).first_offset == 2


def test_an_older_epoch_is_fenced_and_a_new_epoch_restarts_at_zero(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(idempotent_batch(0, epoch=1), 0)
    with pytest.raises(ProducerFencedException):
        log.append_as_leader(idempotent_batch(2, epoch=0), 0)
    with pytest.raises(OutOfOrderSequenceException, match="new epoch"):
        log.append_as_leader(idempotent_batch(5, epoch=2), 0)
    assert log.append_as_leader(idempotent_batch(0, epoch=2), 0).first_offset == 2
    assert log.log_end_offset == 4


def test_a_producer_the_broker_never_saw_must_start_at_sequence_zero(log_dir: Path) -> None:
    log = open_log(log_dir)
    with pytest.raises(UnknownProducerIdException):
        log.append_as_leader(idempotent_batch(7), 0)
    # A follower does not check sequences: it copies what the leader accepted.
    follower = Log(log_dir.parent.parent / "follower" / "payments-0", LogConfig(), time_ms=lambda: NOW)
    leader = open_log(log_dir.parent.parent / "leader" / "payments-0")
    leader.append_as_leader(idempotent_batch(0), 0)
    follower.append_as_follower(leader.read(0, 1 << 20))
    assert follower.active_producers_with_last_sequence == {PID: 1}


def test_state_survives_a_clean_restart_through_the_snapshot(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(idempotent_batch(0), 0)
    log.append_as_leader(idempotent_batch(2), 0)
    log.close()
    (log_dir.parent / Log.CleanShutdownFile).touch()
    assert [p.name for p in sorted(log_dir.glob("*.snapshot"))] == ["00000000000000000004.snapshot"]

    reopened = open_log(log_dir)
    retry = reopened.append_as_leader(idempotent_batch(2), 0)
    assert (retry.first_offset, retry.last_offset) == (2, 3)
    with pytest.raises(OutOfOrderSequenceException):
        reopened.append_as_leader(idempotent_batch(6), 0)
    assert reopened.append_as_leader(idempotent_batch(4), 0).first_offset == 4


def test_state_is_rebuilt_from_the_log_after_a_crash(log_dir: Path) -> None:
    batch_size = len(idempotent_batch(0))
    log = open_log(log_dir, segment_bytes=batch_size * 2)
    for seq in range(0, 10, 2):
        log.append_as_leader(idempotent_batch(seq), 0)
    # Each roll left a snapshot at the new segment's base offset.
    assert [p.name[:20] for p in sorted(log_dir.glob("*.snapshot"))] == [f"{o:020d}" for o in (4, 8)]
    # kill -9: no close, no clean-shutdown marker, and the snapshots lost too.
    for snapshot in log_dir.glob("*.snapshot"):
        snapshot.unlink()

    recovered = open_log(log_dir, segment_bytes=batch_size * 2)
    assert recovered.log_end_offset == 10
    assert recovered.active_producers_with_last_sequence == {PID: 9}
    retry = recovered.append_as_leader(idempotent_batch(8), 0)
    assert (retry.first_offset, retry.last_offset) == (8, 9)
    with pytest.raises(OutOfOrderSequenceException):
        recovered.append_as_leader(idempotent_batch(12), 0)
    assert recovered.append_as_leader(idempotent_batch(10), 0).first_offset == 10


def test_recovery_drops_state_of_a_torn_batch(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(idempotent_batch(0), 0)
    log.append_as_leader(idempotent_batch(2), 0)
    segment = log_dir / "00000000000000000000.log"
    with open(segment, "r+b") as f:
        f.truncate(segment.stat().st_size - 5)  # the second batch was only half written

    recovered = open_log(log_dir)
    assert recovered.log_end_offset == 2
    assert recovered.active_producers_with_last_sequence == {PID: 1}
    assert recovered.append_as_leader(idempotent_batch(2), 0).first_offset == 2


def test_a_corrupt_snapshot_is_ignored_and_the_log_rescanned(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(idempotent_batch(0), 0)
    log.close()
    snapshot = log_dir / "00000000000000000002.snapshot"
    data = bytearray(snapshot.read_bytes())
    data[-1] ^= 0xFF
    snapshot.write_bytes(bytes(data))
    with pytest.raises(CorruptSnapshotException):
        read_snapshot(snapshot)

    reopened = open_log(log_dir)  # no clean-shutdown marker: recovery rescans the segment
    assert reopened.active_producers_with_last_sequence == {PID: 1}


def test_snapshot_round_trip(tmp_path: Path) -> None:
    entry = ProducerIdEntry(PID, producer_epoch=3)
    entry.add_batch(3, last_seq=9, last_offset=109, offset_delta=4, timestamp=NOW)
    write_snapshot(tmp_path / "00000000000000000110.snapshot", {PID: entry})
    (loaded,) = read_snapshot(tmp_path / "00000000000000000110.snapshot")
    assert (loaded.producer_id, loaded.producer_epoch, loaded.first_seq, loaded.last_seq) == (PID, 3, 5, 9)
    assert (loaded.first_offset, loaded.last_data_offset, loaded.last_timestamp) == (105, 109, NOW)


def test_producers_whose_data_was_deleted_are_forgotten(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(idempotent_batch(0), 0)
    log.append_as_leader(idempotent_batch(0, producer_id=PID + 1), 0)
    log.maybe_increment_log_start_offset(2)
    assert log.active_producers_with_last_sequence == {PID + 1: 1}
    with pytest.raises(UnknownProducerIdException):
        log.append_as_leader(idempotent_batch(2), 0)
