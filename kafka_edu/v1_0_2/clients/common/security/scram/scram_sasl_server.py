"""Port of clients/src/main/java/org/apache/kafka/common/security/scram/ScramSaslServer.java and
ScramServerCallbackHandler.java (Kafka 1.0.2)."""

from __future__ import annotations

import enum
import hmac
import logging

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalSaslStateException,
    IllegalStateException,
    SaslAuthenticationException,
    SaslException,
)
from kafka_edu.v1_0_2.clients.common.security.authenticator.credential_cache import Cache
from kafka_edu.v1_0_2.clients.common.security.scram.scram_credential import ScramCredential
from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism
from kafka_edu.v1_0_2.clients.common.security.scram.scram_messages import (
    ClientFinalMessage,
    ClientFirstMessage,
    ServerFinalMessage,
    ServerFirstMessage,
)

log = logging.getLogger("org.apache.kafka.common.security.scram.ScramSaslServer")


class State(enum.Enum):
    RECEIVE_CLIENT_FIRST_MESSAGE = "RECEIVE_CLIENT_FIRST_MESSAGE"
    RECEIVE_CLIENT_FINAL_MESSAGE = "RECEIVE_CLIENT_FINAL_MESSAGE"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


class ScramServerCallbackHandler:
    """The broker's credential store for one mechanism: the cache /config/users fills."""

    def __init__(self, credential_cache: Cache | None) -> None:
        self.credential_cache = credential_cache

    def credential(self, username: str) -> ScramCredential | None:
        return self.credential_cache.get(username) if self.credential_cache is not None else None


class ScramSaslServer:
    """SCRAM (RFC 5802) in two rounds: the client's first message names the user and a nonce, the server answers
    with the salt and iterations of the stored credential; the client's final message proves it knows the password
    and the server answers with its own signature, proving it holds the credential."""

    def __init__(self, mechanism: ScramMechanism, callback_handler: ScramServerCallbackHandler) -> None:
        self.mechanism = mechanism
        self.formatter = ScramFormatter(mechanism)
        self.callback_handler = callback_handler
        self.state = State.RECEIVE_CLIENT_FIRST_MESSAGE
        self.username: str | None = None
        self.client_first_message: ClientFirstMessage | None = None
        self.server_first_message: ServerFirstMessage | None = None
        self.scram_credential: ScramCredential | None = None

    def evaluate_response(self, response: bytes) -> bytes:
        try:
            if self.state == State.RECEIVE_CLIENT_FIRST_MESSAGE:
                self.client_first_message = ClientFirstMessage.parse(response)
                server_nonce = self.formatter.secure_random_string()
                # a SASL name with a stray '=' raises IllegalArgumentException, which is no SaslException: the
                # authenticator closes the connection without an answer, as Kafka's does
                self.username = self.formatter.username(self.client_first_message.sasl_name)
                self.scram_credential = self.callback_handler.credential(self.username)
                if self.scram_credential is None:
                    raise SaslException("Authentication failed: Invalid user credentials")
                authorization_id_from_client = self.client_first_message.authorization_id
                if authorization_id_from_client and authorization_id_from_client != self.username:
                    raise SaslAuthenticationException("Authentication failed: Client requested an authorization id "
                                                      "that is different from username")
                if self.scram_credential.iterations < self.mechanism.min_iterations:
                    raise SaslException(f"Iterations {self.scram_credential.iterations} is less than the minimum "
                                        f"{self.mechanism.min_iterations} for {self.mechanism}")
                self.server_first_message = ServerFirstMessage(self.client_first_message.nonce, server_nonce,
                                                               self.scram_credential.salt,
                                                               self.scram_credential.iterations)
                self.set_state(State.RECEIVE_CLIENT_FINAL_MESSAGE)
                return self.server_first_message.to_bytes()
            if self.state == State.RECEIVE_CLIENT_FINAL_MESSAGE:
                client_final_message = ClientFinalMessage.parse(response)
                self.verify_client_proof(client_final_message)
                server_signature = self.formatter.server_signature(
                    self.scram_credential.server_key, self.client_first_message, self.server_first_message,
                    client_final_message)
                server_final_message = ServerFinalMessage(None, server_signature)
                self.clear_credentials()
                self.set_state(State.COMPLETE)
                return server_final_message.to_bytes()
            raise IllegalSaslStateException(f"Unexpected challenge in Sasl server state {self.state.value}")
        except SaslException:
            self.clear_credentials()
            self.set_state(State.FAILED)
            raise

    def get_authorization_id(self) -> str:
        if not self.is_complete():
            raise IllegalStateException("Authentication exchange has not completed")
        return self.username or ""

    def get_mechanism_name(self) -> str:
        return self.mechanism.mechanism_name

    def is_complete(self) -> bool:
        return self.state == State.COMPLETE

    def dispose(self) -> None:
        pass

    def set_state(self, state: State) -> None:
        log.debug("Setting SASL/%s server state to %s", self.mechanism, state.value)
        self.state = state

    def verify_client_proof(self, client_final_message: ClientFinalMessage) -> None:
        expected_stored_key = self.scram_credential.stored_key
        client_signature = self.formatter.client_signature(expected_stored_key, self.client_first_message,
                                                           self.server_first_message, client_final_message)
        # a proof of the wrong length raises IllegalArgumentException, no SaslException: the connection just closes
        computed_stored_key = self.formatter.stored_key_from_proof(client_signature, client_final_message.proof or b"")
        if not hmac.compare_digest(computed_stored_key, expected_stored_key):
            raise SaslException("Invalid client credentials")

    def clear_credentials(self) -> None:
        self.scram_credential = None
        self.client_first_message = None
        self.server_first_message = None
