"""Port of metadata/src/main/java/org/apache/kafka/image/ClientQuotaImage.java (Kafka 3.9): one entity's quotas."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from kafka_edu.v3_9.clients.common.quota.client_quota_entity import ClientQuotaEntity
from kafka_edu.v3_9.metadata.common.metadata import ClientQuotaRecord
from kafka_edu.v3_9.metadata.common.metadata.client_quota_record import EntityData
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions


class ClientQuotaImage:
    """{quota key: value}, immutable."""

    EMPTY: ClassVar[ClientQuotaImage]

    def __init__(self, quotas: Mapping[str, float]) -> None:
        self._quotas = dict(quotas)

    def quotas(self) -> dict[str, float]:
        return self._quotas

    def quota_map(self) -> dict[str, float]:
        return dict(self._quotas)

    def write(self, entity: ClientQuotaEntity, writer: ImageWriter, options: ImageWriterOptions) -> None:
        for key, value in self._quotas.items():
            writer.write(0, ClientQuotaRecord(entity=entity_to_data(entity), key=key, value=value, remove=False))

    def to_describe_values(self) -> list[dict[str, Any]]:
        """DescribeClientQuotasResponse's ValueData of each quota."""
        return [dict(key=key, value=value) for key, value in self._quotas.items()]

    def is_empty(self) -> bool:
        return not self._quotas

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClientQuotaImage) and self._quotas == other._quotas

    def __hash__(self) -> int:
        return hash(frozenset(self._quotas.items()))

    def __repr__(self) -> str:
        return f"ClientQuotaImage({self._quotas})"


ClientQuotaImage.EMPTY = ClientQuotaImage({})


def entity_to_data(entity: ClientQuotaEntity) -> tuple[EntityData, ...]:
    return tuple(EntityData(entity_type=t, entity_name=n) for t, n in entity.entries().items())


def data_to_entity(entity_data: Iterable[Any]) -> ClientQuotaEntity:
    return ClientQuotaEntity({data.entity_type: data.entity_name for data in entity_data})
