"""Describers for request_path spans (see kafka_edu/tracing/attributes.py)."""

from __future__ import annotations

import socket
from typing import Any

from opentelemetry import trace

from kafka_edu.tracing.attributes import Scope, end, links, on_event, parent, retro, start, when
from kafka_edu.tracing.describers.replication import OFFSETS_TOPIC, controller_of
from kafka_edu.tracing.requests import request_root

# Accepted sockets waiting for their processor, with the span that accepted each (so the processor links to it).
_accepted: dict[int, Any] = {}


def request_attributes(request: Any) -> dict[str, Any]:
    """What the root span of a client request says about it (RequestChannel.Request; its api_key is an ApiKeys)."""
    attributes = {
        "kafka.api.key": int(request.api_key), "kafka.api.name": request.api_key.api_name,
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
    _accepted[s["channel"].fileno()] = trace.get_current_span().get_span_context()
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
    send = response.response_send
    # bytes are the payload; a Send (a 1.0.2 Fetch response) counts its 4-byte size prefix as well
    size = 0 if send is None else len(send) if isinstance(send, bytes | bytearray) else send.size() - 4
    return {"kafka.connection.id": response.request.connection_id, "kafka.response.bytes": size}


@retro("NW.processor.3")
def _polled(s: Scope) -> dict[str, Any] | None:
    selector = s["self"].selector
    if not (selector.completed_receives or selector.completed_sends or selector.disconnected):
        return None  # a poll that found nothing is no span
    return {"kafka.processor.id": s["self"].id, "kafka.receives": len(selector.completed_receives),
            "kafka.sends": len(selector.completed_sends), "kafka.disconnected": len(selector.disconnected)}


@parent("NW.processor.4")
def _received_request(s: Scope) -> Any:
    return request_root(s["request"])


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


# -- KafkaApis -------------------------------------------------------------------------------------------------------

@start("NW.apis.1")
def _api(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.api.key": int(request.api_key), "kafka.api.name": request.api_key.api_name,
            "kafka.api.version": request.api_version}


@end("NW.apis.1")
def _api_outcome(s: Scope) -> dict[str, Any]:
    """What some handlers learn about their request: the group it names, the coordinator or producer id answered."""
    apis, request = s["self"], s["request"]
    api, body = request.api_key.name, request.body
    if body is None:
        return {}
    if api == "FIND_COORDINATOR":
        return {"kafka.group.id": body.key, "kafka.coordinator.id": _coordinator_id(apis, request)}
    if api == "INIT_PRODUCER_ID":
        producer_id = _producer_id(apis, body)
        return {} if producer_id is None else {"kafka.producer.id": producer_id}
    if api in ("JOIN_GROUP", "SYNC_GROUP"):
        return {"kafka.group.id": body.group_id}
    return {}


def _coordinator_id(apis: Any, request: Any) -> int:
    """handleFindCoordinatorRequest's answer, read again from the metadata cache it read (-1: none available)."""
    if getattr(request.body, "key_type", 0) != 0:  # only groups have coordinators here
        return -1
    partition = apis.group_coordinator.partition_for(request.body.key)
    metadata = apis.metadata_cache.get_topic_metadata({OFFSETS_TOPIC}, request.listener_name).get(OFFSETS_TOPIC)
    leader = next((p.leader for p in metadata or [] if p.partition == partition), -1)
    node = next((b for b in apis.metadata_cache.get_alive_brokers() if b.id == leader), None)
    return node.id if node is not None and request.listener_name in node.endpoints else -1


def _producer_id(apis: Any, body: Any) -> int | None:
    """The id handleInitProducerIdRequest answered: the one its ProducerIdManager handed out last (a concurrent
    InitProducerId on another handler thread could have taken one since); None where the manager does not say (a
    KRaft broker's RPCProducerIdManager claims ids from its block without keeping the last one)."""
    manager = apis.txn_coordinator.producer_id_manager
    if body.transactional_id is not None or manager is None:
        return -1
    next_producer_id = getattr(manager, "next_producer_id", None)
    return None if next_producer_id is None else next_producer_id - 1


@start("KafkaApis.handleLeaderAndIsrRequest", "KafkaApis.handleStopReplicaRequest",
       "KafkaApis.handleUpdateMetadataRequest")
def _fromcontroller_of(s: Scope) -> dict[str, Any]:
    return controller_of(s["body"])


@end("KafkaApis.handleLeaderAndIsrRequest")
def _leader_and_isr_error(s: Scope) -> dict[str, Any]:
    result = s.get("result")
    return {"kafka.error": result.error.name} if result is not None else {}


@end("KafkaApis.handleStopReplicaRequest")
def _stop_replica_error(s: Scope) -> dict[str, Any]:
    error = s.get("error")
    return {"kafka.error": error.name} if error is not None else {}


@start("KafkaApis.handleControlledShutdownRequest")
def _controlled_shutdown(s: Scope) -> dict[str, Any]:
    return {"kafka.shutdown.broker.id": s["broker_id"]}


# -- the write path: KafkaApis.handleProduceRequest -> ReplicaManager.appendRecords -> Log.append -------------------

@start("NW.apis.produce")
def _produce(s: Scope) -> dict[str, Any]:
    body = s["request"].body
    return {"kafka.produce.acks": body.acks,
            "kafka.produce.partitions": sum(len(t.partition_data) for t in body.topic_data)}


@start("NW.rm.append")
def _append_records(s: Scope) -> dict[str, Any]:
    return {"kafka.produce.timeout_ms": s["timeout"]}


@start("NW.log.append")
def _log_append(s: Scope) -> dict[str, Any]:
    partition = s["self"]  # Partition.appendRecordsToLeader
    return {"kafka.topic": partition.topic, "kafka.partition": partition.partition_id,
            "kafka.records.bytes": len(s["records"])}


@end("NW.log.append")
def _appended(s: Scope) -> dict[str, Any]:
    info = s.get("info")
    return {"kafka.offset.first": info.first_offset, "kafka.offset.last": info.last_offset} if info else {}
