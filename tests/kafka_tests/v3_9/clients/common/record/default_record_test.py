"""Port of clients/src/test/java/org/apache/kafka/common/record/DefaultRecordTest.java (Kafka 3.9).

Differences of form: Kafka's readFrom(ByteBuffer) is `DefaultRecord.read_from(buffer, position, ...)` and its
readFrom(InputStream) / readPartiallyFrom(InputStream) read the bytes of a stream, here `read_from_stream` and
`read_partially_from` over the same bytes; each returns the record and the position after it. Kafka's allocated,
partly written ByteBuffers are zero-padded bytearrays of the same size.
"""

from __future__ import annotations

import time

import pytest

from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.default_record import DefaultRecord
from kafka_edu.v3_9.clients.common.record.record_batch import NO_SEQUENCE
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.utils.byte_utils import size_of_varint, write_varint, write_varlong
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/DefaultRecordTest.java",
    cases=["testBasicSerde", "testBasicSerdeInvalidHeaderCountTooHigh", "testBasicSerdeInvalidHeaderCountTooLow",
           "testInvalidKeySize", "testInvalidKeySizePartial", "testInvalidValueSize", "testInvalidValueSizePartial",
           "testInvalidNumHeaders", "testInvalidNumHeadersPartial", "testInvalidHeaderKey",
           "testInvalidHeaderKeyPartial", "testNullHeaderKey", "testNullHeaderKeyPartial", "testInvalidHeaderValue",
           "testInvalidHeaderValuePartial", "testUnderflowReadingTimestamp", "testUnderflowReadingVarlong",
           "testInvalidVarlong", "testSerdeNoSequence", "testInvalidSizeOfBodyInBytes"],
)

HEADERS = (RecordHeader("foo", b"value"), RecordHeader("bar", None),
           RecordHeader('"A\\u00ea\\u00f1\\u00fcC"', b"value"))


def _now() -> int:
    return time.time_ns() // 1_000_000


def _padded(out: bytearray, capacity: int) -> bytearray:
    """A Java ByteBuffer.allocate(capacity) written from the start and flipped at its limit: zero-padded."""
    return out + bytes(capacity - len(out))


def _body_prefix(size_of_body_in_bytes: int = 100) -> bytearray:
    buf = bytearray()
    write_varint(size_of_body_in_bytes, buf)
    buf.append(0)  # attributes
    write_varlong(2, buf)  # timestamp delta
    write_varint(1, buf)  # offset delta
    return buf


def _capacity(size_of_body_in_bytes: int = 100) -> int:
    return size_of_body_in_bytes + size_of_varint(size_of_body_in_bytes)


def _assert_partially_decoding_records_from_buffer_throws_invalid_record_exception(buf: bytearray) -> None:
    with pytest.raises(InvalidRecordException):
        DefaultRecord.read_partially_from(bytes(buf), 0, 0, 0, NO_SEQUENCE, None)


def _assert_decoding_record_from_buffer_throws_invalid_record_exception(buf: bytearray) -> None:
    with pytest.raises(InvalidRecordException):
        DefaultRecord.read_from_stream(bytes(buf), 0, 0, 0, NO_SEQUENCE, None)
    with pytest.raises(InvalidRecordException):
        DefaultRecord.read_from(buf, 0, 0, 0, NO_SEQUENCE, None)


def _written(record: SimpleRecord, offset_delta: int = 10, timestamp_delta: int = 323) -> bytearray:
    out = bytearray()
    DefaultRecord.write_to(out, offset_delta, timestamp_delta, record.key(), record.value(), record.headers())
    return out


def test_basic_serde() -> None:
    records = [SimpleRecord(b"there", b"hi"), SimpleRecord(b"there", None), SimpleRecord(None, b"hi"),
               SimpleRecord(None, None), SimpleRecord.of(15, b"hi", b"there", HEADERS)]
    for record in records:
        base_sequence = 723
        base_offset = 37
        offset_delta = 10
        base_timestamp = _now()
        timestamp_delta = 323
        buffer = _written(record, offset_delta, timestamp_delta)
        log_record, _ = DefaultRecord.read_from(buffer, 0, base_offset, base_timestamp, base_sequence, None)
        assert log_record is not None
        assert log_record.offset() == base_offset + offset_delta
        assert log_record.sequence() == base_sequence + offset_delta
        assert log_record.timestamp() == base_timestamp + timestamp_delta
        assert log_record.key() == record.key()
        assert log_record.value() == record.value()
        assert log_record.headers() == record.headers()
        assert log_record.size_in_bytes() == DefaultRecord.size_in_bytes_of(
            offset_delta, timestamp_delta, record.key(), record.value(), record.headers())


def test_basic_serde_invalid_header_count_too_high() -> None:
    record = SimpleRecord.of(15, b"hi", b"there", HEADERS)
    buffer = _written(record)
    buffer[14] = 8
    with pytest.raises(InvalidRecordException):
        DefaultRecord.read_from_stream(bytes(buffer), 0, 37, _now(), 723, None)
    with pytest.raises(InvalidRecordException):
        DefaultRecord.read_from(buffer, 0, 37, _now(), 723, None)


def test_basic_serde_invalid_header_count_too_low() -> None:
    record = SimpleRecord.of(15, b"hi", b"there", HEADERS)
    buffer = _written(record)
    buffer[14] = 4
    with pytest.raises(InvalidRecordException):
        DefaultRecord.read_from(buffer, 0, 37, _now(), 723, None)


def _key_size_too_large() -> bytearray:
    buf = _body_prefix()
    write_varint(105, buf)  # a key size larger than the whole message
    return _padded(buf, _capacity())


def test_invalid_key_size() -> None:
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(_key_size_too_large())


def test_invalid_key_size_partial() -> None:
    _assert_partially_decoding_records_from_buffer_throws_invalid_record_exception(_key_size_too_large())


def _value_size_too_large() -> bytearray:
    buf = _body_prefix()
    write_varint(-1, buf)  # null key
    write_varint(105, buf)  # a value size larger than the whole message
    return _padded(buf, _capacity())


def test_invalid_value_size() -> None:
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(_value_size_too_large())


def test_invalid_value_size_partial() -> None:
    _assert_partially_decoding_records_from_buffer_throws_invalid_record_exception(_value_size_too_large())


def _num_headers(num_headers: int) -> bytearray:
    buf = _body_prefix()
    write_varint(-1, buf)  # null key
    write_varint(-1, buf)  # null value
    write_varint(num_headers, buf)
    return _padded(buf, _capacity())


def test_invalid_num_headers() -> None:
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(_num_headers(-1))
    # More headers than bytes left in the buffer.
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(_num_headers(100))


def test_invalid_num_headers_partial() -> None:
    _assert_partially_decoding_records_from_buffer_throws_invalid_record_exception(_num_headers(-1))


def _one_header(*fields: int, value_byte: bool = False) -> bytearray:
    buf = _body_prefix()
    write_varint(-1, buf)  # null key
    write_varint(-1, buf)  # null value
    write_varint(1, buf)
    write_varint(fields[0], buf)
    if value_byte:
        buf.append(1)
        write_varint(fields[1], buf)
    return _padded(buf, _capacity())


def test_invalid_header_key() -> None:
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(_one_header(105))


def test_invalid_header_key_partial() -> None:
    _assert_partially_decoding_records_from_buffer_throws_invalid_record_exception(_one_header(105))


def test_null_header_key() -> None:
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(_one_header(-1))


def test_null_header_key_partial() -> None:
    _assert_partially_decoding_records_from_buffer_throws_invalid_record_exception(_one_header(-1))


def test_invalid_header_value() -> None:
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(_one_header(1, 105, value_byte=True))


def test_invalid_header_value_partial() -> None:
    _assert_partially_decoding_records_from_buffer_throws_invalid_record_exception(
        _one_header(1, 105, value_byte=True))


def test_underflow_reading_timestamp() -> None:
    buf = bytearray()
    write_varint(1, buf)
    buf.append(0)  # attributes, and no timestamp
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(buf)


def test_underflow_reading_varlong() -> None:
    # One byte for the attributes, one of the two the timestamp delta needs.
    buf = bytearray()
    write_varint(2, buf)
    buf.append(0)
    write_varlong(156, buf)
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(buf[:-1])


def test_invalid_varlong() -> None:
    size_of_body_in_bytes = 11  # attributes and a 10-byte timestamp delta
    buf = bytearray()
    write_varint(size_of_body_in_bytes, buf)
    record_start_position = len(buf)
    buf.append(0)
    write_varlong(2**63 - 1, buf)
    buf[record_start_position + 10] = 0x80  # Byte.MIN_VALUE: a continuation bit in the last byte
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(buf)


def test_serde_no_sequence() -> None:
    out = bytearray()
    DefaultRecord.write_to(out, 10, 323, b"hi", b"there", ())
    record, _ = DefaultRecord.read_from_stream(bytes(out), 0, 37, _now(), NO_SEQUENCE, None)
    assert record is not None
    assert record.sequence() == NO_SEQUENCE
    record, _ = DefaultRecord.read_from(out, 0, 37, _now(), NO_SEQUENCE, None)
    assert record is not None
    assert record.sequence() == NO_SEQUENCE


def test_invalid_size_of_body_in_bytes() -> None:
    buf = bytearray()
    write_varint(10, buf)
    _assert_decoding_record_from_buffer_throws_invalid_record_exception(buf)
