"""LogValidator's in-place assignment reads an uncompressed v2 batch's records by one walk of their framing
(DefaultRecordBatch.skim_records) when every record is valid. These checks hold it to the record-by-record loop it
stands in for: the same offsets, timestamps and bytes, and, when anything is off, the same error."""

from __future__ import annotations

import random

import pytest

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PARTITION_LEADER_EPOCH
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.primitive_ref import PrimitiveRef
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.log_validator import LogValidator
from kafka_edu.v3_9.storage.storage.internals.log.record_validation_exception import RecordValidationException
from tests.kafka_tests.v3_9.storage.storage.internals.log.log_validator_test import RecordingMetricsRecorder

NOW = MockTime().milliseconds()


def random_records(rng: random.Random, n: int, null_keys: bool = False,
                   spread_ms: int = 1000) -> list[SimpleRecord]:
    records = []
    for _ in range(n):
        key = None if null_keys and rng.random() < 0.2 else rng.randbytes(rng.choice([0, 3, 200]))
        value = None if rng.random() < 0.05 else rng.randbytes(rng.choice([0, 10, 130, 1024, 20000]))
        headers = [RecordHeader(f"h{i}".encode(), rng.randbytes(rng.choice([0, 5, 300]))) for i in
                   range(rng.choice([0, 0, 1, 3]))]
        records.append(SimpleRecord(value, key, NOW - spread_ms + rng.randrange(2 * spread_ms), headers))
    return records


def validate(records: MemoryRecords, compacted: bool = False, before_ms: int = 2**63 - 1,
             after_ms: int = 2**63 - 1, timestamp_type: TimestampType = TimestampType.CREATE_TIME):
    """(offsets counted, max timestamp, offset of max timestamp, the batch's bytes) or the error raised."""
    time = MockTime()
    time.sleep(NOW - time.milliseconds())
    counter = PrimitiveRef.of_long(0)
    validator = LogValidator(records, TopicPartition("t", 0), time, CompressionType.NONE, Compression.NONE, compacted,
                             2, timestamp_type, before_ms, after_ms, NO_PARTITION_LEADER_EPOCH,
                             AppendOrigin.CLIENT, MetadataVersion.latest_production())
    try:
        result = validator.validate_messages_and_assign_offsets(counter, RecordingMetricsRecorder(), None)
    except (RecordValidationException, InvalidRecordException) as e:
        errors = [(r.batch_index, r.message) for r in e.record_errors()] \
            if isinstance(e, RecordValidationException) else []
        return type(e).__name__, str(e), errors
    return counter.value, result.max_timestamp_ms, result.shallow_offset_of_max_timestamp, \
        bytes(result.validated_records.buffer())


def both_ways(monkeypatch: pytest.MonkeyPatch, make, **kwargs):
    skimmed = validate(make(), **kwargs)
    with monkeypatch.context() as m:
        m.setattr(LogValidator, "_all_records_valid", lambda self, batch, now: None)
        one_by_one = validate(make(), **kwargs)
    return skimmed, one_by_one


@pytest.mark.parametrize("seed", range(12))
def test_the_skim_agrees_with_the_record_loop_on_valid_and_invalid_batches(monkeypatch, seed) -> None:
    rng = random.Random(seed)
    records = random_records(rng, rng.choice([1, 2, 17, 300]), null_keys=seed % 2 == 0)
    compacted = seed % 3 == 0
    window = rng.choice([2**63 - 1, 5000, 400])  # the last one puts some records outside the window

    def make() -> MemoryRecords:
        return MemoryRecords.with_records(Compression.NONE, *records)

    skimmed, one_by_one = both_ways(monkeypatch, make, compacted=compacted, before_ms=window, after_ms=window)
    assert skimmed == one_by_one


def test_the_skim_is_used_for_a_valid_batch_and_not_for_an_invalid_one() -> None:
    records = [SimpleRecord(b"v", None, NOW)]
    batch = next(iter(MemoryRecords.with_records(Compression.NONE, *records).batches()))
    validator = LogValidator(MemoryRecords.EMPTY, TopicPartition("t", 0), MockTime(), CompressionType.NONE,
                             Compression.NONE, True, 2, TimestampType.CREATE_TIME, 2**63 - 1, 2**63 - 1,
                             NO_PARTITION_LEADER_EPOCH, AppendOrigin.CLIENT, MetadataVersion.latest_production())
    assert batch.skim_records() is not None and batch.skim_records().has_null_key
    # a compacted topic needs keys: the records must be validated one by one to say which one failed
    assert validator._all_records_valid(batch, NOW) is None


@pytest.mark.parametrize("seed", range(40))
def test_a_corrupted_batch_gets_the_same_answer_both_ways(monkeypatch, seed) -> None:
    rng = random.Random(1000 + seed)
    records = random_records(rng, rng.choice([1, 5, 40]))
    clean = bytes(MemoryRecords.with_records(Compression.NONE, *records).buffer())
    damaged = bytearray(clean)
    # the 61-byte batch header is left alone (its CRC is checked earlier, in analyzeAndValidateRecords)
    for _ in range(rng.choice([1, 2, 4])):
        damaged[rng.randrange(61, len(damaged))] = rng.randrange(256)

    def make() -> MemoryRecords:
        return MemoryRecords.readable_records(bytearray(damaged))

    skimmed, one_by_one = both_ways(monkeypatch, make)
    assert skimmed == one_by_one
