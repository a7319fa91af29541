"""Port of metadata/src/main/resources/common/metadata/RemoveUserScramCredentialRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i8, i16


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveUserScramCredentialRecord:
    """A user's SCRAM credential for one mechanism deleted."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(22)
    name: str = field(metadata={"kafka_type": "string"})
    mechanism: i8 = field(metadata={"kafka_type": "int8"})
