"""Describers for the metadata image spans (Kafka 3.9: MetadataLoader, SnapshotGenerator, SnapshotEmitter; see
kafka_edu/tracing/attributes.py).

KR.publish is the loader's handling of one commit (`MetadataLoader.handleCommit`) or of one snapshot
(`MetadataLoader.handleLoadSnapshot`). The NoOpRecord the active controller commits every 500 ms makes no
KR.publish span (`when`), unless that commit is the one that makes the snapshot generator write a snapshot. Then
the trace reads KR.publish -> SnapshotGenerator.publishLogDelta (why: bytes or time since the last snapshot) ->
the generator's queue -> SnapshotEmitter.maybeEmit -> KR.snapshot (KafkaRaftClient.createSnapshot).

Describers are registered by span name, not by KR.publish: the broker's BrokerMetadataPublisher.onMetadataUpdate
is the same row and reads other things. The loader's handleCommit hands its span the commit's batches, read whole
before the span opens: whether a commit is worth a span depends on them.
"""

from __future__ import annotations

import sys
from typing import Any

from kafka_edu.tracing.attributes import Scope, end, start, when
from kafka_edu.tracing.describers.kraft_controller import _only_no_ops, _type_names, _types_summary

_HANDLE_COMMIT = "MetadataLoader.handleCommit"
_LOAD_SNAPSHOT = "MetadataLoader.handleLoadSnapshot"
_PUBLISH_LOG_DELTA = "SnapshotGenerator.publishLogDelta"
_MAYBE_EMIT = "SnapshotEmitter.maybeEmit"
_GENERATOR = "SnapshotGenerator"
_MAX_NAMES = 100  # topic names listed on a span; the count is always there


def _snapshot_due(generator: Any, new_bytes: int) -> str | None:
    """Why `generator` would schedule a snapshot after `new_bytes` more log bytes, or None (read, not changed)."""
    if not generator.event_queue.is_empty():
        return None  # a snapshot is already queued or being written
    if generator.bytes_since_last_snapshot + new_bytes >= generator.max_bytes_since_last_snapshot:
        return "bytes"
    interval_ns = generator.max_time_since_last_snapshot_ns
    if interval_ns != 0 and generator.time.nanoseconds() - generator.last_snapshot_time_ns >= interval_ns:
        return "time"
    return None


def _image_summary(image: Any) -> dict[str, Any]:
    return {"kafka.metadata.image.offset": image.offset(),
            "kafka.metadata.image.epoch": image.provenance.last_contained_epoch,
            "kafka.metadata.image.metadata_version": str(image.features.metadata_version),
            "kafka.metadata.image.topics": len(image.topics.topics_by_id),
            "kafka.metadata.image.topic_names": sorted(image.topics.topics_by_name)[:_MAX_NAMES],
            "kafka.metadata.image.brokers": sorted(image.cluster.brokers)}


# -- KR.publish: MetadataLoader.handleCommit ------------------------------------------------------------------------

@when(_HANDLE_COMMIT)
def _commit_worth_a_span(s: Scope) -> bool:
    loader, batches = s["self"], s["batches"]
    if not _only_no_ops([name for batch in batches for name in _type_names(batch.records)]):
        return True
    generator = loader.publishers.get(_GENERATOR)  # installed once the loader has caught up
    return generator is not None and _snapshot_due(generator, sum(b.size_in_bytes for b in batches)) is not None


@start(_HANDLE_COMMIT)
def _commit(s: Scope) -> dict[str, Any]:
    loader, batches = s["self"], s["batches"]
    leader = loader.current_leader_and_epoch
    attributes: dict[str, Any] = {
        "kafka.node.id": loader.node_id, "kafka.raft.batches": len(batches),
        "kafka.metadata.loader.catching_up": loader.catching_up,
        "kafka.raft.leader.id": leader.leader_id if leader.leader_id is not None else -1,
        "kafka.raft.epoch": leader.epoch}
    if batches:
        attributes["kafka.raft.offset.first"] = batches[0].base_offset
        attributes["kafka.raft.offset.last"] = batches[-1].last_offset
        attributes["kafka.metadata.record.types"] = _types_summary(
            [name for batch in batches for name in _type_names(batch.records)])
    return attributes


@end(_HANDLE_COMMIT)
def _committed(s: Scope) -> dict[str, Any]:
    loader = s["self"]
    return {**_image_summary(loader.image), "kafka.metadata.published": not loader.catching_up,
            "kafka.metadata.publishers": list(loader.publishers)}


# -- KR.publish: MetadataLoader.handleLoadSnapshot ------------------------------------------------------------------

@start(_LOAD_SNAPSHOT)
def _load_snapshot(s: Scope) -> dict[str, Any]:
    loader, reader = s["self"], s["reader"]
    snapshot_id = reader.snapshot_id()
    return {"kafka.node.id": loader.node_id, "kafka.raft.snapshot.end_offset": snapshot_id.offset,
            "kafka.raft.snapshot.epoch": snapshot_id.epoch,
            "kafka.metadata.image.offset.before": loader.image.offset(),
            "kafka.metadata.loader.catching_up": loader.catching_up}


@end(_LOAD_SNAPSHOT)
def _loaded_snapshot(s: Scope) -> dict[str, Any]:
    if sys.exc_info()[1] is not None:  # the load failed (end describers run while its exception is handled)
        return {}
    loader = s["self"]  # it holds the image the snapshot made
    return {**_image_summary(loader.image), "kafka.metadata.published": not loader.catching_up}


# -- the snapshot generator and emitter -----------------------------------------------------------------------------

@when(_PUBLISH_LOG_DELTA)
def _snapshot_scheduled(s: Scope) -> bool:
    return _snapshot_due(s["self"], s["manifest"].num_bytes) is not None


@start(_PUBLISH_LOG_DELTA)
def _publish_log_delta(s: Scope) -> dict[str, Any]:
    generator, manifest = s["self"], s["manifest"]
    return {"kafka.snapshot.trigger": _snapshot_due(generator, manifest.num_bytes),
            "kafka.snapshot.bytes_since_last": generator.bytes_since_last_snapshot + manifest.num_bytes,
            "kafka.snapshot.max_bytes": generator.max_bytes_since_last_snapshot,
            "kafka.snapshot.ms_since_last": (generator.time.nanoseconds() - generator.last_snapshot_time_ns)
            // 1_000_000,
            "kafka.snapshot.max_interval_ms": generator.max_time_since_last_snapshot_ns // 1_000_000}


@end(_PUBLISH_LOG_DELTA)
def _published_log_delta(s: Scope) -> dict[str, Any]:
    return {"kafka.snapshot.scheduled": s["new_image"].provenance.snapshot_name()}


@start(_MAYBE_EMIT)
def _maybe_emit(s: Scope) -> dict[str, Any]:
    image = s["image"]
    snapshot_id = image.provenance.snapshot_id()
    return {**_image_summary(image), "kafka.raft.snapshot.end_offset": snapshot_id.offset,
            "kafka.raft.snapshot.epoch": snapshot_id.epoch,
            "kafka.raft.snapshot.last_contained_log_time_ms": image.provenance.last_contained_log_time_ms}


@end(_MAYBE_EMIT)
def _emitted(s: Scope) -> dict[str, Any]:
    emitter = s["self"]
    return {"kafka.raft.snapshot.bytes": emitter.latest_snapshot_generated_bytes}


@start("MetadataLoader.installPublishers")
def _install_publishers(s: Scope) -> dict[str, Any]:
    return {"kafka.node.id": s["self"].node_id,
            "kafka.metadata.publishers.new": [p.name() for p in s["new_publishers"]]}
