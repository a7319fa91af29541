"""Our own code, not a Kafka port: gallery scenario `kip-279-divergence`. Two leader changes in quick succession
leave two in-sync replicas of a 1.0.2 partition with different records at the same offset, for good; the same
sequence on 3.9 ends with the follower cutting its record away (KIP-279, Kafka 2.0).

One partition, replicas [B, A] (B preferred), no unclean election. A leads at epoch E1 with B in sync; B is cut from
A, and A takes a record at offset N with acks=1 that B never fetches. A preferred-replica election makes B leader at
E2 (the ISR is kept: A is still in it) and B takes a different record at N. B's controlled shutdown makes A leader
again at E3; A has never heard of E2 and takes a record at N+1. Healed, B comes back as A's follower and asks where
its latest epoch, E2, ends. 1.0.2's OffsetsForLeaderEpoch (v0) answers only an offset: the start of the next epoch A
knows, E3 at N+1. B's log ends at N+1, so B truncates nothing (LE.truncate, by its log end offset) and fetches on from
N+1: both replicas are in the ISR, and at offset N A holds its record (epoch E1) and B its own (epoch E2). On 3.9, B's
Fetch carries its last fetched epoch, E2; A answers with the diverging epoch, the largest it has at or below E2 (E1)
and where it ends (N+1); B truncates to the end of E1 in its own log, N (RQ.follower.2), and fetches A's record.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.runner import NOT_RUNNING, ClusterRunner
from kafka_edu.gallery.common import GalleryError, Report, fresh_run, spans, wait_for
from kafka_edu.gallery.zk_state import controller, partition_state, zookeeper
from kafka_edu.tracing.query import SpanRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build

NAME = "kip-279-divergence"
TITLE = "KIP-279: two quick leader changes leave two in-sync replicas with different records at one offset"
TOPIC = "diverged"
PREFIX = 2  # records both replicas take before the cut: the divergence is at offset N = PREFIX
# No ISR shrinks in the story (every election in it is clean), no automatic move back to the preferred replica, and
# a fetcher that gives up on a cut-off leader after 5 s instead of 30.
OVERRIDES = ["replica.lag.time.max.ms=60000", "replica.socket.timeout.ms=5000", "unclean.leader.election.enable=false"]
ZK_OVERRIDES = [*OVERRIDES, "auto.leader.rebalance.enable=false"]
KRAFT_OVERRIDES = [*OVERRIDES, "controller:auto.leader.rebalance.enable=false"]
METADATA_VERSION = {"zk": 1, "kraft": 9}  # 1.0.2 answers up to v5, without leader epochs; v7+ has them
WAIT_S = 60


def run(traces_dir: Path, keep: bool = False, out: Callable[[str], None] = print) -> Report:
    # one cluster after the other: the 1.0.2 run is down (unless kept) before the 3.9 run starts
    with fresh_run(traces_dir, keep, brokers=3, overrides=ZK_OVERRIDES) as zk_runner:
        report = Report(NAME, zk_runner.run.path)
        with zookeeper(zk_runner) as zk:
            ctrl, _ = wait_for(lambda: controller(zk), 15, "a controller")
            a, b = [x for x in range(3) if x != ctrl]
            out(f"{NAME}: 1.0.2 run {zk_runner.run.path}; controller {ctrl}; A = broker {a}, B = broker {b}")
            old = Story(zk_runner, "zk", a, b, out, lambda: partition_state(zk, TOPIC))
            old.play()
        old.find_moment()
    with fresh_run(traces_dir, keep, brokers=2, mode="kraft", controllers=1, overrides=KRAFT_OVERRIDES) \
            as kraft_runner:
        a, b = 2, 3  # node 1 is the controller
        out(f"{NAME}: 3.9 run {kraft_runner.run.path}; controller 1; A = broker {a}, B = broker {b}")
        new = Story(kraft_runner, "kraft", a, b, out)
        new.play()
        new.find_moment()
    report.runs["kraft"] = kraft_runner.run.path
    report.say(old.summary())
    report.say(new.summary())
    for story in (old, new):
        for what, span, attribute in story.moments:
            report.moment(what, span, attribute)
    report.facts = {"zk": old.facts(), "kraft": new.facts()}
    report.ok = (old.told() and new.told() and old.diverged() and not new.diverged() and len(old.moments) == 2
                 and len(new.moments) == 1)
    return report


class Story:
    """The sequence on one cluster: its steps, what each step left (epochs, offsets) and the logs at the end."""

    def __init__(self, runner: ClusterRunner, mode: str, a: int, b: int, out: Callable[[str], None],
                 zk_state: Callable[[], dict[str, Any] | None] | None = None) -> None:
        self.runner, self.mode, self.a, self.b, self.out = runner, mode, a, b, out
        self._zk_state = zk_state
        self.epochs: dict[str, int] = {}  # E1, E2, E3
        self.offsets: dict[str, int] = {}  # where each record of the story landed
        self.logs: dict[int, list[tuple[int, int, str]]] = {}
        self.checkpoints: dict[int, list[tuple[int, int]]] = {}
        self.moments: list[tuple[str, SpanRecord, str]] = []
        self.restarted_ns = 0
        self.cut_ns = 0
        self.times: dict[str, float] = {}  # seconds from the cut to each step that followed it
        self.answer: dict[str, Any] = {}

    # -- the sequence -------------------------------------------------------------------------------------------

    def play(self) -> None:
        a, b, say = self.a, self.b, self.out
        admin = AdminClient({"bootstrap.servers": self.bootstrap(), "log_level": 2})
        admin.create_topics([NewTopic(TOPIC, num_partitions=1, replica_assignment=[[b, a]])])[TOPIC].result(30)
        self.wait_state(b, {a, b}, "B to lead with A in sync")
        # B hands over to A (controlled shutdown) and comes back as A's follower: A leads E1 with B in sync
        self.runner.stop(b)
        self.epochs["E1"] = self.wait_state(a, {a}, "A to lead after B's controlled shutdown")["leader_epoch"]
        self.start(b)
        self.wait_state(a, {a, b}, "B back in A's ISR")
        for i in range(PREFIX):
            self.offsets[f"m{i}"] = self.produce(a, f"m{i}: both replicas have it", "all")
        say(f"{NAME} [{self.mode}]: A leads epoch {self.epochs['E1']} with B in sync; offsets "
            f"{sorted(self.offsets.values())} written with acks=all")

        cut = self.runner.partition("split", [str(a)], [str(b)])
        self.cut_ns = cut["at_ns"]
        others = "ZooKeeper, the controller" if self.mode == "zk" else "the controller"
        say(f"{NAME} [{self.mode}]: cut {cut['id']}: A from B ({others} and the clients reach both)")
        self.offsets["A"] = self.produce(a, f"written to A at leader epoch {self.epochs['E1']}", "1")
        self.mark("A took N")
        self.elect_preferred()
        self.epochs["E2"] = self.wait_state(b, {a, b}, "the preferred replica B to lead", above=self.epochs["E1"])[
            "leader_epoch"]
        self.mark("B leads E2")
        self.offsets["B"] = self.produce(b, f"written to B at leader epoch {self.epochs['E2']}", "1")
        self.mark("B took N")
        say(f"{NAME} [{self.mode}]: offset {self.offsets['A']} taken by A at epoch {self.epochs['E1']} (acks=1); "
            f"preferred election: B leads epoch {self.epochs['E2']} (ISR still [A, B]) and takes offset "
            f"{self.offsets['B']}")
        self.runner.stop(b)
        self.epochs["E3"] = self.wait_state(a, {a}, "A to lead again after B's controlled shutdown",
                                            above=self.epochs["E2"])["leader_epoch"]
        self.mark("A leads E3")
        self.offsets["A2"] = self.produce(a, f"written to A at leader epoch {self.epochs['E3']}", "1")
        self.mark("A took N+1")
        say(f"{NAME} [{self.mode}]: B shut down: A leads epoch {self.epochs['E3']} and takes offset "
            f"{self.offsets['A2']}")

        self.runner.heal()
        self.restarted_ns = time.time_ns()
        self.mark("healed")
        self.start(b)
        self.mark("B running")
        self.wait_state(a, {a, b}, "B back in A's ISR", above=self.epochs["E3"] - 1)
        self.mark("B in sync")
        last = self.offsets["A2"]
        wait_for(lambda: all([o for o, _, _ in self.read_log(x)][-1:] == [last] for x in (a, b)), 30,
                 f"both logs to end with offset {last}")
        for x in (a, b):
            self.logs[x] = self.read_log(x)
            self.checkpoints[x] = self.read_epochs(x)
        say(f"{NAME} [{self.mode}]: healed; B is A's follower again and both are in the ISR; at offset "
            f"{self.offsets['A']}: A {self.at(a)}, B {self.at(b)}")

    def mark(self, step: str, at_ns: int | None = None) -> None:
        self.times[step] = round(((at_ns or time.time_ns()) - self.cut_ns) / 1e9, 2)

    # -- the cluster, per mode ----------------------------------------------------------------------------------

    def bootstrap(self) -> str:
        return self.runner.run.read_manifest()["bootstrap_servers"]

    def running_brokers(self) -> list[int]:
        return [p["id"] for p in self.runner.run.read_manifest()["processes"]
                if p["role"] == "broker" and p.get("state") not in (NOT_RUNNING, "killed")]

    def seen_by(self, broker: int) -> dict[str, Any] | None:
        """The partition's leader, leader epoch (-1 when the Metadata version has none) and ISR in `broker`'s
        metadata cache, as its Metadata answer gives them."""
        entry = self.runner.entry(broker)
        channel = BlockingChannel(entry.get("address", "127.0.0.1"), entry["port"], 5.0, "kafka-edu-gallery")
        version = METADATA_VERSION[self.mode]
        try:
            extra = {} if version < 8 else dict(allow_auto_topic_creation=False,
                                                include_cluster_authorized_operations=False,
                                                include_topic_authorized_operations=False)
            response = channel.send_and_receive(ApiKeys.METADATA, version, build(
                ApiKeys.METADATA.request_schema(version), topics=[dict(name=TOPIC)], **extra))
        except OSError:
            return None
        finally:
            channel.disconnect()
        partitions = [p for t in response.topics if t.name == TOPIC for p in t.partitions if p.partition_index == 0]
        if not partitions:  # (a partition with a replica offline comes with REPLICA_NOT_AVAILABLE, and its leader)
            return None
        p = partitions[0]
        return {"leader": int(p.leader_id), "leader_epoch": int(getattr(p, "leader_epoch", -1)),
                "isr": sorted(int(r) for r in p.isr_nodes)}

    def state(self) -> dict[str, Any] | None:
        """What holds now: ZooKeeper's state znode on a 1.0.2 run; on a KRaft run, what every running broker's
        metadata says, once they all say the same."""
        if self._zk_state is not None:
            return self._zk_state()
        seen = [self.seen_by(x) for x in self.running_brokers()]
        return seen[0] if seen and seen[0] is not None and all(s == seen[0] for s in seen) else None

    def wait_state(self, leader: int, isr: set[int], what: str, above: int = -1) -> dict[str, Any]:
        """Until the partition is led by `leader` at an epoch above `above` with this ISR, and every running broker
        has heard of it (a producer then finds the leader wherever it asks)."""
        def done() -> dict[str, Any] | None:
            s = self.state()
            if not s or s["leader"] != leader or set(s["isr"]) != isr or s["leader_epoch"] <= above:
                return None
            heard = [self.seen_by(x) for x in self.running_brokers()]
            return s if all(h is not None and h["leader"] == leader for h in heard) else None
        return wait_for(done, WAIT_S, what, every_s=0.3)

    def start(self, broker: int) -> None:
        self.runner.start(broker)
        self.runner.wait_for_state(broker, "RunningAsBroker", WAIT_S)

    def produce(self, leader: int, value: str, acks: str) -> int:
        """One record to partition 0 through a fresh producer; the offset it got."""
        offsets: list[int] = []
        errors: list[Any] = []
        producer = Producer({"bootstrap.servers": self.bootstrap(), "acks": acks, "enable.idempotence": False,
                             "message.timeout.ms": 30000, "log_level": 2})
        producer.produce(TOPIC, value.encode(), partition=0,
                         on_delivery=lambda err, msg: errors.append(err) if err else offsets.append(msg.offset()))
        producer.flush(40)
        if errors or len(offsets) != 1:
            raise GalleryError(f"broker {leader} did not take {value!r} (acks={acks}): {errors or 'no answer'}")
        return offsets[0]

    def elect_preferred(self) -> None:
        """The operator's tool: on 1.0.2 it writes /admin/preferred_replica_election for the controller; on 3.9 it
        sends ElectLeaders (PREFERRED)."""
        if self.mode == "zk":
            path = self.runner.run.path / "gallery" / "preferred.json"
            path.parent.mkdir(exist_ok=True)
            path.write_text(f'{{"partitions": [{{"topic": "{TOPIC}", "partition": 0}}]}}\n')
            command = ["preferred-replica-election", "--run", str(self.runner.run.path), "--path-to-json-file",
                       str(path)]
        else:
            command = ["leader-election", "--bootstrap-server", self.bootstrap(), "--election-type", "PREFERRED",
                       "--topic", TOPIC, "--partition", "0"]
        done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", *command], capture_output=True, text=True,
                              timeout=60)
        if done.returncode != 0:
            raise GalleryError(f"kafka-edu {command[0]} failed: {(done.stdout + done.stderr).strip()}")

    # -- the replicas' data, from their log directories ---------------------------------------------------------

    def partition_dir(self, broker: int) -> Path:
        return self.runner.run.path / f"broker-{broker}" / "logs" / f"{TOPIC}-0"

    def read_log(self, broker: int) -> list[tuple[int, int, str]]:
        """(offset, leader epoch of its batch, value) of every record in the replica's segments, read as
        `kafka-edu dump-log --deep-iteration --print-data-log` reads them."""
        return list(_records(sorted(self.partition_dir(broker).glob("*.log"))))

    def read_epochs(self, broker: int) -> list[tuple[int, int]]:
        """The replica's leader-epoch-checkpoint: (epoch, start offset) entries."""
        path = self.partition_dir(broker) / "leader-epoch-checkpoint"
        lines = path.read_text().split("\n") if path.exists() else []
        return [(int(e), int(o)) for e, o in (line.split() for line in lines[2:] if line.strip())]

    def record_at(self, broker: int, offset: int) -> tuple[int, str] | None:
        """(leader epoch, value) of the record at `offset` in the replica's log as read at the end."""
        return next(((epoch, value) for o, epoch, value in self.logs.get(broker, []) if o == offset), None)

    def at(self, broker: int) -> str:
        found = self.record_at(broker, self.offsets["A"])
        return f"{found[1]!r} (epoch {found[0]})" if found else "nothing"

    def told(self) -> bool:
        """Did the story's two acks=1 writes land at the same offset N, each on its own leader?"""
        return self.offsets.get("A") == self.offsets.get("B") == PREFIX

    def diverged(self) -> bool:
        """Do the two replicas hold different records at offset N?"""
        return self.record_at(self.a, self.offsets["A"]) != self.record_at(self.b, self.offsets["A"])

    # -- the moment, from the traces ----------------------------------------------------------------------------

    def find_moment(self) -> None:
        # a broker exports its spans in batches: wait until the moment's span is in its file
        if self.mode == "zk":
            found = wait_for(self._zk_moment, 20, "B's truncation after its restart", every_s=1.0, default=True)
        else:
            found = wait_for(self._kraft_moment, 20, "B's truncation on A's diverging epoch", every_s=1.0,
                             default=True)
        self.moments = found or []
        for _, span, _ in self.moments[-1:]:
            self.mark("B's truncation", span.start_ns)

    def _zk_moment(self) -> list[tuple[str, SpanRecord, str]] | None:
        run = spans(self.runner)
        partition = f"{TOPIC}-0"
        answers = [s for s in run.where(step="LE.apis", instance=f"broker-{self.a}")
                   if s.start_ns >= self.restarted_ns and partition in s.attributes.get("kafka.partitions", [])]
        truncations = [s for s in run.where(step="LE.truncate", instance=f"broker-{self.b}")
                       if s.start_ns >= self.restarted_ns
                       and partition in s.attributes.get("kafka.truncation.partitions", [])]
        if not answers or not truncations:
            return None
        choice = next((e.attributes for e in truncations[0].events if e.name == "log.truncate"), {})
        self.answer = {"asked_epochs": answers[0].attributes.get("kafka.leader.epochs"),
                       "end_offsets": answers[0].attributes.get("kafka.leader.epoch.end_offsets"),
                       "truncated_to": truncations[0].attributes.get("kafka.truncation.offsets"),
                       "by": choice.get("kafka.truncation.by"), "log_end_offset": choice.get("kafka.log_end_offset")}
        asked, answer = _one(self.answer["asked_epochs"]), _one(self.answer["end_offsets"])
        return [(f"A answers B's OffsetsForLeaderEpoch (v0) for epoch {asked} with offset {answer}: where its own "
                 "next epoch starts", answers[0], "kafka.leader.epoch.end_offsets"),
                (f"B truncates to {_one(self.answer['truncated_to'])} (by {self.answer['by']})"
                 + (": its own end, nothing is cut" if self.answer["by"] == "log end offset" else ""),
                 truncations[0], "kafka.truncation.offsets")]

    def _kraft_moment(self) -> list[tuple[str, SpanRecord, str]] | None:
        run = spans(self.runner)
        partition = f"{TOPIC}-0"
        truncations = [s for s in run.where(step="RQ.follower.2", instance=f"broker-{self.b}")
                       if s.start_ns >= self.restarted_ns and partition in s.attributes.get("kafka.partitions", [])]
        if not truncations:
            return None
        self.answer = {"diverging": truncations[0].attributes.get("kafka.diverging"),
                       "truncated_to": truncations[0].attributes.get("kafka.truncation.offsets")}
        return [(f"B's Fetch is answered with a diverging epoch ({_one(self.answer['diverging'])}: epoch@end offset) "
                 f"and B truncates to {_one(self.answer['truncated_to'])}, where that epoch ends in its own log",
                 truncations[0], "kafka.truncation.offsets")]

    # -- what to report -----------------------------------------------------------------------------------------

    def summary(self) -> str:
        kafka = "1.0.2" if self.mode == "zk" else "3.9"
        n = self.offsets["A"]
        verdict = ("the replicas hold different records at that offset, both in sync" if self.diverged()
                   else "the replicas agree: B truncated its record and fetched A's")
        return (f"{kafka}: A = broker {self.a}, B = broker {self.b}; epochs E1={self.epochs['E1']} (A), "
                f"E2={self.epochs['E2']} (B), E3={self.epochs['E3']} (A); offset {n}: A {self.at(self.a)}, "
                f"B {self.at(self.b)}: {verdict}; epoch checkpoints A {self.checkpoints.get(self.a)}, "
                f"B {self.checkpoints.get(self.b)}")

    def facts(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "epochs": self.epochs, "offsets": self.offsets, "diverged": self.diverged(),
                "seconds_from_cut": self.times,
                "logs": {str(x): [list(r) for r in log] for x, log in self.logs.items()},
                "epoch_checkpoints": {str(x): [list(e) for e in c] for x, c in self.checkpoints.items()},
                "answer": self.answer}


def _one(values: Any) -> Any:
    """The one partition's value of a per-partition list attribute."""
    return values[0] if isinstance(values, list) and len(values) == 1 else values


def _records(segments: list[Path]) -> Iterator[tuple[int, int, str]]:
    for segment in segments:
        fd = os.open(segment, os.O_RDONLY)
        try:
            for batch in FileRecords(segment, fd, 0, 2**31 - 1, is_slice=False).batches():
                full = batch.load_full_batch()
                for record in full.records():
                    value = record.value.decode("utf-8", errors="replace") if record.value is not None else ""
                    yield record.offset, full.partition_leader_epoch, value
        finally:
            os.close(fd)
