"""Port of core/src/main/scala/kafka/coordinator/group/CoordinatorLoaderImpl.scala (Kafka 3.9).

Loads a coordinator partition (a `__consumer_offsets` partition for the group coordinator) on a one-thread scheduler
of its own: reads the local log from its start to its end, deserializes each record and replays it into the shard
being built, and moves the shard's last written and last committed offsets as the high watermark allows.
"""

from __future__ import annotations

import threading
from typing import Any, Generic, TypeVar

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_loader import (
    CoordinatorLoader,
    LoadSummary,
    UnknownRecordTypeException,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_playback import CoordinatorPlayback
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.deserializer import Deserializer
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation

T = TypeVar("T")


class CoordinatorLoaderImpl(CoordinatorLoader[T], Generic[T]):

    def __init__(self, time: Time, replica_manager: Any, deserializer: Deserializer[T], load_buffer_size: int) -> None:
        self.log = Logging("kafka.coordinator.group.CoordinatorLoaderImpl")
        self.time = time
        self.replica_manager = replica_manager
        self.deserializer = deserializer
        self.load_buffer_size = load_buffer_size
        self._is_running = True
        self._is_running_lock = threading.Lock()
        self.scheduler = KafkaScheduler(1, True, "coordinator-loader-")
        self.scheduler.startup()

    def load(self, tp: TopicPartition, coordinator: CoordinatorPlayback[T]) -> CompletableFuture[LoadSummary]:
        future: CompletableFuture[LoadSummary] = CompletableFuture()
        start_time_ms = self.time.milliseconds()
        result = self.scheduler.schedule_once(f"Load coordinator from {tp}",
                                              lambda: self.do_load(tp, coordinator, future, start_time_ms))
        if result.is_cancelled():
            future.complete_exceptionally(RuntimeError("Coordinator loader is closed."))
        return future

    @step("GC.load")
    def do_load(self, tp: TopicPartition, coordinator: CoordinatorPlayback[T],
                future: CompletableFuture[LoadSummary], start_time_ms: int) -> None:
        scheduler_queue_time_ms = self.time.milliseconds() - start_time_ms
        try:
            log = self.replica_manager.get_log(tp)
            if log is None:
                future.complete_exceptionally(NotLeaderOrFollowerException(
                    f"Could not load records from {tp} because the log does not exist."))
                return

            def log_end_offset() -> int:
                # -1 once this broker no longer leads the partition: that ends the loop
                end = self.replica_manager.get_log_end_offset(tp)
                return end if end is not None else -1

            buffer = bytearray(0)  # only needed for reads that come from a file
            current_offset = log.log_start_offset
            # an empty read ends the loop too (a compacted log may end before its end offset)
            read_at_least_one_record = True
            previous_high_watermark = -1
            num_records = 0
            num_bytes = 0
            while current_offset < log_end_offset() and read_at_least_one_record and self._is_running:
                fetch_data_info = log.read(current_offset, self.load_buffer_size, FetchIsolation.LOG_END, True)
                records = fetch_data_info.records
                read_at_least_one_record = records.size_in_bytes() > 0

                if isinstance(records, MemoryRecords):
                    memory_records = records
                else:
                    size_in_bytes = records.size_in_bytes()
                    bytes_needed = max(self.load_buffer_size, size_in_bytes)
                    # one batch may be larger than the configured buffer (min one message): grow it then
                    if len(buffer) < bytes_needed:
                        if self.load_buffer_size < bytes_needed:
                            self.log.warning(f"Loaded metadata from {tp} with buffer larger ({bytes_needed} bytes) "
                                             f"than configured buffer size ({self.load_buffer_size} bytes).")
                        buffer = bytearray(bytes_needed)
                    records.read_into(buffer, 0)
                    memory_records = MemoryRecords.readable_records(buffer[:size_in_bytes])

                for batch in memory_records.batches():
                    if batch.is_control_batch():
                        for record in batch:
                            control_record = ControlRecordType.parse(record.key())
                            if control_record == ControlRecordType.COMMIT:
                                coordinator.replay_end_transaction_marker(batch.producer_id(), batch.producer_epoch(),
                                                                          TransactionResult.COMMIT)
                            elif control_record == ControlRecordType.ABORT:
                                coordinator.replay_end_transaction_marker(batch.producer_id(), batch.producer_epoch(),
                                                                          TransactionResult.ABORT)
                    else:
                        for record in batch:
                            num_records += 1
                            try:
                                coordinator.replay(record.offset(), batch.producer_id(), batch.producer_epoch(),
                                                   self.deserializer.deserialize(record.key(), record.value()))
                            except UnknownRecordTypeException as ex:
                                self.log.warning(f"Unknown record type {ex.unknown_type()} while loading offsets and "
                                              f"group metadata from {tp}. Ignoring it. It could be a left over from "
                                              "an aborted upgrade.")

                    # the high watermark may run ahead of what was read, and keeps moving during the load
                    current_offset = batch.next_offset()
                    current_high_watermark = log.high_watermark()
                    if current_offset >= current_high_watermark:
                        coordinator.update_last_written_offset(current_offset)
                        if current_high_watermark > previous_high_watermark:
                            coordinator.update_last_committed_offset(current_high_watermark)
                            previous_high_watermark = current_high_watermark
                num_bytes += memory_records.size_in_bytes()

            end_time_ms = self.time.milliseconds()

            if log_end_offset() == -1:
                future.complete_exceptionally(NotLeaderOrFollowerException(
                    f"Stopped loading records from {tp} because the partition is not online or is no longer the "
                    "leader."))
            elif self._is_running:
                future.complete(LoadSummary(start_time_ms, end_time_ms, scheduler_queue_time_ms, num_records,
                                            num_bytes))
            else:
                future.complete_exceptionally(RuntimeError("Coordinator loader is closed."))
        except BaseException as ex:
            future.complete_exceptionally(ex)

    def close(self) -> None:
        with self._is_running_lock:
            was_running, self._is_running = self._is_running, False
        if not was_running:
            self.log.warning("Coordinator loader is already shutting down.")
            return
        self.scheduler.shutdown()
