"""Three brokers elect one controller in ZooKeeper, and another when it dies, stops or stalls (Kafka 1.0.2)."""

from __future__ import annotations

import os
import signal
import time

from tests.integration.helpers import (
    SESSION_TIMEOUT_S,
    Broker,
    ZooKeeper,
    controller_epoch,
    controller_id,
    metadata_controller_id,
    wait_until,
)

# With no topics yet there is no partition listener to register (CT.failover.10).
FAILOVER = ["CT.failover.01", "CT.failover.02", "CT.failover.03", "CT.failover.04", "CT.failover.05",
            "CT.failover.06", "CT.failover.07", "CT.failover.08", "CT.failover.09", "CT.failover.11", "CT.failover.12",
            "CT.failover.13", "CT.failover.14"]


def start_cluster(brokers) -> dict[int, Broker]:
    cluster = {i: brokers(f"b{i}", broker_id=str(i), zookeeper_session_timeout_ms=str(int(SESSION_TIMEOUT_S * 1000)))
               for i in range(3)}
    for broker in cluster.values():
        broker.start()
    for broker in cluster.values():
        broker.wait_running()
    return cluster


def wait_for_controller(zookeeper: ZooKeeper, timeout_s: float, other_than: int | None = None) -> int:
    """The id in /controller once it names a broker other than `other_than`."""
    def elected() -> bool:
        current = controller_id(zookeeper)
        return current is not None and current != other_than
    wait_until(elected, timeout_s, "a controller" if other_than is None else f"a controller other than {other_than}")
    return controller_id(zookeeper)


def event_trace_steps(broker: Broker, event_name: str, last_step: str) -> list[str] | None:
    """The steps of the broker's latest CT.event trace for `event_name` that reached `last_step`, without the
    requests sent to brokers (CT.channel), which depend on who has registered by then."""
    spans = broker.spans()
    for root in reversed(list(spans.where(step="CT.event", kafka__controller__event=event_name))):
        steps = [s for s in spans.where(trace_id=root.trace_id).steps() if s != "CT.channel"]
        if last_step in steps:
            return steps
    return None


def test_three_brokers_elect_exactly_one_controller_at_epoch_1(brokers, zookeeper):
    cluster = start_cluster(brokers)
    controller = wait_for_controller(zookeeper, 10)
    assert controller in cluster
    assert controller_epoch(zookeeper) == 1

    # Only the winner's Startup event went on to the failover; the others saw the winner and stopped.
    steps = wait_until(lambda: event_trace_steps(cluster[controller], "Startup", "CT.failover.14"), 10,
                       "the winner's Startup trace")
    assert steps == ["CT.event", "CT.startup.2", "CT.elect", *FAILOVER]
    failover = cluster[controller].spans()
    assert failover.where(step="CT.failover.02").last().attributes["kafka.controller.epoch"] == 1
    # The controller elects itself before any broker (itself included) registers in /brokers/ids (LC.startup.12
    # comes before LC.startup.20), so the rest arrive as BrokerChange events (CT.broker: onBrokerStartup).
    def live_brokers_known_to_the_controller() -> list[int]:
        spans = cluster[controller].spans()
        changes = [s for s in [*spans.where(step="CT.failover.05"), *spans.where(step="CT.broker")]
                   if "kafka.brokers.live" in s.attributes]
        return max(changes, key=lambda s: s.start_ns).attributes["kafka.brokers.live"]
    wait_until(lambda: live_brokers_known_to_the_controller() == [0, 1, 2], 10, "the controller to see three brokers")
    for broker_change in cluster[controller].spans().where(step="CT.event", kafka__controller__event="BrokerChange"):
        assert cluster[controller].spans().where(trace_id=broker_change.trace_id).steps()[:2] == ["CT.event",
                                                                                                   "CT.broker"]
    # Every watch in 1.0.2's order, before the context is read.
    assert [s.name.removeprefix("KafkaController.") for s in failover.where(step="CT.failover.04")] == [
        "registerPartitionReassignmentListener", "registerIsrChangeNotificationListener",
        "registerPreferredReplicaElectionListener", "registerTopicChangeListener", "registerTopicDeletionListener",
        "registerBrokerChangeListener", "registerLogDirEventNotificationListener"]
    for broker_id, broker in cluster.items():
        if broker_id != controller:
            steps = wait_until(lambda b=broker: event_trace_steps(b, "Startup", "CT.elect"), 10, "a Startup trace")
            assert steps == ["CT.event", "CT.startup.2", "CT.elect"]
            elect = broker.spans().where(step="CT.elect").last()
            assert elect.attributes["kafka.controller.won"] is False
            assert elect.attributes["kafka.controller.id"] == controller
            assert not broker.spans().where(step="CT.failover")

    # Every broker's Metadata answer names the controller in /controller.
    for broker in cluster.values():
        wait_until(lambda b=broker: metadata_controller_id(b) == controller, 15, "Metadata to name the controller")


def test_kill_9_of_the_controller_elects_another_at_epoch_2_within_the_session_timeout(brokers, zookeeper):
    cluster = start_cluster(brokers)
    old = wait_for_controller(zookeeper, 10)
    assert controller_epoch(zookeeper) == 1

    cluster[old].kill()
    new = wait_for_controller(zookeeper, SESSION_TIMEOUT_S + 2, other_than=old)
    assert new in cluster and new != old
    wait_until(lambda: controller_epoch(zookeeper) == 2, 5, "epoch 2")

    # /controller vanished with the dead session: the deletion watch queued Reelect, and the winner failed over.
    steps = wait_until(lambda: event_trace_steps(cluster[new], "Reelect", "CT.failover.14"), 10, "a Reelect trace")
    assert steps == ["CT.event", "CT.reelect", "CT.elect", *FAILOVER]
    spans = cluster[new].spans()
    assert spans.where(step="CT.failover.01").last().attributes["kafka.controller.epoch"] == 1
    assert spans.where(step="CT.failover.02").last().attributes["kafka.controller.epoch"] == 2
    survivor = next(b for i, b in cluster.items() if i not in (old, new))
    assert not survivor.spans().where(step="CT.failover")
    for broker in (cluster[new], survivor):
        wait_until(lambda b=broker: metadata_controller_id(b) == new, 15, "Metadata to name the new controller")


def test_sigterm_of_the_controller_moves_it_at_once_and_the_old_one_resigns(brokers, zookeeper):
    cluster = start_cluster(brokers)
    old = wait_for_controller(zookeeper, 10)

    assert cluster[old].terminate() == 0
    # The session closed with the process, taking the ephemeral /controller with it: no session timeout to wait for.
    assert controller_id(zookeeper) != old
    new = wait_for_controller(zookeeper, 5, other_than=old)
    wait_until(lambda: controller_epoch(zookeeper) == 2, 5, "epoch 2")
    assert new != old

    spans = cluster[old].spans()
    shutdown = spans.where(name="KafkaServer.shutdown").first()
    steps = spans.where(trace_id=shutdown.trace_id).steps()
    assert steps.index("LC.shutdown.14") < steps.index("LC.shutdown.15") < steps.index("CT.resign") < steps.index(
        "LC.shutdown.16")
    resign = spans.where(trace_id=shutdown.trace_id, step="CT.resign").first()
    assert resign.attributes["kafka.controller.epoch"] == 1  # it was the controller of epoch 1 when it resigned


def test_a_stalled_controller_resigns_after_its_session_expires_and_rejoins_as_a_follower(brokers, zookeeper):
    cluster = start_cluster(brokers)
    old = wait_for_controller(zookeeper, 10)
    paused = cluster[old]
    # Pause it only once its own failover is over: a failover cut in half by SIGSTOP finishes after SIGCONT, and
    # its late spans would look like a second failover.
    wait_until(lambda: event_trace_steps(paused, "Startup", "CT.failover.14"), 20, "the controller's failover")

    os.kill(paused.pid, signal.SIGSTOP)  # no heartbeats: ZooKeeper expires the session and its /controller
    try:
        new = wait_for_controller(zookeeper, 30, other_than=old)
    finally:
        resumed_ns = time.time_ns()
        os.kill(paused.pid, signal.SIGCONT)

    def resigned_then_lost_the_election() -> bool:
        spans = paused.spans()
        resigned = [s for s in spans.where(step="CT.resign") if s.start_ns >= resumed_ns]
        lost = [s for s in spans.where(step="CT.elect") if s.start_ns >= resumed_ns
                and s.attributes.get("kafka.controller.won") is False]
        return bool(resigned and lost)
    wait_until(resigned_then_lost_the_election, 30, "the old controller to resign and see the new one")

    # The resignation ran as a controller event (Reelect from the new session, or ControllerChange from the watch).
    spans = paused.spans()
    resign = [s for s in spans.where(step="CT.resign") if s.start_ns >= resumed_ns][0]
    root = spans.where(trace_id=resign.trace_id, step="CT.event").first()
    assert root.attributes["kafka.controller.event"] in ("Reelect", "ControllerChange")
    assert root.attributes["kafka.controller.state"] == "ControllerChange"

    assert paused.process.poll() is None
    assert controller_id(zookeeper) == new and controller_epoch(zookeeper) == 2
    assert [s for s in spans.where(step="CT.failover") if s.start_ns >= resumed_ns] == []
    for broker in cluster.values():
        wait_until(lambda b=broker: metadata_controller_id(b) == new, 15, "Metadata to name the new controller")
    assert paused.terminate() == 0
