"""Exactly-once on KRaft across a kill -9 of the transaction coordinator's broker (issue 25's acceptance): the same
consume-transform-produce loop as the ZooKeeper-mode test (tests/integration/exactly_once.py), on three 3.9 brokers
and one controller. When the coordinator's broker stops heartbeating, the controller fences it and moves the
leadership of `__transaction_state` (one partition, on every broker); the new leader's coordinator loads the
transactions, and the open one is committed or aborted, never both and never lost.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kafka_edu.cluster_runner.runner import ClusterRunner
from tests.integration.exactly_once import consume_transform_produce_across_a_kill

OVERRIDES = ["transaction.state.log.num.partitions=1", "transaction.state.log.replication.factor=3",
             "transaction.state.log.min.isr=2", "offsets.topic.num.partitions=1",
             "offsets.topic.replication.factor=3", "min.insync.replicas=2", "default.replication.factor=3",
             "transaction.max.timeout.ms=120000", "transaction.abort.timed.out.transaction.cleanup.interval.ms=1000",
             "group.initial.rebalance.delay.ms=0", "replica.lag.time.max.ms=10000"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(3, tmp_path_factory.mktemp("kraft-txn-failover") / "traces", mode="kraft",
                              controllers=1, overrides=OVERRIDES, timeout_s=120)
    try:
        yield runner
    finally:
        runner.down()


def test_consume_transform_produce_is_exactly_once_across_a_kill_9_of_the_transaction_coordinators_broker(
        cluster: ClusterRunner) -> None:
    consume_transform_produce_across_a_kill(cluster, "RUNNING")
