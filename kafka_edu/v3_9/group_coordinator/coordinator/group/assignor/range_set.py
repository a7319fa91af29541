"""Port of group-coordinator/src/main/java/.../group/assignor/RangeSet.java (Kafka 3.9).

A read-only set of the integers from..to-1 that stores only its two bounds: the range assignor gives each member a
run of partitions, and a group of many members on many-partition topics would otherwise hold every number. It is a
collections.abc.Set (so it compares equal to a set of the same numbers) with Java's Set methods beside; Java's
UnsupportedOperationException for the mutators is Python's NotImplementedError.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Set
from typing import Any


class RangeSet(Set[int]):
    def __init__(self, from_: int, to: int) -> None:
        self._from = from_  # inclusive
        self._to = to  # exclusive

    def size(self) -> int:
        return self._to - self._from

    def is_empty(self) -> bool:
        return self.size() == 0

    def contains(self, o: object) -> bool:
        if isinstance(o, int) and not isinstance(o, bool):
            return self._from <= o < self._to
        return False

    def iterator(self) -> Iterator[int]:
        return iter(range(self._from, self._to))

    def to_array(self, a: list[Any] | None = None) -> list[Any]:
        """toArray() and toArray(T[] a): a given list long enough is filled in place, the slot after the last
        element set to None; a shorter one is replaced by a new list."""
        size = self.size()
        if a is None or len(a) < size:
            return list(range(self._from, self._to))
        a[:size] = range(self._from, self._to)
        if len(a) > size:
            a[size] = None
        return a

    def add(self, integer: int) -> bool:
        raise NotImplementedError

    def remove(self, o: object) -> bool:
        raise NotImplementedError

    def contains_all(self, c: Iterable[object]) -> bool:
        return all(self.contains(o) for o in c)

    def add_all(self, c: Iterable[int] | None) -> bool:
        raise NotImplementedError

    def retain_all(self, c: Iterable[object] | None) -> bool:
        raise NotImplementedError

    def remove_all(self, c: Iterable[object] | None) -> bool:
        raise NotImplementedError

    def clear(self) -> None:
        raise NotImplementedError

    # the Python set protocol, over the same bounds
    def __len__(self) -> int:
        return self.size()

    def __contains__(self, o: object) -> bool:
        return self.contains(o)

    def __iter__(self) -> Iterator[int]:
        return self.iterator()

    def __str__(self) -> str:
        return f"RangeSet(from={self._from} (inclusive), to={self._to} (exclusive))"

    __repr__ = __str__

    def __eq__(self, o: object) -> bool:
        if self is o:
            return True
        if not isinstance(o, Set | set | frozenset):
            return False
        if isinstance(o, RangeSet):
            return self._from == o._from and self._to == o._to
        if len(o) != self.size():
            return False
        return all(i in o for i in range(self._from, self._to))

    def __ne__(self, o: object) -> bool:
        return not self.__eq__(o)

    def __hash__(self) -> int:
        result = self._from
        result = 31 * result + self._to
        return result
