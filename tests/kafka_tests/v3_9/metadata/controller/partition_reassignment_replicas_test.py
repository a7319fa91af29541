"""Port of metadata/src/test/java/org/apache/kafka/controller/PartitionReassignmentReplicasTest.java (Kafka 3.9).

The partition registrations' directories are random ids in Kafka's case; any distinct ids serve here.
"""

from __future__ import annotations

import uuid

from kafka_edu.v3_9.metadata.controller.partition_reassignment_replicas import (
    PartitionReassignmentReplicas,
    is_reassignment_in_progress,
)
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState, PartitionRegistration
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import PartitionAssignment
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/PartitionReassignmentReplicasTest.java",
    cases=["testNoneAddedOrRemoved", "testAdditions", "testRemovals", "testAdditionsAndRemovals", "testRearrangement",
           "testDoesNotCompleteReassignment", "testDoesNotCompleteReassignmentIfNoneOngoing",
           "testDoesCompleteReassignmentAllNewReplicas", "testDoesCompleteReassignmentSomeNewReplicas",
           "testIsReassignmentInProgress", "testDoesNotCompleteReassignmentIfIsrDoesNotHaveAllTargetReplicas",
           "testOriginalReplicas"],
)


def partition_assignment(replicas: list[int]) -> PartitionAssignment:
    return PartitionAssignment(replicas, [uuid.uuid4() for _ in replicas])


def _of(current: list[int], target: list[int]) -> PartitionReassignmentReplicas:
    return PartitionReassignmentReplicas.of_assignments(partition_assignment(current), partition_assignment(target))


def test_none_added_or_removed() -> None:
    replicas = _of([3, 2, 1], [3, 2, 1])
    assert replicas.removing() == []
    assert replicas.adding() == []
    assert replicas.replicas() == [3, 2, 1]


def test_additions() -> None:
    replicas = _of([3, 2, 1], [3, 6, 2, 1, 5])
    assert replicas.removing() == []
    assert replicas.adding() == [5, 6]
    assert replicas.replicas() == [3, 6, 2, 1, 5]


def test_removals() -> None:
    replicas = _of([3, 2, 1, 0], [3, 1])
    assert replicas.removing() == [0, 2]
    assert replicas.adding() == []
    assert replicas.replicas() == [3, 1, 0, 2]


def test_additions_and_removals() -> None:
    replicas = _of([3, 2, 1, 0], [7, 3, 1, 9])
    assert replicas.removing() == [0, 2]
    assert replicas.adding() == [7, 9]
    assert replicas.replicas() == [7, 3, 1, 9, 0, 2]


def test_rearrangement() -> None:
    replicas = _of([3, 2, 1, 0], [0, 1, 3, 2])
    assert replicas.removing() == []
    assert replicas.adding() == []
    assert replicas.replicas() == [0, 1, 3, 2]


def test_does_not_complete_reassignment() -> None:
    replicas = _of([0, 1, 2], [3, 4, 5])
    assert replicas.is_reassignment_in_progress()
    assert replicas.maybe_complete_reassignment([0, 1, 2, 3, 4]) is None


def test_does_not_complete_reassignment_if_none_ongoing() -> None:
    replicas = PartitionReassignmentReplicas([], [], [0, 1, 2])
    assert not replicas.is_reassignment_in_progress()
    assert replicas.maybe_complete_reassignment([0, 1, 2]) is None


def test_does_complete_reassignment_all_new_replicas() -> None:
    replicas = _of([0, 1, 2], [3, 4, 5])
    assert replicas.is_reassignment_in_progress()
    completed_reassignment = replicas.maybe_complete_reassignment([0, 1, 2, 3, 4, 5])
    assert completed_reassignment is not None
    assert completed_reassignment.isr == [3, 4, 5]
    assert completed_reassignment.replicas == [3, 4, 5]


def test_does_complete_reassignment_some_new_replicas() -> None:
    replicas = _of([0, 1, 2], [0, 1, 3])
    assert replicas.is_reassignment_in_progress()
    completed_reassignment = replicas.maybe_complete_reassignment([0, 1, 2, 3])
    assert completed_reassignment is not None
    assert completed_reassignment.isr == [0, 1, 3]
    assert completed_reassignment.replicas == [0, 1, 3]


def _registration(replicas: list[int], removing: list[int], adding: list[int]) -> PartitionRegistration:
    return PartitionRegistration(replicas=tuple(replicas), directories=tuple(uuid.uuid4() for _ in replicas),
                                 isr=tuple(replicas), removing_replicas=tuple(removing),
                                 adding_replicas=tuple(adding), leader=0,
                                 leader_recovery_state=LeaderRecoveryState.RECOVERED, leader_epoch=0,
                                 partition_epoch=0)


def test_is_reassignment_in_progress() -> None:
    assert is_reassignment_in_progress(_registration([0, 1, 3, 2], [2], [3]))
    assert is_reassignment_in_progress(_registration([0, 1, 3, 2], [2], []))
    assert is_reassignment_in_progress(_registration([0, 1, 3, 2], [], [3]))
    assert not is_reassignment_in_progress(_registration([0, 1, 2], [], []))


def test_does_not_complete_reassignment_if_isr_does_not_have_all_target_replicas() -> None:
    replicas = _of([0, 1, 2], [0, 1, 3])
    assert replicas.is_reassignment_in_progress()
    assert replicas.maybe_complete_reassignment([3]) is None


def test_original_replicas() -> None:
    assert _of([0, 1, 2], [0, 1, 3]).original_replicas() == [0, 1, 2]
