"""Port of metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentRevert.java (Kafka 3.9): the replicas
and ISR a partition goes back to when its reassignment is cancelled."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import InvalidReplicaAssignmentException
from kafka_edu.v3_9.metadata.controller.partition_reassignment_replicas import PartitionReassignmentReplicas
from kafka_edu.v3_9.metadata.metadata.partition_registration import PartitionRegistration


class PartitionReassignmentRevert:
    """The replicas being added leave; those being removed stay. If only added replicas were in the ISR, the first
    original replica becomes the ISR: an unclean election, which the caller must allow."""

    def __init__(self, registration: PartitionRegistration) -> None:
        ongoing_reassignment = PartitionReassignmentReplicas(
            list(registration.removing_replicas), list(registration.adding_replicas), list(registration.replicas))
        self._replicas = ongoing_reassignment.original_replicas()
        self._isr = [r for r in registration.isr if r not in ongoing_reassignment.adding()]
        if not self._isr:
            if not self._replicas:
                # unreachable unless the partition had no replicas before the reassignment
                raise InvalidReplicaAssignmentException("Invalid replica assignment: addingReplicas contains all "
                                                        "replicas.")
            self._isr.append(self._replicas[0])
            self._unclean = True
        else:
            self._unclean = False

    def replicas(self) -> list[int]:
        return self._replicas

    def isr(self) -> list[int]:
        return self._isr

    def unclean(self) -> bool:
        return self._unclean

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartitionReassignmentRevert):
            return False
        return (self._replicas, self._isr, self._unclean) == (other._replicas, other._isr, other._unclean)

    def __hash__(self) -> int:
        return hash((tuple(self._replicas), tuple(self._isr), self._unclean))

    def __repr__(self) -> str:
        return f"PartitionReassignmentRevert(replicas={self._replicas}, isr={self._isr}, unclean={self._unclean})"
