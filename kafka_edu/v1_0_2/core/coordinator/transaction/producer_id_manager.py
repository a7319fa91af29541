"""Port of core/src/main/scala/kafka/coordinator/transaction/ProducerIdManager.scala (Kafka 1.0.2)."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.core.utils.zk_utils import PRODUCER_ID_BLOCK_PATH, ZkUtils

log = logging.getLogger("kafka.coordinator.transaction.ProducerIdManager")

PID_BLOCK_SIZE = 1000
LONG_MAX = (1 << 63) - 1


@dataclass(frozen=True)
class ProducerIdBlock:
    broker_id: int
    block_start_id: int
    block_end_id: int


class ProducerIdManager:
    """Hands out producer ids from blocks of 1000 claimed in `/latest_producer_id_block` with a conditional write,
    so no two brokers ever hand out the same id."""

    def __init__(self, broker_id: int, zk_utils: ZkUtils) -> None:
        self.broker_id = broker_id
        self.zk_utils = zk_utils
        self._lock = threading.Lock()
        self.current_producer_id_block = ProducerIdBlock(-1, 0, -1)
        self.next_producer_id = -1
        self.get_new_producer_id_block()
        self.next_producer_id = self.current_producer_id_block.block_start_id

    def get_new_producer_id_block(self) -> None:
        while True:
            data, stat = self.zk_utils.read_data_maybe_null(PRODUCER_ID_BLOCK_PATH)
            if stat is None:
                self.zk_utils.make_sure_persistent_path_exists(PRODUCER_ID_BLOCK_PATH)
                continue
            if data:
                current = parse_producer_id_block_data(data)
                if current.block_end_id > LONG_MAX - PID_BLOCK_SIZE:
                    raise KafkaException("Have exhausted all producerIds.")
                block = ProducerIdBlock(self.broker_id, current.block_end_id + 1, current.block_end_id + PID_BLOCK_SIZE)
            else:
                block = ProducerIdBlock(self.broker_id, 0, PID_BLOCK_SIZE - 1)
            succeeded, _ = self.zk_utils.conditional_update_persistent_path(
                PRODUCER_ID_BLOCK_PATH, generate_producer_id_block_json(block), stat.version)
            if succeeded:
                self.current_producer_id_block = block
                log.info("Acquired new producerId block %s by writing to Zk", block)
                return
            log.debug("Another broker claimed the block first; retrying")

    def generate_producer_id(self) -> int:
        with self._lock:
            if self.next_producer_id > self.current_producer_id_block.block_end_id:
                self.get_new_producer_id_block()
                self.next_producer_id = self.current_producer_id_block.block_start_id + 1
            else:
                self.next_producer_id += 1
            return self.next_producer_id - 1

    def shutdown(self) -> None:
        log.info("Shutdown complete: last producerId assigned %d", self.next_producer_id)


def generate_producer_id_block_json(block: ProducerIdBlock) -> str:
    return json.dumps({"version": 1, "broker": block.broker_id, "block_start": str(block.block_start_id),
                       "block_end": str(block.block_end_id)}, separators=(",", ":"))


def parse_producer_id_block_data(data: str) -> ProducerIdBlock:
    try:
        fields = json.loads(data)
        return ProducerIdBlock(int(fields["broker"]), int(fields["block_start"]), int(fields["block_end"]))
    except (ValueError, KeyError) as e:
        raise KafkaException(f"Error parsing producerId block data: {data}") from e
