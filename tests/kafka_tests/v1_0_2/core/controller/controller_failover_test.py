"""Port of core/src/test/scala/unit/kafka/controller/ControllerFailoverTest.scala (Kafka 1.0.2).

KafkaServerTestHarness over ZooKeeperTestHarness: the project's real ZooKeeper (the `zookeeper` fixture of
tests/conftest.py) and two v1_0_2 KafkaServers started in this process on random ports (TestUtils.createServer), every
one of them shut down afterwards whatever the case did. The class's unused `Metrics` instance (closed in its
tearDown) has no counterpart: nothing reads it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.controller.controller_event_manager import ControllerEvent
from kafka_edu.v1_0_2.core.controller.controller_state import ControllerState
from kafka_edu.v1_0_2.core.controller.kafka_controller import KafkaController
from kafka_edu.v1_0_2.core.controller.partition_state_machine import PartitionState
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.admin_manager import (
    assign_replicas_to_brokers,
    create_or_update_topic_partition_assignment_path_in_zk,
    get_broker_metadatas,
)
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.kafka_server import KafkaServer
from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_configs, create_server, shutdown_servers, wait_until_true

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/controller/ControllerFailoverTest.scala",
    cases=["testHandleIllegalStateException"],
)

NUM_NODES = 2
NUM_PARTS = 1
TOPIC = "topic1"


class _MockControllerEvent(ControllerEvent):
    """ControllerTestUtils.createMockControllerEvent: an event in `state` that runs `process`."""

    def __init__(self, state: ControllerState, process: Callable[[], None]) -> None:
        self._state, self._process = state, process

    @property
    def state(self) -> ControllerState:
        return self._state

    def process(self) -> None:
        self._process()


def generate_configs(zk_connect: str) -> list[KafkaConfig]:
    overriding_props = {"num.partitions": str(NUM_PARTS)}
    return [KafkaConfig.from_props({**props, **overriding_props})
            for props in create_broker_configs(NUM_NODES, zk_connect)]


@pytest.fixture
def servers(zookeeper) -> Iterator[list[KafkaServer]]:
    """KafkaServerTestHarness's setUp and tearDown: each server is listed as soon as it started, so that all those
    started are shut down even if a later one fails to start."""
    started: list[KafkaServer] = []
    try:
        for config in generate_configs(zookeeper.connect):
            started.append(create_server(config))
        yield started
    finally:
        shutdown_servers(started)


def admin_utils_create_topic(zk_utils: ZkUtils, topic: str, partitions: int, replication_factor: int) -> None:
    """AdminUtils.createTopic (rack-unaware): spread the replicas over the registered brokers, write the topic."""
    broker_list = get_broker_metadatas(zk_utils)
    replica_assignment = assign_replicas_to_brokers(broker_list, partitions, replication_factor)
    create_or_update_topic_partition_assignment_path_in_zk(zk_utils, topic, replica_assignment, {})


def test_handle_illegal_state_exception(servers: list[KafkaServer]) -> None:
    initial_controller: KafkaController | None = next(
        (s.kafka_controller for s in servers if s.kafka_controller.is_active), None)
    if initial_controller is None:
        pytest.fail("Could not find controller")
    initial_epoch = initial_controller.epoch
    admin_utils_create_topic(servers[0].zk_utils, TOPIC, 1, 1)
    topic_partition = TopicPartition("topic1", 0)
    wait_until_true(
        lambda: topic_partition in initial_controller.partition_state_machine.partitions_in_state(
            PartitionState.OnlinePartition),
        f"Partition {topic_partition} did not transition to online state")

    # the event stays on the controller's thread until the test has seen the controller resign
    latch = threading.Event()
    exception_thrown: list[BaseException] = []

    def process() -> None:
        try:
            initial_controller.handle_illegal_state(IllegalStateException("Thrown for test purposes"))
        except BaseException as t:  # noqa: BLE001 - the test records whatever was thrown
            exception_thrown.append(t)
        latch.wait()

    illegal_state_event = _MockControllerEvent(ControllerState.BrokerChange, process)
    try:
        initial_controller.event_manager.put(illegal_state_event)
        wait_until_true(lambda: not initial_controller.kafka_scheduler.is_started, "Scheduler was not shutdown")
        wait_until_true(lambda: not initial_controller.is_active, "Controller did not become inactive")
    finally:
        latch.set()  # never leave the controller's thread blocked, or its broker could not shut down
    wait_until_true(lambda: bool(exception_thrown), "handleIllegalState did not throw an exception")
    assert isinstance(exception_thrown[0], IllegalStateException), \
        f"handleIllegalState should throw an IllegalStateException, but {exception_thrown[0]!r} was thrown"

    wait_until_true(lambda: any(s.kafka_controller.is_active and s.kafka_controller.epoch > initial_epoch
                                for s in servers), "Failed to find controller")
