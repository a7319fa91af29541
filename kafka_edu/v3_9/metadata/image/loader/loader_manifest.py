"""Port of metadata/src/main/java/org/apache/kafka/image/loader/LoaderManifest.java and LoaderManifestType.java
(Kafka 3.9)."""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod

from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance


class LoaderManifestType(enum.Enum):
    LOG_DELTA = "LOG_DELTA"
    SNAPSHOT = "SNAPSHOT"

    def __str__(self) -> str:
        return self.value


class LoaderManifest(ABC):
    """What a publish carries besides the delta and image: where they came from."""

    @abstractmethod
    def type(self) -> LoaderManifestType: ...

    @abstractmethod
    def provenance(self) -> MetadataProvenance:
        """The last offset and epoch in the new image."""
