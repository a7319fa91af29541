"""Port of core/src/test/scala/unit/kafka/coordinator/group/CoordinatorPartitionWriterTest.scala (Kafka 3.9).

Mockito's ReplicaManager mock is a unittest.mock.Mock; its appendRecords and verification answers call the captured
callback, as the Scala test's thenAnswer does."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_SEQUENCE, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.group.coordinator_partition_writer import (
    CoordinatorPartitionWriter,
    ListenerAdapter,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.partition_writer import Listener
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/group/CoordinatorPartitionWriterTest.scala",
    cases=[
        "testRegisterDeregisterListener",
        "testConfig",
        "testWriteRecords",
        "testMaybeStartTransactionVerification",
        "testWriteRecordsWithFailure",
    ],
)


class _Listener(Listener):
    def on_high_watermark_updated(self, tp: TopicPartition, offset: int) -> None:
        pass


def _batch() -> MemoryRecords:
    return MemoryRecords.with_records(Compression.NONE, SimpleRecord(key=b"foo", value=b"bar", timestamp=0))


def _answering_append(replica_manager: mock.Mock, tp: TopicPartition, response: PartitionResponse,
                      captured: dict[str, Any]) -> None:
    """appendRecords(0, acks 1, internal topics, COORDINATOR, records, callback, ..., {tp: SENTINEL}) answers with
    `response` at once."""
    def append_records(**kwargs: Any) -> None:
        assert (kwargs["timeout"], kwargs["required_acks"], kwargs["internal_topics_allowed"], kwargs["origin"]) == (
            0, 1, True, AppendOrigin.COORDINATOR)
        assert kwargs["verification_guards"] == {tp: VerificationGuard.SENTINEL}
        captured["records"] = kwargs["entries_per_partition"]
        kwargs["response_callback"]({tp: response})
    replica_manager.append_records.side_effect = append_records


def test_register_deregister_listener() -> None:
    tp = TopicPartition("foo", 0)
    replica_manager = mock.Mock()
    partition_record_writer = CoordinatorPartitionWriter(replica_manager)

    listener = _Listener()

    partition_record_writer.register_listener(tp, listener)
    replica_manager.maybe_add_listener.assert_called_once_with(tp, ListenerAdapter(listener))

    partition_record_writer.deregister_listener(tp, listener)
    replica_manager.remove_listener.assert_called_once_with(tp, ListenerAdapter(listener))

    assert ListenerAdapter(listener) == ListenerAdapter(listener)
    assert hash(ListenerAdapter(listener)) == hash(ListenerAdapter(listener))


def test_config() -> None:
    tp = TopicPartition("foo", 0)
    replica_manager = mock.Mock()
    partition_record_writer = CoordinatorPartitionWriter(replica_manager)

    config = LogConfig({})
    replica_manager.get_log_config.return_value = config
    assert partition_record_writer.config(tp) is config

    replica_manager.get_log_config.return_value = None
    with pytest.raises(NotLeaderOrFollowerException):
        partition_record_writer.config(tp)


def test_write_records() -> None:
    tp = TopicPartition("foo", 0)
    replica_manager = mock.Mock()
    partition_record_writer = CoordinatorPartitionWriter(replica_manager)
    captured: dict[str, Any] = {}
    _answering_append(replica_manager, tp, PartitionResponse(Errors.NONE, 5, 10, NO_TIMESTAMP, -1, [], ""),
                      captured)

    batch = _batch()
    assert partition_record_writer.append(tp, VerificationGuard.SENTINEL, batch) == 11
    assert captured["records"][tp] is batch


@pytest.mark.parametrize("error", [Errors.NONE, Errors.NOT_ENOUGH_REPLICAS])
def test_maybe_start_transaction_verification(error: Errors) -> None:
    tp = TopicPartition("foo", 0)
    replica_manager = mock.Mock()
    partition_record_writer = CoordinatorPartitionWriter(replica_manager)

    verification_guard = VerificationGuard() if error is Errors.NONE else VerificationGuard.SENTINEL

    def verify(topic_partition: TopicPartition, transactional_id: str, producer_id: int, producer_epoch: int,
               base_sequence: int, callback: Any, transaction_supported_operation: Any) -> None:
        assert (topic_partition, transactional_id, producer_id, producer_epoch, base_sequence) == (
            tp, "transactional-id", 10, 5, NO_SEQUENCE)
        callback((error, verification_guard))
    replica_manager.maybe_start_transaction_verification_for_partition.side_effect = verify

    future = partition_record_writer.maybe_start_transaction_verification(
        tp, "transactional-id", 10, 5, ApiKeys.TXN_OFFSET_COMMIT.latest_version)

    if error is Errors.NONE:
        assert future.result(0) == verification_guard
    else:
        assert Errors.for_exception(future.exception(0)) == error


def test_write_records_with_failure() -> None:
    tp = TopicPartition("foo", 0)
    replica_manager = mock.Mock()
    partition_record_writer = CoordinatorPartitionWriter(replica_manager)
    _answering_append(replica_manager, tp, PartitionResponse(Errors.NOT_LEADER_OR_FOLLOWER), {})

    with pytest.raises(NotLeaderOrFollowerException):
        partition_record_writer.append(tp, VerificationGuard.SENTINEL, _batch())
