"""Our own code, not a Kafka port: gallery scenario `kraft-check-quorum`. The active controller of a KRaft (3.9)
quorum, cut from the other voters but not from the brokers, resigns by check-quorum: a leader that has had no Fetch
from a majority of the voters within the check-quorum timeout stops leading (KafkaRaftClient.pollLeader, reason
`resign: check-quorum expired`; raft.role.change to Resigned), while the other two elect a leader at a later epoch.
Healed, the old leader follows the new one: one quorum, one epoch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from kafka_edu.gallery.common import Report, fresh_run, spans, wait_for

NAME = "kraft-check-quorum"
TITLE = "KRaft: an active controller cut from the other voters resigns by check-quorum"
CONTROLLERS = (1, 2, 3)


def run(traces_dir: Path, keep: bool = False, out: Callable[[str], None] = print) -> Report:
    with fresh_run(traces_dir, keep, brokers=1, mode="kraft", controllers=3) as runner:
        report = Report(NAME, runner.run.path)
        leader = runner.wait_for_quorum(30)
        epoch = runner.raft_state(leader)[1]
        out(f"{NAME}: run {runner.run.path}; controller {leader} leads the quorum at epoch {epoch}")
        cut = runner.isolate(str(leader), "quorum")
        out(f"{NAME}: cut {cut['id']}: controller {leader} from the other controllers (the broker still reaches it)")

        def successor() -> tuple[int, int] | None:
            for c in CONTROLLERS:
                if c != leader:
                    role, e = runner.raft_state(c)
                    if role == "Leader" and e > epoch:
                        return c, e
            return None
        new, new_epoch = wait_for(successor, 60, "another controller to lead a later epoch")
        out(f"{NAME}: controller {new} leads epoch {new_epoch}")

        def resigned() -> list[tuple[object, object]]:
            return [(s, e) for s in spans(runner).where(instance=f"controller-{leader}") for e in s.events
                    if e.name == "raft.role.change" and e.attributes.get("kafka.raft.role.to") == "Resigned"
                    and e.time_ns >= cut["at_ns"]]
        span, event = wait_for(resigned, 30, f"controller {leader} to resign", every_s=1.0)[0]
        healed_ns = time.time_ns()
        runner.heal()
        healed_leader = runner.wait_for_quorum(60)
        epochs = {c: runner.raft_state(c)[1] for c in CONTROLLERS}
        out(f"{NAME}: healed; controller {healed_leader} leads, epochs {epochs}")

        found = spans(runner).where(instance=f"controller-{leader}", name="KafkaRaftClient.pollLeader")
        check = [s for s in found if s.start_ns >= cut["at_ns"] and s.start_ns < healed_ns
                 and str(s.attributes.get("kafka.raft.poll.reason", "")).startswith("resign: check-quorum")]
        report.say(f"controller {leader} led epoch {epoch}; cut from the other voters, it resigned after "
                   f"{(event.time_ns - cut['at_ns']) / 1e9:.2f} s; controller {new} leads epoch {new_epoch}")
        if check:
            report.moment(f"controller {leader}'s check-quorum expires", check[0], "kafka.raft.poll.reason")
        report.moments.append({"what": f"controller {leader} becomes Resigned", "step": "KR.role", "span": span.name,
                               "instance": span.instance, "trace_id": span.trace_id,
                               "attribute": "kafka.raft.role.to", "value": "Resigned", "start_ns": event.time_ns})
        report.facts = {"leader": leader, "epoch": epoch, "new": new, "new_epoch": new_epoch,
                        "healed_leader": healed_leader, "epochs": epochs,
                        "resigned_after_s": (event.time_ns - cut["at_ns"]) / 1e9}
        report.ok = bool(check) and len(set(epochs.values())) == 1 and epochs[healed_leader] >= new_epoch
        return report
