"""Port of metadata/src/main/java/org/apache/kafka/controller/ClientQuotaControlManager.java (Kafka 3.9): the client
quotas of each entity (user, client id, both, or ip), set by ClientQuotaRecords, and the checks an AlterClientQuotas
goes through before its records are written."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException
from kafka_edu.v3_9.clients.common.config.config_def import ConfigKey, Type
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.quota.client_quota_alteration import ClientQuotaAlteration
from kafka_edu.v3_9.clients.common.quota.client_quota_entity import CLIENT_ID, IP, USER, ClientQuotaEntity
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, ClientQuotaRecord
from kafka_edu.v3_9.metadata.common.metadata.client_quota_record import EntityData
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.server_common.server.config import quota_configs as QuotaConfigs
from kafka_edu.v3_9.server_common.server.mutable.bounded_list import BoundedList
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap

MAX_RECORDS_PER_USER_OP = 10000  # QuorumController.MAX_RECORDS_PER_USER_OP
SHORT_MAX, INT_MAX, LONG_MAX = 2**15 - 1, 2**31 - 1, 2**63 - 1


class ClientQuotaControlManager:
    def __init__(self, snapshot_registry: SnapshotRegistry | None = None, log_context: str = "") -> None:
        self._log = logging.LoggerAdapter(logging.getLogger(__name__), {})
        self._log_prefix = log_context
        self._snapshot_registry = snapshot_registry if snapshot_registry is not None else SnapshotRegistry(log_context)
        self.client_quota_data: TimelineHashMap[ClientQuotaEntity, TimelineHashMap[str, float]] = \
            TimelineHashMap(self._snapshot_registry)

    def alter_client_quotas(self, quota_alterations: Iterable[ClientQuotaAlteration]
                            ) -> ControllerResult[dict[ClientQuotaEntity, ApiError]]:
        """The records of a batch of quota changes and each entity's result; nothing changes until replay."""
        output_records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        output_results: dict[ClientQuotaEntity, ApiError] = {}
        for quota_alteration in quota_alterations:
            # a value may be None: remove that key
            alterations: dict[str, float | None] = {}
            for op in quota_alteration.ops:
                if op.key in alterations:
                    output_results[quota_alteration.entity] = ApiError.from_throwable(InvalidRequestException(
                        f"Duplicate quota key {op.key} not updating quota for this entity {quota_alteration.entity}"))
                else:
                    alterations[op.key] = op.value
            if quota_alteration.entity in output_results:
                output_results[quota_alteration.entity] = ApiError.from_throwable(
                    InvalidRequestException(f"Ignoring duplicate entity {quota_alteration.entity}"))
            else:
                self._alter_client_quota_entity(quota_alteration.entity, alterations, output_records, output_results)
        return ControllerResult.atomic_of(output_records, output_results)

    def replay(self, record: ClientQuotaRecord) -> None:
        entity = ClientQuotaEntity({e.entity_type: e.entity_name for e in record.entity})
        quotas = self.client_quota_data.get(entity)
        if quotas is None:
            quotas = TimelineHashMap(self._snapshot_registry)
            self.client_quota_data.put(entity, quotas)
        if record.remove:
            quotas.remove(record.key)
            if quotas.is_empty():
                self.client_quota_data.remove(entity)
            self._log.info("%sReplayed ClientQuotaRecord for %s removing %s.", self._log_prefix, entity, record.key)
        else:
            quotas.put(record.key, record.value)
            self._log.info("%sReplayed ClientQuotaRecord for %s setting %s to %s.", self._log_prefix, entity,
                           record.key, record.value)

    def _alter_client_quota_entity(self, entity: ClientQuotaEntity, new_quota_configs: dict[str, float | None],
                                   output_records: list[Any], output_results: dict[ClientQuotaEntity, ApiError]
                                   ) -> None:
        # the entity's types checked, its names kept as given
        validated_entity_map: dict[str, str | None] = {}
        error = self._validate_entity(entity, validated_entity_map)
        if error.is_failure():
            output_results[entity] = error
            return
        # which combination of types it is decides which keys it may have
        config_keys: dict[str, ConfigKey] = {}
        error = config_keys_for_entity_type(validated_entity_map, config_keys)
        if error.is_failure():
            output_results[entity] = error
            return

        def record_entity() -> tuple[EntityData, ...]:
            return tuple(EntityData(entity_type=t, entity_name=n) for t, n in validated_entity_map.items())

        new_records = []
        current = self.client_quota_data.get(entity)
        current_quotas: dict[str, float] = {} if current is None else dict(current.entry_set())
        for key, new_value in new_quota_configs.items():
            if new_value is None:
                if key in current_quotas:
                    new_records.append(ApiMessageAndVersion(
                        ClientQuotaRecord(entity=record_entity(), key=key, remove=True), 0))
            else:
                validation_error = validate_quota_key_value(config_keys, key, new_value)
                if validation_error.is_failure():
                    output_results[entity] = validation_error
                    return
                if current_quotas.get(key) != new_value:
                    # only a changed value is written
                    new_records.append(ApiMessageAndVersion(
                        ClientQuotaRecord(entity=record_entity(), key=key, value=new_value), 0))
        output_records.extend(new_records)
        output_results[entity] = ApiError.NONE

    def _validate_entity(self, entity: ClientQuotaEntity, validated_entity_map: dict[str, str | None]) -> ApiError:
        if not entity.entries():
            return ApiError(Errors.INVALID_REQUEST, "Invalid empty client quota entity")
        for entity_type, entity_name in entity.entries().items():
            if entity_type in validated_entity_map:
                return ApiError(Errors.INVALID_REQUEST,
                                f"Invalid client quota entity, duplicate entity entry {entity_type}")
            if entity_type in (USER, CLIENT_ID, IP):
                validated_entity_map[entity_type] = entity_name
            else:
                return ApiError(Errors.INVALID_REQUEST, f"Unhandled client quota entity type: {entity_type}")
            if entity_name is not None and not entity_name:
                return ApiError(Errors.INVALID_REQUEST, f"Empty {entity_type} not supported")
        return ApiError.NONE


def config_keys_for_entity_type(entity: dict[str, str | None], output: dict[str, ConfigKey]) -> ApiError:
    """Only some combinations of entity types are allowed; the combination decides the valid keys."""
    has_user, has_client_id, has_ip = USER in entity, CLIENT_ID in entity, IP in entity
    if has_ip:
        if has_user or has_client_id:
            # 3.9's message lacks the space after "should"
            return ApiError(Errors.INVALID_REQUEST, "Invalid quota entity combination, IP entity shouldnot be "
                                                   "combined with User or ClientId")
        if not is_valid_ip_entity(entity[IP]):
            return ApiError(Errors.INVALID_REQUEST, f"{entity[IP]} is not a valid IP or resolvable host.")
        config_keys = QuotaConfigs.ip_configs().config_keys
    elif has_user or has_client_id:
        config_keys = QuotaConfigs.user_and_client_quota_configs().config_keys
    else:
        return ApiError(Errors.INVALID_REQUEST, "Invalid empty client quota entity")
    output.update(config_keys)
    return ApiError.NONE


def validate_quota_key_value(valid_keys: dict[str, ConfigKey], key: str, value: float) -> ApiError:
    config_key = valid_keys.get(key)
    if config_key is None:
        return ApiError(Errors.INVALID_REQUEST, f"Invalid configuration key {key}")
    if value <= 0.0:
        return ApiError(Errors.INVALID_REQUEST, f"Quota {key} must be greater than 0")
    if config_key.type is Type.DOUBLE:
        return ApiError.NONE
    if config_key.type is Type.SHORT:
        if value > SHORT_MAX:
            return ApiError(Errors.INVALID_REQUEST, f"Proposed value for {key} is too large for a SHORT.")
        return get_error_for_integral_quota_value(value, key)
    if config_key.type is Type.INT:
        if value > INT_MAX:
            return ApiError(Errors.INVALID_REQUEST, f"Proposed value for {key} is too large for an INT.")
        return get_error_for_integral_quota_value(value, key)
    if config_key.type is Type.LONG:
        if value > LONG_MAX:
            return ApiError(Errors.INVALID_REQUEST, f"Proposed value for {key} is too large for a LONG.")
        return get_error_for_integral_quota_value(value, key)
    return ApiError(Errors.UNKNOWN_SERVER_ERROR,
                    f"Unexpected config type {config_key.type.name} should be Long or Double")


def get_error_for_integral_quota_value(value: float, key: str) -> ApiError:
    remainder = abs(value % 1.0)
    if remainder > 1e-6:
        return ApiError(Errors.INVALID_REQUEST, f"{key} cannot be a fractional value.")
    return ApiError.NONE


def is_valid_ip_entity(ip: str | None) -> bool:
    """InetAddress.getByName: an address, or a name that resolves."""
    if ip is None:
        return True
    try:
        socket.getaddrinfo(ip, None)
        return True
    except (OSError, UnicodeError):
        return False
