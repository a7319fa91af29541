"""Port of core/src/test/scala/kafka/api/LeaderAndIsrTest.scala (Kafka 3.9).

Scala's two `LeaderAndIsr.apply` overloads are `LeaderAndIsr.of(leader, isr)` and `LeaderAndIsr.apply(leader,
leaderEpoch, isr, leaderRecoveryState, partitionEpoch)` in the port.
"""

from __future__ import annotations

from kafka_edu.v3_9.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/kafka/api/LeaderAndIsrTest.scala",
    cases=["testRecoveringLeaderAndIsr", "testNewLeaderAndIsr", "testNewLeader", "testNewEpoch", "testLeaderOpt"],
)


def test_recovering_leader_and_isr() -> None:
    leader_and_isr = LeaderAndIsr.of(1, [1, 2])
    recovering_leader_and_isr = leader_and_isr.new_recovering_leader_and_isr(3, [3])

    assert recovering_leader_and_isr.leader == 3
    assert recovering_leader_and_isr.isr == [3]
    assert recovering_leader_and_isr.leader_recovery_state == LeaderRecoveryState.RECOVERING


def test_new_leader_and_isr() -> None:
    leader_and_isr = LeaderAndIsr.of(1, [1, 2])
    new_leader_and_isr = leader_and_isr.new_leader_and_isr(2, [1, 2])

    assert new_leader_and_isr.leader == 2
    assert new_leader_and_isr.isr == [1, 2]
    assert new_leader_and_isr.leader_recovery_state == LeaderRecoveryState.RECOVERED


def test_new_leader() -> None:
    leader_and_isr = LeaderAndIsr.of(2, [1, 2, 3])

    assert leader_and_isr.leader == 2
    assert leader_and_isr.isr == [1, 2, 3]

    new_leader_and_isr = leader_and_isr.new_leader(3)

    assert new_leader_and_isr.leader == 3
    assert new_leader_and_isr.isr == [1, 2, 3]


def test_new_epoch() -> None:
    leader_and_isr = LeaderAndIsr.of(3, [1, 2, 3])

    assert leader_and_isr.leader_epoch == 0

    leader_with_new_epoch = leader_and_isr.new_epoch

    assert leader_with_new_epoch.leader_epoch == 1


def test_leader_opt() -> None:
    leader_and_isr = LeaderAndIsr.of(2, [1, 2, 3])

    assert leader_and_isr.leader_opt == 2
