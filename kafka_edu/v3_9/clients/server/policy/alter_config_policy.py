"""Port of clients/src/main/java/org/apache/kafka/server/policy/AlterConfigPolicy.java (Kafka 3.9): the plug-in the
controller asks about each config change it is about to make (`alter.config.policy.class.name`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RequestMetadata:
    """The resource ((ConfigResource.Type, name)) and the configs the request sets (a None value: deleted)."""

    resource: Any
    configs: dict[str, str | None] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"AlterConfigPolicy.RequestMetadata(resource={self.resource}, configs={self.configs})"


class AlterConfigPolicy(ABC):
    def configure(self, configs: dict[str, Any]) -> None:  # noqa: B027 (Configurable's optional hook)
        """Configurable.configure: the broker's configs, once, before the first validate."""

    @abstractmethod
    def validate(self, request_metadata: RequestMetadata) -> None:
        """PolicyViolationException (with a message for the client) when the change may not be made."""

    def close(self) -> None:  # noqa: B027 (AutoCloseable's optional hook)
        """AutoCloseable.close."""
