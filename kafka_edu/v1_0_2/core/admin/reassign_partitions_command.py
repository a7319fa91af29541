"""Port of core/src/main/scala/kafka/admin/ReassignPartitionsCommand.scala (Kafka 1.0.2):
`kafka-reassign-partitions.sh --zookeeper Z --generate | --execute | --verify`.

The tool moves nothing itself. `--execute` writes the target replicas to `/admin/reassign_partitions`; the controller
watches that znode, grows each partition onto its new replicas, waits for them to join the ISR, drops the old ones,
and removes each finished partition from the znode (deleting it when none is left). `--generate` only proposes an
assignment; `--verify` compares the znode and `/brokers/topics` with the proposal.

Not ported: the throttle (`--throttle`, and `--verify` removing it), so no replication quota is ever set; and rack
awareness (`--disable-rack-aware`): `--generate` always assigns replicas as AdminUtils does without racks.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import AdminCommandFailedException, ZkNodeExistsException
from kafka_edu.v1_0_2.core.controller.controller_context import get_replica_assignment_for_topics
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.admin_manager import assign_replicas_to_brokers
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    REASSIGN_PARTITIONS_PATH,
    ZkUtils,
    format_as_reassignment_json,
    parse_partition_reassignment_data,
    parse_partition_reassignment_data_without_dedup,
    parse_topics_data,
)

log = logging.getLogger("kafka.admin.ReassignPartitionsCommand")

# The tool's own ZooKeeper timeouts (session, connection), as in 1.0.2.
ZK_SESSION_TIMEOUT_MS = 30000
ZK_CONNECTION_TIMEOUT_MS = 30000


class ReassignmentStatus(Enum):
    """ReassignmentCompleted, ReassignmentInProgress and ReassignmentFailed, with 1.0.2's status codes."""

    COMPLETED = 1
    IN_PROGRESS = 0
    FAILED = -1


def run(zk_connect: str, action: str, reassignment_json_file: str | None = None,
        topics_to_move_json_file: str | None = None, broker_list: str | None = None) -> int:
    """main: one action against the cluster whose ZooKeeper is `zk_connect`; 1 if `--execute` started nothing."""
    zk_utils = ZkUtils(zk_connect, ZK_SESSION_TIMEOUT_MS, ZK_CONNECTION_TIMEOUT_MS)
    try:
        if action == "verify":
            verify_assignment(zk_utils, Path(reassignment_json_file).read_text())
        elif action == "generate":
            generate_assignment_from_options(zk_utils, topics_to_move_json_file, broker_list)
        elif action == "execute":
            return 0 if execute_assignment(zk_utils, Path(reassignment_json_file).read_text()) else 1
        return 0
    finally:
        zk_utils.close()


def verify_assignment(zk_utils: ZkUtils, json_string: str) -> dict[TopicPartition, ReassignmentStatus]:
    """Print, for each partition of the reassignment JSON, whether its move completed, is running, or failed."""
    print("Status of partition reassignment: ")
    partitions_to_be_reassigned = parse_partition_reassignment_data(json_string)
    reassigned_partitions_status = check_if_reassignment_succeeded(zk_utils, partitions_to_be_reassigned)
    for topic_partition, status in reassigned_partitions_status.items():
        if status == ReassignmentStatus.COMPLETED:
            print(f"Reassignment of partition {topic_partition} completed successfully")
        elif status == ReassignmentStatus.FAILED:
            print(f"Reassignment of partition {topic_partition} failed")
        else:
            print(f"Reassignment of partition {topic_partition} is still in progress")
    # 1.0.2 now removes the replication throttle once every partition has completed: throttles are not ported.
    return reassigned_partitions_status


def generate_assignment_from_options(zk_utils: ZkUtils, topics_to_move_json_file: str, broker_list: str) -> None:
    """generateAssignment(zkUtils, opts): print the current assignment of the topics and a proposed one."""
    broker_list_to_reassign = [int(b) for b in broker_list.split(",")]
    duplicate_reassignments = _duplicates(broker_list_to_reassign)
    if duplicate_reassignments:
        raise AdminCommandFailedException("Broker list contains duplicate entries: "
                                          + ",".join(map(str, duplicate_reassignments)))
    topics_to_move_json_string = Path(topics_to_move_json_file).read_text()
    proposed_assignments, current_assignments = generate_assignment(zk_utils, broker_list_to_reassign,
                                                                    topics_to_move_json_string)
    print(f"Current partition replica assignment\n{format_as_reassignment_json(current_assignments)}\n")
    print(f"Proposed partition reassignment configuration\n{format_as_reassignment_json(proposed_assignments)}")


def generate_assignment(zk_utils: ZkUtils, broker_list_to_reassign: list[int], topics_to_move_json_string: str
                        ) -> tuple[dict[TopicPartition, list[int]], dict[TopicPartition, list[int]]]:
    """(proposed, current): each topic's partitions spread anew over the brokers, keeping its replication factor."""
    topics_to_reassign = parse_topics_data(topics_to_move_json_string)
    duplicate_topics_to_reassign = _duplicates(topics_to_reassign)
    if duplicate_topics_to_reassign:
        raise AdminCommandFailedException("List of topics to reassign contains duplicate entries: "
                                          + ",".join(duplicate_topics_to_reassign))
    # A topic that does not exist has no assignment, so it is left out without a word, as in 1.0.2.
    current_assignment = _sorted(get_replica_assignment_for_topics(zk_utils, topics_to_reassign))

    grouped_by_topic: dict[str, dict[TopicPartition, list[int]]] = defaultdict(dict)
    for tp, replicas in current_assignment.items():
        grouped_by_topic[tp.topic][tp] = replicas
    # AdminUtils.getBrokerMetadatas: the listed brokers that are registered; an unknown id is dropped silently.
    broker_metadatas = [b for b in zk_utils.get_sorted_broker_list() if b in broker_list_to_reassign]

    partitions_to_be_reassigned: dict[TopicPartition, list[int]] = {}
    for topic, assignment in grouped_by_topic.items():
        replicas = next(iter(assignment.values()))
        assigned_replicas = assign_replicas_to_brokers(broker_metadatas, len(assignment), len(replicas))
        partitions_to_be_reassigned.update(
            (TopicPartition(topic, partition), new_replicas) for partition, new_replicas in assigned_replicas.items())
    return partitions_to_be_reassigned, current_assignment


def execute_assignment(zk_utils: ZkUtils, reassignment_json_string: str) -> bool:
    """Validate the reassignment JSON and write it to `/admin/reassign_partitions`; True if a reassignment started."""
    partitions_to_be_reassigned = parse_and_validate(zk_utils, reassignment_json_string)
    reassign_partitions_command = ReassignPartitionsCommand(zk_utils, dict(partitions_to_be_reassigned))

    if zk_utils.path_exists(REASSIGN_PARTITIONS_PATH):
        # 1.0.2 would now change the throttle of the running reassignment: throttles are not ported.
        print("There is an existing assignment running.")
        return False
    print_current_assignment(zk_utils, partitions_to_be_reassigned)
    if reassign_partitions_command.reassign_partitions():
        print("Successfully started reassignment of partitions.")
        return True
    print(f"Failed to reassign partitions {format_as_reassignment_json(dict(partitions_to_be_reassigned))}")
    return False


def print_current_assignment(zk_utils: ZkUtils, partitions_to_be_reassigned: list[tuple[TopicPartition, list[int]]]
                             ) -> None:
    # Printed before anything moves, so the operator can feed it back to --execute to roll back.
    topics = list(dict.fromkeys(tp.topic for tp, _ in partitions_to_be_reassigned))
    current_partition_replica_assignment = _sorted(get_replica_assignment_for_topics(zk_utils, topics))
    print(f"Current partition replica assignment\n\n{format_as_reassignment_json(current_partition_replica_assignment)}"
          "\n\nSave this to use as the --reassignment-json-file option during rollback")


def parse_and_validate(zk_utils: ZkUtils, reassignment_json_string: str) -> list[tuple[TopicPartition, list[int]]]:
    """The reassignment JSON's entries, refused (AdminCommandFailedException) unless every one can be carried out."""
    partitions_to_be_reassigned = parse_partition_reassignment_data_without_dedup(reassignment_json_string)

    if not partitions_to_be_reassigned:
        # 1.0.2 reads text that is not JSON as no partitions; the message here also says why.
        reason = "" if _is_json(reassignment_json_string) else " (it is not valid JSON)"
        raise AdminCommandFailedException(f"Partition reassignment data file is empty{reason}")
    if any(not replicas for _, replicas in partitions_to_be_reassigned):
        raise AdminCommandFailedException("Partition replica list cannot be empty")
    duplicate_reassigned_partitions = _duplicates(tp for tp, _ in partitions_to_be_reassigned)
    if duplicate_reassigned_partitions:
        raise AdminCommandFailedException("Partition reassignment contains duplicate topic partitions: "
                                          + ",".join(map(str, duplicate_reassigned_partitions)))
    duplicate_entries = [(tp, _duplicates(replicas)) for tp, replicas in partitions_to_be_reassigned
                         if _duplicates(replicas)]
    if duplicate_entries:
        duplicates_msg = ". ".join(f"{tp} contains multiple entries for {','.join(map(str, duplicate_replicas))}"
                                   for tp, duplicate_replicas in duplicate_entries)
        raise AdminCommandFailedException("Partition replica lists may not contain duplicate entries: "
                                          + duplicates_msg)

    # Every partition of the proposal must exist in the cluster...
    proposed_topics = list(dict.fromkeys(tp.topic for tp, _ in partitions_to_be_reassigned))
    existing_assignment = get_replica_assignment_for_topics(zk_utils, proposed_topics)
    non_existent_partitions = [tp for tp, _ in partitions_to_be_reassigned if tp not in existing_assignment]
    if non_existent_partitions:
        raise AdminCommandFailedException("The proposed assignment contains non-existent partitions: "
                                          + ",".join(map(str, non_existent_partitions)))

    # ...and so must every broker it names: registered, that is, alive right now.
    existing_broker_ids = zk_utils.get_sorted_broker_list()
    non_existing_broker_ids = sorted({r for _, replicas in partitions_to_be_reassigned for r in replicas
                                      if r not in existing_broker_ids})
    if non_existing_broker_ids:
        raise AdminCommandFailedException("The proposed assignment contains non-existent brokerIDs: "
                                          + ",".join(map(str, non_existing_broker_ids)))
    return partitions_to_be_reassigned


def check_if_reassignment_succeeded(zk_utils: ZkUtils, partitions_to_be_reassigned: dict[TopicPartition, list[int]]
                                    ) -> dict[TopicPartition, ReassignmentStatus]:
    partitions_being_reassigned = zk_utils.get_partitions_being_reassigned()
    return {topic_and_partition: check_if_partition_reassignment_succeeded(
                zk_utils, topic_and_partition, partitions_to_be_reassigned, partitions_being_reassigned)
            for topic_and_partition in partitions_to_be_reassigned}


def check_if_partition_reassignment_succeeded(zk_utils: ZkUtils, topic_and_partition: TopicPartition,
                                              partitions_to_be_reassigned: dict[TopicPartition, list[int]],
                                              partitions_being_reassigned: dict[TopicPartition, list[int]]
                                              ) -> ReassignmentStatus:
    """Still in the znode: in progress. Gone from it: completed if `/brokers/topics` now holds the target, in order."""
    new_replicas = partitions_to_be_reassigned[topic_and_partition]
    if topic_and_partition in partitions_being_reassigned:
        return ReassignmentStatus.IN_PROGRESS
    assigned_replicas = zk_utils.get_replicas_for_partition(topic_and_partition.topic, topic_and_partition.partition)
    if assigned_replicas == new_replicas:
        return ReassignmentStatus.COMPLETED
    print(f"ERROR: Assigned replicas ({','.join(map(str, assigned_replicas))}) don't match the list of replicas for "
          f"reassignment ({','.join(map(str, new_replicas))}) for partition {topic_and_partition}")
    return ReassignmentStatus.FAILED


def validate_and_parse_args(options: argparse.Namespace) -> str | None:
    """The usage error of the command line, if any: each action needs its own files and refuses the others'."""
    actions = [name for name in ("generate", "execute", "verify") if getattr(options, name)]
    if len(actions) != 1:
        return "Command must include exactly one action: --generate, --execute or --verify"
    if options.verify:
        if options.reassignment_json_file is None:
            return ("If --verify option is used, command must include --reassignment-json-file that was used during "
                    "the --execute option")
        return _check_invalid_args(options, "--verify", ("topics_to_move_json_file", "broker_list"))
    if options.generate:
        if options.topics_to_move_json_file is None or options.broker_list is None:
            return ("If --generate option is used, command must include both --topics-to-move-json-file and "
                    "--broker-list options")
        if not all(b.strip().lstrip("-").isdigit() for b in options.broker_list.split(",")):
            return f"--broker-list takes broker ids in the form \"0,1,2\", not \"{options.broker_list}\""
        return _check_invalid_args(options, "--generate", ("reassignment_json_file",))
    if options.reassignment_json_file is None:
        return ("If --execute option is used, command must include --reassignment-json-file that was output during "
                "the --generate option")
    return _check_invalid_args(options, "--execute", ("topics_to_move_json_file", "broker_list"))


class ReassignPartitionsCommand:
    def __init__(self, zk_utils: ZkUtils, proposed_assignment: dict[TopicPartition, list[int]]) -> None:
        self.zk_utils = zk_utils
        self.proposed_assignment = proposed_assignment

    def existing_assignment(self) -> dict[TopicPartition, list[int]]:
        proposed_topics = list(dict.fromkeys(tp.topic for tp in self.proposed_assignment))
        return get_replica_assignment_for_topics(self.zk_utils, proposed_topics)

    def reassign_partitions(self) -> bool:
        """Create `/admin/reassign_partitions` with the partitions that exist; only one reassignment may run."""
        # 1.0.2 sets the throttle here first (maybeThrottle): throttles are not ported.
        try:
            valid_partitions = {tp: replicas for tp, replicas in self.proposed_assignment.items()
                                if self.validate_partition(tp.topic, tp.partition)}
            if not valid_partitions:
                return False
            json_reassignment_data = format_as_reassignment_json(valid_partitions)
            self.zk_utils.create_persistent_path(REASSIGN_PARTITIONS_PATH, json_reassignment_data)
            return True
        except ZkNodeExistsException:
            # Another --execute won the race since the check in execute_assignment.
            partitions_being_reassigned = self.zk_utils.get_partitions_being_reassigned()
            raise AdminCommandFailedException("Partition reassignment currently in progress for "
                                              f"{format_as_reassignment_json(partitions_being_reassigned)}. "
                                              "Aborting operation") from None
        except Exception:
            log.exception("Admin command failed")
            return False

    def validate_partition(self, topic: str, partition: int) -> bool:
        partitions = {tp.partition for tp in get_replica_assignment_for_topics(self.zk_utils, [topic])}
        if not partitions:
            log.error("Skipping reassignment of partition [%s,%d] since topic %s doesn't exist", topic, partition,
                      topic)
            return False
        if partition not in partitions:
            log.error("Skipping reassignment of partition [%s,%d] since it doesn't exist", topic, partition)
            return False
        return True


def _check_invalid_args(options: argparse.Namespace, used_option: str, invalid: Iterable[str]) -> str | None:
    """CommandLineUtils.checkInvalidArgs: options that make no sense with the chosen action."""
    for name in invalid:
        if getattr(options, name) is not None:
            return f"Option \"{used_option}\" can't be used with option \"--{name.replace('_', '-')}\""
    return None


def _duplicates(items: Iterable[Any]) -> list[Any]:
    """CoreUtils.duplicates: the items that occur more than once, each named once."""
    return [item for item, count in Counter(items).items() if count > 1]


def _sorted(assignment: dict[TopicPartition, list[int]]) -> dict[TopicPartition, list[int]]:
    # By topic and partition, so that the printed JSON reads (and diffs) the same every time.
    return dict(sorted(assignment.items()))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        return False
