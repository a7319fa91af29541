"""Port of storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/CleanShutdownFileHandler.java
(Kafka 3.9): the `.kafka_cleanshutdown` marker a log dir gets on a clean shutdown, holding the broker epoch."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger("org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler")

CLEAN_SHUTDOWN_FILE_NAME = ".kafka_cleanshutdown"
_CURRENT_VERSION = 0


class CleanShutdownFileHandler:
    CLEAN_SHUTDOWN_FILE_NAME = CLEAN_SHUTDOWN_FILE_NAME

    def __init__(self, dir_path: str | os.PathLike[str]) -> None:
        # visible for testing
        self.clean_shutdown_file = Path(dir_path, CLEAN_SHUTDOWN_FILE_NAME)

    def write(self, broker_epoch: int, version: int = _CURRENT_VERSION) -> None:
        with open(self.clean_shutdown_file, "w", encoding="utf-8") as os_:
            os_.write(json.dumps({"version": version, "brokerEpoch": broker_epoch}, separators=(",", ":")))
            os_.flush()
            os.fsync(os_.fileno())

    def read(self) -> int | None:
        """The broker epoch (OptionalLong): None when the file is missing or unreadable."""
        try:
            text = self.clean_shutdown_file.read_text(encoding="utf-8")
            content = json.loads(text)
            broker_epoch = content["brokerEpoch"]
            if not isinstance(broker_epoch, int) or isinstance(broker_epoch, bool):
                raise ValueError(f"brokerEpoch is not a long: {broker_epoch!r}")
            return broker_epoch
        except Exception as e:
            log.debug("Fail to read the clean shutdown file in %s:%s", self.clean_shutdown_file, e)
            return None

    def delete(self) -> None:
        self.clean_shutdown_file.unlink(missing_ok=True)

    def exists(self) -> bool:
        return self.clean_shutdown_file.exists()

    def __str__(self) -> str:
        return f"CleanShutdownFile=(file={self.clean_shutdown_file})"
