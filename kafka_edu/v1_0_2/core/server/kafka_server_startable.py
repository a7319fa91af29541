"""Port of core/src/main/scala/kafka/server/KafkaServerStartable.scala (Kafka 1.0.2)."""

from __future__ import annotations

import logging
import os
import sys

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.core.server.broker_states import BrokerStates
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.kafka_server import KafkaServer

log = logging.getLogger("kafka.server.KafkaServerStartable")


class KafkaServerStartable:
    """Wraps a KafkaServer for `Kafka.main`: a failed startup exits the process, a failed shutdown halts it."""

    def __init__(self, server_config: KafkaConfig) -> None:
        self.server = KafkaServer(server_config)

    @staticmethod
    @step("LC.main.2")
    def from_props(server_props: dict[str, str]) -> KafkaServerStartable:
        return KafkaServerStartable(KafkaConfig.from_props(server_props))

    def startup(self) -> None:
        try:
            self.server.startup()
        except BaseException as e:
            log.critical("Exiting Kafka.")
            raise SystemExit(1) from e

    def shutdown(self) -> None:
        try:
            self.server.shutdown()
        except BaseException:
            log.critical("Halting Kafka.")
            sys.stdout.flush()
            os._exit(1)  # Exit.halt: no further shutdown hooks

    def set_server_state(self, new_state: BrokerStates) -> None:
        self.server.broker_state.new_state(new_state)

    def await_shutdown(self) -> None:
        self.server.await_shutdown()
