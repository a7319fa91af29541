"""Our own code, not a Kafka port: gallery scenario `jepsen-2013`. Kyle Kingsbury's 2013 Jepsen test of Kafka, on
1.0.2's rules, told twice at once on one cluster.

Two topics of one partition each, three replicas, both led by the same broker L: `unsafe` (min.insync.replicas=1,
unclean.leader.election.enable=true, written with acks=1) and `safe` (min.insync.replicas=2, clean elections only,
written with acks=all by an idempotent producer). L is cut from the other brokers: its followers stop fetching and L
shrinks both ISRs to itself (the unsafe topic goes on taking writes; the safe one refuses them, NotEnoughReplicas).
Then L is cut from ZooKeeper too: its session expires and the controller finds no live replica in either ISR. For
`unsafe` it elects an out-of-sync replica (CT.select, `kafka.election.unclean`): everything L acknowledged since the
shrink is gone. For `safe` there is no leader to elect (CT.select fails, NoReplicaOnlineException) until L is back.
Healed, every record is read back and the nemesis's checker judges each topic's history.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.gallery.common import Report, fresh_run, spans, wait_for
from kafka_edu.gallery.zk_state import controller, partition_state, zookeeper
from kafka_edu.nemesis.checker import check
from kafka_edu.nemesis.history import History
from kafka_edu.nemesis.nemesis import wait_for_partitions
from kafka_edu.nemesis.workload import Workload, WorkloadSettings
from kafka_edu.tracing.query import SpanRecord

NAME = "jepsen-2013"
TITLE = "Jepsen 2013: an out-of-sync replica elected uncleanly loses acknowledged writes"
SESSION_TIMEOUT_MS = 4000
OVERRIDES = [f"zookeeper.session.timeout.ms={SESSION_TIMEOUT_MS}", "replica.lag.time.max.ms=2000",
             "controller.socket.timeout.ms=5000", "replica.socket.timeout.ms=5000",
             "offsets.topic.replication.factor=3"]
# topic -> (its configs, the producer's acks and idempotence)
TOPICS = {"unsafe": ({"min.insync.replicas": "1", "unclean.leader.election.enable": "true"}, "1", False),
          "safe": ({"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}, "all", True)}
RATE = 40.0  # records a second, each topic


def run(traces_dir: Path, keep: bool = False, out: Callable[[str], None] = print) -> Report:
    with fresh_run(traces_dir, keep, brokers=3, overrides=OVERRIDES) as runner:
        report = Report(NAME, runner.run.path)
        manifest = runner.run.read_manifest()
        bootstrap = manifest["bootstrap_servers"]
        with zookeeper(runner) as zk:
            ctrl, _ = wait_for(lambda: controller(zk), 15, "a controller")
            leader = next(b for b in range(3) if b != ctrl)  # L is not the controller: the controller judges L
            others = [b for b in range(3) if b != leader]
            admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 2})
            futures = admin.create_topics(
                [NewTopic(t, num_partitions=1, replica_assignment=[[leader, *others]], config=configs)
                 for t, (configs, _, _) in TOPICS.items()], request_timeout=30)
            for future in futures.values():
                future.result(30)
            wait_for_partitions(admin, "unsafe", 30, full_isr=True)
            wait_for_partitions(admin, "safe", 30, full_isr=True)
            out(f"{NAME}: run {runner.run.path}; controller {ctrl}; L = broker {leader} leads `unsafe` and `safe`, "
                f"followers {others}")
            out_dir = runner.run.path / "gallery"
            out_dir.mkdir()
            histories = {t: History(out_dir / f"history-{t}.jsonl") for t in TOPICS}
            workloads = {t: Workload(WorkloadSettings(bootstrap, t, 1, RATE, acks, idem, False, 1, producers=1,
                                                      consumers=0, message_timeout_ms=20_000), histories[t])
                         for t, (_, acks, idem) in TOPICS.items()}
            for w in workloads.values():
                w.start()
            wait_for(lambda: all(h.count("ack") >= 20 for h in histories.values()), 20, "acknowledged writes")

            cut = runner.partition("split", [str(leader)], [str(b) for b in others])
            out(f"{NAME}: cut {cut['id']}: broker {leader} from brokers {others} (ZooKeeper and clients still reach "
                "it)")
            wait_for(lambda: all((partition_state(zk, t) or {}).get("isr") == [leader] for t in TOPICS), 20,
                     f"broker {leader} to shrink both ISRs to itself")
            shrunk_acks = histories["unsafe"].count("ack")
            out(f"{NAME}: both ISRs are [{leader}]; `unsafe` goes on acknowledging, `safe` refuses "
                "(NotEnoughReplicas)")
            time.sleep(2)  # the story needs writes acknowledged by L alone: two seconds of the workload's rate
            zk_cut = runner.isolate(str(leader), "zookeeper")
            cut_ns = time.time_ns()
            out(f"{NAME}: cut {zk_cut['id']}: broker {leader} from ZooKeeper; its session expires in "
                f"{SESSION_TIMEOUT_MS} ms")
            new = wait_for(lambda: (s := partition_state(zk, "unsafe")) and s["leader"] != leader and s,
                           SESSION_TIMEOUT_MS / 1000 + 20, "the controller to elect another leader for `unsafe`")
            out(f"{NAME}: `unsafe` now led by broker {new['leader']} (leader epoch {new['leader_epoch']}, ISR "
                f"{new['isr']}); `safe`: {partition_state(zk, 'safe')}")
            time.sleep(1)  # the new leader takes writes too, at offsets L had used
            runner.heal()
            out(f"{NAME}: healed; broker {leader} comes back as a follower of `unsafe` and truncates its log")
            for w in workloads.values():
                w.stop(drain_s=0)
            for t in TOPICS:
                wait_for_partitions(admin, t, 60, full_isr=True)
            verdicts = {}
            for t, w in workloads.items():
                w.read_back(30)
                histories[t].close()
                verdicts[t] = check(histories[t].events)

        found_all = spans(runner)
        found = found_all.where(step="CT.select")
        unclean = [s for s in found if s.attributes.get("kafka.topic") == "unsafe"
                   and s.attributes.get("kafka.election.unclean") and s.start_ns >= cut_ns]
        refused = [s for s in found if s.attributes.get("kafka.topic") == "safe" and s.is_error
                   and s.start_ns >= cut_ns]
        lost = {t: [a for a in v.anomalies if a.kind == "lost"] for t, v in verdicts.items()}
        for t, v in verdicts.items():
            acks = TOPICS[t][1]
            report.say(f"{t} (acks={acks}, {', '.join(f'{k}={x}' for k, x in TOPICS[t][0].items())}): "
                       f"{v.acknowledged} acknowledged, {v.read} read back, {len(lost[t])} lost"
                       + (f" (e.g. {lost[t][0].records[0]} at offset {lost[t][0].offsets[0]})" if lost[t] else ""))

        def truncations() -> list[SpanRecord]:
            return [s for s in spans(runner).where(step="LE.truncate", instance=f"broker-{leader}")
                    if s.start_ns >= cut_ns and "unsafe-0" in s.attributes.get("kafka.truncation.partitions", [])]
        # a broker exports its spans in batches: the truncation may not be in its file yet
        truncated = wait_for(truncations, 15, "L's truncation", every_s=1.0, default=True)
        report.say(f"`unsafe` had {shrunk_acks} records acknowledged when broker {leader}'s ISR was [{leader}]; "
                   f"broker {new['leader']}, elected uncleanly, held only the offsets below "
                   f"{min((a.offsets[0] for a in lost['unsafe']), default='?')}")
        if unclean:
            report.moment(f"controller elects out-of-sync broker {unclean[0].attributes.get('kafka.leader')} for "
                          f"`unsafe` (ISR was {unclean[0].attributes.get('kafka.isr.current')})", unclean[0],
                          "kafka.election.unclean")
        if refused:
            report.moment("no clean leader for `safe`: the election fails until L is back", refused[0],
                          "kafka.isr.current")
        if truncated:
            report.moment(f"broker {leader}, back as a follower, truncates `unsafe` to the new leader's end",
                          truncated[0], "kafka.truncation.offsets")
        report.facts = {"leader": leader, "controller": ctrl, "lost_unsafe": len(lost["unsafe"]),
                        "lost_safe": len(lost["safe"]), "acknowledged": {t: v.acknowledged for t, v in
                                                                         verdicts.items()}}
        incomplete = {t: v.incomplete_partitions for t, v in verdicts.items() if v.incomplete_partitions}
        if incomplete:
            report.say(f"the read-back did not reach the end of {incomplete}: no verdict on those")
        report.ok = (bool(unclean) and bool(lost["unsafe"]) and not lost["safe"] and not verdicts["safe"].anomalies
                     and not incomplete)
        return report
