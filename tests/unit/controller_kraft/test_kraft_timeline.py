"""Timeline structures (server-common's org.apache.kafka.timeline): snapshots, historical reads and revert."""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_hash_set import TimelineHashSet
from kafka_edu.v3_9.server_common.timeline.timeline_integer import TimelineInteger
from kafka_edu.v3_9.server_common.timeline.timeline_long import TimelineLong
from kafka_edu.v3_9.server_common.timeline.timeline_object import TimelineObject


def test_map_reads_each_snapshot_while_the_present_changes() -> None:
    registry = SnapshotRegistry()
    topics: TimelineHashMap[str, int] = TimelineHashMap(registry)
    topics["a"] = 1
    registry.get_or_create_snapshot(10)
    topics["a"] = 2
    topics["b"] = 3
    registry.get_or_create_snapshot(20)
    del topics["a"]
    topics["c"] = 4

    assert dict(topics.entry_set()) == {"b": 3, "c": 4}
    assert dict(topics.entry_set(20)) == {"a": 2, "b": 3}
    assert dict(topics.entry_set(10)) == {"a": 1}
    assert topics.get("a", 10) == 1 and topics.get("a", 20) == 2 and topics.get("a") is None
    assert topics.get("b", 10) is None and topics.contains_key("b", 20)
    assert (topics.size(10), topics.size(20), topics.size()) == (1, 2, 2)


def test_revert_to_snapshot_undoes_every_structure_and_drops_later_snapshots() -> None:
    registry = SnapshotRegistry()
    topics: TimelineHashMap[str, int] = TimelineHashMap(registry)
    fenced: TimelineHashSet[int] = TimelineHashSet(registry)
    count = TimelineInteger(registry)
    offset = TimelineLong(registry)
    version = TimelineObject(registry, "3.8")
    topics["kept"] = 1
    fenced.add(1)
    count.set(1)
    registry.get_or_create_snapshot(5)
    topics["kept"] = 100
    topics["new"] = 2
    fenced.remove(1)
    fenced.add(2)
    count.increment()
    offset.set(42)
    version.set("3.9")
    registry.get_or_create_snapshot(9)
    topics["later"] = 3

    registry.revert_to_snapshot(5)

    assert dict(topics.entry_set()) == {"kept": 1}
    assert set(fenced) == {1}
    assert (count.get(), offset.get(), version.get()) == (1, 0, "3.8")
    assert registry.epochs_list() == [5]
    with pytest.raises(RuntimeError):
        registry.get_snapshot(9)


def test_deleting_an_older_snapshot_keeps_later_ones_revertible() -> None:
    registry = SnapshotRegistry()
    m: TimelineHashMap[str, int] = TimelineHashMap(registry)
    m["x"] = 1
    registry.get_or_create_snapshot(1)
    m["x"] = 2
    registry.get_or_create_snapshot(2)
    m["x"] = 3
    registry.get_or_create_snapshot(3)
    m["x"] = 4

    registry.delete_snapshots_up_to(2)  # 1 is committed: nothing will revert past it
    assert registry.epochs_list() == [2, 3]
    assert m.get("x", 2) == 2 and m.get("x", 3) == 3
    registry.revert_to_snapshot(2)
    assert m["x"] == 2


def test_merge_of_a_deleted_snapshot_into_the_one_before() -> None:
    registry = SnapshotRegistry()
    m: TimelineHashMap[str, int] = TimelineHashMap(registry)
    m["x"] = 1
    registry.get_or_create_snapshot(1)
    m["y"] = 5  # born after 1: must not come back when reverting to 1
    registry.get_or_create_snapshot(2)
    m["x"] = 2
    del m["y"]
    registry.delete_snapshot(2)
    assert m.get("x", 1) == 1 and m.get("y", 1) is None
    registry.revert_to_snapshot(1)
    assert dict(m.entry_set()) == {"x": 1}


def test_epochs_only_go_forward_and_reset_empties() -> None:
    registry = SnapshotRegistry()
    m: TimelineHashMap[str, int] = TimelineHashMap(registry)
    registry.get_or_create_snapshot(7)
    assert registry.get_or_create_snapshot(7) is registry.get_snapshot(7)
    with pytest.raises(RuntimeError):
        registry.get_or_create_snapshot(6)
    m["a"] = 1
    registry.reset()
    assert len(m) == 0 and registry.epochs_list() == []
