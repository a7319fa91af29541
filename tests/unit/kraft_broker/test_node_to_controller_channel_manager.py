"""NodeToControllerChannelManager (Kafka 3.9) in-process: the request thread sends to the Raft leader at its
controller-listener address, goes to the next leader after NOT_CONTROLLER or a lost connection, hands a request that
waited too long back with on_timeout, and runs the exchange in the sender's context; plus RaftControllerNodeProvider,
ExponentialBackoff and errorCounts."""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.exponential_backoff import ExponentialBackoff
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    ClientResponse,
    ControllerInformation,
    ControllerRequest,
    NodeToControllerChannelManagerImpl,
    RaftControllerNodeProvider,
    error_counts,
)
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.voter_set import Node

WAIT_S = 10
VOTERS = {1: Node(1, "127.0.0.1", 9091), 2: Node(2, "127.0.0.1", 9092), 3: Node(3, "127.0.0.1", 9093)}
SENDER = contextvars.ContextVar("sender", default=None)


def config() -> KafkaConfig:
    return KafkaConfig.from_props({
        "process.roles": "broker", "node.id": "4",
        "controller.quorum.voters": ",".join(f"{n.id}@{n.host}:{n.port}" for n in VOTERS.values()),
        "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://127.0.0.1:9094",
        "log.dirs": "/tmp/kafka-edu-channel-test"})


class RaftManagerStandIn:
    """The slice of KafkaRaftManager the provider reads: the leader and the voters' addresses."""

    def __init__(self, leader_id: int | None) -> None:
        self.leader_id = leader_id
        self.asked_listener: str | None = None

    def leader_and_epoch(self) -> LeaderAndEpoch:
        return LeaderAndEpoch(self.leader_id, 5)

    def voter_node(self, voter_id: int, listener_name: str) -> Node | None:
        self.asked_listener = listener_name
        return VOTERS.get(voter_id)


class Controllers:
    """Network clients to stand-in controllers: each answer is the next one the test queued for that node, and
    what was sent (and the sender's context variable at send time) is recorded."""

    def __init__(self) -> None:
        self.answers: dict[int, queue.Queue[Any]] = {node_id: queue.Queue() for node_id in VOTERS}
        self.sent: queue.Queue[tuple[int, ApiKeys, Any, Any]] = queue.Queue()
        self.disconnects: list[int] = []

    def factory(self, node: Node, request_timeout_ms: int) -> Any:
        controllers = self

        class Client:
            def send_and_receive(self, api_key: ApiKeys, api_version: int, body: Any) -> Any:
                controllers.sent.put((node.id, api_key, body, SENDER.get()))
                answer = controllers.answers[node.id].get(timeout=WAIT_S)
                if isinstance(answer, BaseException):
                    raise answer
                return answer

            def disconnect(self) -> None:
                controllers.disconnects.append(node.id)

        return Client()


class Callback:
    def __init__(self) -> None:
        self.done: queue.Queue[tuple[str, Any, Any]] = queue.Queue()

    def on_complete(self, response: ClientResponse) -> None:
        self.done.put(("complete", response, SENDER.get()))

    def on_timeout(self) -> None:
        self.done.put(("timeout", None, SENDER.get()))


def heartbeat_request() -> ControllerRequest:
    data = build(ApiKeys.BROKER_HEARTBEAT.request_schema(1), broker_id=4, broker_epoch=10, current_metadata_offset=3,
                 want_fence=False, want_shut_down=False, offline_log_dirs=[])
    return ControllerRequest(ApiKeys.BROKER_HEARTBEAT, 1, data)


def heartbeat_answer(error: Errors = Errors.NONE) -> Any:
    return build(ApiKeys.BROKER_HEARTBEAT.response_schema(1), throttle_time=0, error_code=error, is_caught_up=True,
                 is_fenced=False, should_shut_down=False)


@pytest.fixture
def raft() -> RaftManagerStandIn:
    return RaftManagerStandIn(leader_id=1)


@pytest.fixture
def controllers() -> Controllers:
    return Controllers()


@pytest.fixture
def channel(raft: RaftManagerStandIn, controllers: Controllers) -> Iterator[NodeToControllerChannelManagerImpl]:
    made = NodeToControllerChannelManagerImpl(RaftControllerNodeProvider.apply(raft, config()), config(), "heartbeat",
                                              "broker-4-", retry_timeout_ms=60_000,
                                              network_client_factory=controllers.factory)
    made.start()
    yield made
    for answers in controllers.answers.values():  # let a send still waiting for an answer finish
        answers.put(OSError("test over"))
    made.shutdown()


def send(channel: NodeToControllerChannelManagerImpl, callback: Callback, sender: str) -> None:
    token = SENDER.set(sender)
    try:
        channel.send_request(heartbeat_request(), callback)
    finally:
        SENDER.reset(token)


def test_the_provider_finds_the_raft_leader_on_the_controller_listener(raft):
    provider = RaftControllerNodeProvider.apply(raft, config())
    info = provider.get_controller_info()
    assert info == ControllerInformation(VOTERS[1], "CONTROLLER", "PLAINTEXT", None, is_zk_controller=False)
    assert raft.asked_listener == "CONTROLLER"
    raft.leader_id = None
    assert provider.get_controller_info().node is None


def test_a_request_goes_to_the_leader_and_the_callback_runs_in_the_senders_context(channel, controllers):
    callback = Callback()
    controllers.answers[1].put(heartbeat_answer())
    send(channel, callback, "sendBrokerHeartbeat")
    node_id, api, body, sender = controllers.sent.get(timeout=WAIT_S)
    assert (node_id, api, body.broker_id, sender) == (1, ApiKeys.BROKER_HEARTBEAT, 4, "sendBrokerHeartbeat")
    kind, response, callback_sender = callback.done.get(timeout=WAIT_S)
    assert kind == "complete" and response.response_body.error_code == Errors.NONE
    assert response.destination == "1" and callback_sender == "sendBrokerHeartbeat"
    assert threading.current_thread().name != "broker-4-to-controller-heartbeat-channel-manager"
    assert channel.request_thread.name == "broker-4-to-controller-heartbeat-channel-manager"


def test_not_controller_sends_the_request_again_to_the_next_leader(channel, controllers, raft):
    callback = Callback()
    send(channel, callback, "first")
    assert controllers.sent.get(timeout=WAIT_S)[0] == 1
    raft.leader_id = 2  # the quorum elected node 2 meanwhile; node 1 says so
    controllers.answers[1].put(heartbeat_answer(Errors.NOT_CONTROLLER))
    controllers.answers[2].put(heartbeat_answer())
    node_id, _, _, sender = controllers.sent.get(timeout=WAIT_S)
    assert (node_id, sender) == (2, "first")
    kind, response, _ = callback.done.get(timeout=WAIT_S)
    assert kind == "complete" and response.response_body.error_code == Errors.NONE
    assert callback.done.empty() and controllers.disconnects[:1] == [1]


def test_a_lost_connection_puts_the_request_back_first_and_the_channel_finds_the_controller_again(
        channel, controllers, raft):
    first, second = Callback(), Callback()
    send(channel, first, "first")
    assert controllers.sent.get(timeout=WAIT_S)[0] == 1
    send(channel, second, "second")
    raft.leader_id = 3
    controllers.answers[1].put(ConnectionResetError("controller 1 died"))
    controllers.answers[3].put(heartbeat_answer())
    controllers.answers[3].put(heartbeat_answer())
    # the lost request goes again before the one queued after it, to the new leader
    assert [controllers.sent.get(timeout=WAIT_S)[::3] for _ in range(2)] == [(3, "first"), (3, "second")]
    assert first.done.get(timeout=WAIT_S)[0] == "complete" and second.done.get(timeout=WAIT_S)[0] == "complete"


def test_a_request_that_waits_past_the_retry_timeout_is_handed_back_with_on_timeout(raft, controllers):
    raft.leader_id = None  # no controller known: the request waits
    channel = NodeToControllerChannelManagerImpl(RaftControllerNodeProvider.apply(raft, config()), config(),
                                                 "heartbeat", "broker-4-", retry_timeout_ms=200,
                                                 network_client_factory=controllers.factory)
    with pytest.raises(IllegalStateException):
        channel.send_request(heartbeat_request(), Callback())  # not started yet
    channel.start()
    try:
        callback = Callback()
        send(channel, callback, "sendBrokerHeartbeat")
        assert callback.done.get(timeout=WAIT_S) == ("timeout", None, "sendBrokerHeartbeat")
        assert controllers.sent.empty()
    finally:
        channel.shutdown()


def test_error_counts_finds_every_error_code_in_a_response():
    response = build(ApiKeys.ALTER_PARTITION.response_schema(3), throttle_time=0, error_code=Errors.NONE, topics=[
        {"topic_id": __import__("uuid").uuid4(), "partitions": [
            {"partition_index": 0, "error_code": Errors.NOT_CONTROLLER, "leader_id": -1, "leader_epoch": -1,
             "isr": [], "leader_recovery_state": 0, "partition_epoch": -1}]}])
    assert error_counts(response) == {Errors.NONE, Errors.NOT_CONTROLLER}


def test_exponential_backoff_doubles_with_jitter_up_to_the_cap():
    backoff = ExponentialBackoff(100, 2, 9000, 0.02)
    for attempts, expected in [(0, 100), (1, 200), (2, 400), (5, 3200)]:
        assert expected * 0.98 <= backoff.backoff(attempts) <= expected * 1.02
    assert all(backoff.backoff(attempts) <= 9000 for attempts in range(6, 20))
    assert ExponentialBackoff(100, 2, 100, 0.02).backoff(7) == 100  # no room to grow: always the initial interval
    assert ExponentialBackoff(100, 2, 1000, 0.0).backoff(3) == 800
