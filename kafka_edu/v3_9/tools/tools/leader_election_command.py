"""Port of tools/src/main/java/org/apache/kafka/tools/LeaderElectionCommand.java (Kafka 3.9): `kafka-leader-election
--bootstrap-server B --election-type PREFERRED|UNCLEAN (--topic T --partition P | --all-topic-partitions |
--path-to-json-file F)`.

ElectLeaders goes to a broker, which forwards it to the active controller. 3.9's tool goes through its Admin client;
this port goes through a real client library (kafka-python's KafkaAdminClient), as the port's 1.0.2 admin tools do.
Left out: `--admin.config` (a properties file for the admin client: the port's clients take no such file).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from kafka_edu.v1_0_2.clients.common.errors import AdminCommandFailedException, AdminOperationException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

TIMEOUT_MS = 30000
ELECTION_TYPES = {"PREFERRED": 0, "UNCLEAN": 1}  # ElectionType


def main(args: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """mainNoExit: 0, or 1 with the error's message and stack trace on stderr."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        run(TIMEOUT_MS, args, out)
        return 0
    except SystemExit as e:  # --help, or argparse's own usage error
        return int(e.code or 0)
    except Exception as e:
        print(str(e), file=err)
        print("".join(traceback.format_exception(e)), file=err)
        return 1


def run(timeout_ms: int, args: list[str], out: TextIO) -> None:
    command_options = LeaderElectionCommandOptions(args)
    command_options.validate()
    election_type = command_options.election_type()
    json_file_topic_partitions = None
    if command_options.path_to_json_file() is not None:
        json_file_topic_partitions = parse_replica_election_data(command_options.path_to_json_file())
    single_topic_partition = None
    if command_options.topic() is not None and command_options.partition() is not None:
        single_topic_partition = {(command_options.topic(), command_options.partition())}
    # --all-topic-partitions: no partitions at all, which means every partition
    topic_partitions = json_file_topic_partitions if json_file_topic_partitions is not None \
        else single_topic_partition

    from kafka.admin import KafkaAdminClient  # the Admin client: a real client library
    try:
        admin_client = KafkaAdminClient(bootstrap_servers=command_options.bootstrap_server(),
                                        request_timeout_ms=timeout_ms // 2, bootstrap_timeout_ms=timeout_ms,
                                        client_id="kafka-leader-election")
    except Exception as e:
        # 3.9's Admin connects lazily: no broker within the timeout surfaces as the election's timeout
        if type(e).__name__ == "KafkaTimeoutError":
            message = "Timeout waiting for election results"
            print(message, file=out)
            raise AdminCommandFailedException(message) from e
        raise
    try:
        elect_leaders(admin_client, election_type, topic_partitions, timeout_ms, out)
    finally:
        admin_client.close()


def elect_leaders(client: Any, election_type: str, partitions: set[tuple[str, int]] | None, timeout_ms: int,
                  out: TextIO) -> None:
    """Prints the partitions elected, those that already had the leader asked for, and each failure; raises
    AdminCommandFailedException when one failed."""
    topic_partitions: dict[str, list[int]] | None = None
    if partitions is not None:
        topic_partitions = {}
        for topic, partition in sorted(partitions):
            topic_partitions.setdefault(topic, []).append(partition)
    try:
        response = client.elect_leaders(ELECTION_TYPES[election_type], topic_partitions, timeout_ms=timeout_ms,
                                        raise_errors=False)
    except Exception as e:
        if type(e).__name__ == "KafkaTimeoutError":
            message = "Timeout waiting for election results"
            print(message, file=out)
            raise AdminCommandFailedException(message) from e
        raise RuntimeError(e) from e
    top_level_error = Errors.for_code(getattr(response, "error_code", 0))
    if top_level_error is Errors.CLUSTER_AUTHORIZATION_FAILED:
        message = "Not authorized to perform leader election"
        print(message, file=out)
        raise AdminCommandFailedException(message)

    succeeded: list[str] = []
    noop: list[str] = []
    failed: dict[str, str] = {}
    for result in response.replica_election_results:
        for partition_result in result.partition_result:
            key = f"{result.topic}-{partition_result.partition_id}"  # TopicPartition.toString
            error = Errors.for_code(partition_result.error_code)
            if top_level_error is not Errors.NONE:
                error = top_level_error
            if error is Errors.NONE:
                succeeded.append(key)
            elif error is Errors.ELECTION_NOT_NEEDED:
                noop.append(key)
            else:
                failed[key] = _exception_text(error, partition_result.error_message)
    if succeeded:
        print(f"Successfully completed leader election ({election_type}) for partitions {', '.join(succeeded)}",
              file=out)
    if noop:
        print(f"Valid replica already elected for partitions {', '.join(noop)}", file=out)
    if failed:
        for key, value in failed.items():
            print(f"Error completing leader election ({election_type}) for partition: {key}: {value}", file=out)
        raise AdminCommandFailedException(f"{len(failed)} replica(s) could not be elected")


def _exception_text(error: Errors, message: str | None) -> str:
    """Throwable.toString of the error's exception: its Kafka class name and message."""
    name = f"org.apache.kafka.common.errors.{error.exception_name}"
    return f"{name}: {message}" if message else name


def parse_replica_election_data(path: str) -> set[tuple[str, int]]:
    try:
        js = json.loads(Path(path).read_text())
    except ValueError:
        js = None
    if not js:
        raise AdminOperationException("Replica election data is empty")
    if "partitions" not in js:
        raise AdminOperationException('Replica election data is missing "partitions" field')
    partitions = [(entry["topic"], int(entry["partition"])) for entry in js["partitions"]]
    duplicate_partitions = [f"{t}-{p}" for (t, p), n in Counter(partitions).items() if n > 1]
    if duplicate_partitions:
        raise AdminOperationException("Replica election data contains duplicate partitions: "
                                      f"[{', '.join(duplicate_partitions)}]")
    return set(partitions)


class LeaderElectionCommandOptions:
    def __init__(self, args: list[str]) -> None:
        parser = argparse.ArgumentParser(
            prog="kafka-edu leader-election",
            description="Ask the controller to elect leaders (ElectLeaders): PREFERRED moves leadership back to each "
                        "partition's first replica; UNCLEAN gives a partition without a leader one from outside "
                        "its ISR, at the risk of losing acknowledged records (Kafka 3.9's kafka-leader-election.sh).")
        parser.add_argument("--bootstrap-server", metavar="host:port",
                            help="the brokers to send the request through, host:port[,host:port...] (required)")
        parser.add_argument("--path-to-json-file", metavar="Path to JSON file",
                            help='the partitions, as {"partitions": [{"topic": "foo", "partition": 1}]}; not with '
                                 '--topic or --all-topic-partitions')
        parser.add_argument("--topic", metavar="topic name",
                            help="one partition's topic (with --partition); not with --path-to-json-file or "
                                 "--all-topic-partitions")
        parser.add_argument("--partition", type=int, metavar="partition id",
                            help="that partition's id (required with --topic)")
        parser.add_argument("--all-topic-partitions", action="store_true",
                            help="every partition the election type applies to; not with --topic or "
                                 "--path-to-json-file")
        parser.add_argument("--election-type", type=str.upper, choices=list(ELECTION_TYPES), metavar="election type",
                            help="PREFERRED (only where the leader is not the first replica) or UNCLEAN (only "
                                 "where there is no leader) (required)")
        self.options = parser.parse_args(args)

    def election_type(self) -> str:
        return self.options.election_type

    def path_to_json_file(self) -> str | None:
        return self.options.path_to_json_file

    def bootstrap_server(self) -> str:
        return self.options.bootstrap_server

    def topic(self) -> str | None:
        return self.options.topic

    def partition(self) -> int | None:
        return self.options.partition

    def validate(self) -> None:
        missing_options = [name for name, value in (("bootstrap-server", self.options.bootstrap_server),
                                                    ("election-type", self.options.election_type)) if value is None]
        if missing_options:
            raise AdminCommandFailedException("Missing required option(s): " + ", ".join(missing_options))
        # exactly one of --topic, --all-topic-partitions, --path-to-json-file
        chosen = [self.options.topic is not None, self.options.all_topic_partitions,
                  self.options.path_to_json_file is not None]
        if sum(chosen) != 1:
            raise AdminCommandFailedException("One and only one of the following options is required: topic, "
                                              "all-topic-partitions, path-to-json-file")
        if self.options.topic is not None and self.options.partition is None:
            raise AdminCommandFailedException("Missing required option(s): partition")
        if self.options.topic is None and self.options.partition is not None:
            raise AdminCommandFailedException("Option partition is only allowed if topic is used")
