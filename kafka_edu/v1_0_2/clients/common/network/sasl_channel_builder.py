"""Port of clients/src/main/java/org/apache/kafka/common/network/SaslChannelBuilder.java and the server side of
ChannelBuilders.java (Kafka 1.0.2): the channels of a SASL_PLAINTEXT listener, each with its authenticator."""

from __future__ import annotations

import socket
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.clients.common.network.selector import KafkaChannel
from kafka_edu.v1_0_2.clients.common.security.authenticator.credential_cache import CredentialCache
from kafka_edu.v1_0_2.clients.common.security.authenticator.sasl_server_authenticator import (
    GSSAPI_MECHANISM,
    SASL_ENABLED_MECHANISMS_CONFIG,
    SaslServerAuthenticator,
)
from kafka_edu.v1_0_2.clients.common.security.jaas_context import JaasContext

SASL_PLAINTEXT = "SASL_PLAINTEXT"


class SaslChannelBuilder:
    """Builds a listener's channels: each one logs in with the JAAS section and credentials loaded here, once."""

    def __init__(self, listener_name: str, security_protocol: str, jaas_context: JaasContext,
                 credential_cache: CredentialCache, api_version_manager: Any = None, processor: int = -1) -> None:
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.jaas_context = jaas_context
        self.credential_cache = credential_cache
        self.api_version_manager = api_version_manager
        self.processor = processor
        self.configs: dict[str, Any] = {}

    def configure(self, configs: dict[str, Any]) -> None:
        enabled_mechanisms = configs.get(SASL_ENABLED_MECHANISMS_CONFIG)
        # 1.0.2 logs the broker in to Kerberos here when GSSAPI is enabled; Kerberos is not ported
        if enabled_mechanisms is None or GSSAPI_MECHANISM in enabled_mechanisms:
            raise KafkaException(f"{GSSAPI_MECHANISM} (Kerberos) is not ported: set sasl.enabled.mechanisms to "
                                 f"PLAIN, SCRAM-SHA-256 and/or SCRAM-SHA-512 for listener {self.listener_name}")
        self.configs = configs

    def build_channel(self, id: str, sock: socket.socket, max_receive_size: int) -> KafkaChannel:
        channel = KafkaChannel(id, sock, max_receive_size)
        channel.authenticator = SaslServerAuthenticator(
            self.configs, id, self.jaas_context, self.credential_cache, self.listener_name, self.security_protocol,
            channel, self.api_version_manager, self.processor)
        return channel


def server_channel_builder(listener_name: str, security_protocol: str, config: Any,
                           credential_cache: CredentialCache, api_version_manager: Any = None,
                           processor: int = -1) -> SaslChannelBuilder | None:
    """ChannelBuilders.serverChannelBuilder: None for PLAINTEXT, whose channels need nothing built. TLS is not
    ported: an SSL or SASL_SSL listener speaks PLAINTEXT, as every listener did before SASL was ported."""
    if security_protocol != SASL_PLAINTEXT:
        return None
    configs = {**config.originals(), SASL_ENABLED_MECHANISMS_CONFIG: config.sasl_enabled_mechanisms}
    try:
        jaas_context = JaasContext.load_server_context(listener_name, configs)
    except Exception as e:
        raise KafkaException(str(e)) from e
    builder = SaslChannelBuilder(listener_name, security_protocol, jaas_context, credential_cache,
                                 api_version_manager, processor)
    builder.configure(configs)
    return builder
