"""Describers for replication spans (see kafka_edu/tracing/attributes.py): the controller's requests as
ReplicaManager handles them, Partition's ISR, the followers' fetchers; and the broker's registration and log
loading. KafkaApis and the write path down to the log are in request_path.py."""

from __future__ import annotations

from typing import Any

from opentelemetry import trace

from kafka_edu.tracing.attributes import Scope, end, on_event, start, when

OFFSETS_TOPIC = "__consumer_offsets"
TRANSACTION_STATE_TOPIC = "__transaction_state"
BROKER_SEQUENCE_ID_PATH = "/brokers/seqid"  # ZkUtils.BrokerSequenceIdPath: getBrokerSequenceId is handed no path


def _partitions(topic_partitions: Any) -> list[str]:
    return [str(tp) for tp in topic_partitions]


def controller_of(request: Any) -> dict[str, Any]:
    return {"kafka.controller.id": request.controller_id, "kafka.controller.epoch": request.controller_epoch}


# -- who made this broker lead, follow or delete an offsets (or transaction state) partition -------------------------
# The group coordinator loads or unloads the partition's groups later, on a scheduler thread, in a trace of its own
# that links to that span (groups.py); the transaction coordinator its transactional ids (transactions.py).
# Recorded as makeLeaders, makeFollowers or stopReplicas starts: the span that is
# running then is the one that called them (ReplicaManager.becomeLeaderOrFollower, KafkaApis.handleStopReplicaRequest).

_changed_by: dict[tuple[str, int], Any] = {}


def _record_change(topic_partitions: Any) -> None:
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        for tp in topic_partitions:
            if tp.topic in (OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC):
                _changed_by[(tp.topic, tp.partition)] = context


def changed_by(topic_partition: Any) -> Any:
    """The span that last made this broker lead, follow or delete `topic_partition`, once; None if unknown."""
    return _changed_by.pop((topic_partition.topic, topic_partition.partition), None)


# -- ReplicaManager ----------------------------------------------------------------------------------------------------

@start("ReplicaManager.becomeLeaderOrFollower")
def _become_leader_or_follower(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {**controller_of(request), "kafka.correlation_id": s["correlation_id"],
            "kafka.partitions": _partitions(request.partition_states)}


@start("ReplicaManager.makeLeaders")
def _make_leaders(s: Scope) -> dict[str, Any]:
    _record_change(s["partition_state"])
    return {"kafka.controller.id": s["controller_id"], "kafka.controller.epoch": s["epoch"],
            "kafka.partitions": _partitions(s["partition_state"])}


@start("ReplicaManager.makeFollowers")
def _make_followers(s: Scope) -> dict[str, Any]:
    _record_change(s["partition_state"])
    return {"kafka.controller.id": s["controller_id"], "kafka.controller.epoch": s["epoch"],
            "kafka.partitions": _partitions(s["partition_state"])}


@end("ReplicaManager.makeFollowers")
def _followed(s: Scope) -> dict[str, Any]:
    followed = s["result"]
    return {"kafka.partitions.followed": sorted(str(p.topic_partition) for p in followed)} if followed is not None \
        else {}


@start("ReplicaManager.stopReplicas")
def _stop_replicas(s: Scope) -> dict[str, Any]:
    request = s["request"]
    if request.delete_partitions:
        _record_change(request.partitions)
    return {**controller_of(request), "kafka.partitions": _partitions(request.partitions),
            "kafka.delete_partitions": request.delete_partitions}


@start("ReplicaManager.maybeUpdateMetadataCache")
def _update_metadata(s: Scope) -> dict[str, Any]:
    return {**controller_of(s["request"]), "kafka.correlation_id": s["correlation_id"]}


@on_event("controller.epoch.stale")
def _fenced(s: Scope) -> dict[str, Any]:
    """A request from an older controller, in the ReplicaManager handler that refuses it."""
    request = s["request"]  # a LeaderAndIsrRequest, StopReplicaRequest or UpdateMetadataRequest
    return {"kafka.api.name": type(request).__name__.removesuffix("Request"),
            "kafka.controller.id": request.controller_id,
            "kafka.controller.epoch": request.controller_epoch,
            "kafka.controller.epoch.latest": s["self"].controller_epoch}


@on_event("leader.epoch.stale")
def _stale_leader_epoch(s: Scope) -> dict[str, Any]:
    topic_partition = s["topic_partition"]
    return {"kafka.topic": topic_partition.topic, "kafka.partition": topic_partition.partition,
            "kafka.leader.epoch": s["state_info"].leader_epoch,
            "kafka.leader.epoch.current": s["partition_leader_epoch"]}


@start("ReplicaManager.maybePropagateIsrChanges")
def _isr_changes(s: Scope) -> dict[str, Any]:
    return {"kafka.partitions": sorted(_partitions(s["self"].isr_change_set))}


@end("ReplicaManager.maybePropagateIsrChanges")
def _isr_change_notification(s: Scope) -> dict[str, Any]:
    path = s.get("path")
    return {"kafka.zk.path": path} if path is not None else {}


# -- Partition: the ISR --------------------------------------------------------------------------------------------

def _isr_move(s: Scope) -> dict[str, Any]:
    partition = s["self"]
    return {"kafka.topic": partition.topic, "kafka.partition": partition.partition_id,
            "kafka.isr.from": sorted(partition.in_sync_replicas), "kafka.isr.to": sorted(s["new_isr"])}


@start("Partition.maybeExpandIsr")
def _expand_isr(s: Scope) -> dict[str, Any]:
    return _isr_move(s)


@start("Partition.maybeShrinkIsr")
def _shrink_isr(s: Scope) -> dict[str, Any]:
    return {**_isr_move(s), "kafka.replica.lag.time.max.ms": s["max_lag_ms"]}


@start("Partition.updateIsr")
def _update_isr(s: Scope) -> dict[str, Any]:
    partition = s["self"]
    return {"kafka.topic": partition.topic, "kafka.partition": partition.partition_id,
            "kafka.isr": sorted(s["new_isr"]), "kafka.zk.version": partition.zk_version}


@end("Partition.updateIsr")
def _isr_updated(s: Scope) -> dict[str, Any]:
    return {"kafka.isr.update.succeeded": s["update_succeeded"]} if "update_succeeded" in s else {}


@on_event("isr.change")
def _isr_change(s: Scope) -> dict[str, Any]:
    return {"kafka.isr.from": sorted(s["self"].in_sync_replicas), "kafka.isr.to": sorted(s["new_isr"]),
            "kafka.zk.version": s["new_version"]}


# -- the followers' fetchers -----------------------------------------------------------------------------------------

# A follower's truncation before its first fetch (LE.request, LE.truncate, the log.truncate event) is in
# leader_epoch.py.

@when("AbstractFetcherThread.processFetchRequest")
def _fetched_something(s: Scope) -> bool:
    """A fetch that brought nothing is not worth a trace; one that moved data or failed (a non-zero error code) is."""
    return bool(s["partitions_with_error"]) or any(len(data.records or b"") > 0 or data.error
                                                   for _, data in s["response_data"])


@start("AbstractFetcherThread.processFetchRequest")
def _fetch_response(s: Scope) -> dict[str, Any]:
    return {"kafka.fetcher.source.broker": s["self"].source_broker.id, "kafka.partitions": len(s["response_data"])}


@end("AbstractFetcherThread.processFetchRequest")
def _fetch_errors(s: Scope) -> dict[str, Any]:
    return {"kafka.partitions.error": sorted(_partitions(s["partitions_with_error"]))}


@start("ReplicaFetcherThread.handleOffsetOutOfRange")
def _out_of_range(s: Scope) -> dict[str, Any]:
    topic_partition = s["topic_partition"]
    return {"kafka.topic": topic_partition.topic, "kafka.partition": topic_partition.partition,
            "kafka.fetcher.source.broker": s["self"].source_broker.id}


@on_event("records.truncated")
def _records_truncated(s: Scope) -> dict[str, Any]:
    """What 1.0.2 only warns about in its log: the records a follower throws away to match its leader, recorded just
    before the cut. Unclean: the leader's log ends before the follower's, which only an unclean election does; those
    records were written (maybe acknowledged) once and are now on no replica. Otherwise the follower is behind the
    leader's log start and starts over there."""
    replica = s["replica"]
    topic_partition = replica.topic_partition
    unclean = s["leader_end_offset"] < replica.log_end_offset
    from_offset = replica.log_end_offset
    to_offset = s["leader_end_offset"] if unclean else replica.log_start_offset
    return {"kafka.topic": topic_partition.topic, "kafka.partition": topic_partition.partition,
            "kafka.offset.from": from_offset, "kafka.offset.to": to_offset,
            "kafka.records.lost": from_offset - to_offset, "kafka.unclean": unclean}


# -- the broker's registration and its logs ------------------------------------------------------------------------

@start("KafkaHealthcheck.register")
def _register(s: Scope) -> dict[str, Any]:
    return {"kafka.broker.id": s["self"].broker_id}


@start("LogManager.loadLogs")
def _load_logs(s: Scope) -> dict[str, Any]:
    return {"kafka.log.dirs": [str(d) for d in s["self"].live_log_dirs]}


@end("LogManager.loadLogs")
def _logs_loaded(s: Scope) -> dict[str, Any]:
    return {"kafka.log.count": len(s["self"].logs)}


@start("ZkUtils.setupCommonPaths")
def _common_paths(s: Scope) -> dict[str, Any]:
    return {"kafka.zk.paths": list(s["self"].persistent_zk_paths)}


@start("ZkUtils.getBrokerSequenceId")
def _broker_sequence_id(s: Scope) -> dict[str, Any]:
    return {"kafka.zk.path": BROKER_SEQUENCE_ID_PATH}
