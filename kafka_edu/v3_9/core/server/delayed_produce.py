"""Port of core/src/main/scala/kafka/server/DelayedProduce.scala (Kafka 3.9): a produce with acks=-1 waiting in the
Produce purgatory until every partition's ISR has the appended records (or an error, or the timeout)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import step
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperation

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager

log = logging.getLogger("kafka.server.DelayedProduce")


@dataclass(eq=False)
class ProducePartitionStatus:
    required_offset: int
    response_status: PartitionResponse
    acks_pending: bool = False

    def __str__(self) -> str:
        return (f"[acksPending: {self.acks_pending}, error: {self.response_status.error.code}, "
                f"startOffset: {self.response_status.base_offset}, requiredOffset: {self.required_offset}]")


@dataclass(frozen=True)
class ProduceMetadata:
    produce_required_acks: int
    produce_status: Mapping[TopicPartition, ProducePartitionStatus]

    def __str__(self) -> str:
        return f"[requiredAcks: {self.produce_required_acks}, partitionStatus: {dict(self.produce_status)}]"


class DelayedProduce(DelayedOperation):
    """Each partition that appended without error waits for its acknowledgements (REQUEST_TIMED_OUT until then)."""

    def __init__(self, delay_ms: int, produce_metadata: ProduceMetadata, replica_manager: ReplicaManager,
                 response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None],
                 lock_opt: Any = None) -> None:
        super().__init__(delay_ms, lock_opt)
        self.produce_metadata = produce_metadata
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        for topic_partition, status in produce_metadata.produce_status.items():
            if status.response_status.error == Errors.NONE:
                status.acks_pending = True
                status.response_status.error = Errors.REQUEST_TIMED_OUT
            else:
                status.acks_pending = False
            log.debug("Initial partition status for %s is %s", topic_partition, status)

    @step("RQ.produce.8")
    def try_complete(self) -> bool:
        """Done when each pending partition has left the leader's hands, reached the required offset in the ISR,
        or failed (lost leadership, fell below min ISR)."""
        for topic_partition, status in self.produce_metadata.produce_status.items():
            if status.acks_pending:
                partition_or_error = self.replica_manager.get_partition_or_error(topic_partition)
                if isinstance(partition_or_error, Errors):
                    has_enough, error = False, partition_or_error
                else:
                    has_enough, error = partition_or_error.check_enough_replicas_reach_offset(status.required_offset)
                if error != Errors.NONE or has_enough:
                    status.acks_pending = False
                    status.response_status.error = error

        if not any(status.acks_pending for status in self.produce_metadata.produce_status.values()):
            return self.force_complete()
        return False

    def on_expiration(self) -> None:
        for topic_partition, status in self.produce_metadata.produce_status.items():
            if status.acks_pending:
                log.debug("Expiring produce request for partition %s with status %s", topic_partition, status)

    def on_complete(self) -> None:
        response_status = {tp: status.response_status for tp, status in self.produce_metadata.produce_status.items()}
        self.response_callback(response_status)
