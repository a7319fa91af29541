"""GroupMetadataManager: __consumer_offsets records, appends, replay on immigration, expiration tombstones.

The offsets partitions are real Logs in a tmp dir behind a tiny ReplicaManager stand-in (tests/unit/helpers.py).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import Dead, Empty, GroupMetadata, Stable
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import (
    GroupMetadataKey,
    GroupMetadataManager,
    GroupTopicPartition,
    OffsetKey,
    group_metadata_key,
    group_metadata_value,
    java_string_hash_code,
    offset_commit_key,
    offset_commit_value,
    read_group_message_value,
    read_message_key,
    read_offset_message_value,
    utils_abs,
)
from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_config import OffsetConfig
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import wait_until
from tests.unit.helpers import Reply, StubPartition, StubReplicaManager, records_in


@pytest.fixture
def replica_manager(tmp_path: Path):
    rm = StubReplicaManager(tmp_path)
    yield rm
    rm.close()


def new_manager(rm: StubReplicaManager, clock: Callable[[], int] | None = None, **config: int
                ) -> GroupMetadataManager:
    offset_config = OffsetConfig(offsets_topic_num_partitions=config.pop("partitions", 1), **config)
    return GroupMetadataManager(0, offset_config, rm, time_ms=clock or (lambda: 1_000_000))


def stable_group(group_id: str = "g", member_id: str = "m1") -> GroupMetadata:
    member = MemberMetadata(member_id, group_id, "client", "/127.0.0.1", 60000, 10000, "consumer",
                            [("range", b"sub")])
    group = GroupMetadata.load_group(group_id, Stable, 3, "consumer", "range", member_id, [member])
    member.assignment = b"assigned"
    return group


# -- the keys and values, byte for byte ----------------------------------------------------------------------------


def test_partition_for_is_abs_of_java_string_hash_code_modulo_partitions():
    assert java_string_hash_code("") == 0
    assert java_string_hash_code("hello") == 99162322
    assert java_string_hash_code("é") == 233
    assert java_string_hash_code("😀") == 0xD83D * 31 + 0xDE00  # UTF-16 surrogates, as Java sees it
    assert java_string_hash_code("polygenelubricants") == -(2**31)
    assert utils_abs(-(2**31)) == 0 and utils_abs(-5) == 5
    manager = new_manager(StubReplicaManager(Path("/nonexistent")), partitions=50)
    assert manager.partition_for("polygenelubricants") == 0
    assert manager.partition_for("hello") == 99162322 % 50
    assert manager.partition_for("console-consumer-1") == abs(java_string_hash_code("console-consumer-1")) % 50


def test_offset_commit_key_v1_and_value_v1_layout():
    key = offset_commit_key("g", TopicPartition("t", 7))
    assert key == struct.pack(">h", 1) + b"\x00\x01g" + b"\x00\x01t" + struct.pack(">i", 7)
    value = offset_commit_value(OffsetAndMetadata(42, "meta", 1000, 2000))
    assert value == struct.pack(">hq", 1, 42) + b"\x00\x04meta" + struct.pack(">qq", 1000, 2000)
    assert read_message_key(key) == OffsetKey(1, GroupTopicPartition("g", TopicPartition("t", 7)))
    assert read_offset_message_value(value) == OffsetAndMetadata(42, "meta", 1000, 2000)
    # Value v0 (offset, metadata, timestamp) still reads.
    assert read_offset_message_value(struct.pack(">hq", 0, 5) + b"\x00\x00" + struct.pack(">q", 9)) == \
        OffsetAndMetadata(5, "", 9)
    assert read_offset_message_value(None) is None


def test_group_metadata_key_v2_and_value_v1_round_trip():
    key = group_metadata_key("grp")
    assert key == struct.pack(">h", 2) + b"\x00\x03grp"
    assert read_message_key(key) == GroupMetadataKey(2, "grp")
    group = stable_group("grp")
    value = group_metadata_value(group, {"m1": b"assigned"}, version=1)
    assert value[:2] == struct.pack(">h", 1)
    loaded = read_group_message_value("grp", value)
    assert loaded.current_state is Stable and loaded.generation_id == 3
    assert loaded.protocol_type == "consumer" and loaded.protocol == "range" and loaded.leader_id == "m1"
    (member,) = loaded.all_member_metadata()
    assert (member.rebalance_timeout_ms, member.session_timeout_ms) == (60000, 10000)
    assert member.metadata("range") == b"sub" and member.assignment == b"assigned"
    # Version 0 has no rebalance timeout: the session timeout stands in for it.
    member_v0 = read_group_message_value("grp", group_metadata_value(group, {"m1": b""}, version=0))
    assert member_v0.get("m1").rebalance_timeout_ms == 10000
    empty = GroupMetadata("e")
    empty.generation_id = 4
    loaded_empty = read_group_message_value("e", group_metadata_value(empty, {}, version=1))
    assert loaded_empty.current_state is Empty and loaded_empty.protocol is None
    assert read_group_message_value("grp", None) is None


# -- appends ---------------------------------------------------------------------------------------------------------


def test_store_offsets_appends_one_batch_then_caches_and_answers(replica_manager: StubReplicaManager):
    partition = replica_manager.lead(0)
    manager = new_manager(replica_manager)
    group = manager.add_group(GroupMetadata("g"))
    reply = Reply()
    offsets = {TopicPartition("t", 0): OffsetAndMetadata(10, "", 5, 6), TopicPartition("t", 1): OffsetAndMetadata(11)}
    manager.store_offsets(group, "", offsets, reply)
    assert reply.get() == {TopicPartition("t", 0): Errors.NONE, TopicPartition("t", 1): Errors.NONE}
    assert group.offset(TopicPartition("t", 0)) == OffsetAndMetadata(10, "", 5, 6)
    assert not group.pending_offset_commits
    (tp,) = replica_manager.appends[0]
    assert tp == TopicPartition("__consumer_offsets", 0)
    (first, second) = records_in(partition)
    assert read_message_key(first[1]) == OffsetKey(1, GroupTopicPartition("g", TopicPartition("t", 0)))
    assert read_offset_message_value(second[2]) == OffsetAndMetadata(11)


def test_too_large_metadata_is_refused_per_partition(replica_manager: StubReplicaManager):
    replica_manager.lead(0)
    manager = new_manager(replica_manager, max_metadata_size=4)
    group = manager.add_group(GroupMetadata("g"))
    reply = Reply()
    manager.store_offsets(group, "", {TopicPartition("t", 0): OffsetAndMetadata(1, "12345"),
                                      TopicPartition("t", 1): OffsetAndMetadata(2, "1234")}, reply)
    assert reply.get() == {TopicPartition("t", 0): Errors.OFFSET_METADATA_TOO_LARGE,
                           TopicPartition("t", 1): Errors.NONE}
    only_too_large = Reply()
    manager.store_offsets(group, "", {TopicPartition("t", 0): OffsetAndMetadata(1, "12345")}, only_too_large)
    assert only_too_large.get() == {TopicPartition("t", 0): Errors.OFFSET_METADATA_TOO_LARGE}
    assert len(replica_manager.appends) == 1  # nothing left to write: no append


@pytest.mark.parametrize(("append_error", "commit_error", "group_error"), [
    (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_COORDINATOR, Errors.NOT_COORDINATOR),
    (Errors.KAFKA_STORAGE_ERROR, Errors.NOT_COORDINATOR, Errors.NOT_COORDINATOR),
    (Errors.REQUEST_TIMED_OUT, Errors.REQUEST_TIMED_OUT, Errors.REBALANCE_IN_PROGRESS),
    (Errors.MESSAGE_TOO_LARGE, Errors.INVALID_COMMIT_OFFSET_SIZE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_COMMIT_OFFSET_SIZE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.INVALID_FETCH_SIZE, Errors.INVALID_COMMIT_OFFSET_SIZE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.CORRUPT_MESSAGE, Errors.CORRUPT_MESSAGE, Errors.CORRUPT_MESSAGE),
])
def test_append_errors_are_mapped_as_kafka_maps_them(replica_manager: StubReplicaManager, append_error: Errors,
                                                     commit_error: Errors, group_error: Errors):
    replica_manager.lead(0)
    replica_manager.append_error = append_error
    manager = new_manager(replica_manager)
    group = manager.add_group(GroupMetadata("g"))
    commit = Reply()
    manager.store_offsets(group, "", {TopicPartition("t", 0): OffsetAndMetadata(1)}, commit)
    assert commit.get() == {TopicPartition("t", 0): commit_error}
    assert group.offset(TopicPartition("t", 0)) is None and not group.pending_offset_commits
    store = Reply()
    manager.store_group(stable_group(), {"m1": b""}, store)
    assert store.get() == group_error


def test_writes_to_a_partition_without_a_local_replica_get_not_coordinator(replica_manager: StubReplicaManager):
    manager = new_manager(replica_manager)
    commit, store = Reply(), Reply()
    manager.store_offsets(GroupMetadata("g"), "", {TopicPartition("t", 0): OffsetAndMetadata(1)}, commit)
    manager.store_group(stable_group(), {"m1": b""}, store)
    assert commit.get() == {TopicPartition("t", 0): Errors.NOT_COORDINATOR}
    assert store.get() == Errors.NOT_COORDINATOR
    assert not replica_manager.appends


# -- replay on immigration -------------------------------------------------------------------------------------------


def append(partition: StubPartition, manager: GroupMetadataManager, records: list[tuple[bytes, bytes | None]]) -> None:
    partition.append_records_to_leader(manager._build_records([(1, k, v) for k, v in records]), False, -1)


def test_loading_replays_offsets_groups_and_tombstones_in_log_order(replica_manager: StubReplicaManager):
    partition = replica_manager.lead(0)
    manager = new_manager(replica_manager, offsets_retention_ms=500)
    tp0, tp1 = TopicPartition("t", 0), TopicPartition("t", 1)
    append(partition, manager, [(offset_commit_key("g", tp0), offset_commit_value(OffsetAndMetadata(1, "", 10, 20))),
                                (offset_commit_key("g", tp1), offset_commit_value(OffsetAndMetadata(5, "", 10, 20)))])
    append(partition, manager, [(offset_commit_key("g", tp0), offset_commit_value(OffsetAndMetadata(2, "x", 30))),
                                (offset_commit_key("g", tp1), None)])
    append(partition, manager, [(group_metadata_key("g"), group_metadata_value(stable_group(), {"m1": b"a"}, 1))])
    # "gone" had a group record, then a tombstone; "simple" only stores offsets.
    append(partition, manager, [(group_metadata_key("gone"), group_metadata_value(stable_group("gone"), {"m1": b""},
                                                                                  1)),
                                (offset_commit_key("simple", tp0), offset_commit_value(OffsetAndMetadata(7))),
                                (group_metadata_key("gone"), None)])
    loaded: list[str] = []
    manager.startup(enable_metadata_expiration=False)
    manager.load_groups_for_partition(0, lambda group: loaded.append(group.group_id))
    wait_until(lambda: manager.is_partition_owned(0), what="partition 0 owned")
    manager.shutdown()
    assert sorted(loaded) == ["g", "simple"]
    group = manager.get_group("g")
    assert group.current_state is Stable and group.generation_id == 3 and group.get("m1").assignment == b"a"
    # The newest commit wins; v1 commits without an expire time get commit time + offsets.retention.
    assert group.all_offsets() == {tp0: OffsetAndMetadata(2, "x", 30, 530)}
    assert manager.get_group("simple").current_state is Empty
    assert manager.get_group("gone") is None


def test_no_local_log_means_nothing_to_load_but_the_partition_is_owned(replica_manager: StubReplicaManager):
    manager = new_manager(replica_manager)
    manager.startup(enable_metadata_expiration=False)
    manager.load_groups_for_partition(0, lambda group: None)
    wait_until(lambda: manager.is_partition_owned(0), what="partition 0 owned")
    manager.shutdown()
    assert manager.current_groups() == []


# -- expiration ------------------------------------------------------------------------------------------------------


def test_cleanup_expires_offsets_kills_empty_groups_and_writes_tombstones(replica_manager: StubReplicaManager):
    partition = replica_manager.lead(0)
    now = [1_000]
    manager = new_manager(replica_manager, clock=lambda: now[0])
    tp0, tp1 = TopicPartition("t", 0), TopicPartition("t", 1)
    group = manager.add_group(GroupMetadata("g"))
    group.generation_id = 2  # it once had members: its group record gets a tombstone too
    manager.store_offsets(group, "", {tp0: OffsetAndMetadata(1, "", 1_000, 2_000),
                                      tp1: OffsetAndMetadata(2, "", 1_000, 9_000)}, Reply())
    now[0] = 5_000
    manager.cleanup_group_metadata()
    assert group.all_offsets() == {tp1: OffsetAndMetadata(2, "", 1_000, 9_000)} and group.current_state is Empty
    now[0] = 10_000
    manager.cleanup_group_metadata()
    assert group.current_state is Dead and manager.get_group("g") is None
    tombstones = [(read_message_key(k), v) for _, k, v in records_in(partition)[2:]]
    assert tombstones == [(OffsetKey(1, GroupTopicPartition("g", tp0)), None),
                          (OffsetKey(1, GroupTopicPartition("g", tp1)), None),
                          (GroupMetadataKey(2, "g"), None)]
