"""Our own test, not a Kafka port: a follower replicates a leader over a real socket with 3.9's classes.

The leader is a 3.9 ReplicaManager behind a 3.9 SocketServer, request handler pool and KafkaApis (its Fetch goes
through the leader's FetchManager and ReplicaManager.fetch_messages); the follower is a 3.9 ReplicaManager whose
ReplicaFetcherManager (ReplicaManager.create_replica_fetcher_manager) starts a ReplicaFetcherThread when the
metadata delta makes it a follower. Both brokers read the same metadata image (KRaftMetadataCache), which names the
leader at the socket server's bound port. The test appends to the leader and waits, with a deadline, until the
follower's log end offset and high watermark are the leader's.
"""

from __future__ import annotations

import socket
import uuid
from concurrent.futures import Future
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from kio.schema.types import BrokerId, TopicName
from kio.static.primitive import i32

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SystemTime
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.network.socket_server import SocketServer
from kafka_edu.v3_9.core.server.api_version_manager import broker_listener_api_version_manager
from kafka_edu.v3_9.core.server.broker_blocking_sender import BrokerBlockingSender
from kafka_edu.v3_9.core.server.fetch_session import FetchManager, FetchSessionCacheShard
from kafka_edu.v3_9.core.server.kafka_apis import KafkaApis
from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.core.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA, ListOffsetsRequestBuilder
from kafka_edu.v3_9.core.server.replica_fetcher_manager import ReplicaFetcherManager
from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.metadata.common.metadata.partition_record import PartitionRecord
from kafka_edu.v3_9.metadata.common.metadata.topic_record import TopicRecord
from kafka_edu.v3_9.metadata.image.cluster_image import ClusterImage
from kafka_edu.v3_9.metadata.image.configurations_image import ConfigurationsImage
from kafka_edu.v3_9.metadata.image.features_image import FeaturesImage
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.producer_ids_image import ProducerIdsImage
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.metadata.metadata.broker_registration import BrokerRegistration, Endpoint
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.test_utils import MOCK_ZK_CONNECT, create_broker_config, wait_until_true
from tests.kafka_tests.v3_9.core.log.log_test_utils import create_log_manager

LEADER_ID, FOLLOWER_ID = 0, 1
BROKER_EPOCHS = {LEADER_ID: 1000, FOLLOWER_ID: 1001}
TOPIC = "replicated"
TOPIC_ID = uuid.UUID("6c1f0a52-3d4e-4f5a-8b9c-0d1e2f3a4b5c")
TP = TopicPartition(TOPIC, 0)
PLAINTEXT = 0  # SecurityProtocol.PLAINTEXT's id


class _SystemTimeWithScheduler(SystemTime):
    """The real clock, with the scheduler a LogManager is handed (never started: no background task runs)."""

    def __init__(self) -> None:
        self.scheduler = KafkaScheduler(1)


class _AlterPartitionManager:
    """The ISR already holds both replicas: nothing is submitted to a controller."""

    def submit(self, *args: Any) -> Future[Any]:
        return Future()


def _broker_config(broker_id: int, log_dir: Path) -> KafkaConfig:
    log_dir.mkdir(parents=True)
    return KafkaConfig({"process.roles": "broker", "node.id": broker_id,
                        "controller.quorum.voters": "3000@127.0.0.1:9093", "controller.listener.names": "CONTROLLER",
                        "listeners": "PLAINTEXT://127.0.0.1:0",
                        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "log.dirs": str(log_dir), "replica.fetch.wait.max.ms": 100}, do_log=False)


def _socket_server_config() -> Any:
    """The 3.9 SocketServer still reads 1.0.2's KafkaConfig (attributes where 3.9's has methods), as its own tests
    build it: broker 0 on an ephemeral port of the loopback address."""
    from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig as SocketServerConfig

    props = create_broker_config(LEADER_ID, MOCK_ZK_CONNECT, port=0)
    props["listeners"] = "PLAINTEXT://127.0.0.1:0"
    return SocketServerConfig.from_props(props)


def _replica_manager(config: KafkaConfig, metadata_cache: KRaftMetadataCache, stack: ExitStack) -> ReplicaManager:
    time = _SystemTimeWithScheduler()
    log_manager = create_log_manager([Path(d) for d in config.log_dirs], time=time)
    replica_manager = ReplicaManager(
        config=config, time=time, scheduler=time.scheduler, log_manager=log_manager, metadata_cache=metadata_cache,
        log_dir_failure_channel=LogDirFailureChannel(1), alter_partition_manager=_AlterPartitionManager(),
        broker_epoch_supplier=lambda: BROKER_EPOCHS[config.broker_id])
    replica_manager.replica_fetcher_manager = replica_manager.create_replica_fetcher_manager(
        None, time, None, UNBOUNDED_QUOTA)
    stack.callback(log_manager.shutdown)
    stack.callback(replica_manager.shutdown)
    return replica_manager


def _metadata_image(leader_port: int) -> tuple[TopicsDelta, MetadataImage]:
    """Both brokers registered (the leader at its bound port), one partition led by broker 0 with both in its ISR."""
    def broker(node_id: int, port: int) -> BrokerRegistration:
        return BrokerRegistration(id=node_id, epoch=BROKER_EPOCHS[node_id], incarnation_id=uuid.uuid4(),
                                  listeners={"PLAINTEXT": Endpoint("PLAINTEXT", PLAINTEXT, "127.0.0.1", port)},
                                  fenced=False)
    delta = TopicsDelta(TopicsImage.EMPTY)
    delta.replay_topic(TopicRecord(name=TopicName(TOPIC), topic_id=TOPIC_ID))
    delta.replay_partition(PartitionRecord(
        partition_id=i32(0), topic_id=TOPIC_ID, replicas=(BrokerId(LEADER_ID), BrokerId(FOLLOWER_ID)),
        isr=(i32(LEADER_ID), i32(FOLLOWER_ID)), removing_replicas=(), adding_replicas=(), leader=BrokerId(LEADER_ID),
        leader_epoch=i32(0), partition_epoch=i32(0), directories=()))
    cluster = ClusterImage({LEADER_ID: broker(LEADER_ID, leader_port), FOLLOWER_ID: broker(FOLLOWER_ID, 1)})
    image = MetadataImage(MetadataProvenance(100, 1, 1000), FeaturesImage({}, MetadataVersion.IBP_3_9_IV0), cluster,
                          delta.apply(), ConfigurationsImage.EMPTY, ProducerIdsImage.EMPTY)
    return delta, image


def _append(replica_manager: ReplicaManager, batch: int) -> None:
    responses: list[Any] = []
    records = MemoryRecords.with_records(Compression.NONE, *[SimpleRecord(f"record-{batch}-{i}".encode())
                                                             for i in range(10)])
    replica_manager.append_records(timeout=1000, required_acks=1, internal_topics_allowed=False,
                                   origin=AppendOrigin.CLIENT, entries_per_partition={TP: records},
                                   response_callback=lambda r: responses.append(r[TP]))
    assert responses and responses[0].error == Errors.NONE


def _values(log: Any) -> list[bytes]:
    """The values of every record in the log, in offset order."""
    records = log.read(0, 1_000_000, FetchIsolation.LOG_END, True).records
    return [bytes(record.value()) for batch in records.batches() for record in batch]


def test_follower_fetches_leader_records_over_socket(tmp_path: Path) -> None:
    with ExitStack() as stack:
        fetcher = _replicate(tmp_path, stack)
    # closed: the follower's fetcher thread stopped with its replica manager
    assert not fetcher.is_alive() and fetcher.is_shutdown_complete


def _replicate(tmp_path: Path, stack: ExitStack) -> Any:
    # the leader: its replica manager behind a socket server, handler threads and KafkaApis
    leader_config = _broker_config(LEADER_ID, tmp_path / "leader")
    leader_cache = KRaftMetadataCache(LEADER_ID, "cluster")
    leader = _replica_manager(leader_config, leader_cache, stack)
    api_version_manager = broker_listener_api_version_manager()
    socket_server = SocketServer(_socket_server_config(), api_version_manager=api_version_manager)
    stack.callback(socket_server.shutdown)
    request_channel = socket_server.data_plane_request_channel
    apis = KafkaApis(request_channel, None, leader, None, None, None, LEADER_ID, leader_config, leader_cache, None,
                     FetchManager(leader.time, FetchSessionCacheShard(1000, 120_000)), "cluster",
                     api_version_manager)
    handler_pool = KafkaRequestHandlerPool(LEADER_ID, request_channel, apis, leader.time, 2,
                                           "RequestHandlerAvgIdlePercent", "data-plane")
    stack.callback(handler_pool.shutdown)
    socket_server.enable_request_processing({}).result(timeout=10)
    leader_port = socket_server.bound_port("PLAINTEXT")

    # the follower: its fetcher manager starts a fetcher when the delta makes it a follower
    follower_config = _broker_config(FOLLOWER_ID, tmp_path / "follower")
    follower_cache = KRaftMetadataCache(FOLLOWER_ID, "cluster")
    follower = _replica_manager(follower_config, follower_cache, stack)

    delta, image = _metadata_image(leader_port)
    for cache in (leader_cache, follower_cache):
        cache.set_image(image)
    leader.apply_delta(delta, image)
    for batch in range(3):
        _append(leader, batch)
    follower.apply_delta(delta, image)

    fetcher_manager = follower.replica_fetcher_manager
    assert isinstance(fetcher_manager, ReplicaFetcherManager)
    fetcher = fetcher_manager.get_fetcher(TP)
    assert fetcher is not None and fetcher.leader.broker_end_point().port == leader_port

    leader_log = leader.local_log_or_exception(TP)
    follower_log = follower.local_log_or_exception(TP)

    def caught_up() -> bool:
        return (follower_log.log_end_offset() == leader_log.log_end_offset() == 30
                and follower_log.high_watermark() == leader_log.high_watermark() == 30)

    wait_until_true(caught_up, lambda: f"follower at LEO {follower_log.log_end_offset()} HW "
                                       f"{follower_log.high_watermark()}, leader at LEO {leader_log.log_end_offset()} "
                                       f"HW {leader_log.high_watermark()}", wait_time_ms=15_000)

    # records appended while the follower fetches reach it too
    _append(leader, 3)

    def caught_up_again() -> bool:
        return (follower_log.log_end_offset() == leader_log.log_end_offset() == 40
                and follower_log.high_watermark() == leader_log.high_watermark() == 40)

    wait_until_true(caught_up_again, lambda: f"follower at LEO {follower_log.log_end_offset()} HW "
                                             f"{follower_log.high_watermark()}, leader at LEO "
                                             f"{leader_log.log_end_offset()} HW {leader_log.high_watermark()}",
                    wait_time_ms=15_000)
    assert len(_values(leader_log)) == 40
    # the fetches went at v15+ (the replica state carries the follower's broker epoch), in an incremental session
    follower_state = leader.get_partition_or_exception(TP).get_replica(FOLLOWER_ID).state_snapshot
    assert follower_state.broker_epoch == BROKER_EPOCHS[FOLLOWER_ID]
    assert fetcher.leader.fetch_session_handler.session_id() != 0
    assert _values(follower_log) == _values(leader_log)
    return fetcher


def test_blocking_sender_rethrows_and_reconnects_after_a_failed_connect(tmp_path: Path) -> None:
    """BrokerBlockingSender: a refused connection is thrown to the fetcher (which backs off); the next request
    connects afresh."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # nobody listens on the port now
    config = _broker_config(FOLLOWER_ID, tmp_path / "follower")
    sender = BrokerBlockingSender(BrokerEndPoint(LEADER_ID, "127.0.0.1", port), config, None, SystemTime(), 0,
                                  "broker-1-fetcher-0")
    request = ListOffsetsRequestBuilder.for_replica(9, FOLLOWER_ID).set_target_times(
        [{"name": TOPIC, "partitions": [{"partition_index": 0, "current_leader_epoch": 0, "timestamp": -1}]}])
    try:
        with pytest.raises(ConnectionRefusedError):
            sender.send_request(request)
        with pytest.raises(ConnectionRefusedError):
            sender.send_request(request)
    finally:
        sender.initiate_close()
        sender.close()
    # closed: no request goes out any more
    with pytest.raises(OSError):
        sender.send_request(request)

