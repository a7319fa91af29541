"""Port of metadata/src/main/java/org/apache/kafka/metadata/placement/StripedReplicaPlacer.java (Kafka 3.9)."""

from __future__ import annotations

import random as _random
from collections.abc import Iterator
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import InvalidReplicationFactorException
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import (
    ClusterDescriber,
    PartitionAssignment,
    PlacementSpec,
    ReplicaPlacer,
    TopicAssignment,
    UsableBroker,
)


class StripedReplicaPlacer(ReplicaPlacer):
    """Replicas go round-robin over racks, and round-robin over the brokers of each rack, from random starting
    points, unfenced brokers before fenced ones; each partition starts one rack further on (the "stripes").
    A partition's leader (its first replica) must be unfenced, and a broker holds at most one of its replicas.
    """

    class BrokerList:
        """Brokers to go round; `next(epoch)` gives each one once per iteration epoch, then -1."""

        def __init__(self) -> None:
            self.brokers: list[int] = []
            self.index = 0  # how many this epoch has handed out
            self.offset = 0  # where this epoch started, moved by one each epoch
            self.epoch = 0

        def add(self, broker: int) -> StripedReplicaPlacer.BrokerList:
            self.brokers.append(broker)
            return self

        def initialize(self, random: _random.Random) -> None:
            if self.brokers:
                self.brokers.sort()
                self.offset = random.randrange(len(self.brokers))

        def shuffle(self, random: _random.Random) -> None:
            random.shuffle(self.brokers)

        def size(self) -> int:
            return len(self.brokers)

        def next(self, epoch: int) -> int:
            if not self.brokers:
                return -1
            if self.epoch != epoch:
                self.epoch = epoch
                self.index = 0
                self.offset = (self.offset + 1) % len(self.brokers)
            if self.index >= len(self.brokers):
                return -1
            broker = self.brokers[(self.index + self.offset) % len(self.brokers)]
            self.index += 1
            return broker

    class Rack:
        def __init__(self) -> None:
            self.fenced = StripedReplicaPlacer.BrokerList()
            self.unfenced = StripedReplicaPlacer.BrokerList()

        def initialize(self, random: _random.Random) -> None:
            self.fenced.initialize(random)
            self.unfenced.initialize(random)

        def shuffle(self, random: _random.Random) -> None:
            self.fenced.shuffle(random)
            self.unfenced.shuffle(random)

        def next_unfenced(self, epoch: int) -> int:
            return self.unfenced.next(epoch)

        def next(self, epoch: int) -> int:
            result = self.unfenced.next(epoch)
            return result if result >= 0 else self.fenced.next(epoch)

    class RackList:
        def __init__(self, random: _random.Random, iterator: Iterator[UsableBroker]) -> None:
            self.random = random
            self.racks: dict[str | None, StripedReplicaPlacer.Rack] = {}
            self.rack_names: list[str | None] = []
            num_total, num_unfenced = 0, 0
            for broker in iterator:
                rack = self.racks.get(broker.rack)
                if rack is None:
                    self.rack_names.append(broker.rack)
                    rack = self.racks[broker.rack] = StripedReplicaPlacer.Rack()
                if broker.fenced:
                    rack.fenced.add(broker.id)
                else:
                    num_unfenced += 1
                    rack.unfenced.add(broker.id)
                num_total += 1
            for rack in self.racks.values():
                rack.initialize(random)
            # OptionalStringComparator: no rack sorts before any named rack
            self.rack_names.sort(key=lambda name: (name is not None, name or ""))
            self._num_total_brokers = num_total
            self._num_unfenced_brokers = num_unfenced
            self.epoch = 0
            self.offset = random.randrange(len(self.rack_names)) if self.rack_names else 0

        def num_total_brokers(self) -> int:
            return self._num_total_brokers

        def num_unfenced_brokers(self) -> int:
            return self._num_unfenced_brokers

        def place(self, replication_factor: int) -> list[int]:
            _throw_invalid_replication_factor_if_non_positive(replication_factor)
            _throw_invalid_replication_factor_if_too_few_brokers(replication_factor, self.num_total_brokers())
            _throw_invalid_replication_factor_if_zero(self.num_unfenced_brokers())
            # After as many partitions as there are unfenced brokers, reshuffle so the same sets do not repeat
            # (not with one unfenced broker: its epoch would never end).
            if self.epoch == self._num_unfenced_brokers and self._num_unfenced_brokers > 1:
                self.shuffle()
                self.epoch = 0
            if self.offset == len(self.rack_names):
                self.offset = 0
            brokers: list[int] = []
            # The leader: the first rack, from the offset on, that still has an unfenced broker this epoch.
            first_rack_index = self.offset
            while True:
                result = self.racks[self.rack_names[first_rack_index]].next_unfenced(self.epoch)
                if result >= 0:
                    brokers.append(result)
                    break
                first_rack_index += 1
                if first_rack_index == len(self.rack_names):
                    first_rack_index = 0
            # The followers: one per rack round the list, skipping the leader's rack once.
            rack_index = self.offset
            for _replica in range(1, replication_factor):
                result = -1
                while result < 0:
                    if rack_index == first_rack_index:
                        first_rack_index = -1
                    else:
                        result = self.racks[self.rack_names[rack_index]].next(self.epoch)
                    rack_index += 1
                    if rack_index == len(self.rack_names):
                        rack_index = 0
                brokers.append(result)
            self.epoch += 1
            self.offset += 1
            return brokers

        def shuffle(self) -> None:
            self.random.shuffle(self.rack_names)
            for rack in self.racks.values():
                rack.shuffle(self.random)

    def __init__(self, random: _random.Random | None = None) -> None:
        self.random = random or _random.Random()

    def place(self, placement: PlacementSpec, cluster: ClusterDescriber) -> TopicAssignment:
        rack_list = StripedReplicaPlacer.RackList(self.random, cluster.usable_brokers())
        _throw_invalid_replication_factor_if_non_positive(placement.num_replicas)
        _throw_invalid_replication_factor_if_zero(rack_list.num_unfenced_brokers())
        _throw_invalid_replication_factor_if_too_few_brokers(placement.num_replicas, rack_list.num_total_brokers())
        # the capacity up front, as new ArrayList<>(numPartitions): a count the memory bound cannot hold fails here, at
        # once, with MemoryError (the JVM's OutOfMemoryError)
        placements: list[Any] = [None] * placement.num_partitions
        for partition in range(placement.num_partitions):
            placements[partition] = rack_list.place(placement.num_replicas)
        return TopicAssignment([PartitionAssignment.of(replicas, cluster) for replicas in placements])


def _throw_invalid_replication_factor_if_non_positive(replication_factor: int) -> None:
    if replication_factor <= 0:
        raise InvalidReplicationFactorException(
            f"Invalid replication factor {replication_factor}: the replication factor must be positive.")


def _throw_invalid_replication_factor_if_zero(num_unfenced: int) -> None:
    if num_unfenced == 0:
        raise InvalidReplicationFactorException("All brokers are currently fenced.")


def _throw_invalid_replication_factor_if_too_few_brokers(replication_factor: int, num_total_brokers: int) -> None:
    if replication_factor > num_total_brokers:
        raise InvalidReplicationFactorException(
            f"The target replication factor of {replication_factor} cannot be reached because only "
            f"{num_total_brokers} broker(s) are registered.")
