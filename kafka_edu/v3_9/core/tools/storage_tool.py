"""Port of core/src/main/scala/kafka/tools/StorageTool.scala (Kafka 3.9): `kafka-storage.sh` info | format |
random-uuid, with KIP-853's --standalone, --initial-controllers and --no-initial-controllers, and --add-scram.

3.9.0 parses --feature but its runFormatCommand never reads it (KAFKA-17868, fixed after 3.9.0); the port leaves the
option out."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import TextIO

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig, ProcessRole
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    META_PROPERTIES_NAME,
    MetaProperties,
    MetaPropertiesVersion,
    read_properties_file,
)
from kafka_edu.v3_9.metadata.metadata.storage.formatter import Formatter, FormatterException
from kafka_edu.v3_9.raft.raft.dynamic_voters import DynamicVoters
from kafka_edu.v3_9.raft.raft.quorum_config import QUORUM_VOTERS_CONFIG
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion


class TerseFailure(KafkaException):
    """kafka.tools.TerseFailure: a failure reported as its message alone, without a stack trace."""


def main(args: list[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """StorageTool.main: run the command; a FormatterException or TerseFailure is one line on stderr, exit 1."""
    exit_code = 0
    message = None
    try:
        exit_code = execute(args, out)
    except (FormatterException, TerseFailure) as e:
        exit_code = 1
        message = str(e)
    except Exception as e:  # Java prints the uncaught exception's stack trace; one line names it here
        exit_code = 1
        message = f"{type(e).__name__}: {e}".splitlines()[0]
    if message is not None:
        print(message, file=err)
    return exit_code


def execute(args: list[str], print_stream: TextIO) -> int:
    try:
        namespace = parse_arguments(args)
    except _ArgumentParserException as e:
        print(e, file=print_stream)
        return 1
    command = namespace.command
    config = KafkaConfig(load_props_file(namespace.config)) if getattr(namespace, "config", None) else None
    if command == "info":
        assert config is not None
        return info_command(print_stream, bool(config.process_roles), config_to_log_directories(config))
    if command == "format":
        assert config is not None
        run_format_command(namespace, config, print_stream)
        return 0
    if command == "random-uuid":
        print(Uuid.random_uuid(), file=print_stream)
        return 0
    raise RuntimeError(f"Unknown command {command}")


def load_props_file(path: str) -> dict[str, str]:
    """Utils.loadProps: the server properties the tool reads its directories and node id from."""
    try:
        return load_props(Path(path))
    except OSError as e:
        raise TerseFailure(f"Cannot read {path}: {e.strerror}") from e


@step("KR.storage")
def run_format_command(namespace: argparse.Namespace, config: KafkaConfig, print_stream: TextIO) -> None:
    """Check the arguments and the configuration, then hand the directories to the Formatter."""
    if not config.process_roles:
        raise TerseFailure("The kafka configuration file appears to be for a legacy cluster. Formatting is only "
                           "supported for clusters in KRaft mode.")
    formatter = (Formatter()
                 .set_print_stream(print_stream)
                 .set_node_id(config.node_id)
                 .set_cluster_id(namespace.cluster_id)
                 .set_unstable_feature_versions_enabled(config.unstable_feature_versions_enabled)
                 .set_ignore_formatted(namespace.ignore_formatted)
                 .set_controller_listener_name(config.controller_listener_names[0])
                 .set_metadata_log_directory(config.metadata_log_dir))
    if namespace.release_version is not None:
        formatter.set_release_version(MetadataVersion.from_version_string(namespace.release_version))
    elif "inter.broker.protocol.version" in config.originals():
        formatter.set_release_version(MetadataVersion.from_version_string(
            str(config.originals()["inter.broker.protocol.version"])))
    if namespace.initial_controllers is not None:
        formatter.set_initial_controllers(DynamicVoters.parse(namespace.initial_controllers))
    if namespace.standalone:
        formatter.set_initial_controllers(create_standalone_dynamic_voters(config))
    # A controller without static voters must be told how its quorum starts: from the voters given here, or (with
    # --no-initial-controllers) from the controllers it will later be added to.
    if (not namespace.no_initial_controllers and ProcessRole.CONTROLLER_ROLE in config.process_roles
            and not config.quorum_config.voters() and formatter.initial_voters() is None):
        raise TerseFailure(f"Because {QUORUM_VOTERS_CONFIG} is not set on this controller, you must specify one of "
                           "the following: --standalone, --initial-controllers, or --no-initial-controllers.")
    if namespace.add_scram is not None:
        formatter.set_scram_arguments(namespace.add_scram)
    for directory in config_to_log_directories(config):
        formatter.add_directory(directory)
    formatter.run()


def create_standalone_dynamic_voters(config: KafkaConfig) -> DynamicVoters:
    """This controller alone, at its first advertised controller listener, with a new directory id."""
    if ProcessRole.CONTROLLER_ROLE not in config.process_roles:
        raise TerseFailure("You can only use --standalone on a controller.")
    if not config.effective_advertised_controller_listeners:
        raise RuntimeError("No controller listeners found.")
    listener = config.effective_advertised_controller_listeners[0]
    host = "localhost" if listener.host is None else listener.host
    return DynamicVoters.parse(f"{config.node_id}@{host}:{listener.port}:{Uuid.random_uuid()}")


class _ArgumentParserException(Exception):
    """argparse4j's ArgumentParserException: a usage error, printed and answered with exit code 1."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgumentParserException(f"{self.prog}: error: {message}")


def parse_arguments(args: list[str]) -> argparse.Namespace:
    parser = _ArgumentParser(prog="kafka-storage", description="The Kafka storage tool.")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_ArgumentParser)
    info_parser = subparsers.add_parser("info", help="Get information about the Kafka log directories on this node.")
    format_parser = subparsers.add_parser("format", help="Format the Kafka log directories on this node.")
    subparsers.add_parser("random-uuid", help="Print a random UUID.")
    for p in (info_parser, format_parser):
        p.add_argument("--config", "-c", required=True, help="The Kafka configuration file to use.")
    format_parser.add_argument("--cluster-id", "-t", required=True, help="The cluster ID to use.")
    format_parser.add_argument(
        "--add-scram", "-S", action="append", metavar="SCRAM_CREDENTIAL",
        help="Create a SCRAM user in the bootstrap metadata (repeatable): MECHANISM=[name=USER,password=PASSWORD], "
             "or MECHANISM=[name=USER,salt=BASE64,saltedpassword=BASE64], optionally with iterations=N (default "
             "4096). MECHANISM is SCRAM-SHA-256 or SCRAM-SHA-512; a value may be in double quotes.")
    format_parser.add_argument("--ignore-formatted", "-g", action="store_true")
    format_parser.add_argument("--release-version", "-r",
                               help="The release version to use for the initial feature settings. The minimum is "
                                    f"{MetadataVersion.IBP_3_0_IV0}; the default is "
                                    f"{MetadataVersion.latest_production()}")
    # KIP-853: how the quorum of a controller without controller.quorum.voters starts; at most one of the three
    reconfigurable_quorum_options = format_parser.add_mutually_exclusive_group()
    reconfigurable_quorum_options.add_argument(
        "--standalone", "-s", action="store_true",
        help="Start a new dynamic quorum whose only voter is this controller.")
    reconfigurable_quorum_options.add_argument(
        "--no-initial-controllers", "-N", action="store_true",
        help="Format without an initial voter set: the node learns the quorum's voters from the running "
             "controllers (for a controller to be added to the quorum later).")
    reconfigurable_quorum_options.add_argument(
        "--initial-controllers", "-I", metavar="VOTERS",
        help="Start a new dynamic quorum with these voters: ID@HOST:PORT:DIRECTORY_ID entries separated by commas, "
             "where DIRECTORY_ID is the voter's metadata log directory id (a new one from random-uuid). Give every "
             "node of the cluster the same list, e.g. 1@ctl1.example:9093:ItxRmvefSlySfgPTXsyW6w,"
             "2@ctl2.example:9093:CugnlmysQ4OFSzjmSR2uOg")
    return parser.parse_args(args)


def config_to_log_directories(config: KafkaConfig) -> list[str]:
    """Every log dir and the metadata log dir, sorted and without duplicates (Kafka's TreeSet)."""
    return sorted({*config.log_dirs, config.metadata_log_dir})


def info_command(stream: TextIO, kraft_mode: bool, directories: list[str]) -> int:
    """`kafka-storage info`: which directories exist and are formatted, and whether they agree."""
    problems: list[str] = []
    found_directories: list[str] = []
    prev_metadata: MetaProperties | None = None
    for directory in sorted(directories):
        if not os.path.isdir(directory):
            problems.append(f"{directory} does not exist" if not os.path.exists(directory)
                            else f"{directory} is not a directory")
            continue
        found_directories.append(directory)
        meta_path = os.path.join(directory, META_PROPERTIES_NAME)
        if not os.path.exists(meta_path):
            problems.append(f"{directory} is not formatted.")
            continue
        try:
            cur_metadata = MetaProperties.Builder(read_properties_file(meta_path)).build()
            if prev_metadata is None:
                prev_metadata = cur_metadata
            elif prev_metadata.cluster_id != cur_metadata.cluster_id:
                problems.append("Mismatched cluster IDs between storage directories.")
            elif prev_metadata.node_id != cur_metadata.node_id:
                problems.append("Mismatched node IDs between storage directories.")
        except Exception as e:
            traceback.print_exc(file=sys.stdout)
            problems.append(f"Error loading {meta_path}: {e}")
    if prev_metadata is not None:
        if kraft_mode and prev_metadata.version is MetaPropertiesVersion.V0:
            problems.append("The kafka configuration file appears to be for a cluster in KRaft mode, but the "
                            "directories are formatted for legacy mode.")
        elif not kraft_mode and prev_metadata.version is MetaPropertiesVersion.V1:
            problems.append("The kafka configuration file appears to be for a legacy cluster, but the directories "
                            "are formatted for a cluster in KRaft mode.")
    if not directories:
        print("No directories specified.", file=stream)
        return 0
    if found_directories:
        print("Found log directory:" if len(found_directories) == 1 else "Found log directories:", file=stream)
        for d in found_directories:
            print(f"  {d}", file=stream)
        print("", file=stream)
    if prev_metadata is not None:
        sorted_output = ", ".join(f"{k}={v}" for k, v in sorted(prev_metadata.to_properties().items()))
        print(f"Found metadata: {{{sorted_output}}}", file=stream)
        print("", file=stream)
    if problems:
        print("Found problem:" if len(problems) == 1 else "Found problems:", file=stream)
        for p in problems:
            print(f"  {p}", file=stream)
        print("", file=stream)
        return 1
    return 0

