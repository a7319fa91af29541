"""Port of group-coordinator/group-coordinator-api/.../api/assignor/MemberSubscription.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Set


class MemberSubscription(ABC):
    """What an assignor may know of one member: its rack, its static instance id, the topics it wants."""

    @abstractmethod
    def rack_id(self) -> str | None: ...

    @abstractmethod
    def instance_id(self) -> str | None: ...

    @abstractmethod
    def subscribed_topic_ids(self) -> Set[uuid.UUID]: ...
