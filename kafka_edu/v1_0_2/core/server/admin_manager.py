"""Port of core/src/main/scala/kafka/server/AdminManager.scala and DelayedCreatePartitions.scala (Kafka 1.0.2), with
the parts of kafka.admin.AdminUtils and kafka.common.Topic it calls: topics created, grown and deleted, and their
configs changed, through ZooKeeper; the controller and every broker act on the znodes written here."""

from __future__ import annotations

import json
import logging
import random
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from kazoo.exceptions import NodeExistsError

from kafka_edu.tracing.znodes import with_writer
from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v1_0_2.clients.common.errors import (
    AdminOperationException,
    ApiException,
    BrokerNotAvailableException,
    InvalidPartitionsException,
    InvalidReplicaAssignmentException,
    InvalidReplicationFactorException,
    InvalidRequestException,
    InvalidTopicException,
    ReassignmentInProgressException,
    TopicExistsException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v1_0_2.core.controller.controller_context import get_replica_assignment_for_topics
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafka_edu.v1_0_2.core.server.metadata_cache import MetadataCache
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    BROKER_TOPICS_PATH,
    CONFIG_CHANGES_PATH,
    DELETE_TOPICS_PATH,
    REASSIGN_PARTITIONS_PATH,
    ZkUtils,
    get_entity_config_root_path,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

log = logging.getLogger("kafka.server.AdminManager")

LEGAL_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_NAME_LENGTH = 249
NO_NUM_PARTITIONS = -1
NO_REPLICATION_FACTOR = -1
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4
RESOURCE_TYPE_NAMES = {0: "UNKNOWN", 1: "ANY", 2: "TOPIC", 3: "GROUP", 4: "BROKER"}
ENTITY_CONFIG_CHANGE_ZNODE_PREFIX = "config_change_"
DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 1, 4, 5


def validate_topic(topic: str) -> None:
    """kafka.common.Topic.validate: what may be a topic (and so a directory) name."""
    if len(topic) <= 0:
        raise InvalidTopicException("Topic name is illegal, it can't be empty")
    if topic in (".", ".."):
        raise InvalidTopicException("Topic name cannot be \".\" or \"..\"")
    if len(topic) > MAX_NAME_LENGTH:
        raise InvalidTopicException(f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, "
                                    f"topic name: {topic}")
    if not LEGAL_CHARS.match(topic):
        raise InvalidTopicException(f"Topic name \"{topic}\" is illegal, it contains a character other than ASCII "
                                    "alphanumerics, '.', '_' and '-'")


def has_collision_chars(topic: str) -> bool:
    return "." in topic or "_" in topic


def assign_replicas_to_brokers(broker_list: list[int], n_partitions: int, replication_factor: int,
                               fixed_start_index: int = -1, start_partition_id: int = -1) -> dict[int, list[int]]:
    """AdminUtils.assignReplicasToBrokers (rack unaware): spread leaders round-robin, shift followers per round."""
    if n_partitions <= 0:
        raise InvalidPartitionsException("Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise InvalidReplicationFactorException("Replication factor must be larger than 0.")
    if replication_factor > len(broker_list):
        raise InvalidReplicationFactorException(
            f"Replication factor: {replication_factor} larger than available brokers: {len(broker_list)}.")
    brokers = sorted(broker_list)
    start_index = fixed_start_index if fixed_start_index >= 0 else random.randrange(len(brokers))
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else random.randrange(len(brokers))
    current_partition_id = max(0, start_partition_id)
    assignment = {}
    for _ in range(n_partitions):
        if current_partition_id > 0 and current_partition_id % len(brokers) == 0:
            next_replica_shift += 1
        first_replica_index = (current_partition_id + start_index) % len(brokers)
        replicas = [brokers[first_replica_index]]
        for j in range(replication_factor - 1):
            shift = 1 + (next_replica_shift + j) % (len(brokers) - 1)
            replicas.append(brokers[(first_replica_index + shift) % len(brokers)])
        assignment[current_partition_id] = replicas
        current_partition_id += 1
    return assignment


@dataclass
class CreatePartitionsMetadata:
    """A topic's outcome in CreateTopics or CreatePartitions: its whole assignment, or the error."""

    topic: str
    replica_assignments: dict[int, list[int]]
    error: Errors
    error_message: str | None = None


class DelayedCreatePartitions(DelayedOperation):
    """Answers CreateTopics or CreatePartitions once every partition of each topic has a leader in the metadata
    cache; a topic still missing one when time runs out gets REQUEST_TIMED_OUT."""

    def __init__(self, delay_ms: int, create_metadata: list[CreatePartitionsMetadata], admin_manager: AdminManager,
                 response_callback: Callable[[dict[str, tuple[Errors, str | None]]], None]) -> None:
        super().__init__(delay_ms)
        self.create_metadata = create_metadata
        self.admin_manager = admin_manager
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        leaderless_partition_count = sum(self.missing_leader_count(m.topic, m.replica_assignments)
                                         for m in self.create_metadata if m.error == Errors.NONE)
        if leaderless_partition_count == 0:
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        results = {}
        for metadata in self.create_metadata:
            if metadata.error == Errors.NONE and self.missing_leader_count(metadata.topic,
                                                                            metadata.replica_assignments) > 0:
                results[metadata.topic] = (Errors.REQUEST_TIMED_OUT, None)
            else:
                results[metadata.topic] = (metadata.error, metadata.error_message)
        self.response_callback(results)

    def missing_leader_count(self, topic: str, partitions: dict[int, list[int]]) -> int:
        cache = self.admin_manager.metadata_cache
        return sum(1 for partition in partitions
                   if (state := cache.get_partition_info(topic, partition)) is None or state.leader < 0)


class DelayedDeleteTopics(DelayedOperation):
    """Answers DeleteTopics once the topics are gone from the metadata cache."""

    def __init__(self, delay_ms: int, topics: dict[str, Errors], admin_manager: AdminManager,
                 response_callback: Callable[[dict[str, Errors]], None]) -> None:
        super().__init__(delay_ms)
        self.topics = topics
        self.admin_manager = admin_manager
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        if any(error == Errors.NONE and self.admin_manager.metadata_cache.contains(topic)
               for topic, error in self.topics.items()):
            return False
        return self.force_complete()

    def on_complete(self) -> None:
        self.response_callback({
            topic: Errors.REQUEST_TIMED_OUT if error == Errors.NONE and self.admin_manager.metadata_cache.contains(
                topic) else error for topic, error in self.topics.items()})


class AdminManager:
    """Topic administration: validate, assign replicas, and write the assignment and config znodes."""

    def __init__(self, config, metadata_cache: MetadataCache, zk_utils: ZkUtils) -> None:
        self.config = config
        self.metadata_cache = metadata_cache
        self.zk_utils = zk_utils
        self.topic_purgatory = DelayedOperationPurgatory("topic", config.broker_id)

    def try_complete_topics(self, topics: set[str]) -> None:
        """The metadata cache changed for these topics: pending CreateTopics/DeleteTopics may be done."""
        for topic in topics:
            self.topic_purgatory.check_and_complete(topic)

    def create_topics(self, timeout: int, validate_only: bool, create_info: dict[str, dict],
                      response_callback: Callable[[dict[str, tuple[Errors, str | None]]], None]) -> None:
        alive = [b.id for b in self.metadata_cache.get_alive_brokers()]
        metadata = []
        for topic, arguments in create_info.items():
            try:
                configs = {k: v for k, v in arguments.get("configs", {}).items()}
                # an unknown name is INVALID_CONFIG; a bad value (ConfigException) travels as UNKNOWN_SERVER_ERROR,
                # with its message, as in 1.0.2
                LogConfig.validate(configs)
                num_partitions = arguments.get("num_partitions", NO_NUM_PARTITIONS)
                replication_factor = arguments.get("replication_factor", NO_REPLICATION_FACTOR)
                replica_assignments = arguments.get("assignments") or {}
                if (num_partitions != NO_NUM_PARTITIONS or replication_factor != NO_REPLICATION_FACTOR) \
                        and replica_assignments:
                    raise InvalidRequestException("Both numPartitions or replicationFactor and replicasAssignments "
                                                  "were set. Both cannot be used at the same time.")
                if replica_assignments:
                    # unknown brokers are not checked here, unlike when partitions are added
                    assignments = {int(p): list(r) for p, r in replica_assignments.items()}
                else:
                    # -1 means the broker's defaults (CreateTopics v4+, KIP-464); 1.0.2 required both values.
                    assignments = assign_replicas_to_brokers(
                        alive, self.config.num_partitions if num_partitions == NO_NUM_PARTITIONS else num_partitions,
                        self.config.default_replication_factor if replication_factor == NO_REPLICATION_FACTOR
                        else replication_factor)
                if validate_only:
                    validate_create_or_update_topic(self.zk_utils, topic, assignments, configs, update=False)
                else:
                    create_or_update_topic_partition_assignment_path_in_zk(self.zk_utils, topic, assignments,
                                                                           configs, update=False)
                metadata.append(CreatePartitionsMetadata(topic, assignments, Errors.NONE))
            except Exception as e:
                # a MemoryError's half-built assignment goes now, as the JVM's would
                traceback.clear_frames(e.__traceback__)
                if isinstance(e, ApiException):
                    log.info("Error processing create topic request for topic %s with arguments %s: %s", topic,
                             arguments, e)
                else:
                    log.error("Error processing create topic request for topic %s with arguments %s: %s", topic,
                              arguments, e, exc_info=e)  # 1.0.2 logs the throwable: a MemoryError has no message
                metadata.append(CreatePartitionsMetadata(topic, {}, Errors.for_exception(e), str(e)))
        self._complete_or_delay(timeout, validate_only, metadata, list(create_info), response_callback)

    def _complete_or_delay(self, timeout: int, validate_only: bool, metadata: list[CreatePartitionsMetadata],
                           keys: list[str],
                           response_callback: Callable[[dict[str, tuple[Errors, str | None]]], None]) -> None:
        """Answer now (no wait, validate only, or nothing to wait for), else once the leaders are elected."""
        if timeout <= 0 or validate_only or not any(m.error == Errors.NONE for m in metadata):
            response_callback({m.topic: (Errors.REQUEST_TIMED_OUT, None) if m.error == Errors.NONE and not validate_only
                               else (m.error, m.error_message) for m in metadata})
        else:
            delayed_create = DelayedCreatePartitions(timeout, metadata, self, response_callback)
            self.topic_purgatory.try_complete_else_watch(delayed_create, keys)

    def delete_topics(self, timeout: int, topics: set[str],
                      response_callback: Callable[[dict[str, Errors]], None]) -> None:
        results = {}
        for topic in topics:
            try:
                if not self.zk_utils.path_exists(f"{BROKER_TOPICS_PATH}/{topic}"):
                    raise UnknownTopicOrPartitionException("This server does not host this topic-partition.")
                if not self.config.delete_topic_enable:
                    results[topic] = Errors.TOPIC_DELETION_DISABLED
                    continue
                try:
                    self.zk_utils.zk_client.create(f"{DELETE_TOPICS_PATH}/{topic}", makepath=True)
                except NodeExistsError:
                    pass  # already marked for deletion
                results[topic] = Errors.NONE
            except Exception as e:
                results[topic] = Errors.for_exception(e)
        if timeout <= 0 or not any(e == Errors.NONE for e in results.values()):
            response_callback({t: Errors.REQUEST_TIMED_OUT if e == Errors.NONE else e for t, e in results.items()})
        else:
            delayed_delete = DelayedDeleteTopics(timeout, results, self, response_callback)
            self.topic_purgatory.try_complete_else_watch(delayed_delete, list(topics))

    def create_partitions(self, timeout: int, new_partitions: dict[str, tuple[int, list[list[int]] | None]],
                          validate_only: bool,
                          callback: Callable[[dict[str, tuple[Errors, str | None]]], None]) -> None:
        """Grow each topic to its new total count: the whole assignment is rewritten in `/brokers/topics/<t>`, the
        controller's partition-modifications watch creates the new partitions, and the answer waits for their
        leaders. `new_partitions` is {topic: (total count, assignments of the new partitions or None)}."""
        reassign_partitions_in_progress = self.zk_utils.path_exists(REASSIGN_PARTITIONS_PATH)
        all_brokers = get_broker_metadatas(self.zk_utils)
        metadata = []
        for topic, (total_count, new_assignments) in new_partitions.items():
            try:
                # a reassignment changes replica counts on the way: there is no one replication factor to follow
                if reassign_partitions_in_progress:
                    raise ReassignmentInProgressException("A partition reassignment is in progress.")
                existing_assignment = {tp.partition: replicas for tp, replicas
                                       in get_replica_assignment_for_topics(self.zk_utils, [topic]).items()}
                if not existing_assignment:
                    raise UnknownTopicOrPartitionException(f"The topic '{topic}' does not exist.")
                old_num_partitions = len(existing_assignment)
                num_partitions_increment = total_count - old_num_partitions
                if num_partitions_increment < 0:
                    raise InvalidPartitionsException(f"Topic currently has {old_num_partitions} partitions, which is "
                                                     f"higher than the requested {total_count}.")
                if num_partitions_increment == 0:
                    raise InvalidPartitionsException(f"Topic already has {old_num_partitions} partitions.")
                reassignment = None
                if new_assignments is not None:
                    unknown_brokers = {b for replicas in new_assignments for b in replicas} - set(all_brokers)
                    if unknown_brokers:
                        raise InvalidReplicaAssignmentException(
                            f"Unknown broker(s) in replica assignment: {', '.join(map(str, sorted(unknown_brokers)))}.")
                    if len(new_assignments) != num_partitions_increment:
                        raise InvalidReplicaAssignmentException(
                            f"Increasing the number of partitions by {num_partitions_increment} but "
                            f"{len(new_assignments)} assignments provided.")
                    reassignment = {old_num_partitions + i: list(replicas)
                                    for i, replicas in enumerate(new_assignments)}
                updated_replica_assignment = add_partitions(self.zk_utils, topic, existing_assignment, all_brokers,
                                                            total_count, reassignment, validate_only=validate_only)
                metadata.append(CreatePartitionsMetadata(topic, updated_replica_assignment, Errors.NONE))
            except (AdminOperationException, ApiException) as e:
                log.info("Error processing create partitions request for topic %s: %s", topic, e)
                metadata.append(CreatePartitionsMetadata(topic, {}, Errors.for_exception(e), str(e)))
        self._complete_or_delay(timeout, validate_only, metadata, list(new_partitions), callback)

    def describe_configs(self, resource_type: int, resource_name: str, keys: tuple[str, ...] | None,
                         log_config_defaults: dict[str, object]) -> tuple[Errors, str | None,
                                                                          list[tuple[str, str, bool, int]]]:
        """A topic's configs (its overrides, else the broker's defaults) or this broker's static configs."""
        try:
            if resource_type == TOPIC_RESOURCE:
                validate_topic(resource_name)
                if not self.zk_utils.path_exists(f"{BROKER_TOPICS_PATH}/{resource_name}"):
                    raise UnknownTopicOrPartitionException(f"Topic {resource_name} does not exist")
                data, _ = self.zk_utils.read_data_maybe_null(f"{get_entity_config_root_path('topics')}/{resource_name}")
                overrides = json.loads(data).get("config", {}) if data else {}
                entries = [(name, str(overrides[name]), False, DYNAMIC_TOPIC_CONFIG) if name in overrides
                           else (name, _config_string(value), False, DEFAULT_CONFIG)
                           for name, value in sorted(log_config_defaults.items())]
            elif resource_type == BROKER_RESOURCE:
                if not resource_name:
                    raise InvalidRequestException("Broker id must not be empty")
                if resource_name != str(self.config.broker_id):
                    raise InvalidRequestException(f"Unexpected broker id, expected {self.config.broker_id}, but "
                                                  f"received {resource_name}")
                originals = self.config.originals()
                entries = [(name, _config_string(value), True,
                            STATIC_BROKER_CONFIG if name in originals else DEFAULT_CONFIG)
                           for name, value in sorted(self.config.values().items())]
            else:
                raise InvalidRequestException(f"Unsupported resource type: {resource_type}")
        except Exception as e:
            return Errors.for_exception(e), str(e), []
        if keys is not None:
            entries = [e for e in entries if e[0] in keys]
        return Errors.NONE, None, entries

    def alter_configs(self, configs: list[tuple[int, str, dict[str, str]]],
                      validate_only: bool) -> list[tuple[int, str, Errors, str | None]]:
        """Replace each topic's overrides with the given set (not a merge: what is left out returns to the broker's
        default); in 1.0.2 only topics have configs that can be changed while the brokers run."""
        results = []
        for resource_type, resource_name, entries in configs:
            try:
                if resource_type != TOPIC_RESOURCE:
                    raise InvalidRequestException("AlterConfigs is only supported for topics, but resource type is "
                                                  f"{RESOURCE_TYPE_NAMES.get(resource_type, resource_type)}")
                if validate_only:
                    validate_topic_config(self.zk_utils, resource_name, entries)
                else:
                    change_topic_config(self.zk_utils, resource_name, entries)
                results.append((resource_type, resource_name, Errors.NONE, None))
            except ConfigException as e:
                message = f"Invalid config value for resource {_resource_string(resource_type, resource_name)}: {e}"
                log.info(message)
                results.append((resource_type, resource_name, Errors.INVALID_REQUEST, message))
            except Exception as e:
                if isinstance(e, ApiException):
                    log.info("Error processing alter configs request for resource %s: %s",
                             _resource_string(resource_type, resource_name), e)
                else:
                    log.error("Error processing alter configs request for resource %s: %s",
                              _resource_string(resource_type, resource_name), e)
                results.append((resource_type, resource_name, Errors.for_exception(e), str(e)))
        return results

    def shutdown(self) -> None:
        self.topic_purgatory.shutdown()


def _config_string(value: object) -> str | None:
    """Config values as Kafka prints them: lists comma-separated, passwords hidden."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _resource_string(resource_type: int, resource_name: str) -> str:
    """org.apache.kafka.common.requests.Resource.toString."""
    return f"Resource(type={RESOURCE_TYPE_NAMES.get(resource_type, resource_type)}, name='{resource_name}')"


# -- kafka.admin.AdminUtils (1.0.2) ---------------------------------------------------------------------------------


def get_broker_metadatas(zk_utils: ZkUtils) -> list[int]:
    """The registered brokers, by id (rack-unaware: this port's brokers have no rack)."""
    return zk_utils.get_sorted_broker_list()


def add_partitions(zk_utils: ZkUtils, topic: str, existing_assignment: dict[int, list[int]], all_brokers: list[int],
                   num_partitions: int = 1, replica_assignment: dict[int, list[int]] | None = None,
                   validate_only: bool = False) -> dict[int, list[int]]:
    """The topic's new assignment: the old one plus the new partitions, placed like a new topic's would be but
    starting from partition 0's first replica; written over `/brokers/topics/<topic>` unless `validate_only`."""
    existing_assignment_partition0 = existing_assignment.get(0)
    if existing_assignment_partition0 is None:
        raise AdminOperationException(f"Unexpected existing replica assignment for topic '{topic}', partition id 0 "
                                      f"is missing. Assignment: {existing_assignment}")
    partitions_to_add = num_partitions - len(existing_assignment)
    if partitions_to_add <= 0:
        raise InvalidPartitionsException(f"The number of partitions for a topic can only be increased. Topic {topic} "
                                         f"currently has {len(existing_assignment)} partitions, {num_partitions} "
                                         "would not be an increase.")
    if replica_assignment is not None:
        validate_replica_assignment(replica_assignment, existing_assignment_partition0, set(all_brokers))
        proposed_assignment_for_new_partitions = replica_assignment
    else:
        brokers = sorted(all_brokers)
        start_index = max(0, next((i for i, b in enumerate(brokers) if b >= existing_assignment_partition0[0]), -1))
        proposed_assignment_for_new_partitions = assign_replicas_to_brokers(
            brokers, partitions_to_add, len(existing_assignment_partition0), start_index, len(existing_assignment))
    proposed_assignment = {**existing_assignment, **proposed_assignment_for_new_partitions}
    if not validate_only:
        log.info("Creating %d partitions for '%s' with the following replica assignment: %s.", partitions_to_add,
                 topic, proposed_assignment_for_new_partitions)
        create_or_update_topic_partition_assignment_path_in_zk(zk_utils, topic, proposed_assignment, {}, update=True)
    return proposed_assignment


def validate_replica_assignment(replica_assignment: dict[int, list[int]], existing_assignment_partition0: list[int],
                                available_broker_ids: set[int]) -> None:
    for partition_id, replicas in replica_assignment.items():
        if not replicas:
            raise InvalidReplicaAssignmentException(
                f"Cannot have replication factor of 0 for partition id {partition_id}.")
        if len(replicas) != len(set(replicas)):
            raise InvalidReplicaAssignmentException(
                "Duplicate brokers not allowed in replica assignment: "
                f"{', '.join(map(str, replicas))} for partition id {partition_id}.")
        if not set(replicas) <= available_broker_ids:
            raise BrokerNotAvailableException(
                f"Some brokers specified for partition id {partition_id} are not available. Specified brokers: "
                f"{', '.join(map(str, replicas))}, available brokers: "
                f"{', '.join(map(str, sorted(available_broker_ids)))}.")
    bad_rep_factors = sorted((p, len(r)) for p, r in replica_assignment.items()
                             if len(r) != len(existing_assignment_partition0))
    if bad_rep_factors:
        raise InvalidReplicaAssignmentException(
            "Inconsistent replication factor between partitions, partition 0 has "
            f"{len(existing_assignment_partition0)} while partitions [{', '.join(str(p) for p, _ in bad_rep_factors)}]"
            f" have replication factors [{', '.join(str(rf) for _, rf in bad_rep_factors)}], respectively.")


def validate_create_or_update_topic(zk_utils: ZkUtils, topic: str, assignments: dict[int, list[int]],
                                    configs: dict[str, str], update: bool) -> None:
    validate_topic(topic)
    if not update:
        if zk_utils.path_exists(f"{BROKER_TOPICS_PATH}/{topic}"):
            raise TopicExistsException(f"Topic '{topic}' already exists.")
        if has_collision_chars(topic):
            all_topics = zk_utils.get_children(BROKER_TOPICS_PATH)
            # again: the topic may have been created meanwhile, and must not collide with itself
            if topic in all_topics:
                raise TopicExistsException(f"Topic '{topic}' already exists.")
            colliding_topics = [t for t in all_topics if t.replace(".", "_") == topic.replace(".", "_")]
            if colliding_topics:
                raise InvalidTopicException(f"Topic '{topic}' collides with existing topics: "
                                            f"{', '.join(colliding_topics)}")
    if len({len(r) for r in assignments.values()}) != 1:
        raise InvalidReplicaAssignmentException("All partitions should have the same number of replicas")
    for replicas in assignments.values():
        if len(set(replicas)) != len(replicas):
            raise InvalidReplicaAssignmentException(f"Duplicate replica assignment found: {assignments}")
    # configs are only given to a topic at creation: growing it keeps them
    if not update:
        LogConfig.validate(configs)


def create_or_update_topic_partition_assignment_path_in_zk(zk_utils: ZkUtils, topic: str,
                                                           assignments: dict[int, list[int]], configs: dict[str, str],
                                                           update: bool = False) -> None:
    validate_create_or_update_topic(zk_utils, topic, assignments, configs, update)
    if not update:
        # The config first: a broker that sees the topic must find its overrides already there.
        write_entity_config(zk_utils, f"{get_entity_config_root_path('topics')}/{topic}", configs)
    write_topic_partition_assignment(zk_utils, topic, assignments, update)


def write_topic_partition_assignment(zk_utils: ZkUtils, topic: str, assignments: dict[int, list[int]],
                                     update: bool) -> None:
    path = f"{BROKER_TOPICS_PATH}/{topic}"
    data = json.dumps(with_writer({"version": 1, "partitions": {str(p): r for p, r in sorted(assignments.items())}}))
    if update:
        log.info("Topic update %s", data)
        zk_utils.update_persistent_path(path, data)
        return
    try:
        zk_utils.zk_client.create(path, data.encode(), makepath=True)
    except NodeExistsError:
        raise TopicExistsException(f"Topic '{topic}' already exists.") from None


def validate_topic_config(zk_utils: ZkUtils, topic: str, configs: dict[str, str]) -> None:
    validate_topic(topic)
    if not zk_utils.path_exists(f"{BROKER_TOPICS_PATH}/{topic}"):
        raise AdminOperationException(f"Topic \"{topic}\" does not exist.")
    LogConfig.validate(configs)


def change_topic_config(zk_utils: ZkUtils, topic: str, configs: dict[str, str]) -> None:
    """The topic's overrides become exactly `configs`; the brokers learn it from a change notification."""
    validate_topic_config(zk_utils, topic, configs)
    change_entity_config(zk_utils, "topics", topic, configs)


def change_entity_config(zk_utils: ZkUtils, root_entity_type: str, full_sanitized_entity_name: str,
                         configs: dict[str, str]) -> None:
    """Write `/config/<type>/<name>`, then a sequential `/config/changes/config_change_` naming it (version 2):
    each broker's DynamicConfigManager reads the notification and applies the entity's new config."""
    sanitized_entity_path = f"{root_entity_type}/{full_sanitized_entity_name}"
    write_entity_config(zk_utils, f"{get_entity_config_root_path(root_entity_type)}/{full_sanitized_entity_name}",
                        configs)
    zk_utils.make_sure_persistent_path_exists(CONFIG_CHANGES_PATH)
    zk_utils.zk_client.create(f"{CONFIG_CHANGES_PATH}/{ENTITY_CONFIG_CHANGE_ZNODE_PREFIX}",
                              json.dumps(with_writer({"version": 2, "entity_path": sanitized_entity_path})).encode(),
                              sequence=True, makepath=True)


def write_entity_config(zk_utils: ZkUtils, entity_path: str, configs: dict[str, str]) -> None:
    zk_utils.update_persistent_path(entity_path, json.dumps({"version": 1, "config": dict(configs)}))


def fetch_entity_config(zk_utils: ZkUtils, root_entity_type: str, sanitized_entity_name: str) -> dict[str, str]:
    return zk_utils.fetch_entity_config(root_entity_type, sanitized_entity_name)
