"""Port of metadata/src/main/resources/common/metadata/UserScramCredentialRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i8, i16, i32


@dataclass(frozen=True, slots=True, kw_only=True)
class UserScramCredentialRecord:
    """A user's SCRAM credential for one mechanism (the salted password itself is never stored)."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(11)
    name: str = field(metadata={"kafka_type": "string"})
    mechanism: i8 = field(metadata={"kafka_type": "int8"})
    """ScramMechanism type: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512."""
    salt: bytes = field(metadata={"kafka_type": "bytes"})
    stored_key: bytes = field(metadata={"kafka_type": "bytes"})
    server_key: bytes = field(metadata={"kafka_type": "bytes"})
    iterations: i32 = field(metadata={"kafka_type": "int32"})
