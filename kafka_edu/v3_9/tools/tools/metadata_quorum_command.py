"""Port of tools/src/main/java/org/apache/kafka/tools/MetadataQuorumCommand.java (Kafka 3.9): `kafka-metadata-quorum
describe --status | --replication`, for a quorum of static voters reached with `--bootstrap-controller`, or with
`--bootstrap-server` through a broker, which forwards DescribeQuorum to the active controller."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, TextIO

from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID, Uuid

METADATA_TOPIC = "__cluster_metadata"
DESCRIBE_QUORUM_VERSION = 2
DESCRIBE_CLUSTER_VERSION = 1
BROKER_ENDPOINT_TYPE = 1  # DescribeCluster v1's EndpointType.BROKER
CONTROLLER_ENDPOINT_TYPE = 2  # DescribeCluster v1's EndpointType.CONTROLLER


class TerseException(Exception):
    """An error the tool reports as one line, exit code 1."""


def main(args: list[str], out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="kafka-edu metadata-quorum",
                                     description="Show the KRaft metadata quorum: its leader and epoch, its high "
                                                 "watermark, and how far each voter and observer has replicated.")
    connection = parser.add_mutually_exclusive_group(required=True)
    connection.add_argument("--bootstrap-server", help="host:port of brokers, comma-separated: a broker passes the "
                                                       "question on to the active controller")
    connection.add_argument("--bootstrap-controller", help="host:port of controllers, comma-separated: asked directly")
    sub = parser.add_subparsers(dest="command", required=True)
    describe = sub.add_parser("describe", help="print the quorum's state (--status) or each replica's progress "
                                                "(--replication)")
    describe.add_argument("--status", action="store_true", help="a short summary of the quorum status")
    describe.add_argument("--replication", action="store_true", help="the status of replication, per voter")
    describe.add_argument("--human-readable", action="store_true",
                          help="with --replication: times as 'N ms ago' instead of timestamps")
    options = parser.parse_args(args)
    try:
        if options.status and options.replication:
            raise TerseException("Only one of --status or --replication should be specified with describe "
                                 "sub-command")
        admin = (ControllerAdmin(options.bootstrap_server, BROKER_ENDPOINT_TYPE) if options.bootstrap_server
                 else ControllerAdmin(options.bootstrap_controller))
        if options.replication:
            handle_describe_replication(admin, options.human_readable, out)
        elif options.status:
            if options.human_readable:
                raise TerseException("The option --human-readable is only supported along with --replication")
            handle_describe_status(admin, out)
        else:
            raise TerseException("One of --status or --replication must be specified with describe sub-command")
    except (TerseException, OSError) as e:
        print(str(e), file=sys.stderr)
        return 1
    return 0


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
