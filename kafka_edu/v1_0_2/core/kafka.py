"""Port of core/src/main/scala/kafka/Kafka.scala (Kafka 1.0.2): `kafka-server-start.sh` lands here."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from kafka_edu.tracing import event, span, step
from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v1_0_2.core.server.kafka_server_startable import KafkaServerStartable

log = logging.getLogger("kafka.Kafka")


@step("LC.main.1")
def get_props_from_args(args: list[str]) -> dict[str, str]:
    parser = argparse.ArgumentParser(prog="kafka-edu server-start", add_help=False)
    parser.add_argument("server_properties")
    parser.add_argument("--override", action="append", default=[], metavar="property=value")
    options, non_option = parser.parse_known_args(args)
    if non_option:
        raise ConfigException("Found non argument parameters: " + ",".join(non_option))
    try:
        props = load_props(Path(options.server_properties))
    except OSError as e:
        raise ConfigException(f"Cannot read {options.server_properties}: {e.strerror}") from e
    props.update(parse_key_value_args(options.override))
    return props


def parse_key_value_args(args: list[str]) -> dict[str, str]:
    """CommandLineUtils.parseKeyValueArgs: `k=v` pairs; a pair without `=` is an error."""
    pairs = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep:
            raise ConfigException(f"Invalid command line properties: {arg}")
        pairs[key.strip()] = value.strip()
    return pairs


def is_kraft(props: dict[str, str]) -> bool:
    """KafkaConfig.requiresZookeeper in reverse (3.9): a node with `process.roles` runs on the KRaft quorum."""
    return bool(props.get("process.roles", "").strip())


def build_server(server_props: dict[str, str]) -> Any:
    """Kafka.buildServer (3.9): a ZooKeeper-mode config gives the 1.0.2 broker as before; `process.roles` gives a
    KafkaRaftServer."""
    if not is_kraft(server_props):
        return KafkaServerStartable.from_props(server_props)
    with step("KR.build"):
        from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
        from kafka_edu.v3_9.core.server.kafka_raft_server import KafkaRaftServer
        config = KafkaConfig.from_props(server_props)
        return KafkaRaftServer(config)


class ShutdownHook:
    """The JVM shutdown hook: SIGTERM/SIGINT start a `kafka-shutdown-hook` thread that runs `shutdown()`,
    and the process does not exit before that thread has finished (the JVM waits for its hooks)."""

    def __init__(self, server: Any) -> None:
        self.thread = threading.Thread(target=server.shutdown, name="kafka-shutdown-hook")
        self.requested = False

    def register(self) -> None:
        signal.signal(signal.SIGTERM, self.on_signal)
        signal.signal(signal.SIGINT, self.on_signal)
        event("LC.main.3")

    def on_signal(self, signum: int, _frame: object) -> None:
        log.info("Terminating process due to signal %s", signal.Signals(signum).name)
        if not self.requested:  # set first: a second signal may run this handler before start() returns
            self.requested = True
            self.thread.start()

    def join(self) -> None:
        if self.thread.ident is not None:
            self.thread.join()


def main(args: list[str]) -> int:
    """Kafka.main: parse, build, hook, start, wait. Exit 0 after a clean shutdown, 1 after a fatal error."""
    try:
        # The span covers main up to startup; startup and the wait are traces of their own, so a kill -9 loses
        # none of these spans' parents.
        with span("Kafka.main", root=True):
            server_props = get_props_from_args(args)
            server = build_server(server_props)
            shutdown_hook = ShutdownHook(server)
            shutdown_hook.register()
        server.startup()
        server.await_shutdown()
        shutdown_hook.join()
    except SystemExit as e:  # a failed startup, already shut down
        _report_fatal(e.__cause__ or e)
        return 1
    except Exception as e:
        _report_fatal(e)
        return 1
    return 0


def _report_fatal(e: BaseException) -> None:
    """One line naming Kafka's exception and the problem, on stderr and in the log."""
    line = f"{type(e).__name__}: {e}".splitlines()[0]
    log.critical(line)
    print(f"kafka-edu: {line}", file=sys.stderr)
