"""Port of raft/src/main/java/org/apache/kafka/raft/ReplicaKey.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import ClassVar

from kafka_edu.v3_9.clients.common.uuid import Uuid


@dataclass(frozen=True)
class ReplicaKey:
    """A replica: its node id and, with KIP-853, the id of its metadata log directory (None for static voters)."""

    id: int
    directory_id: Uuid | None = None

    NO_DIRECTORY_ID: ClassVar[None] = None

    @staticmethod
    def of(id: int, directory_id: Uuid | uuid.UUID | None) -> ReplicaKey:
        """A zero directory id (what a static voter sends) means none."""
        if isinstance(directory_id, uuid.UUID):
            directory_id = None if directory_id.int == 0 else Uuid.from_bytes(directory_id.bytes)
        elif directory_id is not None and directory_id == Uuid(0, 0):
            directory_id = None
        return ReplicaKey(id, directory_id)

    def __lt__(self, other: ReplicaKey) -> bool:
        if self.id != other.id:
            return self.id < other.id
        if self.directory_id is None or other.directory_id is None:
            return self.directory_id is None and other.directory_id is not None
        return self.directory_id < other.directory_id

    def __str__(self) -> str:
        return f"ReplicaKey(id={self.id}, directoryId={self.directory_id or 'empty'})"
