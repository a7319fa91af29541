"""Port of clients/src/main/java/org/apache/kafka/common/record/RecordBatchIterator.java (Kafka 3.9): iterates the
batches a LogInputStream yields, with AbstractIterator's peek()."""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException, KafkaException
from kafka_edu.v3_9.clients.common.record.records import LogInputStream

T = TypeVar("T")

_UNSET = object()


class RecordBatchIterator(Generic[T]):
    def __init__(self, log_input_stream: LogInputStream) -> None:
        self.log_input_stream = log_input_stream
        self._next: object = _UNSET
        self._done = False

    def _make_next(self) -> T | None:
        try:
            return self.log_input_stream.next_batch()  # type: ignore[return-value]
        except EOFError as e:
            raise CorruptRecordException("Unexpected EOF while attempting to read the next batch") from e
        except OSError as e:
            raise KafkaException(str(e)) from e

    def has_next(self) -> bool:
        if self._done:
            return False
        if self._next is _UNSET:
            batch = self._make_next()
            if batch is None:
                self._done = True
                return False
            self._next = batch
        return True

    def peek(self) -> T:
        if not self.has_next():
            raise StopIteration
        return self._next  # type: ignore[return-value]

    def __iter__(self) -> RecordBatchIterator[T]:
        return self

    def __next__(self) -> T:
        if not self.has_next():
            raise StopIteration
        batch = self._next
        self._next = _UNSET
        return batch  # type: ignore[return-value]
