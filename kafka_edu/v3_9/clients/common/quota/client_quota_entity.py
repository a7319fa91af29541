"""Port of clients/src/main/java/org/apache/kafka/common/quota/ClientQuotaEntity.java (Kafka 3.9): whom a quota is
for, as {entity type: name}, a None name meaning that type's default."""

from __future__ import annotations

from collections.abc import Mapping

USER = "user"
CLIENT_ID = "client-id"
IP = "ip"


def is_valid_entity_type(entity_type: str) -> bool:
    return entity_type in (USER, CLIENT_ID, IP)


class ClientQuotaEntity:
    """Immutable and hashable, equal when the entries are: a map key, as in Kafka."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Mapping[str, str | None]) -> None:
        self._entries = dict(entries)

    def entries(self) -> dict[str, str | None]:
        return dict(self._entries)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClientQuotaEntity) and self._entries == other._entries

    def __hash__(self) -> int:
        return hash(frozenset(self._entries.items()))

    def __repr__(self) -> str:
        entries = ", ".join(f"{k}={v if v is not None else 'null'}" for k, v in self._entries.items())
        return f"ClientQuotaEntity(entries={{{entries}}})"
