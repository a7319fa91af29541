"""Port of group-coordinator/src/main/resources/common/message/GroupMetadataValue.json (Kafka 3.9).

A kio-style frozen dataclass per struct, with every version of the JSON (0-4, flexible from 4): 1 adds each member's
rebalanceTimeout (1.0.2 writes 0 and 1), 2 the group's currentStateTimestamp, 3 each member's groupInstanceId; 4 is
3 made flexible. Fields a version has not got are ignorable. List fields are tuples so a record stays immutable.
Defaults are those of Kafka's generated Java class (a string without a default is "", even when nullable).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType


@dataclass(frozen=True, slots=True, kw_only=True)
class MemberMetadata:
    """One member of a classic group: who it is, its timeouts, and its protocol metadata and assignment bytes."""

    __type__: ClassVar = EntityType.nested
    member_id: str = field(metadata={"kafka_type": "string", "versions": "0+"}, default="")
    group_instance_id: str | None = field(
        metadata={"kafka_type": "string", "versions": "3+", "ignorable": True}, default=None)
    client_id: str = field(metadata={"kafka_type": "string", "versions": "0+"}, default="")
    client_host: str = field(metadata={"kafka_type": "string", "versions": "0+"}, default="")
    rebalance_timeout: int = field(
        metadata={"kafka_type": "int32", "versions": "1+", "ignorable": True}, default=-1)
    session_timeout: int = field(metadata={"kafka_type": "int32", "versions": "0+"}, default=0)
    subscription: bytes = field(metadata={"kafka_type": "bytes", "versions": "0+"}, default=b"")
    assignment: bytes = field(metadata={"kafka_type": "bytes", "versions": "0+"}, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupMetadataValue:
    """A classic group's state as of its last rebalance (the value of a GroupMetadataKey)."""

    __type__: ClassVar = EntityType.data
    __valid_versions__: ClassVar[str] = "0-4"
    __flexible_versions__: ClassVar[str] = "4+"
    protocol_type: str = field(metadata={"kafka_type": "string", "versions": "0+"}, default="")
    generation: int = field(metadata={"kafka_type": "int32", "versions": "0+"}, default=0)
    protocol: str | None = field(metadata={"kafka_type": "string", "versions": "0+"}, default="")
    leader: str | None = field(metadata={"kafka_type": "string", "versions": "0+"}, default="")
    current_state_timestamp: int = field(
        metadata={"kafka_type": "int64", "versions": "2+", "ignorable": True}, default=-1)
    members: tuple[MemberMetadata, ...] = field(metadata={"versions": "0+"}, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", tuple(self.members))
