"""Port of core/src/main/scala/kafka/server/DelayedDeleteRecords.scala (Kafka 3.9): a DeleteRecords request waiting in
its purgatory until every partition's low watermark (the smallest log start offset among the replicas) reaches the
requested offset."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperation

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager

log = logging.getLogger("kafka.server.DelayedDeleteRecords")

INVALID_LOW_WATERMARK = -1  # DeleteRecordsResponse.INVALID_LOW_WATERMARK


@dataclass
class DeleteRecordsPartitionResult:
    """DeleteRecordsResponseData.DeleteRecordsPartitionResult, mutable as the generated message is."""

    partition_index: int
    low_watermark: int
    error_code: int


@dataclass(eq=False)
class DeleteRecordsPartitionStatus:
    required_offset: int
    response_status: DeleteRecordsPartitionResult
    acks_pending: bool = False

    def __str__(self) -> str:
        return (f"[acksPending: {self.acks_pending}, error: {Errors.for_code(self.response_status.error_code)}, "
                f"lowWatermark: {self.response_status.low_watermark}, requiredOffset: {self.required_offset}]")


class DelayedDeleteRecords(DelayedOperation):
    def __init__(self, delay_ms: int, delete_records_status: Mapping[TopicPartition, DeleteRecordsPartitionStatus],
                 replica_manager: ReplicaManager,
                 response_callback: Callable[[dict[TopicPartition, DeleteRecordsPartitionResult]], None]) -> None:
        super().__init__(delay_ms)
        self.delete_records_status = delete_records_status
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        for topic_partition, status in delete_records_status.items():
            if status.response_status.error_code == Errors.NONE.code:
                status.acks_pending = True
                status.response_status.error_code = Errors.REQUEST_TIMED_OUT.code
            else:
                status.acks_pending = False
            log.debug("Initial partition status for %s is %s", topic_partition, status)

    def try_complete(self) -> bool:
        """Done when each pending partition's low watermark reached its offset, or the partition moved away."""
        from kafka_edu.v3_9.core.server.replica_manager import HostedPartition

        for topic_partition, status in self.delete_records_status.items():
            if status.acks_pending:
                hosted = self.replica_manager.get_partition(topic_partition)
                if isinstance(hosted, HostedPartition.Online):
                    if hosted.partition.leader_log_if_local() is not None:
                        leader_lw = hosted.partition.low_watermark_if_leader()
                        low_watermark_reached, error, lw = leader_lw >= status.required_offset, Errors.NONE, leader_lw
                    else:
                        low_watermark_reached, error, lw = False, Errors.NOT_LEADER_OR_FOLLOWER, INVALID_LOW_WATERMARK
                elif isinstance(hosted, HostedPartition.Offline):
                    low_watermark_reached, error, lw = False, Errors.KAFKA_STORAGE_ERROR, INVALID_LOW_WATERMARK
                else:
                    low_watermark_reached, error, lw = False, Errors.UNKNOWN_TOPIC_OR_PARTITION, INVALID_LOW_WATERMARK
                if error != Errors.NONE or low_watermark_reached:
                    status.acks_pending = False
                    status.response_status.error_code = error.code
                    status.response_status.low_watermark = lw

        if not any(status.acks_pending for status in self.delete_records_status.values()):
            return self.force_complete()
        return False

    def on_expiration(self) -> None:
        pass  # Kafka only counts expirations per partition (a metric, not ported)

    def on_complete(self) -> None:
        response_status = {tp: status.response_status for tp, status in self.delete_records_status.items()}
        self.response_callback(response_status)
