"""Port of core/src/main/scala/kafka/server/AlterPartitionManager.scala (Kafka 3.9): DefaultAlterPartitionManager.

A partition leader's ISR changes go to the active controller as AlterPartition requests, where a ZooKeeper-mode
leader wrote the partition's znode itself. The change is asynchronous: the leader learns the outcome from the
future `submit` returns. (3.9's ZkAlterPartitionManager, for old inter-broker protocols, is not ported: the 1.0.2
Partition here writes ZooKeeper itself.)
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from kio.schema.alter_partition.v3 import request as alter_partition_request
from kio.static.primitive import i8, i32, i64

from kafka_edu.tracing import span
from kafka_edu.v1_0_2.clients.common.errors import ApiException, UnsupportedVersionException
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState

log = logging.getLogger("kafka.server.DefaultAlterPartitionManager")

AlterPartitionRequest = alter_partition_request.AlterPartitionRequest
BrokerState = alter_partition_request.BrokerState
NO_BROKER_EPOCH = -1  # a replica whose broker epoch the leader does not know: the controller skips its check
RETRY_BACKOFF_MS = 50  # after a top-level error, the next attempt's delay (3.9's constant)

# The channel to the active controller: sends the request and later calls back with the decoded
# AlterPartitionResponse, or with the exception that stands for no answer (a NetworkException, an
# UnsupportedVersionException). It retries on its own until the controller answers, as 3.9's
# NodeToControllerChannelManager does for AlterPartition; the callback may run on any thread.
AlterPartitionSender = Callable[[AlterPartitionRequest, Callable[[Any], None]], None]


@dataclass(frozen=True)
class TopicIdPartition:
    """org.apache.kafka.common.TopicIdPartition."""

    topic_id: uuid.UUID
    topic_partition: TopicPartition

    @property
    def topic(self) -> str:
        return self.topic_partition.topic

    @property
    def partition(self) -> int:
        return self.topic_partition.partition

    def __str__(self) -> str:
        return f"{self.topic_id}:{self.topic_partition}"


class AlterPartitionError(ApiException):
    """What `error.exception` is in Kafka: the exception a partition-level (or enqueue) error completes a future
    with; the code travels along, since the port lacks a class for most of 3.9's newer codes."""

    def __init__(self, error: Errors, message: str | None = None) -> None:
        super().__init__(message or error.exception_name or error.name)
        self.error = error


def error_of(exception: BaseException) -> Errors:
    """Errors.forException for what a submit future failed with."""
    return exception.error if isinstance(exception, AlterPartitionError) else Errors.for_exception(exception)


@dataclass
class AlterPartitionItem:
    """One partition's proposed state, waiting to be sent or answered.

    3.9's LeaderAndIsr carries the ISR with each member's broker epoch (KIP-903); the 1.0.2 LeaderAndIsr here holds
    the partition epoch in `zk_version`, and the epochs come beside it.
    """

    topic_id_partition: TopicIdPartition
    leader_and_isr: LeaderAndIsr
    future: Future[LeaderAndIsr]
    controller_epoch: int
    isr_with_broker_epoch: tuple[BrokerState, ...] = field(default=())


class AlterPartitionManager:
    """3.9's DefaultAlterPartitionManager: at most one pending change per partition, at most one request in flight;
    changes submitted meanwhile go out together in the next request."""

    def __init__(self, sender: AlterPartitionSender, scheduler: KafkaScheduler, broker_id: int,
                 broker_epoch_supplier: Callable[[], int]) -> None:
        self.sender = sender
        self.scheduler = scheduler
        self.broker_id = broker_id
        self.broker_epoch_supplier = broker_epoch_supplier
        # Keyed by name, not id: a topic deleted and re-created under the same name must not have two entries.
        self.unsent_isr_updates: dict[TopicPartition, AlterPartitionItem] = {}
        self._unsent_lock = threading.Lock()
        self.inflight_request = AtomicBoolean(False)
        """One request in flight at a time; set until its response has been handled."""

    def start(self) -> None:
        """3.9 starts its own channel here; the sender's channel is started by its owner."""

    def shutdown(self) -> None:
        """3.9 shuts its channel down here; the sender's channel is shut down by its owner."""

    def submit(self, topic_id_partition: TopicIdPartition, leader_and_isr: LeaderAndIsr, controller_epoch: int,
               isr_with_broker_epoch: tuple[BrokerState, ...] | None = None) -> Future[LeaderAndIsr]:
        """Queue one partition's proposed ISR; the future completes with the state the controller committed, or
        fails with the partition's error (OPERATION_NOT_ATTEMPTED if a change of it is already pending)."""
        future: Future[LeaderAndIsr] = Future()
        if isr_with_broker_epoch is None:
            isr_with_broker_epoch = tuple(BrokerState(broker_id=i32(r), broker_epoch=i64(NO_BROKER_EPOCH))
                                          for r in leader_and_isr.isr)
        item = AlterPartitionItem(topic_id_partition, leader_and_isr, future, controller_epoch,
                                  isr_with_broker_epoch)
        with self._unsent_lock:
            enqueued = topic_id_partition.topic_partition not in self.unsent_isr_updates
            if enqueued:
                self.unsent_isr_updates[topic_id_partition.topic_partition] = item
        if enqueued:
            self.maybe_propagate_isr_changes()
        else:
            future.set_exception(AlterPartitionError(
                Errors.OPERATION_NOT_ATTEMPTED,
                f"Failed to enqueue ISR change state {leader_and_isr} for partition {topic_id_partition}"))
        return future

    def maybe_propagate_isr_changes(self) -> None:
        """Send every pending change, unless a request is already in flight (its answer sends the rest)."""
        with self._unsent_lock:
            if not self.unsent_isr_updates or not self.inflight_request.compare_and_set(False, True):
                return
            # Copied, not removed: each is removed when its answer comes, so an unanswered one goes out again.
            inflight_alter_partition_items = list(self.unsent_isr_updates.values())
        self.send_request(inflight_alter_partition_items)

    def clear_in_flight_request(self) -> None:
        if not self.inflight_request.compare_and_set(True, False):
            log.warning("Attempting to clear AlterPartition in-flight flag when no apparent request is in-flight")

    @span("AlterPartitionManager.sendRequest")
    def send_request(self, inflight_alter_partition_items: list[AlterPartitionItem]) -> None:
        broker_epoch = self.broker_epoch_supplier()
        request, topic_names_by_ids = self.build_request(inflight_alter_partition_items, broker_epoch)
        log.debug("Sending AlterPartition to controller %s", request)

        def on_complete(response: Any) -> None:
            # No timeout: the request is retried until answered, or until new metadata makes the partition
            # ignore the answer.
            log.debug("Received AlterPartition response %s", response)
            try:
                if isinstance(response, UnsupportedVersionException):
                    error = Errors.UNSUPPORTED_VERSION
                elif isinstance(response, BaseException):
                    # 3.9 treats authentication failures so too: retried, the channel logs them
                    error = Errors.NETWORK_EXCEPTION
                else:
                    error = self.handle_alter_partition_response(response, broker_epoch,
                                                                 inflight_alter_partition_items, topic_names_by_ids)
            finally:
                self.clear_in_flight_request()
            if error == Errors.NONE:
                self.maybe_propagate_isr_changes()  # whatever was submitted meanwhile goes now
            else:
                self.scheduler.schedule("send-alter-partition", self.maybe_propagate_isr_changes,
                                        delay=RETRY_BACKOFF_MS)

        try:
            self.sender(request, on_complete)
        except Exception as e:  # a channel that cannot take the request now: as if it had gone unanswered
            on_complete(e)

    def build_request(self, inflight_alter_partition_items: list[AlterPartitionItem],
                      broker_epoch: int) -> tuple[AlterPartitionRequest, dict[uuid.UUID, str]]:
        """AlterPartition v3, topics by id, each ISR member with its broker epoch.

        3.9 asks the metadata.version whether topic ids and the leader recovery state may be sent (and falls back to
        v1 by name): every metadata.version a KRaft cluster runs at has both, so this port always sends them.
        Returns the request and the topic names by id, to read the answer with: the metadata cache may not know
        a topic id used here yet, since a partition changes before the cache does.
        """
        topic_names_by_ids: dict[uuid.UUID, str] = {}
        items_by_topic: dict[str, list[AlterPartitionItem]] = {}
        for item in inflight_alter_partition_items:
            items_by_topic.setdefault(item.topic_id_partition.topic, []).append(item)
        topics = []
        for topic_name, items in items_by_topic.items():
            topic_id = items[0].topic_id_partition.topic_id
            topic_names_by_ids[topic_id] = topic_name
            partitions = []
            for item in items:
                partitions.append(alter_partition_request.PartitionData(
                    partition_index=i32(item.topic_id_partition.partition),
                    leader_epoch=i32(item.leader_and_isr.leader_epoch),
                    new_isr_with_epochs=item.isr_with_broker_epoch,
                    # the 1.0.2 Partition has no unclean-recovery state: its leader is always recovered
                    leader_recovery_state=i8(int(LeaderRecoveryState.RECOVERED)),
                    partition_epoch=i32(item.leader_and_isr.zk_version)))
            topics.append(alter_partition_request.TopicData(topic_id=topic_id, partitions=tuple(partitions)))
        request = AlterPartitionRequest(broker_id=i32(self.broker_id), broker_epoch=i64(broker_epoch),
                                        topics=tuple(topics))
        return request, topic_names_by_ids

    @span("AlterPartitionManager.handleAlterPartitionResponse", root=True)
    def handle_alter_partition_response(self, alter_partition_resp: Any, sent_broker_epoch: int,
                                        inflight_alter_partition_items: list[AlterPartitionItem],
                                        topic_names_by_ids: dict[uuid.UUID, str]) -> Errors:
        """Complete each sent item's future from its partition's answer; a top-level error completes none, so all
        are sent again."""
        error = Errors.for_code(alter_partition_resp.error_code)
        if error == Errors.STALE_BROKER_EPOCH:
            log.warning("Broker had a stale broker epoch (%d), retrying.", sent_broker_epoch)
        elif error == Errors.CLUSTER_AUTHORIZATION_FAILED:
            log.error("Broker is not authorized to send AlterPartition to controller")
        elif error == Errors.NONE:
            partition_responses: dict[TopicPartition, Errors | LeaderAndIsr] = {}
            for topic in alter_partition_resp.topics:
                topic_name = topic_names_by_ids.get(topic.topic_id)
                if not topic_name:
                    log.error("Received an unexpected topic %s in the alter partition response, ignoring it.", topic)
                    continue
                for partition in topic.partitions:
                    tp = TopicPartition(topic_name, partition.partition_index)
                    api_error = Errors.for_code(partition.error_code)
                    log.debug("Controller successfully handled AlterPartition request for %s: %s", tp, partition)
                    if api_error != Errors.NONE:
                        partition_responses[tp] = api_error
                    elif partition.leader_recovery_state not in (LeaderRecoveryState.RECOVERED,
                                                                 LeaderRecoveryState.RECOVERING):
                        log.error("Controller returned an invalid leader recovery state (%d) for %s: %s",
                                  partition.leader_recovery_state, tp, partition)
                        partition_responses[tp] = Errors.UNKNOWN_SERVER_ERROR
                    else:
                        partition_responses[tp] = LeaderAndIsr(partition.leader_id, partition.leader_epoch,
                                                               [int(r) for r in partition.isr],
                                                               partition.partition_epoch)
            # Walk what was sent, not what came back: a partition missing from the answer stays pending and goes
            # out again.
            for item in inflight_alter_partition_items:
                topic_partition = item.topic_id_partition.topic_partition
                leader_and_isr_or_error = partition_responses.get(topic_partition)
                if leader_and_isr_or_error is None:
                    log.warning("Partition %s was sent but not included in the response", item.topic_id_partition)
                    continue
                # Removed before the callback, so that the callback may submit the partition's next change.
                with self._unsent_lock:
                    self.unsent_isr_updates.pop(topic_partition, None)
                if isinstance(leader_and_isr_or_error, Errors):
                    item.future.set_exception(AlterPartitionError(leader_and_isr_or_error))
                else:
                    item.future.set_result(leader_and_isr_or_error)
        else:
            log.warning("Controller returned an unexpected top-level error when handling AlterPartition request: %s",
                        error.name)
        return error
