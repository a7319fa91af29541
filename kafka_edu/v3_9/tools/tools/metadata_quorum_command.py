"""Port of tools/src/main/java/org/apache/kafka/tools/MetadataQuorumCommand.java (Kafka 3.9): `kafka-metadata-quorum
describe --status | --replication`, for a quorum of static voters reached with `--bootstrap-controller`, or with
`--bootstrap-server` through a broker, which forwards DescribeQuorum to the active controller.

KIP-853's `add-controller` (the new controller's id, metadata directory id and controller endpoints read from its
own properties file, given with --command-config) and `remove-controller --controller-id N --controller-directory-id
ID` send AddRaftVoter / RemoveRaftVoter to the quorum's leader (a broker forwards them there)."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID, Uuid

METADATA_TOPIC = "__cluster_metadata"
DESCRIBE_QUORUM_VERSION = 2
DESCRIBE_CLUSTER_VERSION = 1
RAFT_VOTER_VERSION = 0  # AddRaftVoter and RemoveRaftVoter have one version in 3.9
RAFT_VOTER_TIMEOUT_MS = 30_000  # how long the leader may take to check and commit the change
NODE_ID_CONFIG = "node.id"
PROCESS_ROLES_CONFIG = "process.roles"
METADATA_LOG_DIR_CONFIG = "metadata.log.dir"
LOG_DIRS_CONFIG = "log.dirs"
LISTENERS_CONFIG = "listeners"
ADVERTISED_LISTENERS_CONFIG = "advertised.listeners"
CONTROLLER_LISTENER_NAMES_CONFIG = "controller.listener.names"
BROKER_ENDPOINT_TYPE = 1  # DescribeCluster v1's EndpointType.BROKER
CONTROLLER_ENDPOINT_TYPE = 2  # DescribeCluster v1's EndpointType.CONTROLLER


class TerseException(Exception):
    """An error the tool reports as one line, exit code 1."""


def main(args: list[str], out: TextIO = sys.stdout) -> int:
    parser = build_parser()
    options = parser.parse_args(args)
    try:
        execute(options, out)
    except (TerseException, OSError) as e:
        print(str(e), file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-edu metadata-quorum",
                                     description="Show the KRaft metadata quorum (its leader and epoch, its high "
                                                 "watermark, how far each voter and observer has replicated) and, "
                                                 "on a dynamic quorum (KIP-853), add or remove a controller.")
    connection = parser.add_mutually_exclusive_group(required=True)
    connection.add_argument("--bootstrap-server", help="host:port of brokers, comma-separated: a broker passes the "
                                                       "question on to the active controller")
    connection.add_argument("--bootstrap-controller", help="host:port of controllers, comma-separated: asked directly")
    parser.add_argument("--command-config", help="a properties file; for add-controller, the properties of the "
                                                 "controller to add")
    sub = parser.add_subparsers(dest="command", required=True)
    describe = sub.add_parser("describe", help="print the quorum's state (--status) or each replica's progress "
                                                "(--replication)")
    describe.add_argument("--status", action="store_true", help="a short summary of the quorum status")
    describe.add_argument("--replication", action="store_true", help="the status of replication, per voter")
    describe.add_argument("--human-readable", action="store_true",
                          help="with --replication: times as 'N ms ago' instead of timestamps")
    add = sub.add_parser("add-controller", help="make a running controller (formatted with --no-initial-controllers "
                                                "and caught up as an observer) a voter")
    # also accepted after the sub-command, under its own name and as --config
    add.add_argument("--command-config", "--config", dest="add_command_config", metavar="FILE",
                     help="the properties file of the controller to add: its node.id, metadata directory and "
                          "controller listeners are read from it")
    add.add_argument("--dry-run", action="store_true", help="print what would be sent, send nothing")
    remove = sub.add_parser("remove-controller", help="take a voter out of the controller quorum")
    remove.add_argument("--controller-id", "-i", type=int, required=True, help="the node id of the voter to remove")
    remove.add_argument("--controller-directory-id", "-d", required=True,
                        help="the directory id of that voter's metadata directory (describe --replication shows it)")
    remove.add_argument("--dry-run", action="store_true", help="print what would be sent, send nothing")
    return parser


def execute(options: argparse.Namespace, out: TextIO) -> None:
    command_config = getattr(options, "add_command_config", None) or options.command_config
    props = get_properties(command_config)
    admin = (ControllerAdmin(options.bootstrap_server, BROKER_ENDPOINT_TYPE) if options.bootstrap_server
             else ControllerAdmin(options.bootstrap_controller))
    if options.command == "describe":
        if options.status and options.replication:
            raise TerseException("Only one of --status or --replication should be specified with describe "
                                 "sub-command")
        if options.replication:
            handle_describe_replication(admin, options.human_readable, out)
        elif options.status:
            if options.human_readable:
                raise TerseException("The option --human-readable is only supported along with --replication")
            handle_describe_status(admin, out)
        else:
            raise TerseException("One of --status or --replication must be specified with describe sub-command")
    elif options.command == "add-controller":
        if command_config is None:
            raise TerseException("add-controller needs the properties file of the controller to add "
                                 "(--command-config FILE).")
        handle_add_controller(admin, options.dry_run, props, out)
    elif options.command == "remove-controller":
        handle_remove_controller(admin, options.controller_id, options.controller_directory_id, options.dry_run, out)
    else:
        raise TerseException(f"Unknown command: {options.command}")


def get_properties(command_config: str | None) -> dict[str, str]:
    if command_config is None:
        return {}
    if not Path(command_config).exists():
        raise TerseException(f"Properties file {command_config} does not exists!")
    # Properties.load undoes the escapes Properties.store writes (`CONTROLLER\://\:9093`); load_props keeps them
    return {_unescape(k): _unescape(v) for k, v in load_props(Path(command_config)).items()}


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) == 5:
            return chr(int(code[1:], 16))
        return {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(code, code)
    return _ESCAPE.sub(one, text)


class RaftVoterError(TerseException):
    """The leader refused a voter change: `error` is its Errors member (DUPLICATE_VOTER, VOTER_NOT_FOUND, ...)."""

    def __init__(self, error: Errors, message: str | None) -> None:
        super().__init__(f"{error.exception_name or error.name}: {message or error.name}")
        self.error = error
        self.error_message = message


class ControllerAdmin:
    """What the tool asks of Admin, sent to the first node that answers: controllers (any voter answers
    DescribeCluster; DescribeQuorum is answered by the leader, and a follower says NOT_LEADER_OR_FOLLOWER with the
    leader's id) or, with the broker endpoint type, brokers (which forward DescribeQuorum to the active controller)."""

    def __init__(self, bootstrap: str, endpoint_type: int = CONTROLLER_ENDPOINT_TYPE) -> None:
        self.endpoint_type = endpoint_type
        self.addresses = [(host, int(port)) for host, _, port in
                          (a.strip().rpartition(":") for a in bootstrap.split(",") if a.strip())]
        if not self.addresses:
            option = "--bootstrap-controller" if endpoint_type == CONTROLLER_ENDPOINT_TYPE else "--bootstrap-server"
            raise TerseException(f"Invalid {option} {bootstrap!r}")

    def _send(self, api: ApiKeys, version: int, body: Any, address: tuple[str, int]) -> Any:
        channel = BlockingChannel(address[0], address[1], 10.0, "kafka-metadata-quorum")
        try:
            return channel.send_and_receive(api, version, body)
        finally:
            channel.disconnect()

    def _any(self, api: ApiKeys, version: int, body: Any) -> tuple[Any, tuple[str, int]]:
        errors = []
        for address in self.addresses:
            try:
                return self._send(api, version, body, address), address
            except OSError as e:
                errors.append(f"{address[0]}:{address[1]}: {e}")
        raise TerseException("No node answered: " + "; ".join(errors))

    def describe_cluster(self) -> Any:
        body = build(ApiKeys.DESCRIBE_CLUSTER.request_schema(DESCRIBE_CLUSTER_VERSION),
                     include_cluster_authorized_operations=False, endpoint_type=self.endpoint_type)
        return self._any(ApiKeys.DESCRIBE_CLUSTER, DESCRIBE_CLUSTER_VERSION, body)[0]

    def describe_metadata_quorum(self) -> tuple[Any, Any]:
        """The quorum's partition data and the node endpoints, from the leader: only it answers, so the bootstrap
        controllers are asked in turn (Admin finds the leader the same way)."""
        schema = ApiKeys.DESCRIBE_QUORUM.request_schema(DESCRIBE_QUORUM_VERSION)
        body = build(schema, topics=[{"topic_name": METADATA_TOPIC, "partitions": [{"partition_index": 0}]}])
        errors = []
        for address in self.addresses:
            try:
                response = self._send(ApiKeys.DESCRIBE_QUORUM, DESCRIBE_QUORUM_VERSION, body, address)
            except OSError as e:
                errors.append(f"{address[0]}:{address[1]}: {e}")
                continue
            partition = response.topics[0].partitions[0] if response.topics and response.topics[0].partitions \
                else None
            error = Errors(response.error_code) if response.error_code else (
                Errors(partition.error_code) if partition is not None else Errors.UNKNOWN_SERVER_ERROR)
            if error == Errors.NONE:
                return partition, response.nodes
            errors.append(f"{address[0]}:{address[1]}: {error.name}")
        raise TerseException("DescribeQuorum failed: " + "; ".join(errors))

    def add_raft_voter(self, voter_id: int, voter_directory_id: Uuid, endpoints: list[tuple[str, str, int]],
                       timeout_s: float = 30.0) -> None:
        """AddRaftVoter for (name, host, port) endpoints, to the leader; RaftVoterError if it refuses."""
        body = build(ApiKeys.ADD_RAFT_VOTER.request_schema(RAFT_VOTER_VERSION), cluster_id=None,
                     timeout=RAFT_VOTER_TIMEOUT_MS, voter_id=voter_id, voter_directory_id=_kio_uuid(voter_directory_id),
                     listeners=[{"name": name, "host": host, "port": port} for name, host, port in endpoints])
        self._to_leader(ApiKeys.ADD_RAFT_VOTER, body, timeout_s)

    def remove_raft_voter(self, voter_id: int, voter_directory_id: Uuid, timeout_s: float = 30.0) -> None:
        body = build(ApiKeys.REMOVE_RAFT_VOTER.request_schema(RAFT_VOTER_VERSION), cluster_id=None,
                     voter_id=voter_id, voter_directory_id=_kio_uuid(voter_directory_id))
        self._to_leader(ApiKeys.REMOVE_RAFT_VOTER, body, timeout_s)

    def _to_leader(self, api: ApiKeys, body: Any, timeout_s: float) -> Any:
        """Only the leader takes a voter change; the others say NOT_LEADER_OR_FOLLOWER. Admin sends it to the
        active controller, or to a broker, which forwards it there; here each bootstrap node is tried until one
        answers for the leader (an election may be under way, so the round is repeated until `timeout_s`)."""
        deadline = time.monotonic() + timeout_s
        while True:
            errors = []
            for address in self.addresses:
                try:
                    response = self._send(api, RAFT_VOTER_VERSION, body, address)
                except OSError as e:
                    errors.append(f"{address[0]}:{address[1]}: {e}")
                    continue
                error = Errors(response.error_code)
                if error == Errors.NONE:
                    return response
                if error != Errors.NOT_LEADER_OR_FOLLOWER:
                    raise RaftVoterError(error, response.error_message)
                errors.append(f"{address[0]}:{address[1]}: {error.name}")
            if time.monotonic() >= deadline:
                raise TerseException(f"{api.name} failed: no leader answered: " + "; ".join(errors))
            time.sleep(0.2)


def handle_describe_replication(admin: ControllerAdmin, human_readable: bool, out: TextIO) -> None:
    quorum, _ = admin.describe_metadata_quorum()
    leader = next(v for v in quorum.current_voters if v.replica_id == quorum.leader_id)
    rows = quorum_info_to_rows(leader, [leader], "Leader", human_readable)
    rows += quorum_info_to_rows(leader, [v for v in quorum.current_voters if v.replica_id != quorum.leader_id],
                                "Follower", human_readable)
    rows += quorum_info_to_rows(leader, list(quorum.observers), "Observer", human_readable)
    pretty_print_table(["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                        "LastCaughtUpTimestamp", "Status"], rows, out)


def quorum_info_to_rows(leader: Any, infos: list[Any], status: str, human_readable: bool) -> list[list[str]]:
    rows = []
    for info in infos:
        rows.append([str(info.replica_id), _directory_id(info.replica_directory_id), str(info.log_end_offset),
                     str(leader.log_end_offset - info.log_end_offset),
                     _timestamp(info.last_fetch_timestamp, "last fetch", human_readable),
                     _timestamp(info.last_caught_up_timestamp, "last caught up", human_readable), status])
    return rows


def _timestamp(timestamp_ms: int, desc: str, human_readable: bool) -> str:
    if timestamp_ms < 0:
        return "-1"
    return f"{relative_time_ms(timestamp_ms, desc)} ms ago" if human_readable else str(timestamp_ms)


def relative_time_ms(timestamp_ms: int, desc: str) -> int:
    now = int(time.time() * 1000)
    if not 0 < timestamp_ms <= now:
        raise TerseException(f"Error while computing relative time, possible drift in system clock.\n"
                             f"Current timestamp is {now}, {desc} timestamp is {timestamp_ms}")
    return now - timestamp_ms


def handle_describe_status(admin: ControllerAdmin, out: TextIO) -> None:
    cluster_id = admin.describe_cluster().cluster_id
    quorum, nodes = admin.describe_metadata_quorum()
    leader = next(v for v in quorum.current_voters if v.replica_id == quorum.leader_id)
    max_lag_follower = min(quorum.current_voters, key=lambda v: v.log_end_offset)
    max_follower_lag = leader.log_end_offset - max_lag_follower.log_end_offset
    if max_lag_follower is leader:
        max_follower_lag_time_ms = 0
    elif leader.last_caught_up_timestamp >= 0 and max_lag_follower.last_caught_up_timestamp >= 0:
        max_follower_lag_time_ms = leader.last_caught_up_timestamp - max_lag_follower.last_caught_up_timestamp
    else:
        max_follower_lag_time_ms = -1
    endpoints = {n.node_id: [f"{listener.name}://{listener.host}:{listener.port}" for listener in n.listeners]
                 for n in nodes}
    print(f"ClusterId:              {cluster_id}\n"
          f"LeaderId:               {quorum.leader_id}\n"
          f"LeaderEpoch:            {quorum.leader_epoch}\n"
          f"HighWatermark:          {quorum.high_watermark}\n"
          f"MaxFollowerLag:         {max_follower_lag}\n"
          f"MaxFollowerLagTimeMs:   {max_follower_lag_time_ms}\n"
          f"CurrentVoters:          {print_replica_state(quorum.current_voters, endpoints)}\n"
          f"CurrentObservers:       {print_replica_state(quorum.observers, endpoints)}", file=out)


def print_replica_state(replicas: Any, endpoints: dict[int, list[str]]) -> str:
    nodes = []
    for replica in replicas:
        text = f'{{"id": {replica.replica_id}'
        directory_id = _directory_id(replica.replica_directory_id)
        if directory_id != str(ZERO_UUID):
            text += f', "directoryId": "{directory_id}"'
        if endpoints.get(replica.replica_id):
            text += ', "endpoints": [' + ", ".join(f'"{e}"' for e in endpoints[replica.replica_id]) + "]"
        nodes.append(text + "}")
    return "[" + ", ".join(nodes) + "]"


def _directory_id(value: Any) -> str:
    """Static voters have the zero id; kio gives a uuid.UUID, Kafka prints its own Uuid."""
    return str(Uuid.from_bytes(value.bytes if value is not None else bytes(16)))


def pretty_print_table(headers: list[str], rows: list[list[str]], out: TextIO) -> None:
    """ToolsUtils.prettyPrintTable: every cell padded to its column's width, each followed by a tab."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    for row in [headers, *rows]:
        print("".join(f"{cell:<{width}}\t" for cell, width in zip(row, widths, strict=True)), file=out)


# -- KIP-853: add-controller and remove-controller --------------------------------------------------------------------

def get_controller_id(props: dict[str, str]) -> int:
    if NODE_ID_CONFIG not in props:
        raise TerseException(f"{NODE_ID_CONFIG} not found in configuration file. Is this a valid controller "
                             "configuration file?")
    node_id = int(props[NODE_ID_CONFIG])
    if node_id < 0:
        raise TerseException(f"{NODE_ID_CONFIG} was negative in configuration file. Is this a valid controller "
                             "configuration file?")
    if "controller" not in props.get(PROCESS_ROLES_CONFIG, ""):
        raise TerseException(f"{PROCESS_ROLES_CONFIG} did not contain 'controller' in configuration file. Is this "
                             "a valid controller configuration file?")
    return node_id


def get_metadata_directory(props: dict[str, str]) -> str:
    if METADATA_LOG_DIR_CONFIG in props:
        return props[METADATA_LOG_DIR_CONFIG]
    if LOG_DIRS_CONFIG in props:
        log_dirs = props[LOG_DIRS_CONFIG].strip().split(",")
        if log_dirs:
            return log_dirs[0]
    raise TerseException(f"Neither {METADATA_LOG_DIR_CONFIG} nor {LOG_DIRS_CONFIG} were found. Is this a valid "
                         "controller configuration file?")


def get_metadata_directory_id(metadata_directory: str) -> Uuid:
    from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import MetaPropertiesEnsemble
    ensemble = (MetaPropertiesEnsemble.Loader().add_log_dirs([metadata_directory])
                .add_metadata_log_dir(metadata_directory).load())
    meta_properties = ensemble.log_dir_props().get(metadata_directory)
    if meta_properties is None:
        raise TerseException(f"Unable to read meta.properties from {metadata_directory}")
    if meta_properties.directory_id is None:
        raise TerseException(f"No directory id found in {metadata_directory}")
    return meta_properties.directory_id


def get_controller_advertised_listeners(props: dict[str, str]) -> list[tuple[str, str, int]]:
    """(name, host, port) of each controller listener, advertised.listeners over listeners, in
    controller.listener.names order."""
    from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
    from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
    from kafka_edu.v3_9.server.network.socket_server_configs import listener_list_to_end_points
    listeners = {}
    for key in (LISTENERS_CONFIG, ADVERTISED_LISTENERS_CONFIG):
        for endpoint in listener_list_to_end_points(props.get(key, ""), lambda _: SecurityProtocol.PLAINTEXT):
            listeners[endpoint.listener_name] = endpoint
    if CONTROLLER_LISTENER_NAMES_CONFIG not in props:
        raise TerseException(f"{CONTROLLER_LISTENER_NAMES_CONFIG} was not found. Is this a valid controller "
                             "configuration file?")
    results: list[tuple[str, str, int]] = []
    for listener_name in props[CONTROLLER_LISTENER_NAMES_CONFIG].split(","):
        listener_name = ListenerName.normalised(listener_name).value()
        endpoint = listeners.get(listener_name)
        if endpoint is None:
            raise TerseException(f"Cannot find information about controller listener name: {listener_name}")
        result = (listener_name, endpoint.host if endpoint.host is not None else "localhost", endpoint.port)
        if result not in results:
            results.append(result)
    return results


def handle_add_controller(admin: ControllerAdmin, dry_run: bool, props: dict[str, str], out: TextIO) -> None:
    controller_id = get_controller_id(props)
    directory_id = get_metadata_directory_id(get_metadata_directory(props))
    endpoints = get_controller_advertised_listeners(props)
    if not dry_run:
        admin.add_raft_voter(controller_id, directory_id, endpoints)
    shown = ", ".join(f"{name}://{f'[{host}]' if ':' in host else host}:{port}" for name, host, port in endpoints)
    print(f"{'DRY RUN of adding' if dry_run else 'Added'} controller {controller_id} with directory id "
          f"{directory_id} and endpoints: {shown}", file=out)


def handle_remove_controller(admin: ControllerAdmin, controller_id: int, controller_directory_id: str,
                             dry_run: bool, out: TextIO) -> None:
    if controller_id < 0:
        raise TerseException(f"Invalid negative --controller-id: {controller_id}")
    try:
        directory_id = Uuid.from_string(controller_directory_id)
    except ValueError as e:
        raise TerseException(f"Failed to parse --controller-directory-id: {e}") from e
    if not dry_run:
        admin.remove_raft_voter(controller_id, directory_id)
    print(f"{'DRY RUN of removing ' if dry_run else 'Removed '} KRaft controller {controller_id} with directory id "
          f"{directory_id}", file=out)


def _kio_uuid(value: Uuid) -> Any:
    """kio's uuid fields take Python's uuid.UUID."""
    import uuid
    return uuid.UUID(bytes=value.to_bytes())
