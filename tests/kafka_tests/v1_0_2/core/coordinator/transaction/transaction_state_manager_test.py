"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionStateManagerTest.scala (Kafka 1.0.2).

Kafka mocks ZkUtils and ReplicaManager (nice mocks), and the transaction log's Log and FileRecords (strict mocks),
with EasyMock; here small stand-ins record each call and answer what the test tells them to, and give a nice mock's
empty answer (None, nothing done) to any call nobody told them about. The port's `Log.read` returns the records'
bytes, so one stand-in plays both Kafka's Log mock and its FileRecords mock (`read` answers what `readInto` filled
the buffer with). Kafka's `Either[Errors, X]` is the port's `(error, x)`: `Left(e)` is `(e, None)`, `Right(x)` is
`(None, x)`. `MockScheduler` runs what is scheduled with no delay inside `schedule`, as Kafka's does.

The seven cases that run the transactional id expiration (`enableTransactionalIdExpiration`) are not applicable:
docs/transactions.md lists transactional id expiration under "What this port leaves out".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_TIMESTAMP, MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import SimpleRecord, with_simple_records
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.transaction import transaction_log
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
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
    TRANSACTION_STATE_TOPIC_NAME,
    CoordinatorEpochAndTxnMetadata,
    TransactionalIdAndProducerIdEpoch,
    TransactionConfig,
    TransactionStateManager,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.replica_manager import PartitionResponse
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from tests.kafka_tests.mock_scheduler import MockScheduler
from tests.kafka_tests.referee import kafka_test_class

_EXPIRATION = "transactional id expiration is not built (docs/transactions.md, What this port leaves out)"

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionStateManagerTest.scala",
    cases=[
        "testValidateTransactionTimeout", "testAddGetPids", "testLoadAndRemoveTransactionsForPartition",
        "testCompleteTransitionWhenAppendSucceeded", "testAppendFailToCoordinatorNotAvailableError",
        "testAppendFailToNotCoordinatorError", "testAppendFailToCoordinatorLoadingError",
        "testAppendFailToUnknownError", "testPendingStateNotResetOnRetryAppend",
        "testAppendTransactionToLogWhileProducerFenced", "testAppendTransactionToLogWhilePendingStateChanged",
        "shouldReturnNotCooridnatorErrorIfTransactionIdPartitionNotOwned",
        "shouldOnlyConsiderTransactionsInTheOngoingStateToAbort",
        "shouldWriteTxnMarkersForTransactionInPreparedCommitState",
        "shouldWriteTxnMarkersForTransactionInPreparedAbortState",
        "shouldRemoveCompleteCommmitExpiredTransactionalIds", "shouldRemoveCompleteAbortExpiredTransactionalIds",
        "shouldRemoveEmptyExpiredTransactionalIds", "shouldNotRemoveExpiredTransactionalIdsIfLogAppendFails",
        "shouldNotRemoveOngoingTransactionalIds", "shouldNotRemovePrepareAbortTransactionalIds",
        "shouldNotRemovePrepareCommitTransactionalIds",
    ],
    not_applicable={
        "shouldRemoveCompleteCommmitExpiredTransactionalIds": _EXPIRATION,
        "shouldRemoveCompleteAbortExpiredTransactionalIds": _EXPIRATION,
        "shouldRemoveEmptyExpiredTransactionalIds": _EXPIRATION,
        "shouldNotRemoveExpiredTransactionalIdsIfLogAppendFails": _EXPIRATION,
        "shouldNotRemoveOngoingTransactionalIds": _EXPIRATION,
        "shouldNotRemovePrepareAbortTransactionalIds": _EXPIRATION,
        "shouldNotRemovePrepareCommitTransactionalIds": _EXPIRATION,
    },
)

PARTITION_ID = 0
NUM_PARTITIONS = 2
TRANSACTION_TIMEOUT_MS = 1000
TOPIC_PARTITION = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, PARTITION_ID)
COORDINATOR_EPOCH = 10
TRANSACTIONAL_ID1 = "one"
TRANSACTIONAL_ID2 = "two"
MAGIC_VALUE_V1 = 1  # RecordBatch.MAGIC_VALUE_V1


# -- the mocks' stand-ins -----------------------------------------------------------------------------------------

class _ZkUtilsStandIn:
    """The nice ZkUtils mock, told getTopicPartitionCount(topic) -> Some(count) for each topic in `counts`."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = dict(counts)
        self.calls: list[tuple[str, Any]] = []

    def get_topic_partition_count(self, topic: str) -> int | None:
        self.calls.append(("getTopicPartitionCount", topic))
        return self.counts.get(topic)

    def reset(self) -> None:  # EasyMock.reset: no expectation left
        self.counts.clear()
        self.calls.clear()


class _LogStandIn:
    """The strict Log mock (with its FileRecords mock) of prepareTxnLog: logStartOffset is `start_offset`; one
    read(startOffset, any, maxOffset = None, minOneMessage = true), read-uncommitted, answers `records`. Any other
    read fails, as an unexpected call on a strict mock does."""

    def __init__(self, start_offset: int, records: MemoryRecords) -> None:
        self.start_offset = start_offset
        self.records = records
        self.reads: list[tuple[int, int, int | None, bool]] = []

    @property
    def log_start_offset(self) -> int:
        return self.start_offset

    def read(self, start_offset: int, max_length: int, max_offset: int | None = None,
             min_one_message: bool = False) -> bytes:
        self.reads.append((start_offset, max_length, max_offset, min_one_message))
        if len(self.reads) > 1 or start_offset != self.start_offset or max_offset is not None \
                or min_one_message is not True:
            raise AssertionError(f"Unexpected method call Log.read({start_offset}, {max_length}, {max_offset}, "
                                 f"{min_one_message}) (call {len(self.reads)})")
        return bytes(self.records.buffer)


class _AppendExpectation:
    """One expected appendRecords: the call it matches, and what it answers (once)."""

    def __init__(self, matches: Callable[[dict[str, Any]], bool],
                 answer: Callable[[Callable[[dict[TopicPartition, PartitionResponse]], None]], None]) -> None:
        self.matches = matches
        self.answer = answer
        self.used = False


class _ReplicaManagerStandIn:
    """The nice ReplicaManager mock: records every call and answers the expectations of the last reset."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.reset()

    def reset(self) -> None:
        self.logs: dict[TopicPartition, _LogStandIn] = {}
        self.log_end_offsets: dict[TopicPartition, int] = {}
        self.magic: int | None = None
        self.append_expectations: list[_AppendExpectation] = []

    def get_log(self, topic_partition: TopicPartition) -> _LogStandIn | None:
        self.calls.append(("getLog", topic_partition))
        return self.logs.get(topic_partition)

    def get_log_end_offset(self, topic_partition: TopicPartition) -> int | None:
        self.calls.append(("getLogEndOffset", topic_partition))
        return self.log_end_offsets.get(topic_partition)

    def get_magic(self, topic_partition: TopicPartition) -> int | None:
        self.calls.append(("getMagic", topic_partition))
        return self.magic

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[TopicPartition, bytes],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        call = {"timeout": timeout, "required_acks": required_acks, "internal_topics_allowed": internal_topics_allowed,
                "is_from_client": is_from_client, "entries_per_partition": entries_per_partition}
        self.calls.append(("appendRecords", call))
        for expectation in self.append_expectations:
            if not expectation.used and expectation.matches(call):
                expectation.used = True
                expectation.answer(response_callback)
                return


# -- the test class's fields and helpers --------------------------------------------------------------------------

class _World:
    def __init__(self) -> None:
        self.txn_records: list[SimpleRecord] = []
        self.time = MockTime()
        self.scheduler = MockScheduler(self.time)
        self.zk_utils = _ZkUtilsStandIn({TRANSACTION_STATE_TOPIC_NAME: NUM_PARTITIONS})
        self.replica_manager = _ReplicaManagerStandIn()
        self.txn_config = TransactionConfig()
        self.transaction_manager = TransactionStateManager(0, self.zk_utils, self.scheduler,  # type: ignore[arg-type]
                                                           self.replica_manager,  # type: ignore[arg-type]
                                                           self.txn_config, self.time.milliseconds)
        self.txn_message_key_bytes1 = transaction_log.key_to_bytes(TRANSACTIONAL_ID1)
        self.txn_message_key_bytes2 = transaction_log.key_to_bytes(TRANSACTIONAL_ID2)
        self.producer_ids = {TRANSACTIONAL_ID1: 1, TRANSACTIONAL_ID2: 2}
        self.txn_metadata1 = self.transaction_metadata(TRANSACTIONAL_ID1, self.producer_ids[TRANSACTIONAL_ID1])
        self.txn_metadata2 = self.transaction_metadata(TRANSACTIONAL_ID2, self.producer_ids[TRANSACTIONAL_ID2])
        self.expected_error = Errors.NONE

    def transaction_metadata(self, transactional_id: str, producer_id: int, state: TransactionState = Empty,
                             txn_timeout: int = TRANSACTION_TIMEOUT_MS) -> TransactionMetadata:
        """TransactionMetadata(transactionalId, producerId, 0, txnTimeout, state, now): started and updated now."""
        now = self.time.milliseconds()
        return TransactionMetadata(transactional_id, producer_id, 0, txn_timeout, state, (), now, now)

    def assert_callback(self, error: Errors) -> None:
        assert error == self.expected_error

    def add_txn_record(self, key: bytes, txn_metadata: TransactionMetadata) -> None:
        self.txn_records.append(SimpleRecord(transaction_log.value_to_bytes(txn_metadata.prepare_no_transit()), key))

    def prepare_txn_log(self, topic_partition: TopicPartition, start_offset: int, records: MemoryRecords) -> None:
        self.replica_manager.reset()
        log = _LogStandIn(start_offset, records)
        end_offset = start_offset + sum(len(list(batch.records())) for batch in records.batches())
        self.replica_manager.logs[topic_partition] = log
        self.replica_manager.log_end_offsets[topic_partition] = end_offset

    def prepare_for_txn_message_append(self, error: Errors) -> None:
        self.replica_manager.reset()

        def matches(call: dict[str, Any]) -> bool:
            return call["internal_topics_allowed"] is True and call["is_from_client"] is False

        def answer(callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
            callback({TopicPartition(TRANSACTION_STATE_TOPIC_NAME, PARTITION_ID):
                      PartitionResponse(error, 0, NO_TIMESTAMP, 0)})

        self.replica_manager.append_expectations.append(_AppendExpectation(matches, answer))
        self.replica_manager.magic = MAGIC_VALUE_V1

    def cached(self, transactional_id: str) -> CoordinatorEpochAndTxnMetadata:
        error, entry = self.transaction_manager.get_transaction_state(transactional_id)
        if error is not None:
            pytest.fail(f"{transactional_id}'s transaction state access returns error {error}")
        if entry is None:
            pytest.fail(f"{transactional_id}'s transaction state was not loaded into the cache")
        return entry

    def assert_not_coordinator(self, transactional_id: str, message: str) -> None:
        error, _ = self.transaction_manager.get_transaction_state(transactional_id)
        if error is None:
            pytest.fail(f"{transactional_id}'s transaction state {message}")
        assert error == Errors.NOT_COORDINATOR

    def add_partitions(self, txn_metadata: TransactionMetadata, topic: str, partitions: range) -> None:
        txn_metadata.add_partitions({TopicPartition(topic, p) for p in partitions})


@pytest.fixture
def w() -> Iterator[_World]:
    world = _World()
    # setUp: both transactional ids hash to the partition the test loads
    assert world.transaction_manager.partition_for(TRANSACTIONAL_ID1) == PARTITION_ID
    assert world.transaction_manager.partition_for(TRANSACTIONAL_ID2) == PARTITION_ID
    yield world
    # tearDown
    world.zk_utils.reset()
    world.replica_manager.reset()
    world.transaction_manager.shutdown()


def _in_cache(w: _World, coordinator_epoch: int, txn_metadata: TransactionMetadata
              ) -> tuple[None, CoordinatorEpochAndTxnMetadata]:
    """Right(Some(CoordinatorEpochAndTxnMetadata(epoch, metadata)))."""
    return None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, txn_metadata)


# -- the cases -----------------------------------------------------------------------------------------------------

def test_validate_transaction_timeout(w: _World) -> None:
    tm = w.transaction_manager
    assert tm.validate_transaction_timeout_ms(1)
    assert not tm.validate_transaction_timeout_ms(-1)
    assert not tm.validate_transaction_timeout_ms(0)
    assert tm.validate_transaction_timeout_ms(w.txn_config.transaction_max_timeout_ms)
    assert not tm.validate_transaction_timeout_ms(w.txn_config.transaction_max_timeout_ms + 1)


def test_add_get_pids(w: _World) -> None:
    tm = w.transaction_manager
    tm.add_loaded_transactions_to_cache(PARTITION_ID, COORDINATOR_EPOCH, {})

    assert tm.get_transaction_state(TRANSACTIONAL_ID1) == (None, None)
    assert tm.put_transaction_state_if_not_exists(TRANSACTIONAL_ID1, w.txn_metadata1) == \
        _in_cache(w, COORDINATOR_EPOCH, w.txn_metadata1)
    assert tm.get_transaction_state(TRANSACTIONAL_ID1) == _in_cache(w, COORDINATOR_EPOCH, w.txn_metadata1)
    assert tm.put_transaction_state_if_not_exists(TRANSACTIONAL_ID1, w.txn_metadata2) == \
        _in_cache(w, COORDINATOR_EPOCH, w.txn_metadata1)


def test_load_and_remove_transactions_for_partition(w: _World) -> None:
    tm = w.transaction_manager
    md1, md2 = w.txn_metadata1, w.txn_metadata2

    # the first producer's transaction, on two partitions
    md1.state = Ongoing
    w.add_partitions(md1, "topic1", range(2))
    w.add_txn_record(w.txn_message_key_bytes1, md1)
    # three partitions more
    w.add_partitions(md1, "topic2", range(3))
    w.add_txn_record(w.txn_message_key_bytes1, md1)
    # committing
    md1.state = PrepareCommit
    w.add_txn_record(w.txn_message_key_bytes1, md1)

    # the second producer's transaction, on three partitions
    md2.state = Ongoing
    w.add_partitions(md2, "topic3", range(3))
    w.add_txn_record(w.txn_message_key_bytes2, md2)
    # aborting
    md2.state = PrepareAbort
    w.add_txn_record(w.txn_message_key_bytes2, md2)
    # aborted
    md2.state = CompleteAbort
    w.add_txn_record(w.txn_message_key_bytes2, md2)
    # a new epoch, no transaction yet
    md2.state = Empty
    md2.topic_partitions.clear()
    w.add_txn_record(w.txn_message_key_bytes2, md2)

    start_offset = 15  # any start offset will do
    records = with_simple_records(w.txn_records, initial_offset=start_offset, compression_type=CompressionType.NONE)
    w.prepare_txn_log(TOPIC_PARTITION, start_offset, records)

    # not an owned partition yet
    w.assert_not_coordinator(TRANSACTIONAL_ID1, "is already in the cache")
    w.assert_not_coordinator(TRANSACTIONAL_ID2, "is already in the cache")

    tm.load_transactions_for_txn_topic_partition(PARTITION_ID, 0, lambda *_: None)
    w.scheduler.tick()  # the background load

    w.cached(TRANSACTIONAL_ID1)
    cached_pid_metadata1 = w.cached(TRANSACTIONAL_ID1)
    cached_pid_metadata2 = w.cached(TRANSACTIONAL_ID2)

    # the latest state of each transaction
    assert cached_pid_metadata1.transaction_metadata == md1
    assert cached_pid_metadata2.transaction_metadata == md2

    tm.remove_transactions_for_txn_topic_partition(PARTITION_ID, COORDINATOR_EPOCH)
    w.scheduler.tick()  # the background removal

    w.assert_not_coordinator(TRANSACTIONAL_ID1, "is still in the cache")
    w.assert_not_coordinator(TRANSACTIONAL_ID2, "is still in the cache")


def test_complete_transition_when_append_succeeded(w: _World) -> None:
    tm = w.transaction_manager
    tm.add_loaded_transactions_to_cache(PARTITION_ID, COORDINATOR_EPOCH, {})
    tm.put_transaction_state_if_not_exists(TRANSACTIONAL_ID1, w.txn_metadata1)

    w.prepare_for_txn_message_append(Errors.NONE)
    w.expected_error = Errors.NONE

    # Ongoing, on two partitions
    new_metadata = w.txn_metadata1.prepare_add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)},
                                                          w.time.milliseconds())
    tm.append_transaction_to_log(TRANSACTIONAL_ID1, COORDINATOR_EPOCH, new_metadata, w.assert_callback)

    assert tm.get_transaction_state(TRANSACTIONAL_ID1) == _in_cache(w, COORDINATOR_EPOCH, w.txn_metadata1)
    assert w.txn_metadata1.pending_state is None


def _append_failing_with(w: _World, append_error: Errors, retry_on_error: Callable[[Errors], bool] | None = None
                         ) -> None:
    """One prepareAddPartitions of topic2-0, appended with coordinatorEpoch = 10, the log answering `append_error`."""
    failed_metadata = w.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)}, w.time.milliseconds())
    w.prepare_for_txn_message_append(append_error)
    if retry_on_error is None:
        w.transaction_manager.append_transaction_to_log(TRANSACTIONAL_ID1, 10, failed_metadata, w.assert_callback)
    else:
        w.transaction_manager.append_transaction_to_log(TRANSACTIONAL_ID1, 10, failed_metadata, w.assert_callback,
                                                        retry_on_error)


def _cache_txn_metadata1(w: _World) -> None:
    w.transaction_manager.add_loaded_transactions_to_cache(PARTITION_ID, COORDINATOR_EPOCH, {})
    w.transaction_manager.put_transaction_state_if_not_exists(TRANSACTIONAL_ID1, w.txn_metadata1)


def _assert_unchanged_and_not_pending(w: _World) -> None:
    assert w.transaction_manager.get_transaction_state(TRANSACTIONAL_ID1) == \
        _in_cache(w, COORDINATOR_EPOCH, w.txn_metadata1)
    assert w.txn_metadata1.pending_state is None


def test_append_fail_to_coordinator_not_available_error(w: _World) -> None:
    _cache_txn_metadata1(w)
    w.expected_error = Errors.COORDINATOR_NOT_AVAILABLE
    for append_error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                         Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT):
        _append_failing_with(w, append_error)
        _assert_unchanged_and_not_pending(w)


def test_append_fail_to_not_coordinator_error(w: _World) -> None:
    tm = w.transaction_manager
    _cache_txn_metadata1(w)
    w.expected_error = Errors.NOT_COORDINATOR

    _append_failing_with(w, Errors.NOT_LEADER_OR_FOLLOWER)  # 1.0.2's NOT_LEADER_FOR_PARTITION (code 6)
    _assert_unchanged_and_not_pending(w)

    failed_metadata = w.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)}, w.time.milliseconds())
    # the partition has left
    w.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(PARTITION_ID, COORDINATOR_EPOCH)
    tm.append_transaction_to_log(TRANSACTIONAL_ID1, 10, failed_metadata, w.assert_callback)

    # and came back under a newer coordinator epoch
    w.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(PARTITION_ID, COORDINATOR_EPOCH)
    tm.add_loaded_transactions_to_cache(PARTITION_ID, COORDINATOR_EPOCH + 1, {})
    tm.put_transaction_state_if_not_exists(TRANSACTIONAL_ID1, w.txn_metadata1)
    tm.append_transaction_to_log(TRANSACTIONAL_ID1, 10, failed_metadata, w.assert_callback)

    # and came back under the same epoch, without the transactional id
    w.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(PARTITION_ID, COORDINATOR_EPOCH)
    tm.add_loaded_transactions_to_cache(PARTITION_ID, COORDINATOR_EPOCH, {})
    tm.append_transaction_to_log(TRANSACTIONAL_ID1, 10, failed_metadata, w.assert_callback)


def test_append_fail_to_coordinator_loading_error(w: _World) -> None:
    tm = w.transaction_manager
    _cache_txn_metadata1(w)
    w.expected_error = Errors.COORDINATOR_LOAD_IN_PROGRESS
    failed_metadata = w.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)}, w.time.milliseconds())

    w.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(PARTITION_ID, COORDINATOR_EPOCH)
    tm.add_loading_partition(PARTITION_ID, COORDINATOR_EPOCH + 1)
    tm.append_transaction_to_log(TRANSACTIONAL_ID1, 10, failed_metadata, w.assert_callback)


def test_append_fail_to_unknown_error(w: _World) -> None:
    _cache_txn_metadata1(w)
    w.expected_error = Errors.UNKNOWN_SERVER_ERROR
    for append_error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE):
        _append_failing_with(w, append_error)
        _assert_unchanged_and_not_pending(w)


def test_pending_state_not_reset_on_retry_append(w: _World) -> None:
    _cache_txn_metadata1(w)
    w.expected_error = Errors.COORDINATOR_NOT_AVAILABLE
    _append_failing_with(w, Errors.UNKNOWN_TOPIC_OR_PARTITION, lambda _: True)
    assert w.transaction_manager.get_transaction_state(TRANSACTIONAL_ID1) == \
        _in_cache(w, COORDINATOR_EPOCH, w.txn_metadata1)
    assert w.txn_metadata1.pending_state is Ongoing


def test_append_transaction_to_log_while_producer_fenced(w: _World) -> None:
    tm = w.transaction_manager
    tm.add_loaded_transactions_to_cache(PARTITION_ID, 0, {})
    tm.put_transaction_state_if_not_exists(TRANSACTIONAL_ID1, w.txn_metadata1)

    w.prepare_for_txn_message_append(Errors.NONE)
    w.expected_error = Errors.NOT_COORDINATOR

    new_metadata = w.txn_metadata1.prepare_add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)},
                                                          w.time.milliseconds())
    # the cached metadata changes while the append is on its way
    w.txn_metadata1.producer_epoch += 1

    tm.append_transaction_to_log(TRANSACTIONAL_ID1, 10, new_metadata, w.assert_callback)


def test_append_transaction_to_log_while_pending_state_changed(w: _World) -> None:
    tm = w.transaction_manager
    _cache_txn_metadata1(w)

    w.prepare_for_txn_message_append(Errors.NONE)
    w.expected_error = Errors.INVALID_PRODUCER_EPOCH

    new_metadata = w.txn_metadata1.prepare_add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)},
                                                          w.time.milliseconds())
    # the pending state goes while the append is on its way
    w.txn_metadata1.pending_state = None

    with pytest.raises(IllegalStateException):
        tm.append_transaction_to_log(TRANSACTIONAL_ID1, 10, new_metadata, w.assert_callback)


def test_should_return_not_cooridnator_error_if_transaction_id_partition_not_owned(w: _World) -> None:
    w.assert_not_coordinator(TRANSACTIONAL_ID1, "is already in the cache")


def test_should_only_consider_transactions_in_the_ongoing_state_to_abort(w: _World) -> None:
    tm = w.transaction_manager
    for partition_id in range(NUM_PARTITIONS):
        tm.add_loaded_transactions_to_cache(partition_id, 0, {})

    for transactional_id, producer_id, state, txn_timeout in (
            ("ongoing", 0, Ongoing, TRANSACTION_TIMEOUT_MS),
            ("not-expiring", 1, Ongoing, 10000),
            ("prepare-commit", 2, PrepareCommit, TRANSACTION_TIMEOUT_MS),
            ("prepare-abort", 3, PrepareAbort, TRANSACTION_TIMEOUT_MS),
            ("complete-commit", 4, CompleteCommit, TRANSACTION_TIMEOUT_MS),
            ("complete-abort", 5, CompleteAbort, TRANSACTION_TIMEOUT_MS)):
        tm.put_transaction_state_if_not_exists(
            transactional_id, w.transaction_metadata(transactional_id, producer_id, state, txn_timeout))

    w.time.sleep(2000)
    expiring = tm.timed_out_transactions()
    assert list(expiring) == [TransactionalIdAndProducerIdEpoch("ongoing", 0, 0)]


def _verify_writes_txn_markers_in_prepare_state(w: _World, state: TransactionState) -> None:
    w.txn_metadata1.state = state
    w.add_partitions(w.txn_metadata1, "topic1", range(2))
    w.add_txn_record(w.txn_message_key_bytes1, w.txn_metadata1)
    start_offset = 0
    records = with_simple_records(w.txn_records, initial_offset=start_offset, compression_type=CompressionType.NONE)
    w.prepare_txn_log(TOPIC_PARTITION, 0, records)

    txn_id: list[str] = []

    def remember_txn_markers(transactional_id: str, coordinator_epoch: int, command: TransactionResult,
                             metadata: TransactionMetadata, new_metadata: TxnTransitMetadata) -> None:
        txn_id[:] = [transactional_id]

    w.transaction_manager.load_transactions_for_txn_topic_partition(PARTITION_ID, 0, remember_txn_markers)
    w.scheduler.tick()

    assert txn_id == [TRANSACTIONAL_ID1]


def test_should_write_txn_markers_for_transaction_in_prepared_commit_state(w: _World) -> None:
    _verify_writes_txn_markers_in_prepare_state(w, PrepareCommit)


def test_should_write_txn_markers_for_transaction_in_prepared_abort_state(w: _World) -> None:
    _verify_writes_txn_markers_in_prepare_state(w, PrepareAbort)
