"""Describers for KRaft controller spans (Kafka 3.9; see kafka_edu/tracing/attributes.py).

Joins across processes go by log offset: a write span records `kafka.raft.offset.first/last` of what it appended,
and a replay span the offsets it applied, on the active controller (before commit) and on each standby.

KR.replay is one span per replayed *batch* (not per record): its attributes list the record types and the offsets.
The raft listener's handleCommit iterates its reader as 3.9 does, and each committed batch it takes is a span of that
name (`kafka.raft.batches` is 1): whether a batch is worth a span is known only once it is read.
The NoOpRecord the active controller writes every metadata.max.idle.interval.ms gets no span of its own: the write
event, its replay and a committed batch that carries only NoOps are all left untraced (`when`), so an idle cluster
adds nothing here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kafka_edu.tracing.attributes import Scope, end, start, when

_WRITE_RUN = "QuorumController.ControllerWriteEvent.run"
_HANDLE_COMMIT = "QuorumController.QuorumMetaLogListener.handleCommit"
_HANDLE_LEADER_CHANGE = "QuorumController.QuorumMetaLogListener.handleLeaderChange"
_NO_OP = "NoOpRecord"


def _type_names(records: Any) -> list[str]:
    return [type(r.message).__name__ for r in records]


def _types_summary(names: list[str]) -> list[str]:
    """"TopicRecord", "PartitionRecord x3": the record types in order of first appearance, with counts."""
    counts = Counter(names)
    return [name if counts[name] == 1 else f"{name} x{counts[name]}" for name in dict.fromkeys(names)]


def _only_no_ops(names: list[str]) -> bool:
    return all(name == _NO_OP for name in names)


def _stale_broker(controller_or_replication: Any) -> int | None:
    """The broker a fencing event would fence now (read, not changed)."""
    cluster = getattr(controller_or_replication, "cluster_control", None) or \
        controller_or_replication._cluster_control
    manager = cluster._heartbeat_manager
    return None if manager is None else manager.find_one_stale_broker()


# -- the write path -----------------------------------------------------------------------------------------------

@when(_WRITE_RUN)
def _write_worth_a_span(s: Scope) -> bool:
    event = s["self"]
    if event.name == "writeNoOpRecord":
        return False
    if event.name == "maybeFenceReplicas":
        return _stale_broker(event.controller) is not None
    return True


@start(_WRITE_RUN)
def _write_start(s: Scope) -> dict[str, Any]:
    event = s["self"]
    c = event.controller
    return {"kafka.controller.event": event.name, "kafka.controller.epoch": c.cur_claim_epoch,
            "kafka.controller.active": c.cur_claim_epoch != -1}


@end(_WRITE_RUN)
def _write_end(s: Scope) -> dict[str, Any]:
    result_and_offset = s["self"].result_and_offset
    if result_and_offset is None:  # refused (NOT_CONTROLLER) or failed before writing
        return {}
    records = result_and_offset.result.records
    attributes: dict[str, Any] = {"kafka.metadata.records": len(records),
                                  "kafka.controller.wait.offset": result_and_offset.offset}
    if records:
        last = result_and_offset.offset
        attributes["kafka.raft.offset.first"] = last - len(records) + 1
        attributes["kafka.raft.offset.last"] = last
        attributes["kafka.metadata.record.types"] = _types_summary(_type_names(records))
    return attributes


@when("KR.replay")
def _replay_worth_a_span(s: Scope) -> bool:
    return not _only_no_ops(_type_names(s["records"]))


@start("KR.replay")
def _replay(s: Scope) -> dict[str, Any]:
    records, base_offset = s["records"], s["base_offset"]
    return {"kafka.raft.offset.first": base_offset, "kafka.raft.offset.last": base_offset + len(records) - 1,
            "kafka.metadata.record.types": _types_summary(_type_names(records)),
            "kafka.controller.role": s["role"]}


# -- the raft listener --------------------------------------------------------------------------------------------

@when(_HANDLE_COMMIT)
def _commit_worth_a_span(s: Scope) -> bool:
    batch = s["batch"]
    return bool(batch.control_records) or not _only_no_ops(_type_names(batch.records))


@start(_HANDLE_COMMIT)
def _commit(s: Scope) -> dict[str, Any]:
    batch, c = s["batch"], s["self"].controller
    return {"kafka.controller.active": c.cur_claim_epoch != -1, "kafka.raft.batches": 1,
            "kafka.raft.offset.first": batch.base_offset, "kafka.raft.offset.last": batch.last_offset}


@end(_HANDLE_COMMIT)
def _committed(s: Scope) -> dict[str, Any]:
    return {"kafka.controller.last_stable_offset": s["self"].controller.offset_control.last_stable_offset()}


@start(_HANDLE_LEADER_CHANGE)
def _leader_change(s: Scope) -> dict[str, Any]:
    new_leader, c = s["new_leader"], s["self"].controller
    return {"kafka.raft.leader.id": new_leader.leader_id if new_leader.leader_id is not None else -1,
            "kafka.raft.epoch": new_leader.epoch, "kafka.controller.id": c.node_id,
            "kafka.controller.active": c.cur_claim_epoch != -1}


@start("QuorumController.claim")
def _claim(s: Scope) -> dict[str, Any]:
    return {"kafka.raft.epoch": s["epoch"], "kafka.controller.next_write_offset": s["new_next_write_offset"]}


@end("QuorumController.completeActivation")
def _activation(s: Scope) -> dict[str, Any]:
    result = s["result"]
    if result is None:
        return {}
    return {"kafka.metadata.record.types": _types_summary(_type_names(result.records)),
            "kafka.controller.log_was_empty": s["self"].log_replay_tracker_empty}


@start("QuorumController.renounce")
def _renounce(s: Scope) -> dict[str, Any]:
    c = s["self"]
    return {"kafka.raft.epoch": c.cur_claim_epoch,
            "kafka.controller.revert_to_offset": c.offset_control.last_stable_offset(),
            "kafka.controller.pending_writes": len(c.deferred_event_queue)}


# -- KR.fence -----------------------------------------------------------------------------------------------------

@when("KR.fence", "ReplicationControlManager.maybeFenceOneStaleBroker")
def _fence_worth_a_span(s: Scope) -> bool:
    return _stale_broker(s["self"]) is not None


@start("KR.fence", "ReplicationControlManager.maybeFenceOneStaleBroker")
def _fence(s: Scope) -> dict[str, Any]:
    owner = s["self"]
    cluster = getattr(owner, "cluster_control", None) or owner._cluster_control
    manager = cluster._heartbeat_manager
    broker = manager.find_one_stale_broker()
    state = next(b for b in manager.brokers() if b.id == broker)
    silent_ms = (manager.time_ns() - state.last_contact_ns) / 1e6
    return {"kafka.broker.id": broker, "kafka.broker.silent.ms": round(silent_ms, 3),
            "kafka.broker.session.timeout.ms": manager.session_timeout_ns // 1_000_000}


@end("KR.fence", "ReplicationControlManager.maybeFenceOneStaleBroker")
def _fenced(s: Scope) -> dict[str, Any]:
    result = s.get("result")
    if result is None:
        return {}
    names = _type_names(result.records)
    return {"kafka.metadata.record.types": _types_summary(names),
            "kafka.partitions.changed": names.count("PartitionChangeRecord")}


# -- the Controller API (KR.qc) -----------------------------------------------------------------------------------

@start("QuorumController.createTopics")  # by name: the other KR.qc spans have their own
def _create_topics(s: Scope) -> dict[str, Any]:
    return {"kafka.topics": [t.name for t in s["request"].topics]}


@start("QuorumController.registerBroker")
def _register_broker(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.broker.id": request.broker_id, "kafka.broker.incarnation_id": str(request.incarnation_id)}


@start("QuorumController.processBrokerHeartbeat")
def _heartbeat(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.broker.id": request.broker_id, "kafka.broker.epoch": request.broker_epoch,
            "kafka.broker.metadata_offset": request.current_metadata_offset,
            "kafka.broker.want_fence": request.want_fence, "kafka.broker.want_shut_down": request.want_shut_down}


@start("QuorumController.alterPartition")
def _alter_partition(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.broker.id": request.broker_id,
            "kafka.partitions": [f"{t.topic_id}:{p.partition_index}" for t in request.topics for p in t.partitions]}


@start("QuorumController.deleteTopics")
def _delete_topics(s: Scope) -> dict[str, Any]:
    return {"kafka.topic.ids": [str(i) for i in s["ids"]]}
