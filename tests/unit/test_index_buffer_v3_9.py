"""3.9's index buffer (MappedByteBuffer over mmap) and FileRecords slices: what a lookup's duplicate and a fetch's
slice share with what they were made from, and what they keep to themselves."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.storage.storage.internals.log.abstract_index import MappedByteBuffer


@pytest.fixture
def buffer(tmp_path: Path) -> Iterator[MappedByteBuffer]:
    """A writable 16-byte index buffer, its position at 8."""
    path = tmp_path / "00000000000000000000.index"
    path.write_bytes(bytes(16))
    with path.open("r+b") as f:
        mapped = MappedByteBuffer(f.fileno(), 16, writable=True)
        mapped.position(8)
        yield mapped
        mapped.unmap()


def test_a_duplicate_reads_the_same_mapping_with_a_position_of_its_own(buffer: MappedByteBuffer) -> None:
    duplicate = buffer.duplicate()
    assert type(duplicate) is MappedByteBuffer
    assert duplicate.position() == 8 and duplicate.limit() == 16
    duplicate.position(0)
    assert buffer.position() == 8  # moving one moves not the other
    buffer.put_int(7)  # written at the original's position, seen through the duplicate's mapping
    assert duplicate.get_int(8) == 7


def test_a_slice_shares_its_file_s_path(tmp_path: Path) -> None:
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(bytes(100))
    records = FileRecords.open(path, file_already_exists=True)
    try:
        piece = records.slice(10, 20)
        assert piece.file() is records.file() and piece.size_in_bytes() == 20
    finally:
        records.close()


def test_an_entry_read_at_once_is_its_two_reads_and_is_bounded_by_the_limit(buffer: MappedByteBuffer) -> None:
    buffer.put_int(-3)
    buffer.put_int(4096)
    entry = struct.Struct(">ii")
    assert buffer.get_fields(entry, 8) == (buffer.get_int(8), buffer.get_int(12)) == (-3, 4096)
    for outside in (-1, 9, 16):  # past the limit as getInt is: an entry that does not fit is not read
        with pytest.raises(IndexError):
            buffer.get_fields(entry, outside)
