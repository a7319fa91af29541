"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LazyIndex.java (Kafka 3.9): an offset or time
index that is only opened (memory-mapped) on its first `get`; renaming, moving, deleting and closing work on the bare
file until then. A broker with many segments starts and stops faster for it."""

from __future__ import annotations

import enum
import os
import threading
from pathlib import Path
from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.storage.storage.internals.log.abstract_index import AbstractIndex
from kafka_edu.v3_9.storage.storage.internals.log.offset_index import OffsetIndex
from kafka_edu.v3_9.storage.storage.internals.log.time_index import TimeIndex

T = TypeVar("T", bound=AbstractIndex)


class _IndexType(enum.Enum):
    OFFSET = "OFFSET"
    TIME = "TIME"


class _IndexFile:
    """The index before it is loaded: only its file."""

    def __init__(self, file: Path) -> None:
        self._file = file

    def file(self) -> Path:
        return self._file

    def update_parent_dir(self, parent_dir: Path) -> None:
        self._file = Path(parent_dir) / self._file.name

    def rename_to(self, f: Path) -> None:
        try:
            atomic_move_with_fallback(self._file, Path(f), False)
        except FileNotFoundError:
            # an index file that was never written is not an error; one that vanished mid-move is
            if self._file.exists():
                raise
        finally:
            self._file = Path(f)

    def delete_if_exists(self) -> bool:
        try:
            self._file.unlink()
            return True
        except FileNotFoundError:
            return False

    def close(self) -> None:
        pass

    def close_handler(self) -> None:
        pass


class _IndexValue(Generic[T]):
    """The loaded index: everything goes to it."""

    def __init__(self, index: T) -> None:
        self.index = index

    def file(self) -> Path:
        return self.index.file()

    def update_parent_dir(self, parent_dir: Path) -> None:
        self.index.update_parent_dir(parent_dir)

    def rename_to(self, f: Path) -> None:
        self.index.rename_to(f)

    def delete_if_exists(self) -> bool:
        return self.index.delete_if_exists()

    def close(self) -> None:
        self.index.close()

    def close_handler(self) -> None:
        self.index.close_handler()


class LazyIndex(Generic[T]):
    """Thread safe; the index it loads is as thread safe as AbstractIndex makes it."""

    def __init__(self, index_wrapper: _IndexFile | _IndexValue[T], base_offset: int, max_index_size: int,
                 index_type: _IndexType) -> None:
        self._lock = threading.RLock()
        self._index_wrapper = index_wrapper
        self._base_offset = base_offset
        self._max_index_size = max_index_size
        self._index_type = index_type

    @staticmethod
    def for_offset(file: str | os.PathLike[str], base_offset: int, max_index_size: int) -> LazyIndex[OffsetIndex]:
        return LazyIndex(_IndexFile(Path(file)), base_offset, max_index_size, _IndexType.OFFSET)

    @staticmethod
    def for_time(file: str | os.PathLike[str], base_offset: int, max_index_size: int) -> LazyIndex[TimeIndex]:
        return LazyIndex(_IndexFile(Path(file)), base_offset, max_index_size, _IndexType.TIME)

    def file(self) -> Path:
        return self._index_wrapper.file()

    def get(self) -> T:
        wrapper = self._index_wrapper
        if isinstance(wrapper, _IndexValue):
            return wrapper.index
        with self._lock:
            if isinstance(self._index_wrapper, _IndexValue):
                return self._index_wrapper.index
            if isinstance(self._index_wrapper, _IndexFile):
                index_value = _IndexValue(self._load_index(self._index_wrapper.file()))
                self._index_wrapper = index_value
                return index_value.index
            raise IllegalStateException(f"Unexpected type for indexWrapper {type(self._index_wrapper)}")

    def update_parent_dir(self, parent_dir: Path) -> None:
        with self._lock:
            self._index_wrapper.update_parent_dir(parent_dir)

    def rename_to(self, f: Path) -> None:
        with self._lock:
            self._index_wrapper.rename_to(f)

    def delete_if_exists(self) -> bool:
        with self._lock:
            return self._index_wrapper.delete_if_exists()

    def close(self) -> None:
        with self._lock:
            self._index_wrapper.close()

    def close_handler(self) -> None:
        with self._lock:
            self._index_wrapper.close_handler()

    def _load_index(self, file: Path) -> T:
        if self._index_type is _IndexType.OFFSET:
            return OffsetIndex(file, self._base_offset, self._max_index_size, True)
        if self._index_type is _IndexType.TIME:
            return TimeIndex(file, self._base_offset, self._max_index_size, True)
        raise IllegalStateException(f"Unexpected indexType {self._index_type}")
