"""Interim leadership until the KafkaController is ported (not a Kafka class).

In Kafka the controller decides who leads each partition and tells every broker with LeaderAndIsr and
UpdateMetadata requests. Until that is built, each broker reads the same facts the controller would — live brokers
from `/brokers/ids`, assignments from `/brokers/topics`, deletions from `/admin/delete_topics` — and applies the
controller's answer for a healthy cluster: the first assigned replica (the preferred replica) leads, alone in the
ISR, at leader epoch 0. It never fails over, so no two brokers ever disagree about a partition's data. The calls it
makes (`MetadataCache.update_cache`, `ReplicaManager.make_leaders` / `stop_replicas`) are the ones the controller's
requests will make, so the controller replaces this module without touching the rest.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable

from kafka_edu.cluster.partition import LeaderAndIsrPartitionState
from kafka_edu.log.log import TopicPartition
from kafka_edu.server.metadata_cache import Broker, MetadataCache, PartitionState
from kafka_edu.server.replica_manager import ReplicaManager
from kafka_edu.tracing import span
from kafka_edu.utils.zk_utils import (
    BROKER_IDS_PATH,
    BROKER_TOPICS_PATH,
    CONTROLLER_PATH,
    DELETE_TOPICS_PATH,
    ZkUtils,
)

log = logging.getLogger("kafka.server.PreferredReplicaLeadership")


class PreferredReplicaLeadership:
    def __init__(self, zk_utils: ZkUtils, metadata_cache: MetadataCache, replica_manager: ReplicaManager,
                 on_topics_changed: Callable[[set[str]], None],
                 on_leadership_change: Callable[[set[TopicPartition], set[TopicPartition]], None]) -> None:
        self.zk_utils = zk_utils
        self.metadata_cache = metadata_cache
        self.replica_manager = replica_manager
        self.on_topics_changed = on_topics_changed
        self.on_leadership_change = on_leadership_change
        self.local_broker_id = replica_manager.local_broker_id
        self._lock = threading.Lock()
        self._topic_watches: set[str] = set()
        self._stopped = False
        self._zk_partitions: set[TopicPartition] = set()

    def startup(self) -> None:
        client = self.zk_utils.zk_client
        client.ChildrenWatch(BROKER_IDS_PATH, lambda _: self.refresh())
        client.ChildrenWatch(BROKER_TOPICS_PATH, self._on_topics)
        client.ChildrenWatch(DELETE_TOPICS_PATH, self._on_delete_topics)
        client.DataWatch(CONTROLLER_PATH, self._on_controller)

    def _on_controller(self, _data: bytes | None, _stat: object, event: object = None) -> bool:
        """The elected controller moved: Metadata answers name the new one."""
        self.refresh()
        return not self._stopped

    def _on_topics(self, topics: list[str]) -> None:
        for topic in topics:
            if topic not in self._topic_watches:  # partitions added to a topic change its data
                self._topic_watches.add(topic)
                self.zk_utils.zk_client.DataWatch(f"{BROKER_TOPICS_PATH}/{topic}", self._on_topic_data)
        self.refresh()

    def _on_topic_data(self, data: bytes | None, _stat: object, event: object = None) -> bool:
        if data is None:
            return False  # the topic is gone: stop watching it
        self.refresh()
        return True

    def _on_delete_topics(self, topics: list[str]) -> None:
        """What TopicDeletionManager finally does: remove the topic's znodes (any broker may; all agree)."""
        for topic in topics:
            for path in (f"{BROKER_TOPICS_PATH}/{topic}", f"/config/topics/{topic}", f"{DELETE_TOPICS_PATH}/{topic}"):
                self.zk_utils.delete_path_recursive(path)
        if topics:
            self.refresh()

    def shutdown(self) -> None:
        with self._lock:
            self._stopped = True

    def refresh(self) -> None:
        if self._stopped:
            return
        with self._lock, span("PreferredReplicaLeadership.refresh", origin_file="(interim: no Kafka original)",
                              root=True) as s:
            if self._stopped:
                return
            alive = {}
            for broker_id in self.zk_utils.get_children(BROKER_IDS_PATH):
                info = self.zk_utils.get_broker_info(int(broker_id))
                if info is not None:
                    endpoints = {}
                    for endpoint in info.get("endpoints", []):
                        listener, _, hostport = endpoint.partition("://")
                        host, _, port = hostport.rpartition(":")
                        endpoints[listener] = (host.strip("[]"), int(port))
                    alive[int(broker_id)] = Broker(int(broker_id), endpoints, info.get("rack"))
            states: dict[TopicPartition, PartitionState] = {}
            for topic in self.zk_utils.get_children(BROKER_TOPICS_PATH):
                data, _ = self.zk_utils.read_data_maybe_null(f"{BROKER_TOPICS_PATH}/{topic}")
                if not data:
                    continue
                for partition, replicas in json.loads(data)["partitions"].items():
                    leader = replicas[0] if replicas[0] in alive else -1
                    states[TopicPartition(topic, int(partition))] = PartitionState(
                        0, leader, 0, [leader] if leader >= 0 else [], 0, list(replicas),
                        [r for r in replicas if r not in alive])
            # Only partitions this reader put in the cache are its to remove.
            deleted = [tp for tp in self._zk_partitions if tp not in states]
            self._zk_partitions = set(states)
            controller_id = self.zk_utils.get_controller_id()
            self.metadata_cache.update_cache(controller_id if controller_id >= 0 else None, list(alive.values()),
                                             dict(states), deleted)
            led_here = {tp: state for tp, state in states.items() if state.leader == self.local_broker_id}
            new_leaders = self.replica_manager.make_leaders(
                -1, {tp: _leader_and_isr(state) for tp, state in led_here.items()})
            if deleted:
                self.replica_manager.stop_replicas(deleted, delete_partitions=True)
            s.set_attributes({"kafka.controller.id": controller_id, "kafka.brokers.alive": sorted(alive),
                              "kafka.partitions": len(states), "kafka.partitions.led": len(led_here),
                              "kafka.partitions.deleted": len(deleted)})
        self.on_leadership_change({p.topic_partition for p in new_leaders}, set())
        self.on_topics_changed({tp.topic for tp in states} | {tp.topic for tp in deleted})


def _leader_and_isr(state: PartitionState) -> LeaderAndIsrPartitionState:
    return LeaderAndIsrPartitionState(state.controller_epoch, state.leader, state.leader_epoch, list(state.isr),
                                      state.zk_version, list(state.replicas))
