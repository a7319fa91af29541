"""Port of server-common/src/main/java/org/apache/kafka/admin/AdminUtils.java (Kafka 3.9): replicas spread over brokers
(and racks) for partitions, as `kafka-reassign-partitions --generate` proposes them."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import (
    AdminOperationException,
    InvalidPartitionsException,
    InvalidReplicationFactorException,
)

RAND = random.Random()
ADMIN_CLIENT_ID = "__admin_client"


@dataclass(frozen=True)
class BrokerMetadata:
    id: int
    rack: str | None = None


def assign_replicas_to_brokers(broker_metadatas: Iterable[BrokerMetadata], n_partitions: int, replication_factor: int,
                               fixed_start_index: int = -1, start_partition_id: int = -1) -> dict[int, list[int]]:
    """Leaders round-robin from a random (or fixed) start, each next replica shifted so followers spread too; when
    every broker has a rack, the brokers are taken rack by rack and a partition's replicas go to distinct racks first.
    """
    broker_metadatas = list(broker_metadatas)
    if n_partitions <= 0:
        raise InvalidPartitionsException("Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise InvalidReplicationFactorException("Replication factor must be larger than 0.")
    if replication_factor > len(broker_metadatas):
        raise InvalidReplicationFactorException(f"Replication factor: {replication_factor} larger than available "
                                                f"brokers: {len(broker_metadatas)}.")
    if all(b.rack is None for b in broker_metadatas):
        return _assign_replicas_to_brokers_rack_unaware(n_partitions, replication_factor,
                                                        [b.id for b in broker_metadatas], fixed_start_index,
                                                        start_partition_id)
    return _assign_replicas_to_brokers_rack_aware(n_partitions, replication_factor, broker_metadatas,
                                                  fixed_start_index, start_partition_id)


def _assign_replicas_to_brokers_rack_unaware(n_partitions: int, replication_factor: int, broker_list: list[int],
                                             fixed_start_index: int, start_partition_id: int) -> dict[int, list[int]]:
    ret: dict[int, list[int]] = {}
    start_index = fixed_start_index if fixed_start_index >= 0 else RAND.randrange(len(broker_list))
    current_partition_id = max(0, start_partition_id)
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else RAND.randrange(len(broker_list))
    for _ in range(n_partitions):
        if current_partition_id > 0 and current_partition_id % len(broker_list) == 0:
            next_replica_shift += 1
        first_replica_index = (current_partition_id + start_index) % len(broker_list)
        replica_buffer = [broker_list[first_replica_index]]
        for j in range(replication_factor - 1):
            replica_buffer.append(broker_list[replica_index(first_replica_index, next_replica_shift, j,
                                                            len(broker_list))])
        ret[current_partition_id] = replica_buffer
        current_partition_id += 1
    return ret


def _assign_replicas_to_brokers_rack_aware(n_partitions: int, replication_factor: int,
                                           broker_metadatas: list[BrokerMetadata], fixed_start_index: int,
                                           start_partition_id: int) -> dict[int, list[int]]:
    broker_rack_map: dict[int, str] = {}
    for m in broker_metadatas:
        if m.rack is None:
            raise AdminOperationException("Not all brokers have rack information for replica rack aware assignment.")
        broker_rack_map[m.id] = m.rack
    num_racks = len(set(broker_rack_map.values()))
    arranged_broker_list = get_rack_alternated_broker_list(broker_rack_map)
    num_brokers = len(arranged_broker_list)
    ret: dict[int, list[int]] = {}
    start_index = fixed_start_index if fixed_start_index >= 0 else RAND.randrange(num_brokers)
    current_partition_id = max(0, start_partition_id)
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else RAND.randrange(num_brokers)
    for _ in range(n_partitions):
        if current_partition_id > 0 and current_partition_id % num_brokers == 0:
            next_replica_shift += 1
        first_replica_index = (current_partition_id + start_index) % num_brokers
        leader = arranged_broker_list[first_replica_index]
        replica_buffer = [leader]
        racks_with_replicas = {broker_rack_map[leader]}
        brokers_with_replicas = {leader}
        k = 0
        for _ in range(replication_factor - 1):
            while True:
                broker = arranged_broker_list[replica_index(first_replica_index, next_replica_shift * num_racks, k,
                                                            num_brokers)]
                rack = broker_rack_map[broker]
                k += 1
                # a rack (broker) that has a replica is skipped while another has none
                if (rack not in racks_with_replicas or len(racks_with_replicas) == num_racks) and \
                        (broker not in brokers_with_replicas or len(brokers_with_replicas) == num_brokers):
                    replica_buffer.append(broker)
                    racks_with_replicas.add(rack)
                    brokers_with_replicas.add(broker)
                    break
        ret[current_partition_id] = replica_buffer
        current_partition_id += 1
    return ret


def get_rack_alternated_broker_list(broker_rack_map: dict[int, str]) -> list[int]:
    """The brokers taken one per rack in turn (racks sorted, each rack's brokers sorted)."""
    brokers_iterator_by_rack = {rack: iter(brokers) for rack, brokers in get_inverse_map(broker_rack_map).items()}
    racks = sorted(brokers_iterator_by_rack)
    result: list[int] = []
    rack_index = 0
    while len(result) < len(broker_rack_map):
        broker = next(brokers_iterator_by_rack[racks[rack_index]], None)
        if broker is not None:
            result.append(broker)
        rack_index = (rack_index + 1) % len(racks)
    return result


def get_inverse_map(broker_rack_map: dict[int, str]) -> dict[str, list[int]]:
    results: dict[str, list[int]] = {}
    for broker_id, rack in broker_rack_map.items():
        results.setdefault(rack, []).append(broker_id)
    for rack_and_id_list in results.values():
        rack_and_id_list.sort()
    return results


def replica_index(first_replica_index: int, second_replica_shift: int, replica_index: int, n_brokers: int) -> int:
    shift = 1 + (second_replica_shift + replica_index) % (n_brokers - 1)
    return (first_replica_index + shift) % n_brokers
