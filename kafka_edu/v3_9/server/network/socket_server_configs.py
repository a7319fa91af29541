"""Port of server/src/main/java/org/apache/kafka/network/SocketServerConfigs.java (Kafka 3.9): listeners, socket
buffers, connection limits and request queues, and the parsing of a `listeners` string into endpoints."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type
from kafka_edu.v3_9.clients.common.endpoint import Endpoint
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.server_common.server.util.csv import parse_csv_list

INT_MAX = 2**31 - 1

LISTENER_SECURITY_PROTOCOL_MAP_CONFIG = "listener.security.protocol.map"
# each security protocol maps its own name (the order of Java's HashMap, as the docs print it)
LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT = "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"

LISTENERS_CONFIG = "listeners"
LISTENERS_DEFAULT = "PLAINTEXT://:9092"

ADVERTISED_LISTENERS_CONFIG = "advertised.listeners"

CONTROL_PLANE_LISTENER_NAME_CONFIG = "control.plane.listener.name"

SOCKET_SEND_BUFFER_BYTES_CONFIG = "socket.send.buffer.bytes"
SOCKET_SEND_BUFFER_BYTES_DEFAULT = 100 * 1024
SOCKET_RECEIVE_BUFFER_BYTES_CONFIG = "socket.receive.buffer.bytes"
SOCKET_RECEIVE_BUFFER_BYTES_DEFAULT = 100 * 1024
SOCKET_REQUEST_MAX_BYTES_CONFIG = "socket.request.max.bytes"
SOCKET_REQUEST_MAX_BYTES_DEFAULT = 100 * 1024 * 1024
SOCKET_LISTEN_BACKLOG_SIZE_CONFIG = "socket.listen.backlog.size"
SOCKET_LISTEN_BACKLOG_SIZE_DEFAULT = 50

MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG = "max.connections.per.ip.overrides"
MAX_CONNECTIONS_PER_IP_OVERRIDES_DEFAULT = ""
MAX_CONNECTIONS_PER_IP_CONFIG = "max.connections.per.ip"
MAX_CONNECTIONS_PER_IP_DEFAULT = INT_MAX
MAX_CONNECTIONS_CONFIG = "max.connections"
MAX_CONNECTIONS_DEFAULT = INT_MAX
MAX_CONNECTION_CREATION_RATE_CONFIG = "max.connection.creation.rate"
MAX_CONNECTION_CREATION_RATE_DEFAULT = INT_MAX

CONNECTIONS_MAX_IDLE_MS_CONFIG = "connections.max.idle.ms"
CONNECTIONS_MAX_IDLE_MS_DEFAULT = 10 * 60 * 1000
FAILED_AUTHENTICATION_DELAY_MS_CONFIG = "connection.failed.authentication.delay.ms"
FAILED_AUTHENTICATION_DELAY_MS_DEFAULT = 100

QUEUED_MAX_REQUESTS_CONFIG = "queued.max.requests"
QUEUED_MAX_REQUESTS_DEFAULT = 500
QUEUED_MAX_BYTES_CONFIG = "queued.max.request.bytes"
QUEUED_MAX_REQUEST_BYTES_DEFAULT = -1

NUM_NETWORK_THREADS_CONFIG = "num.network.threads"
NUM_NETWORK_THREADS_DEFAULT = 3

CONFIG_DEF = (
    ConfigDef()
    .define(LISTENERS_CONFIG, Type.STRING, LISTENERS_DEFAULT)
    .define(ADVERTISED_LISTENERS_CONFIG, Type.STRING, None)
    .define(LISTENER_SECURITY_PROTOCOL_MAP_CONFIG, Type.STRING, LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT)
    .define(CONTROL_PLANE_LISTENER_NAME_CONFIG, Type.STRING, None)
    .define(SOCKET_SEND_BUFFER_BYTES_CONFIG, Type.INT, SOCKET_SEND_BUFFER_BYTES_DEFAULT)
    .define(SOCKET_RECEIVE_BUFFER_BYTES_CONFIG, Type.INT, SOCKET_RECEIVE_BUFFER_BYTES_DEFAULT)
    .define(SOCKET_REQUEST_MAX_BYTES_CONFIG, Type.INT, SOCKET_REQUEST_MAX_BYTES_DEFAULT, Range.at_least(1))
    .define(SOCKET_LISTEN_BACKLOG_SIZE_CONFIG, Type.INT, SOCKET_LISTEN_BACKLOG_SIZE_DEFAULT, Range.at_least(1))
    .define(MAX_CONNECTIONS_PER_IP_CONFIG, Type.INT, MAX_CONNECTIONS_PER_IP_DEFAULT, Range.at_least(0))
    .define(MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG, Type.STRING, MAX_CONNECTIONS_PER_IP_OVERRIDES_DEFAULT)
    .define(MAX_CONNECTIONS_CONFIG, Type.INT, MAX_CONNECTIONS_DEFAULT, Range.at_least(0))
    .define(MAX_CONNECTION_CREATION_RATE_CONFIG, Type.INT, MAX_CONNECTION_CREATION_RATE_DEFAULT, Range.at_least(0))
    .define(CONNECTIONS_MAX_IDLE_MS_CONFIG, Type.LONG, CONNECTIONS_MAX_IDLE_MS_DEFAULT)
    .define(FAILED_AUTHENTICATION_DELAY_MS_CONFIG, Type.INT, FAILED_AUTHENTICATION_DELAY_MS_DEFAULT, Range.at_least(0))
    .define(QUEUED_MAX_REQUESTS_CONFIG, Type.INT, QUEUED_MAX_REQUESTS_DEFAULT, Range.at_least(1))
    .define(QUEUED_MAX_BYTES_CONFIG, Type.LONG, QUEUED_MAX_REQUEST_BYTES_DEFAULT)
    .define(NUM_NETWORK_THREADS_CONFIG, Type.INT, NUM_NETWORK_THREADS_DEFAULT, Range.at_least(1))
)

_URI_PARSE_REGEXP = re.compile(r"^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)")

DEFAULT_NAME_TO_SECURITY_PROTO: dict[ListenerName, SecurityProtocol] = {
    ListenerName.for_security_protocol(protocol): protocol for protocol in SecurityProtocol}


def listener_list_to_end_points(
        input_: str,
        name_to_security_proto: Mapping[ListenerName, SecurityProtocol] | Callable[[ListenerName], SecurityProtocol],
) -> list[Endpoint]:
    """`NAME://host:port,...` -> endpoints; each listener name must map to a security protocol."""
    if isinstance(name_to_security_proto, Mapping):
        protocols = name_to_security_proto

        def lookup(name: ListenerName) -> SecurityProtocol:
            result = protocols.get(name)
            if result is None:
                raise IllegalArgumentException(f"No security protocol defined for listener {name.value()}")
            return result
    else:
        lookup = name_to_security_proto
    results = []
    for entry in parse_csv_list(input_.strip()):
        matcher = _URI_PARSE_REGEXP.match(entry)
        if matcher is None or matcher.end() != len(entry):
            raise KafkaException(f"Unable to parse {entry} to a broker endpoint")
        listener_name = ListenerName.normalised(matcher.group(1))
        host = matcher.group(2) or None
        port = _parse_int(matcher.group(3))
        results.append(Endpoint(listener_name.value(), lookup(listener_name), host, port))
    return results


def _parse_int(value: str) -> int:
    """Integer.parseInt: out of int range is a NumberFormatException (an IllegalArgumentException)."""
    number = int(value)
    if not -(2**31) <= number <= INT_MAX:
        raise IllegalArgumentException(f'For input string: "{value}"')
    return number
