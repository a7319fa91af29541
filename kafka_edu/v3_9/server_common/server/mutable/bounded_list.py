"""Port of server-common/src/main/java/org/apache/kafka/server/mutable/BoundedList.java and
BoundedListTooLongException.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, SupportsIndex, TypeVar

E = TypeVar("E")


class BoundedListTooLongException(RuntimeError):
    """An operation would have made a BoundedList longer than its maximum length (a RuntimeException in Kafka,
    no ApiException: the QuorumController turns it into a PolicyViolationException for the whole operation)."""


class BoundedList(list[E]):
    """A list that cannot grow beyond `max_length`: an operation that would pass it raises
    BoundedListTooLongException instead of completing (the controller's bound on one operation's records)."""

    def __init__(self, max_length: int, underlying: Iterable[E] = ()) -> None:
        if max_length <= 0:
            raise ValueError(f"Invalid non-positive maxLength of {max_length}")
        super().__init__(underlying)
        if len(self) > max_length:
            raise BoundedListTooLongException(f"Cannot wrap list, because it is longer than the maximum length "
                                              f"{max_length}")
        self.max_length = max_length

    @staticmethod
    def new_array_backed(max_length: int, initial_capacity: int | None = None) -> BoundedList[Any]:
        if initial_capacity is not None and initial_capacity <= 0:
            raise ValueError(f"Invalid non-positive initialCapacity of {initial_capacity}")
        return BoundedList(max_length)

    def append(self, element: E) -> None:
        if len(self) >= self.max_length:
            raise BoundedListTooLongException("Cannot add another element to the list because it would exceed the "
                                              f"maximum length of {self.max_length}")
        super().append(element)

    def insert(self, index: SupportsIndex, element: E) -> None:
        if len(self) >= self.max_length:
            raise BoundedListTooLongException("Cannot add another element to the list because it would exceed the "
                                              f"maximum length of {self.max_length}")
        super().insert(index, element)

    def extend(self, elements: Iterable[E]) -> None:
        elements = list(elements)
        if len(self) > self.max_length - len(elements):
            raise BoundedListTooLongException(f"Cannot add another {len(elements)} element(s) to the list because it "
                                              f"would exceed the maximum length of {self.max_length}")
        super().extend(elements)

    def __iadd__(self, elements: Iterable[E]) -> BoundedList[E]:  # type: ignore[override,misc]
        self.extend(elements)
        return self

    def __setitem__(self, index: Any, value: Any) -> None:
        # a slice assignment is how a Python list takes addAll(index, elements): bounded the same way
        if isinstance(index, slice):
            value = list(value)
            grows = len(value) - len(range(*index.indices(len(self))))
            if grows > 0 and len(self) > self.max_length - grows:
                raise BoundedListTooLongException(f"Cannot add another {len(value)} element(s) to the list because "
                                                  f"it would exceed the maximum length of {self.max_length}")
        super().__setitem__(index, value)
