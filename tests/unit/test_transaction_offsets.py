"""The group coordinator's side of a transaction (Kafka 1.0.2): TxnOffsetCommit writes the offsets in a transactional
batch of the producer, they stay pending until the producer's marker reaches the offsets partition, and a reload of
the partition keeps what is still pending."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_end_transaction_marker
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupConfig, GroupCoordinator
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import GroupMetadataManager
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_config import OffsetConfig
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from tests.integration.helpers import wait_until
from tests.unit.helpers import Reply, StubReplicaManager

OFFSETS = TopicPartition("__consumer_offsets", 0)
T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)
PID, EPOCH = 4000, 2


@pytest.fixture
def rm(tmp_path: Path) -> Iterator[StubReplicaManager]:
    replica_manager = StubReplicaManager(tmp_path)
    replica_manager.lead(0)
    yield replica_manager
    replica_manager.close()


def coordinator(rm: StubReplicaManager) -> GroupCoordinator:
    manager = GroupMetadataManager(0, OffsetConfig(offsets_topic_num_partitions=1), rm, time_ms=lambda: 1_000_000)
    coordinator = GroupCoordinator(0, GroupConfig(6000, 300000, 0), manager.config, manager,
                                   DelayedOperationPurgatory("Heartbeat"), DelayedOperationPurgatory("Rebalance"))
    coordinator.startup(enable_metadata_expiration=False)
    manager.add_partition_ownership(0)
    return coordinator


def commit(gc: GroupCoordinator, offsets: dict[TopicPartition, int], group: str = "g", producer_id: int = PID,
           epoch: int = EPOCH) -> dict[TopicPartition, Errors]:
    reply = Reply()
    gc.handle_txn_commit_offsets(group, producer_id, epoch,
                                 {tp: OffsetAndMetadata(o, "", 1, 2) for tp, o in offsets.items()}, reply)
    return reply.get()


def committed(gc: GroupCoordinator, group: str = "g") -> dict[TopicPartition, int]:
    error, offsets = gc.handle_fetch_offsets(group, [T0, T1])
    assert error == Errors.NONE
    return {tp: data.offset for tp, data in offsets.items()}


def write_marker(rm: StubReplicaManager, commit_marker: bool, producer_id: int = PID) -> None:
    """What the offsets partition's leader appends for WriteTxnMarkers."""
    marker = EndTransactionMarker(ControlRecordType.COMMIT if commit_marker else ControlRecordType.ABORT, 1)
    rm.partitions[OFFSETS].log.append_as_leader(
        bytes(with_end_transaction_marker(producer_id, EPOCH, marker).buffer), leader_epoch=0, is_from_client=False)


def test_txn_offsets_are_written_as_the_producers_transactional_batch_and_count_only_once_committed(
        rm: StubReplicaManager):
    gc = coordinator(rm)
    assert commit(gc, {T0: 10, T1: 20}) == {T0: Errors.NONE, T1: Errors.NONE}
    (batch,) = MemoryRecords(rm.partitions[OFFSETS].log.read(0, 1 << 20)).batches()
    assert batch.is_transactional and (batch.producer_id, batch.producer_epoch) == (PID, EPOCH)
    assert committed(gc) == {T0: -1, T1: -1}  # pending: not the group's offsets yet
    group = gc.group_manager.get_group("g")
    assert group.has_pending_offset_commits_from_producer(PID)
    write_marker(rm, commit_marker=True)
    gc.schedule_handle_txn_completion(PID, [OFFSETS], TransactionResult.COMMIT)
    wait_until(lambda: committed(gc) == {T0: 10, T1: 20}, 5, "the committed offsets")
    assert not group.has_pending_offset_commits_from_producer(PID)
    assert gc.group_manager.open_groups_for_producer == {}


def test_an_aborted_transaction_leaves_the_offsets_as_they_were(rm: StubReplicaManager):
    gc = coordinator(rm)
    commit(gc, {T0: 10})
    write_marker(rm, commit_marker=True)
    gc.schedule_handle_txn_completion(PID, [OFFSETS], TransactionResult.COMMIT)
    wait_until(lambda: committed(gc)[T0] == 10, 5, "first commit")
    commit(gc, {T0: 99})
    write_marker(rm, commit_marker=False)
    gc.schedule_handle_txn_completion(PID, [OFFSETS], TransactionResult.ABORT)
    wait_until(lambda: not gc.group_manager.get_group("g").has_pending_offset_commits_from_producer(PID), 5,
               "the abort handled")
    assert committed(gc)[T0] == 10


def test_a_reload_keeps_pending_offsets_pending_and_replays_committed_ones(rm: StubReplicaManager):
    gc = coordinator(rm)
    commit(gc, {T0: 10})
    write_marker(rm, commit_marker=True)
    commit(gc, {T1: 7}, producer_id=PID + 1)  # another producer's, not decided when the coordinator moves
    gc.shutdown()

    reloaded = coordinator(rm)
    reloaded.group_manager.owned_partitions.discard(0)
    reloaded.handle_group_immigration(0)
    wait_until(lambda: reloaded.group_manager.is_partition_owned(0), 5, "the load")
    assert committed(reloaded) == {T0: 10, T1: -1}
    group = reloaded.group_manager.get_group("g")
    assert group.has_pending_offset_commits_from_producer(PID + 1)
    write_marker(rm, commit_marker=True, producer_id=PID + 1)
    reloaded.schedule_handle_txn_completion(PID + 1, [OFFSETS], TransactionResult.COMMIT)
    wait_until(lambda: committed(reloaded) == {T0: 10, T1: 7}, 5, "the other producer's commit")


def test_txn_offset_commit_bad_input(rm: StubReplicaManager):
    gc = coordinator(rm)
    assert commit(gc, {T0: 1}, group="") == {T0: Errors.INVALID_GROUP_ID}
    gc.group_manager.owned_partitions.discard(0)
    assert commit(gc, {T0: 1}) == {T0: Errors.NOT_COORDINATOR}
    with pytest.raises(ValueError):
        gc.schedule_handle_txn_completion(PID, [T0], TransactionResult.COMMIT)


def test_a_failed_write_forgets_the_pending_offsets(rm: StubReplicaManager):
    gc = coordinator(rm)
    rm.append_error = Errors.NOT_ENOUGH_REPLICAS
    assert commit(gc, {T0: 10}) == {T0: Errors.COORDINATOR_NOT_AVAILABLE}
    assert not gc.group_manager.get_group("g").has_pending_offset_commits_from_producer(PID)
    assert committed(gc) == {T0: -1, T1: -1}
