"""Port of transaction-coordinator/src/main/resources/common/message/TransactionLogValue.json (Kafka 3.9): the value
of a `__transaction_state` record, written by hand in the shape of Kafka's generated message class.

Version 0 is 1.0.2's layout (int16-length strings, int32-length arrays); version 1 is the same fields, flexible:
compact strings and arrays (uvarint length + 1) and a tagged-field section after each struct.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated._wire import (
    RawTaggedField,
    Readable,
    Writable,
    read_string,
)

_FLEXIBLE_FROM = 1


def _read_length(readable: Readable, flexible: bool) -> int:
    return readable.read_unsigned_varint() - 1 if flexible else readable.read_int()


def _write_length(writable: Writable, length: int, flexible: bool) -> None:
    if flexible:
        writable.write_unsigned_varint(length + 1)
    else:
        writable.write_int(length)


@dataclass
class PartitionsSchema:
    """One topic of the transaction and its partition ids."""

    topic: str = ""
    partition_ids: list[int] = field(default_factory=list)
    _unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list, compare=False, repr=False)

    def set_topic(self, value: str) -> PartitionsSchema:
        self.topic = value
        return self

    def set_partition_ids(self, value: list[int]) -> PartitionsSchema:
        self.partition_ids = list(value)
        return self

    def unknown_tagged_fields(self) -> list[RawTaggedField]:
        return self._unknown_tagged_fields

    @classmethod
    def read(cls, readable: Readable, version: int) -> PartitionsSchema:
        flexible = version >= _FLEXIBLE_FROM
        topic = read_string(readable, flexible, "topic")
        length = _read_length(readable, flexible)
        if length < 0:
            raise ValueError("non-nullable field partitionIds was serialized as null")
        partition_ids = [readable.read_int() for _ in range(length)]
        unknown = readable.read_unknown_tagged_fields() if flexible else []
        return cls(topic, partition_ids, unknown)

    def write(self, writable: Writable, version: int) -> None:
        # like the generated code, any version is written: only version-gated fields differ
        flexible = version >= _FLEXIBLE_FROM
        writable.write_string(self.topic, flexible)
        _write_length(writable, len(self.partition_ids), flexible)
        for partition_id in self.partition_ids:
            writable.write_int(partition_id)
        if flexible:
            writable.write_tagged_fields(self._unknown_tagged_fields)


@dataclass
class TransactionLogValue:
    """Versions 0-1; `transaction_partitions` is None (a null array) for an Empty transaction."""

    LOWEST_SUPPORTED_VERSION = 0
    HIGHEST_SUPPORTED_VERSION = 1
    PartitionsSchema = PartitionsSchema

    producer_id: int = 0
    producer_epoch: int = 0
    transaction_timeout_ms: int = 0
    transaction_status: int = 0
    transaction_partitions: list[PartitionsSchema] | None = field(default_factory=list)
    transaction_last_update_timestamp_ms: int = 0
    transaction_start_timestamp_ms: int = 0
    _unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list, compare=False, repr=False)

    def set_producer_id(self, value: int) -> TransactionLogValue:
        self.producer_id = value
        return self

    def set_producer_epoch(self, value: int) -> TransactionLogValue:
        self.producer_epoch = value
        return self

    def set_transaction_timeout_ms(self, value: int) -> TransactionLogValue:
        self.transaction_timeout_ms = value
        return self

    def set_transaction_status(self, value: int) -> TransactionLogValue:
        self.transaction_status = value
        return self

    def set_transaction_partitions(self, value: list[PartitionsSchema] | None) -> TransactionLogValue:
        self.transaction_partitions = None if value is None else list(value)
        return self

    def set_transaction_last_update_timestamp_ms(self, value: int) -> TransactionLogValue:
        self.transaction_last_update_timestamp_ms = value
        return self

    def set_transaction_start_timestamp_ms(self, value: int) -> TransactionLogValue:
        self.transaction_start_timestamp_ms = value
        return self

    def unknown_tagged_fields(self) -> list[RawTaggedField]:
        return self._unknown_tagged_fields

    @classmethod
    def read(cls, readable: Readable, version: int) -> TransactionLogValue:
        if not cls.LOWEST_SUPPORTED_VERSION <= version <= cls.HIGHEST_SUPPORTED_VERSION:
            raise UnsupportedVersionException(f"Can't read version {version} of TransactionLogValue")
        flexible = version >= _FLEXIBLE_FROM
        value = cls()
        value.producer_id = readable.read_long()
        value.producer_epoch = readable.read_short()
        value.transaction_timeout_ms = readable.read_int()
        value.transaction_status = readable.read_byte()
        length = _read_length(readable, flexible)
        value.transaction_partitions = (None if length < 0
                                        else [PartitionsSchema.read(readable, version) for _ in range(length)])
        value.transaction_last_update_timestamp_ms = readable.read_long()
        value.transaction_start_timestamp_ms = readable.read_long()
        if flexible:
            value._unknown_tagged_fields = readable.read_unknown_tagged_fields()
        return value

    def write(self, writable: Writable, version: int) -> None:
        flexible = version >= _FLEXIBLE_FROM
        writable.write_long(self.producer_id)
        writable.write_short(self.producer_epoch)
        writable.write_int(self.transaction_timeout_ms)
        writable.write_byte(self.transaction_status)
        if self.transaction_partitions is None:
            _write_length(writable, -1, flexible)
        else:
            _write_length(writable, len(self.transaction_partitions), flexible)
            for partitions in self.transaction_partitions:
                partitions.write(writable, version)
        writable.write_long(self.transaction_last_update_timestamp_ms)
        writable.write_long(self.transaction_start_timestamp_ms)
        if flexible:
            writable.write_tagged_fields(self._unknown_tagged_fields)
