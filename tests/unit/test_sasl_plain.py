"""SASL/PLAIN (Kafka 1.0.2's PlainSaslServer) and the JAAS file its users come from (JaasContext)."""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    KafkaException,
    SaslAuthenticationException,
    SaslException,
)
from kafka_edu.v1_0_2.clients.common.security.jaas_context import JaasContext, parse_jaas_config
from kafka_edu.v1_0_2.clients.common.security.plain.plain_sasl_server import PlainSaslServer

JAAS = """
// the broker's logins
KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
        username="admin"
        password="admin-secret"
        user_admin="admin-secret"
        user_alice="alice secret; with = signs";
    org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="admin-secret";
};
/* a listener of its own */
sasl_plaintext.KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required user_bob="bob-secret";
};
Client { org.apache.zookeeper.server.auth.DigestLoginModule optional username=zk password=zk; };
"""


@pytest.fixture
def jaas_file(tmp_path):
    path = tmp_path / "kafka_server_jaas.conf"
    path.write_text(JAAS)
    return path


def test_the_jaas_file_is_read_as_the_jvm_reads_it() -> None:
    sections = parse_jaas_config(JAAS)
    assert set(sections) == {"KafkaServer", "sasl_plaintext.KafkaServer", "Client"}
    plain, scram = sections["KafkaServer"]
    assert plain.login_module_name == "org.apache.kafka.common.security.plain.PlainLoginModule"
    assert plain.control_flag == "required"
    assert plain.options["user_alice"] == "alice secret; with = signs"
    assert scram.options == {"username": "admin", "password": "admin-secret"}
    assert sections["Client"][0].options == {"username": "zk", "password": "zk"}  # unquoted values too


@pytest.mark.parametrize("text", ["KafkaServer { Module required a=\"b\" }", "KafkaServer { Module sometimes; };",
                                  "KafkaServer Module required;", "KafkaServer { Module required a= ; };"])
def test_a_malformed_jaas_file_is_refused(text: str) -> None:
    with pytest.raises(IllegalArgumentException):
        parse_jaas_config(text)


def test_a_listener_reads_its_own_section_first_then_kafka_server(jaas_file) -> None:
    configs = {"java.security.auth.login.config": str(jaas_file)}
    assert JaasContext.load_server_context("SASL_PLAINTEXT", configs).name == "sasl_plaintext.KafkaServer"
    assert JaasContext.load_server_context("CLIENTS", configs).name == "KafkaServer"
    with pytest.raises(IllegalArgumentException, match="System property 'java.security.auth.login.config' is not"):
        JaasContext.load_server_context("SASL_PLAINTEXT", {})
    with pytest.raises(KafkaException):
        JaasContext.load_server_context("X", {"java.security.auth.login.config": str(jaas_file) + ".missing"})


@pytest.fixture
def server(jaas_file) -> PlainSaslServer:
    return PlainSaslServer(JaasContext.load_server_context("CLIENTS",
                                                           {"java.security.auth.login.config": str(jaas_file)}))


def test_a_user_of_the_jaas_file_logs_in(server: PlainSaslServer) -> None:
    assert server.evaluate_response(b"\0alice\0alice secret; with = signs") == b""
    assert server.is_complete() and server.get_authorization_id() == "alice"


def test_an_authorization_id_equal_to_the_user_is_accepted(server: PlainSaslServer) -> None:
    server.evaluate_response(b"admin\0admin\0admin-secret")
    assert server.get_authorization_id() == "admin"


@pytest.mark.parametrize("token, refusal, message", [
    (b"\0alice\0wrong", SaslAuthenticationException, "Invalid username or password"),
    (b"\0mallory\0anything", SaslAuthenticationException, "Invalid username or password"),
    (b"admin\0alice\0alice secret; with = signs", SaslAuthenticationException, "authorization id"),
    (b"no separators at all", SaslException, "expected 3 tokens, got 1"),
    (b"\0alice\0", SaslException, "expected 3 tokens, got 2"),  # Java's split drops the empty password
    (b"\0\0password", SaslException, "username not specified"),
    (b"a\0b\0c\0d", SaslException, "expected 3 tokens, got 4"),
    (b"\xff\xfe\0\xff\0\xff", SaslAuthenticationException, "Invalid username or password"),  # bad UTF-8 replaced
])
def test_a_bad_plain_token_is_refused(server: PlainSaslServer, token: bytes, refusal: type[Exception],
                                      message: str) -> None:
    with pytest.raises(refusal, match=message):
        server.evaluate_response(token)
    assert not server.is_complete()
