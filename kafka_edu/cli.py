"""`kafka-edu`: the command line (Kafka's bin/ scripts, plus the cluster runner)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from rich.console import Console

from kafka_edu.gallery import cli as gallery_cli
from kafka_edu.lessons import cli as lessons_cli
from kafka_edu.mining import cli as mining_cli
from kafka_edu.nemesis import cli as nemesis_cli

console = Console()


def server_start(args: list[str]) -> int:
    """kafka-server-start.sh: `kafka-edu server-start config/server.properties [--override k=v ...]`, Kafka.main in
    a traced process of its run (the runner's, or a new one)."""
    from kafka_edu.cluster_runner.heap import bound_memory
    from kafka_edu.cluster_runner.traced_process import server_start as traced_server_start
    if not args or args[0] in ("-h", "--help"):
        console.print("USAGE: kafka-edu server-start server.properties [--override property=value]*\n"
                      "The process's memory is bounded by the -Xmx of KAFKA_HEAP_OPTS (default -Xmx1G -Xms1G): "
                      "past it a request fails with an error, the broker serves on.")
        return 1
    try:
        bound_memory()  # as kafka-server-start.sh gives the JVM its heap, before any thread starts
    except ValueError as e:
        console.print(f"[red]{e}[/]")
        return 1
    return traced_server_start(args)


def kafka_tool(name: str, args: list[str]) -> int:
    """kafka-storage.sh and kafka-dump-log.sh (Kafka 3.9): each parses its own arguments, as the scripts do."""
    if name == "storage":
        from kafka_edu.cluster_runner.traced_process import storage
        return storage(args)
    from kafka_edu.v3_9.core.tools import dump_log_segments
    return dump_log_segments.main(args)


def zookeeper_start(options: argparse.Namespace) -> int:
    from kafka_edu.zookeeper.zookeeper_server import ZooKeeperServer
    server = ZooKeeperServer(Path(options.data_dir), options.port)
    stopped = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopped.set())
    server.start()
    try:
        server.wait_ready()
        console.print(f"ZooKeeper ready on [bold]{server.connect_string}[/] (data in {server.data_dir})")
        while not stopped.wait(0.5):
            if server.process.poll() is not None:
                console.print(f"[red]ZooKeeper exited with code {server.process.returncode}[/]")
                return 1
    finally:
        server.stop()
    return 0


def cluster(options: argparse.Namespace) -> int:
    from kafka_edu.cluster_runner.report import print_startup_summary, print_status
    from kafka_edu.cluster_runner.runner import ClusterRunner
    traces = Path(options.traces)
    partition_options = {"--isolate": options.isolate, "--from-zookeeper": options.from_zookeeper,
                         "--from-quorum": options.from_quorum, "--split": options.split,
                         "--one-way": options.one_way}
    given = [name for name, value in partition_options.items() if value is not None]
    if given and options.verb != "partition":
        console.print(f"{given[0]} is an option of `kafka-edu cluster partition`, not of cluster {options.verb}",
                      soft_wrap=True)
        return 2
    if options.netns and options.verb != "up":
        console.print(f"--netns is an option of `kafka-edu cluster up`, not of cluster {options.verb}", soft_wrap=True)
        return 2
    if options.verb == "partition" and len(given) != 1:
        console.print("cluster partition needs one of --isolate N, --from-zookeeper N, --from-quorum N, "
                      "--split A,B C,D, --one-way FROM TO", soft_wrap=True)
        return 2
    if options.verb == "up" and options.netns and options.zookeeper:
        console.print("--netns runs ZooKeeper in a namespace of the run: leave out --zookeeper", soft_wrap=True)
        return 2
    if options.verb == "up" and options.netns:
        from kafka_edu.cluster_runner.network import NetworkError, check_netns_support
        try:
            check_netns_support()
        except NetworkError as e:
            console.print(f"[red]kafka-edu cluster up: {e}[/]", soft_wrap=True)
            return 2
    if options.verb == "up":
        if options.combined is not None and options.mode != "kraft":
            console.print("--combined N is a KRaft layout (N nodes, each controller and broker): add --mode kraft")
            return 2
        if options.dynamic_quorum and options.mode != "kraft":
            console.print("--dynamic-quorum is a KRaft controller quorum (KIP-853): add --mode kraft")
            return 2
        if options.mode == "kraft":
            combined = options.combined is not None
            controllers = options.combined if combined else options.controllers
            brokers = (0 if combined else 3) if options.brokers is None else options.brokers
            what = (f"{controllers} combined KRaft nodes (controller and broker)" if combined
                    else f"{controllers} KRaft controllers and {brokers} brokers")
            if options.dynamic_quorum:
                what += ", a dynamic quorum"
            with console.status(f"Formatting and starting {what}..."):
                runner = ClusterRunner.up(brokers, traces, overrides=options.override, mode="kraft",
                                          controllers=controllers, combined=combined,
                                          dynamic_quorum=options.dynamic_quorum, netns=options.netns)
            manifest = runner.run.read_manifest()
            print_status(runner.status())
            console.print(f"run directory: [bold]{runner.run.path}[/]")
            console.print("next: kafka-edu metadata-quorum describe --status | kafka-edu cluster kill ID | "
                          "kafka-edu tui --run " + str(runner.run.path))
            return 0
        brokers = 3 if options.brokers is None else options.brokers
        with console.status(f"Starting ZooKeeper and {brokers} brokers..."):
            runner = ClusterRunner.up(brokers, traces, options.zookeeper, options.override, log_dirs=options.log_dirs,
                                      sasl=options.sasl, netns=options.netns)
        manifest = runner.run.read_manifest()
        print_startup_summary(runner.run.path)
        console.print(f"run directory: [bold]{runner.run.path}[/]")
        console.print(f"bootstrap servers: [bold]{manifest['bootstrap_servers']}[/]")
        if options.sasl:
            console.print(f"SASL_PLAINTEXT bootstrap servers: [bold]{manifest['sasl_bootstrap_servers']}[/]")
        return 0
    runner = ClusterRunner.open(Path(options.run) if options.run else None, traces, changes=options.verb != "status")
    if options.verb == "add-controller":
        if options.id is not None:
            console.print("cluster add-controller takes no node id: the new controller gets the next free one")
            return 2
        with console.status("Formatting and starting a controller, then adding it to the quorum..."):
            node_id = runner.add_controller()
        console.print(f"controller {node_id} is a voter")
        print_status(runner.status())
    elif options.verb == "remove-controller":
        if options.id is None:
            console.print("cluster remove-controller needs the node id of the controller to remove")
            return 2
        with console.status(f"Removing controller {options.id} from the quorum and stopping it..."):
            runner.remove_controller(options.id)
        console.print(f"controller {options.id} is no longer a voter, and stopped")
        print_status(runner.status())
    elif options.verb == "status":
        print_status(runner.status())
        print_cuts(runner.run.read_manifest())
    elif options.verb in ("partition", "heal"):
        return cluster_network(runner, options)
    elif options.verb == "down":
        with console.status("Stopping brokers (controlled shutdown) and ZooKeeper..."):
            runner.down()
        console.print(f"stopped run {runner.run.run_id}")
    else:
        if options.id is None:
            console.print(f"cluster {options.verb} needs a node id (a broker's, or a controller's in KRaft mode)")
            return 2
        if options.verb == "start":
            runner.start(options.id)
            if runner.entry(options.id)["role"] == "controller":
                runner.wait_for_quorum(90)
            else:
                runner.wait_for_state(options.id, "RunningAsBroker", 90)
        else:
            getattr(runner, options.verb)(options.id)
        print_status(runner.status())
    return 0


def cluster_network(runner: Any, options: argparse.Namespace) -> int:
    """`cluster partition` and `cluster heal` (issue 26): a refused request is one line and changes nothing."""
    from kafka_edu.cluster_runner.network import NetworkError
    from kafka_edu.cluster_runner.runner import ClusterError
    try:
        if options.verb == "heal":
            healed = runner.heal([options.id] if options.id is not None else None)
            for cut in healed:
                console.print(f"healed cut {cut['id']} ({cut['kind']}): "
                              + ", ".join(f"{a}->{b}" for a, b in cut["links"]), soft_wrap=True)
        else:
            if options.id is not None:
                raise ClusterError("cluster partition takes its nodes from its options, not a positional id")
            if options.isolate is not None:
                cut = runner.isolate(options.isolate)
            elif options.from_zookeeper is not None:
                cut = runner.isolate(options.from_zookeeper, "zookeeper")
            elif options.from_quorum is not None:
                cut = runner.isolate(options.from_quorum, "quorum")
            elif options.split is not None:
                cut = runner.partition("split", *[_node_list(side) for side in options.split])
            else:
                cut = runner.partition("one-way", *[_node_list(side) for side in options.one_way])
            arrow = "->" if cut["kind"] == "one-way" else "<->"
            console.print(f"cut {cut['id']} ({cut['kind']}): {','.join(cut['from'])} {arrow} {','.join(cut['to'])}"
                          f"; heal it with `kafka-edu cluster heal {cut['id']}`", soft_wrap=True)
    except (ClusterError, NetworkError) as e:
        console.print(f"[red]kafka-edu cluster {options.verb}: {e}[/]", soft_wrap=True)
        return 2
    print_cuts(runner.run.read_manifest())
    return 0


def _node_list(side: str) -> list[str]:
    """`1,2,zk` -> ["1", "2", "zk"] (a side of a split or a one-way cut)."""
    return [name.strip() for name in side.split(",") if name.strip()]


def print_cuts(manifest: dict[str, Any]) -> None:
    network = manifest.get("network")
    if not network:
        return
    nodes = ", ".join(f"{name}={node['address']}" for name, node in network["nodes"].items())
    console.print(f"network {network['subnet']} (bridge {network['bridge']}): {nodes}", soft_wrap=True)
    for cut in network["cuts"]:
        arrow = "->" if cut["kind"] == "one-way" else "<->"
        console.print(f"  cut {cut['id']} ({cut['kind']}, since {cut['at']}): {','.join(cut['from'])} {arrow} "
                      f"{','.join(cut['to'])}", soft_wrap=True)
    if not network["cuts"]:
        console.print("  no cuts: every link carries packets")


def metadata_quorum(args: list[str]) -> int:
    """kafka-metadata-quorum.sh; with no --bootstrap-controller, the newest KRaft run's controllers."""
    from kafka_edu.cluster_runner.run_directory import RunDirectory
    from kafka_edu.v3_9.tools.tools.metadata_quorum_command import main as metadata_quorum_main
    if not {"--bootstrap-controller", "--bootstrap-server"} & {a.split("=", 1)[0] for a in args}:
        try:
            manifest = RunDirectory.newest(Path("traces")).read_manifest()
        except (FileNotFoundError, OSError):
            manifest = {}
        if manifest.get("bootstrap_controllers"):
            args = ["--bootstrap-controller", manifest["bootstrap_controllers"], *args]
    return metadata_quorum_main(args)


def demo(options: argparse.Namespace) -> int:
    """The README's main command until the TUI lands: a traced cluster and its startup, step by step."""
    from kafka_edu.cluster_runner.report import print_startup_summary
    from kafka_edu.cluster_runner.runner import ClusterRunner
    with console.status(f"Starting ZooKeeper and {options.brokers} brokers..."):
        runner = ClusterRunner.up(options.brokers, Path(options.traces))
    try:
        print_startup_summary(runner.run.path)
        manifest = runner.run.read_manifest()
        console.print(f"\nrun directory: [bold]{runner.run.path}[/]\nbootstrap servers: "
                      f"[bold]{manifest['bootstrap_servers']}[/]\nThe cluster runs until Ctrl-C.")
        stopped = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stopped.set())
        signal.signal(signal.SIGTERM, lambda *_: stopped.set())
        stopped.wait()
    finally:
        with console.status("Stopping the cluster..."):
            runner.down()
    console.print(f"stopped; traces are in {runner.run.path}")
    return 0


def tui(options: argparse.Namespace) -> int:
    """The live TUI: on a new cluster (stopped again on quit), or attached to `--run DIR`, running or finished."""
    from tui.app import run
    from tui.launch import ClusterLaunch
    lesson = None
    if options.lesson:
        from kafka_edu.lessons.catalog import all_lessons, find
        lesson = find(options.lesson)
        if lesson is None:
            console.print(f"[red]no lesson {options.lesson!r}; the lessons are: "
                          f"{', '.join(known.name for known in all_lessons())}[/]")
            return 2
    if options.run:
        run(Path(options.run), lesson=lesson)
        return 0
    brokers = options.brokers if options.brokers is not None else lesson.brokers if lesson else 3
    overrides = [*(lesson.overrides if lesson else ()), *options.override]
    mode = lesson.mode if lesson else options.mode  # a KRaft lesson runs on a KRaft cluster
    controllers = lesson.controllers if lesson and mode == "kraft" else options.controllers
    launch = ClusterLaunch(Path(options.traces), brokers, options.zookeeper, overrides, mode=mode,
                           controllers=controllers)
    launch.start()
    try:
        run(None, launch, lesson)
    finally:
        with console.status("Stopping the cluster..."):
            launch.stop()
    if launch.runner is not None:
        console.print(f"stopped; traces are in {launch.runner.run.path}")
    return 0


def raft_sim(options: argparse.Namespace) -> int:
    """Kafka's raft event simulation (RaftEventSimulationTest) as a traced run: cluster_runner/raft_sim.py."""
    from kafka_edu.cluster_runner.raft_sim import run_raft_sim, summary_lines
    if options.voters < 1 or options.observers < 0 or options.steps < 0 or not 0 <= options.drop < 1:
        console.print("raft-sim: --voters ≥ 1, --observers ≥ 0, --steps ≥ 0 and 0 ≤ --drop < 1")
        return 2
    every = options.progress_every or max(1000, options.steps // 10)
    long_run = options.steps >= 2 * every

    def report(line: str) -> None:
        console.print(line, highlight=False, soft_wrap=True)

    result = run_raft_sim(options.seed, options.voters, options.observers, options.drop, options.steps,
                          Path(options.traces), trace=not options.no_trace, progress=report if long_run else None,
                          progress_every=every)
    for line in summary_lines(result):
        report(line)
    return result.exit_code


def _run_manifest(options: argparse.Namespace, changes: bool = False) -> dict:
    """The manifest of `--run DIR`, else of the run a command means when it names none (RunDirectory.newest)."""
    from kafka_edu.cluster_runner.run_directory import RunDirectory
    if getattr(options, "run", None):
        return RunDirectory.open(Path(options.run)).read_manifest()
    return RunDirectory.newest(Path(options.traces), changes=changes).read_manifest()


def _bootstrap_servers(options: argparse.Namespace, changes: bool = False) -> str | None:
    """`--bootstrap-server`, else the run's brokers: a ZooKeeper-mode run's or a KRaft run's alike (the manifest's
    `bootstrap_servers`). None, and the user told why, when the run has no broker to ask."""
    if options.bootstrap_server:
        return options.bootstrap_server
    manifest = _run_manifest(options, changes)
    if not manifest.get("bootstrap_servers"):
        console.print(f"[red]run {manifest.get('run_id', '?')} has no brokers to ask (a KRaft run of controllers "
                      f"only: start one with `kafka-edu cluster up --mode kraft --brokers N`), and no "
                      f"--bootstrap-server was given[/]", soft_wrap=True)
        return None
    return manifest["bootstrap_servers"]


def consumer_groups(options: argparse.Namespace) -> int:
    """kafka-consumer-groups.sh: `--list`, or `--describe GROUP`; the bootstrap defaults to the run's brokers."""
    from kafka_edu.v1_0_2.core.admin.consumer_group_command import run
    bootstrap = _bootstrap_servers(options)
    if bootstrap is None:
        return 2
    # Piped output keeps whole rows (rich would otherwise fit the table into 80 columns)
    out = console if console.is_terminal else Console(width=200)
    return run(bootstrap, options.list, options.describe, out)


def topics(options: argparse.Namespace) -> int:
    """kafka-topics.sh: `--create TOPIC --partitions P --replication-factor R`, `--describe [TOPIC]`, `--delete`,
    `--alter --topic T --partitions N [--replica-assignment 0:1,1:2]`."""
    from kafka_edu.v1_0_2.core.admin.topic_command import run
    action = next(a for a in ("create", "delete", "list", "describe", "alter") if getattr(options, a))
    if action in ("create", "delete", "alter") and not options.topic:
        console.print(f"--{action} needs --topic")
        return 2
    if action == "alter" and options.partitions is None:
        console.print("--alter needs --partitions (the new total)")
        return 2
    bootstrap = _bootstrap_servers(options, changes=action in ("create", "delete", "alter"))
    if bootstrap is None:
        return 2
    out = console if console.is_terminal else Console(width=200)
    partitions = 1 if options.partitions is None else options.partitions
    return run(bootstrap, action, options.topic, partitions, options.replication_factor, options.config, out,
               options.replica_assignment)


def configs(options: argparse.Namespace) -> int:
    """kafka-configs.sh: `--entity-type T (--entity-name N | --entity-default) --describe | --alter --add-config
    k=v,k2=[a,b] --delete-config k3`, written to ZooKeeper as 1.0.2's tool does."""
    from kafka_edu.v1_0_2.core.admin.config_command import run
    zookeeper_connect = _zookeeper_connect(options)
    if zookeeper_connect is None:
        return 2
    action = "alter" if options.alter else "describe" if options.describe else None
    try:
        run(zookeeper_connect, action, options.entity_type, options.entity_name, options.entity_default,
            options.add_config, options.delete_config)
    except Exception as e:
        _error_line("Error while executing config command ", e)
        return 1
    return 0


def configs_kraft(args: list[str]) -> int | None:
    """part A (issue 24): Kafka 3.9's kafka-configs.sh (--bootstrap-server; the default on a KRaft run, whose brokers
    it then asks). None when the arguments are for 1.0.2's tool (--zookeeper, or a ZooKeeper-mode run)."""
    from kafka_edu.v3_9.core.admin.config_command import main as config_command_main
    ours = argparse.ArgumentParser(add_help=False)
    ours.add_argument("--run")
    ours.add_argument("--traces", default="traces")
    run_options, args = ours.parse_known_args(args)
    given = {a.split("=", 1)[0] for a in args}
    if "--bootstrap-server" not in given:
        if "--zookeeper" in given or "-h" in given or "--help" in given:
            return None
        options = argparse.Namespace(bootstrap_server=None, run=run_options.run, traces=run_options.traces)
        try:
            if _run_manifest(options, changes=True).get("mode") != "kraft":
                return None
        except Exception:
            return None  # no run to default to: 1.0.2's tool says what is missing
        bootstrap = _bootstrap_servers(options, changes=True)
        if bootstrap is None:
            return 2
        args = [*args, "--bootstrap-server", bootstrap]
    return config_command_main(args)


def delete_records(options: argparse.Namespace) -> int:
    """kafka-delete-records.sh: `--offset-json-file F`; the bootstrap defaults to the run's brokers."""
    from kafka_edu.v1_0_2.core.admin.delete_records_command import execute
    bootstrap = _bootstrap_servers(options, changes=True)
    if bootstrap is None:
        return 2
    try:
        return execute(bootstrap, options.offset_json_file)
    except Exception as e:
        _error_line("Error while deleting records: ", e)
        return 1


def log_dirs(options: argparse.Namespace) -> int:
    """kafka-log-dirs.sh: `--describe [--broker-list 1,2] [--topic-list t1,t2]`."""
    from kafka_edu.v1_0_2.core.admin.log_dirs_command import describe
    bootstrap = _bootstrap_servers(options)
    if bootstrap is None:
        return 2
    try:
        return describe(bootstrap, options.broker_list, options.topic_list)
    except Exception as e:
        _error_line("Error while describing log directories: ", e)
        return 1


# What replaced each ZooKeeper-bound tool in Kafka 3.9, where it needs a broker API instead of ZooKeeper.
_KRAFT_SUCCESSORS = {
    "preferred-replica-election": "kafka-leader-election.sh (here: `kafka-edu leader-election --election-type "
                                  "PREFERRED`), which sends ElectLeaders to a broker (forwarded to the active "
                                  "controller)",
    "reassign-partitions": "kafka-reassign-partitions.sh --bootstrap-server, which sends AlterPartitionReassignments "
                           "to a broker (forwarded to the active controller)",
    "configs": "kafka-configs.sh --bootstrap-server, which sends IncrementalAlterConfigs to a broker (forwarded to "
               "the active controller)",
}


def _zookeeper_connect(options: argparse.Namespace) -> str | None:
    """`--zookeeper`, else the run's ZooKeeper (the admin tools below talk to ZooKeeper, as in 1.0.2). None, and the
    user told why, on a KRaft run: it has no ZooKeeper."""
    if options.zookeeper:
        return options.zookeeper
    manifest = _run_manifest(options, changes=True)
    if manifest.get("mode") == "kraft":
        console.print(f"[red]kafka-edu {options.command}: run {manifest.get('run_id', '?')} is a KRaft cluster, "
                      f"which has no ZooKeeper, and this tool (Kafka 1.0.2's) writes its request to ZooKeeper. Kafka "
                      f"3.9 does it with {_KRAFT_SUCCESSORS[options.command]}"
                      + (".[/]" if options.command == "preferred-replica-election"  # part C: ElectLeaders is served
                         else "; the KRaft controller of this port does not implement that API yet.[/]"),
                      soft_wrap=True)
        return None
    return manifest["zookeeper_connect"]


def _error_line(prefix: str, e: BaseException) -> None:
    """One red line naming the Kafka exception and what caused it; messages are escaped, they hold brackets."""
    from rich.markup import escape
    text = f"{type(e).__name__}: {e}"
    cause = e.__cause__
    while cause is not None:
        text += f" (caused by {type(cause).__name__}: {cause})"
        cause = cause.__cause__
    console.print(f"[red]{escape(prefix + text)}[/]", soft_wrap=True)


def preferred_replica_election(options: argparse.Namespace) -> int:
    """kafka-preferred-replica-election.sh: `[--path-to-json-file F]`, all partitions by default."""
    from kafka_edu.v1_0_2.core.admin.preferred_replica_leader_election_command import run
    zookeeper_connect = _zookeeper_connect(options)
    if zookeeper_connect is None:
        return 2
    try:
        run(zookeeper_connect, options.path_to_json_file)
    except Exception as e:
        _error_line("Failed to start preferred replica election: ", e)
        return 1
    return 0


def leader_election(args: list[str]) -> int:
    """Kafka 3.9's kafka-leader-election.sh; with no --bootstrap-server, the brokers of `--run DIR` or of the newest
    run."""
    from kafka_edu.v3_9.tools.tools.leader_election_command import main as leader_election_main
    ours = argparse.ArgumentParser(add_help=False)
    ours.add_argument("--run")
    ours.add_argument("--traces", default="traces")
    run_options, args = ours.parse_known_args(args)
    if "-h" not in args and "--help" not in args and \
            "--bootstrap-server" not in {a.split("=", 1)[0] for a in args}:
        bootstrap = _bootstrap_servers(argparse.Namespace(bootstrap_server=None, run=run_options.run,
                                                          traces=run_options.traces))
        if bootstrap is None:
            return 2
        args = ["--bootstrap-server", bootstrap, *args]
    return leader_election_main(args)


def features(args: list[str]) -> int:
    """part A (issue 24): Kafka 3.9's kafka-features.sh; with no --bootstrap-server, the brokers of `--run DIR` or
    of the newest run."""
    from kafka_edu.v3_9.tools.tools.feature_command import main as feature_command_main
    ours = argparse.ArgumentParser(add_help=False)
    ours.add_argument("--run")
    ours.add_argument("--traces", default="traces")
    run_options, args = ours.parse_known_args(args)
    if "-h" not in args and "--help" not in args and \
            "--bootstrap-server" not in {a.split("=", 1)[0] for a in args}:
        bootstrap = _bootstrap_servers(argparse.Namespace(bootstrap_server=None, run=run_options.run,
                                                          traces=run_options.traces))
        if bootstrap is None:
            return 2
        args = ["--bootstrap-server", bootstrap, *args]
    return feature_command_main(args)


def _reassign_partitions_kraft(options: argparse.Namespace, bootstrap: str) -> int:
    """Kafka 3.9's kafka-reassign-partitions.sh --bootstrap-server: AlterPartitionReassignments and
    ListPartitionReassignments to a broker, which forwards them to the active controller."""
    from kafka_edu.v3_9.tools.tools.reassign.reassign_partitions_command import main as reassign_main
    args = ["--bootstrap-server", bootstrap]
    for flag in ("generate", "execute", "verify", "cancel", "list", "additional", "disable_rack_aware",
                 "preserve_throttles"):
        if getattr(options, flag):
            args.append("--" + flag.replace("_", "-"))
    for value in ("reassignment_json_file", "topics_to_move_json_file", "broker_list", "timeout"):
        if getattr(options, value) is not None:
            args += ["--" + value.replace("_", "-"), str(getattr(options, value))]
    return reassign_main(args)


def reassign_partitions(options: argparse.Namespace) -> int:
    """kafka-reassign-partitions.sh: `--reassignment-json-file F --execute|--verify`, or `--generate
    --topics-to-move-json-file F --broker-list 1,2,3`; with --bootstrap-server (or on a KRaft run), Kafka 3.9's tool,
    which also has --cancel and --list. With --zookeeper (or on a ZooKeeper-mode run), Kafka 1.0.2's."""
    from rich.markup import escape

    from kafka_edu.v1_0_2.core.admin.reassign_partitions_command import run, validate_and_parse_args
    if options.bootstrap_server:
        return _reassign_partitions_kraft(options, options.bootstrap_server)
    if not options.zookeeper and _run_manifest(options, changes=True).get("mode") == "kraft":
        bootstrap = _bootstrap_servers(options, changes=True)
        return 2 if bootstrap is None else _reassign_partitions_kraft(options, bootstrap)
    if options.cancel or options.list or options.additional:
        console.print("[red]--cancel, --list and --additional are Kafka 3.9's (--bootstrap-server); 1.0.2's tool "
                      "(--zookeeper) has none of them[/]", soft_wrap=True)
        return 2
    usage_error = validate_and_parse_args(options)
    if usage_error is not None:
        console.print(f"[red]{escape(usage_error)}[/]", soft_wrap=True)
        return 2
    action = next(a for a in ("generate", "execute", "verify") if getattr(options, a))
    zookeeper_connect = _zookeeper_connect(options)
    if zookeeper_connect is None:
        return 2
    try:
        return run(zookeeper_connect, action, options.reassignment_json_file,
                   options.topics_to_move_json_file, options.broker_list)
    except Exception as e:
        _error_line("Partitions reassignment failed due to ", e)
        return 1


def acls(args: list[str]) -> int:
    """kafka-acls.sh (Kafka 1.0.2's options): ACLs added, removed or listed through the authorizer, in ZooKeeper.
    Without zookeeper.connect in --authorizer-properties, the ZooKeeper of --run DIR or of the newest run."""
    import traceback

    # part B (issue 24): --bootstrap-server is Kafka 3.9's admin-client path (a KRaft cluster's ACLs, in its
    # metadata log); without it, 1.0.2's authorizer path (the ACLs in ZooKeeper)
    if any(a == "--bootstrap-server" or a.startswith("--bootstrap-server=") for a in args):
        from kafka_edu.v3_9.core.admin import acl_command as acl_command_39
        return acl_command_39.main(args)
    from kafka_edu.v1_0_2.core.admin import acl_command
    parser = acl_command.options_parser()
    properties = next(action for action in parser._actions if action.dest == "authorizer_properties")
    properties.help += " (default: the run's ZooKeeper)"
    parser.description = (f"{parser.description} ZooKeeper mode: the ACLs in ZooKeeper, through the authorizer "
                          "(--authorizer-properties zookeeper.connect=...). KRaft: --bootstrap-server B, the ACLs of a "
                          "KRaft cluster through a broker (Kafka 3.9).")
    parser.add_argument("--bootstrap-server", metavar="B",
                        help="a KRaft cluster's brokers: Kafka 3.9's admin-client path, with 3.9's options "
                             "(kafka-edu acls --bootstrap-server B --help); without it, ZooKeeper mode (1.0.2)")
    parser.add_argument("--run", help="the run whose ZooKeeper to use (default: the newest)")
    parser.add_argument("--traces", default="traces")
    opts = parser.parse_args(args)  # --help and unknown options; the tool parses the rest again
    ours = argparse.ArgumentParser(add_help=False)
    ours.add_argument("--run")
    ours.add_argument("--traces")
    tool_args = ours.parse_known_args(args)[1]
    tool_usage = acl_command.options_parser().format_usage()

    def out(line: str) -> None:  # after a usage error, the usage names --run and --traces too
        print(parser.format_usage() if line == tool_usage else line)

    try:  # the tool's own usage errors come first, as when it read the run itself
        acl_command.check_args(opts)
        props = acl_command.authorizer_properties(opts)
    except acl_command.UsageError:
        return acl_command.main(tool_args, out)
    if "zookeeper.connect" in props:
        return acl_command.main(tool_args, out)
    try:
        manifest = _run_manifest(opts, changes=True)
    except Exception as e:  # no run, or several live ones: as the tool reports an error
        print(f"Error while executing ACL command: {e}")
        print("".join(traceback.format_exception(e)))
        return 1
    if manifest.get("mode") == "kraft" or not manifest.get("zookeeper_connect"):
        print(f"Run {manifest.get('run_id', '?')} has no ZooKeeper to keep ACLs in: give --authorizer-properties "
              f"zookeeper.connect=HOST:PORT")
        print(parser.format_usage())
        return 1
    return acl_command.main(["--authorizer-properties", f"zookeeper.connect={manifest['zookeeper_connect']}",
                             *tool_args], out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-edu", description="An instrumented Python port of the Kafka broker.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("server-start", help="start one broker: server-start server.properties [--override k=v]",
                   add_help=False)
    sub.add_parser("metadata-quorum", add_help=False,
                   help="the KRaft quorum: [--bootstrap-controller H:P] describe --status | --replication "
                        "(kafka-metadata-quorum.sh)")
    sub.add_parser("storage", help="format KRaft storage directories (kafka-storage.sh): format --config F "
                                   "--cluster-id ID | random-uuid | info --config F", add_help=False)
    sub.add_parser("dump-log", help="print log segments and snapshots (kafka-dump-log.sh): "
                                    "[--cluster-metadata-decoder] FILE...", add_help=False)
    sub.add_parser("acls", add_help=False, help="add, remove or list ACLs (kafka-acls.sh): --add|--remove|--list "
                                                "--allow-principal User:alice --operation Read --topic T ...; "
                                                "--bootstrap-server B: a KRaft cluster's (Kafka 3.9), "
                                                "--authorizer-properties zookeeper.connect=Z: ZooKeeper's (1.0.2)")
    sub.add_parser("leader-election", add_help=False,
                   help="elect partition leaders on a KRaft cluster (Kafka 3.9's kafka-leader-election.sh): "
                        "[--bootstrap-server B] --election-type PREFERRED|UNCLEAN --topic T --partition P | "
                        "--all-topic-partitions | --path-to-json-file F")
    sub.add_parser("features", add_help=False,  # part A
                   help="describe, upgrade, downgrade or disable a KRaft cluster's feature levels (Kafka 3.9's "
                        "kafka-features.sh): [--bootstrap-server B] describe | upgrade --metadata 3.9-IV0 | "
                        "downgrade --feature f=level [--unsafe] | disable --feature f [--dry-run]")
    zk = sub.add_parser("zookeeper-start", help="run a real ZooKeeper 3.8 in the foreground")
    zk.add_argument("--data-dir", default="/tmp/kafka-edu-zookeeper")
    zk.add_argument("--port", type=int, default=2181)
    cl = sub.add_parser("cluster", help="a traced cluster of broker processes: up | down | status | "
                                        "start|stop|kill|pause|resume ID | add-controller | remove-controller ID | "
                                        "partition ... | heal [CUT]",
                        description="Network partitions (docs/network-faults.md) need a run started with "
                                    "`cluster up --netns` (as root). Nodes are named `zk` and by node id. "
                                    "`cluster partition` takes one of --isolate N, --from-zookeeper N, "
                                    "--from-quorum N, --split A,B C,D or --one-way FROM TO and prints the cut's "
                                    "number; `cluster heal CUT` heals that cut, `cluster heal` every cut.")
    cl.add_argument("verb", choices=["up", "down", "status", "start", "stop", "kill", "pause", "resume",
                                     "add-controller", "remove-controller", "partition", "heal"])
    cl.add_argument("id", nargs="?", type=int, help="a node id (start, stop, kill, pause, resume, "
                                                    "remove-controller), or the cut to heal (heal)")
    cl.add_argument("--netns", action="store_true",
                    help="up, as root: each process in a network namespace of its own, on its own address on a "
                         "bridge of the run, so that `cluster partition` can cut links (needs ip and nft)")
    cl.add_argument("--isolate", metavar="N", help="partition: cut node N (an id, or zk) from every other node, "
                                                   "both ways; clients on the host still reach it")
    cl.add_argument("--from-zookeeper", metavar="N", help="partition: cut node N from ZooKeeper only, both ways")
    cl.add_argument("--from-quorum", metavar="N", help="partition, KRaft: cut node N from the other controllers "
                                                       "(all of them, for a broker) only, both ways")
    cl.add_argument("--split", nargs=2, metavar=("A,B", "C,D"), help="partition: every node of the first side cut "
                                                                    "from every node of the second, both ways")
    cl.add_argument("--one-way", nargs=2, metavar=("FROM", "TO"), help="partition: packets from FROM's nodes to "
                                                                      "TO's are dropped, the other way they pass "
                                                                      "(each side one node or a comma list)")
    cl.add_argument("--brokers", type=int, default=None,
                    help="brokers (default 3; with --combined, brokers besides the combined nodes, default 0)")
    cl.add_argument("--mode", choices=["zk", "kraft"], default="zk",
                    help="zk: ZooKeeper and Kafka 1.0.2 brokers; kraft: Kafka 3.9 controllers and brokers")
    cl.add_argument("--controllers", type=int, default=3, help="KRaft controllers (voters), --mode kraft")
    cl.add_argument("--combined", type=int, metavar="N", help="--mode kraft: N nodes that are each controller and "
                                                               "broker (process.roles=broker,controller)")
    cl.add_argument("--dynamic-quorum", action="store_true",
                    help="--mode kraft: a KIP-853 quorum whose voters live in the metadata log (formatted with "
                         "--initial-controllers, found through controller.quorum.bootstrap.servers), so that "
                         "add-controller and remove-controller ID can grow and shrink it")
    cl.add_argument("--zookeeper", help="use this ZooKeeper instead of starting one")
    cl.add_argument("--sasl", action="store_true", help="ZooKeeper mode: a SASL_PLAINTEXT listener on each broker "
                                                        "too (docs/security.md: mechanisms, JAAS file by --override)")
    cl.add_argument("--log-dirs", type=int, default=1, metavar="N", help="log directories per broker, ZooKeeper mode "
                                                                      "(logs, logs-1, ...)")
    cl.add_argument("--override", action="append", default=[], metavar="k=v", help="a broker property for all")
    cl.add_argument("--run", help="run directory (default: the live run started last; stop, kill and the other "
                                  "verbs that change a cluster refuse to guess when several runs are live)")
    cl.add_argument("--traces", default="traces")
    dm = sub.add_parser("demo", help="start a traced cluster, show its startup, keep it running until Ctrl-C")
    dm.add_argument("--brokers", type=int, default=3)
    dm.add_argument("--traces", default="traces")
    tu = sub.add_parser("tui", help="the live terminal UI: on a new cluster, or on --run traces/<run-id>")
    tu.add_argument("--run", help="attach to this run directory (running or finished) instead of starting a cluster")
    tu.add_argument("--lesson", metavar="NAME", help="run a guided lesson (kafka-edu lesson list) in the TUI, on its "
                                                     "own cluster: its brokers and overrides")
    tu.add_argument("--brokers", type=int, default=None, help="default: 3, or the lesson's (in kraft mode too; 0: "
                                                              "the controllers alone)")
    tu.add_argument("--mode", choices=["zk", "kraft"], default="zk",
                    help="zk: ZooKeeper and Kafka 1.0.2 brokers; kraft: a Kafka 3.9 controller quorum and brokers")
    tu.add_argument("--controllers", type=int, default=3, help="KRaft controllers (voters), --mode kraft")
    tu.add_argument("--zookeeper", help="use this ZooKeeper instead of starting one")
    tu.add_argument("--override", action="append", default=[], metavar="k=v", help="a broker property for all")
    tu.add_argument("--traces", default="traces")
    rs = sub.add_parser(
        "raft-sim", help="Kafka's raft event simulation: a KRaft quorum in this process on a simulated clock, its "
                         "invariants checked after every step, its spans written as a run (traces/<run-id>/)",
        description="Runs Kafka 3.9's RaftEventSimulationTest machinery: --voters KafkaRaftClients (and --observers) "
                    "over in-memory logs and a simulated network, all on one simulated clock driven by one Random "
                    "seeded with --seed, so a seed replays the same run. Each node polls every 3-7 ms, the network "
                    "delivers every 2 ms and loses each message with probability --drop (a lost request is retried "
                    "after the 3 s request timeout), and the leader appends the next value of a replicated counter "
                    "every 2-4 ms. After every step (one scheduled event) "
                    "the invariants are checked: MonotonicHighWatermark, MonotonicEpoch, "
                    "MajorityReachedHighWatermark, SingleLeader, SnapshotAtLogStart, LeaderNeverLoadSnapshot; "
                    "every --progress-every steps and at the end, ConsistentCommittedData. Prints a summary (leader "
                    "changes, committed offset, each check's verdict); exit code 1 on a violation, naming the step "
                    "and the invariant. Spans go to traces/<run-id>/controller-<id>.jsonl (observers: "
                    "broker-<id>), timed on the simulated clock: kafka-edu tui --run traces/<run-id> reads them. "
                    "Nodes do not crash or restart here; the test cases that kill and partition nodes are in "
                    "tests/kafka_tests/v3_9/raft/raft/raft_event_simulation_test.py.")
    rs.add_argument("--seed", type=int, default=0, help="the simulation's random seed (default 0)")
    rs.add_argument("--voters", type=int, default=3, help="voters, node ids 1..N (default 3)")
    rs.add_argument("--observers", type=int, default=0, help="observers after the voters (default 0)")
    rs.add_argument("--drop", type=float, default=0.0,
                    help="probability that the network loses a message, request or response (default 0)")
    rs.add_argument("--steps", type=int, default=10_000, help="scheduled events to run (default 10000)")
    rs.add_argument("--progress-every", type=int, default=0, metavar="N",
                    help="compare the nodes' committed data, and report progress on a long run, every N steps "
                         "(default: a tenth of the run, at least 1000)")
    rs.add_argument("--traces", default="traces", help="where the run directory goes (default traces/)")
    rs.add_argument("--no-trace", action="store_true", help="write no spans and no run directory")
    cg = sub.add_parser("consumer-groups", help="list or describe consumer groups (kafka-consumer-groups.sh)")
    group = cg.add_mutually_exclusive_group(required=True)
    group.add_argument("--list", action="store_true")
    group.add_argument("--describe", metavar="GROUP")
    cg.add_argument("--bootstrap-server", help="default: the run's brokers (ZooKeeper or KRaft mode)")
    cg.add_argument("--run", help="the run directory to act on (default: the live run started last)")
    cg.add_argument("--traces", default="traces")
    tp = sub.add_parser("topics", help="create, describe, list, delete or add partitions to topics (kafka-topics.sh)")
    action = tp.add_mutually_exclusive_group(required=True)
    for name in ("create", "describe", "delete", "list", "alter"):
        action.add_argument(f"--{name}", action="store_true")
    tp.add_argument("--topic")
    tp.add_argument("--partitions", type=int, default=None, help="--create: the count (default 1); --alter: the new "
                                                                 "total, more than the topic has")
    tp.add_argument("--replica-assignment", metavar="0:1,1:2", help="--alter: the new partitions' brokers")
    tp.add_argument("--replication-factor", type=int, default=1)
    tp.add_argument("--config", action="append", default=[], metavar="k=v")
    tp.add_argument("--bootstrap-server", help="default: the run's brokers (ZooKeeper or KRaft mode)")
    tp.add_argument("--run", help="the run directory to act on (default: the live run started last)")
    tp.add_argument("--traces", default="traces")
    cf = sub.add_parser("configs", help="describe or change topic, broker, client, user and ip configs, quotas and "
                                        "SCRAM credentials (kafka-configs.sh)",
                        description="Two tools in one: with --bootstrap-server (the default on a KRaft run), Kafka "
                                    "3.9's, through the brokers (DescribeConfigs, IncrementalAlterConfigs, "
                                    "AlterConfigs, Describe/AlterClientQuotas, Describe/AlterUserScramCredentials; "
                                    "entity types topics, brokers, broker-loggers, users, clients, ips; --all; "
                                    "`--entity-type users --entity-name U --entity-type clients --entity-name C`); "
                                    "with --zookeeper (the default on a ZooKeeper-mode run), Kafka 1.0.2's, which "
                                    "writes the configs to ZooKeeper.")
    cf_action = cf.add_mutually_exclusive_group(required=True)
    cf_action.add_argument("--describe", action="store_true")
    cf_action.add_argument("--alter", action="store_true")
    cf.add_argument("--entity-type", choices=["topics", "clients", "users", "brokers"], required=True)
    cf_name = cf.add_mutually_exclusive_group()
    cf_name.add_argument("--entity-name")
    cf_name.add_argument("--entity-default", action="store_true", help="the default of every client or user")
    cf.add_argument("--add-config", metavar="k1=v1,k2=[v1,v2]")
    cf.add_argument("--delete-config", action="append", default=[], metavar="k1,k2")
    cf.add_argument("--zookeeper", help="Kafka 1.0.2's tool through this ZooKeeper (default on a ZooKeeper-mode "
                                        "run: the run's)")
    cf.add_argument("--bootstrap-server", help="Kafka 3.9's tool through these brokers (default on a KRaft run: "
                                               "the run's brokers); see its own --help")
    cf.add_argument("--run", help="the run directory to act on (default: the live run started last)")
    cf.add_argument("--traces", default="traces")
    dr = sub.add_parser("delete-records", help="delete a partition's records below an offset "
                                               "(kafka-delete-records.sh)")
    dr.add_argument("--offset-json-file", required=True,
                    help='{"partitions": [{"topic": "foo", "partition": 0, "offset": 5}], "version": 1}')
    dr.add_argument("--bootstrap-server", help="default: the run's brokers")
    dr.add_argument("--run", help="the run directory to act on (default: the live run started last)")
    dr.add_argument("--traces", default="traces")
    ld = sub.add_parser("log-dirs", help="each broker's log directories and the partitions in them "
                                         "(kafka-log-dirs.sh)")
    ld.add_argument("--describe", action="store_true", required=True)
    ld.add_argument("--broker-list", metavar="0,1", help="default: every broker")
    ld.add_argument("--topic-list", default="", metavar="t1,t2", help="default: every topic")
    ld.add_argument("--bootstrap-server", help="default: the run's brokers")
    ld.add_argument("--run", help="the run directory to act on (default: the live run started last)")
    ld.add_argument("--traces", default="traces")
    pe = sub.add_parser("preferred-replica-election",
                        help="move leadership back to the preferred replicas (kafka-preferred-replica-election.sh)")
    pe.add_argument("--path-to-json-file", help='{"partitions": [{"topic": "foo", "partition": 1}]}; default: all')
    pe.add_argument("--zookeeper", help="default: the newest run's ZooKeeper")
    pe.add_argument("--run", help="the run directory to act on (default: the live run started last)")
    pe.add_argument("--traces", default="traces")
    rp = sub.add_parser("reassign-partitions", help="move partitions between brokers (kafka-reassign-partitions.sh)",
                        description="Two tools in one: with --bootstrap-server (the default on a KRaft run), Kafka "
                                    "3.9's, through AlterPartitionReassignments and ListPartitionReassignments "
                                    "(--generate, --execute [--additional], --verify, --cancel, --list); with "
                                    "--zookeeper (the default on a ZooKeeper-mode run), Kafka 1.0.2's, which writes "
                                    "/admin/reassign_partitions (--generate, --execute, --verify).")
    rp_action = rp.add_mutually_exclusive_group(required=True)
    for name in ("generate", "execute", "verify"):
        rp_action.add_argument(f"--{name}", action="store_true")
    rp_action.add_argument("--cancel", action="store_true", help="cancel an active reassignment (3.9)")
    rp_action.add_argument("--list", action="store_true", help="list the active reassignments (3.9)")
    rp.add_argument("--reassignment-json-file",
                    help='{"version": 1, "partitions": [{"topic": "foo", "partition": 1, "replicas": [1, 2]}]}; '
                    'with 3.9\'s tool a partition may also name each replica\'s log directory, "log_dirs": '
                    '["any", "/data/b"]')
    rp.add_argument("--topics-to-move-json-file", help='{"version": 1, "topics": [{"topic": "foo"}]}')
    rp.add_argument("--broker-list", help='the brokers to move the topics to, "0,1,2" (with --generate)')
    rp.add_argument("--additional", action="store_true",
                    help="execute in addition to the reassignments under way (3.9)")
    rp.add_argument("--disable-rack-aware", action="store_true", help="--generate without racks (3.9)")
    rp.add_argument("--preserve-throttles", action="store_true", help="accepted (3.9); the port sets no throttles")
    rp.add_argument("--timeout", type=int, help="with --execute or --cancel (3.9): how long, in ms, to keep asking "
                    "brokers to start the log-directory moves of the JSON (default 10000)")
    rp.add_argument("--bootstrap-server", help="Kafka 3.9's tool through these brokers (default on a KRaft run: "
                                               "the run's brokers)")
    rp.add_argument("--zookeeper", help="Kafka 1.0.2's tool through this ZooKeeper (default on a ZooKeeper-mode "
                                        "run: the run's)")
    rp.add_argument("--run", help="the run directory to act on (default: the live run started last)")
    rp.add_argument("--traces", default="traces")
    mining_cli.add_parser(sub)
    lessons_cli.add_parser(sub)
    nemesis_cli.add_parser(sub)
    gallery_cli.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from kafka_edu.cluster_runner.run_directory import AmbiguousRunError
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "server-start":
        return server_start(argv[1:])  # Kafka's own argument grammar, parsed by Kafka.getPropsFromArgs
    if argv and argv[0] in ("storage", "dump-log"):
        return kafka_tool(argv[0], argv[1:])
    if argv and argv[0] == "metadata-quorum":
        return metadata_quorum(argv[1:])
    if argv and argv[0] == "acls":
        return acls(argv[1:])
    if argv and argv[0] == "leader-election":
        return leader_election(argv[1:])
    if argv and argv[0] == "features":  # part A
        return features(argv[1:])
    if argv and argv[0] == "configs":  # part A: 3.9's tool through the brokers, or 1.0.2's below
        status = configs_kraft(argv[1:])
        if status is not None:
            return status
    options = build_parser().parse_args(argv)
    try:
        if options.command == "zookeeper-start":
            return zookeeper_start(options)
        if options.command == "cluster":
            return cluster(options)
        if options.command == "consumer-groups":
            return consumer_groups(options)
        if options.command == "topics":
            return topics(options)
        if options.command == "tui":
            return tui(options)
        if options.command == "preferred-replica-election":
            return preferred_replica_election(options)
        if options.command == "reassign-partitions":
            return reassign_partitions(options)
        if options.command == "configs":
            return configs(options)
        if options.command == "delete-records":
            return delete_records(options)
        if options.command == "log-dirs":
            return log_dirs(options)
        if options.command == "raft-sim":
            return raft_sim(options)
        if options.command == "mine":
            return mining_cli.run(options)
        if options.command == "lesson":
            return lessons_cli.run(options)
        if options.command == "nemesis":
            return nemesis_cli.run(options)
        if options.command == "gallery":
            return gallery_cli.run(options)
        return demo(options)
    except AmbiguousRunError as e:
        console.print(f"[red]kafka-edu {options.command}: {e}[/]", soft_wrap=True)
        return 2
    except Exception as e:
        console.print(f"[red]kafka-edu: {type(e).__name__}: {e}[/]")
        return 1


if __name__ == "__main__":
    sys.exit(main())
