"""Port of clients/src/main/java/org/apache/kafka/common/security/plain/PlainSaslServer.java (Kafka 1.0.2)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, SaslAuthenticationException, SaslException
from kafka_edu.v1_0_2.clients.common.security.jaas_context import JaasContext

PLAIN_MECHANISM = "PLAIN"
JAAS_USER_PREFIX = "user_"
PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"


class PlainSaslServer:
    """SASL/PLAIN (RFC 4616): one message, "[authzid] NUL authcid NUL passwd", checked against the
    `user_<name>="<password>"` options of the PlainLoginModule in the broker's JAAS file."""

    def __init__(self, jaas_context: JaasContext) -> None:
        self.jaas_context = jaas_context
        self.complete = False
        self.authorization_id: str | None = None

    def evaluate_response(self, response: bytes) -> bytes:
        # Java's split drops trailing empty strings: "\0alice\0" is two tokens, not three
        tokens = response.decode("utf-8", "replace").split("\0")
        while tokens and tokens[-1] == "":
            tokens.pop()
        if len(tokens) != 3:
            raise SaslException(f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(tokens)}")
        authorization_id_from_client, username, password = tokens
        if not username:
            raise SaslException("Authentication failed: username not specified")
        if not password:
            raise SaslException("Authentication failed: password not specified")

        expected_password = self.jaas_context.config_entry_option(JAAS_USER_PREFIX + username, PLAIN_LOGIN_MODULE)
        if password != expected_password:
            raise SaslAuthenticationException("Authentication failed: Invalid username or password")
        if authorization_id_from_client and authorization_id_from_client != username:
            raise SaslAuthenticationException("Authentication failed: Client requested an authorization id that is "
                                              "different from username")
        self.authorization_id = username
        self.complete = True
        return b""

    def get_authorization_id(self) -> str:
        if not self.complete:
            raise IllegalStateException("Authentication exchange has not completed")
        return self.authorization_id or ""

    def get_mechanism_name(self) -> str:
        return PLAIN_MECHANISM

    def is_complete(self) -> bool:
        return self.complete

    def dispose(self) -> None:
        pass
