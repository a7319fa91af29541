"""Port of clients/src/main/java/org/apache/kafka/common/utils/Utils.java (Kafka 1.0.2): the helpers the 1.0.2 tree
takes from it, so far the rename that replaces a file whole."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger("org.apache.kafka.common.utils.Utils")


def atomic_move_with_fallback(source: Path, target: Path) -> None:
    """Utils.atomicMoveWithFallback: rename `source` over `target` atomically; where the file system cannot, move it
    non-atomically. 1.0.2 does not fsync the target's directory afterwards (later Kafkas do)."""
    try:
        os.replace(source, target)
    except OSError as outer:
        # A failure of the fallback is raised with the atomic move's failure as its context (Java: suppressed).
        shutil.move(source, target)
        log.debug("Non-atomic move of %s to %s succeeded after atomic move failed due to %s", source, target, outer)
