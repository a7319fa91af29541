"""Port of clients/src/test/java/org/apache/kafka/common/record/ControlRecordTypeTest.java (Kafka 1.0.2)."""

from __future__ import annotations

import struct

from kafka_edu.v1_0_2.clients.common.record.control_record_type import (
    CURRENT_CONTROL_RECORD_KEY_VERSION,
    ControlRecordType,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "clients/src/test/java/org/apache/kafka/common/record/ControlRecordTypeTest.java",
    cases=["testParseUnknownType", "testParseUnknownVersion"],
)


def test_parse_unknown_type() -> None:
    buffer = struct.pack(">hh", CURRENT_CONTROL_RECORD_KEY_VERSION, 337)
    assert ControlRecordType.parse(buffer) == ControlRecordType.UNKNOWN


def test_parse_unknown_version() -> None:
    # A field version 5 added after the type.
    buffer = struct.pack(">hhi", 5, ControlRecordType.ABORT.type, 23432)
    assert ControlRecordType.parse(buffer) == ControlRecordType.ABORT
