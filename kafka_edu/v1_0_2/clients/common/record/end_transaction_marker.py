"""Port of clients/src/main/java/org/apache/kafka/common/record/EndTransactionMarker.java (Kafka 1.0.2)."""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidRecordException
from kafka_edu.v1_0_2.clients.common.record.control_record_type import (
    CURRENT_CONTROL_RECORD_KEY_SIZE,
    ControlRecordType,
)
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord, size_of_varint

log = logging.getLogger(__name__)

CURRENT_END_TXN_MARKER_VERSION = 0
# The value: version int16, coordinator_epoch int32.
_VALUE = struct.Struct(">hi")
CURRENT_END_TXN_MARKER_VALUE_SIZE = _VALUE.size


def _record_size_in_bytes(key_size: int, value_size: int) -> int:
    """DefaultRecord.sizeInBytes(offsetDelta 0, timestampDelta 0, key, value, no headers): the varint length prefix
    and the body (attributes, the two deltas, both lengths, the bytes, the header count)."""
    body = 1 + size_of_varint(0) + size_of_varint(0) + size_of_varint(key_size) + key_size \
        + size_of_varint(value_size) + value_size + size_of_varint(0)
    return size_of_varint(body) + body


CURRENT_END_TXN_SCHEMA_RECORD_SIZE = _record_size_in_bytes(CURRENT_CONTROL_RECORD_KEY_SIZE,
                                                           CURRENT_END_TXN_MARKER_VALUE_SIZE)


def _ensure_transaction_marker_control_type(type: ControlRecordType) -> None:
    if type not in (ControlRecordType.COMMIT, ControlRecordType.ABORT):
        raise IllegalArgumentException(f"Invalid control record type for end transaction marker{type.name}")


@dataclass(frozen=True)
class EndTransactionMarker:
    """The control record that ends a transaction in a partition: its key says COMMIT or ABORT, its value carries
    the epoch of the coordinator that wrote it (a marker from an older coordinator is fenced by the log)."""

    control_type: ControlRecordType
    coordinator_epoch: int

    def __post_init__(self) -> None:
        _ensure_transaction_marker_control_type(self.control_type)

    def serialize_value(self) -> bytes:
        return _VALUE.pack(CURRENT_END_TXN_MARKER_VERSION, self.coordinator_epoch)

    @staticmethod
    def deserialize(record: DefaultRecord) -> EndTransactionMarker:
        if record.key is None:
            raise InvalidRecordException("Control record has no key")
        type = ControlRecordType.parse(record.key)
        return EndTransactionMarker.deserialize_value(type, record.value)

    @staticmethod
    def deserialize_value(type: ControlRecordType, value: bytes | None) -> EndTransactionMarker:
        _ensure_transaction_marker_control_type(type)
        remaining = 0 if value is None else len(value)
        if value is None or remaining < CURRENT_END_TXN_MARKER_VALUE_SIZE:
            raise InvalidRecordException("Invalid value size found for end transaction marker. Must have at least "
                                         f"{CURRENT_END_TXN_MARKER_VALUE_SIZE} bytes, but found only {remaining}")
        version, coordinator_epoch = _VALUE.unpack_from(value)
        if version < 0:
            raise InvalidRecordException(f"Invalid version found for end transaction marker: {version}. May indicate "
                                         "data corruption")
        if version > CURRENT_END_TXN_MARKER_VERSION:
            # A newer value keeps version 0's fields first.
            log.debug("Received end transaction marker value version %d. Parsing as version %d", version,
                      CURRENT_END_TXN_MARKER_VERSION)
        return EndTransactionMarker(type, coordinator_epoch)
