"""Port of core/src/main/scala/kafka/server/metadata/BrokerMetadataPublisher.scala (Kafka 3.9)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from kafka_edu.tracing import span, step
from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v3_9.clients.common.internals.topic import GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.log.log_manager import is_stray_kraft_replica
from kafka_edu.v3_9.metadata.controller.quorum_controller import FaultHandler
from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest
from kafka_edu.v3_9.metadata.image.local_replica_changes import topic_local_changes
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.publisher.metadata_publisher import MetadataPublisher
from kafka_edu.v3_9.metadata.image.topic_delta import TopicDelta

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.coordinator.transaction.transaction_coordinator import TransactionCoordinator
    from kafka_edu.v3_9.core.log.log_manager import LogManager
    from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
    from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
    from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
    from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator import GroupCoordinator

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
                 replica_manager: ReplicaManager, group_coordinator: GroupCoordinator,
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
                                            self.group_coordinator.on_election, self.group_coordinator.on_resignation)
                except Exception as t:
                    self.metadata_publishing_fault_handler.handle_fault(
                        f"Error updating group coordinator with local changes in {delta_name}", t)
                if self.txn_coordinator is not None:
                    try:
                        # And the transaction coordinator which __transaction_state partitions it now leads.
                        self.update_coordinator(new_image, delta, TRANSACTION_STATE_TOPIC_NAME,
                                                self.txn_coordinator.on_election, self.txn_coordinator.on_resignation)
                    except Exception as t:
                        self.metadata_publishing_fault_handler.handle_fault(
                            f"Error updating txn coordinator with local changes in {delta_name}", t)
                try:
                    # Tell the group coordinator about deleted topics: their committed offsets go.
                    deleted_topic_partitions = []
                    for topic_id in topics_delta.deleted_topic_ids():
                        topic_image = topics_delta.image().get_topic(topic_id)
                        deleted_topic_partitions.extend(TopicPartition(topic_image.name, partition_id)
                                                        for partition_id in topic_image.partitions)
                    if deleted_topic_partitions:
                        self.group_coordinator.on_partitions_deleted(deleted_topic_partitions)
                except Exception as t:
                    self.metadata_publishing_fault_handler.handle_fault(
                        f"Error updating group coordinator with deleted partitions in {delta_name}", t)
            # (3.9 then hands the delta to the dynamic config, client quota, SCRAM, delegation token and ACL
            # publishers: not ported.)

            try:
                # The group coordinator sees every image: subscribed topics' metadata feeds its assignments.
                self.group_coordinator.on_new_metadata_image(new_image, delta)
            except Exception as t:
                self.metadata_publishing_fault_handler.handle_fault(
                    f"Error updating group coordinator with local changes in {delta_name}", t)

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

    @step("TX39.elect")
    def update_coordinator(self, image: MetadataImage, delta: MetadataDelta, topic_name: str,
                           election: Callable[[int, int], None],
                           resignation: Callable[[int, int | None], None]) -> None:
        """Elect the coordinator for the partitions of `topic_name` this broker was just made leader of; make it
        resign those it no longer holds, now follows, or whose topic was deleted."""
        topics_delta = delta.topics_delta()
        if topics_delta is not None and topics_delta.topic_was_deleted(topic_name):
            deleted_topic = topics_delta.image().get_topic(topic_name)
            for partition_id, partition in deleted_topic.partitions.items():
                if partition.leader == self.broker_id:
                    resignation(partition_id, partition.leader_epoch)
        topic_delta = get_topic_delta(topic_name, image, delta)
        if topic_delta is not None:
            changes = topic_local_changes(topic_delta, self.broker_id)
            for topic_partition in changes.deletes:
                resignation(topic_partition.partition, None)
            for topic_partition, partition_info in changes.elected_leaders.items():
                election(topic_partition.partition, partition_info.partition.leader_epoch)
            for topic_partition, partition_info in changes.followers.items():
                resignation(topic_partition.partition, partition_info.partition.leader_epoch)

    def initialize_managers(self, new_image: MetadataImage) -> None:
        """Start what waited for the metadata: the log manager (which loads and, after an unclean shutdown,
        recovers the logs now that the topic configs are known), the replica manager, the coordinators."""
        try:
            self.log_manager.startup(self.metadata_cache.get_all_topics(),
                                     is_stray=lambda log_: is_stray_kraft_replica(self.broker_id, new_image.topics,
                                                                                  log_))
        except Exception as t:
            raise self.fatal_fault_handler.handle_fault("Error starting LogManager", t) from t
        try:
            self.replica_manager.startup()
        except Exception as t:
            raise self.fatal_fault_handler.handle_fault("Error starting ReplicaManager", t) from t
        try:
            offsets_topic_partitions = self.config.group_coordinator_config().offsets_topic_partitions()
            self.group_coordinator.startup(
                lambda: self.metadata_cache.num_partitions(GROUP_METADATA_TOPIC_NAME) or offsets_topic_partitions)
        except Exception as t:
            raise self.fatal_fault_handler.handle_fault("Error starting GroupCoordinator", t) from t
        if self.txn_coordinator is not None:
            try:
                transaction_log_num_partitions = self.config.transaction_topic_partitions
                self.txn_coordinator.startup(
                    lambda: self.metadata_cache.num_partitions(TRANSACTION_STATE_TOPIC_NAME)
                    or transaction_log_num_partitions)
            except Exception as t:
                raise self.fatal_fault_handler.handle_fault("Error starting TransactionCoordinator", t) from t

    def finish_initializing_replica_manager(self) -> None:
        try:
            # The high watermark checkpoints start now that the partitions exist.
            self.replica_manager.start_high_watermark_check_point_thread()
        except Exception as t:
            self.metadata_publishing_fault_handler.handle_fault(
                "Error starting high watermark checkpoint thread during startup", t)

    def close(self) -> None:
        if not self.first_publish_future.done():
            self.first_publish_future.set_exception(TimeoutException())
