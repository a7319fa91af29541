"""Port of metadata/src/test/java/org/apache/kafka/controller/PartitionReassignmentRevertTest.java (Kafka 3.9).

The partition registrations' directories are fixed random ids in Kafka's case; any distinct ids serve here.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from kafka_edu.v3_9.metadata.controller.partition_reassignment_revert import PartitionReassignmentRevert
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState, PartitionRegistration
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/PartitionReassignmentRevertTest.java",
    cases=["testNoneAddedOrRemoved", "testSomeRemoving", "testSomeAdding", "testSomeRemovingAndAdding",
           "testIsrSpecialCase"],
)


def _registration(replicas: list[int], isr: list[int], removing: Sequence[int] = (),
                  adding: Sequence[int] = ()) -> PartitionRegistration:
    return PartitionRegistration(replicas=tuple(replicas), directories=tuple(uuid.uuid4() for _ in replicas),
                                 isr=tuple(isr), removing_replicas=tuple(removing), adding_replicas=tuple(adding),
                                 leader=3, leader_recovery_state=LeaderRecoveryState.RECOVERED, leader_epoch=100,
                                 partition_epoch=200)


def test_none_added_or_removed() -> None:
    revert = PartitionReassignmentRevert(_registration([3, 2, 1], [3, 2]))
    assert revert.replicas() == [3, 2, 1]
    assert revert.isr() == [3, 2]
    assert not revert.unclean()


def test_some_removing() -> None:
    revert = PartitionReassignmentRevert(_registration([3, 2, 1], [3, 2], removing=[2, 1]))
    assert revert.replicas() == [3, 2, 1]
    assert revert.isr() == [3, 2]
    assert not revert.unclean()


def test_some_adding() -> None:
    revert = PartitionReassignmentRevert(_registration([4, 5, 3, 2, 1], [4, 5, 2], adding=[4, 5]))
    assert revert.replicas() == [3, 2, 1]
    assert revert.isr() == [2]
    assert not revert.unclean()


def test_some_removing_and_adding() -> None:
    revert = PartitionReassignmentRevert(_registration([4, 5, 3, 2, 1], [4, 5, 2], removing=[2], adding=[4, 5]))
    assert revert.replicas() == [3, 2, 1]
    assert revert.isr() == [2]
    assert not revert.unclean()


def test_isr_special_case() -> None:
    revert = PartitionReassignmentRevert(_registration([4, 5, 3, 2, 1], [4, 5], removing=[2], adding=[4, 5]))
    assert revert.replicas() == [3, 2, 1]
    assert revert.isr() == [3]
    assert revert.unclean()
