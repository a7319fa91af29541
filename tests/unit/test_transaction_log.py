"""TransactionLog (1.0.2): the `__transaction_state` key and value, byte for byte, and TransactionMetadata's state
machine."""

from __future__ import annotations

import struct

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaException
from kafka_edu.v1_0_2.core.coordinator.transaction import transaction_log
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    CompleteAbort,
    CompleteCommit,
    Dead,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    PrepareEpochFence,
    TransactionMetadata,
    TxnTransitMetadata,
    byte_to_state,
    is_valid_transition,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition


def test_key_is_version_0_and_the_transactional_id():
    key = transaction_log.key_to_bytes("my-txn")
    assert key == struct.pack(">hh", 0, 6) + b"my-txn"
    assert transaction_log.read_txn_record_key(key).transactional_id == "my-txn"
    with pytest.raises(KafkaException):
        transaction_log.read_txn_record_key(struct.pack(">hh", 1, 1) + b"x")


def test_value_layout_of_an_ongoing_transaction():
    transit = TxnTransitMetadata(7, 3, 60000, Ongoing,
                                 frozenset({TopicPartition("b", 0), TopicPartition("a", 2), TopicPartition("a", 1)}),
                                 111, 222)
    value = transaction_log.value_to_bytes(transit)
    expected = (struct.pack(">hqhib", 0, 7, 3, 60000, 1) + struct.pack(">i", 2)
                + struct.pack(">h", 1) + b"a" + struct.pack(">iii", 2, 1, 2)
                + struct.pack(">h", 1) + b"b" + struct.pack(">ii", 1, 0)
                + struct.pack(">qq", 222, 111))  # entry (last update) timestamp, then start timestamp
    assert value == expected
    metadata = transaction_log.read_txn_record_value("t", value)
    assert (metadata.producer_id, metadata.producer_epoch, metadata.txn_timeout_ms) == (7, 3, 60000)
    assert metadata.state is Ongoing and metadata.pending_state is None
    assert metadata.topic_partitions == {TopicPartition("a", 1), TopicPartition("a", 2), TopicPartition("b", 0)}
    assert (metadata.txn_start_timestamp, metadata.txn_last_update_timestamp) == (111, 222)


def test_an_empty_transaction_writes_a_null_partition_array_and_a_null_value_is_a_tombstone():
    value = transaction_log.value_to_bytes(TxnTransitMetadata(7, 0, 100, Empty, frozenset(), -1, 5))
    assert value == struct.pack(">hqhibiqq", 0, 7, 0, 100, 0, -1, 5, -1)
    assert transaction_log.read_txn_record_value("t", value).topic_partitions == set()
    assert transaction_log.read_txn_record_value("t", None) is None
    with pytest.raises(IllegalStateException):
        transaction_log.value_to_bytes(TxnTransitMetadata(7, 0, 100, Empty, frozenset({TopicPartition("a", 0)}),
                                                          -1, 5))
    with pytest.raises(KafkaException):
        transaction_log.read_txn_record_value("t", struct.pack(">h", 1) + value[2:])
    with pytest.raises(KafkaException):  # cut short
        transaction_log.read_txn_record_value("t", value[:-3])


def test_state_bytes_and_valid_previous_states():
    assert [s.byte for s in (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead,
                             PrepareEpochFence)] == list(range(8))
    assert byte_to_state(4) is CompleteCommit
    with pytest.raises(IllegalStateException):
        byte_to_state(8)
    assert is_valid_transition(Ongoing, PrepareCommit) and not is_valid_transition(Empty, PrepareCommit)
    assert is_valid_transition(PrepareEpochFence, PrepareAbort) and is_valid_transition(CompleteCommit, Ongoing)
    assert not is_valid_transition(PrepareCommit, Ongoing) and not is_valid_transition(CompleteAbort, PrepareAbort)


def test_a_transaction_goes_through_its_states_and_each_transition_is_checked():
    metadata = TransactionMetadata("t", 5, -1, 1000, Empty, (), -1, 0)
    transit = metadata.prepare_increment_producer_epoch(1000, 10)
    assert transit.producer_epoch == 0 and metadata.pending_state is Empty
    with pytest.raises(IllegalStateException):  # one transition at a time
        metadata.prepare_add_partitions({TopicPartition("a", 0)}, 11)
    metadata.complete_transition_to(transit)
    assert metadata.producer_epoch == 0 and metadata.pending_state is None

    add = metadata.prepare_add_partitions({TopicPartition("a", 0)}, 20)
    assert add.txn_start_timestamp == 20  # the first partition starts the transaction's clock
    metadata.complete_transition_to(add)
    more = metadata.prepare_add_partitions({TopicPartition("a", 1)}, 30)
    assert more.txn_start_timestamp == 20
    metadata.complete_transition_to(more)
    assert metadata.state is Ongoing and len(metadata.topic_partitions) == 2

    prepare = metadata.prepare_abort_or_commit(PrepareCommit, 40)
    metadata.complete_transition_to(prepare)
    with pytest.raises(IllegalStateException):  # only a prepared transaction's markers are removed
        TransactionMetadata("u", 1, 0, 10, Ongoing).remove_partition(TopicPartition("a", 0))
    metadata.remove_partition(TopicPartition("a", 0))
    complete = metadata.prepare_complete(50)
    assert complete.txn_state is CompleteCommit and not complete.topic_partitions
    metadata.complete_transition_to(complete)
    assert metadata.state is CompleteCommit and not metadata.topic_partitions


def test_a_transition_that_is_not_the_prepared_one_is_refused():
    metadata = TransactionMetadata("t", 5, 0, 1000, Empty, (), -1, 0)
    metadata.prepare_add_partitions({TopicPartition("a", 0)}, 20)
    with pytest.raises(IllegalStateException):
        metadata.complete_transition_to(TxnTransitMetadata(5, 0, 1000, PrepareCommit, frozenset(), 20, 20))
    with pytest.raises(IllegalStateException):  # another epoch
        metadata.complete_transition_to(TxnTransitMetadata(5, 1, 1000, Ongoing,
                                                           frozenset({TopicPartition("a", 0)}), 20, 20))


def test_fencing_bumps_the_epoch_and_an_exhausted_epoch_rotates_the_producer_id():
    ongoing = TransactionMetadata("t", 5, 3, 1000, Ongoing, {TopicPartition("a", 0)}, 10, 10)
    fence = ongoing.prepare_fence_producer_epoch()
    assert (fence.producer_epoch, fence.txn_state, ongoing.pending_state) == (4, PrepareEpochFence,
                                                                              PrepareEpochFence)
    exhausted = TransactionMetadata("t", 5, 32766, 1000, CompleteCommit, (), 10, 10)
    assert exhausted.is_producer_epoch_exhausted
    with pytest.raises(IllegalStateException):
        exhausted.prepare_increment_producer_epoch(1000, 20)
    rotated = exhausted.prepare_producer_id_rotation(6, 1000, 20)
    assert (rotated.producer_id, rotated.producer_epoch) == (6, 0)
    exhausted.complete_transition_to(rotated)
    assert (exhausted.producer_id, exhausted.producer_epoch, exhausted.state) == (6, 0, Empty)
