"""Port of metadata/src/main/resources/common/metadata/RegisterBrokerRecord.json (Kafka 3.9)."""

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.schema.types import BrokerId
from kio.static.constants import EntityType
from kio.static.primitive import i16, i64, u16


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerEndpoint:
    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(3)
    __flexible__: ClassVar[bool] = True
    name: str = field(metadata={"kafka_type": "string"})
    """The listener name (the map key of EndPoints)."""
    host: str = field(metadata={"kafka_type": "string"})
    port: u16 = field(metadata={"kafka_type": "uint16"})
    security_protocol: i16 = field(metadata={"kafka_type": "int16"})
    """SecurityProtocol id: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerFeature:
    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(3)
    __flexible__: ClassVar[bool] = True
    name: str = field(metadata={"kafka_type": "string"})
    min_supported_version: i16 = field(metadata={"kafka_type": "int16"})
    max_supported_version: i16 = field(metadata={"kafka_type": "int16"})


@dataclass(frozen=True, slots=True, kw_only=True)
class RegisterBrokerRecord:
    """A broker registered (or re-registered); its offset becomes the broker epoch.

    3.9 writes version 3 at metadata.version 3.9-IV0 (MetadataVersion.registerBrokerRecordVersion). Versions 0 and 1
    lack IsMigratingZkBroker, an untagged field, so this class frames versions 2 and 3 only.
    """

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(3)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(0)
    broker_id: BrokerId = field(metadata={"kafka_type": "int32"})
    is_migrating_zk_broker: bool = field(metadata={"kafka_type": "bool"}, default=False)
    """True for a ZooKeeper broker in migration mode; never in this port."""
    incarnation_id: uuid.UUID | None = field(metadata={"kafka_type": "uuid"})
    """Random per broker process, so a restart is told apart from a duplicate registration."""
    broker_epoch: i64 = field(metadata={"kafka_type": "int64"})
    end_points: tuple[BrokerEndpoint, ...]
    features: tuple[BrokerFeature, ...]
    rack: str | None = field(metadata={"kafka_type": "string"})
    fenced: bool = field(metadata={"kafka_type": "bool"}, default=True)
    in_controlled_shutdown: bool = field(metadata={"kafka_type": "bool"}, default=False)
    log_dirs: tuple[uuid.UUID | None, ...] = field(
        metadata={"kafka_type": "uuid", "tag": 0, "versions": "3+"}, default=())
    """The directory.id of each log dir the broker has online."""
