"""Port of metadata/src/main/resources/common/metadata/AccessControlEntryRecord.json (Kafka 3.9)."""

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i8, i16


@dataclass(frozen=True, slots=True, kw_only=True)
class AccessControlEntryRecord:
    """An ACL was created; the codes are ResourceType's, PatternType's, AclOperation's and AclPermissionType's."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(18)
    id: uuid.UUID | None = field(metadata={"kafka_type": "uuid"})
    resource_type: i8 = field(metadata={"kafka_type": "int8"})
    resource_name: str = field(metadata={"kafka_type": "string"})
    pattern_type: i8 = field(metadata={"kafka_type": "int8"})
    principal: str = field(metadata={"kafka_type": "string"})
    host: str = field(metadata={"kafka_type": "string"})
    operation: i8 = field(metadata={"kafka_type": "int8"})
    permission_type: i8 = field(metadata={"kafka_type": "int8"})
