"""Port of metadata/src/main/java/org/apache/kafka/image/ClientQuotasImage.java (Kafka 3.9): every entity's quotas,
and how a broker answers DescribeClientQuotas from them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException, UnsupportedVersionException
from kafka_edu.v3_9.clients.common.quota.client_quota_entity import CLIENT_ID, IP, USER, ClientQuotaEntity
from kafka_edu.v3_9.metadata.image.client_quota_image import ClientQuotaImage
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions

# ClientQuotaFilterComponent's match types (DescribeClientQuotasRequest)
MATCH_TYPE_EXACT, MATCH_TYPE_DEFAULT, MATCH_TYPE_SPECIFIED = 0, 1, 2


class ClientQuotasImage:
    EMPTY: ClassVar[ClientQuotasImage]

    def __init__(self, entities: Mapping[ClientQuotaEntity, ClientQuotaImage]) -> None:
        self._entities = dict(entities)

    def is_empty(self) -> bool:
        return not self._entities

    def entities(self) -> dict[ClientQuotaEntity, ClientQuotaImage]:
        return self._entities

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        for entity, client_quota_image in self._entities.items():
            client_quota_image.write(entity, writer, options)

    def describe(self, request: Any) -> list[dict[str, Any]]:
        """The EntryData (entity and values) of each entity the request's filter matches."""
        exact_match: dict[str, str | None] = {}
        type_match: set[str] = set()
        for component in request.components:
            if not component.entity_type:
                raise InvalidRequestException("Invalid empty entity type.")
            if component.entity_type in exact_match or component.entity_type in type_match:
                raise InvalidRequestException(f"Entity type {component.entity_type} cannot appear more than once in "
                                              "the filter.")
            if component.entity_type not in (IP, USER, CLIENT_ID):
                raise UnsupportedVersionException(f"Unsupported entity type {component.entity_type}")
            if component.match_type == MATCH_TYPE_EXACT:
                if component.match is None:
                    raise InvalidRequestException("Request specified MATCH_TYPE_EXACT, but set match string to null.")
                exact_match[component.entity_type] = component.match
            elif component.match_type == MATCH_TYPE_DEFAULT:
                if component.match is not None:
                    raise InvalidRequestException("Request specified MATCH_TYPE_DEFAULT, but also specified a match "
                                                  "string.")
                exact_match[component.entity_type] = None
            elif component.match_type == MATCH_TYPE_SPECIFIED:
                if component.match is not None:
                    raise InvalidRequestException("Request specified MATCH_TYPE_SPECIFIED, but also specified a "
                                                  "match string.")
                type_match.add(component.entity_type)
            else:
                raise InvalidRequestException(f"Unknown match type {component.match_type}")
        if IP in exact_match or IP in type_match:
            if (USER in exact_match or USER in type_match) or (CLIENT_ID in exact_match or CLIENT_ID in type_match):
                raise InvalidRequestException("Invalid entity filter component combination. IP filter component "
                                              "should not be used with user or clientId filter component.")
        # a scan of every entity, as in 3.9 (KAFKA-13022)
        return [to_describe_entry(entity, quota_image) for entity, quota_image in self._entities.items()
                if matches(entity, exact_match, type_match, request.strict)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClientQuotasImage) and self._entities == other._entities

    def __hash__(self) -> int:
        return hash(frozenset(self._entities))

    def __repr__(self) -> str:
        return f"ClientQuotasImage({self._entities})"


ClientQuotasImage.EMPTY = ClientQuotasImage({})


def matches(entity: ClientQuotaEntity, exact_match: dict[str, str | None], type_match: set[str],
            strict: bool) -> bool:
    entries = entity.entries()
    if strict and len(entries) != len(exact_match) + len(type_match):
        return False
    for entity_type, name in exact_match.items():
        if entity_type not in entries or entries[entity_type] != name:
            return False
    return all(entity_type in entries for entity_type in type_match)


def to_describe_entry(entity: ClientQuotaEntity, quota_image: ClientQuotaImage) -> dict[str, Any]:
    return dict(entity=[dict(entity_type=t, entity_name=n) for t, n in entity.entries().items()],
                values=quota_image.to_describe_values())
