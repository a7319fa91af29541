"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMetadataTest.scala (Kafka 1.0.2).

Kafka's `@Test(expected = classOf[IllegalStateException])` is `pytest.raises(IllegalStateException)` around the
whole case. Its clock is core's kafka.utils.MockTime (tests.kafka_tests.mock_scheduler.MockTimeWithScheduler).
"""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_PRODUCER_EPOCH
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    SHORT_MAX_VALUE,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    PrepareEpochFence,
    TransactionMetadata,
    TransactionState,
)
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMetadataTest.scala",
    cases=[
        "testInitializeEpoch", "testNormalEpochBump", "testBumpEpochNotAllowedIfEpochsExhausted",
        "testFenceProducerAfterEpochsExhausted", "testFenceProducerNotAllowedIfItWouldOverflow",
        "testRotateProducerId", "testRotateProducerIdInOngoingState", "testRotateProducerIdInPrepareAbortState",
        "testRotateProducerIdInPrepareCommitState",
    ],
)

TRANSACTIONAL_ID = "txnlId"
PRODUCER_ID = 23423


@pytest.fixture
def time() -> MockTimeWithScheduler:
    return MockTimeWithScheduler()


def _metadata(time: MockTimeWithScheduler, producer_epoch: int, state: TransactionState) -> TransactionMetadata:
    """TransactionMetadata(transactionalId, producerId, producerEpoch, txnTimeoutMs = 30000, state,
    topicPartitions = empty, txnLastUpdateTimestamp = now), txnStartTimestamp left at its default."""
    return TransactionMetadata(transactional_id=TRANSACTIONAL_ID, producer_id=PRODUCER_ID,
                               producer_epoch=producer_epoch, txn_timeout_ms=30000, state=state,
                               topic_partitions=set(), txn_last_update_timestamp=time.milliseconds())


def test_initialize_epoch(time: MockTimeWithScheduler) -> None:
    txn_metadata = _metadata(time, NO_PRODUCER_EPOCH, Empty)

    transit_metadata = txn_metadata.prepare_increment_producer_epoch(30000, time.milliseconds())
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == PRODUCER_ID
    assert txn_metadata.producer_epoch == 0


def test_normal_epoch_bump(time: MockTimeWithScheduler) -> None:
    producer_epoch = 735
    txn_metadata = _metadata(time, producer_epoch, Empty)

    transit_metadata = txn_metadata.prepare_increment_producer_epoch(30000, time.milliseconds())
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == PRODUCER_ID
    assert txn_metadata.producer_epoch == producer_epoch + 1


def test_bump_epoch_not_allowed_if_epochs_exhausted(time: MockTimeWithScheduler) -> None:
    with pytest.raises(IllegalStateException):
        txn_metadata = _metadata(time, SHORT_MAX_VALUE - 1, Empty)
        assert txn_metadata.is_producer_epoch_exhausted

        txn_metadata.prepare_increment_producer_epoch(30000, time.milliseconds())


def test_fence_producer_after_epochs_exhausted(time: MockTimeWithScheduler) -> None:
    txn_metadata = _metadata(time, SHORT_MAX_VALUE - 1, Ongoing)
    assert txn_metadata.is_producer_epoch_exhausted

    fencing_transit_metadata = txn_metadata.prepare_fence_producer_epoch()
    assert fencing_transit_metadata.producer_epoch == SHORT_MAX_VALUE
    assert txn_metadata.pending_state is PrepareEpochFence

    # the abort may only be prepared once the fence's pending state is cleared
    txn_metadata.pending_state = None

    transit_metadata = txn_metadata.prepare_abort_or_commit(PrepareAbort, time.milliseconds())
    txn_metadata.complete_transition_to(transit_metadata)
    assert transit_metadata.producer_id == PRODUCER_ID


def test_fence_producer_not_allowed_if_it_would_overflow(time: MockTimeWithScheduler) -> None:
    with pytest.raises(IllegalStateException):
        txn_metadata = _metadata(time, SHORT_MAX_VALUE, Ongoing)
        assert txn_metadata.is_producer_epoch_exhausted
        txn_metadata.prepare_fence_producer_epoch()


def test_rotate_producer_id(time: MockTimeWithScheduler) -> None:
    txn_metadata = _metadata(time, SHORT_MAX_VALUE - 1, Empty)

    new_producer_id = 9893
    transit_metadata = txn_metadata.prepare_producer_id_rotation(new_producer_id, 30000, time.milliseconds())
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == new_producer_id
    assert txn_metadata.producer_epoch == 0


def _rotate_producer_id_in_ongoing_state(time: MockTimeWithScheduler, state: TransactionState) -> None:
    txn_metadata = _metadata(time, SHORT_MAX_VALUE - 1, state)
    new_producer_id = 9893
    txn_metadata.prepare_producer_id_rotation(new_producer_id, 30000, time.milliseconds())


def test_rotate_producer_id_in_ongoing_state(time: MockTimeWithScheduler) -> None:
    with pytest.raises(IllegalStateException):
        _rotate_producer_id_in_ongoing_state(time, Ongoing)


def test_rotate_producer_id_in_prepare_abort_state(time: MockTimeWithScheduler) -> None:
    with pytest.raises(IllegalStateException):
        _rotate_producer_id_in_ongoing_state(time, PrepareAbort)


def test_rotate_producer_id_in_prepare_commit_state(time: MockTimeWithScheduler) -> None:
    with pytest.raises(IllegalStateException):
        _rotate_producer_id_in_ongoing_state(time, PrepareCommit)
