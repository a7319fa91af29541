"""Pure pieces of replication: fetcher assignment, the partition state znode JSON, a follower's caught-up time."""

from __future__ import annotations

import json

from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.cluster.partition import Replica
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.abstract_fetcher_manager import AbstractFetcherManager, java_string_hash
from kafka_edu.v1_0_2.core.server.metadata_cache import Broker, MetadataCache, PartitionState, UpdateMetadataRequest
from kafka_edu.v1_0_2.core.server.replica_manager import LogReadResult
from kafka_edu.v1_0_2.core.utils.replication_utils import generate_isr_change_json
from kafka_edu.v1_0_2.core.utils.zk_utils import leader_and_isr_zk_data


def test_fetcher_id_uses_java_string_hash() -> None:
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("my-topic") == -1894580786
    manager = AbstractFetcherManager("m", "Replica", num_fetchers=3)
    # 31 * hash overflows a Java int: 1397537778, and 1397537778 % 3 == 0; partition 1 adds one.
    assert [manager.get_fetcher_id("my-topic", p) for p in range(3)] == [0, 1, 2]


def test_partition_state_and_isr_change_json() -> None:
    data = json.loads(leader_and_isr_zk_data(LeaderAndIsr(1, 3, [1, 2], 7), controller_epoch=2))
    assert data == {"version": 1, "leader": 1, "leader_epoch": 3, "controller_epoch": 2, "isr": [1, 2]}
    assert json.loads(generate_isr_change_json([TopicPartition("t", 1)])) == {
        "version": 1, "partitions": [{"topic": "t", "partition": 1}]}


def test_follower_is_caught_up_when_it_reads_to_the_leaders_end() -> None:
    replica = Replica(2, TopicPartition("t", 0))
    replica.update_log_read_result(LogReadResult(fetch_offset=5, leader_log_end_offset=10, fetch_time_ms=1000))
    assert (replica.log_end_offset, replica.last_caught_up_time_ms) == (5, 0)
    # Reaching the end offset the leader had at the previous fetch counts from that fetch's time.
    replica.update_log_read_result(LogReadResult(fetch_offset=10, leader_log_end_offset=12, fetch_time_ms=2000))
    assert replica.last_caught_up_time_ms == 1000
    replica.update_log_read_result(LogReadResult(fetch_offset=12, leader_log_end_offset=12, fetch_time_ms=3000))
    assert replica.last_caught_up_time_ms == 3000


def test_update_metadata_replaces_brokers_and_deletes_partitions() -> None:
    cache = MetadataCache(1)
    state = PartitionState(1, 1, 0, [1, 2], 0, [1, 2])
    brokers = [Broker(1, {"PLAINTEXT": ("h", 1)}), Broker(2, {"PLAINTEXT": ("h", 2)})]
    assert cache.update_cache_from_request(1, UpdateMetadataRequest(1, 1, {TopicPartition("t", 0): state},
                                                                    brokers)) == []
    assert cache.get_controller_id() == 1 and cache.is_broker_alive(2) and cache.contains("t")
    deleting = PartitionState(1, -2, 0, [], 0, [1, 2])
    assert cache.update_cache_from_request(2, UpdateMetadataRequest(-1, 1, {TopicPartition("t", 0): deleting},
                                                                    brokers[:1])) == [TopicPartition("t", 0)]
    assert cache.get_controller_id() is None and not cache.is_broker_alive(2) and not cache.contains("t")
