"""Port of core/src/main/scala/kafka/utils/Logging.scala (Kafka 1.0.2): loggers with a per-instance prefix."""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any

# Kafka's log4j layout: [2026-11-22 05:04:10,123] INFO [KafkaServer id=0] started (kafka.server.KafkaServer)
LOG_FORMAT = "[%(asctime)s] %(levelname)s %(message)s (%(name)s)"


class Logging(logging.LoggerAdapter):
    """A logger whose messages start with `log_ident`, e.g. "[KafkaServer id=0] "."""

    def __init__(self, name: str, log_ident: str = "") -> None:
        super().__init__(logging.getLogger(name), {})
        self.log_ident = log_ident

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        return f"{self.log_ident}{msg}", kwargs


def configure_logging(level: int = logging.INFO) -> None:
    logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stdout)
    logging.getLogger("kazoo").setLevel(logging.WARNING)
    logging.getLogger("kafka.utils.KafkaScheduler").setLevel(logging.INFO)
