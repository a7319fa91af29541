"""Port of core/src/main/scala/kafka/api/LeaderAndIsr.scala (Kafka 1.0.2)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import ClassVar


@dataclass(frozen=True)
class LeaderAndIsr:
    """A partition's leader, leader epoch and ISR, with the zkVersion of the state znode they were read from."""

    initial_leader_epoch: ClassVar[int] = 0
    initial_zk_version: ClassVar[int] = 0
    # The leader a partition's state znode names while no replica leads it.
    NoLeader: ClassVar[int] = -1
    # The leader UpdateMetadata names for a partition of a topic being deleted.
    LeaderDuringDelete: ClassVar[int] = -2

    leader: int
    leader_epoch: int
    isr: list[int]
    zk_version: int

    @classmethod
    def initial(cls, leader: int, isr: list[int]) -> LeaderAndIsr:
        """Scala's `LeaderAndIsr(leader, isr)`: a new partition's state, at the initial epoch and zkVersion."""
        return cls(leader, cls.initial_leader_epoch, list(isr), cls.initial_zk_version)

    @classmethod
    def during_delete(cls, isr: list[int]) -> LeaderAndIsr:
        """The state UpdateMetadata carries for a partition of a topic being deleted."""
        return cls.initial(cls.LeaderDuringDelete, isr)

    def with_zk_version(self, zk_version: int) -> LeaderAndIsr:
        return replace(self, zk_version=zk_version)

    def new_leader(self, leader: int) -> LeaderAndIsr:
        """The same ISR under another leader, at the next leader epoch."""
        return self.new_leader_and_isr(leader, self.isr)

    def new_leader_and_isr(self, leader: int, isr: list[int]) -> LeaderAndIsr:
        """The next state of the partition: a new leader epoch, and the zkVersion the write will give the znode."""
        return LeaderAndIsr(leader, self.leader_epoch + 1, list(isr), self.zk_version + 1)

    def new_epoch_and_zk_version(self) -> LeaderAndIsr:
        """Same leader and ISR at the next leader epoch: makes brokers accept a LeaderAndIsr with a new replica list."""
        return self.new_leader_and_isr(self.leader, self.isr)

    def __str__(self) -> str:
        return json.dumps({"leader": self.leader, "leader_epoch": self.leader_epoch, "isr": list(self.isr)},
                          separators=(",", ":"))
