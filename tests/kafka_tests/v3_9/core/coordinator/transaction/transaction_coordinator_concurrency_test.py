"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionCoordinatorConcurrencyTest.scala (Kafka
3.9), with the part of core/src/test/scala/unit/kafka/coordinator/AbstractCoordinatorConcurrencyTest.scala it extends
(the operation sequences and TestReplicaManager) ported beside it.

TestReplicaManager is a real ReplicaManager whose appends are DelayedProduces in a real purgatory that complete on
their third attempt, so responses come back on whichever thread checks the purgatory. Mockito's mocks (MetadataCache,
UnifiedLog, FileRecords, NetworkClient, ProducerIdManager) are unittest.mock objects. Java's executor is a
ThreadPoolExecutor of `N_THREADS`; TestUtils.computeUntilTrue polls with a 15 s deadline.
"""

from __future__ import annotations

import concurrent.futures
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicInteger
from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.internals.topic import TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V2,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_TIMESTAMP,
)
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_coordinator import (
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_log import TransactionLog
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    SHORT_MAX_VALUE,
    CompleteAbort,
    CompleteCommit,
    Empty,
    Ongoing,
    PrepareCommit,
    TransactionMetadata,
    TransactionState,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import (
    TransactionConfig,
    TransactionStateManager,
)
from kafka_edu.v3_9.core.server import kafka_config as kafka_config_39
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v3_9.core.server.delayed_operation_key import TopicPartitionOperationKey
from kafka_edu.v3_9.core.server.delayed_produce import DelayedProduce, ProduceMetadata, ProducePartitionStatus
from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.core.server.request_local import RequestLocal
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.mock_scheduler import MockScheduler
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.server_common.server.util.timer.mock_timer import MockTimer
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionCoordinatorConcurrencyTest.scala",
    cases=[
        "testConcurrentGoodPathWithConcurrentPartitionLoading",
        "testConcurrentGoodPathSequence",
        "testConcurrentRandomSequences",
        "testConcurrentLoadUnloadPartitions",
        "testConcurrentTransactionExpiration",
        "testConcurrentNewInitProducerIdRequests",
        "testConcurrentInitProducerIdRequestsOneNewOneContinuing",
        "testConcurrentContinuingInitProducerIdRequests",
        "testConcurrentInitProducerIdRequestsWithRetry",
        "testConcurrentInitProducerRequestsAtPidBoundary",
        "testConcurrentInitProducerRequestsWithRetryAtPidBoundary",
    ],
)

N_THREADS = 5
WAIT_TIME_S = 15.0


def _compute_until_true(compute: Callable[[], Any], predicate: Callable[[Any], bool]) -> tuple[Any, bool]:
    """TestUtils.computeUntilTrue: recompute until the predicate holds or the deadline passes."""
    deadline = threading.Event()
    timer = threading.Timer(WAIT_TIME_S, deadline.set)
    timer.start()
    try:
        while True:
            result = compute()
            if predicate(result):
                return result, True
            if deadline.wait(0.01):
                return result, False
    finally:
        timer.cancel()


# -- AbstractCoordinatorConcurrencyTest -------------------------------------------------------------------------------

class Action:
    def run(self) -> None:
        raise NotImplementedError

    def await_(self) -> None:
        raise NotImplementedError


class _FnAction(Action):
    def __init__(self, run: Callable[[], None], await_: Callable[[], None]) -> None:
        self._run, self._await = run, await_

    def run(self) -> None:
        self._run()

    def await_(self) -> None:
        self._await()


class TestReplicaManager(ReplicaManager):
    """Appends complete as DelayedProduces on their third attempt; logs and log end offsets are what the test sets."""

    __test__ = False  # not a pytest class

    def __init__(self, config: Any, time: Any, scheduler: Any, log_manager: Any, quota_managers: Any,
                 watch_keys: set[TopicPartitionOperationKey], produce_purgatory: DelayedOperationPurgatory[Any],
                 fetch_purgatory: DelayedOperationPurgatory[Any],
                 delete_records_purgatory: DelayedOperationPurgatory[Any],
                 elect_leader_purgatory: DelayedOperationPurgatory[Any],
                 remote_fetch_purgatory: DelayedOperationPurgatory[Any]) -> None:
        super().__init__(config, time, scheduler, log_manager, None, None, None, quota_managers=quota_managers,
                         delayed_produce_purgatory_param=produce_purgatory,
                         delayed_fetch_purgatory_param=fetch_purgatory,
                         delayed_delete_records_purgatory_param=delete_records_purgatory,
                         delayed_elect_leader_purgatory_param=elect_leader_purgatory,
                         delayed_remote_fetch_purgatory_param=remote_fetch_purgatory,
                         thread_name_prefix=type(self).__name__, replica_fetcher_manager=mock.Mock())
        self.watch_keys = watch_keys
        self._watch_keys_lock = threading.Lock()
        self.producer_purgatory = produce_purgatory
        self.logs: dict[TopicPartition, tuple[Any, int]] | None = None

    @staticmethod
    def apply(config: Any, time: Any, scheduler: Any, timer: Any, log_manager: Any, quota_managers: Any,
              produce_purgatory: DelayedOperationPurgatory[Any],
              watch_keys: set[TopicPartitionOperationKey]) -> TestReplicaManager:
        def purgatory(name: str) -> DelayedOperationPurgatory[Any]:
            return DelayedOperationPurgatory(name, timer, reaper_enabled=False)
        return TestReplicaManager(config, time, scheduler, log_manager, quota_managers, watch_keys,
                                  produce_purgatory, purgatory("Fetch"), purgatory("DeleteRecords"),
                                  purgatory("ElectLeader"), purgatory("RemoteFetch"))

    def maybe_start_transaction_verification_for_partition(self, topic_partition: TopicPartition,
                                                           transactional_id: str, producer_id: int,
                                                           producer_epoch: int, base_sequence: int,
                                                           callback: Callable[..., None],
                                                           transaction_supported_operation: Any) -> None:
        # no verification
        callback((Errors.NONE, None))

    def try_complete_actions(self) -> None:
        with self._watch_keys_lock:
            keys = list(self.watch_keys)
        for key in keys:
            self.producer_purgatory.check_and_complete(key)

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, origin: Any,
                       entries_per_partition: Mapping[TopicPartition, MemoryRecords],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None],
                       delayed_produce_lock: Any = None,
                       record_validation_stats_callback: Callable[[dict[TopicPartition, Any]], None] = lambda _: None,
                       request_local: Any = None, action_queue: Any = None,
                       verification_guards: Mapping[TopicPartition, Any] | None = None) -> None:
        if not entries_per_partition:
            return
        produce_metadata = ProduceMetadata(1, {
            tp: ProducePartitionStatus(0, PartitionResponse(Errors.NONE, base_offset=0, log_append_time=NO_TIMESTAMP,
                                                            log_start_offset=0))
            for tp in entries_per_partition})
        delayed_produce = _ThirdAttemptDelayedProduce(produce_metadata, self, response_callback, delayed_produce_lock,
                                                      list(entries_per_partition))
        producer_request_keys = [TopicPartitionOperationKey.apply(tp) for tp in entries_per_partition]
        with self._watch_keys_lock:
            self.watch_keys.update(producer_request_keys)
        self.producer_purgatory.try_complete_else_watch(delayed_produce, producer_request_keys)

    def get_magic(self, topic_partition: TopicPartition) -> int | None:
        return MAGIC_VALUE_V2

    def get_or_create_logs(self) -> dict[TopicPartition, tuple[Any, int]]:
        if self.logs is None:
            self.logs = {}
        return self.logs

    def update_log(self, topic_partition: TopicPartition, log: Any, end_offset: int) -> None:
        self.get_or_create_logs()[topic_partition] = (log, end_offset)

    def get_log_config(self, topic_partition: TopicPartition) -> Any:
        entry = self.get_or_create_logs().get(topic_partition)
        return None if entry is None else entry[0].config

    def get_log(self, topic_partition: TopicPartition) -> Any:
        entry = self.get_or_create_logs().get(topic_partition)
        return None if entry is None else entry[0]

    def get_log_end_offset(self, topic_partition: TopicPartition) -> int | None:
        entry = self.get_or_create_logs().get(topic_partition)
        return None if entry is None else entry[1]


class _ThirdAttemptDelayedProduce(DelayedProduce):
    """Completes on its third attempt, so produces finish on different threads."""

    def __init__(self, produce_metadata: ProduceMetadata, replica_manager: ReplicaManager,
                 response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None], lock: Any,
                 partitions: list[TopicPartition]) -> None:
        super().__init__(5, produce_metadata, replica_manager, response_callback, lock)
        self.complete_attempts = AtomicInteger(0)
        self._partitions = partitions
        self._callback = response_callback

    def try_complete(self) -> bool:
        if self.complete_attempts.increment_and_get() >= 3:
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self._callback({tp: PartitionResponse(Errors.NONE, base_offset=0, log_append_time=NO_TIMESTAMP,
                                              log_start_offset=0) for tp in self._partitions})


class Transaction:
    """A coordinator member: one transactional id."""

    def __init__(self, transactional_id: str, producer_id: int, time: Any) -> None:
        self.transactional_id = transactional_id
        self.txn_message_key_bytes = TransactionLog.key_to_bytes(transactional_id)
        self.ended = False

    def __repr__(self) -> str:
        return self.transactional_id


class Operation:
    def __init__(self, env: _Env) -> None:
        self.env = env

    def run(self, member: Transaction) -> None:
        raise NotImplementedError

    def await_and_verify(self, member: Transaction) -> None:
        raise NotImplementedError

    def action_with_verify(self, member: Transaction) -> Action:
        return _FnAction(lambda: self.run(member), lambda: self.await_and_verify(member))

    def action_no_verify(self, member: Transaction) -> Action:
        # no waiting: the operation may block
        return _FnAction(lambda: self.run(member), lambda: self.env.timer.advance_clock(100))


class TxnOperation(Operation):
    def __init__(self, env: _Env) -> None:
        super().__init__(env)
        self.result: Any = None

    def result_callback(self, r: Any) -> None:
        self.result = r


class InitProducerIdOperation(TxnOperation):
    def __init__(self, env: _Env, producer_id_and_epoch: tuple[int, int] | None = None) -> None:
        super().__init__(env)
        self.producer_id_and_epoch = producer_id_and_epoch

    def run(self, txn: Transaction) -> None:
        self.env.transaction_coordinator.handle_init_producer_id(
            txn.transactional_id, 60000, self.producer_id_and_epoch, self.result_callback,
            RequestLocal.with_thread_confined_caching())
        self.env.replica_manager.try_complete_actions()

    def await_and_verify(self, txn: Transaction) -> None:
        init_pid_result = self.result
        if init_pid_result is None:
            raise IllegalStateError("InitProducerId has not completed")
        assert init_pid_result.error == Errors.NONE
        self.env.verify_transaction(txn, Empty)


class AddPartitionsToTxnOperation(TxnOperation):
    def __init__(self, env: _Env, partitions: set[TopicPartition]) -> None:
        super().__init__(env)
        self.partitions = partitions

    def run(self, txn: Transaction) -> None:
        txn_metadata = self.env.transaction_metadata(txn)
        if txn_metadata is not None:
            self.env.transaction_coordinator.handle_add_partitions_to_transaction(
                txn.transactional_id, txn_metadata.producer_id, txn_metadata.producer_epoch, self.partitions,
                self.result_callback, RequestLocal.with_thread_confined_caching())
            self.env.replica_manager.try_complete_actions()

    def await_and_verify(self, txn: Transaction) -> None:
        if self.result is None:
            raise IllegalStateError("AddPartitionsToTransaction has not completed")
        assert self.result == Errors.NONE
        self.env.verify_transaction(txn, Ongoing)


class EndTxnOperation(TxnOperation):
    def run(self, txn: Transaction) -> None:
        txn_metadata = self.env.transaction_metadata(txn)
        if txn_metadata is not None:
            self.env.transaction_coordinator.handle_end_transaction(
                txn.transactional_id, txn_metadata.producer_id, txn_metadata.producer_epoch,
                self._transaction_result(txn), self.result_callback, RequestLocal.with_thread_confined_caching())

    def await_and_verify(self, txn: Transaction) -> None:
        error = self.result
        if error is None:
            raise IllegalStateError("EndTransaction has not completed")
        if not txn.ended:
            txn.ended = True
            assert error == Errors.NONE
            expected_state = CompleteCommit if self._transaction_result(txn) == TransactionResult.COMMIT \
                else CompleteAbort
            self.env.verify_transaction(txn, expected_state)
        else:
            assert error == Errors.INVALID_TXN_STATE

    @staticmethod
    def _transaction_result(txn: Transaction) -> TransactionResult:
        # commit or abort by the parity of the id's last character (its index's last digit)
        return TransactionResult.COMMIT if ord(txn.transactional_id[-1]) % 2 == 0 else TransactionResult.ABORT


class IllegalStateError(AssertionError):
    """Scala's IllegalStateException thrown by the test itself."""


class _Env:
    """The test class's fields and helpers, fresh per case (setUp / tearDown are the fixture)."""

    n_transactions = N_THREADS * 10
    coordinator_epoch = 10
    num_partitions = N_THREADS * 5
    producer_id = 11

    def __init__(self) -> None:
        # AbstractCoordinatorConcurrencyTest.setUp
        self.server_props = create_broker_config(0, "")
        self.random = random.Random()
        self.time = MockTime()
        self.timer = MockTimer(self.time)
        self.scheduler = MockScheduler(self.time)
        self.executor = concurrent.futures.ThreadPoolExecutor(N_THREADS)
        mock_log_manager = mock.Mock()
        mock_log_manager.live_log_dirs.return_value = []
        produce_purgatory: DelayedOperationPurgatory[Any] = DelayedOperationPurgatory("Produce", self.timer, 1,
                                                                                      reaper_enabled=False)
        watch_keys: set[TopicPartitionOperationKey] = set()
        self.replica_manager = TestReplicaManager.apply(kafka_config_39.from_props(self.server_props), self.time,
                                                        self.scheduler, self.timer, mock_log_manager, mock.Mock(),
                                                        produce_purgatory, watch_keys)
        self._sync = threading.RLock()  # the test instance's monitor (Scala's `synchronized`)

        # TransactionCoordinatorConcurrencyTest
        self.txn_config = TransactionConfig()
        self.all_transactions: set[Transaction] = set()
        self.txn_records_by_partition: dict[int, list[SimpleRecord]] = {i: [] for i in range(self.num_partitions)}
        self.bump_producer_id = False

        broker_node = Node(0, "host", 10)
        metadata_cache = mock.Mock()
        metadata_cache.get_partition_leader_endpoint.return_value = broker_node
        metadata_cache.features.return_value.finalized_features.return_value = {"transaction.version": 2}
        metadata_cache.metadata_version.return_value = MetadataVersion.latest_production()

        self.txn_state_manager = TransactionStateManager(0, self.scheduler, self.replica_manager, metadata_cache,
                                                         self.txn_config, self.time, None)
        self.txn_state_manager.startup(lambda: self.num_partitions, enable_transactional_id_expiration=True)
        for i in range(self.num_partitions):
            self.txn_state_manager.add_loaded_transactions_to_cache(i, self.coordinator_epoch, {})

        pid_generator = mock.Mock()
        pid_generator.generate_producer_id.side_effect = \
            lambda: self.producer_id + 1 if self.bump_producer_id else self.producer_id
        network_client = mock.Mock()
        self.txn_marker_channel_manager = TransactionMarkerChannelManager(
            kafka_config_39.from_props(self.server_props), metadata_cache, lambda node: network_client,
            self.txn_state_manager, self.time)
        self.transaction_coordinator = TransactionCoordinator(self.txn_config, self.scheduler, lambda: pid_generator,
                                                              self.txn_state_manager,
                                                              self.txn_marker_channel_manager, self.time, None)
        self.all_operations = [InitProducerIdOperation(self),
                               AddPartitionsToTxnOperation(self, {TopicPartition("topic", 0)}),
                               EndTxnOperation(self)]

    def tear_down(self) -> None:
        try:
            self.transaction_coordinator.shutdown()
        finally:
            for step in (lambda: self.replica_manager.shutdown(False), lambda: self.executor.shutdown(wait=False),
                         self.timer.close, self.scheduler.shutdown, self.time.scheduler.shutdown):
                try:
                    step()
                except Exception:  # CoreUtils.swallow
                    pass

    # -- AbstractCoordinatorConcurrencyTest's sequences -------------------------------------------------------------

    def verify_concurrent_operations(self, create_members: Callable[[str], set[Transaction]],
                                     operations: list[Operation]) -> None:
        self._ordered(create_members("verifyConcurrentOperations"), operations)

    def verify_concurrent_random_sequences(self, create_members: Callable[[str], set[Transaction]],
                                           operations: list[Operation]) -> None:
        for i in range(11):
            # random operations, then the proper sequence must still work
            self._random(create_members(f"random{i}"), operations)
            self._ordered(create_members(f"ordered{i}"), operations)

    def _ordered(self, members: set[Transaction], operations: list[Operation]) -> None:
        for op in operations:
            self.verify_concurrent_actions({op.action_with_verify(m) for m in members})

    def _random(self, members: set[Transaction], operations: list[Operation]) -> None:
        op_count = len(operations)
        for _ in range(op_count + 1):
            self.verify_concurrent_actions({
                operations[self.random.randrange(op_count)].action_no_verify(m) for m in members})

    def verify_concurrent_actions(self, actions: Iterable[Action]) -> None:
        actions = list(actions)
        futures = [self.executor.submit(a.run) for a in actions]
        for f in futures:
            f.result()
        self.enable_completion()
        for a in actions:
            a.await_()

    def enable_completion(self) -> None:
        self.replica_manager.try_complete_actions()
        self.scheduler.tick()

        def create_response(request: Any) -> Any:
            return build(ApiKeys.WRITE_TXN_MARKERS.response_schema(1), markers=[
                dict(producer_id=marker.producer_id, topics=[
                    dict(name=topic.name, partitions=[dict(partition_index=p, error_code=Errors.NONE)
                                                      for p in topic.partition_indexes])
                    for topic in marker.topics])
                for marker in request.markers])

        with self._sync:
            for request_and_handler in self.txn_marker_channel_manager.generate_requests():
                request = request_and_handler.request.build()
                response = create_response(request)
                request_and_handler.handler.on_complete(ClientResponse(
                    RequestHeader(ApiKeys.PRODUCE, 0, "client", 1), None, 0, 0, False, None, None, response))

    # -- TransactionCoordinatorConcurrencyTest's helpers ------------------------------------------------------------

    def load_unload_actions(self, partitions_to_load: set[int], partitions_to_unload: set[int]) -> set[Action]:
        """Load one set of partitions while unloading another; the ones to load are unloaded first (setUp loaded
        every partition)."""
        transactions = {t for i in range(1, 11)
                        for t in self.create_transactions(f"testConcurrentLoadUnloadPartitions{i}-")}
        for txn in transactions:
            self.prepare_transaction(txn)
        unload = [self.unload_txn_partition_action(p) for p in partitions_to_load]
        for a in unload:
            a.run()
        for a in unload:
            a.await_()
        return ({self.load_txn_partition_action(p) for p in partitions_to_load}
                | {self.unload_txn_partition_action(p) for p in partitions_to_unload})

    def create_transactions(self, txn_prefix: str) -> set[Transaction]:
        transactions = {Transaction(f"{txn_prefix}{i}", i, self.time) for i in range(self.n_transactions)}
        self.all_transactions |= transactions
        return transactions

    def verify_transaction(self, txn: Transaction, expected_state: TransactionState) -> None:
        def compute() -> TransactionMetadata | None:
            self.enable_completion()
            return self.transaction_metadata(txn)
        metadata, success = _compute_until_true(
            compute, lambda m: m is not None and m.state is expected_state and m.pending_state is None)
        assert success, f"Invalid metadata state {metadata}"

    def transaction_metadata(self, txn: Transaction) -> TransactionMetadata | None:
        error, metadata = self.txn_state_manager.get_transaction_state(txn.transactional_id)
        if error is not None:
            if error == Errors.NOT_COORDINATOR:
                return None
            raise AssertionError(f"Unexpected transaction error {error} for {txn}")
        return None if metadata is None else metadata.transaction_metadata

    def prepare_transaction(self, txn: Transaction) -> None:
        partition_id = self.txn_state_manager.partition_for(txn.transactional_id)
        txn_records = self.txn_records_by_partition[partition_id]
        init_pid_op = InitProducerIdOperation(self)
        add_partitions_op = AddPartitionsToTxnOperation(self, {TopicPartition("topic", 0)})
        init_pid_op.run(txn)
        init_pid_op.await_and_verify(txn)
        add_partitions_op.run(txn)
        add_partitions_op.await_and_verify(txn)

        txn_metadata = self.transaction_metadata(txn)
        if txn_metadata is None:
            raise IllegalStateError(f"Transaction not found {txn}")
        txn_records.append(SimpleRecord(key=txn.txn_message_key_bytes,
                                        value=TransactionLog.value_to_bytes(txn_metadata.prepare_no_transit(), True)))
        txn_metadata.state = PrepareCommit
        txn_records.append(SimpleRecord(key=txn.txn_message_key_bytes,
                                        value=TransactionLog.value_to_bytes(txn_metadata.prepare_no_transit(), True)))
        self.prepare_txn_log(partition_id)

    def prepare_txn_log(self, partition_id: int) -> None:
        log_mock = mock.Mock()
        log_mock.config = LogConfig({})
        file_records_mock = mock.Mock()

        topic_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
        log_end_offset = self.replica_manager.get_log_end_offset(topic_partition)
        start_offset = 20 if log_end_offset is None else log_end_offset
        records = MemoryRecords.with_records(Compression.NONE, *self.txn_records_by_partition[partition_id],
                                             initial_offset=start_offset)
        end_offset = start_offset + len(list(records.records()))

        type(log_mock).log_start_offset = mock.PropertyMock(return_value=start_offset)
        fetch_data_info = FetchDataInfo(LogOffsetMetadata(start_offset), file_records_mock)
        log_mock.read.side_effect = lambda offset, max_length, isolation, min_one_message: (
            fetch_data_info if offset == start_offset and isolation is FetchIsolation.LOG_END and min_one_message
            else None)
        file_records_mock.size_in_bytes.return_value = records.size_in_bytes()

        def read_into(buffer: bytearray, position: int) -> None:
            buffer[:] = bytes(records.buffer())
        file_records_mock.read_into.side_effect = read_into

        with self._sync:
            self.replica_manager.update_log(topic_partition, log_mock, end_offset)

    def prepare_exhausted_epoch_txn_metadata(self, txn: Transaction) -> TransactionMetadata:
        return TransactionMetadata(transactional_id=txn.transactional_id, producer_id=self.producer_id,
                                   last_producer_id=NO_PRODUCER_ID, producer_epoch=SHORT_MAX_VALUE - 1,
                                   last_producer_epoch=NO_PRODUCER_EPOCH, txn_timeout_ms=60000, state=Empty,
                                   topic_partitions=set(), txn_last_update_timestamp=self.time.milliseconds())

    def load_txn_partition_action(self, txn_topic_partition_id: int) -> Action:
        def run() -> None:
            self.transaction_coordinator.on_election(txn_topic_partition_id, self.coordinator_epoch)

        def await_() -> None:
            for txn in list(self.all_transactions):
                if self.txn_state_manager.partition_for(txn.transactional_id) == txn_topic_partition_id:
                    self.verify_transaction(txn, CompleteCommit)
        return _FnAction(run, await_)

    def unload_txn_partition_action(self, txn_topic_partition_id: int) -> Action:
        def run() -> None:
            self.transaction_coordinator.on_resignation(txn_topic_partition_id, self.coordinator_epoch)

        def await_() -> None:
            for txn in list(self.all_transactions):
                if self.txn_state_manager.partition_for(txn.transactional_id) == txn_topic_partition_id:
                    assert self.transaction_metadata(txn) is None, "Transaction metadata not removed"
        return _FnAction(run, await_)

    def expire_transactions_action(self, transactions: set[Transaction]) -> Action:
        def run() -> None:
            for txn in transactions:
                txn_metadata = self.transaction_metadata(txn)
                if txn_metadata is not None:
                    txn_metadata.txn_last_update_timestamp = (self.time.milliseconds()
                                                              - self.txn_config.transactional_id_expiration_ms)
            self.txn_state_manager.enable_transactional_id_expiration()
            self.replica_manager.try_complete_actions()
            self.time.sleep(self.txn_config.remove_expired_transactional_ids_interval_ms + 1)

        def await_() -> None:
            def compute() -> bool:
                self.replica_manager.try_complete_actions()
                return all(self.transaction_metadata(txn) is None for txn in transactions)
            _, success = _compute_until_true(compute, lambda done: done)
            assert success, "Transaction not expired"
        return _FnAction(run, await_)


@pytest.fixture
def env() -> Iterator[_Env]:
    e = _Env()
    yield e
    e.tear_down()


def _results(*ops: InitProducerIdOperation) -> list[InitProducerIdResult]:
    results = [op.result for op in ops]
    assert all(r is not None for r in results)
    return results


def test_concurrent_good_path_with_concurrent_partition_loading(env: _Env) -> None:
    # KAFKA-9777: transactions make progress while a partition load keeps taking the write lock
    keep_running = threading.Event()
    keep_running.set()

    def add_loading_partitions() -> None:
        while keep_running.is_set():
            env.txn_state_manager.add_loading_partition(env.num_partitions + 1, env.coordinator_epoch)
    t = threading.Thread(target=add_loading_partitions)
    t.start()
    try:
        env.verify_concurrent_operations(env.create_transactions, env.all_operations)
    finally:
        keep_running.clear()
        t.join()


def test_concurrent_good_path_sequence(env: _Env) -> None:
    env.verify_concurrent_operations(env.create_transactions, env.all_operations)


def test_concurrent_random_sequences(env: _Env) -> None:
    env.verify_concurrent_random_sequences(env.create_transactions, env.all_operations)


def test_concurrent_load_unload_partitions(env: _Env) -> None:
    partitions_to_load = set(range(env.num_partitions // 2))
    partitions_to_unload = set(range(env.num_partitions // 2, env.num_partitions))
    env.verify_concurrent_actions(env.load_unload_actions(partitions_to_load, partitions_to_unload))


def test_concurrent_transaction_expiration(env: _Env) -> None:
    partitions_to_load = set(range(env.num_partitions // 3))
    partitions_to_unload = set(range(env.num_partitions // 3, env.num_partitions * 2 // 3))
    partitions_with_expiring_txn = set(range(env.num_partitions * 2 // 3, env.num_partitions))
    # Scala's allTransactions here is still empty: the transactions are made by loadUnloadActions below
    expiring_transactions = {txn for txn in env.all_transactions
                             if env.txn_state_manager.partition_for(txn.transactional_id)
                             in partitions_with_expiring_txn}
    expire_action = env.expire_transactions_action(expiring_transactions)
    env.verify_concurrent_actions(env.load_unload_actions(partitions_to_load, partitions_to_unload)
                                  | {expire_action})


def test_concurrent_new_init_producer_id_requests(env: _Env) -> None:
    transactions = [t for i in range(1, 101) for t in env.create_transactions(f"testConcurrentInitProducerID{i}-")]
    env.bump_producer_id = True
    for txn in transactions:
        env.txn_state_manager.put_transaction_state_if_not_exists(env.prepare_exhausted_epoch_txn_metadata(txn))

        # an existing producer bumping its epoch and a new one initializing, at once
        new_producer_op1 = InitProducerIdOperation(env)
        new_producer_op2 = InitProducerIdOperation(env)
        env.verify_concurrent_actions([new_producer_op1.action_no_verify(txn), new_producer_op2.action_no_verify(txn)])

        r1, r2 = _results(new_producer_op1, new_producer_op2)
        if r1.error == Errors.NONE and r2.error == Errors.NONE:
            assert r1.producer_epoch != r2.producer_epoch
        elif r1.error == Errors.NONE:
            assert r1.producer_epoch == 0
        elif r2.error == Errors.NONE:
            assert r2.producer_epoch == 0
        else:
            pytest.fail("One of two InitProducerId requests should succeed")


def test_concurrent_init_producer_id_requests_one_new_one_continuing(env: _Env) -> None:
    transactions = [t for i in range(1, 11) for t in env.create_transactions(f"testConcurrentInitProducerID{i}-")]
    for txn in transactions:
        first_init_req = InitProducerIdOperation(env)
        first_init_req.run(txn)
        first_init_req.await_and_verify(txn)

        # an existing producer bumping its epoch and a new one initializing, at once
        producer_id_and_epoch = (first_init_req.result.producer_id, first_init_req.result.producer_epoch)
        bump_epoch_op = InitProducerIdOperation(env, producer_id_and_epoch)
        new_producer_op = InitProducerIdOperation(env)
        env.verify_concurrent_actions([bump_epoch_op.action_no_verify(txn), new_producer_op.action_no_verify(txn)])

        bump, new = _results(bump_epoch_op, new_producer_op)
        epoch = producer_id_and_epoch[1]
        if bump.error == Errors.NONE and new.error == Errors.NONE:
            # the new producer ran after the bump
            assert new.producer_epoch == epoch + 2
            assert bump.producer_epoch == epoch + 1
        elif bump.error == Errors.NONE:
            assert bump.producer_epoch == epoch + 1
        elif new.error == Errors.NONE:
            assert new.producer_epoch == epoch + 1
        else:
            pytest.fail("One of two InitProducerId requests should succeed")


def test_concurrent_continuing_init_producer_id_requests(env: _Env) -> None:
    transactions = [t for i in range(1, 101) for t in env.create_transactions(f"testConcurrentInitProducerID{i}-")]
    for txn in transactions:
        # two producers re-initializing with an id and epoch while no state exists
        producer_id_and_epoch = (env.producer_id, 10)
        bump_epoch_op1 = InitProducerIdOperation(env, producer_id_and_epoch)
        bump_epoch_op2 = InitProducerIdOperation(env, producer_id_and_epoch)
        env.verify_concurrent_actions([bump_epoch_op1.action_no_verify(txn), bump_epoch_op2.action_no_verify(txn)])

        r1, r2 = _results(bump_epoch_op1, bump_epoch_op2)
        if r1.error == Errors.NONE and r2.error == Errors.NONE:
            pytest.fail("One of two InitProducerId requests should fail due to concurrent requests or non-matching "
                        "epochs")
        elif r1.error == Errors.NONE:
            assert r1.producer_epoch == 0
        elif r2.error == Errors.NONE:
            assert r2.producer_epoch == 0
        else:
            pytest.fail("One of two InitProducerId requests should succeed")


def test_concurrent_init_producer_id_requests_with_retry(env: _Env) -> None:
    transactions = [t for i in range(1, 11) for t in env.create_transactions(f"testConcurrentInitProducerID{i}-")]
    for txn in transactions:
        first_init_req = InitProducerIdOperation(env)
        first_init_req.run(txn)
        first_init_req.await_and_verify(txn)

        initial_producer_id_and_epoch = (first_init_req.result.producer_id, first_init_req.result.producer_epoch)
        bump_epoch_req = InitProducerIdOperation(env, initial_producer_id_and_epoch)
        bump_epoch_req.run(txn)
        bump_epoch_req.await_and_verify(txn)

        # a retry of the bump and a new producer initializing, at once
        bumped_epoch = bump_epoch_req.result.producer_epoch
        retry_bump_epoch_op = InitProducerIdOperation(env, initial_producer_id_and_epoch)
        new_producer_op = InitProducerIdOperation(env)
        env.verify_concurrent_actions([retry_bump_epoch_op.action_no_verify(txn),
                                       new_producer_op.action_no_verify(txn)])

        retry, new = _results(retry_bump_epoch_op, new_producer_op)
        if retry.error == Errors.NONE and new.error == Errors.NONE:
            assert new.producer_epoch == bumped_epoch + 1
            assert retry.producer_epoch == bumped_epoch
        elif retry.error == Errors.NONE:
            assert retry.producer_epoch == bumped_epoch
        elif new.error == Errors.NONE:
            assert new.producer_epoch == bumped_epoch + 1
        else:
            pytest.fail("At least one InitProducerId request should succeed")


def test_concurrent_init_producer_requests_at_pid_boundary(env: _Env) -> None:
    transactions = [t for i in range(1, 11) for t in env.create_transactions(f"testConcurrentInitProducerID{i}-")]
    env.bump_producer_id = True
    for txn in transactions:
        env.txn_state_manager.put_transaction_state_if_not_exists(env.prepare_exhausted_epoch_txn_metadata(txn))

        bump_epoch_op = InitProducerIdOperation(env, (env.producer_id, SHORT_MAX_VALUE - 1))
        new_producer_op = InitProducerIdOperation(env)
        env.verify_concurrent_actions([bump_epoch_op.action_no_verify(txn), new_producer_op.action_no_verify(txn)])

        bump, new = _results(bump_epoch_op, new_producer_op)
        if bump.error == Errors.NONE and new.error == Errors.NONE:
            assert bump.producer_epoch == 0
            assert bump.producer_id == env.producer_id + 1
            assert new.producer_epoch == 1
            assert new.producer_id == env.producer_id + 1
        elif bump.error == Errors.NONE:
            assert bump.producer_epoch == 0
            assert bump.producer_id == env.producer_id + 1
        elif new.error == Errors.NONE:
            assert new.producer_epoch == 0
            assert new.producer_id == env.producer_id + 1
        else:
            pytest.fail("One of two InitProducerId requests should succeed")
    env.bump_producer_id = False


def test_concurrent_init_producer_requests_with_retry_at_pid_boundary(env: _Env) -> None:
    transactions = [t for i in range(1, 11) for t in env.create_transactions(f"testConcurrentInitProducerID{i}-")]
    env.bump_producer_id = True
    for txn in transactions:
        env.txn_state_manager.put_transaction_state_if_not_exists(env.prepare_exhausted_epoch_txn_metadata(txn))

        bump_epoch_req = InitProducerIdOperation(env, (env.producer_id, SHORT_MAX_VALUE - 1))
        bump_epoch_req.run(txn)
        bump_epoch_req.await_and_verify(txn)

        retry_bump_epoch_op = InitProducerIdOperation(env, (env.producer_id, SHORT_MAX_VALUE - 1))
        new_producer_op = InitProducerIdOperation(env)
        env.verify_concurrent_actions([retry_bump_epoch_op.action_no_verify(txn),
                                       new_producer_op.action_no_verify(txn)])

        retry, new = _results(retry_bump_epoch_op, new_producer_op)
        if retry.error == Errors.NONE and new.error == Errors.NONE:
            assert retry.producer_epoch == 0
            assert retry.producer_id == env.producer_id + 1
            assert new.producer_epoch == 1
            assert new.producer_id == env.producer_id + 1
        elif retry.error == Errors.NONE:
            assert retry.producer_epoch == 0
            assert retry.producer_id == env.producer_id + 1
        elif new.error == Errors.NONE:
            assert new.producer_epoch == 1
            assert new.producer_id == env.producer_id + 1
        else:
            pytest.fail("One of two InitProducerId requests should succeed")
    env.bump_producer_id = False
