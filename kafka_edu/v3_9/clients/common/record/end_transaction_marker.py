"""Port of clients/src/main/java/org/apache/kafka/common/record/EndTransactionMarker.java (Kafka 3.9): the marker
class is the 1.0.2 tree's (unchanged in 3.9, imported, not copied); deserialize() reads it from a 3.9 Record."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import InvalidRecordException
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import (
    CURRENT_END_TXN_MARKER_VALUE_SIZE,
    CURRENT_END_TXN_MARKER_VERSION,
    CURRENT_END_TXN_SCHEMA_RECORD_SIZE,
    EndTransactionMarker,
)
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.record import Record

__all__ = ["CURRENT_END_TXN_MARKER_VALUE_SIZE", "CURRENT_END_TXN_MARKER_VERSION", "CURRENT_END_TXN_SCHEMA_RECORD_SIZE",
           "EndTransactionMarker", "deserialize"]


def deserialize(record: Record) -> EndTransactionMarker:
    """EndTransactionMarker.deserialize(Record): the marker in a control record's key and value."""
    key = record.key()
    if key is None:
        raise InvalidRecordException("Control record has no key")
    type = ControlRecordType.parse(key)
    return EndTransactionMarker.deserialize_value(type, record.value())
