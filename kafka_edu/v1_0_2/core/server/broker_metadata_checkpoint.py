"""Port of core/src/main/scala/kafka/server/BrokerMetadataCheckpoint.scala (Kafka 1.0.2): meta.properties."""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kafka_edu.v1_0_2.clients.common.utils.utils import atomic_move_with_fallback

log = logging.getLogger("kafka.server.BrokerMetadataCheckpoint")


@dataclass(frozen=True)
class BrokerMetadata:
    broker_id: int


def load_props(path: Path) -> dict[str, str]:
    """java.util.Properties.load for the simple `key=value` files Kafka writes and ships."""
    props: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        key, sep, value = line.partition("=")
        if not sep:
            key, _, value = line.partition(":")
        props[key.strip()] = value.strip()
    return props


class BrokerMetadataCheckpoint:
    """Reads and atomically writes the broker id stored in a log directory."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._lock = threading.Lock()

    def write(self, broker_metadata: BrokerMetadata) -> None:
        with self._lock:
            temp = self.file.with_name(self.file.name + ".tmp")
            try:
                with open(temp, "w", encoding="utf-8") as f:
                    f.write(f"#\n#{_timestamp()}\nversion=0\nbroker.id={broker_metadata.broker_id}\n")
                    f.flush()
                    os.fsync(f.fileno())
                atomic_move_with_fallback(temp, self.file)  # a crash leaves the old file or the new, never half
            except OSError as e:
                log.error("Failed to write meta.properties due to %s", e)
                raise

    def read(self) -> BrokerMetadata | None:
        """None when the file does not exist; OSError when it cannot be read (the dir goes offline)."""
        with self._lock:
            self.file.with_name(self.file.name + ".tmp").unlink(missing_ok=True)
            try:
                props = load_props(self.file)
            except FileNotFoundError:
                log.warning("No meta.properties file under dir %s", self.file.parent)
                return None
            except OSError as e:
                log.error("Failed to read meta.properties file under dir %s due to %s", self.file.parent, e)
                raise
            version = int(props.get("version", "-1"))
            if version == 0:
                return BrokerMetadata(int(props["broker.id"]))
            raise OSError(f"Unrecognized version of the server meta.properties file: {version}")


def _timestamp() -> str:
    return time.strftime("%a %b %d %H:%M:%S %Z %Y")
