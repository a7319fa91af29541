"""Port of core/src/test/scala/unit/kafka/cluster/AssignmentStateTest.scala (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v3_9.core.cluster.partition import LeaderAndIsrPartitionState, SimpleAssignmentState
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.cluster.partition_test_utils import BROKER_ID, AbstractPartitionTest

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/cluster/AssignmentStateTest.scala",
    cases=["testPartitionAssignmentStatus"],
)

b = BROKER_ID
PARAMETERS = [
    # isr, replicas, adding, removing, original, is_under_replicated
    ([b, b + 1, b + 2], [b, b + 1, b + 2], [], [], [], False),
    ([b, b + 1], [b, b + 1, b + 2], [], [], [], True),
    ([b, b + 1, b + 2], [b, b + 1, b + 2], [b + 3, b + 4], [b + 1], [b, b + 1, b + 2], False),
    ([b, b + 1, b + 2], [b, b + 1, b + 2], [b + 3, b + 4], [], [b, b + 1, b + 2], False),
    ([b, b + 1, b + 2], [b, b + 1, b + 2], [], [b + 1], [b, b + 1, b + 2], False),
    ([b + 1, b + 2], [b + 1, b + 2], [b], [], [b + 1, b + 2], False),
    ([b + 2, b + 3, b + 4], [b, b + 1, b + 2], [b + 3, b + 4, b + 5], [], [b, b + 1, b + 2], False),
    ([b + 2, b + 3, b + 4], [b, b + 1, b + 2], [b + 3, b + 4, b + 5], [], [b, b + 1, b + 2], False),
    ([b + 2, b + 3], [b, b + 1, b + 2], [b + 3, b + 4, b + 5], [], [b, b + 1, b + 2], True),
]


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[AbstractPartitionTest]:
    context = AbstractPartitionTest(tmp_path)
    yield context
    context.tear_down()


@pytest.mark.parametrize("isr, replicas, adding, removing, original, is_under_replicated", PARAMETERS)
def test_partition_assignment_status(ctx: AbstractPartitionTest, isr: list[int], replicas: list[int],
                                     adding: list[int], removing: list[int], original: list[int],
                                     is_under_replicated: bool) -> None:
    leader_state = LeaderAndIsrPartitionState(controller_epoch=3, leader=BROKER_ID, leader_epoch=6, isr=isr,
                                              partition_epoch=1, replicas=replicas, is_new=False,
                                              adding_replicas=adding, removing_replicas=removing)
    is_reassigning = bool(adding) or bool(removing)

    # the original replicas, for the under-replicated count
    if original:
        ctx.partition.assignment_state = SimpleAssignmentState(original)
    ctx.partition.make_leader(leader_state, ctx.offset_checkpoints, None)
    assert ctx.partition.is_reassigning() == is_reassigning
    for r in adding:
        assert ctx.partition.is_adding_replica(r)
    assert ctx.partition.is_adding_local_replica() == (BROKER_ID in adding)
    assert ctx.partition.is_under_replicated() == is_under_replicated
