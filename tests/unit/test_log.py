"""Scenarios for the log layer: what a partition directory holds after appends, rolls, crashes and recovery."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from kio.records.readers import read_batch

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.clients.common.record.file_records import build_batch
from kafka_edu.v1_0_2.core.log.log import (
    Log,
    OffsetOutOfRangeException,
    OffsetsOutOfOrderException,
    RecordTooLargeException,
    TopicPartition,
    UnexpectedAppendOffsetException,
)
from kafka_edu.v1_0_2.core.log.log_config import ConfigException, LogConfig


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs" / "orders-0"


def open_log(log_dir: Path, **config: int) -> Log:
    return Log(log_dir, LogConfig(**config))


def batches_in(data: bytes) -> list:
    """Parse bytes with kio's reader, which checks lengths and CRCs independently of our code."""
    batches, position = [], 0
    while position < len(data):
        batch, size = read_batch(data, position)
        batches.append(batch)
        position += size
    return batches


def values(data: bytes) -> list[bytes | None]:
    return [record.value for batch in batches_in(data) for record in batch.records]


def offsets(data: bytes) -> list[int]:
    return [record.offset for batch in batches_in(data) for record in batch.records]


def read_all(log: Log) -> bytes:
    """Fetch like a consumer: one read per segment until the log end offset."""
    data, next_offset = b"", log.log_start_offset
    while next_offset < log.log_end_offset:
        chunk = log.read(next_offset, 1 << 20)
        last = batches_in(chunk)[-1]
        data, next_offset = data + chunk, last.base_offset + last.last_offset_delta + 1
    return data


def mark_clean_shutdown(log_dir: Path) -> None:
    (log_dir.parent / Log.CleanShutdownFile).touch()


def segment_files(log_dir: Path, suffix: str) -> list[Path]:
    return sorted(log_dir.glob(f"*{suffix}"))


def test_append_then_read_back(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append(build_batch([b"a", b"b", b"c"]))
    log.append(build_batch([b"d"]))

    assert values(log.read(0, 1 << 20)) == [b"a", b"b", b"c", b"d"]
    assert log.log_end_offset == 4
    assert log.topic_partition == TopicPartition("orders", 0)
    assert [p.name for p in segment_files(log_dir, ".log")] == ["00000000000000000000.log"]


def test_leader_assigns_offsets_by_rewriting_base_offset(log_dir: Path) -> None:
    log = open_log(log_dir)
    first = log.append(build_batch([b"a", b"b", b"c"]))
    second = log.append(build_batch([b"d", b"e"]))

    assert (first.first_offset, first.last_offset) == (0, 2)
    assert (second.first_offset, second.last_offset) == (3, 4)
    assert offsets(log.read(0, 1 << 20)) == [0, 1, 2, 3, 4]
    # A read starts at the batch that holds the offset, so offset 4 brings the batch based at 3.
    assert [b.base_offset for b in batches_in(log.read(4, 1 << 20))] == [3]
    assert log.read(5, 1 << 20) == b""
    with pytest.raises(OffsetOutOfRangeException):
        log.read(6, 1 << 20)


def test_segments_roll_when_segment_bytes_is_reached(log_dir: Path) -> None:
    batch_size = len(build_batch([b"x" * 50]))
    log = open_log(log_dir, segment_bytes=batch_size * 3)
    for i in range(10):
        log.append(build_batch([b"%d" % i + b"x" * 49]))

    names = [p.name for p in segment_files(log_dir, ".log")]
    assert names == ["00000000000000000000.log", "00000000000000000003.log", "00000000000000000006.log",
                     "00000000000000000009.log"]
    assert log.number_of_segments == 4
    # Rolled segments have their indexes trimmed to the entries they hold.
    assert (log_dir / "00000000000000000000.index").stat().st_size == 0
    # Reads cross segment boundaries one segment at a time.
    assert offsets(log.read(4, 1 << 20)) == [4, 5]
    assert offsets(log.read(9, 1 << 20)) == [9]


def test_reopen_after_clean_shutdown_keeps_log_end_offset(log_dir: Path) -> None:
    log = open_log(log_dir, segment_bytes=400)
    for i in range(8):
        log.append(build_batch([b"value-%d" % i, b"more"]))
    log.flush()
    assert log.recovery_point == 16
    log.close()
    mark_clean_shutdown(log_dir)

    reopened = open_log(log_dir, segment_bytes=400)
    assert reopened.log_end_offset == 16
    assert reopened.recovery_point == 16
    assert reopened.append(build_batch([b"after"])).first_offset == 16
    assert values(reopened.read(16, 1 << 20)) == [b"after"]
    assert offsets(read_all(reopened)) == list(range(17))


def test_recovery_truncates_a_torn_tail_and_rebuilds_the_index(log_dir: Path) -> None:
    log = open_log(log_dir, index_interval_bytes=1)
    sizes = [len(build_batch([b"v%d" % i])) for i in range(5)]
    for i in range(5):
        log.append(build_batch([b"v%d" % i]))
    log.close()  # no clean-shutdown marker: the next open must recover

    segment = log_dir / "00000000000000000000.log"
    with open(segment, "r+b") as f:
        f.truncate(sum(sizes) - 7)  # the last batch loses its tail
    (log_dir / "00000000000000000000.index").unlink()

    recovered = open_log(log_dir, index_interval_bytes=1)
    assert recovered.log_end_offset == 4
    assert segment.stat().st_size == sum(sizes[:4])
    # The index was rebuilt: one entry per batch after the first (interval of 1 byte).
    assert recovered.active_segment.index.entries == 3
    assert recovered.active_segment.index.lookup(3).position == sum(sizes[:3])
    assert values(recovered.read(0, 1 << 20)) == [b"v0", b"v1", b"v2", b"v3"]
    assert recovered.append(build_batch([b"next"])).first_offset == 4


def test_crash_without_close_recovers_from_preallocated_indexes(log_dir: Path) -> None:
    log = open_log(log_dir, index_interval_bytes=1)
    for i in range(6):
        log.append(build_batch([b"v%d" % i]))
    # No close(): the active .index is still its pre-allocated 10 MB, mostly zeros, as after kill -9.
    assert (log_dir / "00000000000000000000.index").stat().st_size == 10 * 1024 * 1024

    recovered = open_log(log_dir, index_interval_bytes=1)
    assert recovered.log_end_offset == 6
    assert recovered.active_segment.index.entries == 5
    assert values(recovered.read(2, 1 << 20)) == [b"v2", b"v3", b"v4", b"v5"]


def test_recovery_drops_garbage_after_the_last_batch(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append(build_batch([b"a", b"b"]))
    log.append(build_batch([b"c"]))
    log.close()
    segment = log_dir / "00000000000000000000.log"
    valid_size = segment.stat().st_size
    with open(segment, "ab") as f:
        # A header that claims a plausible size, then noise: the CRC check has to catch it.
        f.write(struct.pack(">qi", 3, 70) + bytes(range(70)))

    recovered = open_log(log_dir)
    assert recovered.log_end_offset == 3
    assert segment.stat().st_size == valid_size


def test_corrupt_crc_in_the_middle_truncates_from_that_batch(log_dir: Path) -> None:
    batch_size = len(build_batch([b"payload-0"]))
    log = open_log(log_dir, segment_bytes=batch_size * 4)
    for i in range(10):
        log.append(build_batch([b"payload-%d" % i]))
    log.close()
    assert len(segment_files(log_dir, ".log")) == 3

    first = log_dir / "00000000000000000000.log"
    data = bytearray(first.read_bytes())
    data[batch_size * 2 - 1] ^= 0xFF  # last byte of the second batch: inside its record, covered by the CRC
    first.write_bytes(bytes(data))

    recovered = open_log(log_dir, segment_bytes=batch_size * 4)
    assert recovered.log_end_offset == 1
    assert first.stat().st_size == batch_size
    # Everything after the corrupt batch is gone, later segments included.
    assert [p.name for p in segment_files(log_dir, ".log")] == ["00000000000000000000.log"]
    assert values(recovered.read(0, 1 << 20)) == [b"payload-0"]


def test_clean_shutdown_skips_recovery_but_still_rebuilds_a_missing_index(log_dir: Path) -> None:
    log = open_log(log_dir, index_interval_bytes=1)
    for i in range(4):
        log.append(build_batch([b"v%d" % i]))
    log.close()
    mark_clean_shutdown(log_dir)
    (log_dir / "00000000000000000000.index").unlink()

    reopened = open_log(log_dir, index_interval_bytes=1)
    assert reopened.log_end_offset == 4
    assert reopened.active_segment.index.entries == 3


def test_every_batch_on_disk_parses_with_an_independent_reader(log_dir: Path) -> None:
    log = open_log(log_dir, segment_bytes=300, index_interval_bytes=64)
    for i in range(12):
        log.append(build_batch([b"k%d-%d" % (i, j) for j in range(i % 3 + 1)]), leader_epoch=5)
    log.close()
    assert len(segment_files(log_dir, ".log")) > 2

    seen = []
    for path in segment_files(log_dir, ".log"):
        batches = batches_in(path.read_bytes())
        assert batches, path
        assert batches[0].base_offset == Log.offset_from_file(path)
        assert {b.partition_leader_epoch for b in batches} == {5}
        seen += [r.offset for b in batches for r in b.records]
    assert seen == list(range(log.log_end_offset))


def test_follower_append_keeps_the_leaders_offsets(tmp_path: Path) -> None:
    leader = Log(tmp_path / "leader" / "t-1", LogConfig())
    leader.append(build_batch([b"a", b"b"]))
    leader.append(build_batch([b"c"]))
    follower = Log(tmp_path / "follower" / "t-1", LogConfig())

    fetched = leader.read(0, 1 << 20)
    info = follower.append_as_follower(fetched)
    assert (info.first_offset, info.last_offset) == (0, 2)
    assert follower.log_end_offset == 3
    assert follower.read(0, 1 << 20) == fetched
    with pytest.raises(UnexpectedAppendOffsetException):
        follower.append_as_follower(fetched)
    with pytest.raises(OffsetsOutOfOrderException):
        follower.append_as_follower(build_batch([b"x"], base_offset=9) + build_batch([b"y"], base_offset=5))


def test_truncate_to_removes_offsets_at_and_above_the_target(log_dir: Path) -> None:
    log = open_log(log_dir, segment_bytes=250)
    for i in range(8):
        log.append(build_batch([b"value-%d" % i]))
    assert log.truncate_to(3)
    assert log.log_end_offset == 3
    assert log.number_of_segments == 2  # the segment based at 3 survives, emptied
    assert offsets(read_all(log)) == [0, 1, 2]
    assert log.append(build_batch([b"again"])).first_offset == 3
    assert offsets(read_all(log)) == [0, 1, 2, 3]


def test_oversized_batch_is_rejected(log_dir: Path) -> None:
    log = open_log(log_dir, max_message_bytes=100)
    with pytest.raises(RecordTooLargeException):
        log.append(build_batch([b"x" * 200]))
    assert log.log_end_offset == 0


def test_read_max_length_and_min_one_message(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append(build_batch([b"x" * 100]))
    log.append(build_batch([b"y"]))
    assert log.read(0, 10) == log.read(0, 1 << 20)[:10]  # a partial batch, as Kafka sends it
    assert values(log.read(0, 10, min_one_message=True)) == [b"x" * 100]


def test_delete_removes_the_partition_directory(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append(build_batch([b"a"]))
    log.delete()
    assert not log_dir.exists()


@pytest.mark.parametrize("name", ["orders-0", "my-topic-12", "orders-3.0123456789abcdef-delete"])
def test_parse_topic_partition_name_accepts_kafka_names(tmp_path: Path, name: str) -> None:
    tp = Log.parse_topic_partition_name(tmp_path / name)
    assert str(tp) == name.split(".")[0]


@pytest.mark.parametrize("name", ["orders", "orders-", "-0", "orders-x", "orders-0-delete"])
def test_parse_topic_partition_name_rejects_other_directories(tmp_path: Path, name: str) -> None:
    with pytest.raises(KafkaException, match="is not in the form of topic-partition"):
        Log.parse_topic_partition_name(tmp_path / name)


def test_log_config_from_topic_properties() -> None:
    config = LogConfig.from_props({"segment.bytes": "1048576", "flush.messages": 1, "cleanup.policy": "delete"})
    assert config.segment_bytes == 1048576
    assert config.flush_interval_messages == 1
    assert config.segment_index_bytes == 10485760
    with pytest.raises(ConfigException):
        LogConfig.from_props({"segment.bytes": "1"})


def test_flush_messages_one_moves_the_recovery_point_on_every_append(log_dir: Path) -> None:
    log = open_log(log_dir, flush_interval_messages=1)
    log.append(build_batch([b"a", b"b"]))
    assert log.recovery_point == 2
