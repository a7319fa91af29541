"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/TransactionIndex.java (Kafka 3.9): a segment's
aborted transactions (start and end offsets, and the last stable offset at the abort), which a READ_COMMITTED fetch
reads to learn what to skip. An entry belongs to the segment holding its ABORT marker; the transaction itself may
have started segments earlier."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.corrupt_index_exception import CorruptIndexException
from kafka_edu.v3_9.storage.storage.internals.log.txn_index_search_result import TxnIndexSearchResult

log = logging.getLogger("org.apache.kafka.storage.internals.log.TransactionIndex")


@dataclass(frozen=True)
class _AbortedTxnWithPosition:
    txn: AbortedTxn
    position: int


class TransactionIndex:
    """The file is created on the first append; until then the index has no channel and reads as empty.

    The channel's position, not the file's size, marks the end of the entries (as a FileChannel's does in Kafka).
    """

    def __init__(self, start_offset: int, file: str | os.PathLike[str]) -> None:
        self._start_offset = start_offset
        self._file = Path(file)
        self._maybe_channel: BinaryIO | None = None
        self._last_offset: int | None = None

        if self._file.exists():
            self._open_channel()

    def file(self) -> Path:
        return self._file

    def update_parent_dir(self, parent_dir: Path) -> None:
        self._file = Path(parent_dir) / self._file.name

    def append(self, aborted_txn: AbortedTxn) -> None:
        if self._last_offset is not None and self._last_offset >= aborted_txn.last_offset():
            raise IllegalArgumentException(
                f"The last offset of appended transactions must increase sequentially, but "
                f"{aborted_txn.last_offset()} is not greater than current last offset {self._last_offset} of index "
                f"{self._file.absolute()}")
        self._last_offset = aborted_txn.last_offset()
        _write_fully(self._channel(), aborted_txn.buffer)

    def flush(self) -> None:
        channel = self._channel_or_null()
        if channel is not None:
            os.fsync(channel.fileno())

    def reset(self) -> None:
        """Remove all the entries. Unlike an AbstractIndex, the file was never pre-allocated, so it just empties."""
        channel = self._channel_or_null()
        if channel is not None:
            _truncate(channel, 0)
        self._last_offset = None

    def close(self) -> None:
        channel = self._channel_or_null()
        if channel is not None:
            channel.close()
        self._maybe_channel = None

    def __enter__(self) -> TransactionIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def delete_if_exists(self) -> bool:
        """Delete the file; False if it did not exist."""
        self.close()
        try:
            self._file.unlink()
            return True
        except FileNotFoundError:
            return False

    def rename_to(self, f: Path) -> None:
        try:
            if self._file.exists():
                atomic_move_with_fallback(self._file, Path(f), False)
        finally:
            self._file = Path(f)

    def truncate_to(self, offset: int) -> None:
        buffer = bytearray(AbortedTxn.TOTAL_SIZE)
        new_last_offset: int | None = None
        for txn_with_position in self._iterable(lambda: buffer):
            aborted_txn = txn_with_position.txn
            position = txn_with_position.position
            if aborted_txn.last_offset() >= offset:
                _truncate(self._channel(), position)
                self._last_offset = new_last_offset
                return
            new_last_offset = aborted_txn.last_offset()

    def all_aborted_txns(self) -> list[AbortedTxn]:
        return [txn_with_position.txn for txn_with_position in self._iterable()]

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        """The aborted transactions overlapping [fetch_offset, upper_bound_offset), and whether the search is
        complete: no later segment can hold one that overlaps the range."""
        aborted_transactions: list[AbortedTxn] = []
        for txn_with_position in self._iterable():
            aborted_txn = txn_with_position.txn
            if aborted_txn.last_offset() >= fetch_offset and aborted_txn.first_offset() < upper_bound_offset:
                aborted_transactions.append(aborted_txn)

            if aborted_txn.last_stable_offset() >= upper_bound_offset:
                return TxnIndexSearchResult(aborted_transactions, True)
        return TxnIndexSearchResult(aborted_transactions, False)

    def sanity_check(self) -> None:
        """Raise CorruptIndexException if an entry ends before the segment starts."""
        buffer = bytearray(AbortedTxn.TOTAL_SIZE)
        for txn_with_position in self._iterable(lambda: buffer):
            aborted_txn = txn_with_position.txn
            if aborted_txn.last_offset() < self._start_offset:
                raise CorruptIndexException(
                    f"Last offset of aborted transaction {aborted_txn} in index {self._file.absolute()} is less than "
                    f"start offset {self._start_offset}")

    def _open_channel(self) -> BinaryIO:
        fd = os.open(self._file, os.O_CREAT | os.O_RDWR, 0o644)
        channel = os.fdopen(fd, "r+b", buffering=0)
        self._maybe_channel = channel
        channel.seek(0, os.SEEK_END)
        return channel

    def _channel(self) -> BinaryIO:
        channel = self._channel_or_null()
        if channel is None:
            return self._open_channel()
        return channel

    def _channel_or_null(self) -> BinaryIO | None:
        return self._maybe_channel

    def _iterable(self, allocate: Callable[[], bytearray] | None = None) -> Iterator[_AbortedTxnWithPosition]:
        channel = self._channel_or_null()
        if channel is None:
            return iter(())
        allocate = allocate or (lambda: bytearray(AbortedTxn.TOTAL_SIZE))
        return self._entries(channel, allocate)

    def _entries(self, channel: BinaryIO, allocate: Callable[[], bytearray]) -> Iterator[_AbortedTxnWithPosition]:
        position = 0
        while True:
            try:
                has_next = channel.tell() - position >= AbortedTxn.TOTAL_SIZE
            except OSError as e:
                raise KafkaException(f"Failed read position from the transaction index {self._file.absolute()}") \
                    from e
            if not has_next:
                return
            try:
                buffer = allocate()
                read = _read_fully(channel, buffer, position)
                aborted_txn = AbortedTxn.from_buffer(buffer[:read])
                if aborted_txn.version() > AbortedTxn.CURRENT_VERSION:
                    raise KafkaException(
                        f"Unexpected aborted transaction version {aborted_txn.version()} in transaction index "
                        f"{self._file.absolute()}, current version is {AbortedTxn.CURRENT_VERSION}")
                next_entry = _AbortedTxnWithPosition(aborted_txn, position)
                position += AbortedTxn.TOTAL_SIZE
            except OSError as e:
                # a read error goes to the fetcher as UNKNOWN_SERVER_ERROR, and the consumer retries
                raise KafkaException(f"Failed to read from the transaction index {self._file.absolute()}") from e
            yield next_entry


def _write_fully(channel: BinaryIO, buffer: bytes) -> None:
    """Utils.writeFully: write until the whole buffer is in the file."""
    view = memoryview(buffer)
    while view:
        written = channel.write(view)
        view = view[written:]


def _read_fully(channel: BinaryIO, buffer: bytearray, position: int) -> int:
    """Utils.readFully(channel, buffer, position): fill `buffer` from `position` on, leaving the channel's own
    position where it is; stops early only at the end of the file. Returns the bytes read."""
    read = 0
    while read < len(buffer):
        chunk = os.pread(channel.fileno(), len(buffer) - read, position + read)
        if not chunk:
            break
        buffer[read:read + len(chunk)] = chunk
        read += len(chunk)
    return read


def _truncate(channel: BinaryIO, size: int) -> None:
    """FileChannel.truncate: shrink the file, and pull the channel's position back if it was past the new end."""
    channel.truncate(size)
    if channel.tell() > size:
        channel.seek(size)
