"""Port of core/src/test/scala/unit/kafka/server/BrokerLifecycleManagerTest.scala (Kafka 3.9).

Each case builds Kafka's RegistrationTestContext (registration_test_context_helpers.py beside this module): a mock
clock that moves only when the case moves it, and a channel to the controller whose requests wait until the case
polls them to a mock client that answers with prepared responses. Kafka's `isCompletedExceptionally` reads as a
future that was cancelled or failed. Kafka's class runs under a 12 s JUnit timeout; the loops that spin on the
manager here carry their own deadline instead.
"""

from __future__ import annotations

import time as wall_time
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.server.broker_lifecycle_manager import BrokerLifecycleManager
from kafka_edu.v3_9.metadata.metadata.broker_state import BrokerState
from kafka_edu.v3_9.raft.raft.voter_set import Node
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import retry
from tests.kafka_tests.v3_9.core.server.registration_test_context_helpers import (
    RegistrationTestContext,
    broker_heartbeat_response,
    broker_registration_response,
    build_request,
    is_request,
)

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/BrokerLifecycleManagerTest.scala",
    cases=[
        "testCreateAndClose",
        "testCreateStartAndClose",
        "testSuccessfulRegistration",
        "testSuccessfulRegistrationDuringMigration",
        "testRegistrationTimeout",
        "testControlledShutdown",
        "testAlwaysSendsAccumulatedOfflineDirs",
        "testRegistrationIncludesDirs",
        "testKraftJBODMetadataVersionUpdateEvent",
    ],
    not_applicable={
        "testSuccessfulRegistrationDuringMigration": "ZooKeeper-to-KRaft migration (a ZooKeeper broker's config and "
                                                     "IBP features): not ported, docs/kraft.md",
    },
)

INT_MAX = 2**31 - 1
SPIN_DEADLINE_S = 60


def config_properties() -> dict[str, str]:
    return {
        "log.dirs": "/tmp/foo",
        "process.roles": "broker",
        "node.id": "1",
        "controller.quorum.voters": "2@localhost:9093",
        "controller.listener.names": "SSL",
        "initial.broker.registration.timeout.ms": "300000",
        "broker.heartbeat.interval.ms": "100",
    }


def _completed_exceptionally(future: Future[Any]) -> bool:
    """CompletableFuture.isCompletedExceptionally: a cancelled future counts."""
    return future.done() and (future.cancelled() or future.exception() is not None)


@pytest.fixture
def managers() -> Iterator[list[BrokerLifecycleManager]]:
    made: list[BrokerLifecycleManager] = []
    yield made
    for manager in made:  # tearDown
        manager.close()


def _new_manager(managers: list[BrokerLifecycleManager], context: RegistrationTestContext, prefix: str,
                 log_dirs: set[Uuid]) -> BrokerLifecycleManager:
    manager = BrokerLifecycleManager(context.config, context.time, prefix, is_zk_broker=False, log_dirs=log_dirs)
    managers.append(manager)
    return manager


def _start(manager: BrokerLifecycleManager, context: RegistrationTestContext, previous_broker_epoch: int | None,
           supported_features: dict[str, tuple[int, int]] | None = None) -> None:
    manager.start(lambda: context.highest_metadata_offset.get(), context.mock_channel_manager, context.cluster_id,
                  context.advertised_listeners, supported_features or {}, previous_broker_epoch)


def test_create_and_close(managers: list[BrokerLifecycleManager]) -> None:
    context = RegistrationTestContext(config_properties())
    manager = _new_manager(managers, context, "create-and-close-", {Uuid.from_string("oFoTeS9QT0aAyCyH41v45A")})
    manager.close()


def test_create_start_and_close(managers: list[BrokerLifecycleManager]) -> None:
    context = RegistrationTestContext(config_properties())
    manager = _new_manager(managers, context, "create-start-and-close-",
                           {Uuid.from_string("uiUADXZWTPixVvp6UWFWnw")})
    assert manager.state == BrokerState.NOT_RUNNING
    _start(manager, context, None)

    def starting() -> None:
        assert manager.state == BrokerState.STARTING
    retry(60000, starting)
    manager.close()
    assert manager.state == BrokerState.SHUTTING_DOWN


def test_successful_registration(managers: list[BrokerLifecycleManager]) -> None:
    context = RegistrationTestContext(config_properties())
    manager = _new_manager(managers, context, "successful-registration-",
                           {Uuid.from_string("gCpDJgRlS2CBCpxoP2VMsQ")})
    controller_node = Node(3000, "localhost", 8021)
    context.controller_node_provider.node = controller_node
    _start(manager, context, 10)

    def registration_queued() -> None:
        assert len(context.mock_channel_manager.unsent_queue) == 1
        assert build_request(context.mock_channel_manager.unsent_queue[0].request).previous_broker_epoch == 10
    retry(60000, registration_queued)
    context.mock_client.prepare_response_from(broker_registration_response(broker_epoch=1000), controller_node)

    def registered() -> None:
        context.poll()
        assert manager.broker_epoch == 1000
    retry(10000, registered)


def test_registration_timeout(managers: list[BrokerLifecycleManager]) -> None:
    context = RegistrationTestContext(config_properties())
    controller_node = Node(3000, "localhost", 8021)
    manager = _new_manager(managers, context, "registration-timeout-", {Uuid.from_string("9XBOAtr4T0Wbx2sbiWh6xg")})
    context.controller_node_provider.node = controller_node

    def new_duplicate_registration_response() -> None:
        context.mock_client.prepare_response_from(
            broker_registration_response(error_code=Errors.DUPLICATE_BROKER_REGISTRATION), controller_node)
        context.mock_channel_manager.poll()

    new_duplicate_registration_response()
    assert len(context.mock_client.future_responses()) == 1
    _start(manager, context, None)

    # the first registration goes out and fails at once
    def first_answered() -> None:
        context.poll()
        assert len(context.mock_client.future_responses()) == 0
    retry(60000, first_answered)

    # it is sent again
    new_duplicate_registration_response()

    def resent() -> None:
        context.time.sleep(100)
        context.poll()
        manager.event_queue.wakeup()
        assert len(context.mock_client.future_responses()) == 0
    retry(60000, resent)

    # and the manager gives up in the end
    context.time.sleep(300000)

    def timed_out() -> None:
        context.poll()
        manager.event_queue.wakeup()
        assert manager.state == BrokerState.SHUTTING_DOWN
        assert _completed_exceptionally(manager.initial_catch_up_future)
        assert manager.broker_epoch == -1
    retry(60000, timed_out)


def test_controlled_shutdown(managers: list[BrokerLifecycleManager]) -> None:
    context = RegistrationTestContext(config_properties())
    manager = _new_manager(managers, context, "controlled-shutdown-", {Uuid.from_string("B4RtUz1ySGip3A7ZFYB2dg")})
    controller_node = Node(3000, "localhost", 8021)
    context.controller_node_provider.node = controller_node
    context.mock_client.prepare_response_from(broker_registration_response(broker_epoch=1000), controller_node)
    context.mock_client.prepare_response_from(broker_heartbeat_response(is_caught_up=True), controller_node)
    _start(manager, context, None)

    def in_state(state: BrokerState) -> None:
        context.poll()
        manager.event_queue.wakeup()
        assert manager.state == state

    retry(10000, lambda: in_state(BrokerState.RECOVERY))
    context.mock_client.prepare_response_from(broker_heartbeat_response(is_fenced=False), controller_node)
    context.time.sleep(20)
    retry(10000, lambda: in_state(BrokerState.RUNNING))
    manager.begin_controlled_shutdown()

    def shutdown_heartbeat_in_flight() -> None:
        in_state(BrokerState.PENDING_CONTROLLED_SHUTDOWN)
        assert context.mock_client.has_in_flight_requests()
    retry(10000, shutdown_heartbeat_in_flight)

    def wants_shut_down(body: Any) -> bool:
        if is_request(body, ApiKeys.BROKER_HEARTBEAT):
            assert body.want_shut_down
            return True
        return False

    context.mock_client.respond(broker_heartbeat_response(should_shut_down=True), matcher=wants_shut_down)
    retry(10000, lambda: in_state(BrokerState.SHUTTING_DOWN))
    manager.controlled_shutdown_future.result(SPIN_DEADLINE_S)


def prepare_response(ctx: RegistrationTestContext, response: Any) -> Future[Any]:
    """The request the prepared response answers, once the mock client has matched it."""
    result: Future[Any] = Future()

    def complete(body: Any) -> bool:
        if result.done():
            return False
        result.set_result(body)
        return True

    ctx.mock_client.prepare_response_from(response, ctx.controller_node_provider.node, matcher=complete)
    return result


def poll(ctx: RegistrationTestContext, manager: BrokerLifecycleManager, future: Future[Any]) -> Any:
    deadline = wall_time.monotonic() + SPIN_DEADLINE_S
    while not ctx.mock_channel_manager.unsent_queue:
        # keep the registration timeout from firing when the clock is moved a long way
        manager.event_queue.cancel_deferred("initialRegistrationTimeout")
        # a manager waiting for a scheduled event needs the clock moved
        if manager.event_queue.first_deferred_if_idling() is not None:
            ctx.time.sleep(5)
        manager.event_queue.wakeup()
        if wall_time.monotonic() > deadline:
            pytest.fail("the manager sent no request")
    while not future.done():
        ctx.poll()
        if wall_time.monotonic() > deadline:
            pytest.fail("the prepared response was not used")
    return future.result()


def test_always_sends_accumulated_offline_dirs(managers: list[BrokerLifecycleManager]) -> None:
    ctx = RegistrationTestContext(config_properties())
    manager = _new_manager(managers, ctx, "offline-dirs-sent-in-heartbeat-",
                           {Uuid.from_string("0IbF1sjhSGG6FNvnrPbqQg")})
    controller_node = Node(3000, "localhost", 8021)
    ctx.controller_node_provider.node = controller_node

    registration = prepare_response(ctx, broker_registration_response(broker_epoch=1000))
    _start(manager, ctx, None)
    poll(ctx, manager, registration)

    def next_heartbeat_dirs() -> set[str]:
        request = poll(ctx, manager, prepare_response(ctx, broker_heartbeat_response()))
        return {str(Uuid.from_bytes(d.bytes)) for d in request.offline_log_dirs}

    assert next_heartbeat_dirs() == set()
    manager.propagate_directory_failure(Uuid.from_string("h3sC4Yk-Q9-fd0ntJTocCA"), INT_MAX)
    assert next_heartbeat_dirs() == {"h3sC4Yk-Q9-fd0ntJTocCA"}
    manager.propagate_directory_failure(Uuid.from_string("ej8Q9_d2Ri6FXNiTxKFiow"), INT_MAX)
    assert next_heartbeat_dirs() == {"h3sC4Yk-Q9-fd0ntJTocCA", "ej8Q9_d2Ri6FXNiTxKFiow"}
    manager.propagate_directory_failure(Uuid.from_string("1iF76HVNRPqC7Y4r6647eg"), INT_MAX)
    assert next_heartbeat_dirs() == {"h3sC4Yk-Q9-fd0ntJTocCA", "ej8Q9_d2Ri6FXNiTxKFiow", "1iF76HVNRPqC7Y4r6647eg"}


def test_registration_includes_dirs(managers: list[BrokerLifecycleManager]) -> None:
    log_dirs = {Uuid.from_string(d) for d in ("ad5FLIeCTnaQdai5vOjeng", "ybdzUKmYSLK6oiIpI6CPlw")}
    ctx = RegistrationTestContext(config_properties())
    manager = _new_manager(managers, ctx, "registration-includes-dirs-", log_dirs)
    controller_node = Node(3000, "localhost", 8021)
    ctx.controller_node_provider.node = controller_node

    registration = prepare_response(ctx, broker_registration_response(broker_epoch=1000))

    _start(manager, ctx, None)
    request = poll(ctx, manager, registration)
    assert is_request(request, ApiKeys.BROKER_REGISTRATION)

    assert {Uuid.from_bytes(d.bytes) for d in request.log_dirs} == log_dirs


def test_kraft_jbod_metadata_version_update_event(managers: list[BrokerLifecycleManager]) -> None:
    ctx = RegistrationTestContext(config_properties())
    manager = _new_manager(managers, ctx, "jbod-metadata-version-update", {Uuid.from_string("gCpDJgRlS2CBCpxoP2VMsQ")})

    controller_node = Node(3000, "localhost", 8021)
    ctx.controller_node_provider.node = controller_node

    _start(manager, ctx, 10)

    def do_poll(response: Any) -> Any:
        return poll(ctx, manager, prepare_response(ctx, response))

    def next_heartbeat_request() -> Any:
        return do_poll(broker_heartbeat_response())

    def next_registration_request(epoch: int) -> Any:
        request = do_poll(broker_registration_response(broker_epoch=epoch))
        assert is_request(request, ApiKeys.BROKER_REGISTRATION)
        return request

    # registered: the controller gives epoch 1000
    assert next_registration_request(1000).previous_broker_epoch == 10

    next_heartbeat_request()  # the next request shows the new epoch has been taken
    assert manager.broker_epoch == 1000

    # the metadata version moved to one with JBOD: register again
    manager.resend_broker_registration_unless_zk_mode()

    # the new registration gets epoch 1200
    next_registration_request(1200)

    next_heartbeat_request()
    assert manager.broker_epoch == 1200
