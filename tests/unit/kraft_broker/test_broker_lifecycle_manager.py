"""BrokerLifecycleManager (Kafka 3.9) in-process, against a stand-in channel to the controller and a clock the test
moves, as 3.9's BrokerLifecycleManagerTest does with MockTime: the registration, the heartbeats and the state they
drive, controlled shutdown, the backoff after failures and the registration timeout; and its trace."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError
from typing import Any

import pytest

from kafka_edu.tracing import provider, setup_tracing
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.server.broker_lifecycle_manager import BrokerLifecycleManager
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse
from kafka_edu.v3_9.metadata.metadata.broker_state import BrokerState

WAIT_S = 10
MS = 1_000_000
LOG_DIRS = [Uuid.from_string("ybdzUKmYSLK6oiIpI6CPlw"), Uuid.from_string("ad5FLIeCTnaQdai5vOjeng")]
LISTENERS = [{"name": "PLAINTEXT", "host": "127.0.0.1", "port": 9092, "security_protocol": 0}]
FEATURES = {"metadata.version": (1, 21)}


class ManualTime:
    """A clock that moves only when the test moves it; moving it wakes the manager's queue."""

    def __init__(self) -> None:
        self.ns = 1_000_000 * MS
        self.manager: BrokerLifecycleManager | None = None

    def nanoseconds(self) -> int:
        return self.ns

    def sleep(self, ms: float) -> None:
        self.ns += int(ms * MS)
        self.manager.event_queue.wakeup()


class ChannelStandIn:
    """NodeToControllerChannelManager as the manager sees it: requests pile up until the test answers them."""

    def __init__(self) -> None:
        self.requests: queue.Queue[tuple[Any, Any]] = queue.Queue()
        self.started = threading.Event()
        self.shut_down = threading.Event()

    def start(self) -> None:
        self.started.set()

    def shutdown(self) -> None:
        self.shut_down.set()

    def send_request(self, request: Any, callback: Any) -> None:
        self.requests.put((request, callback))

    def next(self, api: ApiKeys) -> tuple[Any, Any]:
        request, callback = self.requests.get(timeout=WAIT_S)
        assert request.api == api, request
        return request.data, callback

    def idle(self) -> bool:
        return self.requests.empty()


def config(**overrides: str) -> KafkaConfig:
    return KafkaConfig.from_props({
        "process.roles": "broker", "node.id": "4", "controller.quorum.voters": "1@127.0.0.1:9093",
        "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://127.0.0.1:9092",
        "log.dirs": "/tmp/kafka-edu-lifecycle-test", "broker.heartbeat.interval.ms": "100",
        "initial.broker.registration.timeout.ms": "300000", **overrides})


def registration_response(epoch: int = 1000, error: Errors = Errors.NONE) -> ClientResponse:
    body = build(ApiKeys.BROKER_REGISTRATION.response_schema(4), throttle_time=0, error_code=error,
                 broker_epoch=epoch)
    return ClientResponse(ApiKeys.BROKER_REGISTRATION, "1", response_body=body)


def heartbeat_response(is_caught_up: bool = False, is_fenced: bool = True, should_shut_down: bool = False,
                       error: Errors = Errors.NONE) -> ClientResponse:
    body = build(ApiKeys.BROKER_HEARTBEAT.response_schema(1), throttle_time=0, error_code=error,
                 is_caught_up=is_caught_up, is_fenced=is_fenced, should_shut_down=should_shut_down)
    return ClientResponse(ApiKeys.BROKER_HEARTBEAT, "1", response_body=body)


def wait_for(condition: Any, what: str) -> None:
    done = threading.Event()
    for _ in range(WAIT_S * 100):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def time() -> ManualTime:
    return ManualTime()


@pytest.fixture
def channel() -> ChannelStandIn:
    return ChannelStandIn()


@pytest.fixture
def manager(time: ManualTime) -> Iterator[BrokerLifecycleManager]:
    made = BrokerLifecycleManager(config(), time, "broker-4-", is_zk_broker=False, log_dirs=LOG_DIRS)
    time.manager = made
    yield made
    made.close()


def next_exchange_ms(manager: BrokerLifecycleManager, time: ManualTime) -> float:
    """Once the next exchange is scheduled (the deferred "communication" event), how far ahead it is."""
    handler = manager.event_queue.event_handler
    wait_for(lambda: "communication" in handler.tag_to_event_context, "the next exchange to be scheduled")
    return (handler.tag_to_event_context["communication"].deadline_ns - time.ns) / MS


def start(manager: BrokerLifecycleManager, channel: ChannelStandIn, offset: list[int],
          previous_epoch: int | None = None) -> None:
    manager.start(lambda: offset[0], channel, "kafka-edu-test-cluster", LISTENERS, FEATURES, previous_epoch)


def registered(manager: BrokerLifecycleManager, channel: ChannelStandIn, epoch: int = 1000) -> None:
    _, callback = channel.next(ApiKeys.BROKER_REGISTRATION)
    callback.on_complete(registration_response(epoch))


def test_startup_registers_the_incarnation_with_its_listeners_features_and_sorted_log_dirs(manager, channel):
    assert manager.state == BrokerState.NOT_RUNNING
    start(manager, channel, [0], previous_epoch=10)
    data, _ = channel.next(ApiKeys.BROKER_REGISTRATION)
    assert channel.started.is_set() and manager.state == BrokerState.STARTING
    assert data.broker_id == 4 and data.cluster_id == "kafka-edu-test-cluster"
    assert str(Uuid.from_bytes(data.incarnation_id.bytes)) == str(manager.incarnation_id)
    assert [(ls.name, ls.host, ls.port, ls.security_protocol) for ls in data.listeners] == \
        [("PLAINTEXT", "127.0.0.1", 9092, 0)]
    assert [(f.name, f.min_supported_version, f.max_supported_version) for f in data.features] == \
        [("metadata.version", 1, 21)]
    assert [str(Uuid.from_bytes(d.bytes)) for d in data.log_dirs] == sorted(str(d) for d in LOG_DIRS) == \
        [str(d) for d in sorted(LOG_DIRS)]
    assert data.previous_broker_epoch == 10 and data.is_migrating_zk_broker is False


def test_heartbeats_move_the_broker_from_starting_through_recovery_to_running(manager, channel, time):
    offset = [7]
    start(manager, channel, offset)
    registered(manager, channel, epoch=1000)
    # the first heartbeat follows the registration at once, asking to stay fenced
    data, callback = channel.next(ApiKeys.BROKER_HEARTBEAT)
    assert manager.broker_epoch == 1000
    assert (data.broker_id, data.broker_epoch, data.current_metadata_offset) == (4, 1000, 7)
    assert data.want_fence is True and data.want_shut_down is False
    callback.on_complete(heartbeat_response(is_caught_up=False))
    # not caught up: STARTING, and the next heartbeat 10 ms later (not the interval)
    assert next_exchange_ms(manager, time) == 10 and channel.idle()
    offset[0] = 9
    time.sleep(10)
    data, callback = channel.next(ApiKeys.BROKER_HEARTBEAT)
    assert data.current_metadata_offset == 9 and manager.state == BrokerState.STARTING
    callback.on_complete(heartbeat_response(is_caught_up=True))
    manager.initial_catch_up_future.result(WAIT_S)
    assert manager.state == BrokerState.RECOVERY and not manager.initial_unfence_future.done()
    # ready: the next heartbeat, at once, asks to be unfenced
    unfenced = manager.set_ready_to_unfence()
    data, callback = channel.next(ApiKeys.BROKER_HEARTBEAT)
    assert data.want_fence is False
    callback.on_complete(heartbeat_response(is_caught_up=True, is_fenced=False))
    unfenced.result(WAIT_S)
    assert manager.state == BrokerState.RUNNING
    # RUNNING: heartbeats every broker.heartbeat.interval.ms
    assert next_exchange_ms(manager, time) == 100
    time.sleep(99)
    assert channel.idle()
    time.sleep(1)
    channel.next(ApiKeys.BROKER_HEARTBEAT)


def running(manager: BrokerLifecycleManager, channel: ChannelStandIn) -> Any:
    start(manager, channel, [0])
    registered(manager, channel)
    channel.next(ApiKeys.BROKER_HEARTBEAT)[1].on_complete(heartbeat_response(is_caught_up=True))
    manager.initial_catch_up_future.result(WAIT_S)
    manager.set_ready_to_unfence()
    channel.next(ApiKeys.BROKER_HEARTBEAT)[1].on_complete(heartbeat_response(is_caught_up=True, is_fenced=False))
    manager.initial_unfence_future.result(WAIT_S)


def test_controlled_shutdown_asks_in_heartbeats_until_the_controller_says_shut_down(manager, channel, time):
    running(manager, channel)
    manager.begin_controlled_shutdown()
    # the heartbeat asking to shut down goes out at once, without waiting for the interval
    data, callback = channel.next(ApiKeys.BROKER_HEARTBEAT)
    assert manager.state == BrokerState.PENDING_CONTROLLED_SHUTDOWN and data.want_shut_down is True
    callback.on_complete(heartbeat_response(is_fenced=False, should_shut_down=False))
    # the controller still moves leaders: asked again 50 ms after the first answer
    assert next_exchange_ms(manager, time) == 50
    time.sleep(50)
    data, callback = channel.next(ApiKeys.BROKER_HEARTBEAT)
    assert data.want_shut_down is True and not manager.controlled_shutdown_future.done()
    callback.on_complete(heartbeat_response(is_fenced=True, should_shut_down=True))
    manager.controlled_shutdown_future.result(WAIT_S)
    wait_for(lambda: channel.shut_down.is_set(), "the channel to shut down")
    assert manager.state == BrokerState.SHUTTING_DOWN


def test_controlled_shutdown_before_running_shuts_down_at_once(manager, channel):
    start(manager, channel, [0])
    channel.next(ApiKeys.BROKER_REGISTRATION)
    manager.begin_controlled_shutdown()
    manager.controlled_shutdown_future.result(WAIT_S)
    assert manager.state == BrokerState.SHUTTING_DOWN
    with pytest.raises(CancelledError):
        manager.initial_catch_up_future.result(WAIT_S)


def test_failed_exchanges_back_off_exponentially_and_a_success_resets_the_backoff(manager, channel, time):
    start(manager, channel, [0])
    _, callback = channel.next(ApiKeys.BROKER_REGISTRATION)
    callback.on_complete(registration_response(error=Errors.DUPLICATE_BROKER_REGISTRATION))
    assert 98 <= next_exchange_ms(manager, time) <= 102  # 100 ms, 2 % jitter
    time.sleep(102)
    _, callback = channel.next(ApiKeys.BROKER_REGISTRATION)  # sent again: still not registered
    callback.on_complete(ClientResponse(ApiKeys.BROKER_REGISTRATION, "1", disconnected=True))
    assert 196 <= next_exchange_ms(manager, time) <= 204
    time.sleep(204)
    _, callback = channel.next(ApiKeys.BROKER_REGISTRATION)
    callback.on_timeout()
    assert 392 <= next_exchange_ms(manager, time) <= 408
    time.sleep(408)
    registered(manager, channel)
    _, callback = channel.next(ApiKeys.BROKER_HEARTBEAT)
    callback.on_complete(heartbeat_response(error=Errors.NOT_CONTROLLER))
    assert 98 <= next_exchange_ms(manager, time) <= 102  # the registration's success reset the count


def test_the_backoff_is_capped_at_the_session_timeout(time, channel):
    manager = BrokerLifecycleManager(config(**{"broker.session.timeout.ms": "1000"}), time, "broker-4-",
                                     log_dirs=LOG_DIRS)
    time.manager = manager
    try:
        start(manager, channel, [0])
        delays = []
        for _ in range(6):  # 100, 200, 400, 800, then the cap
            _, callback = channel.next(ApiKeys.BROKER_REGISTRATION)
            callback.on_timeout()
            delays.append(next_exchange_ms(manager, time))
            time.sleep(delays[-1])
        assert 784 <= delays[3] <= 816 and all(980 <= d <= 1000 for d in delays[4:]), delays
    finally:
        manager.close()


def test_no_registration_within_the_initial_timeout_shuts_the_manager_down(time, channel):
    manager = BrokerLifecycleManager(config(**{"initial.broker.registration.timeout.ms": "5000"}), time,
                                     "broker-4-", log_dirs=LOG_DIRS)
    time.manager = manager
    try:
        start(manager, channel, [0])
        channel.next(ApiKeys.BROKER_REGISTRATION)  # never answered
        time.sleep(5000)
        with pytest.raises(CancelledError):
            manager.initial_catch_up_future.result(WAIT_S)
        wait_for(lambda: manager.state == BrokerState.SHUTTING_DOWN, "SHUTTING_DOWN")
        assert manager.broker_epoch == -1 and channel.shut_down.is_set()
    finally:
        manager.close()


def test_a_resend_registers_again_and_takes_the_new_epoch(manager, channel, time):
    running(manager, channel)
    manager.resend_broker_registration_unless_zk_mode()
    registered(manager, channel, epoch=1200)
    channel.next(ApiKeys.BROKER_HEARTBEAT)
    assert manager.broker_epoch == 1200


# -- the trace ------------------------------------------------------------------------------------------------------

@pytest.fixture
def tracing(monkeypatch):
    monkeypatch.setattr(provider, "_current", None)  # restored after the test
    return setup_tracing("broker-4", "run-1", mode="kraft")


def test_each_state_change_is_an_event_and_a_running_brokers_steady_heartbeats_get_no_span(tracing, time, channel):
    manager = BrokerLifecycleManager(config(), time, "broker-4-", log_dirs=LOG_DIRS)
    time.manager = manager
    try:
        running(manager, channel)
        for _ in range(3):  # steady heartbeats
            time.sleep(next_exchange_ms(manager, time))
            channel.next(ApiKeys.BROKER_HEARTBEAT)[1].on_complete(heartbeat_response(is_fenced=False))
        manager.begin_controlled_shutdown()
        channel.next(ApiKeys.BROKER_HEARTBEAT)[1].on_complete(heartbeat_response(should_shut_down=True))
        manager.controlled_shutdown_future.result(WAIT_S)
    finally:
        manager.close()
    spans = tracing.memory.get_finished_spans()
    changes = sorted((e.timestamp, e.attributes["kafka.broker.state.from"], e.attributes["kafka.broker.state.to"])
                     for s in spans for e in s.events if e.name == "broker.state.change")
    assert [(frm, to) for _, frm, to in changes] == [
        ("NOT_RUNNING", "STARTING"), ("STARTING", "RECOVERY"), ("RECOVERY", "RUNNING"),
        ("RUNNING", "PENDING_CONTROLLED_SHUTDOWN"), ("PENDING_CONTROLLED_SHUTDOWN", "SHUTTING_DOWN")]
    heartbeats = [s for s in spans if s.name == "BrokerLifecycleManager.sendBrokerHeartbeat"]
    # STARTING, RECOVERY asking to be unfenced, the first RUNNING one, the one asking to shut down: not the 2 others
    assert [(s.attributes["kafka.broker.state"], s.attributes["kafka.broker.want_fence"],
             s.attributes["kafka.broker.want_shut_down"]) for s in heartbeats] == [
        ("STARTING", True, False), ("RECOVERY", False, False), ("RUNNING", False, False),
        ("PENDING_CONTROLLED_SHUTDOWN", False, True)]
    (registration,) = [s for s in spans if s.name == "BrokerLifecycleManager.sendBrokerRegistration"]
    assert registration.attributes["kafka.broker.incarnation_id"] == str(manager.incarnation_id)
    assert list(registration.attributes["kafka.broker.listeners"]) == ["PLAINTEXT://127.0.0.1:9092"]
