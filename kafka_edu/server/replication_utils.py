"""Port of core/src/main/scala/kafka/utils/ReplicationUtils.scala (Kafka 1.0.2): the partition state znode and ISR
change notifications, with kafka.api.LeaderAndIsr."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from kafka_edu.log.log import TopicPartition
from kafka_edu.tracing.znodes import with_writer
from kafka_edu.utils.zk_utils import BROKER_TOPICS_PATH, ISR_CHANGE_NOTIFICATION_PATH, ZkUtils

log = logging.getLogger("kafka.utils.ReplicationUtils")

ISR_CHANGE_NOTIFICATION_PREFIX = "isr_change_"
INITIAL_LEADER_EPOCH = 0
INITIAL_ZK_VERSION = 0
NO_LEADER = -1
LEADER_DURING_DELETE = -2


@dataclass(frozen=True)
class LeaderAndIsr:
    """kafka.api.LeaderAndIsr: who leads, at which epoch, who is in sync, and the znode version it was read at."""

    leader: int
    leader_epoch: int = INITIAL_LEADER_EPOCH
    isr: list[int] = field(default_factory=list)
    zk_version: int = INITIAL_ZK_VERSION


def get_topic_partition_leader_and_isr_path(topic: str, partition_id: int) -> str:
    return f"{BROKER_TOPICS_PATH}/{topic}/partitions/{partition_id}/state"


def leader_and_isr_zk_data(leader_and_isr: LeaderAndIsr, controller_epoch: int) -> str:
    """ZkUtils.leaderAndIsrZkData: the JSON of a partition state znode."""
    return json.dumps({"version": 1, "leader": leader_and_isr.leader, "leader_epoch": leader_and_isr.leader_epoch,
                       "controller_epoch": controller_epoch, "isr": list(leader_and_isr.isr)},
                      separators=(",", ":"))


def update_leader_and_isr(zk_utils: ZkUtils, topic: str, partition_id: int, new_leader_and_isr: LeaderAndIsr,
                          controller_epoch: int, zk_version: int) -> tuple[bool, int]:
    """Write the partition state only if the znode is still at `zk_version`; (succeeded, new version).

    The epoch written is that of the controller that made the leadership decision, not the current one's.
    """
    log.debug("Updated ISR for %s-%d to %s", topic, partition_id, ",".join(map(str, new_leader_and_isr.isr)))
    path = get_topic_partition_leader_and_isr_path(topic, partition_id)
    new_leader_data = leader_and_isr_zk_data(new_leader_and_isr, controller_epoch)
    succeeded, version = zk_utils.conditional_update_persistent_path(path, new_leader_data, zk_version)
    if succeeded:
        return succeeded, version
    # A lost response to an earlier, successful write looks like a version conflict: accept identical data.
    return check_leader_and_isr_zk_data(zk_utils, path, new_leader_data)


def check_leader_and_isr_zk_data(zk_utils: ZkUtils, path: str, expected_leader_and_isr_info: str) -> tuple[bool, int]:
    try:
        written, stat = zk_utils.read_data_maybe_null(path)
        if written is not None and _parse_leader_and_isr(written) == _parse_leader_and_isr(
                expected_leader_and_isr_info):
            return True, stat.version
    except Exception:  # noqa: BLE001 - any failure here means "not known to be written"
        pass
    return False, -1


def _parse_leader_and_isr(data: str) -> tuple[int, int, list[int], int]:
    value = json.loads(data)
    return value["leader"], value["leader_epoch"], list(value["isr"]), value["controller_epoch"]


def propagate_isr_changes(zk_utils: ZkUtils, isr_change_set: Iterable[TopicPartition]) -> str:
    """A sequential znode under /isr_change_notification naming the partitions whose ISR changed."""
    path = zk_utils.zk_client.create(f"{ISR_CHANGE_NOTIFICATION_PATH}/{ISR_CHANGE_NOTIFICATION_PREFIX}",
                                     generate_isr_change_json(isr_change_set).encode(), sequence=True,
                                     makepath=True)
    log.debug("Added %s for %s", path, isr_change_set)
    return path


def generate_isr_change_json(isr_changes: Iterable[TopicPartition]) -> str:
    partitions = [{"topic": tp.topic, "partition": tp.partition} for tp in sorted(isr_changes)]
    return json.dumps(with_writer({"version": 1, "partitions": partitions}), separators=(",", ":"))
