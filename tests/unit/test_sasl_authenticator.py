"""A SASL_PLAINTEXT connection logging in (Kafka 1.0.2's SaslServerAuthenticator driven by the Selector, as a
broker's network thread drives it), over a real loopback socket: the exchanges real clients make, and what a
client that does not follow them gets."""

from __future__ import annotations

import socket
import struct
import time
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.clients.common.network.sasl_channel_builder import server_channel_builder
from kafka_edu.v1_0_2.clients.common.network.selector import Selector
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.clients.common.security.scram import scram_credential_utils
from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism
from kafka_edu.v1_0_2.core.security.credential_provider import CredentialProvider
from kafka_edu.v1_0_2.core.server.kafka_apis import api_versions_response
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response, encode_request
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.unit.test_sasl_scram import ScramClient

JAAS = """KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";
};"""


class Link:
    """One client connection to a Selector whose channels log in: the client's end is a blocking socket."""

    def __init__(self, builder: Any) -> None:
        listener = socket.create_server(("127.0.0.1", 0))
        self.client = socket.create_connection(listener.getsockname())
        server_side, _ = listener.accept()
        listener.close()
        server_side.setblocking(False)
        self.selector = Selector(1024 * 1024, 600_000, builder)
        self.selector.register("c", server_side)
        self.client.setblocking(False)
        self.buffer = b""
        self.requests: list[bytes] = []  # frames handed on as requests, once logged in
        self.disconnected = False
        self.correlation_id = 0

    def send(self, api: ApiKeys, version: int, **fields: Any) -> None:
        self.correlation_id += 1
        self.send_frame(encode_request(api, version, self.correlation_id, "test-client",
                                       build(api.request_schema(version), **fields)))

    def send_frame(self, payload: bytes) -> None:
        self.client.setblocking(True)
        self.client.sendall(struct.pack(">i", len(payload)) + payload)
        self.client.setblocking(False)

    def poll(self) -> None:
        self.selector.poll(10)
        self.requests += [r.payload for r in self.selector.completed_receives]
        self.disconnected |= "c" in self.selector.disconnected
        try:
            data = self.client.recv(65536)
            self.buffer += data
            if not data:
                self.eof = True
        except BlockingIOError:
            pass

    def frame(self, timeout_s: float = 5.0) -> bytes | None:
        """The next frame the broker wrote, or None once it closed the connection without one."""
        self.eof = False
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if len(self.buffer) >= 4:
                (size,) = struct.unpack_from(">i", self.buffer)
                if len(self.buffer) >= 4 + size:
                    frame, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    return frame
            if self.eof:
                return None
            self.poll()
        raise AssertionError("no frame and no close before the deadline")

    def response(self, api: ApiKeys, version: int) -> Any:
        frame = self.frame()
        assert frame is not None, "the connection was closed instead"
        decoded = decode_response(api, version, frame)
        assert decoded.correlation_id == self.correlation_id
        return decoded.body

    def closed_without_answer(self) -> bool:
        return self.frame() is None and self.disconnected

    def wait(self, condition: Any, timeout_s: float = 5.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not condition():
            assert time.monotonic() < deadline, "condition not met before the deadline"
            self.poll()

    @property
    def channel(self) -> Any:
        return self.selector.channel("c")


@pytest.fixture
def credential_provider() -> CredentialProvider:
    provider = CredentialProvider(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
    provider.update_credentials("bob", {m.mechanism_name: scram_credential_utils.credential_to_string(
        ScramFormatter(m).generate_credential("bob-secret", 4096)) for m in ScramMechanism})
    return provider


@pytest.fixture
def builder(tmp_path, credential_provider) -> Any:
    jaas = tmp_path / "jaas.conf"
    jaas.write_text(JAAS)
    config = KafkaConfig.from_props({"zookeeper.connect": "127.0.0.1:1", "java.security.auth.login.config": str(jaas),
                                     "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"})
    return server_channel_builder("SASL_PLAINTEXT", "SASL_PLAINTEXT", config, credential_provider.credential_cache,
                                  api_versions_response("1.0.2"), processor=0)


@pytest.fixture
def link(builder) -> Any:
    link = Link(builder)
    yield link
    link.client.close()
    link.selector.close()


def plain_login(link: Link, password: str = "alice-secret") -> Any:
    link.send(ApiKeys.API_VERSIONS, 1)
    versions = link.response(ApiKeys.API_VERSIONS, 1)
    assert versions.error_code == Errors.NONE
    assert {e.api_key: (e.min_version, e.max_version) for e in versions.api_keys}[17] == (0, 1)
    link.send(ApiKeys.SASL_HANDSHAKE, 1, mechanism="PLAIN")
    handshake = link.response(ApiKeys.SASL_HANDSHAKE, 1)
    assert handshake.error_code == Errors.NONE
    assert list(handshake.mechanisms) == ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
    link.send(ApiKeys.SASL_AUTHENTICATE, 0, auth_bytes=f"\0alice\0{password}".encode())
    return link.response(ApiKeys.SASL_AUTHENTICATE, 0)


def test_a_plain_login_then_requests_flow_as_alice(link: Link) -> None:
    assert not link.channel.ready()
    authenticated = plain_login(link)
    assert authenticated.error_code == Errors.NONE and authenticated.auth_bytes == b""
    link.wait(lambda: link.channel.ready())
    assert link.channel.principal() == KafkaPrincipal("User", "alice")
    link.send(ApiKeys.METADATA, 1, topics=None)  # only now does a frame reach the request channel
    link.wait(lambda: link.requests)
    assert struct.unpack_from(">h", link.requests[0])[0] == ApiKeys.METADATA


def test_a_request_sent_before_the_login_is_done_waits_for_it(link: Link) -> None:
    link.send(ApiKeys.SASL_HANDSHAKE, 1, mechanism="PLAIN")
    link.response(ApiKeys.SASL_HANDSHAKE, 1)
    # the token and a Metadata request in one write: the authenticator takes only the first
    token = encode_request(ApiKeys.SASL_AUTHENTICATE, 0, 7, "c", build(ApiKeys.SASL_AUTHENTICATE.request_schema(0),
                                                                      auth_bytes=b"\0alice\0alice-secret"))
    metadata = encode_request(ApiKeys.METADATA, 1, 8, "c", build(ApiKeys.METADATA.request_schema(1), topics=None))
    link.client.setblocking(True)
    link.client.sendall(struct.pack(">i", len(token)) + token + struct.pack(">i", len(metadata)) + metadata)
    link.client.setblocking(False)
    assert decode_response(ApiKeys.SASL_AUTHENTICATE, 0, link.frame()).body.error_code == Errors.NONE
    link.wait(lambda: link.requests)
    assert link.requests == [metadata]


@pytest.mark.parametrize("mechanism", list(ScramMechanism))
def test_a_scram_login_in_two_rounds(link: Link, mechanism: ScramMechanism) -> None:
    link.send(ApiKeys.SASL_HANDSHAKE, 1, mechanism=mechanism.mechanism_name)
    assert link.response(ApiKeys.SASL_HANDSHAKE, 1).error_code == Errors.NONE
    client = ScramClient(mechanism, "bob", "bob-secret")
    link.send(ApiKeys.SASL_AUTHENTICATE, 0, auth_bytes=client.first.to_bytes())
    first = link.response(ApiKeys.SASL_AUTHENTICATE, 0)
    assert first.error_code == Errors.NONE and not link.channel.ready()
    link.send(ApiKeys.SASL_AUTHENTICATE, 0, auth_bytes=client.final(first.auth_bytes))
    final = link.response(ApiKeys.SASL_AUTHENTICATE, 0)
    assert final.error_code == Errors.NONE and final.auth_bytes == client.expected_server_final()
    link.wait(lambda: link.channel.ready())
    assert link.channel.principal() == KafkaPrincipal("User", "bob")


def test_sasl_handshake_v0_then_raw_tokens(link: Link) -> None:
    """A 0.10 client: no SaslAuthenticate, the token and its answer are bare size-prefixed frames."""
    link.send(ApiKeys.SASL_HANDSHAKE, 0, mechanism="PLAIN")
    assert link.response(ApiKeys.SASL_HANDSHAKE, 0).error_code == Errors.NONE
    link.send_frame(b"\0alice\0alice-secret")
    assert link.frame() == b""  # PLAIN's empty answer, raw
    link.wait(lambda: link.channel.ready())


def test_a_wrong_password_gets_sasl_authentication_failed_then_the_connection_closes(link: Link) -> None:
    refused = plain_login(link, password="wrong")
    assert refused.error_code == Errors.SASL_AUTHENTICATION_FAILED
    assert refused.error_message == "Authentication failed: Invalid username or password"
    assert link.closed_without_answer()


def test_a_malformed_token_gets_a_message_that_says_nothing_of_the_token(link: Link) -> None:
    link.send(ApiKeys.SASL_HANDSHAKE, 1, mechanism="PLAIN")
    link.response(ApiKeys.SASL_HANDSHAKE, 1)
    link.send(ApiKeys.SASL_AUTHENTICATE, 0, auth_bytes=b"no separators")
    refused = link.response(ApiKeys.SASL_AUTHENTICATE, 0)
    assert refused.error_code == Errors.SASL_AUTHENTICATION_FAILED
    assert refused.error_message == "Authentication failed due to invalid credentials with SASL mechanism PLAIN"
    assert link.closed_without_answer()


def test_an_unknown_mechanism_gets_unsupported_sasl_mechanism_then_the_connection_closes(link: Link) -> None:
    link.send(ApiKeys.SASL_HANDSHAKE, 1, mechanism="GSSAPI")
    handshake = link.response(ApiKeys.SASL_HANDSHAKE, 1)
    assert handshake.error_code == Errors.UNSUPPORTED_SASL_MECHANISM
    assert list(handshake.mechanisms) == ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
    assert link.closed_without_answer()


@pytest.mark.parametrize("frame", [
    encode_request(ApiKeys.METADATA, 1, 1, "c", build(ApiKeys.METADATA.request_schema(1), topics=None)),
    b"\x60\x82\x01\x00 a GSSAPI token of a 0.9 client",  # no Kafka request at all; GSSAPI is not enabled
    b"\x00\x11\x00\x01\x00\x00\x00\x01\x00\x01c\x7f\xff",  # SaslHandshake v1 whose mechanism runs off the end
    b"\x00\x11\x00\x07\x00\x00\x00\x01\x00\x01c\x00\x05PLAIN",  # SaslHandshake v7, a version nobody serves
])
def test_anything_but_apiversions_or_a_handshake_first_closes_the_connection(link: Link, frame: bytes) -> None:
    link.send_frame(frame)
    assert link.closed_without_answer()


def test_a_request_in_place_of_a_token_gets_illegal_sasl_state(link: Link) -> None:
    link.send(ApiKeys.SASL_HANDSHAKE, 1, mechanism="PLAIN")
    link.response(ApiKeys.SASL_HANDSHAKE, 1)
    link.send(ApiKeys.SASL_HANDSHAKE, 1, mechanism="PLAIN")  # a second handshake where a token belongs
    assert link.response(ApiKeys.SASL_HANDSHAKE, 1).error_code == Errors.ILLEGAL_SASL_STATE
    assert link.closed_without_answer()


def test_an_oversized_login_frame_closes_the_connection_at_once(link: Link) -> None:
    link.client.sendall(struct.pack(">i", 600_000) + b"\x00\x11")  # over 1.0.2's 512 KiB for a login frame
    assert link.closed_without_answer()


def test_a_listener_with_gssapi_enabled_is_refused_at_startup(tmp_path, credential_provider) -> None:
    jaas = tmp_path / "jaas.conf"
    jaas.write_text(JAAS)
    config = KafkaConfig.from_props({"zookeeper.connect": "127.0.0.1:1",
                                     "java.security.auth.login.config": str(jaas)})  # the default: GSSAPI
    with pytest.raises(KafkaException, match="GSSAPI"):
        server_channel_builder("SASL_PLAINTEXT", "SASL_PLAINTEXT", config, credential_provider.credential_cache)
    no_jaas = KafkaConfig.from_props({"zookeeper.connect": "127.0.0.1:1", "sasl.enabled.mechanisms": "PLAIN"})
    with pytest.raises(KafkaException, match="java.security.auth.login.config"):
        server_channel_builder("SASL_PLAINTEXT", "SASL_PLAINTEXT", no_jaas, credential_provider.credential_cache)
    assert server_channel_builder("PLAINTEXT", "PLAINTEXT", no_jaas, credential_provider.credential_cache) is None


def test_each_login_request_is_a_request_trace(link: Link) -> None:
    from kafka_edu.tracing import setup_tracing

    tracing = setup_tracing("broker-0", "run-1")
    try:
        plain_login(link)
        link.wait(lambda: link.channel.ready())
        spans = tracing.memory.get_finished_spans()
    finally:
        tracing.shutdown()
    roots = {s.context.span_id: s for s in spans if s.name == "RequestChannel.Request"}
    assert sorted(s.attributes["kafka.api.name"] for s in roots.values()) == ["ApiVersions", "SaslAuthenticate",
                                                                             "SaslHandshake"]
    token = next(s for s in spans if s.name == "SaslServerAuthenticator.handleSaslToken#saslAuthenticate")
    assert roots[token.parent.span_id].attributes["kafka.api.name"] == "SaslAuthenticate"
    assert token.attributes["kafka.sasl.outcome"] == "authenticated"
    assert token.attributes["kafka.principal"] == "User:alice"
    assert token.attributes["kafka.sasl.mechanism"] == "PLAIN"
