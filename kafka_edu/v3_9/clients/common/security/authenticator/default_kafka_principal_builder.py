"""Port of clients/src/main/java/org/apache/kafka/common/security/authenticator/DefaultKafkaPrincipalBuilder.java
(Kafka 3.9): the principal builder used unless `principal.builder.class` names another. A PLAINTEXT connection is
KafkaPrincipal.ANONYMOUS; the SSL (certificate mapping) and SASL (authorization id, Kerberos short names) branches
are not ported, as SSL and SASL are not. It is also the KafkaPrincipalSerde for forwarded requests
(DefaultPrincipalData, version-prefixed)."""

from __future__ import annotations

import io
import struct
from typing import Any

from kio.schema.default_principal_data.v0.data import DefaultPrincipalData
from kio.serial import entity_reader, entity_writer

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS, KafkaPrincipal
from kafka_edu.v3_9.clients.common.security.auth.authentication_context import AuthenticationContext
from kafka_edu.v3_9.clients.common.security.auth.plaintext_authentication_context import (
    PlaintextAuthenticationContext,
)

_VERSION = struct.Struct(">h")
LOWEST_SUPPORTED_VERSION = 0  # DefaultPrincipalData's versions
HIGHEST_SUPPORTED_VERSION = 0


class SerializationException(KafkaException):
    """org.apache.kafka.common.errors.SerializationException."""


class DefaultKafkaPrincipalBuilder:
    def __init__(self, kerberos_short_namer: Any = None, ssl_principal_mapper: Any = None) -> None:
        self.kerberos_short_namer = kerberos_short_namer
        self.ssl_principal_mapper = ssl_principal_mapper

    def build(self, context: AuthenticationContext) -> KafkaPrincipal:
        if isinstance(context, PlaintextAuthenticationContext):
            return ANONYMOUS
        raise IllegalArgumentException(f"Unhandled authentication context type: {type(context).__name__}")

    def serialize(self, principal: KafkaPrincipal) -> bytes:
        data = DefaultPrincipalData(type_=principal.principal_type, name=principal.name,
                                    token_authenticated=getattr(principal, "token_authenticated", False))
        buffer = io.BytesIO()
        buffer.write(_VERSION.pack(HIGHEST_SUPPORTED_VERSION))
        entity_writer(DefaultPrincipalData)(buffer, data)
        return buffer.getvalue()

    def deserialize(self, bytes_: bytes) -> KafkaPrincipal:
        (version,) = _VERSION.unpack_from(bytes_)
        if version < LOWEST_SUPPORTED_VERSION or version > HIGHEST_SUPPORTED_VERSION:
            raise SerializationException(f"Invalid principal data version {version}")
        data, _ = entity_reader(DefaultPrincipalData)(memoryview(bytes_), _VERSION.size)
        # 1.0.2's KafkaPrincipal has no token_authenticated flag (delegation tokens are not ported)
        return KafkaPrincipal(data.type_, data.name)
