"""Describers for request_path spans (see kafka_edu/tracing/attributes.py)."""

from __future__ import annotations

import socket
from typing import Any

from opentelemetry import trace

from kafka_edu.tracing.attributes import Scope, end, links, on_event, parent, retro, start, when
from kafka_edu.tracing.requests import request_root

# Accepted sockets waiting for their processor, with the span that accepted each (so the processor links to it).
_accepted: dict[int, Any] = {}


def request_attributes(request: Any) -> dict[str, Any]:
    """What the root span of a client request says about it (RequestChannel.Request)."""
    from kafka_edu.protocol.api_keys import ApiKeys
    attributes = {
        "kafka.api.key": request.api_key, "kafka.api.name": ApiKeys.for_key(request.api_key).api_name,
        "kafka.api.version": request.api_version, "kafka.correlation_id": request.correlation_id,
        "kafka.client.id": request.client_id or "", "kafka.connection.id": request.connection_id,
        "kafka.processor.id": request.processor, "kafka.request.bytes": request.size,
    }
    if request.traceparent:
        attributes["kafka.traceparent"] = request.traceparent
    return attributes


# -- Acceptor ----------------------------------------------------------------------------------------------------

@start("NW.acceptor.1")
def _accepted_connection(s: Scope) -> dict[str, Any]:
    return {"kafka.client.address": f"{s['address']}:{s['port']}", "kafka.processor.id": s["processor"].id,
            "kafka.listener": s["self"].end_point.listener_name}


@end("NW.acceptor.1")
def _remember_accept(s: Scope) -> dict[str, Any]:
    _accepted[s["socket_channel"].fileno()] = trace.get_current_span().get_span_context()
    return {}


@on_event("connection.rejected")
def _rejected(s: Scope) -> dict[str, Any]:
    return {"kafka.client.ip": s["e"].ip, "kafka.connections.max": s["e"].count}


# -- Processor: each loop phase is traced only when it has work ------------------------------------------------------

@when("NW.processor.1")
def _has_new_connections(s: Scope) -> bool:
    return not s["self"].new_connections.empty()


@start("NW.processor.1")
def _new_connections(s: Scope) -> dict[str, Any]:
    return {"kafka.processor.id": s["self"].id, "kafka.connections": s["self"].new_connections.qsize()}


@links("NW.processor.1")
def _accepts(s: Scope) -> list[Any]:
    queued: list[socket.socket] = list(s["self"].new_connections.queue)
    return [c for sock in queued if (c := _accepted.pop(sock.fileno(), None)) is not None]


@when("NW.processor.2")
def _has_responses(s: Scope) -> bool:
    responses = s["self"].request_channel.processors.get(s["self"].id)
    return responses is not None and not responses.empty()


@start("NW.processor.2")
def _responses(s: Scope) -> dict[str, Any]:
    responses = s["self"].request_channel.processors.get(s["self"].id)
    return {"kafka.processor.id": s["self"].id, "kafka.responses": responses.qsize() if responses else 0}


@parent("Processor.sendResponse")
def _response_request(s: Scope) -> Any:
    return request_root(s["response"].request)


@start("Processor.sendResponse")
def _response(s: Scope) -> dict[str, Any]:
    response = s["response"]
    return {"kafka.connection.id": response.request.connection_id,
            "kafka.response.bytes": len(response.response_send or b"")}


@retro("NW.processor.3")
def _polled(s: Scope) -> dict[str, Any] | None:
    if not s["result"]:
        return None
    selector = s["self"].selector
    return {"kafka.processor.id": s["self"].id, "kafka.receives": len(selector.completed_receives),
            "kafka.sends": len(selector.completed_sends), "kafka.disconnected": len(selector.disconnected)}


@parent("NW.processor.4")
def _received_request(s: Scope) -> Any:
    return request_root(s["req"])


@start("NW.processor.4")
def _receiving_processor(s: Scope) -> dict[str, Any]:
    return {"kafka.processor.id": s["self"].id}


@when("NW.processor.5")
def _has_completed_sends(s: Scope) -> bool:
    return bool(s["self"].selector.completed_sends)


@start("NW.processor.5")
def _completed_sends(s: Scope) -> dict[str, Any]:
    return {"kafka.processor.id": s["self"].id, "kafka.sends": len(s["self"].selector.completed_sends)}


@when("NW.processor.6")
def _has_disconnected(s: Scope) -> bool:
    return bool(s["self"].selector.disconnected)


@start("NW.processor.6")
def _disconnected(s: Scope) -> dict[str, Any]:
    return {"kafka.processor.id": s["self"].id, "kafka.disconnected": len(s["self"].selector.disconnected)}


# -- RequestChannel and the handlers ---------------------------------------------------------------------------------

@parent("NW.handler.1")
def _handled_request(s: Scope) -> Any:
    return request_root(s["request"])


@start("NW.handler.1")
def _handler(s: Scope) -> dict[str, Any]:
    return {"kafka.handler.id": s["self"].id}


@parent("NW.channel.resp")
def _responded_request(s: Scope) -> Any:
    return request_root(s["response"].request)


@start("NW.channel.resp")
def _response_action(s: Scope) -> dict[str, Any]:
    response = s["response"]
    return {"kafka.processor.id": response.processor, "kafka.response.action": response.response_action.value}


__all__ = ["end", "request_attributes"]
