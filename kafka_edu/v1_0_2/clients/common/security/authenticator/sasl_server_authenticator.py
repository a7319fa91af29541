"""Port of clients/src/main/java/org/apache/kafka/common/security/authenticator/SaslServerAuthenticator.java and
SaslServerCallbackHandler.java (Kafka 1.0.2).

A SASL_PLAINTEXT connection authenticates before any of its requests reaches the request channel: the network
thread feeds this state machine every frame the client sends until the login is complete. A client may first ask
for ApiVersions, then names its mechanism in SaslHandshake; with SaslHandshake v1 each SASL token travels in a
SaslAuthenticate request and gets a SaslAuthenticate response (KIP-152, new in 1.0), with v0 the tokens travel
raw, size-prefixed, as 0.10 clients send them.
"""

from __future__ import annotations

import enum
import logging
import struct
import time
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import (
    AuthenticationException,
    IllegalArgumentException,
    IllegalSaslStateException,
    IllegalStateException,
    InvalidRequestException,
    SaslAuthenticationException,
    SaslException,
    UnsupportedSaslMechanismException,
    UnsupportedVersionException,
)
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka_edu.v1_0_2.clients.common.security.authenticator.credential_cache import CredentialCache
from kafka_edu.v1_0_2.clients.common.security.jaas_context import JaasContext
from kafka_edu.v1_0_2.clients.common.security.plain.plain_sasl_server import PLAIN_MECHANISM, PlainSaslServer
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism
from kafka_edu.v1_0_2.clients.common.security.scram.scram_sasl_server import ScramSaslServer, ScramServerCallbackHandler
from kafka_edu.v1_0_2.core.network.request_channel import Request
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import (
    InvalidRequestError,
    UnsupportedVersionError,
    api_versions_unsupported_response,
    decode_request,
    encode_response,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

log = logging.getLogger("org.apache.kafka.common.security.authenticator.SaslServerAuthenticator")

# GSSAPI limits tokens to 64K; Kafka allows a bit more for other mechanisms, and closes a connection sending more.
MAX_RECEIVE_SIZE = 524288
SASL_ENABLED_MECHANISMS_CONFIG = "sasl.enabled.mechanisms"
GSSAPI_MECHANISM = "GSSAPI"


class SaslState(enum.Enum):
    INITIAL_REQUEST = "INITIAL_REQUEST"  # a GSSAPI token, SaslHandshake or ApiVersions
    HANDSHAKE_OR_VERSIONS_REQUEST = "HANDSHAKE_OR_VERSIONS_REQUEST"
    HANDSHAKE_REQUEST = "HANDSHAKE_REQUEST"  # after ApiVersions, only SaslHandshake
    AUTHENTICATE = "AUTHENTICATE"  # tokens, in SaslAuthenticate requests after SaslHandshake v1
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


class SaslServerCallbackHandler:
    """The server side of a non-SCRAM login: the JAAS section's options (PLAIN reads its users there)."""

    def __init__(self, jaas_context: JaasContext) -> None:
        self.jaas_context = jaas_context


class SaslServerAuthenticator:
    """One connection's SASL login, driven by the network thread through `authenticate()`."""

    def __init__(self, configs: dict[str, Any], connection_id: str, jaas_context: JaasContext,
                 credential_cache: CredentialCache, listener_name: str, security_protocol: str,
                 transport_layer: Any, api_version_manager: Any = None, processor: int = -1) -> None:
        self.connection_id = connection_id
        self.jaas_context = jaas_context
        self.credential_cache = credential_cache
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.transport_layer = transport_layer  # the KafkaChannel: its frames in, our sends out
        self.api_version_manager = api_version_manager
        self.processor = processor
        enabled_mechanisms = configs.get(SASL_ENABLED_MECHANISMS_CONFIG)
        if not enabled_mechanisms:
            raise IllegalArgumentException("No SASL mechanisms are enabled")
        self.enabled_mechanisms: list[str] = list(enabled_mechanisms)

        self.sasl_state = SaslState.INITIAL_REQUEST
        # The state to move to, and the exception to raise, once the response being written has left
        self.pending_sasl_state: SaslState | None = None
        self.pending_exception: AuthenticationException | None = None
        self.sasl_server: Any = None
        self.sasl_mechanism: str | None = None
        self.callback_handler: Any = None
        # The send being written, and the request it answers (its trace ends when the send completes)
        self.net_out_buffer: tuple[bytes, Request | None] | None = None
        self.enable_kafka_sasl_authenticate_headers = False

    def create_sasl_server(self, mechanism: str) -> None:
        self.sasl_mechanism = mechanism
        scram = ScramMechanism.for_mechanism_name(mechanism)
        if scram is None:
            self.callback_handler = SaslServerCallbackHandler(self.jaas_context)
        else:
            self.callback_handler = ScramServerCallbackHandler(self.credential_cache.cache(mechanism))
        if mechanism == PLAIN_MECHANISM:
            self.sasl_server = PlainSaslServer(self.jaas_context)
        elif scram is not None:
            self.sasl_server = ScramSaslServer(scram, self.callback_handler)
        else:  # an enabled mechanism with no server here (GSSAPI is refused when the listener is configured)
            raise SaslException("Kafka Server failed to create a SaslServer to interact with a client during "
                                "session authentication")

    def authenticate(self) -> None:
        """Write what is pending; then take the client's next whole frame, if it has come, and answer it."""
        if self.net_out_buffer is not None and not self.flush_net_out_buffer_and_update_interest_ops():
            return
        if self.sasl_server is not None and self.sasl_server.is_complete():
            self.set_sasl_state(SaslState.COMPLETE)
            return
        client_token = self.transport_layer.next_receive(MAX_RECEIVE_SIZE)
        if client_token is None:
            return
        try:
            if self.sasl_state in (SaslState.HANDSHAKE_OR_VERSIONS_REQUEST, SaslState.HANDSHAKE_REQUEST):
                self.handle_kafka_request(client_token)
            elif self.sasl_state in (SaslState.INITIAL_REQUEST, SaslState.AUTHENTICATE):
                # a first packet that is no Kafka request would be a GSSAPI token of a 0.9 client
                if self.sasl_state == SaslState.INITIAL_REQUEST and self.handle_kafka_request(client_token):
                    return
                self.handle_sasl_token(client_token)
                # complete once the last answer has been written (set_sasl_state waits for it)
                if self.sasl_server.is_complete():
                    self.set_sasl_state(SaslState.COMPLETE)
        except (SaslException, AuthenticationException) as e:
            # raised once the response telling the client why has been written
            auth_exception = e if isinstance(e, AuthenticationException) else \
                AuthenticationException(f"SASL authentication failed: {e}")
            self.set_sasl_state(SaslState.FAILED, auth_exception)
        except Exception:
            # anything else fails the connection at once
            self.sasl_state = SaslState.FAILED
            raise

    def principal(self) -> KafkaPrincipal:
        """DefaultKafkaPrincipalBuilder: a SASL login is the user it authenticated as."""
        return KafkaPrincipal(USER_TYPE, self.sasl_server.get_authorization_id())

    def complete(self) -> bool:
        return self.sasl_state == SaslState.COMPLETE

    def close(self) -> None:
        if self.sasl_server is not None:
            self.sasl_server.dispose()
        if self.net_out_buffer is not None and self.net_out_buffer[1] is not None:
            # the connection went before its answer did: the request's trace still ends
            self.net_out_buffer[1].update_request_metrics(time.time_ns())
        self.net_out_buffer = None

    def set_sasl_state(self, sasl_state: SaslState, exception: AuthenticationException | None = None) -> None:
        if self.net_out_buffer is not None:
            self.pending_sasl_state = sasl_state
            self.pending_exception = exception
            return
        self.sasl_state = sasl_state
        log.debug("Set SASL server state to %s", sasl_state.value)
        self.pending_sasl_state = None
        self.pending_exception = None
        if exception is not None:
            raise exception

    def flush_net_out_buffer_and_update_interest_ops(self) -> bool:
        flushed_completely = self.flush_net_out_buffer()
        if flushed_completely:
            _, context = self.net_out_buffer
            self.net_out_buffer = None
            if context is not None:
                context.update_request_metrics(time.time_ns())
            if self.pending_sasl_state is not None:
                self.set_sasl_state(self.pending_sasl_state, self.pending_exception)
        # else the selector keeps the socket watched for writing while the channel has a send pending
        return flushed_completely

    def flush_net_out_buffer(self) -> bool:
        return self.transport_layer.write()

    def handle_sasl_token(self, client_token: bytes) -> None:
        if not self.enable_kafka_sasl_authenticate_headers:
            # SaslHandshake v0: the token and its answer travel raw, size-prefixed
            response = self.sasl_server.evaluate_response(client_token)
            if response is not None:
                self.send(response, None)
            return
        context, request = self.parse_request(client_token)
        if context.api_key != ApiKeys.SASL_AUTHENTICATE:
            e = IllegalSaslStateException(f"Unexpected Kafka request of type {ApiKeys(context.api_key).name} "
                                          f"during SASL authentication.")
            self.send_error_response(context, Errors.ILLEGAL_SASL_STATE, str(e))
            raise e
        if request is None:
            # no answer can be built for a SaslAuthenticate version the listener does not serve
            raise UnsupportedVersionException(f"Version {context.api_version} is not supported for apiKey "
                                              f"SASL_AUTHENTICATE")
        self.handle_sasl_authenticate_request(context, request)

    def handle_sasl_authenticate_request(self, context: Request, sasl_authenticate_request: Any) -> None:
        """The SaslAuthenticate branch of handleSaslToken: evaluate the token it carries, answer in a
        SaslAuthenticate response, even an empty one, or with SASL_AUTHENTICATION_FAILED."""
        schema = ApiKeys.SASL_AUTHENTICATE.response_schema(context.api_version)
        try:
            response_token = self.sasl_server.evaluate_response(bytes(sasl_authenticate_request.auth_bytes))
        except (SaslAuthenticationException, SaslException) as e:
            # a SaslAuthenticationException's message is meant for the client; a SaslException's may say too much
            error_message = str(e) if isinstance(e, SaslAuthenticationException) else \
                f"Authentication failed due to invalid credentials with SASL mechanism {self.sasl_mechanism}"
            self.send_kafka_response(context, build(schema, error_code=Errors.SASL_AUTHENTICATION_FAILED,
                                                    error_message=error_message, auth_bytes=b"",
                                                    session_lifetime=0))
            raise
        self.send_kafka_response(context, build(schema, error_code=Errors.NONE, error_message=None,
                                                auth_bytes=response_token or b"", session_lifetime=0))

    def handle_kafka_request(self, request_bytes: bytes) -> bool:
        """ApiVersions or SaslHandshake; False for a first packet that is no Kafka request at all."""
        client_mechanism = None
        try:
            api_key = self.peek_api_key(request_bytes)
            # A Kafka request header: from now on tokens come only after a SaslHandshake.
            if self.sasl_state == SaslState.INITIAL_REQUEST:
                self.set_sasl_state(SaslState.HANDSHAKE_OR_VERSIONS_REQUEST)
            # Refused before its body is parsed: only these two APIs are served before the login.
            if api_key not in (ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE):
                raise IllegalSaslStateException(f"Unexpected Kafka request of type {api_key.name} during SASL "
                                                f"handshake.")
            log.debug("Handling Kafka request %s", api_key.name)
            context, request = self.parse_request(request_bytes)
            if api_key == ApiKeys.API_VERSIONS:
                self.handle_api_versions_request(context, request)
            elif request is None:
                raise InvalidRequestException(f"Error getting request for apiKey: SASL_HANDSHAKE, apiVersion: "
                                              f"{context.api_version}, connectionId: {self.connection_id}")
            else:
                client_mechanism = self.handle_handshake_request(context, request)
        except InvalidRequestException as e:
            if self.sasl_state != SaslState.INITIAL_REQUEST:
                raise
            # Not a Kafka request: a 0.9 client's first GSSAPI token, if GSSAPI is on (it never is here).
            log.debug("Received client packet of length %d starting with bytes 0x%s, process as GSSAPI packet",
                      len(request_bytes), request_bytes[:10].hex())
            if GSSAPI_MECHANISM not in self.enabled_mechanisms:
                raise UnsupportedSaslMechanismException("Exception handling first SASL packet from client, GSSAPI "
                                                        "is not supported by server") from e
            client_mechanism = GSSAPI_MECHANISM
            self.create_sasl_server(client_mechanism)
            self.set_sasl_state(SaslState.AUTHENTICATE)
            return False
        if client_mechanism is not None:
            self.create_sasl_server(client_mechanism)
            self.set_sasl_state(SaslState.AUTHENTICATE)
        return True

    @staticmethod
    def peek_api_key(request_bytes: bytes) -> ApiKeys:
        """RequestHeader.parse as far as the api key: InvalidRequestException for bytes that are no request."""
        if len(request_bytes) < 8:
            raise InvalidRequestException(f"Error parsing request header: {len(request_bytes)} bytes")
        (api_key,) = struct.unpack_from(">h", request_bytes)
        if not ApiKeys.has_key(api_key):
            raise InvalidRequestException(f"Error parsing request header. Our best guess of the apiKey is: {api_key}")
        return ApiKeys(api_key)

    def parse_request(self, request_bytes: bytes) -> tuple[Request, Any]:
        """RequestHeader.parse and RequestContext.parseRequest: the request's context (a Request, whose root span
        is this request's trace) and its body; a body of None for a version the listener does not serve."""
        received_ns = time.time_ns()
        is_enabled = None if self.api_version_manager is None else self.api_version_manager.is_api_enabled
        try:
            decoded = decode_request(request_bytes, is_enabled)
        except UnsupportedVersionError as e:
            context = Request(self.processor, self.connection_id, e.api_key, e.api_version, e.correlation_id,
                              e.client_id, None, len(request_bytes), self.listener_name, self.security_protocol,
                              start_time_ns=received_ns)
            return context, None
        except InvalidRequestError as e:
            raise InvalidRequestException(f"Error getting request: {e}, connectionId: {self.connection_id}, "
                                          f"listenerName: {self.listener_name}") from e
        context = Request(self.processor, self.connection_id, decoded.api_key, decoded.api_version,
                          decoded.correlation_id, decoded.client_id, decoded.body, decoded.size, self.listener_name,
                          self.security_protocol, start_time_ns=received_ns, traceparent=decoded.traceparent)
        return context, decoded.body

    def handle_handshake_request(self, context: Request, handshake_request: Any) -> str:
        client_mechanism = handshake_request.mechanism
        if context.api_version >= 1:
            self.enable_kafka_sasl_authenticate_headers = True
        schema = ApiKeys.SASL_HANDSHAKE.response_schema(context.api_version)
        if client_mechanism in self.enabled_mechanisms:
            log.debug("Using SASL mechanism '%s' provided by client", client_mechanism)
            self.send_kafka_response(context, build(schema, error_code=Errors.NONE,
                                                    mechanisms=tuple(self.enabled_mechanisms)))
            return client_mechanism
        log.debug("SASL mechanism '%s' requested by client is not supported", client_mechanism)
        self.send_kafka_response(context, build(schema, error_code=Errors.UNSUPPORTED_SASL_MECHANISM,
                                                mechanisms=tuple(self.enabled_mechanisms)))
        raise UnsupportedSaslMechanismException(f"Unsupported SASL mechanism {client_mechanism}")

    def handle_api_versions_request(self, context: Request, api_versions_request: Any) -> None:
        if self.sasl_state != SaslState.HANDSHAKE_OR_VERSIONS_REQUEST:
            raise IllegalStateException(f"Unexpected ApiVersions request received during SASL authentication state "
                                        f"{self.sasl_state.value}")
        if api_versions_request is None:
            # a version newer than the listener's: UNSUPPORTED_VERSION in v0, and the client may ask again
            payload = api_versions_unsupported_response(context.correlation_id,
                                                        self.api_version_manager.api_version_entries(0))
            self.send(payload, context)
            return
        schema = ApiKeys.API_VERSIONS.response_schema(context.api_version)
        self.send_kafka_response(context, build(schema, error_code=Errors.NONE, throttle_time=0,
                                                api_keys=self.api_version_manager.api_version_entries(
                                                    context.api_version)))
        self.set_sasl_state(SaslState.HANDSHAKE_REQUEST)

    def send_error_response(self, context: Request, error: Errors, message: str) -> None:
        """AbstractRequest.getErrorResponse for the requests a client sends while logging in; any other request
        is not answered (the connection closes all the same)."""
        if context.body is None:
            return
        schema = ApiKeys.for_key(context.api_key).response_schema(context.api_version)
        if context.api_key == ApiKeys.SASL_HANDSHAKE:
            self.send_kafka_response(context, build(schema, error_code=error,
                                                    mechanisms=tuple(self.enabled_mechanisms)))
        elif context.api_key == ApiKeys.API_VERSIONS:
            self.send_kafka_response(context, build(schema, error_code=error, throttle_time=0, api_keys=()))

    def send_kafka_response(self, context: Request, response: Any) -> None:
        self.send(encode_response(context.api_key, context.api_version, context.correlation_id, response), context)

    def send(self, payload: bytes, context: Request | None) -> None:
        """NetworkSend: one size-prefixed frame, written now as far as the socket takes it."""
        self.net_out_buffer = (payload, context)
        self.transport_layer.set_send(payload)
        self.flush_net_out_buffer_and_update_interest_ops()
