"""Port of clients/src/main/java/org/apache/kafka/common/requests/EpochEndOffset.java (Kafka 1.0.2): one partition's
answer to OffsetsForLeaderEpoch."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.protocol.errors import Errors

# RecordBatch.NO_PARTITION_LEADER_EPOCH: no epoch, or no offset known for one
UNDEFINED_EPOCH_OFFSET = -1
UNDEFINED_EPOCH = -1


@dataclass(frozen=True)
class EpochEndOffset:
    """The leader's end offset of the epoch asked about, or the error that kept it from answering."""

    error: Errors
    end_offset: int

    def has_error(self) -> bool:
        return self.error != Errors.NONE
