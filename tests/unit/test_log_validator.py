"""Scenarios for LogValidator: what the leader does to a producer's batch, compressed or not, before it is written.

Batches come from a real client encoder, kafka-python's DefaultRecordBatchBuilder, and are read back with its
DefaultRecordBatch reader. kafka-python needs python-snappy, lz4 and zstandard for its codecs; those are not
installed, so its codec hooks are pointed at cramjam (the record and xerial framing stay kafka-python's own).
"""

from __future__ import annotations

import random
import struct
import types
from pathlib import Path

import cramjam
import crc32c
import pytest
from kafka.record.default_records import DefaultRecordBatch as KpBatch
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    InvalidRecordException,
    InvalidTimestampException,
    RecordTooLargeException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    ATTRIBUTES_OFFSET,
    CRC_OFFSET,
    RECORDS_COUNT_OFFSET,
    DefaultRecordBatch,
    MemoryRecords,
    TimestampType,
    build_batch,
)
from kafka_edu.v1_0_2.core.log import log_validator
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

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


# -- the record walk behind in-place validation ---------------------------------------------------------------------
# LogValidator reads each record's framing without building it (DefaultRecordBatch.records_summary) and falls back to
# a record-by-record walk when anything is off. Both must accept and reject exactly the same batches, with the same
# error for the first bad record.


def validate(data: bytes, **options: object) -> tuple[object, ...]:
    """LogValidator's outcome for one produce request: the error, or what it assigned and the bytes it keeps."""

    records = MemoryRecords(data)
    codec = CompressionType.for_id(data[ATTRIBUTES_OFFSET + 1] & 0x07)
    counter = log_validator.LongRef(100)
    try:
        result = log_validator.validate_messages_and_assign_offsets(
            records, counter, NOW, codec, codec, bool(options.get("compacted", False)), 2,
            TimestampType.for_name(str(options.get("timestamp_type", "CreateTime"))),
            int(options.get("max_diff", 2**63 - 1)), 5, True)  # type: ignore[call-overload]
    except Exception as e:  # noqa: BLE001 - the outcome under test
        return type(e).__name__, str(e)
    return (result.max_timestamp, result.shallow_offset_of_max_timestamp, result.num_messages, counter.value,
            result.message_size_maybe_changed, bytes(result.validated_records.buffer))


def record_by_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the framing walk off, so that validation builds every record (DefaultRecord.read_from)."""
    monkeypatch.setattr(DefaultRecordBatch, "records_summary", lambda self: None)


def with_records(batch: bytes, records: bytes, count: int | None = None) -> bytes:
    """The batch with its records section replaced (uncompressed), its length, count and CRC made consistent."""
    changed = bytearray(batch[:61] + records)
    struct.pack_into(">i", changed, 8, len(changed) - 12)
    if count is not None:
        struct.pack_into(">i", changed, RECORDS_COUNT_OFFSET, count)
        struct.pack_into(">i", changed, 23, count - 1)
    struct.pack_into(">I", changed, CRC_OFFSET, crc32c.crc32c(bytes(changed[ATTRIBUTES_OFFSET:])))
    return bytes(changed)


def random_batch(rng: random.Random, codec: str = "none") -> bytes:
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=CODECS.get(codec, 0), is_transactional=False,
                                        producer_id=-1, producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)

    def blob(limit: int) -> bytes | None:
        return None if rng.random() < 0.2 else bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 3, limit])))

    first = NOW + rng.choice([0, -5000, 5000, -NOW - 1])  # -1: a record without a timestamp
    for i in range(rng.randint(1, 12)):
        timestamp = first if i == 0 else first + rng.choice([0, 1, 70, -70, 9000, -9000, 2**40])
        headers = [(f"h{j}" * rng.randint(0, 40), blob(90)) for j in range(rng.choice([0, 0, 1, 3]))]
        builder.append(i, timestamp=timestamp, key=blob(200), value=blob(300), headers=headers)
    return bytes(builder.build())


OPTIONS = [{}, {"compacted": True}, {"max_diff": 6000}, {"max_diff": 0}, {"timestamp_type": "LogAppendTime"}]


def test_the_framing_walk_and_the_record_walk_agree_on_valid_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1)
    batches = [random_batch(rng) for _ in range(150)] + [random_batch(rng, "gzip") for _ in range(30)]
    assert all(DefaultRecordBatch(b).records_summary() is not None for b in batches)  # the walk takes them all
    fast = [validate(b, **o) for b in batches for o in OPTIONS]
    record_by_record(monkeypatch)
    slow = [validate(b, **o) for b in batches for o in OPTIONS]
    assert fast == slow
    assert sum(1 for outcome in fast if isinstance(outcome[0], int)) > len(fast) // 3  # not all rejected


def test_the_framing_walk_and_the_record_walk_agree_on_corrupt_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes flipped, cut or added inside the records, with the CRC made valid again: only the walk can tell."""
    rng = random.Random(2)
    corrupt = []
    for _ in range(400):
        batch = random_batch(rng)
        records = bytearray(batch[61:])
        count = None
        kind = rng.randrange(4)
        if kind == 0 and records:
            records[rng.randrange(len(records))] = rng.getrandbits(8)
        elif kind == 1 and records:
            del records[rng.randrange(len(records)):][: rng.randint(1, 4)]
        elif kind == 2:
            records.insert(rng.randrange(len(records) + 1), rng.getrandbits(8))
        else:
            count = struct.unpack_from(">i", batch, RECORDS_COUNT_OFFSET)[0] + rng.choice([-1, 1])
            count = max(count, 1)
        corrupt.append(with_records(batch, bytes(records), count))
    fast = [validate(b, **o) for b in corrupt for o in OPTIONS[:3]]
    record_by_record(monkeypatch)
    slow = [validate(b, **o) for b in corrupt for o in OPTIONS[:3]]
    assert fast == slow
    assert sum(1 for outcome in fast if outcome[0] == "InvalidRecordException") > len(fast) // 4


def test_a_corrupt_record_inside_a_large_batch_is_a_corrupt_message(tmp_path: Path) -> None:
    sent = build_batch([b"v" * 100] * 500)
    records = bytearray(sent[61:])
    position = 0
    for _ in range(300):
        _, position = DefaultRecord.read_from(records, position, 0, 0, -1, None)
    # Record 300: size (2 bytes), attributes, timestamp delta (1), offset delta (2), null key (1), value length.
    assert records[position + 6] == 0x01 and records[position + 7 : position + 9] == b"\xc8\x01"
    records[position + 7 : position + 9] = b"\x7e\x00"  # value length 63 and an extra byte: 100 bytes follow
    log = open_log(tmp_path)
    with pytest.raises(InvalidRecordException, match="Invalid record size|invalid record structure") as raised:
        log.append_as_leader(with_records(sent, bytes(records)), leader_epoch=0)
    assert Errors.for_exception(raised.value) == Errors.CORRUPT_MESSAGE
    assert log.log_end_offset == 0


def test_the_first_bad_record_decides_the_error(tmp_path: Path) -> None:
    """A keyless record before a record with an out-of-range timestamp: Kafka stops at the first, so does the port."""
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=-1,
                                        producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    builder.append(0, timestamp=NOW, key=b"k", value=b"a", headers=[])
    builder.append(1, timestamp=NOW, key=None, value=b"b", headers=[])
    builder.append(2, timestamp=NOW - 3_600_000, key=b"k", value=b"c", headers=[])
    sent = bytes(builder.build())
    with pytest.raises(InvalidRecordException, match="without key"):
        open_log(tmp_path / "a", cleanup_policy="compact", message_timestamp_difference_max_ms=60_000).append_as_leader(
            sent, leader_epoch=0)
    with pytest.raises(InvalidTimestampException, match="with offset 2 is out of range"):
        open_log(tmp_path / "b", message_timestamp_difference_max_ms=60_000).append_as_leader(sent, leader_epoch=0)
