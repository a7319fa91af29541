"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala (Kafka 1.0.2), the part that
serves idempotent producers: InitProducerId without a transactional id. A KRaft broker (Kafka 3.9) builds it with
a producer id manager factory instead of ZooKeeper: 3.9's RPCProducerIdManager, which asks the controller."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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

    def __init__(self, broker_id: int, zk_utils: ZkUtils | None,
                 create_producer_id_manager: Callable[[], Any] | None = None) -> None:
        self.broker_id = broker_id
        self.zk_utils = zk_utils
        self.create_producer_id_manager = create_producer_id_manager or (
            lambda: ProducerIdManager(self.broker_id, self.zk_utils))
        self.producer_id_manager: Any = None

    def startup(self) -> None:
        log.info("Starting up.")
        self.producer_id_manager = self.create_producer_id_manager()
        log.info("Startup complete.")

    def handle_init_producer_id(self, transactional_id: str | None) -> InitProducerIdResult:
        if transactional_id is None:
            try:
                return InitProducerIdResult(self.producer_id_manager.generate_producer_id(), 0, Errors.NONE)
            except Exception as e:  # 3.9: e.g. COORDINATOR_LOAD_IN_PROGRESS while no id block is at hand
                return InitProducerIdResult(-1, -1, Errors.for_exception(e))
        if transactional_id == "":
            return InitProducerIdResult(-1, -1, Errors.INVALID_REQUEST)
        return InitProducerIdResult(-1, -1, Errors.NOT_COORDINATOR)

    def shutdown(self) -> None:
        log.info("Shutting down.")
        if self.producer_id_manager is not None:
            self.producer_id_manager.shutdown()
        log.info("Shutdown complete.")
