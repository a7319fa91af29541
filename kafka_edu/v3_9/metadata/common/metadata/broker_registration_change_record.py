"""Port of metadata/src/main/resources/common/metadata/BrokerRegistrationChangeRecord.json (Kafka 3.9)."""

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.schema.types import BrokerId
from kio.static.constants import EntityType
from kio.static.primitive import i8, i16, i64


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerRegistrationChangeRecord:
    """A change to a registered broker: fenced, unfenced, in controlled shutdown, or its online log dirs.

    3.9 picks the version by what changed: 0 to fence or unfence (ReplicationControlManager), 1 for controlled
    shutdown, 2 for log dirs. Only tagged fields differ, so this class frames versions 0 to 2.
    """

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(2)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(17)
    broker_id: BrokerId = field(metadata={"kafka_type": "int32"})
    broker_epoch: i64 = field(metadata={"kafka_type": "int64"})
    fenced: i8 = field(metadata={"kafka_type": "int8", "tag": 0}, default=i8(0))
    """BrokerRegistrationFencingChange: -1 unfenced, 0 no change, 1 fenced."""
    in_controlled_shutdown: i8 = field(metadata={"kafka_type": "int8", "tag": 1, "versions": "1+"}, default=i8(0))
    """BrokerRegistrationInControlledShutdownChange: 0 no change, 1 in controlled shutdown."""
    log_dirs: tuple[uuid.UUID | None, ...] = field(
        metadata={"kafka_type": "uuid", "tag": 2, "versions": "2+"}, default=())
