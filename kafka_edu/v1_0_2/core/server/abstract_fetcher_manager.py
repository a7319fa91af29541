"""Port of core/src/main/scala/kafka/server/AbstractFetcherManager.scala (Kafka 1.0.2): fetcher threads keyed by
(source broker, fetcher id), partitions spread over `num.replica.fetchers` threads per source broker."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.abstract_fetcher_thread import AbstractFetcherThread, BrokerEndPoint

log = logging.getLogger("kafka.server.AbstractFetcherManager")


@dataclass(frozen=True)
class BrokerAndFetcherId:
    broker: BrokerEndPoint
    fetcher_id: int


@dataclass(frozen=True)
class BrokerAndInitialOffset:
    broker: BrokerEndPoint
    init_offset: int


@dataclass(frozen=True)
class BrokerIdAndFetcherId:
    broker_id: int
    fetcher_id: int


def java_string_hash(value: str) -> int:
    """String.hashCode: the fetcher a partition goes to must not depend on Python's per-process hash seed."""
    h = 0
    for unit in value.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def utils_abs(n: int) -> int:
    """org.apache.kafka.common.utils.Utils.abs: Integer.MIN_VALUE maps to 0."""
    return 0 if n == -(1 << 31) else abs(n)


def _int32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n >= 1 << 31 else n


class AbstractFetcherManager:
    def __init__(self, name: str, client_id: str, num_fetchers: int = 1) -> None:
        self.name = name
        self.client_id = client_id
        self.num_fetchers_per_broker = num_fetchers
        self.fetcher_thread_map: dict[BrokerIdAndFetcherId, AbstractFetcherThread] = {}
        self.lock = threading.RLock()

    def get_fetcher_id(self, topic: str, partition_id: int) -> int:
        with self.lock:
            return utils_abs(_int32(31 * java_string_hash(topic) + partition_id)) % self.num_fetchers_per_broker

    def create_fetcher_thread(self, fetcher_id: int, source_broker: BrokerEndPoint) -> AbstractFetcherThread:
        raise NotImplementedError

    def add_fetcher_for_partitions(self, partition_and_offsets: dict[TopicPartition, BrokerAndInitialOffset]) -> None:
        with self.lock:
            partitions_per_fetcher: dict[BrokerAndFetcherId, dict[TopicPartition, BrokerAndInitialOffset]] = {}
            for topic_partition, broker_and_initial_offset in partition_and_offsets.items():
                key = BrokerAndFetcherId(broker_and_initial_offset.broker,
                                         self.get_fetcher_id(topic_partition.topic, topic_partition.partition))
                partitions_per_fetcher.setdefault(key, {})[topic_partition] = broker_and_initial_offset

            def add_and_start_fetcher_thread(broker_and_fetcher_id: BrokerAndFetcherId,
                                             broker_id_and_fetcher_id: BrokerIdAndFetcherId) -> None:
                fetcher_thread = self.create_fetcher_thread(broker_and_fetcher_id.fetcher_id,
                                                            broker_and_fetcher_id.broker)
                self.fetcher_thread_map[broker_id_and_fetcher_id] = fetcher_thread
                fetcher_thread.start()

            for broker_and_fetcher_id, initial_fetch_offsets in partitions_per_fetcher.items():
                broker_id_and_fetcher_id = BrokerIdAndFetcherId(broker_and_fetcher_id.broker.id,
                                                                broker_and_fetcher_id.fetcher_id)
                existing = self.fetcher_thread_map.get(broker_id_and_fetcher_id)
                if existing is not None and existing.source_broker.host == broker_and_fetcher_id.broker.host \
                        and existing.source_broker.port == broker_and_fetcher_id.broker.port:
                    pass  # the same leader at the same address: reuse the thread
                else:
                    if existing is not None:  # the leader moved to another address
                        existing.shutdown()
                    add_and_start_fetcher_thread(broker_and_fetcher_id, broker_id_and_fetcher_id)
                self.fetcher_thread_map[broker_id_and_fetcher_id].add_partitions(
                    {tp: b.init_offset for tp, b in initial_fetch_offsets.items()})
        log.info("[%s] Added fetcher for partitions %s", self.name, ", ".join(
            f"[{tp}, initOffset {b.init_offset} to broker {b.broker.id}]" for tp, b in partition_and_offsets.items()))

    def remove_fetcher_for_partitions(self, partitions: set[TopicPartition]) -> None:
        with self.lock:
            for fetcher in self.fetcher_thread_map.values():
                fetcher.remove_partitions(partitions)
        if partitions:
            log.info("[%s] Removed fetcher for partitions %s", self.name, ",".join(str(p) for p in partitions))

    def shutdown_idle_fetcher_threads(self) -> None:
        with self.lock:
            for key, fetcher in list(self.fetcher_thread_map.items()):
                if fetcher.partition_count() <= 0:
                    fetcher.shutdown()
                    del self.fetcher_thread_map[key]

    def close_all_fetchers(self) -> None:
        with self.lock:
            for fetcher in self.fetcher_thread_map.values():
                fetcher.initiate_shutdown()
            for fetcher in self.fetcher_thread_map.values():
                fetcher.shutdown()
            self.fetcher_thread_map.clear()
