"""Our own code, not a Kafka port: the cluster runner. ZooKeeper and N brokers (ZooKeeper mode), or a quorum of
KRaft controllers, as separate OS processes on loopback, in one run directory."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner import network as net
from kafka_edu.cluster_runner.processes import free_port, process_alive, signal_process, stop_process, wait_exit
from kafka_edu.cluster_runner.run_directory import DEFAULT_TRACES_DIR, RunDirectory, now_iso
from kafka_edu.tracing.query import read_span_file_from
from kafka_edu.tracing.runner_events import RunnerTracer
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.zookeeper.zookeeper_server import ZooKeeperServer, is_ok

BASE_CONFIG = Path(__file__).resolve().parents[2] / "config" / "server.properties"
KRAFT_CONTROLLER_CONFIG = Path(__file__).resolve().parents[2] / "config" / "kraft" / "controller.properties"
KRAFT_BROKER_CONFIG = Path(__file__).resolve().parents[2] / "config" / "kraft" / "broker.properties"
KRAFT_COMBINED_CONFIG = Path(__file__).resolve().parents[2] / "config" / "kraft" / "server.properties"
NOT_RUNNING = "NotRunning"
LOOPBACK = "127.0.0.1"  # where every process listens, unless the run has network namespaces (its own addresses)
NODE_ROLES = ("broker", "controller")  # the processes the verbs act on, by node id (unique within a run)
QUORUM_MEMBER = ("Leader", "Follower")  # a controller that has found the quorum's leader, or is it
# A KRaft broker reports 3.9's BrokerState names; a caller asking for a 1.0.2 name means the state with its value.
KRAFT_BROKER_STATES = {"Starting": "STARTING", "RecoveringFromUncleanShutdown": "RECOVERY",
                       "RunningAsBroker": "RUNNING", "PendingControlledShutdown": "PENDING_CONTROLLED_SHUTDOWN",
                       "BrokerShuttingDown": "SHUTTING_DOWN"}


class ClusterError(RuntimeError):
    pass


class ClusterRunner:
    """Starts, inspects and stops the processes of one run, recording them in the run's manifest."""

    def __init__(self, run: RunDirectory) -> None:
        self.run = run
        # broker id -> (pid, offset read up to in its span file, last BrokerState seen): each check reads only what
        # the broker wrote since the last one, so its cost does not grow with the run's traces
        # per node: (pid, offset read to, state) of its broker state and of its Raft state (a combined node has both)
        self._state_tails: dict[int, tuple[int, int, str]] = {}
        self._raft_tails: dict[int, tuple[int, int, str]] = {}
        self._tracer: RunnerTracer | None = None

    # -- bringing a cluster up ------------------------------------------------------------------------------------

    @classmethod
    def up(cls, brokers: int = 3, traces_dir: Path = DEFAULT_TRACES_DIR, zookeeper_connect: str | None = None,
           overrides: list[str] | None = None, timeout_s: float = 90.0, *, mode: str = "zk",
           controllers: int = 3, combined: bool = False, log_dirs: int = 1, sasl: bool = False,
           dynamic_quorum: bool = False, netns: bool = False) -> ClusterRunner:
        """A traced cluster: ZooKeeper and `brokers` 1.0.2 brokers (mode "zk"), or `controllers` KRaft controllers
        and `brokers` KRaft brokers (mode "kraft"); with `combined`, each controller is a broker too
        (process.roles=broker,controller) and `brokers` more are added beside them. A ZooKeeper-mode broker gets
        `log_dirs` log directories (`logs`, `logs-1`, ...). With `sasl`, each ZooKeeper-mode broker also listens on a
        SASL_PLAINTEXT port (its `sasl_port`; the manifest's `sasl_bootstrap_servers`); the overrides give its
        mechanisms and JAAS file (docs/security.md). With `dynamic_quorum` (KRaft only), the controllers form a
        KIP-853 quorum: formatted with `--initial-controllers` and found through controller.quorum.bootstrap.servers,
        so that add_controller / remove_controller can change it. With `netns` (root), each process runs in a
        network namespace of its own, on an address of its own (network.py), so that `partition` can cut links."""
        check_up_arguments(mode, controllers, combined, dynamic_quorum)
        if netns:
            if zookeeper_connect is not None:
                raise ClusterError("--netns runs ZooKeeper in a namespace of the run: leave out --zookeeper")
            net.check_netns_support()
        run = RunDirectory.create(traces_dir)
        runner = cls(run)
        manifest: dict[str, Any] = {
            "run_id": run.run_id, "mode": mode, "run_dir": str(run.path), "started_at": now_iso(), "stopped_at": None,
            "zookeeper_connect": zookeeper_connect, "bootstrap_servers": "", "processes": [],
            "overrides": list(overrides or []), "dropped_spans": {}, "log_dirs_per_broker": log_dirs,
            "sasl": sasl}
        if dynamic_quorum:
            manifest["dynamic_quorum"] = True
        if netns:
            manifest["network"] = net.plan(run.run_id)
        run.write_manifest(manifest)
        try:
            if netns:
                runner.create_bridge()
            if mode == "kraft":
                runner.start_quorum(controllers, timeout_s, combined=combined, wait=False, dynamic=dynamic_quorum)
                # broker node ids follow the controllers' (1..N): node ids are one space on a KRaft cluster
                broker_ids = range(controllers + 1, controllers + 1 + brokers)
                # formatted while the controllers start and elect a leader; started together once there is one
                runner.add_kraft_brokers(list(broker_ids), start=False)
                runner.wait_for_quorum(timeout_s)
                if combined:
                    for node_id in range(1, controllers + 1):
                        runner.wait_for_state(node_id, "RUNNING", timeout_s)
                for node_id in broker_ids:
                    runner.start(node_id)
                for node_id in broker_ids:
                    runner.wait_for_state(node_id, "RUNNING", timeout_s)
                runner.wait_for_brokers_to_see_each_other(timeout_s)
                return runner
            if zookeeper_connect is None:
                runner.start_zookeeper()
            for broker_id in range(brokers):
                runner.add_broker(broker_id)
            for broker_id in range(brokers):
                runner.wait_for_state(broker_id, "RunningAsBroker", timeout_s)
            runner.wait_for_brokers_to_see_each_other(timeout_s)
        except BaseException:
            runner.down()
            raise
        return runner

    @classmethod
    def open(cls, run_dir: Path | None = None, traces_dir: Path = DEFAULT_TRACES_DIR, *,
             changes: bool = False) -> ClusterRunner:
        """The run at `run_dir`, or the one a command means when it names none (see RunDirectory.newest)."""
        return cls(RunDirectory.open(run_dir) if run_dir else RunDirectory.newest(traces_dir, changes=changes))

    def start_zookeeper(self) -> None:
        port = free_port()
        place = self.place("zookeeper", 0)
        zookeeper = ZooKeeperServer(self.run.path / "zookeeper", port, host=place.get("address", LOOPBACK),
                                    log_file=self.run.path / "zookeeper.log")
        pid = zookeeper.start(new_session=True, wrapper=net.exec_prefix(place["netns"]) if place else None)
        with self.run.changing_manifest() as manifest:  # the pid first: a failed start is still stopped by `down`
            manifest["zookeeper_connect"] = zookeeper.connect_string
            manifest["processes"].append({"role": "zookeeper", "id": 0, "pid": pid, "port": port,
                                          "log": str(zookeeper.log_file), "state": "starting", **place})
        zookeeper.wait_ready()
        with self.run.changing_manifest() as manifest:
            next(p for p in manifest["processes"] if p["role"] == "zookeeper")["state"] = "running"

    def add_broker(self, broker_id: int) -> None:
        port = free_port()
        place = self.place("broker", broker_id)
        manifest = self.run.read_manifest()
        sasl_port = free_port() if manifest.get("sasl") else None
        config = self.write_broker_config(broker_id, port, manifest["zookeeper_connect"], manifest["overrides"],
                                          sasl_port, host=place.get("address", LOOPBACK))
        entry = {"role": "broker", "id": broker_id, "pid": None, "port": port, "config": str(config),
                 "log": str(self.run.path / f"broker-{broker_id}.log"), "state": "Starting", **place}
        if sasl_port is not None:
            entry["sasl_port"] = sasl_port
        with self.run.changing_manifest() as manifest:
            manifest["processes"].append(entry)
            manifest["bootstrap_servers"] = bootstrap_servers(manifest["processes"])
            if sasl_port is not None:
                manifest["sasl_bootstrap_servers"] = ",".join(f"{p.get('address', LOOPBACK)}:{p['sasl_port']}"
                                                              for p in manifest["processes"] if "sasl_port" in p)
        self.start(broker_id)

    def write_broker_config(self, broker_id: int, port: int, zookeeper_connect: str, overrides: list[str],
                            sasl_port: int | None = None, host: str = LOOPBACK) -> Path:
        """Each broker gets its own server.properties, as an operator would write it, listening on `host`."""
        props = load_props(BASE_CONFIG)
        broker_dir = self.run.path / f"broker-{broker_id}"
        log_dirs = self.run.read_manifest().get("log_dirs_per_broker", 1)
        # brokers talk to each other on PLAINTEXT; clients may log in on the SASL_PLAINTEXT listener
        listeners = f"PLAINTEXT://{host}:{port}" + ("" if sasl_port is None else
                                                     f",SASL_PLAINTEXT://{host}:{sasl_port}")
        props.update({"broker.id": str(broker_id), "listeners": listeners,
                      "log.dirs": ",".join([str(broker_dir / "logs")]
                                           + [str(broker_dir / f"logs-{i}") for i in range(1, log_dirs)]),
                      "zookeeper.connect": zookeeper_connect})
        for override in overrides:
            key, _, value = override.partition("=")
            props[key.strip()] = value.strip()
        path = self.run.path / f"broker-{broker_id}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        return path

    # -- a KRaft controller quorum ------------------------------------------------------------------------------

    def start_quorum(self, controllers: int, timeout_s: float, combined: bool = False, wait: bool = True,
                     dynamic: bool = False) -> None:
        """Controllers 1..N as an operator sets them up: one properties file each naming every voter, one cluster id
        for all, each log dir formatted by `kafka-edu storage format`, then the processes; up once they agree on a
        leader (with `wait`). Combined nodes also serve clients, on a second port (`broker_port`).

        `dynamic` (KIP-853): no controller.quorum.voters; each node's directory id is made here, so that every
        controller is formatted with the same `--initial-controllers ID@HOST:PORT:DIRECTORY_ID,...`, and all of them
        find the leader through controller.quorum.bootstrap.servers."""
        ports = {node_id: free_port() for node_id in range(1, controllers + 1)}
        broker_ports = {node_id: free_port() for node_id in ports} if combined else {}
        places = {node_id: self.place("controller", node_id) for node_id in ports}
        hosts = {node_id: place.get("address", LOOPBACK) for node_id, place in places.items()}
        voters = ",".join(f"{node_id}@{hosts[node_id]}:{port}" for node_id, port in ports.items())
        bootstrap = ",".join(f"{hosts[node_id]}:{port}" for node_id, port in ports.items())
        directory_ids = {node_id: str(Uuid.random_uuid()) for node_id in ports} if dynamic else {}
        cluster_id = self.storage_tool("random-uuid").strip()
        overrides = self.run.read_manifest()["overrides"]
        configs = {node_id: self.write_controller_config(node_id, port, voters, overrides,
                                                         broker_ports.get(node_id),
                                                         bootstrap_servers=bootstrap if dynamic else None,
                                                         host=hosts[node_id])
                   for node_id, port in ports.items()}
        if dynamic:
            initial = ",".join(f"{node_id}@{hosts[node_id]}:{port}:{directory_ids[node_id]}"
                               for node_id, port in ports.items())
            self.format_storage(list(configs.values()), cluster_id, "--initial-controllers", initial)
        else:
            self.format_storage(list(configs.values()), cluster_id)
        with self.run.changing_manifest() as manifest:
            manifest.update(cluster_id=cluster_id, bootstrap_controllers=bootstrap)
            if dynamic:
                manifest.update(controller_quorum_bootstrap_servers=bootstrap)
            else:
                manifest.update(controller_quorum_voters=voters)
            for node_id, port in ports.items():
                config = configs[node_id]
                log = self.run.path / f"controller-{node_id}.log"
                entry = {"role": "controller", "id": node_id, "pid": None, "port": port, "config": str(config),
                         "log": str(log), "state": "Starting", **places[node_id]}
                if combined:
                    entry.update(combined=True, broker_port=broker_ports[node_id])
                if dynamic:
                    entry["directory_id"] = directory_ids[node_id]
                manifest["processes"].append(entry)
            if combined:
                manifest["bootstrap_servers"] = bootstrap_servers(manifest["processes"])
        for node_id in ports:
            self.start(node_id)
        if wait:
            self.wait_for_quorum(timeout_s)

    def format_storage(self, configs: list[Path], cluster_id: str, *extra: str) -> None:
        """`kafka-edu storage format` for each node, as an operator runs it on each machine: at once (each is a
        process of its own, and seconds of Python start-up on a busy machine)."""
        with ThreadPoolExecutor(max_workers=len(configs) or 1) as pool:
            for done in [pool.submit(self.storage_tool, "format", "--config", str(config), "--cluster-id", cluster_id,
                                     *extra)
                         for config in configs]:
                done.result()

    def storage_tool(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "storage", *args], capture_output=True,
                              text=True, env=self.run.environment(), timeout=60)
        if done.returncode != 0:
            raise ClusterError(f"kafka-edu storage {args[0]} failed: {(done.stderr or done.stdout).strip()}")
        return done.stdout

    def write_controller_config(self, node_id: int, port: int, voters: str, overrides: list[str],
                                broker_port: int | None = None, bootstrap_servers: str | None = None,
                                host: str = LOOPBACK) -> Path:
        """A controller's properties; with a `broker_port`, a combined node's (config/kraft/server.properties):
        the broker listener on that port, the controller listener on `port`. With `bootstrap_servers` (a dynamic
        quorum), controller.quorum.bootstrap.servers takes the place of controller.quorum.voters."""
        if broker_port is None:
            props = load_props(KRAFT_CONTROLLER_CONFIG)
            props.update({"process.roles": "controller", "listeners": f"CONTROLLER://{host}:{port}"})
        else:
            props = load_props(KRAFT_COMBINED_CONFIG)
            props.update({"process.roles": "broker,controller",
                          "listeners": f"PLAINTEXT://{host}:{broker_port},CONTROLLER://{host}:{port}",
                          "advertised.listeners": f"PLAINTEXT://{host}:{broker_port}"})
        props.update({"node.id": str(node_id), "controller.listener.names": "CONTROLLER",
                      "controller.quorum.voters": voters,
                      "log.dirs": str(self.run.path / f"controller-{node_id}" / "logs")})
        if bootstrap_servers is not None:
            del props["controller.quorum.voters"]
            props["controller.quorum.bootstrap.servers"] = bootstrap_servers
            if broker_port is None:  # a dynamic voter is known by its advertised controller endpoint
                props["advertised.listeners"] = f"CONTROLLER://{host}:{port}"
        props.pop("metadata.log.dir", None)  # the log dir above holds the metadata log too
        for override in for_role(overrides, "controller"):
            key, _, value = override.partition("=")
            props[key.strip()] = value.strip()
        path = self.run.path / f"controller-{node_id}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        return path

    def add_kraft_broker(self, node_id: int, start: bool = True) -> None:
        self.add_kraft_brokers([node_id], start)

    def add_kraft_brokers(self, node_ids: list[int], start: bool = True) -> None:
        """Broker-only nodes, set up as an operator would: each its own properties file naming the voters, its log
        and metadata dirs formatted with the controllers' cluster id, then the processes."""
        ports = {node_id: free_port() for node_id in node_ids}
        places = {node_id: self.place("broker", node_id) for node_id in node_ids}
        manifest = self.run.read_manifest()
        configs = {node_id: self.write_kraft_broker_config(node_id, port, manifest.get("controller_quorum_voters", ""),
                                                           manifest["overrides"],
                                                           manifest.get("controller_quorum_bootstrap_servers"),
                                                           host=places[node_id].get("address", LOOPBACK))
                   for node_id, port in ports.items()}
        self.format_storage(list(configs.values()), manifest["cluster_id"])
        with self.run.changing_manifest() as manifest:
            for node_id, port in ports.items():
                manifest["processes"].append({"role": "broker", "id": node_id, "pid": None, "port": port,
                                              "config": str(configs[node_id]),
                                              "log": str(self.run.path / f"broker-{node_id}.log"),
                                              "state": "Starting", **places[node_id]})
            manifest["bootstrap_servers"] = bootstrap_servers(manifest["processes"])
        if start:
            for node_id in node_ids:
                self.start(node_id)

    def write_kraft_broker_config(self, node_id: int, port: int, voters: str, overrides: list[str],
                                  bootstrap_servers: str | None = None, host: str = LOOPBACK) -> Path:
        props = load_props(KRAFT_BROKER_CONFIG)
        props.update({"process.roles": "broker", "node.id": str(node_id),
                      "listeners": f"PLAINTEXT://{host}:{port}",
                      "advertised.listeners": f"PLAINTEXT://{host}:{port}",
                      "controller.listener.names": "CONTROLLER", "controller.quorum.voters": voters,
                      "log.dirs": str(self.run.path / f"broker-{node_id}" / "logs"),
                      # its own directory, as config/kraft/broker.properties has it (a log dir would do too)
                      "metadata.log.dir": str(self.run.path / f"broker-{node_id}" / "metadata")})
        if bootstrap_servers is not None:  # a dynamic quorum: the brokers find the leader through these
            del props["controller.quorum.voters"]
            props["controller.quorum.bootstrap.servers"] = bootstrap_servers
        for override in for_role(overrides, "broker"):
            key, _, value = override.partition("=")
            props[key.strip()] = value.strip()
        path = self.run.path / f"broker-{node_id}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        return path

    def raft_state(self, node_id: int) -> tuple[str, int]:
        """A controller's Raft role and epoch as its own trace tells them (`raft.role.change` events), read
        incrementally like broker_state."""
        entry = self.entry(node_id)
        pid = entry["pid"]
        if not pid or not process_alive(pid):
            return NOT_RUNNING, -1
        known_pid, offset, state = self._raft_tails.get(node_id, (None, 0, "Unattached@-1"))
        if known_pid != pid:
            offset, state = entry.get("span_offset", 0), "Unattached@-1"
        offset, changes = read_span_file_from(self.span_file(node_id), offset)
        for s in changes:
            if s.resource.get("process.pid") != pid:
                continue
            for e in s.events:
                if e.name == "raft.role.change":
                    state = f"{e.attributes['kafka.raft.role.to']}@{e.attributes['kafka.raft.epoch']}"
        self._raft_tails[node_id] = (pid, offset, state)
        role, _, epoch = state.partition("@")
        return role, int(epoch)

    def wait_for_quorum(self, timeout_s: float) -> int:
        """Until every running controller follows one leader in one epoch; returns the leader's id."""
        deadline = time.monotonic() + timeout_s
        controllers = [p for p in self.run.read_manifest()["processes"] if p["role"] == "controller"]
        while time.monotonic() < deadline:
            states = {}
            for entry in controllers:
                if not process_alive(entry["pid"]):
                    if entry.get("state") in ("killed", NOT_RUNNING):
                        continue
                    tail = Path(entry["log"]).read_text(errors="replace").strip().splitlines()[-3:]
                    raise ClusterError(f"controller {entry['id']} exited: " + " | ".join(tail))
                states[entry["id"]] = self.raft_state(entry["id"])
            leaders = [node_id for node_id, (role, _) in states.items() if role == "Leader"]
            epochs = {epoch for _, epoch in states.values()}
            if len(leaders) == 1 and len(epochs) == 1 and all(role in QUORUM_MEMBER for role, _ in states.values()):
                for node_id, (role, epoch) in states.items():
                    self._update_entry(node_id, state=role, epoch=epoch)
                return leaders[0]
            time.sleep(0.1)
        raise ClusterError(f"the controllers did not agree on a leader within {timeout_s} s; see their logs")

    # -- growing and shrinking a dynamic quorum (KIP-853) ----------------------------------------------------------

    def _dynamic_manifest(self) -> dict[str, Any]:
        manifest = self.run.read_manifest()
        if manifest.get("mode") != "kraft" or not manifest.get("dynamic_quorum"):
            raise ClusterError(f"run {self.run.run_id} has no dynamic controller quorum: start one with "
                               "`kafka-edu cluster up --mode kraft --dynamic-quorum`")
        return manifest

    def _quorum_admin(self, manifest: dict[str, Any]) -> Any:
        from kafka_edu.v3_9.tools.tools.metadata_quorum_command import ControllerAdmin
        return ControllerAdmin(manifest["bootstrap_controllers"])

    def add_controller(self, timeout_s: float = 90.0, out: Any = None) -> int:
        """One more controller, as an operator adds one: its properties name the bootstrap controllers, its
        directory is formatted with `--no-initial-controllers`, it starts and fetches the log as an observer, and
        `metadata-quorum add-controller` (the same code) has the leader add it. The leader refuses a replica that
        has not caught up yet (REQUEST_TIMED_OUT): the request is repeated until `timeout_s`. Returns its node id."""
        from kafka_edu.v3_9.clients.common.protocol.errors import Errors
        from kafka_edu.v3_9.tools.tools.metadata_quorum_command import RaftVoterError, handle_add_controller
        manifest = self._dynamic_manifest()
        node_id = max([p["id"] for p in manifest["processes"] if p["role"] in NODE_ROLES], default=0) + 1
        port = free_port()
        place = self.place("controller", node_id)
        host = place.get("address", LOOPBACK)
        config = self.write_controller_config(node_id, port, "", manifest["overrides"],
                                              bootstrap_servers=manifest["controller_quorum_bootstrap_servers"],
                                              host=host)
        self.format_storage([config], manifest["cluster_id"], "--no-initial-controllers")
        with self.run.changing_manifest() as latest:
            latest["processes"].append({"role": "controller", "id": node_id, "pid": None, "port": port,
                                        "config": str(config), "log": str(self.run.path / f"controller-{node_id}.log"),
                                        "state": "Starting", "directory_id": str(_directory_id_of(config)), **place})
        self.start(node_id)
        deadline = time.monotonic() + timeout_s
        while self.raft_state(node_id)[0] not in QUORUM_MEMBER:  # an observer following the leader
            self._check_alive(node_id)
            if time.monotonic() > deadline:
                raise ClusterError(f"controller {node_id} did not find the quorum's leader within {timeout_s} s")
            time.sleep(0.1)
        props = load_props(config)
        while True:
            try:
                handle_add_controller(self._quorum_admin(manifest), False, props, out or _Discard())
                break
            except RaftVoterError as e:
                if e.error != Errors.REQUEST_TIMED_OUT or time.monotonic() > deadline:
                    raise ClusterError(f"adding controller {node_id}: {e}") from e
                self._check_alive(node_id)
                time.sleep(0.2)
        with self.run.changing_manifest() as latest:
            latest["bootstrap_controllers"] = ",".join(
                [a for a in latest["bootstrap_controllers"].split(",") if a] + [f"{host}:{port}"])
        self.wait_for_quorum(max(1.0, deadline - time.monotonic()))
        return node_id

    def remove_controller(self, node_id: int, timeout_s: float = 90.0, out: Any = None) -> None:
        """RemoveRaftVoter for voter `node_id` (with its directory id, from its meta.properties), the way
        `metadata-quorum remove-controller` sends it; once the leader has committed the change, the process is
        stopped. Removing the leader makes it resign: the others elect a new one."""
        from kafka_edu.v3_9.tools.tools.metadata_quorum_command import handle_remove_controller
        manifest = self._dynamic_manifest()
        entry = self.entry(node_id, manifest)
        if entry["role"] != "controller":
            raise ClusterError(f"node {node_id} is a {entry['role']}, not a controller")
        directory_id = entry.get("directory_id") or str(_directory_id_of(Path(entry["config"])))
        try:
            handle_remove_controller(self._quorum_admin(manifest), node_id, directory_id, False, out or _Discard())
        except Exception as e:
            raise ClusterError(f"removing controller {node_id}: {e}") from e
        self.stop(node_id)
        with self.run.changing_manifest() as manifest:
            manifest["bootstrap_controllers"] = ",".join(
                a for a in manifest["bootstrap_controllers"].split(",")
                if a and a != f"{entry.get('address', LOOPBACK)}:{entry['port']}")
            self.entry(node_id, manifest)["removed"] = True
        self.wait_for_quorum(timeout_s)

    def _check_alive(self, node_id: int) -> None:
        entry = self.entry(node_id)
        if not process_alive(entry["pid"]):
            tail = Path(entry["log"]).read_text(errors="replace").strip().splitlines()[-3:]
            raise ClusterError(f"controller {node_id} exited: " + " | ".join(tail))

    # -- one node -------------------------------------------------------------------------------------------------

    def entry(self, node_id: int, manifest: dict[str, Any] | None = None) -> dict[str, Any]:
        """The broker or controller with this node id."""
        manifest = manifest or self.run.read_manifest()
        for entry in manifest["processes"]:
            if entry["role"] in NODE_ROLES and entry["id"] == node_id:
                return entry
        raise ClusterError(f"no broker or controller {node_id} in run {self.run.run_id}")

    def broker_entry(self, broker_id: int, manifest: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.entry(broker_id, manifest)

    def _record_fault(self, fault: str, node_id: int) -> None:
        """A fault leaves no span of its own (a kill -9 least of all): the manifest keeps when it was done, for the
        mining jobs' timelines."""
        with self.run.changing_manifest() as manifest:
            entry = self.entry(node_id, manifest)
            manifest.setdefault("faults", []).append({"fault": fault, "node": node_id, "role": entry["role"],
                                                      "time_ns": time.time_ns()})

    def _update_entry(self, broker_id: int, **changes: Any) -> None:
        with self.run.changing_manifest() as manifest:
            self.entry(broker_id, manifest).update(changes)

    def start(self, broker_id: int, after_old_registration: bool = False) -> int:
        """Start the node's process. A ZooKeeper-mode broker started again right after a kill finds its old
        registration still in /brokers/ids and exits, as 1.0.2 does (lesson broker-life shows it); with
        `after_old_registration` the runner first waits for that registration to expire."""
        entry = self.entry(broker_id)
        if entry["pid"] and process_alive(entry["pid"]):
            raise ClusterError(f"{entry['role']} {broker_id} is already running (pid {entry['pid']})")
        if entry["pid"]:  # a restart, not the node's first start
            if after_old_registration and entry["role"] == "broker" and self.run.read_manifest()["mode"] == "zk":
                self._wait_for_registration_to_expire(broker_id, entry)
            self._record_fault("start", broker_id)
        span_file = self.span_file(broker_id)
        span_offset = span_file.stat().st_size if span_file.exists() else 0  # where this process's spans begin
        with open(entry["log"], "ab") as log:
            wrapper = net.exec_prefix(entry["netns"]) if entry.get("netns") else []
            process = subprocess.Popen([*wrapper, sys.executable, "-m", "kafka_edu.cli", "server-start",
                                        entry["config"]],
                                       stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=self.run.environment(), start_new_session=True)
        self._update_entry(broker_id, pid=process.pid, state="Starting", span_offset=span_offset)
        return process.pid

    def _wait_for_registration_to_expire(self, broker_id: int, entry: dict[str, Any]) -> None:
        """Wait, up to the broker's session timeout with room to spare, until the killed process's /brokers/ids node
        has expired with its session; a broker still registered then starts anyway and says so in its log."""
        from kazoo.client import KazooClient
        props = load_props(Path(entry["config"]))
        timeout_s = int(props.get("zookeeper.session.timeout.ms", "6000")) / 1000 + 10
        zk = KazooClient(hosts=self.run.read_manifest()["zookeeper_connect"], timeout=5)
        try:
            zk.start(timeout=5)
        except Exception:  # ZooKeeper down or cut off: the broker will report what it finds
            zk.close()
            return
        try:
            deadline = time.monotonic() + timeout_s
            while zk.exists(f"/brokers/ids/{broker_id}") is not None and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            zk.stop()
            zk.close()

    def stop(self, broker_id: int, timeout_s: float = 60.0) -> None:
        """Controlled stop: SIGTERM runs KafkaServer.shutdown in the broker."""
        entry = self.entry(broker_id)
        if entry["pid"]:
            self._record_fault("stop", broker_id)
            stop_process(entry["pid"], timeout_s)
        self._update_entry(broker_id, state=NOT_RUNNING)

    def kill(self, broker_id: int) -> None:
        entry = self.entry(broker_id)
        if entry["pid"]:
            self._record_fault("kill -9", broker_id)
            signal_process(entry["pid"], signal.SIGKILL)
            deadline = time.monotonic() + 10
            while process_alive(entry["pid"]) and time.monotonic() < deadline:
                time.sleep(0.02)
        self._update_entry(broker_id, state="killed")

    def pause(self, broker_id: int) -> None:
        """SIGSTOP: the broker freezes, as in a long GC pause; its ZooKeeper session will expire."""
        entry = self.entry(broker_id)
        if entry["pid"]:
            self._record_fault("pause", broker_id)
            signal_process(entry["pid"], signal.SIGSTOP)
        self._update_entry(broker_id, state="paused")

    def resume(self, broker_id: int) -> None:
        entry = self.entry(broker_id)
        if entry["pid"]:
            signal_process(entry["pid"], signal.SIGCONT)
            self._record_fault("resume", broker_id)
        self._update_entry(broker_id, state="resumed")

    def span_file(self, broker_id: int) -> Path:
        """The node's lifecycle span file (request-path spans go to segments of their own)."""
        return self.run.path / f"{self.entry(broker_id)['role']}-{broker_id}.jsonl"

    def broker_state(self, broker_id: int) -> str:
        """The broker's BrokerState as its own trace tells it: the spans its current process wrote, read from where
        that process began and, on the next call, from where the last call stopped. A ZooKeeper-mode broker's
        changes are `BrokerState.newState` spans, a KRaft broker's `broker.state.change` events."""
        entry = self.entry(broker_id)
        pid = entry["pid"]
        if not pid or not process_alive(pid):
            return NOT_RUNNING
        known_pid, offset, state = self._state_tails.get(broker_id, (None, 0, "Starting"))
        if known_pid != pid:
            offset, state = entry.get("span_offset", 0), "Starting"
        offset, changes = read_span_file_from(self.span_file(broker_id), offset)
        events = []
        for s in changes:
            if s.resource.get("process.pid") != pid:
                continue
            if s.name == "BrokerState.newState":
                state = s.attributes["kafka.broker.state.to"]
            events += [(e.time_ns, e.attributes["kafka.broker.state.to"]) for e in s.events
                       if e.name == "broker.state.change"]
        if events:  # spans are written as they end: the events' own times give their order
            state = max(events)[1]
        self._state_tails[broker_id] = (pid, offset, state)
        return state

    def wait_for_state(self, broker_id: int, state: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        entry = self.entry(broker_id)
        if self.run.read_manifest()["mode"] == "kraft":
            state = KRAFT_BROKER_STATES.get(state, state)
        while time.monotonic() < deadline:
            if self.broker_state(broker_id) == state:
                self._update_entry(broker_id, state=state)
                return
            if not process_alive(entry["pid"]):
                tail = Path(entry["log"]).read_text(errors="replace").strip().splitlines()[-3:]
                raise ClusterError(f"broker {broker_id} exited before reaching {state}: " + " | ".join(tail))
            time.sleep(0.1)
        raise ClusterError(f"broker {broker_id} did not reach {state} within {timeout_s} s; see {entry['log']}")

    def wait_for_brokers_to_see_each_other(self, timeout_s: float) -> None:
        """Until every broker's Metadata answer lists every broker, so that `up` returns a cluster a client can use.
        A KRaft broker is RUNNING once the controller's heartbeat answer unfences it, and the record that unfences it
        and its peers reaches its metadata cache a little later; a 1.0.2 broker is RunningAsBroker before the
        controller's UpdateMetadata names the others. A client asking in between finds no broker to send
        CreateTopics to (librdkafka's admin then waits out its whole timeout)."""
        deadline = time.monotonic() + timeout_s
        while True:
            # only the brokers still running as started: one killed or paused meanwhile (a learner breaking the
            # cluster in the TUI as it comes up) is no longer up's to wait for
            running = [p for p in self.run.read_manifest()["processes"] if p["role"] == "broker" or p.get("combined")]
            running = [p for p in running if process_alive(p["pid"]) and p.get("state") not in ("paused", "killed")]
            addresses = [a for a in bootstrap_servers(running).split(",") if a]
            waiting = [a for a in addresses if _brokers_listed(a) < len(addresses)]
            if not waiting:
                return
            if time.monotonic() > deadline:
                raise ClusterError(f"brokers at {', '.join(waiting)} did not list all {len(addresses)} running "
                                   f"brokers within {timeout_s} s")
            time.sleep(0.1)

    # -- network namespaces and partitions (issue 26; the mechanics are network.py's) -----------------------------

    @property
    def tracer(self) -> RunnerTracer:
        """The runner's span file of this run (`runner.jsonl`): where the NF events go."""
        if self._tracer is None:
            self._tracer = RunnerTracer(self.run.path, self.run.run_id, self.run.read_manifest().get("mode", "zk"))
        return self._tracer

    def create_bridge(self) -> None:
        with self.run.changing_manifest() as manifest:
            network = manifest["network"]
            network["bridge_created"] = True  # written before it is made: `down` removes it if it exists
        net.create_bridge(network)

    def place(self, role: str, node_id: int) -> dict[str, Any]:
        """Where a process of the run lives: on a run with network namespaces, a namespace of its own with its
        address (made here, written to the manifest first), as `{"netns", "address"}` for its process entry; on
        other runs nothing (it listens on loopback)."""
        if not self.run.read_manifest().get("network"):
            return {}
        with self.run.changing_manifest() as manifest:
            network = manifest["network"]
            node = net.plan_node(network, role, node_id)
            create = not node["created"]
            node["created"] = True  # written before it is made: `down` removes it if it exists
        if create:
            with self.tracer.action("netns", {"kafka.node": net.node_name(role, node_id)}) as span:
                net.create_node(network, node)
                self.tracer.done(span, "NF.netns", {
                    "kafka.node": net.node_name(role, node_id), "kafka.node.role": role,
                    "kafka.netns": node["netns"], "kafka.network.address": node["address"],
                    "kafka.network.veth": node["veth"], "kafka.network.bridge": network["bridge"]})
        return {"netns": node["netns"], "address": node["address"]}

    def _network(self, manifest: dict[str, Any]) -> dict[str, Any]:
        network = manifest.get("network")
        if not network:
            raise ClusterError(f"run {self.run.run_id} has no network namespaces to cut: start a run with "
                               "`kafka-edu cluster up --netns` (as root)")
        if manifest.get("stopped_at"):
            raise ClusterError(f"run {self.run.run_id} is down: its network is gone")
        return network

    def nodes(self) -> list[str]:
        """The run's node names as cuts take them: `zk`, then the node ids."""
        return list(self._network(self.run.read_manifest())["nodes"])

    def partition(self, kind: str, side_a: list[str], side_b: list[str] | None = None) -> dict[str, Any]:
        """Cut links, and record the cut (manifest `network.cuts` and `faults`, NF.cut in runner.jsonl):
        - `isolate`: `side_a` is one node, cut both ways from `side_b` (default: every other node of the run);
        - `split`: every node of `side_a` cut both ways from every node of `side_b`;
        - `one-way`: packets from the nodes of `side_a` to those of `side_b` are dropped, the other way pass.
        A link already cut is refused (heal its cut first). Returns the cut."""
        with self.run.changing_manifest() as manifest:
            network = self._network(manifest)
            if kind not in ("isolate", "split", "one-way"):
                raise ClusterError(f"unknown kind of cut {kind!r}: isolate, split or one-way")
            if kind == "isolate" and len(side_a) != 1:
                raise ClusterError("isolate cuts one node: name one")
            if side_b is None:
                if kind != "isolate":
                    raise ClusterError(f"a {kind} cut needs two sides")
                side_b = [name for name in network["nodes"] if name not in side_a]
            net.check_nodes(network, side_a + side_b, self.run.run_id)
            if set(side_a) & set(side_b):
                raise ClusterError(f"node {', '.join(sorted(set(side_a) & set(side_b)))} is on both sides of the cut")
            if not side_a or not side_b:
                raise ClusterError("a cut needs a node on each side")
            links = net.links_between(side_a, side_b, both_ways=kind != "one-way")
            existing = net.cut_links(network)
            already = [f"{a}->{b} (cut {existing[(a, b)]})" for a, b in links if (a, b) in existing]
            if already:
                raise ClusterError(f"already cut: {', '.join(already)}; heal it first")
            cut = {"id": network["next_cut"], "kind": kind, "from": side_a, "to": side_b,
                   "links": [list(link) for link in links], "at": now_iso(), "at_ns": time.time_ns()}
            attributes = {"kafka.network.cut": cut["id"], "kafka.network.kind": kind,
                          "kafka.network.from": side_a, "kafka.network.to": side_b,
                          "kafka.network.links": [f"{a}->{b}" for a, b in links]}
            with self.tracer.action("partition", attributes) as span:
                network["cuts"].append(cut)
                network["next_cut"] += 1
                try:
                    net.apply_rules(network, set(side_a) | set(side_b))
                except BaseException:
                    network["cuts"].remove(cut)  # what is in force is what the manifest says: back to no cut
                    net.apply_rules(network, set(side_a) | set(side_b))
                    raise
                cut["at"], cut["at_ns"] = now_iso(), time.time_ns()
                self.tracer.done(span, "NF.cut", attributes)
                manifest.setdefault("faults", []).append({"at": cut["at"], "at_ns": cut["at_ns"], "kind": kind,
                                                          "nodes": sorted(set(side_a) | set(side_b)), "from": side_a,
                                                          "to": side_b, "cut": cut["id"], "until": None})
            return cut

    def isolate(self, node: str, from_: str = "all") -> dict[str, Any]:
        """Cut one node off, both ways: from every other node (`all`), from ZooKeeper only (`zookeeper`), or from
        the controller quorum only (`quorum`: every other controller of a KRaft run)."""
        manifest = self.run.read_manifest()
        network = self._network(manifest)
        node = net.ZOOKEEPER if node == "zookeeper" else node
        net.check_nodes(network, [node], self.run.run_id)
        if from_ == "all":
            return self.partition("isolate", [node])
        if from_ == "zookeeper":
            if manifest["mode"] != "zk" or net.ZOOKEEPER not in network["nodes"] or node == net.ZOOKEEPER:
                raise ClusterError(f"run {self.run.run_id} has no ZooKeeper of its own to cut node {node} from")
            return self.partition("isolate", [node], [net.ZOOKEEPER])
        if from_ == "quorum":
            controllers = [name for name, n in network["nodes"].items() if n["role"] == "controller" and name != node]
            if manifest["mode"] != "kraft" or not controllers:
                raise ClusterError(f"run {self.run.run_id} has no controller quorum to cut node {node} from "
                                   "(a ZooKeeper-mode run: use --from-zookeeper)")
            return self.partition("isolate", [node], controllers)
        raise ClusterError(f"isolate from {from_!r}: all, zookeeper or quorum")

    def heal(self, cut_ids: list[int] | None = None) -> list[dict[str, Any]]:
        """Remove the rules of the given cuts (default: every cut), and record it (NF.heal, the faults' `until`).
        Returns the cuts healed."""
        with self.run.changing_manifest() as manifest:
            network = self._network(manifest)
            if not network["cuts"]:
                raise ClusterError(f"nothing is cut in run {self.run.run_id}")
            in_force = {cut["id"]: cut for cut in network["cuts"]}
            unknown = [str(i) for i in cut_ids or [] if i not in in_force]
            if unknown:
                raise ClusterError(f"no cut {', '.join(unknown)} in force in run {self.run.run_id} "
                                   f"(cuts in force: {', '.join(map(str, in_force))})")
            healed = [in_force[i] for i in (cut_ids or list(in_force))]
            links = [f"{a}->{b}" for cut in healed for a, b in cut["links"]]
            attributes = {"kafka.network.cuts": [cut["id"] for cut in healed], "kafka.network.links": links}
            with self.tracer.action("heal", attributes) as span:
                network["cuts"] = [cut for cut in network["cuts"] if cut not in healed]
                net.apply_rules(network, {name for cut in healed for name in cut["from"] + cut["to"]})
                until = now_iso()
                self.tracer.done(span, "NF.heal", attributes)
                ids = {cut["id"] for cut in healed}
                for fault in manifest.get("faults", []):
                    if fault.get("cut") in ids and fault.get("until") is None:
                        fault["until"] = until
            return healed

    def remove_network(self, manifest: dict[str, Any]) -> list[str]:
        """Every namespace, veth and the bridge of the run that still exists (`down`, also after a crash)."""
        network = manifest["network"]
        removed = net.teardown(network)
        network["cuts"] = []
        network["removed_at"] = now_iso()
        for fault in manifest.get("faults", []):  # a cut still in force went with its namespaces
            if "cut" in fault and fault.get("until") is None:
                fault["until"] = network["removed_at"]
        return removed

    # -- the whole cluster ----------------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        manifest = self.run.read_manifest()
        for entry in manifest["processes"]:
            if entry["role"] == "broker" and entry.get("state") != "paused":
                entry["state"] = self.broker_state(entry["id"])
            elif entry["role"] == "controller" and entry.get("state") != "paused":
                role, epoch = self.raft_state(entry["id"])
                entry["state"], entry["epoch"] = role, epoch
            elif entry["role"] in NODE_ROLES:
                pass  # paused: the manifest says so, and a stopped process writes no spans to read a state from
            else:
                host, _, port = (manifest["zookeeper_connect"] or ":").rpartition(":")
                entry["state"] = "running" if entry["pid"] and process_alive(entry["pid"]) and is_ok(host, int(port)) \
                    else "stopped"
        return manifest

    def down(self) -> None:
        manifest = self.run.read_manifest()
        network = manifest.get("network")
        if network and network["cuts"] and not manifest.get("stopped_at"):
            # healed first: a broker cut from its controller would wait out its controlled shutdown's retries
            try:
                self.heal()
            except net.NetworkError:
                pass  # a namespace already gone (a crashed run): remove_network below takes the rest
            manifest = self.run.read_manifest()
        # Brokers before controllers, as KafkaRaftServer stops its broker before its controller: a broker's
        # controlled shutdown needs the quorum.
        stopped: dict[tuple[str, int], str] = {}
        for role in NODE_ROLES:
            nodes = [p for p in manifest["processes"] if p["role"] == role and p["pid"]]
            for entry in nodes:  # all at once: each node's shutdown is independent
                signal_process(entry["pid"], signal.SIGTERM)
            for entry in nodes:
                if not wait_exit(entry["pid"], 60):
                    signal_process(entry["pid"], signal.SIGKILL)
                    wait_exit(entry["pid"], 5)
                stopped[role, entry["id"]] = NOT_RUNNING
        for entry in manifest["processes"]:
            if entry["role"] == "zookeeper" and entry["pid"]:
                stop_process(entry["pid"], 10)
                stopped["zookeeper", entry["id"]] = "stopped"
        with self.run.changing_manifest() as manifest:
            for entry in manifest["processes"]:
                entry["state"] = stopped.get((entry["role"], entry["id"]), entry["state"])
            if manifest.get("network"):
                self.remove_network(manifest)
            manifest["stopped_at"] = now_iso()
            exits = self.run.exit_records()
            manifest["dropped_spans"] = {name: record["dropped_spans"] for name, record in exits.items()}
            manifest["span_files"] = {name: record["span_files"] for name, record in exits.items()
                                      if "span_files" in record}
        if self._tracer is not None:
            self._tracer.close()


def check_up_arguments(mode: str, controllers: int, combined: bool, dynamic_quorum: bool) -> None:
    """What `up` refuses before it starts anything."""
    if mode == "kraft" and controllers < 1:
        raise ClusterError("a KRaft cluster needs at least one controller")
    if dynamic_quorum and mode != "kraft":
        raise ClusterError("a dynamic quorum (KIP-853) is a KRaft controller quorum: use mode kraft")


def _directory_id_of(config: Path) -> Any:
    """The directory id in the meta.properties of the metadata directory a node's properties name."""
    from kafka_edu.v3_9.tools.tools.metadata_quorum_command import get_metadata_directory, get_metadata_directory_id
    return get_metadata_directory_id(get_metadata_directory(load_props(config)))


class _Discard:
    """A text stream that keeps nothing: the tool's line is for a terminal, the runner reports on its own."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _brokers_listed(address: str) -> int:
    """How many brokers a Metadata request (v1, no topics) to the broker at `address` lists; -1 if it answers none."""
    host, _, port = address.rpartition(":")
    channel = BlockingChannel(host, int(port), 5.0, "kafka-edu-cluster-runner")
    try:
        response = channel.send_and_receive(ApiKeys.METADATA, 1, build(ApiKeys.METADATA.request_schema(1), topics=[]))
        return len(response.brokers)
    except OSError:
        return -1
    finally:
        channel.disconnect()


def for_role(overrides: list[str], role: str) -> list[str]:
    """The overrides a KRaft node of `role` takes: all but those marked for the other role (`controller:k=v` is
    for controllers only, `broker:k=v` for brokers only; a combined node is a controller here)."""
    chosen = []
    for override in overrides:
        prefix, colon, rest = override.partition(":")
        if colon and prefix in ("controller", "broker") and "=" not in prefix:
            if prefix == role:
                chosen.append(rest)
        else:
            chosen.append(override)
    return chosen


def bootstrap_servers(processes: list[dict[str, Any]]) -> str:
    """Where clients connect on a KRaft run: each broker's port, and each combined node's broker port."""
    return ",".join(f"{p.get('address', LOOPBACK)}:{p['broker_port'] if p.get('combined') else p['port']}"
                    for p in processes if p["role"] == "broker" or p.get("combined"))
