"""Kafka wire-protocol glue over kio's 3.9 schemas: the org.apache.kafka.common.protocol / requests layer."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys, api_version_entries, supported_versions
from kafka_edu.v3_9.clients.common.protocol.codec import (
    CLIENT_ID_TRACEPARENT_MARKER,
    TRACEPARENT_TAG,
    CodecError,
    DecodedRequest,
    DecodedResponse,
    InvalidRequestError,
    InvalidResponseError,
    UnknownApiKeyError,
    UnsupportedVersionError,
    api_versions_unsupported_response,
    decode_request,
    decode_response,
    encode_request,
    encode_response,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

__all__ = [
    "CLIENT_ID_TRACEPARENT_MARKER", "TRACEPARENT_TAG", "ApiKeys", "CodecError", "DecodedRequest", "DecodedResponse",
    "Errors", "InvalidRequestError", "InvalidResponseError", "UnknownApiKeyError", "UnsupportedVersionError",
    "api_version_entries", "api_versions_unsupported_response", "decode_request", "decode_response", "encode_request",
    "encode_response", "supported_versions",
]
