"""Port of metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentReplicas.java (Kafka 3.9): a
reassignment's replica lists (removing, adding, and the full replica list while it runs)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.metadata.metadata.partition_registration import PartitionRegistration
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import PartitionAssignment


@dataclass(frozen=True)
class CompletedReassignment:
    replicas: list[int]
    isr: list[int]


class PartitionReassignmentReplicas:
    """While a reassignment runs, the replica list holds the target replicas followed by those being removed."""

    def __init__(self, removing: list[int], adding: list[int], replicas: list[int]) -> None:
        self._removing = list(removing)
        self._adding = list(adding)
        self._replicas = list(replicas)

    @classmethod
    def of_assignments(cls, current_assignment: PartitionAssignment,
                       target_assignment: PartitionAssignment) -> PartitionReassignmentReplicas:
        removing = _calculate_difference(current_assignment.replicas, target_assignment.replicas)
        adding = _calculate_difference(target_assignment.replicas, current_assignment.replicas)
        return cls(removing, adding, list(target_assignment.replicas) + removing)

    def removing(self) -> list[int]:
        return self._removing

    def adding(self) -> list[int]:
        return self._adding

    def replicas(self) -> list[int]:
        return self._replicas

    def is_reassignment_in_progress(self) -> bool:
        return _is_reassignment_in_progress(self._removing, self._adding)

    def maybe_complete_reassignment(self, target_isr: list[int]) -> CompletedReassignment | None:
        """The replicas and ISR once the reassignment is done, if the ISR allows finishing it now: every replica of
        the new list in the ISR, and something left of both once the removed replicas are gone."""
        if not self.is_reassignment_in_progress():
            return None
        new_target_isr = list(target_isr)
        new_target_replicas = self._replicas
        if self._removing:
            new_target_isr = [r for r in target_isr if r not in self._removing]
            if not new_target_isr:
                return None
            new_target_replicas = [r for r in self._replicas if r not in self._removing]
            if not new_target_replicas:
                return None
        if not set(new_target_replicas) <= set(new_target_isr):
            return None
        return CompletedReassignment(new_target_replicas, new_target_isr)

    def original_replicas(self) -> list[int]:
        return [r for r in self._replicas if r not in self._adding]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartitionReassignmentReplicas):
            return False
        return (self._removing, self._adding, self._replicas) == (other._removing, other._adding, other._replicas)

    def __hash__(self) -> int:
        return hash((tuple(self._removing), tuple(self._adding), tuple(self._replicas)))

    def __repr__(self) -> str:
        return (f"PartitionReassignmentReplicas(removing={self._removing}, adding={self._adding}, "
                f"replicas={self._replicas})")


def is_reassignment_in_progress(part: PartitionRegistration) -> bool:
    """PartitionReassignmentReplicas.isReassignmentInProgress(PartitionRegistration)."""
    return _is_reassignment_in_progress(list(part.removing_replicas), list(part.adding_replicas))


def _is_reassignment_in_progress(removing_replicas: list[int], adding_replicas: list[int]) -> bool:
    return bool(removing_replicas) or bool(adding_replicas)


def _calculate_difference(a: list[int], b: list[int]) -> list[int]:
    """The members of `a` not in `b`, sorted (Kafka's TreeSet)."""
    return sorted(set(a) - set(b))
