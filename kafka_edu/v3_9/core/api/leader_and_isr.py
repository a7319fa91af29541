"""Port of core/src/main/scala/kafka/api/LeaderAndIsr.scala (Kafka 3.9): a partition's leader, leader epoch, ISR (with
each member's broker epoch, KIP-903), leader recovery state and partition epoch."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from kio.schema.alter_partition.v3.request import BrokerState
from kio.static.primitive import i32

from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState

INITIAL_LEADER_EPOCH = 0
INITIAL_PARTITION_EPOCH = 0
NO_LEADER = -1
NO_EPOCH = -1
LEADER_DURING_DELETE = -2
EPOCH_DURING_DELETE = -2


@dataclass(frozen=True)
class LeaderAndIsr:
    """The case class: equal when every field is. `isr_with_broker_epoch` holds AlterPartition's BrokerState, whose
    epoch is -1 where the leader does not know it (the controller then skips its check)."""

    leader: int
    leader_epoch: int
    leader_recovery_state: LeaderRecoveryState
    isr_with_broker_epoch: tuple[BrokerState, ...]
    # The partition epoch under a KRaft controller, the znode version under a ZooKeeper one; it goes up with every
    # change of the partition.
    partition_epoch: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "isr_with_broker_epoch", tuple(self.isr_with_broker_epoch))

    @staticmethod
    def apply(leader: int, leader_epoch: int, isr: Iterable[int], leader_recovery_state: LeaderRecoveryState,
              partition_epoch: int) -> LeaderAndIsr:
        """LeaderAndIsr(leader, leaderEpoch, isr, leaderRecoveryState, partitionEpoch): no broker epochs known."""
        return LeaderAndIsr(leader, leader_epoch, leader_recovery_state,
                            tuple(BrokerState(broker_id=i32(broker_id)) for broker_id in isr), partition_epoch)

    @staticmethod
    def of(leader: int, isr: Iterable[int]) -> LeaderAndIsr:
        """LeaderAndIsr(leader, isr): a partition's first state."""
        return LeaderAndIsr.apply(leader, INITIAL_LEADER_EPOCH, isr, LeaderRecoveryState.RECOVERED,
                                  INITIAL_PARTITION_EPOCH)

    @staticmethod
    def during_delete(isr: Iterable[int]) -> LeaderAndIsr:
        return LeaderAndIsr.of(LEADER_DURING_DELETE, isr)

    def with_partition_epoch(self, partition_epoch: int) -> LeaderAndIsr:
        return dataclasses.replace(self, partition_epoch=partition_epoch)

    def new_leader(self, leader: int) -> LeaderAndIsr:
        return self._new_leader_and_isr_with_broker_epoch(leader, self.isr_with_broker_epoch)

    def new_leader_and_isr(self, leader: int, isr: Iterable[int]) -> LeaderAndIsr:
        return LeaderAndIsr.apply(leader, self.leader_epoch + 1, isr, self.leader_recovery_state,
                                  self.partition_epoch)

    def _new_leader_and_isr_with_broker_epoch(self, leader: int,
                                              isr_with_broker_epoch: tuple[BrokerState, ...]) -> LeaderAndIsr:
        return LeaderAndIsr(leader, self.leader_epoch + 1, self.leader_recovery_state, isr_with_broker_epoch,
                            self.partition_epoch)

    def new_recovering_leader_and_isr(self, leader: int, isr: Iterable[int]) -> LeaderAndIsr:
        return LeaderAndIsr.apply(leader, self.leader_epoch + 1, isr, LeaderRecoveryState.RECOVERING,
                                  self.partition_epoch)

    @property
    def new_epoch(self) -> LeaderAndIsr:
        return self._new_leader_and_isr_with_broker_epoch(self.leader, self.isr_with_broker_epoch)

    @property
    def leader_opt(self) -> int | None:
        return None if self.leader == NO_LEADER else self.leader

    @property
    def isr(self) -> list[int]:
        return [broker_state.broker_id for broker_state in self.isr_with_broker_epoch]

    def equals_allow_stale_partition_epoch(self, other: LeaderAndIsr | None) -> bool:
        if self == other:
            return True
        if other is None:
            return False
        return (self.leader == other.leader and self.leader_epoch == other.leader_epoch
                and self.isr_with_broker_epoch == other.isr_with_broker_epoch
                and self.leader_recovery_state == other.leader_recovery_state
                and self.partition_epoch <= other.partition_epoch)

    def __str__(self) -> str:
        isr_with_broker_epoch = ", ".join(f"BrokerState(brokerId={b.broker_id}, brokerEpoch={b.broker_epoch})"
                                          for b in self.isr_with_broker_epoch)
        return (f"LeaderAndIsr(leader={self.leader}, leaderEpoch={self.leader_epoch}, "
                f"isrWithBrokerEpoch=List({isr_with_broker_epoch}), "
                f"leaderRecoveryState={self.leader_recovery_state.name}, "
                f"partitionEpoch={self.partition_epoch})")
