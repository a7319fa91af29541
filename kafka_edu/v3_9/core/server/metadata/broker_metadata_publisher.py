"""Port of core/src/main/scala/kafka/server/metadata/BrokerMetadataPublisher.scala (Kafka 3.9)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import span
from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import GROUP_METADATA_TOPIC_NAME
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.metadata.controller.quorum_controller import FaultHandler
from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest
from kafka_edu.v3_9.metadata.image.local_replica_changes import topic_local_changes
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.publisher.metadata_publisher import MetadataPublisher
from kafka_edu.v3_9.metadata.image.topic_delta import TopicDelta

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator
    from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_coordinator import TransactionCoordinator
    from kafka_edu.v1_0_2.core.log.log_manager import LogManager
    from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
    from kafka_edu.v3_9.core.server.kraft_replica_manager_bridge import KRaftReplicaManager
    from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache

log = logging.getLogger("kafka.server.metadata.BrokerMetadataPublisher")


def get_topic_delta(topic_name: str, new_image: MetadataImage, delta: MetadataDelta) -> TopicDelta | None:
    """The delta of the topic of this name in the new image, if it changed. A topic deleted and re-created under
    the same name shows up here as the new one only: the deletion is in the delta's deleted topic ids."""
    topic_image = new_image.topics.get_topic(topic_name)
    topics_delta = delta.topics_delta()
    if topic_image is None or topics_delta is None:
        return None
    return topics_delta.changed_topic(topic_image.id)


class BrokerMetadataPublisher(MetadataPublisher):
    """Applies each new metadata image to the broker: the metadata cache first, then (once) the managers'
    startup, then the partitions this broker leads, follows or lost, then the group coordinator.

    Runs on the MetadataLoader's thread, which calls it only once the loader has caught up with the high watermark:
    the first call carries the whole image (a delta from the empty image).
    """

    def __init__(self, config: KafkaConfig, metadata_cache: KRaftMetadataCache, log_manager: LogManager,
                 replica_manager: KRaftReplicaManager, group_coordinator: GroupCoordinator,
                 txn_coordinator: TransactionCoordinator | None = None,
                 fatal_fault_handler: FaultHandler | None = None,
                 metadata_publishing_fault_handler: FaultHandler | None = None) -> None:
        self.config = config
        self.metadata_cache = metadata_cache
        self.log_manager = log_manager
        self.replica_manager = replica_manager
        self.group_coordinator = group_coordinator
        self.txn_coordinator = txn_coordinator
        # 3.9's fatal handler stops the process; this one raises, and the first publish future fails with it
        self.fatal_fault_handler = fatal_fault_handler or FaultHandler("fatal")
        self.metadata_publishing_fault_handler = metadata_publishing_fault_handler or FaultHandler(
            "metadata publishing")
        self.broker_id: int = config.node_id
        self.first_publish = True
        """True until the first image has been published."""
        self.first_publish_future: Future[None] = Future()
        """Completed by the first publish: BrokerServer waits for it before it serves requests."""

    def name(self) -> str:
        return "BrokerMetadataPublisher"

    @span("BrokerMetadataPublisher.onMetadataUpdate")
    def on_metadata_update(self, delta: MetadataDelta, new_image: MetadataImage, manifest: LoaderManifest) -> None:
        highest_offset_and_epoch = new_image.highest_offset_and_epoch()
        delta_name = (f"initial MetadataDelta up to {highest_offset_and_epoch.offset}" if self.first_publish
                      else f"MetadataDelta up to {highest_offset_and_epoch.offset}")
        failure: BaseException | None = None
        try:
            log.debug("Publishing delta %s with highest offset %s", delta, highest_offset_and_epoch)
            # The cache first: ReplicaManager looks new leaders' endpoints up in it.
            self.metadata_cache.set_image(new_image)
            metadata_version_log_msg = f"metadata.version {new_image.features.metadata_version}"
            if self.first_publish:
                log.info("Publishing initial metadata at offset %s with %s.", highest_offset_and_epoch,
                         metadata_version_log_msg)
                # The managers start once the metadata has caught up (after the cache has it).
                self.initialize_managers(new_image)
            else:
                log.debug("Publishing metadata at offset %s with %s.", highest_offset_and_epoch,
                          metadata_version_log_msg)

            topics_delta = delta.topics_delta()
            if topics_delta is not None:
                try:
                    # Tell the replica manager what changed for this broker's partitions.
                    self.replica_manager.apply_delta(topics_delta, new_image)
                except Exception as t:
                    self.metadata_publishing_fault_handler.handle_fault(
                        f"Error applying topics delta in {delta_name}", t)
                try:
                    # Tell the group coordinator which offsets partitions it now leads, or no longer leads.
                    self.update_coordinator(new_image, delta, GROUP_METADATA_TOPIC_NAME,
                                            self._group_election, self._group_resignation)
                except Exception as t:
                    self.metadata_publishing_fault_handler.handle_fault(
                        f"Error updating group coordinator with local changes in {delta_name}", t)
                # (3.9 does the same for the transaction coordinator and __transaction_state, which this port's
                # transaction coordinator does not keep.)
                try:
                    # Tell the group coordinator about deleted topics: their committed offsets go.
                    deleted_topic_partitions = []
                    for topic_id in topics_delta.deleted_topic_ids():
                        topic_image = topics_delta.image().get_topic(topic_id)
                        deleted_topic_partitions.extend(TopicPartition(topic_image.name, partition_id)
                                                        for partition_id in topic_image.partitions)
                    if deleted_topic_partitions:
                        self.group_coordinator.handle_deleted_partitions(deleted_topic_partitions)
                except Exception as t:
                    self.metadata_publishing_fault_handler.handle_fault(
                        f"Error updating group coordinator with deleted partitions in {delta_name}", t)
            # (3.9 then hands the delta to the dynamic config, client quota, SCRAM, delegation token and ACL
            # publishers: not ported.)

            if self.first_publish:
                self.finish_initializing_replica_manager()
        except Exception as t:
            failure = t
            self.metadata_publishing_fault_handler.handle_fault(
                f"Uncaught exception while publishing broker metadata from {delta_name}", t)
        finally:
            self.first_publish = False
            if not self.first_publish_future.done():
                if failure is not None:
                    self.first_publish_future.set_exception(failure)
                else:
                    self.first_publish_future.set_result(None)

    def update_coordinator(self, image: MetadataImage, delta: MetadataDelta, topic_name: str,
                           election: Callable[[int, int, Any], None],
                           resignation: Callable[[int, int | None, Any], None]) -> None:
        """Elect the coordinator for the partitions of `topic_name` this broker now leads; make it resign those it
        no longer leads, or no longer holds, or whose topic was deleted.

        3.9's coordinator ignores an election for a partition it already owns, and an ISR change on a partition
        this broker leads is a "leader" change again; the 1.0.2 coordinator here would reload the partition, so
        each callback is also given the partition as the delta's base image had it (None if new) to tell.
        """
        topics_delta = delta.topics_delta()
        if topics_delta is not None and topics_delta.topic_was_deleted(topic_name):
            deleted_topic = topics_delta.image().get_topic(topic_name)
            for partition_id, partition in deleted_topic.partitions.items():
                if partition.leader == self.broker_id:
                    resignation(partition_id, partition.leader_epoch, partition)
        topic_delta = get_topic_delta(topic_name, image, delta)
        if topic_delta is not None:
            changes = topic_local_changes(topic_delta, self.broker_id)
            previous = topic_delta.image().partitions
            for topic_partition in changes.deletes:
                resignation(topic_partition.partition, None, previous.get(topic_partition.partition))
            for topic_partition, partition_info in changes.leaders.items():
                election(topic_partition.partition, partition_info.partition.leader_epoch,
                         previous.get(topic_partition.partition))
            for topic_partition, partition_info in changes.followers.items():
                resignation(topic_partition.partition, partition_info.partition.leader_epoch,
                            previous.get(topic_partition.partition))

    def _group_election(self, partition_index: int, leader_epoch: int, previous: Any) -> None:
        if previous is None or previous.leader != self.broker_id:  # newly led: load its groups
            self.group_coordinator.handle_group_immigration(partition_index)

    def _group_resignation(self, partition_index: int, leader_epoch: int | None, previous: Any) -> None:
        if previous is not None and previous.leader == self.broker_id:  # led until now: unload its groups
            self.group_coordinator.handle_group_emigration(partition_index)

    def initialize_managers(self, new_image: MetadataImage) -> None:
        """Start what waited for the metadata: the log manager's background tasks (the 1.0.2 LogManager loaded
        and recovered its logs when it was built), the replica manager, the coordinators."""
        try:
            self.log_manager.startup()
        except Exception as t:
            raise self.fatal_fault_handler.handle_fault("Error starting LogManager", t) from t
        try:
            self.replica_manager.startup()
        except Exception as t:
            raise self.fatal_fault_handler.handle_fault("Error starting ReplicaManager", t) from t
        try:
            self.group_coordinator.startup()
        except Exception as t:
            raise self.fatal_fault_handler.handle_fault("Error starting GroupCoordinator", t) from t
        if self.txn_coordinator is not None:
            try:
                self.txn_coordinator.startup()
            except Exception as t:
                raise self.fatal_fault_handler.handle_fault("Error starting TransactionCoordinator", t) from t

    def finish_initializing_replica_manager(self) -> None:
        try:
            # The high watermark checkpoints start now that the partitions exist.
            self.replica_manager.start_high_water_marks_check_point_thread()
        except Exception as t:
            self.metadata_publishing_fault_handler.handle_fault(
                "Error starting high watermark checkpoint thread during startup", t)

    def close(self) -> None:
        if not self.first_publish_future.done():
            self.first_publish_future.set_exception(TimeoutException())
