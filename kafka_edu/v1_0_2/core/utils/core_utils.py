"""Port of core/src/main/scala/kafka/utils/CoreUtils.scala (Kafka 1.0.2): the helpers the lifecycle relies on."""

from __future__ import annotations

import base64
import logging
import uuid
from types import TracebackType


class swallow:
    """`CoreUtils.swallow`: run a shutdown step, log its failure, and let the sequence continue.

    Used as `with swallow(log), step("LC.shutdown.04"): ...` so the step's span records the error first.
    """

    def __init__(self, log: logging.Logger) -> None:
        self.log = log

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        if exc is not None and isinstance(exc, Exception):
            self.log.warning("%s: %s", type(exc).__name__, exc, exc_info=(exc_type, exc, tb))
            return True
        return False


def generate_uuid_as_base64() -> str:
    """A random UUID in URL-safe base64 without padding: the shape of Kafka's cluster ids."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
