"""SASL/SCRAM (Kafka 1.0.2's ScramSaslServer, ScramFormatter, ScramMessages, ScramCredentialUtils): RFC 7677's
exchange reproduced byte for byte, a client of our own doing SCRAM-SHA-512, and every way a login is refused."""

from __future__ import annotations

import base64

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalSaslStateException,
    SaslAuthenticationException,
    SaslException,
)
from kafka_edu.v1_0_2.clients.common.security.authenticator.credential_cache import CredentialCache
from kafka_edu.v1_0_2.clients.common.security.scram import scram_credential_utils
from kafka_edu.v1_0_2.clients.common.security.scram.scram_credential import ScramCredential
from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism
from kafka_edu.v1_0_2.clients.common.security.scram.scram_messages import (
    ClientFinalMessage,
    ClientFirstMessage,
    ServerFirstMessage,
)
from kafka_edu.v1_0_2.clients.common.security.scram.scram_sasl_server import (
    ScramSaslServer,
    ScramServerCallbackHandler,
    State,
)
from kafka_edu.v1_0_2.core.security.credential_provider import CredentialProvider

# RFC 7677, section 3: user "user", password "pencil"
RFC_SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
RFC_CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO"
RFC_SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"


def credential_for(mechanism: ScramMechanism, password: str, salt: bytes, iterations: int = 4096) -> ScramCredential:
    formatter = ScramFormatter(mechanism)
    salted = formatter.salted_password(password, salt, iterations)
    return ScramCredential(salt, formatter.stored_key(formatter.client_key(salted)), formatter.server_key(salted),
                           iterations)


def server_with(mechanism: ScramMechanism, users: dict[str, ScramCredential]) -> ScramSaslServer:
    cache = CredentialCache()
    for user, credential in users.items():
        cache.create_cache(mechanism.mechanism_name).put(user, credential)
    return ScramSaslServer(mechanism, ScramServerCallbackHandler(cache.cache(mechanism.mechanism_name)))


class ScramClient:
    """The client's side of RFC 5802, computed with the same formatter, as Kafka's ScramSaslClient does."""

    def __init__(self, mechanism: ScramMechanism, username: str, password: str, nonce: str = "clientnonce") -> None:
        self.formatter = ScramFormatter(mechanism)
        self.password = password
        self.first = ClientFirstMessage(self.formatter.sasl_name(username), nonce)

    def final(self, server_first_bytes: bytes) -> bytes:
        self.server_first = ServerFirstMessage.parse(server_first_bytes)
        salted = self.formatter.salted_password(self.password, self.server_first.salt, self.server_first.iterations)
        self.final_message = ClientFinalMessage(b"n,,", self.server_first.nonce)
        self.final_message.proof = self.formatter.client_proof(salted, self.first, self.server_first,
                                                               self.final_message)
        self.salted = salted
        return self.final_message.to_bytes()

    def expected_server_final(self) -> bytes:
        signature = self.formatter.server_signature(self.formatter.server_key(self.salted), self.first,
                                                    self.server_first, self.final_message)
        return b"v=" + base64.b64encode(signature)


def test_rfc_7677_exchange_is_reproduced_byte_for_byte(monkeypatch) -> None:
    server = server_with(ScramMechanism.SCRAM_SHA_256,
                         {"user": credential_for(ScramMechanism.SCRAM_SHA_256, "pencil", RFC_SALT)})
    monkeypatch.setattr(server.formatter, "secure_random_string", lambda: RFC_SERVER_NONCE)

    server_first = server.evaluate_response(f"n,,n=user,r={RFC_CLIENT_NONCE}".encode())
    assert server_first == f"r={RFC_CLIENT_NONCE}{RFC_SERVER_NONCE},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".encode()
    assert server.state is State.RECEIVE_CLIENT_FINAL_MESSAGE and not server.is_complete()

    server_final = server.evaluate_response(
        f"c=biws,r={RFC_CLIENT_NONCE}{RFC_SERVER_NONCE},p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=".encode())
    assert server_final == b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    assert server.is_complete() and server.get_authorization_id() == "user"
    assert server.scram_credential is None  # nothing of the credential is kept once the exchange is done


@pytest.mark.parametrize("mechanism", list(ScramMechanism))
def test_a_client_logs_in_with_each_mechanism(mechanism: ScramMechanism) -> None:
    credential = ScramFormatter(mechanism).generate_credential("alice-secret", 4096)
    server = server_with(mechanism, {"al,i=ce": credential})  # a name that must be escaped in SCRAM
    client = ScramClient(mechanism, "al,i=ce", "alice-secret")
    assert client.first.sasl_name == "al=2Ci=3Dce"
    server_first = server.evaluate_response(client.first.to_bytes())
    server_final = server.evaluate_response(client.final(server_first))
    assert server_final == client.expected_server_final()
    assert server.get_authorization_id() == "al,i=ce"


def test_a_wrong_password_fails_the_login_and_forgets_the_credential() -> None:
    mechanism = ScramMechanism.SCRAM_SHA_256
    server = server_with(mechanism, {"alice": ScramFormatter(mechanism).generate_credential("right", 4096)})
    client = ScramClient(mechanism, "alice", "wrong")
    server_first = server.evaluate_response(client.first.to_bytes())
    with pytest.raises(SaslException, match="Invalid client credentials"):
        server.evaluate_response(client.final(server_first))
    assert server.state is State.FAILED and server.scram_credential is None
    with pytest.raises(IllegalSaslStateException):  # no third round
        server.evaluate_response(b"c=biws,r=x,p=AAAA")


@pytest.mark.parametrize("first_message, refusal", [
    (b"n,,n=nobody,r=abc", SaslException),  # no credential for the user
    (b"hello", SaslException),  # not a client first message at all
    (b"p=tls-unique,,n=alice,r=abc", SaslException),  # channel binding is not supported
    (b"n,a=bob,n=alice,r=abc", SaslAuthenticationException),  # another authorization id than the user
    (b"n,,n=al=ice,r=abc", SaslException),  # a stray '=' in the name: '=' only escapes ',' and '='
])
def test_a_bad_client_first_message_is_refused(first_message: bytes, refusal: type[Exception]) -> None:
    mechanism = ScramMechanism.SCRAM_SHA_256
    server = server_with(mechanism, {"alice": ScramFormatter(mechanism).generate_credential("pw", 4096)})
    with pytest.raises(refusal):
        server.evaluate_response(first_message)
    assert not server.is_complete()


def test_malformed_client_final_messages_are_refused() -> None:
    mechanism = ScramMechanism.SCRAM_SHA_512
    for final in (b"garbage", b"c=biws,r=abc,p=not-base64!", b"c=biws,r=abc"):
        server = server_with(mechanism, {"alice": ScramFormatter(mechanism).generate_credential("pw", 4096)})
        server.evaluate_response(b"n,,n=alice,r=abc")
        with pytest.raises(SaslException):
            server.evaluate_response(final)
        assert server.state is State.FAILED


def test_a_credential_with_too_few_iterations_is_refused() -> None:
    mechanism = ScramMechanism.SCRAM_SHA_256
    server = server_with(mechanism, {"alice": credential_for(mechanism, "pw", b"salt", iterations=1000)})
    with pytest.raises(SaslException, match="Iterations 1000 is less than the minimum 4096"):
        server.evaluate_response(b"n,,n=alice,r=abc")


def test_credentials_are_stored_as_salt_and_keys_and_read_back() -> None:
    credential = ScramFormatter(ScramMechanism.SCRAM_SHA_256).generate_credential("secret", 8192)
    stored = scram_credential_utils.credential_to_string(credential)
    assert stored.startswith("salt=") and ",stored_key=" in stored and stored.endswith(",iterations=8192")
    assert "secret" not in stored
    assert scram_credential_utils.credential_from_string(stored) == credential
    for bad in ("salt=AAAA", "salt=AAAA,stored_key=AAAA,server_key=AAAA,iterations=x", "nonsense",
                "salt=AAAA,stored_key=AAAA,server_key=AAAA,iterations=1,extra=1"):
        with pytest.raises(IllegalArgumentException):
            scram_credential_utils.credential_from_string(bad)


def test_the_credential_provider_follows_a_users_config() -> None:
    provider = CredentialProvider(["PLAIN", "SCRAM-SHA-256"])  # only enabled mechanisms get a cache
    assert provider.credential_cache.cache("SCRAM-SHA-512") is None
    credential = ScramFormatter(ScramMechanism.SCRAM_SHA_256).generate_credential("pw", 4096)
    provider.update_credentials("alice", {"SCRAM-SHA-256": scram_credential_utils.credential_to_string(credential)})
    assert provider.credential_cache.cache("SCRAM-SHA-256").get("alice") == credential
    provider.update_credentials("alice", {})  # the config no longer names the mechanism: the credential goes
    assert provider.credential_cache.cache("SCRAM-SHA-256").get("alice") is None


def test_sasl_names_escape_commas_and_equals_signs() -> None:
    formatter = ScramFormatter(ScramMechanism.SCRAM_SHA_256)
    assert formatter.sasl_name("a=b,c") == "a=3Db=2Cc"
    assert formatter.username("a=3Db=2Cc") == "a=b,c"
    assert len(formatter.secure_random_string()) >= 20
