"""Describers for a KRaft broker applying metadata (Kafka 3.9; see kafka_edu/tracing/attributes.py).

KR.publish on a broker reads: MetadataLoader.handleCommit -> BrokerMetadataPublisher.onMetadataUpdate ->
ReplicaManager.applyDelta -> ReplicaManager.stopPartitions / applyLocalLeadersDelta / applyLocalFollowersDelta. A
delta of NoOps only (the controller commits one every 500 ms) changes
nothing a broker applies: no span. A leader's ISR change reads: Partition.maybeExpandIsr (1.0.2) ->
Partition.submitAlterPartition -> AlterPartitionManager.sendRequest; the answer, on the channel's thread, is a
trace of its own (AlterPartitionManager.handleAlterPartitionResponse) linked to the request, where the ISR is
adopted (the `isr.change` event).
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace

from kafka_edu.tracing.attributes import Scope, end, links, start, when
from kafka_edu.tracing.describers.replication import _record_change

_ON_METADATA_UPDATE = "BrokerMetadataPublisher.onMetadataUpdate"
_APPLY_DELTA = "ReplicaManager.applyDelta"
_STOP_PARTITIONS = "ReplicaManager.stopPartitions"
_APPLY_LOCAL_LEADERS = "ReplicaManager.applyLocalLeadersDelta"
_APPLY_LOCAL_FOLLOWERS = "ReplicaManager.applyLocalFollowersDelta"
_SUBMIT = "Partition.submitAlterPartition"
_SEND = "AlterPartitionManager.sendRequest"
_RESPONSE = "AlterPartitionManager.handleAlterPartitionResponse"
_MAX_NAMES = 100  # partitions listed on a span; the counts are always there


def _names(topic_partitions: Any) -> list[str]:
    return sorted(str(tp) for tp in topic_partitions)[:_MAX_NAMES]


# -- BrokerMetadataPublisher.onMetadataUpdate (KR.publish) ------------------------------------------------------------

def _delta_parts(delta: Any) -> list[str]:
    parts = {"features": delta.features_delta(), "cluster": delta.cluster_delta(), "topics": delta.topics_delta(),
             "configs": delta.configs_delta()}
    return [name for name, part in parts.items() if part is not None]


@when(_ON_METADATA_UPDATE)
def _publish_worth_a_span(s: Scope) -> bool:
    return s["self"].first_publish or bool(_delta_parts(s["delta"]))


@start(_ON_METADATA_UPDATE)
def _publish(s: Scope) -> dict[str, Any]:
    publisher, delta, image, manifest = s["self"], s["delta"], s["new_image"], s["manifest"]
    attributes: dict[str, Any] = {
        "kafka.node.id": publisher.broker_id, "kafka.metadata.publish.first": publisher.first_publish,
        "kafka.metadata.manifest.type": str(manifest.type()), "kafka.metadata.image.offset": image.offset(),
        "kafka.metadata.image.epoch": image.provenance.last_contained_epoch,
        "kafka.metadata.delta.parts": _delta_parts(delta)}
    topics_delta = delta.topics_delta()
    if topics_delta is not None:
        attributes["kafka.metadata.topics.created"] = sorted(
            image.topics.get_topic(i).name for i in topics_delta.created_topic_ids()
            if image.topics.get_topic(i) is not None)[:_MAX_NAMES]
        attributes["kafka.metadata.topics.deleted"] = sorted(
            topics_delta.image().get_topic(i).name for i in topics_delta.deleted_topic_ids())[:_MAX_NAMES]
    cluster_delta = delta.cluster_delta()
    if cluster_delta is not None:
        attributes["kafka.metadata.brokers.changed"] = sorted(cluster_delta.changed_brokers())
    return attributes


@end(_ON_METADATA_UPDATE)
def _published(s: Scope) -> dict[str, Any]:
    cache = s["self"].metadata_cache
    return {"kafka.brokers.alive": [b.id for b in cache.get_alive_brokers()]}


# -- ReplicaManager.applyDelta --------------------------------------------------------------------------------------

@start(_APPLY_DELTA)
def _apply_delta(s: Scope) -> dict[str, Any]:
    replica_manager = s["self"]
    changes = s["delta"].local_changes(replica_manager.config.node_id)  # what apply_delta works out first
    return {"kafka.node.id": replica_manager.config.node_id,
            "kafka.metadata.image.offset": s["new_image"].offset(),
            "kafka.partitions.deleted": _names(changes.deletes), "kafka.partitions.leader": _names(changes.leaders),
            "kafka.partitions.follower": _names(changes.followers),
            "kafka.partitions.changed.count": len(changes.deletes) + len(changes.leaders) + len(changes.followers)}


def _stops(partitions_to_stop: Any) -> list[tuple[Any, bool]]:
    """(partition, delete the local log) for each StopPartition."""
    return [(p.topic_partition, p.delete_local_log) for p in partitions_to_stop]


@start(_STOP_PARTITIONS)
def _stop_partitions(s: Scope) -> dict[str, Any]:
    stops = _stops(s["partitions_to_stop"])
    # an offsets partition deleted here: its groups' unload (groups.py) links to this span's parent
    _record_change([tp for tp, delete in stops if delete])
    return {"kafka.partitions": _names(tp for tp, _ in stops),
            "kafka.partitions.deleted": _names(tp for tp, delete in stops if delete)}


@end(_STOP_PARTITIONS)
def _stopped_partitions(s: Scope) -> dict[str, Any]:
    failures = s["result"]
    return {"kafka.partitions.failed": _names(failures)} if failures else {}


@start(_APPLY_LOCAL_LEADERS)
def _apply_local_leaders(s: Scope) -> dict[str, Any]:
    leaders = s["local_leaders"]
    _record_change(leaders)  # the group coordinator's load of an offsets partition links back here
    return {"kafka.partitions": _names(leaders),
            "kafka.leader.epochs": [info.partition.leader_epoch for _, info in sorted(
                leaders.items(), key=lambda item: str(item[0]))][:_MAX_NAMES]}


@start(_APPLY_LOCAL_FOLLOWERS)
def _apply_local_followers(s: Scope) -> dict[str, Any]:
    followers = s["local_followers"]
    _record_change(followers)
    return {"kafka.partitions": _names(followers),
            "kafka.leaders": [info.partition.leader for _, info in sorted(
                followers.items(), key=lambda item: str(item[0]))][:_MAX_NAMES]}


# -- a leader's ISR change, through the controller ------------------------------------------------------------------

@start(_SUBMIT)
def _submit(s: Scope) -> dict[str, Any]:
    partition, proposed = s["self"], s["proposed_isr_state"]
    return {"kafka.topic": partition.topic, "kafka.partition": partition.partition_id,
            "kafka.isr.from": sorted(proposed.last_committed_isr), "kafka.isr.to": sorted(proposed.isr),
            "kafka.isr.change": "expand" if proposed.is_expand else "shrink",
            "kafka.leader.epoch": proposed.sent_leader_and_isr.leader_epoch,
            "kafka.partition.epoch": proposed.sent_leader_and_isr.zk_version}


# The request's span, by the list of items it sent: the answer's span links to it. (A channel that answers before
# the request's span ends leaves an entry no answer takes: the oldest go past a bound.)
_sent_by: dict[int, tuple[Any, Any]] = {}
_MAX_SENT = 1000


@start(_SEND)
def _send(s: Scope) -> dict[str, Any]:
    manager, items = s["self"], s["inflight_alter_partition_items"]
    return {"kafka.broker.id": manager.broker_id, "kafka.broker.epoch": manager.broker_epoch_supplier(),
            "kafka.partitions": _names(item.topic_id_partition.topic_partition for item in items)}


@end(_SEND)
def _sent(s: Scope) -> dict[str, Any]:
    items = s["inflight_alter_partition_items"]
    context = trace.get_current_span().get_span_context()  # the request's own span, still current here
    if context.is_valid:
        _sent_by[id(items)] = (items, context)
        while len(_sent_by) > _MAX_SENT:
            del _sent_by[next(iter(_sent_by))]
    return {}


@links(_RESPONSE)
def _answer_to(s: Scope) -> list[Any]:
    sent = _sent_by.pop(id(s["inflight_alter_partition_items"]), None)
    return [sent[1]] if sent is not None and sent[0] is s["inflight_alter_partition_items"] else []


def _topic_name(topic: Any, names: dict[Any, str]) -> Any:
    """AlterPartition v2+ answers by topic id, v0-1 by name."""
    topic_id = getattr(topic, "topic_id", None)
    return names.get(topic_id, topic_id) if topic_id is not None else getattr(topic, "topic_name", None)


@start(_RESPONSE)
def _response(s: Scope) -> dict[str, Any]:
    response = s["alter_partition_resp"]
    names = {topic_id: name for topic_id, name in s["topic_names_by_ids"].items()}
    partition_errors = {f"{_topic_name(topic, names)}-{p.partition_index}": int(p.error_code)
                        for topic in response.topics for p in topic.partitions}
    return {"kafka.broker.id": s["self"].broker_id, "kafka.broker.epoch": s["sent_broker_epoch"],
            "kafka.error_code": int(response.error_code),
            "kafka.partitions": sorted(partition_errors)[:_MAX_NAMES],
            "kafka.partitions.failed": sorted(p for p, code in partition_errors.items() if code != 0)[:_MAX_NAMES]}
