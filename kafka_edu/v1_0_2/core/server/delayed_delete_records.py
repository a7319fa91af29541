"""Port of core/src/main/scala/kafka/server/DelayedDeleteRecords.scala (Kafka 1.0.2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperation
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.replica_manager import ReplicaManager

INVALID_LOW_WATERMARK = -1  # DeleteRecordsResponse.INVALID_LOW_WATERMARK


@dataclass
class DeleteRecordsPartitionResponse:
    """DeleteRecordsResponse.PartitionResponse: the partition's low watermark, or the error."""

    low_watermark: int
    error: Errors


@dataclass
class DeleteRecordsPartitionStatus:
    required_offset: int
    response_status: DeleteRecordsPartitionResponse
    acks_pending: bool = False


class DelayedDeleteRecords(DelayedOperation):
    """A DeleteRecords answered once every live replica's log start offset reached the requested offset (the
    partition's low watermark), or at its timeout with REQUEST_TIMED_OUT for the partitions still behind."""

    def __init__(self, delay_ms: int, delete_records_status: dict[TopicPartition, DeleteRecordsPartitionStatus],
                 replica_manager: ReplicaManager,
                 response_callback: Callable[[dict[TopicPartition, DeleteRecordsPartitionResponse]], None]) -> None:
        super().__init__(delay_ms)
        self.delete_records_status = delete_records_status
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        for status in delete_records_status.values():
            if status.response_status.error == Errors.NONE:
                # what the client gets unless the followers catch up in time
                status.acks_pending = True
                status.response_status.error = Errors.REQUEST_TIMED_OUT
            else:
                status.acks_pending = False

    def try_complete(self) -> bool:
        for topic_partition, status in self.delete_records_status.items():
            if not status.acks_pending:
                continue
            partition = self.replica_manager.get_partition(topic_partition)
            if partition is None:
                low_watermark_reached, error, low_watermark = False, Errors.UNKNOWN_TOPIC_OR_PARTITION, \
                    INVALID_LOW_WATERMARK
            elif partition.leader_replica_if_local() is None:
                low_watermark_reached, error, low_watermark = False, Errors.NOT_LEADER_OR_FOLLOWER, \
                    INVALID_LOW_WATERMARK
            else:
                low_watermark = partition.low_watermark_if_leader()
                low_watermark_reached, error = low_watermark >= status.required_offset, Errors.NONE
            if error != Errors.NONE or low_watermark_reached:
                status.acks_pending = False
                status.response_status.error = error
                status.response_status.low_watermark = low_watermark
        if not any(status.acks_pending for status in self.delete_records_status.values()):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self.response_callback({tp: status.response_status for tp, status in self.delete_records_status.items()})
