"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorRuntime.java
(Kafka 3.9).

Runs the coordinator shards of the partitions this broker leads: each partition gets a context (state machine,
timeline snapshots, timer, deferred events), every operation on a partition is an event run by the event processor
one at a time per partition, writes apply their records to the shard at once and append them to the log, and their
responses wait in the deferred event queue until the high watermark passes them.

Port notes: Java's inner classes are nested classes taking the runtime as first argument. Durations are
milliseconds. Write, read and timeout operations are callables (Java passes lambdas). CoordinatorMetrics is typed
Any: the port has no metrics registry (the tests hand mocks, as Kafka's do). LogContext is its prefix string, as
elsewhere in the port. The port's MemoryRecordsBuilder grows its own bytearray, so no buffer is pooled between
batches (Kafka's BufferSupplier).
"""

from __future__ import annotations

import contextvars
import enum
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

from kafka_edu.tracing import event, step
from kafka_edu.v1_0_2.clients.common.errors import (
    CoordinatorLoadInProgressException,
    IllegalArgumentException,
    IllegalStateException,
    NotCoordinatorException,
    RecordTooLargeException,
    RejectedExecutionException,
    TimeoutException,
)
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.compress.compression import NONE as COMPRESSION_NONE
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.abstract_records import estimate_size_in_bytes_of_simple_records
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.record.record_batch import (
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
)
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM as SYSTEM_TIME
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.metrics.coordinator_runtime_metrics import (
    CoordinatorRuntimeMetrics,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event import CoordinatorEvent
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event_processor import (
    CoordinatorEventProcessor,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_loader import CoordinatorLoader
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard import CoordinatorShard
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_shard_builder_supplier import (
    CoordinatorShardBuilderSupplier,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_timer import (
    CoordinatorTimer,
    TimeoutOperation,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.partition_writer import Listener, PartitionWriter
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.serializer import Serializer
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.snapshottable_coordinator import (
    SnapshottableCoordinator,
)
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.deferred.deferred_event import DeferredEvent
from kafka_edu.v3_9.server_common.deferred.deferred_event_queue import DeferredEventQueue
from kafka_edu.v3_9.server_common.server.util.timer.timer import Timer
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard

S = TypeVar("S", bound=CoordinatorShard)
T = TypeVar("T")
U = TypeVar("U")

_LOGGER = "org.apache.kafka.coordinator.group.runtime.CoordinatorRuntime"

# CoordinatorWriteOperation: the shard in, the records to write and the response out
CoordinatorWriteOperation = Callable[[Any], CoordinatorResult]
# CoordinatorReadOperation: the shard and the last committed offset in, the response out
CoordinatorReadOperation = Callable[[Any, int], Any]


def _not_coordinator() -> NotCoordinatorException:
    """Errors.NOT_COORDINATOR.exception()."""
    return NotCoordinatorException("This is not the correct coordinator.")


def _coordinator_load_in_progress() -> CoordinatorLoadInProgressException:
    """Errors.COORDINATOR_LOAD_IN_PROGRESS.exception()."""
    return CoordinatorLoadInProgressException("The coordinator is loading and hence can't process requests.")


def _then_compose(future: CompletableFuture[Any], fn: Callable[[Any], CompletableFuture[T]]) -> CompletableFuture[T]:
    """CompletableFuture.thenCompose: a future completed as the future `fn` returns for this one's value."""
    result: CompletableFuture[T] = CompletableFuture()

    def relay(f: Future) -> None:  # type: ignore[type-arg]
        exception = f.exception()
        if exception is not None:
            result.complete_exceptionally(exception)
        else:
            result.complete(f.result())

    def done(f: Future) -> None:  # type: ignore[type-arg]
        exception = f.exception()
        if exception is not None:
            result.complete_exceptionally(exception)
            return
        try:
            fn(f.result()).add_done_callback(relay)
        except BaseException as e:
            result.complete_exceptionally(e)

    future.add_done_callback(done)
    return result


class _RunnableTimerTask(TimerTask):
    """An anonymous TimerTask of Java: `fn(task)` is its run, with the task for the `this` it refers to."""

    def __init__(self, delay_ms: int, fn: Callable[[_RunnableTimerTask], None]) -> None:
        super().__init__(delay_ms)
        self._fn = fn

    def run(self) -> None:
        self._fn(self)


class CoordinatorState(enum.Enum):
    """The states of a coordinator context; each says which states may lead to it."""

    INITIAL = "INITIAL"
    LOADING = "LOADING"
    ACTIVE = "ACTIVE"
    CLOSED = "CLOSED"
    FAILED = "FAILED"

    def can_transition_from(self, state: CoordinatorState) -> bool:
        if self is CoordinatorState.INITIAL:
            return False
        if self is CoordinatorState.LOADING:
            return state is CoordinatorState.INITIAL or state is CoordinatorState.FAILED
        if self is CoordinatorState.ACTIVE:
            return state is CoordinatorState.ACTIVE or state is CoordinatorState.LOADING
        if self is CoordinatorState.CLOSED:
            return True
        return state is CoordinatorState.LOADING or state is CoordinatorState.ACTIVE

    def __str__(self) -> str:
        return self.value


class CoordinatorRuntime(Generic[S, U]):
    """AutoCloseable: usable in a `with` block, which closes it."""

    class Builder(Generic[S, U]):
        def __init__(self) -> None:
            self._log_prefix: str | None = None
            self._log_context: str | None = None
            self._event_processor: CoordinatorEventProcessor | None = None
            self._partition_writer: PartitionWriter | None = None
            self._loader: CoordinatorLoader[U] | None = None
            self._coordinator_shard_builder_supplier: CoordinatorShardBuilderSupplier[S, U] | None = None
            self._time: Time | None = SYSTEM_TIME
            self._timer: Timer | None = None
            self._default_write_timeout_ms: int | None = None
            self._runtime_metrics: CoordinatorRuntimeMetrics | None = None
            self._coordinator_metrics: Any = None
            self._serializer: Serializer[U] | None = None
            self._compression: Compression | None = None
            self._append_linger_ms = 0

        def with_log_prefix(self, log_prefix: str) -> CoordinatorRuntime.Builder[S, U]:
            self._log_prefix = log_prefix
            return self

        def with_log_context(self, log_context: str) -> CoordinatorRuntime.Builder[S, U]:
            self._log_context = log_context
            return self

        def with_event_processor(self, event_processor: CoordinatorEventProcessor) -> CoordinatorRuntime.Builder[S, U]:
            self._event_processor = event_processor
            return self

        def with_partition_writer(self, partition_writer: PartitionWriter) -> CoordinatorRuntime.Builder[S, U]:
            self._partition_writer = partition_writer
            return self

        def with_loader(self, loader: CoordinatorLoader[U]) -> CoordinatorRuntime.Builder[S, U]:
            self._loader = loader
            return self

        def with_coordinator_shard_builder_supplier(
                self, coordinator_shard_builder_supplier: CoordinatorShardBuilderSupplier[S, U],
        ) -> CoordinatorRuntime.Builder[S, U]:
            self._coordinator_shard_builder_supplier = coordinator_shard_builder_supplier
            return self

        def with_time(self, time: Time) -> CoordinatorRuntime.Builder[S, U]:
            self._time = time
            return self

        def with_timer(self, timer: Timer) -> CoordinatorRuntime.Builder[S, U]:
            self._timer = timer
            return self

        def with_default_write_time_out(self, default_write_timeout_ms: int) -> CoordinatorRuntime.Builder[S, U]:
            """Java's Duration, in milliseconds."""
            self._default_write_timeout_ms = default_write_timeout_ms
            return self

        def with_coordinator_runtime_metrics(
                self, runtime_metrics: CoordinatorRuntimeMetrics) -> CoordinatorRuntime.Builder[S, U]:
            self._runtime_metrics = runtime_metrics
            return self

        def with_coordinator_metrics(self, coordinator_metrics: Any) -> CoordinatorRuntime.Builder[S, U]:
            self._coordinator_metrics = coordinator_metrics
            return self

        def with_serializer(self, serializer: Serializer[U]) -> CoordinatorRuntime.Builder[S, U]:
            self._serializer = serializer
            return self

        def with_compression(self, compression: Compression) -> CoordinatorRuntime.Builder[S, U]:
            self._compression = compression
            return self

        def with_append_linger_ms(self, append_linger_ms: int) -> CoordinatorRuntime.Builder[S, U]:
            self._append_linger_ms = append_linger_ms
            return self

        def build(self) -> CoordinatorRuntime[S, U]:
            if self._log_prefix is None:
                self._log_prefix = ""
            if self._log_context is None:
                self._log_context = self._log_prefix
            if self._event_processor is None:
                raise IllegalArgumentException("Event processor must be set.")
            if self._partition_writer is None:
                raise IllegalArgumentException("Partition write must be set.")
            if self._loader is None:
                raise IllegalArgumentException("Loader must be set.")
            if self._coordinator_shard_builder_supplier is None:
                raise IllegalArgumentException("State machine supplier must be set.")
            if self._time is None:
                raise IllegalArgumentException("Time must be set.")
            if self._timer is None:
                raise IllegalArgumentException("Timer must be set.")
            if self._runtime_metrics is None:
                raise IllegalArgumentException("CoordinatorRuntimeMetrics must be set.")
            if self._coordinator_metrics is None:
                raise IllegalArgumentException("CoordinatorMetrics must be set.")
            if self._serializer is None:
                raise IllegalArgumentException("Serializer must be set.")
            if self._compression is None:
                self._compression = COMPRESSION_NONE
            if self._append_linger_ms < 0:
                raise IllegalArgumentException("AppendLinger must be >= 0")
            return CoordinatorRuntime(
                self._log_prefix, self._log_context, self._event_processor, self._partition_writer, self._loader,
                self._coordinator_shard_builder_supplier, self._time, self._timer, self._default_write_timeout_ms,
                self._runtime_metrics, self._coordinator_metrics, self._serializer, self._compression,
                self._append_linger_ms)

    CoordinatorState = CoordinatorState

    class EventBasedCoordinatorTimer(CoordinatorTimer[None, Any]):
        """The shard's timer: an expired operation runs as a write event of its partition, so its records go
        through the write path like any other; a key scheduled again or cancelled drops the earlier task."""

        def __init__(self, runtime: CoordinatorRuntime[Any, Any], tp: TopicPartition, log_context: str) -> None:
            self._runtime = runtime
            self.tp = tp
            self.log = Logging(_LOGGER + ".EventBasedCoordinatorTimer", log_context)
            self.tasks: dict[str, TimerTask] = {}

        def schedule(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation[None, Any],
                     retry_backoff_ms: int | None = None) -> None:
            if retry_backoff_ms is None:
                retry_backoff_ms = 500
            runtime = self._runtime
            tp = self.tp
            log = self.log

            def run(task: _RunnableTimerTask) -> None:
                event_name = f"Timeout(tp={tp}, key={key})"

                def op(coordinator: Any) -> CoordinatorResult[None, Any]:
                    log.debug("Executing write event %s for timer %s.", event_name, key)
                    # a task replaced or cancelled since it was queued must not run
                    if self.tasks.get(key) is not task:
                        raise RejectedExecutionException(f"Timer {key} was overridden or cancelled")
                    del self.tasks[key]
                    return operation()

                event = CoordinatorRuntime.CoordinatorWriteEvent(runtime, event_name, tp,
                                                                 runtime._default_write_timeout_ms, op)

                def exceptionally(f: Future) -> None:  # type: ignore[type-arg]
                    ex = f.exception()
                    if ex is None:
                        return
                    if isinstance(ex, RejectedExecutionException):
                        log.debug("The write event %s for the timer %s was not executed because it was "
                                  "cancelled or overridden.", event.name, key)
                        return
                    if isinstance(ex, (NotCoordinatorException, CoordinatorLoadInProgressException)):
                        log.debug("The write event %s for the timer %s failed due to %s. Ignoring it because "
                                  "the coordinator is not active.", event.name, key, ex)
                        return
                    if retry:
                        log.info("The write event %s for the timer %s failed due to %s. Rescheduling it. ",
                                 event.name, key, ex)
                        self.schedule(key, retry_backoff_ms, True, operation, retry_backoff_ms)
                    else:
                        log.error("The write event %s for the timer %s failed due to %s. Ignoring it. ",
                                  event.name, key, ex)

                event.future.add_done_callback(exceptionally)
                log.debug("Scheduling write event %s for timer %s.", event.name, key)
                try:
                    runtime._enqueue_last(event)
                except NotCoordinatorException:
                    log.info("Failed to enqueue write event %s for timer %s because the runtime is closed. "
                             "Ignoring it.", event.name, key)

            task = _RunnableTimerTask(delay_ms, run)
            log.debug("Registering timer %s with delay of %sms.", key, delay_ms)
            prev_task = self.tasks.get(key)
            self.tasks[key] = task
            if prev_task is not None:
                prev_task.cancel()
            runtime._timer.add(task)

        def schedule_if_absent(self, key: str, delay_ms: int, retry: bool,
                               operation: TimeoutOperation[None, Any]) -> None:
            if key not in self.tasks:
                self.schedule(key, delay_ms, retry, operation, 500)

        def cancel(self, key: str) -> None:
            prev_task = self.tasks.pop(key, None)
            if prev_task is not None:
                prev_task.cancel()

        def cancel_all(self) -> None:
            for key in list(self.tasks):
                self.tasks.pop(key).cancel()

        def size(self) -> int:
            return len(self.tasks)

    class CoordinatorBatch:
        """The records being gathered for one append: the events writing them complete once it is committed."""

        def __init__(self, base_offset: int, append_time_ms: int, max_batch_size: int,
                     verification_guard: VerificationGuard, buffer: bytearray, builder: MemoryRecordsBuilder,
                     linger_timeout_task: TimerTask | None) -> None:
            self.base_offset = base_offset
            self.next_offset = base_offset
            self.append_time_ms = append_time_ms
            self.max_batch_size = max_batch_size
            self.verification_guard = verification_guard
            self.buffer = buffer
            self.builder = builder
            self.linger_timeout_task = linger_timeout_task
            self.deferred_events: list[DeferredEvent] = []

    class CoordinatorContext:
        """Everything the runtime keeps for one partition; `lock` guards it all."""

        def __init__(self, runtime: CoordinatorRuntime[Any, Any], tp: TopicPartition) -> None:
            self._runtime = runtime
            self.lock = threading.RLock()
            self.tp = tp
            self.log_context = f"[{runtime._log_prefix} topic={tp.topic} partition={tp.partition}] "
            self.state = CoordinatorState.INITIAL
            self.epoch = -1
            self.deferred_event_queue = DeferredEventQueue(self.log_context)
            self.timer = CoordinatorRuntime.EventBasedCoordinatorTimer(runtime, tp, self.log_context)
            self.coordinator: SnapshottableCoordinator[Any, Any] | None = None
            self.high_watermarklistener: CoordinatorRuntime.HighWatermarkListener | None = None
            self.current_batch: CoordinatorRuntime.CoordinatorBatch | None = None

        def transition_to(self, new_state: CoordinatorState) -> None:
            runtime = self._runtime
            if not new_state.can_transition_from(self.state):
                raise IllegalStateException(f"Cannot transition from {self.state} to {new_state}")
            old_state = self.state
            runtime._log.debug("Transition from %s to %s.", self.state, new_state)
            if new_state is CoordinatorState.LOADING:
                self.state = CoordinatorState.LOADING
                snapshot_registry = SnapshotRegistry(self.log_context)
                self.coordinator = SnapshottableCoordinator(
                    self.log_context,
                    snapshot_registry,
                    runtime._coordinator_shard_builder_supplier.get()
                    .with_log_context(self.log_context)
                    .with_snapshot_registry(snapshot_registry)
                    .with_time(runtime._time)
                    .with_timer(self.timer)
                    .with_coordinator_metrics(runtime._coordinator_metrics)
                    .with_topic_partition(self.tp)
                    .build(),
                    self.tp)
                self._load()
            elif new_state is CoordinatorState.ACTIVE:
                self.state = CoordinatorState.ACTIVE
                self.high_watermarklistener = CoordinatorRuntime.HighWatermarkListener(runtime)
                runtime._partition_writer.register_listener(self.tp, self.high_watermarklistener)
                self.coordinator.on_loaded(runtime._metadata_image)
            elif new_state is CoordinatorState.FAILED:
                self.state = CoordinatorState.FAILED
                self._unload()
            elif new_state is CoordinatorState.CLOSED:
                self.state = CoordinatorState.CLOSED
                self._unload()
            else:
                raise IllegalArgumentException(f"Transitioning to {new_state} is not supported.")
            event("GC.state", self, from_state=old_state)
            runtime._runtime_metrics.record_partition_state_change(old_state, self.state)

        def _load(self) -> None:
            runtime = self._runtime
            log = runtime._log
            if self.state is not CoordinatorState.LOADING:
                raise IllegalStateException("Coordinator must be in loading state")
            tp = self.tp
            epoch = self.epoch

            def on_load_done(summary: Any, exception: BaseException | None) -> None:
                def complete_load() -> None:
                    context = runtime._coordinators.get(tp)
                    if context is not None:
                        if context.state is not CoordinatorState.LOADING:
                            log.info("Ignored load completion from %s because context is in %s state.",
                                     context.tp, context.state)
                            return
                        try:
                            if exception is not None:
                                raise exception
                            context.transition_to(CoordinatorState.ACTIVE)
                            if summary is not None:
                                runtime._runtime_metrics.record_partition_load_sensor(summary.start_time_ms(),
                                                                                      summary.end_time_ms())
                                log.info("Finished loading of metadata from %s with epoch %s in %sms where %sms "
                                         "was spent in the scheduler. Loaded %s records which total to %s bytes.",
                                         tp, epoch, summary.end_time_ms() - summary.start_time_ms(),
                                         summary.scheduler_queue_time_ms(), summary.num_records(),
                                         summary.num_bytes())
                        except BaseException as ex:
                            log.error("Failed to load metadata from %s with epoch %s due to %s.", tp, epoch, ex)
                            context.transition_to(CoordinatorState.FAILED)
                    else:
                        log.debug("Failed to complete the loading of metadata for %s in epoch %s since the "
                                  "coordinator does not exist.", tp, epoch)

                runtime._schedule_internal_operation(f"CompleteLoad(tp={tp}, epoch={epoch})", tp, complete_load)

            runtime._loader.load(tp, self.coordinator).when_complete(on_load_done)

        def _unload(self) -> None:
            runtime = self._runtime
            if self.high_watermarklistener is not None:
                runtime._partition_writer.deregister_listener(self.tp, self.high_watermarklistener)
                self.high_watermarklistener = None
            self.timer.cancel_all()
            self.deferred_event_queue.fail_all(_not_coordinator())
            self._fail_current_batch(_not_coordinator())
            if self.coordinator is not None:
                self.coordinator.on_unloaded()
            self.coordinator = None

        def _free_current_batch(self) -> None:
            if self.current_batch.linger_timeout_task is not None:
                self.current_batch.linger_timeout_task.cancel()
            self.current_batch = None

        def _flush_current_batch(self) -> None:
            """Appends the current batch to the log; its events wait for the high watermark from then on."""
            runtime = self._runtime
            if self.current_batch is not None:
                try:
                    offset = runtime._partition_writer.append(self.tp, self.current_batch.verification_guard,
                                                             self.current_batch.builder.build())
                    # the shard's state is known at this offset now: snapshot it
                    self.coordinator.update_last_written_offset(offset)
                    if offset != self.current_batch.next_offset:
                        runtime._log.error(
                            "The state machine of the coordinator %s is out of sync with the underlying log. "
                            "The last written offset returned is %s while the coordinator expected %s. The "
                            "coordinator will be reloaded in order to re-synchronize the state machine.",
                            self.tp, offset, self.current_batch.next_offset)
                        # reloading from the log is the only way to agree with it again
                        self.transition_to(CoordinatorState.FAILED)
                        self.transition_to(CoordinatorState.LOADING)
                        raise _not_coordinator()
                    for event in self.current_batch.deferred_events:
                        self.deferred_event_queue.add(offset, event)
                    self._free_current_batch()
                except BaseException as t:
                    runtime._log.error("Writing records to %s failed due to: %s.", self.tp, t)
                    self._fail_current_batch(t)
                    raise

        def _maybe_flush_current_batch(self, current_time_ms: int) -> None:
            runtime = self._runtime
            if self.current_batch is not None:
                # Kafka 3.9 subtracts in this order: the linger test only passes with no linger at all
                if (self.current_batch.builder.is_transactional()
                        or (self.current_batch.append_time_ms - current_time_ms) >= runtime._append_linger_ms):
                    self._flush_current_batch()

        def _fail_current_batch(self, t: BaseException) -> None:
            """Undoes the current batch's records in the shard and fails the events waiting on it."""
            if self.current_batch is not None:
                self.coordinator.revert_last_written_offset(self.current_batch.base_offset)
                for event in self.current_batch.deferred_events:
                    event.complete(t)
                self._free_current_batch()

        def _maybe_allocate_new_batch(self, producer_id: int, producer_epoch: int,
                                      verification_guard: VerificationGuard, current_time_ms: int) -> None:
            runtime = self._runtime
            if self.current_batch is None:
                log_config = runtime._partition_writer.config(self.tp)
                magic = log_config.record_version().value
                max_batch_size = log_config.max_message_size()
                prev_last_written_offset = self.coordinator.last_written_offset()
                buffer = bytearray()
                builder = MemoryRecordsBuilder(
                    buffer, magic, runtime._compression, TimestampType.CREATE_TIME, 0, current_time_ms,
                    producer_id, producer_epoch, 0, producer_id != NO_PRODUCER_ID, False,
                    NO_PARTITION_LEADER_EPOCH, max_batch_size)

                linger_timeout_task: TimerTask | None = None
                if runtime._append_linger_ms > 0:
                    tp = self.tp

                    def flush_batch(task: _RunnableTimerTask) -> None:
                        def op() -> None:
                            if task.is_cancelled():
                                return
                            runtime._with_active_context_or_throw(
                                tp, lambda context: context._flush_current_batch())
                        runtime._enqueue_first(CoordinatorRuntime.CoordinatorInternalEvent(
                            runtime, "FlushBatch", tp, op))

                    linger_timeout_task = _RunnableTimerTask(runtime._append_linger_ms, flush_batch)
                    runtime._timer.add(linger_timeout_task)

                self.current_batch = CoordinatorRuntime.CoordinatorBatch(
                    prev_last_written_offset, current_time_ms, max_batch_size, verification_guard, buffer, builder,
                    linger_timeout_task)

        @step("GC.append")
        def _append(self, producer_id: int, producer_epoch: int, verification_guard: VerificationGuard,
                    records: list[Any], replay: bool, is_atomic: bool, event: DeferredEvent) -> None:
            """Applies the records to the shard and adds them to the current batch; `event` completes once they
            are committed (at once when there are none and nothing is pending)."""
            runtime = self._runtime
            if self.state is not CoordinatorState.ACTIVE:
                raise IllegalStateException("Coordinator must be active to append records")

            if not records:
                # the response may depend on state not yet committed: wait for what is pending
                if self.current_batch is not None:
                    self.current_batch.deferred_events.append(event)
                elif self.coordinator.last_committed_offset() < self.coordinator.last_written_offset():
                    self.deferred_event_queue.add(self.coordinator.last_written_offset(), event)
                else:
                    event.complete(None)
                return

            current_time_ms = runtime._time.milliseconds()
            # a transaction's records go in their own batch
            if producer_id != NO_PRODUCER_ID:
                is_atomic = True
                self._flush_current_batch()

            self._maybe_allocate_new_batch(producer_id, producer_epoch, verification_guard, current_time_ms)

            records_to_append = [SimpleRecord.of(current_time_ms, runtime._serializer.serialize_key(record),
                                                 runtime._serializer.serialize_value(record))
                                 for record in records]

            if is_atomic:
                estimated_size = estimate_size_in_bytes_of_simple_records(
                    self.current_batch.builder.magic(), runtime._compression.type(), records_to_append)
                if estimated_size > self.current_batch.builder.max_allowed_bytes():
                    raise RecordTooLargeException(
                        f"Message batch size is {estimated_size} bytes in append to partition {self.tp} which "
                        f"exceeds the maximum configured size of {self.current_batch.max_batch_size}.")
                if not self.current_batch.builder.has_room_for_size(estimated_size):
                    self._flush_current_batch()
                    self._maybe_allocate_new_batch(producer_id, producer_epoch, verification_guard,
                                                   current_time_ms)

            for record_to_replay, record_to_append in zip(records, records_to_append, strict=True):
                if not is_atomic:
                    has_room_for = self.current_batch.builder.has_room_for(
                        record_to_append.timestamp(), record_to_append.key(), record_to_append.value(),
                        record_to_append.headers())
                    if not has_room_for:
                        self._flush_current_batch()
                        self._maybe_allocate_new_batch(producer_id, producer_epoch, verification_guard,
                                                       current_time_ms)
                try:
                    if replay:
                        self.coordinator.replay(self.current_batch.next_offset, producer_id, producer_epoch,
                                                record_to_replay)
                    self.current_batch.builder.append(record_to_append)
                    self.current_batch.next_offset += 1
                except BaseException as t:
                    runtime._log.error("Replaying record %s to %s failed due to: %s.", record_to_replay, self.tp, t)
                    # the whole batch goes, with every event in it
                    self.current_batch.deferred_events.append(event)
                    self._fail_current_batch(t)
                    return

            self.current_batch.deferred_events.append(event)
            self._maybe_flush_current_batch(current_time_ms)

        def _complete_transaction(self, producer_id: int, producer_epoch: int, coordinator_epoch: int,
                                  result: TransactionResult, event: DeferredEvent) -> None:
            runtime = self._runtime
            if self.state is not CoordinatorState.ACTIVE:
                raise IllegalStateException("Coordinator must be active to complete a transaction")
            # the marker must follow every record written so far
            self._flush_current_batch()
            prev_last_written_offset = self.coordinator.last_written_offset()
            try:
                self.coordinator.replay_end_transaction_marker(producer_id, producer_epoch, result)
                control_type = ControlRecordType.COMMIT if result == TransactionResult.COMMIT \
                    else ControlRecordType.ABORT
                offset = runtime._partition_writer.append(
                    self.tp, VerificationGuard.SENTINEL,
                    MemoryRecords.with_end_transaction_marker(
                        producer_id, producer_epoch, EndTransactionMarker(control_type, coordinator_epoch),
                        timestamp=runtime._time.milliseconds()))
                self.coordinator.update_last_written_offset(offset)
                self.deferred_event_queue.add(offset, event)
            except BaseException as t:
                self.coordinator.revert_last_written_offset(prev_last_written_offset)
                event.complete(t)

    class OperationTimeout(TimerTask):
        """Fails a write still waiting for the high watermark after its timeout."""

        def __init__(self, runtime: CoordinatorRuntime[Any, Any], tp: TopicPartition, event: DeferredEvent,
                     delay_ms: int) -> None:
            super().__init__(delay_ms)
            self._runtime = runtime
            self._event = event
            self._tp = tp

        def run(self) -> None:
            name = str(self._event)
            event = self._event
            delay_ms = self.delay_ms
            self._runtime._schedule_internal_operation(
                f"OperationTimeout(name={name}, tp={self._tp})", self._tp,
                lambda: event.complete(TimeoutException(f"{name} timed out after {delay_ms}ms")))

    class CoordinatorWriteEvent(CoordinatorEvent, DeferredEvent, Generic[T]):
        """Runs a write operation; its future completes when the records are committed."""

        def __init__(self, runtime: CoordinatorRuntime[Any, Any], name: str, tp: TopicPartition,
                     write_timeout_ms: int | None, op: CoordinatorWriteOperation, transactional_id: str | None = None,
                     producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH,
                     verification_guard: VerificationGuard = VerificationGuard.SENTINEL) -> None:
            self._runtime = runtime
            self.tp = tp
            self.name = name
            self.op = op
            self.transactional_id = transactional_id
            self.producer_id = producer_id
            self.producer_epoch = producer_epoch
            self.verification_guard = verification_guard
            self.future: CompletableFuture[T] = CompletableFuture()
            self._created_time_ms = runtime._time.milliseconds()
            self.write_timeout_ms = write_timeout_ms
            self._operation_timeout: CoordinatorRuntime.OperationTimeout | None = None
            self.result: CoordinatorResult[T, Any] | None = None
            # the enqueuing thread's context (its trace): the event's turn on a processor thread continues it
            self.enqueued_in = contextvars.copy_context()

        def key(self) -> TopicPartition:
            return self.tp

        def run(self) -> None:
            runtime = self._runtime
            try:
                def write(context: CoordinatorRuntime.CoordinatorContext) -> None:
                    self.result = self.op(context.coordinator.coordinator())
                    context._append(self.producer_id, self.producer_epoch, self.verification_guard,
                                    self.result.records(), self.result.replay_records(), self.result.is_atomic(),
                                    self)
                    # still waiting for the high watermark: give up after the write timeout
                    if not self.future.done():
                        self._operation_timeout = CoordinatorRuntime.OperationTimeout(
                            runtime, self.tp, self, self.write_timeout_ms)
                        runtime._timer.add(self._operation_timeout)

                runtime._with_active_context_or_throw(self.tp, write)
            except BaseException as t:
                self.complete(t)

        def complete(self, exception: BaseException | None) -> None:
            append_future = self.result.append_future() if self.result is not None else None
            if exception is None:
                if append_future is not None:
                    append_future.complete(None)
                self.future.complete(self.result.response())
            else:
                if append_future is not None:
                    append_future.complete_exceptionally(exception)
                self.future.complete_exceptionally(exception)
            if self._operation_timeout is not None:
                self._operation_timeout.cancel()
                self._operation_timeout = None

        def created_time_ms(self) -> int:
            return self._created_time_ms

        def __str__(self) -> str:
            return f"CoordinatorWriteEvent(name={self.name})"

    class CoordinatorReadEvent(CoordinatorEvent, Generic[T]):
        """Runs a read operation against the committed state."""

        def __init__(self, runtime: CoordinatorRuntime[Any, Any], name: str, tp: TopicPartition,
                     op: CoordinatorReadOperation) -> None:
            self._runtime = runtime
            self.tp = tp
            self.name = name
            self.op = op
            self.future: CompletableFuture[T] = CompletableFuture()
            self.response: T | None = None
            self._created_time_ms = runtime._time.milliseconds()

        def key(self) -> TopicPartition:
            return self.tp

        def run(self) -> None:
            try:
                def read(context: CoordinatorRuntime.CoordinatorContext) -> None:
                    self.response = self.op(context.coordinator.coordinator(),
                                            context.coordinator.last_committed_offset())
                    self.complete(None)

                self._runtime._with_active_context_or_throw(self.tp, read)
            except BaseException as t:
                self.complete(t)

        def complete(self, exception: BaseException | None) -> None:
            if exception is None:
                self.future.complete(self.response)
            else:
                self.future.complete_exceptionally(exception)

        def created_time_ms(self) -> int:
            return self._created_time_ms

        def __str__(self) -> str:
            return f"CoordinatorReadEvent(name={self.name})"

    class CoordinatorCompleteTransactionEvent(CoordinatorEvent, DeferredEvent):
        """Writes a transaction's end marker; its future completes when the marker is committed."""

        def __init__(self, runtime: CoordinatorRuntime[Any, Any], name: str, tp: TopicPartition, producer_id: int,
                     producer_epoch: int, coordinator_epoch: int, result: TransactionResult,
                     write_timeout_ms: int | None) -> None:
            self._runtime = runtime
            self.name = name
            self.tp = tp
            self.producer_id = producer_id
            self.producer_epoch = producer_epoch
            self.coordinator_epoch = coordinator_epoch
            self.result = result
            self.write_timeout_ms = write_timeout_ms
            self._operation_timeout: CoordinatorRuntime.OperationTimeout | None = None
            self.future: CompletableFuture[None] = CompletableFuture()
            self._created_time_ms = runtime._time.milliseconds()

        def key(self) -> TopicPartition:
            return self.tp

        def run(self) -> None:
            runtime = self._runtime
            try:
                def complete_transaction(context: CoordinatorRuntime.CoordinatorContext) -> None:
                    context._complete_transaction(self.producer_id, self.producer_epoch, self.coordinator_epoch,
                                                  self.result, self)
                    if not self.future.done():
                        self._operation_timeout = CoordinatorRuntime.OperationTimeout(
                            runtime, self.tp, self, self.write_timeout_ms)
                        runtime._timer.add(self._operation_timeout)

                runtime._with_active_context_or_throw(self.tp, complete_transaction)
            except BaseException as t:
                self.complete(t)

        def complete(self, exception: BaseException | None) -> None:
            if exception is None:
                self.future.complete(None)
            else:
                self.future.complete_exceptionally(exception)
            if self._operation_timeout is not None:
                self._operation_timeout.cancel()
                self._operation_timeout = None

        def created_time_ms(self) -> int:
            return self._created_time_ms

        def __str__(self) -> str:
            return f"CoordinatorCompleteTransactionEvent(name={self.name})"

    class CoordinatorInternalEvent(CoordinatorEvent):
        """The runtime's own work on a partition (load, unload, high watermark, image); failures are only logged."""

        def __init__(self, runtime: CoordinatorRuntime[Any, Any], name: str, tp: TopicPartition,
                     op: Callable[[], None]) -> None:
            self._runtime = runtime
            self.tp = tp
            self.name = name
            self.op = op
            self._created_time_ms = runtime._time.milliseconds()

        def key(self) -> TopicPartition:
            return self.tp

        def run(self) -> None:
            try:
                self.op()
            except BaseException as t:
                self.complete(t)

        def complete(self, exception: BaseException | None) -> None:
            if exception is not None:
                self._runtime._log.error("Execution of %s failed due to %s.", self.name, exception,
                                         exc_info=exception)

        def created_time_ms(self) -> int:
            return self._created_time_ms

        def __str__(self) -> str:
            return f"InternalEvent(name={self.name})"

    class HighWatermarkListener(Listener):
        """Coalesces high watermark updates: only the first since the last run queues an event, which then takes
        the latest value."""

        NO_OFFSET = -1

        def __init__(self, runtime: CoordinatorRuntime[Any, Any]) -> None:
            self._runtime = runtime
            self._last_high_watermark = CoordinatorRuntime.HighWatermarkListener.NO_OFFSET
            self._hwm_lock = threading.Lock()  # Java's AtomicLong

        def last_high_watermark(self) -> int:
            with self._hwm_lock:
                return self._last_high_watermark

        def _get_and_set(self, value: int) -> int:
            with self._hwm_lock:
                previous = self._last_high_watermark
                self._last_high_watermark = value
                return previous

        def on_high_watermark_updated(self, tp: TopicPartition, offset: int) -> None:
            runtime = self._runtime
            log = runtime._log
            log.debug("High watermark of %s incremented to %s.", tp, offset)
            if self._get_and_set(offset) == CoordinatorRuntime.HighWatermarkListener.NO_OFFSET:
                def update() -> None:
                    new_high_watermark = self._get_and_set(CoordinatorRuntime.HighWatermarkListener.NO_OFFSET)
                    context = runtime._coordinators.get(tp)
                    if context is not None:
                        with context.lock:
                            if context.state is CoordinatorState.ACTIVE:
                                with step("GC.hwm", self, tp=tp, offset=new_high_watermark, context=context):
                                    log.debug("Updating high watermark of %s to %s.", tp, new_high_watermark)
                                    context.coordinator.update_last_committed_offset(new_high_watermark)
                                    context.deferred_event_queue.complete_up_to(new_high_watermark)
                                    runtime._coordinator_metrics.on_update_last_committed_offset(
                                        tp, new_high_watermark)
                            else:
                                log.debug("Ignored high watermark updated for %s to %s because the coordinator is "
                                          "not active.", tp, new_high_watermark)
                    else:
                        log.debug("Ignored high watermark updated for %s to %s because the coordinator does not "
                                  "exist.", tp, new_high_watermark)

                # first: committing unblocks responses, so it jumps the queue
                runtime._enqueue_first(CoordinatorRuntime.CoordinatorInternalEvent(
                    runtime, "HighWatermarkUpdate", tp, update))

    MIN_BUFFER_SIZE = 16384

    def __init__(self, log_prefix: str, log_context: str, processor: CoordinatorEventProcessor,
                 partition_writer: PartitionWriter, loader: CoordinatorLoader[U],
                 coordinator_shard_builder_supplier: CoordinatorShardBuilderSupplier[S, U], time: Time, timer: Timer,
                 default_write_timeout_ms: int | None, runtime_metrics: CoordinatorRuntimeMetrics,
                 coordinator_metrics: Any, serializer: Serializer[U], compression: Compression,
                 append_linger_ms: int) -> None:
        """Use the Builder (Java's constructor is private)."""
        self._log_prefix = log_prefix
        self._log_context = log_context
        self._log = Logging(_LOGGER, log_context)
        self._time = time
        self._timer = timer
        self._default_write_timeout_ms = default_write_timeout_ms
        self._coordinators: dict[TopicPartition, CoordinatorRuntime.CoordinatorContext] = {}
        self._coordinators_lock = threading.Lock()  # Java's ConcurrentHashMap.computeIfAbsent
        self._processor = processor
        self._partition_writer = partition_writer
        self._loader = loader
        self._coordinator_shard_builder_supplier = coordinator_shard_builder_supplier
        self._runtime_metrics = runtime_metrics
        self._coordinator_metrics = coordinator_metrics
        self._serializer = serializer
        self._compression = compression
        self._append_linger_ms = append_linger_ms
        self._is_running = True
        self._is_running_lock = threading.Lock()  # Java's AtomicBoolean.compareAndSet
        self._metadata_image = MetadataImage.EMPTY

    def _throw_if_not_running(self) -> None:
        if not self._is_running:
            raise _not_coordinator()

    def _enqueue_last(self, event: CoordinatorEvent) -> None:
        try:
            self._processor.enqueue_last(event)
        except RejectedExecutionException as ex:
            raise NotCoordinatorException("Can't accept an event because the processor is closed") from ex

    def _enqueue_first(self, event: CoordinatorEvent) -> None:
        try:
            self._processor.enqueue_first(event)
        except RejectedExecutionException as ex:
            raise NotCoordinatorException("Can't accept an event because the processor is closed") from ex

    def maybe_create_context(self, tp: TopicPartition) -> CoordinatorRuntime.CoordinatorContext:
        with self._coordinators_lock:
            context = self._coordinators.get(tp)
            if context is None:
                context = CoordinatorRuntime.CoordinatorContext(self, tp)
                self._coordinators[tp] = context
            return context

    def context_or_throw(self, tp: TopicPartition) -> CoordinatorRuntime.CoordinatorContext:
        """Raises NotCoordinatorException when the partition has no context."""
        context = self._coordinators.get(tp)
        if context is None:
            raise _not_coordinator()
        return context

    def _with_active_context_or_throw(self, tp: TopicPartition,
                                      func: Callable[[CoordinatorRuntime.CoordinatorContext], None]) -> None:
        context = self.context_or_throw(tp)
        with context.lock:
            if context.state is CoordinatorState.ACTIVE:
                func(context)
            elif context.state is CoordinatorState.LOADING:
                raise _coordinator_load_in_progress()
            else:
                raise _not_coordinator()

    @step("GC.write")
    def schedule_write_operation(self, name: str, tp: TopicPartition, timeout_ms: int | None,
                                 op: CoordinatorWriteOperation) -> CompletableFuture[Any]:
        """`op(shard)` returns a CoordinatorResult; the future gets its response once its records are committed."""
        self._throw_if_not_running()
        self._log.debug("Scheduled execution of write operation %s.", name)
        event: CoordinatorRuntime.CoordinatorWriteEvent[Any] = CoordinatorRuntime.CoordinatorWriteEvent(
            self, name, tp, timeout_ms, op)
        self._enqueue_last(event)
        return event.future

    def schedule_write_all_operation(self, name: str, timeout_ms: int | None,
                                     op: CoordinatorWriteOperation) -> list[CompletableFuture[Any]]:
        self._throw_if_not_running()
        self._log.debug("Scheduled execution of write all operation %s.", name)
        return [self.schedule_write_operation(name, tp, timeout_ms, op) for tp in list(self._coordinators)]

    def schedule_transactional_write_operation(self, name: str, tp: TopicPartition, transactional_id: str,
                                               producer_id: int, producer_epoch: int, timeout_ms: int | None,
                                               op: CoordinatorWriteOperation,
                                               api_version: int) -> CompletableFuture[Any]:
        """The transaction is verified first; the write event is queued with the guard verification gave."""
        self._throw_if_not_running()
        self._log.debug("Scheduled execution of transactional write operation %s.", name)

        def write(verification_guard: VerificationGuard) -> CompletableFuture[Any]:
            event: CoordinatorRuntime.CoordinatorWriteEvent[Any] = CoordinatorRuntime.CoordinatorWriteEvent(
                self, name, tp, timeout_ms, op, transactional_id, producer_id, producer_epoch, verification_guard)
            self._enqueue_last(event)
            return event.future

        return _then_compose(self._partition_writer.maybe_start_transaction_verification(
            tp, transactional_id, producer_id, producer_epoch, api_version), write)

    def schedule_transaction_completion(self, name: str, tp: TopicPartition, producer_id: int, producer_epoch: int,
                                        coordinator_epoch: int, result: TransactionResult,
                                        timeout_ms: int | None) -> CompletableFuture[None]:
        self._throw_if_not_running()
        self._log.debug("Scheduled execution of transaction completion for %s with producer id=%s, producer "
                        "epoch=%s, coordinator epoch=%s and transaction result=%s.", tp, producer_id, producer_epoch,
                        coordinator_epoch, result)
        event = CoordinatorRuntime.CoordinatorCompleteTransactionEvent(
            self, name, tp, producer_id, producer_epoch, coordinator_epoch, result, timeout_ms)
        self._enqueue_last(event)
        return event.future

    def schedule_read_operation(self, name: str, tp: TopicPartition,
                                op: CoordinatorReadOperation) -> CompletableFuture[Any]:
        """`op(shard, last_committed_offset)` gives the response."""
        self._throw_if_not_running()
        self._log.debug("Scheduled execution of read operation %s.", name)
        event: CoordinatorRuntime.CoordinatorReadEvent[Any] = CoordinatorRuntime.CoordinatorReadEvent(
            self, name, tp, op)
        self._enqueue_last(event)
        return event.future

    def schedule_read_all_operation(self, name: str, op: CoordinatorReadOperation) -> list[CompletableFuture[Any]]:
        self._throw_if_not_running()
        self._log.debug("Scheduled execution of read all operation %s.", name)
        return [self.schedule_read_operation(name, tp, op) for tp in list(self._coordinators)]

    def _schedule_internal_operation(self, name: str, tp: TopicPartition, op: Callable[[], None]) -> None:
        self._log.debug("Scheduled execution of internal operation %s.", name)
        self._enqueue_last(CoordinatorRuntime.CoordinatorInternalEvent(self, name, tp, op))

    def schedule_load_operation(self, tp: TopicPartition, partition_epoch: int) -> None:
        """Loads the partition's coordinator, unless a load of this epoch or a newer one was seen."""
        self._throw_if_not_running()
        self._log.info("Scheduling loading of metadata from %s with epoch %s", tp, partition_epoch)
        # created now so that requests see a loading coordinator rather than none
        self.maybe_create_context(tp)

        def load() -> None:
            context = self.maybe_create_context(tp)
            with context.lock:
                if context.epoch < partition_epoch:
                    context.epoch = partition_epoch
                    if context.state in (CoordinatorState.FAILED, CoordinatorState.INITIAL):
                        context.transition_to(CoordinatorState.LOADING)
                    elif context.state is CoordinatorState.LOADING:
                        self._log.info("The coordinator %s is already loading metadata.", tp)
                    elif context.state is CoordinatorState.ACTIVE:
                        self._log.info("The coordinator %s is already active.", tp)
                    else:
                        self._log.error("Cannot load coordinator %s in state %s.", tp, context.state)
                else:
                    self._log.info("Ignored loading metadata from %s since current epoch %s is larger than or "
                                   "equals to %s.", context.tp, context.epoch, partition_epoch)

        self._schedule_internal_operation(f"Load(tp={tp}, epoch={partition_epoch})", tp, load)

    def schedule_unload_operation(self, tp: TopicPartition, partition_epoch: int | None) -> None:
        """Unloads the partition's coordinator; `partition_epoch` None (Java's empty OptionalInt) unloads whatever
        the epoch."""
        self._throw_if_not_running()
        self._log.info("Scheduling unloading of metadata for %s with epoch %s", tp, partition_epoch)

        def unload() -> None:
            context = self._coordinators.get(tp)
            if context is not None:
                with context.lock:
                    if partition_epoch is None or context.epoch < partition_epoch:
                        self._log.info("Started unloading metadata for %s with epoch %s.", tp, partition_epoch)
                        context.transition_to(CoordinatorState.CLOSED)
                        with self._coordinators_lock:
                            if self._coordinators.get(tp) is context:
                                del self._coordinators[tp]
                        self._log.info("Finished unloading metadata for %s with epoch %s.", tp, partition_epoch)
                    else:
                        self._log.info("Ignored unloading metadata for %s in epoch %s since current epoch is %s.",
                                       tp, partition_epoch, context.epoch)
            else:
                self._log.info("Ignored unloading metadata for %s in epoch %s since metadata was never loaded.",
                               tp, partition_epoch)

        self._schedule_internal_operation(f"UnloadCoordinator(tp={tp}, epoch={partition_epoch})", tp, unload)

    def on_new_metadata_image(self, new_image: MetadataImage, delta: MetadataDelta) -> None:
        """Keeps the image for coordinators loaded later and hands it to every active one."""
        self._throw_if_not_running()
        self._log.debug("Scheduling applying of a new metadata image with offset %s.", new_image.offset())
        self._metadata_image = new_image

        for tp in list(self._coordinators):
            def update_image(tp: TopicPartition = tp) -> None:
                context = self._coordinators.get(tp)
                if context is not None:
                    with context.lock:
                        if context.state is CoordinatorState.ACTIVE:
                            self._log.debug("Applying new metadata image with offset %s to %s.", new_image.offset(),
                                            tp)
                            context.coordinator.on_new_metadata_image(new_image, delta)
                        else:
                            self._log.debug("Ignored new metadata image with offset %s for %s because the "
                                            "coordinator is not active.", new_image.offset(), tp)
                else:
                    self._log.debug("Ignored new metadata image with offset %s for %s because the coordinator does "
                                    "not exist.", new_image.offset(), tp)

            self._schedule_internal_operation(f"UpdateImage(tp={tp}, offset={new_image.offset()})", tp,
                                              update_image)

    def close(self) -> None:
        with self._is_running_lock:
            if not self._is_running:
                self._log.warning("Coordinator runtime is already shutting down.")
                return
            self._is_running = False

        self._log.info("Closing coordinator runtime.")
        self._close_quietly(self._loader, "loader")
        self._close_quietly(self._timer, "timer")
        # the processor fails what is still queued before the contexts go
        self._close_quietly(self._processor, "event processor")
        for context in list(self._coordinators.values()):
            with context.lock:
                context.transition_to(CoordinatorState.CLOSED)
        self._coordinators.clear()
        self._close_quietly(self._runtime_metrics, "runtime metrics")
        self._log.info("Coordinator runtime closed.")

    def _close_quietly(self, closeable: Any, name: str) -> None:
        """Utils.closeQuietly."""
        try:
            closeable.close()
        except BaseException as t:
            self._log.error("Failed to close %s with type %s", name, type(closeable).__name__, exc_info=t)

    def __enter__(self) -> CoordinatorRuntime[S, U]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
