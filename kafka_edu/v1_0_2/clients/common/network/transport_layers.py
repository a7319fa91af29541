"""Port of clients/src/main/java/org/apache/kafka/common/network/TransportLayers.java (Kafka 1.0.2)."""

from __future__ import annotations

from typing import Any


def has_pending_writes(channel: Any) -> bool:
    """TransportLayers.hasPendingWrites: a transport layer may hold bytes it still has to flush (SSL's); any other
    channel a Send is written to holds none."""
    pending = getattr(channel, "has_pending_writes", None)
    return bool(pending()) if pending is not None else False
