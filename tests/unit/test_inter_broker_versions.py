"""The inter-broker requests at Kafka 1.0.2's versions: what the 1.0.2 controller, brokers and transaction
coordinators send, and that KafkaApis parses every version it serves (LeaderAndIsr 0-1, UpdateMetadata 0-4,
StopReplica 0, ControlledShutdown 0-1), each through the codec as it arrives off the wire."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kafka_edu.v1_0_2.core.controller import controller_channel_manager
from kafka_edu.v1_0_2.core.coordinator.transaction import transaction_marker_channel_manager
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.network.request_channel import Request
from kafka_edu.v1_0_2.core.server import kafka_server
from kafka_edu.v1_0_2.core.server.kafka_apis import KAFKA_1_0_2_VERSIONS, SUPPORTED_VERSIONS, KafkaApis
from kafka_edu.v1_0_2.core.server.metadata_cache import Broker
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import decode_request, decode_response, encode_request
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
# Kafka 1.0.2's ApiKeys (clients/.../requests/*Request.schemaVersions())
KAFKA_1_0_2_INTER_BROKER = {ApiKeys.LEADER_AND_ISR: (0, 1), ApiKeys.STOP_REPLICA: (0, 0),
                            ApiKeys.UPDATE_METADATA: (0, 4), ApiKeys.CONTROLLED_SHUTDOWN: (0, 1),
                            ApiKeys.WRITE_TXN_MARKERS: (0, 0)}


def test_the_1_0_2_senders_use_1_0_2s_versions_and_the_broker_serves_1_0_2s_ranges() -> None:
    # what 1.0.2 sends with inter.broker.protocol.version 1.0
    assert (controller_channel_manager.LEADER_AND_ISR_VERSION, controller_channel_manager.UPDATE_METADATA_VERSION,
            controller_channel_manager.STOP_REPLICA_VERSION) == (1, 4, 0)
    assert kafka_server.CONTROLLED_SHUTDOWN_VERSION == 1
    assert transaction_marker_channel_manager.WRITE_TXN_MARKERS_VERSION == 0
    for api, versions in KAFKA_1_0_2_INTER_BROKER.items():
        assert KAFKA_1_0_2_VERSIONS[api] == versions and SUPPORTED_VERSIONS[api] == versions, api
    # none of them is flexible: the traceparent rides in the client id (ControlledShutdown v0: nowhere)
    for api, (low, high) in KAFKA_1_0_2_INTER_BROKER.items():
        assert all(api.request_header_version(v) < 2 for v in range(low, high + 1))


class _Channel:
    def __init__(self) -> None:
        self.responses: list[Any] = []

    def send_response(self, response: Any) -> None:
        self.responses.append(response)


def _apis(**parts: Any) -> tuple[KafkaApis, _Channel]:
    apis = object.__new__(KafkaApis)  # only what these handlers touch
    channel = _Channel()
    apis.request_channel, apis.authorizer = channel, None
    for name, part in parts.items():
        setattr(apis, name, part)
    return apis, channel


def _arrive(api: ApiKeys, version: int, **body: Any) -> Request:
    """The request as the processor hands it to KafkaApis: encoded by a sender, decoded off the wire."""
    decoded = decode_request(encode_request(api, version, 7, "controller-1", build(api.request_schema(version), **body),
                                            traceparent=TRACEPARENT))
    if api.request_header_version(version) == 1:
        assert (decoded.client_id, decoded.traceparent) == ("controller-1", TRACEPARENT)
    return Request(0, "127.0.0.1:9092-127.0.0.1:50000-0", decoded.api_key, decoded.api_version,
                   decoded.correlation_id, decoded.client_id, decoded.body, decoded.size, "PLAINTEXT", "PLAINTEXT",
                   traceparent=decoded.traceparent)


def _answer(channel: _Channel, request: Request) -> Any:
    [response] = channel.responses
    return decode_response(request.api_key, request.api_version, response.response_send).body


def _partition_state(topic: str, partition: int) -> dict[str, Any]:
    return dict(topic_name=topic, partition_index=partition, controller_epoch=3, leader=1, leader_epoch=5,
                isr=[1, 2], partition_epoch=9, zk_version=9, replicas=[1, 2, 3], offline_replicas=[3], is_new=True)


@pytest.mark.parametrize("version", [0, 1])
def test_leader_and_isr_of_every_served_version_is_parsed(version: int) -> None:
    seen = []

    def become_leader_or_follower(correlation_id: int, request: Any, on_change: Any) -> Any:
        seen.append(request)
        return SimpleNamespace(error=Errors.NONE, response_map={tp: Errors.NONE for tp in request.partition_states})
    apis, channel = _apis(replica_manager=SimpleNamespace(become_leader_or_follower=become_leader_or_follower))
    request = _arrive(ApiKeys.LEADER_AND_ISR, version, controller_id=1, controller_epoch=3,
                      ungrouped_partition_states=[_partition_state("a", 0), _partition_state("b", 1)],
                      live_leaders=[dict(broker_id=1, host_name="h1", port=9091)])
    apis.handle_leader_and_isr_request(request)
    [parsed] = seen
    assert (parsed.controller_id, parsed.controller_epoch) == (1, 3)
    assert sorted(parsed.partition_states) == [TopicPartition("a", 0), TopicPartition("b", 1)]
    state = parsed.partition_states[TopicPartition("b", 1)]
    assert (state.controller_epoch, state.leader, state.leader_epoch, state.isr, state.zk_version, state.replicas) == \
        (3, 1, 5, [1, 2], 9, [1, 2, 3])
    assert state.is_new is (version >= 1)  # is_new came with v1
    assert [(b.id, b.host, b.port) for b in parsed.live_leaders] == [(1, "h1", 9091)]
    answer = _answer(channel, request)
    assert answer.error_code == Errors.NONE
    assert {(e.topic_name, e.partition_index) for e in answer.partition_errors} == {("a", 0), ("b", 1)}


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_update_metadata_of_every_served_version_is_parsed(version: int) -> None:
    seen = []

    def maybe_update_metadata_cache(correlation_id: int, request: Any) -> list[TopicPartition]:
        seen.append(request)
        return []
    apis, channel = _apis(replica_manager=SimpleNamespace(maybe_update_metadata_cache=maybe_update_metadata_cache),
                          admin_manager=SimpleNamespace(try_complete_topics=lambda topics: None))
    request = _arrive(ApiKeys.UPDATE_METADATA, version, controller_id=1, controller_epoch=3,
                      ungrouped_partition_states=[_partition_state("a", 0)],
                      live_brokers=[dict(id_=2, v0_host="h2", v0_port=9092, rack="r2", endpoints=[
                          dict(host="h2", port=9092, listener="INTERNAL", security_protocol=0),
                          dict(host="h2", port=9093, listener="EXTERNAL", security_protocol=2)])])
    apis.handle_update_metadata_request(request)
    [parsed] = seen
    state = parsed.partition_states[TopicPartition("a", 0)]
    assert (state.leader, state.isr, state.zk_version, state.replicas) == (1, [1, 2], 9, [1, 2, 3])
    assert state.offline_replicas == ([3] if version >= 4 else [])  # offline replicas came with v4
    expected = {
        0: Broker(2, {"PLAINTEXT": ("h2", 9092)}),  # v0: one PLAINTEXT endpoint
        1: Broker(2, {"PLAINTEXT": ("h2", 9092), "SASL_PLAINTEXT": ("h2", 9093)}),  # named after the protocol
        2: Broker(2, {"PLAINTEXT": ("h2", 9092), "SASL_PLAINTEXT": ("h2", 9093)}, "r2"),  # the rack came with v2
        3: Broker(2, {"INTERNAL": ("h2", 9092), "EXTERNAL": ("h2", 9093)}, "r2"),  # listener names with v3
        4: Broker(2, {"INTERNAL": ("h2", 9092), "EXTERNAL": ("h2", 9093)}, "r2"),
    }
    assert parsed.live_brokers == [expected[version]]
    assert _answer(channel, request).error_code == Errors.NONE


def test_stop_replica_v0_is_parsed() -> None:
    seen = []

    def stop_replicas(request: Any) -> tuple[dict[TopicPartition, Errors], Errors]:
        seen.append(request)
        return {tp: Errors.NONE for tp in request.partitions}, Errors.NONE
    replica_manager = SimpleNamespace(stop_replicas=stop_replicas, replica_fetcher_manager=SimpleNamespace(
        shutdown_idle_fetcher_threads=lambda: None))
    apis, channel = _apis(replica_manager=replica_manager)
    request = _arrive(ApiKeys.STOP_REPLICA, 0, controller_id=1, controller_epoch=3, delete_partitions=True,
                      ungrouped_partitions=[dict(topic_name="a", partition_index=0),
                                            dict(topic_name="b", partition_index=2)])
    apis.handle_stop_replica_request(request)
    [parsed] = seen
    assert (parsed.controller_id, parsed.controller_epoch, parsed.delete_partitions) == (1, 3, True)
    assert parsed.partitions == [TopicPartition("a", 0), TopicPartition("b", 2)]
    assert {(e.topic_name, e.partition_index) for e in _answer(channel, request).partition_errors} == \
        {("a", 0), ("b", 2)}


@pytest.mark.parametrize("version", [0, 1])
def test_controlled_shutdown_of_every_served_version_is_parsed(version: int) -> None:
    def shutdown_broker(broker_id: int, callback: Any) -> None:
        assert broker_id == 2
        callback({TopicPartition("a", 1)})
    apis, channel = _apis(controller=SimpleNamespace(shutdown_broker=shutdown_broker))
    request = _arrive(ApiKeys.CONTROLLED_SHUTDOWN, version, broker_id=2)
    assert request.client_id == ("" if version == 0 else "controller-1")  # v0's header has no client id
    apis.handle_controlled_shutdown_request(request)
    answer = _answer(channel, request)
    assert answer.error_code == Errors.NONE
    assert [(p.topic_name, p.partition_index) for p in answer.remaining_partitions] == [("a", 1)]
