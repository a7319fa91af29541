"""What a client learns from a ZooKeeper-mode broker's ApiVersions: Kafka 1.0.2's versions by default, so a client
that infers the broker's release from them concludes 1.0; the newest versions the port implements with
kafka.edu.advertised.api.versions=latest (docs/api-versions.md)."""

from __future__ import annotations

from kafka import KafkaAdminClient
from kafka_wire import WireConnection, address_of

from kafka_edu.v1_0_2.core.server.kafka_apis import KAFKA_1_0_2_VERSIONS, SUPPORTED_VERSIONS
from kafka_edu.v3_9.clients.common.protocol import ApiKeys, Errors
from kafka_edu.v3_9.clients.common.protocol.builder import build


def advertised(conn: WireConnection, version: int = 0) -> tuple[Errors, dict[int, tuple[int, int]]]:
    body = build(ApiKeys.API_VERSIONS.request_schema(version), client_software_name="t", client_software_version="1")
    response = conn.request(ApiKeys.API_VERSIONS, version, body)
    return Errors.for_code(response.error_code), {e.api_key: (e.min_version, e.max_version) for e in response.api_keys}


def metadata_v12(conn: WireConnection) -> None:
    conn.send_frame(conn.encode(ApiKeys.METADATA, 12, build(ApiKeys.METADATA.request_schema(12), topics=None,
                                                            allow_auto_topic_creation=False,
                                                            include_topic_authorized_operations=False)))


def test_a_zookeeper_mode_broker_answers_as_kafka_1_0_2_by_default_and_newer_when_asked(brokers) -> None:
    old = brokers("b0", broker_id="0").start().wait_running().wait_for_controller()
    with WireConnection(address_of(old.props["listeners"])) as conn:
        error, versions = advertised(conn)
        assert error is Errors.NONE and versions == {int(api): r for api, r in KAFKA_1_0_2_VERSIONS.items()}
        assert versions[ApiKeys.PRODUCE] == (0, 5) and versions[ApiKeys.METADATA] == (0, 5)
        assert ApiKeys.DELETE_GROUPS not in versions  # Kafka 1.1
        # a client starting with ApiVersions v3 (librdkafka, the Java client) is told v0-1 and downgrades
        error, versions_in_v0 = advertised(conn, 3)
        assert error is Errors.UNSUPPORTED_VERSION and versions_in_v0 == versions
        assert advertised(conn, 1)[0] is Errors.NONE
        # a version 1.0.2 did not have closes the connection, as any unparseable request does
        metadata_v12(conn)
        assert conn.is_closed_by_peer()
    client = KafkaAdminClient(bootstrap_servers=old.props["listeners"].removeprefix("PLAINTEXT://"))
    try:
        assert client._client.check_version() == (1, 0)  # kafka-python's guess from what it is told
    finally:
        client.close()

    new = brokers("b1", broker_id="1", kafka_edu_advertised_api_versions="latest").start().wait_running()
    with WireConnection(address_of(new.props["listeners"])) as conn:
        error, versions = advertised(conn, 3)
        assert error is Errors.NONE and versions[ApiKeys.METADATA] == SUPPORTED_VERSIONS[ApiKeys.METADATA]
        assert versions[ApiKeys.DELETE_GROUPS] == SUPPORTED_VERSIONS[ApiKeys.DELETE_GROUPS]
