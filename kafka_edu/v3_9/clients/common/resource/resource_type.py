"""Port of clients/src/main/java/org/apache/kafka/common/resource/ResourceType.java (Kafka 3.9): what an ACL is on."""

from __future__ import annotations

import enum


class ResourceType(enum.IntEnum):
    """The value is the wire code (and the ordinal: ACLs sort by it). ANY only matches in a filter; UNKNOWN is a code
    this version does not know."""

    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7

    @classmethod
    def from_code(cls, code: int) -> ResourceType:
        return cls._value2member_map_.get(code, cls.UNKNOWN)  # type: ignore[return-value]

    @classmethod
    def from_string(cls, text: str) -> ResourceType:
        try:
            return cls[text.upper()]
        except KeyError:
            return cls.UNKNOWN

    def code(self) -> int:
        return self.value

    def is_unknown(self) -> bool:
        return self is ResourceType.UNKNOWN

    def __str__(self) -> str:
        return self.name
