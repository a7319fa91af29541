"""Port of clients/src/main/java/org/apache/kafka/common/requests/RequestHeader.java (Kafka 3.9): the header every
request starts with (api key and version, client id, correlation id), read without the body so that the broker can
refuse a disabled API before parsing it.

The wire format is the project's codec (kafka_edu/v3_9/clients/common/protocol/codec.py), which also takes off the
traceparent a kafka-edu sender appends to the client id (or puts in a flexible header's tagged field) and keeps it
here, outside the client id every consumer sees.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import InvalidRequestError, decode_request_header


def frame_bytes(buffer: ByteBuffer | bytes | bytearray | memoryview) -> bytes | bytearray | memoryview:
    """A received payload (a ByteBuffer from the network layer) as the bytes the codec reads."""
    return buffer.remaining_view() if isinstance(buffer, ByteBuffer) else buffer


@dataclass(frozen=True)
class RequestHeader:
    api_key: ApiKeys
    api_version: int
    client_id: str
    correlation_id: int
    header_version: int = 1
    size: int = 0  # bytes of the header on the wire
    traceparent: str | None = None  # the sender's span (kafka-edu's causality), None for any other client

    @staticmethod
    def parse(buffer: ByteBuffer | bytes | bytearray | memoryview) -> RequestHeader:
        """InvalidRequestException when the header cannot be read (an unknown api key included), as Kafka's."""
        try:
            decoded = decode_request_header(frame_bytes(buffer))
        except InvalidRequestError as e:
            raise InvalidRequestException(f"Error parsing request header. Our best guess of the apiKey is: {e}") \
                from e
        return RequestHeader(decoded.api_key, decoded.api_version, decoded.client_id, decoded.correlation_id,
                             decoded.header_version, decoded.size, decoded.traceparent)

    def __str__(self) -> str:
        return (f"RequestHeader(apiKey={self.api_key.name}, apiVersion={self.api_version}, "
                f"clientId={self.client_id}, correlationId={self.correlation_id}, "
                f"headerVersion={self.header_version})")
