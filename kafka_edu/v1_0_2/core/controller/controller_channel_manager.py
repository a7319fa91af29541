"""Port of core/src/main/scala/kafka/controller/ControllerChannelManager.scala (Kafka 1.0.2).

The active controller talks to every live broker over its own connection: one queue and one RequestSendThread per
broker, so a slow broker delays only its own requests. ControllerBrokerRequestBatch gathers the LeaderAndIsr,
UpdateMetadata and StopReplica requests one state change produces and sends them together.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import span, step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.controller.controller_context import ControllerContext, LeaderIsrAndControllerEpoch
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.metadata_cache import Broker
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.controller.kafka_controller import KafkaController

# What Kafka 1.0.2's controller sends with inter.broker.protocol.version 1.0 (KAFKA_1_0_IV0): LeaderAndIsr v1,
# UpdateMetadata v4 and StopReplica v0. Their headers (v1) carry the traceparent of the send in the client id
# (codec.py), so the versions stay 1.0.2's.
LEADER_AND_ISR_VERSION = 1
UPDATE_METADATA_VERSION = 4
STOP_REPLICA_VERSION = 0

_SEND_BACKOFF_S = 0.1

ResponseCallback = Callable[[Any], None]


@dataclass
class QueueItem:
    api_key: ApiKeys
    api_version: int
    body: Any
    callback: ResponseCallback | None
    # The context the request was queued in: the send thread sends it in that context, continuing its trace.
    context: contextvars.Context = field(default_factory=contextvars.copy_context)


@dataclass
class ControllerBrokerStateInfo:
    broker: Broker
    message_queue: queue.Queue[QueueItem]
    request_send_thread: RequestSendThread


class ControllerChannelManager:
    """brokerStateInfo: one entry per live (or shutting down) broker, added and removed as brokers come and go."""

    def __init__(self, controller_context: ControllerContext, config: KafkaConfig) -> None:
        self.controller_context = controller_context
        self.config = config
        self.log = Logging("kafka.controller.ControllerChannelManager", f"[Channel manager on controller "
                                                                        f"{config.broker_id}]: ")
        self.broker_state_info: dict[int, ControllerBrokerStateInfo] = {}
        self.broker_lock = threading.Lock()
        for broker in controller_context.live_or_shutting_down_brokers:
            self.add_new_broker(broker)

    def startup(self) -> None:
        with self.broker_lock:
            for state_info in self.broker_state_info.values():
                self.start_request_send_thread(state_info)

    def shutdown(self) -> None:
        with self.broker_lock:
            for broker_id in list(self.broker_state_info):
                self.remove_existing_broker(self.broker_state_info[broker_id])

    @step("CT.channel", root=True)  # each request is its own trace, linked to its cause, continued by the send
    def send_request(self, broker_id: int, api_key: ApiKeys, api_version: int, body: Any,
                     callback: ResponseCallback | None = None) -> None:
        with self.broker_lock:
            state_info = self.broker_state_info.get(broker_id)
            if state_info is not None:
                state_info.message_queue.put(QueueItem(api_key, api_version, body, callback))
            else:
                self.log.warning("Not sending request %s to broker %d, since it is offline.", api_key.api_name,
                                 broker_id)

    def add_broker(self, broker: Broker) -> None:
        # Be careful here: the broker may be added after its BrokerChange, or twice after a session expiry.
        with self.broker_lock:
            if broker.id not in self.broker_state_info:
                self.add_new_broker(broker)
                self.start_request_send_thread(self.broker_state_info[broker.id])

    def remove_broker(self, broker_id: int) -> None:
        with self.broker_lock:
            state_info = self.broker_state_info.get(broker_id)
            if state_info is not None:
                self.remove_existing_broker(state_info)

    def add_new_broker(self, broker: Broker) -> None:
        message_queue: queue.Queue[QueueItem] = queue.Queue()
        self.log.debug("Controller %d trying to connect to broker %d", self.config.broker_id, broker.id)
        thread_name = f"Controller-{self.config.broker_id}-to-broker-{broker.id}-send-thread"
        request_thread = RequestSendThread(self.config.broker_id, self.controller_context, message_queue, broker,
                                           self.config, thread_name)
        self.broker_state_info[broker.id] = ControllerBrokerStateInfo(broker, message_queue, request_thread)

    def remove_existing_broker(self, state_info: ControllerBrokerStateInfo) -> None:
        try:
            state_info.request_send_thread.shutdown()
            del self.broker_state_info[state_info.broker.id]
        except Exception as e:
            self.log.error("Error while removing broker by the controller", exc_info=e)

    def start_request_send_thread(self, state_info: ControllerBrokerStateInfo) -> None:
        request_thread = state_info.request_send_thread
        if not request_thread.is_alive() and not request_thread.started:
            request_thread.started = True
            request_thread.start()


class RequestSendThread(threading.Thread):
    """Takes one request at a time off its broker's queue, sends it, waits for the response, calls the callback.

    A failed send is retried on a new connection until it succeeds or the broker is removed.
    """

    def __init__(self, controller_id: int, controller_context: ControllerContext,
                 message_queue: queue.Queue[QueueItem], broker: Broker, config: KafkaConfig, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.controller_id = controller_id
        self.controller_context = controller_context
        self.message_queue = message_queue
        self.broker = broker
        self.config = config
        self.log = Logging("kafka.controller.RequestSendThread", f"[{name}]: ")
        self.started = False
        self._running = threading.Event()
        self._running.set()
        self._shutdown_requested = threading.Event()
        host, port = broker.endpoints[config.inter_broker_listener_name]
        self.network_client = BlockingChannel(host, port, config.controller_socket_timeout_ms / 1000,
                                              f"controller-{controller_id}")

    def run(self) -> None:
        while self._running.is_set():
            self.do_work()
        self._disconnect()

    def shutdown(self) -> None:
        self._running.clear()
        self._shutdown_requested.set()
        self.message_queue.put(QueueItem(ApiKeys.API_VERSIONS, 0, None, None))  # wakes the thread up

    def do_work(self) -> None:
        item = self.message_queue.get()
        if self._running.is_set():
            item.context.run(self.send, item)

    @span("RequestSendThread.doWork")
    def send(self, item: QueueItem) -> None:
        """The rest of doWork: send until a response comes or the thread stops, then call back."""
        response = None
        while self._running.is_set() and response is None:
            try:
                if not self.broker_ready():
                    self._backoff()
                    continue
                response = self._send_and_receive(item)
            except Exception as e:
                self.log.warning("Controller %d epoch %d fails to send request %s to broker %s. Reconnecting "
                                 "to broker.", self.controller_id, self.controller_context.epoch,
                                 item.api_key.api_name, self.broker.id, exc_info=e)
                self._disconnect()
                self._backoff()
        if response is not None and item.callback is not None:
            item.callback(response)

    def _backoff(self) -> None:
        # Kafka's backoff(): pause before retrying a broker that is not reachable yet; shutdown cuts it short.
        self._shutdown_requested.wait(_SEND_BACKOFF_S)

    def broker_ready(self) -> bool:
        if self.network_client.is_connected:
            return True
        try:
            self.network_client.connect()
            self.log.info("Controller %d connected to %d (%s:%d) for sending state change requests",
                          self.controller_id, self.broker.id, self.network_client.host, self.network_client.port)
            return True
        except OSError as e:
            self.log.warning("Controller %d's connection to broker %d was unsuccessful", self.controller_id,
                             self.broker.id, exc_info=e)
            self._disconnect()
            return False

    def _send_and_receive(self, item: QueueItem) -> Any:
        return self.network_client.send_and_receive(item.api_key, item.api_version, item.body)

    def _disconnect(self) -> None:
        self.network_client.disconnect()


@dataclass
class _UpdateMetadataPartitionInfo:
    leader_isr_and_controller_epoch: LeaderIsrAndControllerEpoch
    replicas: list[int]
    offline_replicas: list[int]


@dataclass
class _StopReplicaRequestInfo:
    topic_partition: TopicPartition
    delete_partition: bool
    callback: ResponseCallback | None = None


@dataclass
class _LeaderAndIsrPartitionInfo:
    leader_isr_and_controller_epoch: LeaderIsrAndControllerEpoch
    replicas: list[int]
    is_new: bool


class ControllerBrokerRequestBatch:
    """The requests one round of state changes produces, per broker; `send_requests_to_brokers` sends them."""

    def __init__(self, controller: KafkaController) -> None:
        self.controller = controller
        self.leader_and_isr_request_map: dict[int, dict[TopicPartition, _LeaderAndIsrPartitionInfo]] = {}
        self.stop_replica_request_map: dict[int, list[_StopReplicaRequestInfo]] = {}
        self.update_metadata_request_broker_set: set[int] = set()
        self.update_metadata_request_partition_info_map: dict[TopicPartition, _UpdateMetadataPartitionInfo] = {}

    def new_batch(self) -> None:
        # A batch left unsent by an earlier failure must not be mixed into this one.
        if self.leader_and_isr_request_map:
            raise IllegalStateException("Controller to broker state change requests batch is not empty while "
                                        "creating a new one. Some LeaderAndIsr state changes "
                                        f"{self.leader_and_isr_request_map} might be lost ")
        if self.stop_replica_request_map:
            raise IllegalStateException("Controller to broker state change requests batch is not empty while "
                                        "creating a new one. Some StopReplica state changes "
                                        f"{self.stop_replica_request_map} might be lost ")
        if self.update_metadata_request_broker_set:
            raise IllegalStateException("Controller to broker state change requests batch is not empty while "
                                        "creating a new one. Some UpdateMetadata state changes to brokers "
                                        f"{self.update_metadata_request_broker_set} with partition info "
                                        f"{self.update_metadata_request_partition_info_map} might be lost ")

    def clear(self) -> None:
        self.leader_and_isr_request_map.clear()
        self.stop_replica_request_map.clear()
        self.update_metadata_request_broker_set.clear()
        self.update_metadata_request_partition_info_map.clear()

    def add_leader_and_isr_request_for_brokers(self, broker_ids: Iterable[int], topic: str, partition: int,
                                               leader_isr_and_controller_epoch: LeaderIsrAndControllerEpoch,
                                               replicas: list[int], is_new: bool = False) -> None:
        topic_partition = TopicPartition(topic, partition)
        for broker_id in broker_ids:
            if broker_id >= 0:
                result = self.leader_and_isr_request_map.setdefault(broker_id, {})
                already_new = topic_partition in result and result[topic_partition].is_new
                result[topic_partition] = _LeaderAndIsrPartitionInfo(leader_isr_and_controller_epoch, list(replicas),
                                                                     is_new or already_new)
        self.add_update_metadata_request_for_brokers(self.controller.controller_context.live_or_shutting_down_broker_ids,
                                                     {topic_partition})

    def add_stop_replica_request_for_brokers(self, broker_ids: Iterable[int], topic: str, partition: int,
                                             delete_partition: bool, callback: ResponseCallback | None = None) -> None:
        for broker_id in broker_ids:
            if broker_id >= 0:
                self.stop_replica_request_map.setdefault(broker_id, []).append(
                    _StopReplicaRequestInfo(TopicPartition(topic, partition), delete_partition, callback))

    def add_update_metadata_request_for_brokers(self, broker_ids: Iterable[int],
                                                partitions: Iterable[TopicPartition] = ()) -> None:
        context = self.controller.controller_context
        deletion_manager = self.controller.topic_deletion_manager

        def update_metadata_request_partition_info(topic_partition: TopicPartition, being_deleted: bool) -> None:
            leader_isr_and_controller_epoch = context.partition_leadership_info.get(topic_partition)
            if leader_isr_and_controller_epoch is None:
                return
            replicas = context.partition_replica_assignment.get(topic_partition, [])
            offline_replicas = [r for r in replicas if r not in context.live_broker_ids]
            if being_deleted:
                leader_isr_and_controller_epoch = LeaderIsrAndControllerEpoch(
                    LeaderAndIsr.during_delete(leader_isr_and_controller_epoch.leader_and_isr.isr),
                    leader_isr_and_controller_epoch.controller_epoch)
            self.update_metadata_request_partition_info_map[topic_partition] = _UpdateMetadataPartitionInfo(
                leader_isr_and_controller_epoch, list(replicas), offline_replicas)

        partitions = set(partitions)
        given_partitions = partitions if partitions else set(context.partition_leadership_info)
        partitions_being_deleted = {tp for tp in given_partitions
                                    if deletion_manager.is_topic_queued_up_for_deletion(tp.topic)}
        self.update_metadata_request_broker_set.update(b for b in broker_ids if b >= 0)
        for topic_partition in given_partitions:
            update_metadata_request_partition_info(topic_partition, topic_partition in partitions_being_deleted)

    def send_requests_to_brokers(self, controller_epoch: int) -> None:
        controller = self.controller
        context = controller.controller_context
        controller_id = controller.config.broker_id
        listener = controller.config.inter_broker_listener_name
        try:
            for broker, partition_state_infos in self.leader_and_isr_request_map.items():
                leader_ids = {info.leader_isr_and_controller_epoch.leader_and_isr.leader
                              for info in partition_state_infos.values()}
                leaders = [b for b in context.live_or_shutting_down_brokers if b.id in leader_ids]
                partition_states = []
                for tp, info in sorted(partition_state_infos.items()):
                    lai = info.leader_isr_and_controller_epoch.leader_and_isr
                    partition_states.append(dict(
                        topic_name=tp.topic, partition_index=tp.partition,
                        controller_epoch=info.leader_isr_and_controller_epoch.controller_epoch,
                        leader=lai.leader, leader_epoch=lai.leader_epoch, isr=list(lai.isr),
                        partition_epoch=lai.zk_version, replicas=list(info.replicas), is_new=info.is_new))
                body = build(ApiKeys.LEADER_AND_ISR.request_schema(LEADER_AND_ISR_VERSION), controller_id=controller_id,
                             controller_epoch=controller_epoch, ungrouped_partition_states=partition_states,
                             live_leaders=[dict(broker_id=b.id, host_name=b.endpoints[listener][0],
                                                port=b.endpoints[listener][1]) for b in leaders])
                controller.send_request(broker, ApiKeys.LEADER_AND_ISR, LEADER_AND_ISR_VERSION, body,
                                        lambda response, b=broker: controller.event_manager.put(
                                            controller.leader_and_isr_response_received(response, b)))
            self.leader_and_isr_request_map.clear()

            um_partition_states = []
            for tp, um_info in sorted(self.update_metadata_request_partition_info_map.items()):
                lai = um_info.leader_isr_and_controller_epoch.leader_and_isr
                um_partition_states.append(dict(
                    topic_name=tp.topic, partition_index=tp.partition,
                    controller_epoch=um_info.leader_isr_and_controller_epoch.controller_epoch,
                    leader=lai.leader, leader_epoch=lai.leader_epoch, isr=list(lai.isr), zk_version=lai.zk_version,
                    replicas=list(um_info.replicas), offline_replicas=list(um_info.offline_replicas)))
            live_brokers = [dict(id_=b.id, rack=b.rack, endpoints=[
                dict(port=port, host=host, listener=name, security_protocol=0)
                for name, (host, port) in b.endpoints.items()]) for b in context.live_or_shutting_down_brokers]
            for broker in sorted(self.update_metadata_request_broker_set):
                body = build(ApiKeys.UPDATE_METADATA.request_schema(UPDATE_METADATA_VERSION),
                             controller_id=controller_id, controller_epoch=controller_epoch,
                             ungrouped_partition_states=um_partition_states, live_brokers=live_brokers)
                controller.send_request(broker, ApiKeys.UPDATE_METADATA, UPDATE_METADATA_VERSION, body)
            self.update_metadata_request_broker_set.clear()
            self.update_metadata_request_partition_info_map.clear()

            for broker, replica_infos in self.stop_replica_request_map.items():
                # StopReplica v0 carries one delete flag per request: one request per flag, with the callbacks of
                # its replicas (1.0.2 sends one for the replicas with neither a delete nor a callback, and one
                # per other replica).
                for delete_partition in (False, True):
                    infos = [r for r in replica_infos if r.delete_partition == delete_partition]
                    if not infos:
                        continue
                    body = build(ApiKeys.STOP_REPLICA.request_schema(STOP_REPLICA_VERSION), controller_id=controller_id,
                                 controller_epoch=controller_epoch, delete_partitions=delete_partition,
                                 ungrouped_partitions=[dict(topic_name=r.topic_partition.topic,
                                                            partition_index=r.topic_partition.partition)
                                                       for r in infos])
                    callbacks = [r.callback for r in infos if r.callback is not None]
                    controller.send_request(broker, ApiKeys.STOP_REPLICA, STOP_REPLICA_VERSION, body,
                                            _call_all(callbacks, broker) if callbacks else None)
            self.stop_replica_request_map.clear()
        except Exception as e:
            if self.leader_and_isr_request_map:
                controller.log.error("Haven't been able to send leader and isr requests, current state of the map "
                                     "is %s. Exception message: %s", self.leader_and_isr_request_map, e)
            if self.update_metadata_request_broker_set:
                controller.log.error("Haven't been able to send metadata update requests to brokers %s, current "
                                     "state of the partition info is %s. Exception message: %s",
                                     self.update_metadata_request_broker_set,
                                     self.update_metadata_request_partition_info_map, e)
            if self.stop_replica_request_map:
                controller.log.error("Haven't been able to send stop replica requests, current state of the map "
                                     "is %s. Exception message: %s", self.stop_replica_request_map, e)
            raise IllegalStateException(str(e)) from e


def _call_all(callbacks: list[ResponseCallback], broker_id: int) -> Callable[[Any], None]:
    def on_response(response: Any) -> None:
        for callback in callbacks:
            callback((response, broker_id))
    return on_response
