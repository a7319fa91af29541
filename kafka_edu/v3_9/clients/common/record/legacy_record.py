"""Port of clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java (Kafka 3.9): a message of format
v0 or v1 (CRC-32, magic, attributes, [timestamp], key, value), read in place from a buffer, and its writers."""

from __future__ import annotations

import struct
import zlib

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException, IllegalArgumentException
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.byte_utils import Buffer, read_unsigned_int, write_unsigned_int

CRC_OFFSET = 0
CRC_LENGTH = 4
MAGIC_OFFSET = CRC_OFFSET + CRC_LENGTH
MAGIC_LENGTH = 1
ATTRIBUTES_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH
ATTRIBUTES_LENGTH = 1
TIMESTAMP_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH
TIMESTAMP_LENGTH = 8
KEY_SIZE_OFFSET_V0 = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH
KEY_SIZE_OFFSET_V1 = TIMESTAMP_OFFSET + TIMESTAMP_LENGTH
KEY_SIZE_LENGTH = 4
KEY_OFFSET_V0 = KEY_SIZE_OFFSET_V0 + KEY_SIZE_LENGTH
KEY_OFFSET_V1 = KEY_SIZE_OFFSET_V1 + KEY_SIZE_LENGTH
VALUE_SIZE_LENGTH = 4
HEADER_SIZE_V0 = CRC_LENGTH + MAGIC_LENGTH + ATTRIBUTES_LENGTH
HEADER_SIZE_V1 = CRC_LENGTH + MAGIC_LENGTH + ATTRIBUTES_LENGTH + TIMESTAMP_LENGTH
RECORD_OVERHEAD_V0 = HEADER_SIZE_V0 + KEY_SIZE_LENGTH + VALUE_SIZE_LENGTH
RECORD_OVERHEAD_V1 = HEADER_SIZE_V1 + KEY_SIZE_LENGTH + VALUE_SIZE_LENGTH

COMPRESSION_CODEC_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
NO_TIMESTAMP = -1
MAGIC_VALUE_V0 = 0
MAGIC_VALUE_V1 = 1

_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")


def _size_delimited(buffer: Buffer, start: int) -> bytes | None:
    """Utils.sizeDelimited: an int32 size then that many bytes; None for a negative size."""
    size = _INT32.unpack_from(buffer, start)[0]
    if size < 0:
        return None
    return bytes(buffer[start + 4:start + 4 + size])


class LegacyRecord:
    """A v0/v1 message over `buffer` (exactly the message). An inner record of a compressed v1 wrapper takes the
    wrapper's timestamp when the wrapper says LogAppendTime."""

    def __init__(self, buffer: Buffer, wrapper_record_timestamp: int | None = None,
                 wrapper_record_timestamp_type: TimestampType | None = None) -> None:
        self._buffer = memoryview(buffer)
        self.wrapper_record_timestamp = wrapper_record_timestamp
        self.wrapper_record_timestamp_type = wrapper_record_timestamp_type

    def compute_checksum(self) -> int:
        return zlib.crc32(self._buffer[MAGIC_OFFSET:])

    def checksum(self) -> int:
        return read_unsigned_int(self._buffer, CRC_OFFSET)

    def is_valid(self) -> bool:
        return self.size_in_bytes() >= RECORD_OVERHEAD_V0 and self.checksum() == self.compute_checksum()

    def ensure_valid(self) -> None:
        if self.size_in_bytes() < RECORD_OVERHEAD_V0:
            raise CorruptRecordException("Record is corrupt (crc could not be retrieved as the record is too small, "
                                         f"size = {self.size_in_bytes()})")
        if not self.is_valid():
            raise CorruptRecordException(f"Record is corrupt (stored crc = {self.checksum()}, computed crc = "
                                         f"{self.compute_checksum()})")

    def size_in_bytes(self) -> int:
        return len(self._buffer)

    def key_size(self) -> int:
        offset = KEY_SIZE_OFFSET_V0 if self.magic() == MAGIC_VALUE_V0 else KEY_SIZE_OFFSET_V1
        return _INT32.unpack_from(self._buffer, offset)[0]

    def has_key(self) -> bool:
        return self.key_size() >= 0

    def _value_size_offset(self) -> int:
        key_offset = KEY_OFFSET_V0 if self.magic() == MAGIC_VALUE_V0 else KEY_OFFSET_V1
        return key_offset + max(0, self.key_size())

    def value_size(self) -> int:
        return _INT32.unpack_from(self._buffer, self._value_size_offset())[0]

    def has_null_value(self) -> bool:
        return self.value_size() < 0

    def magic(self) -> int:
        return struct.unpack_from(">b", self._buffer, MAGIC_OFFSET)[0]

    def attributes(self) -> int:
        return self._buffer[ATTRIBUTES_OFFSET]

    def timestamp(self) -> int:
        if self.magic() == MAGIC_VALUE_V0:
            return NO_TIMESTAMP
        if (self.wrapper_record_timestamp_type is TimestampType.LOG_APPEND_TIME
                and self.wrapper_record_timestamp is not None):
            return self.wrapper_record_timestamp
        return _INT64.unpack_from(self._buffer, TIMESTAMP_OFFSET)[0]

    def timestamp_type(self) -> TimestampType:
        return timestamp_type(self.magic(), self.wrapper_record_timestamp_type, self.attributes())

    def compression_type(self) -> CompressionType:
        return CompressionType.for_id(self._buffer[ATTRIBUTES_OFFSET] & COMPRESSION_CODEC_MASK)

    def value(self) -> bytes | None:
        return _size_delimited(self._buffer, self._value_size_offset())

    def key(self) -> bytes | None:
        offset = KEY_SIZE_OFFSET_V0 if self.magic() == MAGIC_VALUE_V0 else KEY_SIZE_OFFSET_V1
        return _size_delimited(self._buffer, offset)

    def buffer(self) -> memoryview:
        return self._buffer

    def __repr__(self) -> str:
        key = self.key()
        value = self.value()
        key_len = 0 if key is None else len(key)
        value_len = 0 if value is None else len(value)
        if self.magic() > 0:
            return (f"Record(magic={self.magic()}, attributes={self.attributes()}, compression="
                    f"{self.compression_type()}, crc={self.checksum()}, {self.timestamp_type()}={self.timestamp()}, "
                    f"key={key_len} bytes, value={value_len} bytes)")
        return (f"Record(magic={self.magic()}, attributes={self.attributes()}, compression={self.compression_type()}, "
                f"crc={self.checksum()}, key={key_len} bytes, value={value_len} bytes)")

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not LegacyRecord:
            return False
        assert isinstance(other, LegacyRecord)
        return self._buffer == other._buffer

    def __hash__(self) -> int:
        return hash(bytes(self._buffer))

    @staticmethod
    def create(magic: int, timestamp: int, key: bytes | None, value: bytes | None,
               compression_type: CompressionType = CompressionType.NONE,
               timestamp_type: TimestampType = TimestampType.CREATE_TIME) -> LegacyRecord:
        out = bytearray()
        write(out, magic, timestamp, key, value, compression_type, timestamp_type)
        return LegacyRecord(out)


def write_compressed_record_header(buffer: bytearray | memoryview, position: int, magic: int, record_size: int,
                                   timestamp: int, compression_type: CompressionType,
                                   timestamp_type: TimestampType) -> None:
    """The wrapper message in front of a compressed message set already written after it: null key, the value size
    covering the compressed set, and the CRC over all of it."""
    value_size = record_size - record_overhead(magic)
    header = bytearray()
    write(header, magic, timestamp, None, None, compression_type, timestamp_type)
    # `header` ends with the value size (-1); the real size replaces it.
    buffer[position:position + len(header)] = header
    _INT32.pack_into(buffer, position + key_offset(magic), value_size)
    crc = zlib.crc32(memoryview(buffer)[position + MAGIC_OFFSET:position + record_size])
    write_unsigned_int(buffer, position + CRC_OFFSET, crc)


def write(out: bytearray, magic: int, timestamp: int, key: Buffer | None, value: Buffer | None,
          compression_type: CompressionType, timestamp_type: TimestampType) -> int:
    """Append one message to `out`; returns its CRC."""
    attributes = compute_attributes(magic, compression_type, timestamp_type)
    crc = compute_checksum(magic, attributes, timestamp, key, value)
    write_with_crc(out, magic, crc, attributes, timestamp, key, value)
    return crc


def write_with_crc(out: bytearray, magic: int, crc: int, attributes: int, timestamp: int, key: Buffer | None,
                   value: Buffer | None) -> None:
    """write(out, magic, crc, attributes, timestamp, key, value): the message with a CRC given by the caller."""
    if magic != MAGIC_VALUE_V0 and magic != MAGIC_VALUE_V1:
        raise IllegalArgumentException(f"Invalid magic value {magic}")
    if timestamp < 0 and timestamp != NO_TIMESTAMP:
        raise IllegalArgumentException(f"Invalid message timestamp {timestamp}")
    out += struct.pack(">Ibb", crc & 0xFFFFFFFF, magic, attributes if attributes < 128 else attributes - 256)
    if magic > MAGIC_VALUE_V0:
        out += _INT64.pack(timestamp)
    for field in (key, value):
        if field is None:
            out += _INT32.pack(-1)
        else:
            out += _INT32.pack(len(field))
            out += field


def record_size(magic: int, key: Buffer | int | None, value: Buffer | int | None) -> int:
    """recordSize(magic, key, value) and recordSize(magic, keySize, valueSize); a null field counts 0."""
    key_size = key if isinstance(key, int) else (0 if key is None else len(key))
    value_size = value if isinstance(value, int) else (0 if value is None else len(value))
    return record_overhead(magic) + key_size + value_size


def compute_attributes(magic: int, type: CompressionType, timestamp_type: TimestampType) -> int:
    attributes = 0
    if type.id > 0:
        attributes |= COMPRESSION_CODEC_MASK & type.id
    if magic > MAGIC_VALUE_V0:
        if timestamp_type is TimestampType.NO_TIMESTAMP_TYPE:
            raise IllegalArgumentException("Timestamp type must be provided to compute attributes for message "
                                           "format v1")
        if timestamp_type is TimestampType.LOG_APPEND_TIME:
            attributes |= TIMESTAMP_TYPE_MASK
    return attributes


def compute_checksum(magic: int, attributes: int, timestamp: int, key: Buffer | None, value: Buffer | None) -> int:
    data = bytearray(struct.pack(">bB", magic, attributes & 0xFF))
    if magic > MAGIC_VALUE_V0:
        data += _INT64.pack(timestamp)
    for field in (key, value):
        if field is None:
            data += _INT32.pack(-1)
        else:
            data += _INT32.pack(len(field))
            data += field
    return zlib.crc32(data)


def record_overhead(magic: int) -> int:
    if magic == 0:
        return RECORD_OVERHEAD_V0
    if magic == 1:
        return RECORD_OVERHEAD_V1
    raise IllegalArgumentException(f"Invalid magic used in LegacyRecord: {magic}")


def header_size(magic: int) -> int:
    if magic == 0:
        return HEADER_SIZE_V0
    if magic == 1:
        return HEADER_SIZE_V1
    raise IllegalArgumentException(f"Invalid magic used in LegacyRecord: {magic}")


def key_offset(magic: int) -> int:
    if magic == 0:
        return KEY_OFFSET_V0
    if magic == 1:
        return KEY_OFFSET_V1
    raise IllegalArgumentException(f"Invalid magic used in LegacyRecord: {magic}")


def timestamp_type(magic: int, wrapper_record_timestamp_type: TimestampType | None, attributes: int) -> TimestampType:
    if magic == 0:
        return TimestampType.NO_TIMESTAMP_TYPE
    if wrapper_record_timestamp_type is not None:
        return wrapper_record_timestamp_type
    return TimestampType.CREATE_TIME if attributes & TIMESTAMP_TYPE_MASK == 0 else TimestampType.LOG_APPEND_TIME
