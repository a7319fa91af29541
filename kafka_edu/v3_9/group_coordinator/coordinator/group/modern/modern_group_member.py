"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/ModernGroupMember.java (Kafka
3.9).

Topic ids are uuid.UUID, as kio and the metadata image carry them (see TopicIdPartition).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set

from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState


class ModernGroupMember:
    """What every member of a KIP-848 style group has; the fields are read through Kafka's accessor methods.
    Abstract in Kafka without abstract methods: only its subclasses are built."""

    def __init__(
        self,
        member_id: str,
        member_epoch: int,
        previous_member_epoch: int,
        instance_id: str | None,
        rack_id: str | None,
        client_id: str,
        client_host: str,
        subscribed_topic_names: Set[str] | None,
        state: MemberState,
        assigned_partitions: Mapping[uuid.UUID, Set[int]],
    ) -> None:
        self._member_id = member_id
        self._member_epoch = member_epoch
        self._previous_member_epoch = previous_member_epoch
        self._state = state
        self._instance_id = instance_id
        self._rack_id = rack_id
        self._client_id = client_id
        self._client_host = client_host
        self._subscribed_topic_names = subscribed_topic_names
        self._assigned_partitions = assigned_partitions

    def member_id(self) -> str:
        return self._member_id

    def member_epoch(self) -> int:
        return self._member_epoch

    def previous_member_epoch(self) -> int:
        return self._previous_member_epoch

    def instance_id(self) -> str | None:
        return self._instance_id

    def rack_id(self) -> str | None:
        return self._rack_id

    def client_id(self) -> str:
        return self._client_id

    def client_host(self) -> str:
        return self._client_host

    def subscribed_topic_names(self) -> Set[str] | None:
        return self._subscribed_topic_names

    def state(self) -> MemberState:
        return self._state

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        """Stable and already at that epoch: nothing is left to reconcile."""
        return self._state == MemberState.STABLE and self._member_epoch == target_assignment_epoch

    def assigned_partitions(self) -> Mapping[uuid.UUID, Set[int]]:
        return self._assigned_partitions

    @staticmethod
    def has_assigned_partitions_changed(member1: ModernGroupMember, member2: ModernGroupMember) -> bool:
        return member1.assigned_partitions() != member2.assigned_partitions()
