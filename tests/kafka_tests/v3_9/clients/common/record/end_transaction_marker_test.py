"""Port of clients/src/test/java/org/apache/kafka/common/record/EndTransactionMarkerTest.java (Kafka 3.9)."""

from __future__ import annotations

import struct

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidRecordException
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/EndTransactionMarkerTest.java",
    cases=["testUnknownControlTypeNotAllowed", "testCannotDeserializeUnknownControlType",
           "testIllegalNegativeVersion", "testNotEnoughBytes", "testSerde", "testDeserializeNewerVersion"],
)


def test_unknown_control_type_not_allowed() -> None:
    with pytest.raises(IllegalArgumentException):
        EndTransactionMarker(ControlRecordType.UNKNOWN, 24)


def test_cannot_deserialize_unknown_control_type() -> None:
    with pytest.raises(IllegalArgumentException):
        EndTransactionMarker.deserialize_value(ControlRecordType.UNKNOWN, b"")


def test_illegal_negative_version() -> None:
    with pytest.raises(InvalidRecordException):
        EndTransactionMarker.deserialize_value(ControlRecordType.ABORT, struct.pack(">h", -1))


def test_not_enough_bytes() -> None:
    with pytest.raises(InvalidRecordException):
        EndTransactionMarker.deserialize_value(ControlRecordType.COMMIT, b"")


def test_serde() -> None:
    coordinator_epoch = 79
    marker = EndTransactionMarker(ControlRecordType.COMMIT, coordinator_epoch)
    deserialized = EndTransactionMarker.deserialize_value(ControlRecordType.COMMIT, marker.serialize_value())
    assert deserialized.coordinator_epoch == coordinator_epoch


def test_deserialize_newer_version() -> None:
    coordinator_epoch = 79
    buffer = struct.pack(">hih", 5, coordinator_epoch, 0)  # a version 5 value, with data version 0 lacks
    deserialized = EndTransactionMarker.deserialize_value(ControlRecordType.COMMIT, buffer)
    assert deserialized.coordinator_epoch == coordinator_epoch
