"""Kafka 1.0.2's security on a ZooKeeper-mode cluster of real processes: two brokers, each with a PLAINTEXT listener
(the brokers' own, its anonymous clients super users) and a SASL_PLAINTEXT one (PLAIN users from the JAAS file,
SCRAM credentials that `kafka-edu configs` writes to ZooKeeper), SimpleAclAuthorizer with ACLs that `kafka-edu acls`
and kafka-python's KafkaAdminClient add and delete. Real clients log in (kcat, confluent-kafka, kafka-python); a
wrong password, a malformed token and a denied produce get 1.0.2's answers, leave nothing behind, and the brokers
keep serving everyone else; the traces say who logged in and what was denied."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    KafkaAdminClient,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)
from kafka.admin import ACLResourcePatternType as PatternType
from kafka.errors import ClusterAuthorizationFailedError, InvalidRequestError
from kafka_wire import WireConnection
from kazoo.client import KazooClient

from kafka_edu import cli
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from kafka_edu.v1_0_2.core.admin import acl_command
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import wait_until

JAAS = """KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
        username="admin" password="admin-secret"
        user_admin="admin-secret"
        user_alice="alice-secret";
    org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="admin-secret";
};
"""
ALICE = {"sasl.mechanisms": "PLAIN", "sasl.username": "alice", "sasl.password": "alice-secret"}
BOB_256 = {"sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "bob", "sasl.password": "bob-secret"}
BOB_512 = {"sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "bob", "sasl.password": "bob-secret"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    root = tmp_path_factory.mktemp("security")
    jaas = root / "kafka_server_jaas.conf"
    jaas.write_text(JAAS)
    runner = ClusterRunner.up(2, root / "traces", timeout_s=120, sasl=True, overrides=[
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        f"java.security.auth.login.config={jaas}",
        "authorizer.class.name=kafka.security.auth.SimpleAclAuthorizer",
        # the brokers reach each other (and these tests' setup reaches them) on PLAINTEXT, as User:ANONYMOUS
        "super.users=User:ANONYMOUS;User:admin",
    ])
    try:
        manifest = runner.run.read_manifest()
        # bob's SCRAM credentials, as an operator adds them: ZooKeeper, then a change notification
        assert cli.main(["configs", "--zookeeper", manifest["zookeeper_connect"], "--alter", "--entity-type",
                         "users", "--entity-name", "bob", "--add-config",
                         "SCRAM-SHA-256=[iterations=4096,password=bob-secret],SCRAM-SHA-512=[password=bob-secret]"
                         ]) == 0
        yield runner
    finally:
        runner.down()


@pytest.fixture(scope="module")
def manifest(cluster: ClusterRunner) -> dict[str, Any]:
    return cluster.run.read_manifest()


@pytest.fixture(scope="module")
def plaintext(manifest: dict[str, Any]) -> str:
    return manifest["bootstrap_servers"]


@pytest.fixture(scope="module")
def sasl(manifest: dict[str, Any]) -> str:
    return manifest["sasl_bootstrap_servers"]


def sasl_address(manifest: dict[str, Any], broker: int = 0) -> tuple[str, int]:
    return "127.0.0.1", next(p["sasl_port"] for p in manifest["processes"] if p.get("id") == broker
                             and p["role"] == "broker")


def acls(manifest: dict[str, Any], *args: str) -> None:
    out: list[str] = []
    code = acl_command.main(["--authorizer-properties", f"zookeeper.connect={manifest['zookeeper_connect']}",
                             *args], out=out.append)
    assert code == 0, "\n".join(out)


def create_topic(plaintext: str, partitions: int = 2) -> str:
    topic = f"t-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": plaintext})  # kept alive until its future is done
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    wait_until(lambda: all(p.leader >= 0 for p in Producer({"bootstrap.servers": plaintext}).list_topics(
        topic, timeout=10).topics[topic].partitions.values()), what=f"{topic}'s leaders")
    return topic


def client_config(bootstrap: str, login: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", **login, **extra}


def produce(bootstrap: str, login: dict[str, str], topic: str, n: int) -> list[KafkaError | None]:
    """Each delivery's error (None: acknowledged)."""
    errors: list[KafkaError | None] = []
    producer = Producer(client_config(bootstrap, login, **{"message.timeout.ms": 15000}))
    for i in range(n):
        producer.produce(topic, f"m{i}".encode(), partition=i % 2, on_delivery=lambda err, msg: errors.append(err))
    producer.flush(30)
    return errors


def high_watermarks(plaintext: str, topic: str) -> list[int]:
    consumer = Consumer({"bootstrap.servers": plaintext, "group.id": "watermarks"})
    try:
        return [consumer.get_watermark_offsets(CTopicPartition(topic, p), timeout=10)[1] for p in range(2)]
    finally:
        consumer.close()


def spans(cluster: ClusterRunner, name: str, **attributes: Any) -> list[Any]:
    return [s for s in load_run(cluster.run.path) if s.name == name
            and all(s.attributes.get(k) == v for k, v in attributes.items())]


def kcat(bootstrap: str, login: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    options = [x for key, value in login.items() for x in ("-X", f"{key}={value}")]
    return subprocess.run(["kcat", "-b", bootstrap, "-X", "security.protocol=SASL_PLAINTEXT", *options, *args],
                          capture_output=True, text=True, timeout=60)


# -- logins -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("login", [ALICE, BOB_256, BOB_512], ids=["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_kcat_logs_in(cluster, sasl, login) -> None:
    # the SCRAM credentials reach the brokers through their config-change watch: the first try may be early
    result = wait_until(lambda: (r := kcat(sasl, login, "-L", "-m", "10")).returncode == 0 and r,
                        what=f"kcat logging in with {login['sasl.mechanisms']}")
    assert "2 brokers:" in result.stdout
    principal = f"User:{login['sasl.username']}"
    wait_until(lambda: spans(cluster, "SaslServerAuthenticator.handleSaslToken#saslAuthenticate",
                             **{"kafka.sasl.mechanism": login["sasl.mechanisms"], "kafka.principal": principal,
                                "kafka.sasl.outcome": "authenticated"}), what="the login's span")


def test_confluent_kafka_produces_with_plain_and_consumes_with_scram(cluster, manifest, plaintext, sasl) -> None:
    topic = create_topic(plaintext)
    acls(manifest, "--add", "--allow-principal", "User:alice", "--producer", "--topic", topic)
    acls(manifest, "--add", "--allow-principal", "User:bob", "--consumer", "--topic", topic, "--group", "readers")
    # the ACLs reach both brokers through /kafka-acl-changes
    wait_until(lambda: not any(produce(sasl, ALICE, topic, 2)), what="alice allowed to write")
    assert not any(produce(sasl, ALICE, topic, 8))
    consumer = Consumer(client_config(sasl, BOB_256, **{"group.id": "readers", "auto.offset.reset": "earliest"}))
    try:
        consumer.subscribe([topic])
        values: list[bytes] = []

        def read_all() -> bool:
            message = consumer.poll(0.5)
            if message is not None and not message.error():
                values.append(message.value())
            return len(values) >= 10
        wait_until(read_all, what="bob reading the 10 records")
        assert sorted(values) == sorted(f"m{i}".encode() for i in (0, 1, *range(8)))
        consumer.commit(asynchronous=False)  # OffsetCommit: Read on the group and the topic
    finally:
        consumer.close()
    processed = spans(cluster, "SimpleAclAuthorizer.AclChangedNotificationHandler.processNotification",
                      **{"kafka.resource": f"Topic:{topic}"})
    assert {s.instance for s in processed} == {"broker-0", "broker-1"}


@pytest.mark.parametrize("login, message", [
    ({**ALICE, "sasl.password": "wrong"}, "Authentication failed: Invalid username or password"),
    ({**BOB_256, "sasl.password": "wrong"}, "Authentication failed due to invalid credentials with SASL mechanism "
                                            "SCRAM-SHA-256"),
    ({**BOB_512, "sasl.username": "nobody"}, "Authentication failed due to invalid credentials with SASL mechanism "
                                             "SCRAM-SHA-512"),
], ids=["PLAIN", "SCRAM-SHA-256", "unknown user"])
def test_a_wrong_password_is_refused(cluster, sasl, login, message) -> None:
    errors: list[KafkaError] = []
    producer = Producer(client_config(sasl, login, error_cb=errors.append))
    with pytest.raises(KafkaException):
        producer.list_topics(timeout=2)  # librdkafka retries a refused login until the timeout
    # librdkafka reports the broker's error message as an authentication error (served by poll)
    wait_until(lambda: producer.poll(0.1) is not None and any(
        e.code() == KafkaError._AUTHENTICATION and message in e.str() for e in errors), what="the refusal")
    assert kcat(sasl, ALICE, "-L", "-m", "10").returncode == 0  # everyone else is still served


def wire_login(conn: WireConnection, mechanism: str, token: bytes) -> Any:
    handshake = conn.request(ApiKeys.SASL_HANDSHAKE, 1, build(ApiKeys.SASL_HANDSHAKE.request_schema(1),
                                                                 mechanism=mechanism))
    assert handshake.error_code == Errors.NONE
    return conn.request(ApiKeys.SASL_AUTHENTICATE, 0, build(ApiKeys.SASL_AUTHENTICATE.request_schema(0),
                                                            auth_bytes=token))


@pytest.mark.parametrize("mechanism, token", [
    ("PLAIN", b"alice-secret"),  # no NUL separators
    ("PLAIN", b"\0alice\0"),  # no password
    ("SCRAM-SHA-256", b"n,,n=bob"),  # a client first message without its nonce
    ("SCRAM-SHA-512", b"\xff\xfe garbage"),
])
def test_a_malformed_token_gets_sasl_authentication_failed_and_the_connection_closes(cluster, manifest, sasl,
                                                                                     mechanism, token) -> None:
    with WireConnection(sasl_address(manifest)) as conn:
        refused = wire_login(conn, mechanism, token)
        assert refused.error_code == Errors.SASL_AUTHENTICATION_FAILED
        assert refused.error_message == ("Authentication failed due to invalid credentials with SASL mechanism "
                                         + mechanism)
        assert conn.is_closed_by_peer()
    with WireConnection(sasl_address(manifest)) as conn:  # the next client logs in as ever
        assert wire_login(conn, "PLAIN", b"\0alice\0alice-secret").error_code == Errors.NONE
        metadata = conn.request(ApiKeys.METADATA, 1, build(ApiKeys.METADATA.request_schema(1), topics=None))
        assert len(metadata.brokers) == 2


def test_no_request_is_served_before_the_login(cluster, manifest, plaintext) -> None:
    with WireConnection(sasl_address(manifest)) as conn:
        conn.send_frame(conn.encode(ApiKeys.METADATA, 1, build(ApiKeys.METADATA.request_schema(1), topics=None)))
        assert conn.is_closed_by_peer()
    with WireConnection(sasl_address(manifest)) as conn:
        conn.send_frame(b"\x60\x82 not a Kafka request")
        assert conn.is_closed_by_peer()
    # a SaslHandshake on a listener without SASL, or after the login, is out of place
    host, port = plaintext.split(",")[0].split(":")
    with WireConnection((host, int(port))) as conn:
        answer = conn.request(ApiKeys.SASL_HANDSHAKE, 1, build(ApiKeys.SASL_HANDSHAKE.request_schema(1),
                                                                 mechanism="PLAIN"))
        assert answer.error_code == Errors.ILLEGAL_SASL_STATE


# -- authorization ------------------------------------------------------------------------------------------------

def test_a_denied_produce_gets_topic_authorization_failed_and_appends_nothing(cluster, manifest, plaintext,
                                                                              sasl) -> None:
    topic = create_topic(plaintext)
    acls(manifest, "--add", "--allow-principal", "User:alice", "--operation", "Describe", "--topic", topic)
    # alice may see the topic (Metadata) but not write it: her Produce requests reach the broker and are refused.
    # Both brokers must have read the ACL back from ZooKeeper first: a broker that has not answers her Metadata
    # with TOPIC_AUTHORIZATION_FAILED, and her producer fails the messages without sending a Produce request
    wait_until(lambda: len({s.resource.get("process.pid") for s in spans(
        cluster, "SimpleAclAuthorizer.AclChangedNotificationHandler.processNotification",
        **{"kafka.resource": f"Topic:{topic}"})}) == 2, what="both brokers reading alice's ACL")
    wait_until(lambda: kcat(sasl, ALICE, "-L", "-t", topic).stdout.count("leader") == 2, what="alice seeing it")
    errors = produce(sasl, ALICE, topic, 4)
    assert len(errors) == 4 and all(e is not None and e.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
                                    for e in errors)
    assert high_watermarks(plaintext, topic) == [0, 0]
    denied = wait_until(lambda: spans(cluster, "KafkaApis.authorize", **{
        "kafka.principal": "User:alice", "kafka.acl.operation": "Write", "kafka.resource.name": topic,
        "kafka.authorization.outcome": "DENIED"}), what="the denial's span")
    everything = load_run(cluster.run.path)
    by_id = {s.span_id: s for s in everything}
    for span in denied:
        handler = by_id[span.parent_id]
        assert handler.name == "KafkaApis.handleProduceRequest"
        # the denied request's trace holds no append
        assert not [s for s in everything if s.trace_id == span.trace_id and s.name == "Log.append"]


def test_kafka_python_admin_creates_describes_and_deletes_acls(cluster, manifest, plaintext, sasl) -> None:
    topic = create_topic(plaintext)
    admin = KafkaAdminClient(bootstrap_servers=sasl, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                             sasl_plain_username="admin", sasl_plain_password="admin-secret")
    try:
        write = ACL("User:alice", "*", ACLOperation.WRITE, ACLPermissionType.ALLOW,
                    ResourcePattern(ResourceType.TOPIC, topic))
        describe = ACL("User:alice", "*", ACLOperation.DESCRIBE, ACLPermissionType.ALLOW,
                       ResourcePattern(ResourceType.TOPIC, topic))
        created = admin.create_acls([write, describe])
        assert created["failed"] == [] and len(created["succeeded"]) == 2
        topic_filter = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                 ResourcePatternFilter(ResourceType.TOPIC, topic, PatternType.LITERAL))
        described, error = admin.describe_acls(topic_filter)
        assert sorted(a.operation for a in described) == [ACLOperation.WRITE, ACLOperation.DESCRIBE]
        wait_until(lambda: not any(produce(sasl, ALICE, topic, 2)), what="alice writing with the new ACLs")

        deleted = admin.delete_acls([ACLFilter("User:alice", None, ACLOperation.WRITE, ACLPermissionType.ANY,
                                               ResourcePatternFilter(ResourceType.TOPIC, topic,
                                                                     PatternType.LITERAL))])
        assert [a.operation for a in deleted[0][1]] == [ACLOperation.WRITE]
        assert [a.operation for a in admin.describe_acls(topic_filter)[0]] == [ACLOperation.DESCRIBE]
        wait_until(lambda: all(e is not None and e.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
                               for e in produce(sasl, ALICE, topic, 2)), what="alice refused again")
    finally:
        admin.close()
    zk = KazooClient(hosts=manifest["zookeeper_connect"])
    zk.start(timeout=30)
    try:
        data, _ = zk.get(f"/kafka-acl/Topic/{topic}")
        assert b'"operation":"Describe"' in data and b'"operation":"Write"' not in data
    finally:
        zk.stop()
        zk.close()


def test_an_acl_with_an_invalid_pattern_is_refused(cluster, manifest, sasl) -> None:
    admin = KafkaAdminClient(bootstrap_servers=sasl, security_protocol="SASL_PLAINTEXT",
                             sasl_mechanism="SCRAM-SHA-256", sasl_plain_username="bob",
                             sasl_plain_password="bob-secret")
    try:
        # bob may not alter the cluster's ACLs at all
        denied = admin.create_acls([ACL("User:bob", "*", ACLOperation.ALL, ACLPermissionType.ALLOW,
                                        ResourcePattern(ResourceType.CLUSTER, "kafka-cluster"))])
        assert denied["failed"] == [ClusterAuthorizationFailedError] and not denied["succeeded"]
    finally:
        admin.close()
    admin = KafkaAdminClient(bootstrap_servers=sasl, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                             sasl_plain_username="admin", sasl_plain_password="admin-secret")
    try:
        refused = admin.create_acls([
            ACL("alice", "*", ACLOperation.READ, ACLPermissionType.ALLOW,  # not Type:name
                ResourcePattern(ResourceType.TOPIC, "invalid-principal")),
            ACL("User:alice", "*", ACLOperation.ALTER, ACLPermissionType.ALLOW,  # the cluster is kafka-cluster
                ResourcePattern(ResourceType.CLUSTER, "my-cluster")),
            ACL("User:alice", "*", ACLOperation.READ, ACLPermissionType.ALLOW,  # no name
                ResourcePattern(ResourceType.TOPIC, ""))])
        assert refused["failed"] == [InvalidRequestError] * 3 and not refused["succeeded"]
    finally:
        admin.close()
    # a filter's ANY where a creation needs a type, sent as kafka-python would not let a user send it
    with WireConnection(sasl_address(manifest)) as conn:
        assert wire_login(conn, "PLAIN", b"\0admin\0admin-secret").error_code == Errors.NONE
        answer = conn.request(ApiKeys.CREATE_ACLS, 0, build(ApiKeys.CREATE_ACLS.request_schema(0), creations=[
            dict(resource_type=1, resource_name="t", principal="User:alice", host="*", operation=3,
                 permission_type=3)]))
        assert [r.error_code for r in answer.results] == [Errors.INVALID_REQUEST]
    zk = KazooClient(hosts=manifest["zookeeper_connect"])
    zk.start(timeout=30)
    try:
        assert not {"invalid-principal", "", "t"} & set(zk.get_children("/kafka-acl/Topic"))
        assert zk.get_children("/kafka-acl/Cluster") == [] or "my-cluster" not in zk.get_children(
            "/kafka-acl/Cluster")
    finally:
        zk.stop()
        zk.close()

