"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/OffsetAndMetadataTest.java (Kafka 3.9).

Kafka mutates one request partition between its assertions; kio's messages are frozen and no single kio version
has both commitTimestamp (v1) and committedLeaderEpoch (v6+), so the OffsetCommit partition is a small mutable
stand-in with the latest generated class's fields, and the TxnOffsetCommit one is kio's, rebuilt with replace().
"""

from __future__ import annotations

import dataclasses

from kio.schema.txn_offset_commit.v4.request import TxnOffsetCommitRequestPartition

from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_value import OffsetCommitValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/OffsetAndMetadataTest.java",
    cases=["testAttributes", "testFromRecord", "testFromRequest", "testFromTransactionalRequest"],
)


@dataclasses.dataclass
class _OffsetCommitRequestPartition:
    """OffsetCommitRequestData.OffsetCommitRequestPartition with every version's fields, settable as in Java."""

    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    commit_timestamp: int = -1
    committed_metadata: str | None = ""


def test_attributes() -> None:
    offset_and_metadata = OffsetAndMetadata(100, 10, "metadata", 1234, 5678)

    assert offset_and_metadata.committed_offset == 100
    assert offset_and_metadata.leader_epoch == 10
    assert offset_and_metadata.metadata == "metadata"
    assert offset_and_metadata.commit_timestamp_ms == 1234
    assert offset_and_metadata.expire_timestamp_ms == 5678


def test_from_record() -> None:
    record = OffsetCommitValue(offset=100, leader_epoch=-1, metadata="metadata", commit_timestamp=1234,
                               expire_timestamp=-1)

    assert OffsetAndMetadata(10, 100, None, "metadata", 1234, None) == OffsetAndMetadata.from_record(10, record)

    record = dataclasses.replace(record, leader_epoch=12, expire_timestamp=5678)

    assert OffsetAndMetadata(11, 100, 12, "metadata", 1234, 5678) == OffsetAndMetadata.from_record(11, record)


def test_from_request() -> None:
    time = MockTime()

    partition = _OffsetCommitRequestPartition(partition_index=0, committed_offset=100, committed_leader_epoch=-1,
                                              committed_metadata=None, commit_timestamp=-1)

    assert (OffsetAndMetadata(100, None, "", time.milliseconds(), None)
            == OffsetAndMetadata.from_request(partition, time.milliseconds(), None))

    partition.committed_leader_epoch = 10
    partition.committed_metadata = "hello"
    partition.commit_timestamp = 1234

    assert (OffsetAndMetadata(100, 10, "hello", 1234, None)
            == OffsetAndMetadata.from_request(partition, time.milliseconds(), None))

    assert (OffsetAndMetadata(100, 10, "hello", 1234, 5678)
            == OffsetAndMetadata.from_request(partition, time.milliseconds(), 5678))


def test_from_transactional_request() -> None:
    time = MockTime()

    partition = TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=100, committed_leader_epoch=-1,
                                                committed_metadata=None)

    assert (OffsetAndMetadata(100, None, "", time.milliseconds(), None)
            == OffsetAndMetadata.from_request(partition, time.milliseconds()))

    partition = dataclasses.replace(partition, committed_leader_epoch=10, committed_metadata="hello")

    assert (OffsetAndMetadata(100, 10, "hello", time.milliseconds(), None)
            == OffsetAndMetadata.from_request(partition, time.milliseconds()))
