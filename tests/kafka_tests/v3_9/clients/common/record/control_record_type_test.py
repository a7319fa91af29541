"""Port of clients/src/test/java/org/apache/kafka/common/record/ControlRecordTypeTest.java (Kafka 3.9)."""

from __future__ import annotations

import struct

import pytest

from kafka_edu.v3_9.clients.common.record.control_record_utils import (
    CURRENT_CONTROL_RECORD_KEY_VERSION,
    ControlRecordType,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/ControlRecordTypeTest.java",
    cases=["testParseUnknownType", "testParseUnknownVersion", "testRoundTrip"],
)


def test_parse_unknown_type() -> None:
    buffer = struct.pack(">hh", CURRENT_CONTROL_RECORD_KEY_VERSION, 337)
    assert ControlRecordType.parse(buffer) is ControlRecordType.UNKNOWN


def test_parse_unknown_version() -> None:
    # Version 5 adds a field after the type.
    buffer = struct.pack(">hhi", 5, ControlRecordType.ABORT.type, 23432)
    assert ControlRecordType.parse(buffer) is ControlRecordType.ABORT


@pytest.mark.parametrize("expected", list(ControlRecordType), ids=lambda t: t.name)
def test_round_trip(expected: ControlRecordType) -> None:
    buffer = struct.pack(">hh", CURRENT_CONTROL_RECORD_KEY_VERSION, expected.type)
    assert ControlRecordType.parse(buffer) is expected
