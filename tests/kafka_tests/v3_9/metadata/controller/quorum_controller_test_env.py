"""Port of metadata/src/test/java/org/apache/kafka/controller/QuorumControllerTestEnv.java (Kafka 3.9), with what
QuorumControllerTest takes of QuorumControllerIntegrationTestUtils: one QuorumController per LocalLogManager of a
LocalLogManagerTestEnv, each with MockFaultHandlers that close() rethrows.

Left out of the Builder's wiring: QuorumFeatures (the port's controller has none) and the eligible-leader-replicas
switch (KIP-966 is not ported)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from kio.schema.broker_heartbeat.v1.request import BrokerHeartbeatRequest
from kio.schema.broker_registration.v4 import request as br
from kio.static.primitive import i16, i32, i64

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.controller import configuration_validator
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT
from kafka_edu.v3_9.metadata.controller.quorum_controller import QuorumController
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapMetadata
from kafka_edu.v3_9.metadata.metadata.broker_registration import BrokerHeartbeatReply
from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    FEATURE_NAME,
    MINIMUM_KRAFT_VERSION,
    MetadataVersion,
)
from tests.kafka_tests.test_utils import MockFaultHandler
from tests.kafka_tests.v3_9.metadata.controller.replication_control_manager_test_helpers import (
    FAKE_KAFKA_CONFIG_SCHEMA,
)
from tests.kafka_tests.v3_9.metadata.metalog.local_log_manager_test_env import LocalLogManagerTestEnv

TIMEOUT_S = 30.0


def retry_on_exception_with_timeout(timeout_ms: int, pause_ms: int, block: Callable[[], Any]) -> Any:
    """TestUtils.retryOnExceptionWithTimeout: run `block` until it stops raising; the last exception escapes once
    `timeout_ms` have passed."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            return block()
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(pause_ms / 1000)


class QuorumControllerTestEnv:
    class Builder:
        def __init__(self, log_env: LocalLogManagerTestEnv) -> None:
            self.log_env = log_env
            self.controller_builder_initializer: Callable[[QuorumController.Builder], None] = lambda builder: None
            self.session_timeout_millis: int | None = None
            self.leader_imbalance_check_interval_ns: int | None = None
            self.bootstrap_metadata = BootstrapMetadata.from_version(MetadataVersion.latest_testing(),
                                                                     "test-provided version")

        def set_controller_builder_initializer(self, initializer: Callable[[QuorumController.Builder], Any]
                                               ) -> QuorumControllerTestEnv.Builder:
            self.controller_builder_initializer = initializer
            return self

        def set_session_timeout_millis(self, value: int | None) -> QuorumControllerTestEnv.Builder:
            self.session_timeout_millis = value
            return self

        def set_leader_imbalance_check_interval_ns(self, value: int | None) -> QuorumControllerTestEnv.Builder:
            self.leader_imbalance_check_interval_ns = value
            return self

        def set_bootstrap_metadata(self, bootstrap_metadata: BootstrapMetadata) -> QuorumControllerTestEnv.Builder:
            self.bootstrap_metadata = bootstrap_metadata
            return self

        def build(self) -> QuorumControllerTestEnv:
            return QuorumControllerTestEnv(self.log_env, self.controller_builder_initializer,
                                           self.session_timeout_millis, self.leader_imbalance_check_interval_ns,
                                           self.bootstrap_metadata)

    def __init__(self, log_env: LocalLogManagerTestEnv, controller_builder_initializer: Callable[[Any], Any],
                 session_timeout_millis: int | None, leader_imbalance_check_interval_ns: int | None,
                 bootstrap_metadata: BootstrapMetadata) -> None:
        self.log_env = log_env
        self._controllers: list[QuorumController] = []
        self.fatal_fault_handlers: dict[int, MockFaultHandler] = {}
        self.non_fatal_fault_handlers: dict[int, MockFaultHandler] = {}
        try:
            for node_id in range(len(log_env.log_managers())):
                builder = QuorumController.Builder(node_id, log_env.cluster_id())
                builder.set_raft_client(log_env.log_managers()[node_id])
                builder.set_bootstrap_metadata(bootstrap_metadata)
                builder.set_leader_imbalance_check_interval_ns(leader_imbalance_check_interval_ns)
                if session_timeout_millis is not None:
                    builder.set_session_timeout_ns(session_timeout_millis * 1_000_000)
                fatal_fault_handler = MockFaultHandler("fatalFaultHandler")
                builder.set_fatal_fault_handler(fatal_fault_handler)
                self.fatal_fault_handlers[node_id] = fatal_fault_handler
                non_fatal_fault_handler = MockFaultHandler("nonFatalFaultHandler")
                builder.set_non_fatal_fault_handler(non_fatal_fault_handler)
                builder.set_config_schema(FAKE_KAFKA_CONFIG_SCHEMA)
                builder.set_configuration_validator(configuration_validator.NO_OP)
                # As Kafka's env does: the fatal handler is the one checked twice at close.
                self.non_fatal_fault_handlers[node_id] = fatal_fault_handler
                controller_builder_initializer(builder)
                self._controllers.append(builder.build())
        except BaseException:
            self.close()
            raise

    def active_controller(self, wait_for_activation: bool = False) -> QuorumController:
        def find() -> QuorumController:
            leader = self.log_env.leader_and_epoch()
            for controller in self._controllers:
                if leader.leader_id == controller.node_id and controller.cur_claim_epoch == leader.epoch:
                    return controller
            raise RuntimeError(f"Expected to see {leader} as leader")

        controller = retry_on_exception_with_timeout(20_000, 3, find)
        if wait_for_activation:
            controller.append_read_event("wait for activation", None, lambda: None).result(20)
        return controller

    def controllers(self) -> list[QuorumController]:
        return self._controllers

    def fatal_fault_handler(self, node_id: int) -> MockFaultHandler:
        return self.fatal_fault_handlers[node_id]

    def ignore_fatal_faults(self) -> None:
        for fault_handler in self.fatal_fault_handlers.values():
            fault_handler.set_ignore(True)

    def close(self) -> None:
        for controller in self._controllers:
            controller.begin_shutdown()
        for controller in self._controllers:
            controller.close()
        for fault_handler in self.fatal_fault_handlers.values():
            fault_handler.maybe_rethrow_first_exception()
        for fault_handler in self.non_fatal_fault_handlers.values():
            fault_handler.maybe_rethrow_first_exception()

    def __enter__(self) -> QuorumControllerTestEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- QuorumControllerIntegrationTestUtils -----------------------------------------------------------------------


def uuid_of(text: str) -> uuid.UUID:
    """Uuid.fromString, as the uuid.UUID the port's records hold."""
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


def broker_features(min_version: MetadataVersion = MINIMUM_KRAFT_VERSION,
                    max_version: MetadataVersion | None = None) -> tuple[br.Feature, ...]:
    """A registration's features: metadata.version only."""
    max_version = max_version or MetadataVersion.latest_testing()
    return (br.Feature(name=FEATURE_NAME, min_supported_version=i16(min_version.feature_level()),
                       max_supported_version=i16(max_version.feature_level())),)


def registration_request(broker_id: int, cluster_id: str, features: tuple[br.Feature, ...],
                         incarnation_id: uuid.UUID | None = None, listeners: tuple[br.Listener, ...] = (),
                         log_dirs: tuple[uuid.UUID, ...] = (), rack: str | None = None) -> br.BrokerRegistrationRequest:
    return br.BrokerRegistrationRequest(
        broker_id=i32(broker_id), cluster_id=cluster_id, incarnation_id=incarnation_id or uuid.uuid4(),
        listeners=listeners, features=features, rack=rack, log_dirs=log_dirs, previous_broker_epoch=i64(-1))


def plaintext_listener(port: int = 9092) -> br.Listener:
    return br.Listener(name="PLAINTEXT", host="localhost", port=port, security_protocol=i16(0))


def heartbeat_request(broker_id: int, broker_epoch: int, current_metadata_offset: int,
                      want_fence: bool = False, want_shut_down: bool = False) -> BrokerHeartbeatRequest:
    return BrokerHeartbeatRequest(broker_id=i32(broker_id), broker_epoch=i64(broker_epoch),
                                  current_metadata_offset=i64(current_metadata_offset), want_fence=want_fence,
                                  want_shut_down=want_shut_down)


def register_brokers_and_unfence(controller: QuorumController, num_brokers: int) -> dict[int, int]:
    """registerBrokersAndUnfence: brokers 0 until `num_brokers`, each registered then unfenced by a heartbeat."""
    broker_epochs = {}
    for broker_id in range(num_brokers):
        reply = controller.register_broker(ANONYMOUS_CONTEXT, registration_request(
            broker_id, controller.cluster_id(), broker_features(MetadataVersion.IBP_3_0_IV1),
            uuid_of(f"kxAT73dKQsitIedpiPtwB{broker_id}"), (plaintext_listener(9092 + broker_id),),
            (uuid_of(f"TESTBROKER{str(100000 + broker_id)[1:]}DIRAAAA"),))).result(TIMEOUT_S)
        broker_epochs[broker_id] = reply.epoch
        controller.process_broker_heartbeat(ANONYMOUS_CONTEXT, heartbeat_request(
            broker_id, broker_epochs[broker_id], 100000)).result(TIMEOUT_S)
    return broker_epochs


def send_broker_heartbeat_to_unfence_brokers(controller: QuorumController, brokers: list[int],
                                             broker_epochs: dict[int, int]) -> None:
    for broker_id in brokers:
        reply = controller.process_broker_heartbeat(ANONYMOUS_CONTEXT, heartbeat_request(
            broker_id, broker_epochs[broker_id], 100000)).result(TIMEOUT_S)
        assert reply == BrokerHeartbeatReply(True, False, False, False)


def pause(controller: QuorumController) -> threading.Event:
    """An event on the controller's queue that holds it until the returned latch is set (CountDownLatch)."""
    latch = threading.Event()
    controller.append_control_event("pause", latch.wait)
    return latch


def force_renounce(controller: QuorumController) -> None:
    future: Future[None] = Future()

    def renounce() -> None:
        controller.renounce()
        future.set_result(None)

    controller.append_control_event("forceRenounce", renounce)
    future.result(TIMEOUT_S)
