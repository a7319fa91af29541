"""Port of core/src/main/scala/kafka/admin/PreferredReplicaLeaderElectionCommand.scala (Kafka 1.0.2):
`kafka-preferred-replica-election.sh [--path-to-json-file F] --zookeeper Z`.

The tool elects nobody itself. It writes the partitions to `/admin/preferred_replica_election`; the controller
watches that znode, moves each partition's leadership back to its preferred replica (the first assigned one), and
deletes the znode when it is done. While the znode exists, a second request is refused.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Set
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import (
    AdminCommandFailedException,
    AdminOperationException,
    ZkNodeExistsException,
)
from kafka_edu.v1_0_2.core.controller.controller_context import get_replica_assignment_for_topics
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    PREFERRED_REPLICA_LEADER_ELECTION_PATH,
    ZkUtils,
    preferred_replica_leader_election_zk_data,
)

# The tool's own ZooKeeper timeouts (session, connection), as in 1.0.2.
ZK_SESSION_TIMEOUT_MS = 30000
ZK_CONNECTION_TIMEOUT_MS = 30000


def run(zk_connect: str, path_to_json_file: str | None) -> None:
    """main: the partitions of the JSON file, or every partition of every topic, handed to the controller."""
    zk_utils = ZkUtils(zk_connect, ZK_SESSION_TIMEOUT_MS, ZK_CONNECTION_TIMEOUT_MS)
    try:
        if path_to_json_file is None:
            partitions_for_preferred_replica_election = zk_utils.get_all_partitions()
        else:
            partitions_for_preferred_replica_election = parse_preferred_replica_election_data(
                Path(path_to_json_file).read_text())
        preferred_replica_election_command = PreferredReplicaLeaderElectionCommand(
            zk_utils, partitions_for_preferred_replica_election)
        preferred_replica_election_command.move_leader_to_preferred_replica()
    finally:
        zk_utils.close()


def parse_preferred_replica_election_data(json_string: str) -> set[TopicPartition]:
    """{"partitions": [{"topic": "foo", "partition": 1}, ...]} as a set; a partition listed twice is refused."""
    try:
        js = json.loads(json_string)
    except ValueError:
        # 1.0.2 reads text that is not JSON as no data at all; the message here also says why.
        raise AdminOperationException("Preferred replica election data is empty (it is not valid JSON)") from None
    partitions_list = js.get("partitions") if isinstance(js, dict) else None
    if partitions_list is None:
        raise AdminOperationException("Preferred replica election data is empty")
    if not isinstance(partitions_list, list):
        raise AdminOperationException(f"Expected a JSON array for \"partitions\", got {json.dumps(partitions_list)}")
    partitions = [TopicPartition(_field(p, "topic", str), _field(p, "partition", int)) for p in partitions_list]
    duplicate_partitions = _duplicates(partitions)
    if duplicate_partitions:
        raise AdminOperationException("Preferred replica election data contains duplicate partitions: "
                                      + ",".join(map(str, duplicate_partitions)))
    return set(partitions)


def write_preferred_replica_election_data(zk_utils: ZkUtils, partitions: Set[TopicPartition]) -> None:
    """Create `/admin/preferred_replica_election`; only one election request may be pending at a time."""
    zk_path = PREFERRED_REPLICA_LEADER_ELECTION_PATH
    json_data = preferred_replica_leader_election_zk_data(sorted(partitions))
    try:
        zk_utils.create_persistent_path(zk_path, json_data)
        print(f"Created preferred replica election path with {json_data}")
    except ZkNodeExistsException:
        data, _ = zk_utils.read_data_maybe_null(zk_path)
        # The znode may have been deleted in between: the controller finished the election just now.
        partitions_undergoing_preferred_replica_election = (
            parse_preferred_replica_election_data(data) if data is not None else set())
        raise AdminOperationException("Preferred replica leader election currently in progress for "
                                      f"{_format(partitions_undergoing_preferred_replica_election)}. "
                                      "Aborting operation") from None
    except Exception as e:
        raise AdminOperationException(repr(e)) from e


class PreferredReplicaLeaderElectionCommand:
    def __init__(self, zk_utils: ZkUtils, partitions_from_user: Set[TopicPartition]) -> None:
        self.zk_utils = zk_utils
        self.partitions_from_user = partitions_from_user

    def move_leader_to_preferred_replica(self) -> None:
        """Write the partitions that exist in `/brokers/topics`; name the others, which are skipped."""
        try:
            topics = {tp.topic for tp in self.partitions_from_user}
            partitions_from_zk = self._partitions_for_topics(topics)
            valid_partitions = {tp for tp in self.partitions_from_user if tp in partitions_from_zk}
            invalid_partitions = self.partitions_from_user - valid_partitions
            write_preferred_replica_election_data(self.zk_utils, valid_partitions)
            print(f"Successfully started preferred replica election for partitions {_format(valid_partitions)}")
            for p in sorted(invalid_partitions):
                print(f"Skipping preferred replica leader election for partition {p} since it doesn't exist.")
        except Exception as e:
            raise AdminCommandFailedException("Admin command failed") from e

    def _partitions_for_topics(self, topics: Iterable[str]) -> set[TopicPartition]:
        """ZkUtils.getPartitionsForTopics: the partitions of each topic's assignment in `/brokers/topics/<topic>`."""
        return set(get_replica_assignment_for_topics(self.zk_utils, topics))


def _duplicates(items: Iterable[Any]) -> list[Any]:
    """CoreUtils.duplicates: the items that occur more than once, each named once."""
    return [item for item, count in Counter(items).items() if count > 1]


def _field(entry: Any, name: str, kind: type) -> Any:
    """One field of a partition entry, of the expected JSON type."""
    if not isinstance(entry, dict) or name not in entry:
        raise AdminOperationException(f"Missing field \"{name}\" in {json.dumps(entry)}")
    value = entry[name]
    if not isinstance(value, kind) or isinstance(value, bool):  # JSON true is no partition id
        json_type = "string" if kind is str else "integer"
        raise AdminOperationException(f"Field \"{name}\" of {json.dumps(entry)} is not a JSON {json_type}")
    return value


def _format(partitions: Iterable[TopicPartition]) -> str:
    return "{" + ", ".join(str(tp) for tp in sorted(partitions)) + "}"
