"""Port of clients/src/main/java/org/apache/kafka/common/quota/ClientQuotaAlteration.java (Kafka 3.9): the quota
changes for one entity, each a key and a new value (None: remove it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.clients.common.quota.client_quota_entity import ClientQuotaEntity


@dataclass(frozen=True)
class Op:
    key: str
    value: float | None


@dataclass(frozen=True)
class ClientQuotaAlteration:
    entity: ClientQuotaEntity
    ops: tuple[Op, ...]


def from_request_entries(entries: Iterable[Any]) -> list[ClientQuotaAlteration]:
    """AlterClientQuotasRequest.entries: the request's entries as alterations (a removal's value is None)."""
    return [ClientQuotaAlteration(ClientQuotaEntity({e.entity_type: e.entity_name for e in entry.entity}),
                                  tuple(Op(op.key, None if op.remove else float(op.value)) for op in entry.ops))
            for entry in entries]
