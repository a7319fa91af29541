"""Port of core/src/main/scala/kafka/server/ConfigAdminManager.scala (Kafka 3.9): the broker's half of
IncrementalAlterConfigs and AlterConfigs.

A KRaft broker "preprocesses" each resource of the request: it refuses duplicates, duplicate keys and null values,
applies BROKER_LOGGER changes itself (KIP-412 log levels are not persisted), checks a BROKER change against its own
node id and the dynamic broker configs, and leaves TOPIC (and CLIENT_METRICS) resources alone. What is left is
forwarded to the active controller, which validates and persists it (ControllerApis, ConfigurationControlManager);
the two halves' results are put back together in the request's order.

Port notes: 3.9's IdentityHashMap keyed by the request's resource objects is a dict keyed by `id(resource)` here
(kio entities are frozen dataclasses: two equal resources are still two entries). DynamicBrokerConfig is not ported;
`validate_broker_config_change` checks what its `validateConfigs` checks (non-dynamic configs, unprefixed
listener security configs, per-broker configs at cluster level, value types) and does not try the reconfiguration.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigDef, ConfigException
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    InvalidConfigurationException,
    InvalidRequestException,
)
from kafka_edu.v3_9.clients.common.config.config_def import Type
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.core.server import kafka_config as KafkaConfigObject
from kafka_edu.v3_9.core.server.config_helper import (
    _DYNAMIC_LISTENER_CONFIGS,
    _DYNAMIC_SECURITY_CONFIGS,
    _LISTENER_CONFIG_REGEX,
    ALL_DYNAMIC_CONFIGS,
)
from kafka_edu.v3_9.core.server.logger.runtime_logger_manager import RuntimeLoggerManager
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType

log = logging.getLogger("kafka.server.ConfigAdminManager")

CLUSTER_NAME = "kafka-cluster"  # Resource.CLUSTER_NAME
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3  # AlterConfigOp.OpType ids

# DynamicBrokerConfig's PerBrokerConfigs and ClusterLevelListenerConfigs
_CLUSTER_LEVEL_LISTENER_CONFIGS = frozenset({"max.connections", "max.connection.creation.rate",
                                             "num.network.threads"})
_PER_BROKER_CONFIGS = (_DYNAMIC_SECURITY_CONFIGS | _DYNAMIC_LISTENER_CONFIGS) - _CLUSTER_LEVEL_LISTENER_CONFIGS

Preprocessed = dict[int, ApiError]  # id(resource of the request) -> its result


def _resource_type(type_id: int) -> ConfigResourceType:
    """ConfigResource.Type.forId: UNKNOWN for an id it does not know."""
    try:
        return ConfigResourceType(type_id)
    except ValueError:
        return ConfigResourceType.UNKNOWN


def _resource_string(type_id: int, name: str) -> str:
    return f"ConfigResource(type={_resource_type(type_id).name}, name='{name}')"


class ConfigAdminManager:
    def __init__(self, node_id: int, conf: Any, config_repository: Any) -> None:
        self.node_id = node_id
        self.conf = conf
        self.config_repository = config_repository
        self.log_ident = f"[ConfigAdminManager[nodeId={node_id}]: "
        self.runtime_logger_manager = RuntimeLoggerManager(node_id, log)

    def preprocess(self, request: Any, authorize: Callable[[str, str], bool] | None = None) -> Preprocessed:
        """The resources this broker answers itself, each with its result: for an IncrementalAlterConfigs request
        (`authorize(resource type, name)` asked for BROKER_LOGGER) or, without `authorize`, an AlterConfigs one."""
        incremental = authorize is not None
        results: Preprocessed = {}
        resource_ids: dict[tuple[int, str], Any] = {}
        for resource in request.resources:
            preexisting = resource_ids.get((resource.resource_type, resource.resource_name))
            resource_ids[(resource.resource_type, resource.resource_name)] = resource
            if preexisting is not None:
                for r in (preexisting, resource):
                    results[id(r)] = ApiError(Errors.INVALID_REQUEST, "Each resource must appear at most once.")
        for resource in request.resources:
            if id(resource) in results:
                continue
            resource_type = _resource_type(resource.resource_type)
            try:
                if contains_duplicates(config.name for config in resource.configs):
                    raise InvalidRequestException("Error due to duplicate config keys")
                null_updates = [config.name for config in resource.configs
                                if (not incremental or config.config_operation != DELETE) and config.value is None]
                if null_updates:
                    raise InvalidRequestException("Null value not supported for : " + ", ".join(null_updates))
                if resource_type is ConfigResourceType.BROKER_LOGGER and incremental:
                    self.runtime_logger_manager.apply_changes_for_resource(
                        authorize("CLUSTER", CLUSTER_NAME), request.validate_only, resource)
                    results[id(resource)] = ApiError.NONE
                elif resource_type is ConfigResourceType.BROKER:
                    # blank: a cluster-wide default; else this broker's own id
                    if resource.resource_name:
                        self.validate_resource_name_is_current_node_id(resource.resource_name)
                    self.validate_broker_config_change(resource, resource.resource_name, incremental)
                elif resource_type in (ConfigResourceType.TOPIC, ConfigResourceType.CLIENT_METRICS):
                    pass  # the controller validates these
                else:
                    # legacy AlterConfigs has no BROKER_LOGGER: it ends here too
                    raise InvalidRequestException(f"Unknown resource type {resource.resource_type}")
            except Exception as t:
                err = ApiError.from_throwable(t)
                log.info("%sError preprocessing %s request on %s: %s", self.log_ident,
                         "incrementalAlterConfigs" if incremental else "alterConfigs",
                         _resource_string(resource.resource_type, resource.resource_name), err)
                results[id(resource)] = err
        return results

    def validate_broker_config_change(self, resource: Any, name: str, incremental: bool) -> None:
        per_broker_config = bool(name)
        if incremental:
            persistent_props = dict(self.config_repository.config((ConfigResourceType.BROKER, name)))
            config_props = self._from_persistent_props(persistent_props, per_broker_config)
            for config in resource.configs:
                if config.config_operation not in (SET, DELETE, APPEND, SUBTRACT):
                    raise InvalidRequestException(f"Unknown operations type {config.config_operation}")
            prepare_incremental_configs(resource.configs, config_props, KafkaConfigObject.config_keys())
        else:
            config_props = {config.name: config.value for config in resource.configs}
        try:
            self._validate_broker_config_change(config_props, per_broker_config)
        except Exception:
            log.error("%svalidation of configProps %s for %s failed with exception", self.log_ident, config_props,
                      _resource_string(ConfigResourceType.BROKER, name))
            raise

    def _validate_broker_config_change(self, props: Mapping[str, str], per_broker_config: bool) -> None:
        try:
            validate_configs(props, per_broker_config)
        except ApiException:
            raise
        except Exception as e:
            # KAFKA-13609: 3.9 answers INVALID_REQUEST here, not INVALID_CONFIG
            raise InvalidRequestException(str(e)) from e

    def _from_persistent_props(self, persistent_props: dict[str, str], per_broker_config: bool) -> dict[str, str]:
        """DynamicBrokerConfig.fromPersistentProps: what the metadata holds, less what could never be set."""
        props = dict(persistent_props)
        invalid = (_non_dynamic_configs(props) | _security_configs_without_listener_prefix(props)
                   | (set() if per_broker_config else _per_broker_configs(props)))
        for name in invalid:
            props.pop(name, None)
        return props

    def validate_resource_name_is_current_node_id(self, name: str) -> None:
        try:
            node_id = int(name)
        except ValueError:
            raise InvalidRequestException(f"Node id must be an integer, but it is: {name}") from None
        if node_id != self.node_id:
            raise InvalidRequestException(f"Unexpected broker id, expected {self.node_id}, but received {name}")


# -- the companion object -----------------------------------------------------------------------------------------

def copy_without_preprocessed(request: Any, processed: Preprocessed) -> Any:
    """The request with only the resources preprocessing left for the controller."""
    return dataclasses.replace(request, resources=tuple(r for r in request.resources if id(r) not in processed))


def reassemble_response(original: Any, preprocessing_responses: Preprocessed,
                        persistent_responses: Iterable[Any]) -> list[dict[str, Any]]:
    """reassembleIncrementalResponse / reassembleLegacyResponse: one response per resource of the original request,
    in its order, from preprocessing or else from the controller."""
    responses_by_resource = {(r.resource_name, r.resource_type): ApiError(Errors(r.error_code), r.error_message)
                             for r in persistent_responses}
    responses = []
    for r in original.resources:
        err = preprocessing_responses.get(id(r))
        if err is None:
            err = responses_by_resource.get((r.resource_name, r.resource_type))
            if err is None:
                log.error("The controller returned fewer results than we expected. No response found for %s.", r)
                err = ApiError(Errors.UNKNOWN_SERVER_ERROR)
        responses.append(dict(resource_name=r.resource_name, resource_type=r.resource_type, error_code=err.error,
                              error_message=err.message))
    return responses


def contains_duplicates(iterable: Iterable[Any]) -> bool:
    previous: set[Any] = set()
    for item in iterable:
        if item in previous:
            return True
        previous.add(item)
    return False


def prepare_incremental_configs(alter_config_ops: Iterable[Any], config_props: dict[str, str],
                                config_keys: Mapping[str, Any]) -> None:
    """Applies each operation (SET, DELETE, APPEND, SUBTRACT on a LIST config) to `config_props`."""
    def list_type(config_name: str) -> bool:
        config_key = config_keys.get(config_name)
        if config_key is None:
            raise InvalidConfigurationException(f"Unknown config name: {config_name}")
        return config_key.type is Type.LIST

    def default_list(config_name: str) -> str | None:
        default = config_keys[config_name].default_value
        if default is None or not isinstance(default, (list, tuple)):
            return default
        return ",".join(str(v) for v in default)

    for op in alter_config_ops:
        name = op.name
        if op.config_operation == SET:
            config_props[name] = op.value
        elif op.config_operation == DELETE:
            config_props.pop(name, None)
        elif op.config_operation == APPEND:
            if not list_type(name):
                raise InvalidConfigurationException(f"Config value append is not allowed for config key: {name}")
            old = config_props.get(name, default_list(name))
            old_value_list = old.split(",") if old else []
            appending = [v for v in op.value.split(",") if v not in old_value_list]
            config_props[name] = ",".join(old_value_list + appending)
        elif op.config_operation == SUBTRACT:
            if not list_type(name):
                raise InvalidConfigurationException(f"Config value subtract is not allowed for config key: {name}")
            old = config_props.get(name, default_list(name)) or ""
            removing = op.value.split(",")
            config_props[name] = ",".join(v for v in old.split(",") if v not in removing)


# -- DynamicBrokerConfig.validateConfigs ----------------------------------------------------------------------------

def validate_configs(props: Mapping[str, str], per_broker_config: bool) -> None:
    def check_invalid_props(invalid_prop_names: set[str], error_message: str) -> None:
        if invalid_prop_names:
            raise ConfigException(f"{error_message}: {_scala_set(invalid_prop_names)}")

    check_invalid_props(_non_dynamic_configs(props), "Cannot update these configs dynamically")
    check_invalid_props(_security_configs_without_listener_prefix(props),
                        "These security configs can be dynamically updated only per-listener using the listener "
                        "prefix")
    _validate_config_types(props)
    if not per_broker_config:
        check_invalid_props(_per_broker_configs(props),
                            "Cannot update these configs at default cluster level, broker id must be specified")


def _non_dynamic_configs(props: Mapping[str, str]) -> set[str]:
    return set(props) & (set(KafkaConfigObject.config_names()) - ALL_DYNAMIC_CONFIGS)


def _security_configs_without_listener_prefix(props: Mapping[str, str]) -> set[str]:
    return {name for name in props if name in _DYNAMIC_SECURITY_CONFIGS}


def _per_broker_configs(props: Mapping[str, str]) -> set[str]:
    def per_broker_listener_config(name: str) -> bool:
        match = _LISTENER_CONFIG_REGEX.fullmatch(name)
        return match is not None and match.group(1) not in _CLUSTER_LEVEL_LISTENER_CONFIGS
    return (set(props) & _PER_BROKER_CONFIGS) | {name for name in props if per_broker_listener_config(name)}


def _validate_config_types(props: Mapping[str, str]) -> None:
    """DynamicConfig.Broker.validate on the props, listener prefixes stripped: each known config's value parses."""
    keys = KafkaConfigObject.config_keys()
    for name, value in props.items():
        match = _LISTENER_CONFIG_REGEX.fullmatch(name)
        base_name = match.group(1) if match is not None else name
        key = keys.get(base_name)
        if key is not None and value is not None:
            parsed = ConfigDef.parse_type(base_name, value, key.type)
            if key.validator is not None:
                key.validator(base_name, parsed)


def _scala_set(names: set[str]) -> str:
    """How Scala prints a Set[String]."""
    return "Set(" + ", ".join(sorted(names)) + ")"


