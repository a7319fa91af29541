"""Port of clients/.../common/record/ControlRecordType.java and ControlRecordUtils.java (Kafka 3.9)."""

from __future__ import annotations

import enum
import logging
import struct
from typing import Any

from kio.schema.k_raft_version_record.v0.data import KRaftVersionRecord
from kio.schema.leader_change_message.v0.data import LeaderChangeMessage
from kio.schema.snapshot_footer_record.v0.data import SnapshotFooterRecord
from kio.schema.snapshot_header_record.v0.data import SnapshotHeaderRecord
from kio.schema.voters_record.v0.data import VotersRecord
from kio.serial import entity_reader

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidRecordException
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord

log = logging.getLogger(__name__)

_KEY = struct.Struct(">hh")
# ControlRecordType's own constants: in an IntEnum's body they would become members.
CURRENT_CONTROL_RECORD_KEY_VERSION = 0
CURRENT_CONTROL_RECORD_KEY_SIZE = 4


class ControlRecordType(enum.IntEnum):
    """The type in a control record's key, (version int16 = 0, type int16); the value depends on the type."""

    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2  # the first batch a raft leader writes in its epoch
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6
    UNKNOWN = -1  # a type this reader does not know: callers skip it

    @property
    def type(self) -> int:
        return int(self)

    def record_key(self) -> bytes:
        if self is ControlRecordType.UNKNOWN:
            raise IllegalArgumentException("Cannot serialize UNKNOWN control record type")
        return _KEY.pack(CURRENT_CONTROL_RECORD_KEY_VERSION, self.type)

    @staticmethod
    def parse_type_id(key: bytes | memoryview) -> int:
        if len(key) < CURRENT_CONTROL_RECORD_KEY_SIZE:
            raise InvalidRecordException("Invalid value size found for end control record key. Must have at least "
                                         f"{CURRENT_CONTROL_RECORD_KEY_SIZE} bytes, but found only {len(key)}")
        version, type_id = _KEY.unpack_from(key)
        if version < 0:
            raise InvalidRecordException(f"Invalid version found for control record: {version}. May indicate data "
                                         "corruption")
        if version != CURRENT_CONTROL_RECORD_KEY_VERSION:
            # A newer key version keeps the type where version 0 has it.
            log.debug("Received unknown control record key version %d. Parsing as version %d", version,
                      CURRENT_CONTROL_RECORD_KEY_VERSION)
        return type_id

    @staticmethod
    def from_type_id(type_id: int) -> ControlRecordType:
        try:
            return ControlRecordType(type_id)
        except ValueError:
            return ControlRecordType.UNKNOWN

    @staticmethod
    def parse(key: bytes | memoryview) -> ControlRecordType:
        return ControlRecordType.from_type_id(ControlRecordType.parse_type_id(key))




class ControlRecordUtils:
    """Decode the value of a raft control record: the message itself at its current version, with no frame."""

    KRAFT_VERSION_CURRENT_VERSION = 0
    LEADER_CHANGE_CURRENT_VERSION = 0
    SNAPSHOT_FOOTER_CURRENT_VERSION = 0
    SNAPSHOT_HEADER_CURRENT_VERSION = 0
    KRAFT_VOTERS_CURRENT_VERSION = 0

    # The kio class each raft control type's value is read with (at the version above).
    MESSAGE_CLASSES: dict[ControlRecordType, type[Any]] = {}

    @staticmethod
    def deserialize_leader_change_message(data: DefaultRecord | bytes | memoryview) -> LeaderChangeMessage:
        return ControlRecordUtils._deserialize(ControlRecordType.LEADER_CHANGE, data)

    @staticmethod
    def deserialize_snapshot_header_record(data: DefaultRecord | bytes | memoryview) -> SnapshotHeaderRecord:
        return ControlRecordUtils._deserialize(ControlRecordType.SNAPSHOT_HEADER, data)

    @staticmethod
    def deserialize_snapshot_footer_record(data: DefaultRecord | bytes | memoryview) -> SnapshotFooterRecord:
        return ControlRecordUtils._deserialize(ControlRecordType.SNAPSHOT_FOOTER, data)

    @staticmethod
    def deserialize_kraft_version_record(data: DefaultRecord | bytes | memoryview) -> KRaftVersionRecord:
        return ControlRecordUtils._deserialize(ControlRecordType.KRAFT_VERSION, data)

    @staticmethod
    def deserialize_voters_record(data: DefaultRecord | bytes | memoryview) -> VotersRecord:
        return ControlRecordUtils._deserialize(ControlRecordType.KRAFT_VOTERS, data)

    @staticmethod
    def deserialize(record_type: ControlRecordType, value: bytes | memoryview) -> Any:
        """The message of a raft control record of `record_type` (RecordsIterator.decodeControlRecord's switch)."""
        message_class = ControlRecordUtils.MESSAGE_CLASSES.get(record_type)
        if message_class is None:
            raise IllegalArgumentException(f"Unknown control record type {record_type.name}")
        message, size = entity_reader(message_class)(memoryview(value), 0)
        if size != len(value):
            raise InvalidRecordException(f"{record_type.name} control record has {len(value) - size} byte(s) "
                                         "after its message")
        return message

    @staticmethod
    def _deserialize(expected: ControlRecordType, data: Any) -> Any:
        if isinstance(data, DefaultRecord) or callable(getattr(data, "key", None)):
            # Kafka's Record overloads check the key's type first, then read the value. A 3.9 Record has key() and
            # value() methods, 1.0.2's DefaultRecord has attributes.
            key = data.key() if callable(data.key) else data.key
            value = data.value() if callable(data.value) else data.value
            if key is None:
                raise InvalidRecordException("Control record has no key")
            actual = ControlRecordType.parse(key)
            if actual is not expected:
                raise IllegalArgumentException(f"Expected {expected.name} control record type({expected.type}), "
                                               f"but found {actual.name}")
            if value is None:
                raise InvalidRecordException(f"{expected.name} control record has no value")
            data = value
        return ControlRecordUtils.deserialize(expected, data)


ControlRecordUtils.MESSAGE_CLASSES.update({
    ControlRecordType.LEADER_CHANGE: LeaderChangeMessage,
    ControlRecordType.SNAPSHOT_HEADER: SnapshotHeaderRecord,
    ControlRecordType.SNAPSHOT_FOOTER: SnapshotFooterRecord,
    ControlRecordType.KRAFT_VERSION: KRaftVersionRecord,
    ControlRecordType.KRAFT_VOTERS: VotersRecord,
})
