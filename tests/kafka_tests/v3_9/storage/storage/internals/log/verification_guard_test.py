"""Port of core/src/test/scala/unit/kafka/log/VerificationGuardTest.scala (Kafka 3.9).

Kafka keeps this test of storage's VerificationGuard in core; it sits here beside the class it tests.
"""

from __future__ import annotations

from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/VerificationGuardTest.scala",
    cases=["testEqualsAndHashCode", "testVerify"],
)

SENTINEL = VerificationGuard.SENTINEL


def test_equals_and_hash_code() -> None:
    verification_guard1 = VerificationGuard()
    verification_guard2 = VerificationGuard()

    assert verification_guard1 != verification_guard2
    assert SENTINEL != verification_guard1
    assert SENTINEL == SENTINEL

    assert hash(verification_guard1) != hash(verification_guard2)
    assert hash(SENTINEL) != hash(verification_guard1)
    assert hash(SENTINEL) == hash(SENTINEL)


def test_verify() -> None:
    verification_guard1 = VerificationGuard()
    verification_guard2 = VerificationGuard()

    assert not verification_guard1.verify(verification_guard2)
    assert not verification_guard1.verify(SENTINEL)
    assert not SENTINEL.verify(verification_guard1)
    assert not SENTINEL.verify(SENTINEL)
    assert verification_guard1.verify(verification_guard1)
