"""Port of server-common/src/main/java/org/apache/kafka/server/common/ApiMessageAndVersion.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ApiMessageAndVersion:
    """A record and the version to write it at (or the version it was read at).

    The record classes carry no version of their own in Kafka: the metadata.version in force picks it, so the pair
    travels together from the controller's generate step to the serde.
    """

    message: Any
    version: int

    def __str__(self) -> str:
        return f"ApiMessageAndVersion({self.message} at version {self.version})"
