"""QuorumController (Kafka 3.9) over a shared in-memory metadata log (kraft_local_log_manager): the write path,
replay on standbys, renounce, topics, brokers, fencing and AlterPartition."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import Future

import pytest
from kio.schema.alter_partition.v3 import request as ap
from kio.schema.broker_heartbeat.v1.request import BrokerHeartbeatRequest
from kio.schema.broker_registration.v4 import request as br
from kio.schema.create_topics.v7 import request as ct
from kio.static.primitive import i16, i32, i64

from kafka_edu.v1_0_2.clients.common.errors import NotControllerException, PolicyViolationException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT
from kafka_edu.v3_9.metadata.controller.quorum_controller import FaultHandler, QuorumController
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapMetadata
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from tests.integration.helpers import wait_until
from tests.unit.controller_kraft.kraft_local_log_manager import LocalLogManager, SharedLogData

CLUSTER_ID = "q1Sh-9_ISia_zwGINzRvyQ"
TIMEOUT = 10.0


class Cluster:
    def __init__(self, num_controllers: int = 1, auto_commit: bool = True, session_timeout_ms: int = 9000) -> None:
        self.shared = SharedLogData(auto_commit=auto_commit)
        self.faults: list[str] = []
        self.controllers: list[QuorumController] = []
        for node_id in range(num_controllers):
            fault = FaultHandler("fatal", lambda message, cause: self.faults.append(message))
            self.controllers.append(
                QuorumController.Builder(node_id, CLUSTER_ID)
                .set_raft_client(LocalLogManager(node_id, self.shared))
                .set_bootstrap_metadata(BootstrapMetadata.from_version(MetadataVersion.IBP_3_9_IV0, "test"))
                .set_session_timeout_ns(session_timeout_ms * 1_000_000)
                .set_fatal_fault_handler(fault)
                .set_non_fatal_fault_handler(fault)
                .build())
        self.incarnations: dict[int, uuid.UUID] = {}

    def activate(self, node_id: int) -> QuorumController:
        self.shared.elect(node_id)
        controller = self.controllers[node_id]
        if not self.shared.auto_commit:
            wait_until(lambda: controller.offset_control.next_write_offset() == self.shared.next_offset
                       and self.shared.batches[-1].records, TIMEOUT, "activation records written")
            self.shared.commit_all()
        # Active, and the activation records replayed and committed.
        wait_until(lambda: controller.is_active() and controller.feature_control.metadata_version()
                   == MetadataVersion.IBP_3_9_IV0 and not controller.deferred_event_queue.highest_pending_offset(),
                   TIMEOUT, "activation")
        return controller

    def close(self) -> None:
        for controller in self.controllers:
            controller.close()
        assert not self.faults, self.faults


@pytest.fixture
def clusters() -> Iterator[list[Cluster]]:
    made: list[Cluster] = []
    yield made
    for cluster in made:
        cluster.close()


def result(future: Future) -> object:
    return future.result(TIMEOUT)


def register(controller: QuorumController, broker_id: int, incarnation: uuid.UUID | None = None) -> int:
    request = br.BrokerRegistrationRequest(
        broker_id=i32(broker_id), cluster_id=CLUSTER_ID, incarnation_id=incarnation or uuid.uuid4(),
        listeners=(br.Listener(name="PLAINTEXT", host="localhost", port=9092 + broker_id, security_protocol=i16(0)),),
        features=(br.Feature(name="metadata.version", min_supported_version=i16(1), max_supported_version=i16(21)),),
        rack=None, log_dirs=(uuid.UUID(int=100 + broker_id),), previous_broker_epoch=i64(-1))
    return result(controller.register_broker(ANONYMOUS_CONTEXT, request)).epoch


def heartbeat(controller: QuorumController, broker_id: int, epoch: int, offset: int, want_fence: bool = False,
              want_shut_down: bool = False) -> object:
    request = BrokerHeartbeatRequest(broker_id=i32(broker_id), broker_epoch=i64(epoch),
                                     current_metadata_offset=i64(offset), want_fence=want_fence,
                                     want_shut_down=want_shut_down)
    return result(controller.process_broker_heartbeat(ANONYMOUS_CONTEXT, request))


def register_and_unfence(cluster: Cluster, controller: QuorumController, broker_ids: list[int]) -> dict[int, int]:
    epochs = {b: register(controller, b) for b in broker_ids}
    for b, epoch in epochs.items():
        heartbeat(controller, b, epoch, cluster.shared.high_watermark)
    wait_until(lambda: all(controller.cluster_control.is_unfenced(b) for b in broker_ids), TIMEOUT, "unfenced")
    return epochs


def create_topics_request(*topics: ct.CreatableTopic) -> ct.CreateTopicsRequest:
    return ct.CreateTopicsRequest(topics=tuple(topics))


def topic(name: str, partitions: int = 1, rf: int = 1,
          assignments: dict[int, list[int]] | None = None) -> ct.CreatableTopic:
    if assignments:
        return ct.CreatableTopic(name=name, num_partitions=i32(-1), replication_factor=i16(-1),
                                 assignments=tuple(ct.CreatableReplicaAssignment(
                                     partition_index=i32(p), broker_ids=tuple(i32(b) for b in bs))
                                     for p, bs in assignments.items()), configs=())
    return ct.CreatableTopic(name=name, num_partitions=i32(partitions), replication_factor=i16(rf), assignments=(),
                             configs=(ct.CreatableTopicConfig(name="cleanup.policy", value="compact"),))


def record_types(cluster: Cluster) -> list[str]:
    return [type(m).__name__ for _, m in cluster.shared.data_records()]


def state_of(controller: QuorumController) -> dict:
    """What the managers hold: topics with their partitions, brokers with fencing."""
    def read() -> dict:
        rc = controller.replication_control
        topics = {t.name: (t.id, dict(t.parts.entry_set())) for _, t in rc.topics().entry_set()}
        brokers = {b: (r.epoch, r.fenced) for b, r in controller.cluster_control.broker_registrations().entry_set()}
        return {"topics": topics, "brokers": brokers, "configs": controller.configuration_control.get_configs(
            (2, "orders")), "mv": controller.feature_control.metadata_version()}
    future: Future = Future()
    controller.append_control_event("test-read", lambda: future.set_result(read()))
    return future.result(TIMEOUT)


def test_activation_on_an_empty_log_writes_the_bootstrap_records_in_a_transaction(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    assert record_types(cluster) == ["BeginTransactionRecord", "FeatureLevelRecord", "EndTransactionRecord"]
    offsets = [o for o, _ in cluster.shared.data_records()]
    assert offsets == [1, 2, 3]  # offset 0 is the epoch's LeaderChange control batch
    assert controller.offset_control.transaction_start_offset() == -1
    assert controller.offset_control.last_stable_offset() == 3


def test_create_topics_completes_only_after_commit(clusters: list[Cluster]) -> None:
    cluster = Cluster(auto_commit=False)
    clusters.append(cluster)
    controller = cluster.activate(0)
    # Registration waits for the commit: send the requests, then commit.
    futures = {b: controller.register_broker(ANONYMOUS_CONTEXT, br.BrokerRegistrationRequest(
        broker_id=i32(b), cluster_id=CLUSTER_ID, incarnation_id=uuid.uuid4(), listeners=(),
        features=(br.Feature(name="metadata.version", min_supported_version=i16(1), max_supported_version=i16(21)),),
        rack=None, log_dirs=(uuid.UUID(int=100 + b),))) for b in (1, 2, 3)}  # ids below 100 are reserved
    wait_until(lambda: record_types(cluster).count("RegisterBrokerRecord") == 3, TIMEOUT, "registrations written")
    assert not any(f.done() for f in futures.values())
    cluster.shared.commit_all()
    epochs = {b: result(f).epoch for b, f in futures.items()}
    register_offsets = {o: m.broker_id for o, m in cluster.shared.data_records() if type(m).__name__ ==
                        "RegisterBrokerRecord"}
    assert {b: e for e, b in register_offsets.items()} == epochs  # the broker epoch is its record's offset
    heartbeats = {b: controller.process_broker_heartbeat(ANONYMOUS_CONTEXT, BrokerHeartbeatRequest(
        broker_id=i32(b), broker_epoch=i64(e), current_metadata_offset=i64(max(epochs.values())), want_fence=False,
        want_shut_down=False)) for b, e in epochs.items()}
    wait_until(lambda: record_types(cluster).count("BrokerRegistrationChangeRecord") == 3, TIMEOUT, "unfence")
    cluster.shared.commit_all()
    assert all(not result(f).is_fenced for f in heartbeats.values())

    future = controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("orders", 3, 2)))
    wait_until(lambda: "TopicRecord" in record_types(cluster), TIMEOUT, "topic records written")
    written = cluster.shared.next_offset - 1
    # Replayed already on the active controller, but not acknowledged before the high watermark passes it.
    assert controller.replication_control.get_topic_id("orders") is not None
    assert not future.done()
    cluster.shared.commit_up_to(written - 1)  # the batch is atomic: none of it commits before its last record
    controller.wait_for_readiness(TIMEOUT)
    assert controller.offset_control.last_committed_offset() < written and not future.done()
    cluster.shared.commit_up_to(written)
    response = result(future)
    (created,) = response.topics
    assert created.error_code == Errors.NONE and created.topic_id is not None
    assert (created.num_partitions, created.replication_factor) == (3, 2)
    assert record_types(cluster)[-5:] == ["TopicRecord", "ConfigRecord", "PartitionRecord", "PartitionRecord",
                                          "PartitionRecord"]


def test_a_standby_replays_the_same_records_into_the_same_state(clusters: list[Cluster]) -> None:
    cluster = Cluster(num_controllers=3)
    clusters.append(cluster)
    active = cluster.activate(1)
    register_and_unfence(cluster, active, [1, 2, 3])
    result(active.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("orders", 4, 3))))
    expected = state_of(active)
    assert expected["topics"]["orders"][1][0].isr and expected["configs"] == {"cleanup.policy": "compact"}
    for standby in (cluster.controllers[0], cluster.controllers[2]):
        assert not standby.is_active()
        wait_until(lambda standby=standby: state_of(standby) == expected, TIMEOUT, "standby caught up")


def test_renounce_reverts_the_uncommitted_records(clusters: list[Cluster]) -> None:
    cluster = Cluster(num_controllers=2, auto_commit=False)
    clusters.append(cluster)
    old = cluster.activate(0)
    committed = state_of(old)
    future = old.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
        topic("lost", assignments={0: [0]})))  # broker 0 is not registered: the assignment is refused
    assert result(future).topics[0].error_code == Errors.INVALID_REPLICA_ASSIGNMENT
    pending = old.register_broker(ANONYMOUS_CONTEXT, br.BrokerRegistrationRequest(
        broker_id=i32(7), cluster_id=CLUSTER_ID, incarnation_id=uuid.uuid4(), listeners=(),
        features=(br.Feature(name="metadata.version", min_supported_version=i16(1), max_supported_version=i16(21)),),
        rack=None, log_dirs=(uuid.UUID(int=107),)))  # 3.9 refuses a registration without directories
    wait_until(lambda: 7 in state_of(old)["brokers"], TIMEOUT, "registration replayed before commit")

    cluster.shared.elect(1)  # the uncommitted RegisterBrokerRecord is lost with the old epoch
    with pytest.raises(NotControllerException):
        result(pending)
    wait_until(lambda: not old.is_active(), TIMEOUT, "renounced")
    assert state_of(old) == committed
    new = cluster.controllers[1]
    cluster.shared.commit_all()
    wait_until(lambda: new.is_active(), TIMEOUT, "new controller active")
    assert 7 not in state_of(new)["brokers"]
    # The new controller writes at the next offset of the new epoch; the old one refuses writes.
    with pytest.raises(NotControllerException):
        result(old.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("x"))))


def test_a_second_create_of_the_same_topic_gets_topic_already_exists(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    register_and_unfence(cluster, controller, [1])
    first = result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("orders"))))
    assert first.topics[0].error_code == Errors.NONE
    before = record_types(cluster)
    second = result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
        topic("orders"), topic("bad/name"), topic("zero", 0), topic("rf", 1, 5))))
    errors = {t.name: (t.error_code, t.error_message) for t in second.topics}
    assert errors["orders"] == (Errors.TOPIC_ALREADY_EXISTS, "Topic 'orders' already exists.")
    assert errors["bad/name"][0] == Errors.INVALID_TOPIC_EXCEPTION
    assert errors["zero"][0] == Errors.INVALID_PARTITIONS
    assert errors["rf"][0] == Errors.INVALID_REPLICATION_FACTOR
    assert "only 1 broker(s) are registered" in errors["rf"][1]
    assert record_types(cluster) == before


def test_placement_spreads_replicas_over_unfenced_brokers(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    register_and_unfence(cluster, controller, [1, 2, 3])
    register(controller, 4)  # registered but fenced
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("spread", 6, 2))))
    partitions = [m for _, m in cluster.shared.data_records() if type(m).__name__ == "PartitionRecord"]
    assert len(partitions) == 6
    assert all(4 not in p.replicas and len(set(p.replicas)) == 2 for p in partitions)
    leaders = [p.leader for p in partitions]
    assert sorted(leaders) == [1, 1, 2, 2, 3, 3]
    assert all(tuple(p.isr) == tuple(p.replicas) and p.leader == p.replicas[0] for p in partitions)
    assert all(tuple(p.directories) == tuple(uuid.UUID(int=100 + r) for r in p.replicas) for p in partitions)


def test_a_broker_is_unfenced_once_caught_up_to_its_registration(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    epoch = register(controller, 1)
    reply = heartbeat(controller, 1, epoch, epoch - 1)
    assert (reply.is_caught_up, reply.is_fenced) == (False, True)
    assert "BrokerRegistrationChangeRecord" not in record_types(cluster)
    reply = heartbeat(controller, 1, epoch, epoch)
    assert (reply.is_caught_up, reply.is_fenced) == (True, False)
    (change,) = [m for _, m in cluster.shared.data_records() if type(m).__name__ == "BrokerRegistrationChangeRecord"]
    assert (change.broker_id, change.broker_epoch, change.fenced) == (1, epoch, -1)
    assert controller.cluster_control.is_unfenced(1)
    with pytest.raises(Exception, match="Expected broker epoch"):
        heartbeat(controller, 1, epoch + 100, epoch)
    # A new incarnation may not take over while the old one's session is alive.
    with pytest.raises(Exception, match="Another broker is registered with that broker id"):
        register(controller, 1)


def test_a_silent_broker_is_fenced_after_the_session_timeout_and_its_leaderships_move(
        clusters: list[Cluster]) -> None:
    cluster = Cluster(session_timeout_ms=600)
    clusters.append(cluster)
    controller = cluster.activate(0)
    epochs = register_and_unfence(cluster, controller, [1, 2, 3])
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
        topic("led-by-1", assignments={0: [1, 2], 1: [1, 3], 2: [2, 1]}))))
    topic_id = controller.replication_control.get_topic_id("led-by-1")

    def others_alive_and_1_fenced() -> bool:
        for b in (2, 3):  # the live brokers keep heartbeating; broker 1 has gone silent
            heartbeat(controller, b, epochs[b], cluster.shared.high_watermark)
        return not controller.cluster_control.is_unfenced(1)

    wait_until(others_alive_and_1_fenced, TIMEOUT, "broker 1 fenced")
    assert controller.cluster_control.is_unfenced(2) and controller.cluster_control.is_unfenced(3)
    changes = [m for _, m in cluster.shared.data_records() if type(m).__name__ == "PartitionChangeRecord"]
    fence = [m for _, m in cluster.shared.data_records() if type(m).__name__ == "BrokerRegistrationChangeRecord"
             and m.fenced == 1]
    assert [(f.broker_id, f.broker_epoch) for f in fence] == [(1, epochs[1])]
    assert {(c.partition_id, c.leader, tuple(c.isr)) for c in changes} == {(0, 2, (2,)), (1, 3, (3,)),
                                                                          (2, -2, (2,))}
    partitions = {p: controller.replication_control.get_partition(topic_id, p) for p in range(3)}
    assert [(p.leader, p.leader_epoch) for p in partitions.values()] == [(2, 1), (3, 1), (2, 0)]


def alter_partition(controller: QuorumController, broker_id: int, epoch: int, topic_id: uuid.UUID,
                    leader_epoch: int, partition_epoch: int, isr: list[int]) -> object:
    request = ap.AlterPartitionRequest(broker_id=i32(broker_id), broker_epoch=i64(epoch), topics=(ap.TopicData(
        topic_id=topic_id, partitions=(ap.PartitionData(
            partition_index=i32(0), leader_epoch=i32(leader_epoch), partition_epoch=i32(partition_epoch),
            new_isr_with_epochs=tuple(ap.BrokerState(broker_id=i32(b), broker_epoch=i64(-1)) for b in isr)),)),))
    return result(controller.alter_partition(ANONYMOUS_CONTEXT, request)).topics[0].partitions[0]


def test_alter_partition_changes_the_isr_and_refuses_with_3_9s_error_codes(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    epochs = register_and_unfence(cluster, controller, [1, 2, 3])
    register(controller, 4)  # fenced
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
        topic("isr", assignments={0: [1, 2, 3, 4]}))))
    topic_id = controller.replication_control.get_topic_id("isr")
    partition = controller.replication_control.get_partition(topic_id, 0)
    assert (partition.leader, partition.isr) == (1, (1, 2, 3))

    shrunk = alter_partition(controller, 1, epochs[1], topic_id, 0, 0, [1, 2])
    assert (shrunk.error_code, tuple(shrunk.isr), shrunk.partition_epoch, shrunk.leader_epoch) == \
        (Errors.NONE, (1, 2), 1, 0)
    # a leader epoch above the controller's: the leader heard of a newer controller
    assert alter_partition(controller, 1, epochs[1], topic_id, 5, 1, [1]).error_code == Errors.NOT_CONTROLLER
    assert alter_partition(controller, 2, epochs[2], topic_id, 0, 1, [1]).error_code == Errors.INVALID_REQUEST
    assert alter_partition(controller, 1, epochs[1], topic_id, 0, 0, [1]).error_code == \
        Errors.INVALID_UPDATE_VERSION
    assert alter_partition(controller, 1, epochs[1], topic_id, 0, 1, [2, 3]).error_code == Errors.INVALID_REQUEST
    assert alter_partition(controller, 1, epochs[1], topic_id, 0, 1, [1, 4]).error_code == Errors.INELIGIBLE_REPLICA
    assert alter_partition(controller, 1, epochs[1], uuid.uuid4(), 0, 1, [1]).error_code == Errors.UNKNOWN_TOPIC_ID
    with pytest.raises(Exception, match="Expected broker epoch"):
        alter_partition(controller, 1, epochs[1] + 1, topic_id, 0, 1, [1])


def test_delete_topics_writes_remove_topic_records_and_forgets_the_topic(clusters: list[Cluster]) -> None:
    cluster = Cluster(num_controllers=2)
    clusters.append(cluster)
    controller = cluster.activate(0)
    register_and_unfence(cluster, controller, [1])
    created = result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("orders", 2))))
    topic_id = created.topics[0].topic_id
    unknown = uuid.uuid4()
    results = result(controller.delete_topics(ANONYMOUS_CONTEXT, [topic_id, unknown]))
    assert results[topic_id].error is Errors.NONE and results[unknown].error is Errors.UNKNOWN_TOPIC_ID
    assert record_types(cluster)[-1] == "RemoveTopicRecord"
    assert result(controller.find_topic_ids(ANONYMOUS_CONTEXT, ["orders"]))["orders"].error is \
        Errors.UNKNOWN_TOPIC_OR_PARTITION
    standby = cluster.controllers[1]
    wait_until(lambda: state_of(standby)["topics"] == {} and state_of(standby)["configs"] == {}, TIMEOUT)
    assert controller.replication_control.global_partition_count() == 0


def test_the_idle_controller_writes_a_no_op_record_each_max_idle_interval(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.controllers[0]
    controller.max_idle_interval_ns = 50_000_000
    cluster.activate(0)
    wait_until(lambda: record_types(cluster).count("NoOpRecord") >= 3, TIMEOUT, "NoOp records")
    # They stop when leadership is lost.
    controller.append_control_event("renounce", controller.renounce)
    wait_until(lambda: not controller.is_active(), TIMEOUT)
    count = record_types(cluster).count("NoOpRecord")
    controller.wait_for_readiness(TIMEOUT)
    assert not controller.no_op_record_scheduled and record_types(cluster).count("NoOpRecord") == count


def test_a_new_incarnation_registers_once_the_old_session_is_gone(clusters: list[Cluster]) -> None:
    cluster = Cluster(session_timeout_ms=300)
    clusters.append(cluster)
    controller = cluster.activate(0)
    first = uuid.uuid4()
    epoch = register(controller, 1, first)
    heartbeat(controller, 1, epoch, epoch)
    wait_until(lambda: not controller.cluster_control.is_unfenced(1), TIMEOUT, "fenced after the session timeout")
    second_epoch = register(controller, 1, uuid.uuid4())
    assert second_epoch > epoch
    registration = controller.cluster_control.broker_registrations()[1]
    assert (registration.epoch, registration.fenced) == (second_epoch, True)
    with pytest.raises(Exception, match="Expected broker epoch"):
        heartbeat(controller, 1, epoch, second_epoch)


def test_controlled_shutdown_moves_leaders_then_lets_the_broker_go(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    epochs = register_and_unfence(cluster, controller, [1, 2])
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
        topic("cs", assignments={0: [1, 2]}))))
    topic_id = controller.replication_control.get_topic_id("cs")
    reply = heartbeat(controller, 1, epochs[1], cluster.shared.high_watermark, want_shut_down=True)
    assert (reply.in_controlled_shutdown, reply.should_shut_down) == (True, False)
    partition = controller.replication_control.get_partition(topic_id, 0)
    assert (partition.leader, partition.isr) == (2, (2,))
    assert controller.cluster_control.broker_registrations()[1].in_controlled_shutdown
    heartbeat(controller, 2, epochs[2], cluster.shared.high_watermark)  # the lowest active offset moves on
    reply = heartbeat(controller, 1, epochs[1], cluster.shared.high_watermark, want_shut_down=True)
    assert reply.should_shut_down and reply.is_fenced


def test_a_not_leader_exception_from_the_raft_client_makes_the_controller_renounce(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    committed = state_of(controller)
    with cluster.shared.lock:  # the raft layer moved on, and has not told the controller yet
        cluster.shared.leader = type(cluster.shared.leader)(None, cluster.shared.leader.epoch + 1)
    with pytest.raises(NotControllerException):
        register(controller, 1)
    wait_until(lambda: not controller.is_active(), TIMEOUT, "renounced")
    assert state_of(controller) == committed
    assert not cluster.faults  # a lost leadership is no fault


class SnapshotReaderForTests:
    def __init__(self, batches: list, snapshot_id: object) -> None:
        self.batches, self.id, self.closed = batches, snapshot_id, False

    def __iter__(self) -> Iterator:
        return iter(self.batches)

    def snapshot_id(self) -> object:
        return self.id

    def last_contained_log_offset(self) -> int:
        return self.id.offset - 1

    def last_contained_log_timestamp(self) -> int:
        return 0

    def close(self) -> None:
        self.closed = True


def test_a_standby_loads_a_snapshot_in_place_of_what_it_had(clusters: list[Cluster]) -> None:
    from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, TopicRecord
    from kafka_edu.v3_9.raft.raft.batch import Batch
    from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch

    source = Cluster()
    clusters.append(source)
    active = source.activate(0)
    register_and_unfence(source, active, [1])
    result(active.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("kept"))))
    records = [ApiMessageAndVersion(m, 0) for _, m in source.shared.data_records()
               if type(m).__name__ not in ("BeginTransactionRecord", "EndTransactionRecord", "NoOpRecord")]
    standby_cluster = Cluster(num_controllers=2)
    clusters.append(standby_cluster)
    standby = standby_cluster.controllers[1]
    standby.append_control_event("a stale topic", lambda: standby.replay(
        TopicRecord(name="stale", topic_id=uuid.uuid4()), None, 0))
    reader = SnapshotReaderForTests([Batch.data(0, 1, 0, 0, records)], OffsetAndEpoch(40, 1))
    standby.meta_log_listener.handle_load_snapshot(reader)
    standby.wait_for_readiness(TIMEOUT)
    state = state_of(standby)
    assert set(state["topics"]) == {"kept"} and state["brokers"] == {1: (state["brokers"][1][0], False)}
    assert standby.offset_control.last_stable_offset() == 40 and reader.closed


def test_every_record_the_controller_writes_goes_through_the_metadata_record_serde(clusters: list[Cluster]) -> None:
    from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde

    cluster = Cluster(session_timeout_ms=300)
    clusters.append(cluster)
    controller = cluster.activate(0)
    epochs = register_and_unfence(cluster, controller, [1, 2])
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("serde", 2, 2))))
    topic_id = controller.replication_control.get_topic_id("serde")
    alter_partition(controller, controller.replication_control.get_partition(topic_id, 0).leader,
                    epochs[controller.replication_control.get_partition(topic_id, 0).leader], topic_id, 0, 0,
                    [controller.replication_control.get_partition(topic_id, 0).leader])
    result(controller.delete_topics(ANONYMOUS_CONTEXT, [topic_id]))
    wait_until(lambda: not controller.cluster_control.is_unfenced(1), TIMEOUT, "fenced")
    serde = MetadataRecordSerde()
    written = [record for batch in cluster.shared.batches for record in batch.records]
    assert {type(r.message).__name__ for r in written} >= {
        "BeginTransactionRecord", "FeatureLevelRecord", "EndTransactionRecord", "RegisterBrokerRecord",
        "BrokerRegistrationChangeRecord", "TopicRecord", "ConfigRecord", "PartitionRecord", "PartitionChangeRecord",
        "RemoveTopicRecord"}
    for record in written:
        assert serde.read(serde.write(record)) == record, record
    versions = {type(r.message).__name__: r.version for r in written}
    assert (versions["RegisterBrokerRecord"], versions["PartitionRecord"], versions["PartitionChangeRecord"],
            versions["BrokerRegistrationChangeRecord"]) == (3, 1, 1, 0)  # 3.9 fences at version 0


def test_unregister_broker_moves_its_leaderships_and_forgets_it(clusters: list[Cluster]) -> None:
    cluster = Cluster(num_controllers=2)
    clusters.append(cluster)
    controller = cluster.activate(0)
    register_and_unfence(cluster, controller, [1, 2])
    result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("u", assignments={0: [1, 2]}))))
    result(controller.unregister_broker(ANONYMOUS_CONTEXT, 1))
    assert record_types(cluster)[-2:] == ["PartitionChangeRecord", "UnregisterBrokerRecord"]
    partition = controller.replication_control.get_partition(controller.replication_control.get_topic_id("u"), 0)
    assert (partition.leader, partition.isr) == (2, (2,))
    wait_until(lambda: list(state_of(cluster.controllers[1])["brokers"]) == [2], TIMEOUT, "standby forgot broker 1")
    with pytest.raises(Exception, match="Broker ID 1 is not currently registered"):
        result(controller.unregister_broker(ANONYMOUS_CONTEXT, 1))


def test_a_create_topics_of_more_than_10000_partitions_is_refused_as_a_policy_violation(
        clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    controller = cluster.activate(0)
    register_and_unfence(cluster, controller, [1])
    before = record_types(cluster)
    # two topics that fit one by one, but not in one request: it would be one batch of 10,005 records
    with pytest.raises(PolicyViolationException, match="Unable to perform excessively large batch operation"):
        result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
            topic("big-a", partitions=5000), topic("big-b", partitions=5001))))
    assert record_types(cluster) == before
    created = result(controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(topic("fits", partitions=50))))
    assert created.topics[0].error_code == Errors.NONE
