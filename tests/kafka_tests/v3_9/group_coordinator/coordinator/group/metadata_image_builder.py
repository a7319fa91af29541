"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/MetadataImageBuilder.java (Kafka 3.9).

Builds a MetadataImage by replaying metadata records, as the group coordinator's tests need it: topics whose
partitions have two replicas spread over four brokers, and optionally a rack for each of those brokers.
"""

from __future__ import annotations

import uuid

from kafka_edu.v3_9.metadata.common.metadata import PartitionRecord, RegisterBrokerRecord, TopicRecord
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance


class MetadataImageBuilder:
    def __init__(self) -> None:
        self._delta = MetadataDelta(MetadataImage.EMPTY)

    def add_topic(self, topic_id: uuid.UUID, topic_name: str, num_partitions: int) -> MetadataImageBuilder:
        # partition i is on brokers i % 4 and (i + 1) % 4
        self._delta.replay(TopicRecord(topic_id=topic_id, name=topic_name))
        for i in range(num_partitions):
            self._delta.replay(PartitionRecord(topic_id=topic_id, partition_id=i, replicas=(i % 4, (i + 1) % 4),
                                               isr=()))
        return self

    def add_racks(self) -> MetadataImageBuilder:
        """Registers brokers 0 to 3, broker i in rack "rack<i>"."""
        for i in range(4):
            # the other fields keep the defaults of Kafka's generated RegisterBrokerRecord
            self._delta.replay(RegisterBrokerRecord(broker_id=i, incarnation_id=uuid.UUID(int=0), broker_epoch=-1,
                                                    end_points=(), features=(), rack="rack" + str(i)))
        return self

    def build(self) -> MetadataImage:
        return self._delta.apply(MetadataProvenance.EMPTY)
