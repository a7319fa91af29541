"""Port of group-coordinator/src/main/resources/common/message/ConsumerGroupMemberMetadataValue.json (Kafka 3.9).

A kio-style frozen dataclass per struct; list fields are tuples so a record stays immutable and hashable. Defaults
are the ones Kafka's generated Java class starts with (a string field without a default is "", even if nullable).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicProtocol:
    """One (name, metadata) pair a classic-protocol consumer offered in its JoinGroup."""

    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    name: str = field(metadata={"kafka_type": "string"}, default="")
    metadata: bytes = field(metadata={"kafka_type": "bytes"}, default=b"")


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicMemberMetadata:
    """Present only for a member that joined with the classic protocol."""

    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    session_timeout_ms: int = field(metadata={"kafka_type": "int32"}, default=0)
    supported_protocols: tuple[ClassicProtocol, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "supported_protocols", tuple(self.supported_protocols))


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupMemberMetadataValue:
    """What a member said about itself in its last heartbeat (the value of a ConsumerGroupMemberMetadataKey)."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    instance_id: str | None = field(metadata={"kafka_type": "string"}, default="")
    rack_id: str | None = field(metadata={"kafka_type": "string"}, default="")
    client_id: str = field(metadata={"kafka_type": "string"}, default="")
    client_host: str = field(metadata={"kafka_type": "string"}, default="")
    subscribed_topic_names: tuple[str, ...] = field(metadata={"kafka_type": "string"}, default=())
    subscribed_topic_regex: str | None = field(metadata={"kafka_type": "string"}, default="")
    rebalance_timeout_ms: int = field(metadata={"kafka_type": "int32"}, default=-1)
    server_assignor: str | None = field(metadata={"kafka_type": "string"}, default="")
    classic_member_metadata: ClassicMemberMetadata | None = field(
        metadata={"tag": 0}, default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "subscribed_topic_names", tuple(self.subscribed_topic_names))
