"""Port of core/src/main/scala/kafka/server/AbstractFetcherThread.scala (Kafka 1.0.2): a thread fetching many
partitions from one source broker, with kafka.utils.ShutdownableThread and kafka.cluster.BrokerEndPoint."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kafka_edu.tracing import note, span, step
from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException, KafkaException, KafkaStorageException
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v3_9.clients.common.protocol.errors import Errors


@dataclass(frozen=True)
class BrokerEndPoint:
    """kafka.cluster.BrokerEndPoint: where a leader is reached on the inter-broker listener."""

    id: int
    host: str
    port: int


class DelayedItem:
    """kafka.utils.DelayedItem: due `delay_ms` from its creation."""

    def __init__(self, delay_ms: float) -> None:
        self.due_s = time.monotonic() + delay_ms / 1000

    def get_delay_ms(self) -> float:
        return max(0.0, (self.due_s - time.monotonic()) * 1000)


@dataclass(frozen=True)
class PartitionFetchState:
    """Where a partition is fetched from next; delayed after an error; truncating before its first fetch."""

    fetch_offset: int
    delay: DelayedItem
    truncating_log: bool = False

    @classmethod
    def of(cls, offset: int, truncating_log: bool = False) -> PartitionFetchState:
        return cls(offset, DelayedItem(0), truncating_log)

    def is_ready_for_fetch(self) -> bool:
        return not self.is_delayed() and not self.truncating_log

    def is_truncating_log(self) -> bool:
        return self.truncating_log and not self.is_delayed()

    def is_delayed(self) -> bool:
        return self.delay.get_delay_ms() > 0


@dataclass
class ResultWithPartitions:
    result: Any
    partitions_with_error: set[TopicPartition]


class FatalExitError(Exception):
    """org.apache.kafka.common.internals.FatalExitError: the broker must stop (the thread does not swallow it)."""


class AbstractFetcherThread(threading.Thread):
    """Loop: maybe truncate, build a fetch for the ready partitions, send it, hand each partition's data over."""

    def __init__(self, name: str, client_id: str, source_broker: BrokerEndPoint, fetch_back_off_ms: int = 0,
                 include_log_truncation: bool = False) -> None:
        super().__init__(name=name, daemon=True)
        self.client_id = client_id
        self.source_broker = source_broker
        self.fetch_back_off_ms = fetch_back_off_ms
        self.include_log_truncation = include_log_truncation
        self.partition_states: OrderedDict[TopicPartition, PartitionFetchState] = OrderedDict()
        self.partition_map_lock = threading.RLock()
        self.partition_map_cond = threading.Condition(self.partition_map_lock)
        self.is_running = AtomicBoolean(True)
        self._shutdown_initiated = threading.Event()
        self._shutdown_complete = threading.Event()
        self.log = logging.getLogger(f"kafka.server.{type(self).__name__}")

    # -- subclass callbacks ---------------------------------------------------------------------------------------

    def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int, partition_data: Any) -> None:
        raise NotImplementedError

    def handle_offset_out_of_range(self, topic_partition: TopicPartition) -> int:
        raise NotImplementedError

    def handle_partitions_with_errors(self, partitions: Iterable[TopicPartition]) -> None:
        raise NotImplementedError

    def build_leader_epoch_request(self, all_partitions: list[tuple[TopicPartition, PartitionFetchState]]
                                   ) -> ResultWithPartitions:
        raise NotImplementedError

    def fetch_epochs_from_leader(self, partitions: dict[TopicPartition, int]) -> dict[TopicPartition, Any]:
        raise NotImplementedError

    def maybe_truncate_to_epochs(self, fetched_epochs: dict[TopicPartition, Any]) -> ResultWithPartitions:
        raise NotImplementedError

    def build_fetch_request(self, partition_map: list[tuple[TopicPartition, PartitionFetchState]]
                            ) -> ResultWithPartitions:
        raise NotImplementedError

    def fetch(self, fetch_request: Any) -> list[tuple[TopicPartition, Any]]:
        raise NotImplementedError

    # -- ShutdownableThread ---------------------------------------------------------------------------------------

    def run(self) -> None:
        self.log.info("[%s] Starting", self.name)
        try:
            while self.is_running.get():
                self.do_work()
        except FatalExitError:
            self.is_running.set(False)
            self.log.critical("[%s] Stopped: fatal error", self.name)
        except Exception:
            if self.is_running.get():
                self.log.exception("[%s] Error due to", self.name)
        finally:
            self._shutdown_complete.set()
        self.log.info("[%s] Stopped", self.name)

    def initiate_shutdown(self) -> bool:
        if self.is_running.compare_and_set(True, False):
            self.log.info("[%s] Shutting down", self.name)
            self._shutdown_initiated.set()
            return True
        return False

    def await_shutdown(self) -> None:
        if self.is_alive() or not self._shutdown_complete.is_set():
            self._shutdown_complete.wait()
        self.log.info("[%s] Shutdown completed", self.name)

    def shutdown(self) -> None:
        self.initiate_shutdown()
        with self.partition_map_cond:
            self.partition_map_cond.notify_all()
        if self.is_alive():
            self.await_shutdown()

    # -- the loop -------------------------------------------------------------------------------------------------

    def states(self) -> list[tuple[TopicPartition, PartitionFetchState]]:
        return list(self.partition_states.items())

    def do_work(self) -> None:
        self.maybe_truncate()
        with self.partition_map_cond:
            result = self.build_fetch_request(self.states())
            fetch_request = result.result
            if fetch_request.is_empty():
                self.log.debug("There are no active partitions. Back off for %d ms before sending a fetch request",
                               self.fetch_back_off_ms)
                self.partition_map_cond.wait(self.fetch_back_off_ms / 1000)
            self.handle_partitions_with_errors(result.partitions_with_error)
        if not fetch_request.is_empty():
            self.process_fetch_request(fetch_request)

    def maybe_truncate(self) -> None:
        """Before a partition's first fetch from a new leader, ask the leader where the follower's latest epoch ends
        and cut the log back to there (KIP-101)."""
        with self.partition_map_lock:
            result = self.build_leader_epoch_request(self.states())
        self.handle_partitions_with_errors(result.partitions_with_error)
        epoch_requests = result.result
        if epoch_requests:
            with step("LE.request", self, epoch_requests=epoch_requests, root=True):
                fetched_epochs = self.fetch_epochs_from_leader(epoch_requests)
                with self.partition_map_lock:
                    # Leadership may have changed while the lock was free: only partitions still here count.
                    leader_epochs = {tp: e for tp, e in fetched_epochs.items() if tp in self.partition_states}
                    truncated = self.maybe_truncate_to_epochs(leader_epochs)
                    note(fetched_epochs=fetched_epochs, truncated=truncated)
                    self.handle_partitions_with_errors(truncated.partitions_with_error)
                    self.mark_truncation_complete_and_update_fetch_offset(truncated.result)

    def process_fetch_request(self, fetch_request: Any) -> None:
        partitions_with_error: set[TopicPartition] = set()
        response_data: list[tuple[TopicPartition, Any]] = []
        try:
            self.log.debug("Sending fetch request %s", fetch_request)
            response_data = self.fetch(fetch_request)
        except Exception as e:
            if self.is_running.get():
                self.log.warning("Error in response for fetch request %s: %r", fetch_request, e)
                with self.partition_map_cond:
                    partitions_with_error.update(self.partition_states)
                    # The handler below delays every partition too: together they back off twice, as in Kafka.
                    self.partition_map_cond.wait(self.fetch_back_off_ms / 1000)
        with span("AbstractFetcherThread.processFetchRequest", self, response_data=response_data,
                  partitions_with_error=partitions_with_error, root=True):
            if response_data:
                with self.partition_map_lock:
                    for topic_partition, partition_data in response_data:
                        self._process_partition_response(fetch_request, topic_partition, partition_data,
                                                         partitions_with_error)
            if partitions_with_error:
                self.log.debug("Handling errors for partitions %s", partitions_with_error)
                self.handle_partitions_with_errors(partitions_with_error)

    def _process_partition_response(self, fetch_request: Any, topic_partition: TopicPartition, partition_data: Any,
                                    partitions_with_error: set[TopicPartition]) -> None:
        current = self.partition_states.get(topic_partition)
        # The partition may have been removed, re-added or truncated while the fetch was out: only a response to
        # the offset it still wants is used.
        if current is None or fetch_request.offset(topic_partition) != current.fetch_offset \
                or not current.is_ready_for_fetch():
            return
        error = partition_data.error
        if error == Errors.NONE:
            try:
                records = MemoryRecords(partition_data.records or b"")
                batches = list(records.batches())
                new_offset = batches[-1].next_offset if batches else current.fetch_offset
                self.process_partition_data(topic_partition, current.fetch_offset, partition_data)
                if batches and topic_partition in self.partition_states:
                    self._update_and_move_to_end(topic_partition, PartitionFetchState.of(new_offset))
            except (CorruptRecordException, KafkaStorageException) as e:
                # Keep the thread (and the other partitions) going; a later fetch may find the data whole.
                self.log.error("Error while processing data for partition %s offset %d: %r", topic_partition,
                               current.fetch_offset, e)
                partitions_with_error.add(topic_partition)
            except Exception as e:
                raise KafkaException(f"Error processing data for partition {topic_partition} offset "
                                     f"{current.fetch_offset}") from e
        elif error == Errors.OFFSET_OUT_OF_RANGE:
            try:
                new_offset = self.handle_offset_out_of_range(topic_partition)
                self._update_and_move_to_end(topic_partition, PartitionFetchState.of(new_offset))
                self.log.info("Current offset %d for partition %s is out of range, which typically implies a leader "
                              "change. Reset fetch offset to %d", current.fetch_offset, topic_partition, new_offset)
            except FatalExitError:
                raise
            except Exception as e:
                self.log.error("Error getting offset for partition %s: %r", topic_partition, e)
                partitions_with_error.add(topic_partition)
        elif error == Errors.NOT_LEADER_OR_FOLLOWER:
            self.log.info("Remote broker is not the leader for partition %s, which could indicate that the partition "
                          "is being moved", topic_partition)
            partitions_with_error.add(topic_partition)
        else:
            self.log.error("Error for partition %s at offset %d: %s", topic_partition, current.fetch_offset,
                           Errors(error).name)
            partitions_with_error.add(topic_partition)

    def _update_and_move_to_end(self, topic_partition: TopicPartition, state: PartitionFetchState) -> None:
        self.partition_states.pop(topic_partition, None)
        self.partition_states[topic_partition] = state

    # -- partitions -----------------------------------------------------------------------------------------------

    def add_partitions(self, initial_fetch_offsets: dict[TopicPartition, int]) -> None:
        with self.partition_map_cond:
            for topic_partition, initial_fetch_offset in initial_fetch_offsets.items():
                if topic_partition in self.partition_states:
                    continue  # already fetching: keep its offset
                offset = self.handle_offset_out_of_range(topic_partition) if initial_fetch_offset < 0 \
                    else initial_fetch_offset
                self.partition_states[topic_partition] = PartitionFetchState.of(offset, self.include_log_truncation)
            self.partition_map_cond.notify_all()

    def mark_truncation_complete_and_update_fetch_offset(self, fetch_offsets: dict[TopicPartition, int]) -> None:
        for topic_partition, state in list(self.partition_states.items()):
            if topic_partition in fetch_offsets:
                self.partition_states[topic_partition] = PartitionFetchState(fetch_offsets[topic_partition],
                                                                             state.delay, truncating_log=False)

    def delay_partitions(self, partitions: Iterable[TopicPartition], delay_ms: int) -> None:
        with self.partition_map_cond:
            for topic_partition in partitions:
                current = self.partition_states.get(topic_partition)
                if current is not None and not current.is_delayed():
                    self._update_and_move_to_end(topic_partition, PartitionFetchState(
                        current.fetch_offset, DelayedItem(delay_ms), current.truncating_log))
            self.partition_map_cond.notify_all()

    def remove_partitions(self, topic_partitions: set[TopicPartition]) -> None:
        with self.partition_map_lock:
            for topic_partition in topic_partitions:
                self.partition_states.pop(topic_partition, None)

    def partition_count(self) -> int:
        with self.partition_map_lock:
            return len(self.partition_states)
