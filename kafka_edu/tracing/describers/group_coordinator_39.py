"""Describers for the GC spans: Kafka 3.9's group coordinator on a KRaft broker (see kafka_edu/tracing/attributes.py).

Traces:
- GC.build in the broker's startup (KR.broker); GC.startup in the first metadata publish.
- An election (GC.elect, in the publish that made it) schedules the load; GC.load runs on the loader's own thread, a
  trace of its own.
- A group request: GC.write (the event queued on the runtime) and, on the processor thread, its operation row (GC.hb,
  GC.join, GC.sync, GC.classic, GC.commit); GC.fetch and GC.describe are reads.

Attributes come from the traced call's arguments and result only.
"""

from __future__ import annotations

from typing import Any

from kafka_edu.tracing.attributes import Scope, end, start

GROUP_METADATA_TOPIC = "__consumer_offsets"


def _error_name(error: Any) -> str:
    return str(getattr(error, "name", error)).upper()


def _response(result: Any) -> Any:
    """A CoordinatorResult's response, or the value itself."""
    response = getattr(result, "response", None)
    return response() if callable(response) else result


def _field(value: Any, name: str, default: Any = None) -> Any:
    if isinstance(value, dict):
        return value.get(name, default)
    return getattr(value, name, default)


# -- the service's lifecycle and partitions ---------------------------------------------------------------------

@start("GC.build")
def _build(s: Scope) -> dict[str, Any]:
    config = s["config"].group_coordinator_config()
    return {"kafka.group.coordinator.threads": config.num_threads(),
            "kafka.offsets.load.buffer.size": config.offsets_load_buffer_size()}


@end("GC.startup")
def _started(s: Scope) -> dict[str, Any]:
    return {"kafka.group.coordinator.partitions": s["self"]._num_partitions}


@start("GC.elect")
def _elect(s: Scope) -> dict[str, Any]:
    return {"kafka.topic.partition": f"{GROUP_METADATA_TOPIC}-{s['group_metadata_partition_index']}",
            "kafka.leader.epoch": s["group_metadata_partition_leader_epoch"]}


@start("GC.resign")
def _resign(s: Scope) -> dict[str, Any]:
    epoch = s["group_metadata_partition_leader_epoch"]
    return {"kafka.topic.partition": f"{GROUP_METADATA_TOPIC}-{s['group_metadata_partition_index']}",
            "kafka.leader.epoch": -1 if epoch is None else epoch}


@start("GC.load")
def _load(s: Scope) -> dict[str, Any]:
    return {"kafka.topic.partition": str(s["tp"])}


@end("GC.load")
def _loaded(s: Scope) -> dict[str, Any]:
    future = s["future"]
    if not future.done():
        return {}
    if future.exception() is not None:
        return {"kafka.load.error": type(future.exception()).__name__}
    summary = future.result()
    return {"kafka.load.records": summary.num_records(), "kafka.load.bytes": summary.num_bytes()}


# -- writes and the operations they run ---------------------------------------------------------------------------

@start("GC.write")
def _write(s: Scope) -> dict[str, Any]:
    return {"kafka.coordinator.operation": s["name"], "kafka.topic.partition": str(s["tp"])}


@start("GC.hb")
def _heartbeat(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.group.id": request.group_id, "kafka.member.id": request.member_id,
            "kafka.member.epoch.request": request.member_epoch}


@end("GC.hb")
def _heartbeat_answered(s: Scope) -> dict[str, Any]:
    response = _response(s["result"])
    if response is None:
        return {}
    return {"kafka.member.epoch": _field(response, "member_epoch", -1),
            "kafka.assignment.sent": _field(response, "assignment") is not None}


@start("GC.join", "GC.sync", "GC.classic")
def _classic(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.group.id": request.group_id, "kafka.member.id": request.member_id}


@start("GC.commit")
def _commit(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.group.id": request.group_id,
            "kafka.partitions": sorted(f"{t.name}-{p.partition_index}" for t in request.topics
                                       for p in t.partitions)[:100]}


@start("GC.fetch")
def _fetch(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["request"].group_id, "kafka.last.committed.offset": s["last_committed_offset"]}


@start("GC.describe")
def _describe(s: Scope) -> dict[str, Any]:
    return {"kafka.group.ids": [g for g in s["group_ids"] if g is not None][:100]}
