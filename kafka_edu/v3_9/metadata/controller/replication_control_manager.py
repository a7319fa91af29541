"""Port of metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java (Kafka 3.9).

Ported: topics and partitions (replay of Topic, Partition, PartitionChange and RemoveTopic records), createTopics,
deleteTopics, processBrokerHeartbeat with fencing/unfencing/controlled shutdown, maybeFenceOneStaleBroker and
alterPartition. Left out: reassignments, createPartitions, electLeaders and leader balancing, create-topic
policies, quotas, ELR. BrokersToIsrs (Kafka's index from a broker to the partitions whose ISR holds it) is
answered here by a scan of the timeline maps, so it reverts with them.
"""

from __future__ import annotations

import datetime
import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kio.schema.alter_partition.v3 import response as alter_partition_response
from kio.schema.create_topics.v7 import response as create_topics_response
from kio.static.primitive import i16, i32, i32Timedelta

from kafka_edu.tracing.step import span
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    InvalidPartitionsException,
    InvalidReplicaAssignmentException,
    InvalidReplicationFactorException,
    InvalidTopicException,
    PolicyViolationException,
    UnknownServerException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v1_0_2.core.server.admin_manager import has_collision_chars, validate_topic
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
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
    ConfigResourceType,
    ConfigurationControlManager,
)
from kafka_edu.v3_9.metadata.controller.controller_exceptions import (
    BrokerIdNotRegisteredException,
    UnknownTopicIdException,
)
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    FeatureControlManager,
    broker_registration_change_record_version,
    is_broker_registration_change_record_supported,
)
from kafka_edu.v3_9.metadata.controller.partition_change_builder import Election, PartitionChangeBuilder
from kafka_edu.v3_9.metadata.metadata.broker_registration import (
    BrokerHeartbeatReply,
    BrokerRegistrationFencingChange,
    BrokerRegistrationInControlledShutdownChange,
)
from kafka_edu.v3_9.metadata.metadata.partition_registration import (
    NO_LEADER,
    NO_LEADER_CHANGE,
    LeaderRecoveryState,
    PartitionRegistration,
)
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import PartitionAssignment, PlacementSpec
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_integer import TimelineInteger

log = logging.getLogger(__name__)

MAX_PARTITIONS_PER_BATCH = 10_000  # the most partitions one CreateTopics may make (3.9)

MAX_RECORDS_PER_USER_OP = 10000


@dataclass(frozen=True)
class ApiError:
    """org.apache.kafka.common.requests.ApiError: an error code and its message."""

    error: Errors
    message: str | None = None

    def is_success(self) -> bool:
        return self.error is Errors.NONE

    def is_failure(self) -> bool:
        return not self.is_success()

    @staticmethod
    def from_throwable(e: BaseException) -> ApiError:
        return ApiError(Errors.for_exception(e), str(e) or None)


ApiError.NONE = ApiError(Errors.NONE)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class TopicIdPartition:
    topic_id: uuid.UUID
    partition_id: int


class TopicControlInfo:
    def __init__(self, name: str, snapshot_registry: SnapshotRegistry, topic_id: uuid.UUID) -> None:
        self.name = name
        self.id = topic_id
        self.parts: TimelineHashMap[int, PartitionRegistration] = TimelineHashMap(snapshot_registry)


class ReplicationControlManager:
    def __init__(self, snapshot_registry: SnapshotRegistry, cluster_control: ClusterControlManager,
                 configuration_control: ConfigurationControlManager, feature_control: FeatureControlManager,
                 default_replication_factor: int = 3, default_num_partitions: int = 1,
                 log_context: str = "") -> None:
        self._log_prefix = log_context
        self._snapshot_registry = snapshot_registry
        self._cluster_control = cluster_control
        self._configuration_control = configuration_control
        self._feature_control = feature_control
        self._default_replication_factor = default_replication_factor
        self._default_num_partitions = default_num_partitions
        self._global_partition_count = TimelineInteger(snapshot_registry)
        self._topics_by_name: TimelineHashMap[str, uuid.UUID] = TimelineHashMap(snapshot_registry)
        self._topics: TimelineHashMap[uuid.UUID, TopicControlInfo] = TimelineHashMap(snapshot_registry)

    # -- replay ---------------------------------------------------------------------------------------------------

    def replay_topic(self, record: Any) -> None:
        self._topics_by_name.put(record.name, record.topic_id)
        self._topics.put(record.topic_id, TopicControlInfo(record.name, self._snapshot_registry, record.topic_id))
        log.info("%sReplayed TopicRecord for topic %s with topic ID %s.", self._log_prefix, record.name,
                 record.topic_id)

    def replay_partition(self, record: Any) -> None:
        topic_info = self._topics.get(record.topic_id)
        if topic_info is None:
            raise RuntimeError(f"Tried to create partition {record.topic_id}:{record.partition_id}, but no topic "
                               "with that ID was found.")
        new_part_info = PartitionRegistration.from_record(record)
        prev_part_info = topic_info.parts.get(record.partition_id)
        description = f"{topic_info.name}-{record.partition_id} with topic ID {record.topic_id}"
        if prev_part_info is None:
            log.info("%sReplayed PartitionRecord for new partition %s and %s.", self._log_prefix, description,
                     new_part_info)
            topic_info.parts.put(record.partition_id, new_part_info)
            self._global_partition_count.increment()
        elif prev_part_info != new_part_info:
            log.info("%sReplayed PartitionRecord for existing partition %s and %s.", self._log_prefix, description,
                     new_part_info)
            topic_info.parts.put(record.partition_id, new_part_info)

    def replay_partition_change(self, record: Any) -> None:
        topic_info = self._topics.get(record.topic_id)
        if topic_info is None:
            raise RuntimeError(f"Tried to create partition {record.topic_id}:{record.partition_id}, but no topic "
                               "with that ID was found.")
        partition = topic_info.parts.get(record.partition_id)
        if partition is None:
            raise RuntimeError(f"Tried to update partition {record.topic_id}:{record.partition_id}, but no "
                               "partition with that ID was found.")
        new_partition_info = partition.merge(record)
        topic_info.parts.put(record.partition_id, new_partition_info)
        log.info("%sReplayed partition change %s for topic %s", self._log_prefix, record, topic_info.name)

    def replay_remove_topic(self, record: Any) -> None:
        topic = self._topics.remove(record.topic_id)
        if topic is None:
            raise UnknownTopicIdException(f"Can't find topic with ID {record.topic_id} to remove.")
        self._topics_by_name.remove(topic.name)
        self._global_partition_count.set(self._global_partition_count.get() - len(topic.parts))
        self._configuration_control.delete_topic_configs(topic.name)
        log.info("%sReplayed RemoveTopicRecord for topic %s with ID %s.", self._log_prefix, topic.name,
                 record.topic_id)

    # -- reads ----------------------------------------------------------------------------------------------------

    def get_topic_id(self, name: str) -> uuid.UUID | None:
        return self._topics_by_name.get(name)

    def get_partition(self, topic_id: uuid.UUID, partition_id: int) -> PartitionRegistration | None:
        topic = self._topics.get(topic_id)
        return None if topic is None else topic.parts.get(partition_id)

    def topics(self) -> TimelineHashMap[uuid.UUID, TopicControlInfo]:
        return self._topics

    def global_partition_count(self) -> int:
        return self._global_partition_count.get()

    def find_topic_ids(self, offset: int, names: list[str]) -> dict[str, uuid.UUID | ApiError]:
        results: dict[str, uuid.UUID | ApiError] = {}
        for name in names:
            topic_id = self._topics_by_name.get(name, offset)
            results[name] = topic_id if topic_id is not None else ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)
        return results

    # -- BrokersToIsrs --------------------------------------------------------------------------------------------

    def _partitions(self) -> Iterator[tuple[TopicIdPartition, PartitionRegistration]]:
        for topic_id, topic in self._topics.entry_set():
            for partition_id, partition in topic.parts.entry_set():
                yield TopicIdPartition(topic_id, partition_id), partition

    def partitions_with_broker_in_isr(self, broker_id: int) -> list[TopicIdPartition]:
        return [tp for tp, p in self._partitions() if broker_id in p.isr]

    def partitions_with_no_leader(self) -> list[TopicIdPartition]:
        return [tp for tp, p in self._partitions() if p.leader == NO_LEADER]

    def partitions_led_by_broker(self, broker_id: int) -> list[TopicIdPartition]:
        return [tp for tp, p in self._partitions() if p.leader == broker_id]

    def has_leaderships(self, broker_id: int) -> bool:
        return any(p.leader == broker_id for _, p in self._partitions())

    # -- createTopics ---------------------------------------------------------------------------------------------

    def create_topics(self, context: Any, request: Any, describable: set[str] | None = None) -> ControllerResult:
        topic_errors: dict[str, ApiError] = {}
        records: list[Any] = []
        self._validate_new_topic_names(topic_errors, request.topics)
        # one request's topics go to the log as one atomic batch: it must fit
        validate_total_number_of_partitions(request, self._default_num_partitions)
        for t in request.topics:
            if t.name in self._topics_by_name:
                topic_errors[t.name] = ApiError(Errors.TOPIC_ALREADY_EXISTS, f"Topic '{t.name}' already exists.")
        config_changes = self._compute_config_changes(topic_errors, request.topics)
        successes: dict[str, Any] = {}
        for topic in request.topics:
            if topic.name in topic_errors:
                continue
            key_to_ops = config_changes.get(topic.name)
            config_records: list[Any] = []
            if key_to_ops:
                self._configuration_control.incremental_alter_config(
                    (ConfigResourceType.TOPIC, topic.name), key_to_ops, True, config_records)
            try:
                error = self._create_topic(context, topic, records, successes, config_records,
                                           describable is None or topic.name in describable)
            except ApiException as e:
                error = ApiError.from_throwable(e)
            if error.is_failure():
                topic_errors[topic.name] = error
        results = []
        for topic in request.topics:
            error = topic_errors.get(topic.name)
            if error is not None:
                results.append(create_topics_response.CreatableTopicResult(
                    name=topic.name, topic_id=None, error_code=error.error, error_message=error.message,
                    configs=None))
            else:
                results.append(successes[topic.name])
        data = create_topics_response.CreateTopicsResponse(throttle_time=i32Timedelta.parse(datetime.timedelta(0)),
                                                          topics=tuple(results))
        summary = ", ".join(f"{r.name}: {Errors.for_code(int(r.error_code)).name}"
                            + (f" ({r.error_message})" if r.error_message else "") for r in results)
        if request.validate_only:
            log.info("%sValidate-only CreateTopics result(s): %s", self._log_prefix, summary)
            return ControllerResult.atomic_of([], data)
        log.info("%sCreateTopics result(s): %s", self._log_prefix, summary)
        return ControllerResult.atomic_of(records, data)

    def _validate_new_topic_names(self, topic_errors: dict[str, ApiError], topics: Any) -> None:
        existing_unified = {name.replace(".", "_"): name for name in self._topics_by_name.key_set()
                            if has_collision_chars(name)}
        for topic in topics:
            if topic.name in topic_errors:
                continue
            try:
                validate_topic(topic.name)
            except InvalidTopicException as e:
                topic_errors[topic.name] = ApiError(Errors.INVALID_TOPIC_EXCEPTION, str(e))
                continue
            if has_collision_chars(topic.name):
                colliding = existing_unified.get(topic.name.replace(".", "_"))
                if colliding is not None and colliding != topic.name:
                    topic_errors[topic.name] = ApiError(
                        Errors.INVALID_TOPIC_EXCEPTION, f"Topic '{topic.name}' collides with existing topic: "
                        f"{colliding}")

    @staticmethod
    def _compute_config_changes(topic_errors: dict[str, ApiError],
                                topics: Any) -> dict[str, dict[str, tuple[str, str | None]]]:
        changes: dict[str, dict[str, tuple[str, str | None]]] = {}
        for topic in topics:
            if topic.name in topic_errors:
                continue
            key_to_ops: dict[str, tuple[str, str | None]] = {}
            for config in topic.configs:
                key_to_ops[config.name] = ("SET", config.value)
            if key_to_ops:
                changes[topic.name] = key_to_ops
        return changes

    def _create_topic(self, context: Any, topic: Any, records: list[Any], successes: dict[str, Any],
                      config_records: list[Any], include_configs: bool) -> ApiError:
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
                partition_assignment = PartitionAssignment.of(list(assignment.broker_ids), self._cluster_control)
                error = self._validate_manual_partition_assignment(partition_assignment, replication_factor)
                if error is not None:
                    return error
                replication_factor = len(assignment.broker_ids)
                isr = [r for r in assignment.broker_ids if self._cluster_control.is_active(r)]
                if not isr:
                    return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "All brokers specified in the manual "
                                    f"partition assignment for partition {assignment.partition_index} are fenced "
                                    "or in controlled shutdown.")
                new_parts[assignment.partition_index] = self._build_partition_registration(partition_assignment,
                                                                                           isr)
            for i in range(len(new_parts)):
                if i not in new_parts:
                    return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "partitions should be a consecutive 0-based "
                                    "integer sequence")
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
                    PlacementSpec(0, num_partitions, replication_factor), self._cluster_control)
                for partition_id, partition_assignment in enumerate(topic_assignment.assignments):
                    isr = [r for r in partition_assignment.replicas if self._cluster_control.is_active(r)]
                    if not isr:
                        return ApiError(Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition "
                                        f"{replication_factor} time(s): All brokers are currently fenced or in "
                                        "controlled shutdown.")
                    new_parts[partition_id] = self._build_partition_registration(partition_assignment, isr)
            except InvalidReplicationFactorException as e:
                return ApiError(Errors.INVALID_REPLICATION_FACTOR, f"Unable to replicate the partition "
                                f"{replication_factor} time(s): {e}")
        topic_id = uuid.uuid4()
        first = next(iter(new_parts.values()))
        successes[topic.name] = create_topics_response.CreatableTopicResult(
            name=topic.name, topic_id=topic_id, error_code=Errors.NONE, error_message=None,
            num_partitions=i32(len(new_parts)) if include_configs else i32(-1),
            replication_factor=i16(len(first.replicas)) if include_configs else i16(-1),
            topic_config_error_code=i16(0 if include_configs else Errors.TOPIC_AUTHORIZATION_FAILED.value),
            configs=None)

        records.append(ApiMessageAndVersion(TopicRecord(name=topic.name, topic_id=topic_id), 0))
        records.extend(config_records)  # after the TopicRecord, before its PartitionRecords
        for partition_index, info in sorted(new_parts.items()):
            records.append(info.to_record(topic_id, partition_index, self._feature_control.metadata_version()))
        return ApiError.NONE  # type: ignore[attr-defined]

    def _validate_manual_partition_assignment(self, assignment: PartitionAssignment,
                                              replication_factor: int | None) -> ApiError | None:
        if not assignment.replicas:
            return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes an empty "
                            "replica list.")
        if len(set(assignment.replicas)) != len(assignment.replicas):
            return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes the "
                            f"broker {assignment.replicas} more than once.")
        for broker_id in assignment.replicas:
            if broker_id not in self._cluster_control.broker_registrations():
                return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes "
                                f"broker {broker_id}, but no such broker is registered.")
        if replication_factor is not None and replication_factor != len(assignment.replicas):
            return ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes a "
                            f"partition with {len(assignment.replicas)} replica(s), but this is not consistent "
                            f"with previous partitions, which have {replication_factor} replica(s).")
        return None

    @staticmethod
    def _build_partition_registration(assignment: PartitionAssignment, isr: list[int]) -> PartitionRegistration:
        return PartitionRegistration(replicas=tuple(assignment.replicas), directories=tuple(assignment.directories),
                                     isr=tuple(isr), leader=isr[0],
                                     leader_recovery_state=LeaderRecoveryState.RECOVERED, leader_epoch=0,
                                     partition_epoch=0)

    # -- createPartitions -----------------------------------------------------------------------------------------

    def create_partitions(self, context: Any, topics: Any) -> ControllerResult[list[Any]]:
        """CreatePartitions: for each topic, its new PartitionRecords, or the error that refuses it; all in one
        atomic batch."""
        records: list[Any] = []
        results = []
        for topic in topics:
            api_error = ApiError.NONE  # type: ignore[attr-defined]
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
        topic_info = self._topics.get(topic_id) if topic_id is not None else None
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
        first = next(iter(topic_info.parts.values_at()), None)
        if first is None:
            raise UnknownServerException(f"Invalid state: topic {topic.name} appears to have no partitions.")
        replication_factor = len(first.replicas)
        start_partition_id = existing
        if topic.assignments is not None:
            partition_assignments = []
            for assignment in topic.assignments:
                partition_assignment = PartitionAssignment.of(list(assignment.broker_ids), self._cluster_control)
                error = self._validate_manual_partition_assignment(partition_assignment, replication_factor)
                if error is not None:
                    raise InvalidReplicaAssignmentException(error.message)
                partition_assignments.append(partition_assignment)
        else:
            partition_assignments = self._cluster_control.replica_placer().place(
                PlacementSpec(start_partition_id, additional, replication_factor), self._cluster_control).assignments
        partition_id = start_partition_id
        for partition_assignment in partition_assignments:
            isr = [r for r in partition_assignment.replicas if self._cluster_control.is_active(r)]
            if not isr:
                # as the placer does when every broker is fenced or in controlled shutdown
                raise InvalidReplicationFactorException(
                    f"Unable to replicate the partition {replication_factor} time(s): All brokers are currently "
                    "fenced or in controlled shutdown.")
            records.append(self._build_partition_registration(partition_assignment, isr).to_record(
                topic_id, partition_id, self._feature_control.metadata_version()))
            partition_id += 1

    # -- deleteTopics ---------------------------------------------------------------------------------------------

    def delete_topics(self, context: Any, ids: list[uuid.UUID]) -> ControllerResult[dict[uuid.UUID, ApiError]]:
        records: list[Any] = []
        results: dict[uuid.UUID, ApiError] = {}
        for topic_id in ids:
            try:
                self._delete_topic(context, topic_id, records)
                results[topic_id] = ApiError.NONE  # type: ignore[attr-defined]
            except ApiException as e:
                results[topic_id] = ApiError.from_throwable(e)
        return ControllerResult.atomic_of(records, results)

    def _delete_topic(self, context: Any, topic_id: uuid.UUID, records: list[Any]) -> None:

        if self._topics.get(topic_id) is None:
            raise UnknownTopicIdException("This server does not host this topic ID.")
        records.append(ApiMessageAndVersion(RemoveTopicRecord(topic_id=topic_id), 0))

    # -- brokers --------------------------------------------------------------------------------------------------

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
            if states.next is BrokerControlState.FENCED:
                self.handle_broker_fenced(broker_id, records)
            elif states.next is BrokerControlState.UNFENCED:
                self.handle_broker_unfenced(broker_id, broker_epoch, records)
            elif states.next is BrokerControlState.CONTROLLED_SHUTDOWN:
                self.handle_broker_in_controlled_shutdown(broker_id, broker_epoch, records)
            elif states.next is BrokerControlState.SHUTDOWN_NOW:
                self.handle_broker_fenced(broker_id, records)
        heartbeat_manager.touch(broker_id, states.next.fenced, request.current_metadata_offset)
        is_caught_up = request.current_metadata_offset >= register_broker_record_offset
        reply = BrokerHeartbeatReply(is_caught_up, states.next.fenced, states.next.in_controlled_shutdown(),
                                     states.next.should_shut_down)
        return ControllerResult.of(records, reply)

    def process_expired_broker_heartbeat(self, request: Any) -> None:
        """A heartbeat that timed out in the queue still counts as contact: the broker is alive, we are slow."""
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
        records: list[Any] = []
        self.handle_broker_unregistered(broker_id, registration.epoch, records)
        return ControllerResult.of(records, None)

    def handle_broker_unregistered(self, broker_id: int, broker_epoch: int, records: list[Any]) -> None:
        self.generate_leader_and_isr_updates("handleBrokerUnregistered", broker_id, NO_LEADER, records,
                                             self.partitions_with_broker_in_isr(broker_id))
        records.append(ApiMessageAndVersion(UnregisterBrokerRecord(broker_id=broker_id, broker_epoch=broker_epoch), 0))

    @span("ReplicationControlManager.maybeFenceOneStaleBroker")
    def maybe_fence_one_stale_broker(self) -> ControllerResult[None]:
        """KR.fence: fence the longest-silent broker if its session ran out (one broker per event keeps the batch
        small; the caller reschedules at once for the next one)."""
        records: list[Any] = []
        heartbeat_manager = self._cluster_control.heartbeat_manager()
        broker_id = heartbeat_manager.find_one_stale_broker()
        if broker_id is not None:
            log.info("%sFencing broker %d because its session has timed out.", self._log_prefix, broker_id)
            self.handle_broker_fenced(broker_id, records)
            heartbeat_manager.fence(broker_id)
        return ControllerResult.of(records, None)

    def handle_broker_fenced(self, broker_id: int, records: list[Any]) -> None:

        registration = self._cluster_control.broker_registrations().get(broker_id)
        if registration is None:
            raise RuntimeError(f"Can't find broker registration for broker {broker_id}")
        self.generate_leader_and_isr_updates("handleBrokerFenced", broker_id, NO_LEADER, records,
                                             self.partitions_with_broker_in_isr(broker_id))
        metadata_version = self._feature_control.metadata_version()
        if is_broker_registration_change_record_supported(metadata_version):
            records.append(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=registration.epoch,
                fenced=BrokerRegistrationFencingChange.FENCE.value),
                broker_registration_change_record_version(metadata_version)))
        else:
            records.append(ApiMessageAndVersion(FenceBrokerRecord(id=broker_id, epoch=registration.epoch), 0))

    def handle_broker_unfenced(self, broker_id: int, broker_epoch: int, records: list[Any]) -> None:

        metadata_version = self._feature_control.metadata_version()
        if is_broker_registration_change_record_supported(metadata_version):
            records.append(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=broker_epoch,
                fenced=BrokerRegistrationFencingChange.UNFENCE.value),
                broker_registration_change_record_version(metadata_version)))
        else:
            records.append(ApiMessageAndVersion(UnfenceBrokerRecord(id=broker_id, epoch=broker_epoch), 0))
        # Leaderless partitions may take the returning broker as leader, even though it is still fenced now.
        self.generate_leader_and_isr_updates("handleBrokerUnfenced", NO_LEADER, broker_id, records,
                                             self.partitions_with_no_leader())

    def handle_broker_in_controlled_shutdown(self, broker_id: int, broker_epoch: int, records: list[Any]) -> None:

        registration = self._cluster_control.broker_registrations().get(broker_id)
        if registration is not None and not registration.in_controlled_shutdown:
            metadata_version = self._feature_control.metadata_version()
            records.append(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=broker_epoch,
                in_controlled_shutdown=BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN.value),
                broker_registration_change_record_version(metadata_version)))
        self.generate_leader_and_isr_updates(f"enterControlledShutdown[{broker_id}]", broker_id, NO_LEADER, records,
                                             self.partitions_with_broker_in_isr(broker_id))

    def generate_leader_and_isr_updates(self, context: str, broker_to_remove: int, broker_to_add: int,
                                        records: list[Any], partitions: list[TopicIdPartition]) -> None:
        """PartitionChangeRecords taking `broker_to_remove` out of ISRs and leaderships (a new leader from the
        ISR), or giving leaderless partitions `broker_to_add`."""
        old_size = len(records)

        def is_acceptable_leader(r: int) -> bool:
            return r != broker_to_remove and (r == broker_to_add or self._cluster_control.is_active(r))

        for tp in partitions:
            topic = self._topics.get(tp.topic_id)
            if topic is None:
                raise RuntimeError(f"Topic ID {tp.topic_id} existed in isrMembers, but not in the topics map.")
            partition = topic.parts.get(tp.partition_id)
            if partition is None:
                raise RuntimeError(f"Partition {tp} existed in isrMembers, but not in the partitions map.")
            builder = PartitionChangeBuilder(partition, tp.topic_id, tp.partition_id, is_acceptable_leader,
                                             self._feature_control.metadata_version())
            if self._unclean_leader_election_enabled_for_topic(topic.name):
                builder.set_election(Election.UNCLEAN)
            if broker_to_remove != NO_LEADER:
                builder.set_target_isr([r for r in partition.isr if r != broker_to_remove])
            change = builder.build()
            if change is not None:
                records.append(change)
        if len(records) != old_size:
            log.info("%s%s: changing partition(s): %s", self._log_prefix, context,
                     ", ".join(f"{r.message.topic_id}:{r.message.partition_id}" for r in records[old_size:]
                               if type(r.message).__name__ == "PartitionChangeRecord"))

    def _unclean_leader_election_enabled_for_topic(self, name: str) -> bool:
        value = self._configuration_control.get_config_value((ConfigResourceType.TOPIC, name),
                                                             "unclean.leader.election.enable")
        return value is not None and value.lower() == "true"

    # -- alterPartition -------------------------------------------------------------------------------------------

    def alter_partition(self, context: Any, request: Any) -> ControllerResult:
        """ISR changes a partition leader asks for (AlterPartition v2+: topics by id, v3: brokers with epochs)."""
        request_version = context.request_api_version()
        request_version = 3 if request_version is None else request_version  # no header: the version kio built
        self._cluster_control.check_broker_epoch(request.broker_id, request.broker_epoch)
        records: list[Any] = []
        response_topics = []
        for topic_data in request.topics:
            topic_id = topic_data.topic_id
            partitions = []
            if topic_id is None or topic_id == uuid.UUID(int=0) or topic_id not in self._topics:
                error = Errors.UNKNOWN_TOPIC_ID if request_version > 1 else Errors.UNKNOWN_TOPIC_OR_PARTITION
                for partition_data in topic_data.partitions:
                    partitions.append(_alter_partition_error(partition_data.partition_index, error))
                log.info("%sRejecting AlterPartition request for unknown topic ID %s.", self._log_prefix, topic_id)
                response_topics.append(alter_partition_response.TopicData(topic_id=topic_id,
                                                                          partitions=tuple(partitions)))
                continue
            topic = self._topics[topic_id]
            for partition_data in topic_data.partitions:
                partition_id = partition_data.partition_index
                partition = topic.parts.get(partition_id)
                validation_error = self._validate_alter_partition_data(request.broker_id, topic, partition_id,
                                                                       partition, request_version, partition_data)
                if validation_error is not Errors.NONE:
                    partitions.append(_alter_partition_error(partition_id, validation_error))
                    continue
                builder = PartitionChangeBuilder(
                    partition, topic.id, partition_id, self._cluster_control.is_active,
                    self._feature_control.metadata_version())
                builder.set_target_isr_with_broker_states(partition_data.new_isr_with_epochs)
                builder.set_target_leader_recovery_state(LeaderRecoveryState(partition_data.leader_recovery_state))
                builder.set_default_dir_provider(self._cluster_control.default_dir)
                if self._unclean_leader_election_enabled_for_topic(topic.name):
                    builder.set_election(Election.UNCLEAN)
                change = builder.build()
                result = Errors.NONE
                if change is not None:
                    records.append(change)
                    partition = partition.merge(change.message)
                    if change.message.leader not in (request.broker_id, NO_LEADER_CHANGE):
                        # The leader may not change its own leadership; only a completed reassignment does this.
                        log.info("%sAlterPartition request from node %d for %s-%d completed the ongoing partition "
                                 "reassignment and triggered a leadership change. Returning NEW_LEADER_ELECTED.",
                                 self._log_prefix, request.broker_id, topic.name, partition_id)
                        result = Errors.NEW_LEADER_ELECTED
                if result is Errors.NONE:
                    partitions.append(alter_partition_response.PartitionData(
                        partition_index=i32(partition_id), error_code=Errors.NONE, leader_id=i32(partition.leader),
                        leader_epoch=i32(partition.leader_epoch), isr=tuple(i32(r) for r in partition.isr),
                        leader_recovery_state=int(partition.leader_recovery_state),
                        partition_epoch=i32(partition.partition_epoch)))
                else:
                    partitions.append(_alter_partition_error(partition_id, result))
            response_topics.append(alter_partition_response.TopicData(topic_id=topic_id, partitions=tuple(partitions)))
        response = alter_partition_response.AlterPartitionResponse(
            throttle_time=i32Timedelta.parse(datetime.timedelta(0)), error_code=Errors.NONE,
            topics=tuple(response_topics))
        return ControllerResult.of(records, response)

    def _validate_alter_partition_data(self, broker_id: int, topic: TopicControlInfo, partition_id: int,
                                       partition: PartitionRegistration | None, request_version: int,
                                       partition_data: Any) -> Errors:
        if partition is None:
            log.info("%sRejecting AlterPartition request for unknown partition %s-%d.", self._log_prefix,
                     topic.name, partition_id)
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        if partition_data.leader_epoch != partition.leader_epoch:
            log.debug("%sNot altering %s-%d: the leader epoch in the request %d does not match the current leader "
                      "epoch %d.", self._log_prefix, topic.name, partition_id, partition_data.leader_epoch,
                      partition.leader_epoch)
            return Errors.FENCED_LEADER_EPOCH
        if broker_id != partition.leader:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the current leader is %d.",
                     self._log_prefix, broker_id, topic.name, partition_id, partition.leader)
            return Errors.INVALID_REQUEST
        if partition_data.partition_epoch != partition.partition_epoch:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the current partition epoch "
                     "is %d, not %d.", self._log_prefix, broker_id, topic.name, partition_id,
                     partition.partition_epoch, partition_data.partition_epoch)
            return Errors.INVALID_UPDATE_VERSION
        new_isr = [b.broker_id for b in partition_data.new_isr_with_epochs]
        if not new_isr or len(set(new_isr)) != len(new_isr) or not set(new_isr) <= set(partition.replicas):
            log.error("%sRejecting AlterPartition request from node %d for %s-%d because it specified an invalid "
                      "ISR %s.", self._log_prefix, broker_id, topic.name, partition_id, new_isr)
            return Errors.INVALID_REQUEST
        if partition.leader not in new_isr:
            log.error("%sRejecting AlterPartition request from node %d for %s-%d because the new ISR %s does not "
                      "include the leader.", self._log_prefix, broker_id, topic.name, partition_id, new_isr)
            return Errors.INVALID_REQUEST
        state = LeaderRecoveryState(partition_data.leader_recovery_state)
        if state is LeaderRecoveryState.RECOVERING and len(new_isr) > 1:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the ISR %s had more than one "
                     "replica while the leader was still recovering.", self._log_prefix, broker_id, topic.name,
                     partition_id, new_isr)
            return Errors.INVALID_REQUEST
        if partition.leader_recovery_state is LeaderRecoveryState.RECOVERED and \
                state is LeaderRecoveryState.RECOVERING:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because the leader recovery state "
                     "cannot change from RECOVERED to RECOVERING.", self._log_prefix, broker_id, topic.name,
                     partition_id)
            return Errors.INVALID_REQUEST
        ineligible = self._ineligible_replicas_for_isr(partition_data.new_isr_with_epochs)
        if ineligible:
            log.info("%sRejecting AlterPartition request from node %d for %s-%d because it specified ineligible "
                     "replicas %s in the new ISR %s.", self._log_prefix, broker_id, topic.name, partition_id,
                     ineligible, new_isr)
            return Errors.INELIGIBLE_REPLICA if request_version > 1 else Errors.OPERATION_NOT_ATTEMPTED
        return Errors.NONE

    def _ineligible_replicas_for_isr(self, broker_states: Any) -> list[str]:
        ineligible = []
        for state in broker_states:
            registration = self._cluster_control.broker_registrations().get(state.broker_id)
            if registration is None:
                ineligible.append(f"{state.broker_id} (not registered)")
            elif registration.in_controlled_shutdown:
                ineligible.append(f"{state.broker_id} (shutting down)")
            elif registration.fenced:
                ineligible.append(f"{state.broker_id} (fenced)")
            elif state.broker_epoch != -1 and registration.epoch != state.broker_epoch:
                ineligible.append(f"{state.broker_id} (broker epoch mismatch: requested={state.broker_epoch}, "
                                  f"current={registration.epoch})")
        return ineligible


def validate_total_number_of_partitions(request: Any, default_num_partitions: int) -> None:
    """PolicyViolationException for a CreateTopics that would make more than MAX_PARTITIONS_PER_BATCH partitions."""
    total_partitions = 0
    for topic in request.topics:
        if not topic.assignments:
            if topic.num_partitions == -1:
                total_partitions += default_num_partitions
            elif topic.num_partitions > 0:
                total_partitions += topic.num_partitions
        else:
            total_partitions += len(topic.assignments)
    if total_partitions > MAX_PARTITIONS_PER_BATCH:
        raise PolicyViolationException("Excessively large number of partitions per request.")


def _alter_partition_error(partition_index: int, error: Errors) -> Any:
    return alter_partition_response.PartitionData(partition_index=i32(partition_index), error_code=error,
                                                  leader_id=i32(-1), leader_epoch=i32(-1), partition_epoch=i32(-1))
