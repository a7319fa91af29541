"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMetadataTest.scala (Kafka 3.9)."""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    SHORT_MAX_VALUE,
    CompleteAbort,
    CompleteCommit,
    Dead,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    PrepareEpochFence,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMetadataTest.scala",
    cases=[
        "testInitializeEpoch",
        "testNormalEpochBump",
        "testBumpEpochNotAllowedIfEpochsExhausted",
        "testTolerateUpdateTimeShiftDuringEpochBump",
        "testTolerateUpdateTimeResetDuringProducerIdRotation",
        "testTolerateTimeShiftDuringAddPartitions",
        "testTolerateTimeShiftDuringPrepareCommit",
        "testTolerateTimeShiftDuringPrepareAbort",
        "testTolerateTimeShiftDuringCompleteCommit",
        "testTolerateTimeShiftDuringCompleteAbort",
        "testFenceProducerAfterEpochsExhausted",
        "testFenceProducerNotAllowedIfItWouldOverflow",
        "testRotateProducerId",
        "testRotateProducerIdInOngoingState",
        "testRotateProducerIdInPrepareAbortState",
        "testRotateProducerIdInPrepareCommitState",
        "testAttemptedEpochBumpWithNewlyCreatedMetadata",
        "testEpochBumpWithCurrentEpochProvided",
        "testAttemptedEpochBumpWithLastEpoch",
        "testAttemptedEpochBumpWithFencedEpoch",
        "testTransactionStateIdAndNameMapping",
        "testAllTransactionStatesAreMapped",
    ],
    not_ported={
        "testTransactionStateIdAndNameMapping": "clients' admin TransactionState (parse, UNKNOWN), not ported to "
                                                "the 3.9 tree",
    },
)

time = MockTime()
producer_id = 23423
transactional_id = "txnlId"


def _metadata(producer_epoch: int, state: TransactionState, *, last_producer_id: int = NO_PRODUCER_ID,
              last_producer_epoch: int = NO_PRODUCER_EPOCH, txn_start_timestamp: int = -1) -> TransactionMetadata:
    return TransactionMetadata(
        transactional_id=transactional_id,
        producer_id=producer_id,
        last_producer_id=last_producer_id,
        producer_epoch=producer_epoch,
        last_producer_epoch=last_producer_epoch,
        txn_timeout_ms=30000,
        state=state,
        topic_partitions=set(),
        txn_start_timestamp=txn_start_timestamp,
        txn_last_update_timestamp=time.milliseconds())


def test_initialize_epoch() -> None:
    txn_metadata = _metadata(NO_PRODUCER_EPOCH, Empty)
    transit_metadata = _prepare_successful_increment_producer_epoch(txn_metadata, None)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.producer_epoch == 0
    assert txn_metadata.last_producer_epoch == NO_PRODUCER_EPOCH


def test_normal_epoch_bump() -> None:
    producer_epoch = 735
    txn_metadata = _metadata(producer_epoch, Empty)
    transit_metadata = _prepare_successful_increment_producer_epoch(txn_metadata, None)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.producer_epoch == producer_epoch + 1
    assert txn_metadata.last_producer_epoch == NO_PRODUCER_EPOCH


def test_bump_epoch_not_allowed_if_epochs_exhausted() -> None:
    txn_metadata = _metadata(SHORT_MAX_VALUE - 1, Empty)
    assert txn_metadata.is_producer_epoch_exhausted
    with pytest.raises(IllegalStateException):
        txn_metadata.prepare_increment_producer_epoch(30000, None, time.milliseconds())


def test_tolerate_update_time_shift_during_epoch_bump() -> None:
    producer_epoch = 1
    txn_metadata = _metadata(producer_epoch, Empty, txn_start_timestamp=1)
    # an update time earlier than the last one is accepted
    transit_metadata = _prepare_successful_increment_producer_epoch(txn_metadata, producer_epoch,
                                                                    time.milliseconds() - 1)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.producer_epoch == producer_epoch + 1
    assert txn_metadata.last_producer_epoch == producer_epoch
    assert txn_metadata.txn_start_timestamp == 1
    assert txn_metadata.txn_last_update_timestamp == time.milliseconds() - 1


def test_tolerate_update_time_reset_during_producer_id_rotation() -> None:
    producer_epoch = 1
    txn_metadata = _metadata(producer_epoch, Empty, txn_start_timestamp=1)
    transit_metadata = txn_metadata.prepare_producer_id_rotation(producer_id + 1, 30000, time.milliseconds() - 1,
                                                                 record_last_epoch=True)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == producer_id + 1
    assert txn_metadata.last_producer_epoch == producer_epoch
    assert txn_metadata.producer_epoch == 0
    assert txn_metadata.txn_start_timestamp == 1
    assert txn_metadata.txn_last_update_timestamp == time.milliseconds() - 1


def test_tolerate_time_shift_during_add_partitions() -> None:
    producer_epoch = 1
    txn_metadata = _metadata(producer_epoch, Empty, txn_start_timestamp=time.milliseconds())
    # from Empty the start time becomes the (earlier) update time
    transit_metadata = txn_metadata.prepare_add_partitions({TopicPartition("topic1", 0)}, time.milliseconds() - 1)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.topic_partitions == {TopicPartition("topic1", 0)}
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.last_producer_epoch == NO_PRODUCER_EPOCH
    assert txn_metadata.producer_epoch == producer_epoch
    assert txn_metadata.txn_start_timestamp == time.milliseconds() - 1
    assert txn_metadata.txn_last_update_timestamp == time.milliseconds() - 1

    # from Ongoing the start time stays
    transit_metadata = txn_metadata.prepare_add_partitions({TopicPartition("topic2", 0)}, time.milliseconds() - 2)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.topic_partitions == {TopicPartition("topic1", 0), TopicPartition("topic2", 0)}
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.last_producer_epoch == NO_PRODUCER_EPOCH
    assert txn_metadata.producer_epoch == producer_epoch
    assert txn_metadata.txn_start_timestamp == time.milliseconds() - 1
    assert txn_metadata.txn_last_update_timestamp == time.milliseconds() - 2


def _check_time_shift(from_state: TransactionState, expected_state: TransactionState, complete: bool) -> None:
    producer_epoch = 1
    txn_metadata = _metadata(producer_epoch, from_state, txn_start_timestamp=1)
    if complete:
        transit_metadata = txn_metadata.prepare_complete(time.milliseconds() - 1)
    else:
        transit_metadata = txn_metadata.prepare_abort_or_commit(expected_state, time.milliseconds() - 1)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.state is expected_state
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.last_producer_epoch == NO_PRODUCER_EPOCH
    assert txn_metadata.producer_epoch == producer_epoch
    assert txn_metadata.txn_start_timestamp == 1
    assert txn_metadata.txn_last_update_timestamp == time.milliseconds() - 1


def test_tolerate_time_shift_during_prepare_commit() -> None:
    _check_time_shift(Ongoing, PrepareCommit, complete=False)


def test_tolerate_time_shift_during_prepare_abort() -> None:
    _check_time_shift(Ongoing, PrepareAbort, complete=False)


def test_tolerate_time_shift_during_complete_commit() -> None:
    _check_time_shift(PrepareCommit, CompleteCommit, complete=True)


def test_tolerate_time_shift_during_complete_abort() -> None:
    _check_time_shift(PrepareAbort, CompleteAbort, complete=True)


def test_fence_producer_after_epochs_exhausted() -> None:
    txn_metadata = _metadata(SHORT_MAX_VALUE - 1, Ongoing)
    assert txn_metadata.is_producer_epoch_exhausted

    fencing_transit_metadata = txn_metadata.prepare_fence_producer_epoch()
    assert fencing_transit_metadata.producer_epoch == SHORT_MAX_VALUE
    assert fencing_transit_metadata.last_producer_epoch == NO_PRODUCER_EPOCH
    assert txn_metadata.pending_state is PrepareEpochFence

    # the coordinator clears the pending state so the abort can follow
    txn_metadata.pending_state = None

    transit_metadata = txn_metadata.prepare_abort_or_commit(PrepareAbort, time.milliseconds())
    txn_metadata.complete_transition_to(transit_metadata)
    assert transit_metadata.producer_id == producer_id


def test_fence_producer_not_allowed_if_it_would_overflow() -> None:
    txn_metadata = _metadata(SHORT_MAX_VALUE, Ongoing)
    assert txn_metadata.is_producer_epoch_exhausted
    with pytest.raises(IllegalStateException):
        txn_metadata.prepare_fence_producer_epoch()


def test_rotate_producer_id() -> None:
    producer_epoch = SHORT_MAX_VALUE - 1
    txn_metadata = _metadata(producer_epoch, Empty)
    new_producer_id = 9893
    transit_metadata = txn_metadata.prepare_producer_id_rotation(new_producer_id, 30000, time.milliseconds(),
                                                                 record_last_epoch=True)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == new_producer_id
    assert txn_metadata.last_producer_id == producer_id
    assert txn_metadata.producer_epoch == 0
    assert txn_metadata.last_producer_epoch == producer_epoch


def test_rotate_producer_id_in_ongoing_state() -> None:
    with pytest.raises(IllegalStateException):
        _rotate_producer_id_in_ongoing_state(Ongoing)


def test_rotate_producer_id_in_prepare_abort_state() -> None:
    with pytest.raises(IllegalStateException):
        _rotate_producer_id_in_ongoing_state(PrepareAbort)


def test_rotate_producer_id_in_prepare_commit_state() -> None:
    with pytest.raises(IllegalStateException):
        _rotate_producer_id_in_ongoing_state(PrepareCommit)


def test_attempted_epoch_bump_with_newly_created_metadata() -> None:
    producer_epoch = 735
    txn_metadata = _metadata(NO_PRODUCER_EPOCH, Empty)
    transit_metadata = _prepare_successful_increment_producer_epoch(txn_metadata, producer_epoch)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.producer_epoch == 0
    assert txn_metadata.last_producer_epoch == NO_PRODUCER_EPOCH


def test_epoch_bump_with_current_epoch_provided() -> None:
    producer_epoch = 735
    txn_metadata = _metadata(producer_epoch, Empty)
    transit_metadata = _prepare_successful_increment_producer_epoch(txn_metadata, producer_epoch)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.producer_epoch == producer_epoch + 1
    assert txn_metadata.last_producer_epoch == producer_epoch


def test_attempted_epoch_bump_with_last_epoch() -> None:
    producer_epoch = 735
    last_producer_epoch = producer_epoch - 1
    txn_metadata = _metadata(producer_epoch, Empty, last_producer_epoch=last_producer_epoch)
    transit_metadata = _prepare_successful_increment_producer_epoch(txn_metadata, last_producer_epoch)
    txn_metadata.complete_transition_to(transit_metadata)
    assert txn_metadata.producer_id == producer_id
    assert txn_metadata.producer_epoch == producer_epoch
    assert txn_metadata.last_producer_epoch == last_producer_epoch


def test_attempted_epoch_bump_with_fenced_epoch() -> None:
    producer_epoch = 735
    last_producer_epoch = producer_epoch - 1
    txn_metadata = _metadata(producer_epoch, Empty, last_producer_id=producer_id,
                             last_producer_epoch=last_producer_epoch)
    result = txn_metadata.prepare_increment_producer_epoch(30000, last_producer_epoch - 1, time.milliseconds())
    assert result is Errors.PRODUCER_FENCED


def test_all_transaction_states_are_mapped() -> None:
    unmatched_states = {Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort,
                        PrepareEpochFence, Dead}
    # one branch per known state: a new state fails here until the test learns it
    for state in TransactionState.ALL_STATES:
        if state is Empty or state is Ongoing or state is PrepareCommit or state is PrepareAbort \
                or state is CompleteCommit or state is CompleteAbort or state is PrepareEpochFence or state is Dead:
            assert state in unmatched_states
            unmatched_states.remove(state)
        else:
            raise AssertionError(f"unmapped state {state}")
    assert unmatched_states == set()


def _rotate_producer_id_in_ongoing_state(state: TransactionState) -> None:
    txn_metadata = _metadata(SHORT_MAX_VALUE - 1, state, last_producer_id=producer_id)
    new_producer_id = 9893
    txn_metadata.prepare_producer_id_rotation(new_producer_id, 30000, time.milliseconds(), record_last_epoch=False)


def _prepare_successful_increment_producer_epoch(txn_metadata: TransactionMetadata,
                                                 expected_producer_epoch: int | None,
                                                 now: int | None = None) -> TxnTransitMetadata:
    result = txn_metadata.prepare_increment_producer_epoch(30000, expected_producer_epoch,
                                                           time.milliseconds() if now is None else now)
    if not isinstance(result, TxnTransitMetadata):
        raise AssertionError(f"prepareIncrementProducerEpoch failed with {result}")
    return result
