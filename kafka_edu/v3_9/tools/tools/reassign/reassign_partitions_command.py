"""Port of tools/src/main/java/org/apache/kafka/tools/reassign/ReassignPartitionsCommand.java (Kafka 3.9), with the
LogDirMoveState classes of its package (ActiveMoveState, CancelledMoveState, CompletedMoveState,
MissingLogDirMoveState, MissingReplicaMoveState) and VerifyAssignmentResult:
`kafka-reassign-partitions --bootstrap-server B (--generate | --execute | --verify | --cancel | --list)`.

AlterPartitionReassignments and ListPartitionReassignments go to a broker, which forwards them to the active
controller; the controller adds the new replicas, and completes the reassignment once they have joined the ISR. A
replica whose `log_dirs` entry names a directory (not "any") is then moved there with AlterReplicaLogDirs, sent to the
broker that holds it (its ReplicaAlterLogDirsThread copies the log into a future log and swaps it in); --verify follows
such moves through DescribeLogDirs, which lists each partition of a directory with is_future_key false (the current
dir) or true (the future dir), read as Kafka's Admin.describeReplicaLogDirs reads it. 3.9's tool goes through its
Admin client; this port goes through a real client library (kafka-python's KafkaAdminClient), as the port's 1.0.2
admin tools do.

Left out: the replication throttles (`--throttle`, `--replica-alter-log-dirs-throttle`, and the clearing of throttle
configs after --verify/--cancel: the port's brokers have no quota managers), and `--command-config`.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from kafka_edu.v1_0_2.clients.common.errors import (
    AdminCommandFailedException,
    AdminOperationException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.server_common.admin.admin_utils import BrokerMetadata, assign_replicas_to_brokers

HELP_TEXT = ("Move partitions between brokers, and replicas between the log directories of a broker: generate a plan, "
             "execute it, verify, cancel or list reassignments.")
EARLIEST_VERSION = 1
EARLIEST_TOPICS_JSON_VERSION = 1
ANY_LOG_DIR = "any"
CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE = (
    "Cannot execute because there is an existing partition assignment.  Use --additional to override this and "
    "create a new partition assignment in addition to the existing one. The --additional flag can also be used to "
    "change the throttle by resubmitting the current reassignment.")
ACTIONS = ("generate", "execute", "verify", "cancel", "list")
DEFAULT_TIMEOUT_MS = 10000

TopicPartition = tuple[str, int]
TopicPartitionReplica = tuple[str, int, int]  # (topic, partition, broker)
ReplicaLogDirs = dict[TopicPartitionReplica, str]  # replica -> log dir


class TerseException(Exception):
    """An error printed as its message alone."""


def _tp(tp: TopicPartition) -> str:
    """TopicPartition.toString."""
    return f"{tp[0]}-{tp[1]}"


def _tpr(replica: TopicPartitionReplica) -> str:
    """TopicPartitionReplica.toString: topic-partition-broker."""
    return f"{replica[0]}-{replica[1]}-{replica[2]}"


def compare_topic_partitions(a: TopicPartition, b: TopicPartition) -> int:
    """By topic, then partition: the order the tool prints partitions in (a tuple's order, as `sorted` uses)."""
    return (a > b) - (a < b)


def _replica_order(replica: TopicPartitionReplica) -> tuple[int, str, int]:
    """The sort key of compare_topic_partition_replicas."""
    return replica[2], replica[0], replica[1]


def compare_topic_partition_replicas(a: TopicPartitionReplica, b: TopicPartitionReplica) -> int:
    """By broker, then topic, then partition: the order the tool prints replicas in."""
    ka, kb = _replica_order(a), _replica_order(b)
    return (ka > kb) - (ka < kb)


# -- LogDirMoveState and its kinds: where a replica's move to a log dir stands ----------------------------------------

@dataclass(frozen=True)
class ActiveMoveState:
    """The replica has a future log (in future_log_dir) that it is being copied into."""
    current_log_dir: str
    target_log_dir: str
    future_log_dir: str

    def done(self) -> bool:
        return False


@dataclass(frozen=True)
class CancelledMoveState:
    """The replica is not moving, and is not in the target dir."""
    current_log_dir: str
    target_log_dir: str

    def done(self) -> bool:
        return True


@dataclass(frozen=True)
class CompletedMoveState:
    """The replica is in the target dir, and not moving."""
    target_log_dir: str

    def done(self) -> bool:
        return True


@dataclass(frozen=True)
class MissingLogDirMoveState:
    """The broker answered, but has the replica in none of its live log dirs."""
    target_log_dir: str

    def done(self) -> bool:
        return False


@dataclass(frozen=True)
class MissingReplicaMoveState:
    """The replica is not in the answer at all."""
    target_log_dir: str

    def done(self) -> bool:
        return False


LogDirMoveState = ActiveMoveState | CancelledMoveState | CompletedMoveState | MissingLogDirMoveState \
    | MissingReplicaMoveState
PartitionReassignmentState = tuple[list[int], list[int], bool]  # current replicas, target replicas, done


@dataclass(frozen=True)
class VerifyAssignmentResult:
    part_states: dict[TopicPartition, PartitionReassignmentState]
    parts_ongoing: bool = False
    move_states: dict[TopicPartitionReplica, LogDirMoveState] | None = None
    moves_ongoing: bool = False


@dataclass(frozen=True)
class ReplicaLogDirInfo:
    """DescribeReplicaLogDirsResult.ReplicaLogDirInfo: the dir a replica's log is in, and the dir of its future log
    (None when there is none)."""
    current_replica_log_dir: str | None = None
    current_replica_offset_lag: int = -1
    future_replica_log_dir: str | None = None
    future_replica_offset_lag: int = -1


def main(args: list[str], out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        opts = validate_and_parse_args(args)
    except UsageError as e:
        print(str(e), file=out)
        build_parser().print_help(out)
        return 1
    from kafka.admin import KafkaAdminClient  # the Admin client: a real client library
    admin_client = None
    try:
        admin_client = KafkaAdminClient(bootstrap_servers=opts.bootstrap_server,
                                        client_id="reassign-partitions-tool")
        handle_action(admin_client, opts, out)
        return 0
    except TerseException as e:
        print(str(e), file=out)
    except Exception as e:
        print(f"Error: {e}", file=out)
        print("".join(traceback.format_exception(e)), file=out)
    finally:
        if admin_client is not None:
            admin_client.close()
    return 1


def handle_action(admin_client: Any, opts: argparse.Namespace, out: TextIO) -> None:
    if opts.verify:
        verify_assignment(admin_client, Path(opts.reassignment_json_file).read_text(), opts.preserve_throttles, out)
    elif opts.generate:
        generate_assignment(admin_client, Path(opts.topics_to_move_json_file).read_text(), opts.broker_list,
                            not opts.disable_rack_aware, out)
    elif opts.execute:
        execute_assignment(admin_client, opts.additional, Path(opts.reassignment_json_file).read_text(), out,
                           opts.timeout, SYSTEM)
    elif opts.cancel:
        cancel_assignment(admin_client, Path(opts.reassignment_json_file).read_text(), opts.preserve_throttles, out,
                          opts.timeout, SYSTEM)
    elif opts.list:
        list_reassignments(admin_client, out)
    else:
        raise RuntimeError("Unsupported action.")


# -- --verify -------------------------------------------------------------------------------------------------------

def verify_assignment(admin_client: Any, json_string: str, preserve_throttles: bool,
                      out: TextIO) -> VerifyAssignmentResult:
    """The state of each partition of the file (current replicas, target replicas, done) and whether any
    reassignment is under way in the cluster; the state of each replica move to a log dir and whether any is under
    way."""
    target_parts, target_log_dirs = parse_partition_reassignment_data(json_string)
    part_states, parts_ongoing = verify_partition_assignments(admin_client, target_parts, out)
    move_states, moves_ongoing = verify_replica_moves(admin_client, target_log_dirs, out)
    # 3.9 clears every throttle here when nothing is ongoing and --preserve-throttles was not given: the port sets none
    return VerifyAssignmentResult(part_states, parts_ongoing, move_states, moves_ongoing)


def verify_partition_assignments(admin_client: Any, targets: list[tuple[TopicPartition, list[int]]], out: TextIO
                                 ) -> tuple[dict[TopicPartition, PartitionReassignmentState], bool]:
    part_states, parts_ongoing = find_partition_reassignment_states(admin_client, targets)
    print(partition_reassignment_states_to_string(part_states), file=out)
    return part_states, parts_ongoing


def partition_reassignment_states_to_string(states: dict[TopicPartition, tuple[list[int], list[int], bool]]) -> str:
    bld = ["Status of partition reassignment:"]
    for topic_partition in sorted(states):
        current_replicas, target_replicas, done = states[topic_partition]
        if done:
            if current_replicas == target_replicas:
                bld.append(f"Reassignment of partition {_tp(topic_partition)} is completed.")
            else:
                bld.append(f"There is no active reassignment of partition {_tp(topic_partition)}, but replica set is "
                           f"{','.join(map(str, current_replicas))} rather than "
                           f"{','.join(map(str, target_replicas))}.")
        else:
            bld.append(f"Reassignment of partition {_tp(topic_partition)} is still in progress.")
    return "\n".join(bld)


def find_partition_reassignment_states(admin_client: Any, target_reassignments: list[tuple[TopicPartition, list[int]]]
                                       ) -> tuple[dict[TopicPartition, tuple[list[int], list[int], bool]], bool]:
    current_reassignments = _list_partition_reassignments(admin_client)
    results: dict[TopicPartition, tuple[list[int], list[int], bool]] = {}
    not_found = []
    for part, target_replicas in target_reassignments:
        if part in current_reassignments:
            results[part] = (current_reassignments[part]["replicas"], target_replicas, False)
        else:
            not_found.append((part, target_replicas))
    descriptions = _describe_topics(admin_client, {part[0] for part, _ in not_found}, missing_ok=True)
    for part, target_replicas in not_found:
        description = descriptions.get(part[0])
        if description is None or part[1] not in description:
            results[part] = ([], target_replicas, True)
        else:
            results[part] = (description[part[1]], target_replicas, True)
    return results, bool(current_reassignments)


def verify_replica_moves(admin_client: Any, target_reassignments: ReplicaLogDirs, out: TextIO
                         ) -> tuple[dict[TopicPartitionReplica, LogDirMoveState], bool]:
    """The state of each replica move, and whether any of them is not done. Unlike the partitions, moves not in the
    file are not looked at (there is no call that lists every ongoing move)."""
    move_states = find_log_dir_move_states(admin_client, target_reassignments)
    print(replica_move_states_to_string(move_states), file=out)
    return move_states, not all(state.done() for state in move_states.values())


def find_log_dir_move_states(admin_client: Any, target_moves: ReplicaLogDirs
                             ) -> dict[TopicPartitionReplica, LogDirMoveState]:
    """Where each replica's move to its target log dir stands."""
    replica_log_dir_infos = describe_replica_log_dirs(admin_client, set(target_moves))
    states: dict[TopicPartitionReplica, LogDirMoveState] = {}
    for replica, target_log_dir in target_moves.items():
        info = replica_log_dir_infos.get(replica)
        if info is None:
            states[replica] = MissingReplicaMoveState(target_log_dir)
        elif info.current_replica_log_dir is None:
            states[replica] = MissingLogDirMoveState(target_log_dir)
        elif info.future_replica_log_dir is None:
            if info.current_replica_log_dir == target_log_dir:
                states[replica] = CompletedMoveState(target_log_dir)
            else:
                states[replica] = CancelledMoveState(info.current_replica_log_dir, target_log_dir)
        else:
            states[replica] = ActiveMoveState(info.current_replica_log_dir, target_log_dir,
                                              info.future_replica_log_dir)
    return states


def replica_move_states_to_string(states: dict[TopicPartitionReplica, LogDirMoveState]) -> str:
    bld = []
    for replica in sorted(states, key=_replica_order):
        state = states[replica]
        topic, partition, broker = replica
        if isinstance(state, MissingLogDirMoveState):
            bld.append(f"Partition {topic}-{partition} is not found in any live log dir on broker {broker}. There is "
                       f"likely an offline log directory on the broker.")
        elif isinstance(state, MissingReplicaMoveState):
            bld.append(f"Partition {topic}-{partition} cannot be found in any live log directory on broker {broker}.")
        elif isinstance(state, ActiveMoveState):
            if state.target_log_dir == state.future_log_dir:
                bld.append(f"Reassignment of replica {_tpr(replica)} is still in progress.")
            else:
                bld.append(f"Partition {topic}-{partition} on broker {broker} is being moved to log dir "
                           f"{state.future_log_dir} instead of {state.target_log_dir}.")
        elif isinstance(state, CancelledMoveState):
            bld.append(f"Partition {topic}-{partition} on broker {broker} is not being moved from log dir "
                       f"{state.current_log_dir} to {state.target_log_dir}.")
        elif isinstance(state, CompletedMoveState):
            bld.append(f"Reassignment of replica {_tpr(replica)} completed successfully.")
    return "\n".join(bld)


# -- --generate -----------------------------------------------------------------------------------------------------

def generate_assignment(admin_client: Any, reassignment_json: str, broker_list_string: str,
                        enable_rack_awareness: bool, out: TextIO
                        ) -> tuple[dict[TopicPartition, list[int]], dict[TopicPartition, list[int]]]:
    brokers_to_reassign, topics_to_reassign = parse_generate_assignment_args(reassignment_json, broker_list_string)
    current_assignments = get_replica_assignment_for_topics(admin_client, topics_to_reassign)
    broker_metadatas = get_broker_metadata(admin_client, brokers_to_reassign, enable_rack_awareness)
    proposed_assignments = calculate_assignment(current_assignments, broker_metadatas)
    print(f"Current partition replica assignment\n{format_as_reassignment_json(current_assignments)}\n", file=out)
    print(f"Proposed partition reassignment configuration\n{format_as_reassignment_json(proposed_assignments)}",
          file=out)
    return proposed_assignments, current_assignments


def calculate_assignment(current_assignment: dict[TopicPartition, list[int]],
                         broker_metadatas: list[BrokerMetadata]) -> dict[TopicPartition, list[int]]:
    grouped_by_topic: dict[str, list[tuple[TopicPartition, list[int]]]] = {}
    for tp, replicas in current_assignment.items():
        grouped_by_topic.setdefault(tp[0], []).append((tp, replicas))
    proposed_assignments = {}
    for topic, assignment in grouped_by_topic.items():
        replicas = assignment[0][1]
        assigned_replicas = assign_replicas_to_brokers(broker_metadatas, len(assignment), len(replicas))
        for partition, replicas0 in assigned_replicas.items():
            proposed_assignments[(topic, partition)] = replicas0
    return proposed_assignments


def get_replica_assignment_for_topics(admin_client: Any, topics: list[str]) -> dict[TopicPartition, list[int]]:
    return {(topic, partition): replicas
            for topic, partitions in _describe_topics(admin_client, set(topics)).items()
            for partition, replicas in partitions.items()}


def get_replica_assignment_for_partitions(admin_client: Any,
                                          partitions: set[TopicPartition]) -> dict[TopicPartition, list[int]]:
    res = {tp: replicas for tp, replicas in
           get_replica_assignment_for_topics(admin_client, sorted({tp[0] for tp in partitions})).items()
           if tp in partitions}
    if set(res) != partitions:
        missing_partitions = sorted(partitions - set(res))
        raise UnknownTopicOrPartitionException("Unable to find partition: "
                                               + ", ".join(_tp(tp) for tp in missing_partitions))
    return res


def get_broker_metadata(admin_client: Any, brokers: list[int], enable_rack_awareness: bool) -> list[BrokerMetadata]:
    broker_set = set(brokers)
    results = [BrokerMetadata(node["broker_id"], node.get("rack") if enable_rack_awareness else None)
               for node in admin_client.describe_cluster()["brokers"] if node["broker_id"] in broker_set]
    num_rackless = sum(1 for m in results if m.rack is None)
    if enable_rack_awareness and num_rackless not in (0, len(results)):
        raise AdminOperationException("Not all brokers have rack information. Add --disable-rack-aware in command "
                                      "line to make replica assignment without rack information.")
    return results


def parse_generate_assignment_args(reassignment_json: str, broker_list: str) -> tuple[list[int], list[str]]:
    broker_list_to_reassign = [int(b) for b in broker_list.split(",")]
    duplicate_reassignments = _duplicates(broker_list_to_reassign)
    if duplicate_reassignments:
        raise AdminCommandFailedException(f"Broker list contains duplicate entries: {duplicate_reassignments}")
    topics_to_reassign = parse_topics_data(reassignment_json)
    duplicate_topics_to_reassign = _duplicates(topics_to_reassign)
    if duplicate_topics_to_reassign:
        raise AdminCommandFailedException(f"List of topics to reassign contains duplicate entries: "
                                          f"{duplicate_topics_to_reassign}")
    return broker_list_to_reassign, topics_to_reassign


# -- --execute ------------------------------------------------------------------------------------------------------

def execute_assignment(admin_client: Any, additional: bool, reassignment_json: str, out: TextIO,
                       timeout_ms: int = DEFAULT_TIMEOUT_MS, time: Time = SYSTEM) -> None:
    """The partition reassignments of the file, then the moves of its replicas that name a log dir; `timeout_ms` is
    how long the moves may take to be accepted."""
    proposed_parts, proposed_replicas = parse_execute_assignment_args(reassignment_json)
    current_reassignments = _list_partition_reassignments(admin_client)
    # an existing reassignment needs --additional, so as not to surprise
    if not additional and current_reassignments:
        raise TerseException(CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE)
    verify_broker_ids(admin_client, {b for replicas in proposed_parts.values() for b in replicas})
    current_parts = get_replica_assignment_for_partitions(admin_client, set(proposed_parts))
    print(current_partition_replica_assignment_to_string(proposed_parts, current_parts), file=out)
    errors = alter_partition_reassignments(admin_client, proposed_parts)
    if errors:
        raise TerseException("Error reassigning partition(s):\n" + "\n".join(
            f"{_tp(part)}: {_error_message(errors[part])}" for part in sorted(errors)))
    print(f"Successfully started partition reassignment{'' if len(proposed_parts) == 1 else 's'} for "
          f"{','.join(_tp(tp) for tp in sorted(proposed_parts))}", file=out)
    if proposed_replicas:
        execute_moves(admin_client, proposed_replicas, timeout_ms, time, out)


def execute_moves(admin_client: Any, proposed_replicas: ReplicaLogDirs, timeout_ms: int, time: Time,
                  out: TextIO) -> None:
    """AlterReplicaLogDirs for each replica, again and again until every broker has accepted its moves or
    `timeout_ms` has passed: a replica that a reassignment has only just put on its broker is not there yet
    (REPLICA_NOT_AVAILABLE), and is asked again 100 ms later."""
    start_time_ms = time.milliseconds()
    pending_replicas = dict(proposed_replicas)
    while True:
        completed = alter_replica_log_dirs(admin_client, pending_replicas)
        for replica in sorted(completed, key=_replica_order):
            print(f"Successfully started moving log directory to {pending_replicas[replica]} for replica "
                  f"{replica[0]}-{replica[1]} with broker {replica[2]} ", file=out)
        for replica in completed:
            del pending_replicas[replica]
        if not pending_replicas:
            return
        if time.milliseconds() >= start_time_ms + timeout_ms:
            raise TerseException(f"Timed out before log directory move{'' if len(pending_replicas) == 1 else 's'} "
                                 f"could be started for: "
                                 + ",".join(_tpr(r) for r in sorted(pending_replicas, key=_replica_order)))
        time.sleep(100)


def verify_broker_ids(admin_client: Any, brokers: set[int]) -> None:
    all_node_ids = {node["broker_id"] for node in admin_client.describe_cluster()["brokers"]}
    unknown = next((b for b in sorted(brokers) if b not in all_node_ids), None)
    if unknown is not None:
        raise AdminCommandFailedException(f"Unknown broker id {unknown}")


def current_partition_replica_assignment_to_string(proposed_parts: dict[TopicPartition, list[int]],
                                                   current_parts: dict[TopicPartition, list[int]]) -> str:
    partitions_to_be_reassigned = {tp: r for tp, r in current_parts.items() if tp in proposed_parts}
    return (f"Current partition replica assignment\n\n{format_as_reassignment_json(partitions_to_be_reassigned)}\n\n"
            "Save this to use as the --reassignment-json-file option during rollback")


def alter_partition_reassignments(admin_client: Any,
                                  reassignments: dict[TopicPartition, list[int] | None]) -> dict[TopicPartition, Any]:
    """The error of each partition the controller refused (the client library's error)."""
    from kafka import TopicPartition as ClientTopicPartition
    results = admin_client.alter_partition_reassignments(
        {ClientTopicPartition(tp[0], tp[1]): replicas for tp, replicas in reassignments.items()})
    errors = {}
    for part, error in results.items():
        if error is not None:
            errors[(part.topic, part.partition)] = error
    return errors


def cancel_partition_reassignments(admin_client: Any, reassignments: set[TopicPartition]) -> dict[TopicPartition, Any]:
    return alter_partition_reassignments(admin_client, dict.fromkeys(reassignments))


# -- --cancel -------------------------------------------------------------------------------------------------------

def cancel_assignment(admin_client: Any, json_string: str, preserve_throttles: bool, out: TextIO,
                      timeout_ms: int = DEFAULT_TIMEOUT_MS, time: Time = SYSTEM
                      ) -> tuple[set[TopicPartition], set[TopicPartitionReplica]]:
    """Cancels the file's partition reassignments that are under way, then its replica moves that are under way (each
    replica is sent back to its current dir, which drops its future log)."""
    target_parts, target_replicas = parse_partition_reassignment_data(json_string)
    target_parts_set = {tp for tp, _ in target_parts}
    cur_reassigning_parts = set()
    for part, reassignment in _list_partition_reassignments(admin_client, target_parts_set).items():
        if not reassignment["adding_replicas"] or reassignment["removing_replicas"]:
            cur_reassigning_parts.add(part)
    if cur_reassigning_parts:
        errors = cancel_partition_reassignments(admin_client, cur_reassigning_parts)
        if errors:
            raise TerseException(f"Error cancelling partition reassignment{'' if len(errors) == 1 else 's'} for:\n"
                                 + "\n".join(f"{_tp(part)}: {_error_message(errors[part])}" for part in sorted(errors)))
        print(f"Successfully cancelled partition reassignment{'' if len(cur_reassigning_parts) == 1 else 's'} for: "
              f"{','.join(_tp(tp) for tp in sorted(cur_reassigning_parts))}", file=out)
    else:
        print("None of the specified partition reassignments are active.", file=out)
    cur_moving_parts = {replica: state.current_log_dir
                        for replica, state in find_log_dir_move_states(admin_client, target_replicas).items()
                        if isinstance(state, ActiveMoveState)}
    if not cur_moving_parts:
        print("None of the specified partition moves are active.", end="", file=out)
    else:
        execute_moves(admin_client, cur_moving_parts, timeout_ms, time, out)
    # 3.9 clears every throttle here unless --preserve-throttles (preserve_throttles) was given: the port sets none
    return cur_reassigning_parts, set(cur_moving_parts)


# -- --list ---------------------------------------------------------------------------------------------------------

def list_reassignments(admin_client: Any, out: TextIO) -> None:
    print(cur_reassignments_to_string(admin_client), file=out)


def cur_reassignments_to_string(admin_client: Any) -> str:
    current_reassignments = _list_partition_reassignments(admin_client)
    lines = []
    for part in sorted(current_reassignments):
        reassignment = current_reassignments[part]
        adding, removing = reassignment["adding_replicas"], reassignment["removing_replicas"]
        lines.append(f"{_tp(part)}: replicas: {','.join(map(str, reassignment['replicas']))}."
                     + (f" adding: {','.join(map(str, adding))}." if adding else "")
                     + (f" removing: {','.join(map(str, removing))}." if removing else ""))
    return "No partition reassignments found." if not lines \
        else "Current partition reassignments:\n" + "\n".join(lines)


# -- JSON -----------------------------------------------------------------------------------------------------------

def format_as_reassignment_json(partitions_to_be_reassigned: dict[TopicPartition, list[int]],
                                replica_log_dir_assignment: dict[tuple[str, int, int], str] | None = None) -> str:
    replica_log_dir_assignment = replica_log_dir_assignment or {}
    partitions = []
    for tp in sorted(partitions_to_be_reassigned):
        replicas = partitions_to_be_reassigned[tp]
        partitions.append({"topic": tp[0], "partition": tp[1], "replicas": replicas,
                           "log_dirs": [replica_log_dir_assignment.get((tp[0], tp[1], r), ANY_LOG_DIR)
                                        for r in replicas]})
    return json.dumps({"version": 1, "partitions": partitions}, separators=(",", ":"))


def parse_topics_data(json_data: str) -> list[str]:
    try:
        js = json.loads(json_data)
    except ValueError:
        raise AdminOperationException("The input string is not a valid JSON") from None
    version = js.get("version", EARLIEST_TOPICS_JSON_VERSION)
    if version != 1:
        raise AdminOperationException(f"Not supported version field value {version}")
    return [entry["topic"] for entry in js.get("topics", [])]


def parse_partition_reassignment_data(json_data: str) -> tuple[list[tuple[TopicPartition, list[int]]], ReplicaLogDirs]:
    """The (partition, replicas) pairs in file order, not deduplicated so they can be checked, and the log dir of
    each replica that names one."""
    try:
        js = json.loads(json_data)
    except ValueError as e:
        raise AdminOperationException(str(e)) from e
    version = js.get("version", EARLIEST_VERSION)
    if version != 1:
        raise AdminOperationException(f"Not supported version field value {version}")
    partition_assignment = []
    replica_assignment = {}
    for partition_fields in js.get("partitions", []):
        topic = partition_fields["topic"]
        partition = int(partition_fields["partition"])
        new_replicas = [int(r) for r in partition_fields["replicas"]]
        new_log_dirs = partition_fields.get("log_dirs", [ANY_LOG_DIR] * len(new_replicas))
        if len(new_replicas) != len(new_log_dirs):
            raise AdminCommandFailedException(f"Size of replicas list {new_replicas} is different from size of log "
                                              f"dirs list {new_log_dirs} for partition {topic}-{partition}")
        partition_assignment.append(((topic, partition), new_replicas))
        for replica, log_dir in zip(new_replicas, new_log_dirs, strict=True):
            if log_dir != ANY_LOG_DIR:
                replica_assignment[(topic, partition, replica)] = log_dir
    return partition_assignment, replica_assignment


def parse_execute_assignment_args(reassignment_json: str
                                  ) -> tuple[dict[TopicPartition, list[int]], dict[tuple[str, int, int], str]]:
    partitions_to_be_reassigned, replica_assignment = parse_partition_reassignment_data(reassignment_json)
    if not partitions_to_be_reassigned:
        raise AdminCommandFailedException("Partition reassignment list cannot be empty")
    if any(not replicas for _, replicas in partitions_to_be_reassigned):
        raise AdminCommandFailedException("Partition replica list cannot be empty")
    duplicate_reassigned_partitions = _duplicates([tp for tp, _ in partitions_to_be_reassigned])
    if duplicate_reassigned_partitions:
        raise AdminCommandFailedException("Partition reassignment contains duplicate topic partitions: "
                                          + ",".join(_tp(tp) for tp in duplicate_reassigned_partitions))
    duplicate_entries = [(tp, _duplicates(replicas)) for tp, replicas in partitions_to_be_reassigned
                         if _duplicates(replicas)]
    if duplicate_entries:
        duplicates_msg = ". ".join(f"{_tp(tp)} contains multiple entries for {','.join(map(str, d))}"
                                   for tp, d in duplicate_entries)
        raise AdminCommandFailedException(f"Partition replica lists may not contain duplicate entries: "
                                          f"{duplicates_msg}")
    return dict(partitions_to_be_reassigned), replica_assignment


# -- the Admin calls, through the client library --------------------------------------------------------------------

def _list_partition_reassignments(admin_client: Any, partitions: set[TopicPartition] | None = None
                                  ) -> dict[TopicPartition, dict[str, list[int]]]:
    topic_partitions = None
    if partitions is not None:
        topic_partitions = {}
        for topic, partition in sorted(partitions):
            topic_partitions.setdefault(topic, []).append(partition)
    return {(tp.topic, tp.partition): {k: list(v) for k, v in reassignment.items()}
            for tp, reassignment in admin_client.list_partition_reassignments(topic_partitions).items()}


def _describe_topics(admin_client: Any, topics: set[str], missing_ok: bool = False) -> dict[str, dict[int, list[int]]]:
    """Each topic's replicas by partition; a topic that does not exist is an error unless `missing_ok`."""
    if not topics:
        return {}
    res = {}
    for description in admin_client.describe_topics(sorted(topics)):
        if description["error_code"] != Errors.NONE:
            if missing_ok and description["error_code"] == Errors.UNKNOWN_TOPIC_OR_PARTITION:
                continue
            raise UnknownTopicOrPartitionException(f"Topic {description['name']} not found.")
        res[description["name"]] = {p["partition_index"]: list(p["replica_nodes"])
                                     for p in description["partitions"]}
    return res


def describe_replica_log_dirs(admin_client: Any, replicas: set[TopicPartitionReplica]
                              ) -> dict[TopicPartitionReplica, ReplicaLogDirInfo]:
    """Admin.describeReplicaLogDirs, as Kafka's admin client does it: DescribeLogDirs for the replicas' partitions to
    each of their brokers; in each log dir of the answer, a partition with is_future_key false is the replica's log
    (its current dir), one with is_future_key true its future log (the dir it is moving to). Every replica of a
    broker gets an info, with no current dir if no live dir has it; a dir that is offline (KAFKA_STORAGE_ERROR) says
    nothing, any other error of a dir fails the call."""
    by_broker: dict[int, dict[str, list[int]]] = {}
    for topic, partition, broker in sorted(replicas, key=_replica_order):
        by_broker.setdefault(broker, {}).setdefault(topic, []).append(partition)
    results: dict[TopicPartitionReplica, ReplicaLogDirInfo] = {}
    for broker, topic_partitions in by_broker.items():
        infos = {(topic, partition): ReplicaLogDirInfo()
                 for topic, partitions in topic_partitions.items() for partition in partitions}
        for answer in admin_client.describe_log_dirs(topic_partitions=topic_partitions, brokers=[broker]):
            for log_dir_info in answer["log_dirs"]:
                log_dir, error = log_dir_info["log_dir"], log_dir_info["error_code"]
                if error == Errors.KAFKA_STORAGE_ERROR:
                    continue
                if error != Errors.NONE:
                    raise RuntimeError(f"The error {Errors.for_code(error).exception_name} for log directory "
                                       f"{log_dir} in the response from broker {broker} is illegal")
                for topic in log_dir_info["topics"]:
                    for replica_info in topic["partitions"]:
                        tp = (topic["name"], replica_info["partition_index"])
                        info = infos.get(tp)
                        if info is None:  # not asked for: Kafka's client logs it and goes on
                            continue
                        if replica_info["is_future_key"]:
                            infos[tp] = ReplicaLogDirInfo(info.current_replica_log_dir,
                                                          info.current_replica_offset_lag, log_dir,
                                                          replica_info["offset_lag"])
                        else:
                            infos[tp] = ReplicaLogDirInfo(log_dir, replica_info["offset_lag"],
                                                          info.future_replica_log_dir, info.future_replica_offset_lag)
        for (topic, partition), info in infos.items():
            results[(topic, partition, broker)] = info
    return results


def _error_message(error: Any) -> str:
    """Throwable.getMessage of the client's error: the broker's message if it gave one, else the error's name."""
    if isinstance(error, BaseException):
        return str(error)
    return getattr(error, "description", None) or getattr(error, "__name__", str(error))


def _duplicates(items: list[Any]) -> list[Any]:
    return [item for item, n in Counter(items).items() if n > 1]


# -- the options ----------------------------------------------------------------------------------------------------

class UsageError(Exception):
    """CommandLineUtils.printUsageAndExit: the usage is printed with the message, and the tool exits with 1."""


def validate_and_parse_args(args: list[str]) -> argparse.Namespace:
    """The options of exactly one action, each with what it needs and nothing it may not have; a UsageError
    otherwise."""
    parser = build_parser()
    if not args or "--help" in args or "-h" in args:  # maybePrintHelpOrVersion
        raise UsageError(HELP_TEXT)
    opts, extra = parser.parse_known_args(args)
    unknown = [a for a in extra if a.startswith("-")]
    if unknown:
        raise UsageError(f"{unknown[0]} is not a recognized option")
    all_actions = [a for a in ACTIONS if getattr(opts, a)]
    if len(all_actions) != 1:
        raise UsageError("Command must include exactly one action: " + ", ".join(f"--{a}" for a in ACTIONS))
    action = all_actions[0]
    if not opts.bootstrap_server:
        raise UsageError("Please specify --bootstrap-server")
    required_args = {"verify": ["reassignment_json_file"], "generate": ["topics_to_move_json_file", "broker_list"],
                     "execute": ["reassignment_json_file"], "cancel": ["reassignment_json_file"], "list": []}
    for name in required_args[action]:
        if getattr(opts, name) is None:
            raise UsageError(f"Missing required argument \"[{name.replace('_', '-')}]\"")
    permitted_args = {
        "verify": {"bootstrap_server", "preserve_throttles"},
        "generate": {"bootstrap_server", "broker_list", "disable_rack_aware"},
        "execute": {"additional", "bootstrap_server", "timeout"},
        "cancel": {"bootstrap_server", "preserve_throttles", "timeout"},
        "list": {"bootstrap_server"},
    }
    for name, value in vars(opts).items():
        if name in ACTIONS or value in (None, False) or name in permitted_args[action] \
                or name in required_args[action]:
            continue
        raise UsageError(f"Option \"[{name.replace('_', '-')}]\" can't be used with action \"[{action}]\"")
    if opts.timeout is None:
        opts.timeout = DEFAULT_TIMEOUT_MS
    else:
        try:
            opts.timeout = int(opts.timeout)
        except ValueError:
            raise UsageError(f"Cannot parse argument '{opts.timeout}' of option timeout") from None
    return opts


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-edu reassign-partitions", description=HELP_TEXT, add_help=False)
    parser.add_argument("--bootstrap-server", help="the server(s) to use for bootstrapping. REQUIRED")
    parser.add_argument("--reassignment-json-file",
                        help='The JSON file with the partition reassignment configuration: {"version": 1, '
                             '"partitions": [{"topic": "foo", "partition": 1, "replicas": [1, 2, 3], "log_dirs": '
                             '["dir1", "dir2", "dir3"]}]}. "log_dirs" is optional: each entry is the absolute path '
                             'of the log directory its replica is to be moved to on its broker, or "any" to leave '
                             'it where the broker puts it.')
    parser.add_argument("--topics-to-move-json-file",
                        help='Generate a reassignment configuration to move the partitions of the specified topics '
                             'to the list of brokers specified by the --broker-list option: {"topics": [{"topic": '
                             '"foo"}], "version": 1}')
    parser.add_argument("--broker-list", help='The list of brokers to which the partitions need to be reassigned in '
                                              'the form "0,1,2". This is required if --topics-to-move-json-file is '
                                              'used to generate reassignment configuration')
    parser.add_argument("--generate", action="store_true",
                        help="Generate a candidate partition reassignment configuration. Note that this only "
                             "generates a candidate assignment, it does not execute it.")
    parser.add_argument("--execute", action="store_true",
                        help="Kick off the reassignment as specified by the --reassignment-json-file option.")
    parser.add_argument("--verify", action="store_true",
                        help="Verify if the reassignment completed as specified by the --reassignment-json-file "
                             "option.")
    parser.add_argument("--cancel", action="store_true",
                        help="Cancel an active reassignment.")
    parser.add_argument("--list", action="store_true",
                        help="List all active partition reassignments.")
    parser.add_argument("--timeout",
                        help="With --execute or --cancel: how long, in ms, to keep asking the brokers to start the "
                             "moves between log directories before giving up (default: 10000).")
    parser.add_argument("--additional", action="store_true",
                        help="Execute this reassignment in addition to any other ongoing ones.")
    parser.add_argument("--disable-rack-aware", action="store_true",
                        help="Disable rack aware replica assignment")
    parser.add_argument("--preserve-throttles", action="store_true",
                        help="Do not modify broker or topic throttles (the port sets none).")
    return parser


def alter_replica_log_dirs(admin_client: Any, assignment: ReplicaLogDirs) -> set[TopicPartitionReplica]:
    """AlterReplicaLogDirs (to each replica's broker): the replicas whose move was accepted. A replica its broker does
    not have yet (REPLICA_NOT_AVAILABLE) is left for the next try; any other error fails the command, with the
    broker's error as the cause."""
    from kafka import TopicPartitionReplica as ClientTopicPartitionReplica
    from kafka.errors import NoError, ReplicaNotAvailableError
    results: set[TopicPartitionReplica] = set()
    if not assignment:
        return results
    answers = admin_client.alter_replica_log_dirs(
        {ClientTopicPartitionReplica(topic, partition, broker): log_dir
         for (topic, partition, broker), log_dir in assignment.items()})
    errors = {(r.topic, r.partition, r.broker_id): error for r, error in answers.items()}
    for replica in sorted(assignment, key=_replica_order):
        error = errors.get(replica)
        if error is NoError:
            results.add(replica)
        elif error is ReplicaNotAvailableError:
            continue  # the replica is not on its broker yet: fine for now
        elif error is None:
            raise AdminCommandFailedException(f"Failed to alter dir for {_tpr(replica)}") from RuntimeError(
                f"The response from broker {replica[2]} did not contain a result for replica {_tpr(replica)}")
        else:
            cause = error(error.description) if isinstance(error, type) else error
            raise AdminCommandFailedException(f"Failed to alter dir for {_tpr(replica)}") from cause
    return results
