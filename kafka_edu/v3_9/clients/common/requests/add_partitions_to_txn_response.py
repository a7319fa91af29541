"""Port of clients/src/main/java/org/apache/kafka/common/requests/AddPartitionsToTxnResponse.java (Kafka 3.9), the
part the broker uses: resultForTransaction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition


def result_for_transaction(transactional_id: str | None, errors: Mapping[TopicPartition, Errors]) -> dict[str, Any]:
    """A transaction's partition errors grouped by topic, in topic and partition order (Kafka walks a HashMap; a
    Python set's order changes with the process's string hashing, and an answer whose order changes from run to run
    helps nobody)."""
    topics: dict[str, dict[str, Any]] = {}
    for tp, error in sorted(errors.items(), key=lambda item: (str(item[0].topic), item[0].partition)):
        topics.setdefault(str(tp.topic), dict(name=tp.topic, results_by_partition=[]))["results_by_partition"].append(
            dict(partition_index=tp.partition, partition_error_code=error))
    return dict(transactional_id=transactional_id, topic_results=list(topics.values()))
