"""Port of core/src/main/scala/kafka/cluster/BrokerEndPoint.scala (Kafka 3.9): where a broker is reached (id, host,
port)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_URI_PARSE_EXP = re.compile(r"\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)")


def parse_host_port(connection_string: str) -> tuple[str, int] | None:
    """BrokerEndPoint.parseHostPort: "host:port" or "[ipv6]:port", None if it is neither."""
    match = _URI_PARSE_EXP.fullmatch(connection_string)
    if match is None:
        return None
    port = int(match.group(2))
    if port > 2**31 - 1:  # Integer.parseInt's NumberFormatException
        return None
    return match.group(1), port


@dataclass(frozen=True)
class BrokerEndPoint:
    id: int
    host: str
    port: int

    def __str__(self) -> str:
        return f"BrokerEndPoint(id={self.id}, host={self.host}:{self.port})"
