"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogFileUtils.java (Kafka 3.9): the names of a
log's files (segment, indexes, producer snapshots), all prefixed by a zero-padded offset."""

from __future__ import annotations

import os
from pathlib import Path

# suffix of a producer snapshot file
PRODUCER_SNAPSHOT_FILE_SUFFIX = ".snapshot"
# suffix of a file scheduled for deletion
DELETED_FILE_SUFFIX = ".deleted"
# suffix of a log (segment data) file
LOG_FILE_SUFFIX = ".log"
# suffix of an offset index file
INDEX_FILE_SUFFIX = ".index"
# suffix of a time index file
TIME_INDEX_FILE_SUFFIX = ".timeindex"
# suffix of an aborted transaction index file
TXN_INDEX_FILE_SUFFIX = ".txnindex"


def offset_from_file_name(file_name: str) -> int:
    """The offset a file name starts with: `{number}.{suffix}` -> number."""
    return int(file_name[:file_name.index(".")])


def producer_snapshot_file(log_dir: str | os.PathLike[str], offset: int) -> Path:
    """The producer snapshot file in `log_dir` for `offset` (exclusive last offset the snapshot covers)."""
    return Path(log_dir, filename_prefix_from_offset(offset) + PRODUCER_SNAPSHOT_FILE_SUFFIX)


def filename_prefix_from_offset(offset: int) -> str:
    """`offset` zero-padded to 20 digits, so that `ls` sorts segment files numerically."""
    if offset < 0:
        return "-" + f"{-offset:020d}"
    return f"{offset:020d}"


def log_file(dir: str | os.PathLike[str], offset: int, suffix: str = "") -> Path:
    """The log file of the segment with base offset `offset`; `suffix` e.g. "", ".deleted", ".cleaned", ".swap"."""
    return Path(dir, filename_prefix_from_offset(offset) + LOG_FILE_SUFFIX + suffix)


def offset_index_file(dir: str | os.PathLike[str], offset: int, suffix: str = "") -> Path:
    """The offset index file of the segment with base offset `offset`."""
    return Path(dir, filename_prefix_from_offset(offset) + INDEX_FILE_SUFFIX + suffix)


def time_index_file(dir: str | os.PathLike[str], offset: int, suffix: str = "") -> Path:
    """The time index file of the segment with base offset `offset`."""
    return Path(dir, filename_prefix_from_offset(offset) + TIME_INDEX_FILE_SUFFIX + suffix)


def transaction_index_file(dir: str | os.PathLike[str], offset: int, suffix: str = "") -> Path:
    """The transaction index file of the segment with base offset `offset`."""
    return Path(dir, filename_prefix_from_offset(offset) + TXN_INDEX_FILE_SUFFIX + suffix)


def offset_from_file(file: str | os.PathLike[str]) -> int:
    """The offset a file's name starts with."""
    return offset_from_file_name(Path(file).name)
