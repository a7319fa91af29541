"""Port of metadata/src/main/java/org/apache/kafka/metadata/PartitionRegistration.java (Kafka 3.9).

With LeaderRecoveryState: one partition as the controller knows it.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, PartitionRecord
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    is_directory_assignment_supported,
    partition_record_version,
)

MIGRATING_DIR = uuid.UUID(int=0)  # DirectoryId.MIGRATING

NO_LEADER = -1  # LeaderConstants.NO_LEADER
NO_LEADER_CHANGE = -2  # LeaderConstants.NO_LEADER_CHANGE: a PartitionChangeRecord that keeps the leader


class LeaderRecoveryState(enum.IntEnum):
    RECOVERED = 0
    RECOVERING = 1  # the leader came from an unclean election and may lack committed records
    NO_CHANGE = -1  # only in a PartitionChangeRecord


def _default_to_migrating(directories: tuple[uuid.UUID, ...], num_replicas: int) -> tuple[uuid.UUID, ...]:
    """No directories (a record from before directory assignment), or only MIGRATING ones: MIGRATING for each
    replica."""
    if all(directory == MIGRATING_DIR for directory in directories):
        return (MIGRATING_DIR,) * num_replicas
    return directories


@dataclass(frozen=True)
class PartitionRegistration:
    replicas: tuple[int, ...]
    directories: tuple[uuid.UUID, ...] = ()
    isr: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()
    adding_replicas: tuple[int, ...] = ()
    leader: int = NO_LEADER
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
    leader_epoch: int = 0
    partition_epoch: int = 0
    elr: tuple[int, ...] = field(default=())
    last_known_elr: tuple[int, ...] = field(default=())

    @staticmethod
    def from_record(record: Any) -> PartitionRegistration:
        return PartitionRegistration(
            replicas=tuple(record.replicas),
            directories=_default_to_migrating(tuple(getattr(record, "directories", ()) or ()), len(record.replicas)),
            isr=tuple(record.isr), removing_replicas=tuple(record.removing_replicas),
            adding_replicas=tuple(record.adding_replicas), leader=record.leader,
            leader_recovery_state=LeaderRecoveryState(record.leader_recovery_state),
            leader_epoch=record.leader_epoch, partition_epoch=record.partition_epoch,
            elr=tuple(getattr(record, "eligible_leader_replicas", None) or ()),
            last_known_elr=tuple(getattr(record, "last_known_elr", None) or ()))

    def merge(self, record: Any) -> PartitionRegistration:
        """This partition after a PartitionChangeRecord: a new leader bumps the leader epoch, and every change
        bumps the partition epoch."""
        changes: dict[str, Any] = {}
        if record.replicas is not None:
            changes["replicas"] = tuple(record.replicas)
        directories = tuple(record.directories) if getattr(record, "directories", None) is not None \
            else self.directories
        changes["directories"] = _default_to_migrating(directories, len(changes.get("replicas", self.replicas)))
        if record.isr is not None:
            changes["isr"] = tuple(record.isr)
        if record.removing_replicas is not None:
            changes["removing_replicas"] = tuple(record.removing_replicas)
        if record.adding_replicas is not None:
            changes["adding_replicas"] = tuple(record.adding_replicas)
        if record.leader != NO_LEADER_CHANGE:
            changes["leader"] = record.leader
            changes["leader_epoch"] = self.leader_epoch + 1
        if record.leader_recovery_state != LeaderRecoveryState.NO_CHANGE:
            changes["leader_recovery_state"] = LeaderRecoveryState(record.leader_recovery_state)
        changes["partition_epoch"] = self.partition_epoch + 1
        return replace(self, **changes)

    def directory(self, replica: int) -> uuid.UUID:
        """The log directory of the replica on this broker."""
        for i, r in enumerate(self.replicas):
            if r == replica:
                return self.directories[i]
        raise ValueError(f"Replica {replica} is not assigned to this partition.")

    def has_leader(self) -> bool:
        return self.leader != NO_LEADER

    def has_preferred_leader(self) -> bool:
        return self.has_leader() and bool(self.replicas) and self.leader == self.replicas[0]

    def is_reassigning(self) -> bool:
        return bool(self.removing_replicas or self.adding_replicas)

    def to_record(self, topic_id: uuid.UUID, partition_id: int, metadata_version: int) -> Any:
        """The PartitionRecord (ApiMessageAndVersion) that creates this partition, at the version the metadata
        version writes."""

        fields: dict[str, Any] = dict(
            partition_id=partition_id, topic_id=topic_id, replicas=self.replicas, isr=self.isr,
            removing_replicas=self.removing_replicas, adding_replicas=self.adding_replicas, leader=self.leader,
            leader_recovery_state=int(self.leader_recovery_state), leader_epoch=self.leader_epoch,
            partition_epoch=self.partition_epoch)
        if is_directory_assignment_supported(metadata_version):
            fields["directories"] = self.directories
        return ApiMessageAndVersion(PartitionRecord(**fields), partition_record_version(metadata_version))
