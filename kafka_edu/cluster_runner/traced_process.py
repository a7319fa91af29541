"""Our own code, not a Kafka port: a Kafka command run as a process of a run (shared/TRACING.md).

What `kafka-server-start.sh` and the JVM give Kafka.main, and what a run needs around it: the logging setup, the
run directory the process belongs to (the runner's, from the environment, or a new one), the process's tracing under
its `service.instance.id`, and the exit record the runner reads. `kafka-edu server-start` runs Kafka.main in it; a
`kafka-edu storage format` that the runner starts writes its spans into the runner's run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kafka_edu.cluster_runner.run_directory import RUN_DIR_ENV, RunDirectory
from kafka_edu.tracing import setup_tracing
from kafka_edu.tracing.provider import Tracing
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v1_0_2.core.utils.kafka_logging import configure_logging

# A thread that gave up the GIL for a syscall (a socket send, a log write, a CRC) waits for it until the thread
# holding it yields, by default up to 5 ms later: with network, handler and span-writer threads busy that wait was
# most of a produce request's local time. A shorter interval keeps the broker's threads taking turns.
SWITCH_INTERVAL_S = 0.0005


def server_start(args: list[str]) -> int:
    """Kafka.main inside a traced process of its run; the exit record says how it ended."""
    from kafka_edu.v1_0_2.core import kafka  # the broker: only this command loads it
    configure_logging()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    run = RunDirectory.from_environment()
    instance_id = instance_id_for(args)
    tracing = setup_tracing(instance_id, run.run_id, "kraft" if kafka.is_kraft(_props_for_tracing(args)) else "zk",
                            run.path)
    exit_code = 0
    try:
        exit_code = kafka.main(args)
    finally:
        tracing.shutdown()
        run.write_exit_record(instance_id, exit_code, tracing.stats())
    return exit_code


def instance_id_for(args: list[str]) -> str:
    """The process's `service.instance.id`, known before the config is parsed: `broker-<id>` when an id is given,
    `controller-<node.id>` for a KRaft node with the controller role (a combined node is a voter first: its quorum
    is what the TUI and the runner read from its trace)."""
    from kafka_edu.v1_0_2.core.kafka import is_kraft
    props = _props_for_tracing(args)
    if is_kraft(props):
        node_id = props.get("node.id", "")
        roles = props.get("process.roles", "").replace(" ", "").split(",")
        role = "controller" if "controller" in roles else "broker"
        return f"{role}-{node_id}" if node_id.isdigit() else f"{role}-pid{os.getpid()}"
    broker_id = props.get("broker.id")
    if broker_id is None or not broker_id.isdigit():
        return f"broker-pid{os.getpid()}"  # the id comes from ZooKeeper or meta.properties at LC.startup.06
    return f"broker-{broker_id}"


def _props_for_tracing(args: list[str]) -> dict[str, str]:
    """The properties file and its overrides as far as they can be read before main parses them (which reports
    what is wrong with them)."""
    props: dict[str, str] = {}
    if args:
        try:
            props = load_props(Path(args[0]))
        except OSError:
            pass
    for i, arg in enumerate(args[:-1]):
        if arg == "--override" and "=" in args[i + 1]:
            key, _, value = args[i + 1].partition("=")
            props[key.strip()] = value.strip()
    return props


def storage(args: list[str]) -> int:
    """StorageTool.main; a `format` the runner started (a run directory in the environment) traces into that run,
    as `storage-<node id>`, and a format typed at a terminal traces nothing."""
    from kafka_edu.v3_9.core.tools import storage_tool
    tracing = _trace_format_into_run(args)
    try:
        return storage_tool.main(args)
    finally:
        if tracing is not None:
            tracing.shutdown()


def _trace_format_into_run(args: list[str]) -> Tracing | None:
    if RUN_DIR_ENV not in os.environ or not args or args[0] != "format":
        return None
    node = f"pid{os.getpid()}"
    for i, arg in enumerate(args[:-1]):
        if arg in ("--config", "-c"):
            try:
                node = load_props(Path(args[i + 1])).get("node.id", node)
            except OSError:
                pass
    run = RunDirectory.from_environment()
    return setup_tracing(f"storage-{node}", run.run_id, "kraft", run.path)
