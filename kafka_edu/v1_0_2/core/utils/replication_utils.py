"""Port of core/src/main/scala/kafka/utils/ReplicationUtils.scala (Kafka 1.0.2)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import note
from kafka_edu.tracing.znodes import with_writer
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    ISR_CHANGE_NOTIFICATION_PATH,
    ZkUtils,
    get_topic_partition_leader_and_isr_path,
    leader_and_isr_zk_data,
)

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.controller.controller_context import LeaderIsrAndControllerEpoch

log = logging.getLogger("kafka.utils.ReplicationUtils")

ISR_CHANGE_NOTIFICATION_PREFIX = "isr_change_"
# IsrChangeNotificationListener.version: the layout of an ISR change notification.
ISR_CHANGE_NOTIFICATION_VERSION = 1


def update_leader_and_isr(zk_utils: ZkUtils, topic: str, partition_id: int, new_leader_and_isr: LeaderAndIsr,
                          controller_epoch: int, zk_version: int) -> tuple[bool, int]:
    """Write the partition state only if the znode is still at `zk_version`; (succeeded, new version).

    The epoch written is that of the controller that made the leadership decision, not the current one's. A version
    conflict counts as success when the znode already holds this very state: the response to our own earlier write
    may have been lost.
    """
    log.debug("Updated ISR for %s-%d to %s", topic, partition_id, ",".join(map(str, new_leader_and_isr.isr)))
    path = get_topic_partition_leader_and_isr_path(topic, partition_id)
    new_leader_data = leader_and_isr_zk_data(new_leader_and_isr, controller_epoch)
    return zk_utils.conditional_update_persistent_path(path, new_leader_data, zk_version,
                                                       check_leader_and_isr_zk_data)


def propagate_isr_changes(zk_utils: ZkUtils, isr_change_set: Iterable[TopicPartition]) -> None:
    """A sequential znode under /isr_change_notification naming the partitions whose ISR changed."""
    path = zk_utils.zk_client.create(f"{ISR_CHANGE_NOTIFICATION_PATH}/{ISR_CHANGE_NOTIFICATION_PREFIX}",
                                     generate_isr_change_json(isr_change_set).encode(), sequence=True,
                                     makepath=True)
    note(path=path)
    log.debug("Added %s for %s", path, isr_change_set)


def check_leader_and_isr_zk_data(zk_utils: ZkUtils, path: str, expected_leader_and_isr_info: str) -> tuple[bool, int]:
    """(True, the znode's version) if the znode at `path` holds the state `expected_leader_and_isr_info` describes."""
    try:
        written_leader_and_isr_info, written_stat = zk_utils.read_data_maybe_null(path)
        if written_leader_and_isr_info is not None:
            expected_leader = parse_leader_and_isr(expected_leader_and_isr_info, path, written_stat)
            written_leader = parse_leader_and_isr(written_leader_and_isr_info, path, written_stat)
            if expected_leader == written_leader:
                return True, written_stat.version
    except Exception:  # noqa: BLE001 - any failure here means "not known to be written"
        pass
    return False, -1


def get_leader_isr_and_epoch_for_partition(zk_utils: ZkUtils, topic: str,
                                           partition: int) -> LeaderIsrAndControllerEpoch | None:
    """The partition's state znode, or None if it has none."""
    leader_and_isr_path = get_topic_partition_leader_and_isr_path(topic, partition)
    leader_and_isr_opt, stat = zk_utils.read_data_maybe_null(leader_and_isr_path)
    log.debug("Read leaderISR %s for %s-%d", leader_and_isr_opt, topic, partition)
    if not leader_and_isr_opt:
        return None
    return parse_leader_and_isr(leader_and_isr_opt, leader_and_isr_path, stat)


def parse_leader_and_isr(leader_and_isr_str: str, path: str, stat: Any) -> LeaderIsrAndControllerEpoch:
    """A state znode's JSON, with the zkVersion from its stat."""
    # kafka.controller's class, imported here because the controller's modules import this one.
    from kafka_edu.v1_0_2.core.controller.controller_context import LeaderIsrAndControllerEpoch

    info = json.loads(leader_and_isr_str)
    leader_and_isr = LeaderAndIsr(info["leader"], info["leader_epoch"], list(info["isr"]), stat.version)
    log.debug("Leader %d, Epoch %d, Isr %s, Zk path version %d for leaderAndIsrPath %s", leader_and_isr.leader,
              leader_and_isr.leader_epoch, leader_and_isr.isr, stat.version, path)
    return LeaderIsrAndControllerEpoch(leader_and_isr, info["controller_epoch"])


def generate_isr_change_json(isr_changes: Iterable[TopicPartition]) -> str:
    partitions = [{"topic": tp.topic, "partition": tp.partition} for tp in sorted(isr_changes)]
    return json.dumps(with_writer({"version": ISR_CHANGE_NOTIFICATION_VERSION, "partitions": partitions}),
                      separators=(",", ":"))
