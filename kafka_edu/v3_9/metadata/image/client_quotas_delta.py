"""Port of metadata/src/main/java/org/apache/kafka/image/ClientQuotasDelta.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.quota.client_quota_entity import ClientQuotaEntity
from kafka_edu.v3_9.metadata.common.metadata import ClientQuotaRecord
from kafka_edu.v3_9.metadata.image.client_quota_delta import ClientQuotaDelta
from kafka_edu.v3_9.metadata.image.client_quota_image import ClientQuotaImage, data_to_entity
from kafka_edu.v3_9.metadata.image.client_quotas_image import ClientQuotasImage


class ClientQuotasDelta:
    def __init__(self, image: ClientQuotasImage) -> None:
        self._image = image
        self._changes: dict[ClientQuotaEntity, ClientQuotaDelta] = {}

    def changes(self) -> dict[ClientQuotaEntity, ClientQuotaDelta]:
        return self._changes

    def finish_snapshot(self) -> None:
        for entity, quota_image in self._image.entities().items():
            self._changes.setdefault(entity, ClientQuotaDelta(quota_image)).finish_snapshot()

    def handle_metadata_version_change(self, new_version: Any) -> None:
        pass  # quota records read the same at every metadata.version

    def replay(self, record: ClientQuotaRecord) -> None:
        entity = data_to_entity(record.entity)
        change = self._changes.get(entity)
        if change is None:
            change = ClientQuotaDelta(self._image.entities().get(entity, ClientQuotaImage.EMPTY))
            self._changes[entity] = change
        change.replay(record)

    def apply(self) -> ClientQuotasImage:
        new_entities: dict[ClientQuotaEntity, ClientQuotaImage] = {}
        for entity, quota_image in self._image.entities().items():
            change = self._changes.get(entity)
            if change is None:
                new_entities[entity] = quota_image
            else:
                applied = change.apply()
                if not applied.is_empty():
                    new_entities[entity] = applied
        for entity, change in self._changes.items():
            if entity not in new_entities:
                applied = change.apply()
                if not applied.is_empty():
                    new_entities[entity] = applied
        return ClientQuotasImage(new_entities)

    def __str__(self) -> str:
        return f"ClientQuotasDelta(changes={self._changes})"
