"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogDirFailureChannel.java (Kafka 3.9): where
any class doing disk I/O reports a log directory that failed, once per directory, for the thread that takes the
directory offline (the directory stays offline until the broker restarts)."""

from __future__ import annotations

import logging
import queue
import threading

log = logging.getLogger("org.apache.kafka.storage.internals.log.LogDirFailureChannel")


class LogDirFailureChannel:
    def __init__(self, log_dir_num: int) -> None:
        self._lock = threading.Lock()
        self._offline_log_dirs: dict[str, str] = {}
        self._offline_log_dir_queue: queue.Queue[str] = queue.Queue(maxsize=log_dir_num)

    def has_offline_log_dir(self, log_dir: str) -> bool:
        return log_dir in self._offline_log_dirs

    def maybe_add_offline_log_dir(self, log_dir: str, msg: str, e: BaseException) -> None:
        """Mark `log_dir` offline and queue it for the failure handler, unless it already is."""
        log.error(msg, exc_info=e)
        with self._lock:  # ConcurrentMap.putIfAbsent
            newly_offline = log_dir not in self._offline_log_dirs
            if newly_offline:
                self._offline_log_dirs[log_dir] = log_dir
        if newly_offline:
            self._offline_log_dir_queue.put_nowait(log_dir)  # ArrayBlockingQueue.add: a full queue raises

    def take_next_offline_log_dir(self) -> str:
        """Block until a log directory goes offline and return it."""
        return self._offline_log_dir_queue.get()
