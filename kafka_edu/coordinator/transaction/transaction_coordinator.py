"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala (Kafka 1.0.2), the part that
serves idempotent producers: InitProducerId without a transactional id."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from kafka_edu.coordinator.transaction.producer_id_manager import ProducerIdManager
from kafka_edu.protocol.errors import Errors
from kafka_edu.utils.zk_utils import ZkUtils

log = logging.getLogger("kafka.coordinator.transaction.TransactionCoordinator")


@dataclass(frozen=True)
class InitProducerIdResult:
    producer_id: int
    producer_epoch: int
    error: Errors


class TransactionCoordinator:
    """Gives every idempotent producer a fresh producer id; transactions themselves are not ported yet, so a
    transactional id is answered as Kafka answers a broker that does not coordinate it (NOT_COORDINATOR)."""

    def __init__(self, broker_id: int, zk_utils: ZkUtils) -> None:
        self.broker_id = broker_id
        self.zk_utils = zk_utils
        self.producer_id_manager: ProducerIdManager | None = None

    def startup(self) -> None:
        log.info("Starting up.")
        self.producer_id_manager = ProducerIdManager(self.broker_id, self.zk_utils)
        log.info("Startup complete.")

    def handle_init_producer_id(self, transactional_id: str | None) -> InitProducerIdResult:
        if transactional_id is None:
            return InitProducerIdResult(self.producer_id_manager.generate_producer_id(), 0, Errors.NONE)
        if transactional_id == "":
            return InitProducerIdResult(-1, -1, Errors.INVALID_REQUEST)
        return InitProducerIdResult(-1, -1, Errors.NOT_COORDINATOR)

    def shutdown(self) -> None:
        log.info("Shutting down.")
        if self.producer_id_manager is not None:
            self.producer_id_manager.shutdown()
        log.info("Shutdown complete.")
