"""Port of core/src/main/scala/kafka/server/KafkaHealthcheck.scala (Kafka 1.0.2)."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence
from dataclasses import replace

from kafka_edu.v1_0_2.core.utils.zk_utils import ZkStateListener, ZkUtils

log = logging.getLogger("kafka.server.KafkaHealthcheck")


class KafkaHealthcheck:
    """Keeps `/brokers/ids/<id>` alive: an ephemeral znode that exists exactly as long as the broker's session.

    The controller watches `/brokers/ids`; the znode vanishing is how the cluster learns a broker died.
    """

    def __init__(self, broker_id: int, advertised_endpoints: Sequence, zk_utils: ZkUtils, rack: str | None) -> None:
        self.broker_id = broker_id
        self.advertised_endpoints = list(advertised_endpoints)
        self.zk_utils = zk_utils
        self.rack = rack
        self.session_expire_listener = SessionExpireListener(self)

    def startup(self) -> None:
        self.zk_utils.subscribe_state_changes(self.session_expire_listener)
        self.register()

    def shutdown(self) -> None:
        # The znode itself goes when ZkUtils.close ends the session; here we only stop re-registering.
        self.zk_utils.unsubscribe_state_changes(self.session_expire_listener)

    def register(self) -> None:
        jmx_port = int(os.environ.get("JMX_PORT", "-1"))
        updated_endpoints = [e if e.host else replace(e, host=socket.getfqdn()) for e in self.advertised_endpoints]
        # Old clients read the top-level host/port, which only ever describe a PLAINTEXT listener.
        plaintext = next((e for e in updated_endpoints if e.security_protocol == "PLAINTEXT"), None)
        self.zk_utils.register_broker_in_zk(self.broker_id, plaintext.host if plaintext else None,
                                            plaintext.port if plaintext else -1, updated_endpoints, jmx_port,
                                            self.rack)


class SessionExpireListener(ZkStateListener):
    def __init__(self, healthcheck: KafkaHealthcheck) -> None:
        self.healthcheck = healthcheck

    def handle_new_session(self) -> None:
        log.info("re-registering broker info in ZK for broker %d", self.healthcheck.broker_id)
        self.healthcheck.register()
        log.info("done re-registering broker")
