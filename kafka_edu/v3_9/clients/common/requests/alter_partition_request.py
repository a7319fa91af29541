"""Port of clients/src/main/java/org/apache/kafka/common/requests/AlterPartitionRequest.java (Kafka 3.9): a partition
leader's ISR changes for the controller, and the builder that settles their version (topics by name up to 1, by id
from 2, ISR members with broker epochs from 3).

AlterPartitionRequestData, TopicData and PartitionData stand for the message class Kafka generates from
AlterPartitionRequest.json: every field of every version, so that the builder can fill in whichever version goes out.
The wire object of one version is kio's.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, field
from typing import Any

from kio.schema.alter_partition.v3.request import BrokerState
from kio.static.primitive import i32

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build

ZERO_UUID = uuid.UUID(int=0)


@dataclass
class PartitionData:
    partition_index: int
    leader_epoch: int
    partition_epoch: int
    new_isr: list[int] = field(default_factory=list)  # versions 0-2
    new_isr_with_epochs: list[BrokerState] = field(default_factory=list)  # versions 3+
    leader_recovery_state: int = 0  # versions 1+


@dataclass
class TopicData:
    topic_name: str = ""  # versions 0-1
    topic_id: uuid.UUID = ZERO_UUID  # versions 2+
    partitions: list[PartitionData] = field(default_factory=list)


@dataclass
class AlterPartitionRequestData:
    broker_id: int
    broker_epoch: int = -1
    topics: list[TopicData] = field(default_factory=list)


class AlterPartitionRequest:
    """One version of the request: `data` is kio's object of that version, what goes on the wire."""

    def __init__(self, data: Any, api_version: int) -> None:
        self.api_key = ApiKeys.ALTER_PARTITION
        self._data = data
        self._version = api_version

    def data(self) -> Any:
        return self._data

    def version(self) -> int:
        return self._version

    class Builder:
        """The version is settled late, when the request is sent: whatever `build` is given between the oldest and
        the latest allowed version. Every topic must carry both its name and its id."""

        def __init__(self, data: AlterPartitionRequestData, can_use_topic_ids: bool) -> None:
            self.api_key = ApiKeys.ALTER_PARTITION
            self.oldest_allowed_version = ApiKeys.ALTER_PARTITION.oldest_version
            # version 1 is the newest that names topics
            self.latest_allowed_version = ApiKeys.ALTER_PARTITION.latest_version if can_use_topic_ids else 1
            self.data = data

        def build(self, version: int | None = None) -> AlterPartitionRequest:
            """At `version`, or the latest allowed one (AbstractRequest.Builder.build()). Below version 3 the ISR
            goes without broker epochs."""
            if version is None:
                version = self.latest_allowed_version
            topics = []
            for topic_data in self.data.topics:
                partitions = []
                for partition_data in topic_data.partitions:
                    values = dataclasses.asdict(partition_data)
                    if version < 3 and partition_data.new_isr_with_epochs:
                        values["new_isr"] = tuple(i32(b.broker_id) for b in partition_data.new_isr_with_epochs)
                        values["new_isr_with_epochs"] = ()
                    partitions.append(values)
                topics.append({"topic_name": topic_data.topic_name, "topic_id": topic_data.topic_id,
                               "partitions": partitions})
            message = build(ApiKeys.ALTER_PARTITION.request_schema(version), broker_id=self.data.broker_id,
                            broker_epoch=self.data.broker_epoch, topics=topics)
            return AlterPartitionRequest(message, version)

        def __str__(self) -> str:
            return str(self.data)


def new_isr_to_simple_new_isr_with_broker_epochs(new_isr: list[int]) -> list[BrokerState]:
    return [BrokerState(broker_id=i32(broker_id)) for broker_id in new_isr]
