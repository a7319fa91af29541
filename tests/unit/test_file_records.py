"""FileRecords.append's write loop: every byte lands where it should, short writes are resumed, errors surface."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.record import file_records
from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords, MemoryRecords, build_batch, write_fully


def test_append_writes_the_batches_after_what_is_there(tmp_path: Path) -> None:
    records = FileRecords.open(tmp_path / "00000000000000000000.log")
    first, second = build_batch([b"a" * 100] * 3), build_batch([b"b" * 5000] * 40)
    assert records.append(MemoryRecords(first)) == len(first)
    assert records.append(MemoryRecords(second)) == len(second)
    assert (tmp_path / "00000000000000000000.log").read_bytes() == first + second
    assert records.size_in_bytes() == len(first) + len(second)


@pytest.mark.parametrize("buffer_type", [bytearray, bytes])
def test_write_fully_at_a_position(tmp_path: Path, buffer_type: type) -> None:
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT)
    data = os.urandom(3_000_001)
    assert write_fully(fd, buffer_type(data), 7) == len(data)
    assert os.pread(fd, len(data) + 100, 0) == bytes(7) + data


def test_short_writes_are_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real_pwrite = os.pwrite

    def stingy_pwrite(fd: int, data: memoryview, position: int) -> int:
        calls.append(len(data))
        return real_pwrite(fd, data[:1000], position)

    monkeypatch.setattr(file_records.os, "pwrite", stingy_pwrite)
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT)
    data = os.urandom(2500)
    assert write_fully(fd, bytearray(data), 0) == 2500
    assert real_pwrite is not stingy_pwrite and os.pread(fd, 3000, 0) == data
    assert calls == [2500, 1500, 500]


def test_a_failed_write_raises_os_error(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "f", os.O_RDONLY | os.O_CREAT)
    with pytest.raises(OSError) as raised:
        write_fully(fd, bytearray(b"x" * 10), 0)
    assert raised.value.errno == errno.EBADF
