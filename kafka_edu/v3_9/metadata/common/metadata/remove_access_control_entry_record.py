"""Port of metadata/src/main/resources/common/metadata/RemoveAccessControlEntryRecord.json (Kafka 3.9)."""

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveAccessControlEntryRecord:
    """The ACL with this id was deleted."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(19)
    id: uuid.UUID | None = field(metadata={"kafka_type": "uuid"})
