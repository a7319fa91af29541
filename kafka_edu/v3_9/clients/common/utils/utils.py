"""Port of the file helpers of clients/src/main/java/org/apache/kafka/common/utils/Utils.java (Kafka 3.9): durable
renames, shared by every file Kafka replaces whole (checkpoints, quorum-state, meta.properties, snapshots)."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

log = logging.getLogger("org.apache.kafka.common.utils.Utils")


def flush_dir(path: Path) -> None:
    """Utils.flushDir: fsync a directory, so that a rename or a new file in it survives a crash."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def flush_dir_if_exists(path: Path) -> None:
    """Utils.flushDirIfExists: flush_dir, but a directory that is gone (renamed for deletion) is fine."""
    try:
        flush_dir(path)
    except FileNotFoundError:
        pass


def delete(file: Path | None) -> None:
    """Utils.delete: remove a file or a directory tree; one already gone is fine."""
    if file is None:
        return
    if file.is_dir() and not file.is_symlink():
        shutil.rmtree(file, onerror=_ignore_missing)
    else:
        try:
            file.unlink()
        except FileNotFoundError:
            pass


def _ignore_missing(function: Callable[..., object], path: str, exc_info: tuple) -> None:
    if not isinstance(exc_info[1], FileNotFoundError):
        raise exc_info[1]


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


# --- Utils.closeAll / closeQuietly / closeAllQuietly: the network layer's closes (added for the 3.9 network port) ---

def close_all(*closeables: object) -> None:
    """Utils.closeAll: close each (None is skipped) even if one fails; the first failure is raised at the end."""
    exception: BaseException | None = None
    for closeable in closeables:
        if closeable is None:
            continue
        try:
            closeable.close()  # type: ignore[attr-defined]
        except Exception as e:
            if exception is None:
                exception = e
    if exception is not None:
        raise exception


def close_quietly(closeable: object, name: str, first_exception: list[BaseException] | None = None) -> None:
    """Utils.closeQuietly: close, log a failure; with `first_exception` (an AtomicReference: a list of at most one
    exception) the first failure is also kept there."""
    if closeable is None:
        return
    try:
        closeable.close()  # type: ignore[attr-defined]
    except Exception as e:
        if first_exception is not None and not first_exception:
            first_exception.append(e)
        log.error("Failed to close %s with type %s", name, type(closeable).__name__, exc_info=True)


def close_all_quietly(first_exception: list[BaseException], name: str, *closeables: object) -> None:
    """Utils.closeAllQuietly: close_quietly each, keeping the first failure in `first_exception`."""
    for closeable in closeables:
        close_quietly(closeable, name, first_exception)


# --- Utils.swallow / tryAll / replaceSuffix: the log segment's helpers (added for the 3.9 storage port) ---

def swallow(logger: logging.Logger, level: int, what: str, code: Callable[[], object] | None) -> None:
    """Utils.swallow: run `code`; a failure is logged at `level` and goes no further."""
    if code is None:
        return
    try:
        code()
    except Exception:
        logger.log(level, what, exc_info=True)


def try_all(all: Iterable[Callable[[], object]]) -> None:
    """Utils.tryAll: run every callable even if one fails; the first failure is raised at the end."""
    exception: BaseException | None = None
    for call in all:
        try:
            call()
        except Exception as t:
            if exception is None:
                exception = t
    if exception is not None:
        raise exception


def replace_suffix(s: str, old_suffix: str, new_suffix: str) -> str:
    """Utils.replaceSuffix: `s` with its `old_suffix` replaced by `new_suffix`."""
    if not s.endswith(old_suffix):
        raise IllegalArgumentException(f"Expected string to end with {old_suffix} but string is {s}")
    return s[:len(s) - len(old_suffix)] + new_suffix


def utils_abs(n: int) -> int:
    """Utils.abs: Math.abs, except that Integer.MIN_VALUE gives 0 (a partition index must not be negative)."""
    return 0 if n == -(2**31) else abs(n)


def java_string_hash_code(s: str) -> int:
    """java.lang.String.hashCode, which Kafka hashes group and transactional ids with: 31-based over the UTF-16 code
    units, in signed 32-bit arithmetic."""
    h = 0
    data = s.encode("utf-16-be", errors="surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h
