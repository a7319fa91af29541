"""Our own tests, not a Kafka port: real network partitions between a run's processes (issue 26).

Each process of a `--netns` run lives in a network namespace of its own; the runner cuts links with nftables rules
inside those namespaces and heals them (kafka_edu/cluster_runner/network.py). What the tests watch is Kafka's own
answer to a partition, in the nodes' traces:

1. ZooKeeper mode (1.0.2): the controller isolated from everything loses its ZooKeeper session; another broker is
   elected at the next controller epoch and the other brokers take its requests; healed, the old controller
   resigns, the isolated broker hears the new epoch and the cluster is whole (produce and consume across);
2. KRaft (3.9): the Raft leader isolated resigns by check-quorum, another controller leads a later epoch; healed,
   one quorum again, the broker RUNNING, produce and consume;
3. `cluster down` removes every namespace, veth, bridge and filter rule of a run, also when the runner that made
   them was killed mid-way (a fresh runner reads the manifest);
4. bad input (an unknown node, a cut that exists, a heal with nothing cut, --netns without root or nft) is one line
   and leaves the run as it was; each NF event stands for an action that took effect.

Needs root and `ip netns` (CI runs as root); skipped otherwise, except the checks made before anything is created.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.exceptions import NoNodeError

from kafka_edu.cli import main as cli_main
from kafka_edu.cluster_runner import network as net
from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.runner import ClusterError, ClusterRunner
from kafka_edu.tracing.query import SpanRecord, read_span_file, read_span_file_from
from tests.integration.helpers import REPO, wait_until, zookeeper_client


def _netns_missing() -> str | None:
    if os.geteuid() != 0:
        return "network namespaces and nftables rules need root"
    if shutil.which("ip") is None or shutil.which("nft") is None:
        return "needs ip (iproute2) and nft (nftables)"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return "`ip netns` does not work here"
    return None


needs_netns = pytest.mark.skipif(_netns_missing() is not None, reason=_netns_missing() or "")
SESSION_TIMEOUT_MS = 4000  # the isolated controller's ZooKeeper session expires this long after the cut
ZK_OVERRIDES = [f"zookeeper.session.timeout.ms={SESSION_TIMEOUT_MS}", "default.replication.factor=3",
                "offsets.topic.replication.factor=3"]
PARTITIONS = 3


# -- helpers -----------------------------------------------------------------------------------------------------------

def spans_of(runner: ClusterRunner, node_id: int) -> list[SpanRecord]:
    """The node's spans: its lifecycle file and its request-path segments (UpdateMetadata is a request)."""
    stem = runner.span_file(node_id).stem
    paths = [runner.span_file(node_id), *sorted(runner.run.path.glob(f"{stem}.requests-*.jsonl"))]
    return [s for path in paths if path.exists() for s in read_span_file(path)]


def runner_events(runner: ClusterRunner, name: str) -> list[Any]:
    """The NF events of the run's runner.jsonl with this name."""
    path = runner.run.path / "runner.jsonl"
    spans = read_span_file_from(path, 0)[1] if path.exists() else []
    assert all(s.resource.get("service.instance.id") == "runner" for s in spans)
    return [e for s in spans for e in s.events if e.name == name]


def heard_epoch(runner: ClusterRunner, broker_id: int, epoch: int) -> bool:
    """Whether the broker took a controller request (UpdateMetadata) of this controller epoch."""
    return any(s.attributes.get("kafka.controller.epoch") == epoch for s in spans_of(runner, broker_id)
               if s.name == "ReplicaManager.maybeUpdateMetadataCache")


def produce_and_consume(bootstrap: str, topic: str, count: int = 200) -> None:
    """acks=all records produced to the run and read back, every one."""
    errors: list[Any] = []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    for i in range(count):
        producer.produce(topic, value=f"v{i}".encode(),
                         on_delivery=lambda err, _msg: errors.append(err) if err else None)
        producer.poll(0)
    assert producer.flush(60) == 0 and errors == []
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    values: set[str] = set()

    def read_more() -> bool:
        for message in consumer.consume(500, timeout=0.5):
            if message.error() is None:
                values.add(message.value().decode())
        return len(values) >= count
    try:
        wait_until(read_more, 60, f"{count} records of {topic}")
    finally:
        consumer.close()
    assert values == {f"v{i}" for i in range(count)}


def create_topic(bootstrap: str, topic: str, replication_factor: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, replication_factor)])[topic].result(30)


def kill_leftover_processes(runner: ClusterRunner) -> None:
    """Fixture teardown after a failure: whatever `down` could not stop."""
    for entry in runner.run.read_manifest()["processes"]:
        if entry.get("pid") and process_alive(entry["pid"]):
            os.kill(entry["pid"], signal.SIGKILL)


def assert_network_gone(runner: ClusterRunner) -> None:
    network = runner.run.read_manifest()["network"]
    assert net.leftovers(network) == []
    assert not [ns for ns in net.list_namespaces() if ns.startswith(f"{net.NETNS_PREFIX}{network['tag']}-")]


@pytest.fixture
def netns_run(tmp_path: Path) -> Iterator[Any]:
    """`ClusterRunner.up(..., netns=True)` for the test, always taken down (processes, namespaces, rules)."""
    made: list[ClusterRunner] = []

    def up(*args: Any, **kwargs: Any) -> ClusterRunner:
        runner = ClusterRunner.up(*args, traces_dir=tmp_path / "traces", netns=True, timeout_s=90, **kwargs)
        made.append(runner)
        return runner
    try:
        yield up
    finally:
        for runner in made:
            try:
                runner.down()
            finally:
                kill_leftover_processes(runner)
                net.teardown(runner.run.read_manifest()["network"])


# -- 1. ZooKeeper mode: the controller isolated ------------------------------------------------------------------------

@needs_netns
def test_an_isolated_zookeeper_mode_controller_is_replaced_and_the_healed_cluster_is_whole(netns_run: Any) -> None:
    runner = netns_run(3, overrides=ZK_OVERRIDES)
    manifest = runner.run.read_manifest()
    addresses = {p["address"] for p in manifest["processes"]}
    assert len(addresses) == 4 and all(p["netns"].startswith("kedu-") for p in manifest["processes"])
    assert {a.rpartition(":")[0] for a in manifest["bootstrap_servers"].split(",")} <= addresses
    assert len(runner_events(runner, "netns.created")) == 4  # ZooKeeper and three brokers
    create_topic(manifest["bootstrap_servers"], "before", 3)

    with zookeeper_client(runner) as zk:
        def controller() -> tuple[int, int] | None:
            """(/controller, /controller_epoch); None while there is no controller."""
            try:
                return (json.loads(zk.get("/controller")[0])["brokerid"], int(zk.get("/controller_epoch")[0]))
            except NoNodeError:
                return None
        old, epoch = wait_until(controller, 15, "a controller")
        others = [b for b in range(3) if b != old]
        wait_until(lambda: all(heard_epoch(runner, b, epoch) for b in range(3)), 15, "every broker at the epoch")

        cut = runner.isolate(str(old))
        assert sorted(cut["to"]) == sorted(["zk", *map(str, others)])
        rules = net.ruleset(runner.run.read_manifest()["network"]["nodes"][str(old)])
        assert "drop" in rules and 'comment "cut 1"' in rules

        # No heartbeats reach ZooKeeper: the session expires, /controller with it; another broker wins epoch + 1.
        def replaced() -> bool:
            now = controller()
            return now is not None and now[0] != old and now[1] == epoch + 1
        wait_until(replaced, SESSION_TIMEOUT_MS / 1000 + 20, f"a controller other than {old} at epoch {epoch + 1}")
        new = controller()[0]
        assert new in others
        wait_until(lambda: all(heard_epoch(runner, b, epoch + 1) for b in others), 20,
                   f"brokers {others} to take requests of controller epoch {epoch + 1}")
        assert not heard_epoch(runner, old, epoch + 1)  # cut off: nothing of the new controller reaches it
        # the isolated broker's registration went with its session: the new controller sees two brokers
        assert sorted(int(b) for b in zk.get_children("/brokers/ids")) == sorted(others)

        healed_ns = time.time_ns()
        assert [c["id"] for c in runner.heal()] == [cut["id"]]
        assert "drop" not in net.ruleset(runner.run.read_manifest()["network"]["nodes"][str(old)])

        # Healed: the old controller finds its session expired and resigns; it hears the new epoch and rejoins.
        def resigned() -> list[SpanRecord]:
            return [s for s in spans_of(runner, old) if s.step == "CT.resign" and s.start_ns >= healed_ns]
        resign = wait_until(resigned, 40, f"broker {old} to resign as controller")[0]
        assert resign.attributes["kafka.controller.epoch"] == epoch
        wait_until(lambda: heard_epoch(runner, old, epoch + 1), 40, f"broker {old} to hear epoch {epoch + 1}")
        wait_until(lambda: sorted(int(b) for b in zk.get_children("/brokers/ids")) == [0, 1, 2], 30,
                   "all three brokers registered again")
        assert controller() == (new, epoch + 1)
        # any request the old controller still sent was refused by the epoch (fenced), never taken
        for s in [s for b in others for s in spans_of(runner, b)]:
            for e in s.events:
                if e.name == "controller.epoch.stale":
                    assert e.attributes["kafka.controller.epoch"] == epoch

    for broker_id in range(3):
        assert runner.broker_state(broker_id) == "RunningAsBroker"
    runner.wait_for_brokers_to_see_each_other(60)
    create_topic(manifest["bootstrap_servers"], "after", 3)
    produce_and_consume(manifest["bootstrap_servers"], "after")

    # the cut and the heal, in the runner's span file and in the manifest's faults, on one time line
    (partition,) = runner_events(runner, "network.partition")
    assert partition.attributes["kafka.step"] == "NF.cut" and partition.attributes["kafka.network.kind"] == "isolate"
    assert partition.attributes["kafka.network.from"] == [str(old)]
    (heal,) = runner_events(runner, "network.heal")
    assert heal.attributes["kafka.step"] == "NF.heal" and len(heal.attributes["kafka.network.links"]) == 6
    assert partition.time_ns < healed_ns <= heal.time_ns
    (fault,) = [f for f in runner.run.read_manifest()["faults"] if "cut" in f]
    assert fault["kind"] == "isolate" and fault["nodes"] == sorted(["zk", "0", "1", "2"]) and fault["until"]

    runner.down()
    assert_network_gone(runner)


# -- 2. KRaft: the Raft leader isolated --------------------------------------------------------------------------------

def role_changes(runner: ClusterRunner, node_id: int, since_ns: int) -> list[tuple[str, int]]:
    return [(e.attributes["kafka.raft.role.to"], e.attributes["kafka.raft.epoch"])
            for s in spans_of(runner, node_id) for e in s.events
            if e.name == "raft.role.change" and e.time_ns >= since_ns]


@needs_netns
def test_an_isolated_raft_leader_resigns_by_check_quorum_and_another_controller_leads(netns_run: Any) -> None:
    runner = netns_run(1, mode="kraft", controllers=3)
    manifest = runner.run.read_manifest()
    leader = runner.wait_for_quorum(30)
    epoch = runner.raft_state(leader)[1]
    assert manifest["bootstrap_controllers"].split(",")[leader - 1].startswith(
        runner.entry(leader)["address"] + ":")

    cut_ns = time.time_ns()
    runner.isolate(str(leader))

    # The two others stop hearing from it, and one of them leads a later epoch.
    def new_leader() -> int | None:
        leaders = [c for c in (1, 2, 3) if c != leader and runner.raft_state(c)[0] == "Leader"]
        return leaders[0] if leaders and runner.raft_state(leaders[0])[1] > epoch else None
    # a fetch timeout and an election or two; generous for a busy machine
    successor = wait_until(new_leader, 90, "another controller to lead")
    # Check-quorum: no Fetch from a majority within the fetch timeout, and the isolated leader resigns.
    wait_until(lambda: "Resigned" in [role for role, _ in role_changes(runner, leader, cut_ns)], 30,
               f"controller {leader} to resign")

    runner.heal()
    new = runner.wait_for_quorum(60)
    assert runner.raft_state(new)[1] > epoch
    assert {runner.raft_state(c)[1] for c in (1, 2, 3)} == {runner.raft_state(new)[1]}
    assert successor in (1, 2, 3)
    runner.wait_for_state(4, "RUNNING", 60)
    runner.wait_for_brokers_to_see_each_other(60)
    create_topic(manifest["bootstrap_servers"], "after", 1)
    produce_and_consume(manifest["bootstrap_servers"], "after")
    runner.down()
    assert_network_gone(runner)


# -- 3. down after a crash of the runner -------------------------------------------------------------------------------

@needs_netns
def test_down_from_a_fresh_runner_removes_what_a_killed_runner_left(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    up = subprocess.Popen([sys.executable, "-m", "kafka_edu.cli", "cluster", "up", "--netns", "--brokers", "2",
                           "--traces", str(traces)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    run_dir: Path | None = None
    try:
        def mid_way() -> Path | None:
            for manifest_path in traces.glob("*/manifest.json"):
                try:
                    nodes = ClusterRunner.open(manifest_path.parent).run.read_manifest()["network"]["nodes"]
                except (ValueError, KeyError):
                    return None
                if nodes.get("0", {}).get("created"):
                    return manifest_path.parent
            return None
        run_dir = wait_until(mid_way, 60, "the runner to set up ZooKeeper's and broker 0's namespaces")
    finally:
        up.kill()  # the crash: no `down`, no cleanup of its own
        up.wait()
    runner = ClusterRunner.open(run_dir)
    try:
        manifest = runner.run.read_manifest()
        network = manifest["network"]
        assert net.leftovers(network)  # the crash left namespaces, veths and the bridge
        # a cut in force, as a runner killed after `partition` leaves it (broker 0's namespace may not exist yet)
        network["cuts"].append({"id": 9, "kind": "isolate", "from": ["zk"], "to": ["0"],
                                "links": [["zk", "0"], ["0", "zk"]], "at": "", "at_ns": 0})
        net.apply_rules(network, {"zk"})
        runner.run.write_manifest(manifest)
        assert "drop" in net.ruleset(network["nodes"]["zk"])
        ClusterRunner.open(run_dir).down()  # a fresh runner: only the manifest says what exists
        assert_network_gone(runner)
        assert not [p for p in runner.run.read_manifest()["processes"] if p["pid"] and process_alive(p["pid"])]
        ClusterRunner.open(run_dir).down()  # again: nothing left to remove is not an error
        assert_network_gone(runner)
    finally:
        kill_leftover_processes(runner)
        net.teardown(runner.run.read_manifest()["network"])


# -- 4. bad input ------------------------------------------------------------------------------------------------------

def cli(capsys: pytest.CaptureFixture[str], *args: str, run: Path) -> tuple[int, str]:
    """`kafka-edu cluster ARGS --run RUN` in this process (its exit status and what it printed)."""
    capsys.readouterr()
    status = cli_main(["cluster", *args, "--run", str(run)])
    return status, capsys.readouterr().out


@needs_netns
def test_bad_partition_requests_are_one_line_and_leave_the_run_unchanged(netns_run: Any,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    runner = netns_run(1)
    run = runner.run.path
    status, out = cli(capsys, "partition", "--one-way", "0", "zk", run=run)
    assert status == 0, out
    assert "cut 1 (one-way): 0 -> zk" in out
    nodes = runner.run.read_manifest()["network"]["nodes"]
    assert "ip daddr" in net.ruleset(nodes["0"]) and "ip saddr" in net.ruleset(nodes["zk"])
    assert "ip saddr" not in net.ruleset(nodes["0"])  # one way: zk's packets to 0 still pass

    before = runner.run.read_manifest()
    rules = {name: net.ruleset(node) for name, node in nodes.items()}
    refused = {
        ("partition", "--isolate", "7"): "no node 7 in run",
        ("partition", "--one-way", "0", "zk"): "already cut: 0->zk (cut 1)",
        ("partition", "--from-quorum", "0"): "no controller quorum",
        ("partition", "--split", "0", "0"): "on both sides",
        ("partition",): "needs one of --isolate",
        ("heal", "5"): "no cut 5 in force",
        ("kill", "0", "--isolate", "0"): "--isolate is an option of `kafka-edu cluster partition`",
        ("status", "--netns"): "--netns is an option of `kafka-edu cluster up`",
    }
    for args, message in refused.items():
        status, out = cli(capsys, *args, run=run)
        assert status == 2, (args, out)
        assert message in out and len(out.strip().splitlines()) == 1, (args, out)
    assert runner.run.read_manifest() == before
    assert {name: net.ruleset(node) for name, node in nodes.items()} == rules
    assert len(runner_events(runner, "network.partition")) == 1  # refused requests are no events

    status, out = cli(capsys, "heal", run=run)
    assert status == 0 and "healed cut 1 (one-way): 0->zk" in out
    assert all("drop" not in net.ruleset(node) for node in nodes.values())
    before = runner.run.read_manifest()
    status, out = cli(capsys, "heal", run=run)
    assert status == 2 and "nothing is cut in run" in out
    assert len(out.strip().splitlines()) == 1 and runner.run.read_manifest() == before
    assert len(runner_events(runner, "network.heal")) == 1

    # the TUI's `i` on broker 0: isolated, then healed (tests/tui/test_network_keys.py presses the key)
    from tui.control import ClusterControl
    control = ClusterControl(run)
    assert control.has_network()
    assert control.isolate_or_heal(0) == "cut 2"
    assert 'comment "cut 2"' in net.ruleset(nodes["0"])
    assert control.isolate_or_heal(0) == "healed cut 2"
    assert "drop" not in net.ruleset(nodes["0"])


def test_netns_without_root_or_nftables_is_refused_before_anything_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    traces = tmp_path / "traces"
    monkeypatch.setattr(net.os, "geteuid", lambda: 1000)
    with pytest.raises(net.NetworkError, match="--netns needs root"):
        ClusterRunner.up(1, traces, netns=True)
    monkeypatch.setattr(net.os, "geteuid", lambda: 0)
    monkeypatch.setattr(net.shutil, "which", lambda tool: None if tool == "nft" else f"/usr/sbin/{tool}")
    with pytest.raises(net.NetworkError, match=r"needs `nft` \(nftables\)"):
        ClusterRunner.up(1, traces, netns=True)
    with pytest.raises(ClusterError, match="leave out --zookeeper"):
        ClusterRunner.up(1, traces, zookeeper_connect="127.0.0.1:2181", netns=True)
    capsys.readouterr()
    assert cli_main(["cluster", "up", "--netns", "--traces", str(traces)]) == 2  # the CLI: one line, status 2
    out = capsys.readouterr().out
    assert "needs `nft` (nftables)" in out and len(out.strip().splitlines()) == 1
    assert not traces.exists()  # no run directory, no namespace
