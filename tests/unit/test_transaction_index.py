"""The `.txnindex` of a segment (TransactionIndex, AbortedTxn): its bytes, its searches, truncation and its file."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import AbortedTransaction
from kafka_edu.v1_0_2.core.log.transaction_index import AbortedTxn, TransactionIndex, TxnIndexSearchResult


@pytest.fixture
def index(tmp_path: Path) -> TransactionIndex:
    index = TransactionIndex(0, tmp_path / "00000000000000000000.txnindex")
    yield index
    index.close()


def test_an_entry_is_34_bytes_big_endian(index: TransactionIndex) -> None:
    index.append(AbortedTxn(producer_id=7, first_offset=2, last_offset=5, last_stable_offset=6))
    data = index.file.read_bytes()
    assert len(data) == AbortedTxn.TotalSize == 34
    assert struct.unpack(">hqqqq", data) == (0, 7, 2, 5, 6)
    assert AbortedTxn(7, 2, 5, 6).as_aborted_transaction() == AbortedTransaction(producer_id=7, first_offset=2)


def test_no_file_until_the_first_abort(tmp_path: Path) -> None:
    index = TransactionIndex(0, tmp_path / "00000000000000000000.txnindex")
    assert not index.file.exists() and index.all_aborted_txns() == []
    assert index.collect_aborted_txns(0, 100) == TxnIndexSearchResult([], is_complete=False)
    index.sanity_check()
    index.truncate_to(0)
    assert index.delete() and not index.file.exists()  # nothing to delete is a successful delete


def test_entries_survive_a_reopen_in_order(tmp_path: Path) -> None:
    entries = [AbortedTxn(1, 0, 10, 11), AbortedTxn(2, 5, 15, 16), AbortedTxn(3, 20, 25, 26)]
    index = TransactionIndex(0, tmp_path / "00000000000000000000.txnindex")
    for entry in entries:
        index.append(entry)
    index.close()
    reopened = TransactionIndex(0, tmp_path / "00000000000000000000.txnindex")
    assert reopened.all_aborted_txns() == entries
    reopened.append(AbortedTxn(4, 30, 31, 32))  # appended after the entries read back
    assert [t.producer_id for t in reopened.all_aborted_txns()] == [1, 2, 3, 4]
    reopened.close()


def test_markers_must_move_forward(index: TransactionIndex) -> None:
    index.append(AbortedTxn(1, 0, 10, 11))
    with pytest.raises(IllegalArgumentException, match="must increase sequentially"):
        index.append(AbortedTxn(2, 3, 10, 11))
    with pytest.raises(IllegalArgumentException):
        index.append(AbortedTxn(2, 3, 9, 11))
    assert len(index.all_aborted_txns()) == 1


def test_collect_returns_the_overlapping_aborts_and_stops_at_the_upper_bound(index: TransactionIndex) -> None:
    # The last stable offset after each abort was written: aborts 1 and 2 overlapped, so after 1's marker (10) the
    # LSO was 5, the start of 2.
    index.append(AbortedTxn(1, 0, 10, 5))
    index.append(AbortedTxn(2, 5, 15, 16))
    index.append(AbortedTxn(3, 20, 25, 26))
    # A fetch of [11, 18): transaction 1 ended before it; 2 overlaps it; 2's LSO 16 < 18 so the search goes on to 3,
    # whose LSO 26 >= 18 ends it (3 itself starts at 20: not listed).
    result = index.collect_aborted_txns(11, 18)
    assert result == TxnIndexSearchResult([AbortedTxn(2, 5, 15, 16)], is_complete=True)
    # A fetch of [0, 6): 1 overlaps; its LSO 5 < 6 so 2 is read, overlapping too; 2's LSO 16 completes the search.
    assert [t.producer_id for t in index.collect_aborted_txns(0, 6).aborted_transactions] == [1, 2]
    # Past every entry: incomplete, the next segment's index has to be searched.
    assert index.collect_aborted_txns(26, 40) == TxnIndexSearchResult([], is_complete=False)


def test_truncate_to_drops_the_aborts_whose_marker_is_cut_off(index: TransactionIndex) -> None:
    for entry in (AbortedTxn(1, 0, 10, 11), AbortedTxn(2, 5, 15, 16), AbortedTxn(3, 20, 25, 26)):
        index.append(entry)
    index.truncate_to(15)  # the marker at 15 goes with everything at or above it
    assert [t.producer_id for t in index.all_aborted_txns()] == [1]
    index.append(AbortedTxn(4, 12, 14, 15))  # the index's last offset went back to 10
    assert [t.last_offset for t in index.all_aborted_txns()] == [10, 14]
    index.truncate()
    assert index.all_aborted_txns() == [] and index.file.stat().st_size == 0
    index.append(AbortedTxn(5, 0, 1, 2))  # and to nothing after a full truncate
    assert len(index.all_aborted_txns()) == 1


def test_sanity_check_finds_an_entry_below_the_segment(tmp_path: Path) -> None:
    index = TransactionIndex(100, tmp_path / "00000000000000000100.txnindex")
    index.append(AbortedTxn(1, 90, 100, 101))
    index.sanity_check()
    index.append(AbortedTxn(1, 90, 120, 121))
    index.close()
    # A corrupt file: an entry whose marker lies before the segment's base offset.
    with open(index.file, "ab") as f:
        f.write(AbortedTxn(9, 0, 99, 99).to_bytes())
    reopened = TransactionIndex(100, index.file)
    with pytest.raises(IllegalArgumentException, match="less than start offset 100"):
        reopened.sanity_check()
    reopened.close()


def test_an_entry_of_a_newer_version_is_refused_and_a_partial_one_ignored(tmp_path: Path) -> None:
    file = tmp_path / "00000000000000000000.txnindex"
    file.write_bytes(AbortedTxn(1, 0, 1, 2).to_bytes() + b"\x00\x07")  # a torn write after one entry
    index = TransactionIndex(0, file)
    assert index.all_aborted_txns() == [AbortedTxn(1, 0, 1, 2)]
    index.close()
    file.write_bytes(struct.pack(">hqqqq", 1, 1, 0, 1, 2))
    index = TransactionIndex(0, file)
    with pytest.raises(KafkaException, match="Unexpected aborted transaction version 1"):
        index.all_aborted_txns()
    index.close()


def test_rename_and_delete(index: TransactionIndex, tmp_path: Path) -> None:
    index.append(AbortedTxn(1, 0, 1, 2))
    deleted_name = tmp_path / "00000000000000000000.txnindex.deleted"
    index.rename_to(deleted_name)
    assert index.file == deleted_name and deleted_name.exists()
    assert index.all_aborted_txns() == [AbortedTxn(1, 0, 1, 2)]  # the open file followed the rename
    assert index.delete() and not deleted_name.exists()
