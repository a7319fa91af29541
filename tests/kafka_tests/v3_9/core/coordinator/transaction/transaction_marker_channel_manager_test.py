"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMarkerChannelManagerTest.scala (Kafka
3.9).

The mocked MetadataCache, NetworkClient and TransactionStateManager are unittest.mock objects (the state manager
autospecced); `when(...)` stubs on given arguments are side effects that look at the arguments, and Mockito's
`clearInvocations` is `reset_mock()` (stubs kept). Requests are compared as the kio bodies their builders build.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
    TxnMarkerEntry,
    WriteTxnMarkersRequestBuilder,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    CompleteCommit,
    PrepareCommit,
    TransactionMetadata,
    TxnTransitMetadata,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    TransactionStateManager,
)
from kafka_edu.v3_9.core.server import kafka_config as kafka_config_39
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import NO_NODE
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMarkerChannelManagerTest.scala",
    cases=[
        "testRemoveMetricsOnClose",
        "shouldOnlyWriteTxnCompletionOnce",
        "shouldNotLoseTxnCompletionAfterLoad",
        "shouldGenerateEmptyMapWhenNoRequestsOutstanding",
        "shouldGenerateRequestPerPartitionPerBroker",
        "shouldSkipSendMarkersWhenLeaderNotFound",
        "shouldSaveForLaterWhenLeaderUnknownButNotAvailable",
        "shouldRemoveMarkersForTxnPartitionWhenPartitionEmigrated",
        "shouldCompleteAppendToLogOnEndTxnWhenSendMarkersSucceed",
        "shouldAbortAppendToLogOnEndTxnWhenNotCoordinatorError",
        "shouldRetryAppendToLogOnEndTxnWhenCoordinatorNotAvailableError",
        "shouldCreateMetricsOnStarting",
    ],
    not_applicable={
        "testRemoveMetricsOnClose": "KafkaMetricsGroup gauges (Yammer): the 3.9 tree has no metrics registry",
        "shouldCreateMetricsOnStarting": "Yammer metrics registry: the 3.9 tree has none",
    },
)

CONFIG = kafka_config_39.from_props(create_broker_config(1, "localhost:2181"))

partition1 = TopicPartition("topic1", 0)
partition2 = TopicPartition("topic1", 1)
broker1 = Node(1, "host", 10)
broker2 = Node(2, "otherhost", 10)
transactional_id1 = "txnId1"
transactional_id2 = "txnId2"
producer_id1 = 0
producer_id2 = 1
producer_epoch = 0
last_producer_epoch = NO_PRODUCER_EPOCH
txn_topic_partition1 = 0
txn_topic_partition2 = 1
coordinator_epoch = 0
coordinator_epoch2 = 1
txn_timeout_ms = 0
txn_result = TransactionResult.COMMIT


def _response(pid_map: dict[int, dict[TopicPartition, Errors]]) -> Any:
    """new WriteTxnMarkersResponse(errors by producer id), as the v1 body."""
    return build(ApiKeys.WRITE_TXN_MARKERS.response_schema(1), markers=[
        dict(producer_id=pid, topics=[dict(name=tp.topic, partitions=[dict(partition_index=tp.partition,
                                                                           error_code=error)])
                                      for tp, error in errors.items()])
        for pid, errors in pid_map.items()])


def _client_response(disconnected: bool, body: Any, time_ms: int = 0) -> ClientResponse:
    return ClientResponse(RequestHeader(ApiKeys.WRITE_TXN_MARKERS, 0, "client", 1), None, time_ms, time_ms,
                          disconnected, None, None, body)


def _create_pid_error_map(errors: Errors) -> dict[int, dict[TopicPartition, Errors]]:
    return {producer_id2: {partition1: errors}}


class _Env:
    def __init__(self) -> None:
        self.metadata_cache = mock.Mock()
        self.network_client = mock.Mock()
        self.txn_state_manager = mock.create_autospec(TransactionStateManager, instance=True)
        self.txn_metadata1 = TransactionMetadata(transactional_id1, producer_id1, producer_id1, producer_epoch,
                                                 last_producer_epoch, txn_timeout_ms, PrepareCommit,
                                                 {partition1, partition2}, txn_start_timestamp=0,
                                                 txn_last_update_timestamp=0)
        self.txn_metadata2 = TransactionMetadata(transactional_id2, producer_id2, producer_id2, producer_epoch,
                                                 last_producer_epoch, txn_timeout_ms, PrepareCommit, {partition1},
                                                 txn_start_timestamp=0, txn_last_update_timestamp=0)
        self.time = MockTime()
        self.channel_manager = TransactionMarkerChannelManager(CONFIG, self.metadata_cache,
                                                               lambda node: self.network_client,
                                                               self.txn_state_manager, self.time)
        self.states: dict[str, tuple[Any, Any]] = {}
        self.leaders: dict[TopicPartition, Callable[[], Node | None]] = {}
        self.txn_state_manager.get_transaction_state.side_effect = lambda t: self.states.get(t)
        self.metadata_cache.get_partition_leader_endpoint.side_effect = \
            lambda topic, partition, listener: self.leaders.get(TopicPartition(topic, partition), lambda: None)()

    def mock_cache(self) -> None:
        partitions = {transactional_id1: txn_topic_partition1, transactional_id2: txn_topic_partition2}
        self.txn_state_manager.partition_for.side_effect = lambda t: partitions.get(t, 0)
        self.states[transactional_id1] = (None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, self.txn_metadata1))
        self.states[transactional_id2] = (None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, self.txn_metadata2))
        self.metadata_cache.metadata_version.return_value = MetadataVersion.latest_production()

    def leader(self, tp: TopicPartition, *nodes: Node | None) -> None:
        """thenReturn(a).thenReturn(b)...: one answer per call, the last one repeated."""
        answers = list(nodes)

        def answer() -> Node | None:
            return answers.pop(0) if len(answers) > 1 else answers[0]
        self.leaders[tp] = answer

    def stub_append(self, transition: TxnTransitMetadata, *answers: Callable[[Callable[[Errors], None]], None]) -> None:
        """when(appendTransactionToLog(eq(transactionalId2), eq(coordinatorEpoch), eq(transition), captor, any,
        any)).thenAnswer(...)...: each call runs the next answer with the captured callback."""
        remaining = list(answers)

        def side_effect(transactional_id: str, epoch: int, new_metadata: TxnTransitMetadata,
                        callback: Callable[[Errors], None], *rest: Any, **kwargs: Any) -> None:
            if transactional_id == transactional_id2 and epoch == coordinator_epoch and new_metadata == transition:
                (remaining.pop(0) if len(remaining) > 1 else remaining[0])(callback)
        self.txn_state_manager.append_transaction_to_log.side_effect = side_effect

    def append_calls(self, epoch: int, transition: TxnTransitMetadata) -> int:
        return sum(1 for c in self.txn_state_manager.append_transaction_to_log.call_args_list
                   if c.args[:3] == (transactional_id2, epoch, transition))

    def requests_by_node(self) -> dict[Node, Any]:
        return {handler.destination: handler.request.build()
                for handler in self.channel_manager.generate_requests()}


@pytest.fixture
def env() -> Iterator[_Env]:
    yield _Env()


def _expected_request(*markers: TxnMarkerEntry) -> Any:
    return WriteTxnMarkersRequestBuilder(ApiKeys.WRITE_TXN_MARKERS.latest_version, tuple(markers)).build()


def test_should_only_write_txn_completion_once(env: _Env) -> None:
    env.mock_cache()
    expected_transition = env.txn_metadata2.prepare_complete(env.time.milliseconds())
    env.leader(partition1, broker1)

    def complete(callback: Callable[[Errors], None]) -> None:
        env.txn_metadata2.complete_transition_to(expected_transition)
        callback(Errors.NONE)
    env.stub_append(expected_transition, complete)

    executor = concurrent.futures.ThreadPoolExecutor(1)
    env.txn_metadata2.lock.acquire()
    try:
        add_marker_future = executor.submit(env.channel_manager.add_txn_markers_to_send, coordinator_epoch, txn_result,
                                            env.txn_metadata2, expected_transition)
        response = _response({producer_id2: {partition1: Errors.NONE}})
        client_response = _client_response(False, response, env.time.milliseconds())

        deadline = threading.Event()
        timer = threading.Timer(15, deadline.set)
        timer.start()
        try:
            while True:
                requests = env.channel_manager.generate_requests()
                if requests:
                    assert len(requests) == 1
                    requests[0].handler.on_complete(client_response)
                    break
                if deadline.wait(0.01):
                    raise AssertionError("Timed out waiting for expected WriteTxnMarkers request")
        finally:
            timer.cancel()
    finally:
        env.txn_metadata2.lock.release()
        executor.shutdown(wait=False)

    add_marker_future.result(timeout=60)  # raises what the task raised
    assert env.append_calls(coordinator_epoch, expected_transition) == 1


def test_should_not_lose_txn_completion_after_load(env: _Env) -> None:
    env.mock_cache()
    expected_transition = env.txn_metadata2.prepare_complete(env.time.milliseconds())
    env.leader(partition1, broker1)

    successful_client_response = _client_response(False, _response({producer_id2: {partition1: Errors.NONE}}),
                                                  env.time.milliseconds())
    disconnected_client_response = _client_response(True, None, env.time.milliseconds())

    client_responses = [successful_client_response, disconnected_client_response]
    get_transaction_state_responses = [
        (Errors.NOT_COORDINATOR, None),
        (Errors.COORDINATOR_LOAD_IN_PROGRESS, None),
        # state loaded again, at the new epoch
        (None, CoordinatorEpochAndTxnMetadata(coordinator_epoch2, env.txn_metadata2)),
    ]

    for client_response in client_responses:
        for get_transaction_state_response in get_transaction_state_responses:
            env.txn_metadata2.topic_partitions.add(partition1)
            env.txn_state_manager.reset_mock()
            # markers out before the load
            env.channel_manager.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata2,
                                                        expected_transition)
            requests1 = env.channel_manager.generate_requests()
            assert len(requests1) == 1

            # the load: markers dropped, the scenario's state, markers added again
            env.channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition2)
            env.states[transactional_id2] = get_transaction_state_response
            env.channel_manager.add_txn_markers_to_send(coordinator_epoch2, txn_result, env.txn_metadata2,
                                                        expected_transition)

            # the marker of the old epoch completes
            requests1[0].handler.on_complete(client_response)

            # then the new epoch's
            env.states[transactional_id2] = (None, CoordinatorEpochAndTxnMetadata(coordinator_epoch2,
                                                                                  env.txn_metadata2))
            requests2 = env.channel_manager.generate_requests()
            assert len(requests2) == 1
            requests2[0].handler.on_complete(successful_client_response)

            assert env.append_calls(coordinator_epoch2, expected_transition) == 1


def test_should_generate_empty_map_when_no_requests_outstanding(env: _Env) -> None:
    assert env.channel_manager.generate_requests() == []


def test_should_generate_request_per_partition_per_broker(env: _Env) -> None:
    env.mock_cache()
    env.leader(partition1, broker1)
    env.leader(partition2, broker2)
    cm = env.channel_manager

    cm.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata1,
                               env.txn_metadata1.prepare_complete(env.time.milliseconds()))
    cm.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata2,
                               env.txn_metadata2.prepare_complete(env.time.milliseconds()))

    assert cm.num_txns_with_pending_markers == 2
    q1, q2 = cm.queue_for_broker(broker1.id), cm.queue_for_broker(broker2.id)
    assert q1 is not None and q2 is not None
    assert q1.total_num_markers() == 2
    assert q1.total_num_markers(txn_topic_partition1) == 1
    assert q1.total_num_markers(txn_topic_partition2) == 1
    assert q2.total_num_markers() == 1
    assert q2.total_num_markers(txn_topic_partition1) == 1
    assert q2.total_num_markers(txn_topic_partition2) == 0

    expected_broker1_request = _expected_request(
        TxnMarkerEntry(producer_id1, producer_epoch, coordinator_epoch, txn_result, (partition1,)),
        TxnMarkerEntry(producer_id2, producer_epoch, coordinator_epoch, txn_result, (partition1,)))
    expected_broker2_request = _expected_request(
        TxnMarkerEntry(producer_id1, producer_epoch, coordinator_epoch, txn_result, (partition2,)))

    assert env.requests_by_node() == {broker1: expected_broker1_request, broker2: expected_broker2_request}
    assert cm.generate_requests() == []


def test_should_skip_send_markers_when_leader_not_found(env: _Env) -> None:
    env.mock_cache()
    env.leader(partition1, None)
    env.leader(partition2, broker2)
    cm = env.channel_manager

    cm.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata1,
                               env.txn_metadata1.prepare_complete(env.time.milliseconds()))

    assert cm.num_txns_with_pending_markers == 1
    q2 = cm.queue_for_broker(broker2.id)
    assert q2 is not None
    assert q2.total_num_markers() == 1
    assert cm.queue_for_broker(broker1.id) is None
    assert q2.total_num_markers(txn_topic_partition1) == 1
    assert q2.total_num_markers(txn_topic_partition2) == 0


def test_should_save_for_later_when_leader_unknown_but_not_available(env: _Env) -> None:
    env.mock_cache()
    env.leader(partition1, NO_NODE, NO_NODE, NO_NODE, NO_NODE, broker1, broker1)
    env.leader(partition2, broker2)
    cm = env.channel_manager

    cm.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata1,
                               env.txn_metadata1.prepare_complete(env.time.milliseconds()))
    cm.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata2,
                               env.txn_metadata2.prepare_complete(env.time.milliseconds()))

    assert cm.num_txns_with_pending_markers == 2
    q2 = cm.queue_for_broker(broker2.id)
    assert q2 is not None
    assert q2.total_num_markers() == 1
    assert cm.queue_for_broker(broker1.id) is None
    assert q2.total_num_markers(txn_topic_partition1) == 1
    assert q2.total_num_markers(txn_topic_partition2) == 0
    assert cm.queue_for_unknown_broker.total_num_markers() == 2
    assert cm.queue_for_unknown_broker.total_num_markers(txn_topic_partition1) == 1
    assert cm.queue_for_unknown_broker.total_num_markers(txn_topic_partition2) == 1

    expected_broker1_request = _expected_request(
        TxnMarkerEntry(producer_id1, producer_epoch, coordinator_epoch, txn_result, (partition1,)),
        TxnMarkerEntry(producer_id2, producer_epoch, coordinator_epoch, txn_result, (partition1,)))
    expected_broker2_request = _expected_request(
        TxnMarkerEntry(producer_id1, producer_epoch, coordinator_epoch, txn_result, (partition2,)))

    assert env.requests_by_node() == {broker2: expected_broker2_request}
    assert env.requests_by_node() == {broker1: expected_broker1_request}


def test_should_remove_markers_for_txn_partition_when_partition_emigrated(env: _Env) -> None:
    env.mock_cache()
    env.leader(partition1, broker1)
    env.leader(partition2, broker2)
    cm = env.channel_manager

    cm.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata1,
                               env.txn_metadata1.prepare_complete(env.time.milliseconds()))
    cm.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata2,
                               env.txn_metadata2.prepare_complete(env.time.milliseconds()))

    q1, q2 = cm.queue_for_broker(broker1.id), cm.queue_for_broker(broker2.id)
    assert q1 is not None and q2 is not None
    assert cm.num_txns_with_pending_markers == 2
    assert q1.total_num_markers() == 2
    assert q1.total_num_markers(txn_topic_partition1) == 1
    assert q1.total_num_markers(txn_topic_partition2) == 1
    assert q2.total_num_markers() == 1
    assert q2.total_num_markers(txn_topic_partition1) == 1
    assert q2.total_num_markers(txn_topic_partition2) == 0

    cm.remove_markers_for_txn_topic_partition(txn_topic_partition1)

    assert cm.num_txns_with_pending_markers == 1
    assert q1.total_num_markers() == 1
    assert q1.total_num_markers(txn_topic_partition1) == 0
    assert q1.total_num_markers(txn_topic_partition2) == 1
    assert q2.total_num_markers() == 0
    assert q2.total_num_markers(txn_topic_partition1) == 0
    assert q2.total_num_markers(txn_topic_partition2) == 0


def _send_markers_and_answer(env: _Env, transition: TxnTransitMetadata) -> None:
    env.channel_manager.add_txn_markers_to_send(coordinator_epoch, txn_result, env.txn_metadata2, transition)
    request_and_handlers = env.channel_manager.generate_requests()
    response = _response(_create_pid_error_map(Errors.NONE))
    for request_and_handler in request_and_handlers:
        request_and_handler.handler.on_complete(_client_response(False, response))


def _mock_cache_and_leaders(env: _Env) -> None:
    env.mock_cache()
    env.leader(partition1, broker1)
    env.leader(partition2, broker2)


def test_should_complete_append_to_log_on_end_txn_when_send_markers_succeed(env: _Env) -> None:
    _mock_cache_and_leaders(env)
    txn_transition_metadata2 = env.txn_metadata2.prepare_complete(env.time.milliseconds())

    def complete(callback: Callable[[Errors], None]) -> None:
        env.txn_metadata2.complete_transition_to(txn_transition_metadata2)
        callback(Errors.NONE)
    env.stub_append(txn_transition_metadata2, complete)

    _send_markers_and_answer(env, txn_transition_metadata2)

    assert env.append_calls(coordinator_epoch, txn_transition_metadata2) == 1
    q1 = env.channel_manager.queue_for_broker(broker1.id)
    assert q1 is not None
    assert env.channel_manager.num_txns_with_pending_markers == 0
    assert q1.total_num_markers() == 0
    assert env.txn_metadata2.pending_state is None
    assert env.txn_metadata2.state is CompleteCommit


def test_should_abort_append_to_log_on_end_txn_when_not_coordinator_error(env: _Env) -> None:
    _mock_cache_and_leaders(env)
    txn_transition_metadata2 = env.txn_metadata2.prepare_complete(env.time.milliseconds())

    def not_coordinator(callback: Callable[[Errors], None]) -> None:
        env.txn_metadata2.pending_state = None
        callback(Errors.NOT_COORDINATOR)
    env.stub_append(txn_transition_metadata2, not_coordinator)

    _send_markers_and_answer(env, txn_transition_metadata2)

    assert env.append_calls(coordinator_epoch, txn_transition_metadata2) == 1
    q1 = env.channel_manager.queue_for_broker(broker1.id)
    assert q1 is not None
    assert env.channel_manager.num_txns_with_pending_markers == 0
    assert q1.total_num_markers() == 0
    assert env.txn_metadata2.pending_state is None
    assert env.txn_metadata2.state is PrepareCommit


def test_should_retry_append_to_log_on_end_txn_when_coordinator_not_available_error(env: _Env) -> None:
    _mock_cache_and_leaders(env)
    txn_transition_metadata2 = env.txn_metadata2.prepare_complete(env.time.milliseconds())

    def not_available(callback: Callable[[Errors], None]) -> None:
        callback(Errors.COORDINATOR_NOT_AVAILABLE)

    def complete(callback: Callable[[Errors], None]) -> None:
        env.txn_metadata2.complete_transition_to(txn_transition_metadata2)
        callback(Errors.NONE)
    env.stub_append(txn_transition_metadata2, not_available, complete)

    _send_markers_and_answer(env, txn_transition_metadata2)
    # the next round retries the append
    env.channel_manager.generate_requests()

    assert env.append_calls(coordinator_epoch, txn_transition_metadata2) == 2
    q1 = env.channel_manager.queue_for_broker(broker1.id)
    assert q1 is not None
    assert env.channel_manager.num_txns_with_pending_markers == 0
    assert q1.total_num_markers() == 0
    assert env.txn_metadata2.pending_state is None
    assert env.txn_metadata2.state is CompleteCommit
