"""GroupCoordinator scenarios: join, sync, heartbeats, leave, commits, restarts, expiration, deletes and errors.

Delayed operations run on their real purgatories with short timeouts; tests wait on callbacks (events) or on
conditions, never on fixed sleeps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_edu.tracing import setup_tracing
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupConfig, GroupCoordinator, JoinGroupResult
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import AwaitingSync, GroupMetadata, PreparingRebalance
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import (
    GroupMetadataKey,
    GroupMetadataManager,
    OffsetKey,
    read_message_key,
)
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_config import OffsetConfig
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import wait_until
from tests.unit.helpers import Reply, StubReplicaManager, records_in

PROTOCOLS = [("range", b"range-metadata"), ("roundrobin", b"rr-metadata")]
TP0, TP1 = TopicPartition("topic", 0), TopicPartition("topic", 1)


class Cluster:
    """One broker's coordinator over real __consumer_offsets logs in `log_dir`; `restart` keeps the logs."""

    def __init__(self, log_dir: Path, partitions: int = 1, owned: tuple[int, ...] = (0,), initial_delay_ms: int = 0,
                 clock: Callable[[], int] | None = None, expiration: bool = False, **offset_config: int) -> None:
        self.log_dir = log_dir
        self.args = dict(partitions=partitions, owned=owned, initial_delay_ms=initial_delay_ms, clock=clock,
                         expiration=expiration, **offset_config)
        self.replica_manager = StubReplicaManager(log_dir)
        for p in owned:
            self.replica_manager.lead(p)
        offset_config = OffsetConfig(offsets_topic_num_partitions=partitions, **offset_config)
        time_kwargs = {"time_ms": clock} if clock else {}
        self.manager = GroupMetadataManager(0, offset_config, self.replica_manager, **time_kwargs)
        self.coordinator = GroupCoordinator(0, GroupConfig(10, 30000, initial_delay_ms), offset_config, self.manager,
                                            DelayedOperationPurgatory("Heartbeat", 0),
                                            DelayedOperationPurgatory("Rebalance", 0), **time_kwargs)

    def start(self) -> Cluster:
        self.coordinator.startup(enable_metadata_expiration=self.args["expiration"])
        for p in self.args["owned"]:
            self.coordinator.handle_group_immigration(p)
        for p in self.args["owned"]:
            wait_until(lambda p=p: self.manager.is_partition_owned(p), what=f"__consumer_offsets-{p} loaded")
        return self

    def stop(self) -> None:
        if self.coordinator.is_active:
            self.coordinator.shutdown()
        self.replica_manager.close()

    def restart(self) -> Cluster:
        self.stop()
        return Cluster(self.log_dir, **self.args).start()

    # -- client calls ---------------------------------------------------------------------------------------------

    def join(self, group_id: str, member_id: str = "", session_timeout_ms: int = 10000,
             rebalance_timeout_ms: int = 5000, protocol_type: str = "consumer",
             protocols: list[tuple[str, bytes]] | None = None) -> Reply:
        reply = Reply()
        self.coordinator.handle_join_group(group_id, member_id, "client", "/127.0.0.1", rebalance_timeout_ms,
                                           session_timeout_ms, protocol_type,
                                           PROTOCOLS if protocols is None else protocols, reply)
        return reply

    def sync(self, group_id: str, generation: int, member_id: str, assignment: dict[str, bytes] | None = None
             ) -> Reply:
        reply = Reply()
        self.coordinator.handle_sync_group(group_id, generation, member_id, assignment or {}, reply)
        return reply

    def heartbeat(self, group_id: str, member_id: str, generation: int) -> Errors:
        reply = Reply()
        self.coordinator.handle_heartbeat(group_id, member_id, generation, reply)
        return reply.get()

    def leave(self, group_id: str, member_id: str) -> Errors:
        reply = Reply()
        self.coordinator.handle_leave_group(group_id, member_id, reply)
        return reply.get()

    def commit(self, group_id: str, offsets: dict[tuple[str, int], OffsetAndMetadata], member_id: str = "",
               generation: int = -1) -> dict:
        reply = Reply()
        self.coordinator.handle_commit_offsets(group_id, member_id, generation, offsets, reply)
        return reply.get()

    def state(self, group_id: str) -> str:
        return self.coordinator.handle_describe_group(group_id)[1].state

    def stable_member(self, group_id: str, assignment: bytes = b"assignment", **join: object) -> JoinGroupResult:
        """Join alone and sync: the group is Stable with one member."""
        joined: JoinGroupResult = self.join(group_id, **join).get()
        assert joined.error == Errors.NONE
        synced = self.sync(group_id, joined.generation_id, joined.member_id, {joined.member_id: assignment})
        assert synced.get() == (assignment, Errors.NONE)
        return joined


@pytest.fixture
def tracing():
    return setup_tracing("broker-0", "run-test")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path).start()
    yield c
    c.stop()


def group_on_partition(manager: GroupMetadataManager, partition: int, prefix: str = "group") -> str:
    return next(f"{prefix}-{i}" for i in range(1000) if manager.partition_for(f"{prefix}-{i}") == partition)


# -- membership ----------------------------------------------------------------------------------------------------


def test_first_member_waits_the_initial_delay_then_syncs_to_stable(tmp_path: Path, tracing):
    cluster = Cluster(tmp_path, initial_delay_ms=200).start()
    try:
        reply = cluster.join("g")
        assert not reply.event.is_set()  # parked: group.initial.rebalance.delay.ms has not passed
        assert cluster.state("g") == "PreparingRebalance"
        joined: JoinGroupResult = reply.get()
        assert joined.error == Errors.NONE and joined.generation_id == 1
        assert joined.leader_id == joined.member_id and joined.member_id.startswith("client-")
        assert joined.sub_protocol == "range" and joined.members == {joined.member_id: b"range-metadata"}
        assert cluster.state("g") == "AwaitingSync"
        assert cluster.sync("g", 1, joined.member_id, {joined.member_id: b"mine"}).get() == (b"mine", Errors.NONE)
        error, summary = cluster.coordinator.handle_describe_group("g")
        assert error == Errors.NONE and summary.state == "Stable" and summary.protocol == "range"
        assert summary.members[0].assignment == b"mine" and summary.members[0].metadata == b"range-metadata"
        assert cluster.heartbeat("g", joined.member_id, 1) == Errors.NONE
        # The generation is in the log: one group metadata record (and the Empty generation 0 was never written).
        (_, key, value) = records_in(cluster.replica_manager.partitions[TopicPartition("__consumer_offsets", 0)])[0]
        assert read_message_key(key) == GroupMetadataKey(2, "g") and value is not None
    finally:
        cluster.stop()
    events = sorted((e for s in tracing.memory.get_finished_spans() for e in s.events
                     if e.name == "group.state.change"), key=lambda e: e.timestamp)
    changes = [(e.attributes["kafka.group.state.from"], e.attributes["kafka.group.state.to"],
                e.attributes["kafka.group.generation"]) for e in events]
    assert changes == [("Empty", "PreparingRebalance", 0), ("PreparingRebalance", "AwaitingSync", 1),
                       ("AwaitingSync", "Stable", 1)]
    names = {s.name for s in tracing.memory.get_finished_spans()}
    assert {"GroupCoordinator.handleJoinGroup", "GroupCoordinator.prepareRebalance", "GroupCoordinator.onCompleteJoin",
            "GroupCoordinator.handleSyncGroup", "GroupMetadataManager.storeGroup",
            "GroupMetadataManager.loadGroupsForPartition"} <= names
    on_complete = next(s for s in tracing.memory.get_finished_spans() if s.name == "GroupCoordinator.onCompleteJoin")
    assert on_complete.attributes["kafka.origin.file"] == "core/src/main/scala/kafka/coordinator/group/" \
                                                          "GroupCoordinator.scala"
    assert on_complete.attributes["kafka.group.generation"] == 1


def test_a_second_member_rebalances_the_group_into_a_new_generation(cluster: Cluster):
    first = cluster.stable_member("g")
    second_reply = cluster.join("g")
    assert cluster.state("g") == "PreparingRebalance"
    assert cluster.heartbeat("g", first.member_id, 1) == Errors.REBALANCE_IN_PROGRESS  # "rejoin"
    first_reply = cluster.join("g", member_id=first.member_id)
    leader, follower = first_reply.get(), second_reply.get()
    assert leader.generation_id == follower.generation_id == 2
    assert leader.leader_id == follower.leader_id == first.member_id
    assert set(leader.members) == {first.member_id, follower.member_id} and follower.members == {}
    follower_sync = cluster.sync("g", 2, follower.member_id)
    assert not follower_sync.event.is_set()  # waits for the leader's assignment
    assignment = {first.member_id: b"a0", follower.member_id: b"a1"}
    assert cluster.sync("g", 2, first.member_id, assignment).get() == (b"a0", Errors.NONE)
    assert follower_sync.get() == (b"a1", Errors.NONE)
    assert cluster.state("g") == "Stable"


def test_a_silent_member_is_expired_and_the_group_rebalances(tmp_path: Path, tracing):
    cluster = Cluster(tmp_path).start()
    try:
        member = cluster.stable_member("g", session_timeout_ms=100)
        wait_until(lambda: cluster.state("g") == "Empty", what="the silent member expired")
        assert cluster.heartbeat("g", member.member_id, 1) == Errors.UNKNOWN_MEMBER_ID
        assert cluster.coordinator.handle_describe_group("g")[1].members == []
    finally:
        cluster.stop()
    spans = tracing.memory.get_finished_spans()
    expired = next(s for s in spans if s.name == "GroupCoordinator.onExpireHeartbeat")
    assert expired.attributes["kafka.member.id"] == member.member_id
    events = sorted((e for s in spans for e in s.events if e.name == "group.state.change"), key=lambda e: e.timestamp)
    changes = [(e.attributes["kafka.group.state.from"], e.attributes["kafka.group.state.to"]) for e in events]
    assert changes[-2:] == [("Stable", "PreparingRebalance"), ("PreparingRebalance", "Empty")]


def test_leave_group_removes_the_member_and_empties_the_group(cluster: Cluster):
    member = cluster.stable_member("g")
    assert cluster.leave("g", member.member_id) == Errors.NONE
    wait_until(lambda: cluster.state("g") == "Empty", what="the group emptied")
    assert cluster.leave("g", member.member_id) == Errors.UNKNOWN_MEMBER_ID
    assert cluster.leave("unknown-group", "m") == Errors.UNKNOWN_MEMBER_ID
    assert cluster.heartbeat("g", member.member_id, 1) == Errors.UNKNOWN_MEMBER_ID


def test_requests_from_an_old_generation_are_illegal(cluster: Cluster):
    member = cluster.stable_member("g")
    assert cluster.heartbeat("g", member.member_id, 0) == Errors.ILLEGAL_GENERATION
    assert cluster.sync("g", 7, member.member_id).get() == (b"", Errors.ILLEGAL_GENERATION)
    assert cluster.commit("g", {TP0: OffsetAndMetadata(1)}, member.member_id, 0) == {TP0: Errors.ILLEGAL_GENERATION}
    assert cluster.commit("no-such-group", {TP0: OffsetAndMetadata(1)}, "m", 3) == {TP0: Errors.ILLEGAL_GENERATION}


def test_unknown_members_are_told_to_rejoin_without_their_id(cluster: Cluster):
    assert cluster.join("new-group", member_id="made-up").get().error == Errors.UNKNOWN_MEMBER_ID
    member = cluster.stable_member("g")
    assert cluster.join("g", member_id="made-up").get().error == Errors.UNKNOWN_MEMBER_ID
    assert cluster.heartbeat("g", "made-up", 1) == Errors.UNKNOWN_MEMBER_ID
    assert cluster.sync("g", 1, "made-up").get() == (b"", Errors.UNKNOWN_MEMBER_ID)
    assert cluster.sync("no-such-group", 1, "m").get() == (b"", Errors.UNKNOWN_MEMBER_ID)
    assert cluster.commit("g", {TP0: OffsetAndMetadata(1)}, "made-up", 1) == {TP0: Errors.UNKNOWN_MEMBER_ID}
    assert cluster.heartbeat("g", member.member_id, 1) == Errors.NONE


def test_inconsistent_protocols_are_refused(cluster: Cluster):
    assert cluster.join("g", protocols=[]).get().error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert cluster.join("g", protocol_type="").get().error == Errors.INCONSISTENT_GROUP_PROTOCOL
    cluster.stable_member("g")
    assert cluster.join("g", protocol_type="connect").get().error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert cluster.join("g", protocols=[("sticky", b"")]).get().error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert cluster.state("g") == "Stable"


def test_session_timeouts_outside_the_broker_bounds_and_empty_group_ids_are_invalid(cluster: Cluster):
    assert cluster.join("g", session_timeout_ms=9).get().error == Errors.INVALID_SESSION_TIMEOUT
    assert cluster.join("g", session_timeout_ms=30001).get().error == Errors.INVALID_SESSION_TIMEOUT
    assert cluster.join("").get().error == Errors.INVALID_GROUP_ID
    assert cluster.coordinator.handle_delete_groups({""}) == {"": Errors.INVALID_GROUP_ID}


def test_an_invalid_state_transition_raises():
    group = GroupMetadata("g")
    with pytest.raises(IllegalStateException):
        group.transition_to(AwaitingSync)
    group.transition_to(PreparingRebalance)
    assert group.current_state.name == "PreparingRebalance"


# -- offsets -------------------------------------------------------------------------------------------------------


def test_commits_and_fetches_for_simple_and_managed_groups(cluster: Cluster):
    assert cluster.commit("simple", {TP0: OffsetAndMetadata(10, "m"), ("topic", 1): OffsetAndMetadata(11)}) == \
        {TP0: Errors.NONE, TP1: Errors.NONE}
    error, offsets = cluster.coordinator.handle_fetch_offsets("simple", [TP0, ("other", 0)])
    assert error == Errors.NONE
    assert (offsets[TP0].offset, offsets[TP0].metadata, offsets[TP0].error) == (10, "m", Errors.NONE)
    assert offsets[TopicPartition("other", 0)].offset == -1
    assert {tp: d.offset for tp, d in cluster.coordinator.handle_fetch_offsets("simple")[1].items()} == \
        {TP0: 10, TP1: 11}
    assert cluster.coordinator.handle_fetch_offsets("nobody")[1] == {}
    member = cluster.stable_member("managed")
    assert cluster.commit("managed", {TP0: OffsetAndMetadata(3)}, member.member_id, 1) == {TP0: Errors.NONE}
    assert cluster.coordinator.handle_fetch_offsets("managed", [TP0])[1][TP0].offset == 3
    # A failed append reaches the client in the coordinator's words.
    cluster.replica_manager.append_error = Errors.NOT_LEADER_OR_FOLLOWER
    assert cluster.commit("simple", {TP0: OffsetAndMetadata(99)}) == {TP0: Errors.NOT_COORDINATOR}
    assert cluster.coordinator.handle_fetch_offsets("simple", [TP0])[1][TP0].offset == 10


def test_commits_to_unknown_topics_are_refused_when_the_hook_is_set(cluster: Cluster):
    cluster.coordinator.is_topic_known = lambda topic: topic == "topic"
    assert cluster.commit("simple", {TP0: OffsetAndMetadata(1), ("gone", 0): OffsetAndMetadata(2)}) == \
        {TP0: Errors.NONE, TopicPartition("gone", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}
    assert cluster.commit("simple", {("gone", 0): OffsetAndMetadata(2)}) == \
        {TopicPartition("gone", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}


def test_offsets_and_groups_survive_a_restart(cluster: Cluster):
    member = cluster.stable_member("g", assignment=b"kept")
    cluster.commit("g", {TP0: OffsetAndMetadata(42, "meta", 1, 2**40)}, member.member_id, 1)
    cluster.commit("simple", {TP1: OffsetAndMetadata(7, "", 1, 2**40)})
    restarted = cluster.restart()
    try:
        assert restarted.coordinator.handle_fetch_offsets("g", [TP0])[1][TP0].offset == 42
        assert restarted.coordinator.handle_fetch_offsets("simple", [TP1])[1][TP1].offset == 7
        error, summary = restarted.coordinator.handle_describe_group("g")
        assert (error, summary.state, summary.protocol) == (Errors.NONE, "Stable", "range")
        assert [(m.member_id, m.assignment) for m in summary.members] == [(member.member_id, b"kept")]
        assert restarted.state("simple") == "Empty"
        # The loaded member's session runs again: it may heartbeat in its generation.
        assert restarted.heartbeat("g", member.member_id, 1) == Errors.NONE
        assert sorted(o.group_id for o in restarted.coordinator.handle_list_groups()[1]) == ["g", "simple"]
    finally:
        restarted.stop()


def test_expired_offsets_are_tombstoned_and_stay_gone_after_a_restart(tmp_path: Path):
    now = [1_000_000]
    cluster = Cluster(tmp_path, clock=lambda: now[0], expiration=True, offsets_retention_check_interval_ms=20).start()
    cluster.commit("simple", {TP0: OffsetAndMetadata(5, "", now[0], now[0] + 1000),
                              TP1: OffsetAndMetadata(6, "", now[0], now[0] + 10**9)})
    now[0] += 2000
    wait_until(lambda: cluster.coordinator.handle_fetch_offsets("simple", [TP0])[1][TP0].offset == -1,
               what="the expired offset removed")
    partition = cluster.replica_manager.partitions[TopicPartition("__consumer_offsets", 0)]
    wait_until(lambda: any(v is None for _, _, v in records_in(partition)), what="a tombstone in the log")
    tombstones = [read_message_key(k) for _, k, v in records_in(partition) if v is None]
    assert [key.key.topic_partition for key in tombstones if isinstance(key, OffsetKey)] == [TP0]
    restarted = cluster.restart()
    try:
        offsets = restarted.coordinator.handle_fetch_offsets("simple", [TP0, TP1])[1]
        assert (offsets[TP0].offset, offsets[TP1].offset) == (-1, 6)
    finally:
        restarted.stop()


def test_delete_groups_writes_tombstones_and_refuses_non_empty_groups(cluster: Cluster):
    cluster.commit("simple", {TP0: OffsetAndMetadata(5)})
    member = cluster.stable_member("left")
    assert cluster.leave("left", member.member_id) == Errors.NONE
    wait_until(lambda: cluster.state("left") == "Empty", what="the group emptied")
    cluster.stable_member("busy")
    result = cluster.coordinator.handle_delete_groups({"simple", "left", "busy", "never-existed"})
    assert result == {"simple": Errors.NONE, "left": Errors.NONE, "busy": Errors.NON_EMPTY_GROUP,
                      "never-existed": Errors.GROUP_ID_NOT_FOUND}
    assert cluster.coordinator.handle_fetch_offsets("simple", [TP0])[1][TP0].offset == -1
    assert cluster.state("left") == "Dead"  # unknown now: DescribeGroups answers the dead group
    partition = cluster.replica_manager.partitions[TopicPartition("__consumer_offsets", 0)]
    tombstones = {str(read_message_key(k).key) for _, k, v in records_in(partition) if v is None}
    assert tombstones == {"[simple,topic,0]", "left"}  # "simple" had generation 0: no group record to delete
    assert cluster.coordinator.handle_delete_groups({"simple"}) == {"simple": Errors.GROUP_ID_NOT_FOUND}


# -- coordinator ownership -----------------------------------------------------------------------------------------


def test_groups_of_a_partition_this_broker_does_not_lead_get_not_coordinator(tmp_path: Path):
    cluster = Cluster(tmp_path, partitions=2, owned=(0,)).start()
    try:
        foreign = group_on_partition(cluster.manager, 1)
        assert cluster.coordinator.partition_for(foreign) == 1
        assert not cluster.manager.is_partition_owned(1) and cluster.manager.is_partition_owned(0)
        assert cluster.join(foreign).get().error == Errors.NOT_COORDINATOR
        assert cluster.sync(foreign, 1, "m").get() == (b"", Errors.NOT_COORDINATOR)
        assert cluster.heartbeat(foreign, "m", 1) == Errors.NOT_COORDINATOR
        assert cluster.leave(foreign, "m") == Errors.NOT_COORDINATOR
        assert cluster.commit(foreign, {TP0: OffsetAndMetadata(1)}) == {TP0: Errors.NOT_COORDINATOR}
        assert cluster.coordinator.handle_fetch_offsets(foreign, [TP0])[0] == Errors.NOT_COORDINATOR
        assert cluster.coordinator.handle_describe_group(foreign)[0] == Errors.NOT_COORDINATOR
        assert cluster.coordinator.handle_delete_groups({foreign}) == {foreign: Errors.NOT_COORDINATOR}
    finally:
        cluster.stop()
    assert cluster.join("g").get().error == Errors.COORDINATOR_NOT_AVAILABLE
    assert cluster.coordinator.handle_list_groups() == (Errors.COORDINATOR_NOT_AVAILABLE, [])


def test_requests_during_a_load_get_kafka_1_0_2s_answers(tmp_path: Path):
    cluster = Cluster(tmp_path, owned=())
    partition = cluster.replica_manager.lead(0)
    loading, release = threading.Event(), threading.Event()

    def hold_the_load() -> None:
        loading.set()
        assert release.wait(5)

    partition.on_local_log = hold_the_load
    cluster.coordinator.startup(enable_metadata_expiration=False)
    try:
        # First load: the partition is loading but not owned yet, and 1.0.2 checks ownership first.
        cluster.coordinator.handle_group_immigration(0)
        assert loading.wait(5) and cluster.coordinator.is_group_loading("g")
        assert cluster.join("g").get().error == Errors.NOT_COORDINATOR
        assert cluster.heartbeat("g", "m", 1) == Errors.NOT_COORDINATOR
        assert cluster.coordinator.handle_list_groups()[0] == Errors.COORDINATOR_LOAD_IN_PROGRESS
        release.set()
        wait_until(lambda: cluster.manager.is_partition_owned(0) and not cluster.manager.is_loading(),
                   what="the first load finished")
        # Loading an owned partition again (leadership regained): now the load is what requests hear about.
        loading.clear()
        release.clear()
        cluster.coordinator.handle_group_immigration(0)
        assert loading.wait(5)
        assert cluster.join("g").get().error == Errors.COORDINATOR_LOAD_IN_PROGRESS
        assert cluster.commit("g", {TP0: OffsetAndMetadata(1)}) == {TP0: Errors.COORDINATOR_LOAD_IN_PROGRESS}
        assert cluster.coordinator.handle_fetch_offsets("g", [TP0])[0] == Errors.COORDINATOR_LOAD_IN_PROGRESS
        assert cluster.coordinator.handle_describe_group("g")[0] == Errors.COORDINATOR_LOAD_IN_PROGRESS
        assert cluster.leave("g", "m") == Errors.COORDINATOR_LOAD_IN_PROGRESS
        assert cluster.heartbeat("g", "m", 1) == Errors.NONE  # answered blindly while loading
        release.set()
        wait_until(lambda: not cluster.manager.is_loading(), what="the second load finished")
        assert cluster.join("g").get().error == Errors.NONE
    finally:
        release.set()
        cluster.stop()


def test_emigration_unloads_groups_and_answers_waiting_members(cluster: Cluster, tracing):
    first = cluster.stable_member("g")
    second_reply = cluster.join("g")  # parked in PreparingRebalance until the first member rejoins
    cluster.coordinator.handle_group_emigration(0)
    assert second_reply.get().error == Errors.NOT_COORDINATOR
    wait_until(lambda: not cluster.manager.is_partition_owned(0), what="the partition unloaded")
    assert cluster.manager.get_group("g") is None
    assert cluster.heartbeat("g", first.member_id, 1) == Errors.NOT_COORDINATOR
    dead = [e for s in tracing.memory.get_finished_spans() for e in s.events
            if e.name == "group.state.change" and e.attributes["kafka.group.state.to"] == "Dead"]
    assert dead and dead[0].attributes["kafka.group.id"] == "g"
