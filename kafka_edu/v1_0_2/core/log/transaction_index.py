"""Port of core/src/main/scala/kafka/log/TransactionIndex.scala (Kafka 1.0.2): TransactionIndex, AbortedTxn and
TxnIndexSearchResult."""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import AbortedTransaction

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.log.producer_state_manager import CompletedTxn

logger = logging.getLogger(__name__)

# version int16, producer id int64, first offset int64, last offset int64, last stable offset int64.
_ENTRY = struct.Struct(">hqqqq")


@dataclass(frozen=True)
class AbortedTxn:
    """One entry of a segment's `.txnindex`: an aborted transaction whose ABORT marker is in that segment, and the
    last stable offset when the marker was written (where a search for aborted transactions below it may stop)."""

    CurrentVersion = 0
    TotalSize = _ENTRY.size

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int
    version: int = 0

    @staticmethod
    def of(completed_txn: CompletedTxn, last_stable_offset: int) -> AbortedTxn:
        return AbortedTxn(completed_txn.producer_id, completed_txn.first_offset, completed_txn.last_offset,
                          last_stable_offset)

    def to_bytes(self) -> bytes:
        return _ENTRY.pack(AbortedTxn.CurrentVersion, self.producer_id, self.first_offset, self.last_offset,
                           self.last_stable_offset)

    @staticmethod
    def from_bytes(buffer: bytes) -> AbortedTxn:
        version, producer_id, first_offset, last_offset, last_stable_offset = _ENTRY.unpack(buffer)
        return AbortedTxn(producer_id, first_offset, last_offset, last_stable_offset, version)

    def as_aborted_transaction(self) -> AbortedTransaction:
        return AbortedTransaction(self.producer_id, self.first_offset)

    def __str__(self) -> str:
        return (f"AbortedTxn(version={self.version}, producerId={self.producer_id}, firstOffset={self.first_offset}, "
                f"lastOffset={self.last_offset}, lastStableOffset={self.last_stable_offset})")


class TxnIndexSearchResult(NamedTuple):
    """What one segment's index holds for a fetch range; `is_complete` when later segments need not be searched."""

    aborted_transactions: list[AbortedTxn]
    is_complete: bool


class TransactionIndex:
    """The aborted transactions whose markers are in one segment, in marker order, 34 bytes each.

    Only aborts are recorded: a read_committed fetch needs to know which producers' records to drop, and committed
    data needs nothing. A transaction may begin in an earlier segment, so rebuilding this index (segment recovery)
    needs the producer state as of the segment's base offset. The file is created only when the first entry is
    written: most segments never hold an abort. Not thread-safe: Log appends under its lock.
    """

    def __init__(self, start_offset: int, file: str | os.PathLike[str]) -> None:
        self.start_offset = start_offset
        self.file = Path(file)
        self._maybe_channel: IO[bytes] | None = None
        self._last_offset: int | None = None
        if self.file.exists():
            self._open_channel()

    def append(self, aborted_txn: AbortedTxn) -> None:
        if self._last_offset is not None and self._last_offset >= aborted_txn.last_offset:
            raise IllegalArgumentException("The last offset of appended transactions must increase sequentially")
        self._last_offset = aborted_txn.last_offset
        channel = self._channel()
        channel.seek(0, os.SEEK_END)
        channel.write(aborted_txn.to_bytes())

    def flush(self) -> None:
        if self._maybe_channel is not None:
            os.fsync(self._maybe_channel.fileno())

    def delete(self) -> bool:
        """Delete the file; True also when it was never created (no channel), as Kafka's `forall` answers."""
        if self._maybe_channel is None:
            return True
        self.flush()
        self.close()
        try:
            self.file.unlink()
            return True
        except FileNotFoundError:
            return False

    def _channel(self) -> IO[bytes]:
        return self._maybe_channel if self._maybe_channel is not None else self._open_channel()

    def _open_channel(self) -> IO[bytes]:
        # Unbuffered, so an entry is in the file (for reads by position) as soon as it is appended.
        fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
        channel = open(fd, "r+b", buffering=0)  # noqa: SIM115 (held open for the segment's life)
        channel.seek(0, os.SEEK_END)
        self._maybe_channel = channel
        return channel

    def truncate(self) -> None:
        """Remove every entry (recovery rebuilds them)."""
        if self._maybe_channel is not None:
            self._maybe_channel.truncate(0)
        self._last_offset = None

    def close(self) -> None:
        if self._maybe_channel is not None:
            self._maybe_channel.close()
        self._maybe_channel = None

    def rename_to(self, f: str | os.PathLike[str]) -> None:
        try:
            if self.file.exists():
                os.replace(self.file, f)
        finally:
            self.file = Path(f)

    def truncate_to(self, offset: int) -> None:
        """Drop the entries of transactions whose marker is at or above `offset`."""
        new_last_offset: int | None = None
        for aborted_txn, position in self._iterator():
            if aborted_txn.last_offset >= offset:
                self._channel().truncate(position)
                self._last_offset = new_last_offset
                return
            new_last_offset = aborted_txn.last_offset

    def _iterator(self) -> Iterator[tuple[AbortedTxn, int]]:
        channel = self._maybe_channel
        if channel is None:
            return
        position = 0
        try:
            end = os.fstat(channel.fileno()).st_size  # the channel's position: appends go at the end
        except (OSError, ValueError) as e:
            raise KafkaException(f"Failed to read from the transaction index {self.file}") from e
        while end - position >= AbortedTxn.TotalSize:
            try:
                buffer = os.pread(channel.fileno(), AbortedTxn.TotalSize, position)
            except (OSError, ValueError) as e:
                # The consumer gets UNKNOWN_SERVER_ERROR and fetches again.
                raise KafkaException(f"Failed to read from the transaction index {self.file}") from e
            if len(buffer) < AbortedTxn.TotalSize:
                return  # truncated under us
            aborted_txn = AbortedTxn.from_bytes(buffer)
            if aborted_txn.version > AbortedTxn.CurrentVersion:
                raise KafkaException(f"Unexpected aborted transaction version {aborted_txn.version}, current version "
                                     f"is {AbortedTxn.CurrentVersion}")
            yield aborted_txn, position
            position += AbortedTxn.TotalSize

    def all_aborted_txns(self) -> list[AbortedTxn]:
        return [aborted_txn for aborted_txn, _ in self._iterator()]

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        """The aborted transactions overlapping [fetch_offset, upper_bound_offset).

        The search is complete once an entry's last stable offset reaches the upper bound: every transaction that
        could overlap the range had started before that point, so its abort (if any) is already listed.
        """
        aborted_transactions = []
        for aborted_txn, _ in self._iterator():
            if aborted_txn.last_offset >= fetch_offset and aborted_txn.first_offset < upper_bound_offset:
                aborted_transactions.append(aborted_txn)
            if aborted_txn.last_stable_offset >= upper_bound_offset:
                return TxnIndexSearchResult(aborted_transactions, is_complete=True)
        return TxnIndexSearchResult(aborted_transactions, is_complete=False)

    def sanity_check(self) -> None:
        """Every entry belongs to this segment: a marker below its base offset means the file is corrupt."""
        for aborted_txn, _ in self._iterator():
            if aborted_txn.last_offset < self.start_offset:
                raise IllegalArgumentException(f"Last offset of aborted transaction {aborted_txn} is less than start "
                                               f"offset {self.start_offset}")

    def __repr__(self) -> str:
        return f"TransactionIndex({self.file})"
