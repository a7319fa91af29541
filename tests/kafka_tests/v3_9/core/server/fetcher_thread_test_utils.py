"""Port of core/src/test/scala/unit/kafka/server/FetcherThreadTestUtils.scala (Kafka 3.9)."""

from __future__ import annotations

import uuid

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import InitialFetchState


def mk_batch(base_offset: int, leader_epoch: int, *records: SimpleRecord):
    """One batch of `records` from `base_offset`, stamped with `leader_epoch`."""
    return next(iter(MemoryRecords.with_records(Compression.NONE, *records, initial_offset=base_offset,
                                                partition_leader_epoch=leader_epoch).batches()))


def initial_fetch_state(topic_id: uuid.UUID | None, fetch_offset: int, leader_epoch: int) -> InitialFetchState:
    return InitialFetchState(topic_id=topic_id, leader=BrokerEndPoint(0, "localhost", 9092),
                             init_offset=fetch_offset, current_leader_epoch=leader_epoch)
