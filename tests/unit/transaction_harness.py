"""Our own test code, not a Kafka port: an in-process transaction coordinator for the transaction unit tests.

Real Logs for `__transaction_state` (and any other partition) behind a ReplicaManager stand-in that can hold back its
acknowledgements, a metadata cache that names each partition's leader, and a network that answers WriteTxnMarkers
as a test tells it to and records every request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_coordinator import (
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager import (
    TRANSACTION_STATE_TOPIC_NAME,
    TransactionConfig,
    TransactionStateManager,
)
from kafka_edu.v1_0_2.core.log.log import Log, TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v1_0_2.core.server.metadata_cache import NO_NODE
from kafka_edu.v1_0_2.core.server.replica_manager import PartitionResponse
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft.voter_set import Node
from tests.integration.helpers import wait_until
from tests.unit.helpers import Reply, StubPartition, StubReplicaManager

LISTENER = "PLAINTEXT"


class TxnReplicaManager(StubReplicaManager):
    """append_records / get_partition over real logs of any topic; with `hold` set, acknowledgements wait for
    `release()`."""

    def __init__(self, log_dir: Path) -> None:
        super().__init__(log_dir)
        self.hold = False
        self.held: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def lead(self, topic: str, partition: int) -> StubPartition:
        tp = TopicPartition(topic, partition)
        log = Log(self.log_dir / str(tp), LogConfig(cleanup_policy="compact"))
        self.partitions[tp] = StubPartition(log)
        return self.partitions[tp]

    def get_partition(self, topic_partition: TopicPartition) -> StubPartition | None:
        return self.partitions.get(TopicPartition(*topic_partition))

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[TopicPartition, bytes],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        assert internal_topics_allowed and not is_from_client and required_acks == -1
        with self._lock:
            self.appends.append(entries_per_partition)
        responses = self.append_to_local_logs(entries_per_partition, is_from_client, required_acks)
        if self.hold:
            with self._lock:
                self.held.append(lambda: response_callback(responses))
        else:
            response_callback(responses)

    def release(self) -> None:
        """Acknowledge the held appends, as a follower's fetch would: on another thread."""
        with self._lock:
            held, self.held = self.held, []
        for acknowledge in held:
            thread = threading.Thread(target=acknowledge)
            thread.start()
            thread.join()

    def close(self) -> None:
        for partition in self.partitions.values():
            partition.log.close()


class MetadataCacheStub:
    """getPartitionLeaderEndpoint: every known partition led by `leaders` (broker id per partition, default 1)."""

    def __init__(self) -> None:
        self.leaders: dict[TopicPartition, int | None] = {}
        self.brokers = {1: Node(1, "127.0.0.1", 9001), 2: Node(2, "127.0.0.1", 9002)}

    def get_partition_leader_endpoint(self, topic: str, partition: int, listener_name: str) -> Node | None:
        assert listener_name == LISTENER
        tp = TopicPartition(topic, partition)
        if tp not in self.leaders:
            return None
        leader = self.leaders[tp]
        return self.brokers.get(leader, NO_NODE) if leader is not None else NO_NODE


class MarkerNetwork:
    """The partition leaders: each WriteTxnMarkers is recorded, and answered by `answer(tp)` (NONE by default);
    an answer of None is a lost connection."""

    def __init__(self) -> None:
        self.requests: list[tuple[int, Any]] = []
        self.answer: Callable[[TopicPartition], Errors | None] = lambda tp: Errors.NONE
        self.traceparents: list[str | None] = []
        self._lock = threading.Lock()

    def client(self, node: Node) -> Any:
        network = self

        class Client:
            def send_and_receive(self, api_key: ApiKeys, api_version: int, body: Any) -> Any:
                from kafka_edu.tracing.step import current_traceparent
                assert api_key is ApiKeys.WRITE_TXN_MARKERS and api_version == 0  # 1.0.2's only version
                with network._lock:
                    network.requests.append((node.id, body))
                    network.traceparents.append(current_traceparent())
                results = []
                for marker in body.markers:
                    topics = []
                    for topic in marker.topics:
                        partitions = []
                        for p in topic.partition_indexes:
                            error = network.answer(TopicPartition(topic.name, p))
                            if error is None:
                                raise ConnectionError("lost")
                            partitions.append(dict(partition_index=p, error_code=error))
                        topics.append(dict(name=topic.name, partitions=partitions))
                    results.append(dict(producer_id=marker.producer_id, topics=topics))
                return build(ApiKeys.WRITE_TXN_MARKERS.response_schema(0), markers=results)

            def disconnect(self) -> None:
                pass

        return Client()

    def markers(self) -> list[tuple[int, int, int, bool, list[TopicPartition]]]:
        """(broker, producer id, epoch, commit?, partitions) of every marker sent so far."""
        with self._lock:
            requests = list(self.requests)
        return [(broker, m.producer_id, m.producer_epoch, m.transaction_result,
                 sorted(TopicPartition(t.name, p) for t in m.topics for p in t.partition_indexes))
                for broker, body in requests for m in body.markers]


class Clock:
    def __init__(self, now_ms: int = 1_000_000) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms


class Harness:
    """A coordinator leading `__transaction_state-0` (one partition) in coordinator epoch `epoch`."""

    def __init__(self, tmp_path: Path, max_timeout_ms: int = 60_000, epoch: int = 1,
                 replica_manager: TxnReplicaManager | None = None, topics: dict[str, int] | None = None) -> None:
        self.clock = Clock()
        self.rm = replica_manager or TxnReplicaManager(tmp_path)
        if TopicPartition(TRANSACTION_STATE_TOPIC_NAME, 0) not in self.rm.partitions:
            self.rm.lead(TRANSACTION_STATE_TOPIC_NAME, 0)
        self.metadata_cache = MetadataCacheStub()
        for topic, partitions in (topics or {}).items():
            self.topic(topic, partitions)
        self.network = MarkerNetwork()
        self.scheduler = KafkaScheduler(1, "transaction-log-manager-")
        self.txn_config = TransactionConfig(transaction_max_timeout_ms=max_timeout_ms,
                                            transaction_log_num_partitions=1,
                                            abort_timed_out_transactions_interval_ms=3_600_000)
        self.manager = TransactionStateManager(0, None, self.scheduler, self.rm, self.txn_config, self.clock)
        config = SimpleNamespace(broker_id=0, inter_broker_listener_name=LISTENER, request_timeout_ms=1000)
        self.channel = TransactionMarkerChannelManager(config, self.metadata_cache, self.manager,
                                                       DelayedOperationPurgatory("txn-marker-purgatory", 0),
                                                       network_client_factory=self.network.client)
        self.next_producer_id = iter(range(1000, 2000))
        self.coordinator = TransactionCoordinator(
            0, None, lambda: SimpleNamespace(generate_producer_id=lambda: next(self.next_producer_id),
                                             shutdown=lambda: None),
            txn_config=self.txn_config, scheduler=self.scheduler, txn_manager=self.manager,
            txn_marker_channel_manager=self.channel, time_ms=self.clock)
        self.coordinator.startup()
        self.immigrate(epoch)

    def immigrate(self, epoch: int) -> None:
        self.coordinator.handle_txn_immigration(0, epoch)
        wait_until(lambda: not self.manager.loading_partitions and 0 in self.manager.transaction_metadata_cache,
                   10, "the transaction state partition loaded")

    def topic(self, name: str, partitions: int = 1, leader: int | None = 1) -> list[TopicPartition]:
        tps = [TopicPartition(name, p) for p in range(partitions)]
        for tp in tps:
            self.metadata_cache.leaders[tp] = leader
        return tps

    # the client's requests, answered synchronously

    def init(self, transactional_id: str | None, timeout_ms: int = 10_000) -> InitProducerIdResult:
        reply = Reply()
        self.coordinator.handle_init_producer_id(transactional_id, timeout_ms, reply)
        return reply.get()

    def add(self, transactional_id: str, producer_id: int, epoch: int, partitions: list[TopicPartition]) -> Errors:
        reply = Reply()
        self.coordinator.handle_add_partitions_to_transaction(transactional_id, producer_id, epoch, partitions, reply)
        return reply.get()

    def end(self, transactional_id: str, producer_id: int, epoch: int, commit: bool) -> Errors:
        reply = Reply()
        self.coordinator.handle_end_transaction(transactional_id, producer_id, epoch,
                                                TransactionResult.COMMIT if commit else TransactionResult.ABORT,
                                                reply)
        return reply.get()

    def metadata(self, transactional_id: str) -> Any:
        error, epoch_and_metadata = self.manager.get_transaction_state(transactional_id)
        assert error is None and epoch_and_metadata is not None
        return epoch_and_metadata.transaction_metadata

    def wait_for_state(self, transactional_id: str, state: Any, timeout_s: float = 10) -> None:
        wait_until(lambda: self.metadata(transactional_id).state is state
                   and self.metadata(transactional_id).pending_state is None, timeout_s,
                   f"{transactional_id} in {state}")

    def close(self) -> None:
        self.coordinator.shutdown()
        self.rm.close()
