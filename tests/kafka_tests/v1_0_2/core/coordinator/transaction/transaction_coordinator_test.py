"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionCoordinatorTest.scala (Kafka 1.0.2).

Kafka builds the coordinator on three EasyMock nice mocks (the ProducerIdManager, the TransactionStateManager and
the TransactionMarkerChannelManager). `_NiceMock` stands in for them: a test tells it what a call answers
(`expect(method, *matchers)` then `.and_return(value)` or `.and_answer(fun)`, `.times(n)`, `.any_times()`; an
expectation is once unless told otherwise), an argument matcher is a value (EasyMock.eq), `ANY`
(EasyMock.anyObject/anyInt) or a `Capture` (EasyMock.capture), and a call no expectation is left for gets the nice
mock's empty answer. `verify()` fails, as EasyMock.verify does, when an expectation was called fewer times than it
asked for. An answer calls back through the captured callback, the way Kafka's IAnswers do.

Kafka's `Either[Errors, X]` is the port's `(error, x)`: `Left(e)` is `(e, None)`, `Right(x)` is `(None, x)`. The
port's `appendTransactionToLog` is called without the `retryOnError` argument (it keeps its default), so its
expectations match four arguments where Kafka's match five, the fifth being `anyObject()`. The port's coordinator is
given its producer id manager the way Kafka's is (the `producer_id_manager` argument).

Kafka's coordinator traces nothing; the port's would, had an earlier test in the process installed tracing
(`setup_tracing`), and its span describers read the state manager, i.e. call the mocks. Each case runs with no
process tracing, as Kafka's does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kafka_edu.tracing import provider
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_coordinator import (
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    SHORT_MAX_VALUE,
    CompleteAbort,
    CompleteCommit,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager import (
    DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS,
    CoordinatorEpochAndTxnMetadata,
    TransactionalIdAndProducerIdEpoch,
    TransactionConfig,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from tests.kafka_tests.mock_scheduler import MockScheduler
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionCoordinatorTest.scala",
    cases=[
        "shouldReturnInvalidRequestWhenTransactionalIdIsEmpty",
        "shouldAcceptInitPidAndReturnNextPidWhenTransactionalIdIsNull",
        "shouldInitPidWithEpochZeroForNewTransactionalId",
        "shouldGenerateNewProducerIdIfEpochsExhausted",
        "shouldRespondWithNotCoordinatorOnInitPidWhenNotCoordinator",
        "shouldRespondWithCoordinatorLoadInProgressOnInitPidWhenCoordintorLoading",
        "shouldRespondWithInvalidPidMappingOnAddPartitionsToTransactionWhenTransactionalIdNotPresent",
        "shouldRespondWithInvalidRequestAddPartitionsToTransactionWhenTransactionalIdIsEmpty",
        "shouldRespondWithInvalidRequestAddPartitionsToTransactionWhenTransactionalIdIsNull",
        "shouldRespondWithNotCoordinatorOnAddPartitionsWhenNotCoordinator",
        "shouldRespondWithCoordinatorLoadInProgressOnAddPartitionsWhenCoordintorLoading",
        "shouldRespondWithConcurrentTransactionsOnAddPartitionsWhenStateIsPrepareCommit",
        "shouldRespondWithConcurrentTransactionOnAddPartitionsWhenStateIsPrepareAbort",
        "shouldRespondWithInvalidTnxProduceEpochOnAddPartitionsWhenEpochsAreDifferent",
        "shouldAppendNewMetadataToLogOnAddPartitionsWhenPartitionsAdded",
        "shouldRespondWithSuccessOnAddPartitionsWhenStateIsOngoing",
        "shouldRespondWithSuccessOnAddPartitionsWhenStateIsCompleteCommit",
        "shouldRespondWithSuccessOnAddPartitionsWhenStateIsCompleteAbort",
        "shouldRespondWithErrorsNoneOnAddPartitionWhenNoErrorsAndPartitionsTheSame",
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
        "shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingEmptyTransaction",
        "shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingCompleteTransaction",
        "shouldIncrementEpochAndUpdateMetadataOnHandleInitPidWhenExistingCompleteCommitTransaction",
        "shouldWaitForCommitToCompleteOnHandleInitPidAndExistingTransactionInPrepareCommitState",
        "shouldWaitForCommitToCompleteOnHandleInitPidAndExistingTransactionInPrepareAbortState",
        "shouldAbortTransactionOnHandleInitPidWhenExistingTransactionInOngoingState",
        "shouldUseLastEpochToFenceWhenEpochsAreExhausted",
        "shouldRemoveTransactionsForPartitionOnEmigration",
        "shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch",
        "shouldNotAbortExpiredTransactionsThatHaveAPendingStateTransition",
    ],
)

BROKER_ID = 0
COORDINATOR_EPOCH = 0
TRANSACTIONAL_ID = "known"
PRODUCER_ID = 10
PRODUCER_EPOCH = 1
TXN_TIMEOUT_MS = 1
PARTITIONS = frozenset({TopicPartition("topic1", 0)})


# -- EasyMock's nice mocks, in small ---------------------------------------------------------------------------------

ANY = object()  # EasyMock.anyObject() / anyInt()


class Capture:
    """EasyMock.newCapture(): what the matched call passed for this argument."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    @property
    def has_captured(self) -> bool:
        return bool(self.values)

    @property
    def value(self) -> Any:
        assert self.values, "nothing captured"
        return self.values[-1]


class _Expectation:
    def __init__(self, method: str, matchers: tuple[Any, ...]) -> None:
        self.method = method
        self.matchers = matchers
        self.min_calls, self.max_calls = 1, 1  # EasyMock: once unless told otherwise
        self.calls = 0
        self.answer: Callable[[], Any] = lambda: None

    def and_return(self, value: Any) -> _Expectation:
        self.answer = lambda: value
        return self

    def and_answer(self, answer: Callable[[], Any]) -> _Expectation:
        self.answer = answer
        return self

    def times(self, count: int) -> _Expectation:
        self.min_calls = self.max_calls = count
        return self

    def once(self) -> _Expectation:
        return self.times(1)

    def any_times(self) -> _Expectation:
        self.min_calls, self.max_calls = 0, None
        return self

    def matches(self, method: str, args: tuple[Any, ...]) -> bool:
        if method != self.method or len(args) != len(self.matchers):
            return False
        if self.max_calls is not None and self.calls >= self.max_calls:
            return False
        return all(m is ANY or isinstance(m, Capture) or m == a for m, a in zip(self.matchers, args, strict=True))


class _NiceMock:
    """EasyMock.createNiceMock: answers what it was told to; any other call gets `defaults`' answer (None unless
    given: Kafka's nice mock answers false, 0 or null)."""

    def __init__(self, name: str, defaults: dict[str, Any] | None = None) -> None:
        self._name = name
        self._defaults = dict(defaults or {})
        self._expectations: list[_Expectation] = []
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def expect(self, method: str, *matchers: Any) -> _Expectation:
        expectation = _Expectation(method, matchers)
        self._expectations.append(expectation)
        return expectation

    def __getattr__(self, method: str) -> Callable[..., Any]:
        if method.startswith("_"):
            raise AttributeError(method)
        return lambda *args: self._call(method, args)

    def _call(self, method: str, args: tuple[Any, ...]) -> Any:
        self.calls.append((method, args))
        for expectation in self._expectations:
            if expectation.matches(method, args):
                expectation.calls += 1
                for matcher, arg in zip(expectation.matchers, args, strict=True):
                    if isinstance(matcher, Capture):
                        matcher.values.append(arg)
                return expectation.answer()
        return self._defaults.get(method)

    def verify(self) -> None:
        """EasyMock.verify: every expectation was called at least as often as it asked for."""
        for e in self._expectations:
            assert e.calls >= e.min_calls, (f"{self._name}.{e.method}{e.matchers}: expected {e.min_calls} call(s), "
                                            f"actual {e.calls}")


def _right(value: Any) -> tuple[None, Any]:
    return None, value


def _left(error: Errors) -> tuple[Errors, None]:
    return error, None


def _init_result(producer_id: int, producer_epoch: int, error: Errors) -> InitProducerIdResult:
    return InitProducerIdResult(producer_id, producer_epoch, error)


# -- the test class's fields ----------------------------------------------------------------------------------------

class _World:
    def __init__(self) -> None:
        self.time = MockTime()
        self.next_pid = 0
        self.pid_manager = _NiceMock("pidManager")
        self.transaction_manager = _NiceMock("transactionManager", {"validate_transaction_timeout_ms": False,
                                                                    "partition_for": 0})
        self.transaction_marker_channel_manager = _NiceMock("transactionMarkerChannelManager")
        self.captured_txn = Capture()
        self.captured_errors_callback = Capture()
        self.scheduler = MockScheduler(self.time)
        self.coordinator = TransactionCoordinator(
            BROKER_ID, None, txn_config=TransactionConfig(), scheduler=self.scheduler,
            txn_manager=self.transaction_manager,  # type: ignore[arg-type]
            txn_marker_channel_manager=self.transaction_marker_channel_manager,  # type: ignore[arg-type]
            time_ms=self.time.milliseconds, producer_id_manager=self.pid_manager)
        self.result: InitProducerIdResult | None = None
        self.error = Errors.NONE

    def mock_pid_manager(self) -> None:
        def answer() -> int:
            self.next_pid += 1
            return self.next_pid - 1

        self.pid_manager.expect("generate_producer_id").and_answer(answer).any_times()

    def init_pid_generic_mocks(self) -> None:
        self.mock_pid_manager()
        self.transaction_manager.expect("validate_transaction_timeout_ms", ANY).and_return(True).any_times()

    def run_captured_callback(self, error: Errors = Errors.NONE) -> Callable[[], None]:
        """An IAnswer that calls the captured errors callback with `error`."""
        return lambda: self.captured_errors_callback.value(error)

    def init_producer_id_mock_callback(self, ret: InitProducerIdResult) -> None:
        self.result = ret

    def errors_callback(self, ret: Errors) -> None:
        self.error = ret

    def expect_transaction_state(self, metadata: TransactionMetadata) -> _Expectation:
        return self.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(
            _right(CoordinatorEpochAndTxnMetadata(COORDINATOR_EPOCH, metadata)))


@pytest.fixture
def w(monkeypatch: pytest.MonkeyPatch) -> _World:
    monkeypatch.setattr(provider, "_current", None)  # no process tracing calling into the mocks
    return _World()


# -- InitProducerId -------------------------------------------------------------------------------------------------

def test_should_return_invalid_request_when_transactional_id_is_empty(w: _World) -> None:
    w.mock_pid_manager()
    w.coordinator.handle_init_producer_id("", TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert w.result == _init_result(-1, -1, Errors.INVALID_REQUEST)
    w.coordinator.handle_init_producer_id("", TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert w.result == _init_result(-1, -1, Errors.INVALID_REQUEST)


def test_should_accept_init_pid_and_return_next_pid_when_transactional_id_is_null(w: _World) -> None:
    w.mock_pid_manager()
    w.coordinator.handle_init_producer_id(None, TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert w.result == _init_result(0, 0, Errors.NONE)
    w.coordinator.handle_init_producer_id(None, TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert w.result == _init_result(1, 0, Errors.NONE)


def test_should_init_pid_with_epoch_zero_for_new_transactional_id(w: _World) -> None:
    w.init_pid_generic_mocks()
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(_right(None)).once()

    def put_answer() -> tuple[None, CoordinatorEpochAndTxnMetadata]:
        assert w.captured_txn.has_captured
        return _right(CoordinatorEpochAndTxnMetadata(COORDINATOR_EPOCH, w.captured_txn.value))

    w.transaction_manager.expect("put_transaction_state_if_not_exists", TRANSACTIONAL_ID,
                                 w.captured_txn).and_answer(put_answer).once()
    w.transaction_manager.expect("append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH, ANY,
                                 w.captured_errors_callback).and_answer(w.run_captured_callback()).any_times()

    w.coordinator.handle_init_producer_id(TRANSACTIONAL_ID, TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert w.result == _init_result(w.next_pid - 1, 0, Errors.NONE)


def test_should_generate_new_producer_id_if_epochs_exhausted(w: _World) -> None:
    w.init_pid_generic_mocks()
    txn_metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, SHORT_MAX_VALUE - 1, TXN_TIMEOUT_MS, Empty,
                                       set(), w.time.milliseconds(), w.time.milliseconds())
    w.expect_transaction_state(txn_metadata)
    w.transaction_manager.expect("append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH, ANY,
                                 w.captured_errors_callback).and_answer(w.run_captured_callback())

    w.coordinator.handle_init_producer_id(TRANSACTIONAL_ID, TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert w.result is not None
    assert w.result.producer_id != PRODUCER_ID
    assert w.result.producer_epoch == 0
    assert w.result.error == Errors.NONE


def _init_pid_fails_with(w: _World, error: Errors) -> None:
    w.transaction_manager.expect("validate_transaction_timeout_ms", ANY).and_return(True).any_times()
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(_left(error))
    w.coordinator.handle_init_producer_id(TRANSACTIONAL_ID, TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert w.result == _init_result(-1, -1, error)


def test_should_respond_with_not_coordinator_on_init_pid_when_not_coordinator(w: _World) -> None:
    _init_pid_fails_with(w, Errors.NOT_COORDINATOR)


def test_should_respond_with_coordinator_load_in_progress_on_init_pid_when_coordintor_loading(w: _World) -> None:
    _init_pid_fails_with(w, Errors.COORDINATOR_LOAD_IN_PROGRESS)


# -- AddPartitionsToTxn ---------------------------------------------------------------------------------------------

def test_should_respond_with_invalid_pid_mapping_on_add_partitions_to_transaction_when_transactional_id_not_present(
        w: _World) -> None:
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(_right(None))
    w.coordinator.handle_add_partitions_to_transaction(TRANSACTIONAL_ID, 0, 1, PARTITIONS, w.errors_callback)
    assert w.error == Errors.INVALID_PRODUCER_ID_MAPPING


def test_should_respond_with_invalid_request_add_partitions_to_transaction_when_transactional_id_is_empty(
        w: _World) -> None:
    w.coordinator.handle_add_partitions_to_transaction("", 0, 1, PARTITIONS, w.errors_callback)
    assert w.error == Errors.INVALID_REQUEST


def test_should_respond_with_invalid_request_add_partitions_to_transaction_when_transactional_id_is_null(
        w: _World) -> None:
    w.coordinator.handle_add_partitions_to_transaction(None, 0, 1, PARTITIONS, w.errors_callback)
    assert w.error == Errors.INVALID_REQUEST


def test_should_respond_with_not_coordinator_on_add_partitions_when_not_coordinator(w: _World) -> None:
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(_left(Errors.NOT_COORDINATOR))
    w.coordinator.handle_add_partitions_to_transaction(TRANSACTIONAL_ID, 0, 1, PARTITIONS, w.errors_callback)
    assert w.error == Errors.NOT_COORDINATOR


def test_should_respond_with_coordinator_load_in_progress_on_add_partitions_when_coordintor_loading(
        w: _World) -> None:
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(
        _left(Errors.COORDINATOR_LOAD_IN_PROGRESS))
    w.coordinator.handle_add_partitions_to_transaction(TRANSACTIONAL_ID, 0, 1, PARTITIONS, w.errors_callback)
    assert w.error == Errors.COORDINATOR_LOAD_IN_PROGRESS


def _validate_concurrent_transactions(w: _World, state: TransactionState) -> None:
    w.expect_transaction_state(TransactionMetadata(TRANSACTIONAL_ID, 0, 0, 0, state, set(), 0, 0))
    w.coordinator.handle_add_partitions_to_transaction(TRANSACTIONAL_ID, 0, 0, PARTITIONS, w.errors_callback)
    assert w.error == Errors.CONCURRENT_TRANSACTIONS


def test_should_respond_with_concurrent_transactions_on_add_partitions_when_state_is_prepare_commit(
        w: _World) -> None:
    _validate_concurrent_transactions(w, PrepareCommit)


def test_should_respond_with_concurrent_transaction_on_add_partitions_when_state_is_prepare_abort(w: _World) -> None:
    _validate_concurrent_transactions(w, PrepareAbort)


def test_should_respond_with_invalid_tnx_produce_epoch_on_add_partitions_when_epochs_are_different(
        w: _World) -> None:
    w.expect_transaction_state(TransactionMetadata(TRANSACTIONAL_ID, 0, 10, 0, PrepareCommit, set(), 0, 0))
    w.coordinator.handle_add_partitions_to_transaction(TRANSACTIONAL_ID, 0, 0, PARTITIONS, w.errors_callback)
    assert w.error == Errors.INVALID_PRODUCER_EPOCH


def _validate_successful_add_partitions(w: _World, previous_state: TransactionState) -> None:
    txn_metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, previous_state,
                                       set(), w.time.milliseconds(), w.time.milliseconds())
    w.expect_transaction_state(txn_metadata)
    w.transaction_manager.expect("append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH, ANY,
                                 w.captured_errors_callback)

    w.coordinator.handle_add_partitions_to_transaction(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, PARTITIONS,
                                                       w.errors_callback)
    w.transaction_manager.verify()


def test_should_append_new_metadata_to_log_on_add_partitions_when_partitions_added(w: _World) -> None:
    _validate_successful_add_partitions(w, Empty)


def test_should_respond_with_success_on_add_partitions_when_state_is_ongoing(w: _World) -> None:
    _validate_successful_add_partitions(w, Ongoing)


def test_should_respond_with_success_on_add_partitions_when_state_is_complete_commit(w: _World) -> None:
    _validate_successful_add_partitions(w, CompleteCommit)


def test_should_respond_with_success_on_add_partitions_when_state_is_complete_abort(w: _World) -> None:
    _validate_successful_add_partitions(w, CompleteAbort)


def test_should_respond_with_errors_none_on_add_partition_when_no_errors_and_partitions_the_same(w: _World) -> None:
    w.expect_transaction_state(TransactionMetadata(TRANSACTIONAL_ID, 0, 0, 0, Empty, PARTITIONS, 0, 0))
    w.coordinator.handle_add_partitions_to_transaction(TRANSACTIONAL_ID, 0, 0, PARTITIONS, w.errors_callback)
    assert w.error == Errors.NONE
    w.transaction_manager.verify()


# -- EndTxn ---------------------------------------------------------------------------------------------------------

def test_should_reply_with_invalid_pid_mapping_on_end_txn_when_txn_id_doesnt_exist(w: _World) -> None:
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(_right(None))
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, 0, 0, TransactionResult.COMMIT, w.errors_callback)
    assert w.error == Errors.INVALID_PRODUCER_ID_MAPPING
    w.transaction_manager.verify()


def test_should_reply_with_invalid_pid_mapping_on_end_txn_when_pid_dosent_match_mapped(w: _World) -> None:
    w.expect_transaction_state(TransactionMetadata(TRANSACTIONAL_ID, 10, 0, 0, Ongoing, set(), 0,
                                                   w.time.milliseconds()))
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, 0, 0, TransactionResult.COMMIT, w.errors_callback)
    assert w.error == Errors.INVALID_PRODUCER_ID_MAPPING
    w.transaction_manager.verify()


def test_should_reply_with_producer_fenced_on_end_txn_when_epoch_is_not_same_as_transaction(w: _World) -> None:
    w.expect_transaction_state(TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, 1, 1, Ongoing, set(), 0,
                                                   w.time.milliseconds()))
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, PRODUCER_ID, 0, TransactionResult.COMMIT,
                                         w.errors_callback)
    assert w.error == Errors.INVALID_PRODUCER_EPOCH
    w.transaction_manager.verify()


def _end_txn_in_state(w: _World, state: TransactionState, result: TransactionResult, expected: Errors) -> None:
    w.expect_transaction_state(TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, 1, 1, state, set(), 0,
                                                   w.time.milliseconds()))
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, PRODUCER_ID, 1, result, w.errors_callback)
    assert w.error == expected
    w.transaction_manager.verify()


def test_should_return_ok_on_end_txn_when_status_is_complete_commit_and_result_is_commit(w: _World) -> None:
    _end_txn_in_state(w, CompleteCommit, TransactionResult.COMMIT, Errors.NONE)


def test_should_return_ok_on_end_txn_when_status_is_complete_abort_and_result_is_abort(w: _World) -> None:
    _end_txn_in_state(w, CompleteAbort, TransactionResult.ABORT, Errors.NONE)


def test_should_return_invalid_txn_request_on_end_txn_request_when_status_is_complete_abort_and_result_is_not_abort(
        w: _World) -> None:
    _end_txn_in_state(w, CompleteAbort, TransactionResult.COMMIT, Errors.INVALID_TXN_STATE)


def test_should_return_invalid_txn_request_on_end_txn_request_when_status_is_complete_commit_and_result_is_not_commit(
        w: _World) -> None:
    _end_txn_in_state(w, CompleteCommit, TransactionResult.ABORT, Errors.INVALID_TXN_STATE)


def test_should_return_concurrent_txn_request_on_end_txn_request_when_status_is_prepare_commit(w: _World) -> None:
    _end_txn_in_state(w, PrepareCommit, TransactionResult.COMMIT, Errors.CONCURRENT_TRANSACTIONS)


def test_should_return_invalid_txn_request_on_end_txn_request_when_status_is_prepare_abort(w: _World) -> None:
    _end_txn_in_state(w, PrepareAbort, TransactionResult.COMMIT, Errors.INVALID_TXN_STATE)


def _mock_prepare(w: _World, transaction_state: TransactionState, run_callback: bool = False) -> TransactionMetadata:
    now = w.time.milliseconds()
    original_metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, Ongoing,
                                            PARTITIONS, now, now)
    transition = TxnTransitMetadata(PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, transaction_state, PARTITIONS, now,
                                    now)
    w.expect_transaction_state(original_metadata).once()

    def answer() -> None:
        if run_callback:
            w.captured_errors_callback.value(Errors.NONE)

    w.transaction_manager.expect("append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH, transition,
                                 w.captured_errors_callback).and_answer(answer).once()
    return TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, transaction_state,
                               PARTITIONS, w.time.milliseconds(), w.time.milliseconds())


def test_should_append_prepare_commit_to_log_on_end_txn_when_status_is_ongoing_and_result_is_commit(
        w: _World) -> None:
    _mock_prepare(w, PrepareCommit)
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TransactionResult.COMMIT,
                                         w.errors_callback)
    w.transaction_manager.verify()


def test_should_append_prepare_abort_to_log_on_end_txn_when_status_is_ongoing_and_result_is_abort(w: _World) -> None:
    _mock_prepare(w, PrepareAbort)
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TransactionResult.ABORT,
                                         w.errors_callback)
    w.transaction_manager.verify()


def test_should_respond_with_invalid_request_on_end_txn_when_transactional_id_is_null(w: _World) -> None:
    w.coordinator.handle_end_transaction(None, 0, 0, TransactionResult.COMMIT, w.errors_callback)
    assert w.error == Errors.INVALID_REQUEST


def test_should_respond_with_invalid_request_on_end_txn_when_transactional_id_is_empty(w: _World) -> None:
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(_left(Errors.NOT_COORDINATOR))
    w.coordinator.handle_end_transaction("", 0, 0, TransactionResult.COMMIT, w.errors_callback)
    assert w.error == Errors.INVALID_REQUEST


def test_should_respond_with_not_coordinator_on_end_txn_when_is_not_coordinator_for_id(w: _World) -> None:
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(_left(Errors.NOT_COORDINATOR))
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, 0, 0, TransactionResult.COMMIT, w.errors_callback)
    assert w.error == Errors.NOT_COORDINATOR


def test_should_respond_with_coordinator_load_in_progress_on_end_txn_when_coordinator_is_loading(w: _World) -> None:
    w.transaction_manager.expect("get_transaction_state", TRANSACTIONAL_ID).and_return(
        _left(Errors.COORDINATOR_LOAD_IN_PROGRESS))
    w.coordinator.handle_end_transaction(TRANSACTIONAL_ID, 0, 0, TransactionResult.COMMIT, w.errors_callback)
    assert w.error == Errors.COORDINATOR_LOAD_IN_PROGRESS


# -- InitProducerId on an existing transactional id -----------------------------------------------------------------

def _validate_increment_epoch_and_update_metadata(w: _World, state: TransactionState) -> None:
    w.pid_manager.expect("generate_producer_id").and_return(PRODUCER_ID).any_times()
    w.transaction_manager.expect("validate_transaction_timeout_ms", ANY).and_return(True)
    metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, state, set(),
                                   w.time.milliseconds(), w.time.milliseconds())
    w.expect_transaction_state(metadata)
    captured_new_metadata = Capture()

    def answer() -> None:
        metadata.complete_transition_to(captured_new_metadata.value)
        w.captured_errors_callback.value(Errors.NONE)

    w.transaction_manager.expect("append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH,
                                 captured_new_metadata, w.captured_errors_callback).and_answer(answer)

    new_txn_timeout_ms = 10
    w.coordinator.handle_init_producer_id(TRANSACTIONAL_ID, new_txn_timeout_ms, w.init_producer_id_mock_callback)

    assert w.result == _init_result(PRODUCER_ID, PRODUCER_EPOCH + 1, Errors.NONE)
    assert metadata.txn_timeout_ms == new_txn_timeout_ms
    assert metadata.txn_last_update_timestamp == w.time.milliseconds()
    assert metadata.producer_epoch == PRODUCER_EPOCH + 1
    assert metadata.producer_id == PRODUCER_ID


def test_should_increment_epoch_and_update_metadata_on_handle_init_pid_when_existing_empty_transaction(
        w: _World) -> None:
    _validate_increment_epoch_and_update_metadata(w, Empty)


def test_should_increment_epoch_and_update_metadata_on_handle_init_pid_when_existing_complete_transaction(
        w: _World) -> None:
    _validate_increment_epoch_and_update_metadata(w, CompleteAbort)


def test_should_increment_epoch_and_update_metadata_on_handle_init_pid_when_existing_complete_commit_transaction(
        w: _World) -> None:
    _validate_increment_epoch_and_update_metadata(w, CompleteCommit)


def _validate_responds_with_concurrent_transactions_on_init_pid_when_in_prepare_state(
        w: _World, state: TransactionState) -> None:
    w.transaction_manager.expect("validate_transaction_timeout_ms", ANY).and_return(True).any_times()
    metadata = TransactionMetadata(TRANSACTIONAL_ID, 0, 0, 0, state, {TopicPartition("topic", 1)}, 0, 0)
    w.expect_transaction_state(metadata).any_times()

    w.coordinator.handle_init_producer_id(TRANSACTIONAL_ID, 10, w.init_producer_id_mock_callback)
    assert w.result == _init_result(-1, -1, Errors.CONCURRENT_TRANSACTIONS)


def test_should_wait_for_commit_to_complete_on_handle_init_pid_and_existing_transaction_in_prepare_commit_state(
        w: _World) -> None:
    _validate_responds_with_concurrent_transactions_on_init_pid_when_in_prepare_state(w, PrepareCommit)


def test_should_wait_for_commit_to_complete_on_handle_init_pid_and_existing_transaction_in_prepare_abort_state(
        w: _World) -> None:
    _validate_responds_with_concurrent_transactions_on_init_pid_when_in_prepare_state(w, PrepareAbort)


def test_should_abort_transaction_on_handle_init_pid_when_existing_transaction_in_ongoing_state(w: _World) -> None:
    txn_metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, Ongoing,
                                       PARTITIONS, w.time.milliseconds(), w.time.milliseconds())
    w.transaction_manager.expect("validate_transaction_timeout_ms", ANY).and_return(True)
    w.transaction_manager.expect("put_transaction_state_if_not_exists", TRANSACTIONAL_ID, ANY).and_return(
        _right(CoordinatorEpochAndTxnMetadata(COORDINATOR_EPOCH, txn_metadata))).any_times()
    w.expect_transaction_state(txn_metadata).any_times()

    original_metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH + 1, TXN_TIMEOUT_MS,
                                            Ongoing, PARTITIONS, w.time.milliseconds(), w.time.milliseconds())
    w.transaction_manager.expect(
        "append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH,
        original_metadata.prepare_abort_or_commit(PrepareAbort, w.time.milliseconds()),
        w.captured_errors_callback).and_answer(w.run_captured_callback())

    w.coordinator.handle_init_producer_id(TRANSACTIONAL_ID, TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)

    assert w.result == _init_result(-1, -1, Errors.CONCURRENT_TRANSACTIONS)
    w.transaction_manager.verify()


def test_should_use_last_epoch_to_fence_when_epochs_are_exhausted(w: _World) -> None:
    txn_metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, SHORT_MAX_VALUE - 1, TXN_TIMEOUT_MS, Ongoing,
                                       PARTITIONS, w.time.milliseconds(), w.time.milliseconds())
    assert txn_metadata.is_producer_epoch_exhausted

    w.transaction_manager.expect("validate_transaction_timeout_ms", ANY).and_return(True)
    w.transaction_manager.expect("put_transaction_state_if_not_exists", TRANSACTIONAL_ID, ANY).and_return(
        _right(CoordinatorEpochAndTxnMetadata(COORDINATOR_EPOCH, txn_metadata))).any_times()
    w.expect_transaction_state(txn_metadata).any_times()
    w.transaction_manager.expect(
        "append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH,
        TxnTransitMetadata(producer_id=PRODUCER_ID, producer_epoch=SHORT_MAX_VALUE, txn_timeout_ms=TXN_TIMEOUT_MS,
                           txn_state=PrepareAbort, topic_partitions=PARTITIONS,
                           txn_start_timestamp=w.time.milliseconds(),
                           txn_last_update_timestamp=w.time.milliseconds()),
        w.captured_errors_callback).and_answer(w.run_captured_callback())

    w.coordinator.handle_init_producer_id(TRANSACTIONAL_ID, TXN_TIMEOUT_MS, w.init_producer_id_mock_callback)
    assert txn_metadata.producer_epoch == SHORT_MAX_VALUE

    assert w.result == _init_result(-1, -1, Errors.CONCURRENT_TRANSACTIONS)
    w.transaction_manager.verify()


# -- emigration and timed out transactions --------------------------------------------------------------------------

def test_should_remove_transactions_for_partition_on_emigration(w: _World) -> None:
    w.transaction_manager.expect("remove_transactions_for_txn_topic_partition", 0, COORDINATOR_EPOCH)
    w.transaction_marker_channel_manager.expect("remove_markers_for_txn_topic_partition", 0)

    w.coordinator.handle_txn_emigration(0, COORDINATOR_EPOCH)

    w.transaction_manager.verify()
    w.transaction_marker_channel_manager.verify()


def test_should_abort_expired_transactions_in_ongoing_state_and_bump_epoch(w: _World) -> None:
    now = w.time.milliseconds()
    txn_metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, Ongoing,
                                       PARTITIONS, now, now)
    w.transaction_manager.expect("timed_out_transactions").and_return(
        [TransactionalIdAndProducerIdEpoch(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH)])
    w.expect_transaction_state(txn_metadata).times(2)

    bumped_epoch = PRODUCER_EPOCH + 1
    expected_transition = TxnTransitMetadata(PRODUCER_ID, bumped_epoch, TXN_TIMEOUT_MS, PrepareAbort, PARTITIONS, now,
                                             now + DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS)
    w.transaction_manager.expect("append_transaction_to_log", TRANSACTIONAL_ID, COORDINATOR_EPOCH,
                                 expected_transition, w.captured_errors_callback).and_answer(lambda: None).once()

    w.coordinator.startup(False)
    w.time.sleep(DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS)
    w.scheduler.tick()
    w.transaction_manager.verify()


def test_should_not_abort_expired_transactions_that_have_a_pending_state_transition(w: _World) -> None:
    metadata = TransactionMetadata(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH, TXN_TIMEOUT_MS, Ongoing,
                                   PARTITIONS, w.time.milliseconds(), w.time.milliseconds())
    metadata.prepare_abort_or_commit(PrepareCommit, w.time.milliseconds())
    w.transaction_manager.expect("timed_out_transactions").and_return(
        [TransactionalIdAndProducerIdEpoch(TRANSACTIONAL_ID, PRODUCER_ID, PRODUCER_EPOCH)])
    w.expect_transaction_state(metadata).once()

    w.coordinator.startup(False)
    w.time.sleep(DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS)
    w.scheduler.tick()
    w.transaction_manager.verify()
