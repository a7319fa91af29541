"""Port of core/src/main/scala/kafka/network/RequestConvertToJson.scala (Kafka 3.9): requests, responses and their
headers as the JSON the request log ("kafka.request.logger", at DEBUG) writes.

Kafka dispatches to each message's generated JsonConverter; kio's messages are dataclasses, so one walk writes them
all: field names in Kafka's camelCase, bytes in base64 (as Jackson writes a binary node), durations in milliseconds.
JSON nodes are plain dicts and lists (`json.dumps` makes the text).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import uuid
from typing import Any

from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _write(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): _write(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not f.name.startswith("_")}
    if isinstance(value, (tuple, list)):
        return [_write(item) for item in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, datetime.timedelta):
        return int(value.total_seconds() * 1000)
    if isinstance(value, datetime.datetime):
        return int(value.timestamp() * 1000)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, uuid.UUID):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def request(request: Any) -> dict[str, Any]:
    """The body of a request (a kio message)."""
    return _write(request)


def response(response: Any, version: int) -> dict[str, Any]:
    """The body of a response (a kio message, already of `version`)."""
    return _write(response)


def request_header_node(header: RequestHeader) -> dict[str, Any]:
    """RequestHeaderDataJsonConverter's fields, and the api key's name. (Kafka also flags a deprecated version;
    the port's ApiKeys do not say which versions are deprecated.)"""
    node: dict[str, Any] = {"requestApiKey": int(header.api_key), "requestApiVersion": header.api_version,
                            "correlationId": header.correlation_id}
    if header.header_version >= 1:
        node["clientId"] = header.client_id
    node["requestApiKeyName"] = header.api_key.name
    return node


def request_desc(header: RequestHeader, request_node: Any | None, is_forwarded: bool) -> dict[str, Any]:
    return {"isForwarded": is_forwarded, "requestHeader": request_header_node(header),
            "request": request_node if request_node is not None else ""}


def client_info_node(client_info: ClientInformation) -> dict[str, Any]:
    return {"softwareName": client_info.software_name(), "softwareVersion": client_info.software_version()}


def request_desc_metrics(header: RequestHeader, request_node: Any | None, response_node: Any | None,
                         context: RequestContext, session: Any, is_forwarded: bool, total_time_ms: float,
                         request_queue_time_ms: float, api_local_time_ms: float, api_remote_time_ms: float,
                         api_throttle_time_ms: int, response_queue_time_ms: float, response_send_time_ms: float,
                         temporary_memory_bytes: int, message_conversions_time_ms: float) -> dict[str, Any]:
    """A completed request's log line: the request, its response, who sent it and where its time went."""
    node = request_desc(header, request_node, is_forwarded)
    node["response"] = response_node if response_node is not None else ""
    node["connection"] = context.connection_id
    node["totalTimeMs"] = total_time_ms
    node["requestQueueTimeMs"] = request_queue_time_ms
    node["localTimeMs"] = api_local_time_ms
    node["remoteTimeMs"] = api_remote_time_ms
    node["throttleTimeMs"] = api_throttle_time_ms
    node["responseQueueTimeMs"] = response_queue_time_ms
    node["sendTimeMs"] = response_send_time_ms
    node["securityProtocol"] = context.security_protocol.name
    node["principal"] = f"{session.principal.principal_type}:{session.principal.name}"
    node["listener"] = context.listener_name.value()
    node["clientInformation"] = client_info_node(context.client_information)
    if temporary_memory_bytes > 0:
        node["temporaryMemoryBytes"] = temporary_memory_bytes
    if message_conversions_time_ms > 0:
        node["messageConversionsTime"] = message_conversions_time_ms
    return node
