"""Port of metadata/src/main/java/org/apache/kafka/metadata/BrokerRegistration.java and friends (Kafka 3.9).

With BrokerRegistrationReply, BrokerHeartbeatReply, BrokerRegistrationFencingChange and
BrokerRegistrationInControlledShutdownChange.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Endpoint:
    listener_name: str
    security_protocol: int
    host: str
    port: int


@dataclass(frozen=True)
class BrokerRegistration:
    """A broker as the controller registered it (RegisterBrokerRecord, then BrokerRegistrationChangeRecords)."""

    id: int
    epoch: int
    incarnation_id: uuid.UUID
    listeners: dict[str, Endpoint] = field(default_factory=dict)
    supported_features: dict[str, tuple[int, int]] = field(default_factory=dict)
    rack: str | None = None
    fenced: bool = True
    in_controlled_shutdown: bool = False
    is_migrating_zk_broker: bool = False
    directories: tuple[uuid.UUID, ...] = ()

    def cloned_with(self, fencing_change: bool | None, in_controlled_shutdown_change: bool | None,
                    directories_change: tuple[uuid.UUID, ...] | None) -> BrokerRegistration:
        return replace(self,
                       fenced=self.fenced if fencing_change is None else fencing_change,
                       in_controlled_shutdown=(self.in_controlled_shutdown if in_controlled_shutdown_change is None
                                               else in_controlled_shutdown_change),
                       directories=self.directories if directories_change is None else directories_change)


class BrokerRegistrationFencingChange(enum.Enum):
    """BrokerRegistrationChangeRecord.fenced: -1 unfence, 0 no change, 1 fence."""

    FENCE = 1
    NONE = 0
    UNFENCE = -1

    def as_boolean(self) -> bool | None:
        return {1: True, 0: None, -1: False}[self.value]


class BrokerRegistrationInControlledShutdownChange(enum.Enum):
    """BrokerRegistrationChangeRecord.inControlledShutdown: 0 no change, 1 now in controlled shutdown."""

    NONE = 0
    IN_CONTROLLED_SHUTDOWN = 1

    def as_boolean(self) -> bool | None:
        return True if self is BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN else None


@dataclass(frozen=True)
class BrokerRegistrationReply:
    """What a registration gives the broker: its new broker epoch (the RegisterBrokerRecord's offset)."""

    epoch: int


@dataclass(frozen=True)
class BrokerHeartbeatReply:
    is_caught_up: bool
    is_fenced: bool
    in_controlled_shutdown: bool
    should_shut_down: bool
