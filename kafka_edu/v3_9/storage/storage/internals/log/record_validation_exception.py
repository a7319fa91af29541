"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/RecordValidationException.java (Kafka 3.9):
what LogValidator raises when records of a batch fail validation: the ApiException whose code the partition's
response carries, and the per-record errors (ProduceResponse.RecordError) it lists."""

from __future__ import annotations

from collections.abc import Sequence

from kafka_edu.v1_0_2.clients.common.errors import ApiException
from kafka_edu.v3_9.clients.common.requests.produce_response import RecordError


class RecordValidationException(RuntimeError):
    def __init__(self, invalid_exception: ApiException, record_errors: Sequence[RecordError]) -> None:
        super().__init__(str(invalid_exception))
        self.__cause__ = invalid_exception
        self._invalid_exception = invalid_exception
        self._record_errors = tuple(record_errors)

    def invalid_exception(self) -> ApiException:
        return self._invalid_exception

    def record_errors(self) -> tuple[RecordError, ...]:
        return self._record_errors
