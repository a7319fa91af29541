"""Port of core/src/main/scala/kafka/server/AlterPartitionManager.scala (Kafka 3.9): DefaultAlterPartitionManager.

A partition leader's ISR changes go to the active controller as AlterPartition requests; the leader learns the outcome
from the future `submit` returns. (3.9's ZkAlterPartitionManager, for ZooKeeper clusters before 2.7-IV2, is not
ported: in this repository the ZooKeeper broker is 1.0.2's, whose Partition writes ZooKeeper itself.)
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from kafka_edu.tracing import span
from kafka_edu.v1_0_2.clients.common.errors import ApiException, IllegalStateException
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.alter_partition_request import (
    AlterPartitionRequest,
    AlterPartitionRequestData,
    PartitionData,
    TopicData,
)
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    ClientResponse,
    ControllerRequest,
    NodeToControllerChannelManagerImpl,
)
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.scheduler import Scheduler

log = logging.getLogger("kafka.server.DefaultAlterPartitionManager")

ZERO_UUID = uuid.UUID(int=0)  # Uuid.ZERO_UUID, as the topic ids kio carries
LONG_MAX_VALUE = 2**63 - 1


class AlterPartitionError(ApiException):
    """`error.exception`: what a partition-level error (or a refused enqueue) completes a future with. The port has
    no exception class for most of the codes AlterPartition answers with, so the code travels with it."""

    def __init__(self, error: Errors, message: str | None = None) -> None:
        super().__init__(message or error.exception_name or error.name)
        self.error = error


def error_of(exception: BaseException) -> Errors:
    """Errors.forException for what a submit future failed with."""
    return exception.error if isinstance(exception, AlterPartitionError) else Errors.for_exception(exception)


class AlterPartitionManager:
    """The trait: what a Partition asks of whoever carries its ISR changes."""

    def start(self) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def submit(self, topic_id_partition: TopicIdPartition, leader_and_isr: LeaderAndIsr,
               controller_epoch: int) -> Future[LeaderAndIsr]:
        raise NotImplementedError


@dataclass
class AlterPartitionItem:
    topic_id_partition: TopicIdPartition
    leader_and_isr: LeaderAndIsr
    future: Future[LeaderAndIsr]
    controller_epoch: int  # for ZkAlterPartitionManager


def apply(config: Any, metadata_cache: Any, scheduler: Scheduler, controller_node_provider: Any, time: Time,
          thread_name_prefix: str, broker_epoch_supplier: Callable[[], int]) -> AlterPartitionManager:
    """AlterPartitionManager.apply: the AlterPartition-based manager on a channel of its own ("alter-partition"),
    which retries a request until the controller answers it."""
    channel_manager = NodeToControllerChannelManagerImpl(controller_node_provider, config, "alter-partition",
                                                         thread_name_prefix, retry_timeout_ms=LONG_MAX_VALUE)
    return DefaultAlterPartitionManager(channel_manager, scheduler, time, config.node_id, broker_epoch_supplier,
                                        lambda: metadata_cache.metadata_version())


class DefaultAlterPartitionManager(AlterPartitionManager):
    """At most one pending change per partition and one request in flight; changes submitted meanwhile go out
    together in the next request."""

    def __init__(self, controller_channel_manager: Any, scheduler: Scheduler, time: Time, broker_id: int,
                 broker_epoch_supplier: Callable[[], int],
                 metadata_version_supplier: Callable[[], MetadataVersion]) -> None:
        self.controller_channel_manager = controller_channel_manager
        self.scheduler = scheduler
        self.time = time
        self.broker_id = broker_id
        self.broker_epoch_supplier = broker_epoch_supplier
        self.metadata_version_supplier = metadata_version_supplier
        # Keyed by TopicPartition although items carry a TopicIdPartition: a topic deleted and re-created under the
        # same name (or one sent without an id) must not have two pending changes.
        self.unsent_isr_updates: dict[TopicPartition, AlterPartitionItem] = {}
        self._unsent_isr_updates_lock = threading.Lock()  # ConcurrentHashMap's putIfAbsent / remove
        # one request in flight at a time
        self.inflight_request = AtomicBoolean(False)

    def start(self) -> None:
        self.controller_channel_manager.start()

    def shutdown(self) -> None:
        self.controller_channel_manager.shutdown()

    def submit(self, topic_id_partition: TopicIdPartition, leader_and_isr: LeaderAndIsr,
               controller_epoch: int) -> Future[LeaderAndIsr]:
        future: Future[LeaderAndIsr] = Future()
        alter_partition_item = AlterPartitionItem(topic_id_partition, leader_and_isr, future, controller_epoch)
        with self._unsent_isr_updates_lock:
            enqueued = alter_partition_item.topic_id_partition.topic_partition not in self.unsent_isr_updates
            if enqueued:
                self.unsent_isr_updates[alter_partition_item.topic_id_partition.topic_partition] = alter_partition_item
        if enqueued:
            self.maybe_propagate_isr_changes()
        else:
            future.set_exception(AlterPartitionError(
                Errors.OPERATION_NOT_ATTEMPTED,
                f"Failed to enqueue ISR change state {leader_and_isr} for partition {topic_id_partition}"))
        return future

    def maybe_propagate_isr_changes(self) -> None:
        """Send every pending change, unless a request is in flight already (its answer sends the rest)."""
        if self.unsent_isr_updates and self.inflight_request.compare_and_set(False, True):
            # copied, not removed: each leaves the map when its answer comes
            with self._unsent_isr_updates_lock:
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
        # The channel here asks the controller for no ApiVersions: it sends the newest version the builder allows,
        # which a 3.9 controller speaks. The response is read at that version (Kafka: the request header's).
        request_version = request.latest_allowed_version
        manager = self

        class _Handler:
            """No timeout: the request is retried until answered, or until new metadata makes the partition ignore
            the answer."""

            def on_complete(self, response: ClientResponse) -> None:
                log.debug("Received AlterPartition response %s", response)
                try:
                    if response.authentication_exception is not None:
                        # retried, for want of a better code; the channel logs the failure
                        error = Errors.NETWORK_EXCEPTION
                    elif response.version_mismatch is not None:
                        error = Errors.UNSUPPORTED_VERSION
                    else:
                        error = manager.handle_alter_partition_response(
                            request_version, response.response_body, broker_epoch, inflight_alter_partition_items,
                            topic_names_by_ids)
                finally:
                    manager.clear_in_flight_request()

                if error == Errors.NONE:
                    # whatever was submitted meanwhile goes now
                    manager.maybe_propagate_isr_changes()
                else:
                    # a top-level error: the same changes go again shortly
                    manager.scheduler.schedule_once("send-alter-partition", manager.maybe_propagate_isr_changes, 50)

            def on_timeout(self) -> None:
                raise IllegalStateException("Encountered unexpected timeout when sending AlterPartition to the "
                                            "controller")

        self.controller_channel_manager.send_request(
            ControllerRequest(request.api_key, request_version, request.build(request_version).data()), _Handler())

    def build_request(self, inflight_alter_partition_items: list[AlterPartitionItem],
                      broker_epoch: int) -> tuple[AlterPartitionRequest.Builder, dict[uuid.UUID, str]]:
        """The request, by topic id (version 2 and up) if every topic has one and the metadata version allows it,
        else by name (version 1 at most); and the topic names by id to read the answer with, since the metadata
        cache may not know a topic id used here yet (a partition changes before the cache does)."""
        metadata_version = self.metadata_version_supplier()
        topic_names_by_ids: dict[uuid.UUID, str] = {}
        can_use_topic_ids = metadata_version.is_topic_ids_supported()

        message = AlterPartitionRequestData(broker_id=self.broker_id, broker_epoch=broker_epoch)

        items_by_topic: dict[str, list[AlterPartitionItem]] = {}
        for item in inflight_alter_partition_items:
            items_by_topic.setdefault(item.topic_id_partition.topic, []).append(item)
        for topic_name, items in items_by_topic.items():
            topic_id = items[0].topic_id_partition.topic_id
            can_use_topic_ids &= topic_id != ZERO_UUID
            topic_names_by_ids[topic_id] = topic_name

            # both name and id: the version is not known yet
            topic_data = TopicData(topic_name=topic_name, topic_id=topic_id)
            message.topics.append(topic_data)

            for item in items:
                partition_data = PartitionData(partition_index=item.topic_id_partition.partition,
                                               leader_epoch=item.leader_and_isr.leader_epoch,
                                               new_isr_with_epochs=list(item.leader_and_isr.isr_with_broker_epoch),
                                               partition_epoch=item.leader_and_isr.partition_epoch)
                if metadata_version.is_leader_recovery_supported():
                    partition_data.leader_recovery_state = int(item.leader_and_isr.leader_recovery_state)
                topic_data.partitions.append(partition_data)

        # without topic ids the builder allows no version above 1
        return AlterPartitionRequest.Builder(message, can_use_topic_ids), topic_names_by_ids

    @span("AlterPartitionManager.handleAlterPartitionResponse", root=True)
    def handle_alter_partition_response(self, request_api_version: int, alter_partition_resp: Any,
                                        sent_broker_epoch: int,
                                        inflight_alter_partition_items: list[AlterPartitionItem],
                                        topic_names_by_ids: dict[uuid.UUID, str]) -> Errors:
        """Complete each sent item's future from its partition's answer; after a top-level error none is
        completed, so all go again."""
        error = Errors.for_code(alter_partition_resp.error_code)
        if error == Errors.STALE_BROKER_EPOCH:
            log.warning("Broker had a stale broker epoch (%d), retrying.", sent_broker_epoch)
        elif error == Errors.CLUSTER_AUTHORIZATION_FAILED:
            log.error("Broker is not authorized to send AlterPartition to controller")
        elif error == Errors.NONE:
            # the partitions' answers, for the callbacks
            partition_responses: dict[TopicPartition, Errors | LeaderAndIsr] = {}
            for topic in alter_partition_resp.topics:
                # topics go by id from version 2
                topic_name = (topic_names_by_ids.get(topic.topic_id) if request_api_version > 1
                              else topic.topic_name)
                if not topic_name:
                    log.error("Received an unexpected topic %s in the alter partition response, ignoring it.", topic)
                    continue
                for partition in topic.partitions:
                    tp = TopicPartition(topic_name, partition.partition_index)
                    api_error = Errors.for_code(partition.error_code)
                    log.debug("Controller successfully handled AlterPartition request for %s: %s", tp, partition)
                    if api_error == Errors.NONE:
                        leader_recovery_state = _optional_leader_recovery_state(partition.leader_recovery_state)
                        if leader_recovery_state is not None:
                            partition_responses[tp] = LeaderAndIsr.apply(
                                partition.leader_id, partition.leader_epoch, [int(r) for r in partition.isr],
                                leader_recovery_state, partition.partition_epoch)
                        else:
                            log.error("Controller returned an invalid leader recovery state (%d) for %s: %s",
                                      partition.leader_recovery_state, tp, partition)
                            partition_responses[tp] = Errors.UNKNOWN_SERVER_ERROR
                    else:
                        partition_responses[tp] = api_error

            # Walk what was sent, not what came back: a partition missing from the answer stays pending and goes
            # out again. (The callbacks run Partition's, which takes its leaderIsrUpdateLock.)
            for inflight_alter_partition in inflight_alter_partition_items:
                topic_partition = inflight_alter_partition.topic_id_partition.topic_partition
                leader_and_isr_or_error = partition_responses.get(topic_partition)
                if leader_and_isr_or_error is None:
                    log.warning("Partition %s was sent but not included in the response",
                                inflight_alter_partition.topic_id_partition)
                    continue
                # removed before the callback, so that the callback may submit the partition's next change
                with self._unsent_isr_updates_lock:
                    self.unsent_isr_updates.pop(topic_partition, None)
                if isinstance(leader_and_isr_or_error, Errors):
                    inflight_alter_partition.future.set_exception(AlterPartitionError(leader_and_isr_or_error))
                else:
                    inflight_alter_partition.future.set_result(leader_and_isr_or_error)
        else:
            log.warning("Controller returned an unexpected top-level error when handling AlterPartition request: %s",
                        error.name)
        return Errors.for_code(alter_partition_resp.error_code)


def _optional_leader_recovery_state(value: int) -> LeaderRecoveryState | None:
    """LeaderRecoveryState.optionalOf: RECOVERED or RECOVERING, nothing for any other byte."""
    if value in (LeaderRecoveryState.RECOVERED, LeaderRecoveryState.RECOVERING):
        return LeaderRecoveryState(value)
    return None
