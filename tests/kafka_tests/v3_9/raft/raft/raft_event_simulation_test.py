"""Port of raft/src/test/java/org/apache/kafka/raft/RaftEventSimulationTest.java (Kafka 3.9).

Kafka's cases are jqwik properties: 100 tries each over a random seed and a random number of voters and observers.
Here each case runs over a small fixed set of (seed, voters, observers) that covers the ranges' ends, with Kafka's
own timings, periods and targets; the hundred tries (drawn once from a fixed seed, so they are the same every run)
are parameters marked `slow_simulation`, which pyproject.toml's addopts leave out of a plain `pytest` (and so of
`./run tests`). Run them with:

    .venv/bin/python -m pytest -m slow_simulation tests/kafka_tests/v3_9/raft/raft/raft_event_simulation_test.py

The simulation's classes (Cluster, EventScheduler, MessageRouter, the filters and invariants) are ported in
kafka_edu/v3_9/raft/raft/raft_event_simulation.py, where `kafka-edu raft-sim` runs them too. A seed does not replay
Kafka's run of the same seed: Java's Random and Python's draw different numbers.
"""

from __future__ import annotations

import random

import pytest

from kafka_edu.v3_9.raft.raft.raft_event_simulation import (
    Cluster,
    ConsistentCommittedData,
    DropAllTraffic,
    DropOutboundRequestsTo,
    EventScheduler,
    MessageRouter,
    MonotonicHighWatermark,
    PermitAllTraffic,
    SequentialAppendAction,
    SingleLeader,
    schedule_polling,
    scheduler_with_default_invariants,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/RaftEventSimulationTest.java",
    cases=["canElectInitialLeader", "canElectNewLeaderAfterOldLeaderFailure", "canRecoverAfterAllNodesKilled",
           "canElectNewLeaderAfterOldLeaderPartitionedAway", "canMakeProgressIfMajorityIsReachable",
           "canMakeProgressAfterBackToBackLeaderFailures", "canRecoverFromSingleNodeCommittedDataLoss"],
)

TRIES = 100  # jqwik's tries per property in Kafka


def _tries(case: str, fixed: list[tuple], **ranges: tuple[int, int] | tuple[bool, ...]) -> list:
    """The fixed parameter sets, then TRIES drawn ones marked slow_simulation. `ranges`: name -> (min, max)
    inclusive, or a tuple of booleans to choose from; the seed is drawn from the whole int range, as @ForAll int."""
    draw = random.Random(case)
    slow = []
    for _ in range(TRIES):
        values = [draw.randint(-2**31, 2**31 - 1)]
        for bounds in ranges.values():
            values.append(draw.choice(bounds) if isinstance(bounds[0], bool) else draw.randint(*bounds))
        slow.append(pytest.param(*values, marks=pytest.mark.slow_simulation, id="slow-" + "-".join(map(str, values))))
    return [pytest.param(*values, id="-".join(map(str, values))) for values in fixed] + slow


def _seeded_cluster(seed: int, num_voters: int, num_observers: int
                    ) -> tuple[Cluster, MessageRouter, EventScheduler]:
    cluster = Cluster(num_voters, num_observers, random.Random(seed))
    router = MessageRouter(cluster)
    return cluster, router, scheduler_with_default_invariants(cluster)


def _start(cluster: Cluster, router: MessageRouter, scheduler: EventScheduler, deliver_jitter_ms: int) -> None:
    """What every case starts with: the nodes started, polled every 3 ms (jitter 5), the router delivering every
    2 ms (the case's jitter), and the leader appending the next counter value every 2 ms (jitter 3)."""
    cluster.start_all()
    schedule_polling(scheduler, cluster, 3, 5)
    scheduler.schedule(router.deliver_all, 0, 2, deliver_jitter_ms)
    scheduler.schedule(SequentialAppendAction(cluster), 0, 2, 3)


@pytest.mark.parametrize("seed,num_voters,num_observers",
                         _tries("canElectInitialLeader", [(1, 1, 0), (2, 3, 0), (3, 5, 5)],
                                num_voters=(1, 5), num_observers=(0, 5)))
def test_can_elect_initial_leader(seed: int, num_voters: int, num_observers: int) -> None:
    cluster, router, scheduler = _seeded_cluster(seed, num_voters, num_observers)
    _start(cluster, router, scheduler, 1)
    scheduler.run_until(cluster.has_consistent_leader)
    scheduler.run_until(lambda: cluster.all_reached_high_watermark(10))


@pytest.mark.parametrize("seed,num_voters,num_observers,is_graceful_shutdown",
                         _tries("canElectNewLeaderAfterOldLeaderFailure",
                                [(1, 3, 0, True), (2, 3, 0, False), (3, 5, 5, True)],
                                num_voters=(3, 5), num_observers=(0, 5), is_graceful_shutdown=(True, False)))
def test_can_elect_new_leader_after_old_leader_failure(seed: int, num_voters: int, num_observers: int,
                                                       is_graceful_shutdown: bool) -> None:
    cluster, router, scheduler = _seeded_cluster(seed, num_voters, num_observers)
    # seed the cluster with some data
    _start(cluster, router, scheduler, 1)
    scheduler.run_until(cluster.has_consistent_leader)
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(10))

    # a new leader is elected once the old one is gone: the high watermark moves on
    leader_id = cluster.latest_leader()
    assert leader_id is not None, "Failed to find current leader"
    if is_graceful_shutdown:
        cluster.shutdown(leader_id)
    else:
        cluster.kill(leader_id)
    scheduler.run_until(lambda: cluster.all_reached_high_watermark(20))
    high_watermark = cluster.max_high_watermark_reached()

    # the old leader, started again, catches up
    cluster.start(leader_id)
    scheduler.run_until(lambda: cluster.all_reached_high_watermark(high_watermark + 10))


@pytest.mark.parametrize("seed,num_voters,num_observers",
                         _tries("canRecoverAfterAllNodesKilled", [(1, 1, 0), (2, 3, 3), (3, 5, 5)],
                                num_voters=(1, 5), num_observers=(0, 5)))
def test_can_recover_after_all_nodes_killed(seed: int, num_voters: int, num_observers: int) -> None:
    cluster, router, scheduler = _seeded_cluster(seed, num_voters, num_observers)
    _start(cluster, router, scheduler, 1)
    scheduler.run_until(cluster.has_consistent_leader)
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(10))
    high_watermark = cluster.max_high_watermark_reached()

    # every node dies; a majority comes back, elects a leader and moves on
    cluster.kill_all()
    for node_id in cluster.node_ids()[:cluster.majority_size()]:
        cluster.start(node_id)
    scheduler.run_until(lambda: cluster.all_reached_high_watermark(high_watermark + 10))


@pytest.mark.parametrize("seed,num_voters,num_observers",
                         _tries("canElectNewLeaderAfterOldLeaderPartitionedAway",
                                [(1, 3, 0), (2, 4, 1), (3, 5, 0)],
                                num_voters=(3, 5), num_observers=(0, 5)))
def test_can_elect_new_leader_after_old_leader_partitioned_away(seed: int, num_voters: int,
                                                                num_observers: int) -> None:
    cluster, router, scheduler = _seeded_cluster(seed, num_voters, num_observers)
    _start(cluster, router, scheduler, 2)
    scheduler.run_until(cluster.has_consistent_leader)
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(10))

    # the leader is cut off; the others elect a new one and replicate what it appends
    leader_id = cluster.latest_leader()
    assert leader_id is not None, "Failed to find current leader"
    router.filter(leader_id, DropAllTraffic())
    non_partitioned_nodes = [node_id for node_id in cluster.node_ids() if node_id != leader_id]
    scheduler.run_until(lambda: cluster.all_reached_high_watermark(20, non_partitioned_nodes))


@pytest.mark.parametrize("seed,num_observers",
                         _tries("canMakeProgressIfMajorityIsReachable", [(3, 0), (4, 3)],
                                num_observers=(0, 3)))
def test_can_make_progress_if_majority_is_reachable(seed: int, num_observers: int) -> None:
    num_voters = 5
    cluster, router, scheduler = _seeded_cluster(seed, num_voters, num_observers)
    _start(cluster, router, scheduler, 2)
    scheduler.run_until(cluster.has_consistent_leader)
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(10))

    # two sets that reach within but not across: the larger one makes progress, electing a leader if it must
    router.filter(0, DropOutboundRequestsTo(cluster.endpoints_from_ids({2, 3, 4})))
    router.filter(1, DropOutboundRequestsTo(cluster.endpoints_from_ids({2, 3, 4})))
    router.filter(2, DropOutboundRequestsTo(cluster.endpoints_from_ids({0, 1})))
    router.filter(3, DropOutboundRequestsTo(cluster.endpoints_from_ids({0, 1})))
    router.filter(4, DropOutboundRequestsTo(cluster.endpoints_from_ids({0, 1})))

    partition_log_end_offset = cluster.max_log_end_offset()
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(2 * partition_log_end_offset))

    minority_high_watermark = cluster.max_high_watermark_reached({0, 1})
    majority_high_watermark = cluster.max_high_watermark_reached({2, 3, 4})
    assert majority_high_watermark > minority_high_watermark, \
        f"majorityHighWatermark = {majority_high_watermark}, minorityHighWatermark = {minority_high_watermark}"

    # the partition heals: everyone catches up
    for node_id in range(5):
        router.filter(node_id, PermitAllTraffic())
    restored_log_end_offset = cluster.max_log_end_offset()
    scheduler.run_until(lambda: cluster.all_reached_high_watermark(2 * restored_log_end_offset))


@pytest.mark.parametrize("seed,num_voters,num_observers",
                         _tries("canMakeProgressAfterBackToBackLeaderFailures",
                                [(1, 3, 0), (5, 4, 0), (2, 5, 5)],
                                num_voters=(3, 5), num_observers=(0, 5)))
def test_can_make_progress_after_back_to_back_leader_failures(seed: int, num_voters: int,
                                                              num_observers: int) -> None:
    cluster, router, scheduler = _seeded_cluster(seed, num_voters, num_observers)
    _start(cluster, router, scheduler, 5)
    scheduler.run_until(cluster.has_consistent_leader)
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(10))

    leader_id = cluster.latest_leader()
    router.filter(leader_id, DropAllTraffic())
    scheduler.run_until(lambda: cluster.latest_leader() is not None and cluster.latest_leader() != leader_id)

    # as soon as there is a new leader, the old one is reachable again and the new one cut off
    new_leader_id = cluster.latest_leader()
    router.filter(leader_id, PermitAllTraffic())
    router.filter(new_leader_id, DropAllTraffic())

    target_high_watermark = cluster.max_high_watermark_reached() + 10
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(target_high_watermark))


@pytest.mark.parametrize("seed,num_voters,num_observers",
                         _tries("canRecoverFromSingleNodeCommittedDataLoss",
                                [(1, 3, 0), (2, 3, 2), (3, 5, 2)],
                                num_voters=(3, 5), num_observers=(0, 2)))
def test_can_recover_from_single_node_committed_data_loss(seed: int, num_voters: int, num_observers: int) -> None:
    # without MonotonicEpoch and MajorityReachedHighWatermark: a node losing committed data can break them
    cluster = Cluster(num_voters, num_observers, random.Random(seed))
    scheduler = EventScheduler(cluster.random, cluster.time)
    scheduler.add_invariant(MonotonicHighWatermark(cluster))
    scheduler.add_invariant(SingleLeader(cluster))
    scheduler.add_validation(ConsistentCommittedData(cluster))
    router = MessageRouter(cluster)

    _start(cluster, router, scheduler, 5)
    scheduler.run_until(lambda: cluster.any_reached_high_watermark(10))

    node = cluster.random_running()
    assert node is not None, "Failed to find running node"

    # a node dies with all its persistent state; as long as a new leader is elected before it comes back, Raft
    # loses nothing committed
    cluster.kill_and_delete_persistent_state(node.node_id)
    scheduler.run_until(lambda: not cluster.has_leader(node.node_id) and cluster.has_consistent_leader())

    # started again, it recovers
    high_watermark_before_restart = cluster.max_high_watermark_reached()
    cluster.start(node.node_id)
    scheduler.run_until(lambda: cluster.all_reached_high_watermark(high_watermark_before_restart + 10))
