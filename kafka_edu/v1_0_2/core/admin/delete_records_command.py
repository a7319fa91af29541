"""Port of core/src/main/scala/kafka/admin/DeleteRecordsCommand.scala (Kafka 1.0.2): `kafka-delete-records.sh
--bootstrap-server B --offset-json-file F`, F being {"partitions": [{"topic": "foo", "partition": 0, "offset": 5}],
"version": 1}.

Each partition's leader moves its log start offset up to the offset (-1: its high watermark) and answers once every
live follower has too; the records below are gone for consumers at once and from disk when retention next runs.
The request goes through a real client library (confluent-kafka's AdminClient, which sends DeleteRecords to each
partition's leader), as 1.0.2's tool went through its AdminClient.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from kafka_edu.v1_0_2.clients.common.errors import AdminCommandFailedException, AdminOperationException

# the preferred-election tool's reader of a JSON entry's field: the same errors for the same kind of file
from kafka_edu.v1_0_2.core.admin.preferred_replica_leader_election_command import _field

EARLIEST_VERSION = 1
TIMEOUT_S = 30


def parse_offset_json_string_without_dedup(json_data: str) -> list[tuple[tuple[str, int], int]]:
    """((topic, partition), offset) in file order; a file with no "partitions" deletes nothing."""
    try:
        js = json.loads(json_data)
    except ValueError:
        raise AdminOperationException("The input string is not a valid JSON") from None
    if not isinstance(js, dict):
        raise AdminOperationException("The input string is not a valid JSON")
    version = js.get("version", EARLIEST_VERSION)
    if version != 1:
        raise AdminOperationException(f"Not supported version field value {version}")
    partitions = js.get("partitions")
    if partitions is None:
        return []
    if not isinstance(partitions, list):
        raise AdminOperationException(f"Expected a JSON array for \"partitions\", got {json.dumps(partitions)}")
    return [((_field(p, "topic", str), _field(p, "partition", int)), _field(p, "offset", int)) for p in partitions]


def execute(bootstrap_server: str, offset_json_file: str, out: Callable[[str], None] = print) -> int:
    offset_seq = parse_offset_json_string_without_dedup(Path(offset_json_file).read_text())
    duplicate_partitions = [tp for tp, count in Counter(tp for tp, _ in offset_seq).items() if count > 1]
    if duplicate_partitions:
        raise AdminCommandFailedException("Offset json file contains duplicate topic partitions: "
                                          + ",".join(f"{t}-{p}" for t, p in duplicate_partitions))
    out("Executing records delete operation")
    admin_client = AdminClient({"bootstrap.servers": bootstrap_server})
    futures = admin_client.delete_records([TopicPartition(t, p, offset) for (t, p), offset in offset_seq],
                                          request_timeout=TIMEOUT_S, operation_timeout=TIMEOUT_S)
    results: dict[tuple[str, int], Any] = {}
    for tp, future in futures.items():
        try:
            results[(tp.topic, tp.partition)] = future.result(TIMEOUT_S).low_watermark
        except KafkaException as e:
            results[(tp.topic, tp.partition)] = e.args[0]
    out("Records delete operation completed:")
    failed = 0
    for (topic, partition), result in results.items():
        if isinstance(result, int):
            out(f"partition: {topic}-{partition}\tlow_watermark: {result}")
        else:
            failed += 1
            out(f"partition: {topic}-{partition}\terror: {result.name()}: {result.str()}")
    return 1 if failed else 0

