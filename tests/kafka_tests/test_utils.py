"""Port of the parts of Kafka's test utilities (core's kafka.utils.TestUtils, clients' org.apache.kafka.test.TestUtils,
Kafka 1.0.2) that several ported test classes share. Each function names the Kafka helper it stands for."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
DEFAULT_MAX_WAIT_MS = 15_000  # org.apache.kafka.test.TestUtils.DEFAULT_MAX_WAIT_MS
RANDOM_PORT = 0  # TestUtils.RandomPort
MOCK_ZK_PORT = 1  # TestUtils.MockZkPort
MOCK_ZK_CONNECT = f"127.0.0.1:{MOCK_ZK_PORT}"  # TestUtils.MockZkConnect


def wait_until_true(condition: Callable[[], bool], msg: str | Callable[[], str],
                    wait_time_ms: int = DEFAULT_MAX_WAIT_MS, pause_ms: int = 100) -> None:
    """TestUtils.waitUntilTrue: poll `condition` until it holds; fail with `msg` after `wait_time_ms`."""
    deadline = time.monotonic() + wait_time_ms / 1000
    while True:
        if condition():
            return
        if time.monotonic() > deadline:
            pytest.fail(msg() if callable(msg) else msg)
        time.sleep(min(wait_time_ms, pause_ms) / 1000)


def compute_until_true(compute: Callable[[], T], predicate: Callable[[T], bool],
                       wait_time_ms: int = DEFAULT_MAX_WAIT_MS, pause_ms: int = 100) -> tuple[T, bool]:
    """TestUtils.computeUntilTrue: compute until the predicate holds of the result or the time is up; the last
    result and whether it held."""
    deadline = time.monotonic() + wait_time_ms / 1000
    while True:
        result = compute()
        if predicate(result):
            return result, True
        if time.monotonic() > deadline:
            return result, False
        time.sleep(min(pause_ms / 1000, max(0.0, deadline - time.monotonic())))


def temp_dir() -> Path:
    """TestUtils.tempDir: a new directory, deleted when the test process exits."""
    path = Path(tempfile.mkdtemp(prefix="kafka-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def create_broker_config(node_id: int, zk_connect: str, enable_controlled_shutdown: bool = True,
                         enable_delete_topic: bool = False, port: int = RANDOM_PORT, rack: str | None = None,
                         log_dir_count: int = 1) -> dict[str, str]:
    """TestUtils.createBrokerConfig for a PLAINTEXT listener (the SSL and SASL variants are not ported)."""
    props: dict[str, str] = {}
    if node_id >= 0:
        props["broker.id"] = str(node_id)
    props["listeners"] = f"PLAINTEXT://localhost:{port}"
    if log_dir_count > 1:
        props["log.dirs"] = ",".join(str(temp_dir()) for _ in range(log_dir_count))
    else:
        props["log.dir"] = str(temp_dir())
    props["zookeeper.connect"] = zk_connect
    props["zookeeper.connection.timeout.ms"] = "10000"
    props["replica.socket.timeout.ms"] = "1500"
    props["controller.socket.timeout.ms"] = "1500"
    props["controlled.shutdown.enable"] = str(enable_controlled_shutdown).lower()
    props["delete.topic.enable"] = str(enable_delete_topic).lower()
    props["log.segment.delete.delay.ms"] = "1000"
    props["controlled.shutdown.retry.backoff.ms"] = "100"
    props["log.cleaner.dedupe.buffer.size"] = "2097152"
    props["log.message.timestamp.difference.max.ms"] = str(2**63 - 1)
    props["offsets.topic.replication.factor"] = "1"
    props.setdefault("offsets.topic.num.partitions", "5")
    props.setdefault("group.initial.rebalance.delay.ms", "0")
    if rack is not None:
        props["broker.rack"] = rack
    return props


def wait_and_verify_acls(expected: set[Any], authorizer: Any, resource: Any) -> None:
    """TestUtils.waitAndVerifyAcls: wait until the authorizer's cache holds exactly `expected` for `resource`."""
    wait_until_true(lambda: authorizer.get_acls(resource) == expected,
                    lambda: f"expected acls {expected} but got {authorizer.get_acls(resource)}")


def assert_concurrent(message: str, functions: Iterable[Callable[[], Any]], timeout_ms: int) -> None:
    """TestUtils.assertConcurrent: run every function on its own thread at once; fail if one raised or the lot took
    longer than `timeout_ms`."""
    from concurrent.futures import ThreadPoolExecutor, wait

    functions = list(functions)
    pool = ThreadPoolExecutor(max_workers=len(functions))
    exceptions: list[BaseException] = []
    try:
        futures = [pool.submit(function) for function in functions]
        _, not_done = wait(futures, timeout=timeout_ms / 1000)
        if not_done:
            pytest.fail(f"{message}. Timed out, the concurrent functions took more than {timeout_ms} milliseconds")
        exceptions.extend(e for e in (future.exception() for future in futures) if e is not None)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    assert not exceptions, f"{message} failed with exception(s) {exceptions}"


def retry(max_wait_ms: int, block: Callable[[], None]) -> None:
    """TestUtils.retry (Kafka 3.9's core TestUtils): run `block` until it stops failing an assertion; the last
    AssertionError escapes once `max_wait_ms` have passed. The pause between attempts doubles from 1 ms, by at most a
    second each time."""
    wait_ms = 1
    start = time.monotonic()
    while True:
        try:
            block()
            return
        except AssertionError:
            if (time.monotonic() - start) * 1000 > max_wait_ms:
                raise
            time.sleep(wait_ms / 1000)
            wait_ms += min(wait_ms, 1000)


class MockFaultHandler:
    """org.apache.kafka.server.fault.MockFaultHandler (server-common's test code, Kafka 3.9): keeps the first fault
    and returns it from every handle_fault (it never raises); maybe_rethrow_first_exception raises it at the end of
    a test, unless told to ignore."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._first_exception: Exception | None = None
        self._ignore = False

    def handle_fault(self, failure_message: str, cause: BaseException | None = None) -> Exception:
        from kafka_edu.v3_9.metadata.controller.controller_exceptions import FaultHandlerException

        message = f"{self.name}: {failure_message}" if cause is None else f"{self.name}: {failure_message}: {cause}"
        e = FaultHandlerException(message)
        e.__cause__ = cause
        with self._lock:
            if self._first_exception is None:
                self._first_exception = e
            return self._first_exception

    def maybe_rethrow_first_exception(self) -> None:
        with self._lock:
            if self._first_exception is not None and not self._ignore:
                raise self._first_exception

    def first_exception(self) -> Exception | None:
        with self._lock:
            return self._first_exception

    def set_ignore(self, ignore: bool) -> None:
        with self._lock:
            self._ignore = ignore


def singleton_records(value: bytes | None, key: bytes | None = None, timestamp: int = -1) -> Any:
    """TestUtils.singletonRecords(value, key, codec = NONE, timestamp = NO_TIMESTAMP): one record in a batch (v2,
    the only format the port's log stores)."""
    from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import SimpleRecord, with_simple_records

    return with_simple_records([SimpleRecord(value, key, timestamp)])


def create_log_manager(log_dirs: Iterable[Path] = (), default_config: Any = None, time: Any = None) -> Any:
    """TestUtils.createLogManager (v1_0_2's LogManager, no cleaner: the port has none): `time` is a
    tests.kafka_tests.mock_scheduler.MockTimeWithScheduler (kafka.utils.MockTime), whose scheduler the manager uses."""
    from kafka_edu.v1_0_2.core.log.log_config import LogConfig
    from kafka_edu.v1_0_2.core.log.log_manager import LogManager
    from kafka_edu.v1_0_2.core.server.broker_states import BrokerState
    from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
    from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler

    log_dirs = list(log_dirs)
    time = MockTimeWithScheduler() if time is None else time
    return LogManager(log_dirs=log_dirs, initial_offline_dirs=[], topic_configs={},
                      default_config=LogConfig() if default_config is None else default_config, io_threads=4,
                      flush_check_ms=1000, flush_recovery_offset_checkpoint_ms=10000,
                      flush_start_offset_checkpoint_ms=10000, retention_check_ms=1000,
                      max_pid_expiration_ms=60 * 60 * 1000, scheduler=time.scheduler, broker_state=BrokerState(),
                      log_dir_failure_channel=LogDirFailureChannel(len(log_dirs)), time_ms=time.milliseconds)


def create_broker_configs(num_configs: int, zk_connect: str, enable_controlled_shutdown: bool = True,
                          enable_delete_topic: bool = False) -> list[dict[str, str]]:
    """TestUtils.createBrokerConfigs (PLAINTEXT only): brokers 0 until `num_configs`, each on a random port."""
    return [create_broker_config(node, zk_connect, enable_controlled_shutdown, enable_delete_topic)
            for node in range(num_configs)]


def create_server(config: Any) -> Any:
    """TestUtils.createServer: a v1_0_2 KafkaServer for `config` (a KafkaConfig), started in this process."""
    from kafka_edu.v1_0_2.core.server.kafka_server import KafkaServer

    server = KafkaServer(config)
    server.startup()
    return server


def shutdown_servers(servers: Iterable[Any]) -> None:
    """TestUtils.shutdownServers: shut every server down (one after the other here) and delete its log dirs; a
    server that fails to shut down does not keep the others up (the first failure is raised at the end)."""
    errors: list[BaseException] = []
    for server in servers:
        try:
            server.shutdown()
        except BaseException as e:  # noqa: BLE001 - raised once every server had its turn
            errors.append(e)
        finally:
            for log_dir in server.config.log_dirs:
                shutil.rmtree(log_dir, ignore_errors=True)
    if errors:
        raise errors[0]


def wait_until_controller_elected(zk_utils: Any, timeout_ms: int = DEFAULT_MAX_WAIT_MS) -> int:
    """TestUtils.waitUntilControllerElected: the id `/controller` names, once it names one."""
    controller_id = [-1]

    def elected() -> bool:
        controller_id[0] = zk_utils.get_controller_id()
        return controller_id[0] >= 0

    wait_until_true(elected, f"Controller not elected after {timeout_ms} ms", wait_time_ms=timeout_ms)
    return controller_id[0]


def wait_until_leader_is_elected_or_changed(zk_utils: Any, topic: str, partition: int, timeout_ms: int = 30000,
                                            old_leader: int | None = None, new_leader: int | None = None) -> int:
    """TestUtils.waitUntilLeaderIsElectedOrChanged: the partition's leader in ZooKeeper once there is one (that is
    `new_leader`, or other than `old_leader`, when given)."""
    assert old_leader is None or new_leader is None, "Can't define both the old and the new leader"
    found: list[int] = []

    def elected_or_changed() -> bool:
        leader_and_isr = zk_utils.get_leader_and_isr_for_partition(topic, partition)
        leader = leader_and_isr.leader if leader_and_isr is not None else None
        if leader is not None and ((new_leader is not None and leader == new_leader)
                                   or (old_leader is not None and leader != old_leader)
                                   or (new_leader is None and old_leader is None)):
            found.append(leader)
            return True
        return False

    wait_until_true(elected_or_changed, f"Timing out after {timeout_ms} ms since a leader was not elected (or changed)"
                    f" for partition {topic}-{partition}", wait_time_ms=timeout_ms)
    return found[0]


def wait_until_metadata_is_propagated(servers: Iterable[Any], topic: str, partition: int,
                                      timeout_ms: int = DEFAULT_MAX_WAIT_MS) -> int:
    """TestUtils.waitUntilMetadataIsPropagated: every server's metadata cache knows the partition, with a valid
    leader; returns that leader."""
    servers = list(servers)
    leader = [-1]

    def propagated() -> bool:
        result = True
        for server in servers:
            partition_state = server.apis.metadata_cache.get_partition_info(topic, partition)
            if partition_state is None:
                return False
            leader[0] = partition_state.leader
            result = result and leader[0] >= 0
        return result

    wait_until_true(propagated, f"Partition [{topic},{partition}] metadata not propagated after {timeout_ms} ms",
                    wait_time_ms=timeout_ms)
    return leader[0]


def create_topic(zk_utils: Any, topic: str, partition_replica_assignment: dict[int, list[int]],
                 servers: Iterable[Any]) -> dict[int, int]:
    """TestUtils.createTopic with a replica assignment: write it to ZooKeeper, wait until every partition's metadata
    reached the servers and a leader is elected; the leader of each partition."""
    from kafka_edu.v1_0_2.core.server.admin_manager import create_or_update_topic_partition_assignment_path_in_zk

    servers = list(servers)
    create_or_update_topic_partition_assignment_path_in_zk(zk_utils, topic, partition_replica_assignment, {})
    leaders = {}
    for partition in partition_replica_assignment:
        wait_until_metadata_is_propagated(servers, topic, partition)
        leaders[partition] = wait_until_leader_is_elected_or_changed(zk_utils, topic, partition)
    return leaders
