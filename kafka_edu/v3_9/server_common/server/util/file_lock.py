"""Port of server-common/src/main/java/org/apache/kafka/server/util/FileLock.java (Kafka 3.9): an exclusive OS lock
on a file (a log dir's `.lock`), so that two brokers never share a directory."""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger("org.apache.kafka.server.util.FileLock")


class FileLock:
    def __init__(self, file: str | os.PathLike[str]) -> None:
        self._file = Path(file)
        # FileChannel.open(CREATE, READ, WRITE)
        self._channel = os.open(self._file, os.O_RDWR | os.O_CREAT, 0o644)
        self._flock = False
        self._mutex = threading.Lock()

    @property
    def file(self) -> Path:
        return self._file

    def lock(self) -> None:
        """Block until the lock is held."""
        with self._mutex:
            log.debug("Acquiring lock on %s", self._file.absolute())
            fcntl.flock(self._channel, fcntl.LOCK_EX)
            self._flock = True

    def try_lock(self) -> bool:
        """True if the lock is now held; false if another holder (this process included: flock locks belong to the
        open file, as Java's OverlappingFileLockException makes them) has it."""
        with self._mutex:
            log.debug("Acquiring lock on %s", self._file.absolute())
            try:
                fcntl.flock(self._channel, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            self._flock = True
            return True

    def unlock(self) -> None:
        with self._mutex:
            log.debug("Releasing lock on %s", self._file.absolute())
            if self._flock:
                fcntl.flock(self._channel, fcntl.LOCK_UN)
                self._flock = False

    def destroy(self) -> None:
        """Unlock, delete the file and close it."""
        self.unlock()
        with self._mutex:
            try:
                self._file.unlink()
                log.debug("Deleted %s", self._file.absolute())
            except FileNotFoundError:
                pass
            if self._channel >= 0:
                os.close(self._channel)
                self._channel = -1
