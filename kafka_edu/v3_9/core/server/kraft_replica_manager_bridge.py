"""Project-own module, not a port: the 1.0.2-based ReplicaManager the KRaft broker runs until the switch to
Kafka 3.9's ReplicaManager (replica_manager.py); it carries core/src/main/scala/kafka/server/ReplicaManager.scala
(Kafka 3.9)'s applyDelta over the 1.0.2 ReplicaManager, with Partition.scala (Kafka 3.9)'s ISR changes through
AlterPartition over the 1.0.2 Partition.

In KRaft mode no controller sends LeaderAndIsr or StopReplica: the broker reads each committed metadata delta and
works out itself which partitions it now leads, follows or must delete (LocalReplicaChanges). Those changes are
carried out by the 1.0.2 machinery, `make_leaders` and `make_followers`, whose spans keep their 1.0.2 origin. And a
leader no longer writes an ISR change to ZooKeeper: it proposes it to the controller (AlterPartitionManager) and
adopts it once committed.
"""

from __future__ import annotations

import logging
import uuid
from concurrent.futures import Future
from dataclasses import dataclass

from kio.static.primitive import i32, i64

from kafka_edu.tracing import event, span
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaStorageException
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.cluster.partition import LeaderAndIsrPartitionState, Partition
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import LogManager
from kafka_edu.v1_0_2.core.server.broker_topic_stats import BrokerTopicStats
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.server.replica_manager import LogReadResult, ReplicaManager
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.server.alter_partition_manager import (
    AlterPartitionManager,
    BrokerState,
    TopicIdPartition,
    error_of,
)
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.metadata.image.local_replica_changes import PartitionInfo, local_changes
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.metadata.metadata.partition_registration import NO_LEADER, PartitionRegistration

log = logging.getLogger("kafka.server.ReplicaManager")
state_change_log = logging.getLogger("state.change.logger")

# What 1.0.2's make_leaders / make_followers take as the controller that sent LeaderAndIsr: in KRaft the change
# comes from the metadata log, and 3.9's toLeaderAndIsrPartitionState sets no controller epoch either.
NO_CONTROLLER_ID = -1
NO_CONTROLLER_EPOCH = -1


def to_leader_and_isr_partition_state(partition: PartitionRegistration, is_new: bool) -> LeaderAndIsrPartitionState:
    """PartitionRegistration.toLeaderAndIsrPartitionState: the registration as a LeaderAndIsr request would have
    carried it, so the 1.0.2 Partition can apply it; the partition epoch stands where the znode version stood."""
    return LeaderAndIsrPartitionState(controller_epoch=NO_CONTROLLER_EPOCH, leader=partition.leader,
                                      leader_epoch=partition.leader_epoch, isr=list(partition.isr),
                                      zk_version=partition.partition_epoch, replicas=list(partition.replicas),
                                      is_new=is_new)


# -- the partition ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PendingPartitionChange:
    """3.9's PendingExpandIsr / PendingShrinkIsr: an ISR the leader proposed and the controller has not answered.

    Compared by identity: an answer is for this very proposal, not for an equal later one.
    """

    isr: frozenset[int]
    last_committed_isr: frozenset[int]
    sent_leader_and_isr: LeaderAndIsr

    @property
    def is_expand(self) -> bool:
        return self.isr > self.last_committed_isr


class KRaftPartition(Partition):
    """A 1.0.2 Partition whose ISR changes go through the controller, as 3.9's Partition does in KRaft mode.

    While a change is pending the committed ISR (`in_sync_replicas`) stays as it was, and no other change is
    proposed. The high watermark needs nothing more: 1.0.2 already counts every replica that caught up recently,
    so a follower joining counts before the controller commits, and one leaving keeps counting until it does.
    """

    def __init__(self, topic: str, partition_id: int, replica_manager: KRaftReplicaManager,
                 topic_id: uuid.UUID | None) -> None:
        super().__init__(topic, partition_id, replica_manager)
        self.topic_id = topic_id
        self.partition_state_pending: PendingPartitionChange | None = None
        """The ISR change sent to the controller and not answered yet (3.9: partitionState.isInflight)."""

    def log_config(self) -> LogConfig:
        """A new log takes its topic's overrides from the metadata image (3.9's ConfigRepository), over the
        broker's defaults."""
        overrides = self.replica_manager.metadata_cache.topic_config(self.topic)
        return LogConfig.from_props(overrides, defaults=self.log_manager.default_config)

    # -- leadership: the metadata overrides whatever is pending -----------------------------------------------------

    def make_leader(self, controller_id: int, partition_state: LeaderAndIsrPartitionState,
                    correlation_id: int = -1) -> bool:
        with self.leader_isr_update_lock:
            self.partition_state_pending = None  # an answer to it is stale now: ignored when it comes
        return super().make_leader(controller_id, partition_state, correlation_id)

    def make_follower(self, controller_id: int, partition_state: LeaderAndIsrPartitionState,
                      correlation_id: int = -1) -> bool:
        with self.leader_isr_update_lock:
            self.partition_state_pending = None
        return super().make_follower(controller_id, partition_state, correlation_id)

    # -- ISR changes ------------------------------------------------------------------------------------------------

    def maybe_expand_isr(self, replica_id: int, log_read_result: LogReadResult) -> bool:
        """3.9's canAddReplicaToIsr: nothing while a change is in flight, and only a replica that may join the ISR
        (its broker neither fenced nor shutting down); otherwise 1.0.2's expansion."""
        with self.leader_isr_update_lock:
            if self.partition_state_pending is not None or not self.is_replica_isr_eligible(replica_id):
                leader_replica = self.leader_replica_if_local()
                return leader_replica is not None and self.maybe_increment_leader_hw(
                    leader_replica, log_read_result.fetch_time_ms)
            return super().maybe_expand_isr(replica_id, log_read_result)

    def maybe_shrink_isr(self, replica_max_lag_time_ms: int) -> None:
        if self.partition_state_pending is not None:
            return  # the pending change's answer comes first
        super().maybe_shrink_isr(replica_max_lag_time_ms)

    def is_replica_isr_eligible(self, follower_replica_id: int) -> bool:
        """In KRaft mode a replica joins the ISR only if its broker is not fenced and not in controlled shutdown.
        (3.9 also compares the broker epoch a follower's Fetch carries with the image's; 1.0.2's Fetch carries
        none, which 3.9 treats as "skip the check".)"""
        cache = self.replica_manager.metadata_cache
        return not cache.is_broker_fenced(follower_replica_id) and not cache.is_broker_shutting_down(
            follower_replica_id)

    def update_isr(self, new_isr: set[int]) -> None:
        """3.9's prepareIsrExpand / prepareIsrShrink: propose the new ISR to the controller instead of writing
        ZooKeeper; it is adopted when the controller answers (`handle_alter_partition_update`)."""
        if self.partition_state_pending is not None:
            return
        proposed_isr_state = PendingPartitionChange(
            frozenset(new_isr), frozenset(self.in_sync_replicas),
            LeaderAndIsr(self.local_broker_id, self.leader_epoch, sorted(new_isr), self.zk_version))
        self.partition_state_pending = proposed_isr_state
        self.submit_alter_partition(proposed_isr_state)

    def add_broker_epoch_to_isr(self, isr: list[int]) -> tuple[BrokerState, ...]:
        """The ISR with each member's broker epoch: this broker's own, -1 for the followers (their 1.0.2 Fetch
        requests carry none, and -1 tells the controller to skip the check)."""
        local_broker_epoch = self.replica_manager.alter_partition_manager.broker_epoch_supplier()
        return tuple(BrokerState(broker_id=i32(broker_id),
                                 broker_epoch=i64(local_broker_epoch if broker_id == self.local_broker_id else -1))
                     for broker_id in isr)

    @span("Partition.submitAlterPartition")
    def submit_alter_partition(self, proposed_isr_state: PendingPartitionChange) -> Future[LeaderAndIsr]:
        log.debug("Submitting ISR state change %s", proposed_isr_state)
        future = self.replica_manager.alter_partition_manager.submit(
            TopicIdPartition(self.topic_id or uuid.UUID(int=0), self.topic_partition),
            proposed_isr_state.sent_leader_and_isr, self.controller_epoch,
            self.add_broker_epoch_to_isr(proposed_isr_state.sent_leader_and_isr.isr))

        def when_complete(done: Future[LeaderAndIsr]) -> None:
            hw_incremented = False
            should_retry = False
            with self.leader_isr_update_lock:
                if self.partition_state_pending is not proposed_isr_state:
                    # Leadership or the ISR changed through the metadata meanwhile: this answer is out of date.
                    log.debug("Ignoring failed ISR update to %s since we have already updated state",
                              proposed_isr_state)
                elif done.exception() is None:
                    hw_incremented = self.handle_alter_partition_update(proposed_isr_state, done.result())
                else:
                    should_retry = self.handle_alter_partition_error(proposed_isr_state,
                                                                     error_of(done.exception()))
            if hw_incremented:
                self.try_complete_delayed_requests()
            # Outside the lock: completing may move the high watermark and complete delayed requests.
            if should_retry:
                self.submit_alter_partition(proposed_isr_state)

        future.add_done_callback(when_complete)
        return future

    def handle_alter_partition_error(self, proposed_isr_state: PendingPartitionChange, error: Errors) -> bool:
        """True if the same proposal is to be sent again."""
        if error in (Errors.OPERATION_NOT_ATTEMPTED, Errors.INELIGIBLE_REPLICA):
            # The controller says it did not apply it, and that the partition epoch is right: back to committed.
            self.partition_state_pending = None
            log.info("Failed to alter partition to %s since the controller rejected the request with %s. Partition "
                     "state has been reset to the latest committed state %s.", proposed_isr_state, error.name,
                     sorted(self.in_sync_replicas))
            return False
        if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_ID, Errors.FENCED_LEADER_EPOCH,
                     Errors.INVALID_UPDATE_VERSION, Errors.INVALID_REQUEST, Errors.NEW_LEADER_ELECTED):
            # The partition is behind the metadata (or, NEW_LEADER_ELECTED, applied but moved away): it stays
            # pending until the metadata that explains it arrives and overrides it.
            log.debug("Failed to alter partition to %s with %s; awaiting the latest metadata.", proposed_isr_state,
                      error.name)
            return False
        log.warning("Failed to update ISR to %s due to unexpected %s. Retrying.", proposed_isr_state, error.name)
        return True

    def handle_alter_partition_update(self, proposed_isr_state: PendingPartitionChange,
                                      leader_and_isr: LeaderAndIsr) -> bool:
        """The controller committed an ISR: adopt it, with its partition epoch. True if the high watermark moved."""
        if leader_and_isr.leader_epoch != self.leader_epoch:
            log.debug("Ignoring new ISR %s since we have a stale leader epoch %d.", leader_and_isr, self.leader_epoch)
            return False
        if leader_and_isr.zk_version < self.zk_version:
            log.debug("Ignoring new ISR %s since we have a newer version %d.", leader_and_isr, self.zk_version)
            return False
        # A partition epoch equal to ours means the controller had nothing to change: committed all the same.
        new_isr = set(leader_and_isr.isr)
        new_version = leader_and_isr.zk_version
        event("isr.change", self, new_isr=new_isr, new_version=new_version)
        self.in_sync_replicas = new_isr
        self.zk_version = new_version
        self.partition_state_pending = None
        log.info("ISR updated to %s%s and version updated to %d", ",".join(map(str, sorted(new_isr))),
                 " (under-min-isr)" if self.is_under_min_isr() else "", new_version)
        leader_replica = self.leader_replica_if_local()
        return leader_replica is not None and self.maybe_increment_leader_hw(leader_replica)


# -- the manager ------------------------------------------------------------------------------------------------------


class KRaftReplicaManager(ReplicaManager):
    """The 1.0.2 ReplicaManager driven by metadata deltas instead of controller requests (3.9's applyDelta), with
    no ZooKeeper session: ISR changes go to the controller through the AlterPartitionManager."""

    def __init__(self, config: KafkaConfig, scheduler: KafkaScheduler, log_manager: LogManager,
                 is_shutting_down: AtomicBoolean, metadata_cache: KRaftMetadataCache,
                 log_dir_failure_channel: LogDirFailureChannel, broker_topic_stats: BrokerTopicStats,
                 alter_partition_manager: AlterPartitionManager) -> None:
        super().__init__(config, scheduler, log_manager, is_shutting_down, metadata_cache, log_dir_failure_channel,
                         broker_topic_stats, zk_utils=None)
        self.metadata_cache: KRaftMetadataCache = metadata_cache
        self.alter_partition_manager = alter_partition_manager
        self.is_in_controlled_shutdown = False
        """Set once the broker asked to shut down: followers without a leader or out of the ISR stop fetching."""

    def startup(self) -> None:
        """3.9: only ISR expiration; the high watermark checkpoints start after the first metadata publish
        (BrokerMetadataPublisher), and ISR changes need no ZooKeeper propagation task."""
        # A follower may lag for up to 1.5 x replica.lag.time.max.ms before the check below notices.
        self.scheduler.schedule("isr-expiration", self.maybe_shrink_isr, period=self.config.replica_lag_time_max_ms / 2)

    def begin_controlled_shutdown(self) -> None:
        self.is_in_controlled_shutdown = True

    def get_or_create_partition(self, topic_partition: TopicPartition) -> Partition:
        """1.0.2's getOrCreatePartition, making KRaft partitions (the topic id from the metadata cache)."""
        partition = self.all_partitions.get(topic_partition)
        if partition is None:
            topic_id = self.metadata_cache.get_topic_id(topic_partition.topic)
            partition = KRaftPartition(topic_partition.topic, topic_partition.partition, self, topic_id)
            self.all_partitions[topic_partition] = partition
        return partition

    def get_or_create_partition_of_topic(self, topic_partition: TopicPartition, delta: TopicsDelta,
                                         topic_id: uuid.UUID) -> tuple[Partition, bool] | None:
        """3.9's getOrCreatePartition(tp, delta, topicId) (an overload of 1.0.2's in Scala): the partition and
        whether it was created now. A partition of a topic of the same name but another id is an error: the old
        topic's replicas were deleted earlier in the same delta."""
        partition = self.all_partitions.get(topic_partition)
        if partition is not None:
            partition_topic_id = getattr(partition, "topic_id", None)
            if partition_topic_id is not None and partition_topic_id != topic_id:
                raise IllegalStateException(f"Topic {topic_partition} exists, but its ID is {partition_topic_id}, "
                                            f"not {topic_id} as expected")
            return partition, False
        if topic_id in delta.image().topics_by_id:
            state_change_log.error("Expected partition %s with topic id %s to exist, but it was missing. Creating...",
                                   topic_partition, topic_id)
        else:
            state_change_log.info("Creating new partition %s with topic id %s.", topic_partition, topic_id)
        partition = KRaftPartition(topic_partition.topic, topic_partition.partition, self, topic_id)
        self.all_partitions[topic_partition] = partition
        return partition, True

    def mark_partition_offline(self, topic_partition: TopicPartition) -> None:
        """The 1.0.2 port has no offline partitions: one whose local replica could not be created is dropped, as
        become_leader_or_follower does."""
        self.all_partitions.pop(topic_partition, None)

    # -- applyDelta -------------------------------------------------------------------------------------------------

    def apply_delta(self, delta: TopicsDelta, new_image: MetadataImage) -> None:
        """Carry out what a topics delta means for this broker: delete the replicas it lost, then lead or follow.

        The metadata cache must hold `new_image` already (BrokerMetadataPublisher sets it first): a new follower
        looks its leader's endpoint up there.
        """
        # Worked out before taking the lock.
        changes = local_changes(delta, self.config.node_id)
        with (span("ReplicaManager.applyDelta", self, new_image=new_image, changes=changes),
              self.replica_state_change_lock):
            # Deletes first: a partition of a topic re-created under the same name may be created below.
            if changes.deletes:
                state_change_log.info("Deleting %d partition(s).", len(changes.deletes))
                for topic_partition, e in self.stop_partitions({tp: True for tp in changes.deletes}).items():
                    if isinstance(e, KafkaStorageException):
                        state_change_log.error("Unable to delete replica %s because the local replica for the "
                                               "partition is in an offline log directory", topic_partition)
                    else:
                        state_change_log.error("Unable to delete replica %s because we got an unexpected %s "
                                               "exception: %s", topic_partition, type(e).__name__, e)
            if changes.leaders or changes.followers:
                changed_partitions: set[Partition] = set()
                if changes.leaders:
                    self.apply_local_leaders_delta(changed_partitions, new_image, delta, changes.leaders)
                if changes.followers:
                    self.apply_local_followers_delta(changed_partitions, new_image, delta, changes.followers)
                # (3.9's maybeAddLogDirFetchers moves replicas between log dirs: this port has one log dir.)
                self.replica_fetcher_manager.shutdown_idle_fetcher_threads()

    def apply_local_leaders_delta(self, changed_partitions: set[Partition], new_image: MetadataImage,
                                  delta: TopicsDelta, local_leaders: dict[TopicPartition, PartitionInfo]) -> None:
        state_change_log.info("Transitioning %d partition(s) to local leaders.", len(local_leaders))
        partition_states = self._partition_states(delta, local_leaders)
        response_map: dict[TopicPartition, Errors] = {}
        # 1.0.2's makeLeaders: stop fetching them, then lead (a partition led already only takes the new ISR).
        self.make_leaders(NO_CONTROLLER_ID, partition_states, NO_CONTROLLER_EPOCH, response_map=response_map)
        self._collect_changed(partition_states, response_map, changed_partitions)

    def apply_local_followers_delta(self, changed_partitions: set[Partition], new_image: MetadataImage,
                                    delta: TopicsDelta, local_followers: dict[TopicPartition, PartitionInfo]) -> None:
        state_change_log.info("Transitioning %d partition(s) to local followers.", len(local_followers))
        partition_states = self._partition_states(delta, local_followers)
        response_map: dict[TopicPartition, Errors] = {}
        # 1.0.2's makeFollowers: the log is created even when the leader is not alive (its high watermark is
        # checkpointed); a new leader gets a fetcher toward its endpoint on the inter-broker listener.
        self.make_followers(NO_CONTROLLER_ID, NO_CONTROLLER_EPOCH, partition_states, -1, response_map)
        self._collect_changed(partition_states, response_map, changed_partitions)
        if self.is_in_controlled_shutdown:
            # Shutting down: a replica with no leader, or out of the ISR, stops here rather than fetch again.
            partitions_to_stop = {tp: False for tp, info in local_followers.items() if tp in partition_states and (
                info.partition.leader == NO_LEADER or self.local_broker_id not in info.partition.isr)}
            if partitions_to_stop:
                self.stop_partitions(partitions_to_stop)
                state_change_log.info("Stopped fetchers as part of controlled shutdown for %d partitions",
                                      len(partitions_to_stop))

    def _partition_states(self, delta: TopicsDelta, local_changes_: dict[TopicPartition, PartitionInfo]
                          ) -> dict[TopicPartition, LeaderAndIsrPartitionState]:
        partition_states = {}
        for topic_partition, info in local_changes_.items():
            partition_and_is_new = self.get_or_create_partition_of_topic(topic_partition, delta, info.topic_id)
            if partition_and_is_new is not None:
                _, is_new = partition_and_is_new
                partition_states[topic_partition] = to_leader_and_isr_partition_state(info.partition, is_new)
        return partition_states

    def _collect_changed(self, partition_states: dict[TopicPartition, LeaderAndIsrPartitionState],
                         response_map: dict[TopicPartition, Errors], changed_partitions: set[Partition]) -> None:
        for topic_partition in partition_states:
            partition = self.all_partitions.get(topic_partition)
            if response_map.get(topic_partition) == Errors.KAFKA_STORAGE_ERROR or partition is None \
                    or partition.get_replica() is None:
                state_change_log.info("Skipped the state change for %s due to a storage error", topic_partition)
                self.mark_partition_offline(topic_partition)
            else:
                changed_partitions.add(partition)

    @span("ReplicaManager.stopPartitions")
    def stop_partitions(self, partitions_to_stop: dict[TopicPartition, bool]) -> dict[TopicPartition, BaseException]:
        """Stop fetching these partitions, then stop each replica, deleting its log when its value is True;
        returns the failures by partition."""
        # First stop fetchers for all partitions.
        self.replica_fetcher_manager.remove_fetcher_for_partitions(set(partitions_to_stop))
        responses: dict[TopicPartition, BaseException] = {}
        for topic_partition, delete_local_log in partitions_to_stop.items():
            try:
                # 1.0.2's stopReplica: removes the partition and deletes its log, and answers requests waiting on it
                self.stop_replica(topic_partition, delete_local_log)
            except Exception as e:
                responses[topic_partition] = e
        return responses
