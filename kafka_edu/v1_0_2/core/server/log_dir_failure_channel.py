"""Port of core/src/main/scala/kafka/server/LogDirFailureChannel.scala (Kafka 1.0.2)."""

from __future__ import annotations

import logging
import queue

log = logging.getLogger("kafka.server.LogDirFailureChannel")


class LogDirFailureChannel:
    """Where any component reports a failed log directory; ReplicaManager takes them off the queue."""

    def __init__(self, log_dir_num: int) -> None:
        self.offline_log_dirs: set[str] = set()
        self.offline_log_dir_queue: queue.Queue[str] = queue.Queue(maxsize=log_dir_num)

    def maybe_add_offline_log_dir(self, log_dir: str, msg: str, e: BaseException) -> None:
        log.error("%s: %s", msg, e)
        if log_dir not in self.offline_log_dirs:
            self.offline_log_dirs.add(log_dir)
            self.offline_log_dir_queue.put(log_dir)

    def take_next_offline_log_dir(self) -> str:
        return self.offline_log_dir_queue.get()
