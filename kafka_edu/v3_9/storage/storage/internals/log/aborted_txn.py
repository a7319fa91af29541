"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/AbortedTxn.java (Kafka 3.9): one entry of a
transaction index, 34 bytes on disk: version, producer id, first and last offset, and the last stable offset when the
abort was written."""

from __future__ import annotations

import struct

from kio.schema.fetch.v17.response import AbortedTransaction
from kio.schema.types import ProducerId
from kio.static.primitive import i64

from kafka_edu.v3_9.storage.storage.internals.log.completed_txn import CompletedTxn

VERSION_OFFSET = 0
VERSION_SIZE = 2
PRODUCER_ID_OFFSET = VERSION_OFFSET + VERSION_SIZE
PRODUCER_ID_SIZE = 8
FIRST_OFFSET_OFFSET = PRODUCER_ID_OFFSET + PRODUCER_ID_SIZE
FIRST_OFFSET_SIZE = 8
LAST_OFFSET_OFFSET = FIRST_OFFSET_OFFSET + FIRST_OFFSET_SIZE
LAST_OFFSET_SIZE = 8
LAST_STABLE_OFFSET_OFFSET = LAST_OFFSET_OFFSET + LAST_OFFSET_SIZE
LAST_STABLE_OFFSET_SIZE = 8
TOTAL_SIZE = LAST_STABLE_OFFSET_OFFSET + LAST_STABLE_OFFSET_SIZE

CURRENT_VERSION = 0


class AbortedTxn:
    """The entry is its serialized form: `buffer` is what TransactionIndex writes and reads back."""

    TOTAL_SIZE = TOTAL_SIZE
    CURRENT_VERSION = CURRENT_VERSION

    def __init__(self, producer_id: int, first_offset: int, last_offset: int, last_stable_offset: int) -> None:
        self.buffer = self._to_byte_buffer(producer_id, first_offset, last_offset, last_stable_offset)

    @classmethod
    def from_buffer(cls, buffer: bytes) -> AbortedTxn:
        """AbortedTxn(ByteBuffer): an entry read from an index file."""
        if buffer is None:
            raise TypeError("buffer")
        txn = cls.__new__(cls)
        txn.buffer = bytes(buffer)
        return txn

    @classmethod
    def from_completed_txn(cls, completed_txn: CompletedTxn, last_stable_offset: int) -> AbortedTxn:
        return cls(completed_txn.producer_id, completed_txn.first_offset, completed_txn.last_offset,
                   last_stable_offset)

    @staticmethod
    def _to_byte_buffer(producer_id: int, first_offset: int, last_offset: int, last_stable_offset: int) -> bytes:
        return struct.pack(">hqqqq", CURRENT_VERSION, producer_id, first_offset, last_offset, last_stable_offset)

    def version(self) -> int:
        # Kafka reads a single byte here, the high byte of the 2-byte version field
        return struct.unpack_from(">b", self.buffer, VERSION_OFFSET)[0]

    def producer_id(self) -> int:
        return struct.unpack_from(">q", self.buffer, PRODUCER_ID_OFFSET)[0]

    def first_offset(self) -> int:
        return struct.unpack_from(">q", self.buffer, FIRST_OFFSET_OFFSET)[0]

    def last_offset(self) -> int:
        return struct.unpack_from(">q", self.buffer, LAST_OFFSET_OFFSET)[0]

    def last_stable_offset(self) -> int:
        return struct.unpack_from(">q", self.buffer, LAST_STABLE_OFFSET_OFFSET)[0]

    def as_aborted_transaction(self) -> AbortedTransaction:
        return AbortedTransaction(producer_id=ProducerId(self.producer_id()), first_offset=i64(self.first_offset()))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return self.buffer == other.buffer

    def __hash__(self) -> int:
        return hash(self.buffer)

    def __repr__(self) -> str:
        return (f"AbortedTxn(version={self.version()}, producerId={self.producer_id()}, "
                f"firstOffset={self.first_offset()}, lastOffset={self.last_offset()}, "
                f"lastStableOffset={self.last_stable_offset()})")
