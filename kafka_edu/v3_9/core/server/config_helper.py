"""Port of core/src/main/scala/kafka/server/ConfigHelper.scala (Kafka 3.9): how a broker answers DescribeConfigs.

A topic's configs are the broker's log defaults (KafkaConfig.extract_log_config_map) overridden by the topic's own
configs from the ConfigRepository (the KRaft metadata cache); each carries the source it came from and, when asked,
its synonyms (the topic override, then the broker's log.* configs). A broker's configs are its KafkaConfig.

Port notes:
- DynamicBrokerConfig is not ported: nothing reconfigures a running broker, so there are no dynamic broker configs
  (DYNAMIC_BROKER_CONFIG / DYNAMIC_DEFAULT_BROKER_CONFIG never appear), the static ones are the KafkaConfig's
  originals and the defaults its ConfigDef's. Its brokerConfigSynonyms and AllDynamicConfigs live here.
- The port's ConfigDefs keep no documentation text: `documentation` is None even when asked for.
- BROKER_LOGGER answers with Python's loggers and their levels (Log4jController.loggers).
"""

from __future__ import annotations

import enum
import functools
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import ApiException, InvalidRequestException
from kafka_edu.v3_9.clients.common.config.config_def import Password, Type
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.core.log import log_cleaner
from kafka_edu.v3_9.core.network import socket_server
from kafka_edu.v3_9.core.network.request_channel import Request
from kafka_edu.v3_9.core.server import kafka_config as KafkaConfigObject
from kafka_edu.v3_9.core.server.controller_apis import AuthHelper
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
from kafka_edu.v3_9.metadata.metadata.kafka_config_schema import ConfigSource, convert_to_string
from kafka_edu.v3_9.server_common.server.config import server_log_configs as slc
from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import TOPIC_CONFIG_SYNONYMS
from kafka_edu.v3_9.storage.storage.internals.log import log_config as LogConfigObject
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig

log = logging.getLogger("kafka.server.ConfigHelper")

CLUSTER_NAME = "kafka-cluster"  # Resource.CLUSTER_NAME


class ConfigType(enum.IntEnum):
    """DescribeConfigsResponse.ConfigType: a config's data type as the response carries it (v3+)."""

    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9


# what a DescribeConfigsResourceResult holds where 3.9 leaves a field unset: the message's defaults
_UNSET_ENTRY_FIELDS: dict[str, Any] = dict(is_default=False, config_type=ConfigType.UNKNOWN, documentation="")


# -- DynamicBrokerConfig's companion object: what may change at runtime, and which configs name the same thing ------

_DYNAMIC_SECURITY_CONFIGS = frozenset({  # SslConfigs.RECONFIGURABLE_CONFIGS
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password", "ssl.truststore.type",
    "ssl.truststore.location", "ssl.truststore.password", "ssl.keystore.certificate.chain", "ssl.keystore.key",
    "ssl.truststore.certificates"})
_DYNAMIC_LOG_CONFIGS = frozenset(synonym for name, synonym in TOPIC_CONFIG_SYNONYMS.items()
                                 if name != "message.format.version")  # DynamicLogConfig.ReconfigurableConfigs
_DYNAMIC_THREAD_POOL_CONFIGS = frozenset({"num.io.threads", "num.replica.fetchers",
                                          "num.recovery.threads.per.data.dir", "background.threads"})
_DYNAMIC_LISTENER_CONFIGS = frozenset({
    "advertised.listeners", "listeners", "listener.security.protocol.map",
    "principal.builder.class", "ssl.protocol", "ssl.provider", "ssl.cipher.suites", "ssl.enabled.protocols",
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm", "ssl.endpoint.identification.algorithm", "ssl.secure.random.implementation",
    "ssl.client.auth", "ssl.engine.factory.class",
    "sasl.mechanism.inter.broker.protocol", "sasl.jaas.config", "sasl.enabled.mechanisms",
    "sasl.kerberos.service.name", "sasl.kerberos.kinit.cmd", "sasl.kerberos.ticket.renew.window.factor",
    "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.min.time.before.relogin",
    "sasl.kerberos.principal.to.local.rules", "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter",
    "sasl.login.refresh.min.period.seconds", "sasl.login.refresh.buffer.seconds",
    "max.connections", "max.connection.creation.rate", "num.network.threads"})
_DYNAMIC_PRODUCER_STATE_MANAGER_CONFIGS = frozenset({"producer.id.expiration.ms",
                                                     "transaction.partition.verification.enable"})
_DYNAMIC_REMOTE_LOG_CONFIGS = frozenset({
    "remote.log.index.file.cache.total.size.bytes", "remote.fetch.max.wait.ms",
    "remote.log.manager.copy.max.bytes.per.second", "remote.log.manager.fetch.max.bytes.per.second"})

ALL_DYNAMIC_CONFIGS = (_DYNAMIC_SECURITY_CONFIGS | log_cleaner.RECONFIGURABLE_CONFIGS | _DYNAMIC_LOG_CONFIGS
                       | _DYNAMIC_THREAD_POOL_CONFIGS | {"metric.reporters"} | _DYNAMIC_LISTENER_CONFIGS
                       | socket_server.RECONFIGURABLE_CONFIGS | _DYNAMIC_PRODUCER_STATE_MANAGER_CONFIGS
                       | _DYNAMIC_REMOTE_LOG_CONFIGS)

_LISTENER_MECHANISM_CONFIGS = ("sasl.jaas.config", "sasl.login.callback.handler.class", "sasl.login.class",
                               "sasl.server.callback.handler.class", "connections.max.reauth.ms")
_LISTENER_CONFIG_REGEX = re.compile(r"listener\.name\.[^.]*\.(.*)")


def broker_config_synonyms(name: str, match_listener_override: bool) -> list[str]:
    """DynamicBrokerConfig.brokerConfigSynonyms: the broker configs that set `name`, highest precedence first."""
    if name in (slc.LOG_ROLL_TIME_MILLIS_CONFIG, slc.LOG_ROLL_TIME_HOURS_CONFIG):
        return [slc.LOG_ROLL_TIME_MILLIS_CONFIG, slc.LOG_ROLL_TIME_HOURS_CONFIG]
    if name in (slc.LOG_ROLL_TIME_JITTER_MILLIS_CONFIG, slc.LOG_ROLL_TIME_JITTER_HOURS_CONFIG):
        return [slc.LOG_ROLL_TIME_JITTER_MILLIS_CONFIG, slc.LOG_ROLL_TIME_JITTER_HOURS_CONFIG]
    if name == slc.LOG_FLUSH_INTERVAL_MS_CONFIG:  # the scheduler interval is its default
        return [slc.LOG_FLUSH_INTERVAL_MS_CONFIG, slc.LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG]
    if name in (slc.LOG_RETENTION_TIME_MILLIS_CONFIG, slc.LOG_RETENTION_TIME_MINUTES_CONFIG,
                slc.LOG_RETENTION_TIME_HOURS_CONFIG):
        return [slc.LOG_RETENTION_TIME_MILLIS_CONFIG, slc.LOG_RETENTION_TIME_MINUTES_CONFIG,
                slc.LOG_RETENTION_TIME_HOURS_CONFIG]
    match = _LISTENER_CONFIG_REGEX.fullmatch(name)
    if match is not None and match_listener_override:
        base_name = match.group(1)
        mechanism_config = next((c for c in _LISTENER_MECHANISM_CONFIGS if base_name.endswith(c)), None)
        return [name, mechanism_config or base_name]
    return [name]


def _to_string_map_with_password_values(configs: Mapping[str, Any]) -> dict[str, str]:
    """ConfigDef.convertToStringMapWithPasswordValues: null values are left out."""
    result = {}
    for name, value in configs.items():
        if isinstance(value, Password):
            string_value: str | None = value.value()
        elif isinstance(value, (list, tuple)):
            string_value = convert_to_string(value, Type.LIST)
        elif isinstance(value, bool):
            string_value = convert_to_string(value, Type.BOOLEAN)
        else:
            string_value = None if value is None else str(value)
        if string_value is not None:
            result[name] = string_value
    return result


def _convert_to_string(value: Any, config_type: Type | None) -> str | None:
    """ConfigDef.convertToString, also for a value of unknown type."""
    if value is None:
        return None
    if config_type is None:
        return _to_string_map_with_password_values({"": value}).get("")
    return convert_to_string(value, config_type)


def _loggers() -> dict[str, str]:
    """Log4jController.loggers: every logger by name with its effective level, the root one as "root"."""
    loggers = {"root": logging.getLevelName(logging.getLogger().level)}
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):
            loggers[name] = logging.getLevelName(logger.getEffectiveLevel())
    return loggers


# -- the helper -------------------------------------------------------------------------------------------------------

class ConfigHelper:
    def __init__(self, metadata_cache: Any, config: Any, config_repository: Any) -> None:
        self.metadata_cache = metadata_cache
        self.config = config
        self.config_repository = config_repository
        # DynamicBrokerConfig's views of the config (no dynamic ones: see the module's notes)
        self._current_dynamic_broker_configs: dict[str, str] = {}
        self._current_dynamic_default_configs: dict[str, str] = {}

    @functools.cached_property
    def _static_broker_configs(self) -> dict[str, str]:
        return _to_string_map_with_password_values(self.config.originals_from_this_config())

    @functools.cached_property
    def _static_default_configs(self) -> dict[str, str]:
        return _to_string_map_with_password_values(KafkaConfigObject.default_values())

    def all_configs(self, config: Any) -> dict[str, Any]:
        """The originals that are set, then every defined non-internal config's parsed value over them."""
        if isinstance(config, LogConfig):
            originals, parsed = config.props, LogConfigObject.CONFIG.parse(config.props)
        else:
            internal = getattr(KafkaConfigObject.config_def, "internal_names", set())
            originals = config.originals()
            parsed = {k: v for k, v in config.values().items() if k not in internal}
        return {**{k: v for k, v in originals.items() if v is not None}, **parsed}

    def handle_describe_configs_request(self, request: Request, auth_helper: AuthHelper) -> dict[str, Any]:
        """The DescribeConfigsResponseData (as a dict of its fields) for the request, before throttling."""
        describe_configs_request = request.body()
        authorized_resources, unauthorized_resources = [], []
        for resource in describe_configs_request.resources:
            match _resource_type(resource.resource_type):
                case ConfigResourceType.BROKER | ConfigResourceType.BROKER_LOGGER | ConfigResourceType.CLIENT_METRICS:
                    authorized = auth_helper.authorize(request.context, "DESCRIBE_CONFIGS", "CLUSTER", CLUSTER_NAME)
                case ConfigResourceType.TOPIC:
                    authorized = auth_helper.authorize(request.context, "DESCRIBE_CONFIGS", "TOPIC",
                                                       resource.resource_name)
                case rt:
                    raise InvalidRequestException(f"Unexpected resource type {rt.name} for resource "
                                                  f"{resource.resource_name}")
            (authorized_resources if authorized else unauthorized_resources).append(resource)
        authorized_configs = self.describe_configs(authorized_resources,
                                                   getattr(describe_configs_request, "include_synonyms", False),
                                                   getattr(describe_configs_request, "include_documentation", False))
        unauthorized_configs = []
        for resource in unauthorized_resources:
            match _resource_type(resource.resource_type):
                case ConfigResourceType.BROKER | ConfigResourceType.BROKER_LOGGER | ConfigResourceType.CLIENT_METRICS:
                    error, message = Errors.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed."
                case ConfigResourceType.TOPIC:
                    error, message = Errors.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed."
                case rt:
                    raise InvalidRequestException(f"Unexpected resource type {rt.name} for resource "
                                                  f"{resource.resource_name}")
            unauthorized_configs.append(dict(error_code=error, error_message=message, configs=[],
                                             resource_name=resource.resource_name,
                                             resource_type=resource.resource_type))
        return dict(results=authorized_configs + unauthorized_configs)

    def describe_configs(self, resource_to_config_names: list[Any], include_synonyms: bool,
                         include_documentation: bool) -> list[dict[str, Any]]:
        results = []
        for resource in resource_to_config_names:
            def create_response_config(configs: Mapping[str, Any],
                                       create_config_entry: Callable[[str, Any], dict[str, Any]],
                                       resource: Any = resource) -> dict[str, Any]:
                keys = resource.configuration_keys
                filtered_config_pairs = (list(configs.items()) if not keys
                                         else [(n, v) for n, v in configs.items() if n in keys])
                return dict(error_code=Errors.NONE, error_message="",
                            configs=[create_config_entry(name, value) for name, value in filtered_config_pairs])

            try:
                match _resource_type(resource.resource_type):
                    case ConfigResourceType.TOPIC:
                        topic = resource.resource_name
                        Topic.validate(topic)
                        if self.metadata_cache.contains(topic):
                            topic_props = self.config_repository.topic_config(topic)
                            log_config = LogConfig({**self.config.extract_log_config_map(), **topic_props},
                                                   frozenset(topic_props))
                            config_result = create_response_config(
                                self.all_configs(log_config),
                                self._topic_config_entry(log_config, topic_props, include_synonyms,
                                                         include_documentation))
                        else:
                            config_result = dict(error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION, error_message="",
                                                 configs=[])

                    case ConfigResourceType.BROKER:
                        if not resource.resource_name:
                            config_result = create_response_config(
                                self._current_dynamic_default_configs,
                                self._broker_config_entry(False, include_synonyms, include_documentation))
                        elif _resource_name_to_broker_id(resource.resource_name) == self.config.broker_id:
                            config_result = create_response_config(
                                self.all_configs(self.config),
                                self._broker_config_entry(True, include_synonyms, include_documentation))
                        else:
                            raise InvalidRequestException(f"Unexpected broker id, expected {self.config.broker_id} "
                                                          f"or empty string, but received {resource.resource_name}")

                    case ConfigResourceType.BROKER_LOGGER:
                        if not resource.resource_name:
                            raise InvalidRequestException("Broker id must not be empty")
                        elif _resource_name_to_broker_id(resource.resource_name) != self.config.broker_id:
                            raise InvalidRequestException(f"Unexpected broker id, expected {self.config.broker_id} "
                                                          f"but received {resource.resource_name}")
                        else:
                            config_result = create_response_config(_loggers(), lambda name, value: dict(
                                name=name, value=str(value), config_source=ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG,
                                is_sensitive=False, read_only=False, synonyms=[], **_UNSET_ENTRY_FIELDS))

                    case ConfigResourceType.CLIENT_METRICS:
                        subscription_name = resource.resource_name
                        if not subscription_name:
                            raise InvalidRequestException("Client metrics subscription name must not be empty")
                        entity_props = self.config_repository.config((ConfigResourceType.CLIENT_METRICS,
                                                                      subscription_name))
                        config_result = dict(error_code=Errors.NONE, error_message="", configs=[
                            dict(name=str(name), value=str(value),
                                 config_source=ConfigSource.DYNAMIC_CLIENT_METRICS_CONFIG, is_sensitive=False,
                                 read_only=False, synonyms=[], **_UNSET_ENTRY_FIELDS)
                            for name, value in entity_props.items()])

                    case resource_type:
                        raise InvalidRequestException(f"Unsupported resource type: {resource_type.name}")
                config_result.update(resource_name=resource.resource_name, resource_type=resource.resource_type)
                results.append(config_result)
            except Exception as e:
                # a client's mistake is logged lower than an unexpected failure
                message = f"Error processing describe configs request for resource {resource}"
                if isinstance(e, ApiException):
                    log.info(message, exc_info=e)
                else:
                    log.error(message, exc_info=e)
                err = ApiError.from_throwable(e)
                results.append(dict(resource_name=resource.resource_name, resource_type=resource.resource_type,
                                    error_message=err.message, error_code=err.error, configs=[]))
        return results

    def _topic_config_entry(self, log_config: LogConfig, topic_props: Mapping[str, str], include_synonyms: bool,
                            include_documentation: bool) -> Callable[[str, Any], dict[str, Any]]:
        return lambda name, value: self.create_topic_config_entry(log_config, topic_props, include_synonyms,
                                                                  include_documentation, name, value)

    def create_topic_config_entry(self, log_config: LogConfig, topic_props: Mapping[str, str],
                                  include_synonyms: bool, include_documentation: bool, name: str,
                                  value: Any) -> dict[str, Any]:
        config_key = LogConfigObject.CONFIG.config_keys.get(name)
        config_entry_type = None if config_key is None else config_key.type
        is_sensitive = KafkaConfigObject.maybe_sensitive(config_entry_type)
        value_as_string = None if is_sensitive else _convert_to_string(value, config_entry_type)
        synonym = TOPIC_CONFIG_SYNONYMS.get(name)
        all_synonyms = ([] if synonym is None
                        else self._config_synonyms(synonym, self._broker_synonyms(synonym), is_sensitive))
        if name in topic_props:
            all_synonyms = [dict(name=name, value=value_as_string,
                                 source=ConfigSource.DYNAMIC_TOPIC_CONFIG)] + all_synonyms
        source = ConfigSource.DEFAULT_CONFIG if not all_synonyms else all_synonyms[0]["source"]
        synonyms = all_synonyms if include_synonyms else []
        data_type = self._config_response_type(config_entry_type)
        config_documentation = None if not include_documentation else _documentation_of(config_key)
        return dict(name=name, value=value_as_string, config_source=source, is_sensitive=is_sensitive,
                    read_only=False, synonyms=synonyms, documentation=config_documentation, config_type=data_type,
                    is_default=False)

    def _broker_config_entry(self, per_broker_config: bool, include_synonyms: bool,
                             include_documentation: bool) -> Callable[[str, Any], dict[str, Any]]:
        return lambda name, value: self._create_broker_config_entry(per_broker_config, include_synonyms,
                                                                    include_documentation, name, value)

    def _create_broker_config_entry(self, per_broker_config: bool, include_synonyms: bool,
                                    include_documentation: bool, name: str, value: Any) -> dict[str, Any]:
        all_names = self._broker_synonyms(name)
        config_entry_type = KafkaConfigObject.config_type(name)
        is_sensitive = KafkaConfigObject.maybe_sensitive(config_entry_type)
        if is_sensitive:
            value_as_string = None
        elif isinstance(value, str):
            value_as_string = value
        else:
            value_as_string = _convert_to_string(value, config_entry_type)
        all_synonyms = [s for s in self._config_synonyms(name, all_names, is_sensitive)
                        if per_broker_config or s["source"] == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]
        synonyms = all_synonyms if include_synonyms else []
        source = ConfigSource.DEFAULT_CONFIG if not all_synonyms else all_synonyms[0]["source"]
        read_only = name not in ALL_DYNAMIC_CONFIGS
        data_type = self._config_response_type(config_entry_type)
        config_documentation = self._broker_documentation(name) if include_documentation else None
        return dict(name=name, value=value_as_string, config_source=source, is_sensitive=is_sensitive,
                    read_only=read_only, synonyms=synonyms, documentation=config_documentation, config_type=data_type,
                    is_default=False)

    def _config_synonyms(self, name: str, synonyms: list[str], is_sensitive: bool) -> list[dict[str, Any]]:
        all_synonyms: list[dict[str, Any]] = []

        def maybe_add_synonyms(configs: Mapping[str, str], source: ConfigSource) -> None:
            for synonym in synonyms:
                if synonym in configs:
                    all_synonyms.append(dict(name=synonym, value=None if is_sensitive else configs[synonym],
                                             source=source))

        maybe_add_synonyms(self._current_dynamic_broker_configs, ConfigSource.DYNAMIC_BROKER_CONFIG)
        maybe_add_synonyms(self._current_dynamic_default_configs, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
        maybe_add_synonyms(self._static_broker_configs, ConfigSource.STATIC_BROKER_CONFIG)
        maybe_add_synonyms(self._static_default_configs, ConfigSource.DEFAULT_CONFIG)
        # drop what comes before `name` itself (e.g. a listener override when describing the base config)
        first = next((i for i, s in enumerate(all_synonyms) if s["name"] == name), len(all_synonyms))
        return all_synonyms[first:]

    def _broker_synonyms(self, name: str) -> list[str]:
        return broker_config_synonyms(name, match_listener_override=True)

    def _broker_documentation(self, name: str) -> str | None:
        return _documentation_of(KafkaConfigObject.config_def.config_keys.get(name))

    @staticmethod
    def _config_response_type(config_type: Type | None) -> ConfigType:
        if config_type is None:
            return ConfigType.UNKNOWN
        return ConfigType.__members__.get(config_type.name, ConfigType.UNKNOWN)


def _resource_type(resource_type_id: int) -> ConfigResourceType:
    """ConfigResource.Type.forId: the id itself stands for an unknown type."""
    try:
        return ConfigResourceType(resource_type_id)
    except ValueError:
        return ConfigResourceType.UNKNOWN


def _documentation_of(config_key: Any) -> str | None:
    return getattr(config_key, "documentation", None)


def _resource_name_to_broker_id(resource_name: str) -> int:
    try:
        return int(resource_name)
    except ValueError:
        raise InvalidRequestException(f"Broker id must be an integer, but it is: {resource_name}") from None
