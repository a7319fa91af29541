"""Scenarios for LogValidator: what the leader does to a producer's batch, compressed or not, before it is written.

Batches come from a real client encoder, kafka-python's DefaultRecordBatchBuilder, and are read back with its
DefaultRecordBatch reader. kafka-python needs python-snappy, lz4 and zstandard for its codecs; those are not
installed, so its codec hooks are pointed at cramjam (the record and xerial framing stay kafka-python's own).
"""

from __future__ import annotations

import struct
import types
from pathlib import Path

import cramjam
import pytest
from kafka.record.default_records import DefaultRecordBatch as KpBatch
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder

from kafka_edu.common.errors import (
    CorruptRecordException,
    InvalidRecordException,
    InvalidTimestampException,
    RecordTooLargeException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.log.file_records import ATTRIBUTES_OFFSET, CRC_OFFSET, RECORDS_COUNT_OFFSET, build_batch
from kafka_edu.log.log import Log
from kafka_edu.log.log_config import LogConfig

NOW = 1_700_000_000_000
CODECS = {"gzip": 1, "snappy": 2, "snappy-raw": 2, "lz4": 3, "zstd": 4}


@pytest.fixture(autouse=True)
def kafka_python_codecs(monkeypatch: pytest.MonkeyPatch) -> None:
    import kafka.codec as codec
    import kafka.record.default_records as default_records

    monkeypatch.setattr(codec, "snappy", types.SimpleNamespace(
        compress=lambda b: bytes(cramjam.snappy.compress_raw(bytes(b))),
        decompress=lambda b: bytes(cramjam.snappy.decompress_raw(bytes(b)))))
    monkeypatch.setattr(codec, "lz4", object())
    monkeypatch.setattr(codec, "zstd", object())
    monkeypatch.setattr(default_records, "lz4_encode", lambda b: bytes(cramjam.lz4.compress(bytes(b))))
    monkeypatch.setattr(default_records, "lz4_decode", lambda b: bytes(cramjam.lz4.decompress(bytes(b))))
    monkeypatch.setattr(default_records, "zstd_encode", lambda b: bytes(cramjam.zstd.compress(bytes(b))))
    monkeypatch.setattr(default_records, "zstd_decode", lambda b: bytes(cramjam.zstd.decompress(bytes(b))))


def client_batch(codec: str = "none", n: int = 3, timestamp: int = NOW, keys: bool = True,
                 offsets: list[int] | None = None, producer: tuple[int, int, int] | None = None,
                 monkeypatch: pytest.MonkeyPatch | None = None) -> bytes:
    """A v2 batch as kafka-python's producer builds it; "snappy-raw" is the unframed snappy librdkafka sends."""
    if codec == "snappy-raw":
        assert monkeypatch is not None
        import kafka.codec as kc
        import kafka.record.default_records as default_records

        monkeypatch.setattr(default_records, "snappy_encode", lambda b: kc.snappy_encode(b, xerial_compatible=False))
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=CODECS.get(codec, 0), is_transactional=False,
                                        producer_id=-1, producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    if producer is not None:
        builder.set_producer_state(*producer, is_transactional=False)
    for i, offset in enumerate(offsets if offsets is not None else range(n)):
        builder.append(offset, timestamp=timestamp + i, key=b"key-%d" % i if keys else None,
                       value=b"value-%d " % i + b"abc" * 40, headers=[("h", b"v%d" % i)])
    return bytes(builder.build())


def parse(data: bytes) -> list[KpBatch]:
    batches, position = [], 0
    while position < len(data):
        size = 12 + struct.unpack_from(">i", data, position + 8)[0]
        batches.append(KpBatch(bytes(data[position : position + size])))
        position += size
    return batches


def open_log(tmp_path: Path, **config: object) -> Log:
    return Log(tmp_path / "events-0", LogConfig(**config), time_ms=lambda: NOW)


@pytest.mark.parametrize("codec", list(CODECS))
def test_compressed_batch_comes_back_byte_for_byte_but_for_offsets_and_epoch(
        tmp_path: Path, codec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    log = open_log(tmp_path)
    first = client_batch(codec, monkeypatch=monkeypatch)
    sent = client_batch(codec, n=4, monkeypatch=monkeypatch)
    assert KpBatch(sent).compression_type == CODECS[codec]
    if codec == "snappy-raw":
        assert not sent[61:].startswith(b"\x82SNAPPY")
    elif codec == "snappy":
        assert sent[61:].startswith(b"\x82SNAPPY")

    log.append_as_leader(first, leader_epoch=3)
    info = log.append_as_leader(sent, leader_epoch=3)

    assert (info.first_offset, info.last_offset, info.num_messages) == (3, 6, 4)
    assert (info.max_timestamp, info.offset_of_max_timestamp, info.log_append_time) == (NOW + 3, 6, -1)
    stored = log.read(3, 1 << 20)
    assert len(stored) == len(sent)
    # Only baseOffset (bytes 0-7) and partitionLeaderEpoch (12-15) differ; the CRC and the payload are the client's.
    assert stored[8:12] == sent[8:12] and stored[16:] == sent[16:]
    assert struct.unpack_from(">qii", stored) == (3, len(sent) - 12, 3)
    (batch,) = parse(stored)
    assert batch.validate_crc()
    records = list(batch)
    assert [r.offset for r in records] == [3, 4, 5, 6]
    assert [r.key for r in records] == [b"key-0", b"key-1", b"key-2", b"key-3"]
    assert records[2].value == b"value-2 " + b"abc" * 40
    assert records[1].headers == [("h", b"v1")]


def test_log_append_time_rewrites_max_timestamp_and_the_crc_only(tmp_path: Path) -> None:
    log = open_log(tmp_path, message_timestamp_type="LogAppendTime")
    sent = client_batch("gzip", timestamp=NOW - 10_000)
    info = log.append_as_leader(sent, leader_epoch=0)
    assert (info.log_append_time, info.max_timestamp, info.offset_of_max_timestamp) == (NOW, NOW, 2)

    stored = log.read(0, 1 << 20)
    assert stored[61:] == sent[61:]  # the compressed records are untouched
    assert stored[CRC_OFFSET:CRC_OFFSET + 4] != sent[CRC_OFFSET:CRC_OFFSET + 4]
    (batch,) = parse(stored)
    assert batch.validate_crc() and batch.timestamp_type == 1
    assert {r.timestamp for r in batch} == {NOW}


def test_corrupt_crc_is_rejected(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    for sent in (bytearray(build_batch([b"a", b"b"])), bytearray(client_batch("lz4"))):
        sent[-1] ^= 0xFF
        with pytest.raises(CorruptRecordException):
            log.append_as_leader(bytes(sent), leader_epoch=0)
    assert log.log_end_offset == 0


def test_batch_over_max_message_bytes_is_rejected(tmp_path: Path) -> None:
    sent = client_batch("zstd")
    log = open_log(tmp_path, max_message_bytes=len(sent) - 1)
    with pytest.raises(RecordTooLargeException):
        log.append_as_leader(sent, leader_epoch=0)
    assert log.log_end_offset == 0


def test_compacted_topic_requires_keys(tmp_path: Path) -> None:
    log = open_log(tmp_path, cleanup_policy="compact")
    with pytest.raises(InvalidRecordException, match="without key"):
        log.append_as_leader(client_batch("snappy", keys=False), leader_epoch=0)
    assert log.append_as_leader(client_batch("snappy"), leader_epoch=0).last_offset == 2


def test_create_time_outside_the_allowed_difference_is_rejected(tmp_path: Path) -> None:
    log = open_log(tmp_path, message_timestamp_difference_max_ms=60_000)
    with pytest.raises(InvalidTimestampException):
        log.append_as_leader(client_batch("gzip", timestamp=NOW - 3_600_000), leader_epoch=0)
    assert log.append_as_leader(client_batch("gzip", timestamp=NOW - 30_000), leader_epoch=0).last_offset == 2


def with_header_change(batch: bytes, offset: int, fmt: str, value: int) -> bytes:
    """Change a CRC-covered header field and fix the CRC, so that only the record check can catch it."""
    import crc32c

    changed = bytearray(batch)
    struct.pack_into(fmt, changed, offset, value)
    struct.pack_into(">I", changed, CRC_OFFSET, crc32c.crc32c(bytes(changed[ATTRIBUTES_OFFSET:])))
    return bytes(changed)


def test_declared_record_count_must_match_the_records(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    sent = client_batch("gzip")
    # lastOffsetDelta 3 and count 4, but three records inside.
    sent = with_header_change(with_header_change(sent, RECORDS_COUNT_OFFSET, ">i", 4), 23, ">i", 3)
    with pytest.raises(InvalidRecordException, match="premature EOF"):
        log.append_as_leader(sent, leader_epoch=0)
    with pytest.raises(InvalidRecordException, match="Inconsistent batch offset range"):
        log.append_as_leader(with_header_change(client_batch(), RECORDS_COUNT_OFFSET, ">i", 2), leader_epoch=0)


def test_clients_cannot_write_control_batches(tmp_path: Path) -> None:
    sent = client_batch()
    attributes = struct.unpack_from(">h", sent, ATTRIBUTES_OFFSET)[0]
    with pytest.raises(InvalidRecordException, match="control records"):
        open_log(tmp_path).append_as_leader(with_header_change(sent, ATTRIBUTES_OFFSET, ">h", attributes | 0x20), 0)


def test_clients_must_send_base_offset_zero(tmp_path: Path) -> None:
    with pytest.raises(InvalidRecordException, match="baseOffset"):
        open_log(tmp_path).append_as_leader(build_batch([b"a"], base_offset=5), leader_epoch=0)


def test_inner_offsets_out_of_line_get_the_batch_rebuilt(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_leader(build_batch([b"x"]), leader_epoch=0)
    sent = client_batch("snappy", offsets=[0, 0, 2])  # three records, lastOffsetDelta 2, inner deltas wrong
    info = log.append_as_leader(sent, leader_epoch=7)
    assert (info.first_offset, info.last_offset) == (1, 3)
    (batch,) = parse(log.read(1, 1 << 20))
    assert batch.validate_crc() and batch.compression_type == 2 and batch.leader_epoch == 7
    assert [(r.offset, r.key) for r in batch] == [(1, b"key-0"), (2, b"key-1"), (3, b"key-2")]


def test_broker_compression_type_recompresses(tmp_path: Path) -> None:
    log = open_log(tmp_path, compression_type="gzip")
    info = log.append_as_leader(client_batch("lz4"), leader_epoch=0)
    assert (info.source_codec.name_, info.target_codec.name_) == ("lz4", "gzip")
    (batch,) = parse(log.read(0, 1 << 20))
    assert batch.compression_type == 1 and batch.validate_crc()
    assert [r.value[:8] for r in batch] == [b"value-0 ", b"value-1 ", b"value-2 "]


def test_older_message_formats_are_refused(tmp_path: Path) -> None:
    builder = LegacyRecordBatchBuilder(magic=1, compression_type=0, batch_size=1 << 20)
    builder.append(0, timestamp=NOW, key=None, value=b"old")
    with pytest.raises(UnsupportedForMessageFormatException):
        open_log(tmp_path).append_as_leader(bytes(builder.build()), leader_epoch=0)


def test_uncompressed_batches_are_assigned_in_place(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    sent = client_batch()
    info = log.append_as_leader(sent, leader_epoch=2)
    assert (info.max_timestamp, info.offset_of_max_timestamp, info.num_messages) == (NOW + 2, 2, 3)
    stored = log.read(0, 1 << 20)
    assert stored[16:] == sent[16:]
    assert [r.offset for r in parse(stored)[0]] == [0, 1, 2]
