"""Port of clients/src/main/java/org/apache/kafka/common/record/ControlRecordType.java (Kafka 1.0.2): the type in a
control record's key, COMMIT or ABORT (the transaction markers), UNKNOWN for any other."""

from __future__ import annotations

import enum
import logging
import struct

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidRecordException

log = logging.getLogger("org.apache.kafka.common.record.ControlRecordType")

# ControlRecordType's static constants: in an IntEnum's body they would become members.
CURRENT_CONTROL_RECORD_KEY_VERSION = 0
CURRENT_CONTROL_RECORD_KEY_SIZE = 4
# CONTROL_RECORD_KEY_SCHEMA_VERSION_V0: version int16, type int16.
_CONTROL_RECORD_KEY_SCHEMA_VERSION_V0 = struct.Struct(">hh")


class ControlRecordType(enum.IntEnum):
    """Key => Version Type (both int16); the value's schema is the type's own. The log cleaner leaves control
    records out of compaction."""

    ABORT = 0
    COMMIT = 1
    # A control type this client does not know: it is to be ignored.
    UNKNOWN = -1

    @property
    def type(self) -> int:
        return int(self)

    def record_key(self) -> bytes:
        if self is ControlRecordType.UNKNOWN:
            raise IllegalArgumentException("Cannot serialize UNKNOWN control record type")
        return _CONTROL_RECORD_KEY_SCHEMA_VERSION_V0.pack(CURRENT_CONTROL_RECORD_KEY_VERSION, self.type)

    @staticmethod
    def parse_type_id(key: bytes | memoryview) -> int:
        if len(key) < CURRENT_CONTROL_RECORD_KEY_SIZE:
            raise InvalidRecordException("Invalid value size found for end control record key. Must have at least "
                                         f"{CURRENT_CONTROL_RECORD_KEY_SIZE} bytes, but found only {len(key)}")
        version, type_id = _CONTROL_RECORD_KEY_SCHEMA_VERSION_V0.unpack_from(key)
        if version < 0:
            raise InvalidRecordException(f"Invalid version found for control record: {version}. May indicate data "
                                         "corruption")
        if version != CURRENT_CONTROL_RECORD_KEY_VERSION:
            # A later key version must keep version 0's fields first, so the type is read where version 0 has it.
            log.debug("Received unknown control record key version %d. Parsing as version %d", version,
                      CURRENT_CONTROL_RECORD_KEY_VERSION)
        return type_id

    @staticmethod
    def from_type_id(type_id: int) -> ControlRecordType:
        if type_id == 0:
            return ControlRecordType.ABORT
        if type_id == 1:
            return ControlRecordType.COMMIT
        return ControlRecordType.UNKNOWN

    @staticmethod
    def parse(key: bytes | memoryview) -> ControlRecordType:
        return ControlRecordType.from_type_id(ControlRecordType.parse_type_id(key))
