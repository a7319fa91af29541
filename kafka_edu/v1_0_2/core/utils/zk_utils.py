"""Port of core/src/main/scala/kafka/utils/ZkUtils.scala (Kafka 1.0.2) over kazoo, for the paths the broker uses."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import BadVersionError, KazooException, NodeExistsError, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError

from kafka_edu.tracing.znodes import with_writer
from kafka_edu.v1_0_2.clients.common.errors import (
    AdminOperationException,
    KafkaException,
    ZkNodeExistsException,
    ZkNoNodeException,
    ZkTimeoutException,
)

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
    from kafka_edu.v1_0_2.core.log.log import TopicPartition

log = logging.getLogger("kafka.utils.ZkUtils")

ADMIN_PATH = "/admin"
BROKERS_PATH = "/brokers"
CLUSTER_ID_PATH = "/cluster/id"
CONSUMERS_PATH = "/consumers"
CONTROLLER_PATH = "/controller"
CONTROLLER_EPOCH_PATH = "/controller_epoch"
BROKER_IDS_PATH = BROKERS_PATH + "/ids"
BROKER_TOPICS_PATH = BROKERS_PATH + "/topics"
BROKER_SEQUENCE_ID_PATH = BROKERS_PATH + "/seqid"
CONFIG_PATH = "/config"
CONFIG_CHANGES_PATH = CONFIG_PATH + "/changes"
DELETE_TOPICS_PATH = ADMIN_PATH + "/delete_topics"
REASSIGN_PARTITIONS_PATH = ADMIN_PATH + "/reassign_partitions"
PREFERRED_REPLICA_LEADER_ELECTION_PATH = ADMIN_PATH + "/preferred_replica_election"
ISR_CHANGE_NOTIFICATION_PATH = "/isr_change_notification"
LOG_DIR_EVENT_NOTIFICATION_PATH = "/log_dir_event_notification"
PRODUCER_ID_BLOCK_PATH = "/latest_producer_id_block"
KAFKA_ACL_PATH = "/kafka-acl"  # SimpleAclAuthorizer: /kafka-acl/<ResourceType>/<name> holds that resource's ACLs
KAFKA_ACL_CHANGES_PATH = "/kafka-acl-changes"  # acl_changes_<seq> notifications naming a changed resource


def get_entity_config_root_path(entity_type: str) -> str:
    return f"{CONFIG_PATH}/{entity_type}"


class ZkStateListener:
    """IZkStateListener: told when a new session replaces an expired one."""

    def handle_new_session(self) -> None:
        raise NotImplementedError

    def handle_session_establishment_error(self, error: Exception) -> None:
        log.error("Could not establish session with zookeeper: %s", error)


class ZkUtils:
    """The broker's ZooKeeper session (ZkClient in 1.0.2, kazoo here) and the znode layouts Kafka uses."""

    # These are persistent ZK paths that should exist on kafka broker startup (1.0.2's order).
    persistent_zk_paths = (
        CONSUMERS_PATH,
        BROKER_IDS_PATH,
        BROKER_TOPICS_PATH,
        CONFIG_CHANGES_PATH,
        get_entity_config_root_path("topics"),
        get_entity_config_root_path("clients"),
        DELETE_TOPICS_PATH,
        BROKER_SEQUENCE_ID_PATH,
        ISR_CHANGE_NOTIFICATION_PATH,
        PRODUCER_ID_BLOCK_PATH,
        LOG_DIR_EVENT_NOTIFICATION_PATH,
    )

    def __init__(self, zk_connect: str, session_timeout_ms: int, connection_timeout_ms: int,
                 is_secure: bool = False) -> None:
        self.zk_connect = zk_connect
        self.is_secure = is_secure
        self.zk_client = KazooClient(hosts=zk_connect, timeout=session_timeout_ms / 1000)
        self._state_listeners: list[ZkStateListener] = []
        self._session_lost = False
        self.zk_client.add_listener(self._on_state_change)
        try:
            self.zk_client.start(timeout=connection_timeout_ms / 1000)
        except KazooTimeoutError:
            self.zk_client.stop()
            self.zk_client.close()
            raise ZkTimeoutException(
                f"Unable to connect to zookeeper server '{zk_connect}' with timeout of {connection_timeout_ms} ms"
            ) from None

    @classmethod
    def with_metrics(cls, zk_connect: str, session_timeout: int, connection_timeout: int,
                     is_zk_security_enabled: bool = False) -> ZkUtils:
        return cls(zk_connect, session_timeout, connection_timeout, is_zk_security_enabled)

    # -- session --------------------------------------------------------------------------------------------------

    def subscribe_state_changes(self, listener: ZkStateListener) -> None:
        self._state_listeners.append(listener)

    def unsubscribe_state_changes(self, listener: ZkStateListener) -> None:
        if listener in self._state_listeners:
            self._state_listeners.remove(listener)

    def _on_state_change(self, state: str) -> None:
        # kazoo calls this on its own connection thread, which must not block: hand the work to a new thread.
        if state == KazooState.LOST:
            self._session_lost = True
        elif state == KazooState.CONNECTED and self._session_lost:
            self._session_lost = False
            threading.Thread(target=self._fire_new_session, name="zk-new-session", daemon=True).start()

    def _fire_new_session(self) -> None:
        for listener in list(self._state_listeners):
            try:
                listener.handle_new_session()
            except Exception as e:  # the listener's failure must not stop the others
                listener.handle_session_establishment_error(e)

    @property
    def session_id(self) -> int:
        return self.zk_client.client_id[0] if self.zk_client.client_id else 0

    def close(self) -> None:
        # Closing the session deletes this broker's ephemeral znodes at once.
        self.zk_client.stop()
        self.zk_client.close()

    # -- generic znode helpers ------------------------------------------------------------------------------------

    def make_sure_persistent_path_exists(self, path: str) -> None:
        self.zk_client.ensure_path(path)

    def setup_common_paths(self) -> None:
        for path in self.persistent_zk_paths:
            self.make_sure_persistent_path_exists(path)

    def read_data_maybe_null(self, path: str) -> tuple[str | None, Any]:
        try:
            data, stat = self.zk_client.get(path)
        except NoNodeError:
            return None, None
        return (data.decode() if data is not None else None), stat

    def update_persistent_path(self, path: str, data: str) -> None:
        """Write a persistent znode, creating it (and its parents) if it does not exist."""
        try:
            self.zk_client.set(path, data.encode())
        except NoNodeError:
            try:
                self.zk_client.create(path, data.encode(), makepath=True)
            except NodeExistsError:
                self.zk_client.set(path, data.encode())

    def conditional_update_persistent_path(
            self, path: str, data: str, expected_version: int,
            optional_checker: Callable[[ZkUtils, str, str], tuple[bool, int]] | None = None) -> tuple[bool, int]:
        """Write only if the znode is still at `expected_version`: ZooKeeper's compare-and-set.

        On a version conflict, `optional_checker` may still call the write done (and give the znode's version).
        """
        try:
            return True, self.zk_client.set(path, data.encode(), version=expected_version).version
        except BadVersionError:
            if optional_checker is not None:
                return optional_checker(self, path, data)
            log.debug("Checker method is not passed skipping zkData match")
            return False, -1
        except NoNodeError:
            return False, -1

    def delete_path_recursive(self, path: str) -> None:
        try:
            self.zk_client.delete(path, recursive=True)
        except NoNodeError:
            pass

    def path_exists(self, path: str) -> bool:
        return self.zk_client.exists(path) is not None

    def get_children(self, path: str) -> list[str]:
        try:
            return self.zk_client.get_children(path)
        except NoNodeError:
            return []

    def create_persistent_path(self, path: str, data: str = "") -> None:
        """Create a persistent znode (and its parents); ZkNodeExistsException if it is already there."""
        try:
            self.zk_client.create(path, data.encode(), makepath=True)
        except NodeExistsError:
            raise ZkNodeExistsException(path) from None

    def delete_path(self, path: str) -> bool:
        """Delete one znode; False if it was not there."""
        try:
            self.zk_client.delete(path)
            return True
        except NoNodeError:
            return False

    def conditional_update_persistent_path_if_exists(self, path: str, data: str,
                                                     expected_version: int) -> tuple[bool, int]:
        """Compare-and-set that leaves a missing znode missing: ZkNoNodeException then, the caller creates it."""
        try:
            return True, self.zk_client.set(path, data.encode(), version=expected_version).version
        except BadVersionError:
            return False, -1
        except NoNodeError:
            raise ZkNoNodeException(path) from None

    def conditional_delete_path(self, path: str, expected_version: int) -> bool:
        """Delete only if the znode is still at `expected_version`; one already gone counts as deleted."""
        try:
            self.zk_client.delete(path, version=expected_version)
        except BadVersionError:
            return False
        except NoNodeError:
            pass
        return True

    def create_sequential_persistent_path(self, path: str, data: str = "") -> str:
        """A persistent znode named `path` plus ZooKeeper's next sequence number: a change notification."""
        return self.zk_client.create(path, data.encode(), sequence=True, makepath=True)

    def fetch_entity_config(self, entity_type: str, entity_name: str) -> dict[str, str]:
        """AdminUtils.fetchEntityConfig: an entity's overrides under `/config/<type>/<name>` ({} if none)."""
        data, _ = self.read_data_maybe_null(f"{get_entity_config_root_path(entity_type)}/{entity_name}")
        return {k: str(v) for k, v in json.loads(data).get("config", {}).items()} if data else {}

    # -- cluster id -----------------------------------------------------------------------------------------------

    def get_cluster_id(self) -> str | None:
        data, _ = self.read_data_maybe_null(CLUSTER_ID_PATH)
        return json.loads(data)["id"] if data else None

    def create_or_get_cluster_id(self, proposed_cluster_id: str) -> str:
        try:
            self.zk_client.create(CLUSTER_ID_PATH, _to_json({"version": "1", "id": proposed_cluster_id}).encode(),
                                  makepath=True)
            return proposed_cluster_id
        except NodeExistsError:
            cluster_id = self.get_cluster_id()
            if cluster_id is None:
                raise KafkaException("Failed to get cluster id from Zookeeper. This can only happen if /cluster/id is "
                                     "deleted from Zookeeper.") from None
            return cluster_id

    # -- controller -----------------------------------------------------------------------------------------------

    def get_controller_id(self) -> int:
        """The broker id in `/controller`, or -1 when no controller is elected."""
        from kafka_edu.v1_0_2.core.controller.kafka_controller import (
            parse_controller_id,  # the parser lives with the controller
        )

        controller, _ = self.read_data_maybe_null(CONTROLLER_PATH)
        return parse_controller_id(controller) if controller is not None else -1

    # -- broker ids and registration ------------------------------------------------------------------------------

    def get_sequence_id(self, path: str) -> int:
        """Bump a znode's data version and return it: ZooKeeper as an atomic counter."""
        try:
            return self.zk_client.set(path, b"", -1).version
        except NoNodeError:
            self.make_sure_persistent_path_exists(path)
            return self.zk_client.set(path, b"", -1).version

    def get_broker_sequence_id(self, max_reserved_broker_id: int) -> int:
        return self.get_sequence_id(BROKER_SEQUENCE_ID_PATH) + max_reserved_broker_id

    def register_broker_in_zk(self, broker_id: int, host: str | None, port: int, advertised_endpoints: Sequence[Any],
                              jmx_port: int, rack: str | None) -> None:
        broker_id_path = f"{BROKER_IDS_PATH}/{broker_id}"
        broker_info = broker_to_json(4, host, port, advertised_endpoints, jmx_port, rack)
        self._register_broker_in_zk(broker_id_path, broker_info)
        log.info("Registered broker %d at path %s with addresses: %s", broker_id, broker_id_path,
                 ",".join(e.connection_string() for e in advertised_endpoints))

    def _register_broker_in_zk(self, broker_id_path: str, broker_info: str) -> None:
        try:
            self._create_checked_ephemeral(broker_id_path, broker_info)
        except ZkNodeExistsException:
            raise KafkaException(
                f"A broker is already registered on the path {broker_id_path}. This probably indicates that you "
                "either have configured a brokerid that is already in use, or else you have shutdown this broker and "
                "restarted it faster than the zookeeper timeout so it appears to be re-registering.") from None

    def _create_checked_ephemeral(self, path: str, data: str) -> None:
        """ZKCheckedEphemeral: an ephemeral znode that may already exist only if this very session owns it."""
        try:
            self.zk_client.create(path, data.encode(), ephemeral=True, makepath=True)
        except NodeExistsError:
            stat = self.zk_client.exists(path)
            if stat is None:  # deleted in between: the old owner's session just ended
                self.zk_client.create(path, data.encode(), ephemeral=True, makepath=True)
            elif stat.ephemeralOwner != self.session_id:
                raise ZkNodeExistsException(path) from None

    def get_broker_info(self, broker_id: int) -> dict[str, Any] | None:
        data, _ = self.read_data_maybe_null(f"{BROKER_IDS_PATH}/{broker_id}")
        return json.loads(data) if data else None

    def get_sorted_broker_list(self) -> list[int]:
        """The ids of the registered (live) brokers: the children of `/brokers/ids`."""
        return sorted(int(broker_id) for broker_id in self.get_children(BROKER_IDS_PATH))

    # -- topics and partitions ------------------------------------------------------------------------------------

    def get_leader_and_isr_for_partition(self, topic: str, partition: int) -> LeaderAndIsr | None:
        """The leader and ISR in the partition's state znode; None if it has none."""
        from kafka_edu.v1_0_2.core.utils.replication_utils import (
            get_leader_isr_and_epoch_for_partition,  # here, not at the top: replication_utils imports this module
        )

        leader_isr_and_epoch = get_leader_isr_and_epoch_for_partition(self, topic, partition)
        return leader_isr_and_epoch.leader_and_isr if leader_isr_and_epoch is not None else None

    def get_replicas_for_partition(self, topic: str, partition: int) -> list[int]:
        """The assigned replicas (AR) of one partition in `/brokers/topics/<topic>`; [] if it has none."""
        data, _ = self.read_data_maybe_null(get_topic_path(topic))
        if data is None:
            return []
        try:
            replicas = json.loads(data).get("partitions", {}).get(str(partition))
        except (ValueError, AttributeError):  # not JSON, or not the layout: like a partition without replicas
            return []
        return list(replicas) if replicas is not None else []

    def get_topic_partition_count(self, topic: str) -> int | None:
        """How many partitions `/brokers/topics/<topic>` assigns; None when the topic does not exist."""
        data, _ = self.read_data_maybe_null(get_topic_path(topic))
        if data is None:
            return None
        try:
            return len(json.loads(data).get("partitions", {}))
        except (ValueError, AttributeError):  # not the layout: as if the topic were missing
            return None

    def get_all_partitions(self) -> set[TopicPartition]:
        """Every partition that has a `/brokers/topics/<topic>/partitions/<id>` znode (the controller makes them)."""
        from kafka_edu.v1_0_2.core.log.log import (
            TopicPartition,  # here, not at the top: zk_utils loads before the log layer
        )

        # A topic being deleted may have lost its partitions znode already: it then has no partitions.
        return {TopicPartition(topic, int(partition))
                for topic in self.get_children(BROKER_TOPICS_PATH)
                for partition in self.get_children(get_topic_partitions_path(topic))}

    # -- partition reassignment and preferred replica election ----------------------------------------------------

    def get_partitions_being_reassigned(self) -> dict[TopicPartition, list[int]]:
        """The target replicas of each partition in `/admin/reassign_partitions`; {} when none is being moved.

        1.0.2 wraps each list in a ReassignedPartitionsContext; the controller builds that context itself.
        """
        json_partition_map, _ = self.read_data_maybe_null(REASSIGN_PARTITIONS_PATH)
        if json_partition_map is None:
            return {}
        return parse_partition_reassignment_data(json_partition_map)

    def update_partition_reassignment_data(self, partitions_to_be_reassigned: dict[TopicPartition, list[int]]) -> None:
        """Rewrite `/admin/reassign_partitions` with the partitions still moving; delete it once none is left."""
        zk_path = REASSIGN_PARTITIONS_PATH
        if not partitions_to_be_reassigned:
            # The znode's absence is what tells everyone (and the next admin command) that no reassignment runs.
            self.delete_path(zk_path)
            log.info("No more partitions need to be reassigned. Deleting zk path %s", zk_path)
            return
        json_data = format_as_reassignment_json(partitions_to_be_reassigned)
        try:
            # Creates the znode if it is missing, as 1.0.2's updatePersistentPath does.
            self.update_persistent_path(zk_path, json_data)
            log.debug("Updated partition reassignment path with %s", json_data)
        except KazooException as e:
            raise AdminOperationException(repr(e)) from e

    def get_partitions_undergoing_preferred_replica_election(self) -> set[TopicPartition]:
        """The partitions listed in `/admin/preferred_replica_election`; empty when no election is pending."""
        # The parser lives with the admin command, as in 1.0.2; imported here because that module imports this one.
        from kafka_edu.v1_0_2.core.admin.preferred_replica_leader_election_command import (
            parse_preferred_replica_election_data,
        )

        json_partition_list, _ = self.read_data_maybe_null(PREFERRED_REPLICA_LEADER_ELECTION_PATH)
        if json_partition_list is None:
            return set()
        return parse_preferred_replica_election_data(json_partition_list)


def _to_json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"))


def get_topic_path(topic: str) -> str:
    return f"{BROKER_TOPICS_PATH}/{topic}"


def get_topic_partitions_path(topic: str) -> str:
    return f"{get_topic_path(topic)}/partitions"


def get_topic_partition_path(topic: str, partition_id: int) -> str:
    return f"{get_topic_partitions_path(topic)}/{partition_id}"


def get_topic_partition_leader_and_isr_path(topic: str, partition_id: int) -> str:
    """The partition state znode: leader, leader epoch, ISR and the epoch of the controller that wrote them."""
    return f"{get_topic_partition_path(topic, partition_id)}/state"


def leader_and_isr_zk_data(leader_and_isr: LeaderAndIsr, controller_epoch: int) -> str:
    """ZkUtils.leaderAndIsrZkData: the JSON of a partition state znode, its keys in the order Kafka writes them."""
    return _to_json({"controller_epoch": controller_epoch, "leader": leader_and_isr.leader, "version": 1,
                     "leader_epoch": leader_and_isr.leader_epoch, "isr": list(leader_and_isr.isr)})


def parse_partition_reassignment_data_without_dedup(json_data: str) -> list[tuple[TopicPartition, list[int]]]:
    """Each {"topic", "partition", "replicas"} entry of a reassignment JSON, in order and with any duplicates kept,
    so that the admin command can reject duplicates before anything is written.

    As in 1.0.2, text that is not JSON, or JSON without "partitions", is read as no partitions at all.
    """
    from kafka_edu.v1_0_2.core.log.log import (
        TopicPartition,  # here, not at the top: zk_utils loads before the log layer
    )

    try:
        js = json.loads(json_data)
    except ValueError:
        return []
    partitions_seq = js.get("partitions") if isinstance(js, dict) else None
    if partitions_seq is None:
        return []
    if not isinstance(partitions_seq, list):
        raise KafkaException(f"Expected a JSON array for \"partitions\", got {json.dumps(partitions_seq)}")
    assignment = []
    for p in partitions_seq:
        topic = _json_field(p, "topic", str)
        partition = _json_field(p, "partition", int)
        new_replicas = _json_field(p, "replicas", list)
        if not all(_is_json_int(r) for r in new_replicas):
            raise KafkaException(f"Expected a JSON array of integers for \"replicas\" in {json.dumps(p)}")
        assignment.append((TopicPartition(topic, partition), list(new_replicas)))
    return assignment


def parse_partition_reassignment_data(json_data: str) -> dict[TopicPartition, list[int]]:
    """A reassignment JSON as partition -> target replicas; a partition listed twice keeps its last entry."""
    return dict(parse_partition_reassignment_data_without_dedup(json_data))


def parse_topics_data(json_data: str) -> list[str]:
    """The topics of a topics-to-move JSON, {"topics": [{"topic": "foo"}, ...]}, in order; [] if it is not JSON."""
    try:
        js = json.loads(json_data)
    except ValueError:
        return []
    topics_seq = js.get("topics") if isinstance(js, dict) else None
    if topics_seq is None:
        return []
    if not isinstance(topics_seq, list):
        raise KafkaException(f"Expected a JSON array for \"topics\", got {json.dumps(topics_seq)}")
    return [_json_field(t, "topic", str) for t in topics_seq]


def format_as_reassignment_json(partitions_to_be_reassigned: dict[TopicPartition, list[int]]) -> str:
    """The reassignment JSON that `/admin/reassign_partitions` holds and that the admin command reads and prints."""
    return _to_json({
        "version": 1,
        "partitions": [{"topic": tp.topic, "partition": tp.partition, "replicas": list(replicas)}
                       for tp, replicas in partitions_to_be_reassigned.items()],
    })


def preferred_replica_leader_election_zk_data(partitions: Iterable[TopicPartition]) -> str:
    """The JSON of `/admin/preferred_replica_election`: {"version":1,"partitions":[{"topic":..,"partition":..}]}."""
    return _to_json({"version": 1,
                     "partitions": [{"topic": tp.topic, "partition": tp.partition} for tp in partitions]})


def _is_json_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON true is not a partition or broker id


def _json_field(entry: Any, name: str, kind: type) -> Any:
    """One field of a JSON object, of the expected JSON type (1.0.2's `fields(name).to[T]` fails just as loudly)."""
    if not isinstance(entry, dict) or name not in entry:
        raise KafkaException(f"Missing field \"{name}\" in {json.dumps(entry)}")
    value = entry[name]
    if not (_is_json_int(value) if kind is int else isinstance(value, kind)):
        json_type = {str: "string", int: "integer", list: "array"}[kind]
        raise KafkaException(f"Field \"{name}\" of {json.dumps(entry)} is not a JSON {json_type}")
    return value


def broker_to_json(version: int, host: str | None, port: int, advertised_endpoints: Sequence[Any], jmx_port: int,
                   rack: str | None) -> str:
    """kafka.cluster.Broker's znode layout (version 4 since 0.10.0)."""
    info: dict[str, Any] = {
        "version": version,
        "host": host,
        "port": port,
        "endpoints": [e.connection_string() for e in advertised_endpoints],
        "jmx_port": jmx_port,
        "timestamp": str(int(time.time() * 1000)),
    }
    if version >= 4:
        info["listener_security_protocol_map"] = {e.listener_name: e.security_protocol for e in advertised_endpoints}
    if rack is not None and version >= 3:
        info["rack"] = rack
    return _to_json(with_writer(info))
