"""KafkaMetadataLog over kafka_edu.log.Log: appends with leader epochs, divergence checks, truncation, recovery."""

from __future__ import annotations

from pathlib import Path

from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_records
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import EpochEntry
from kafka_edu.v3_9.clients.common.uuid import METADATA_TOPIC_ID
from kafka_edu.v3_9.core.raft.kafka_metadata_log import METADATA_PARTITION, KafkaMetadataLog, MetadataLogConfig
from kafka_edu.v3_9.raft.raft.isolation import Isolation
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.valid_offset_and_epoch import Kind


def open_log(tmp_path: Path) -> KafkaMetadataLog:
    directory = tmp_path / "__cluster_metadata-0"
    directory.mkdir(exist_ok=True)
    return KafkaMetadataLog.apply(METADATA_PARTITION, METADATA_TOPIC_ID, directory, None, MetadataLogConfig())


def append_leader(log_: KafkaMetadataLog, epoch: int, values: list[bytes]) -> None:
    log_.initialize_leader_epoch(epoch)
    offset = log_.end_offset().offset
    log_.append_as_leader(bytes(with_records(offset, 1_700_000_000_000, epoch, values).buffer), epoch)


def test_epochs_divergence_and_truncation(tmp_path: Path) -> None:
    log_ = open_log(tmp_path)
    append_leader(log_, 1, [b"a", b"b"])
    append_leader(log_, 3, [b"c", b"d"])
    assert (log_.end_offset().offset, log_.last_fetched_epoch()) == (4, 3)
    assert log_.leader_epoch_cache.epoch_entries() == [EpochEntry(1, 0), EpochEntry(3, 2)]
    assert log_.end_offset_for_epoch(2) == OffsetAndEpoch(2, 1)  # epoch 2 never happened here
    # a follower that has (offset 3, epoch 2) diverged: it must truncate to where epoch 1 ends here
    result = log_.validate_offset_and_epoch(3, 2)
    assert (result.kind, result.offset_and_epoch) == (Kind.DIVERGING, OffsetAndEpoch(2, 1))
    assert log_.validate_offset_and_epoch(3, 3).kind is Kind.VALID
    assert log_.truncate_to_end_offset(OffsetAndEpoch(3, 3)) == 3
    assert log_.end_offset().offset == 3 and log_.leader_epoch_cache.latest_epoch() == 3
    assert log_.truncate_to_end_offset(OffsetAndEpoch(2, 2)) == 2  # our epoch 3 starts at 2: cut there
    assert log_.leader_epoch_cache.epoch_entries() == [EpochEntry(1, 0)]
    log_.update_high_watermark(LogOffsetMetadata(1))
    assert len(log_.read(0, Isolation.COMMITTED).records) < len(log_.read(0, Isolation.UNCOMMITTED).records)
    assert (tmp_path / "__cluster_metadata-0" / "partition.metadata").read_text() == \
        "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n"


def test_a_torn_tail_is_cut_at_recovery_and_the_epoch_cache_follows(tmp_path: Path) -> None:
    log_ = open_log(tmp_path)
    append_leader(log_, 1, [b"a"])
    append_leader(log_, 2, [b"b"])
    log_.flush(True)
    log_.close()
    segment = tmp_path / "__cluster_metadata-0" / "00000000000000000000.log"
    whole = segment.read_bytes()
    last_batch = bytes(with_records(2, 1_700_000_000_000, 4, [b"torn"]).buffer)
    segment.write_bytes(whole + last_batch[: len(last_batch) // 2])  # a crash in the middle of a write
    checkpoint = tmp_path / "__cluster_metadata-0" / "leader-epoch-checkpoint"
    checkpoint.write_text("0\n3\n1 0\n2 1\n4 2\n")  # an epoch whose batch did not make it
    reopened = open_log(tmp_path)
    assert reopened.end_offset().offset == 2 and segment.stat().st_size == len(whole)
    assert reopened.leader_epoch_cache.epoch_entries() == [EpochEntry(1, 0), EpochEntry(2, 1)]
    assert reopened.last_fetched_epoch() == 2


def test_a_lost_epoch_checkpoint_is_rebuilt_from_the_batches(tmp_path: Path) -> None:
    log_ = open_log(tmp_path)
    append_leader(log_, 1, [b"a"])
    append_leader(log_, 5, [b"b", b"c"])
    log_.close()
    (tmp_path / "__cluster_metadata-0" / "leader-epoch-checkpoint").unlink()
    reopened = open_log(tmp_path)
    assert reopened.leader_epoch_cache.epoch_entries() == [EpochEntry(1, 0), EpochEntry(5, 1)]
