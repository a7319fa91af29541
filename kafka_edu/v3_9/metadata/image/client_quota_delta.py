"""Port of metadata/src/main/java/org/apache/kafka/image/ClientQuotaDelta.java (Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v3_9.metadata.common.metadata import ClientQuotaRecord
from kafka_edu.v3_9.metadata.image.client_quota_image import ClientQuotaImage


class ClientQuotaDelta:
    """One entity's quota changes: {key: new value, or None for removed}."""

    def __init__(self, image: ClientQuotaImage) -> None:
        self._image = image
        self._changes: dict[str, float | None] = {}

    def changes(self) -> dict[str, float | None]:
        return self._changes

    def finish_snapshot(self) -> None:
        for key in self._image.quotas():
            # a quota of the image the snapshot did not mention is gone
            self._changes.setdefault(key, None)

    def replay(self, record: ClientQuotaRecord) -> None:
        self._changes[record.key] = None if record.remove else record.value

    def apply(self) -> ClientQuotaImage:
        new_quotas: dict[str, float] = {}
        for key, value in self._image.quotas().items():
            if key not in self._changes:
                new_quotas[key] = value
            elif self._changes[key] is not None:
                new_quotas[key] = self._changes[key]  # type: ignore[assignment]
        for key, change in self._changes.items():
            if key not in new_quotas and change is not None:
                new_quotas[key] = change
        return ClientQuotaImage(new_quotas)
