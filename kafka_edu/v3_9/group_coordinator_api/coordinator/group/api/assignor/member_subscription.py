"""Port of group-coordinator/group-coordinator-api/.../api/assignor/MemberSubscription.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Set

from kafka_edu.v3_9.clients.common.uuid import Uuid


class MemberSubscription(ABC):
    """What an assignor may know of one member: its rack, its static instance id, the topics it wants."""

    @abstractmethod
    def rack_id(self) -> str | None: ...

    @abstractmethod
    def instance_id(self) -> str | None: ...

    @abstractmethod
    def subscribed_topic_ids(self) -> Set[Uuid]: ...
