"""Port of core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMarkerRequestCompletionHandlerTest.scala
(Kafka 3.9).

The mocked TransactionMarkerChannelManager and TransactionStateManager are autospecced unittest.mock objects; a
WriteTxnMarkersResponse is kio's response body (`_response`).
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_channel_manager import (
    PendingCompleteTxn,
    PendingCompleteTxnAndMarkerEntry,
    TransactionMarkerChannelManager,
    TxnMarkerEntry,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_request_completion_handler import (
    TransactionMarkerRequestCompletionHandler,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import PrepareCommit, TransactionMetadata
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    TransactionStateManager,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9",
    "core/src/test/scala/unit/kafka/coordinator/transaction/TransactionMarkerRequestCompletionHandlerTest.scala",
    cases=[
        "shouldReEnqueuePartitionsWhenBrokerDisconnected",
        "shouldThrowIllegalStateExceptionIfErrorCodeNotAvailableForPid",
        "shouldCompleteDelayedOperationWhenNoErrors",
        "shouldCompleteDelayedOperationWhenNotCoordinator",
        "shouldCompleteDelayedOperationWhenCoordinatorLoading",
        "shouldCompleteDelayedOperationWhenCoordinatorEpochChanged",
        "shouldCompleteDelayedOperationWhenInvalidProducerEpoch",
        "shouldCompleteDelayedOperationWhenCoordinatorEpochFenced",
        "shouldThrowIllegalStateExceptionWhenUnknownError",
        "shouldThrowIllegalStateExceptionWhenCorruptMessageError",
        "shouldThrowIllegalStateExceptionWhenMessageTooLargeError",
        "shouldThrowIllegalStateExceptionWhenRecordListTooLargeError",
        "shouldThrowIllegalStateExceptionWhenInvalidRequiredAcksError",
        "shouldRetryPartitionWhenUnknownTopicOrPartitionError",
        "shouldRetryPartitionWhenNotLeaderOrFollowerError",
        "shouldRetryPartitionWhenNotEnoughReplicasError",
        "shouldRetryPartitionWhenNotEnoughReplicasAfterAppendError",
        "shouldRetryPartitionWhenKafkaStorageError",
        "shouldRemoveTopicPartitionFromWaitingSetOnUnsupportedForMessageFormat",
    ],
)

broker_id = 0
txn_topic_partition = 0
transactional_id = "txnId1"
producer_id = 0
producer_epoch = 0
last_producer_epoch = NO_PRODUCER_EPOCH
txn_timeout_ms = 0
coordinator_epoch = 0
txn_result = TransactionResult.COMMIT
topic_partition = TopicPartition("topic1", 0)


def _response(pid_map: dict[int, dict[TopicPartition, Errors]]) -> Any:
    """new WriteTxnMarkersResponse(errors by producer id), as the v1 body."""
    return build(ApiKeys.WRITE_TXN_MARKERS.response_schema(1), markers=[
        dict(producer_id=pid, topics=[dict(name=tp.topic, partitions=[dict(partition_index=tp.partition,
                                                                           error_code=error)])
                                      for tp, error in errors.items()])
        for pid, errors in pid_map.items()])


def _client_response(disconnected: bool, body: Any) -> ClientResponse:
    return ClientResponse(RequestHeader(ApiKeys.PRODUCE, 0, "client", 1), None, 0, 0, disconnected, None, None, body)


class _Env:
    def __init__(self) -> None:
        self.txn_metadata = TransactionMetadata(transactional_id, producer_id, producer_id, producer_epoch,
                                                last_producer_epoch, txn_timeout_ms, PrepareCommit, {topic_partition},
                                                txn_start_timestamp=0, txn_last_update_timestamp=0)
        self.pending_complete_txn_and_markers = [PendingCompleteTxnAndMarkerEntry(
            PendingCompleteTxn(transactional_id, coordinator_epoch, self.txn_metadata,
                               self.txn_metadata.prepare_complete(42)),
            TxnMarkerEntry(producer_id, producer_epoch, coordinator_epoch, txn_result, (topic_partition,)))]
        self.marker_channel_manager = mock.create_autospec(TransactionMarkerChannelManager, instance=True)
        self.txn_state_manager = mock.create_autospec(TransactionStateManager, instance=True)
        self.handler = TransactionMarkerRequestCompletionHandler(broker_id, self.txn_state_manager,
                                                                 self.marker_channel_manager,
                                                                 self.pending_complete_txn_and_markers)

    def mock_cache(self) -> None:
        self.txn_state_manager.partition_for.side_effect = \
            lambda t: txn_topic_partition if t == transactional_id else 0
        self.stub_state((None, CoordinatorEpochAndTxnMetadata(coordinator_epoch, self.txn_metadata)))

    def stub_state(self, result: tuple[Any, Any]) -> None:
        self.txn_state_manager.get_transaction_state.side_effect = \
            lambda t: result if t == transactional_id else None

    def verify_retries_partition_on_error(self, error: Errors) -> None:
        self.mock_cache()
        self.handler.on_complete(_client_response(False, _response(_create_producer_id_error_map(error))))
        assert self.txn_metadata.topic_partitions == {topic_partition}
        self.marker_channel_manager.add_txn_markers_to_broker_queue.assert_called_once_with(
            producer_id, producer_epoch, txn_result, self.pending_complete_txn_and_markers[0].pending_complete_txn,
            {topic_partition})

    def verify_throw_illegal_state_exception_on_error(self, error: Errors) -> None:
        self.mock_cache()
        with pytest.raises(IllegalStateException):
            self.handler.on_complete(_client_response(False, _response(_create_producer_id_error_map(error))))

    def verify_complete_delayed_operation_on_error(self, error: Errors) -> None:
        completed = []
        self.marker_channel_manager.maybe_write_txn_completion.side_effect = \
            lambda t: completed.append(True) if t == transactional_id else None
        self.handler.on_complete(_client_response(False, _response(_create_producer_id_error_map(error))))
        assert not self.txn_metadata.topic_partitions
        assert completed

    def verify_remove_delayed_operation_on_error(self, error: Errors) -> None:
        removed = []
        pending_complete_txn = self.pending_complete_txn_and_markers[0].pending_complete_txn
        self.marker_channel_manager.remove_markers_for_txn.side_effect = \
            lambda p: removed.append(True) if p == pending_complete_txn else None
        self.handler.on_complete(_client_response(False, _response(_create_producer_id_error_map(error))))
        assert removed


def _create_producer_id_error_map(errors: Errors) -> dict[int, dict[TopicPartition, Errors]]:
    return {producer_id: {topic_partition: errors}}


@pytest.fixture
def env() -> _Env:
    return _Env()


def test_should_re_enqueue_partitions_when_broker_disconnected(env: _Env) -> None:
    env.mock_cache()
    env.handler.on_complete(_client_response(True, None))
    env.marker_channel_manager.add_txn_markers_to_broker_queue.assert_called_once_with(
        producer_id, producer_epoch, txn_result, env.pending_complete_txn_and_markers[0].pending_complete_txn,
        {topic_partition})


def test_should_throw_illegal_state_exception_if_error_code_not_available_for_pid(env: _Env) -> None:
    env.mock_cache()
    with pytest.raises(IllegalStateException):
        env.handler.on_complete(_client_response(False, _response({})))


def test_should_complete_delayed_operation_when_no_errors(env: _Env) -> None:
    env.mock_cache()
    env.verify_complete_delayed_operation_on_error(Errors.NONE)


def test_should_complete_delayed_operation_when_not_coordinator(env: _Env) -> None:
    env.stub_state((Errors.NOT_COORDINATOR, None))
    env.verify_remove_delayed_operation_on_error(Errors.NONE)


def test_should_complete_delayed_operation_when_coordinator_loading(env: _Env) -> None:
    env.stub_state((Errors.COORDINATOR_LOAD_IN_PROGRESS, None))
    env.verify_remove_delayed_operation_on_error(Errors.NONE)


def test_should_complete_delayed_operation_when_coordinator_epoch_changed(env: _Env) -> None:
    env.stub_state((None, CoordinatorEpochAndTxnMetadata(coordinator_epoch + 1, env.txn_metadata)))
    env.verify_remove_delayed_operation_on_error(Errors.NONE)


def test_should_complete_delayed_operation_when_invalid_producer_epoch(env: _Env) -> None:
    env.mock_cache()
    env.verify_remove_delayed_operation_on_error(Errors.INVALID_PRODUCER_EPOCH)


def test_should_complete_delayed_operation_when_coordinator_epoch_fenced(env: _Env) -> None:
    env.mock_cache()
    env.verify_remove_delayed_operation_on_error(Errors.TRANSACTION_COORDINATOR_FENCED)


def test_should_throw_illegal_state_exception_when_unknown_error(env: _Env) -> None:
    env.verify_throw_illegal_state_exception_on_error(Errors.UNKNOWN_SERVER_ERROR)


def test_should_throw_illegal_state_exception_when_corrupt_message_error(env: _Env) -> None:
    env.verify_throw_illegal_state_exception_on_error(Errors.CORRUPT_MESSAGE)


def test_should_throw_illegal_state_exception_when_message_too_large_error(env: _Env) -> None:
    env.verify_throw_illegal_state_exception_on_error(Errors.MESSAGE_TOO_LARGE)


def test_should_throw_illegal_state_exception_when_record_list_too_large_error(env: _Env) -> None:
    env.verify_throw_illegal_state_exception_on_error(Errors.RECORD_LIST_TOO_LARGE)


def test_should_throw_illegal_state_exception_when_invalid_required_acks_error(env: _Env) -> None:
    env.verify_throw_illegal_state_exception_on_error(Errors.INVALID_REQUIRED_ACKS)


def test_should_retry_partition_when_unknown_topic_or_partition_error(env: _Env) -> None:
    env.verify_retries_partition_on_error(Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_should_retry_partition_when_not_leader_or_follower_error(env: _Env) -> None:
    env.verify_retries_partition_on_error(Errors.NOT_LEADER_OR_FOLLOWER)


def test_should_retry_partition_when_not_enough_replicas_error(env: _Env) -> None:
    env.verify_retries_partition_on_error(Errors.NOT_ENOUGH_REPLICAS)


def test_should_retry_partition_when_not_enough_replicas_after_append_error(env: _Env) -> None:
    env.verify_retries_partition_on_error(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND)


def test_should_retry_partition_when_kafka_storage_error(env: _Env) -> None:
    env.verify_retries_partition_on_error(Errors.KAFKA_STORAGE_ERROR)


def test_should_remove_topic_partition_from_waiting_set_on_unsupported_for_message_format(env: _Env) -> None:
    env.mock_cache()
    env.verify_complete_delayed_operation_on_error(Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT)
