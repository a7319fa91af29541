"""Port of clients/src/main/java/org/apache/kafka/common/requests/RequestContext.java (Kafka 3.9): everything the
broker knows about a request besides its body: its header, the connection it came on, who sent it (principal,
address, client software), on which listener, and whether that listener is the privileged one (the inter-broker or
control-plane listener). It parses the body and frames the response for the request's version.

Bodies are kio's message objects, read and written by the project's codec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.network.send import Send
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import (
    CodecError,
    UnsupportedVersionError,
    decode_request,
)
from kafka_edu.v3_9.clients.common.protocol.send_builder import SendBuilder
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader, frame_bytes
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol


@dataclass(frozen=True)
class RequestAndSize:
    """The parsed body and its size in bytes. `request` is None for an ApiVersions request of a version this broker
    does not know: it is still answered (UNSUPPORTED_VERSION, at v0) so that the client can pick a version."""

    request: Any
    size: int


class RequestContext:
    def __init__(self, header: RequestHeader, connection_id: str, client_address: str | None,
                 client_port: int | None, principal: KafkaPrincipal, listener_name: ListenerName,
                 security_protocol: SecurityProtocol, client_information: ClientInformation,
                 from_privileged_listener: bool, principal_serde: Any = None) -> None:
        self.header = header
        self.connection_id = connection_id
        self.client_address = client_address  # the client's IP, as InetAddress.getHostAddress gives it
        self.client_port = client_port
        self.principal = principal
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.client_information = client_information
        self.from_privileged_listener = from_privileged_listener
        self.principal_serde = principal_serde

    def parse_request(self, buffer: ByteBuffer | bytes | bytearray | memoryview) -> RequestAndSize:
        """The body after the header; InvalidRequestException when it cannot be parsed."""
        try:
            # which versions this listener serves was decided before (the Processor's isApiEnabled check): here any
            # version the message schema knows parses, whatever another part of the process narrowed ApiKeys to
            decoded = decode_request(frame_bytes(buffer), _any_known_version)
        except CodecError as e:
            if isinstance(e, UnsupportedVersionError) and e.api_key is ApiKeys.API_VERSIONS:
                return RequestAndSize(None, 0)
            raise InvalidRequestException(f"Error getting request for apiKey: {self.header.api_key.name}, "
                                          f"apiVersion: {self.header.api_version}, connectionId: "
                                          f"{self.connection_id}, listenerName: {self.listener_name}, principal: "
                                          f"{self.principal}") from e
        return RequestAndSize(decoded.body, decoded.size - self.header.size)

    def build_response_send(self, body: Any) -> Send:
        """The response framed with its size, in the request's version (v0 for an unsupported ApiVersions); records
        are sent from where they are (SendBuilder)."""
        return SendBuilder.build_response_send(self.header.api_key, self.api_version(), self.header.correlation_id,
                                               body)

    def is_unsupported_api_versions_request(self) -> bool:
        return self.header.api_key is ApiKeys.API_VERSIONS and not _any_known_version(ApiKeys.API_VERSIONS,
                                                                                       self.header.api_version)

    def api_version(self) -> int:
        # an ApiVersions request of a version this broker lacks is answered at v0, which every client reads
        return 0 if self.is_unsupported_api_versions_request() else self.header.api_version

    def client_id(self) -> str:
        return self.header.client_id

    def correlation_id(self) -> int:
        return self.header.correlation_id

    def __str__(self) -> str:
        return (f"RequestContext(header={self.header}, connectionId='{self.connection_id}', "
                f"clientAddress=/{self.client_address}, principal={self.principal}, "
                f"listenerName={self.listener_name}, securityProtocol={self.security_protocol.name}, "
                f"clientInformation={self.client_information}, fromPrivilegedListener="
                f"{str(self.from_privileged_listener).lower()})")


def _any_known_version(api: ApiKeys, version: int) -> bool:
    return api.oldest_version <= version <= api.latest_version
