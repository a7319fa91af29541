"""Port of clients/src/main/java/org/apache/kafka/common/network/ChannelBuilders.java (Kafka 3.9): the channel builder
for a listener's security protocol, configured with the listener's own configs, and the principal builder its
channels use.

Only PLAINTEXT is ported: SSL (SslChannelBuilder, SslTransportLayer) and SASL (SaslChannelBuilder and its
authenticators, JAAS contexts, credential and token caches) raise IllegalArgumentException here for now."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import AbstractConfig
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidConfigurationException
from kafka_edu.v3_9.clients.common.network.channel_builder import ChannelBuilder
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.security.auth.kafka_principal_builder import KafkaPrincipalBuilder
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.security.authenticator.default_kafka_principal_builder import (
    DefaultKafkaPrincipalBuilder,
)
from kafka_edu.v3_9.clients.common.utils.time import Time

PRINCIPAL_BUILDER_CLASS_CONFIG = "principal.builder.class"  # BrokerSecurityConfigs
CLIENT = "CLIENT"  # ConnectionMode.CLIENT
SERVER = "SERVER"  # ConnectionMode.SERVER


def client_channel_builder(security_protocol: SecurityProtocol, context_type: Any, config: AbstractConfig,
                           listener_name: ListenerName | None, client_sasl_mechanism: str | None, time: Time,
                           sasl_handshake_request_enable: bool, log_context: str = "") -> ChannelBuilder:
    """context_type: the JAAS context type, required for SASL; listener_name: set for inter-broker clients."""
    if security_protocol in (SecurityProtocol.SASL_PLAINTEXT, SecurityProtocol.SASL_SSL):
        if context_type is None:
            raise IllegalArgumentException(
                f"`contextType` must be non-null if `securityProtocol` is `{security_protocol.name}`")
        if client_sasl_mechanism is None:
            raise IllegalArgumentException(
                f"`clientSaslMechanism` must be non-null in client mode if `securityProtocol` is "
                f"`{security_protocol.name}`")
    return _create(security_protocol, CLIENT, config, listener_name)


def server_channel_builder(listener_name: ListenerName, is_inter_broker_listener: bool,
                           security_protocol: SecurityProtocol, config: AbstractConfig,
                           credential_cache: Any = None, token_cache: Any = None, time: Time | None = None,
                           log_context: str = "", api_version_supplier: Callable[[int], Any] | None = None,
                           ) -> ChannelBuilder:
    """credential_cache, token_cache, api_version_supplier: SASL's (not ported)."""
    return _create(security_protocol, SERVER, config, listener_name)


def _create(security_protocol: SecurityProtocol, connection_mode: str, config: AbstractConfig,
            listener_name: ListenerName | None) -> ChannelBuilder:
    # imported here: PlaintextChannelBuilder takes create_principal_builder from this module (Kafka's cycle too)
    from kafka_edu.v3_9.clients.common.network.plaintext_channel_builder import PlaintextChannelBuilder

    configs = channel_builder_configs(config, listener_name)
    if security_protocol is SecurityProtocol.PLAINTEXT:
        channel_builder: ChannelBuilder = PlaintextChannelBuilder(listener_name)
    elif security_protocol in (SecurityProtocol.SSL, SecurityProtocol.SASL_SSL, SecurityProtocol.SASL_PLAINTEXT):
        raise IllegalArgumentException(f"Unexpected securityProtocol {security_protocol.name}: only PLAINTEXT "
                                       "channels are ported to the 3.9 tree")
    else:
        raise IllegalArgumentException(f"Unexpected securityProtocol {security_protocol}")
    channel_builder.configure(configs)
    return channel_builder


def channel_builder_configs(config: AbstractConfig, listener_name: ListenerName | None) -> dict[str, Any]:
    """The parsed configs (with the listener's `listener.name.<listener>.` overrides), plus the originals that are
    neither parsed nor shadowed by a parsed listener override (custom configs of plugins)."""
    if listener_name is None:
        parsed_configs = config.values()
    else:
        parsed_configs = _values_with_prefix_override(config, listener_name.config_prefix())

    for key, value in config.originals().items():
        if key in parsed_configs:
            continue  # already parsed
        if (listener_name is not None and key.startswith(listener_name.config_prefix())
                and key[len(listener_name.config_prefix()):] in parsed_configs):
            continue  # a listener-prefixed config already parsed
        if listener_name is not None and key[key.find(".") + 1:] in parsed_configs:
            continue  # `{mechanism}.some.prop` where `some.prop` is parsed (a listener prefix is in use)
        parsed_configs[key] = value
    return parsed_configs


def _values_with_prefix_override(config: AbstractConfig, prefix: str) -> dict[str, Any]:
    """AbstractConfig.valuesWithPrefixOverride (1.0.2's AbstractConfig has none): the parsed values, each overridden
    by `<prefix><name>`, and `<prefix><mechanism>.<name>` kept as `<mechanism>.<name>`, for defined names (the
    parsed values' keys are the ConfigDef's names). Overrides are taken as given, not parsed again."""
    result = config.values()
    defined = set(result)
    for key, value in config.originals().items():
        if key.startswith(prefix) and len(key) > len(prefix):
            key_with_no_prefix = key[len(prefix):]
            if key_with_no_prefix in defined:
                result[key_with_no_prefix] = value
            elif key_with_no_prefix[key_with_no_prefix.find(".") + 1:] in defined:
                result[key_with_no_prefix] = value
    return result


def create_principal_builder(configs: Mapping[str, Any], kerberos_short_namer: Any,
                             ssl_principal_mapper: Any) -> KafkaPrincipalBuilder:
    """The `principal.builder.class` (a class, or its dotted name), DefaultKafkaPrincipalBuilder when unset;
    configured with the configs if it is Configurable."""
    principal_builder_class = configs.get(PRINCIPAL_BUILDER_CLASS_CONFIG)
    if isinstance(principal_builder_class, str):
        module, _, name = principal_builder_class.rpartition(".")
        principal_builder_class = getattr(importlib.import_module(module), name)
    if principal_builder_class is None or principal_builder_class is DefaultKafkaPrincipalBuilder:
        builder: Any = DefaultKafkaPrincipalBuilder(kerberos_short_namer, ssl_principal_mapper)
    elif isinstance(principal_builder_class, type) and callable(getattr(principal_builder_class, "build", None)):
        builder = principal_builder_class()  # Utils.newInstance
    else:
        raise InvalidConfigurationException(f"Type {principal_builder_class} is not an instance of "
                                            "org.apache.kafka.common.security.auth.KafkaPrincipalBuilder")
    if callable(getattr(builder, "configure", None)):
        builder.configure(configs)
    return builder
