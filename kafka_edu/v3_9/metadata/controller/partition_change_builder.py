"""Port of metadata/src/main/java/org/apache/kafka/controller/PartitionChangeBuilder.java (Kafka 3.9).

Left out: eligible leader replicas (KIP-966, off by default in 3.9) and the ZooKeeper-migration epoch bump.
"""

from __future__ import annotations

import enum
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, PartitionChangeRecord
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    is_directory_assignment_supported,
    partition_change_record_version,
)
from kafka_edu.v3_9.metadata.controller.partition_reassignment_replicas import PartitionReassignmentReplicas
from kafka_edu.v3_9.metadata.metadata.partition_registration import (
    NO_LEADER,
    NO_LEADER_CHANGE,
    LeaderRecoveryState,
    PartitionRegistration,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

log = logging.getLogger(__name__)


class Election(enum.Enum):
    PREFERRED = "PREFERRED"  # the first replica, if it can lead
    ONLINE = "ONLINE"  # keep the leader if it can lead, else any ISR member that can
    UNCLEAN = "UNCLEAN"  # as ONLINE, then any live replica even outside the ISR


@dataclass(frozen=True)
class ElectionResult:
    node: int
    unclean: bool


class PartitionChangeBuilder:
    """Works out the PartitionChangeRecord that moves a partition to a target ISR / replica set, electing a leader
    if the current one may no longer lead; None when nothing would change."""

    def __init__(self, partition: PartitionRegistration, topic_id: uuid.UUID, partition_id: int,
                 is_acceptable_leader: Callable[[int], bool], metadata_version: MetadataVersion) -> None:
        self.partition = partition
        self.topic_id = topic_id
        self.partition_id = partition_id
        self.is_acceptable_leader = is_acceptable_leader
        self.metadata_version = metadata_version
        self.target_isr: list[int] = list(partition.isr)
        self.target_replicas: list[int] = list(partition.replicas)
        self.target_removing: list[int] = list(partition.removing_replicas)
        self.target_adding: list[int] = list(partition.adding_replicas)
        self.election = Election.ONLINE
        self.target_leader_recovery_state = partition.leader_recovery_state
        self.target_directories: dict[int, uuid.UUID] = dict(zip(partition.replicas, partition.directories,
                                                                 strict=False))
        self.default_dir: Callable[[int], uuid.UUID] | None = None

    def set_target_isr(self, target_isr: list[int]) -> PartitionChangeBuilder:
        self.target_isr = list(target_isr)
        return self

    def set_target_isr_with_broker_states(self, broker_states: Any) -> PartitionChangeBuilder:
        return self.set_target_isr([b.broker_id for b in broker_states])

    def set_target_replicas(self, target_replicas: list[int]) -> PartitionChangeBuilder:
        self.target_replicas = list(target_replicas)
        return self

    def set_election(self, election: Election) -> PartitionChangeBuilder:
        self.election = election
        return self

    def set_target_removing(self, target_removing: list[int]) -> PartitionChangeBuilder:
        self.target_removing = list(target_removing)
        return self

    def set_target_adding(self, target_adding: list[int]) -> PartitionChangeBuilder:
        self.target_adding = list(target_adding)
        return self

    def set_target_leader_recovery_state(self, state: LeaderRecoveryState) -> PartitionChangeBuilder:
        self.target_leader_recovery_state = state
        return self

    def set_directory(self, broker_id: int, directory: uuid.UUID) -> PartitionChangeBuilder:
        self.target_directories[broker_id] = directory
        return self

    def set_default_dir_provider(self, default_dir: Callable[[int], uuid.UUID]) -> PartitionChangeBuilder:
        self.default_dir = default_dir
        return self

    def _is_valid_new_leader(self, replica: int) -> bool:
        return replica in self.target_isr and self.is_acceptable_leader(replica)

    def elect_leader(self) -> ElectionResult:
        if self.election is Election.PREFERRED:
            return self._elect_preferred_leader()
        return self._elect_any_leader()

    def _elect_preferred_leader(self) -> ElectionResult:
        preferred = self.target_replicas[0] if self.target_replicas else NO_LEADER
        if self._is_valid_new_leader(preferred):
            return ElectionResult(preferred, False)
        if self._is_valid_new_leader(self.partition.leader):
            return ElectionResult(self.partition.leader, False)  # the current leader still qualifies
        for replica in self.target_replicas[1:]:
            if self._is_valid_new_leader(replica):
                return ElectionResult(replica, False)
        return ElectionResult(NO_LEADER, False)

    def _elect_any_leader(self) -> ElectionResult:
        if self._is_valid_new_leader(self.partition.leader):
            return ElectionResult(self.partition.leader, False)  # no change while the leader may stay
        for replica in self.target_replicas:
            if self._is_valid_new_leader(replica):
                return ElectionResult(replica, False)
        if self.election is Election.UNCLEAN:
            for replica in self.target_replicas:
                if self.is_acceptable_leader(replica):
                    return ElectionResult(replica, True)
        return ElectionResult(NO_LEADER, False)

    def _try_election(self, record: dict[str, Any]) -> None:
        result = self.elect_leader()
        if result.node != self.partition.leader:
            record["leader"] = result.node
            if result.unclean:
                # An unclean leader may lack committed records: it alone is the ISR, and it must recover first.
                record["isr"] = (result.node,)
                if self.partition.leader_recovery_state != LeaderRecoveryState.RECOVERING and \
                        self.metadata_version.is_at_least(MetadataVersion.IBP_3_2_IV0):  # isLeaderRecoverySupported
                    record["leader_recovery_state"] = int(LeaderRecoveryState.RECOVERING)

    def _trigger_leader_epoch_bump_for_replica_reassignment_if_needed(self, record: dict[str, Any]) -> None:
        if "leader" in record:
            return  # already a new leader, hence a new epoch
        if not set(self.partition.replicas) <= set(self.target_replicas):
            # A replica leaves: a new leader epoch fences it (same leader, bumped epoch).
            record["leader"] = self.partition.leader

    def _trigger_leader_epoch_bump_for_isr_shrink_if_needed(self, record: dict[str, Any]) -> None:
        """Before 3.6-IV0 (isLeaderEpochBumpRequiredOnIsrShrink) a replica leaving the ISR bumps the leader epoch,
        which fences it."""
        if self.metadata_version.is_at_least(MetadataVersion.IBP_3_6_IV0):
            return
        if "leader" in record or "isr" not in record:
            return
        if not set(self.partition.isr) <= set(record["isr"]):
            record["leader"] = self.partition.leader

    def _complete_reassignment_if_needed(self) -> None:
        """Once the ISR holds every target replica, the removed replicas leave the replica list and the ISR."""
        reassignment_replicas = PartitionReassignmentReplicas(self.target_removing, self.target_adding,
                                                              self.target_replicas)
        completed_reassignment = reassignment_replicas.maybe_complete_reassignment(self.target_isr)
        if completed_reassignment is None:
            return
        self.target_isr = list(completed_reassignment.isr)
        self.target_replicas = list(completed_reassignment.replicas)
        self.target_removing = []
        self.target_adding = []

    def _set_assignment_changes(self, record: dict[str, Any]) -> None:
        if self.target_replicas:
            if is_directory_assignment_supported(self.metadata_version):
                directories = []
                for replica in self.target_replicas:
                    directory = self.target_directories.get(replica)
                    if directory is None:
                        if self.default_dir is None:
                            raise RuntimeError("DefaultDirProvider is not set")
                        directory = self.default_dir(replica)
                    directories.append(directory)
                if directories != list(self.partition.directories):
                    record["directories"] = tuple(directories)
            if self.target_replicas != list(self.partition.replicas):
                record["replicas"] = tuple(self.target_replicas)
        if self.target_removing != list(self.partition.removing_replicas):
            record["removing_replicas"] = tuple(self.target_removing)
        if self.target_adding != list(self.partition.adding_replicas):
            record["adding_replicas"] = tuple(self.target_adding)

    def build(self) -> Any | None:
        """The change as an ApiMessageAndVersion(PartitionChangeRecord), or None for no change."""

        record: dict[str, Any] = {}
        self._complete_reassignment_if_needed()
        self._try_election(record)
        self._trigger_leader_epoch_bump_for_replica_reassignment_if_needed(record)
        # Without ELR an empty ISR is never written: the last member stays, leaderless.
        if "isr" not in record and self.target_isr and self.target_isr != list(self.partition.isr):
            record["isr"] = tuple(self.target_isr)
        self._trigger_leader_epoch_bump_for_isr_shrink_if_needed(record)
        self._set_assignment_changes(record)
        if self.target_leader_recovery_state != self.partition.leader_recovery_state:
            record["leader_recovery_state"] = int(self.target_leader_recovery_state)
        if not record:
            return None
        return ApiMessageAndVersion(PartitionChangeRecord(topic_id=self.topic_id, partition_id=self.partition_id,
                                                          **record),
                                    partition_change_record_version(self.metadata_version))


__all__ = ["Election", "ElectionResult", "NO_LEADER", "NO_LEADER_CHANGE", "PartitionChangeBuilder"]
