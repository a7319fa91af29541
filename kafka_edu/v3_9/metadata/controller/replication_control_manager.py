"""Port of metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java (Kafka 3.9).

Ported: topics and partitions (replay of Topic, Partition, PartitionChange and RemoveTopic records), createTopics
(with the create-topic policy and the effective configs of each new topic), createPartitions, deleteTopics,
processBrokerHeartbeat with fencing/unfencing/controlled shutdown, maybeFenceOneStaleBroker, alterPartition,
electLeaders (preferred and unclean), the periodic unclean elections of leaderless partitions
(maybeElectUncleanLeaders), alterPartitionReassignments and listPartitionReassignments.
Left out: controller mutation quotas, eligible leader replicas (KIP-966) and directory assignment
(AssignReplicasToDirs, offline directories).
BrokersToIsrs (Kafka's index from a broker to the partitions whose ISR holds it) is answered here by a scan of the
timeline maps, so it reverts with them.
"""

from __future__ import annotations

import datetime
import logging
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kio.schema.alter_partition import v0 as alter_partition_v0
from kio.schema.alter_partition import v1 as alter_partition_v1
from kio.schema.alter_partition import v2 as alter_partition_v2
from kio.schema.alter_partition import v3 as alter_partition_v3
from kio.schema.alter_partition_reassignments.v0 import response as alter_reassignments_response
from kio.schema.create_topics.v7 import response as create_topics_response
from kio.schema.elect_leaders.v2 import response as elect_leaders_response
from kio.schema.list_partition_reassignments.v0 import response as list_reassignments_response
from kio.static.primitive import i8, i16, i32, i32Timedelta, i64

from kafka_edu.tracing.step import span
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    InvalidPartitionsException,
    InvalidReplicaAssignmentException,
    InvalidReplicationFactorException,
    InvalidRequestException,
    InvalidTopicException,
    PolicyViolationException,
    UnknownServerException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v3_9.clients.common.errors.no_reassignment_in_progress_exception import (
    NoReassignmentInProgressException,
)
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.clients.server.policy.create_topic_policy import CreateTopicPolicy, RequestMetadata
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerRegistrationChangeRecord,
    FenceBrokerRecord,
    RemoveTopicRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
)
from kafka_edu.v3_9.metadata.controller.broker_control_state import BrokerControlState
from kafka_edu.v3_9.metadata.controller.cluster_control_manager import ClusterControlManager
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import (
    ConfigResource,
    ConfigResourceType,
    ConfigurationControlManager,
    OpType,
)
from kafka_edu.v3_9.metadata.controller.controller_exceptions import (
    BrokerIdNotRegisteredException,
    UnknownTopicIdException,
)
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    FeatureControlManager,
    is_broker_registration_change_record_supported,
    is_directory_assignment_supported,
    is_in_controlled_shutdown_state_supported,
)
from kafka_edu.v3_9.metadata.controller.partition_change_builder import Election, PartitionChangeBuilder
from kafka_edu.v3_9.metadata.controller.partition_reassignment_replicas import (
    PartitionReassignmentReplicas,
    is_reassignment_in_progress,
)
from kafka_edu.v3_9.metadata.controller.partition_reassignment_revert import PartitionReassignmentRevert
from kafka_edu.v3_9.metadata.metadata.broker_registration import (
    BrokerHeartbeatReply,
    BrokerRegistrationFencingChange,
    BrokerRegistrationInControlledShutdownChange,
)
from kafka_edu.v3_9.metadata.metadata.partition_registration import (
    MIGRATING_DIR,
    NO_LEADER,
    NO_LEADER_CHANGE,
    LeaderRecoveryState,
    PartitionRegistration,
)
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import (
    ClusterDescriber,
    PartitionAssignment,
    PlacementSpec,
    UsableBroker,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.mutable.bounded_list import BoundedList
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_hash_set import TimelineHashSet
from kafka_edu.v3_9.server_common.timeline.timeline_integer import TimelineInteger

log = logging.getLogger(__name__)

MAX_RECORDS_PER_USER_OP = 10000  # QuorumController.MAX_RECORDS_PER_USER_OP: the records one user operation may make
MAX_ELECTIONS_PER_IMBALANCE = 1_000  # the preferred-leader elections one balancing event writes at most

ZERO_UUID = uuid.UUID(int=0)  # Uuid.ZERO_UUID
ELECTION_TYPE_PREFERRED, ELECTION_TYPE_UNCLEAN = 0, 1  # ElectionType

_ALTER_PARTITION = {0: alter_partition_v0, 1: alter_partition_v1, 2: alter_partition_v2, 3: alter_partition_v3}

__all__ = ["ApiError", "ReplicationControlManager", "TopicIdPartition"]


def _uuid_string(value: uuid.UUID | None) -> str:
    """Uuid.toString: topic ids as Kafka prints them (22 characters of URL-safe base64)."""
    return "null" if value is None else str(Uuid.from_bytes(value.bytes))


@dataclass(frozen=True)
class TopicIdPartition:
    topic_id: uuid.UUID
    partition_id: int


class TopicControlInfo:
    def __init__(self, name: str, snapshot_registry: SnapshotRegistry, topic_id: uuid.UUID) -> None:
        self.name = name
        self.id = topic_id
        self.parts: TimelineHashMap[int, PartitionRegistration] = TimelineHashMap(snapshot_registry)

    def topic_id(self) -> uuid.UUID:
        return self.id

    def num_partitions(self, epoch: int = LATEST_EPOCH) -> int:
        return self.parts.size(epoch)


def translate_creation_configs(configs: Iterable[Any]) -> dict[str, str | None]:
    """The configs a CreatableTopic sets, by name."""
    return {config.name: config.value for config in configs}


class BrokersToIsrs:
    """Kafka's BrokersToIsrs, answered by a scan of the topics: the partitions whose ISR holds a broker (or, for
    NO_LEADER, the partitions without a leader)."""

    def __init__(self, topics: TimelineHashMap[uuid.UUID, TopicControlInfo]) -> None:
        self._topics = topics

    def _partitions(self) -> Iterator[tuple[TopicIdPartition, PartitionRegistration]]:
        for topic_id, topic in self._topics.entry_set():
            for partition_id, partition in topic.parts.entry_set():
                yield TopicIdPartition(topic_id, partition_id), partition

    def iterator(self, broker_id: int, leaders_only: bool) -> Iterator[TopicIdPartition]:
        for tp, partition in self._partitions():
            if broker_id == NO_LEADER:
                if partition.leader == NO_LEADER:
                    yield tp
            elif partition.leader == broker_id if leaders_only else broker_id in partition.isr:
                yield tp

    def partitions_with_no_leader(self) -> Iterator[TopicIdPartition]:
        return self.iterator(NO_LEADER, True)

    def partitions_led_by_broker(self, broker_id: int) -> Iterator[TopicIdPartition]:
        return self.iterator(broker_id, True)

    def partitions_with_broker_in_isr(self, broker_id: int) -> Iterator[TopicIdPartition]:
        return self.iterator(broker_id, False)

    def has_leaderships(self, broker_id: int) -> bool:
        return next(self.partitions_led_by_broker(broker_id), None) is not None


class KRaftClusterDescriber(ClusterDescriber):
    """What the replica placer may know of the cluster: the usable brokers, and each one's default log directory
    once the metadata.version assigns directories (MIGRATING before)."""

    def __init__(self, cluster_control: ClusterControlManager, feature_control: FeatureControlManager) -> None:
        self._cluster_control = cluster_control
        self._feature_control = feature_control

    def usable_brokers(self) -> Iterator[UsableBroker]:
        return self._cluster_control.usable_brokers()

    def default_dir(self, broker_id: int) -> uuid.UUID:
        if is_directory_assignment_supported(self._feature_control.metadata_version()):
            return self._cluster_control.default_dir(broker_id)
        return MIGRATING_DIR


class ReplicationControlManager:
    def __init__(self, snapshot_registry: SnapshotRegistry, cluster_control: ClusterControlManager,
                 configuration_control: ConfigurationControlManager, feature_control: FeatureControlManager,
                 default_replication_factor: int = 3, default_num_partitions: int = 1,
                 log_context: str = "", create_topic_policy: CreateTopicPolicy | None = None) -> None:
        self._log_prefix = log_context
        self._snapshot_registry = snapshot_registry
        self._cluster_control = cluster_control
        self._configuration_control = configuration_control
        self._feature_control = feature_control
        self._default_replication_factor = default_replication_factor
        self._default_num_partitions = default_num_partitions
        self._create_topic_policy = create_topic_policy
        self.cluster_describer = KRaftClusterDescriber(cluster_control, feature_control)
        self._global_partition_count = TimelineInteger(snapshot_registry)
        self._topics_by_name: TimelineHashMap[str, uuid.UUID] = TimelineHashMap(snapshot_registry)
        # Each unified name ('.' as '_') and the topics whose names unify to it.
        self._topics_with_collision_chars: TimelineHashMap[str, TimelineHashSet[str]] = \
            TimelineHashMap(snapshot_registry)
        self._topics: TimelineHashMap[uuid.UUID, TopicControlInfo] = TimelineHashMap(snapshot_registry)
        self._brokers_to_isrs = BrokersToIsrs(self._topics)
        # The partitions whose leader is not their preferred (first) replica.
        self._imbalanced_partitions: TimelineHashSet[TopicIdPartition] = TimelineHashSet(snapshot_registry)
        # Each topic with a reassignment under way, and the ids of its reassigning partitions.
        self._reassigning_topics: TimelineHashMap[uuid.UUID, tuple[int, ...]] = TimelineHashMap(snapshot_registry)

    # -- replay ---------------------------------------------------------------------------------------------------

    def replay_topic(self, record: Any) -> None:
        existing_uuid = self._topics_by_name.put(record.name, record.topic_id)
        if existing_uuid is not None:
            # A second TopicRecord for a name needs a RemoveTopicRecord between the two.
            if existing_uuid == record.topic_id:
                raise RuntimeError(f"Found duplicate TopicRecord for {record.name} with topic ID "
                                   f"{_uuid_string(record.topic_id)}")
            raise RuntimeError(f"Found duplicate TopicRecord for {record.name} with a different ID than before. "
                               f"Previous ID was {_uuid_string(existing_uuid)} and new ID is "
                               f"{_uuid_string(record.topic_id)}")
        if Topic.has_collision_chars(record.name):
            normalized_name = Topic.unify_collision_chars(record.name)
            topic_names = self._topics_with_collision_chars.get(normalized_name)
            if topic_names is None:
                topic_names = TimelineHashSet(self._snapshot_registry, 1)
                self._topics_with_collision_chars.put(normalized_name, topic_names)
            topic_names.add(record.name)
        self._topics.put(record.topic_id, TopicControlInfo(record.name, self._snapshot_registry, record.topic_id))
        log.info("%sReplayed TopicRecord for topic %s with topic ID %s.", self._log_prefix, record.name,
                 _uuid_string(record.topic_id))

    def replay_partition(self, record: Any) -> None:
        topic_info = self._topics.get(record.topic_id)
        if topic_info is None:
            raise RuntimeError(f"Tried to create partition {_uuid_string(record.topic_id)}:{record.partition_id}, "
                               "but no topic with that ID was found.")
        new_part_info = PartitionRegistration.from_record(record)
        prev_part_info = topic_info.parts.get(record.partition_id)
        description = f"{topic_info.name}-{record.partition_id} with topic ID {_uuid_string(record.topic_id)}"
        if prev_part_info is None:
            log.info("%sReplayed PartitionRecord for new partition %s and %s.", self._log_prefix, description,
                     new_part_info)
            topic_info.parts.put(record.partition_id, new_part_info)
            self._global_partition_count.increment()
            self._update_reassigning_topics_if_needed(record.topic_id, record.partition_id, False,
                                                      is_reassignment_in_progress(new_part_info))
        elif prev_part_info != new_part_info:
            log.info("%sReplayed PartitionRecord for existing partition %s and %s.", self._log_prefix, description,
                     new_part_info)
            topic_info.parts.put(record.partition_id, new_part_info)
            self._update_reassigning_topics_if_needed(record.topic_id, record.partition_id,
                                                      is_reassignment_in_progress(prev_part_info),
                                                      is_reassignment_in_progress(new_part_info))
        self._update_imbalanced(record.topic_id, record.partition_id, new_part_info)

    def _update_reassigning_topics_if_needed(self, topic_id: uuid.UUID, partition_id: int, was_reassigning: bool,
                                             is_reassigning: bool) -> None:
        if not was_reassigning:
            if is_reassigning:
                prev_reassigning_parts = self._reassigning_topics.get(topic_id) or ()
                self._reassigning_topics.put(topic_id, (*prev_reassigning_parts, partition_id))
        elif not is_reassigning:
            prev_reassigning_parts = self._reassigning_topics.get(topic_id) or ()
            new_reassigning_parts = tuple(p for p in prev_reassigning_parts if p != partition_id)
            if not new_reassigning_parts:
                self._reassigning_topics.remove(topic_id)
            else:
                self._reassigning_topics.put(topic_id, new_reassigning_parts)

    def _update_imbalanced(self, topic_id: uuid.UUID, partition_id: int, registration: PartitionRegistration) -> None:
        if registration.has_preferred_leader():
            self._imbalanced_partitions.remove(TopicIdPartition(topic_id, partition_id))
        else:
            self._imbalanced_partitions.add(TopicIdPartition(topic_id, partition_id))

    def replay_partition_change(self, record: Any) -> None:
        topic_info = self._topics.get(record.topic_id)
        if topic_info is None:
            raise RuntimeError(f"Tried to create partition {_uuid_string(record.topic_id)}:{record.partition_id}, "
                               "but no topic with that ID was found.")
        prev_partition_info = topic_info.parts.get(record.partition_id)
        if prev_partition_info is None:
            raise RuntimeError(f"Tried to create partition {_uuid_string(record.topic_id)}:{record.partition_id}, "
                               "but no partition with that id was found.")
        new_partition_info = prev_partition_info.merge(record)
        self._update_reassigning_topics_if_needed(record.topic_id, record.partition_id,
                                                  is_reassignment_in_progress(prev_partition_info),
                                                  is_reassignment_in_progress(new_partition_info))
        topic_info.parts.put(record.partition_id, new_partition_info)
        self._update_imbalanced(record.topic_id, record.partition_id, new_partition_info)
        if record.removing_replicas is not None or record.adding_replicas is not None:
            log.info("%sReplayed partition assignment change %s for topic %s", self._log_prefix, record,
                     topic_info.name)
        else:
            log.debug("%sReplayed partition change %s for topic %s", self._log_prefix, record, topic_info.name)

    def replay_remove_topic(self, record: Any) -> None:
        topic = self._topics.remove(record.topic_id)
        if topic is None:
            raise UnknownTopicIdException(f"Can't find topic with ID {_uuid_string(record.topic_id)} to remove.")
        self._topics_by_name.remove(topic.name)
        if Topic.has_collision_chars(topic.name):
            normalized_name = Topic.unify_collision_chars(topic.name)
            colliding = self._topics_with_collision_chars.get(normalized_name)
            if colliding is not None:
                colliding.remove(topic.name)
                if colliding.is_empty():
                    self._topics_with_collision_chars.remove(normalized_name)
        self._reassigning_topics.remove(record.topic_id)
        self._global_partition_count.set(self._global_partition_count.get() - topic.parts.size())
        for partition_id in topic.parts.key_set():
            self._imbalanced_partitions.remove(TopicIdPartition(record.topic_id, partition_id))
        self._configuration_control.delete_topic_configs(topic.name)
        log.info("%sReplayed RemoveTopicRecord for topic %s with ID %s.", self._log_prefix, topic.name,
                 _uuid_string(record.topic_id))

    # -- createTopics ---------------------------------------------------------------------------------------------

    def create_topics(self, context: Any, request: Any,
                      describable: set[str] | None = None) -> ControllerResult[Any]:
        """The records that create the request's topics, and each topic's result: its id, partitions, replication
        factor and effective configs (when `describable`, default all), or the error that refused it."""
        topic_errors: dict[str, ApiError] = {}
        records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)

        validate_new_topic_names(topic_errors, request.topics, self._topics_with_collision_chars)

        for t in request.topics:
            if t.name in self._topics_by_name:
                topic_errors[t.name] = ApiError(Errors.TOPIC_ALREADY_EXISTS, f"Topic '{t.name}' already exists.")

        config_changes = compute_config_changes(topic_errors, request.topics)

        successes: dict[str, Any] = {}
        for topic in request.topics:
            if topic.name in topic_errors:
                continue
            config_resource: ConfigResource = (ConfigResourceType.TOPIC, topic.name)
            key_to_ops = config_changes.get(config_resource)
            if key_to_ops is not None:
                config_result = self._configuration_control.incremental_alter_config(config_resource, key_to_ops,
                                                                                     True)
                if config_result.response.is_failure():
                    topic_errors[topic.name] = config_result.response
                    continue
                config_records = config_result.records
            else:
                config_records = []
            try:
                error = self._create_topic(context, topic, records, successes, config_records,
                                           describable is None or topic.name in describable)
            except ApiException as e:
                error = ApiError.from_throwable(e)
            if error.is_failure():
                topic_errors[topic.name] = error

        results = []
        summaries = []
        for topic in request.topics:
            error = topic_errors.get(topic.name)
            if error is not None:
                results.append(create_topics_response.CreatableTopicResult(
                    name=topic.name, topic_id=ZERO_UUID, error_code=error.error, error_message=error.message,
                    configs=()))
                summaries.append(f"{topic.name}: {error.error.name} ({error.message})")
                continue
            results.append(successes[topic.name])
            summaries.append(f"{topic.name}: SUCCESS")
        data = create_topics_response.CreateTopicsResponse(throttle_time=i32Timedelta.parse(datetime.timedelta(0)),
                                                          topics=tuple(results))
        if request.validate_only:
            log.info("%sValidate-only CreateTopics result(s): %s", self._log_prefix, ", ".join(summaries))
            return ControllerResult.atomic_of([], data)
        log.info("%sCreateTopics result(s): %s", self._log_prefix, ", ".join(summaries))
        return ControllerResult.atomic_of(records, data)

    def _create_topic(self, context: Any, topic: Any, records: list[Any], successes: dict[str, Any],
                      config_records: list[Any], authorized_to_return_configs: bool) -> ApiError:
        creation_configs = translate_creation_configs(topic.configs)
        new_parts: dict[int, PartitionRegistration] = {}
        if topic.assignments:
            if topic.replication_factor != -1:
                return ApiError(Errors.INVALID_REQUEST, "A manual partition assignment was specified, but "
                                "replication factor was not set to -1.")
            if topic.num_partitions != -1:
                return ApiError(Errors.INVALID_REQUEST, "A manual partition assignment was specified, but "
                                "numPartitions was not set to -1.")
            replication_factor: int | None = None
            for assignment in topic.assignments:
                if assignment.partition_index in new_parts:
                    return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "Found multiple manual partition "
                                    f"assignments for partition {assignment.partition_index}")
                partition_assignment = PartitionAssignment.of(list(assignment.broker_ids), self.cluster_describer)
                self.validate_manual_partition_assignment(partition_assignment, replication_factor)
                replication_factor = len(assignment.broker_ids)
                isr = [r for r in assignment.broker_ids if self._cluster_control.is_active(r)]
                if not isr:
                    return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "All brokers specified in the manual "
                                    f"partition assignment for partition {assignment.partition_index} are fenced "
                                    "or in controlled shutdown.")
                new_parts[assignment.partition_index] = _build_partition_registration(partition_assignment, isr)
            for i in range(len(new_parts)):
                if i not in new_parts:
                    return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "partitions should be a consecutive 0-based "
                                    "integer sequence")
            error = self._maybe_check_create_topic_policy(lambda: RequestMetadata(
                topic.name, None, None, {k: list(v.replicas) for k, v in new_parts.items()}, creation_configs))
            if error.is_failure():
                return error
        elif topic.replication_factor < -1 or topic.replication_factor == 0:
            return ApiError(Errors.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0, or -1 "
                            "to use the default value.")
        elif topic.num_partitions < -1 or topic.num_partitions == 0:
            return ApiError(Errors.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive "
                            "value.")
        else:
            num_partitions = self._default_num_partitions if topic.num_partitions == -1 else topic.num_partitions
            replication_factor = (self._default_replication_factor if topic.replication_factor == -1
                                  else topic.replication_factor)
            try:
                topic_assignment = self._cluster_control.replica_placer().place(
                    PlacementSpec(0, num_partitions, replication_factor), self.cluster_describer)
                for partition_id, partition_assignment in enumerate(topic_assignment.assignments):
                    isr = [r for r in partition_assignment.replicas if self._cluster_control.is_active(r)]
                    # No ISR: every broker is fenced or in controlled shutdown. The placer refuses that case with
                    # INVALID_REPLICATION_FACTOR, and so does this.
                    if not isr:
                        return ApiError(Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition "
                                        f"{replication_factor} time(s): All brokers are currently fenced or in "
                                        "controlled shutdown.")
                    new_parts[partition_id] = _build_partition_registration(partition_assignment, isr)
            except InvalidReplicationFactorException as e:
                return ApiError(Errors.INVALID_REPLICATION_FACTOR, f"Unable to replicate the partition "
                                f"{replication_factor} time(s): {e}")
            error = self._maybe_check_create_topic_policy(lambda: RequestMetadata(
                topic.name, num_partitions, replication_factor, None, creation_configs))
            if error.is_failure():
                return error
        topic_id = uuid.uuid4()
        if authorized_to_return_configs:
            effective_config = self._configuration_control.compute_effective_topic_configs(creation_configs)
            configs = tuple(create_topics_response.CreatableTopicConfigs(
                name=entry.name, value=None if entry.is_sensitive else entry.value, read_only=entry.is_read_only,
                config_source=i8(int(entry.source)), is_sensitive=entry.is_sensitive)
                for entry in (effective_config[name] for name in sorted(effective_config)))
            successes[topic.name] = create_topics_response.CreatableTopicResult(
                name=topic.name, topic_id=topic_id, error_code=Errors.NONE, error_message=None,
                topic_config_error_code=i16(Errors.NONE), num_partitions=i32(len(new_parts)),
                replication_factor=i16(len(next(iter(new_parts.values())).replicas)), configs=configs)
        else:
            successes[topic.name] = create_topics_response.CreatableTopicResult(
                name=topic.name, topic_id=topic_id, error_code=Errors.NONE, error_message=None,
                topic_config_error_code=i16(Errors.TOPIC_AUTHORIZATION_FAILED), configs=())
        records.append(ApiMessageAndVersion(TopicRecord(name=topic.name, topic_id=topic_id), 0))
        records.extend(config_records)  # after the TopicRecord, before its PartitionRecords
        for partition_index, info in new_parts.items():
            records.append(info.to_record(topic_id, partition_index, self._feature_control.metadata_version()))
        return ApiError.NONE

    def _maybe_check_create_topic_policy(self, supplier: Callable[[], RequestMetadata]) -> ApiError:
        if self._create_topic_policy is not None:
            try:
                self._create_topic_policy.validate(supplier())
            except PolicyViolationException as e:
                return ApiError(Errors.POLICY_VIOLATION, str(e))
        return ApiError.NONE

    # -- reads ----------------------------------------------------------------------------------------------------

    def find_topic_ids(self, offset: int, names: Iterable[str | None]) -> dict[str | None, uuid.UUID | ApiError]:
        """Each name's topic id, or its error (a ResultOrError in Kafka), as of `offset`."""
        results: dict[str | None, uuid.UUID | ApiError] = {}
        for name in names:
            if name is None:
                results[None] = ApiError(Errors.INVALID_REQUEST, "Invalid null topic name.")
                continue
            topic_id = self._topics_by_name.get(name, offset)
            results[name] = topic_id if topic_id is not None else ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)
        return results

    def find_all_topic_ids(self, offset: int) -> dict[str, uuid.UUID]:
        return dict(self._topics_by_name.entry_set(offset))

    def find_topic_names(self, offset: int, ids: Iterable[uuid.UUID | None]) -> dict[uuid.UUID | None, str | ApiError]:
        results: dict[uuid.UUID | None, str | ApiError] = {}
        for topic_id in ids:
            if topic_id is None or topic_id == ZERO_UUID:
                results[topic_id] = ApiError(Errors.INVALID_REQUEST, "Attempt to find topic with invalid topicId "
                                                                     f"{_uuid_string(topic_id)}")
                continue
            topic = self._topics.get(topic_id, offset)
            results[topic_id] = topic.name if topic is not None else ApiError(Errors.UNKNOWN_TOPIC_ID)
        return results

    def get_partition(self, topic_id: uuid.UUID, partition_id: int) -> PartitionRegistration | None:
        topic = self._topics.get(topic_id)
        return None if topic is None else topic.parts.get(partition_id)

    def get_topic(self, topic_id: uuid.UUID) -> TopicControlInfo | None:
        return self._topics.get(topic_id)

    def get_topic_id(self, name: str) -> uuid.UUID | None:
        return self._topics_by_name.get(name)

    def topics(self) -> TimelineHashMap[uuid.UUID, TopicControlInfo]:
        return self._topics

    def global_partition_count(self) -> int:
        return self._global_partition_count.get()

    def brokers_to_isrs(self) -> BrokersToIsrs:
        return self._brokers_to_isrs

    def partitions_with_broker_in_isr(self, broker_id: int) -> list[TopicIdPartition]:
        return list(self._brokers_to_isrs.partitions_with_broker_in_isr(broker_id))

    def partitions_with_no_leader(self) -> list[TopicIdPartition]:
        return list(self._brokers_to_isrs.partitions_with_no_leader())

    def partitions_led_by_broker(self, broker_id: int) -> list[TopicIdPartition]:
        return list(self._brokers_to_isrs.partitions_led_by_broker(broker_id))

    def has_leaderships(self, broker_id: int) -> bool:
        return self._brokers_to_isrs.has_leaderships(broker_id)

    def imbalanced_partitions(self) -> TimelineHashSet[TopicIdPartition]:
        return self._imbalanced_partitions

    def are_partition_leaders_imbalanced(self) -> bool:
        return not self._imbalanced_partitions.is_empty()

    def maybe_balance_partition_leaders(self) -> ControllerResult[bool]:
        """Preferred-leader elections for the partitions whose leader is not their first replica; the response
        says whether there may be more to do at once (the batch reached MAX_ELECTIONS_PER_IMBALANCE)."""
        records: list[Any] = []
        self.maybe_trigger_leader_change_for_partitions_without_preferred_leader(records, MAX_ELECTIONS_PER_IMBALANCE)
        return ControllerResult.of(records, len(records) >= MAX_ELECTIONS_PER_IMBALANCE)

    def maybe_trigger_leader_change_for_partitions_without_preferred_leader(self, records: list[Any],
                                                                           max_elections: int) -> None:
        for topic_partition in list(self._imbalanced_partitions):
            if len(records) >= max_elections:
                return
            topic = self._topics.get(topic_partition.topic_id)
            if topic is None:
                log.error("%sSkipping unknown imbalanced topic %s", self._log_prefix, topic_partition)
                continue
            partition = topic.parts.get(topic_partition.partition_id)
            if partition is None:
                log.error("%sSkipping unknown imbalanced partition %s", self._log_prefix, topic_partition)
                continue
            change = (PartitionChangeBuilder(partition, topic_partition.topic_id, topic_partition.partition_id,
                                             self._leader_acceptor(partition),
                                             self._feature_control.metadata_version())
                      .set_election(Election.PREFERRED)
                      .set_default_dir_provider(self.cluster_describer.default_dir)
                      .build())
            if change is not None:
                records.append(change)

    def are_some_partitions_leaderless(self) -> bool:
        return next(self._brokers_to_isrs.partitions_with_no_leader(), None) is not None

    def maybe_elect_unclean_leaders(self) -> ControllerResult[bool]:
        """Unclean elections for the leaderless partitions of topics that allow them; the response says whether
        there may be more to do at once (the batch reached MAX_ELECTIONS_PER_IMBALANCE)."""
        records: list[Any] = []
        self.maybe_trigger_unclean_leader_election_for_leaderless_partitions(records, MAX_ELECTIONS_PER_IMBALANCE)
        return ControllerResult.of(records, len(records) >= MAX_ELECTIONS_PER_IMBALANCE)

    def maybe_trigger_unclean_leader_election_for_leaderless_partitions(self, records: list[Any],
                                                                       max_elections: int) -> None:
        for topic_id_partition in list(self._brokers_to_isrs.partitions_with_no_leader()):
            if len(records) >= max_elections:
                return
            topic = self._topics.get(topic_id_partition.topic_id)
            if self._configuration_control.unclean_leader_election_enabled_for_topic(topic.name):
                result = self.elect_leader(topic.name, topic_id_partition.partition_id, ELECTION_TYPE_UNCLEAN,
                                           records)
                if result.error is Errors.NONE:
                    log.error("%sTriggering unclean leader election for offline partition %s-%d.", self._log_prefix,
                              topic.name, topic_id_partition.partition_id)
                else:
                    log.warning("%sCannot trigger unclean leader election for offline partition %s-%d: %s",
                                self._log_prefix, topic.name, topic_id_partition.partition_id, result.error.name)
            elif log.isEnabledFor(logging.DEBUG):
                log.debug("%sCannot trigger unclean leader election for offline partition %s-%d because unclean "
                          "leader election is disabled for this topic.", self._log_prefix, topic.name,
                          topic_id_partition.partition_id)

    # -- deleteTopics ---------------------------------------------------------------------------------------------

    def delete_topics(self, context: Any, ids: Iterable[uuid.UUID]) -> ControllerResult[dict[uuid.UUID, ApiError]]:
        ids = list(ids)
        results: dict[uuid.UUID, ApiError] = {}
        records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        for topic_id in ids:
            try:
                self.delete_topic(context, topic_id, records)
                results[topic_id] = ApiError.NONE
            except ApiException as e:
                results[topic_id] = ApiError.from_throwable(e)
            except Exception as e:
                log.error("%sUnexpected deleteTopics error for %s", self._log_prefix, _uuid_string(topic_id),
                          exc_info=e)
                results[topic_id] = ApiError.from_throwable(e)
        return ControllerResult.atomic_of(records, results)

    def delete_topic(self, context: Any, topic_id: uuid.UUID, records: list[Any]) -> None:
        if self._topics.get(topic_id) is None:
            raise UnknownTopicIdException()  # Kafka's message is the error's default text, which the answer drops
        records.append(ApiMessageAndVersion(RemoveTopicRecord(topic_id=topic_id), 0))

    # -- alterPartition -------------------------------------------------------------------------------------------

    def alter_partition(self, context: Any, request: Any) -> ControllerResult[Any]:
        """ISR (and leader recovery state) changes a partition leader asks for: topics by name up to version 1, by
        id from 2; brokers with their epochs from 3. The answer is of the request's version."""
        request_version = context.request_api_version()
        if request_version is None:  # no request header: the version of the request's own schema
            request_version = int(getattr(type(request), "__version__", 3))
        schema = _ALTER_PARTITION[request_version].response.AlterPartitionResponse
        self._cluster_control.check_broker_epoch(request.broker_id, request.broker_epoch)
        records: list[Any] = []
        response_topics = []
        for topic_data in request.topics:
            topic_name = getattr(topic_data, "topic_name", "")
            request_topic_id = getattr(topic_data, "topic_id", ZERO_UUID)
            response_partitions: list[dict[str, Any]] = []
            response_topics.append({"topic_name": topic_name, "topic_id": request_topic_id,
                                    "partitions": response_partitions})

            topic_id = request_topic_id if request_version > 1 else self._topics_by_name.get(topic_name)
            if topic_id is None or topic_id == ZERO_UUID or topic_id not in self._topics:
                error = Errors.UNKNOWN_TOPIC_ID if request_version > 1 else Errors.UNKNOWN_TOPIC_OR_PARTITION
                for partition_data in topic_data.partitions:
                    response_partitions.append(_alter_partition_error(partition_data.partition_index, error))
                log.info("%sRejecting AlterPartition request for unknown topic ID %s or name %s.", self._log_prefix,
                         _uuid_string(request_topic_id), topic_name)
                continue

            topic = self._topics[topic_id]
            for partition_data in topic_data.partitions:
                if request_version < 3:
                    # AlterPartitionRequest.newIsrToSimpleNewIsrWithBrokerEpochs: no epochs to check
                    new_isr_with_epochs = tuple(alter_partition_v3.request.BrokerState(broker_id=b,
                                                                                       broker_epoch=i64(-1))
                                                for b in partition_data.new_isr)
                else:
                    new_isr_with_epochs = tuple(partition_data.new_isr_with_epochs)
                leader_recovery_state = getattr(partition_data, "leader_recovery_state", 0)
                partition_id = partition_data.partition_index
                partition = topic.parts.get(partition_id)
                validation_error = self._validate_alter_partition_data(
                    request.broker_id, topic, partition_id, partition, request_version, partition_data,
                    new_isr_with_epochs, leader_recovery_state)
                if validation_error is not Errors.NONE:
                    response_partitions.append(_alter_partition_error(partition_id, validation_error))
                    continue

                builder = PartitionChangeBuilder(partition, topic.id, partition_id,
                                                 self._leader_acceptor(partition),
                                                 self._feature_control.metadata_version())
                if self._configuration_control.unclean_leader_election_enabled_for_topic(topic.name):
                    builder.set_election(Election.UNCLEAN)
                builder.set_target_isr_with_broker_states(new_isr_with_epochs)
                builder.set_target_leader_recovery_state(LeaderRecoveryState(leader_recovery_state))
                builder.set_default_dir_provider(self.cluster_describer.default_dir)
                change_record = builder.build()
                if change_record is not None:
                    records.append(change_record)
                    change = change_record.message
                    partition = partition.merge(change)
                    log.debug("%sNode %d has altered ISR for %s-%d to %s.", self._log_prefix, request.broker_id,
                              topic.name, partition_id, change.isr)
                    if change.leader not in (request.broker_id, NO_LEADER_CHANGE):
                        # A leader may not change its own leadership: only an ISR change that completes a
                        # reassignment does this, and the leader learns it must fetch new metadata.
                        error = Errors.NEW_LEADER_ELECTED if request_version > 1 else Errors.FENCED_LEADER_EPOCH
                        log.info("%sAlterPartition request from node %d for %s-%d completed the ongoing partition "
                                 "reassignment and triggered a leadership change. Returning %s.", self._log_prefix,
                                 request.broker_id, topic.name, partition_id, error.name)
                        response_partitions.append(_alter_partition_error(partition_id, error))
                        continue
                response_partitions.append({
                    "partition_index": partition_id, "error_code": Errors.NONE, "leader_id": partition.leader,
                    "isr": partition.isr, "leader_recovery_state": int(partition.leader_recovery_state),
                    "leader_epoch": partition.leader_epoch, "partition_epoch": partition.partition_epoch})
        response = build(schema, throttle_time=0, error_code=Errors.NONE, topics=response_topics)
        return ControllerResult.of(records, response)

    def _validate_alter_partition_data(self, broker_id: int, topic: TopicControlInfo, partition_id: int,
                                       partition: PartitionRegistration | None, request_api_version: int,
                                       partition_data: Any, new_isr_with_epochs: tuple[Any, ...],
                                       leader_recovery_state_value: int) -> Errors:
        if partition is None:
            log.info("%sRejecting AlterPartition request for unknown partition %s-%d.", self._log_prefix,
                     topic.name, partition_id)
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        # A leader with a higher leader or partition epoch than ours most likely heard of a newer controller: it
        # should look for it.
        if partition_data.leader_epoch > partition.leader_epoch:
            log.debug("%sRejecting AlterPartition request from node %d for %s-%d because the current leader epoch is "
                      "%d, which is greater than the local value %d.", self._log_prefix, broker_id, topic.name,
                      partition_id, partition.leader_epoch, partition_data.leader_epoch)
            return Errors.NOT_CONTROLLER
        if partition_data.partition_epoch > partition.partition_epoch:
            log.debug("%sRejecting AlterPartition request from node %d for %s-%d because the current partition epoch "
                      "is %d, which is greater than the local value %d.", self._log_prefix, broker_id, topic.name,
                      partition_id, partition.partition_epoch, partition_data.partition_epoch)
            return Errors.NOT_CONTROLLER
        if partition_data.leader_epoch < partition.leader_epoch:
            log.debug("%sRejecting AlterPartition request from node %d for %s-%d because the current leader epoch is "
                      "%d, not %d.", self._log_prefix, broker_id, topic.name, partition_id, partition.leader_epoch,
                      partition_data.leader_epoch)
            return Errors.FENCED_LEADER_EPOCH
        if broker_id != partition.leader:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the current leader is %d.",
                     self._log_prefix, broker_id, topic.name, partition_id, partition.leader)
            return Errors.INVALID_REQUEST
        if partition_data.partition_epoch < partition.partition_epoch:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the current partition epoch "
                     "is %d, not %d.", self._log_prefix, broker_id, topic.name, partition_id,
                     partition.partition_epoch, partition_data.partition_epoch)
            return Errors.INVALID_UPDATE_VERSION
        new_isr = [b.broker_id for b in new_isr_with_epochs]
        if not _validate_isr(partition.replicas, new_isr):
            log.error("%sRejecting AlterPartition request from node %d for %s-%d because it specified an invalid "
                      "ISR %s.", self._log_prefix, broker_id, topic.name, partition_id, new_isr)
            return Errors.INVALID_REQUEST
        if partition.leader not in new_isr:
            log.error("%sRejecting AlterPartition request from node %d for %s-%d because it specified an invalid ISR "
                      "%s that doesn't include itself.", self._log_prefix, broker_id, topic.name, partition_id,
                      new_isr)
            return Errors.INVALID_REQUEST
        leader_recovery_state = LeaderRecoveryState(leader_recovery_state_value)
        if leader_recovery_state is LeaderRecoveryState.RECOVERING and len(new_isr) > 1:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the ISR %s had more than one "
                     "replica while the leader was still recovering from an unclean leader election %s.",
                     self._log_prefix, broker_id, topic.name, partition_id, new_isr, leader_recovery_state.name)
            return Errors.INVALID_REQUEST
        if partition.leader_recovery_state is LeaderRecoveryState.RECOVERED and \
                leader_recovery_state is LeaderRecoveryState.RECOVERING:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the leader recovery state "
                     "cannot change from RECOVERED to RECOVERING.", self._log_prefix, broker_id, topic.name,
                     partition_id)
            return Errors.INVALID_REQUEST
        ineligible_replicas = self._ineligible_replicas_for_isr(new_isr_with_epochs)
        if ineligible_replicas:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because it specified ineligible "
                     "replicas %s in the new ISR %s.", self._log_prefix, broker_id, topic.name, partition_id,
                     ineligible_replicas, new_isr)
            return Errors.INELIGIBLE_REPLICA if request_api_version > 1 else Errors.OPERATION_NOT_ATTEMPTED
        return Errors.NONE

    def _ineligible_replicas_for_isr(self, broker_states: Iterable[Any]) -> list[str]:
        ineligible_replicas = []
        for broker_state in broker_states:
            broker_id = broker_state.broker_id
            registration = self._cluster_control.broker_registrations().get(broker_id)
            if registration is None:
                ineligible_replicas.append(f"{broker_id} (not registered)")
            elif registration.in_controlled_shutdown:
                ineligible_replicas.append(f"{broker_id} (shutting down)")
            elif registration.fenced:
                ineligible_replicas.append(f"{broker_id} (fenced)")
            elif broker_state.broker_epoch != -1 and registration.epoch != broker_state.broker_epoch:
                # -1 skips the check of the broker epoch
                ineligible_replicas.append(f"{broker_id} (broker epoch mismatch: requested="
                                           f"{broker_state.broker_epoch} VS expected={registration.epoch})")
        return ineligible_replicas

    # -- brokers --------------------------------------------------------------------------------------------------

    def handle_broker_fenced(self, broker_id: int, records: list[Any]) -> None:
        """Take the broker out of every ISR (and leadership), then fence it."""
        registration = self._cluster_control.broker_registrations().get(broker_id)
        if registration is None:
            raise RuntimeError(f"Can't find broker registration for broker {broker_id}")
        self.generate_leader_and_isr_updates("handleBrokerFenced", broker_id, NO_LEADER, NO_LEADER, records,
                                             self._brokers_to_isrs.partitions_with_broker_in_isr(broker_id))
        if is_broker_registration_change_record_supported(self._feature_control.metadata_version()):
            records.append(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=registration.epoch,
                fenced=BrokerRegistrationFencingChange.FENCE.value), 0))
        else:
            records.append(ApiMessageAndVersion(FenceBrokerRecord(id=broker_id, epoch=registration.epoch), 0))

    def handle_broker_unregistered(self, broker_id: int, broker_epoch: int, records: list[Any]) -> None:
        self.generate_leader_and_isr_updates("handleBrokerUnregistered", broker_id, NO_LEADER, NO_LEADER, records,
                                             self._brokers_to_isrs.partitions_with_broker_in_isr(broker_id))
        records.append(ApiMessageAndVersion(UnregisterBrokerRecord(broker_id=broker_id, broker_epoch=broker_epoch), 0))

    def handle_broker_unfenced(self, broker_id: int, broker_epoch: int, records: list[Any]) -> None:
        """Unfence the broker, then give it the leaderships of leaderless partitions it may lead."""
        if is_broker_registration_change_record_supported(self._feature_control.metadata_version()):
            records.append(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=broker_epoch,
                fenced=BrokerRegistrationFencingChange.UNFENCE.value), 0))
        else:
            records.append(ApiMessageAndVersion(UnfenceBrokerRecord(id=broker_id, epoch=broker_epoch), 0))
        self.generate_leader_and_isr_updates("handleBrokerUnfenced", NO_LEADER, broker_id, NO_LEADER, records,
                                             self._brokers_to_isrs.partitions_with_no_leader())

    def handle_broker_in_controlled_shutdown(self, broker_id: int, broker_epoch: int, records: list[Any]) -> None:
        """Mark the broker in controlled shutdown (from 3.3-IV3), then move its leaderships and ISR memberships."""
        if is_in_controlled_shutdown_state_supported(self._feature_control.metadata_version()) and \
                not self._cluster_control.in_controlled_shutdown(broker_id):
            records.append(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=broker_epoch,
                in_controlled_shutdown=BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN.value), 1))
        self.generate_leader_and_isr_updates(f"enterControlledShutdown[{broker_id}]", broker_id, NO_LEADER, NO_LEADER,
                                             records, self._brokers_to_isrs.partitions_with_broker_in_isr(broker_id))

    def handle_broker_unclean_shutdown(self, broker_id: int, records: list[Any]) -> None:
        """A broker that comes back without a clean shutdown leaves the ISRs and ELRs it was in, once the
        metadata.version has ELR (4.0-IV0); ELR is not built, so this writes nothing."""
        if not self._feature_control.metadata_version().is_at_least(MetadataVersion.IBP_4_0_IV0):  # isElrSupported
            return
        log.warning("%shandleBrokerUncleanShutdown(%d): eligible leader replicas are not built", self._log_prefix,
                    broker_id)

    # -- electLeaders ---------------------------------------------------------------------------------------------

    def elect_leaders(self, request: Any) -> ControllerResult[Any]:
        """ElectLeaders: a PartitionChangeRecord per partition whose election changes its leader; the answer is an
        ElectLeadersResponse (v2) with each partition's outcome."""
        election_type = _election_type(getattr(request, "election_type", ELECTION_TYPE_PREFERRED))
        records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        replica_election_results: list[dict[str, Any]] = []
        if request.topic_partitions is None:
            # Every partition of every topic (the old controller's behaviour, kept by the protocol); partitions that
            # already have the leader asked for are left out of the answer.
            for topic_name, topic_id in self._topics_by_name.entry_set():
                partition_results: list[dict[str, Any]] = []
                replica_election_results.append({"topic": topic_name, "partition_result": partition_results})
                topic = self._topics.get(topic_id)
                if topic is not None:
                    for partition_id in topic.parts.key_set():
                        error = self.elect_leader(topic_name, partition_id, election_type, records)
                        if error.error is not Errors.ELECTION_NOT_NEEDED:
                            partition_results.append({"partition_id": partition_id, "error_code": error.error,
                                                      "error_message": error.message})
        else:
            for topic in request.topic_partitions:
                partition_results = []
                replica_election_results.append({"topic": topic.topic, "partition_result": partition_results})
                for partition_id in topic.partitions:
                    error = self.elect_leader(topic.topic, partition_id, election_type, records)
                    partition_results.append({"partition_id": partition_id, "error_code": error.error,
                                              "error_message": error.message})
        response = build(elect_leaders_response.ElectLeadersResponse, throttle_time=0, error_code=Errors.NONE,
                         replica_election_results=replica_election_results)
        return ControllerResult.of(records, response)

    def elect_leader(self, topic: str, partition_id: int, election_type: int, records: list[Any]) -> ApiError:
        topic_id = self._topics_by_name.get(topic)
        if topic_id is None:
            return ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic}")
        topic_info = self._topics.get(topic_id)
        if topic_info is None:
            return ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic id as {_uuid_string(topic_id)}")
        partition = topic_info.parts.get(partition_id)
        if partition is None:
            return ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {topic}-{partition_id}")
        if (election_type == ELECTION_TYPE_PREFERRED and partition.has_preferred_leader()) or \
                (election_type == ELECTION_TYPE_UNCLEAN and partition.has_leader()):
            return ApiError(Errors.ELECTION_NOT_NEEDED)
        election = Election.UNCLEAN if election_type == ELECTION_TYPE_UNCLEAN else Election.PREFERRED
        record = (PartitionChangeBuilder(partition, topic_id, partition_id, self._leader_acceptor(partition),
                                         self._feature_control.metadata_version())
                  .set_election(election)
                  .set_default_dir_provider(self.cluster_describer.default_dir)
                  .build())
        if record is None:
            if election_type == ELECTION_TYPE_PREFERRED:
                return ApiError(Errors.PREFERRED_LEADER_NOT_AVAILABLE)
            return ApiError(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE)
        records.append(record)
        return ApiError.NONE

    def process_broker_heartbeat(self, request: Any,
                                 register_broker_record_offset: int) -> ControllerResult[BrokerHeartbeatReply]:
        broker_id = request.broker_id
        broker_epoch = request.broker_epoch
        self._cluster_control.check_broker_epoch(broker_id, broker_epoch)
        heartbeat_manager = self._cluster_control.heartbeat_manager()
        states = heartbeat_manager.calculate_next_broker_state(broker_id, request, register_broker_record_offset,
                                                               lambda: self.has_leaderships(broker_id))
        records: list[Any] = []
        if states.current is not states.next:
            if states.next in (BrokerControlState.FENCED, BrokerControlState.SHUTDOWN_NOW):
                self.handle_broker_fenced(broker_id, records)
            elif states.next is BrokerControlState.UNFENCED:
                self.handle_broker_unfenced(broker_id, broker_epoch, records)
            elif states.next is BrokerControlState.CONTROLLED_SHUTDOWN:
                self.handle_broker_in_controlled_shutdown(broker_id, broker_epoch, records)
        heartbeat_manager.touch(broker_id, states.next.fenced, request.current_metadata_offset)
        is_caught_up = request.current_metadata_offset >= register_broker_record_offset
        reply = BrokerHeartbeatReply(is_caught_up, states.next.fenced, states.next.in_controlled_shutdown(),
                                     states.next.should_shut_down)
        return ControllerResult.of(records, reply)

    def process_expired_broker_heartbeat(self, request: Any) -> None:
        """A heartbeat that timed out in the queue still counts as contact (the broker is alive, we are slow), but
        changes no state."""
        broker_id = request.broker_id
        self._cluster_control.check_broker_epoch(broker_id, request.broker_epoch)
        self._cluster_control.heartbeat_manager().touch(broker_id,
                                                        self._cluster_control.broker_registrations()[broker_id].fenced,
                                                        request.current_metadata_offset)
        log.error("%sprocessExpiredBrokerHeartbeat: controller event queue overloaded. Timed out heartbeat from "
                  "broker %d.", self._log_prefix, broker_id)

    def unregister_broker(self, broker_id: int) -> ControllerResult[None]:
        registration = self._cluster_control.broker_registrations().get(broker_id)
        if registration is None:
            raise BrokerIdNotRegisteredException(f"Broker ID {broker_id} is not currently registered")
        records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        self.handle_broker_unregistered(broker_id, registration.epoch, records)
        return ControllerResult.of(records, None)

    @span("ReplicationControlManager.maybeFenceOneStaleBroker")
    def maybe_fence_one_stale_broker(self) -> ControllerResult[None]:
        """KR.fence: fence the longest-silent broker if its session ran out (one broker per event, so each fencing
        is visible before the next; the caller reschedules at once for the next one)."""
        records: list[Any] = []
        heartbeat_manager = self._cluster_control.heartbeat_manager()
        broker_id = heartbeat_manager.find_one_stale_broker()
        if broker_id is not None:
            log.info("%sFencing broker %d because its session has timed out.", self._log_prefix, broker_id)
            self.handle_broker_fenced(broker_id, records)
            heartbeat_manager.fence(broker_id)
        return ControllerResult.of(records, None)

    # -- createPartitions -----------------------------------------------------------------------------------------

    def create_partitions(self, context: Any, topics: Iterable[Any]) -> ControllerResult[list[dict[str, Any]]]:
        """CreatePartitions: for each topic, its new PartitionRecords, or the error that refuses it; all in one
        atomic batch. Each result is a CreatePartitionsTopicResult's fields."""
        records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        results: list[dict[str, Any]] = BoundedList(MAX_RECORDS_PER_USER_OP)
        for topic in topics:
            api_error = ApiError.NONE
            try:
                self._create_partitions(context, topic, records)
            except ApiException as e:
                api_error = ApiError.from_throwable(e)
            except Exception as e:
                log.error("%sUnexpected createPartitions error for %s", self._log_prefix, topic, exc_info=e)
                api_error = ApiError.from_throwable(e)
            results.append({"name": topic.name, "error_code": api_error.error, "error_message": api_error.message})
        return ControllerResult.atomic_of(records, results)

    def _create_partitions(self, context: Any, topic: Any, records: list[Any]) -> None:
        topic_id = self._topics_by_name.get(topic.name)
        if topic_id is None:
            raise UnknownTopicOrPartitionException()
        topic_info = self._topics.get(topic_id)
        if topic_info is None:
            raise UnknownTopicOrPartitionException()
        existing = topic_info.parts.size()
        if topic.count == existing:
            raise InvalidPartitionsException(f"Topic already has {existing} partition(s).")
        if topic.count < existing:
            raise InvalidPartitionsException(f"The topic {topic.name} currently has {existing} partition(s); "
                                             f"{topic.count} would not be an increase.")
        additional = topic.count - existing
        if topic.assignments is not None and len(topic.assignments) != additional:
            raise InvalidReplicaAssignmentException(f"Attempted to add {additional} additional partition(s), but "
                                                    f"only {len(topic.assignments)} assignment(s) were specified.")
        partition_infos = topic_info.parts.values_at()
        if not partition_infos:
            raise UnknownServerException(f"Invalid state: topic {topic.name} appears to have no partitions.")
        replication_factor = len(partition_infos[0].replicas)
        start_partition_id = existing
        partition_assignments: list[PartitionAssignment] = []
        isrs: list[list[int]] = []
        if topic.assignments is not None:
            for i, assignment in enumerate(topic.assignments):
                partition_assignment = PartitionAssignment.of(list(assignment.broker_ids), self.cluster_describer)
                self.validate_manual_partition_assignment(partition_assignment, replication_factor)
                partition_assignments.append(partition_assignment)
                isr = [r for r in partition_assignment.replicas if self._cluster_control.is_active(r)]
                if not isr:
                    raise InvalidReplicaAssignmentException(
                        "All brokers specified in the manual partition assignment for partition "
                        f"{start_partition_id + i} are fenced or in controlled shutdown.")
                isrs.append(isr)
        else:
            partition_assignments = self._cluster_control.replica_placer().place(
                PlacementSpec(start_partition_id, additional, replication_factor), self.cluster_describer).assignments
            isrs = [list(a.replicas) for a in partition_assignments]
        partition_id = start_partition_id
        for partition_assignment, candidate_isr in zip(partition_assignments, isrs, strict=True):
            isr = [r for r in candidate_isr if self._cluster_control.is_active(r)]
            # No ISR: every broker is fenced or in controlled shutdown; the placer refuses that case with
            # INVALID_REPLICATION_FACTOR, and so does this.
            if not isr:
                raise InvalidReplicationFactorException(
                    f"Unable to replicate the partition {replication_factor} time(s): All brokers are currently "
                    "fenced or in controlled shutdown.")
            records.append(_build_partition_registration(partition_assignment, isr).to_record(
                topic_id, partition_id, self._feature_control.metadata_version()))
            partition_id += 1

    def validate_manual_partition_assignment(self, assignment: PartitionAssignment,
                                             replication_factor: int | None) -> None:
        """InvalidReplicaAssignmentException unless the replicas are registered brokers, each once, as many as the
        other partitions have (`replication_factor`, when known)."""
        if not assignment.replicas:
            raise InvalidReplicaAssignmentException("The manual partition assignment includes an empty replica list.")
        sorted_broker_ids = sorted(assignment.replicas)
        prev_broker_id = None
        for broker_id in sorted_broker_ids:
            if broker_id not in self._cluster_control.broker_registrations():
                raise InvalidReplicaAssignmentException(f"The manual partition assignment includes broker {broker_id}, "
                                                        "but no such broker is registered.")
            if broker_id == prev_broker_id:
                raise InvalidReplicaAssignmentException(f"The manual partition assignment includes the broker "
                                                        f"{prev_broker_id} more than once.")
            prev_broker_id = broker_id
        if replication_factor is not None and len(sorted_broker_ids) != replication_factor:
            raise InvalidReplicaAssignmentException(
                f"The manual partition assignment includes a partition with {len(sorted_broker_ids)} replica(s), but "
                f"this is not consistent with previous partitions, which have {replication_factor} replica(s).")

    # -- leaders and ISRs -----------------------------------------------------------------------------------------

    def _leader_acceptor(self, partition: PartitionRegistration,
                         is_acceptable_leader: Callable[[int], bool] | None = None) -> Callable[[int], bool]:
        """LeaderAcceptor: an acceptable broker (by default an active one) whose directory of this partition is
        online."""
        accept = is_acceptable_leader or self._cluster_control.is_active

        def test(broker_id: int) -> bool:
            if not accept(broker_id):
                return False
            return self._cluster_control.has_online_dir(broker_id, partition.directory(broker_id))
        return test

    def generate_leader_and_isr_updates(self, context: str, broker_to_remove: int, broker_to_add: int,
                                        broker_with_unclean_shutdown: int, records: list[Any],
                                        partitions: Iterable[TopicIdPartition]) -> None:
        """PartitionChangeRecords for the given partitions: `broker_to_remove` leaves their ISRs and leaderships
        (a new leader comes from the ISR), or `broker_to_add` may lead them even though the registrations still
        show it fenced (it is being unfenced)."""
        old_size = len(records)

        def is_acceptable_leader(r: int) -> bool:
            return (r != broker_to_remove and r != broker_with_unclean_shutdown) and \
                (r == broker_to_add or self._cluster_control.is_active(r))

        for tp in list(partitions):
            topic = self._topics.get(tp.topic_id)
            if topic is None:
                raise RuntimeError(f"Topic ID {_uuid_string(tp.topic_id)} existed in isrMembers, but not in the topics "
                                   "map.")
            partition = topic.parts.get(tp.partition_id)
            if partition is None:
                raise RuntimeError(f"Partition {tp} existed in isrMembers, but not in the partitions map.")
            builder = PartitionChangeBuilder(partition, tp.topic_id, tp.partition_id,
                                             self._leader_acceptor(partition, is_acceptable_leader),
                                             self._feature_control.metadata_version())
            if self._configuration_control.unclean_leader_election_enabled_for_topic(topic.name):
                builder.set_election(Election.UNCLEAN)
            # No-op when both are NO_LEADER: the target ISR is the ISR.
            builder.set_target_isr([r for r in partition.isr
                                    if r not in (broker_to_remove, broker_with_unclean_shutdown)])
            change = builder.set_default_dir_provider(self.cluster_describer.default_dir).build()
            if change is not None:
                records.append(change)
        if len(records) != old_size:
            if log.isEnabledFor(logging.DEBUG):
                log.debug("%s%s: changing partition(s): %s", self._log_prefix, context,
                          ", ".join(f"{self._topics[r.message.topic_id].name}-{r.message.partition_id}"
                                    for r in records[old_size:]))
            else:
                log.info("%s%s: changing %d partition(s)", self._log_prefix, context, len(records) - old_size)

    # -- partition reassignments -----------------------------------------------------------------------------------

    def alter_partition_reassignments(self, request: Any) -> ControllerResult[Any]:
        """AlterPartitionReassignments: a reassignment started (or changed) for each partition with replicas, cancelled
        for each with none; all or nothing. The answer is an AlterPartitionReassignmentsResponse (v0)."""
        records: list[Any] = BoundedList(MAX_RECORDS_PER_USER_OP)
        responses: list[dict[str, Any]] = []
        successful_alterations = total_alterations = 0
        for topic in request.topics:
            partitions: list[dict[str, Any]] = []
            for partition in topic.partitions:
                error = ApiError.NONE
                try:
                    self.alter_partition_reassignment(topic.name, partition, records)
                    successful_alterations += 1
                except Exception as e:
                    log.info("%sUnable to alter partition reassignment for %s:%d because of an %s error: %s",
                             self._log_prefix, topic.name, partition.partition_index, type(e).__name__, e)
                    error = ApiError.from_throwable(e)
                total_alterations += 1
                partitions.append({"partition_index": partition.partition_index, "error_code": error.error,
                                   "error_message": error.message})
            responses.append({"name": topic.name, "partitions": partitions})
        log.info("%sSuccessfully altered %d out of %d partition reassignment(s).", self._log_prefix,
                 successful_alterations, total_alterations)
        response = build(alter_reassignments_response.AlterPartitionReassignmentsResponse, throttle_time=0,
                         error_code=Errors.NONE, error_message=None, responses=responses)
        return ControllerResult.atomic_of(records, response)

    def alter_partition_reassignment(self, topic_name: str, target: Any, records: list[Any]) -> None:
        topic_id = self._topics_by_name.get(topic_name)
        if topic_id is None:
            raise UnknownTopicOrPartitionException(f"Unable to find a topic named {topic_name}.")
        topic_info = self._topics.get(topic_id)
        if topic_info is None:
            raise UnknownTopicOrPartitionException(f"Unable to find a topic with ID {_uuid_string(topic_id)}.")
        tp = TopicIdPartition(topic_id, target.partition_index)
        part = topic_info.parts.get(target.partition_index)
        if part is None:
            raise UnknownTopicOrPartitionException(f"Unable to find partition {topic_name}:{target.partition_index}.")
        if target.replicas is None:
            record = self.cancel_partition_reassignment(topic_name, tp, part)
        else:
            record = self.change_partition_reassignment(tp, part, target)
        if record is not None:
            records.append(record)

    def cancel_partition_reassignment(self, topic_name: str, tp: TopicIdPartition,
                                      part: PartitionRegistration) -> Any | None:
        if not is_reassignment_in_progress(part):
            # Kafka's message is the error's default text, which the answer drops
            raise NoReassignmentInProgressException()
        revert = PartitionReassignmentRevert(part)
        if revert.unclean():
            if not self._configuration_control.unclean_leader_election_enabled_for_topic(topic_name):
                raise InvalidReplicaAssignmentException(f"Unable to revert partition assignment for {topic_name}:"
                                                        f"{tp.partition_id} because it would require an unclean "
                                                        "leader election.")
        builder = PartitionChangeBuilder(part, tp.topic_id, tp.partition_id, self._leader_acceptor(part),
                                         self._feature_control.metadata_version())
        if self._configuration_control.unclean_leader_election_enabled_for_topic(topic_name):
            builder.set_election(Election.UNCLEAN)
        return (builder.set_target_isr(revert.isr())
                .set_target_replicas(revert.replicas())
                .set_target_removing([])
                .set_target_adding([])
                .set_default_dir_provider(self.cluster_describer.default_dir)
                .build())

    def change_partition_reassignment(self, tp: TopicIdPartition, part: PartitionRegistration,
                                      target: Any) -> Any | None:
        """A reassignment goes in stages: first the new replicas join the replica list (as adding, the old ones as
        removing); once the ISR holds every target replica, a second change drops the removed ones (the
        PartitionChangeBuilder makes it, on the AlterPartition that completes the ISR). A reassignment that only
        reorders replicas already in the ISR completes at once."""
        current_assignment = PartitionAssignment(list(part.replicas), list(part.directories))
        target_assignment = PartitionAssignment.of(list(target.replicas), self.cluster_describer)
        self.validate_manual_partition_assignment(target_assignment, None)
        current_replicas = list(part.replicas)
        reassignment = PartitionReassignmentReplicas.of_assignments(current_assignment, target_assignment)
        builder = PartitionChangeBuilder(part, tp.topic_id, tp.partition_id, self._leader_acceptor(part),
                                         self._feature_control.metadata_version())
        if reassignment.replicas() != current_replicas:
            builder.set_target_replicas(reassignment.replicas())
        if reassignment.removing():
            builder.set_target_removing(reassignment.removing())
        if reassignment.adding():
            builder.set_target_adding(reassignment.adding())
        return builder.set_default_dir_provider(self.cluster_describer.default_dir).build()

    def list_partition_reassignments(self, topic_list: Iterable[Any] | None, epoch: int) -> Any:
        """ListPartitionReassignments (v0 response): every reassigning partition, or those of the topics named."""
        topics: list[dict[str, Any]] = []
        if topic_list is None:
            for topic_id, partition_ids in self._reassigning_topics.entry_set(epoch):
                self._list_reassigning_topic(topics, topic_id, list(partition_ids))
        else:
            for topic in topic_list:
                topic_id = self._topics_by_name.get(topic.name, epoch)
                if topic_id is not None:
                    self._list_reassigning_topic(topics, topic_id, list(topic.partition_indexes))
        return build(list_reassignments_response.ListPartitionReassignmentsResponse, throttle_time=0,
                     error_code=Errors.NONE, error_message=None, topics=topics)

    def _list_reassigning_topic(self, topics: list[dict[str, Any]], topic_id: uuid.UUID,
                                partition_ids: list[int]) -> None:
        topic_info = self._topics.get(topic_id)
        if topic_info is None:
            return
        partitions = []
        for partition_id in partition_ids:
            ongoing = self._get_ongoing_partition_reassignment(topic_info, partition_id)
            if ongoing is not None:
                partitions.append(ongoing)
        if partitions:
            topics.append({"name": topic_info.name, "partitions": partitions})

    def _get_ongoing_partition_reassignment(self, topic_info: TopicControlInfo,
                                            partition_id: int) -> dict[str, Any] | None:
        partition = topic_info.parts.get(partition_id)
        if partition is None or not is_reassignment_in_progress(partition):
            return None
        return {"adding_replicas": list(partition.adding_replicas),
                "removing_replicas": list(partition.removing_replicas), "partition_index": partition_id,
                "replicas": list(partition.replicas)}


def validate_new_topic_names(topic_errors: dict[str, ApiError], topics: Iterable[Any],
                             topics_with_collision_chars: Mapping[str, Iterable[str]]) -> None:
    """An INVALID_TOPIC_EXCEPTION for each name that is not a valid topic name, or that collides with an existing
    topic's ('.' and '_' are the same in metric names)."""
    for topic in topics:
        if topic.name in topic_errors:
            continue
        try:
            Topic.validate(topic.name)
        except InvalidTopicException as e:
            topic_errors[topic.name] = ApiError(Errors.INVALID_TOPIC_EXCEPTION, str(e))
        if Topic.has_collision_chars(topic.name):
            normalized_name = Topic.unify_collision_chars(topic.name)
            colliding = topics_with_collision_chars.get(normalized_name)
            if colliding is not None:
                topic_errors[topic.name] = ApiError(
                    Errors.INVALID_TOPIC_EXCEPTION,
                    f"Topic '{topic.name}' collides with existing topic: {next(iter(colliding))}")


def compute_config_changes(topic_errors: dict[str, ApiError],
                           topics: Iterable[Any]) -> dict[ConfigResource, dict[str, tuple[OpType, str | None]]]:
    """The configs each topic sets, as SET operations; an INVALID_CONFIG for a topic that sets one to null."""
    config_changes: dict[ConfigResource, dict[str, tuple[OpType, str | None]]] = {}
    for topic in topics:
        if topic.name in topic_errors:
            continue
        topic_configs: dict[str, tuple[OpType, str | None]] = {}
        null_configs = []
        for config in topic.configs:
            if config.value is None:
                null_configs.append(config.name)
            else:
                topic_configs[config.name] = (OpType.SET, config.value)
        if null_configs:
            topic_errors[topic.name] = ApiError(Errors.INVALID_CONFIG, "Null value not supported for topic configs: "
                                                + ",".join(null_configs))
        elif topic_configs:
            config_changes[(ConfigResourceType.TOPIC, topic.name)] = topic_configs
    return config_changes


def _election_type(value: int) -> int:
    """ElectionType.valueOf: 0 PREFERRED, 1 UNCLEAN."""
    if value not in (ELECTION_TYPE_PREFERRED, ELECTION_TYPE_UNCLEAN):
        raise InvalidRequestException(f"Unknown election type {int(value)}")
    return value


def _build_partition_registration(assignment: PartitionAssignment, isr: list[int]) -> PartitionRegistration:
    return PartitionRegistration(replicas=tuple(assignment.replicas), directories=tuple(assignment.directories),
                                 isr=tuple(isr), leader=isr[0], leader_recovery_state=LeaderRecoveryState.RECOVERED,
                                 leader_epoch=0, partition_epoch=0)


def _validate_isr(replicas: Iterable[int], isr: list[int]) -> bool:
    """Replicas.validateIsr: distinct, non-negative replicas of the partition (an empty ISR passes here)."""
    replicas = list(replicas)
    if not isr:
        return True
    if not replicas or min(isr) < 0 or len(set(isr)) != len(isr):
        return False
    return set(isr) <= set(replicas)


def _alter_partition_error(partition_index: int, error: Errors) -> dict[str, Any]:
    """An AlterPartition partition answer with only its index and error: the other fields keep their defaults."""
    return {"partition_index": partition_index, "error_code": error, "leader_id": 0, "leader_epoch": 0, "isr": (),
            "leader_recovery_state": 0, "partition_epoch": 0}
