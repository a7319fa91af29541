"""Port of clients/src/main/java/org/apache/kafka/common/header/internals/RecordHeader.java (Kafka 3.9): one record
header, a UTF-8 key and an optional byte value."""

from __future__ import annotations


class RecordHeader:
    """A header as it sits in a record: the key is decoded from UTF-8 only when asked for."""

    __slots__ = ("_key_buffer", "_key", "_value")

    def __init__(self, key: str | bytes | memoryview, value: bytes | memoryview | None) -> None:
        if key is None:
            raise TypeError("Null header keys are not permitted")
        # A str key is Kafka's (String, byte[]) constructor; bytes are its (ByteBuffer, ByteBuffer) one.
        self._key: str | None = key if isinstance(key, str) else None
        self._key_buffer: bytes | None = None if isinstance(key, str) else bytes(key)
        self._value = None if value is None else bytes(value)

    def key(self) -> str:
        if self._key is None:
            assert self._key_buffer is not None
            self._key = self._key_buffer.decode("utf-8", errors="replace")
            self._key_buffer = None
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, RecordHeader):
            return NotImplemented
        return self.key() == other.key() and self.value() == other.value()

    def __hash__(self) -> int:
        return hash((self.key(), self.value()))

    def __repr__(self) -> str:
        value = None if self._value is None else list(self._value)
        return f"RecordHeader(key = {self.key()}, value = {value})"
