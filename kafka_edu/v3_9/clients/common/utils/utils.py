"""Port of the file helpers of clients/src/main/java/org/apache/kafka/common/utils/Utils.java (Kafka 3.9): durable
renames, shared by every file Kafka replaces whole (checkpoints, quorum-state, meta.properties, snapshots)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger("org.apache.kafka.common.utils.Utils")


def flush_dir(path: Path) -> None:
    """Utils.flushDir: fsync a directory, so that a rename or a new file in it survives a crash."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_move_with_fallback(source: Path, target: Path, need_flush_parent_dir: bool = True) -> None:
    """Utils.atomicMoveWithFallback: rename atomically, else move; then fsync the target's directory."""
    try:
        try:
            os.replace(source, target)
        except OSError as outer:
            log.warning("Failed atomic move of %s to %s retrying with a non-atomic move", source, target,
                        exc_info=outer)
            shutil.move(source, target)
            log.debug("Non-atomic move of %s to %s succeeded after atomic move failed", source, target)
    finally:
        if need_flush_parent_dir:
            flush_dir(target.absolute().parent)
