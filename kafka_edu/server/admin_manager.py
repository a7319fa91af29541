"""Port of core/src/main/scala/kafka/server/AdminManager.scala (Kafka 1.0.2), with the parts of kafka.admin.AdminUtils
and kafka.common.Topic it calls: topic creation and deletion through ZooKeeper."""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from kazoo.exceptions import NodeExistsError

from kafka_edu.common.errors import (
    InvalidPartitionsException,
    InvalidReplicationFactorException,
    InvalidRequestException,
    InvalidTopicException,
    TopicExistsException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.log.log_config import LogConfig
from kafka_edu.protocol.errors import Errors
from kafka_edu.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafka_edu.server.metadata_cache import MetadataCache
from kafka_edu.tracing.znodes import with_writer
from kafka_edu.utils.zk_utils import (
    BROKER_TOPICS_PATH,
    DELETE_TOPICS_PATH,
    ZkUtils,
    get_entity_config_root_path,
)

log = logging.getLogger("kafka.server.AdminManager")

LEGAL_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_NAME_LENGTH = 249
NO_NUM_PARTITIONS = -1
NO_REPLICATION_FACTOR = -1
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4
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
class CreateTopicMetadata:
    topic: str
    replica_assignments: dict[int, list[int]]
    error: Errors
    error_message: str | None = None


class DelayedCreateTopics(DelayedOperation):
    """Answers CreateTopics once every new partition has a leader in the metadata cache."""

    def __init__(self, delay_ms: int, create_metadata: list[CreateTopicMetadata], admin_manager: AdminManager,
                 response_callback: Callable[[dict[str, tuple[Errors, str | None]]], None]) -> None:
        super().__init__(delay_ms)
        self.create_metadata = create_metadata
        self.admin_manager = admin_manager
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        cache = self.admin_manager.metadata_cache
        for metadata in self.create_metadata:
            if metadata.error != Errors.NONE:
                continue
            for partition in metadata.replica_assignments:
                state = cache.get_partition_info(metadata.topic, partition)
                if state is None or state.leader < 0:
                    return False
        return self.force_complete()

    def on_complete(self) -> None:
        results = {}
        cache = self.admin_manager.metadata_cache
        for metadata in self.create_metadata:
            ready = metadata.error == Errors.NONE and all(
                (s := cache.get_partition_info(metadata.topic, p)) is not None and s.leader >= 0
                for p in metadata.replica_assignments)
            results[metadata.topic] = (metadata.error, metadata.error_message) if metadata.error != Errors.NONE \
                else (Errors.NONE, None) if ready else (Errors.REQUEST_TIMED_OUT, None)
        self.response_callback(results)


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
                LogConfig.from_props(configs)  # LogConfig.validate: unknown or bad values are refused
                num_partitions = arguments.get("num_partitions", NO_NUM_PARTITIONS)
                replication_factor = arguments.get("replication_factor", NO_REPLICATION_FACTOR)
                replica_assignments = arguments.get("assignments") or {}
                if (num_partitions != NO_NUM_PARTITIONS or replication_factor != NO_REPLICATION_FACTOR) \
                        and replica_assignments:
                    raise InvalidRequestException("Both numPartitions or replicationFactor and replicasAssignments "
                                                  "were set. Both cannot be used at the same time.")
                if replica_assignments:
                    assignments = {int(p): list(r) for p, r in replica_assignments.items()}
                else:
                    # -1 means the broker's defaults (CreateTopics v4+, KIP-464); 1.0.2 required both values.
                    assignments = assign_replicas_to_brokers(
                        alive, self.config.num_partitions if num_partitions == NO_NUM_PARTITIONS else num_partitions,
                        self.config.default_replication_factor if replication_factor == NO_REPLICATION_FACTOR
                        else replication_factor)
                if validate_only:
                    self.validate_create_or_update_topic(topic, assignments)
                else:
                    self.create_or_update_topic_partition_assignment_path_in_zk(topic, assignments, configs)
                metadata.append(CreateTopicMetadata(topic, assignments, Errors.NONE))
            except Exception as e:
                log.info("Error processing create topic request for topic %s: %s", topic, e)
                metadata.append(CreateTopicMetadata(topic, {}, Errors.for_exception(e), str(e)))
        if timeout <= 0 or validate_only or not any(m.error == Errors.NONE for m in metadata):
            response_callback({m.topic: (Errors.REQUEST_TIMED_OUT, None) if m.error == Errors.NONE and not validate_only
                               else (m.error, m.error_message) for m in metadata})
        else:
            delayed_create = DelayedCreateTopics(timeout, metadata, self, response_callback)
            self.topic_purgatory.try_complete_else_watch(delayed_create, list(create_info))

    def validate_create_or_update_topic(self, topic: str, assignments: dict[int, list[int]]) -> None:
        validate_topic(topic)
        if self.zk_utils.path_exists(f"{BROKER_TOPICS_PATH}/{topic}"):
            raise TopicExistsException(f"Topic '{topic}' already exists.")
        if has_collision_chars(topic):
            normalized = topic.replace(".", "_")
            for existing in self.zk_utils.get_children(BROKER_TOPICS_PATH):
                if existing.replace(".", "_") == normalized:
                    raise InvalidTopicException(f"Topic '{topic}' collides with existing topics: {existing}")
        if len({len(r) for r in assignments.values()}) > 1:
            raise InvalidReplicationFactorException("All partitions should have the same number of replicas.")
        for replicas in assignments.values():
            if len(set(replicas)) != len(replicas):
                raise InvalidReplicationFactorException("Duplicate replica assignment found: " + str(assignments))

    def create_or_update_topic_partition_assignment_path_in_zk(self, topic: str, assignments: dict[int, list[int]],
                                                               configs: dict[str, str]) -> None:
        self.validate_create_or_update_topic(topic, assignments)
        # The config first: a broker that sees the topic must find its overrides already there.
        self.zk_utils.update_persistent_path(f"{get_entity_config_root_path('topics')}/{topic}",
                                             json.dumps({"version": 1, "config": configs}))
        try:
            self.zk_utils.zk_client.create(f"{BROKER_TOPICS_PATH}/{topic}", json.dumps(with_writer(
                {"version": 1, "partitions": {str(p): r for p, r in sorted(assignments.items())}})).encode(),
                makepath=True)
        except NodeExistsError:
            raise TopicExistsException(f"Topic '{topic}' already exists.") from None

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
