"""Port of metadata/src/main/java/org/apache/kafka/metadata/BrokerRegistration.java and friends (Kafka 3.9).

With BrokerRegistrationReply, BrokerHeartbeatReply, BrokerRegistrationFencingChange,
BrokerRegistrationInControlledShutdownChange, and server-common's DirectoryId for the uuid.UUID directory ids the
records carry (toRecord is `broker_to_record` in kafka_edu/v3_9/metadata/image/cluster_image.py).
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

_LONG = 1 << 64

# DirectoryId: the reserved directory ids (3.9's values).
MIGRATING_DIR = uuid.UUID(int=0)  # DirectoryId.MIGRATING: a replica whose directory is not known (yet)
UNASSIGNED_DIR = uuid.UUID(int=1)  # DirectoryId.UNASSIGNED: a replica not yet placed in a directory
LOST_DIR = uuid.UUID(int=2)  # DirectoryId.LOST: a replica on an offline directory


def _signed(value: int) -> int:
    return value - _LONG if value >= 1 << 63 else value


def directory_sort_key(directory: uuid.UUID) -> tuple[int, int]:
    """Uuid.compareTo: the most significant half first, each half compared as Java's signed long."""
    return _signed(directory.int >> 64), _signed(directory.int & (_LONG - 1))


def directory_id_reserved(directory: uuid.UUID) -> bool:
    """DirectoryId.reserved: the first 100 ids (high half zero, low half below 100 as a signed long)."""
    most, least = directory_sort_key(directory)
    return most == 0 and least < 100


def directory_is_online(directory: uuid.UUID, sorted_online_dirs: Sequence[uuid.UUID]) -> bool:
    """DirectoryId.isOnline."""
    if directory in (UNASSIGNED_DIR, MIGRATING_DIR):
        return True
    if directory == LOST_DIR:
        return False
    # No directories at all: registered below metadata.version 3.7-IV2, where they were not sent (KAFKA-16162).
    if not sorted_online_dirs:
        return True
    return directory in sorted_online_dirs


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

    def __post_init__(self) -> None:
        # Kept sorted, as Kafka's constructor does: equality and the written record do not depend on their order.
        object.__setattr__(self, "directories", tuple(sorted(self.directories, key=directory_sort_key)))

    def has_online_dir(self, directory: uuid.UUID) -> bool:
        return directory_is_online(directory, self.directories)

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
