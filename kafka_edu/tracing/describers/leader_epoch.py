"""Describers for leader epoch spans (FIDELITY LE, KIP-101; see kafka_edu/tracing/attributes.py): a new epoch in a
log's cache, a follower asking its leader where its latest epoch ends, the leader's answer, and the truncation the
follower chose from it (by leader epoch, or by high watermark where the leader could not say)."""

from __future__ import annotations

from typing import Any

from kafka_edu.tracing.attributes import Scope, end, on_event, start

UNDEFINED_EPOCH_OFFSET = -1  # EpochEndOffset.UNDEFINED_EPOCH_OFFSET


def _topic_partition(tp: Any) -> dict[str, Any]:
    if hasattr(tp, "topic"):
        return {"kafka.topic": tp.topic, "kafka.partition": tp.partition}
    return {"kafka.topic.partition": str(tp)}  # a cache opened by a test on a bare name


def _sorted(epochs_by_partition: dict[Any, Any]) -> list[tuple[Any, Any]]:
    return sorted(epochs_by_partition.items(), key=lambda kv: str(kv[0]))


# -- LE.assign: LeaderEpochFileCache.assign, only for an epoch new to the cache ---------------------------------------

@start("LE.assign")
def _assign(s: Scope) -> dict[str, Any]:
    cache = s["self"]
    return {**_topic_partition(cache.topic_partition), "kafka.leader.epoch": s["epoch"],
            "kafka.leader.epoch.start_offset": s["offset"], "kafka.leader.epoch.previous": cache.latest_epoch()}


@end("LE.assign")
def _assigned(s: Scope) -> dict[str, Any]:
    return {"kafka.leader.epoch.entries": len(s["self"].epoch_entries())}


# -- LE.request: AbstractFetcherThread.maybeTruncate ------------------------------------------------------------------

@start("LE.request")
def _epoch_request(s: Scope) -> dict[str, Any]:
    asked = _sorted(s["epoch_requests"])
    return {"kafka.fetcher.source.broker": s["self"].source_broker.id,
            "kafka.partitions": [str(tp) for tp, _ in asked],
            "kafka.leader.epochs": [int(epoch) for _, epoch in asked],
            "kafka.leader.epoch.request.sent": bool(getattr(s["self"], "should_send_leader_epoch_request", True))}


@end("LE.request")
def _epoch_answers(s: Scope) -> dict[str, Any]:
    fetched = s.get("fetched_epochs")
    if fetched is None:  # the request failed before an answer was read
        return {}
    answers = _sorted(fetched)
    truncated = s.get("truncated")
    return {"kafka.leader.epoch.end_offsets": [int(e.end_offset) for _, e in answers],
            "kafka.leader.epoch.errors": [e.error.name for _, e in answers],
            "kafka.partitions.failed": sorted(str(tp) for tp in truncated.partitions_with_error) if truncated else []}


# -- LE.apis: KafkaApis.handleOffsetForLeaderEpochRequest on the leader -----------------------------------------------

@start("LE.apis")
def _epochs_asked(s: Scope) -> dict[str, Any]:
    request = s["request"]
    asked = sorted((t.topic, p.partition, p.leader_epoch) for t in request.body.topics for p in t.partitions)
    return {"kafka.client.id": request.client_id or "",
            "kafka.partitions": [f"{topic}-{partition}" for topic, partition, _ in asked],
            "kafka.leader.epochs": [int(epoch) for _, _, epoch in asked]}


@end("LE.apis")
def _epochs_answered(s: Scope) -> dict[str, Any]:
    answered = s.get("answers")
    if answered is None:
        return {}
    answers = _sorted(answered)
    return {"kafka.leader.epoch.end_offsets": [int(e.end_offset) for _, e in answers],
            "kafka.leader.epoch.errors": [e.error.name for _, e in answers]}


# -- LE.truncate: ReplicaFetcherThread.maybeTruncate(fetchedEpochs) ---------------------------------------------------

@start("LE.truncate")
def _truncating(s: Scope) -> dict[str, Any]:
    return {"kafka.fetcher.source.broker": s["self"].source_broker.id,
            "kafka.partitions": sorted(str(tp) for tp in s["fetched_epochs"])}


@end("LE.truncate")
def _truncated(s: Scope) -> dict[str, Any]:
    result = s.get("result")
    if result is None:
        return {}
    points = _sorted(result.result)
    return {"kafka.truncation.partitions": [str(tp) for tp, _ in points],
            "kafka.truncation.offsets": [int(offset) for _, offset in points],
            "kafka.partitions.failed": sorted(str(tp) for tp in result.partitions_with_error)}


@on_event("log.truncate")
def _truncation_choice(s: Scope) -> dict[str, Any]:
    """One partition's choice, recorded just before the cut: the leader's end offset for our epoch, our log end
    offset and high watermark, the offset chosen, and what chose it."""
    replica, epoch_offset, offset = s["replica"], s["epoch_offset"], s["offset"]
    log_end_offset = replica.log_end_offset
    if epoch_offset.end_offset == UNDEFINED_EPOCH_OFFSET:
        by = "high watermark"
    elif epoch_offset.end_offset >= log_end_offset:
        by = "log end offset"
    else:
        by = "leader epoch"
    return {**_topic_partition(replica.topic_partition), "kafka.offset": offset, "kafka.truncation.by": by,
            "kafka.leader.epoch.end_offset": int(epoch_offset.end_offset), "kafka.log_end_offset": log_end_offset,
            "kafka.high_watermark": replica.high_watermark,
            "kafka.records.lost": max(0, log_end_offset - offset)}
