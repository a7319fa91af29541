"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionCoordinatorTest.scala (Kafka 3.9).

The mocked ProducerIdManager, TransactionStateManager and TransactionMarkerChannelManager are unittest.mock objects
(the last two autospecced). A `when(...)` stub on given arguments is a side effect that looks at the arguments; a
chain of `thenReturn`/`thenAnswer` answers once each and repeats the last. As Mockito does, an unstubbed boolean
answers false (validateTransactionTimeoutMs). A Scala `Either` is the port's `(error, value)` pair,
ProducerIdAndEpoch a `(producer id, epoch)` tuple, and DescribeTransactions' TransactionState and the verify-only
AddPartitionsToTxnResult dicts of kio's field names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.core.coordinator.transaction.transaction_coordinator import (
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    SHORT_MAX_VALUE,
    CompleteAbort,
    CompleteCommit,
    Dead,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    TransactionalIdAndProducerIdEpoch,
    TransactionConfig,
    TransactionStateManager,
)
from kafka_edu.v3_9.server_common.server.util.mock_scheduler import MockScheduler
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.transaction_state_manager_configs import (
    TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_DEFAULT as ABORT_INTERVAL_MS,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionCoordinatorTest.scala",
    cases=[
        "shouldReturnInvalidRequestWhenTransactionalIdIsEmpty",
        "shouldAcceptInitPidAndReturnNextPidWhenTransactionalIdIsNull",
        "shouldInitPidWithEpochZeroForNewTransactionalId",
        "shouldGenerateNewProducerIdIfNoStateAndProducerIdAndEpochProvided",
        "shouldGenerateNewProducerIdIfEpochsExhausted",
        "shouldRespondWithNotCoordinatorOnInitPidWhenNotCoordinator",
        "shouldRespondWithCoordinatorLoadInProgressOnInitPidWhenCoordinatorLoading",
        "shouldRespondWithInvalidPidMappingOnAddPartitionsToTransactionWhenTransactionalIdNotPresent",
        "shouldRespondWithInvalidRequestAddPartitionsToTransactionWhenTransactionalIdIsEmpty",
        "shouldRespondWithInvalidRequestAddPartitionsToTransactionWhenTransactionalIdIsNull",
        "shouldRespondWithNotCoordinatorOnAddPartitionsWhenNotCoordinator",
        "shouldRespondWithCoordinatorLoadInProgressOnAddPartitionsWhenCoordinatorLoading",
        "testVerifyPartitionHandling",
        "shouldRespondWithConcurrentTransactionsOnAddPartitionsWhenStateIsPrepareCommit",
        "shouldRespondWithConcurrentTransactionOnAddPartitionsWhenStateIsPrepareAbort",
        "shouldRespondWithProducerFencedOnAddPartitionsWhenEpochsAreDifferent",
        "shouldAppendNewMetadataToLogOnAddPartitionsWhenPartitionsAdded",
        "shouldRespondWithSuccessOnAddPartitionsWhenStateIsOngoing",
        "shouldRespondWithSuccessOnAddPartitionsWhenStateIsCompleteCommit",
        "shouldRespondWithSuccessOnAddPartitionsWhenStateIsCompleteAbort",
        "shouldRespondWithErrorsNoneOnAddPartitionWhenNoErrorsAndPartitionsTheSame",
        "shouldRespondWithErrorsNoneOnAddPartitionWhenOngoingVerifyOnlyAndPartitionsTheSame",
        "shouldRespondWithInvalidTxnStateWhenVerifyOnlyAndPartitionNotPresent",
        "shouldReplyWithInvalidPidMappingOnEndTxnWhenTxnIdDoesntExist",
        "shouldReplyWithInvalidPidMappingOnEndTxnWhenPidDosentMatchMapped",
        "shouldReplyWithProducerFencedOnEndTxnWhenEpochIsNotSameAsTransaction",
        "shouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit",
        "shouldReturnOkOnEndTxnWhenStatusIsCompleteAbortAndResultIsAbort",
        "shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteAbortAndResultIsNotAbort",
        "shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteCommitAndResultIsNotCommit",
        "shouldReturnConcurrentTxnRequestOnEndTxnRequestWhenStatusIsPrepareCommit",
        "shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsPrepareAbort",
        "shouldAppendPrepareCommitToLogOnEndTxnWhenStatusIsOngoingAndResultIsCommit",
        "shouldAppendPrepareAbortToLogOnEndTxnWhenStatusIsOngoingAndResultIsAbort",
        "shouldRespondWithInvalidRequestOnEndTxnWhenTransactionalIdIsNull",
        "shouldRespondWithInvalidRequestOnEndTxnWhenTransactionalIdIsEmpty",
        "shouldRespondWithNotCoordinatorOnEndTxnWhenIsNotCoordinatorForId",
        "shouldRespondWithCoordinatorLoadInProgressOnEndTxnWhenCoordinatorIsLoading",
        "shouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger",
        "shouldReturnInvalidEpochOnEndTxnWhenEpochIsSmaller",
        "shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingEmptyTransaction",
        "shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingCompleteTransaction",
        "shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingCompleteCommitTransaction",
        "shouldWaitForCommitToCompleteOnHandleInitPidAndExistingTransactionInPrepareCommitState",
        "shouldWaitForCommitToCompleteOnHandleInitPidAndExistingTransactionInPrepareAbortState",
        "shouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState",
        "shouldFailToAbortTransactionOnHandleInitPidWhenProducerEpochIsSmaller",
        "shouldNotRepeatedlyBumpEpochDueToInitPidDuringOngoingTxnIfAppendToLogFails",
        "shouldUseLastEpochToFenceWhenEpochsAreExhausted",
        "testInitProducerIdWithNoLastProducerData",
        "testFenceProducerWhenMappingExistsWithDifferentProducerId",
        "testInitProducerIdWithCurrentEpochProvided",
        "testInitProducerIdStaleCurrentEpochProvided",
        "testRetryInitProducerIdAfterProducerIdRotation",
        "testInitProducerIdWithInvalidEpochAfterProducerIdRotation",
        "shouldRemoveTransactionsForPartitionOnEmigration",
        "shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch",
        "shouldNotAcceptSmallerEpochDuringTransactionExpiration",
        "shouldNotAbortExpiredTransactionsThatHaveAPendingStateTransition",
        "shouldNotBumpEpochWhenAbortingExpiredTransactionIfAppendToLogFails",
        "shouldNotBumpEpochWithPendingTransaction",
        "testDescribeTransactionsWithEmptyTransactionalId",
        "testDescribeTransactionsWithExpiringTransactionalId",
        "testDescribeTransactionsWhileCoordinatorLoading",
        "testDescribeTransactions",
    ],
)

broker_id = 0
coordinator_epoch = 0
transactional_id = "known"
producer_id = 10
producer_epoch = 1
txn_timeout_ms = 1
transaction_state_partition_count = 1
partitions = {TopicPartition("topic1", 0)}


def _txn(tid: str, pid: int, last_pid: int, epoch: int, last_epoch: int, timeout: int, state: TransactionState,
         tps: Iterable[TopicPartition], start: int, last_update: int) -> TransactionMetadata:
    """new TransactionMetadata(...) with Scala's positional arguments."""
    return TransactionMetadata(tid, pid, last_pid, epoch, last_epoch, timeout, state, set(tps),
                               txn_start_timestamp=start, txn_last_update_timestamp=last_update)


def _epoch_and(metadata: TransactionMetadata, epoch: int = coordinator_epoch) -> tuple[None, Any]:
    return None, CoordinatorEpochAndTxnMetadata(epoch, metadata)


def _errors_for_transaction(result: dict[str, Any]) -> dict[TopicPartition, Errors]:
    """AddPartitionsToTxnResponse.errorsForTransaction(result.topicResults)."""
    return {TopicPartition(topic["name"], p["partition_index"]): p["partition_error_code"]
            for topic in result["topic_results"] for p in topic["results_by_partition"]}


def _chain(*answers: Any) -> Callable[[], Any]:
    remaining = list(answers)
    return lambda: remaining.pop(0) if len(remaining) > 1 else remaining[0]


class _Env:
    def __init__(self) -> None:
        self.time = MockTime()
        self.next_pid = 0
        self.pid_generator = mock.Mock()
        self.transaction_manager = mock.create_autospec(TransactionStateManager, instance=True)
        self.transaction_manager.validate_transaction_timeout_ms.return_value = False
        self.transaction_marker_channel_manager = mock.create_autospec(TransactionMarkerChannelManager,
                                                                       instance=True)
        self.scheduler = MockScheduler(self.time)
        self.coordinator = TransactionCoordinator(TransactionConfig(), self.scheduler, lambda: self.pid_generator,
                                                  self.transaction_manager, self.transaction_marker_channel_manager,
                                                  self.time, None)
        self.result: InitProducerIdResult | None = None
        self.error = Errors.NONE

    def mock_pid_generator(self) -> None:
        def generate() -> int:
            self.next_pid += 1
            return self.next_pid - 1
        self.pid_generator.generate_producer_id.side_effect = generate

    def init_pid_generic_mocks(self) -> None:
        self.mock_pid_generator()
        self.transaction_manager.validate_transaction_timeout_ms.return_value = True

    def stub_state(self, *answers: Any) -> None:
        """when(getTransactionState(eq(transactionalId))).thenReturn(a).thenReturn(b)..."""
        answer = _chain(*answers)
        self.transaction_manager.get_transaction_state.side_effect = \
            lambda tid: answer() if tid == transactional_id else None

    def stub_append(self, *answers: Callable[[TxnTransitMetadata, Callable[[Errors], None]], Any],
                    transit: TxnTransitMetadata | None = None) -> None:
        """when(appendTransactionToLog(eq(transactionalId), eq(coordinatorEpoch), eq(transit) or any, captor, any,
        any)).thenAnswer(...)...: an answer gets the transit and the callback."""
        answer = _chain(*answers)

        def side_effect(tid: str, epoch: int, new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None],
                        *rest: Any, **kwargs: Any) -> None:
            if tid == transactional_id and epoch == coordinator_epoch and (transit is None or new_metadata == transit):
                answer()(new_metadata, callback)
        self.transaction_manager.append_transaction_to_log.side_effect = side_effect

    def state_calls(self) -> int:
        return sum(1 for c in self.transaction_manager.get_transaction_state.call_args_list
                   if c.args == (transactional_id,))

    def append_calls(self, transit: TxnTransitMetadata | None = None) -> int:
        return sum(1 for c in self.transaction_manager.append_transaction_to_log.call_args_list
                   if c.args[:2] == (transactional_id, coordinator_epoch)
                   and (transit is None or c.args[2] == transit))

    def init_producer_id_mock_callback(self, ret: InitProducerIdResult) -> None:
        self.result = ret

    def errors_callback(self, ret: Errors) -> None:
        self.error = ret

    def validate_concurrent_transactions(self, state: TransactionState) -> None:
        self.stub_state(_epoch_and(_txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, state, set(), 0, 0)))
        self.coordinator.handle_add_partitions_to_transaction(transactional_id, 0, 0, partitions,
                                                              self.errors_callback)
        assert self.error == Errors.CONCURRENT_TRANSACTIONS

    def validate_successful_add_partitions(self, previous_state: TransactionState) -> None:
        txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, producer_epoch - 1,
                            txn_timeout_ms, previous_state, set(), self.time.milliseconds(), self.time.milliseconds())
        self.stub_state(_epoch_and(txn_metadata))
        self.coordinator.handle_add_partitions_to_transaction(transactional_id, producer_id, producer_epoch,
                                                              partitions, self.errors_callback)
        assert self.state_calls() == 1
        assert self.append_calls() == 1

    def verify_end_txn_epoch(self, metadata_epoch: int, request_epoch: int) -> None:
        self.stub_state(_epoch_and(_txn(transactional_id, producer_id, producer_id, metadata_epoch, 0, 1,
                                        CompleteCommit, set(), 0, self.time.milliseconds())))
        self.coordinator.handle_end_transaction(transactional_id, producer_id, request_epoch,
                                                TransactionResult.COMMIT, self.errors_callback)
        assert self.error == Errors.PRODUCER_FENCED
        assert self.state_calls() == 1

    def validate_responds_with_concurrent_transactions_on_init_pid_when_in_prepare_state(
            self, state: TransactionState) -> None:
        self.transaction_manager.validate_transaction_timeout_ms.return_value = True
        metadata = _txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, state, {TopicPartition("topic", 1)}, 0, 0)
        self.stub_state(_epoch_and(metadata))
        self.coordinator.handle_init_producer_id(transactional_id, 10, None, self.init_producer_id_mock_callback)
        assert self.result == InitProducerIdResult(-1, -1, Errors.CONCURRENT_TRANSACTIONS)

    def validate_increment_epoch_and_update_metadata(self, state: TransactionState) -> None:
        self.pid_generator.generate_producer_id.return_value = producer_id
        self.transaction_manager.validate_transaction_timeout_ms.return_value = True
        metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                        state, set(), self.time.milliseconds(), self.time.milliseconds())
        self.stub_state(_epoch_and(metadata))

        def answer(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
            metadata.complete_transition_to(new_metadata)
            callback(Errors.NONE)
        self.stub_append(answer)

        new_txn_timeout_ms = 10
        self.coordinator.handle_init_producer_id(transactional_id, new_txn_timeout_ms, None,
                                                 self.init_producer_id_mock_callback)
        assert self.result == InitProducerIdResult(producer_id, producer_epoch + 1, Errors.NONE)
        assert metadata.txn_timeout_ms == new_txn_timeout_ms
        assert metadata.txn_last_update_timestamp == self.time.milliseconds()
        assert metadata.producer_epoch == producer_epoch + 1
        assert metadata.producer_id == producer_id

    def mock_prepare(self, transaction_state: TransactionState, run_callback: bool = False) -> TransactionMetadata:
        now = self.time.milliseconds()
        original_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH,
                                 txn_timeout_ms, Ongoing, partitions, now, now)
        transition = TxnTransitMetadata(producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                                        transaction_state, frozenset(partitions), now, now)
        self.stub_state(_epoch_and(original_metadata))

        def answer(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
            if run_callback:
                callback(Errors.NONE)
        self.stub_append(answer, transit=transition)
        return _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                    transaction_state, partitions, self.time.milliseconds(), self.time.milliseconds())


def _answer_none(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
    callback(Errors.NONE)


@pytest.fixture
def env() -> _Env:
    return _Env()


def test_should_return_invalid_request_when_transactional_id_is_empty(env: _Env) -> None:
    env.mock_pid_generator()
    env.coordinator.handle_init_producer_id("", txn_timeout_ms, None, env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(-1, -1, Errors.INVALID_REQUEST)
    env.coordinator.handle_init_producer_id("", txn_timeout_ms, None, env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(-1, -1, Errors.INVALID_REQUEST)


def test_should_accept_init_pid_and_return_next_pid_when_transactional_id_is_null(env: _Env) -> None:
    env.mock_pid_generator()
    env.coordinator.handle_init_producer_id(None, txn_timeout_ms, None, env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(0, 0, Errors.NONE)
    env.coordinator.handle_init_producer_id(None, txn_timeout_ms, None, env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(1, 0, Errors.NONE)


def _new_id_stubs(env: _Env) -> None:
    env.init_pid_generic_mocks()
    env.stub_state((None, None))
    env.transaction_manager.put_transaction_state_if_not_exists.side_effect = \
        lambda m: (None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, m))
    env.stub_append(_answer_none)


def test_should_init_pid_with_epoch_zero_for_new_transactional_id(env: _Env) -> None:
    _new_id_stubs(env)
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(env.next_pid - 1, 0, Errors.NONE)


def test_should_generate_new_producer_id_if_no_state_and_producer_id_and_epoch_provided(env: _Env) -> None:
    _new_id_stubs(env)
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, producer_epoch),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(env.next_pid - 1, 0, Errors.NONE)


def test_should_generate_new_producer_id_if_epochs_exhausted(env: _Env) -> None:
    env.init_pid_generic_mocks()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, SHORT_MAX_VALUE - 1, SHORT_MAX_VALUE - 2,
                        txn_timeout_ms, Empty, set(), env.time.milliseconds(), env.time.milliseconds())
    env.stub_state(_epoch_and(txn_metadata))
    env.stub_append(_answer_none)

    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result is not None
    assert env.result.producer_id != producer_id
    assert env.result.producer_epoch == 0
    assert env.result.error == Errors.NONE


def test_should_respond_with_not_coordinator_on_init_pid_when_not_coordinator(env: _Env) -> None:
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state((Errors.NOT_COORDINATOR, None))
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(-1, -1, Errors.NOT_COORDINATOR)


def test_should_respond_with_coordinator_load_in_progress_on_init_pid_when_coordinator_loading(env: _Env) -> None:
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state((Errors.COORDINATOR_LOAD_IN_PROGRESS, None))
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(-1, -1, Errors.COORDINATOR_LOAD_IN_PROGRESS)


def test_should_respond_with_invalid_pid_mapping_on_add_partitions_to_transaction_when_transactional_id_not_present(
        env: _Env) -> None:
    env.stub_state((None, None))
    env.coordinator.handle_add_partitions_to_transaction(transactional_id, 0, 1, partitions, env.errors_callback)
    assert env.error == Errors.INVALID_PRODUCER_ID_MAPPING


def test_should_respond_with_invalid_request_add_partitions_to_transaction_when_transactional_id_is_empty(
        env: _Env) -> None:
    env.coordinator.handle_add_partitions_to_transaction("", 0, 1, partitions, env.errors_callback)
    assert env.error == Errors.INVALID_REQUEST


def test_should_respond_with_invalid_request_add_partitions_to_transaction_when_transactional_id_is_null(
        env: _Env) -> None:
    env.coordinator.handle_add_partitions_to_transaction(None, 0, 1, partitions, env.errors_callback)
    assert env.error == Errors.INVALID_REQUEST


def test_should_respond_with_not_coordinator_on_add_partitions_when_not_coordinator(env: _Env) -> None:
    env.stub_state((Errors.NOT_COORDINATOR, None))
    env.coordinator.handle_add_partitions_to_transaction(transactional_id, 0, 1, partitions, env.errors_callback)
    assert env.error == Errors.NOT_COORDINATOR


def test_should_respond_with_coordinator_load_in_progress_on_add_partitions_when_coordinator_loading(
        env: _Env) -> None:
    env.stub_state((Errors.COORDINATOR_LOAD_IN_PROGRESS, None))
    env.coordinator.handle_add_partitions_to_transaction(transactional_id, 0, 1, partitions, env.errors_callback)
    assert env.error == Errors.COORDINATOR_LOAD_IN_PROGRESS


def test_verify_partition_handling(env: _Env) -> None:
    errors: dict[TopicPartition, Errors] = {}

    def verify_partitions_in_txn_callback(result: dict[str, Any]) -> None:
        errors.clear()
        errors.update(_errors_for_transaction(result))

    # another producer id: INVALID_PRODUCER_ID_MAPPING
    wrong_pid_txn_metadata = _txn(transactional_id, 1, 0, 0, NO_PRODUCER_EPOCH, 0, PrepareCommit, partitions, 0, 0)
    env.stub_state(_epoch_and(wrong_pid_txn_metadata))
    env.coordinator.handle_verify_partitions_in_transaction(transactional_id, 0, 0, partitions,
                                                            verify_partitions_in_txn_callback)
    assert errors
    assert all(e == Errors.INVALID_PRODUCER_ID_MAPPING for e in errors.values())

    # another epoch: PRODUCER_FENCED
    old_epoch_txn_metadata = _txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, PrepareCommit, partitions, 0, 0)
    env.stub_state(_epoch_and(old_epoch_txn_metadata))
    env.coordinator.handle_verify_partitions_in_transaction(transactional_id, 0, 1, partitions,
                                                            verify_partitions_in_txn_callback)
    assert all(e == Errors.PRODUCER_FENCED for e in errors.values())

    # PrepareCommit or PrepareAbort: CONCURRENT_TRANSACTIONS
    empty_txn_metadata = _txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, PrepareCommit, partitions, 0, 0)
    env.stub_state(_epoch_and(empty_txn_metadata))
    env.coordinator.handle_verify_partitions_in_transaction(transactional_id, 0, 0, partitions,
                                                            verify_partitions_in_txn_callback)
    assert all(e == Errors.CONCURRENT_TRANSACTIONS for e in errors.values())

    # the pending state is not looked at: only whether the partitions are in the transaction
    ongoing_txn_metadata = _txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, Ongoing, set(), 0, 0)
    ongoing_txn_metadata.pending_state = CompleteCommit
    env.stub_state(_epoch_and(ongoing_txn_metadata))
    env.coordinator.handle_verify_partitions_in_transaction(transactional_id, 0, 0, partitions,
                                                            verify_partitions_in_txn_callback)
    assert all(e == Errors.TRANSACTION_ABORTABLE for e in errors.values())


def test_should_respond_with_concurrent_transactions_on_add_partitions_when_state_is_prepare_commit(env: _Env) -> None:
    env.validate_concurrent_transactions(PrepareCommit)


def test_should_respond_with_concurrent_transaction_on_add_partitions_when_state_is_prepare_abort(env: _Env) -> None:
    env.validate_concurrent_transactions(PrepareAbort)


def test_should_respond_with_producer_fenced_on_add_partitions_when_epochs_are_different(env: _Env) -> None:
    env.stub_state(_epoch_and(_txn(transactional_id, 0, 0, 10, 9, 0, PrepareCommit, set(), 0, 0)))
    env.coordinator.handle_add_partitions_to_transaction(transactional_id, 0, 0, partitions, env.errors_callback)
    assert env.error == Errors.PRODUCER_FENCED


def test_should_append_new_metadata_to_log_on_add_partitions_when_partitions_added(env: _Env) -> None:
    env.validate_successful_add_partitions(Empty)


def test_should_respond_with_success_on_add_partitions_when_state_is_ongoing(env: _Env) -> None:
    env.validate_successful_add_partitions(Ongoing)


def test_should_respond_with_success_on_add_partitions_when_state_is_complete_commit(env: _Env) -> None:
    env.validate_successful_add_partitions(CompleteCommit)


def test_should_respond_with_success_on_add_partitions_when_state_is_complete_abort(env: _Env) -> None:
    env.validate_successful_add_partitions(CompleteAbort)


def test_should_respond_with_errors_none_on_add_partition_when_no_errors_and_partitions_the_same(env: _Env) -> None:
    env.stub_state(_epoch_and(_txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, Empty, partitions, 0, 0)))
    env.coordinator.handle_add_partitions_to_transaction(transactional_id, 0, 0, partitions, env.errors_callback)
    assert env.error == Errors.NONE
    assert env.state_calls() == 1


def test_should_respond_with_errors_none_on_add_partition_when_ongoing_verify_only_and_partitions_the_same(
        env: _Env) -> None:
    errors: dict[TopicPartition, Errors] = {}
    env.stub_state(_epoch_and(_txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, Ongoing, partitions, 0, 0)))
    env.coordinator.handle_verify_partitions_in_transaction(
        transactional_id, 0, 0, partitions, lambda result: errors.update(_errors_for_transaction(result)))
    assert errors
    assert all(e == Errors.NONE for e in errors.values())
    assert env.state_calls() == 1


def test_should_respond_with_invalid_txn_state_when_verify_only_and_partition_not_present(env: _Env) -> None:
    errors: dict[TopicPartition, Errors] = {}
    env.stub_state(_epoch_and(_txn(transactional_id, 0, 0, 0, NO_PRODUCER_EPOCH, 0, Empty, partitions, 0, 0)))
    extra_partitions = partitions | {TopicPartition("topic2", 0)}
    env.coordinator.handle_verify_partitions_in_transaction(
        transactional_id, 0, 0, extra_partitions, lambda result: errors.update(_errors_for_transaction(result)))
    assert errors[TopicPartition("topic2", 0)] == Errors.TRANSACTION_ABORTABLE
    assert errors[TopicPartition("topic1", 0)] == Errors.NONE
    assert env.state_calls() == 1


def test_should_reply_with_invalid_pid_mapping_on_end_txn_when_txn_id_doesnt_exist(env: _Env) -> None:
    env.stub_state((None, None))
    env.coordinator.handle_end_transaction(transactional_id, 0, 0, TransactionResult.COMMIT, env.errors_callback)
    assert env.error == Errors.INVALID_PRODUCER_ID_MAPPING
    assert env.state_calls() == 1


def test_should_reply_with_invalid_pid_mapping_on_end_txn_when_pid_dosent_match_mapped(env: _Env) -> None:
    env.stub_state(_epoch_and(_txn(transactional_id, 10, 10, 0, NO_PRODUCER_EPOCH, 0, Ongoing, set(), 0,
                                   env.time.milliseconds())))
    env.coordinator.handle_end_transaction(transactional_id, 0, 0, TransactionResult.COMMIT, env.errors_callback)
    assert env.error == Errors.INVALID_PRODUCER_ID_MAPPING
    assert env.state_calls() == 1


def test_should_reply_with_producer_fenced_on_end_txn_when_epoch_is_not_same_as_transaction(env: _Env) -> None:
    env.stub_state(_epoch_and(_txn(transactional_id, producer_id, producer_id, producer_epoch, producer_epoch - 1, 1,
                                   Ongoing, set(), 0, env.time.milliseconds())))
    env.coordinator.handle_end_transaction(transactional_id, producer_id, 0, TransactionResult.COMMIT,
                                           env.errors_callback)
    assert env.error == Errors.PRODUCER_FENCED
    assert env.state_calls() == 1


def _end_txn_in_state(env: _Env, state: TransactionState, result: TransactionResult, expected: Errors,
                      epoch: int = producer_epoch, last_epoch: int = producer_epoch - 1) -> None:
    env.stub_state(_epoch_and(_txn(transactional_id, producer_id, producer_id, epoch, last_epoch, 1, state, set(), 0,
                                   env.time.milliseconds())))
    env.coordinator.handle_end_transaction(transactional_id, producer_id, 1, result, env.errors_callback)
    assert env.error == expected
    assert env.state_calls() == 1


def test_should_return_ok_on_end_txn_when_status_is_complete_commit_and_result_is_commit(env: _Env) -> None:
    _end_txn_in_state(env, CompleteCommit, TransactionResult.COMMIT, Errors.NONE)


def test_should_return_ok_on_end_txn_when_status_is_complete_abort_and_result_is_abort(env: _Env) -> None:
    _end_txn_in_state(env, CompleteAbort, TransactionResult.ABORT, Errors.NONE)


def test_should_return_invalid_txn_request_on_end_txn_request_when_status_is_complete_abort_and_result_is_not_abort(
        env: _Env) -> None:
    _end_txn_in_state(env, CompleteAbort, TransactionResult.COMMIT, Errors.INVALID_TXN_STATE)


def test_should_return_invalid_txn_request_on_end_txn_request_when_status_is_complete_commit_and_result_is_not_commit(
        env: _Env) -> None:
    _end_txn_in_state(env, CompleteCommit, TransactionResult.ABORT, Errors.INVALID_TXN_STATE)


def test_should_return_concurrent_txn_request_on_end_txn_request_when_status_is_prepare_commit(env: _Env) -> None:
    _end_txn_in_state(env, PrepareCommit, TransactionResult.COMMIT, Errors.CONCURRENT_TRANSACTIONS)


def test_should_return_invalid_txn_request_on_end_txn_request_when_status_is_prepare_abort(env: _Env) -> None:
    _end_txn_in_state(env, PrepareAbort, TransactionResult.COMMIT, Errors.INVALID_TXN_STATE, epoch=1,
                      last_epoch=NO_PRODUCER_EPOCH)


def test_should_append_prepare_commit_to_log_on_end_txn_when_status_is_ongoing_and_result_is_commit(
        env: _Env) -> None:
    env.mock_prepare(PrepareCommit)
    env.coordinator.handle_end_transaction(transactional_id, producer_id, producer_epoch, TransactionResult.COMMIT,
                                           env.errors_callback)
    assert env.state_calls() == 1
    assert env.append_calls() == 1


def test_should_append_prepare_abort_to_log_on_end_txn_when_status_is_ongoing_and_result_is_abort(env: _Env) -> None:
    env.mock_prepare(PrepareAbort)
    env.coordinator.handle_end_transaction(transactional_id, producer_id, producer_epoch, TransactionResult.ABORT,
                                           env.errors_callback)
    assert env.state_calls() == 1
    assert env.append_calls() == 1


def test_should_respond_with_invalid_request_on_end_txn_when_transactional_id_is_null(env: _Env) -> None:
    env.coordinator.handle_end_transaction(None, 0, 0, TransactionResult.COMMIT, env.errors_callback)
    assert env.error == Errors.INVALID_REQUEST


def test_should_respond_with_invalid_request_on_end_txn_when_transactional_id_is_empty(env: _Env) -> None:
    env.stub_state((Errors.NOT_COORDINATOR, None))
    env.coordinator.handle_end_transaction("", 0, 0, TransactionResult.COMMIT, env.errors_callback)
    assert env.error == Errors.INVALID_REQUEST


def test_should_respond_with_not_coordinator_on_end_txn_when_is_not_coordinator_for_id(env: _Env) -> None:
    env.stub_state((Errors.NOT_COORDINATOR, None))
    env.coordinator.handle_end_transaction(transactional_id, 0, 0, TransactionResult.COMMIT, env.errors_callback)
    assert env.error == Errors.NOT_COORDINATOR


def test_should_respond_with_coordinator_load_in_progress_on_end_txn_when_coordinator_is_loading(env: _Env) -> None:
    env.stub_state((Errors.COORDINATOR_LOAD_IN_PROGRESS, None))
    env.coordinator.handle_end_transaction(transactional_id, 0, 0, TransactionResult.COMMIT, env.errors_callback)
    assert env.error == Errors.COORDINATOR_LOAD_IN_PROGRESS


def test_should_return_invalid_epoch_on_end_txn_when_epoch_is_larger(env: _Env) -> None:
    server_producer_epoch = 1
    env.verify_end_txn_epoch(server_producer_epoch, server_producer_epoch + 1)


def test_should_return_invalid_epoch_on_end_txn_when_epoch_is_smaller(env: _Env) -> None:
    server_producer_epoch = 1
    env.verify_end_txn_epoch(server_producer_epoch, server_producer_epoch - 1)


def test_should_increment_epoch_and_update_metadata_on_handle_init_pid_when_existing_empty_transaction(
        env: _Env) -> None:
    env.validate_increment_epoch_and_update_metadata(Empty)


def test_should_increment_epoch_and_update_metadata_on_handle_init_pid_when_existing_complete_transaction(
        env: _Env) -> None:
    env.validate_increment_epoch_and_update_metadata(CompleteAbort)


def test_should_increment_epoch_and_update_metadata_on_handle_init_pid_when_existing_complete_commit_transaction(
        env: _Env) -> None:
    env.validate_increment_epoch_and_update_metadata(CompleteCommit)


def test_should_wait_for_commit_to_complete_on_handle_init_pid_and_existing_transaction_in_prepare_commit_state(
        env: _Env) -> None:
    env.validate_responds_with_concurrent_transactions_on_init_pid_when_in_prepare_state(PrepareCommit)


def test_should_wait_for_commit_to_complete_on_handle_init_pid_and_existing_transaction_in_prepare_abort_state(
        env: _Env) -> None:
    env.validate_responds_with_concurrent_transactions_on_init_pid_when_in_prepare_state(PrepareAbort)


def test_should_abort_transaction_on_handle_init_pid_when_existing_transaction_in_ongoing_state(env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, producer_epoch - 1,
                        txn_timeout_ms, Ongoing, partitions, now, now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state(_epoch_and(txn_metadata))

    original_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch + 1, NO_PRODUCER_EPOCH,
                             txn_timeout_ms, Ongoing, partitions, now, now)
    env.stub_append(_answer_none)

    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)

    assert env.result == InitProducerIdResult(-1, -1, Errors.CONCURRENT_TRANSACTIONS)
    assert env.transaction_manager.validate_transaction_timeout_ms.call_count == 1
    assert env.state_calls() == 3
    assert env.append_calls(original_metadata.prepare_abort_or_commit(PrepareAbort, now)) == 1


def test_should_fail_to_abort_transaction_on_handle_init_pid_when_producer_epoch_is_smaller(env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, producer_epoch - 1,
                        txn_timeout_ms, Ongoing, partitions, now, now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    bumped_txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch + 2, producer_epoch - 1,
                               txn_timeout_ms, Ongoing, partitions, now, now)
    env.stub_state(_epoch_and(txn_metadata), _epoch_and(bumped_txn_metadata))

    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)

    assert env.result == InitProducerIdResult(-1, -1, Errors.PRODUCER_FENCED)
    assert env.transaction_manager.validate_transaction_timeout_ms.call_count == 1
    assert env.state_calls() == 2


def test_should_not_repeatedly_bump_epoch_due_to_init_pid_during_ongoing_txn_if_append_to_log_fails(
        env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                        Ongoing, partitions, now, now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.transaction_manager.put_transaction_state_if_not_exists.return_value = _epoch_and(txn_metadata)
    env.stub_state(_epoch_and(txn_metadata))

    original_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch + 1, NO_PRODUCER_EPOCH,
                             txn_timeout_ms, Ongoing, partitions, now, now)
    txn_transit_metadata = original_metadata.prepare_abort_or_commit(PrepareAbort, now)

    def fail(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
        callback(Errors.NOT_ENOUGH_REPLICAS)
        txn_metadata.pending_state = None

    def succeed(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
        callback(Errors.NONE)
        # what appendTransactionToLog's success would do
        txn_metadata.complete_transition_to(txn_transit_metadata)
        txn_metadata.prepare_complete(env.time.milliseconds())
    env.stub_append(fail, fail, succeed, transit=txn_transit_metadata)

    # the first two attempts bump the epoch once only
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(-1, -1, Errors.NOT_ENOUGH_REPLICAS)
    assert txn_metadata.producer_epoch == producer_epoch + 1
    assert txn_metadata.has_failed_epoch_fence

    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(-1, -1, Errors.NOT_ENOUGH_REPLICAS)
    assert txn_metadata.producer_epoch == producer_epoch + 1
    assert txn_metadata.has_failed_epoch_fence

    # the successful one does not bump it further
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(-1, -1, Errors.CONCURRENT_TRANSACTIONS)
    assert txn_metadata.producer_epoch == producer_epoch + 1
    assert not txn_metadata.has_failed_epoch_fence

    assert env.transaction_manager.validate_transaction_timeout_ms.call_count == 3
    assert env.state_calls() == 9
    assert env.append_calls(txn_transit_metadata) == 3


def test_should_use_last_epoch_to_fence_when_epochs_are_exhausted(env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, SHORT_MAX_VALUE - 1, SHORT_MAX_VALUE - 2,
                        txn_timeout_ms, Ongoing, partitions, now, now)
    assert txn_metadata.is_producer_epoch_exhausted
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True

    post_fence_txn_metadata = _txn(transactional_id, producer_id, producer_id, SHORT_MAX_VALUE, NO_PRODUCER_EPOCH,
                                   txn_timeout_ms, PrepareAbort, partitions, now, now)
    env.stub_state(_epoch_and(txn_metadata), _epoch_and(txn_metadata), _epoch_and(post_fence_txn_metadata))

    expected = TxnTransitMetadata(producer_id=producer_id, last_producer_id=producer_id,
                                  producer_epoch=SHORT_MAX_VALUE, last_producer_epoch=NO_PRODUCER_EPOCH,
                                  txn_timeout_ms=txn_timeout_ms, txn_state=PrepareAbort,
                                  topic_partitions=frozenset(partitions), txn_start_timestamp=now,
                                  txn_last_update_timestamp=now)
    env.stub_append(_answer_none, transit=expected)

    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert txn_metadata.producer_epoch == SHORT_MAX_VALUE

    assert env.result == InitProducerIdResult(-1, -1, Errors.CONCURRENT_TRANSACTIONS)
    assert env.transaction_manager.validate_transaction_timeout_ms.call_count == 1
    assert env.state_calls() == 3
    assert env.append_calls(expected) == 1


def test_init_producer_id_with_no_last_producer_data(env: _Env) -> None:
    # no last producer data (written by an older broker): the retry case fails
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, NO_PRODUCER_ID, producer_epoch + 1, NO_PRODUCER_EPOCH,
                        txn_timeout_ms, Empty, partitions, now, now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state(_epoch_and(txn_metadata))

    # the producer carries on after another one was initialized
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, producer_epoch),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, Errors.PRODUCER_FENCED)


def test_fence_producer_when_mapping_exists_with_different_producer_id(env: _Env) -> None:
    # the transactional id maps to a newer producer id
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id + 1, producer_id, producer_epoch, producer_epoch - 1,
                        txn_timeout_ms, Empty, partitions, now, now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state(_epoch_and(txn_metadata))

    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, producer_epoch),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, Errors.PRODUCER_FENCED)


def test_init_producer_id_with_current_epoch_provided(env: _Env) -> None:
    env.mock_pid_generator()
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, 10, 9, txn_timeout_ms, Empty, partitions, now,
                        now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state(_epoch_and(txn_metadata))

    def answer(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
        callback(Errors.NONE)
        txn_metadata.pending_state = None
    env.stub_append(answer)

    # initializing again succeeds and bumps the epoch
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, 10),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(producer_id, 11, Errors.NONE)

    # a retry whose first answer was lost
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, 10),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(producer_id, 11, Errors.NONE)


def test_init_producer_id_stale_current_epoch_provided(env: _Env) -> None:
    env.mock_pid_generator()
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, 10, 9, txn_timeout_ms, Empty, partitions, now,
                        now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state(_epoch_and(txn_metadata))

    def answer(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
        callback(Errors.NONE)
        txn_metadata.pending_state = None
        txn_metadata.producer_epoch = new_metadata.producer_epoch
        txn_metadata.last_producer_epoch = new_metadata.last_producer_epoch
    env.stub_append(answer)

    # a new producer at epoch 10 gets 11
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, None,
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(producer_id, 11, Errors.NONE)

    # the old producer tries to carry on from 10
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, 10),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, Errors.PRODUCER_FENCED)


def _rotation_env(env: _Env) -> TransactionMetadata:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, SHORT_MAX_VALUE - 1, SHORT_MAX_VALUE - 2,
                        txn_timeout_ms, Empty, partitions, now, now)
    env.pid_generator.generate_producer_id.return_value = producer_id + 1
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state(_epoch_and(txn_metadata))

    def answer(new_metadata: TxnTransitMetadata, callback: Callable[[Errors], None]) -> None:
        callback(Errors.NONE)
        txn_metadata.pending_state = None
        txn_metadata.producer_id = new_metadata.producer_id
        txn_metadata.last_producer_id = new_metadata.last_producer_id
        txn_metadata.producer_epoch = new_metadata.producer_epoch
        txn_metadata.last_producer_epoch = new_metadata.last_producer_epoch
    env.stub_append(answer)
    return txn_metadata


def test_retry_init_producer_id_after_producer_id_rotation(env: _Env) -> None:
    _rotation_env(env)
    # the bump rotates the producer id
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, SHORT_MAX_VALUE - 1),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(producer_id + 1, 0, Errors.NONE)

    # the producer retries its old request
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, SHORT_MAX_VALUE - 1),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(producer_id + 1, 0, Errors.NONE)


def test_init_producer_id_with_invalid_epoch_after_producer_id_rotation(env: _Env) -> None:
    _rotation_env(env)
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, SHORT_MAX_VALUE - 1),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(producer_id + 1, 0, Errors.NONE)

    # the old producer id with a stale epoch is fenced
    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, SHORT_MAX_VALUE - 2),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, Errors.PRODUCER_FENCED)


def test_should_remove_transactions_for_partition_on_emigration(env: _Env) -> None:
    env.coordinator.on_resignation(0, coordinator_epoch)
    env.transaction_manager.remove_transactions_for_txn_topic_partition.assert_called_once_with(0, coordinator_epoch)
    env.transaction_marker_channel_manager.remove_markers_for_txn_topic_partition.assert_called_once_with(0)


def _timed_out(env: _Env) -> None:
    env.transaction_manager.timed_out_transactions.return_value = [
        TransactionalIdAndProducerIdEpoch(transactional_id, producer_id, producer_epoch)]


def test_should_abort_expired_transactions_in_ongoing_state_and_bump_epoch(env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                        Ongoing, partitions, now, now)
    _timed_out(env)
    env.stub_state(_epoch_and(txn_metadata))

    expected_transition = TxnTransitMetadata(producer_id, producer_id, producer_epoch + 1, NO_PRODUCER_EPOCH,
                                             txn_timeout_ms, PrepareAbort, frozenset(partitions), now,
                                             now + ABORT_INTERVAL_MS)
    env.stub_append(lambda new_metadata, callback: None, transit=expected_transition)

    env.coordinator.startup(lambda: transaction_state_partition_count, False)
    env.time.sleep(ABORT_INTERVAL_MS)
    env.scheduler.tick()
    env.transaction_manager.timed_out_transactions.assert_called_once_with()
    assert env.state_calls() == 2
    assert env.append_calls(expected_transition) == 1


def test_should_not_accept_smaller_epoch_during_transaction_expiration(env: _Env) -> None:
    now = env.time.milliseconds()
    _timed_out(env)
    # the later stub wins: the metadata's epoch is higher than the timed-out one
    bumped_txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch + 2, NO_PRODUCER_EPOCH,
                               txn_timeout_ms, Ongoing, partitions, now, now)
    env.stub_state(_epoch_and(bumped_txn_metadata))

    def check_on_end_transaction_complete(txn_id_and_pid_epoch: TransactionalIdAndProducerIdEpoch
                                          ) -> Callable[[Errors], None]:
        def check(error: Errors) -> None:
            assert error == Errors.PRODUCER_FENCED
        return check
    env.coordinator.abort_timed_out_transactions(check_on_end_transaction_complete)

    env.transaction_manager.timed_out_transactions.assert_called_once_with()
    assert env.state_calls() == 2


def test_should_not_abort_expired_transactions_that_have_a_pending_state_transition(env: _Env) -> None:
    now = env.time.milliseconds()
    metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                    Ongoing, partitions, now, now)
    metadata.prepare_abort_or_commit(PrepareCommit, now)
    _timed_out(env)
    env.stub_state(_epoch_and(metadata))

    env.coordinator.startup(lambda: transaction_state_partition_count, False)
    env.time.sleep(ABORT_INTERVAL_MS)
    env.scheduler.tick()
    env.transaction_manager.timed_out_transactions.assert_called_once_with()
    assert env.state_calls() == 1


def test_should_not_bump_epoch_when_aborting_expired_transaction_if_append_to_log_fails(env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                        Ongoing, partitions, now, now)
    _timed_out(env)
    txn_metadata_after_append_failure = _txn(transactional_id, producer_id, producer_id, producer_epoch + 1,
                                             NO_PRODUCER_EPOCH, txn_timeout_ms, Ongoing, partitions, now, now)
    env.stub_state(_epoch_and(txn_metadata), _epoch_and(txn_metadata), _epoch_and(txn_metadata_after_append_failure))

    bumped_epoch = producer_epoch + 1
    expected_transition = TxnTransitMetadata(producer_id, producer_id, bumped_epoch, NO_PRODUCER_EPOCH,
                                             txn_timeout_ms, PrepareAbort, frozenset(partitions), now,
                                             now + ABORT_INTERVAL_MS)
    env.stub_append(lambda new_metadata, callback: callback(Errors.NOT_ENOUGH_REPLICAS), transit=expected_transition)

    env.coordinator.startup(lambda: transaction_state_partition_count, False)
    env.time.sleep(ABORT_INTERVAL_MS)
    env.scheduler.tick()

    env.transaction_manager.timed_out_transactions.assert_called_once_with()
    assert env.state_calls() == 3
    assert env.append_calls(expected_transition) == 1

    assert txn_metadata_after_append_failure.producer_epoch == producer_epoch + 1
    assert txn_metadata_after_append_failure.has_failed_epoch_fence


def test_should_not_bump_epoch_with_pending_transaction(env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                        Ongoing, partitions, now, now)
    txn_metadata.prepare_abort_or_commit(PrepareCommit, now)
    env.transaction_manager.validate_transaction_timeout_ms.return_value = True
    env.stub_state(_epoch_and(txn_metadata))

    env.coordinator.handle_init_producer_id(transactional_id, txn_timeout_ms, (producer_id, 10),
                                            env.init_producer_id_mock_callback)
    assert env.result == InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, Errors.CONCURRENT_TRANSACTIONS)
    assert env.transaction_manager.validate_transaction_timeout_ms.call_count == 1
    assert env.state_calls() == 1


def test_describe_transactions_with_empty_transactional_id(env: _Env) -> None:
    env.coordinator.startup(lambda: transaction_state_partition_count, enable_transactional_id_expiration=False)
    result = env.coordinator.handle_describe_transactions("")
    assert result["transactional_id"] == ""
    assert result["error_code"] == Errors.INVALID_REQUEST


def test_describe_transactions_with_expiring_transactional_id(env: _Env) -> None:
    env.coordinator.startup(lambda: transaction_state_partition_count, enable_transactional_id_expiration=False)
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                        Dead, set(), now, now)
    env.stub_state(_epoch_and(txn_metadata))
    result = env.coordinator.handle_describe_transactions(transactional_id)
    assert result["transactional_id"] == transactional_id
    assert result["error_code"] == Errors.TRANSACTIONAL_ID_NOT_FOUND


def test_describe_transactions_while_coordinator_loading(env: _Env) -> None:
    env.stub_state((Errors.COORDINATOR_LOAD_IN_PROGRESS, None))
    env.coordinator.startup(lambda: transaction_state_partition_count, enable_transactional_id_expiration=False)
    result = env.coordinator.handle_describe_transactions(transactional_id)
    assert result["transactional_id"] == transactional_id
    assert result["error_code"] == Errors.COORDINATOR_LOAD_IN_PROGRESS
    assert env.state_calls() == 1


def test_describe_transactions(env: _Env) -> None:
    now = env.time.milliseconds()
    txn_metadata = _txn(transactional_id, producer_id, producer_id, producer_epoch, NO_PRODUCER_EPOCH, txn_timeout_ms,
                        Ongoing, partitions, now, now)
    env.stub_state(_epoch_and(txn_metadata))

    env.coordinator.startup(lambda: transaction_state_partition_count, enable_transactional_id_expiration=False)
    result = env.coordinator.handle_describe_transactions(transactional_id)
    assert result["error_code"] == Errors.NONE
    assert result["transactional_id"] == transactional_id
    assert result["producer_id"] == producer_id
    assert result["producer_epoch"] == producer_epoch
    assert result["transaction_timeout"] == txn_timeout_ms
    assert result["transaction_start_time"] == datetime.fromtimestamp(now / 1000, UTC)

    added_partitions = {TopicPartition(topic_data["topic"], p) for topic_data in result["topics"]
                        for p in topic_data["partitions"]}
    assert added_partitions == partitions
    assert env.state_calls() == 1
