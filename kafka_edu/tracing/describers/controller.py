"""Describers for controller spans (FIDELITY CT; see kafka_edu/tracing/attributes.py).

What a controller span says is read from the controller's own state, the event being processed, or the values its
marker hands over. A few attributes are about ZooKeeper data the ported code reads and drops (the notifications an
event deletes, the znode writers a watch links to): their describers read it again, at the span's start, and a
ZooKeeper failure there costs only the attribute or link.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from kazoo.exceptions import KazooException
from kazoo.handlers.threading import KazooTimeoutError
from opentelemetry import trace
from opentelemetry.trace import SpanContext

from kafka_edu.tracing.attributes import Scope, end, links, on_event, start, when

T = TypeVar("T")
_FAILOVER = "KafkaController.onControllerFailover"
# CT.channel is two spans: their describers go by span name (the queued request, and its send).
_SEND_REQUEST = "ControllerChannelManager.sendRequest"
_WON = "_kafka_edu_won_election"  # set on the controller by its failover span, read by the election's span
_ISR_CHANGES = "_kafka_edu_isr_changes"  # an IsrChangeNotification's notifications, read once for both describers
# ZkUtils.IsrChangeNotificationPath and LogDirEventNotificationPath: the notifications' parents, as Kafka lays them out
# in ZooKeeper. The events name only the children, and their marker (CT.event) is every event's.
ISR_CHANGE_NOTIFICATION_PATH = "/isr_change_notification"
LOG_DIR_EVENT_NOTIFICATION_PATH = "/log_dir_event_notification"


def _names(tps: Any) -> list[str]:
    return [str(tp) for tp in sorted(tps)]


def _caller(s: Scope) -> list[SpanContext]:
    """The span running when the call was made: a root span of its own links to its cause."""
    context = trace.get_current_span().get_span_context()
    return [context] if context.is_valid else []


def _quietly(read: Callable[[], T], default: T) -> T:
    """A ZooKeeper read made only to describe: if ZooKeeper fails it, the span goes without."""
    try:
        return read()
    except (KazooException, KazooTimeoutError):
        return default


def _zk_json(zk_utils: Any, path: str) -> Any:
    data, _ = _quietly(lambda: zk_utils.read_data_maybe_null(path), (None, None))
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _writer(znode_json: Any) -> SpanContext | None:
    """The span that wrote a znode, when its JSON names one."""
    from kafka_edu.tracing.znodes import writer  # znodes.py imports step.py, which imports the describers
    return writer(znode_json) if isinstance(znode_json, dict) else None


def _writers(zk_utils: Any, paths: list[str]) -> list[SpanContext]:
    return [w for path in paths if (w := _writer(_zk_json(zk_utils, path))) is not None]


def _registration(zk_utils: Any, broker_id: int) -> Any:
    """A broker's `/brokers/ids/<id>` JSON, as ZkUtils.getBrokerInfo reads it."""
    try:
        return _quietly(lambda: zk_utils.get_broker_info(broker_id), None)
    except ValueError:
        return None


# -- ControllerEventManager: one trace per event ------------------------------------------------------------------

@start("CT.event")
def _event(s: Scope) -> dict[str, Any]:
    event = s["event"]
    attributes = {"kafka.controller.event": event.name, "kafka.controller.state": event.state.name}
    describe = _EVENT_ATTRIBUTES.get(type(event).__name__)
    if describe is not None:
        attributes.update(describe(event))
    return attributes


@links("CT.event")
def _event_causes(s: Scope) -> list[SpanContext]:
    """Whoever put the event on the queue (the event travels with the context it was put in), and for an ISR
    change, the leaders' spans that wrote the notifications."""
    put_by = s["put_in"].run(trace.get_current_span).get_span_context()
    causes = [put_by] if put_by.is_valid else []
    event = s["event"]
    if type(event).__name__ == "IsrChangeNotification" and event.controller.is_active:
        causes += [w for notification in _isr_change_notifications(event) if (w := _writer(notification)) is not None]
    return causes


def _leader_and_isr_response(event: Any) -> dict[str, Any]:
    return {"kafka.broker.id.from": event.broker_id, "kafka.error_code": event.leader_and_isr_response.error_code}


def _log_dir_event_notification(event: Any) -> dict[str, Any]:
    """The brokers that wrote `/log_dir_event_notification/log_dir_event_<seq>` ({"version":1,"broker":id,...})."""
    zk_utils = event.controller.zk_utils
    brokers = []
    for x in event.sequence_numbers:
        notification = _zk_json(zk_utils, f"{LOG_DIR_EVENT_NOTIFICATION_PATH}/{x}")
        try:
            brokers.append(int(notification["broker"]))
        except (ValueError, KeyError, TypeError):
            continue  # gone, or not a notification: the event skips it too
    return {"kafka.brokers": brokers}


def _partition_reassignment(event: Any) -> dict[str, Any]:
    c = event.controller
    if not c.is_active:
        return {}
    in_zookeeper = _quietly(c.zk_utils.get_partitions_being_reassigned, None)
    if in_zookeeper is None:
        return {}
    return {"kafka.partitions": _names(tp for tp in in_zookeeper
                                       if tp not in c.controller_context.partitions_being_reassigned)}


def _partition_reassignment_isr_change(event: Any) -> dict[str, Any]:
    c, tp = event.controller, event.topic_partition
    if not c.is_active or tp not in c.controller_context.partitions_being_reassigned:
        return {}
    leader_and_isr = _quietly(lambda: c.zk_utils.get_leader_and_isr_for_partition(tp.topic, tp.partition), None)
    if leader_and_isr is None:
        return {}
    return {"kafka.topic": tp.topic, "kafka.partition": tp.partition,
            "kafka.replicas.caught_up": sorted(event.reassigned_replicas & set(leader_and_isr.isr))}


def _isr_change_notification(event: Any) -> dict[str, Any]:
    if not event.controller.is_active:
        return {}
    partitions: set[tuple[str, int]] = set()
    for notification in _isr_change_notifications(event):
        try:
            partitions |= {(p["topic"], int(p["partition"])) for p in notification["partitions"]}
        except (ValueError, KeyError, TypeError):
            continue  # the event logs it as invalid and skips it
    return {"kafka.partitions": [f"{topic}-{partition}" for topic, partition in sorted(partitions)]}


def _isr_change_notifications(event: Any) -> list[Any]:
    """The JSON of the event's `/isr_change_notification/isr_change_<seq>` znodes, read before the event deletes
    them."""
    if _ISR_CHANGES not in event.__dict__:
        zk_utils = event.controller.zk_utils
        notifications = [_zk_json(zk_utils, f"{ISR_CHANGE_NOTIFICATION_PATH}/{x}") for x in event.sequence_numbers]
        event.__dict__[_ISR_CHANGES] = [n for n in notifications if n is not None]
    return event.__dict__[_ISR_CHANGES]


# Events without a step of their own: what they work on goes on their CT.event span.
_EVENT_ATTRIBUTES: dict[str, Callable[[Any], dict[str, Any]]] = {
    "LeaderAndIsrResponseReceived": _leader_and_isr_response,
    "LogDirEventNotification": _log_dir_event_notification,
    "PartitionReassignment": _partition_reassignment,
    "PartitionReassignmentIsrChange": _partition_reassignment_isr_change,
    "IsrChangeNotification": _isr_change_notification,
}


# -- election, failover, resignation ------------------------------------------------------------------------------

@start("CT.change")
def _new_controller(s: Scope) -> dict[str, Any]:
    return {"kafka.controller.id": s["self"].new_controller_id}


@start("CT.reelect")
def _controller_in_zookeeper(s: Scope) -> dict[str, Any]:
    controller_id = _quietly(s["self"].controller.get_controller_id, None)
    return {} if controller_id is None else {"kafka.controller.id": controller_id}


@start(_FAILOVER)
def _won(s: Scope) -> dict[str, Any]:
    s["self"].__dict__[_WON] = True  # only a broker that created /controller fails over
    return {}


@end("CT.elect")
def _election(s: Scope) -> dict[str, Any]:
    c = s["self"]
    if c.__dict__.pop(_WON, False):
        # The epoch only once the failover is done; a failed one gave the controllership up (triggerControllerMove).
        attributes = {"kafka.controller.id": c.config.broker_id, "kafka.controller.won": True}
        if c.is_active:
            attributes["kafka.controller.epoch"] = c.epoch
        return attributes
    return {"kafka.controller.id": c.active_controller_id, "kafka.controller.won": False}


@end("CT.failover.01", "CT.failover.02")
def _epoch(s: Scope) -> dict[str, Any]:
    context = s["self"].controller_context
    return {"kafka.controller.epoch": context.epoch, "kafka.controller.epoch_zk_version": context.epoch_zk_version}


@start("CT.failover.03")
def _log_dir_events(s: Scope) -> dict[str, Any]:
    zk_utils = s["self"].zk_utils
    return {"kafka.zk.deleted": _quietly(lambda: zk_utils.get_children(s["path"]), [])}


@end("CT.failover.05")
def _controller_context(s: Scope) -> dict[str, Any]:
    context = s["self"].controller_context
    return {"kafka.brokers.live": sorted(context.live_broker_ids), "kafka.topics": sorted(context.all_topics),
            "kafka.partitions": len(context.partition_replica_assignment),
            "kafka.partitions.with_leader_and_isr": len(context.partition_leadership_info)}


@start("CT.failover.10")
def _topic(s: Scope) -> dict[str, Any]:
    return {"kafka.topic": s["topic"]}


@start("CT.failover.11")
def _being_reassigned(s: Scope) -> dict[str, Any]:
    return {"kafka.partitions": _names(s["self"].controller_context.partitions_being_reassigned)}


@start("KafkaController.onPreferredReplicaElection")
def _preferred_replica_election(s: Scope) -> dict[str, Any]:
    attributes = {"kafka.partitions": _names(s["partitions"]),
                  "kafka.auto_rebalance": s.get("is_triggered_by_auto_rebalance", False)}
    if getattr(trace.get_current_span(), "name", None) == _FAILOVER:  # the pending elections a failover resumes
        attributes["kafka.step"] = "CT.failover.13"
    return attributes


@start("CT.failover.14")
def _auto_leader_rebalance(s: Scope) -> dict[str, Any]:
    return {"kafka.auto_leader_rebalance": s["self"].config.auto_leader_rebalance_enable}


@start("CT.resign")
def _resigned_epoch(s: Scope) -> dict[str, Any]:
    return {"kafka.controller.epoch": s["self"].epoch}


# -- brokers and topics come and go -------------------------------------------------------------------------------

@links("CT.broker")
def _registrations(s: Scope) -> list[SpanContext]:
    """Each new broker's registration, in its startup trace."""
    zk_utils = s["self"].controller.zk_utils
    return [w for b in sorted(s["new"]) if (w := _writer(_registration(zk_utils, b))) is not None]


@end("CT.broker")
def _broker_change(s: Scope) -> dict[str, Any]:
    return {"kafka.brokers.new": sorted(s["new"]), "kafka.brokers.dead": sorted(s["dead"]),
            "kafka.brokers.live": sorted(s["live"])}


@start("KafkaController.onBrokerStartup")
def _new_brokers(s: Scope) -> dict[str, Any]:
    return {"kafka.brokers": sorted(s["new_brokers"])}


@start("KafkaController.onBrokerFailure")
def _dead_brokers(s: Scope) -> dict[str, Any]:
    return {"kafka.brokers": sorted(s["dead_brokers"])}


@links("CT.topic")
def _assignments(s: Scope) -> list[SpanContext]:
    """The CreateTopics request (or tool) that wrote each new topic's assignment (under the topics path handed)."""
    return _writers(s["self"].controller.zk_utils, [f"{s['path']}/{topic}" for topic in sorted(s["new"])])


@end("CT.topic")
def _topic_change(s: Scope) -> dict[str, Any]:
    return {"kafka.topics.new": sorted(s["new"]), "kafka.topics.deleted": sorted(s["deleted"])}


@start("KafkaController.onNewTopicCreation")
def _new_topics(s: Scope) -> dict[str, Any]:
    return {"kafka.topics": sorted(s["topics"])}


@start("KafkaController.onNewPartitionCreation")
def _new_partitions(s: Scope) -> dict[str, Any]:
    topics = sorted({tp.topic for tp in s["new_partitions"]})
    return {"kafka.topic": topics[0]} if len(topics) == 1 else {"kafka.topics": topics}


# -- controlled shutdown ------------------------------------------------------------------------------------------

@start("CT.shutdown")
def _shutting_down(s: Scope) -> dict[str, Any]:
    event = s["self"]  # doControlledShutdown's ControlledShutdown event
    attributes: dict[str, Any] = {"kafka.shutdown.broker.id": event.id}
    c = event.controller
    context = c.controller_context
    if c.is_active and event.id in context.live_or_shutting_down_broker_ids:  # doControlledShutdown goes on
        partitions_to_act_on = {tp for tp in context.partitions_on_broker(event.id)
                                if len(context.partition_replica_assignment[tp]) > 1
                                and tp in context.partition_leadership_info}
        led = {tp for tp in partitions_to_act_on
               if context.partition_leadership_info[tp].leader_and_isr.leader == event.id}
        attributes["kafka.partitions.led"] = _names(led)
        attributes["kafka.partitions.followed"] = _names(partitions_to_act_on - led)
    return attributes


@end("CT.shutdown")
def _shutdown_result(s: Scope) -> dict[str, Any]:
    result = s["result"]  # None when it failed: the span records the exception the callback reports
    return {} if result is None else {"kafka.partitions.remaining": _names(result)}


# -- partition reassignment and preferred leaders -----------------------------------------------------------------

@start("KafkaController.onPartitionReassignment")
def _reassignment(s: Scope) -> dict[str, Any]:
    tp = s["topic_partition"]
    return {"kafka.topic": tp.topic, "kafka.partition": tp.partition,
            "kafka.replicas.reassigned": list(s["reassigned_partition_context"].new_replicas),
            "kafka.replicas.current": list(s["self"].controller_context.partition_replica_assignment[tp])}


@end("KafkaController.onPartitionReassignment")
def _reassignment_phase(s: Scope) -> dict[str, Any]:
    # Phase one adds the new replicas (the assignment is OAR + RAR until they catch up); phase two, once they are in
    # the ISR, leaves RAR and drops the partition from the reassignments in progress.
    tp = s["topic_partition"]
    context = s["self"].controller_context
    return {"kafka.reassignment.phase": "expand" if tp in context.partitions_being_reassigned else "complete",
            "kafka.replicas.after": list(context.partition_replica_assignment.get(tp, []))}


@start("KafkaController.checkAndTriggerAutoLeaderRebalance")
def _imbalance(s: Scope) -> dict[str, Any]:
    """Each preferred leader's share of its partitions led by another broker, before any is moved back."""
    c = s["self"]
    context = c.controller_context
    by_preferred: dict[int, list[Any]] = {}
    for tp, assigned_replicas in context.partition_replica_assignment.items():
        if not c.topic_deletion_manager.is_topic_queued_up_for_deletion(tp.topic):
            by_preferred.setdefault(assigned_replicas[0], []).append(tp)
    ratios = {str(broker): sum(1 for tp in tps if tp in context.partition_leadership_info
                               and context.partition_leadership_info[tp].leader_and_isr.leader != broker) / len(tps)
              for broker, tps in sorted(by_preferred.items())}
    return {"kafka.leader.imbalance.ratio": json.dumps(ratios, sort_keys=True)}


# -- the state machines and the leader selectors ------------------------------------------------------------------

links("PartitionStateMachine.handleStateChanges", "PartitionStateMachine.triggerOnlinePartitionStateChange",
      "ReplicaStateMachine.handleStateChanges", _SEND_REQUEST)(_caller)


# A `when` runs unguarded, before the call: it must not fail the call it decides about.
@when("PartitionStateMachine.handleStateChanges")
def _any_partition(s: Scope) -> bool:
    return bool(s.get("partitions", True))


@when("ReplicaStateMachine.handleStateChanges")
def _any_replica(s: Scope) -> bool:
    return bool(s.get("replicas", True))


@start("PartitionStateMachine.handleStateChanges")
def _partition_state_changes(s: Scope) -> dict[str, Any]:
    return {"kafka.partition.state.target": s["target_state"].name, "kafka.partitions": len(s["partitions"])}


@start("PartitionStateMachine.triggerOnlinePartitionStateChange")
def _offline_and_new(s: Scope) -> dict[str, Any]:
    """The partitions that will get a leader: New or Offline, and not being deleted."""
    psm = s["self"]
    deletion = psm.controller.topic_deletion_manager
    return {"kafka.partitions": sum(1 for tp, state in psm.partition_state.items()
                                    if not deletion.is_topic_queued_up_for_deletion(tp.topic)
                                    and state.name in ("OfflinePartition", "NewPartition"))}


@start("ReplicaStateMachine.handleStateChanges")
def _replica_state_changes(s: Scope) -> dict[str, Any]:
    return {"kafka.replica.state.target": s["target_state"].name, "kafka.replicas": len(s["replicas"])}


@on_event("partition.state.change")
def _partition_state_change(s: Scope) -> dict[str, Any]:
    tp, target_state = s["topic_partition"], s["target_state"]
    attributes = {"kafka.topic": tp.topic, "kafka.partition": tp.partition, "from": s["curr_state"].name,
                  "to": target_state.name}
    leadership = s["self"].controller_context.partition_leadership_info.get(tp)
    if target_state.name == "OnlinePartition" and leadership is not None:
        attributes["kafka.leader"] = leadership.leader_and_isr.leader
    return attributes


@on_event("replica.state.change")
def _replica_state_change(s: Scope) -> dict[str, Any]:
    replica = s["replica"]  # what logStateChange's log line names
    return {"kafka.topic": replica.topic, "kafka.partition": replica.partition, "kafka.replica": replica.replica,
            "from": s["curr_state"].name, "to": s["target_state"].name}


@start("CT.select")
def _current_leader(s: Scope) -> dict[str, Any]:
    tp, current = s["topic_partition"], s["current_leader_and_isr"]
    return {"kafka.topic": tp.topic, "kafka.partition": tp.partition, "kafka.leader.current": current.leader,
            "kafka.isr.current": list(current.isr)}


@end("CT.select")
def _selected_leader(s: Scope) -> dict[str, Any]:
    if s["result"] is None:  # no leader: the exception says why
        return {}
    leader_and_isr, _ = s["result"]
    attributes = {"kafka.leader": leader_and_isr.leader, "kafka.leader.epoch": leader_and_isr.leader_epoch,
                  "kafka.isr": list(leader_and_isr.isr)}
    selector = s["self"]
    if type(selector).__name__ == "OfflinePartitionLeaderSelector":
        live = selector.controller_context.live_broker_ids
        if not any(r in live for r in s["current_leader_and_isr"].isr):  # no live ISR: the leader came from outside
            attributes["kafka.election.unclean"] = True
    return attributes


# -- the channel manager ------------------------------------------------------------------------------------------

def _request(broker_id: int, api_key: Any, api_version: int) -> dict[str, Any]:
    return {"kafka.destination.broker.id": broker_id, "kafka.api.key": int(api_key), "kafka.api.name": api_key.api_name,
            "kafka.api.version": api_version}


@start(_SEND_REQUEST)
def _queued(s: Scope) -> dict[str, Any]:
    return _request(s["broker_id"], s["api_key"], s["api_version"])


@start("RequestSendThread.doWork")
def _sent(s: Scope) -> dict[str, Any]:
    item = s["item"]
    return _request(s["self"].broker.id, item.api_key, item.api_version)
