"""Transactions in a partition's log: control batches, the first unstable offset, the aborted-transaction index,
read_committed reads, producer fencing, and all of it rebuilt after a crash or a truncation."""

from __future__ import annotations

from pathlib import Path

import pytest
from kafka.record.default_records import DefaultRecordBatchBuilder

from kafka_edu.v1_0_2.clients.common.errors import (
    InvalidRecordException,
    InvalidTxnStateException,
    ProducerFencedException,
    TransactionCoordinatorFencedException,
)
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords, TimestampType
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    MemoryRecordsBuilder,
    with_end_transaction_marker,
)
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import AbortedTransaction
from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.transaction_index import AbortedTxn
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

NOW = 1_700_000_000_000
READ_COMMITTED = IsolationLevel.READ_COMMITTED


def txn_batch(producer_id: int, base_sequence: int, n: int = 2, epoch: int = 0,
              transactional: bool = True) -> bytes:
    """What a transactional producer sends for one partition inside a transaction."""
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=transactional,
                                        producer_id=producer_id, producer_epoch=epoch, base_sequence=base_sequence,
                                        batch_size=1 << 20)
    for i in range(n):
        builder.append(i, timestamp=NOW, key=None, value=b"p%d-%d" % (producer_id, base_sequence + i), headers=[])
    return bytes(builder.build())


def plain_batch(value: bytes) -> bytes:
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=-1,
                                        producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    builder.append(0, timestamp=NOW, key=None, value=value, headers=[])
    return bytes(builder.build())


def marker(producer_id: int, commit: bool, epoch: int = 0, coordinator_epoch: int = 0) -> bytes:
    control_type = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
    return bytes(with_end_transaction_marker(producer_id, epoch, EndTransactionMarker(control_type, coordinator_epoch),
                                             timestamp=NOW).buffer)


def write_marker(log: Log, producer_id: int, commit: bool, **kwargs: int) -> int:
    """As the partition leader does for WriteTxnMarkers: not a client's write."""
    return log.append_as_leader(marker(producer_id, commit, **kwargs), 0, is_from_client=False).first_offset


def open_log(log_dir: Path, **config: int) -> Log:
    return Log(log_dir, LogConfig(**config), time_ms=lambda: NOW)


def all_replicated(log: Log) -> None:
    log.on_high_watermark_incremented(log.log_end_offset)


def fuo(log: Log) -> int | None:
    return log.first_unstable_offset.message_offset if log.first_unstable_offset is not None else None


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs" / "orders-0"


def test_a_committed_transaction_holds_the_first_unstable_offset_until_its_marker_is_replicated(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(plain_batch(b"before"), 0)                       # 0
    log.append_as_leader(txn_batch(10, 0), 0)                             # 1-2, transaction open
    assert fuo(log) == 1
    log.append_as_leader(plain_batch(b"during"), 0)                       # 3
    all_replicated(log)
    assert fuo(log) == 1  # replicated, but undecided
    assert write_marker(log, 10, commit=True) == 4                      # 4: COMMIT
    assert fuo(log) == 1  # decided, but the marker is not below the high watermark yet
    all_replicated(log)
    assert log.first_unstable_offset is None
    [batch] = list(MemoryRecords(log.read(4, 1 << 20)).batches())
    assert batch.is_control_batch and batch.is_transactional and batch.producer_id == 10
    assert EndTransactionMarker.deserialize(next(batch.records())).control_type is ControlRecordType.COMMIT
    assert [s.txn_index.all_aborted_txns() for s in log.log_segments()] == [[]]  # a commit leaves no entry
    assert not list(log_dir.glob("*.txnindex"))
    log.close()


def test_an_abort_enters_the_index_with_the_last_stable_offset_and_read_committed_lists_it(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(txn_batch(10, 0), 0)                             # 0-1 producer 10
    log.append_as_leader(txn_batch(20, 0), 0)                             # 2-3 producer 20
    log.append_as_leader(txn_batch(10, 2), 0)                             # 4-5 producer 10
    write_marker(log, 10, commit=False)                                   # 6: ABORT 10
    # Producer 20's transaction is still open from 2: that is the last stable offset the abort is indexed with.
    assert log.active_segment.txn_index.all_aborted_txns() == [AbortedTxn(10, 0, 6, 2)]
    write_marker(log, 20, commit=True)                                    # 7: COMMIT 20
    all_replicated(log)
    assert log.first_unstable_offset is None

    committed = log.read_fetch_data_info(0, 1 << 20, max_offset=8, isolation_level=READ_COMMITTED)
    assert committed.aborted_transactions == [AbortedTransaction(producer_id=10, first_offset=0)]
    assert committed.records_bytes() == log.read(0, 1 << 20)  # the records are all sent; the consumer drops 10's
    uncommitted = log.read_fetch_data_info(0, 1 << 20)
    assert uncommitted.aborted_transactions is None
    # A read starting after the abort's marker has no aborted transaction to report.
    assert log.read_fetch_data_info(7, 1 << 20, max_offset=8, isolation_level=READ_COMMITTED).aborted_transactions \
        == []
    # At the log end: an empty read, and an empty list for read_committed.
    at_end = log.read_fetch_data_info(8, 1 << 20, isolation_level=READ_COMMITTED)
    assert at_end.records_bytes() == b"" and at_end.aborted_transactions == []
    assert (log_dir / "00000000000000000000.txnindex").stat().st_size == 34
    log.close()


def test_read_committed_stops_at_the_last_stable_offset(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(plain_batch(b"a"), 0)                            # 0
    log.append_as_leader(txn_batch(10, 0), 0)                             # 1-2 open
    log.append_as_leader(plain_batch(b"b"), 0)                            # 3
    all_replicated(log)
    last_stable_offset = min(fuo(log), 4)
    read = log.read_fetch_data_info(0, 1 << 20, max_offset=last_stable_offset, isolation_level=READ_COMMITTED)
    assert [b.last_offset for b in MemoryRecords(read.records_bytes()).batches()] == [0]
    assert read.aborted_transactions == []
    log.close()


def test_a_transaction_aborted_in_a_later_segment_is_found_from_the_earlier_one(log_dir: Path) -> None:
    log = open_log(log_dir, segment_bytes=300)
    log.append_as_leader(txn_batch(10, 0, n=3), 0)                        # 0-2, segment 0
    while log.number_of_segments == 1:
        log.append_as_leader(plain_batch(b"x" * 50), 0)
    abort_offset = write_marker(log, 10, commit=False)
    segments = log.log_segments()
    marker_segment = [s for s in segments if s.base_offset <= abort_offset][-1]
    assert marker_segment.base_offset > 0
    # The entry is in the index of the segment holding the marker, not the one where the transaction began.
    assert marker_segment.txn_index.all_aborted_txns() == [AbortedTxn(10, 0, abort_offset, abort_offset + 1)]
    assert segments[0].txn_index.all_aborted_txns() == []
    all_replicated(log)
    # A read of the first segment only: its index has nothing, so the next one's is searched.
    read = log.read_fetch_data_info(0, 1 << 20, max_offset=log.log_end_offset, isolation_level=READ_COMMITTED)
    assert read.aborted_transactions == [AbortedTransaction(10, 0)]
    assert log.collect_aborted_transactions(0, log.log_end_offset) == [AbortedTxn(10, 0, abort_offset,
                                                                                  abort_offset + 1)]
    log.close()


def test_the_index_and_the_open_transactions_are_rebuilt_by_recovery(log_dir: Path) -> None:
    log = open_log(log_dir, segment_bytes=400)
    log.append_as_leader(txn_batch(10, 0), 0)
    log.append_as_leader(txn_batch(20, 0), 0)
    while log.number_of_segments < 2:
        log.append_as_leader(plain_batch(b"y" * 60), 0)
    write_marker(log, 10, commit=False)
    log.append_as_leader(txn_batch(30, 0), 0)                             # still open at the crash
    before = {s.base_offset: s.txn_index.all_aborted_txns() for s in log.log_segments()}
    assert fuo(log) == 0  # 10's abort is not replicated yet
    log.flush()
    log.close_handlers()  # a crash: no clean-shutdown file, no snapshot at the end
    for file in log_dir.glob("*.txnindex"):
        file.unlink()
    for file in log_dir.glob("*.snapshot"):
        file.unlink()

    recovered = Log(log_dir, LogConfig(segment_bytes=400), recovery_point=0, time_ms=lambda: NOW)
    assert {s.base_offset: s.txn_index.all_aborted_txns() for s in recovered.log_segments()} == before
    # Producer 20's transaction, from offset 2, is still open. (10's decided transaction is forgotten by the reload
    # from the producer snapshots, which keep open transactions only: Kafka's LSO can differ between replicas.)
    assert fuo(recovered) == 2
    write_marker(recovered, 20, commit=True)
    write_marker(recovered, 30, commit=False)
    all_replicated(recovered)
    assert recovered.first_unstable_offset is None
    assert [t.producer_id for s in recovered.log_segments() for t in s.txn_index.all_aborted_txns()] == [10, 30]
    recovered.close()


def test_a_corrupt_index_is_rebuilt_on_load(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(txn_batch(10, 0), 0)
    write_marker(log, 10, commit=False)
    log.close()
    # An entry whose marker lies below the segment: the sanity check fails, the segment is recovered.
    with open(log_dir / "00000000000000000000.txnindex", "ab") as f:
        f.write(AbortedTxn(99, -5, -2, -1).to_bytes())
    reloaded = open_log(log_dir)
    assert reloaded.active_segment.txn_index.all_aborted_txns() == [AbortedTxn(10, 0, 2, 3)]
    reloaded.close()


def test_truncation_below_a_marker_reopens_the_transaction(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(txn_batch(10, 0), 0)                             # 0-1
    write_marker(log, 10, commit=False)                                   # 2
    log.append_as_leader(plain_batch(b"z"), 0)                            # 3
    all_replicated(log)
    assert log.first_unstable_offset is None
    log.truncate_to(2)  # a follower told by a new leader that the marker never happened
    assert log.active_segment.txn_index.all_aborted_txns() == []
    assert fuo(log) == 0
    write_marker(log, 10, commit=True)  # the new leader's marker
    all_replicated(log)
    assert log.first_unstable_offset is None and log.active_segment.txn_index.all_aborted_txns() == []
    log.close()


def test_an_older_producer_epoch_is_fenced_and_nothing_is_written(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(txn_batch(10, 0, epoch=0), 0)
    # The coordinator bumped the epoch for a new instance of the producer: it aborts epoch 0's transaction with a
    # marker of epoch 1.
    write_marker(log, 10, commit=False, epoch=1)
    end = log.log_end_offset
    with pytest.raises(ProducerFencedException) as fenced:
        log.append_as_leader(txn_batch(10, 2, epoch=0), 0)  # the zombie's next write
    assert Errors.for_exception(fenced.value) == Errors.INVALID_PRODUCER_EPOCH  # 1.0.2's code for it
    with pytest.raises(ProducerFencedException):
        write_marker(log, 10, commit=True, epoch=0)  # a marker of the old epoch is fenced too
    assert log.log_end_offset == end
    assert log.append_as_leader(txn_batch(10, 0, epoch=1), 0).first_offset == end  # the new epoch starts at seq 0
    log.close()


def test_a_marker_from_an_older_coordinator_is_fenced(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(txn_batch(10, 0), 0)
    write_marker(log, 10, commit=True, coordinator_epoch=3)
    log.append_as_leader(txn_batch(10, 2), 0)
    with pytest.raises(TransactionCoordinatorFencedException) as fenced:
        write_marker(log, 10, commit=False, coordinator_epoch=2)
    assert Errors.for_exception(fenced.value) == Errors.TRANSACTION_COORDINATOR_FENCED
    assert write_marker(log, 10, commit=False, coordinator_epoch=3) == 5
    log.close()


def test_a_plain_write_inside_an_open_transaction_is_refused(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(txn_batch(10, 0), 0)
    with pytest.raises(InvalidTxnStateException) as refused:
        log.append_as_leader(txn_batch(10, 2, transactional=False), 0)
    assert Errors.for_exception(refused.value) == Errors.INVALID_TXN_STATE
    assert log.log_end_offset == 2
    log.close()


def test_a_client_may_not_write_a_control_batch(log_dir: Path) -> None:
    log = open_log(log_dir)
    log.append_as_leader(txn_batch(10, 0), 0)
    # A marker as the leader builds it has no sequence: refused for that first.
    with pytest.raises(InvalidRecordException, match="Invalid sequence number -1"):
        log.append_as_leader(marker(10, commit=True), 0)  # is_from_client defaults to True
    # One dressed as a producer's batch, with a sequence, is refused for being a control batch.
    builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, NOW, 10, 0, 2, True, -1,
                                   is_control_batch=True)
    builder.append_end_txn_marker(NOW, EndTransactionMarker(ControlRecordType.COMMIT, 0))
    with pytest.raises(InvalidRecordException, match="Clients are not allowed to write control records"):
        log.append_as_leader(bytes(builder.build().buffer), 0)
    assert log.log_end_offset == 2 and fuo(log) == 0
    log.close()


def test_a_marker_for_a_producer_with_no_open_transaction_is_an_empty_transaction(log_dir: Path) -> None:
    log = open_log(log_dir)
    # The coordinator aborts a transaction whose data never reached this partition: the marker alone is written.
    write_marker(log, 10, commit=False)
    assert log.active_segment.txn_index.all_aborted_txns() == [AbortedTxn(10, 0, 0, 1)]
    all_replicated(log)
    assert log.first_unstable_offset is None
    log.close()
