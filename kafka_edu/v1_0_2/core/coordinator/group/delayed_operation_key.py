"""Port of core/src/main/scala/kafka/server/DelayedOperationKey.scala (read: 0.11.0/1.x excerpts): the group keys."""

from __future__ import annotations

from typing import NamedTuple


class MemberKey(NamedTuple):
    """Watch key of a member's DelayedHeartbeat."""

    group_id: str
    consumer_id: str

    @property
    def key_label(self) -> str:
        return f"{self.group_id}-{self.consumer_id}"


class GroupKey(NamedTuple):
    """Watch key of a group's DelayedJoin (the rebalance)."""

    group_id: str

    @property
    def key_label(self) -> str:
        return self.group_id
