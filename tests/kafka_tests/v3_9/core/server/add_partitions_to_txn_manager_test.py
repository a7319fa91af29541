"""Port of core/src/test/scala/unit/kafka/server/AddPartitionsToTxnManagerTest.scala (Kafka 3.9).

Differences of form only:

- The mocked MetadataCache is `MockMetadataCache` (what `getPartitionInfo` and `getAliveBrokerNode` answer, as
  `mockTransactionStateMetadata` stubs them); `partitionFor` is a dict's lookup. The NetworkClient is never used by
  Kafka's cases (they call `generateRequests` and the handlers themselves): the manager gets a factory that fails.
- The request a case compares is the builder's `data`, the transactions as kio's AddPartitionsToTxnTransaction.
- A response is kio's AddPartitionsToTxnResponse of v4; `resultForTransaction` is KafkaApis' `result_for_transaction`.

The cases after Kafka's (`test_send_thread_...`) are the port's: they drive the send thread's `poll_once` over a fake
connection, the part 3.9 leaves to NetworkClient.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import SaslAuthenticationException, UnsupportedVersionException
from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server import kafka_config as kafka_config_39
from kafka_edu.v3_9.core.server.add_partitions_to_txn_manager import (
    AddPartitionsToTxnManager,
    AddPartitionsToTxnRequestBuilder,
    AddPartitionsToTxnTopic,
    AddPartitionsToTxnTransaction,
    RequestAndCompletionHandler,
    default_error,
    generic_error,
)
from kafka_edu.v3_9.core.server.kafka_apis import result_for_transaction
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import UpdateMetadataPartitionState
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/AddPartitionsToTxnManagerTest.scala",
    cases=["testAddTxnData", "testGenerateRequests", "testTransactionCoordinatorResolution",
           "testAddPartitionsToTxnHandlerErrorHandling", "testAddPartitionsToTxnManagerMetrics"],
    not_applicable={
        "testAddPartitionsToTxnManagerMetrics": "metrics only (VerificationFailureRate, VerificationTimeMs): the 3.9 "
                                                "tree has no metrics registry and the port keeps no metrics",
    },
)

TOPIC = "foo"
TOPIC_PARTITIONS = [TopicPartition(TOPIC, 1), TopicPartition(TOPIC, 2), TopicPartition(TOPIC, 3)]

NODE0 = Node(0, "host1", 0)
NODE1 = Node(1, "host2", 1)
NODE2 = Node(2, "host2", 2)

TRANSACTIONAL_ID1 = "txn1"
TRANSACTIONAL_ID2 = "txn2"
TRANSACTIONAL_ID3 = "txn3"

PRODUCER_ID1 = 0
PRODUCER_ID2 = 1
PRODUCER_ID3 = 2

TRANSACTION_SUPPORTED_OPERATION = generic_error
CONFIG = kafka_config_39.from_props(create_broker_config(1, "localhost:2181"))
INTER_BROKER_LISTENER = CONFIG.inter_broker_listener_name().value()


def client_response(response: Any, auth_exception: BaseException | None = None,
                    mismatch_exception: BaseException | None = None, disconnected: bool = False) -> ClientResponse:
    return ClientResponse(None, None, 0, 0, disconnected, mismatch_exception, auth_exception, response)


AUTHENTICATION_ERROR_RESPONSE = client_response(None, auth_exception=SaslAuthenticationException(""))
VERSION_MISMATCH_RESPONSE = client_response(None, mismatch_exception=UnsupportedVersionException(""))
DISCONNECTED_RESPONSE = client_response(None, disconnected=True)


class MockMetadataCache:
    """mock(classOf[MetadataCache]): None unless stubbed."""

    def __init__(self) -> None:
        self.partition_info: dict[tuple[str, int], UpdateMetadataPartitionState | None] = {}
        self.alive_broker_nodes: dict[tuple[int, str], Node | None] = {}

    def get_partition_info(self, topic: str, partition_id: int) -> UpdateMetadataPartitionState | None:
        return self.partition_info.get((topic, partition_id))

    def get_alive_broker_node(self, broker_id: int, listener_name: str) -> Node | None:
        return self.alive_broker_nodes.get((broker_id, listener_name))


class World:
    def __init__(self) -> None:
        self.time = MockTime()
        self.metadata_cache = MockMetadataCache()
        self.partition_for_results: dict[str, int] = {}
        self.add_partitions_to_txn_manager = AddPartitionsToTxnManager(
            CONFIG, _no_network_client, self.metadata_cache, self.partition_for, self.time)

    def partition_for(self, transactional_id: str) -> int:
        return self.partition_for_results.get(transactional_id, 0)

    def mock_transaction_state_metadata(self, partition_index: int, leader_id: int, leader_node: Node | None) -> None:
        self.metadata_cache.partition_info[(Topic.TRANSACTION_STATE_TOPIC_NAME, partition_index)] = \
            transaction_state_partition(partition_index, leader_id)
        if leader_id != -1:
            self.metadata_cache.alive_broker_nodes[(leader_id, INTER_BROKER_LISTENER)] = leader_node

    def receive_response(self, response: ClientResponse) -> None:
        self.add_partitions_to_txn_manager.generate_requests()[0].handler.on_complete(response)

    def verify_request(self, expected_destination: Node, transactional_id: str, producer_id: int,
                       request_and_handler: RequestAndCompletionHandler) -> None:
        assert request_and_handler.creation_time_ms == self.time.milliseconds()
        assert request_and_handler.destination == expected_destination
        assert request_and_handler.request.data == AddPartitionsToTxnRequestBuilder.for_broker(
            [transaction_data(transactional_id, producer_id)]).data


def transaction_state_partition(partition_index: int, leader_id: int) -> UpdateMetadataPartitionState:
    """new UpdateMetadataPartitionState() with the topic, partition and leader set; the rest at their defaults."""
    return UpdateMetadataPartitionState(topic_name=Topic.TRANSACTION_STATE_TOPIC_NAME,
                                        partition_index=partition_index, controller_epoch=0, leader=leader_id,
                                        leader_epoch=0, isr=[], zk_version=0, replicas=[])


def _no_network_client(node: Node) -> Any:
    raise AssertionError(f"Kafka's cases send nothing (asked to connect to {node})")


@pytest.fixture
def w() -> Iterator[World]:
    world = World()
    yield world
    world.add_partitions_to_txn_manager.shutdown()


def set_errors(errors: dict[TopicPartition, Errors]) -> Any:
    return lambda callback_errors: errors.update(callback_errors)


def transaction_data(transactional_id: str, producer_id: int, producer_epoch: int = 0
                     ) -> AddPartitionsToTxnTransaction:
    return AddPartitionsToTxnTransaction(
        transactional_id=transactional_id, producer_id=producer_id, producer_epoch=producer_epoch, verify_only=True,
        topics=(AddPartitionsToTxnTopic(name=TOPIC, partitions=(1, 2, 3)),))


def add_partitions_to_txn_response(error_code: Errors = Errors.NONE,
                                   results_by_transaction: list[dict[str, Any]] | None = None) -> Any:
    return build(ApiKeys.ADD_PARTITIONS_TO_TXN.response_schema(4), throttle_time=0, error_code=error_code,
                 results_by_transaction=results_by_transaction or [])


def test_add_txn_data(w: World) -> None:
    w.partition_for_results.update({TRANSACTIONAL_ID1: 0, TRANSACTIONAL_ID2: 1, TRANSACTIONAL_ID3: 0})
    w.mock_transaction_state_metadata(0, 0, NODE0)
    w.mock_transaction_state_metadata(1, 1, NODE1)
    manager = w.add_partitions_to_txn_manager

    transaction1_errors: dict[TopicPartition, Errors] = {}
    transaction2_errors: dict[TopicPartition, Errors] = {}
    transaction3_errors: dict[TopicPartition, Errors] = {}

    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS, set_errors(transaction1_errors),
                               TRANSACTION_SUPPORTED_OPERATION)
    manager.verify_transaction(TRANSACTIONAL_ID2, PRODUCER_ID2, 0, TOPIC_PARTITIONS, set_errors(transaction2_errors),
                               TRANSACTION_SUPPORTED_OPERATION)
    manager.verify_transaction(TRANSACTIONAL_ID3, PRODUCER_ID3, 0, TOPIC_PARTITIONS, set_errors(transaction3_errors),
                               TRANSACTION_SUPPORTED_OPERATION)

    # transaction1 three more times: the same epoch, a newer one, then an older one than that
    transaction1_retry_with_same_epoch_errors: dict[TopicPartition, Errors] = {}
    transaction1_retry_with_newer_epoch_errors: dict[TopicPartition, Errors] = {}
    transaction1_retry_with_old_epoch_errors: dict[TopicPartition, Errors] = {}

    # the same id, producer id and epoch: replaces the queued entry, which gets a retriable error
    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS,
                               set_errors(transaction1_retry_with_same_epoch_errors), TRANSACTION_SUPPORTED_OPERATION)
    expected_network_errors = {tp: Errors.NETWORK_EXCEPTION for tp in TOPIC_PARTITIONS}
    assert transaction1_errors == expected_network_errors

    # a newer epoch: replaces the queued entry, which is fenced
    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 1, TOPIC_PARTITIONS,
                               set_errors(transaction1_retry_with_newer_epoch_errors), TRANSACTION_SUPPORTED_OPERATION)
    expected_epoch_errors = {tp: Errors.INVALID_PRODUCER_EPOCH for tp in TOPIC_PARTITIONS}
    assert transaction1_retry_with_same_epoch_errors == expected_epoch_errors

    # an older epoch: answered at once, the queued entry stays
    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS,
                               set_errors(transaction1_retry_with_old_epoch_errors), TRANSACTION_SUPPORTED_OPERATION)
    assert transaction1_retry_with_old_epoch_errors == expected_epoch_errors

    requests_and_handlers = manager.generate_requests()
    for request_and_handler in requests_and_handlers:
        if request_and_handler.destination == NODE0:
            assert request_and_handler.creation_time_ms == w.time.milliseconds()
            # insertion order: transaction1 went to the back when it was replaced
            assert request_and_handler.request.data == AddPartitionsToTxnRequestBuilder.for_broker([
                transaction_data(TRANSACTIONAL_ID3, PRODUCER_ID3),
                transaction_data(TRANSACTIONAL_ID1, PRODUCER_ID1, producer_epoch=1)]).data
        else:
            w.verify_request(NODE1, TRANSACTIONAL_ID2, PRODUCER_ID2, request_and_handler)


def test_generate_requests(w: World) -> None:
    w.partition_for_results.update({TRANSACTIONAL_ID1: 0, TRANSACTIONAL_ID2: 1, TRANSACTIONAL_ID3: 2})
    w.mock_transaction_state_metadata(0, 0, NODE0)
    w.mock_transaction_state_metadata(1, 1, NODE1)
    w.mock_transaction_state_metadata(2, 2, NODE2)
    manager = w.add_partitions_to_txn_manager

    transaction_errors: dict[TopicPartition, Errors] = {}

    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS, set_errors(transaction_errors),
                               TRANSACTION_SUPPORTED_OPERATION)
    manager.verify_transaction(TRANSACTIONAL_ID2, PRODUCER_ID2, 0, TOPIC_PARTITIONS, set_errors(transaction_errors),
                               TRANSACTION_SUPPORTED_OPERATION)

    requests_and_handlers = manager.generate_requests()
    assert len(requests_and_handlers) == 2
    # (the handlers are test_add_partitions_to_txn_handler_error_handling's)
    for request_and_handler in requests_and_handlers:
        if request_and_handler.destination == NODE0:
            w.verify_request(NODE0, TRANSACTIONAL_ID1, PRODUCER_ID1, request_and_handler)
        else:
            w.verify_request(NODE1, TRANSACTIONAL_ID2, PRODUCER_ID2, request_and_handler)

    manager.verify_transaction(TRANSACTIONAL_ID2, PRODUCER_ID2, 0, TOPIC_PARTITIONS, set_errors(transaction_errors),
                               TRANSACTION_SUPPORTED_OPERATION)
    manager.verify_transaction(TRANSACTIONAL_ID3, PRODUCER_ID3, 0, TOPIC_PARTITIONS, set_errors(transaction_errors),
                               TRANSACTION_SUPPORTED_OPERATION)

    # the creation time moves on too
    w.time.sleep(10)

    requests_and_handlers2 = manager.generate_requests()
    # node1 already has a request in flight: nothing more for it
    assert len(requests_and_handlers2) == 1
    for request_and_handler in requests_and_handlers2:
        w.verify_request(NODE2, TRANSACTIONAL_ID3, PRODUCER_ID3, request_and_handler)

    # once node1's request is answered, the next one can go
    next(r for r in requests_and_handlers if r.destination == NODE1).handler.on_complete(AUTHENTICATION_ERROR_RESPONSE)
    requests_and_handlers3 = manager.generate_requests()
    assert len(requests_and_handlers3) == 1
    for request_and_handler in requests_and_handlers3:
        w.verify_request(NODE1, TRANSACTIONAL_ID2, PRODUCER_ID2, request_and_handler)


def test_transaction_coordinator_resolution(w: World) -> None:
    w.partition_for_results[TRANSACTIONAL_ID1] = 0

    def check_error() -> None:
        errors: dict[TopicPartition, Errors] = {}
        w.add_partitions_to_txn_manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS,
                                                           set_errors(errors), TRANSACTION_SUPPORTED_OPERATION)
        assert errors == {tp: Errors.COORDINATOR_NOT_AVAILABLE for tp in TOPIC_PARTITIONS}

    # no transaction state topic
    w.metadata_cache.partition_info[(Topic.TRANSACTION_STATE_TOPIC_NAME, 0)] = None
    check_error()

    # the partition has no leader
    w.mock_transaction_state_metadata(0, -1, None)
    check_error()

    # the leader is not available
    w.mock_transaction_state_metadata(0, 0, None)
    check_error()


def test_add_partitions_to_txn_handler_error_handling(w: World) -> None:
    w.partition_for_results.update({TRANSACTIONAL_ID1: 0, TRANSACTIONAL_ID2: 0})
    w.mock_transaction_state_metadata(0, 0, NODE0)
    manager = w.add_partitions_to_txn_manager

    transaction1_errors: dict[TopicPartition, Errors] = {}
    transaction2_errors: dict[TopicPartition, Errors] = {}

    def add_transactions_to_verify_request_version(operation_expected: Any) -> None:
        transaction1_errors.clear()
        transaction2_errors.clear()
        manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS,
                                   set_errors(transaction1_errors), operation_expected)
        manager.verify_transaction(TRANSACTIONAL_ID2, PRODUCER_ID2, 0, TOPIC_PARTITIONS,
                                   set_errors(transaction2_errors), operation_expected)

    def add_transactions_to_verify() -> None:
        add_transactions_to_verify_request_version(TRANSACTION_SUPPORTED_OPERATION)

    expected_auth_errors = {tp: Errors.SASL_AUTHENTICATION_FAILED for tp in TOPIC_PARTITIONS}
    add_transactions_to_verify()
    w.receive_response(AUTHENTICATION_ERROR_RESPONSE)
    assert transaction1_errors == expected_auth_errors
    assert transaction2_errors == expected_auth_errors

    # a version mismatch: no errors, the produce goes on
    add_transactions_to_verify()
    w.receive_response(VERSION_MISMATCH_RESPONSE)
    assert transaction1_errors == {}
    assert transaction2_errors == {}

    expected_disconnected_errors = {tp: Errors.NETWORK_EXCEPTION for tp in TOPIC_PARTITIONS}
    add_transactions_to_verify()
    w.receive_response(DISCONNECTED_RESPONSE)
    assert transaction1_errors == expected_disconnected_errors
    assert transaction2_errors == expected_disconnected_errors

    expected_top_level_errors = {tp: Errors.INVALID_TXN_STATE for tp in TOPIC_PARTITIONS}
    top_level_error_response = client_response(add_partitions_to_txn_response(Errors.CLUSTER_AUTHORIZATION_FAILED))
    add_transactions_to_verify()
    w.receive_response(top_level_error_response)
    assert transaction1_errors == expected_top_level_errors
    assert transaction2_errors == expected_top_level_errors

    pre_converted_transaction1_errors = {tp: Errors.PRODUCER_FENCED for tp in TOPIC_PARTITIONS}
    expected_transaction1_errors = {tp: Errors.INVALID_PRODUCER_EPOCH for tp in TOPIC_PARTITIONS}
    pre_converted_transaction2_errors = {TopicPartition("foo", 1): Errors.NONE,
                                         TopicPartition("foo", 2): Errors.INVALID_TXN_STATE,
                                         TopicPartition("foo", 3): Errors.NONE}
    expected_transaction2_errors = {TopicPartition("foo", 2): Errors.INVALID_TXN_STATE}

    mixed_errors_response = client_response(add_partitions_to_txn_response(results_by_transaction=[
        result_for_transaction(TRANSACTIONAL_ID1, pre_converted_transaction1_errors),
        result_for_transaction(TRANSACTIONAL_ID2, pre_converted_transaction2_errors)]))
    add_transactions_to_verify()
    w.receive_response(mixed_errors_response)
    assert transaction1_errors == expected_transaction1_errors
    assert transaction2_errors == expected_transaction2_errors

    pre_converted_transaction_abortable_errors_txn1 = {tp: Errors.TRANSACTION_ABORTABLE for tp in TOPIC_PARTITIONS}
    pre_converted_transaction_abortable_errors_txn2 = {TopicPartition("foo", 1): Errors.NONE,
                                                       TopicPartition("foo", 2): Errors.TRANSACTION_ABORTABLE,
                                                       TopicPartition("foo", 3): Errors.NONE}
    mixed_abortable_errors_response = client_response(add_partitions_to_txn_response(results_by_transaction=[
        result_for_transaction(TRANSACTIONAL_ID1, pre_converted_transaction_abortable_errors_txn1),
        result_for_transaction(TRANSACTIONAL_ID2, pre_converted_transaction_abortable_errors_txn2)]))

    expected_transaction_abortable_errors_txn1_lower_version = {tp: Errors.INVALID_TXN_STATE
                                                                for tp in TOPIC_PARTITIONS}
    expected_transaction_abortable_errors_txn2_lower_version = {TopicPartition("foo", 2): Errors.INVALID_TXN_STATE}
    expected_transaction_abortable_errors_txn1_higher_version = {tp: Errors.TRANSACTION_ABORTABLE
                                                                 for tp in TOPIC_PARTITIONS}
    expected_transaction_abortable_errors_txn2_higher_version = {TopicPartition("foo", 2):
                                                                 Errors.TRANSACTION_ABORTABLE}

    add_transactions_to_verify_request_version(default_error)
    w.receive_response(mixed_abortable_errors_response)
    assert transaction1_errors == expected_transaction_abortable_errors_txn1_lower_version
    assert transaction2_errors == expected_transaction_abortable_errors_txn2_lower_version

    add_transactions_to_verify_request_version(generic_error)
    w.receive_response(mixed_abortable_errors_response)
    assert transaction1_errors == expected_transaction_abortable_errors_txn1_higher_version
    assert transaction2_errors == expected_transaction_abortable_errors_txn2_higher_version


# -- the port's: the send thread over a connection -------------------------------------------------------------------

class FakeConnection:
    """A BlockingChannel to one node: answers ApiVersions with `add_partitions_range` and each AddPartitionsToTxn
    with `answer(request)`, or fails with `failure`."""

    def __init__(self, add_partitions_range: tuple[int, int] = (0, 5), failure: OSError | None = None) -> None:
        self.add_partitions_range = add_partitions_range
        self.failure = failure
        self.sent: list[tuple[ApiKeys, int, Any]] = []
        self.disconnected = False

    def send_and_receive(self, api_key: ApiKeys, api_version: int, body: Any) -> Any:
        self.sent.append((api_key, api_version, body))
        if self.failure is not None:
            raise self.failure
        if api_key is ApiKeys.API_VERSIONS:
            low, high = self.add_partitions_range
            return build(ApiKeys.API_VERSIONS.response_schema(api_version), error_code=Errors.NONE, throttle_time=0,
                         api_keys=[dict(api_key=ApiKeys.ADD_PARTITIONS_TO_TXN.id, min_version=low,
                                        max_version=high)])
        return add_partitions_to_txn_response(results_by_transaction=[
            result_for_transaction(t.transactional_id, {TopicPartition(topic.name, p): Errors.NONE
                                                        for topic in t.topics for p in topic.partitions})
            for t in body.transactions])

    def disconnect(self) -> None:
        self.disconnected = True


def _manager_over(connection: FakeConnection, time: MockTime) -> tuple[AddPartitionsToTxnManager, MockMetadataCache]:
    metadata_cache = MockMetadataCache()
    metadata_cache.partition_info[(Topic.TRANSACTION_STATE_TOPIC_NAME, 0)] = transaction_state_partition(0, 0)
    metadata_cache.alive_broker_nodes[(0, INTER_BROKER_LISTENER)] = NODE0
    return AddPartitionsToTxnManager(CONFIG, lambda node: connection, metadata_cache, lambda _: 0, time), \
        metadata_cache


def test_send_thread_sends_one_verify_only_request_per_node_and_answers_each_transaction() -> None:
    connection = FakeConnection()
    manager, _ = _manager_over(connection, MockTime())
    transaction1_errors: dict[TopicPartition, Errors] = {TopicPartition("x", 0): Errors.UNKNOWN_SERVER_ERROR}
    transaction2_errors: dict[TopicPartition, Errors] = {TopicPartition("x", 0): Errors.UNKNOWN_SERVER_ERROR}
    calls: list[str] = []
    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS,
                               lambda e: (calls.append(TRANSACTIONAL_ID1), transaction1_errors.clear(),
                                          transaction1_errors.update(e)), generic_error)
    manager.verify_transaction(TRANSACTIONAL_ID2, PRODUCER_ID2, 0, TOPIC_PARTITIONS[:1],
                               lambda e: (calls.append(TRANSACTIONAL_ID2), transaction2_errors.clear(),
                                          transaction2_errors.update(e)), generic_error)
    manager.poll_once(0)

    # ApiVersions once on the new connection, then one AddPartitionsToTxn at the newest version both speak
    assert [(api, version) for api, version, _ in connection.sent] == [
        (ApiKeys.API_VERSIONS, 3), (ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.ADD_PARTITIONS_TO_TXN.latest_version)]
    request = connection.sent[1][2]
    assert [(t.transactional_id, t.verify_only) for t in request.transactions] == [(TRANSACTIONAL_ID1, True),
                                                                                  (TRANSACTIONAL_ID2, True)]
    assert calls == [TRANSACTIONAL_ID1, TRANSACTIONAL_ID2]
    assert transaction1_errors == {} and transaction2_errors == {}
    assert manager.inflight_nodes == set()

    # the connection stays open: the next request needs no ApiVersions
    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS, lambda e: None, generic_error)
    manager.poll_once(0)
    assert [api for api, _, _ in connection.sent[2:]] == [ApiKeys.ADD_PARTITIONS_TO_TXN]


def test_send_thread_skips_verification_when_the_coordinator_is_too_old_for_v4() -> None:
    connection = FakeConnection(add_partitions_range=(0, 3))
    manager, _ = _manager_over(connection, MockTime())
    errors: dict[TopicPartition, Errors] | None = None

    def callback(e: dict[TopicPartition, Errors]) -> None:
        nonlocal errors
        errors = e

    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS, callback, generic_error)
    manager.poll_once(0)
    assert errors == {}
    assert [api for api, _, _ in connection.sent] == [ApiKeys.API_VERSIONS]


def test_send_thread_answers_network_exception_when_the_coordinator_cannot_be_reached() -> None:
    connection = FakeConnection(failure=ConnectionRefusedError("refused"))
    time = MockTime()
    manager, _ = _manager_over(connection, time)
    errors: dict[TopicPartition, Errors] = {}
    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS, set_errors(errors),
                               generic_error)
    manager.poll_once(0)
    assert errors == {tp: Errors.NETWORK_EXCEPTION for tp in TOPIC_PARTITIONS}
    assert connection.disconnected

    # within the reconnect backoff the node is left alone; the request waits, and goes once the backoff is over
    errors.clear()
    manager.verify_transaction(TRANSACTIONAL_ID1, PRODUCER_ID1, 0, TOPIC_PARTITIONS, set_errors(errors),
                               generic_error)
    sent_before = len(connection.sent)
    manager.poll_once(0)
    assert len(connection.sent) == sent_before and errors == {}
    time.sleep(50)
    manager.poll_once(0)
    assert len(connection.sent) == sent_before + 1
    assert errors == {tp: Errors.NETWORK_EXCEPTION for tp in TOPIC_PARTITIONS}
