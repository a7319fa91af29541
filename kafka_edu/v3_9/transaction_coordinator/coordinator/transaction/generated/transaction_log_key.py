"""Port of transaction-coordinator/src/main/resources/common/message/TransactionLogKey.json (Kafka 3.9): the key of
a `__transaction_state` record, written by hand in the shape of Kafka's generated message class."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.generated._wire import (
    Readable,
    Writable,
    read_string,
)


@dataclass
class TransactionLogKey:
    """Version 0 only, not flexible: [transactional_id: int16-length string]."""

    LOWEST_SUPPORTED_VERSION = 0
    HIGHEST_SUPPORTED_VERSION = 0

    transactional_id: str = ""

    def set_transactional_id(self, value: str) -> TransactionLogKey:
        self.transactional_id = value
        return self

    @classmethod
    def read(cls, readable: Readable, version: int) -> TransactionLogKey:
        if not cls.LOWEST_SUPPORTED_VERSION <= version <= cls.HIGHEST_SUPPORTED_VERSION:
            raise UnsupportedVersionException(f"Can't read version {version} of TransactionLogKey")
        return cls(read_string(readable, False, "transactionalId"))

    def write(self, writable: Writable, version: int) -> None:
        # like the generated code, any version is written: only version-gated fields differ
        writable.write_string(self.transactional_id, False)
