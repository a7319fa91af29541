"""Describers for a KRaft broker's spans (Kafka 3.9: BrokerServer, BrokerLifecycleManager; see
kafka_edu/tracing/attributes.py).

KR.broker is `BrokerServer.startup`, from the start of the shared Raft client to RUNNING. The lifecycle manager's
`sendBrokerRegistration` runs inside it, each `sendBrokerHeartbeat` in a trace of its own that starts at the
manager's queue event; both carry their traceparent to the active controller, whose handling of them links back.
They are spans without a FIDELITY row of their own, and describers here are registered by span name.

A heartbeat gets a span only when it says something new: while the broker is not RUNNING (STARTING, RECOVERY,
PENDING_CONTROLLED_SHUTDOWN), when its metadata offset or its wishes (fence, shut down) differ from the last traced
one, and after a failed exchange. The heartbeat every `broker.heartbeat.interval.ms` of a RUNNING broker gets none,
nor do the ones every 10 ms of a STARTING broker whose offset has not moved.

A request to the active controller is sent on NodeToControllerChannelManager's thread, in the context of the span
that queued it: `InterBrokerSendThread.sendRequests` is the exchange (its time is the controller's answer time), a
child of that span, and what puts its traceparent in the request header. It is traced when the request was queued
inside a span of its own (a registration, a traced heartbeat), not for an untraced heartbeat whose only span is the
lifecycle manager's queue turn.

Each change of the broker state is a `broker.state.change` event, on the span of the lifecycle manager's queue event
that made it; the cluster runner reads a KRaft broker's state from them.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import weakref
from typing import Any

from opentelemetry import trace

from kafka_edu.tracing.attributes import Scope, end, on_event, start, when

_lock = threading.Lock()
_last_state: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()  # manager -> last state reported
_last_heartbeat: weakref.WeakKeyDictionary[Any, tuple] = weakref.WeakKeyDictionary()  # manager -> last traced one


def _manager(s: Scope) -> Any:
    owner = s["self"]
    return getattr(owner, "manager", owner)


# -- BrokerServer --------------------------------------------------------------------------------------------------

@start("BrokerServer.startup")
def _startup(s: Scope) -> dict[str, Any]:
    server = s["self"]
    return {"kafka.node.id": server.config.node_id, "kafka.cluster.id": server.cluster_id,
            "kafka.process.roles": sorted(role.value for role in server.config.process_roles)}


@end("BrokerServer.startup")
def _started(s: Scope) -> dict[str, Any]:
    server = s["self"]
    attributes: dict[str, Any] = {"kafka.broker.state": server.broker_state.name}
    manager = server.lifecycle_manager
    if manager is not None:
        attributes.update({"kafka.broker.epoch": manager.broker_epoch,
                           "kafka.broker.incarnation_id": str(manager.incarnation_id)})
    return attributes


@start("BrokerServer.shutdown")
def _shutdown(s: Scope) -> dict[str, Any]:
    server = s["self"]
    return {"kafka.node.id": server.config.node_id, "kafka.broker.state": server.broker_state.name,
            "kafka.controlled_shutdown.enable": server.config.controlled_shutdown_enable}


# -- BrokerLifecycleManager ----------------------------------------------------------------------------------------

@start("BrokerLifecycleManager.sendBrokerRegistration")
def _registration(s: Scope) -> dict[str, Any]:
    manager, data = s["self"], s["data"]
    return {"kafka.broker.id": data.broker_id, "kafka.cluster.id": data.cluster_id,
            "kafka.broker.incarnation_id": str(manager.incarnation_id),
            "kafka.broker.previous_epoch": data.previous_broker_epoch,
            "kafka.broker.listeners": [f"{ls.name}://{ls.host}:{ls.port}" for ls in data.listeners],
            "kafka.broker.features": [f"{f.name}={f.min_supported_version}..{f.max_supported_version}"
                                      for f in data.features],
            "kafka.broker.log_dirs": len(data.log_dirs),
            "kafka.broker.registration.failed_attempts": manager.failed_attempts}


def _heartbeat_key(manager: Any, data: Any) -> tuple:
    return (manager.state, data.current_metadata_offset, data.want_fence, data.want_shut_down)


@when("BrokerLifecycleManager.sendBrokerHeartbeat")
def _heartbeat_says_something(s: Scope) -> bool:
    manager, data = s["self"], s["data"]
    if manager.failed_attempts > 0:
        return True
    key = _heartbeat_key(manager, data)
    with _lock:
        last = _last_heartbeat.get(manager)
        if manager.state.name == "RUNNING" and last is not None and last[0] == manager.state:
            return False  # a running broker's steady heartbeat
        if key == last:
            return False
        _last_heartbeat[manager] = key
    return True


@start("BrokerLifecycleManager.sendBrokerHeartbeat")
def _heartbeat(s: Scope) -> dict[str, Any]:
    manager, data = s["self"], s["data"]
    return {"kafka.broker.id": data.broker_id, "kafka.broker.epoch": data.broker_epoch,
            "kafka.broker.state": manager.state.name,
            "kafka.broker.metadata_offset": data.current_metadata_offset,
            "kafka.broker.want_fence": data.want_fence, "kafka.broker.want_shut_down": data.want_shut_down,
            "kafka.broker.heartbeat.failed_attempts": manager.failed_attempts}


@start("BrokerLifecycleManager.ShutdownEvent.run")
def _lifecycle_shutdown(s: Scope) -> dict[str, Any]:
    manager = _manager(s)
    return {"kafka.broker.id": manager.node_id, "kafka.broker.state.from": manager.state.name}


@end("BrokerLifecycleManager.ShutdownEvent.run")
def _lifecycle_shut_down(s: Scope) -> dict[str, Any]:
    manager = _manager(s)
    return {"kafka.controlled_shutdown.done": manager.controlled_shutdown_future.done()}


@on_event("broker.state.change")
def _state_change(s: Scope) -> dict[str, Any]:
    manager = s["self"]
    state = manager.state
    with _lock:
        previous = _last_state.get(manager, "NOT_RUNNING")
        _last_state[manager] = state.name
    return {"kafka.broker.id": manager.node_id, "kafka.broker.state.from": previous,
            "kafka.broker.state.to": state.name, "kafka.broker.state.value": int(state),
            "kafka.broker.epoch": manager.broker_epoch}


# -- NodeToControllerChannelManager --------------------------------------------------------------------------------

_QUEUE_TURN = "KafkaEventQueue.EventHandler.handleEvents"


@when("InterBrokerSendThread.sendRequests")
def _queued_in_a_span_of_its_own(s: Scope) -> bool:
    sender = trace.get_current_span()  # the send runs in the context it was queued in
    return sender.get_span_context().is_valid and getattr(sender, "name", _QUEUE_TURN) != _QUEUE_TURN


@start("InterBrokerSendThread.sendRequests")
def _send(s: Scope) -> dict[str, Any]:
    thread, item = s["self"], s["queue_item"]
    controller = thread.active_controller_address()
    return {"kafka.api.name": item.request.api.api_name, "kafka.api.version": item.request.version,
            "kafka.controller.id": controller.id if controller is not None else -1,
            "kafka.request.queue.ms": max(0, time.monotonic_ns() // 1_000_000 - item.created_time_ms)}


@end("InterBrokerSendThread.sendRequests")
def _sent(s: Scope) -> dict[str, Any]:
    response = s["result"]
    if response is None:
        return {}
    if response.disconnected:
        return {"kafka.response.disconnected": True}
    return {"kafka.response.errors": sorted(_error_names(response.response_body))}


def _error_names(message: Any) -> set[str]:
    """The names of the error codes a response holds, at any depth: its `error_code` fields are enum members (kio's
    ErrorCode as read from the wire, or the port's Errors)."""
    if dataclasses.is_dataclass(message) and not isinstance(message, type):
        names: set[str] = set()
        for f in dataclasses.fields(message):
            value = getattr(message, f.name)
            names |= {value.name.upper()} if f.name == "error_code" else _error_names(value)
        return names
    if isinstance(message, (tuple, list)):
        return set().union(*(_error_names(item) for item in message))
    return set()
