"""ReplicationUtils.updateLeaderAndIsr on a real ZooKeeper: the compare-and-set of the partition state znode, and
the check that turns a version conflict over identical data (our own write, its response lost) into success."""

from __future__ import annotations

import json

from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.controller.controller_context import LeaderIsrAndControllerEpoch
from kafka_edu.v1_0_2.core.utils.replication_utils import get_leader_isr_and_epoch_for_partition, update_leader_and_isr
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    ZkUtils,
    get_topic_partition_leader_and_isr_path,
    leader_and_isr_zk_data,
)
from tests.integration.helpers import ZooKeeper

TOPIC = "my-topic-test"
PARTITION = 0
CONTROLLER_EPOCH = 1
LEADER_EPOCH = 1


def test_update_leader_and_isr_accepts_a_conflict_only_over_identical_data(zookeeper: ZooKeeper) -> None:
    zk_utils = ZkUtils(zookeeper.connect, session_timeout_ms=10_000, connection_timeout_ms=10_000)
    try:
        path = get_topic_partition_leader_and_isr_path(TOPIC, PARTITION)
        zk_utils.create_persistent_path(
            path, leader_and_isr_zk_data(LeaderAndIsr(1, LEADER_EPOCH, [1, 2], 0), CONTROLLER_EPOCH))

        # At the expected version: written, and the znode's version moves on.
        written = LeaderAndIsr(1, LEADER_EPOCH, [1, 2, 3], 0)
        assert update_leader_and_isr(zk_utils, TOPIC, PARTITION, written, CONTROLLER_EPOCH, 0) == (True, 1)

        # A stale version, but the znode already holds exactly this state: success, at the znode's version.
        assert update_leader_and_isr(zk_utils, TOPIC, PARTITION, written, CONTROLLER_EPOCH, 0) == (True, 1)

        # A stale version and other data (a different ISR, or another controller's epoch): refused.
        assert update_leader_and_isr(zk_utils, TOPIC, PARTITION, LeaderAndIsr(1, LEADER_EPOCH, [1], 0),
                                     CONTROLLER_EPOCH, 0) == (False, -1)
        assert update_leader_and_isr(zk_utils, TOPIC, PARTITION, written, CONTROLLER_EPOCH + 1, 0) == (False, -1)

        state, stat = zk_utils.read_data_maybe_null(path)
        assert stat.version == 1
        assert json.loads(state) == {"controller_epoch": CONTROLLER_EPOCH, "leader": 1, "version": 1,
                                     "leader_epoch": LEADER_EPOCH, "isr": [1, 2, 3]}
        assert get_leader_isr_and_epoch_for_partition(zk_utils, TOPIC, PARTITION) == LeaderIsrAndControllerEpoch(
            LeaderAndIsr(1, LEADER_EPOCH, [1, 2, 3], 1), CONTROLLER_EPOCH)

        # No state znode at all: refused, nothing created.
        assert update_leader_and_isr(zk_utils, TOPIC, PARTITION + 1, written, CONTROLLER_EPOCH, 0) == (False, -1)
        assert get_leader_isr_and_epoch_for_partition(zk_utils, TOPIC, PARTITION + 1) is None
    finally:
        zk_utils.close()
