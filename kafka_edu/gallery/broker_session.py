"""Our own code, not a Kafka port: gallery scenario `broker-session`. A ZooKeeper-mode (1.0.2) broker cut from
ZooKeeper, but not from the other brokers or the clients, loses its session: its registration (/brokers/ids/B)
goes with it, the controller counts it dead (CT.broker) and elects new leaders for the partitions it led (CT.select).
Healed, the broker finds its session expired, registers again (KafkaHealthcheck's new-session listener) and the
controller counts it live again (CT.broker) and makes it a follower of those partitions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.gallery.common import Report, fresh_run, spans, wait_for
from kafka_edu.gallery.zk_state import controller, partition_state, registered, zookeeper
from kafka_edu.nemesis.nemesis import wait_for_partitions
from kafka_edu.tracing.query import SpanRecord

NAME = "broker-session"
TITLE = "A broker cut from ZooKeeper: its session expires, its leaderships move, it registers again"
SESSION_TIMEOUT_MS = 4000
OVERRIDES = [f"zookeeper.session.timeout.ms={SESSION_TIMEOUT_MS}", "controller.socket.timeout.ms=5000",
             "offsets.topic.replication.factor=3"]
TOPIC = "moved"
NEW_SESSION = "KafkaHealthcheck.SessionExpireListener.handleNewSession"


def run(traces_dir: Path, keep: bool = False, out: Callable[[str], None] = print) -> Report:
    with fresh_run(traces_dir, keep, brokers=3, overrides=OVERRIDES) as runner:
        report = Report(NAME, runner.run.path)
        bootstrap = runner.run.read_manifest()["bootstrap_servers"]
        with zookeeper(runner) as zk:
            ctrl, _ = wait_for(lambda: controller(zk), 15, "a controller")
            cut_off, x, y = [b for b in range(3) if b != ctrl] + [ctrl]
            admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 2})
            # B leads partition 0 and follows the other two
            admin.create_topics([NewTopic(TOPIC, num_partitions=3, replica_assignment=[
                [cut_off, x, y], [x, y, cut_off], [y, cut_off, x]])])[TOPIC].result(30)
            wait_for_partitions(admin, TOPIC, 30, full_isr=True)
            before = partition_state(zk, TOPIC)
            out(f"{NAME}: run {runner.run.path}; controller {ctrl}; broker {cut_off} leads {TOPIC}-0 "
                f"(leader epoch {before['leader_epoch']})")
            cut = runner.isolate(str(cut_off), "zookeeper")
            out(f"{NAME}: cut {cut['id']}: broker {cut_off} from ZooKeeper (the brokers and clients still reach it)")
            wait_for(lambda: cut_off not in registered(zk), SESSION_TIMEOUT_MS / 1000 + 20,
                     f"broker {cut_off}'s registration to go with its session")
            moved = wait_for(lambda: (s := partition_state(zk, TOPIC)) and s["leader"] != cut_off and s, 20,
                             f"the controller to move {TOPIC}-0 off broker {cut_off}")
            out(f"{NAME}: /brokers/ids is {registered(zk)}; {TOPIC}-0 now led by broker {moved['leader']} (leader "
                f"epoch {moved['leader_epoch']}, ISR {moved['isr']})")
            healed_ns = time.time_ns()
            runner.heal()
            wait_for(lambda: cut_off in registered(zk), 40, f"broker {cut_off} to register again")
            out(f"{NAME}: healed; broker {cut_off} registered again: /brokers/ids is {registered(zk)}")
            wait_for_partitions(admin, TOPIC, 40, full_isr=True)

            # a broker exports its spans in batches: wait until the last moment's span is in its file
            moments = wait_for(lambda: _moments(runner, ctrl, cut_off, cut["at_ns"], healed_ns), 30,
                               "the moments' spans in the run's files", every_s=1.0, default=True)
        dead, select, again, alive = moments or _moments(runner, ctrl, cut_off, cut["at_ns"], healed_ns, all_=False)
        report.say(f"broker {cut_off} led {TOPIC}-0 at leader epoch {before['leader_epoch']}; its session expired "
                   f"and broker {moved['leader']} leads it at leader epoch {moved['leader_epoch']}")
        if dead:
            report.moment(f"the controller counts broker {cut_off} dead", dead[0], "kafka.brokers.dead")
        if select:
            report.moment(f"{TOPIC}-0 gets a new leader", select[0], "kafka.leader")
        if again:
            report.moment(f"broker {cut_off} finds a new session and registers again", again[0], "kafka.broker.id")
        if alive:
            report.moment(f"the controller counts broker {cut_off} live again", alive[0], "kafka.brokers.new")
        report.facts = {"broker": cut_off, "controller": ctrl, "leader_before": before["leader"],
                        "leader_after": moved["leader"], "epoch_before": before["leader_epoch"],
                        "epoch_after": moved["leader_epoch"]}
        report.ok = bool(dead and select and again and alive)
        return report


def _moments(runner: ClusterRunner, ctrl: int, cut_off: int, cut_ns: int, healed_ns: int,
             all_: bool = True) -> tuple[list[SpanRecord], ...] | None:
    """The controller's broker change (dead), its election, the broker's new session, the broker change (new): each a
    list of spans; None while one of them is not found yet (with `all_`)."""
    found = spans(runner)
    dead = [s for s in found.where(step="CT.broker", instance=f"broker-{ctrl}")
            if s.attributes.get("kafka.brokers.dead") == [cut_off] and s.start_ns >= cut_ns]
    select = [s for s in found.where(step="CT.select", instance=f"broker-{ctrl}")
              if s.attributes.get("kafka.topic") == TOPIC and s.attributes.get("kafka.partition") == 0
              and s.start_ns >= cut_ns and s.attributes.get("kafka.leader") not in (None, cut_off)]
    again = [s for s in found.where(name=NEW_SESSION, instance=f"broker-{cut_off}") if s.start_ns >= healed_ns]
    alive = [s for s in found.where(step="CT.broker", instance=f"broker-{ctrl}")
             if cut_off in (s.attributes.get("kafka.brokers.new") or []) and s.start_ns >= healed_ns]
    result = (dead, select, again, alive)
    return result if not all_ or all(result) else None
