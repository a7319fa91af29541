"""Port of core/src/main/scala/kafka/coordinator/group/DelayedHeartbeat.scala (read: Kafka 0.11.0.0; the group lock as
the operation's lock is 1.0.1+)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperation

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator
    from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import GroupMetadata
    from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberMetadata


class DelayedHeartbeat(DelayedOperation):
    """A member's session: completes when the member is heard from in time, expires (and the member is removed)
    when the session timeout passes in silence. Heartbeats are not expected while the member waits on a rebalance."""

    def __init__(self, coordinator: GroupCoordinator, group: GroupMetadata, member: MemberMetadata,
                 heartbeat_deadline: int, session_timeout: int) -> None:
        super().__init__(session_timeout)
        self.lock = group.lock
        self.coordinator = coordinator
        self.group = group
        self.member = member
        self.heartbeat_deadline = heartbeat_deadline

    def try_complete(self) -> bool:
        return self.coordinator.try_complete_heartbeat(self.group, self.member, self.heartbeat_deadline,
                                                       self.force_complete)

    def on_expiration(self) -> None:
        self.coordinator.on_expire_heartbeat(self.group, self.member, self.heartbeat_deadline)

    def on_complete(self) -> None:
        self.coordinator.on_complete_heartbeat()
