"""Port of core/src/main/scala/kafka/coordinator/group/DelayedJoin.scala (read: Kafka 0.11.0.0; the group lock as
the operation's lock is 1.0.1+): DelayedJoin and InitialDelayedJoin."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.core.coordinator.group.delayed_operation_key import GroupKey
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator
    from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import GroupMetadata


class DelayedJoin(DelayedOperation):
    """A rebalance waiting for every known member to send JoinGroup again, or for the rebalance timeout; members
    still missing at the timeout are dropped from the group and the rebalance completes without them."""

    def __init__(self, coordinator: GroupCoordinator, group: GroupMetadata, rebalance_timeout: int) -> None:
        super().__init__(rebalance_timeout)
        # The group lock is the operation's lock: a check may run while the group is already locked.
        self.lock = group.lock
        self.coordinator = coordinator
        self.group = group

    def try_complete(self) -> bool:
        return self.coordinator.try_complete_join(self.group, self.force_complete)

    def on_expiration(self) -> None:
        self.coordinator.on_expire_join()

    def on_complete(self) -> None:
        self.coordinator.on_complete_join(self.group)


class InitialDelayedJoin(DelayedJoin):
    """The first rebalance of an Empty group waits group.initial.rebalance.delay.ms, and again while new members keep
    arriving, up to the rebalance timeout, so a group that starts many consumers at once rebalances only once."""

    def __init__(self, coordinator: GroupCoordinator, purgatory: DelayedOperationPurgatory, group: GroupMetadata,
                 configured_rebalance_delay: int, delay_ms: int, remaining_ms: int) -> None:
        super().__init__(coordinator, group, delay_ms)
        self.purgatory = purgatory
        self.configured_rebalance_delay = configured_rebalance_delay
        self.remaining_ms = remaining_ms

    def try_complete(self) -> bool:
        return False

    def on_complete(self) -> None:
        with self.group.in_lock():
            if self.group.new_member_added and self.remaining_ms != 0:
                self.group.new_member_added = False
                delay = min(self.configured_rebalance_delay, self.remaining_ms)
                remaining = max(self.remaining_ms - self.delay_ms, 0)
                self.purgatory.try_complete_else_watch(
                    InitialDelayedJoin(self.coordinator, self.purgatory, self.group, self.configured_rebalance_delay,
                                       delay, remaining), [GroupKey(self.group.group_id)])
            else:
                super().on_complete()
