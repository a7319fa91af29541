"""Project-own helper, not a port: what Kafka 3.9's AclOperation, AclPermissionType, ResourceType and PatternType
each write out in Java (fromCode, fromString, code, isUnknown, an UNKNOWN for codes this version does not know),
written once for the Python enums that port them."""

from __future__ import annotations

import enum
from typing import Self


class WireCodeEnum(enum.IntEnum):
    """An enum whose value is its wire code and whose member UNKNOWN stands for any code or name it does not know."""

    @classmethod
    def from_code(cls, code: int) -> Self:
        return cls._value2member_map_.get(code, cls["UNKNOWN"])  # type: ignore[return-value]

    @classmethod
    def from_string(cls, text: str) -> Self:
        try:
            return cls[text.upper()]
        except KeyError:
            return cls["UNKNOWN"]

    def code(self) -> int:
        return self.value

    def is_unknown(self) -> bool:
        return self.name == "UNKNOWN"

    def __str__(self) -> str:
        return self.name
