"""Port of metadata/src/test/java/org/apache/kafka/metadata/authorizer/MockAuthorizableRequestContext.java (Kafka 3.9):
a request context for the authorizer's tests."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS, KafkaPrincipal
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys


def _local_host_address() -> str:
    """InetAddress.getLocalHost().getHostAddress()."""
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


@dataclass(frozen=True)
class MockAuthorizableRequestContext:
    """What the StandardAuthorizer reads of a request's context: the principal, the client's address and the
    request's header (for the audit log)."""

    principal: KafkaPrincipal = ANONYMOUS
    client_address: str = field(default_factory=_local_host_address)
    listener_name: str = "PLAINTEXT"
    request_type: ApiKeys = ApiKeys.FETCH
    client_id: str = "myClientId"
    correlation_id: int = 123

    @property
    def header(self) -> Any:
        return SimpleNamespace(api_key=self.request_type, api_version=self.request_type.latest_version,
                               correlation_id=self.correlation_id, client_id=self.client_id)
