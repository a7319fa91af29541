"""Port of clients/src/main/java/org/apache/kafka/server/authorizer/AuthorizerServerInfo.java (Kafka 3.9): what a
server tells its authorizer at start."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AuthorizerServerInfo:
    """`endpoints`: the listeners' EndPoints; `early_start_listeners`: the names of the listeners that start before
    the authorizer is ready (a controller's own listener, by default)."""

    cluster_id: str
    broker_id: int
    endpoints: Collection[Any]
    inter_broker_endpoint: Any = None
    early_start_listeners: Collection[str] = field(default_factory=tuple)
