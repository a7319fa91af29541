"""Port of metadata/src/main/resources/common/metadata/PartitionRecord.json (Kafka 3.9)."""

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.schema.types import BrokerId
from kio.static.constants import EntityType
from kio.static.primitive import i8, i16, i32


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionRecord:
    """The full state of one partition: written when it is created, and in every snapshot.

    3.9 writes version 1 at metadata.version 3.9-IV0 (MetadataVersion.partitionRecordVersion: directory assignment
    yes, ELR not yet). Version 0 lacks Directories, an untagged field, so this class frames versions 1 and 2; the
    two ELR fields are tagged and exist from version 2.
    """

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(1)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(3)
    partition_id: i32 = field(metadata={"kafka_type": "int32"}, default=i32(-1))
    topic_id: uuid.UUID | None = field(metadata={"kafka_type": "uuid"})
    replicas: tuple[BrokerId, ...] = field(metadata={"kafka_type": "int32"})
    """Preferred order: the first one is the preferred leader."""
    isr: tuple[i32, ...] = field(metadata={"kafka_type": "int32"})
    removing_replicas: tuple[BrokerId, ...] = field(metadata={"kafka_type": "int32"}, default=())
    adding_replicas: tuple[BrokerId, ...] = field(metadata={"kafka_type": "int32"}, default=())
    leader: BrokerId = field(metadata={"kafka_type": "int32"}, default=BrokerId(-1))
    leader_recovery_state: i8 = field(metadata={"kafka_type": "int8", "tag": 0}, default=i8(0))
    """1 while a leader chosen by unclean election is recovering, else 0."""
    leader_epoch: i32 = field(metadata={"kafka_type": "int32"}, default=i32(-1))
    partition_epoch: i32 = field(metadata={"kafka_type": "int32"}, default=i32(-1))
    """Bumped on every change to the partition; AlterPartition must name the current one."""
    directories: tuple[uuid.UUID | None, ...] = field(metadata={"kafka_type": "uuid", "versions": "1+"}, default=())
    """The directory.id holding each replica, in the order of `replicas` (None for Uuid.ZERO, as kio reads it)."""
    eligible_leader_replicas: tuple[BrokerId, ...] | None = field(
        metadata={"kafka_type": "int32", "tag": 1, "versions": "2+"}, default=None)
    last_known_elr: tuple[BrokerId, ...] | None = field(
        metadata={"kafka_type": "int32", "tag": 2, "versions": "2+"}, default=None)
