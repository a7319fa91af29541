"""Port of metadata/src/main/java/org/apache/kafka/controller/ConfigurationControlManager.java (Kafka 3.9): the
dynamic configs of each resource (topics, brokers, the cluster default), set by ConfigRecords, and the validation a
change goes through before its records are written.

Left out: the broker-logger resources (ControllerApis answers those itself, as 3.9 does).

Kafka's Builder defaults to KafkaConfigSchema.EMPTY, ConfigurationValidator.NO_OP and no static config, and
ControllerServer passes the real ones through QuorumController.Builder. The port's ControllerServer does not set
them yet, so here a missing schema or validator is the one ControllerServer would pass: the topic configs of 3.9's
LogConfig with their broker synonyms, and ControllerConfigurationValidator. Tests pass their own
(FakeKafkaConfigSchema, NO_OP), as Kafka's do.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException, Password
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.server.policy.alter_config_policy import AlterConfigPolicy
from kafka_edu.v3_9.clients.server.policy.alter_config_policy import RequestMetadata as AlterConfigRequestMetadata
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, ConfigRecord
from kafka_edu.v3_9.metadata.controller.configuration_validator import ConfigurationValidator
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.metadata.kafka_config_schema import ConfigEntry, KafkaConfigSchema
from kafka_edu.v3_9.server_common.server.mutable.bounded_list import BoundedList
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap

log = logging.getLogger(__name__)

MAX_RECORDS_PER_USER_OP = 10000  # QuorumController.MAX_RECORDS_PER_USER_OP
UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG = "unclean.leader.election.enable"


class ConfigResourceType(enum.IntEnum):
    """org.apache.kafka.common.config.ConfigResource.Type: the ids ConfigRecord.resourceType carries."""

    BROKER_LOGGER = 8
    BROKER = 4
    TOPIC = 2
    UNKNOWN = 0
    CLIENT_METRICS = 16
    GROUP = 32


ConfigResource = tuple[ConfigResourceType, str]

DEFAULT_NODE: ConfigResource = (ConfigResourceType.BROKER, "")


class OpType(enum.IntEnum):
    """org.apache.kafka.clients.admin.AlterConfigOp.OpType."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


KeyOp = tuple[OpType, str | None]  # an operation on one config key and its operand


def _production_config_schema() -> KafkaConfigSchema:
    """What ControllerServer passes: the topic configs of LogConfig and their broker synonyms."""
    from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import ALL_TOPIC_CONFIG_SYNONYMS
    from kafka_edu.v3_9.storage.storage.internals.log import log_config
    return KafkaConfigSchema({ConfigResourceType.TOPIC: log_config.config_def_copy()}, ALL_TOPIC_CONFIG_SYNONYMS)


def _production_validator() -> ConfigurationValidator:
    from kafka_edu.v3_9.core.server.controller_configuration_validator import ControllerConfigurationValidator
    return ControllerConfigurationValidator()


class ConfigurationControlManager:
    def __init__(self, snapshot_registry: SnapshotRegistry, log_context: str = "",
                 config_schema: KafkaConfigSchema | None = None, validator: ConfigurationValidator | None = None,
                 static_config: Mapping[str, Any] | None = None, node_id: int = 0,
                 existence_checker: Any = None, alter_config_policy: AlterConfigPolicy | None = None) -> None:
        self._log_prefix = log_context
        self._snapshot_registry = snapshot_registry
        self._config_schema = config_schema if config_schema is not None else _production_config_schema()
        self._validator = validator if validator is not None else _production_validator()
        self._existence_checker = existence_checker or (lambda resource: None)
        self._alter_config_policy = alter_config_policy
        self._config_data: TimelineHashMap[ConfigResource, TimelineHashMap[str, str]] = \
            TimelineHashMap(snapshot_registry)
        self._static_config = dict(static_config or {})
        self._current_controller: ConfigResource = (ConfigResourceType.BROKER, str(node_id))

    def snapshot_registry(self) -> SnapshotRegistry:
        return self._snapshot_registry

    # -- incrementalAlterConfigs ----------------------------------------------------------------------------------

    def incremental_alter_configs(self, config_changes: Mapping[ConfigResource, Mapping[str, KeyOp]],
                                  newly_created_resource: bool) -> ControllerResult[dict[ConfigResource, ApiError]]:
        """The records of a batch of incremental changes, and each resource's result (a resource fails or
        changes as a whole). Nothing changes in memory until the records are replayed."""
        output_records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        output_results = {}
        for resource, key_to_ops in config_changes.items():
            output_results[resource] = self._incremental_alter_config_resource(resource, key_to_ops,
                                                                               newly_created_resource, output_records)
        return ControllerResult.atomic_of(output_records, output_results)

    def incremental_alter_config(self, config_resource: ConfigResource,
                                 key_to_ops: Mapping[str, KeyOp],
                                 newly_created_resource: bool) -> ControllerResult[ApiError]:
        output_records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        api_error = self._incremental_alter_config_resource(config_resource, key_to_ops, newly_created_resource,
                                                            output_records)
        return ControllerResult.atomic_of(output_records, api_error)

    def _incremental_alter_config_resource(self, config_resource: ConfigResource,
                                           keys_to_ops: Mapping[str, KeyOp],
                                           newly_created_resource: bool, output_records: list[Any]) -> ApiError:
        new_records = []
        for key, (op_type, op_value) in keys_to_ops.items():
            current_configs = self._config_data.get(config_resource)
            current_value = None if current_configs is None else current_configs.get(key)
            new_value = current_value
            if op_type is OpType.SET:
                new_value = op_value
            elif op_type is OpType.DELETE:
                new_value = None
            elif op_type in (OpType.APPEND, OpType.SUBTRACT):
                if not self._config_schema.is_splittable(config_resource[0], key):
                    return ApiError(Errors.INVALID_CONFIG, f"Can't {op_type.name} to key {key} because its type is "
                                                           "not LIST.")
                old_value_list = self._get_parts(new_value, key, config_resource)
                for value in (op_value or "").split(","):
                    if op_type is OpType.APPEND and value not in old_value_list:
                        old_value_list.append(value)
                    elif op_type is OpType.SUBTRACT and value in old_value_list:
                        old_value_list.remove(value)
                new_value = ",".join(old_value_list)
            if current_value != new_value or config_resource[0] == ConfigResourceType.BROKER:
                # KAFKA-14136: a broker config is written even unchanged, so the brokers reload it
                new_records.append(ApiMessageAndVersion(ConfigRecord(
                    resource_type=int(config_resource[0]), resource_name=config_resource[1], name=key,
                    value=new_value), 0))
        error = self._validate_alter_config(config_resource, new_records, [], newly_created_resource)
        if error.is_failure():
            return error
        output_records.extend(new_records)
        return ApiError.NONE

    def _validate_alter_config(self, config_resource: ConfigResource, records_explicitly_altered: list[Any],
                               records_implicitly_deleted: list[Any], newly_created_resource: bool) -> ApiError:
        all_configs: dict[str, str | None] = {}
        existing_configs_map: dict[str, str] = {}
        altered_configs_for_alter_config_policy_check: dict[str, str | None] = {}
        existing_configs_snapshot = self._config_data.get(config_resource)
        if existing_configs_snapshot is not None:
            all_configs.update(existing_configs_snapshot.entry_set())
            existing_configs_map.update(existing_configs_snapshot.entry_set())
        for new_record in records_explicitly_altered:
            config_record = new_record.message
            if config_record.value is None:
                all_configs.pop(config_record.name, None)
            else:
                all_configs[config_record.name] = config_record.value
            altered_configs_for_alter_config_policy_check[config_record.name] = config_record.value
        for record_implicitly_deleted in records_implicitly_deleted:
            all_configs.pop(record_implicitly_deleted.message.name, None)
        try:
            self._validator.validate(config_resource, all_configs, existing_configs_map)
            if not newly_created_resource:
                self._existence_checker(config_resource)
            if self._alter_config_policy is not None:
                self._alter_config_policy.validate(AlterConfigRequestMetadata(
                    config_resource, altered_configs_for_alter_config_policy_check))
        except ConfigException as e:
            return ApiError(Errors.INVALID_CONFIG, str(e))
        except Exception as e:
            api_error = ApiError.from_throwable(e)
            if api_error.error is Errors.UNKNOWN_SERVER_ERROR:
                log.error("%sUnknown server error validating Alter Configs", self._log_prefix, exc_info=e)
            return api_error
        return ApiError.NONE

    # -- legacyAlterConfigs ---------------------------------------------------------------------------------------

    def legacy_alter_configs(self, new_configs: Mapping[ConfigResource, Mapping[str, str]],
                             newly_created_resource: bool) -> ControllerResult[dict[ConfigResource, ApiError]]:
        """The records of a batch of whole-resource replacements (AlterConfigs): each resource's configs become
        exactly those given, keys not given are deleted. Nothing changes in memory until replay."""
        output_records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        output_results: dict[ConfigResource, ApiError] = {}
        for resource, configs in new_configs.items():
            self._legacy_alter_config_resource(resource, configs, newly_created_resource, output_records,
                                               output_results)
        return ControllerResult.atomic_of(output_records, output_results)

    def _legacy_alter_config_resource(self, config_resource: ConfigResource, new_configs: Mapping[str, str],
                                      newly_created_resource: bool, output_records: list[Any],
                                      output_results: dict[ConfigResource, ApiError]) -> None:
        records_explicitly_altered = []
        current = self._config_data.get(config_resource)
        current_configs: dict[str, str] = {} if current is None else dict(current.entry_set())
        for key, new_value in new_configs.items():
            if current_configs.get(key) != new_value or config_resource[0] == ConfigResourceType.BROKER:
                # KAFKA-14136: a broker config is written even unchanged, so the brokers reload it
                records_explicitly_altered.append(ApiMessageAndVersion(ConfigRecord(
                    resource_type=int(config_resource[0]), resource_name=config_resource[1], name=key,
                    value=new_value), 0))
        records_implicitly_deleted = [
            ApiMessageAndVersion(ConfigRecord(resource_type=int(config_resource[0]),
                                              resource_name=config_resource[1], name=key, value=None), 0)
            for key in current_configs if key not in new_configs]
        error = self._validate_alter_config(config_resource, records_explicitly_altered, records_implicitly_deleted,
                                            newly_created_resource)
        if error.is_failure():
            output_results[config_resource] = error
            return
        output_records.extend(records_explicitly_altered)
        output_records.extend(records_implicitly_deleted)
        output_results[config_resource] = ApiError.NONE

    def _get_parts(self, value: str | None, key: str, config_resource: ConfigResource) -> list[str]:
        if value is None:
            value = self._config_schema.get_default(config_resource[0], key)
        if value is None:
            return []
        return [part for part in value.split(",") if part]

    # -- replay ---------------------------------------------------------------------------------------------------

    def replay(self, record: Any) -> None:
        """ConfigRecord: set one config of one resource, or remove it (null value)."""
        config_resource: ConfigResource = (ConfigResourceType(record.resource_type), record.resource_name)
        configs = self._config_data.get(config_resource)
        if configs is None:
            configs = TimelineHashMap(self._snapshot_registry)
            self._config_data.put(config_resource, configs)
        if record.value is None:
            configs.remove(record.name)
        else:
            configs.put(record.name, record.value)
        if configs.is_empty():
            self._config_data.remove(config_resource)
        value = Password.HIDDEN if self._config_schema.is_sensitive(config_resource[0], record.name) \
            else record.value
        log.info("%sReplayed ConfigRecord for %s which set configuration %s to %s", self._log_prefix,
                 _resource_string(config_resource), record.name, value)

    # -- reads ----------------------------------------------------------------------------------------------------

    def describe_configs(self, last_committed_offset: int, resources: Mapping[ConfigResource, Any]
                         ) -> dict[ConfigResource, dict[str, str] | ApiError]:
        """{resource: the configs named (all when none are) as of `last_committed_offset`, or the validator's
        ApiError} (Kafka's ResultOrError: the map, or the error)."""
        results: dict[ConfigResource, dict[str, str] | ApiError] = {}
        for resource, target_configs in resources.items():
            try:
                self._validator.validate_resource(resource)
            except Exception as e:
                results[resource] = ApiError.from_throwable(e)
                continue
            found_configs: dict[str, str] = {}
            configs = self._config_data.get(resource, last_committed_offset)
            if configs is not None:
                if not target_configs:
                    found_configs.update(configs.entry_set(last_committed_offset))
                else:
                    for key in target_configs:
                        value = configs.get(key, last_committed_offset)
                        if value is not None:
                            found_configs[key] = value
            results[resource] = found_configs
        return results

    def get_configs(self, config_resource: ConfigResource, epoch: int = LATEST_EPOCH) -> dict[str, str]:
        configs = self._config_data.get(config_resource, epoch) if epoch != LATEST_EPOCH else \
            self._config_data.get(config_resource)
        return {} if configs is None else dict(configs.entry_set(epoch))

    def get_config_value(self, config_resource: ConfigResource, key: str) -> str | None:
        configs = self._config_data.get(config_resource)
        return None if configs is None else configs.get(key)

    def get_topic_config(self, topic_name: str, config_key: str) -> ConfigEntry:
        """The topic's value of a config: its own, else this node's, else the cluster's dynamic broker synonym,
        else the static one, else the default."""
        return self._config_schema.resolve_effective_topic_config(
            config_key, self._static_config, self.cluster_config(), self.current_controller_config(),
            self.current_topic_config(topic_name))

    def delete_topic_configs(self, name: str) -> None:
        """A topic's configs go with it (RemoveTopicRecord)."""
        self._config_data.remove((ConfigResourceType.TOPIC, name))

    def unclean_leader_election_enabled_for_topic(self, topic_name: str) -> bool:
        value = self.get_topic_config(topic_name, UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG).value
        return bool(value) and value.lower() == "true"  # Boolean.parseBoolean

    def compute_effective_topic_configs(self, creation_configs: Mapping[str, str]) -> dict[str, ConfigEntry]:
        return self._config_schema.resolve_effective_topic_configs(
            self._static_config, self.cluster_config(), self.current_controller_config(), creation_configs)

    def cluster_config(self) -> dict[str, str]:
        result = self._config_data.get(DEFAULT_NODE)
        return {} if result is None else dict(result.entry_set())

    def current_controller_config(self) -> dict[str, str]:
        result = self._config_data.get(self._current_controller)
        return {} if result is None else dict(result.entry_set())

    def current_topic_config(self, topic_name: str) -> dict[str, str]:
        result = self._config_data.get((ConfigResourceType.TOPIC, topic_name))
        return {} if result is None else dict(result.entry_set())


def _resource_string(resource: ConfigResource) -> str:
    """ConfigResource.toString."""
    return f"ConfigResource(type={resource[0].name}, name='{resource[1]}')"
