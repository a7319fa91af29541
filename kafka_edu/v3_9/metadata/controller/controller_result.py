"""Port of metadata/src/main/java/org/apache/kafka/controller/ControllerResult.java (Kafka 3.9), and ResultAndOffset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class ControllerResult(Generic[T]):
    """What a write operation produced: the records to append (ApiMessageAndVersion) and the reply to give once
    they are committed. An atomic result goes to the log as one batch, all or nothing."""

    records: list[Any] = field(default_factory=list)
    response: T | None = None
    is_atomic: bool = False

    @staticmethod
    def of(records: list[Any], response: T | None) -> ControllerResult[T]:
        return ControllerResult(list(records), response, False)

    @staticmethod
    def atomic_of(records: list[Any], response: T | None) -> ControllerResult[T]:
        return ControllerResult(list(records), response, True)

    def without_records(self) -> ControllerResult[T]:
        return ControllerResult([], self.response, False)


@dataclass(frozen=True)
class ControllerResultAndOffset(Generic[T]):
    """A result and the log offset its caller waits for (-1: nothing to wait for)."""

    offset: int
    result: ControllerResult[T]

    @staticmethod
    def of(offset: int, result: ControllerResult[T]) -> ControllerResultAndOffset[T]:
        return ControllerResultAndOffset(offset, result)

    def response(self) -> T | None:
        return self.result.response
