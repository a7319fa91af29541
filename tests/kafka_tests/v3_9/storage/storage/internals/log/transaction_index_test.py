"""Port of storage/src/test/java/org/apache/kafka/storage/internals/log/TransactionIndexTest.java (Kafka 3.9).

TestUtils.tempFile and tempDirectory become files and directories under pytest's tmp_path; the index each case
starts from (a field of Kafka's test class, over an existing empty file) is the `index` fixture.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.corrupt_index_exception import CorruptIndexException
from kafka_edu.v3_9.storage.storage.internals.log.transaction_index import TransactionIndex
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "storage/src/test/java/org/apache/kafka/storage/internals/log/TransactionIndexTest.java",
    cases=[
        "testPositionSetCorrectlyWhenOpened",
        "testSanityCheck",
        "testLastOffsetMustIncrease",
        "testLastOffsetCannotDecrease",
        "testCollectAbortedTransactions",
        "testTruncate",
        "testAbortedTxnSerde",
        "testRenameIndex",
        "testUpdateParentDir",
        "testFlush",
        "testDeleteIfExists",
    ],
)


@pytest.fixture
def file(tmp_path: Path) -> Path:
    path = tmp_path / "kafka.txnindex"
    path.touch()
    return path


@pytest.fixture
def index(file: Path) -> Iterator[TransactionIndex]:
    idx = TransactionIndex(0, file)
    yield idx
    idx.close()


def test_position_set_correctly_when_opened(file: Path, index: TransactionIndex) -> None:
    aborted_txns = [
        AbortedTxn(0, 0, 10, 11),
        AbortedTxn(1, 5, 15, 13),
        AbortedTxn(2, 18, 35, 25),
        AbortedTxn(3, 32, 50, 40)]
    for txn in aborted_txns:
        index.append(txn)
    index.close()

    reopened_index = TransactionIndex(0, file)
    try:
        another_aborted_txn = AbortedTxn(3, 50, 60, 55)
        reopened_index.append(another_aborted_txn)
        aborted_txns.append(another_aborted_txn)
        assert reopened_index.all_aborted_txns() == aborted_txns
    finally:
        reopened_index.close()


def test_sanity_check(file: Path, index: TransactionIndex) -> None:
    aborted_txns = [
        AbortedTxn(0, 0, 10, 11),
        AbortedTxn(1, 5, 15, 13),
        AbortedTxn(2, 18, 35, 25),
        AbortedTxn(3, 32, 50, 40)]
    for txn in aborted_txns:
        index.append(txn)
    index.close()

    # reopened with a later start offset, the same entries are invalid
    with TransactionIndex(100, file) as reopened_index, pytest.raises(CorruptIndexException):
        reopened_index.sanity_check()


def test_last_offset_must_increase(index: TransactionIndex) -> None:
    index.append(AbortedTxn(1, 5, 15, 13))
    with pytest.raises(IllegalArgumentException):
        index.append(AbortedTxn(0, 0, 15, 11))


def test_last_offset_cannot_decrease(index: TransactionIndex) -> None:
    index.append(AbortedTxn(1, 5, 15, 13))
    with pytest.raises(IllegalArgumentException):
        index.append(AbortedTxn(0, 0, 10, 11))


def test_collect_aborted_transactions(index: TransactionIndex) -> None:
    aborted_transactions = [
        AbortedTxn(0, 0, 10, 11),
        AbortedTxn(1, 5, 15, 13),
        AbortedTxn(2, 18, 35, 25),
        AbortedTxn(3, 32, 50, 40)]
    for txn in aborted_transactions:
        index.append(txn)

    result = index.collect_aborted_txns(0, 100)
    assert list(result.aborted_transactions) == aborted_transactions
    assert not result.is_complete

    result = index.collect_aborted_txns(0, 32)
    assert list(result.aborted_transactions) == aborted_transactions[0:3]
    assert result.is_complete

    result = index.collect_aborted_txns(0, 35)
    assert list(result.aborted_transactions) == aborted_transactions
    assert result.is_complete

    result = index.collect_aborted_txns(10, 35)
    assert list(result.aborted_transactions) == aborted_transactions
    assert result.is_complete

    result = index.collect_aborted_txns(11, 35)
    assert list(result.aborted_transactions) == aborted_transactions[1:4]
    assert result.is_complete

    result = index.collect_aborted_txns(20, 41)
    assert list(result.aborted_transactions) == aborted_transactions[2:4]
    assert not result.is_complete


def test_truncate(index: TransactionIndex) -> None:
    aborted_transactions = [
        AbortedTxn(0, 0, 10, 2),
        AbortedTxn(1, 5, 15, 16),
        AbortedTxn(2, 18, 35, 25),
        AbortedTxn(3, 32, 50, 40)]
    for txn in aborted_transactions:
        index.append(txn)

    index.truncate_to(51)
    assert list(index.collect_aborted_txns(0, 100).aborted_transactions) == aborted_transactions

    index.truncate_to(50)
    assert list(index.collect_aborted_txns(0, 100).aborted_transactions) == aborted_transactions[0:3]

    index.reset()
    assert list(index.collect_aborted_txns(0, 100).aborted_transactions) == []


def test_aborted_txn_serde() -> None:
    pid = 983493
    first_offset = 137
    last_offset = 299
    last_stable_offset = 200

    aborted_txn = AbortedTxn(pid, first_offset, last_offset, last_stable_offset)
    assert aborted_txn.version() == AbortedTxn.CURRENT_VERSION
    assert aborted_txn.producer_id() == pid
    assert aborted_txn.first_offset() == first_offset
    assert aborted_txn.last_offset() == last_offset
    assert aborted_txn.last_stable_offset() == last_stable_offset


def test_rename_index(tmp_path: Path, index: TransactionIndex) -> None:
    renamed = tmp_path / "renamed.txnindex"
    renamed.touch()
    index.append(AbortedTxn(0, 0, 10, 2))

    index.rename_to(renamed)
    index.append(AbortedTxn(1, 5, 15, 16))

    aborted_txns = index.collect_aborted_txns(0, 100).aborted_transactions
    assert len(aborted_txns) == 2
    assert aborted_txns[0].first_offset() == 0
    assert aborted_txns[1].first_offset() == 5


def test_update_parent_dir(tmp_path: Path, index: TransactionIndex) -> None:
    tmp_parent_dir = tmp_path / "other" / "parent"
    tmp_parent_dir.mkdir(parents=True)
    assert index.file().parent != tmp_parent_dir
    index.update_parent_dir(tmp_parent_dir)
    assert index.file().parent == tmp_parent_dir


def test_flush(tmp_path: Path) -> None:
    non_existent_file = tmp_path / "flush.txnindex"
    non_existent_file.touch()
    non_existent_file.unlink()
    with TransactionIndex(0, non_existent_file) as test_index:
        test_index.flush()
        test_index.append(AbortedTxn(0, 0, 10, 2))
        test_index.flush()
        assert test_index.file().stat().st_size != 0


def test_delete_if_exists(file: Path, index: TransactionIndex) -> None:
    assert file.exists()
    index.delete_if_exists()
    assert not file.exists()
