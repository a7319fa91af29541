"""Port of metadata/src/main/java/org/apache/kafka/controller/ProducerIdControlManager.java (Kafka 3.9)."""

from __future__ import annotations

import logging

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import UnknownServerException
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, ProducerIdsRecord
from kafka_edu.v3_9.metadata.controller.cluster_control_manager import ClusterControlManager
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.server_common.server.common.producer_ids_block import PRODUCER_ID_BLOCK_SIZE, ProducerIdsBlock
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_long import TimelineLong
from kafka_edu.v3_9.server_common.timeline.timeline_object import TimelineObject

LONG_MAX = (1 << 63) - 1


class ProducerIdControlManager:
    """Hands out producer ids in blocks of 1000: each block is a ProducerIdsRecord in the metadata log, so a block
    is never given twice, by this controller or by the next one."""

    def __init__(self, cluster_control_manager: ClusterControlManager, snapshot_registry: SnapshotRegistry,
                 log_context: str = "") -> None:
        self.log = logging.LoggerAdapter(logging.getLogger("org.apache.kafka.controller.ProducerIdControlManager"),
                                         {"log_context": log_context})
        self.cluster_control_manager = cluster_control_manager
        self._next_producer_block: TimelineObject[ProducerIdsBlock] = TimelineObject(snapshot_registry,
                                                                                    ProducerIdsBlock.EMPTY)
        self._broker_epoch = TimelineLong(snapshot_registry)

    @step("TX39.pidctl")
    def generate_next_producer_id(self, broker_id: int, broker_epoch: int) -> ControllerResult[ProducerIdsBlock]:
        self.cluster_control_manager.check_broker_epoch(broker_id, broker_epoch)
        first_producer_id_in_block = self._next_producer_block.get().first_producer_id()
        if first_producer_id_in_block > LONG_MAX - PRODUCER_ID_BLOCK_SIZE:
            raise UnknownServerException("Exhausted all producerIds as the next block's end producerId has exceeded "
                                         "the int64 type limit")
        block = ProducerIdsBlock(broker_id, first_producer_id_in_block, PRODUCER_ID_BLOCK_SIZE)
        record = ProducerIdsRecord(broker_id=broker_id, broker_epoch=broker_epoch,
                                   next_producer_id=block.next_block_first_id())
        return ControllerResult.of([ApiMessageAndVersion(record, 0)], block)

    def next_producer_block(self) -> ProducerIdsBlock:
        return self._next_producer_block.get()

    def replay(self, record: ProducerIdsRecord) -> None:
        next_block = self._next_producer_block.get()
        # a controller that has replayed nothing yet starts from EMPTY, whatever the record says
        if next_block is not ProducerIdsBlock.EMPTY and record.next_producer_id <= next_block.first_producer_id():
            raise RuntimeError(f"Next Producer ID from replayed record ({record.next_producer_id}) is not greater "
                               f"than current next Producer ID in block ({next_block})")
        self.log.info("Replaying ProducerIdsRecord %s", record)
        self._next_producer_block.set(ProducerIdsBlock(record.broker_id, record.next_producer_id,
                                                       PRODUCER_ID_BLOCK_SIZE))
        self._broker_epoch.set(record.broker_epoch)
