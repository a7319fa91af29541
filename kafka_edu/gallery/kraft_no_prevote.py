"""Our own code, not a Kafka port: gallery scenario `kraft-no-prevote`. In KRaft 3.9 a voter cut off from the other
voters stands for election again and again, each time at a higher epoch, and wins none. Once the cut heals its Vote
requests carry that epoch. A voter that sees a higher epoch must leave its own, so the healthy leader steps down
(raft.role.change from Leader, at the returning voter's epoch) and the quorum holds an election it did not need. 3.9
has no pre-vote; KIP-996 added it in 4.0, so that a voter first asks whether it could win before it raises its epoch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from kafka_edu.gallery.common import Report, fresh_run, spans, wait_for

NAME = "kraft-no-prevote"
TITLE = "KRaft 3.9: a voter back from a partition with a higher epoch deposes a healthy leader"
CONTROLLERS = (1, 2, 3)
EPOCHS_AHEAD = 3  # how far the cut-off voter's epoch gets ahead of the leader's before the heal


def run(traces_dir: Path, keep: bool = False, out: Callable[[str], None] = print) -> Report:
    with fresh_run(traces_dir, keep, brokers=1, mode="kraft", controllers=3) as runner:
        report = Report(NAME, runner.run.path)
        leader = runner.wait_for_quorum(30)
        epoch = runner.raft_state(leader)[1]
        voter = next(c for c in CONTROLLERS if c != leader)
        out(f"{NAME}: run {runner.run.path}; controller {leader} leads epoch {epoch}; controller {voter} follows")
        cut = runner.isolate(str(voter), "quorum")
        out(f"{NAME}: cut {cut['id']}: controller {voter} from the other controllers")
        ahead = wait_for(lambda: (e := runner.raft_state(voter)[1]) >= epoch + EPOCHS_AHEAD and e, 60,
                         f"controller {voter} to stand for election up to epoch {epoch + EPOCHS_AHEAD}", every_s=0.5)
        still = runner.raft_state(leader)
        out(f"{NAME}: controller {voter} is at epoch {ahead} ({runner.raft_state(voter)[0]}); controller {leader} is "
            f"{still[0]} at epoch {still[1]}")
        healed_ns = time.time_ns()
        runner.heal()
        out(f"{NAME}: healed")

        def deposed() -> list[tuple[object, object]]:
            return [(s, e) for s in spans(runner).where(instance=f"controller-{leader}") for e in s.events
                    if e.name == "raft.role.change" and e.time_ns >= healed_ns
                    and e.attributes.get("kafka.raft.role.from") == "Leader"]
        span, event = wait_for(deposed, 30, f"controller {leader} to leave epoch {still[1]}", every_s=1.0)[0]
        new = runner.wait_for_quorum(60)
        new_epoch = runner.raft_state(new)[1]
        out(f"{NAME}: controller {leader} left its leadership for epoch {event.attributes.get('kafka.raft.epoch')}; "
            f"controller {new} leads epoch {new_epoch}")
        report.say(f"controller {leader} led epoch {still[1]} without trouble; controller {voter}, cut off, raised "
                   f"its epoch to {ahead}; healed, its epoch deposed controller {leader}; controller {new} leads "
                   f"epoch {new_epoch}")
        report.moments.append({"what": f"healthy leader {leader} steps down for controller {voter}'s epoch",
                               "step": "KR.role", "span": span.name, "instance": span.instance,
                               "trace_id": span.trace_id, "attribute": "kafka.raft.role.to",
                               "value": f"{event.attributes.get('kafka.raft.role.to')} at epoch "
                                        f"{event.attributes.get('kafka.raft.epoch')}", "start_ns": event.time_ns})
        report.facts = {"leader": leader, "epoch": still[1], "voter": voter, "voter_epoch": ahead, "new": new,
                        "new_epoch": new_epoch, "deposed_to": event.attributes.get("kafka.raft.role.to"),
                        "deposed_epoch": event.attributes.get("kafka.raft.epoch")}
        report.ok = (still == ("Leader", epoch) and event.attributes.get("kafka.raft.epoch", 0) > epoch
                     and new_epoch > epoch)
        return report
