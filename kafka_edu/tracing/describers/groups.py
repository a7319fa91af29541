"""Describers for consumer-group spans: GroupCoordinator, GroupMetadata and GroupMetadataManager (see
kafka_edu/tracing/attributes.py)."""

from __future__ import annotations

from typing import Any

from kafka_edu.tracing.attributes import Scope, end, links, on_event, start
from kafka_edu.tracing.describers.replication import OFFSETS_TOPIC, changed_by

# -- GroupCoordinator ------------------------------------------------------------------------------------------------


@start("GroupCoordinator.handleJoinGroup")
def _join(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["group_id"] or "", "kafka.member.id": s["member_id"], "kafka.client.id": s["client_id"]}


@start("GroupCoordinator.handleSyncGroup")
def _sync(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["group_id"] or "", "kafka.member.id": s["member_id"],
            "kafka.group.generation": s["generation"]}


@start("GroupCoordinator.handleLeaveGroup")
def _leave(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["group_id"] or "", "kafka.member.id": s["member_id"]}


@start("GroupCoordinator.handleDeleteGroups")
def _delete(s: Scope) -> dict[str, Any]:
    return {"kafka.group.ids": sorted(g or "" for g in s["group_ids"])}


@start("GroupCoordinator.prepareRebalance", "GroupMetadataManager.storeGroup")
def _group_generation(s: Scope) -> dict[str, Any]:
    group = s["group"]
    return {"kafka.group.id": group.group_id, "kafka.group.generation": group.generation_id}


@start("GroupCoordinator.onCompleteJoin")
def _complete_join(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["group"].group_id}


@end("GroupCoordinator.onCompleteJoin")
def _next_generation(s: Scope) -> dict[str, Any]:
    group = s["group"]  # still under the group's lock
    if group.current_state.name == "Dead":
        return {}  # removed from this coordinator meanwhile: no next generation
    attributes = {"kafka.group.generation": group.generation_id, "kafka.group.members": len(group.members)}
    members = list(group.all_member_metadata())
    if members:  # each member's JoinGroup was answered, in this order: the last one answered stays
        attributes["kafka.member.id"] = members[-1].member_id
    return attributes


@start("GroupCoordinator.onExpireHeartbeat")
def _expired(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["group"].group_id, "kafka.member.id": s["member"].member_id}


# -- GroupMetadata ---------------------------------------------------------------------------------------------------

@on_event("group.state.change")
def _state_change(s: Scope) -> dict[str, Any]:
    group = s["self"]  # GroupMetadata.transitionTo, before the state is set
    return {"kafka.group.id": group.group_id, "kafka.group.state.from": group.current_state.name,
            "kafka.group.state.to": s["group_state"].name, "kafka.group.generation": group.generation_id}


# -- GroupMetadataManager ------------------------------------------------------------------------------------------

@start("GroupMetadataManager.storeOffsets")
def _store_offsets(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["group"].group_id, "kafka.member.id": s["consumer_id"],
            "kafka.partitions": [f"{topic}-{partition}" for topic, partition in s["offset_metadata"]]}


@start("GroupMetadataManager.loadGroupsForPartition", "GroupMetadataManager.removeGroupsForPartition")
def _offsets_partition(s: Scope) -> dict[str, Any]:
    return {"kafka.topic": OFFSETS_TOPIC, "kafka.partition": s["topic_partition"].partition}


@links("GroupMetadataManager.loadGroupsForPartition", "GroupMetadataManager.removeGroupsForPartition")
def _scheduled_by(s: Scope) -> list[Any]:
    """The load or unload runs on a scheduler thread, in a trace of its own: it links to the span that made this
    broker lead the offsets partition, follow it, or delete it (LeaderAndIsr, StopReplica)."""
    context = changed_by(s["topic_partition"])
    return [context] if context is not None else []


@end("GroupMetadataManager.cleanupGroupMetadata")
def _cleaned_up(s: Scope) -> dict[str, Any]:
    if "offsets_removed" not in s:  # the cleanup failed before its count
        return {}
    return {"kafka.offsets.removed": s["offsets_removed"]}
