"""Kafka 3.9's own coordinators on 3.9's ReplicaManager and UnifiedLog, as the KRaft broker wires them: the group
coordinator (GroupCoordinatorService built by BrokerServer.createGroupCoordinator, with CoordinatorLoaderImpl and
CoordinatorPartitionWriter) and the transaction coordinator: a real 3.9 LogManager on a tmp dir, a 3.9 ReplicaManager
that leads `__consumer_offsets-0` and `__transaction_state-0` through a metadata delta, and the requests as KafkaApis
hands them over (kio bodies, a RequestContext).

A consumer joins, syncs and commits; a second coordinator elected on the same partition loads the group from the
log and answers the same offsets; the member leaves, the group is deleted, and a third coordinator finds neither.
A transaction's offsets count once its COMMIT marker is written by the group coordinator. A transactional producer id
persists in `__transaction_state` and a second transaction coordinator reloads it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from kio.schema.join_group.v9.request import JoinGroupRequest
from kio.schema.leave_group.v5.request import LeaveGroupRequest
from kio.schema.offset_commit.v8.request import OffsetCommitRequest
from kio.schema.offset_fetch.v8.request import OffsetFetchRequestGroup
from kio.schema.sync_group.v5.request import SyncGroupRequest
from kio.schema.txn_offset_commit.v3.request import TxnOffsetCommitRequest
from kio.schema.types import BrokerId, TopicName
from kio.static.primitive import i32
from opentelemetry import trace

from kafka_edu.tracing.provider import node_tracing, using
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.internals.topic import GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.coordinator.group.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka_edu.v3_9.core.coordinator.transaction.transaction_coordinator import (
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import TransactionMetadata
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import (
    TransactionConfig,
    TransactionStateManager,
)
from kafka_edu.v3_9.core.server import kafka_config as kafka_config_39
from kafka_edu.v3_9.core.server.broker_server import create_group_coordinator
from kafka_edu.v3_9.core.server.kafka_request_handler import set_bypass_thread_check
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_runtime import CoordinatorState
from kafka_edu.v3_9.metadata.common.metadata.partition_record import PartitionRecord
from kafka_edu.v3_9.metadata.common.metadata.topic_record import TopicRecord
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler as KafkaScheduler39
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from tests.integration.helpers import wait_until
from tests.kafka_tests.v3_9.core.server.replica_manager_test import image_from_topics, setup_replica_manager
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_metadata_manager_test_context import (
    request_context as make_context,
)

BROKER_ID = 0
WAIT_S = 10
OFFSETS_TP = TopicPartition(GROUP_METADATA_TOPIC_NAME, 0)
TXN_TP = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, 0)


def _lead_locally(replica_manager: ReplicaManager, topics: list[str]) -> None:
    """The metadata delta that makes this broker the only replica and leader of partition 0 of each topic."""
    delta = TopicsDelta(TopicsImage.EMPTY)
    for name in topics:
        topic_id = uuid.uuid4()
        delta.replay_topic(TopicRecord(name=TopicName(name), topic_id=topic_id))
        delta.replay_partition(PartitionRecord(
            partition_id=i32(0), topic_id=topic_id, replicas=(BrokerId(BROKER_ID),), isr=(i32(BROKER_ID),),
            removing_replicas=(), adding_replicas=(), leader=BrokerId(BROKER_ID), leader_epoch=i32(0),
            partition_epoch=i32(0), directories=()))
    replica_manager.apply_delta(delta, image_from_topics(delta.apply()))


@pytest.fixture
def replica_manager(tmp_path: Path) -> Iterator[ReplicaManager]:
    world = setup_replica_manager(tmp_path, BROKER_ID, log_dirs=[tmp_path / "data"])
    _lead_locally(world.replica_manager, [GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME])
    yield world.replica_manager
    world.replica_manager.shutdown(checkpoint_hw=False)


def _drain(scheduler: KafkaScheduler | KafkaScheduler39) -> None:
    """Wait until what the one-thread scheduler runs now (a load) has run: a task queued after it runs after it."""
    done = threading.Event()
    if isinstance(scheduler, KafkaScheduler39):
        scheduler.schedule_once("drain", done.set)
    else:
        scheduler.schedule("drain", done.set)
    assert done.wait(WAIT_S)


def _result(future: Future[Any]) -> Any:
    return future.result(timeout=WAIT_S)


# -- the group coordinator ------------------------------------------------------------------------------------


def _group_coordinator(replica_manager: ReplicaManager) -> GroupCoordinatorService:
    """3.9's service as BrokerServer.createGroupCoordinator builds it, on the 3.9 ReplicaManager: one offsets
    partition, no initial rebalance delay."""
    config = kafka_config_39.from_props({
        "process.roles": "broker", "node.id": str(BROKER_ID), "controller.quorum.voters": "1@127.0.0.1:9093",
        "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://127.0.0.1:9092",
        "log.dirs": "/tmp/kafka-edu-coordinator-bridge-test", "offsets.topic.num.partitions": "1",
        "group.initial.rebalance.delay.ms": "0"}, do_log=False)
    service = create_group_coordinator(config, replica_manager)
    service.startup(lambda: 1)
    return service


def _elect(service: GroupCoordinatorService, leader_epoch: int) -> None:
    service.on_election(0, leader_epoch)
    wait_until(lambda: _is_loaded(service), WAIT_S, "the offsets partition loaded")


def _is_loaded(service: GroupCoordinatorService) -> bool:
    context = service._runtime._coordinators.get(OFFSETS_TP)
    return context is not None and context.state is CoordinatorState.ACTIVE


def _fetch(service: GroupCoordinatorService, group_id: str) -> dict[str, Any]:
    request = build(OffsetFetchRequestGroup, group_id=group_id,
                    topics=[dict(name="foo", partition_indexes=[0, 1])])
    return _result(service.fetch_offsets(make_context(ApiKeys.OFFSET_FETCH, 8), request, False))


@dataclass
class Member:
    member_id: str
    generation_id: int


def _join_and_sync(service: GroupCoordinatorService, group_id: str) -> Member:
    def join(member_id: str) -> dict[str, Any]:
        request = build(JoinGroupRequest, group_id=group_id, session_timeout=10000, rebalance_timeout=10000,
                        member_id=member_id, group_instance_id=None, protocol_type="consumer", reason=None,
                        protocols=[dict(name="range", metadata=b"subscription")])
        return _result(service.join_group(make_context(ApiKeys.JOIN_GROUP, 9), request))

    # KIP-394: a v4+ member without an id is given one and asked to join again with it
    first = join("")
    assert first["error_code"] == Errors.MEMBER_ID_REQUIRED
    member_id = first["member_id"]
    joined = join(member_id)
    assert joined["error_code"] == Errors.NONE
    assert joined["leader"] == member_id and joined["generation_id"] == 1
    assert joined["protocol_type"] == "consumer" and joined["protocol_name"] == "range"
    assert [m["member_id"] for m in joined["members"]] == [member_id]

    sync = build(SyncGroupRequest, group_id=group_id, generation_id=1, member_id=member_id, group_instance_id=None,
                 protocol_type="consumer", protocol_name="range",
                 assignments=[dict(member_id=member_id, assignment=b"foo-0,foo-1")])
    synced = _result(service.sync_group(make_context(ApiKeys.SYNC_GROUP, 5), sync))
    assert (synced["error_code"], synced["assignment"]) == (Errors.NONE, b"foo-0,foo-1")
    return Member(member_id, 1)


def _offsets(fetched: dict[str, Any]) -> list[tuple[int, int, str]]:
    return [(p["partition_index"], p["committed_offset"], p["metadata"])
            for t in fetched["topics"] for p in t["partitions"]]


def test_a_consumer_group_commits_and_a_new_coordinator_loads_it_from_the_log(
        replica_manager: ReplicaManager) -> None:
    first = _group_coordinator(replica_manager)
    try:
        _elect(first, 0)
        member = _join_and_sync(first, "group")

        commit = build(OffsetCommitRequest, group_id="group", generation_id_or_member_epoch=member.generation_id,
                       member_id=member.member_id, group_instance_id=None,
                       topics=[dict(name="foo", partitions=[
                           dict(partition_index=0, committed_offset=42, committed_leader_epoch=-1,
                                committed_metadata="m0"),
                           dict(partition_index=1, committed_offset=7, committed_leader_epoch=-1,
                                committed_metadata=None)])])
        committed = _result(first.commit_offsets(make_context(ApiKeys.OFFSET_COMMIT, 8), commit))
        assert [p["error_code"] for t in committed["topics"] for p in t["partitions"]] == [Errors.NONE] * 2
        assert _offsets(_fetch(first, "group")) == [(0, 42, "m0"), (1, 7, "")]
    finally:
        first.shutdown()

    # the group's records and the offsets are in the 3.9 log
    end_offset = replica_manager.get_log_end_offset(OFFSETS_TP)
    assert end_offset >= 3

    second = _group_coordinator(replica_manager)
    try:
        _elect(second, 1)
        assert _offsets(_fetch(second, "group")) == [(0, 42, "m0"), (1, 7, "")]
        described = _result(second.describe_groups(make_context(ApiKeys.DESCRIBE_GROUPS, 5), ["group"]))
        assert described[0]["error_code"] == Errors.NONE
        assert described[0]["group_state"] == "Stable"
        assert [m["member_id"] for m in described[0]["members"]] == [member.member_id]

        leave = build(LeaveGroupRequest, group_id="group",
                      members=[dict(member_id=member.member_id, group_instance_id=None, reason=None)])
        left = _result(second.leave_group(make_context(ApiKeys.LEAVE_GROUP, 5), leave))
        assert left["error_code"] == Errors.NONE
        assert [(m["member_id"], m["error_code"]) for m in left["members"]] == [(member.member_id, Errors.NONE)]

        deleted = _result(second.delete_groups(make_context(ApiKeys.DELETE_GROUPS, 2), ["group"]))
        assert [(r["group_id"], r["error_code"]) for r in deleted] == [("group", Errors.NONE)]
    finally:
        second.shutdown()

    # a third coordinator replays the tombstones: neither the group nor its offsets are left
    third = _group_coordinator(replica_manager)
    try:
        _elect(third, 2)
        assert _offsets(_fetch(third, "group")) == [(0, -1, ""), (1, -1, "")]
        described = _result(third.describe_groups(make_context(ApiKeys.DESCRIBE_GROUPS, 5), ["group"]))
        assert described[0]["group_state"] == "Dead"
    finally:
        third.shutdown()


def test_offsets_partition_not_loaded_here_is_not_coordinator(replica_manager: ReplicaManager) -> None:
    """Before its election no group is this coordinator's."""
    service = _group_coordinator(replica_manager)
    try:
        future = service.fetch_offsets(make_context(ApiKeys.OFFSET_FETCH, 8),
                                       build(OffsetFetchRequestGroup, group_id="group", topics=None), False)
        exception = future.exception(timeout=WAIT_S)
        error = Errors.for_exception(exception) if exception is not None else future.result()["error_code"]
        assert error == Errors.NOT_COORDINATOR
    finally:
        service.shutdown()


# -- the partition writer ----------------------------------------------------------------------------------------


def test_appends_of_a_partition_not_led_here_fail_as_3_9_says(replica_manager: ReplicaManager) -> None:
    writer = CoordinatorPartitionWriter(replica_manager)
    assert writer.config(OFFSETS_TP) is not None
    with pytest.raises(Exception) as raised:
        writer.config(TopicPartition(GROUP_METADATA_TOPIC_NAME, 1))
    assert Errors.for_exception(raised.value) == Errors.NOT_LEADER_OR_FOLLOWER
    with pytest.raises(Exception) as raised:
        writer.append(TopicPartition(GROUP_METADATA_TOPIC_NAME, 1), VerificationGuard.SENTINEL,
                      MemoryRecords.EMPTY)
    assert Errors.for_exception(raised.value) == Errors.UNKNOWN_TOPIC_OR_PARTITION


# -- the transaction coordinator -------------------------------------------------------------------------------


class FakeProducerIdManager:
    """Hands out producer ids from 1000 (the controller's block, in a broker)."""

    def __init__(self) -> None:
        self.next_producer_id = 1000

    def generate_producer_id(self) -> int:
        self.next_producer_id += 1
        return self.next_producer_id - 1

    def shutdown(self) -> None:
        pass


class FakeMarkerChannelManager:
    """Records the markers the coordinator would send to the partitions' leaders."""

    def __init__(self) -> None:
        self.removed: list[int] = []
        self.markers: list[tuple[str, TransactionResult]] = []

    def remove_markers_for_txn_topic_partition(self, txn_topic_partition_id: int) -> None:
        self.removed.append(txn_topic_partition_id)

    def add_txn_markers_to_send(self, coordinator_epoch: int, txn_result: TransactionResult,
                                txn_metadata: TransactionMetadata, *args: Any) -> None:
        self.markers.append((txn_metadata.transactional_id, txn_result))

    def start(self) -> None:
        pass

    def shutdown(self) -> None:
        pass


def _transaction_coordinator(replica_manager: ReplicaManager) -> TransactionCoordinator:
    """3.9's coordinator as the KRaft broker builds it, on the 3.9 ReplicaManager directly; markers recorded."""
    txn_config = TransactionConfig(transaction_log_num_partitions=1)
    scheduler = KafkaScheduler39(1, True, "transaction-test-")
    txn_manager = TransactionStateManager(BROKER_ID, scheduler, replica_manager, KRaftMetadataCache(BROKER_ID),
                                          txn_config, SYSTEM)
    coordinator = TransactionCoordinator(txn_config, scheduler, FakeProducerIdManager, txn_manager,
                                         FakeMarkerChannelManager(), SYSTEM)  # type: ignore[arg-type]
    coordinator.startup(lambda: 1)
    return coordinator


def _init_producer_id(adapter: TransactionCoordinator, transactional_id: str,
                      expected: Any = None) -> InitProducerIdResult:
    future: Future[InitProducerIdResult] = Future()
    adapter.handle_init_producer_id(transactional_id, 60000, expected, future.set_result)
    return _result(future)


def test_a_transactional_producer_id_persists_and_reloads(replica_manager: ReplicaManager) -> None:
    first = _transaction_coordinator(replica_manager)
    try:
        first.on_election(0, 0)
        _drain(first.scheduler)
        assert first.txn_marker_channel_manager.removed == [0]

        result = _init_producer_id(first, "txn-1")
        assert result == InitProducerIdResult(1000, 0, Errors.NONE)
        described = first.handle_describe_transactions("txn-1")
        assert (described["error_code"], described["producer_id"], described["producer_epoch"],
                described["transaction_state"]) == (Errors.NONE, 1000, 0, "Empty")
    finally:
        first.shutdown()

    assert replica_manager.get_log_end_offset(TXN_TP) == 1

    second = _transaction_coordinator(replica_manager)
    try:
        second.on_election(0, 1)
        _drain(second.scheduler)
        described = second.handle_describe_transactions("txn-1")
        assert (described["error_code"], described["producer_id"], described["producer_epoch"],
                described["transaction_state"], described["transaction_timeout"]) == (
            Errors.NONE, 1000, 0, "Empty", 60000)
        listed = second.handle_list_transactions([], ["Empty"])
        assert listed == dict(error_code=Errors.NONE, unknown_state_filters=[], transaction_states=[
            dict(transactional_id="txn-1", producer_id=1000, transaction_state="Empty")])

        # KIP-360: a producer that names another producer id than the coordinator's is fenced
        stranger = _init_producer_id(second, "txn-1", (77, 0))
        assert stranger.error == Errors.PRODUCER_FENCED
        # the producer itself bumps its epoch on the reloaded metadata (KafkaApis hands the pair over as a tuple)
        assert _init_producer_id(second, "txn-1", (1000, 0)) == InitProducerIdResult(1000, 1, Errors.NONE)

        # the old epoch is fenced
        assert _add_partitions(second, 1000, 0, [FOO_0]) == Errors.PRODUCER_FENCED
        assert _add_partitions(second, 1000, 1, [FOO_0]) == Errors.NONE
        verified: Future[dict[str, Any]] = Future()
        second.handle_verify_partitions_in_transaction("txn-1", 1000, 1, [FOO_0, FOO_1], verified.set_result)
        assert _result(verified) == dict(transactional_id="txn-1", topic_results=[
            dict(name="foo", results_by_partition=[
                dict(partition_index=0, partition_error_code=Errors.NONE),
                dict(partition_index=1, partition_error_code=Errors.TRANSACTION_ABORTABLE)])])
        described = second.handle_describe_transactions("txn-1")
        assert (described["transaction_state"], described["topics"]) == ("Ongoing", [dict(topic="foo", partitions=[0])])

        assert _end_transaction(second, 1000, 0, TransactionResult.COMMIT) == Errors.PRODUCER_FENCED
        assert _end_transaction(second, 1000, 1, TransactionResult.COMMIT) == Errors.NONE
        assert second.txn_marker_channel_manager.markers == [("txn-1", TransactionResult.COMMIT)]
        assert second.handle_describe_transactions("txn-1")["transaction_state"] == "PrepareCommit"
    finally:
        second.shutdown()

    # the epoch bump, the partition added and the commit decided
    assert replica_manager.get_log_end_offset(TXN_TP) == 4


FOO_0 = TopicPartition("foo", 0)
FOO_1 = TopicPartition("foo", 1)


def _add_partitions(adapter: TransactionCoordinator, producer_id: int, producer_epoch: int,
                    partitions: list[TopicPartition]) -> Errors:
    future: Future[Errors] = Future()
    adapter.handle_add_partitions_to_transaction("txn-1", producer_id, producer_epoch, set(partitions),
                                                 future.set_result)
    return _result(future)


def _end_transaction(adapter: TransactionCoordinator, producer_id: int, producer_epoch: int,
                     result: TransactionResult) -> Errors:
    future: Future[Errors] = Future()
    adapter.handle_end_transaction("txn-1", producer_id, producer_epoch, result, future.set_result)
    return _result(future)


def test_the_coordinator_traces_the_tx_and_tx39_rows(replica_manager: ReplicaManager) -> None:
    """3.9's coordinator with the real marker channel (its thread not started): a transaction's TX and TX39 spans,
    with the describers strict. foo has no leader in the empty metadata image, so its markers are skipped (as for a
    deleted topic) and the completion is written at once."""
    tracing = node_tracing("broker-0", "run-1", "kraft")
    txn_config = TransactionConfig(transaction_log_num_partitions=1)
    scheduler = KafkaScheduler39(1, True, "transaction-test-")
    metadata_cache = KRaftMetadataCache(BROKER_ID)
    txn_manager = TransactionStateManager(BROKER_ID, scheduler, replica_manager, metadata_cache, txn_config, SYSTEM)
    config = SimpleNamespace(broker_id=BROKER_ID, request_timeout_ms=30000,
                             inter_broker_listener_name=lambda: ListenerName("PLAINTEXT"))
    channel = TransactionMarkerChannelManager(config, metadata_cache, lambda node: None,  # type: ignore[arg-type,return-value]
                                              txn_manager, SYSTEM)
    coordinator = TransactionCoordinator(txn_config, scheduler, FakeProducerIdManager, txn_manager, channel, SYSTEM)
    coordinator.startup(lambda: 1)
    try:
        coordinator.on_election(0, 0)
        _drain(scheduler)
        with using(tracing):
            assert _init_producer_id(coordinator, "txn-1") == InitProducerIdResult(1000, 0, Errors.NONE)
            assert _add_partitions(coordinator, 1000, 0, [FOO_0]) == Errors.NONE
            verified: Future[dict[str, Any]] = Future()
            # the check's span goes into its request's trace: here, a bare span standing for the request
            with trace.use_span(tracing.start_span("AddPartitionsToTxn"), end_on_exit=True):
                coordinator.handle_verify_partitions_in_transaction("txn-1", 1000, 0, [FOO_0, FOO_1],
                                                                    verified.set_result)
            _result(verified)
            assert _end_transaction(coordinator, 1000, 0, TransactionResult.COMMIT) == Errors.NONE
        assert coordinator.handle_describe_transactions("txn-1")["transaction_state"] == "CompleteCommit"
    finally:
        coordinator.shutdown()

    spans = {s.attributes["kafka.step"]: s for s in tracing.memory.get_finished_spans()
             if "kafka.step" in s.attributes}
    assert {"TX39.init", "TX.init", "TX.add", "TX39.vcheck", "TX.end", "TX.markers", "TX39.markers",
            "TX.complete"} <= set(spans)
    init, inner = spans["TX39.init"], spans["TX.init"]
    assert inner.parent is not None and inner.parent.span_id == init.context.span_id
    assert init.attributes["kafka.origin.version"] == "3.9"
    assert init.attributes["code.file.path"] == "kafka_edu/v3_9/core/coordinator/transaction/transaction_coordinator.py"
    # TX39.vcheck reports the coordinator's answer
    assert list(spans["TX39.vcheck"].attributes["kafka.txn.partition.errors"]) == ["foo-1=TRANSACTION_ABORTABLE"]
    markers = spans["TX39.markers"].attributes
    assert (markers["kafka.txn.result"], list(markers["kafka.txn.marker.leaders"])) == ("COMMIT", ["foo-0@none"])
    assert spans["TX39.markers"].attributes["kafka.origin.file"] == (
        "core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerChannelManager.scala")
    assert spans["TX.complete"].attributes["kafka.txn.state"] == "CompleteCommit"


def test_transactional_offsets_count_once_the_transaction_commits(replica_manager: ReplicaManager) -> None:
    service = _group_coordinator(replica_manager)
    set_bypass_thread_check(True)  # the verification's callback runs on this thread, not a request handler's
    try:
        _elect(service, 0)
        commit = build(TxnOffsetCommitRequest, transactional_id="txn-1", group_id="txn-group", producer_id=1000,
                       producer_epoch=0, generation_id=-1, member_id="", group_instance_id=None,
                       topics=[dict(name="foo", partitions=[dict(partition_index=0, committed_offset=5,
                                                                 committed_leader_epoch=-1, committed_metadata="t")])])
        committed = _result(service.commit_transactional_offsets(make_context(ApiKeys.TXN_OFFSET_COMMIT, 3),
                                                                 commit))
        assert [p["error_code"] for t in committed["topics"] for p in t["partitions"]] == [Errors.NONE]
        # the transactional batch is in the log, its offsets pending until the marker
        assert _offsets(_fetch(service, "txn-group"))[0] == (0, -1, "")

        # the COMMIT marker: WriteTxnMarkers hands it to the coordinator, which writes it
        _result(service.complete_transaction(OFFSETS_TP, 1000, 0, 0, TransactionResult.COMMIT, 30000))
        assert _offsets(_fetch(service, "txn-group"))[0] == (0, 5, "t")
    finally:
        set_bypass_thread_check(False)
        service.shutdown()
