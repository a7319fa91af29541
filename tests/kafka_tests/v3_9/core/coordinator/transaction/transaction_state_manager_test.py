"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionStateManagerTest.scala (Kafka 3.9).

Mockito's mocks of ReplicaManager, MetadataCache, UnifiedLog, FileRecords and LogConfig are unittest.mock.Mock
objects; `when(...).thenReturn/thenAnswer` on given arguments are side effects that look at the arguments, and
`reset(replicaManager)` is `reset_mock(return_value=True, side_effect=True)`. A Scala `Either` is the port's
`(error, value)` pair. Every case gets a fresh manager (JUnit builds a new test instance per case).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.internals.topic import TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V1, NO_PRODUCER_EPOCH, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_log import TransactionLog, to_version_prefixed_bytes
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
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
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    TransactionalIdAndProducerIdEpoch,
    TransactionConfig,
    TransactionPartitionAndLeaderEpoch,
    TransactionStateManager,
)
from kafka_edu.v3_9.core.server.request_local import RequestLocal
from kafka_edu.v3_9.server_common.server.util.mock_scheduler import MockScheduler
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.log_config import DEFAULT_MAX_MESSAGE_BYTES
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated.transaction_log_key import (
    TransactionLogKey,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionStateManagerTest.scala",
    cases=[
        "testValidateTransactionTimeout",
        "testAddGetPids",
        "testDeletePartition",
        "testDeleteLoadingPartition",
        "testLoadAndRemoveTransactionsForPartition",
        "testCompleteTransitionWhenAppendSucceeded",
        "testAppendFailToCoordinatorNotAvailableError",
        "testAppendFailToNotCoordinatorError",
        "testAppendFailToCoordinatorLoadingError",
        "testAppendFailToUnknownError",
        "testPendingStateNotResetOnRetryAppend",
        "testAppendTransactionToLogWhileProducerFenced",
        "testAppendTransactionToLogWhilePendingStateChanged",
        "shouldReturnNotCoordinatorErrorIfTransactionIdPartitionNotOwned",
        "testListTransactionsWithCoordinatorLoadingInProgress",
        "testListTransactionsFiltering",
        "shouldOnlyConsiderTransactionsInTheOngoingStateToAbort",
        "shouldWriteTxnMarkersForTransactionInPreparedCommitState",
        "shouldWriteTxnMarkersForTransactionInPreparedAbortState",
        "shouldRemoveCompleteCommitExpiredTransactionalIds",
        "shouldRemoveCompleteAbortExpiredTransactionalIds",
        "shouldRemoveEmptyExpiredTransactionalIds",
        "shouldNotRemoveExpiredTransactionalIdsIfLogAppendFails",
        "shouldNotRemoveOngoingTransactionalIds",
        "shouldNotRemovePrepareAbortTransactionalIds",
        "shouldNotRemovePrepareCommitTransactionalIds",
        "testTransactionalExpirationWithTooSmallBatchSize",
        "testTransactionalExpirationWithOfflineLogDir",
        "testTransactionExpirationShouldRespectBatchSize",
        "testTransactionExpirationShouldNotFailWithUninitializedTransactionMetadata",
        "testSuccessfulReimmigration",
        "testLoadTransactionMetadataWithCorruptedLog",
        "testPartitionLoadMetric",
        "testIgnoreUnknownRecordType",
        "testUsesFlexibleRecords",
    ],
    not_applicable={
        "testPartitionLoadMetric": "JMX (MBean server, JmxReporter): the port has no metrics registry",
    },
)

partition_id = 0
num_partitions = 2
transaction_timeout_ms = 1000
topic_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
coordinator_epoch = 10
transactional_id1 = "one"
transactional_id2 = "two"
txn_message_key_bytes1 = TransactionLog.key_to_bytes(transactional_id1)
txn_message_key_bytes2 = TransactionLog.key_to_bytes(transactional_id2)
producer_ids = {transactional_id1: 1, transactional_id2: 2}
txn_config = TransactionConfig()


def _features(transaction_version_level: int) -> Any:
    """FinalizedFeatures with transaction.version at the given level."""
    features = mock.Mock()
    features.finalized_features.return_value = {"transaction.version": transaction_version_level}
    return features


class _Env:
    """The test class's fields, fresh per case."""

    def __init__(self) -> None:
        self.txn_records: list[SimpleRecord] = []
        self.time = MockTime()
        self.scheduler = MockScheduler(self.time)
        self.replica_manager = mock.Mock()
        self.metadata_cache = mock.Mock()
        self.metadata_cache.features.return_value = _features(2)  # TransactionVersion.TV_2
        self.transaction_manager = TransactionStateManager(0, self.scheduler, self.replica_manager,
                                                           self.metadata_cache, txn_config, self.time, None)
        self.txn_metadata1 = self.transaction_metadata(transactional_id1, producer_ids[transactional_id1])
        self.txn_metadata2 = self.transaction_metadata(transactional_id2, producer_ids[transactional_id2])
        self.expected_error = Errors.NONE

    def transaction_metadata(self, transactional_id: str, producer_id: int, state: TransactionState = Empty,
                             txn_timeout: int = transaction_timeout_ms) -> TransactionMetadata:
        return TransactionMetadata.apply(transactional_id, producer_id, 0, txn_timeout, state,
                                         self.time.milliseconds())

    def assert_callback(self, error: Errors) -> None:
        assert error == self.expected_error

    def reset_replica_manager(self) -> None:
        self.replica_manager.reset_mock(return_value=True, side_effect=True)

    def prepare_txn_log(self, topic_partition: TopicPartition, start_offset: int, records: MemoryRecords) -> tuple[
            Any, Any]:
        self.reset_replica_manager()
        log_mock = mock.Mock()
        file_records_mock = mock.Mock()
        end_offset = start_offset + len(list(records.records()))

        self.replica_manager.get_log.side_effect = lambda tp: log_mock if tp == topic_partition else None
        self.replica_manager.get_log_end_offset.side_effect = lambda tp: end_offset if tp == topic_partition else None
        type(log_mock).log_start_offset = mock.PropertyMock(return_value=start_offset)
        log_mock.read.side_effect = _read_answer(start_offset, FetchDataInfo(LogOffsetMetadata(start_offset),
                                                                              file_records_mock))
        file_records_mock.size_in_bytes.return_value = records.size_in_bytes()

        def read_into(buffer: bytearray, position: int) -> None:
            buffer[:] = bytes(records.buffer())
        file_records_mock.read_into.side_effect = read_into
        return log_mock, file_records_mock

    def prepare_for_txn_message_append(self, error: Errors) -> None:
        self.reset_replica_manager()

        def answer(*args: Any, **kwargs: Any) -> None:
            assert kwargs["internal_topics_allowed"] is True
            assert kwargs["origin"] is AppendOrigin.COORDINATOR
            kwargs["response_callback"]({TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id): PartitionResponse(
                error, base_offset=0, log_append_time=NO_TIMESTAMP, log_start_offset=0)})
        self.replica_manager.append_records.side_effect = answer
        self.replica_manager.get_magic.return_value = MAGIC_VALUE_V1

    def expect_transactional_id_expiration(self, append_error: Errors,
                                           captured_appends: dict[TopicPartition, list[MemoryRecords]]) -> None:
        def answer(*args: Any, **kwargs: Any) -> None:
            if kwargs["required_acks"] != -1 or kwargs["internal_topics_allowed"] is not True \
                    or kwargs["origin"] is not AppendOrigin.COORDINATOR:
                return  # an unmatched stub answers nothing
            responses = {}
            for tp, records in kwargs["entries_per_partition"].items():
                captured_appends.setdefault(tp, []).append(records)
                responses[tp] = PartitionResponse(append_error, base_offset=0, log_append_time=NO_TIMESTAMP,
                                                  log_start_offset=0)
            kwargs["response_callback"](responses)
        self.replica_manager.append_records.side_effect = answer

    def verify_expiration_appends(self, at_least_once: bool) -> None:
        calls = [c for c in self.replica_manager.append_records.call_args_list
                 if c.kwargs["required_acks"] == -1 and c.kwargs["internal_topics_allowed"] is True
                 and c.kwargs["origin"] is AppendOrigin.COORDINATOR]
        if at_least_once:
            assert len(calls) >= 1
        else:
            assert len(calls) == 1

    def load_transactions_for_partitions(self, partition_ids: Iterable[int]) -> None:
        for pid in partition_ids:
            self.transaction_manager.add_loaded_transactions_to_cache(pid, 0, {})

    def expect_log_config(self, partition_ids: Iterable[int], max_batch_size: int) -> None:
        log_config = mock.Mock()
        log_config.max_message_size.return_value = max_batch_size
        configs: dict[TopicPartition, Any] = {TopicPartition(TRANSACTION_STATE_TOPIC_NAME, p): log_config
                                              for p in partition_ids}
        self.replica_manager.get_log_config.side_effect = lambda tp: configs.get(tp)

    def load_expired_transactional_ids(self, num_transactional_ids: int) -> set[str]:
        all_transactional_ids = set()
        for i in range(num_transactional_ids + 1):
            txnl_id = f"id_{i}"
            txn_metadata = self.transaction_metadata(txnl_id, i)
            txn_metadata.txn_last_update_timestamp = (self.time.milliseconds()
                                                      - txn_config.transactional_id_expiration_ms)
            self.transaction_manager.put_transaction_state_if_not_exists(txn_metadata)
            all_transactional_ids.add(txnl_id)
        return all_transactional_ids

    def list_expirable_transactional_ids(self) -> set[str]:
        active = [s["transactional_id"] for s in
                  self.transaction_manager.list_transaction_states(set(), set(), -1)["transaction_states"]]
        result = set()
        for transactional_id in active:
            error, epoch_and_metadata = self.transaction_manager.get_transaction_state(transactional_id)
            if error is None and epoch_and_metadata is not None:
                txn_metadata = epoch_and_metadata.transaction_metadata
                time_since_last_update = self.time.milliseconds() - txn_metadata.txn_last_update_timestamp
                if (time_since_last_update >= txn_config.transactional_id_expiration_ms
                        and txn_metadata.state.is_expiration_allowed and txn_metadata.pending_state is None):
                    result.add(transactional_id)
        return result

    def collect_transactional_ids_from_tombstones(
            self, appended_records: dict[TopicPartition, list[MemoryRecords]]) -> set[str]:
        expired_transactional_ids = set()
        for batches in appended_records.values():
            for records in batches:
                for record in records.records():
                    transactional_id = TransactionLog.read_txn_record_key(record.key()).transactional_id
                    assert record.value() is None
                    assert transactional_id is not None
                    expired_transactional_ids.add(transactional_id)
                    assert self.transaction_manager.get_transaction_state(transactional_id) == (None, None)
        return expired_transactional_ids

    def setup_and_run_transactional_id_expiration(self, error: Errors, txn_state: TransactionState) -> None:
        partition_ids = range(num_partitions)
        self.load_transactions_for_partitions(partition_ids)
        self.expect_log_config(partition_ids, DEFAULT_MAX_MESSAGE_BYTES)

        self.txn_metadata1.txn_last_update_timestamp = (self.time.milliseconds()
                                                        - txn_config.transactional_id_expiration_ms)
        self.txn_metadata1.state = txn_state
        self.transaction_manager.put_transaction_state_if_not_exists(self.txn_metadata1)

        self.txn_metadata2.txn_last_update_timestamp = self.time.milliseconds()
        self.transaction_manager.put_transaction_state_if_not_exists(self.txn_metadata2)

        appended_records: dict[TopicPartition, list[MemoryRecords]] = {}
        self.expect_transactional_id_expiration(error, appended_records)

        self.transaction_manager.remove_expired_transactional_ids()

        if txn_state in (Empty, CompleteCommit, CompleteAbort):
            pid = self.transaction_manager.partition_for(transactional_id1)
            tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, pid)
            expected_tombstone = SimpleRecord.of(self.time.milliseconds(),
                                                 TransactionLog.key_to_bytes(transactional_id1), None)
            expected_records = MemoryRecords.with_records(TransactionLog.ENFORCED_COMPRESSION, expected_tombstone)
            assert set(appended_records) == {tp}
            assert appended_records[tp] == [expected_records]
        else:
            assert appended_records == {}

    def verify_writes_txn_markers_in_prepare_state(self, state: TransactionState) -> None:
        self.txn_metadata1.state = state
        self.txn_metadata1.add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)})
        self.txn_records.append(SimpleRecord(key=txn_message_key_bytes1, value=TransactionLog.value_to_bytes(
            self.txn_metadata1.prepare_no_transit(), True)))
        records = MemoryRecords.with_records(Compression.NONE, *self.txn_records, initial_offset=0)
        self.prepare_txn_log(topic_partition, 0, records)

        txn_id: list[str] = []

        def remember_txn_markers(coordinator_epoch: int, command: TransactionResult, metadata: TransactionMetadata,
                                 new_metadata: TxnTransitMetadata) -> None:
            txn_id.append(metadata.transactional_id)

        self.transaction_manager.load_transactions_for_txn_topic_partition(partition_id, 0, remember_txn_markers)
        self.scheduler.tick()
        assert txn_id == [transactional_id1]

    def verify_metadata_does_exist_and_is_usable(self, transactional_id: str) -> None:
        error, metadata = self.transaction_manager.get_transaction_state(transactional_id)
        assert error is None, "shouldn't have been any errors"
        assert metadata is not None, "metadata should have been removed"
        assert metadata.transaction_metadata.pending_state is None, "metadata shouldn't be in a pending state"

    def verify_metadata_doesnt_exist(self, transactional_id: str) -> None:
        error, metadata = self.transaction_manager.get_transaction_state(transactional_id)
        assert error is None, "shouldn't have been any errors"
        assert metadata is None, "metadata should have been removed"


def _read_answer(start_offset: int, result: Any) -> Callable[..., Any]:
    """when(log.read(eq(startOffset), anyInt, eq(LOG_END), eq(true))).thenReturn(result); null otherwise."""
    def answer(offset: int, max_length: int, isolation: FetchIsolation, min_one_message: bool) -> Any:
        if offset == start_offset and isolation is FetchIsolation.LOG_END and min_one_message is True:
            return result
        return None
    return answer


def _no_markers(*_: Any) -> None:
    pass


@pytest.fixture
def env() -> Any:
    e = _Env()
    e.transaction_manager.startup(lambda: num_partitions, enable_transactional_id_expiration=False)
    # both ids hash to the partition under test
    assert e.transaction_manager.partition_for(transactional_id1) == partition_id
    assert e.transaction_manager.partition_for(transactional_id2) == partition_id
    yield e
    e.transaction_manager.shutdown()


def test_validate_transaction_timeout(env: _Env) -> None:
    tm = env.transaction_manager
    assert tm.validate_transaction_timeout_ms(1)
    assert not tm.validate_transaction_timeout_ms(-1)
    assert not tm.validate_transaction_timeout_ms(0)
    assert tm.validate_transaction_timeout_ms(txn_config.transaction_max_timeout_ms)
    assert not tm.validate_transaction_timeout_ms(txn_config.transaction_max_timeout_ms + 1)


def test_add_get_pids(env: _Env) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    assert tm.get_transaction_state(transactional_id1) == (None, None)
    assert tm.put_transaction_state_if_not_exists(env.txn_metadata1) == (
        None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, env.txn_metadata1))
    assert tm.get_transaction_state(transactional_id1) == (
        None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, env.txn_metadata1))
    assert tm.put_transaction_state_if_not_exists(env.txn_metadata2) == (
        None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, env.txn_metadata2))


def test_delete_partition(env: _Env) -> None:
    tm = env.transaction_manager
    metadata1 = env.transaction_metadata("b", 5)
    metadata2 = env.transaction_metadata("a", 10)
    assert tm.partition_for(metadata1.transactional_id) == 0
    assert tm.partition_for(metadata2.transactional_id) == 1

    tm.add_loaded_transactions_to_cache(0, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(metadata1)
    tm.add_loaded_transactions_to_cache(1, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(metadata2)

    def cached_producer_epoch(transactional_id: str) -> int | None:
        error, entry = tm.get_transaction_state(transactional_id)
        return None if error is not None or entry is None else entry.transaction_metadata.producer_epoch

    assert cached_producer_epoch(metadata1.transactional_id) == metadata1.producer_epoch
    assert cached_producer_epoch(metadata2.transactional_id) == metadata2.producer_epoch

    tm.remove_transactions_for_txn_topic_partition(0)

    assert cached_producer_epoch(metadata1.transactional_id) is None
    assert cached_producer_epoch(metadata2.transactional_id) == metadata2.producer_epoch


def test_delete_loading_partition(env: _Env) -> None:
    # A delete while the partition loads: the load finds it gone and adds nothing.
    tm = env.transaction_manager
    start_offset, end_offset = 0, 1
    file_records_mock = mock.Mock()
    log_mock = mock.Mock()
    env.replica_manager.get_log.side_effect = lambda tp: log_mock if tp == topic_partition else None
    type(log_mock).log_start_offset = mock.PropertyMock(return_value=start_offset)
    log_mock.read.side_effect = _read_answer(start_offset, FetchDataInfo(LogOffsetMetadata(start_offset),
                                                                          file_records_mock))
    env.replica_manager.get_log_end_offset.side_effect = lambda tp: end_offset if tp == topic_partition else None

    env.txn_metadata1.state = PrepareCommit
    env.txn_metadata1.add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)})
    records = MemoryRecords.with_records(Compression.NONE, SimpleRecord(
        key=txn_message_key_bytes1, value=TransactionLog.value_to_bytes(env.txn_metadata1.prepare_no_transit(), True)),
        initial_offset=start_offset)

    # the load waits on this latch, so the delete happens before it returns
    latch = threading.Event()
    file_records_mock.size_in_bytes.return_value = records.size_in_bytes()

    def read_into(buffer: bytearray, position: int) -> None:
        assert latch.wait(60)
        buffer[:] = bytes(records.buffer())
    file_records_mock.read_into.side_effect = read_into

    load_coordinator_epoch = 0
    partition_and_leader_epoch = TransactionPartitionAndLeaderEpoch(partition_id, load_coordinator_epoch)

    # the scheduler runs the load in the loading thread (MockScheduler runs due tasks when they are scheduled)
    loading_thread = threading.Thread(target=lambda: tm.load_transactions_for_txn_topic_partition(
        partition_id, load_coordinator_epoch, _no_markers))
    loading_thread.start()
    _wait_until_true(lambda: partition_and_leader_epoch in tm.loading_partitions,
                     "Timed out waiting for loading partition")

    tm.remove_transactions_for_txn_topic_partition(partition_id)
    assert partition_and_leader_epoch not in tm.loading_partitions

    latch.set()
    loading_thread.join(60)
    assert not loading_thread.is_alive()

    # nothing was loaded
    assert tm.get_transaction_state(env.txn_metadata1.transactional_id) == (Errors.NOT_COORDINATOR, None)


def _wait_until_true(condition: Callable[[], bool], message: str, timeout_s: float = 15.0) -> None:
    deadline = threading.Event()
    timer = threading.Timer(timeout_s, deadline.set)
    timer.start()
    try:
        while not condition():
            if deadline.wait(0.01):
                raise AssertionError(message)
    finally:
        timer.cancel()


def test_load_and_remove_transactions_for_partition(env: _Env) -> None:
    tm = env.transaction_manager
    m1, m2 = env.txn_metadata1, env.txn_metadata2

    def record(key: bytes, metadata: TransactionMetadata) -> SimpleRecord:
        return SimpleRecord(key=key, value=TransactionLog.value_to_bytes(metadata.prepare_no_transit(), True))

    # id 1: two partitions, then three more, then prepared to commit
    m1.state = Ongoing
    m1.add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)})
    env.txn_records.append(record(txn_message_key_bytes1, m1))
    m1.add_partitions({TopicPartition("topic2", 0), TopicPartition("topic2", 1), TopicPartition("topic2", 2)})
    env.txn_records.append(record(txn_message_key_bytes1, m1))
    m1.state = PrepareCommit
    env.txn_records.append(record(txn_message_key_bytes1, m1))

    # id 2: three partitions, prepared to abort, aborted, then a new epoch with no transaction yet
    m2.state = Ongoing
    m2.add_partitions({TopicPartition("topic3", 0), TopicPartition("topic3", 1), TopicPartition("topic3", 2)})
    env.txn_records.append(record(txn_message_key_bytes2, m2))
    m2.state = PrepareAbort
    env.txn_records.append(record(txn_message_key_bytes2, m2))
    m2.state = CompleteAbort
    env.txn_records.append(record(txn_message_key_bytes2, m2))
    m2.state = Empty
    m2.topic_partitions.clear()
    env.txn_records.append(record(txn_message_key_bytes2, m2))

    start_offset = 15  # any start offset works
    records = MemoryRecords.with_records(Compression.NONE, *env.txn_records, initial_offset=start_offset)
    env.prepare_txn_log(topic_partition, start_offset, records)

    # not owned yet
    assert tm.get_transaction_state(transactional_id1) == (Errors.NOT_COORDINATOR, None)
    assert tm.get_transaction_state(transactional_id2) == (Errors.NOT_COORDINATOR, None)

    tm.load_transactions_for_txn_topic_partition(partition_id, 0, _no_markers)
    env.scheduler.tick()

    error1, cached_pid_metadata1 = tm.get_transaction_state(transactional_id1)
    assert error1 is None, f"{transactional_id1}'s transaction state access returns error {error1}"
    assert cached_pid_metadata1 is not None, f"{transactional_id1}'s transaction state was not loaded into the cache"
    error2, cached_pid_metadata2 = tm.get_transaction_state(transactional_id2)
    assert error2 is None, f"{transactional_id2}'s transaction state access returns error {error2}"
    assert cached_pid_metadata2 is not None, f"{transactional_id2}'s transaction state was not loaded into the cache"

    # the latest state of each transaction
    assert cached_pid_metadata1.transaction_metadata == m1
    assert cached_pid_metadata2.transaction_metadata == m2

    tm.remove_transactions_for_txn_topic_partition(partition_id, coordinator_epoch)
    env.scheduler.tick()

    assert tm.get_transaction_state(transactional_id1) == (Errors.NOT_COORDINATOR, None)
    assert tm.get_transaction_state(transactional_id2) == (Errors.NOT_COORDINATOR, None)


def test_complete_transition_when_append_succeeded(env: _Env) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)

    env.prepare_for_txn_message_append(Errors.NONE)
    env.expected_error = Errors.NONE

    new_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)},
                                                            env.time.milliseconds())
    tm.append_transaction_to_log(transactional_id1, coordinator_epoch, new_metadata, env.assert_callback,
                                 request_local=RequestLocal.with_thread_confined_caching())

    assert tm.get_transaction_state(transactional_id1) == (
        None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, env.txn_metadata1))
    assert env.txn_metadata1.pending_state is None


def _append_fails_with(env: _Env, append_errors: list[Errors], expected: Errors) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)
    env.expected_error = expected
    request_local = RequestLocal.with_thread_confined_caching()
    for append_error in append_errors:
        failed_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)},
                                                                   env.time.milliseconds())
        env.prepare_for_txn_message_append(append_error)
        tm.append_transaction_to_log(transactional_id1, 10, failed_metadata, env.assert_callback,
                                     request_local=request_local)
        assert tm.get_transaction_state(transactional_id1) == (
            None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, env.txn_metadata1))
        assert env.txn_metadata1.pending_state is None


def test_append_fail_to_coordinator_not_available_error(env: _Env) -> None:
    _append_fails_with(env, [Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                             Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT],
                       Errors.COORDINATOR_NOT_AVAILABLE)


def test_append_fail_to_not_coordinator_error(env: _Env) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)

    env.expected_error = Errors.NOT_COORDINATOR
    failed_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)}, env.time.milliseconds())

    env.prepare_for_txn_message_append(Errors.NOT_LEADER_OR_FOLLOWER)
    request_local = RequestLocal.with_thread_confined_caching()
    tm.append_transaction_to_log(transactional_id1, 10, failed_metadata, env.assert_callback,
                                 request_local=request_local)
    assert tm.get_transaction_state(transactional_id1) == (
        None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, env.txn_metadata1))
    assert env.txn_metadata1.pending_state is None

    failed_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)}, env.time.milliseconds())
    env.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(partition_id, coordinator_epoch)
    tm.append_transaction_to_log(transactional_id1, 10, failed_metadata, env.assert_callback,
                                 request_local=request_local)

    env.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(partition_id, coordinator_epoch)
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch + 1, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)
    tm.append_transaction_to_log(transactional_id1, 10, failed_metadata, env.assert_callback,
                                 request_local=request_local)

    env.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(partition_id, coordinator_epoch)
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    tm.append_transaction_to_log(transactional_id1, 10, failed_metadata, env.assert_callback,
                                 request_local=request_local)


def test_append_fail_to_coordinator_loading_error(env: _Env) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)

    env.expected_error = Errors.COORDINATOR_LOAD_IN_PROGRESS
    failed_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)}, env.time.milliseconds())

    env.prepare_for_txn_message_append(Errors.NONE)
    tm.remove_transactions_for_txn_topic_partition(partition_id, coordinator_epoch)
    tm.add_loading_partition(partition_id, coordinator_epoch + 1)
    tm.append_transaction_to_log(transactional_id1, 10, failed_metadata, env.assert_callback,
                                 request_local=RequestLocal.with_thread_confined_caching())


def test_append_fail_to_unknown_error(env: _Env) -> None:
    _append_fails_with(env, [Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE], Errors.UNKNOWN_SERVER_ERROR)


def test_pending_state_not_reset_on_retry_append(env: _Env) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)

    env.expected_error = Errors.COORDINATOR_NOT_AVAILABLE
    failed_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic2", 0)}, env.time.milliseconds())

    env.prepare_for_txn_message_append(Errors.UNKNOWN_TOPIC_OR_PARTITION)
    tm.append_transaction_to_log(transactional_id1, 10, failed_metadata, env.assert_callback, lambda _: True,
                                 RequestLocal.with_thread_confined_caching())
    assert tm.get_transaction_state(transactional_id1) == (
        None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, env.txn_metadata1))
    assert env.txn_metadata1.pending_state is Ongoing


def test_append_transaction_to_log_while_producer_fenced(env: _Env) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, 0, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)

    env.prepare_for_txn_message_append(Errors.NONE)
    env.expected_error = Errors.NOT_COORDINATOR

    new_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)},
                                                            env.time.milliseconds())
    # the cache changes while the append is prepared
    env.txn_metadata1.producer_epoch = env.txn_metadata1.producer_epoch + 1

    tm.append_transaction_to_log(transactional_id1, 10, new_metadata, env.assert_callback,
                                 request_local=RequestLocal.with_thread_confined_caching())


def test_append_transaction_to_log_while_pending_state_changed(env: _Env) -> None:
    tm = env.transaction_manager
    tm.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, {})
    tm.put_transaction_state_if_not_exists(env.txn_metadata1)

    env.prepare_for_txn_message_append(Errors.NONE)
    env.expected_error = Errors.INVALID_PRODUCER_EPOCH

    new_metadata = env.txn_metadata1.prepare_add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)},
                                                            env.time.milliseconds())
    # the pending state is cleared while the append is under way
    env.txn_metadata1.pending_state = None

    with pytest.raises(IllegalStateException):
        tm.append_transaction_to_log(transactional_id1, 10, new_metadata, env.assert_callback,
                                     request_local=RequestLocal.with_thread_confined_caching())


def test_should_return_not_coordinator_error_if_transaction_id_partition_not_owned(env: _Env) -> None:
    assert env.transaction_manager.get_transaction_state(transactional_id1) == (Errors.NOT_COORDINATOR, None)


def test_list_transactions_with_coordinator_loading_in_progress(env: _Env) -> None:
    env.transaction_manager.add_loading_partition(partition_id=0, coordinator_epoch=15)
    list_response = env.transaction_manager.list_transaction_states(set(), set(), -1)
    assert list_response["error_code"] == Errors.COORDINATOR_LOAD_IN_PROGRESS


def test_list_transactions_filtering(env: _Env) -> None:
    tm = env.transaction_manager
    for pid in range(num_partitions):
        tm.add_loaded_transactions_to_cache(pid, 0, {})

    def put_transaction(transactional_id: str, producer_id: int, state: TransactionState) -> None:
        txn_metadata = env.transaction_metadata(transactional_id, producer_id, state)
        error, _ = tm.put_transaction_state_if_not_exists(txn_metadata)
        assert error is None, f"Failed to insert transaction {txn_metadata} due to error {error}"

    put_transaction("t0", 0, Ongoing)
    put_transaction("t1", 1, Ongoing)
    # transactions of various durations
    env.time.sleep(1000)
    put_transaction("t2", 2, PrepareCommit)
    put_transaction("t3", 3, PrepareAbort)
    env.time.sleep(1000)
    put_transaction("t4", 4, CompleteCommit)
    put_transaction("t5", 5, CompleteAbort)
    put_transaction("t6", 6, CompleteAbort)
    put_transaction("t7", 7, PrepareEpochFence)
    env.time.sleep(1000)
    # Dead ids are on their way out: never listed
    put_transaction("t8", 8, Dead)

    def assert_list_transactions(expected_transactional_ids: set[str], filter_producer_ids: set[int] | None = None,
                                 filter_states: set[str] | None = None, filter_duration: int = -1) -> None:
        filter_states = filter_states or set()
        list_response = tm.list_transaction_states(filter_producer_ids or set(), filter_states, filter_duration)
        assert list_response["error_code"] == Errors.NONE
        assert {s["transactional_id"] for s in list_response["transaction_states"]} == expected_transactional_ids
        expected_unknown_states = {s for s in filter_states if TransactionState.from_name(s) is None}
        assert set(list_response["unknown_state_filters"]) == expected_unknown_states

    assert_list_transactions({"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"})
    assert_list_transactions({"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"}, filter_duration=0)
    assert_list_transactions({"t0", "t1", "t2", "t3"}, filter_duration=1000)
    assert_list_transactions({"t0", "t1"}, filter_duration=2000)
    assert_list_transactions(set(), filter_duration=3000)
    assert_list_transactions({"t0", "t1"}, filter_states={"Ongoing"})
    assert_list_transactions({"t0", "t1"}, filter_states={"Ongoing", "UnknownState"})
    assert_list_transactions({"t2", "t4"}, filter_states={"PrepareCommit", "CompleteCommit"})
    assert_list_transactions(set(), filter_states={"UnknownState"})
    assert_list_transactions({"t5"}, filter_producer_ids={5})
    assert_list_transactions({"t5", "t6"}, filter_producer_ids={5, 6, 8, 9})
    assert_list_transactions({"t4"}, filter_producer_ids={4, 5}, filter_states={"CompleteCommit"})
    assert_list_transactions({"t4", "t5"}, filter_producer_ids={4, 5},
                             filter_states={"CompleteCommit", "CompleteAbort"})
    assert_list_transactions(set(), filter_producer_ids={3, 6}, filter_states={"UnknownState"})
    assert_list_transactions(set(), filter_producer_ids={10}, filter_states={"CompleteCommit"})
    assert_list_transactions(set(), filter_states={"Dead"})


def test_should_only_consider_transactions_in_the_ongoing_state_to_abort(env: _Env) -> None:
    tm = env.transaction_manager
    for pid in range(num_partitions):
        tm.add_loaded_transactions_to_cache(pid, 0, {})

    tm.put_transaction_state_if_not_exists(env.transaction_metadata("ongoing", 0, Ongoing))
    tm.put_transaction_state_if_not_exists(env.transaction_metadata("not-expiring", 1, Ongoing, txn_timeout=10000))
    tm.put_transaction_state_if_not_exists(env.transaction_metadata("prepare-commit", 2, PrepareCommit))
    tm.put_transaction_state_if_not_exists(env.transaction_metadata("prepare-abort", 3, PrepareAbort))
    tm.put_transaction_state_if_not_exists(env.transaction_metadata("complete-commit", 4, CompleteCommit))
    tm.put_transaction_state_if_not_exists(env.transaction_metadata("complete-abort", 5, CompleteAbort))

    env.time.sleep(2000)
    expiring = tm.timed_out_transactions()
    assert expiring == [TransactionalIdAndProducerIdEpoch("ongoing", 0, 0)]


def test_should_write_txn_markers_for_transaction_in_prepared_commit_state(env: _Env) -> None:
    env.verify_writes_txn_markers_in_prepare_state(PrepareCommit)


def test_should_write_txn_markers_for_transaction_in_prepared_abort_state(env: _Env) -> None:
    env.verify_writes_txn_markers_in_prepare_state(PrepareAbort)


def test_should_remove_complete_commit_expired_transactional_ids(env: _Env) -> None:
    env.setup_and_run_transactional_id_expiration(Errors.NONE, CompleteCommit)
    env.verify_metadata_doesnt_exist(transactional_id1)
    env.verify_metadata_does_exist_and_is_usable(transactional_id2)


def test_should_remove_complete_abort_expired_transactional_ids(env: _Env) -> None:
    env.setup_and_run_transactional_id_expiration(Errors.NONE, CompleteAbort)
    env.verify_metadata_doesnt_exist(transactional_id1)
    env.verify_metadata_does_exist_and_is_usable(transactional_id2)


def test_should_remove_empty_expired_transactional_ids(env: _Env) -> None:
    env.setup_and_run_transactional_id_expiration(Errors.NONE, Empty)
    env.verify_metadata_doesnt_exist(transactional_id1)
    env.verify_metadata_does_exist_and_is_usable(transactional_id2)


def test_should_not_remove_expired_transactional_ids_if_log_append_fails(env: _Env) -> None:
    env.setup_and_run_transactional_id_expiration(Errors.NOT_ENOUGH_REPLICAS, CompleteAbort)
    env.verify_metadata_does_exist_and_is_usable(transactional_id1)
    env.verify_metadata_does_exist_and_is_usable(transactional_id2)


def test_should_not_remove_ongoing_transactional_ids(env: _Env) -> None:
    env.setup_and_run_transactional_id_expiration(Errors.NONE, Ongoing)
    env.verify_metadata_does_exist_and_is_usable(transactional_id1)
    env.verify_metadata_does_exist_and_is_usable(transactional_id2)


def test_should_not_remove_prepare_abort_transactional_ids(env: _Env) -> None:
    env.setup_and_run_transactional_id_expiration(Errors.NONE, PrepareAbort)
    env.verify_metadata_does_exist_and_is_usable(transactional_id1)
    env.verify_metadata_does_exist_and_is_usable(transactional_id2)


def test_should_not_remove_prepare_commit_transactional_ids(env: _Env) -> None:
    env.setup_and_run_transactional_id_expiration(Errors.NONE, PrepareCommit)
    env.verify_metadata_does_exist_and_is_usable(transactional_id1)
    env.verify_metadata_does_exist_and_is_usable(transactional_id2)


def test_transactional_expiration_with_too_small_batch_size(env: _Env) -> None:
    # Every batch is too large for the log, yet the expiration task must not get stuck.
    partition_ids = range(num_partitions)
    max_batch_size = 16

    env.load_transactions_for_partitions(partition_ids)
    all_transactional_ids = env.load_expired_transactional_ids(num_transactional_ids=20)

    env.reset_replica_manager()
    env.expect_log_config(partition_ids, max_batch_size)

    attempted_appends: dict[TopicPartition, list[MemoryRecords]] = {}
    env.expect_transactional_id_expiration(Errors.MESSAGE_TOO_LARGE, attempted_appends)

    assert env.list_expirable_transactional_ids() == all_transactional_ids
    env.transaction_manager.remove_expired_transactional_ids()
    env.verify_expiration_appends(at_least_once=True)

    for batches in attempted_appends.values():
        for batch in batches:
            assert batch.size_in_bytes() > max_batch_size

    assert env.list_expirable_transactional_ids() == all_transactional_ids


def test_transactional_expiration_with_offline_log_dir(env: _Env) -> None:
    online_partition_id, offline_partition_id = 0, 1
    partition_ids = [online_partition_id, offline_partition_id]
    max_batch_size = 512

    env.load_transactions_for_partitions(partition_ids)
    all_transactional_ids = env.load_expired_transactional_ids(num_transactional_ids=20)

    env.reset_replica_manager()
    # only partition 0 has a log config: partition 1 is offline
    env.expect_log_config([online_partition_id], max_batch_size)

    appended_records: dict[TopicPartition, list[MemoryRecords]] = {}
    env.expect_transactional_id_expiration(Errors.NONE, appended_records)

    assert env.list_expirable_transactional_ids() == all_transactional_ids
    env.transaction_manager.remove_expired_transactional_ids()
    env.verify_expiration_appends(at_least_once=False)

    assert {tp.partition for tp in appended_records} == {online_partition_id}

    for_online = {t for t in all_transactional_ids
                  if env.transaction_manager.partition_for(t) == online_partition_id}
    for_offline = all_transactional_ids - for_online

    expired_transactional_ids = env.collect_transactional_ids_from_tombstones(appended_records)
    assert expired_transactional_ids == for_online
    assert env.list_expirable_transactional_ids() == for_offline


def test_transaction_expiration_should_respect_batch_size(env: _Env) -> None:
    partition_ids = range(num_partitions)
    max_batch_size = 512

    env.load_transactions_for_partitions(partition_ids)
    all_transactional_ids = env.load_expired_transactional_ids(num_transactional_ids=1000)

    env.reset_replica_manager()
    env.expect_log_config(partition_ids, max_batch_size)

    appended_records: dict[TopicPartition, list[MemoryRecords]] = {}
    env.expect_transactional_id_expiration(Errors.NONE, appended_records)

    assert env.list_expirable_transactional_ids() == all_transactional_ids
    env.transaction_manager.remove_expired_transactional_ids()
    env.verify_expiration_appends(at_least_once=True)

    assert env.list_expirable_transactional_ids() == set()
    assert {tp.partition for tp in appended_records} == set(partition_ids)

    for batches in appended_records.values():
        assert len(batches) > 1  # a non-trivial case
        assert all(b.size_in_bytes() < max_batch_size for b in batches)

    expired_transactional_ids = env.collect_transactional_ids_from_tombstones(appended_records)
    assert expired_transactional_ids == all_transactional_ids


def test_transaction_expiration_should_not_fail_with_uninitialized_transaction_metadata(env: _Env) -> None:
    partition_ids = range(num_partitions)
    max_batch_size = 512
    transactional_id = "id"
    all_transactional_ids = {transactional_id}

    env.load_transactions_for_partitions(partition_ids)

    # A first InitProducerId whose write failed leaves the metadata like this (epoch -1); if the id is never used
    # again it expires, and that must work.
    txn_metadata = TransactionMetadata.apply(transactional_id, 1, NO_PRODUCER_EPOCH, transaction_timeout_ms, Empty,
                                             env.time.milliseconds())
    env.transaction_manager.put_transaction_state_if_not_exists(txn_metadata)

    env.time.sleep(txn_config.transactional_id_expiration_ms + 1)

    env.reset_replica_manager()
    env.expect_log_config(partition_ids, max_batch_size)

    appended_records: dict[TopicPartition, list[MemoryRecords]] = {}
    env.expect_transactional_id_expiration(Errors.NONE, appended_records)

    env.transaction_manager.remove_expired_transactional_ids()
    env.verify_expiration_appends(at_least_once=True)

    expired_transactional_ids = env.collect_transactional_ids_from_tombstones(appended_records)
    assert expired_transactional_ids == all_transactional_ids


def test_successful_reimmigration(env: _Env) -> None:
    tm = env.transaction_manager
    env.txn_metadata1.state = PrepareCommit
    env.txn_metadata1.add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)})
    env.txn_records.append(SimpleRecord(key=txn_message_key_bytes1, value=TransactionLog.value_to_bytes(
        env.txn_metadata1.prepare_no_transit(), True)))
    records = MemoryRecords.with_records(Compression.NONE, *env.txn_records, initial_offset=0)

    env.prepare_txn_log(topic_partition, 0, records)

    # immigrate at epoch 0
    tm.load_transactions_for_txn_topic_partition(partition_id, 0, _no_markers)
    assert len(tm.loading_partitions) == 0

    # again at epoch 1, without an emigration in between
    env.prepare_txn_log(topic_partition, 0, records)
    tm.load_transactions_for_txn_topic_partition(partition_id, 1, _no_markers)
    assert len(tm.loading_partitions) == 0
    assert partition_id in tm.transaction_metadata_cache
    assert tm.transaction_metadata_cache[partition_id].coordinator_epoch == 1


def test_load_transaction_metadata_with_corrupted_log(env: _Env) -> None:
    # start < end offset but nothing to read: every record expired and the active segment was truncated, or the
    # partition is corrupted.
    start_offset, end_offset = 0, 10
    log_mock = mock.Mock()
    env.replica_manager.get_log.side_effect = lambda tp: log_mock if tp == topic_partition else None
    log_start_offset = mock.PropertyMock(return_value=start_offset)
    type(log_mock).log_start_offset = log_start_offset
    log_mock.read.side_effect = _read_answer(start_offset, FetchDataInfo(LogOffsetMetadata(start_offset),
                                                                          MemoryRecords.EMPTY))
    env.replica_manager.get_log_end_offset.side_effect = lambda tp: end_offset if tp == topic_partition else None

    env.transaction_manager.load_transactions_for_txn_topic_partition(partition_id, 0, _no_markers)
    env.scheduler.tick()

    env.replica_manager.get_log.assert_called_once_with(topic_partition)
    log_start_offset.assert_called_once_with()
    log_mock.read.assert_called_once()
    args, kwargs = log_mock.read.call_args
    assert args == (start_offset,)
    assert kwargs["isolation"] is FetchIsolation.LOG_END and kwargs["min_one_message"] is True
    assert env.replica_manager.get_log_end_offset.call_args_list == [mock.call(topic_partition)] * 2
    assert len(env.transaction_manager.loading_partitions) == 0


def test_ignore_unknown_record_type(env: _Env) -> None:
    tm = env.transaction_manager
    m1 = env.txn_metadata1
    m1.state = PrepareCommit
    m1.add_partitions({TopicPartition("topic1", 0), TopicPartition("topic1", 1)})
    env.txn_records.append(SimpleRecord(key=txn_message_key_bytes1, value=TransactionLog.value_to_bytes(
        m1.prepare_no_transit(), True)))

    unknown_message = to_version_prefixed_bytes(32767, TransactionLogKey())
    unknown_record = SimpleRecord(key=unknown_message, value=unknown_message)
    records = MemoryRecords.with_records(Compression.NONE, unknown_record, *env.txn_records, initial_offset=0)

    env.prepare_txn_log(topic_partition, 0, records)

    tm.load_transactions_for_txn_topic_partition(partition_id, 1, _no_markers)
    assert len(tm.loading_partitions) == 0
    assert partition_id in tm.transaction_metadata_cache
    txn_metadata_pool = tm.transaction_metadata_cache[partition_id].metadata_per_transactional_id
    assert txn_metadata_pool
    assert transactional_id1 in txn_metadata_pool
    txn_metadata = txn_metadata_pool[transactional_id1]
    assert txn_metadata.transactional_id == m1.transactional_id
    assert txn_metadata.producer_id == m1.producer_id
    assert txn_metadata.last_producer_id == m1.last_producer_id
    assert txn_metadata.producer_epoch == m1.producer_epoch
    assert txn_metadata.last_producer_epoch == m1.last_producer_epoch
    assert txn_metadata.txn_timeout_ms == m1.txn_timeout_ms
    assert txn_metadata.state is m1.state
    assert txn_metadata.topic_partitions == m1.topic_partitions
    assert tm.transaction_metadata_cache[partition_id].coordinator_epoch == 1


@pytest.mark.parametrize("transaction_version", [0, 1, 2], ids=["TV_0", "TV_1", "TV_2"])
def test_uses_flexible_records(env: _Env, transaction_version: int) -> None:
    metadata_cache = mock.Mock()
    metadata_cache.features.return_value = _features(transaction_version)
    transaction_manager = TransactionStateManager(0, env.scheduler, env.replica_manager, metadata_cache, txn_config,
                                                  env.time, None)
    expect_flexible_records = transaction_version > 0
    assert transaction_manager.uses_flexible_records() == expect_flexible_records
