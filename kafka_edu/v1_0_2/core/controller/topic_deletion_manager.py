"""Port of core/src/main/scala/kafka/controller/TopicDeletionManager.scala (Kafka 1.0.2).

A topic named under `/admin/delete_topics` is deleted by the controller: brokers first learn (UpdateMetadata with
leader -2) that it is going, its replicas go Offline and get StopReplica with delete, and once every replica has
answered, the topic's znodes are removed. A replica on a dead broker makes the topic ineligible until it returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.core.controller.partition_state_machine import PartitionState
from kafka_edu.v1_0_2.core.controller.replica_state_machine import PartitionAndReplica, ReplicaState
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v1_0_2.core.utils.zk_utils import BROKER_TOPICS_PATH, DELETE_TOPICS_PATH

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.controller.controller_event_manager import ControllerEventManager
    from kafka_edu.v1_0_2.core.controller.kafka_controller import KafkaController

TOPIC_CONFIG_PATH = "/config/topics"


class TopicDeletionManager:
    """Which topics are being deleted, which of them must wait, and the steps that move their deletion on."""

    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager) -> None:
        self.controller = controller
        self.event_manager = event_manager
        self.controller_context = controller.controller_context
        self.is_delete_topic_enabled = controller.config.delete_topic_enable
        self.topics_to_be_deleted: set[str] = set()
        self.partitions_to_be_deleted: set[TopicPartition] = set()
        self.topics_ineligible_for_deletion: set[str] = set()
        self.log = Logging("kafka.controller.TopicDeletionManager",
                           f"[Topic Deletion Manager {controller.config.broker_id}], ")

    @step("CT.failover.06")
    def init(self, initial_topics_to_be_deleted: set[str], initial_topics_ineligible_for_deletion: set[str]) -> None:
        if self.is_delete_topic_enabled:
            self.topics_to_be_deleted |= initial_topics_to_be_deleted
            self.partitions_to_be_deleted |= {tp for t in self.topics_to_be_deleted
                                              for tp in self.controller_context.partitions_for_topic(t)}
            self.topics_ineligible_for_deletion |= initial_topics_ineligible_for_deletion & self.topics_to_be_deleted
        else:
            self.log.info("Removing %s since delete topic is disabled", sorted(initial_topics_to_be_deleted))
            for topic in initial_topics_to_be_deleted:
                self.controller.zk_utils.delete_path_recursive(f"{DELETE_TOPICS_PATH}/{topic}")

    @step("CT.failover.12")
    def try_topic_deletion(self) -> None:
        if self.is_delete_topic_enabled:
            self.resume_deletions()

    def reset(self) -> None:
        if self.is_delete_topic_enabled:
            self.topics_to_be_deleted.clear()
            self.partitions_to_be_deleted.clear()
            self.topics_ineligible_for_deletion.clear()

    def enqueue_topics_for_deletion(self, topics: set[str]) -> None:
        if self.is_delete_topic_enabled:
            self.topics_to_be_deleted |= topics
            self.partitions_to_be_deleted |= {tp for t in topics
                                              for tp in self.controller_context.partitions_for_topic(t)}
            self.resume_deletions()

    def resume_deletion_for_topics(self, topics: set[str]) -> None:
        if self.is_delete_topic_enabled:
            topics_to_resume_deletion = topics & self.topics_to_be_deleted
            if topics_to_resume_deletion:
                self.topics_ineligible_for_deletion -= topics_to_resume_deletion
                self.resume_deletions()

    def fail_replica_deletion(self, replicas: set[PartitionAndReplica]) -> None:
        if self.is_delete_topic_enabled:
            replicas_that_failed_to_delete = {r for r in replicas if self.is_topic_queued_up_for_deletion(r.topic)}
            if replicas_that_failed_to_delete:
                topics = {r.topic for r in replicas_that_failed_to_delete}
                self.log.debug("Deletion failed for replicas %s. Halting deletion for topics %s",
                               sorted(replicas_that_failed_to_delete), sorted(topics))
                self.controller.replica_state_machine.handle_state_changes(replicas_that_failed_to_delete,
                                                                           ReplicaState.ReplicaDeletionIneligible)
                self.mark_topic_ineligible_for_deletion(topics)
                self.resume_deletions()

    def mark_topic_ineligible_for_deletion(self, topics: set[str]) -> None:
        if self.is_delete_topic_enabled:
            new_topics_to_halt_deletion = self.topics_to_be_deleted & topics
            self.topics_ineligible_for_deletion |= new_topics_to_halt_deletion
            if new_topics_to_halt_deletion:
                self.log.info("Halted deletion of topics %s", ",".join(sorted(new_topics_to_halt_deletion)))

    def is_topic_ineligible_for_deletion(self, topic: str) -> bool:
        return topic in self.topics_ineligible_for_deletion if self.is_delete_topic_enabled else True

    def is_topic_deletion_in_progress(self, topic: str) -> bool:
        if not self.is_delete_topic_enabled:
            return False
        return self.controller.replica_state_machine.is_at_least_one_replica_in_deletion_started_state(topic)

    def is_partition_to_be_deleted(self, topic_partition: TopicPartition) -> bool:
        return self.is_delete_topic_enabled and topic_partition in self.partitions_to_be_deleted

    def is_topic_queued_up_for_deletion(self, topic: str) -> bool:
        return self.is_delete_topic_enabled and topic in self.topics_to_be_deleted

    def complete_replica_deletion(self, replicas: set[PartitionAndReplica]) -> None:
        successfully_deleted_replicas = {r for r in replicas if self.is_topic_queued_up_for_deletion(r.topic)}
        self.log.debug("Deletion successfully completed for replicas %s", sorted(successfully_deleted_replicas))
        self.controller.replica_state_machine.handle_state_changes(successfully_deleted_replicas,
                                                                   ReplicaState.ReplicaDeletionSuccessful)
        self.resume_deletions()

    def mark_topic_for_deletion_retry(self, topic: str) -> None:
        """Replicas that could not be deleted go back to Offline, to be deleted again."""
        failed_replicas = self.controller.replica_state_machine.replicas_in_state(
            topic, ReplicaState.ReplicaDeletionIneligible)
        self.log.info("Retrying delete topic for topic %s since replicas %s were not successfully deleted", topic,
                      sorted(failed_replicas))
        self.controller.replica_state_machine.handle_state_changes(failed_replicas, ReplicaState.OfflineReplica)

    def complete_delete_topic(self, topic: str) -> None:
        controller = self.controller
        # Stop watching first: a topic created again under the same name must look new.
        controller.deregister_partition_modifications_listener(topic)
        replicas_for_deleted_topic = controller.replica_state_machine.replicas_in_state(
            topic, ReplicaState.ReplicaDeletionSuccessful)
        controller.replica_state_machine.handle_state_changes(replicas_for_deleted_topic,
                                                              ReplicaState.NonExistentReplica)
        partitions_for_deleted_topic = self.controller_context.partitions_for_topic(topic)
        controller.partition_state_machine.handle_state_changes(partitions_for_deleted_topic,
                                                                PartitionState.OfflinePartition)
        controller.partition_state_machine.handle_state_changes(partitions_for_deleted_topic,
                                                                PartitionState.NonExistentPartition)
        self.topics_to_be_deleted.discard(topic)
        self.partitions_to_be_deleted = {tp for tp in self.partitions_to_be_deleted if tp.topic != topic}
        zk_utils = controller.zk_utils
        zk_utils.delete_path_recursive(f"{BROKER_TOPICS_PATH}/{topic}")
        zk_utils.delete_path_recursive(f"{TOPIC_CONFIG_PATH}/{topic}")
        zk_utils.delete_path_recursive(f"{DELETE_TOPICS_PATH}/{topic}")
        self.controller_context.remove_topic(topic)

    def on_topic_deletion(self, topics: set[str]) -> None:
        self.log.info("Topic deletion callback for %s", ",".join(sorted(topics)))
        # Brokers stop serving the topic before its replicas are deleted.
        partitions = {tp for t in topics for tp in self.controller_context.partitions_for_topic(t)}
        self.controller.send_update_metadata_request(self.controller_context.live_or_shutting_down_broker_ids,
                                                     partitions)
        for topic in sorted(topics):
            self.on_partition_deletion(self.controller_context.partitions_for_topic(topic))

    def start_replica_deletion(self, replicas_for_topics_to_be_deleted: set[PartitionAndReplica]) -> None:
        rsm = self.controller.replica_state_machine
        for topic in sorted({r.topic for r in replicas_for_topics_to_be_deleted}):
            alive_replicas_for_topic = {r for r in rsm.all_live_replicas() if r.topic == topic}
            dead_replicas_for_topic = {r for r in replicas_for_topics_to_be_deleted if r.topic == topic} - \
                alive_replicas_for_topic
            successfully_deleted_replicas = rsm.replicas_in_state(topic, ReplicaState.ReplicaDeletionSuccessful)
            replicas_for_deletion_retry = alive_replicas_for_topic - successfully_deleted_replicas
            rsm.handle_state_changes(dead_replicas_for_topic, ReplicaState.ReplicaDeletionIneligible)
            # Followers stop fetching before their logs are deleted.
            rsm.handle_state_changes(replicas_for_deletion_retry, ReplicaState.OfflineReplica)
            self.log.debug("Deletion started for replicas %s", sorted(replicas_for_deletion_retry))
            rsm.handle_state_changes(replicas_for_deletion_retry, ReplicaState.ReplicaDeletionStarted,
                                     self._stop_replica_callback)
            if dead_replicas_for_topic:
                self.log.debug("Dead Replicas (%s) found for topic %s", sorted(dead_replicas_for_topic), topic)
                self.mark_topic_ineligible_for_deletion({topic})

    def _stop_replica_callback(self, response_and_replica: tuple[object, int]) -> None:
        """Runs on a send thread: the answer is handled as an event, on the controller's thread."""
        response, replica_id = response_and_replica
        self.event_manager.put(self.controller.topic_deletion_stop_replica_response_received(response, replica_id))

    def on_partition_deletion(self, partitions_to_be_deleted: set[TopicPartition]) -> None:
        self.log.info("Partition deletion callback for %s", ",".join(map(str, sorted(partitions_to_be_deleted))))
        context = self.controller_context
        replicas_per_partition = {PartitionAndReplica(tp.topic, tp.partition, r) for tp in partitions_to_be_deleted
                                  for r in context.partition_replica_assignment.get(tp, [])}
        self.start_replica_deletion(replicas_per_partition)

    def resume_deletions(self) -> None:
        rsm = self.controller.replica_state_machine
        topics_queued_for_deletion = set(self.topics_to_be_deleted)
        if topics_queued_for_deletion:
            self.log.info("Handling deletion for topics %s", ",".join(sorted(topics_queued_for_deletion)))
        for topic in sorted(topics_queued_for_deletion):
            if rsm.are_all_replicas_for_topic_deleted(topic):
                self.complete_delete_topic(topic)
                self.log.info("Deletion of topic %s successfully completed", topic)
            elif rsm.is_at_least_one_replica_in_deletion_started_state(topic):
                self.log.debug("Deletion for replicas %s for topic %s in progress",
                               sorted(rsm.replicas_in_state(topic, ReplicaState.ReplicaDeletionStarted)), topic)
            elif rsm.is_any_replica_in_state(topic, ReplicaState.ReplicaDeletionIneligible):
                self.mark_topic_for_deletion_retry(topic)
            if self.is_topic_eligible_for_deletion(topic):
                self.log.info("Deletion of topic %s (re)started", topic)
                self.on_topic_deletion({topic})
            elif self.is_topic_ineligible_for_deletion(topic):
                self.log.info("Not retrying deletion of topic %s at this time since it is marked ineligible for "
                              "deletion", topic)

    def is_topic_eligible_for_deletion(self, topic: str) -> bool:
        return topic in self.topics_to_be_deleted and not self.is_topic_deletion_in_progress(topic) \
            and not self.is_topic_ineligible_for_deletion(topic)
