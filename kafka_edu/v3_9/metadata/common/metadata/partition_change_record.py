"""Port of metadata/src/main/resources/common/metadata/PartitionChangeRecord.json (Kafka 3.9)."""

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.schema.types import BrokerId
from kio.static.constants import EntityType
from kio.static.primitive import i8, i16, i32


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionChangeRecord:
    """A change to one partition: every field but the ids is tagged and left out when it did not change.

    3.9 writes version 1 at metadata.version 3.9-IV0 (MetadataVersion.partitionChangeRecordVersion). All versions
    share the untagged layout, so this class frames versions 0 to 2.
    """

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(1)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(5)
    partition_id: i32 = field(metadata={"kafka_type": "int32"}, default=i32(-1))
    topic_id: uuid.UUID | None = field(metadata={"kafka_type": "uuid"})
    isr: tuple[BrokerId, ...] | None = field(metadata={"kafka_type": "int32", "tag": 0}, default=None)
    """None: the ISR did not change."""
    leader: BrokerId = field(metadata={"kafka_type": "int32", "tag": 1}, default=BrokerId(-2))
    """-2: no change; -1: no leader now; otherwise the new leader."""
    replicas: tuple[BrokerId, ...] | None = field(metadata={"kafka_type": "int32", "tag": 2}, default=None)
    removing_replicas: tuple[BrokerId, ...] | None = field(metadata={"kafka_type": "int32", "tag": 3}, default=None)
    adding_replicas: tuple[BrokerId, ...] | None = field(metadata={"kafka_type": "int32", "tag": 4}, default=None)
    leader_recovery_state: i8 = field(metadata={"kafka_type": "int8", "tag": 5}, default=i8(-1))
    """-1: no change; 0: recovered (or elected from the ISR); 1: an unclean leader still recovering."""
    directories: tuple[uuid.UUID | None, ...] | None = field(
        metadata={"kafka_type": "uuid", "tag": 8, "versions": "1+"}, default=None)
    eligible_leader_replicas: tuple[BrokerId, ...] | None = field(
        metadata={"kafka_type": "int32", "tag": 6, "versions": "2+"}, default=None)
    last_known_elr: tuple[BrokerId, ...] | None = field(
        metadata={"kafka_type": "int32", "tag": 7, "versions": "2+"}, default=None)
