"""Port of core/src/main/scala/kafka/server/AbstractFetcherManager.scala (Kafka 3.9): spreads followed partitions over
fetcher threads, one per (leader broker, fetcher id), and keeps the partitions marked failed.

Kafka's gauges (MaxLag, MinFetchRate, FailedPartitionsCount, DeadThreadCount) are metrics and left out; the values
they read stay available (`dead_thread_count`, `failed_partitions.size()`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass
from typing import Generic, TypeVar
from uuid import UUID

from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import AbstractFetcherThread, PartitionFetchState

T = TypeVar("T", bound=AbstractFetcherThread)


class AbstractFetcherManager(Generic[T]):
    def __init__(self, name: str, client_id: str, num_fetchers: int) -> None:
        self.name = name
        self.client_id = client_id
        # (source broker id, fetcher id of that broker) -> fetcher; read by tests
        self.fetcher_thread_map: dict[BrokerIdAndFetcherId, T] = {}
        self._lock = threading.RLock()
        self._num_fetchers_per_broker = num_fetchers
        self.failed_partitions = FailedPartitions()
        self.log = Logging(f"{type(self).__module__}.{type(self).__qualname__}", f"[{name}] ")

    @property
    def dead_thread_count(self) -> int:
        with self._lock:
            return sum(1 for thread in self.fetcher_thread_map.values() if thread.is_thread_failed)

    def resize_thread_pool(self, new_size: int) -> None:
        def migrate_partitions(new_size: int) -> None:
            all_removed_partitions_map: dict[TopicPartition, InitialFetchState] = {}
            for fetcher_id, thread in self.fetcher_thread_map.items():
                partition_states = thread.remove_all_partitions()
                if fetcher_id.fetcher_id >= new_size:
                    thread.shutdown()
                for topic_partition, current_fetch_state in partition_states.items():
                    all_removed_partitions_map[topic_partition] = InitialFetchState(
                        current_fetch_state.topic_id, thread.leader.broker_end_point(),
                        current_leader_epoch=current_fetch_state.current_leader_epoch,
                        init_offset=current_fetch_state.fetch_offset)
            # adding partitions clears them from the failed set
            self.add_fetcher_for_partitions(all_removed_partitions_map)

        with self._lock:
            current_size = self._num_fetchers_per_broker
            self.log.info("Resizing fetcher thread pool size from %d to %d", current_size, new_size)
            self._num_fetchers_per_broker = new_size
            if new_size != current_size:
                # every partition is reassigned by the new size, so hash-based placement stays as add/delete expect
                migrate_partitions(new_size)
            self.shutdown_idle_fetcher_threads()

    def get_fetcher(self, topic_partition: TopicPartition) -> T | None:
        """Visible for testing."""
        with self._lock:
            for fetcher_thread in self.fetcher_thread_map.values():
                if fetcher_thread.fetch_state(topic_partition) is not None:
                    return fetcher_thread
            return None

    def get_fetcher_id(self, topic_partition: TopicPartition) -> int:
        with self._lock:
            return _utils_abs(_int32(31 * _java_string_hash(topic_partition.topic) + topic_partition.partition)) \
                % self._num_fetchers_per_broker

    def mark_partitions_for_truncation(self, broker_id: int, topic_partition: TopicPartition,
                                       truncation_offset: int) -> None:
        """Only ReplicaAlterDirManager needs it."""
        with self._lock:
            fetcher_id = self.get_fetcher_id(topic_partition)
            thread = self.fetcher_thread_map.get(BrokerIdAndFetcherId(broker_id, fetcher_id))
            if thread is not None:
                thread.mark_partitions_for_truncation(topic_partition, truncation_offset)

    def create_fetcher_thread(self, fetcher_id: int, source_broker: BrokerEndPoint) -> T:
        raise NotImplementedError

    def add_fetcher_for_partitions(self, partition_and_offsets: Mapping[TopicPartition, InitialFetchState]) -> None:
        with self._lock:
            partitions_per_fetcher: dict[BrokerAndFetcherId, dict[TopicPartition, InitialFetchState]] = {}
            for topic_partition, broker_and_initial_fetch_offset in partition_and_offsets.items():
                key = BrokerAndFetcherId(broker_and_initial_fetch_offset.leader, self.get_fetcher_id(topic_partition))
                partitions_per_fetcher.setdefault(key, {})[topic_partition] = broker_and_initial_fetch_offset

            def add_and_start_fetcher_thread(broker_and_fetcher_id: BrokerAndFetcherId,
                                             broker_id_and_fetcher_id: BrokerIdAndFetcherId) -> T:
                fetcher_thread = self.create_fetcher_thread(broker_and_fetcher_id.fetcher_id,
                                                            broker_and_fetcher_id.broker)
                self.fetcher_thread_map[broker_id_and_fetcher_id] = fetcher_thread
                fetcher_thread.start()
                return fetcher_thread

            for broker_and_fetcher_id, initial_fetch_offsets in partitions_per_fetcher.items():
                broker_id_and_fetcher_id = BrokerIdAndFetcherId(broker_and_fetcher_id.broker.id,
                                                                broker_and_fetcher_id.fetcher_id)
                current_fetcher_thread = self.fetcher_thread_map.get(broker_id_and_fetcher_id)
                if current_fetcher_thread is not None \
                        and current_fetcher_thread.leader.broker_end_point() == broker_and_fetcher_id.broker:
                    fetcher_thread = current_fetcher_thread  # reuse it
                else:
                    if current_fetcher_thread is not None:  # the broker moved: a new thread for the new address
                        current_fetcher_thread.shutdown()
                    fetcher_thread = add_and_start_fetcher_thread(broker_and_fetcher_id, broker_id_and_fetcher_id)
                # adding the partitions to the thread clears them from the failed set
                self.add_partitions_to_fetcher_thread(fetcher_thread, initial_fetch_offsets)

    def add_failed_partition(self, topic_partition: TopicPartition) -> None:
        with self._lock:
            self.failed_partitions.add(topic_partition)

    def add_partitions_to_fetcher_thread(self, fetcher_thread: T,
                                         initial_offset_and_epochs: Mapping[TopicPartition, InitialFetchState]) -> None:
        fetcher_thread.add_partitions(initial_offset_and_epochs)
        self.log.info("Added fetcher to broker %d for partitions %s", fetcher_thread.leader.broker_end_point().id,
                      dict(initial_offset_and_epochs))

    def maybe_update_topic_ids(self, partitions_to_update: Mapping[TopicPartition, int],
                               topic_ids: Callable[[str], UUID | None]) -> None:
        """Give the topic id to existing fetch states; `partitions_to_update` maps a partition to its leader id."""
        with self._lock:
            partitions_per_fetcher: dict[BrokerIdAndFetcherId, set[TopicPartition]] = {}
            for topic_partition, leader_id in partitions_to_update.items():
                key = BrokerIdAndFetcherId(leader_id, self.get_fetcher_id(topic_partition))
                partitions_per_fetcher.setdefault(key, set()).add(topic_partition)
            for broker_id_and_fetcher_id, partitions in partitions_per_fetcher.items():
                thread = self.fetcher_thread_map.get(broker_id_and_fetcher_id)
                if thread is not None:
                    thread.maybe_update_topic_ids(partitions, topic_ids)

    def remove_fetcher_for_partitions(self, partitions: Set[TopicPartition]
                                      ) -> dict[TopicPartition, PartitionFetchState]:
        fetch_states: dict[TopicPartition, PartitionFetchState] = {}
        with self._lock:
            for fetcher in self.fetcher_thread_map.values():
                fetch_states.update(fetcher.remove_partitions(partitions))
            self.failed_partitions.remove_all(partitions)
        if partitions:
            self.log.info("Removed fetcher for partitions %s", set(partitions))
        return fetch_states

    def shutdown_idle_fetcher_threads(self) -> None:
        with self._lock:
            keys_to_be_removed = set()
            for key, fetcher in self.fetcher_thread_map.items():
                if fetcher.partition_count <= 0:
                    fetcher.shutdown()
                    keys_to_be_removed.add(key)
            for key in keys_to_be_removed:
                del self.fetcher_thread_map[key]

    def close_all_fetchers(self) -> None:
        with self._lock:
            for fetcher in self.fetcher_thread_map.values():
                fetcher.initiate_shutdown()
            for fetcher in self.fetcher_thread_map.values():
                fetcher.shutdown()
            self.fetcher_thread_map.clear()


def _int32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n >= 1 << 31 else n


def _java_string_hash(value: str | None) -> int:
    """String.hashCode over UTF-16 code units: the fetcher a partition goes to must not depend on Python's
    per-process hash seed."""
    data = (value or "").encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = _int32(31 * h + int.from_bytes(data[i:i + 2], "big"))
    return h


def _utils_abs(n: int) -> int:
    """Utils.abs: Integer.MIN_VALUE has no positive int, so it maps to 0."""
    return 0 if n == -(1 << 31) else abs(n)


class FailedPartitions:
    """Partitions marked failed during truncation or append: a storage error (until the log dir goes offline), a
    fenced epoch, or an unexpected error."""

    def __init__(self) -> None:
        self._failed_partitions_set: set[TopicPartition] = set()
        self._lock = threading.Lock()

    def size(self) -> int:
        with self._lock:
            return len(self._failed_partitions_set)

    def add(self, topic_partition: TopicPartition) -> None:
        with self._lock:
            self._failed_partitions_set.add(topic_partition)

    def remove_all(self, topic_partitions: Iterable[TopicPartition]) -> None:
        with self._lock:
            self._failed_partitions_set.difference_update(topic_partitions)

    def contains(self, topic_partition: TopicPartition) -> bool:
        with self._lock:
            return topic_partition in self._failed_partitions_set

    def partitions(self) -> set[TopicPartition]:
        with self._lock:
            return set(self._failed_partitions_set)


@dataclass(frozen=True)
class BrokerAndFetcherId:
    broker: BrokerEndPoint
    fetcher_id: int


@dataclass(frozen=True)
class InitialFetchState:
    topic_id: UUID | None
    leader: BrokerEndPoint
    current_leader_epoch: int
    init_offset: int


@dataclass(frozen=True)
class BrokerIdAndFetcherId:
    broker_id: int
    fetcher_id: int
