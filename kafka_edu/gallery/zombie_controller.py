"""Our own code, not a Kafka port: gallery scenario `zombie-controller`. A ZooKeeper-mode (1.0.2) controller cut
from ZooKeeper, but not from the brokers, goes on acting as controller until it learns that its session expired;
once another broker is controller at a later epoch, the brokers refuse the old one's orders by their controller
epoch (CT.fence, event `controller.epoch.stale`).

The story: the controller C is cut from ZooKeeper only. A broker Y then begins a controlled shutdown and asks C (the
controller its metadata names) to move its leaderships. C takes the request and sends Y its orders (StopReplica)
with its own epoch. On the ZooKeeper side C's session expires and another broker wins the next controller epoch and
tells the live brokers. Orders of C that reach a broker after that are refused. Healed, C finds its session gone,
resigns (CT.resign) and registers again as an ordinary broker.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.processes import process_alive, signal_process
from kafka_edu.gallery.common import Report, fresh_run, spans, wait_for
from kafka_edu.gallery.zk_state import controller, registered, zookeeper
from kafka_edu.nemesis.nemesis import wait_for_partitions
from kafka_edu.tracing.query import SpanRecord

NAME = "zombie-controller"
TITLE = "The zombie controller: cut from ZooKeeper, its orders refused by controller epoch"
SESSION_TIMEOUT_MS = 4000
OVERRIDES = [f"zookeeper.session.timeout.ms={SESSION_TIMEOUT_MS}", "controller.socket.timeout.ms=5000",
             "controlled.shutdown.max.retries=1", "offsets.topic.replication.factor=3"]
TOPIC = "orders"


def heard_epoch(found: list[SpanRecord], broker: int, epoch: int) -> bool:
    return any(s.instance == f"broker-{broker}" and s.attributes.get("kafka.controller.epoch") == epoch
               for s in found if s.name == "ReplicaManager.maybeUpdateMetadataCache")


def run(traces_dir: Path, keep: bool = False, out: Callable[[str], None] = print) -> Report:
    with fresh_run(traces_dir, keep, brokers=3, overrides=OVERRIDES) as runner:
        report = Report(NAME, runner.run.path)
        bootstrap = runner.run.read_manifest()["bootstrap_servers"]
        with zookeeper(runner) as zk:
            old, epoch = wait_for(lambda: controller(zk), 15, "a controller")
            shutting, third = [b for b in range(3) if b != old]
            admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 2})
            # Y leads one partition and follows two: its shutdown needs a new leader and two ISR changes
            admin.create_topics([NewTopic(TOPIC, num_partitions=3, replica_assignment=[
                [shutting, third, old], [third, shutting, old], [old, shutting, third]])])[TOPIC].result(30)
            wait_for_partitions(admin, TOPIC, 30, full_isr=True)
            wait_for(lambda: all(heard_epoch(list(spans(runner)), b, epoch) for b in range(3)), 20,
                     f"every broker at controller epoch {epoch}")
            out(f"{NAME}: run {runner.run.path}; controller {old} at epoch {epoch}")
            cut = runner.isolate(str(old), "zookeeper")
            out(f"{NAME}: cut {cut['id']}: broker {old} (the controller) from ZooKeeper; brokers still reach it")
            # Y's controlled shutdown asks the controller it knows: the one now cut off. SIGTERM as `runner.stop`
            # sends it, without waiting here: the story goes on while Y waits for its answer
            shutting_pid = runner.entry(shutting)["pid"]
            signal_process(shutting_pid, signal.SIGTERM)
            out(f"{NAME}: broker {shutting} begins a controlled shutdown and asks controller {old}")
            new = wait_for(lambda: (c := controller(zk)) and c[0] != old and c[1] > epoch and c,
                           SESSION_TIMEOUT_MS / 1000 + 25, f"a controller other than {old}")
            out(f"{NAME}: broker {new[0]} is controller at epoch {new[1]}")
            wait_for(lambda: heard_epoch(list(spans(runner)), third, new[1]), 30,
                     f"broker {third} to hear controller epoch {new[1]}")
            healed_ns = time.time_ns()
            runner.heal()
            out(f"{NAME}: healed; broker {old} finds its session expired")
            found: list[SpanRecord] = []

            def refused() -> list[SpanRecord]:
                found[:] = list(spans(runner))
                return [s for s in found for e in s.events if e.name == "controller.epoch.stale"
                        and e.attributes.get("kafka.controller.id") == old]
            fenced = wait_for(refused, 40, f"a broker to refuse controller {old}'s old epoch")
            resigned = wait_for(lambda: [s for s in spans(runner) if s.step == "CT.resign"
                                         and s.instance == f"broker-{old}" and s.start_ns >= healed_ns], 40,
                                f"broker {old} to resign")
            wait_for(lambda: not process_alive(shutting_pid), 90, f"broker {shutting} to finish its shutdown")
            wait_for(lambda: old in registered(zk), 30, f"broker {old} to register again")

        event = next(e for e in fenced[0].events if e.name == "controller.epoch.stale")
        # orders of the zombie that a broker still took: sent before that broker heard the new epoch
        taken = [s for s in found if s.start_ns >= cut["at_ns"] and s.attributes.get("kafka.controller.id") == old
                 and s.attributes.get("kafka.controller.epoch") == epoch and s.instance != f"broker-{old}"
                 and s.name in ("ReplicaManager.stopReplicas", "ReplicaManager.becomeLeaderOrFollower")
                 and not any(e.name == "controller.epoch.stale" for e in s.events)]
        report.say(f"controller {old} (epoch {epoch}) was cut from ZooKeeper; broker {new[0]} became controller at "
                   f"epoch {new[1]}")
        report.say(f"broker {fenced[0].instance.removeprefix('broker-')} refused a "
                   f"{event.attributes.get('kafka.api.name')} of controller {old} at epoch "
                   f"{event.attributes.get('kafka.controller.epoch')} (latest it knows: "
                   f"{event.attributes.get('kafka.controller.epoch.latest')}); {len(fenced)} refusals in all, "
                   f"{len(taken)} orders of the cut-off controller taken before the new epoch reached the broker")
        report.moments.append({"what": f"a broker refuses controller {old}'s order by its epoch", "step": "CT.fence",
                               "span": fenced[0].name, "instance": fenced[0].instance,
                               "trace_id": fenced[0].trace_id, "attribute": "kafka.controller.epoch",
                               "value": event.attributes.get("kafka.controller.epoch"), "start_ns": event.time_ns})
        report.moment(f"broker {old} resigns as controller after the heal", resigned[0], "kafka.controller.epoch")
        report.facts = {"old": old, "epoch": epoch, "new": new[0], "new_epoch": new[1], "refusals": len(fenced),
                        "taken": len(taken), "shutting_down": shutting}
        report.ok = (event.attributes.get("kafka.controller.epoch") == epoch
                     and event.attributes.get("kafka.controller.epoch.latest", 0) > epoch)
        return report
