"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/CoordinatorRuntimeTest.java
(Kafka 3.9).

Mockito mocks are unittest.mock mocks; a mocked PartitionWriter's `append` returns 0 as Mockito's default for a long
does. Durations are milliseconds. Every runtime a test builds is closed after it (the `_close_runtimes` fixture).
The shard test doubles are in mock_coordinator_shard.py, the in-memory writer in in_memory_partition_writer.py.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    KafkaException,
    NotCoordinatorException,
    NotEnoughReplicasException,
    RecordTooLargeException,
    TimeoutException,
)
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.compress.compression import NONE as COMPRESSION_NONE
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.record.record_batch import (
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
)
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.group_coordinator.coordinator.group.metrics.coordinator_runtime_metrics import (
    CoordinatorRuntimeMetrics,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event import CoordinatorEvent
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event_processor import (
    CoordinatorEventProcessor,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_loader import (
    CoordinatorLoader,
    LoadSummary,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_playback import CoordinatorPlayback
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_runtime import (
    CoordinatorRuntime,
    CoordinatorState,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.partition_writer import Listener
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.serializer import Serializer
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.snapshottable_coordinator import (
    SnapshottableCoordinator,
)
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.server.util.timer.mock_timer import MockTimer
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.runtime.in_memory_partition_writer import (
    InMemoryPartitionWriter,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.runtime.mock_coordinator_shard import (
    MockCoordinatorShard,
    MockCoordinatorShardBuilder,
    MockCoordinatorShardBuilderSupplier,
)

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/CoordinatorRuntimeTest.java",
    cases=[
        "testScheduleLoading", "testScheduleLoadingWithFailure", "testScheduleLoadingWithStalePartitionEpoch",
        "testScheduleLoadingAfterLoadingFailure", "testScheduleUnloading", "testScheduleUnloadingWithEmptyEpoch",
        "testScheduleUnloadingWhenContextDoesntExist", "testScheduleUnloadingWithStalePartitionEpoch",
        "testScheduleWriteOp", "testScheduleWriteOpWhenInactive", "testScheduleWriteOpWhenOpFails",
        "testScheduleWriteOpWhenReplayFails", "testScheduleWriteOpWhenWriteFails",
        "testScheduleWriteOpWhenWriteTimesOut", "testScheduleWriteAllOperation", "testScheduleTransactionalWriteOp",
        "testScheduleTransactionalWriteOpWhenVerificationFails", "testScheduleTransactionCompletion",
        "testScheduleTransactionCompletionWhenWriteTimesOut", "testScheduleTransactionCompletionWhenWriteFails",
        "testScheduleTransactionCompletionWhenReplayFails", "testScheduleReadOp",
        "testScheduleReadOpWhenPartitionInactive", "testScheduleReadOpWhenOpsFails", "testScheduleReadAllOp",
        "testClose", "testOnNewMetadataImage", "testScheduleTimer", "testRescheduleTimer", "testCancelTimer",
        "testRetryableTimer", "testRetryableTimerWithCustomBackoff", "testNonRetryableTimer",
        "testTimerScheduleIfAbsent", "testStateChanges", "testPartitionLoadSensor",
        "testPartitionLoadGeneratesSnapshotAtHighWatermark",
        "testPartitionLoadGeneratesSnapshotAtHighWatermarkNoRecordsLoaded", "testHighWatermarkUpdate",
        "testWriteEventWriteTimeoutTaskIsCancelledWhenHighWatermarkIsUpdated",
        "testCoordinatorCompleteTransactionEventWriteTimeoutTaskIsCancelledWhenHighWatermarkIsUpdated",
        "testAppendRecordBatchSize", "testScheduleWriteOperationWithBatching",
        "testScheduleWriteOperationWithBatchingWhenRecordsTooLarge",
        "testScheduleWriteOperationWithBatchingWhenWriteFails",
        "testScheduleWriteOperationWithBatchingWhenReplayFails",
        "testScheduleTransactionalWriteOperationWithBatching", "testStateMachineIsReloadedWhenOutOfSync",
        "testWriteOpIsNotReleasedWhenStateMachineIsNotCaughtUpAfterLoad", "testScheduleNonAtomicWriteOperation",
        "testScheduleNonAtomicWriteOperationWithRecordTooLarge", "testScheduleNonAtomicWriteOperationWhenWriteFails",
    ],
)

TP = TopicPartition("__consumer_offsets", 0)
DEFAULT_WRITE_TIMEOUT = 5  # ms
# ApiKeys.TXN_OFFSET_COMMIT.latestVersion() in Kafka 3.9
TXN_OFFSET_COMMIT_LATEST_VERSION = 4

ACTIVE = CoordinatorState.ACTIVE
CLOSED = CoordinatorState.CLOSED
FAILED = CoordinatorState.FAILED
INITIAL = CoordinatorState.INITIAL
LOADING = CoordinatorState.LOADING
MIN_BUFFER_SIZE = CoordinatorRuntime.MIN_BUFFER_SIZE


class StringSerializer(Serializer[str]):
    def serialize_key(self, record: str) -> bytes | None:
        return None

    def serialize_value(self, record: str) -> bytes | None:
        return record.encode()


class DirectEventProcessor(CoordinatorEventProcessor):
    """Runs each event at once on the caller's thread."""

    def enqueue_last(self, event: CoordinatorEvent) -> None:
        try:
            event.run()
        except BaseException as ex:
            event.complete(ex)

    def enqueue_first(self, event: CoordinatorEvent) -> None:
        try:
            event.run()
        except BaseException as ex:
            event.complete(ex)

    def close(self) -> None:
        pass


class ManualEventProcessor(CoordinatorEventProcessor):
    """Queues events; `poll` runs the next one."""

    def __init__(self) -> None:
        self.queue: deque[CoordinatorEvent] = deque()

    def enqueue_last(self, event: CoordinatorEvent) -> None:
        self.queue.append(event)

    def enqueue_first(self, event: CoordinatorEvent) -> None:
        self.queue.appendleft(event)

    def poll(self) -> bool:
        if not self.queue:
            return False
        event = self.queue.popleft()
        try:
            event.run()
        except BaseException as ex:
            event.complete(ex)
        return True

    def size(self) -> int:
        return len(self.queue)

    def close(self) -> None:
        pass


class MockCoordinatorLoader(CoordinatorLoader[str]):
    """Succeeds at once, moving the offsets it was given."""

    def __init__(self, summary: LoadSummary | None = None, last_written_offsets: list[int] | None = None,
                 last_committed_offsets: list[int] | None = None) -> None:
        self._summary = summary
        self._last_written_offsets = last_written_offsets or []
        self._last_committed_offsets = last_committed_offsets or []

    def load(self, tp: TopicPartition, replayable: CoordinatorPlayback[str]) -> CompletableFuture[LoadSummary]:
        for offset in self._last_written_offsets:
            replayable.update_last_written_offset(offset)
        for offset in self._last_committed_offsets:
            replayable.update_last_committed_offset(offset)
        return CompletableFuture.completed_future(self._summary)

    def close(self) -> None:
        pass


class MockPartitionWriter(InMemoryPartitionWriter):
    """Accepts at most `max_writes` appends, and fails end markers if told to."""

    def __init__(self, max_writes: int = 2**31 - 1, fail_end_marker: bool = False) -> None:
        super().__init__(False)
        self._max_writes = max_writes
        self._fail_end_marker = fail_end_marker
        self._write_count = 0
        self._write_count_lock = threading.Lock()

    def append(self, tp: TopicPartition, verification_guard: VerificationGuard, batch: MemoryRecords) -> int:
        if batch.size_in_bytes() > self.config(tp).max_message_size():
            raise RecordTooLargeException("Batch is larger than the max message size")
        with self._write_count_lock:
            self._write_count += 1
            write_count = self._write_count
        if write_count > self._max_writes:
            raise KafkaException("Maximum number of writes reached")
        if self._fail_end_marker and batch.first_batch().is_control_batch():
            raise KafkaException("Couldn't write end marker.")
        return super().append(tp, verification_guard, batch)


def _build_records(producer_id: int, producer_epoch: int, timestamp: int, records: list[str],
                   is_transactional: bool) -> MemoryRecords:
    if not records:
        return MemoryRecords.EMPTY
    builder = MemoryRecordsBuilder(bytearray(), RecordVersion.current().value, COMPRESSION_NONE,
                                   TimestampType.CREATE_TIME, 0, timestamp, producer_id, producer_epoch, 0,
                                   is_transactional, False, NO_PARTITION_LEADER_EPOCH)
    for record in records:
        builder.append(SimpleRecord(record.encode(), timestamp=timestamp))
    return builder.build()


def records(timestamp: int, *records: str) -> MemoryRecords:
    return _build_records(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, timestamp, list(records), False)


def transactional_records(producer_id: int, producer_epoch: int, timestamp: int, *records: str) -> MemoryRecords:
    return _build_records(producer_id, producer_epoch, timestamp, list(records), True)


def end_transaction_marker(producer_id: int, producer_epoch: int, timestamp: int, coordinator_epoch: int,
                           result: ControlRecordType) -> MemoryRecords:
    return MemoryRecords.with_end_transaction_marker(producer_id, producer_epoch,
                                                     EndTransactionMarker(result, coordinator_epoch),
                                                     timestamp=timestamp)


def assert_future_throws(future: Future[Any], exception_class: type[BaseException]) -> BaseException:
    """TestUtils.assertFutureThrows: the future fails (within 5 s) with an instance of `exception_class`."""
    exception = future.exception(timeout=5)
    assert isinstance(exception, exception_class), f"{exception!r} is not a {exception_class.__name__}"
    return exception


def combine_futures(futures: list[Future[Any]]) -> list[Any]:
    """FutureUtils.combineFutures(futures, ArrayList::new, List::addAll).get(5, SECONDS)."""
    result: list[Any] = []
    for future in futures:
        result.extend(future.result(timeout=5))
    return result


_runtimes: list[CoordinatorRuntime[Any, Any]] = []


@pytest.fixture(autouse=True)
def _close_runtimes():
    yield
    while _runtimes:
        _runtimes.pop().close()


def new_runtime(timer: MockTimer, writer: Any, *, loader: Any = None, processor: Any = None, supplier: Any = None,
                runtime_metrics: Any = None, coordinator_metrics: Any = None, serializer: Any = None,
                append_linger_ms: int | None = None, compression: Any = None,
                default_write_timeout: int = DEFAULT_WRITE_TIMEOUT) -> CoordinatorRuntime[MockCoordinatorShard, str]:
    """The Builder calls every test makes, with the defaults most of them use."""
    builder: CoordinatorRuntime.Builder[MockCoordinatorShard, str] = (
        CoordinatorRuntime.Builder()
        .with_time(timer.time())
        .with_timer(timer)
        .with_default_write_time_out(default_write_timeout)
        .with_loader(loader if loader is not None else MockCoordinatorLoader())
        .with_event_processor(processor if processor is not None else DirectEventProcessor())
        .with_partition_writer(writer)
        .with_coordinator_shard_builder_supplier(supplier if supplier is not None
                                                 else MockCoordinatorShardBuilderSupplier())
        .with_coordinator_runtime_metrics(runtime_metrics if runtime_metrics is not None
                                          else mock.Mock(spec=CoordinatorRuntimeMetrics))
        .with_coordinator_metrics(coordinator_metrics if coordinator_metrics is not None else mock.Mock())
        .with_serializer(serializer if serializer is not None else StringSerializer()))
    if append_linger_ms is not None:
        builder.with_append_linger_ms(append_linger_ms)
    if compression is not None:
        builder.with_compression(compression)
    runtime = builder.build()
    _runtimes.append(runtime)
    return runtime


def mock_shard_builder(*coordinators: Any) -> tuple[mock.Mock, mock.Mock]:
    """A mocked supplier handing a mocked builder whose `build` returns `coordinators` in turn."""
    builder = mock.Mock(spec=MockCoordinatorShardBuilder)
    for name in ("with_snapshot_registry", "with_log_context", "with_time", "with_timer", "with_coordinator_metrics",
                 "with_topic_partition"):
        getattr(builder, name).return_value = builder
    if len(coordinators) == 1:
        builder.build.return_value = coordinators[0]
    else:
        builder.build.side_effect = list(coordinators)
    supplier = mock.Mock(spec=MockCoordinatorShardBuilderSupplier)
    supplier.get.return_value = builder
    return supplier, builder


def mock_writer() -> mock.Mock:
    writer = mock.Mock(spec=MockPartitionWriter)
    writer.append.return_value = 0  # Mockito's default for a long
    return writer


def mock_load(loader: mock.Mock, runtime: CoordinatorRuntime[Any, Any], futures: dict[TopicPartition, Any]) -> None:
    """when(loader.load(eq(tp), argThat(coordinatorMatcher(runtime, tp)))).thenReturn(future), for each tp."""
    def load(tp: TopicPartition, coordinator: Any) -> Any:
        if tp in futures and coordinator is runtime.context_or_throw(tp).coordinator:
            return futures[tp]
        return None
    loader.load.side_effect = load


class _SingleShardSupplier(MockCoordinatorShardBuilderSupplier):
    """A supplier whose builders all build `coordinator` (Kafka's anonymous subclasses)."""

    def __init__(self, coordinator: Any) -> None:
        self._coordinator = coordinator

    def get(self) -> MockCoordinatorShardBuilder:
        coordinator = self._coordinator

        class _Builder(MockCoordinatorShardBuilder):
            def build(self) -> Any:
                return coordinator

        return _Builder()


def test_schedule_loading():
    timer = MockTimer()
    loader = mock.Mock(spec=MockCoordinatorLoader)
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, builder = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, writer, loader=loader, supplier=supplier)
    future: CompletableFuture[LoadSummary] = CompletableFuture()
    mock_load(loader, runtime, {TP: future})

    # no context until a load is scheduled
    with pytest.raises(NotCoordinatorException):
        runtime.context_or_throw(TP)

    runtime.schedule_load_operation(TP, 0)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.coordinator() is coordinator
    assert ctx.state is LOADING
    assert ctx.epoch == 0
    assert ctx.coordinator.coordinator() is coordinator

    future.complete(None)
    assert ctx.state is ACTIVE

    coordinator.on_loaded.assert_called_once_with(MetadataImage.EMPTY)
    writer.register_listener.assert_called_once_with(TP, mock.ANY)
    assert isinstance(writer.register_listener.call_args.args[1], Listener)

    builder.with_snapshot_registry.assert_called_once_with(ctx.coordinator.snapshot_registry())
    builder.with_log_context.assert_called_once_with(ctx.log_context)
    builder.with_time.assert_called_once_with(timer.time())
    builder.with_timer.assert_called_once_with(ctx.timer)


def test_schedule_loading_with_failure():
    timer = MockTimer()
    writer = mock_writer()
    loader = mock.Mock(spec=MockCoordinatorLoader)
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, writer, loader=loader, supplier=supplier)
    future: CompletableFuture[LoadSummary] = CompletableFuture()
    mock_load(loader, runtime, {TP: future})

    runtime.schedule_load_operation(TP, 0)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is LOADING
    assert ctx.epoch == 0
    assert ctx.coordinator.coordinator() is coordinator

    future.complete_exceptionally(Exception("failure"))
    assert ctx.state is FAILED

    coordinator.on_unloaded.assert_called_once_with()


def test_schedule_loading_with_stale_partition_epoch():
    timer = MockTimer()
    loader = mock.Mock(spec=MockCoordinatorLoader)
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, MockPartitionWriter(), loader=loader, supplier=supplier)
    future: CompletableFuture[LoadSummary] = CompletableFuture()
    mock_load(loader, runtime, {TP: future})

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is LOADING
    assert ctx.epoch == 10
    assert ctx.coordinator.coordinator() is coordinator

    future.complete(None)
    assert ctx.state is ACTIVE
    assert ctx.epoch == 10

    # an older epoch changes nothing
    runtime.schedule_load_operation(TP, 0)
    assert ctx.state is ACTIVE
    assert ctx.epoch == 10


def test_schedule_loading_after_loading_failure():
    timer = MockTimer()
    loader = mock.Mock(spec=MockCoordinatorLoader)
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, builder = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, MockPartitionWriter(), loader=loader, supplier=supplier)
    future: CompletableFuture[LoadSummary] = CompletableFuture()
    mock_load(loader, runtime, {TP: future})

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is LOADING
    assert ctx.epoch == 10
    assert ctx.coordinator.coordinator() is coordinator

    future.complete_exceptionally(Exception("failure"))
    assert ctx.state is FAILED

    coordinator.on_unloaded.assert_called_once_with()

    # a new shard for the reload
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    builder.build.return_value = coordinator

    future = CompletableFuture()
    mock_load(loader, runtime, {TP: future})
    runtime.schedule_load_operation(TP, 11)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is LOADING
    assert ctx.epoch == 11
    assert ctx.coordinator.coordinator() is coordinator

    future.complete(None)

    assert ctx.state is ACTIVE


def test_schedule_unloading():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, writer, supplier=supplier)

    # the mock loader completes at once: straight to active
    runtime.schedule_load_operation(TP, 10)
    ctx = runtime.context_or_throw(TP)
    assert ctx.state is ACTIVE
    assert ctx.epoch == 10

    runtime.schedule_unload_operation(TP, ctx.epoch + 1)
    assert ctx.state is CLOSED

    coordinator.on_unloaded.assert_called_once_with()
    writer.deregister_listener.assert_called_once_with(TP, mock.ANY)
    assert isinstance(writer.deregister_listener.call_args.args[1], Listener)

    with pytest.raises(NotCoordinatorException):
        runtime.context_or_throw(TP)


def test_schedule_unloading_with_empty_epoch():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, writer, supplier=supplier)

    runtime.schedule_load_operation(TP, 10)
    ctx = runtime.context_or_throw(TP)
    assert ctx.state is ACTIVE
    assert ctx.epoch == 10

    runtime.schedule_unload_operation(TP, None)
    assert ctx.state is CLOSED

    coordinator.on_unloaded.assert_called_once_with()
    writer.deregister_listener.assert_called_once_with(TP, mock.ANY)

    with pytest.raises(NotCoordinatorException):
        runtime.context_or_throw(TP)


def test_schedule_unloading_when_context_doesnt_exist():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, writer, supplier=supplier)

    # a follower that never was the coordinator is told to unload: nothing to do
    runtime.schedule_unload_operation(TP, 11)

    coordinator.on_unloaded.assert_not_called()

    with pytest.raises(NotCoordinatorException):
        runtime.context_or_throw(TP)


def test_schedule_unloading_with_stale_partition_epoch():
    timer = MockTimer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime = new_runtime(timer, MockPartitionWriter(), supplier=supplier)

    runtime.schedule_load_operation(TP, 10)
    ctx = runtime.context_or_throw(TP)
    assert ctx.state is ACTIVE
    assert ctx.epoch == 10

    # an older epoch changes nothing
    runtime.schedule_unload_operation(TP, 0)
    assert ctx.state is ACTIVE
    assert ctx.epoch == 10


def test_schedule_write_op():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    write1 = runtime.schedule_write_operation("write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record1", "record2"], "response1"))

    # not committed yet
    assert not write1.done()
    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    assert ctx.coordinator.coordinator().records() == {"record1", "record2"}
    assert writer.entries(TP) == [records(timer.time().milliseconds(), "record1", "record2")]

    write2 = runtime.schedule_write_operation("write#2", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record3"], "response2"))

    assert not write2.done()
    assert ctx.coordinator.last_written_offset() == 3
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2, 3]
    assert ctx.coordinator.coordinator().records() == {"record1", "record2", "record3"}
    assert writer.entries(TP) == [records(timer.time().milliseconds(), "record1", "record2"),
                                  records(timer.time().milliseconds(), "record3")]

    # no records: waits for what is pending
    write3 = runtime.schedule_write_operation("write#3", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult([], "response3"))

    assert not write3.done()
    assert ctx.coordinator.last_written_offset() == 3
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2, 3]
    assert ctx.coordinator.coordinator().records() == {"record1", "record2", "record3"}
    assert writer.entries(TP) == [records(timer.time().milliseconds(), "record1", "record2"),
                                  records(timer.time().milliseconds(), "record3")]

    writer.commit(TP, 2)

    assert write1.done()
    assert write1.result(timeout=5) == "response1"
    assert ctx.coordinator.last_committed_offset() == 2
    assert ctx.coordinator.snapshot_registry().epochs_list() == [2, 3]

    writer.commit(TP, 3)

    assert write2.done()
    assert write3.done()
    assert write2.result(timeout=5) == "response2"
    assert write3.result(timeout=5) == "response3"
    assert ctx.coordinator.last_committed_offset() == 3
    assert ctx.coordinator.snapshot_registry().epochs_list() == [3]

    # no records and everything committed: completes at once
    write4 = runtime.schedule_write_operation("write#4", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult([], "response4"))

    assert write4.done()
    assert write4.result(timeout=5) == "response4"
    assert ctx.coordinator.snapshot_registry().epochs_list() == [3]


def test_schedule_write_op_when_inactive():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    # no coordinator for the partition
    write = runtime.schedule_write_operation("write", TP, DEFAULT_WRITE_TIMEOUT,
                                             lambda state: CoordinatorResult([], "response1"))
    assert_future_throws(write, NotCoordinatorException)


def test_schedule_write_op_when_op_fails():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    runtime.schedule_load_operation(TP, 10)

    def op(state: Any) -> CoordinatorResult[str, str]:
        raise KafkaException("error")

    write = runtime.schedule_write_operation("write", TP, DEFAULT_WRITE_TIMEOUT, op)
    assert_future_throws(write, KafkaException)


class _FailingReplayShard(MockCoordinatorShard):
    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: str) -> None:
        raise IllegalArgumentException("error")


class _FailingEndMarkerShard(MockCoordinatorShard):
    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        raise IllegalArgumentException("error")


def test_schedule_write_op_when_replay_fails():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    # a shard whose replay fails
    snapshot_registry = ctx.coordinator.snapshot_registry()
    ctx.coordinator = SnapshottableCoordinator("", snapshot_registry,
                                               _FailingReplayShard(snapshot_registry, ctx.timer), TP)

    write = runtime.schedule_write_operation("write", TP, DEFAULT_WRITE_TIMEOUT,
                                             lambda state: CoordinatorResult(["record1", "record2"], "response1"))
    assert_future_throws(write, IllegalArgumentException)

    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]


def test_schedule_write_op_when_write_fails():
    timer = MockTimer()
    # only one write is accepted
    writer = MockPartitionWriter(1)
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    runtime.schedule_write_operation("write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                     lambda state: CoordinatorResult(["record1", "record2"], "response1"))

    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    assert ctx.coordinator.coordinator().records() == {"record1", "record2"}

    write2 = runtime.schedule_write_operation(
        "write#2", TP, DEFAULT_WRITE_TIMEOUT,
        lambda state: CoordinatorResult(["record3", "record4", "record5"], "response2"))
    assert_future_throws(write2, KafkaException)

    # the failed write was reverted
    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    assert ctx.coordinator.coordinator().records() == {"record1", "record2"}


def test_schedule_write_op_when_write_times_out():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    # the high watermark never moves: the write times out
    timed_out_write = runtime.schedule_write_operation(
        "write#1", TP, 3, lambda state: CoordinatorResult(["record1", "record2"], "response1"))

    timer.advance_clock(4)

    assert_future_throws(timed_out_write, TimeoutException)


def test_schedule_write_all_operation():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    coordinator0 = TopicPartition("__consumer_offsets", 0)
    coordinator1 = TopicPartition("__consumer_offsets", 1)
    coordinator2 = TopicPartition("__consumer_offsets", 2)

    runtime.schedule_load_operation(coordinator0, 10)
    runtime.schedule_load_operation(coordinator1, 10)
    runtime.schedule_load_operation(coordinator2, 10)

    cnt = [0]

    def op(state: Any) -> CoordinatorResult[list[str], str]:
        counter = cnt[0]
        cnt[0] += 1
        return CoordinatorResult([f"record#{counter}"], [f"response#{counter}"])

    writes = runtime.schedule_write_all_operation("write", DEFAULT_WRITE_TIMEOUT, op)

    assert runtime.context_or_throw(coordinator0).coordinator.last_written_offset() == 1
    assert runtime.context_or_throw(coordinator1).coordinator.last_written_offset() == 1
    assert runtime.context_or_throw(coordinator2).coordinator.last_written_offset() == 1

    assert writer.entries(coordinator0) == [records(timer.time().milliseconds(), "record#0")]
    assert writer.entries(coordinator1) == [records(timer.time().milliseconds(), "record#1")]
    assert writer.entries(coordinator2) == [records(timer.time().milliseconds(), "record#2")]

    writer.commit(coordinator0)
    writer.commit(coordinator1)
    writer.commit(coordinator2)

    assert combine_futures(writes) == ["response#0", "response#1", "response#2"]


def test_schedule_transactional_write_op():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    runtime = new_runtime(timer, writer, supplier=_SingleShardSupplier(coordinator))

    runtime.schedule_load_operation(TP, 10)

    writer.register_listener.assert_called_once_with(TP, mock.ANY)

    writer.config.return_value = LogConfig({})

    guard = VerificationGuard()
    writer.maybe_start_transaction_verification.side_effect = (
        lambda *args: CompletableFuture.completed_future(guard)
        if args == (TP, "transactional-id", 100, 50, TXN_OFFSET_COMMIT_LATEST_VERSION) else None)

    runtime.schedule_transactional_write_operation(
        "tnx-write", TP, "transactional-id", 100, 50, 5000,
        lambda state: CoordinatorResult(["record1", "record2"], "response"), TXN_OFFSET_COMMIT_LATEST_VERSION)

    # the log got the records with the producer id and epoch
    writer.append.assert_called_once_with(
        TP, guard, transactional_records(100, 50, timer.time().milliseconds(), "record1", "record2"))

    # and so did the shard
    coordinator.replay.assert_any_call(0, 100, 50, "record1")
    coordinator.replay.assert_any_call(1, 100, 50, "record2")
    assert coordinator.replay.call_count == 2


def test_schedule_transactional_write_op_when_verification_fails():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    runtime = new_runtime(timer, writer, supplier=_SingleShardSupplier(coordinator))

    runtime.schedule_load_operation(TP, 10)

    writer.register_listener.assert_called_once_with(TP, mock.ANY)

    def failed_verification(*args: Any) -> Any:
        if args != (TP, "transactional-id", 100, 50, TXN_OFFSET_COMMIT_LATEST_VERSION):
            return None
        future: CompletableFuture[VerificationGuard] = CompletableFuture()
        future.complete_exceptionally(NotEnoughReplicasException())  # Errors.NOT_ENOUGH_REPLICAS.exception()
        return future

    writer.maybe_start_transaction_verification.side_effect = failed_verification

    future = runtime.schedule_transactional_write_operation(
        "tnx-write", TP, "transactional-id", 100, 50, 5000,
        lambda state: CoordinatorResult(["record1", "record2"], "response"), TXN_OFFSET_COMMIT_LATEST_VERSION)

    assert_future_throws(future, NotEnoughReplicasException)

    writer.append.assert_not_called()


@pytest.mark.parametrize("result", list(TransactionResult))
def test_schedule_transaction_completion(result: TransactionResult):
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    write1 = runtime.schedule_transactional_write_operation(
        "write#1", TP, "transactional-id", 100, 5, DEFAULT_WRITE_TIMEOUT,
        lambda state: CoordinatorResult(["record1", "record2"], "response1"), TXN_OFFSET_COMMIT_LATEST_VERSION)

    assert not write1.done()
    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    # pending until the transaction ends
    assert ctx.coordinator.coordinator().pending_records(100) == {"record1", "record2"}
    assert writer.entries(TP) == [transactional_records(100, 5, timer.time().milliseconds(), "record1", "record2")]

    complete1 = runtime.schedule_transaction_completion("complete#1", TP, 100, 5, 10, result, DEFAULT_WRITE_TIMEOUT)

    assert not complete1.done()
    assert ctx.coordinator.last_written_offset() == 3
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2, 3]
    if result == TransactionResult.COMMIT:
        assert ctx.coordinator.coordinator().records() == {"record1", "record2"}
        expected_type = ControlRecordType.COMMIT
    else:
        assert ctx.coordinator.coordinator().records() == set()
        expected_type = ControlRecordType.ABORT

    assert writer.entries(TP) == [
        transactional_records(100, 5, timer.time().milliseconds(), "record1", "record2"),
        end_transaction_marker(100, 5, timer.time().milliseconds(), 10, expected_type),
    ]

    writer.commit(TP, 2)

    assert write1.done()
    assert write1.result(timeout=5) == "response1"

    writer.commit(TP, 3)

    assert complete1.done()
    assert complete1.result(timeout=5) is None


def test_schedule_transaction_completion_when_write_times_out():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    # the high watermark never moves: the completion times out
    timed_out_completion = runtime.schedule_transaction_completion("complete#1", TP, 100, 5, 10,
                                                                   TransactionResult.COMMIT, 3)

    assert ctx.coordinator.last_written_offset() == 1
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 1]

    timer.advance_clock(4)

    assert_future_throws(timed_out_completion, TimeoutException)

    # the marker is in the log: a timeout reverts nothing
    assert ctx.coordinator.last_written_offset() == 1
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 1]


def test_schedule_transaction_completion_when_write_fails():
    timer = MockTimer()
    # records are accepted, markers are not
    writer = MockPartitionWriter(fail_end_marker=True)
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    runtime.schedule_transactional_write_operation(
        "write#1", TP, "transactional-id", 100, 5, DEFAULT_WRITE_TIMEOUT,
        lambda state: CoordinatorResult(["record1", "record2"], "response1"), TXN_OFFSET_COMMIT_LATEST_VERSION)

    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    assert ctx.coordinator.coordinator().pending_records(100) == {"record1", "record2"}
    assert ctx.coordinator.coordinator().records() == set()

    complete1 = runtime.schedule_transaction_completion("complete#1", TP, 100, 5, 10, TransactionResult.COMMIT,
                                                        DEFAULT_WRITE_TIMEOUT)
    assert_future_throws(complete1, KafkaException)

    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    assert ctx.coordinator.coordinator().pending_records(100) == {"record1", "record2"}
    assert ctx.coordinator.coordinator().records() == set()


def test_schedule_transaction_completion_when_replay_fails():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    # a shard whose end marker replay fails
    snapshot_registry = ctx.coordinator.snapshot_registry()
    ctx.coordinator = SnapshottableCoordinator("", snapshot_registry,
                                               _FailingEndMarkerShard(snapshot_registry, ctx.timer), TP)

    runtime.schedule_transactional_write_operation(
        "write#1", TP, "transactional-id", 100, 5, DEFAULT_WRITE_TIMEOUT,
        lambda state: CoordinatorResult(["record1", "record2"], "response1"), TXN_OFFSET_COMMIT_LATEST_VERSION)

    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    assert ctx.coordinator.coordinator().pending_records(100) == {"record1", "record2"}
    assert ctx.coordinator.coordinator().records() == set()
    assert writer.entries(TP) == [transactional_records(100, 5, timer.time().milliseconds(), "record1", "record2")]

    complete1 = runtime.schedule_transaction_completion("complete#1", TP, 100, 5, 10, TransactionResult.COMMIT,
                                                        DEFAULT_WRITE_TIMEOUT)
    assert_future_throws(complete1, IllegalArgumentException)

    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 2]
    assert ctx.coordinator.coordinator().pending_records(100) == {"record1", "record2"}
    assert ctx.coordinator.coordinator().records() == set()
    assert writer.entries(TP) == [transactional_records(100, 5, timer.time().milliseconds(), "record1", "record2")]


def test_schedule_read_op():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0

    write1 = runtime.schedule_write_operation("write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record1", "record2"], "response1"))
    write2 = runtime.schedule_write_operation("write#2", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record3", "record4"], "response2"))

    writer.commit(TP, 2)

    assert write1.done()
    assert not write2.done()

    assert ctx.coordinator.last_written_offset() == 4
    assert ctx.coordinator.last_committed_offset() == 2

    def read(state: Any, offset: int) -> str:
        # reads see the last committed offset
        assert offset == ctx.coordinator.last_committed_offset()
        return "read-response"

    read_future = runtime.schedule_read_operation("read", TP, read)

    assert read_future.done()
    assert read_future.result(timeout=5) == "read-response"


def test_schedule_read_op_when_partition_inactive():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    read = runtime.schedule_read_operation("read", TP, lambda state, offset: "read-response")
    assert_future_throws(read, NotCoordinatorException)


def test_schedule_read_op_when_ops_fails():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0

    runtime.schedule_write_operation("write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                     lambda state: CoordinatorResult(["record1", "record2"], "response1"))
    runtime.schedule_write_operation("write#2", TP, DEFAULT_WRITE_TIMEOUT,
                                     lambda state: CoordinatorResult(["record3", "record4"], "response2"))

    writer.commit(TP, 2)

    def read(state: Any, offset: int) -> str:
        assert offset == ctx.coordinator.last_committed_offset()
        raise IllegalArgumentException("error")

    read_future = runtime.schedule_read_operation("read", TP, read)
    assert_future_throws(read_future, IllegalArgumentException)


def test_schedule_read_all_op():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer)

    coordinator0 = TopicPartition("__consumer_offsets", 0)
    coordinator1 = TopicPartition("__consumer_offsets", 1)
    coordinator2 = TopicPartition("__consumer_offsets", 2)

    runtime.schedule_load_operation(coordinator0, 10)
    runtime.schedule_load_operation(coordinator1, 10)
    runtime.schedule_load_operation(coordinator2, 10)

    runtime.schedule_write_operation("write#0", coordinator0, DEFAULT_WRITE_TIMEOUT,
                                     lambda state: CoordinatorResult(["record0"], "response0"))
    runtime.schedule_write_operation("write#1", coordinator1, DEFAULT_WRITE_TIMEOUT,
                                     lambda state: CoordinatorResult(["record1"], "response1"))
    runtime.schedule_write_operation("write#2", coordinator2, DEFAULT_WRITE_TIMEOUT,
                                     lambda state: CoordinatorResult(["record2"], "response2"))

    writer.commit(coordinator0)
    writer.commit(coordinator1)
    writer.commit(coordinator2)

    responses = runtime.schedule_read_all_operation("read", lambda state, offset: list(state.records()))

    assert combine_futures(responses) == ["record0", "record1", "record2"]


def test_close():
    loader = mock.Mock(wraps=MockCoordinatorLoader())  # Mockito's spy
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter(), loader=loader)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0

    write1 = runtime.schedule_write_operation("write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record1", "record2"], "response1"))
    write2 = runtime.schedule_write_operation("write#2", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record3", "record4"], "response2"))

    assert not write1.done()
    assert not write2.done()

    assert ctx.timer.size() == 0

    # never runs
    ctx.timer.schedule("timer-1", 10_000, True, lambda: CoordinatorResult(["record5", "record6"], None))

    assert ctx.timer.size() == 1

    runtime.close()

    # pending writes fail
    assert_future_throws(write1, NotCoordinatorException)
    assert_future_throws(write2, NotCoordinatorException)

    loader.close.assert_called_once_with()

    assert ctx.timer.size() == 0


def test_on_new_metadata_image():
    tp0 = TopicPartition("__consumer_offsets", 0)
    tp1 = TopicPartition("__consumer_offsets", 1)

    timer = MockTimer()
    loader = mock.Mock(spec=MockCoordinatorLoader)
    writer = mock_writer()
    coordinator0 = mock.Mock(spec=MockCoordinatorShard)
    coordinator1 = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator0, coordinator1)
    runtime = new_runtime(timer, writer, loader=loader, supplier=supplier)

    future0: CompletableFuture[LoadSummary] = CompletableFuture()
    future1: CompletableFuture[LoadSummary] = CompletableFuture()
    mock_load(loader, runtime, {tp0: future0, tp1: future1})

    runtime.schedule_load_operation(tp0, 0)
    runtime.schedule_load_operation(tp1, 0)

    assert runtime.context_or_throw(tp0).coordinator.coordinator() is coordinator0
    assert runtime.context_or_throw(tp1).coordinator.coordinator() is coordinator1

    # loaded now: gets the current image, the empty one
    future0.complete(None)
    coordinator0.on_loaded.assert_called_once_with(MetadataImage.EMPTY)

    delta = MetadataDelta(MetadataImage.EMPTY)
    new_image = delta.apply(MetadataProvenance.EMPTY)
    runtime.on_new_metadata_image(new_image, delta)

    coordinator0.on_new_metadata_image.assert_called_once_with(new_image, delta)

    # loaded after the image: gets the new one
    future1.complete(None)
    coordinator1.on_loaded.assert_called_once_with(new_image)


def test_schedule_timer():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter(), default_write_timeout=30)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0

    assert ctx.timer.size() == 0

    ctx.timer.schedule("timer-1", 10, True, lambda: CoordinatorResult(["record1", "record2"], None))
    ctx.timer.schedule("timer-2", 20, True, lambda: CoordinatorResult(["record3", "record4"], None))

    assert ctx.timer.size() == 2

    timer.advance_clock(10 + 1)

    assert ctx.coordinator.coordinator().records() == {"record1", "record2"}
    assert ctx.timer.size() == 1

    timer.advance_clock(10 + 1)

    assert ctx.coordinator.coordinator().records() == {"record1", "record2", "record3", "record4"}
    assert ctx.timer.size() == 0


def test_reschedule_timer():
    timer = MockTimer()
    processor = ManualEventProcessor()
    runtime = new_runtime(timer, MockPartitionWriter(), processor=processor)

    runtime.schedule_load_operation(TP, 10)

    # the load and its completion
    processor.poll()
    processor.poll()

    ctx = runtime.context_or_throw(TP)
    assert ctx.timer.size() == 0
    assert processor.size() == 0

    ctx.timer.schedule("timer-1", 10, True, lambda: CoordinatorResult(["record1"], None))
    assert ctx.timer.size() == 1

    timer.advance_clock(10 + 1)

    # the expired timer's event waits in the processor
    assert processor.size() == 1

    # the same key again, twice: one task pending
    ctx.timer.schedule("timer-1", 10, True, lambda: CoordinatorResult(["record2"], None))
    assert ctx.timer.size() == 1

    ctx.timer.schedule("timer-1", 10, True, lambda: CoordinatorResult(["record3"], None))
    assert ctx.timer.size() == 1

    timer.advance_clock(10 + 1)

    assert processor.size() == 2

    assert processor.poll()
    assert processor.poll()

    # only the last one ran
    assert ctx.coordinator.coordinator().records() == {"record3"}
    assert ctx.timer.size() == 0


def test_cancel_timer():
    timer = MockTimer()
    processor = ManualEventProcessor()
    runtime = new_runtime(timer, MockPartitionWriter(), processor=processor)

    runtime.schedule_load_operation(TP, 10)

    processor.poll()
    processor.poll()

    ctx = runtime.context_or_throw(TP)
    assert ctx.timer.size() == 0
    assert processor.size() == 0

    ctx.timer.schedule("timer-1", 10, True, lambda: CoordinatorResult(["record1"], None))
    assert ctx.timer.size() == 1

    timer.advance_clock(10 + 1)

    assert processor.size() == 1

    ctx.timer.schedule("timer-1", 10, True, lambda: CoordinatorResult(["record2"], None))
    assert ctx.timer.size() == 1

    ctx.timer.cancel("timer-1")
    assert ctx.timer.size() == 0

    timer.advance_clock(10 + 1)

    # the cancelled timer queued nothing
    assert processor.size() == 1

    assert processor.poll()

    # and the event queued before was overridden: nothing ran
    assert ctx.coordinator.coordinator().records() == set()
    assert ctx.timer.size() == 0


def _failing_operation(cnt: list[int]) -> Any:
    def operation() -> CoordinatorResult[None, str]:
        cnt[0] += 1
        raise KafkaException("error")
    return operation


def test_retryable_timer():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.timer.size() == 0

    cnt = [0]
    ctx.timer.schedule("timer-1", 10, True, _failing_operation(cnt))
    assert ctx.timer.size() == 1

    timer.advance_clock(10 + 1)

    # it ran, failed and is scheduled again
    assert cnt[0] == 1
    assert ctx.timer.size() == 1

    timer.advance_clock(500 + 1)

    assert cnt[0] == 2
    assert ctx.timer.size() == 1

    timer.advance_clock(500 + 1)

    assert cnt[0] == 3
    assert ctx.timer.size() == 1

    ctx.timer.cancel("timer-1")
    assert ctx.timer.size() == 0


def test_retryable_timer_with_custom_backoff():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.timer.size() == 0

    cnt = [0]
    ctx.timer.schedule("timer-1", 10, True, _failing_operation(cnt), 1000)
    assert ctx.timer.size() == 1

    timer.advance_clock(10 + 1)

    assert cnt[0] == 1
    assert ctx.timer.size() == 1

    # past the default backoff, not the custom one
    timer.advance_clock(500 + 1)

    assert cnt[0] == 1
    assert ctx.timer.size() == 1

    timer.advance_clock(500 + 1)

    assert cnt[0] == 2
    assert ctx.timer.size() == 1

    timer.advance_clock(500 + 1)

    assert cnt[0] == 2
    assert ctx.timer.size() == 1

    timer.advance_clock(500 + 1)

    assert cnt[0] == 3
    assert ctx.timer.size() == 1

    ctx.timer.cancel("timer-1")
    assert ctx.timer.size() == 0


def test_non_retryable_timer():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.timer.size() == 0

    cnt = [0]
    ctx.timer.schedule("timer-1", 10, False, _failing_operation(cnt))
    assert ctx.timer.size() == 1

    timer.advance_clock(10 + 1)

    # ran once, not retried
    assert cnt[0] == 1
    assert ctx.timer.size() == 0


def test_timer_schedule_if_absent():
    timer = MockTimer()
    runtime = new_runtime(timer, MockPartitionWriter())

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.timer.size() == 0

    cnt = [0]
    ctx.timer.schedule_if_absent("timer-1", 10, False, _failing_operation(cnt))
    assert ctx.timer.size() == 1

    timer.advance_clock(10 // 2)

    # already scheduled: the deadline stays
    ctx.timer.schedule_if_absent("timer-1", 10, False, _failing_operation(cnt))

    timer.advance_clock(10 // 2 + 1)

    assert cnt[0] == 1
    assert ctx.timer.size() == 0


def test_state_changes():
    timer = MockTimer()
    writer = mock_writer()
    loader = mock.Mock(spec=MockCoordinatorLoader)
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime_metrics = mock.Mock(spec=CoordinatorRuntimeMetrics)
    runtime = new_runtime(timer, writer, loader=loader, supplier=supplier, runtime_metrics=runtime_metrics)
    future: CompletableFuture[LoadSummary] = CompletableFuture()
    mock_load(loader, runtime, {TP: future})

    def state_changes(old: CoordinatorState, new: CoordinatorState) -> int:
        return runtime_metrics.record_partition_state_change.call_args_list.count(mock.call(old, new))

    runtime.schedule_load_operation(TP, 0)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is LOADING
    assert state_changes(INITIAL, LOADING) == 1

    future.complete_exceptionally(Exception("failure"))
    assert ctx.state is FAILED
    assert state_changes(LOADING, FAILED) == 1

    # a second partition
    tp = TopicPartition("__consumer_offsets", 1)
    future = CompletableFuture()
    mock_load(loader, runtime, {tp: future})
    runtime.schedule_load_operation(tp, 0)
    ctx = runtime.context_or_throw(tp)
    assert ctx.coordinator.coordinator() is coordinator
    assert ctx.state is LOADING
    assert state_changes(INITIAL, LOADING) == 2

    future.complete(None)
    assert ctx.state is ACTIVE
    assert state_changes(LOADING, ACTIVE) == 1

    runtime.close()
    assert state_changes(FAILED, CLOSED) == 1
    assert state_changes(ACTIVE, CLOSED) == 1


def test_partition_load_sensor():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime_metrics = mock.Mock(spec=CoordinatorRuntimeMetrics)

    start_time_ms = timer.time().milliseconds()
    loader = MockCoordinatorLoader(LoadSummary(start_time_ms, start_time_ms + 1000, start_time_ms + 500, 30, 3000),
                                   [], [])
    runtime = new_runtime(timer, writer, loader=loader, supplier=supplier, runtime_metrics=runtime_metrics)

    with pytest.raises(NotCoordinatorException):
        runtime.context_or_throw(TP)

    runtime.schedule_load_operation(TP, 0)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is ACTIVE

    runtime_metrics.record_partition_load_sensor.assert_called_once_with(start_time_ms, start_time_ms + 1000)


def test_partition_load_generates_snapshot_at_high_watermark():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime_metrics = mock.Mock(spec=CoordinatorRuntimeMetrics)
    loader = MockCoordinatorLoader(LoadSummary(1000, 2000, 1500, 30, 3000), [5, 15, 27], [5, 15])
    runtime = new_runtime(timer, writer, loader=loader, supplier=supplier, runtime_metrics=runtime_metrics)

    runtime.schedule_load_operation(TP, 0)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is ACTIVE

    assert ctx.coordinator.last_written_offset() == 27
    assert ctx.coordinator.last_committed_offset() == 15
    assert not ctx.coordinator.snapshot_registry().has_snapshot(0)
    assert not ctx.coordinator.snapshot_registry().has_snapshot(5)
    assert ctx.coordinator.snapshot_registry().has_snapshot(15)
    assert ctx.coordinator.snapshot_registry().has_snapshot(27)


def test_partition_load_generates_snapshot_at_high_watermark_no_records_loaded():
    timer = MockTimer()
    writer = mock_writer()
    coordinator = mock.Mock(spec=MockCoordinatorShard)
    supplier, _ = mock_shard_builder(coordinator)
    runtime_metrics = mock.Mock(spec=CoordinatorRuntimeMetrics)
    loader = MockCoordinatorLoader(LoadSummary(1000, 2000, 1500, 30, 3000), [], [])
    runtime = new_runtime(timer, writer, loader=loader, supplier=supplier, runtime_metrics=runtime_metrics)

    runtime.schedule_load_operation(TP, 0)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is ACTIVE

    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().has_snapshot(0)


def test_high_watermark_update():
    timer = MockTimer()
    writer = MockPartitionWriter()
    processor = ManualEventProcessor()
    runtime = new_runtime(timer, writer, processor=processor)

    # the load, then its completion
    runtime.schedule_load_operation(TP, 10)
    processor.poll()
    processor.poll()

    write1 = runtime.schedule_write_operation("write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record1"], "response1"))
    processor.poll()

    write2 = runtime.schedule_write_operation("write#2", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record2"], "response2"))
    processor.poll()

    assert writer.entries(TP) == [records(timer.time().milliseconds(), "record1"),
                                  records(timer.time().milliseconds(), "record2")]

    # no high watermark pending
    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == -1

    writer.commit(TP, 1)

    # one event queued, the high watermark pending
    assert processor.size() == 1
    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == 1

    writer.commit(TP, 2)

    # still one event, with the newer high watermark
    assert processor.size() == 1
    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == 2

    processor.poll()

    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == -1
    assert runtime.context_or_throw(TP).coordinator.last_committed_offset() == 2
    assert write1.done()
    assert write2.done()


def test_write_event_write_timeout_task_is_cancelled_when_high_watermark_is_updated():
    timer = MockTimer()
    writer = MockPartitionWriter()
    processor = ManualEventProcessor()
    runtime = new_runtime(timer, writer, processor=processor)

    runtime.schedule_load_operation(TP, 10)
    processor.poll()
    processor.poll()

    write1 = runtime.schedule_write_operation("Write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record1"], "response1"))
    processor.poll()

    write2 = runtime.schedule_write_operation("Write#2", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(["record2"], "response2"))
    processor.poll()

    assert writer.entries(TP) == [records(timer.time().milliseconds(), "record1"),
                                  records(timer.time().milliseconds(), "record2")]

    # one write timeout per write
    assert timer.size() == 2

    writer.commit(TP, 1)
    writer.commit(TP, 2)

    assert processor.size() == 1
    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == 2

    # not cancelled yet
    assert timer.size() == 2
    assert all(not entry.cancelled() for entry in timer.task_queue())

    processor.poll()

    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == -1
    assert runtime.context_or_throw(TP).coordinator.last_committed_offset() == 2
    assert write1.done()
    assert write2.done()

    # cancelled now (the mock timer keeps cancelled entries)
    assert timer.size() == 2
    assert all(entry.cancelled() for entry in timer.task_queue())


def test_coordinator_complete_transaction_event_write_timeout_task_is_cancelled_when_high_watermark_is_updated():
    timer = MockTimer()
    writer = MockPartitionWriter()
    processor = ManualEventProcessor()
    runtime = new_runtime(timer, writer, processor=processor)

    runtime.schedule_load_operation(TP, 10)
    processor.poll()
    processor.poll()

    write1 = runtime.schedule_transaction_completion("transactional-write", TP, 100, 50, 1, TransactionResult.COMMIT,
                                                     DEFAULT_WRITE_TIMEOUT)
    processor.poll()

    assert writer.entries(TP) == [
        end_transaction_marker(100, 50, timer.time().milliseconds(), 1, ControlRecordType.COMMIT)]

    assert timer.size() == 1

    writer.commit(TP, 1)

    assert processor.size() == 1
    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == 1

    assert timer.size() == 1
    assert all(not entry.cancelled() for entry in timer.task_queue())

    processor.poll()

    assert runtime.context_or_throw(TP).high_watermarklistener.last_high_watermark() == -1
    assert runtime.context_or_throw(TP).coordinator.last_committed_offset() == 1
    assert write1.done()

    assert timer.size() == 1
    assert all(entry.cancelled() for entry in timer.task_queue())


def test_append_record_batch_size():
    timer = MockTimer()
    writer = MockPartitionWriter()
    serializer = StringSerializer()
    runtime = new_runtime(timer, writer, serializer=serializer)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]

    max_batch_size = writer.config(TP).max_message_size()
    assert max_batch_size > MIN_BUFFER_SIZE

    # enough records for a batch between 16 KB and the maximum
    record_list = [f"record-{i}" for i in range(3000)]

    write1 = runtime.schedule_write_operation("write#1", TP, DEFAULT_WRITE_TIMEOUT,
                                              lambda state: CoordinatorResult(record_list, "response1"))

    # nothing failed, a RecordTooLargeException included
    assert not write1.done() or write1.exception() is None

    batch_size = writer.entries(TP)[0].size_in_bytes()
    assert MIN_BUFFER_SIZE < batch_size < max_batch_size


def _payloads(writer: MockPartitionWriter, chars: str) -> list[str]:
    """A record of a quarter of the max batch size per char: with the batch header, four never fit in one batch."""
    max_batch_size = writer.config(TP).max_message_size()
    return [c * (max_batch_size // 4) for c in chars]


RecordAndMetadata = MockCoordinatorShard.RecordAndMetadata


def test_schedule_write_operation_with_batching():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    record_list = _payloads(writer, "1234")

    write1 = runtime.schedule_write_operation("write#1", TP, 20,
                                              lambda state: CoordinatorResult(record_list[0:2], "response1"))

    assert not write1.done()
    # a batch was started
    assert ctx.current_batch is not None

    # replayed, not written yet
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1])]
    assert writer.entries(TP) == []

    write2 = runtime.schedule_write_operation("write#2", TP, 20,
                                              lambda state: CoordinatorResult(record_list[2:3], "response2"))

    assert not write2.done()
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2])]
    assert writer.entries(TP) == []

    # does not fit: the current batch is written and a new one started
    write3 = runtime.schedule_write_operation("write#3", TP, 20,
                                              lambda state: CoordinatorResult(record_list[3:4], "response3"))

    assert not write3.done()
    assert ctx.coordinator.last_written_offset() == 3
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 3]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2]),
                                                            RecordAndMetadata.of(3, record_list[3])]
    assert writer.entries(TP) == [records(timer.time().milliseconds(), *record_list[0:3])]

    # past the linger time: the pending batch is written
    timer.advance_clock(11)

    assert ctx.coordinator.last_written_offset() == 4
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 3, 4]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2]),
                                                            RecordAndMetadata.of(3, record_list[3])]
    assert writer.entries(TP) == [records(timer.time().milliseconds() - 11, *record_list[0:3]),
                                  records(timer.time().milliseconds() - 11, *record_list[3:4])]

    writer.commit(TP)
    assert write1.done()
    assert write2.done()
    assert write3.done()
    assert write1.result(timeout=5) == "response1"
    assert write2.result(timeout=5) == "response2"
    assert write3.result(timeout=5) == "response3"


def test_schedule_write_operation_with_batching_when_records_too_large():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    record_list = _payloads(writer, "1234")

    write = runtime.schedule_write_operation("write#1", TP, 20,
                                             lambda state: CoordinatorResult(record_list, "response1"))

    assert_future_throws(write, RecordTooLargeException)


def test_schedule_write_operation_with_batching_when_write_fails():
    timer = MockTimer()
    # no write accepted
    writer = MockPartitionWriter(0)
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    record_list = _payloads(writer, "1234")

    write1 = runtime.schedule_write_operation("write#1", TP, 20,
                                              lambda state: CoordinatorResult(record_list[0:1], "response1"))
    write2 = runtime.schedule_write_operation("write#2", TP, 20,
                                              lambda state: CoordinatorResult(record_list[1:2], "response2"))
    write3 = runtime.schedule_write_operation("write#3", TP, 20,
                                              lambda state: CoordinatorResult(record_list[2:3], "response3"))

    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2])]
    assert writer.entries(TP) == []

    # does not fit: flushing the current batch fails, and every write with it
    write4 = runtime.schedule_write_operation("write#4", TP, 20,
                                              lambda state: CoordinatorResult(record_list[3:4], "response4"))

    assert_future_throws(write1, KafkaException)
    assert_future_throws(write2, KafkaException)
    assert_future_throws(write3, KafkaException)
    assert_future_throws(write4, KafkaException)

    # back to the initial state
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == []
    assert writer.entries(TP) == []


class _ReplayFailsFromOffsetOneShard(MockCoordinatorShard):
    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: str) -> None:
        if offset >= 1:
            raise IllegalArgumentException("error")
        super().replay(offset, producer_id, producer_epoch, record)


def test_schedule_write_operation_with_batching_when_replay_fails():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    # a shard whose replay fails from offset 1
    snapshot_registry = ctx.coordinator.snapshot_registry()
    ctx.coordinator = SnapshottableCoordinator("", snapshot_registry,
                                               _ReplayFailsFromOffsetOneShard(snapshot_registry, ctx.timer), TP)

    record_list = _payloads(writer, "12")

    write1 = runtime.schedule_write_operation("write#1", TP, 20,
                                              lambda state: CoordinatorResult(record_list[0:1], "response1"))

    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0])]
    assert writer.entries(TP) == []

    # fails, and takes the batch with it
    write2 = runtime.schedule_write_operation("write#2", TP, 20,
                                              lambda state: CoordinatorResult(record_list[1:2], "response2"))

    assert_future_throws(write1, IllegalArgumentException)
    assert_future_throws(write2, IllegalArgumentException)

    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == []
    assert writer.entries(TP) == []


def test_schedule_transactional_write_operation_with_batching():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    write1 = runtime.schedule_write_operation("write#1", TP, 20,
                                              lambda state: CoordinatorResult(["record#1"], "response1"))

    assert not write1.done()
    # replayed, not written yet
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().pending_records(100) == set()
    assert ctx.coordinator.coordinator().records() == {"record#1"}
    assert writer.entries(TP) == []

    # a transactional write flushes the current batch, then is written on its own
    write2 = runtime.schedule_transactional_write_operation(
        "txn-write#1", TP, "transactional-id", 100, 50, 20,
        lambda state: CoordinatorResult(["record#2"], "response2"), TXN_OFFSET_COMMIT_LATEST_VERSION)

    assert not write2.done()
    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 1, 2]
    assert ctx.coordinator.coordinator().pending_records(100) == {"record#2"}
    assert ctx.coordinator.coordinator().records() == {"record#1"}
    assert writer.entries(TP) == [records(timer.time().milliseconds(), "record#1"),
                                  transactional_records(100, 50, timer.time().milliseconds(), "record#2")]

    write3 = runtime.schedule_write_operation("write#3", TP, 20,
                                              lambda state: CoordinatorResult(["record#3"], "response3"))

    assert not write3.done()
    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 1, 2]
    assert ctx.coordinator.coordinator().pending_records(100) == {"record#2"}
    assert ctx.coordinator.coordinator().records() == {"record#1", "record#3"}
    assert writer.entries(TP) == [records(timer.time().milliseconds(), "record#1"),
                                  transactional_records(100, 50, timer.time().milliseconds(), "record#2")]

    # the marker flushes the current batch first
    complete1 = runtime.schedule_transaction_completion("complete#1", TP, 100, 50, 10, TransactionResult.COMMIT,
                                                        DEFAULT_WRITE_TIMEOUT)

    assert not complete1.done()
    assert ctx.coordinator.last_written_offset() == 4
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 1, 2, 3, 4]
    assert ctx.coordinator.coordinator().pending_records(100) == set()
    assert ctx.coordinator.coordinator().records() == {"record#1", "record#2", "record#3"}
    assert writer.entries(TP) == [
        records(timer.time().milliseconds(), "record#1"),
        transactional_records(100, 50, timer.time().milliseconds(), "record#2"),
        records(timer.time().milliseconds(), "record#3"),
        end_transaction_marker(100, 50, timer.time().milliseconds(), 10, ControlRecordType.COMMIT),
    ]

    writer.commit(TP)
    assert write1.done()
    assert write2.done()
    assert write3.done()
    assert complete1.done()
    assert write1.result(timeout=5) == "response1"
    assert write2.result(timeout=5) == "response2"
    assert write3.result(timeout=5) == "response3"
    assert complete1.result(timeout=5) is None


class _OffByOnePartitionWriter(MockPartitionWriter):
    """Returns one more than the real end offset, as a log out of step with the shard would."""

    def append(self, tp: TopicPartition, verification_guard: VerificationGuard, batch: MemoryRecords) -> int:
        return super().append(tp, verification_guard, batch) + 1


def test_state_machine_is_reloaded_when_out_of_sync():
    timer = MockTimer()
    loader = mock.Mock(wraps=MockCoordinatorLoader())  # Mockito's spy
    writer = _OffByOnePartitionWriter()
    runtime = new_runtime(timer, writer, loader=loader, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.state is ACTIVE
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    coordinator = ctx.coordinator

    record_list = _payloads(writer, "1234")

    write1 = runtime.schedule_write_operation("write#1", TP, 20,
                                              lambda state: CoordinatorResult(record_list[0:1], "response1"))
    write2 = runtime.schedule_write_operation("write#2", TP, 20,
                                              lambda state: CoordinatorResult(record_list[1:2], "response2"))
    write3 = runtime.schedule_write_operation("write#3", TP, 20,
                                              lambda state: CoordinatorResult(record_list[2:3], "response3"))
    # does not fit: the flush finds the log out of step, and every write fails
    write4 = runtime.schedule_write_operation("write#4", TP, 20,
                                              lambda state: CoordinatorResult(record_list[3:4], "response4"))

    assert_future_throws(write1, NotCoordinatorException)
    assert_future_throws(write2, NotCoordinatorException)
    assert_future_throws(write3, NotCoordinatorException)
    assert_future_throws(write4, NotCoordinatorException)

    # loaded again, into a new state machine
    assert loader.load.call_count == 2
    assert all(call.args[0] == TP for call in loader.load.call_args_list)

    assert ctx.state is ACTIVE
    assert ctx.coordinator is not coordinator


class _NotCaughtUpLoader(CoordinatorLoader[str]):
    """Replays two records and leaves the committed offset behind the written one."""

    def load(self, tp: TopicPartition, coordinator: CoordinatorPlayback[str]) -> CompletableFuture[LoadSummary]:
        coordinator.replay(0, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, "record#0")
        coordinator.replay(0, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, "record#1")
        coordinator.update_last_written_offset(2)
        coordinator.update_last_committed_offset(1)
        return CompletableFuture.completed_future(LoadSummary(0, 0, 0, 2, 1))

    def close(self) -> None:
        pass


def test_write_op_is_not_released_when_state_machine_is_not_caught_up_after_load():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer, loader=_NotCaughtUpLoader(), default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 1
    assert ctx.coordinator.snapshot_registry().epochs_list() == [2]

    # no records, but the state it read is not committed yet
    write = runtime.schedule_write_operation("write#1", TP, 20, lambda state: CoordinatorResult([], "response1"))

    assert not write.done()

    ctx.high_watermarklistener.on_high_watermark_updated(TP, 2)

    assert ctx.coordinator.last_written_offset() == 2
    assert ctx.coordinator.last_committed_offset() == 2
    assert ctx.coordinator.snapshot_registry().epochs_list() == [2]

    assert write.result(timeout=5) == "response1"


def test_schedule_non_atomic_write_operation():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    record_list = _payloads(writer, "1234")

    # atomically (the default) they cannot fit
    write1 = runtime.schedule_write_operation("write#1", TP, 20,
                                              lambda state: CoordinatorResult(record_list, "write#1"))

    assert_future_throws(write1, RecordTooLargeException)

    # non-atomically they are split over batches
    write2 = runtime.schedule_write_operation(
        "write#2", TP, 20, lambda state: CoordinatorResult(record_list, "write#2", None, True, False))

    assert not write2.done()

    assert ctx.current_batch is not None
    # the first three records were written in one batch, the fourth waits in the next
    assert ctx.coordinator.last_written_offset() == 3
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 3]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2]),
                                                            RecordAndMetadata.of(3, record_list[3])]
    assert writer.entries(TP) == [records(timer.time().milliseconds(), *record_list[0:3])]

    writer.commit(TP, 3)

    # still pending
    assert not write2.done()

    # past the linger time: the pending batch is written
    timer.advance_clock(11)

    assert ctx.current_batch is None
    assert ctx.coordinator.last_written_offset() == 4
    assert ctx.coordinator.last_committed_offset() == 3
    assert ctx.coordinator.snapshot_registry().epochs_list() == [3, 4]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2]),
                                                            RecordAndMetadata.of(3, record_list[3])]
    assert writer.entries(TP) == [records(timer.time().milliseconds() - 11, *record_list[0:3]),
                                  records(timer.time().milliseconds() - 11, *record_list[3:4])]

    writer.commit(TP, 4)

    assert write2.done()
    assert write2.result(timeout=5) == "write#2"


def test_schedule_non_atomic_write_operation_with_record_too_large():
    timer = MockTimer()
    writer = MockPartitionWriter()
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    max_batch_size = writer.config(TP).max_message_size()
    record_list = _payloads(writer, "123")
    # larger than a batch may be
    record = "4" * max_batch_size

    write1 = runtime.schedule_write_operation(
        "write#1", TP, 20, lambda state: CoordinatorResult(record_list, "write#1", None, True, False))

    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2])]
    assert writer.entries(TP) == []

    # flushes the pending batch and starts a new one with the large record, which a builder always takes: it only
    # fails when written
    write2 = runtime.schedule_write_operation(
        "write#2", TP, 20, lambda state: CoordinatorResult([record], "write#2", None, True, False))

    timer.advance_clock(11)

    assert_future_throws(write2, RecordTooLargeException)

    # write#1 is untouched
    assert not write1.done()

    assert ctx.coordinator.last_written_offset() == 3
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0, 3]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2])]
    assert writer.entries(TP) == [records(timer.time().milliseconds() - 11, *record_list[0:3])]


def test_schedule_non_atomic_write_operation_when_write_fails():
    timer = MockTimer()
    # no write accepted
    writer = MockPartitionWriter(0)
    runtime = new_runtime(timer, writer, default_write_timeout=20, append_linger_ms=10)

    runtime.schedule_load_operation(TP, 10)

    ctx = runtime.context_or_throw(TP)
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.current_batch is None

    record_list = _payloads(writer, "1234")

    write1 = runtime.schedule_write_operation(
        "write#1", TP, 20, lambda state: CoordinatorResult(record_list[0:1], "response1", None, True, False))
    write2 = runtime.schedule_write_operation(
        "write#2", TP, 20, lambda state: CoordinatorResult(record_list[1:2], "response2", None, True, False))
    write3 = runtime.schedule_write_operation(
        "write#3", TP, 20, lambda state: CoordinatorResult(record_list[2:3], "response3", None, True, False))

    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == [RecordAndMetadata.of(0, record_list[0]),
                                                            RecordAndMetadata.of(1, record_list[1]),
                                                            RecordAndMetadata.of(2, record_list[2])]
    assert writer.entries(TP) == []

    # does not fit: flushing the current batch fails, and every write with it
    write4 = runtime.schedule_write_operation(
        "write#4", TP, 20, lambda state: CoordinatorResult(record_list[3:4], "response4", None, True, False))

    assert_future_throws(write1, KafkaException)
    assert_future_throws(write2, KafkaException)
    assert_future_throws(write3, KafkaException)
    assert_future_throws(write4, KafkaException)

    # back to the initial state
    assert ctx.coordinator.last_written_offset() == 0
    assert ctx.coordinator.last_committed_offset() == 0
    assert ctx.coordinator.snapshot_registry().epochs_list() == [0]
    assert ctx.coordinator.coordinator().full_records() == []
    assert writer.entries(TP) == []
