"""The log cleaner in a real LogManager (Kafka 1.0.2's port): a compacted topic keeps the newest record of each key,
a tombstone outlives the clean that first sees it and goes once delete.retention.ms has passed, the cleaner writes
`cleaner-offset-checkpoint`, and each pass that cleans is one CL.work trace with its steps in Kafka's order.

The LogManager's scheduler and clock are kafka.utils.MockTime's; the cleaner thread is real (as in Kafka), and the
test waits for its checkpoint with a deadline, never for a fixed time.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing import setup_tracing
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import SimpleRecord, with_simple_records
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_cleaner import CleanerConfig
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import LogManager
from kafka_edu.v1_0_2.core.server.broker_states import BrokerState
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.test_utils import wait_until_true

KEYS = [b"k0", b"k1", b"k2", b"k3"]


def _compacted(delete_retention_ms: int) -> LogConfig:
    return LogConfig.from_props({"cleanup.policy": "compact", "segment.bytes": 600, "min.cleanable.dirty.ratio": 0.01,
                                 "delete.retention.ms": delete_retention_ms, "file.delete.delay.ms": 1000})


@pytest.fixture
def tracing() -> Iterator[Any]:
    traced = setup_tracing("broker-0", "run-cleaner")
    try:
        yield traced
    finally:
        traced.shutdown()


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[LogManager]:
    time = MockTimeWithScheduler()
    log_manager = LogManager(
        log_dirs=[tmp_path], initial_offline_dirs=[], topic_configs={}, default_config=LogConfig(), io_threads=1,
        flush_check_ms=1000, flush_recovery_offset_checkpoint_ms=10000, flush_start_offset_checkpoint_ms=10000,
        retention_check_ms=1000, scheduler=time.scheduler, broker_state=BrokerState(),
        log_dir_failure_channel=LogDirFailureChannel(1), time_ms=time.milliseconds,
        cleaner_config=CleanerConfig(dedupe_buffer_size=1024 * 1024, io_buffer_size=64 * 1024, back_off_ms=20),
        time=time)
    try:
        yield log_manager
    finally:
        log_manager.shutdown()


def _write_rounds(lg: Log, rounds: int, keys: list[bytes] = KEYS) -> None:
    for r in range(rounds):
        for key in keys:
            lg.append_as_leader(with_simple_records([SimpleRecord(f"{key.decode()}-v{r}".encode(), key)]), 0)


def _tombstone(lg: Log, key: bytes) -> None:
    lg.append_as_leader(with_simple_records([SimpleRecord(None, key)]), 0)


def _contents(lg: Log) -> list[tuple[bytes | None, bytes | None]]:
    return [(record.key, record.value) for segment in lg.log_segments() for batch in segment.log.batches()
            for record in batch.load_full_batch().records()]


def _await_cleaned(log_manager: LogManager, tp: tuple[str, int], offset: int) -> None:
    manager = log_manager.cleaner.cleaner_manager  # type: ignore[union-attr]
    wait_until_true(lambda: manager.all_cleaner_checkpoints().get(tp, -1) >= offset,
                    lambda: f"{tp} not cleaned to {offset}: {manager.all_cleaner_checkpoints()}", wait_time_ms=15000,
                    pause_ms=10)


def _newest(lg: Log, key: bytes) -> bytes | None:
    values = [value for k, value in _contents(lg) if k == key]
    return values[-1] if values else b"<none>"


def test_a_compacted_topic_keeps_the_newest_record_per_key_and_drops_a_tombstone_after_its_retention(
        tracing: Any, manager: LogManager, tmp_path: Path) -> None:
    short = manager.get_or_create_log(("short", 0), _compacted(delete_retention_ms=0))
    long = manager.get_or_create_log(("long", 0), _compacted(delete_retention_ms=24 * 60 * 60 * 1000))
    for lg in (short, long):
        _write_rounds(lg, 3)
        _tombstone(lg, b"k0")
        lg.roll()
        _write_rounds(lg, 1, KEYS[1:])  # the active segment: never cleaned
    first_end = {lg.topic_partition: lg.active_segment.base_offset for lg in (short, long)}
    manager.startup()
    for tp, offset in first_end.items():
        _await_cleaned(manager, tp, offset)

    checkpoint = (tmp_path / "cleaner-offset-checkpoint").read_text().split("\n")
    assert checkpoint[0] == "0" and int(checkpoint[1]) == 2
    assert {line for line in checkpoint[2:] if line} == {f"short 0 {first_end[('short', 0)]}",
                                                        f"long 0 {first_end[('long', 0)]}"}
    for lg in (short, long):
        cleaned = _contents(lg)[:4]
        # one record per key below the active segment: the tombstone of k0, the third round of the others
        assert cleaned == [(b"k1", b"k1-v2"), (b"k2", b"k2-v2"), (b"k3", b"k3-v2"), (b"k0", None)]

    # More writes make both logs dirty again: the next clean has a clean section, and its delete horizon.
    for lg in (short, long):
        lg.roll()
        _write_rounds(lg, 2, KEYS[1:])
        lg.roll()
    for lg in (short, long):
        _await_cleaned(manager, lg.topic_partition, lg.active_segment.base_offset)
    assert b"k0" not in [k for k, _ in _contents(short)]  # its delete.retention.ms (0) has passed
    assert (b"k0", None) in _contents(long)  # a day to go
    for lg in (short, long):
        for key in KEYS[1:]:
            assert _newest(lg, key) == f"{key.decode()}-v1".encode()

    finished = tracing.memory.get_finished_spans()
    works = [s for s in finished if s.attributes.get("kafka.step") == "CL.work"]
    assert works, "no CL.work trace"
    assert all(s.parent is None for s in works)
    startup = [s for s in finished if s.attributes.get("kafka.step") == "CL.startup"]
    assert len(startup) == 1 and startup[0].attributes["kafka.cleaner.threads"] == ("kafka-log-cleaner-thread-0",)
    # every step of a cleaner thread belongs to a CL.work trace: an idle pass leaves no span behind (a pass still
    # running when the spans were read has ended its steps but not yet its CL.work root: wait for it)
    def every_cleaner_step_in_a_work_trace() -> bool:
        spans = tracing.memory.get_finished_spans()
        work_traces = {s.context.trace_id for s in spans if s.attributes.get("kafka.step") == "CL.work"}
        return all(s.context.trace_id in work_traces for s in spans
                   if s.attributes.get("thread.name", "").startswith("kafka-log-cleaner"))
    wait_until_true(every_cleaner_step_in_a_work_trace, "a cleaner step outside any CL.work trace")
    finished = tracing.memory.get_finished_spans()
    works = [s for s in finished if s.attributes.get("kafka.step") == "CL.work"]

    work = next(s for s in works
                if any(c.attributes.get("kafka.step") == "CL.clean" and c.parent.span_id == s.context.span_id
                       and c.attributes.get("kafka.topic") == "short" for c in finished))
    in_trace = sorted((s for s in finished if s.context.trace_id == work.context.trace_id), key=lambda s: s.start_time)

    def children(parent: Any) -> list[str]:
        return [s.attributes.get("kafka.step") for s in in_trace
                if s.parent is not None and s.parent.span_id == parent.context.span_id]

    assert children(work) == ["CL.grab", "CL.clean", "CL.done", "CL.delete"]
    clean = next(s for s in in_trace if s.attributes.get("kafka.step") == "CL.clean")
    clean_children = children(clean)
    assert clean_children[:2] == ["CL.map", "CL.group"] and set(clean_children[2:]) == {"CL.segments"}
    first_segments = next(s for s in in_trace if s.attributes.get("kafka.step") == "CL.segments")
    segment_children = children(first_segments)
    assert set(segment_children[:-1]) == {"CL.into"} and segment_children[-1] == "CL.swap"
    grab = next(s for s in in_trace if s.attributes.get("kafka.step") == "CL.grab")
    assert grab.attributes["kafka.cleaner.found"] is True and grab.attributes["kafka.topic"] == "short"
    assert clean.attributes["kafka.cleaner.records.read"] > clean.attributes["kafka.cleaner.records.kept"]
    assert clean.attributes["kafka.cleaner.records.removed"] == (clean.attributes["kafka.cleaner.records.read"]
                                                                 - clean.attributes["kafka.cleaner.records.kept"])
    assert clean.attributes["kafka.cleaner.bytes.removed"] > 0
    done = next(s for s in in_trace if s.attributes.get("kafka.step") == "CL.done")
    assert done.attributes["kafka.cleaner.state.from"] == "LogCleaningInProgress"
    assert done.attributes["kafka.cleaner.checkpoint"] == done.attributes["kafka.cleaner.end_offset"]
    swap = next(s for s in in_trace if s.attributes.get("kafka.step") == "CL.swap")
    assert swap.name == "Log.replaceSegments" and swap.attributes["kafka.origin.version"] == "1.0.2"


def test_a_truncation_below_the_active_segment_pauses_cleaning_and_resumes_it(tracing: Any,
                                                                                manager: LogManager) -> None:
    lg = manager.get_or_create_log(("t", 0), _compacted(delete_retention_ms=0))
    _write_rounds(lg, 2)
    lg.roll()
    _write_rounds(lg, 1)
    manager.truncate_to({("t", 0): 2})
    aborts = [s for s in tracing.memory.get_finished_spans() if s.attributes.get("kafka.step") == "CL.abort"]
    assert len(aborts) == 1
    assert aborts[0].attributes["kafka.cleaner.state.from"] == "none"
    assert aborts[0].attributes["kafka.cleaner.state.to"] == "LogCleaningPaused"
    assert manager.cleaner.cleaner_manager.cleaning_state(("t", 0)) is None  # type: ignore[union-attr]
    assert lg.log_end_offset == 2
