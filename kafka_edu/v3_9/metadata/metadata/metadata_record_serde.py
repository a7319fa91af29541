"""Port of metadata/.../MetadataRecordSerde.java and server-common/.../AbstractApiMessageSerde.java (Kafka 3.9)."""

from __future__ import annotations

import dataclasses
import io
from abc import ABC, abstractmethod
from typing import Any

from kio.serial import entity_reader, entity_writer
from kio.serial.readers import read_unsigned_varint
from kio.serial.writers import write_unsigned_varint
from kio.static.primitive import uvarint

from kafka_edu.v1_0_2.clients.common.errors import KafkaException, UnsupportedVersionException
from kafka_edu.v3_9.metadata.common.metadata.metadata_record_type import MetadataRecordType
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion

_SHORT_MAX = 0x7FFF


class MetadataParseException(KafkaException):
    """A record value that cannot be decoded: bad frame, unknown type, unsupported version, or a broken body.

    When the record type is unknown, `__cause__` is the UnsupportedVersionException("Unknown metadata id N").
    """


class AbstractApiMessageSerde(ABC):
    """The value frame of a metadata record: uvarint frame version (1), uvarint api key, uvarint version, body.

    The record's key is null; the body is the message in its flexible encoding at that version. This serde is the
    RecordSerde the raft client is given: `write`/`read` take Kafka's (cache, out) and (input, size) arguments, and
    `write(data)` / `read(data)` alone work on bytes.
    """

    DEFAULT_FRAME_VERSION = 1

    @staticmethod
    def _unsigned_int_to_short(data: bytes | memoryview, position: int, entity: str) -> tuple[int, int]:
        try:
            value, size = read_unsigned_varint(data, position)
        except Exception as e:
            raise MetadataParseException(f"Error while reading {entity}") from e
        if value > _SHORT_MAX:
            raise MetadataParseException(f"Value for {entity} was too large.")
        return value, position + size

    def record_size(self, data: ApiMessageAndVersion, serialization_cache: Any = None) -> int:
        return len(self._encode(data, serialization_cache))

    def write(self, data: ApiMessageAndVersion, serialization_cache: Any = None, out: Any = None) -> bytes:
        """The framed value; also written to `out` (anything with write(bytes)) when given."""
        value = self._encode(data, serialization_cache)
        if out is not None:
            out.write(value)
        return value

    def read(self, input: bytes | bytearray | memoryview, size: int | None = None) -> ApiMessageAndVersion:
        """Decode one framed value: `size` bytes of `input` (all of it by default)."""
        data = memoryview(input)[: len(input) if size is None else size]
        frame_version, position = self._unsigned_int_to_short(data, 0, "frame version")
        if frame_version == 0:
            raise MetadataParseException("Could not deserialize metadata record with frame version 0. Note that "
                                         "upgrades from the preview release of KRaft in 2.8 to newer versions are "
                                         "not supported.")
        if frame_version != self.DEFAULT_FRAME_VERSION:
            raise MetadataParseException(f"Could not deserialize metadata record due to unknown frame version "
                                         f"{frame_version}(only frame version {self.DEFAULT_FRAME_VERSION} is "
                                         "supported)")
        api_key, position = self._unsigned_int_to_short(data, position, "type")
        version, position = self._unsigned_int_to_short(data, position, "version")
        try:
            record_class = self.api_message_for(api_key)
        except Exception as e:
            raise MetadataParseException(str(e)) from e
        try:
            record, body_size = _read_message(record_class, self.supported_versions(record_class), data, position,
                                              version)
        except Exception as e:
            raise MetadataParseException(f"Failed to deserialize record with type {api_key}") from e
        remaining = len(data) - position - body_size
        if remaining > 0:
            raise MetadataParseException(f"Found {remaining} byte(s) of garbage after {api_key}")
        return ApiMessageAndVersion(record, version)

    @abstractmethod
    def api_message_for(self, api_key: int) -> type[Any]:
        """The record class for `api_key`; raise if there is none."""

    @abstractmethod
    def supported_versions(self, record_class: type[Any]) -> tuple[int, int]:
        """The lowest and highest version of `record_class` (Kafka's generated classes know their own)."""

    def _encode(self, data: ApiMessageAndVersion, serialization_cache: Any) -> bytes:
        # Kafka sizes first and writes second with one cache; here the cache (a dict, if given) keeps the bytes.
        if isinstance(serialization_cache, dict):
            cached = serialization_cache.get(id(data))
            if cached is not None and cached[0] is data:
                return cached[1]
        out = io.BytesIO()
        write_unsigned_varint(out, uvarint(self.DEFAULT_FRAME_VERSION))
        write_unsigned_varint(out, uvarint(_api_key(type(data.message))))
        write_unsigned_varint(out, uvarint(data.version))
        _write_message(data.message, self.supported_versions(type(data.message)), data.version, out)
        value = out.getvalue()
        if isinstance(serialization_cache, dict):
            serialization_cache[id(data)] = (data, value)
        return value


class MetadataRecordSerde(AbstractApiMessageSerde):
    """The serde of the __cluster_metadata log and of metadata snapshots."""

    INSTANCE: MetadataRecordSerde

    def api_message_for(self, api_key: int) -> type[Any]:
        return MetadataRecordType.from_id(api_key).new_metadata_record()

    def supported_versions(self, record_class: type[Any]) -> tuple[int, int]:
        record_type = MetadataRecordType.for_message_class(record_class)
        return record_type.lowest_supported_version, record_type.highest_supported_version


MetadataRecordSerde.INSTANCE = MetadataRecordSerde()


# --- What Kafka's generated message classes do for a given version: range check, then the body. ---

def _api_key(record_class: type[Any]) -> int:
    api_key = getattr(record_class, "__api_key__", None)
    if api_key is None:
        raise UnsupportedVersionException(f"{record_class.__name__} is not an api message")
    return int(api_key)


def _since(field: dataclasses.Field[Any]) -> int:
    versions = field.metadata.get("versions", "0+")
    return int(versions.rstrip("+"))


def _write_message(message: Any, supported: tuple[int, int], version: int, out: io.BytesIO) -> None:
    record_class = type(message)
    lowest, highest = supported
    if not lowest <= version <= highest:
        raise UnsupportedVersionException(f"Can't write version {version} of {record_class.__name__}")
    # A field newer than the version may only hold its default; the tagged writer then leaves it out.
    for field in dataclasses.fields(record_class):
        if version < _since(field) and getattr(message, field.name) != field.default:
            raise UnsupportedVersionException(f"Attempted to write a non-default {field.name} at version {version}")
    entity_writer(record_class)(out, message)


def _read_message(record_class: type[Any], supported: tuple[int, int], data: memoryview, position: int,
                  version: int) -> tuple[Any, int]:
    lowest, highest = supported
    if not lowest <= version <= highest:
        raise UnsupportedVersionException(f"Can't read version {version} of {record_class.__name__}")
    record, size = entity_reader(record_class)(data, position)
    for field in dataclasses.fields(record_class):
        if version < _since(field) and getattr(record, field.name) != field.default:
            raise UnsupportedVersionException(f"Found {field.name} in version {version} of {record_class.__name__}")
    return record, size
