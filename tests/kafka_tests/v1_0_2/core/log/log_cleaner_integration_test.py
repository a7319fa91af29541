"""Port of core/src/test/scala/unit/kafka/log/LogCleanerIntegrationTest.scala (Kafka 1.0.2), with the helpers of
AbstractLogCleanerIntegrationTest.scala.

Kafka runs the class once per codec of 1.0.2 (none, gzip, snappy, lz4); here each case is parametrized the same way.
The cleaner thread is real and the test waits for its checkpoint (LogCleaner.awaitCleaned, as Kafka's does).
cleanerTest's cleaner backs off 100 ms instead of the default 15 s, so that its second clean does not wait out the
back-off of the idle pass before it (Kafka's test waits up to 60 s for it); no assertion changes.
"""

from __future__ import annotations

import random
import shutil
import string
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import SimpleRecord, with_simple_records
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_cleaner import CleanerConfig, LogCleaner
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS
from kafka_edu.v1_0_2.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import temp_dir, wait_until_true

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/LogCleanerIntegrationTest.scala",
    cases=["cleanerTest", "testCleansCombinedCompactAndDeleteTopic", "testCleanerWithMessageFormatV0",
           "testCleaningNestedMessagesWithMultipleVersions"],
    not_applicable={
        "testCleanerWithMessageFormatV0": "writes magic v0/v1 message sets: the port's log stores v2 batches only",
        "testCleaningNestedMessagesWithMultipleVersions": "magic v0/v1 message sets: not stored by the port's log",
    },
)

CODECS = [CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4]
TOPIC_PARTITIONS = [("log", 0), ("log", 1), ("log", 2)]
DEFAULT_MAX_MESSAGE_SIZE = 128


class _Context:
    """AbstractLogCleanerIntegrationTest's fields, and LogCleanerIntegrationTest's counter."""

    def __init__(self, codec: CompressionType) -> None:
        self.codec = codec
        self.time = MockTimeWithScheduler()
        self.log_dir = temp_dir()
        self.logs: list[Log] = []
        self.cleaner: LogCleaner | None = None
        self.counter = 0

    def teardown(self) -> None:
        if self.cleaner is not None:
            self.cleaner.shutdown()
        self.time.scheduler.shutdown()
        for lg in self.logs:
            try:
                lg.close()
            except Exception:  # a log whose segments a second cleaner swapped (Kafka closes them all the same)
                pass
        shutil.rmtree(self.log_dir, ignore_errors=True)

    def log_config_properties(self, property_overrides: dict[str, object], max_message_size: int,
                              min_cleanable_dirty_ratio: float = 0.0, compaction_lag: int = 0,
                              delete_delay: int = 1000, segment_size: int = 256) -> dict[str, object]:
        return {"max.message.bytes": max_message_size, "segment.bytes": segment_size,
                "segment.index.bytes": 100 * 1024, "file.delete.delay.ms": delete_delay,
                "cleanup.policy": "compact", "min.cleanable.dirty.ratio": min_cleanable_dirty_ratio,
                "message.timestamp.difference.max.ms": str(2**63 - 1), "min.compaction.lag.ms": compaction_lag,
                **property_overrides}

    def make_cleaner(self, partitions: list[tuple[str, int]], back_off_ms: int = 15000,
                     max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                     property_overrides: dict[str, object] | None = None) -> LogCleaner:
        log_map: dict[tuple[str, int], Log] = {}
        for topic, partition in partitions:
            dir = self.log_dir / f"{topic}-{partition}"
            dir.mkdir(parents=True, exist_ok=True)
            config = LogConfig.from_props(self.log_config_properties(property_overrides or {}, max_message_size))
            lg = Log(dir, config, log_start_offset=0, recovery_point=0, scheduler=self.time.scheduler,
                     time_ms=self.time.milliseconds, log_dir_failure_channel=LogDirFailureChannel(10),
                     max_producer_id_expiration_ms=60 * 60 * 1000,
                     producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS)
            log_map[(topic, partition)] = lg
            self.logs.append(lg)
        cleaner_config = CleanerConfig(num_threads=1, io_buffer_size=max_message_size // 2,
                                       max_message_size=max_message_size, back_off_ms=back_off_ms)
        return LogCleaner(cleaner_config, log_dirs=[self.log_dir], logs=log_map,
                          log_dir_failure_channel=LogDirFailureChannel(1), time=self.time)

    def singleton_records(self, value: bytes, key: bytes) -> MemoryRecords:
        return with_simple_records([SimpleRecord(value, key)], compression_type=self.codec)

    def write_dups(self, num_keys: int, num_dups: int, log: Log, start_key: int = 0) -> list[tuple[int, str, int]]:
        appends = []
        for _ in range(num_dups):
            for key in range(start_key, start_key + num_keys):
                value = str(self.counter)
                info = log.append_as_leader(self.singleton_records(value.encode(), str(key).encode()), 0)
                self.counter += 1
                appends.append((key, value, info.first_offset))
        return appends

    def check_last_cleaned(self, topic: str, partition_id: int, first_dirty: int) -> None:
        assert self.cleaner is not None
        tp = (topic, partition_id)
        self.cleaner.await_cleaned(tp, first_dirty)
        last_cleaned = self.cleaner.cleaner_manager.all_cleaner_checkpoints()[tp]
        assert last_cleaned >= first_dirty, \
            f"log cleaner should have processed up to offset {first_dirty}, but lastCleaned={last_cleaned}"

    def create_large_single_message_set(self, key: int) -> tuple[str, MemoryRecords]:
        rng = random.Random(0)
        value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(128))
        return value, self.singleton_records(value.encode(), str(key).encode())


# the compressed codecs take a few seconds more each: marked slow (CI still runs them)
@pytest.fixture(params=[pytest.param(c, id=c.name.lower(), marks=() if c is CompressionType.NONE else pytest.mark.slow)
                        for c in CODECS])
def ctx(request: pytest.FixtureRequest) -> Iterator[_Context]:
    context = _Context(request.param)
    try:
        yield context
    finally:
        context.teardown()


def read_from_log(log: Log) -> list[tuple[int, str, int]]:
    return [(int(r.key), r.value.decode(), r.offset) for s in log.log_segments() for b in s.log.batches()
            for r in b.load_full_batch().records()]


def to_map(messages: list[tuple[int, str, int]]) -> dict[int, tuple[str, int]]:
    return {key: (value, offset) for key, value, offset in messages}


def check_log_after_appending_dups(log: Log, start_size: int, appends: list[tuple[int, str, int]]) -> None:
    assert to_map(read_from_log(log)) == to_map(appends), "Contents of the map shouldn't change"
    assert start_size > log.size


def test_cleaner_test(ctx: _Context) -> None:
    large_message_key = 20
    large_message_value, large_message_set = ctx.create_large_single_message_set(large_message_key)
    max_message_size = large_message_set.size_in_bytes()

    ctx.cleaner = ctx.make_cleaner(TOPIC_PARTITIONS, max_message_size=max_message_size, back_off_ms=100)
    log = ctx.cleaner.logs[TOPIC_PARTITIONS[0]]

    appends = ctx.write_dups(num_keys=100, num_dups=3, log=log)
    start_size = log.size
    ctx.cleaner.startup()

    first_dirty = log.active_segment.base_offset
    ctx.check_last_cleaned("log", 0, first_dirty)
    compacted_size = sum(s.size for s in log.log_segments())
    assert start_size > compacted_size, f"log should have been compacted: {start_size=} {compacted_size=}"
    check_log_after_appending_dups(log, start_size, appends)

    append_info = log.append_as_leader(large_message_set, 0)
    large_message_offset = append_info.first_offset
    dups = ctx.write_dups(start_key=large_message_key + 1, num_keys=100, num_dups=3, log=log)
    appends2 = appends + [(large_message_key, large_message_value, large_message_offset)] + dups
    first_dirty2 = log.active_segment.base_offset
    ctx.check_last_cleaned("log", 0, first_dirty2)
    check_log_after_appending_dups(log, start_size, appends2)

    # a log no longer there loses its checkpoint entry
    del ctx.cleaner.logs[TOPIC_PARTITIONS[0]]
    ctx.cleaner.update_checkpoints(ctx.log_dir)
    checkpoints = OffsetCheckpointFile(Path(ctx.log_dir) / ctx.cleaner.cleaner_manager.offset_checkpoint_file).read()
    assert TOPIC_PARTITIONS[0] not in checkpoints


def test_cleans_combined_compact_and_delete_topic(ctx: _Context) -> None:
    retention_ms = 100000
    log_props = {"retention.ms": retention_ms, "cleanup.policy": "compact,delete"}

    def run_cleaner_and_check_compacted(num_keys: int) -> tuple[Log, list[tuple[int, str, int]]]:
        ctx.cleaner = ctx.make_cleaner(TOPIC_PARTITIONS[:1], property_overrides=log_props, back_off_ms=100)
        log = ctx.cleaner.logs[TOPIC_PARTITIONS[0]]
        messages = ctx.write_dups(num_keys=num_keys, num_dups=3, log=log)
        start_size = log.size
        log.on_high_watermark_incremented(log.log_end_offset)
        first_dirty = log.active_segment.base_offset
        ctx.cleaner.startup()
        ctx.check_last_cleaned("log", 0, first_dirty)
        compacted_size = sum(s.size for s in log.log_segments())
        assert start_size > compacted_size, f"log should have been compacted: {start_size=} {compacted_size=}"
        return log, messages

    log, _ = run_cleaner_and_check_compacted(100)
    for segment in log.log_segments():
        segment.last_modified = ctx.time.milliseconds() - 2 * retention_ms
    wait_until_true(lambda: log.number_of_segments == 1, "There should only be 1 segment remaining", 10000)
    assert log.number_of_segments == 1

    ctx.cleaner.shutdown()

    log2, messages = run_cleaner_and_check_compacted(20)
    assert to_map(read_from_log(log2)) == to_map(messages), "Contents of the map shouldn't change"
